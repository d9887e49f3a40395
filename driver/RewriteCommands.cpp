// `shapelab rules [--check] [--json] [--rules FILE]`: the rewrite rule table and, with --check,
// each rule's class for all input shapes (rewrite/Classify.h) with a witness where it is not
// strict.
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "driver/Command.h"
#include "driver/Json.h"
#include "rewrite/Classify.h"

namespace shapelab::driver {

namespace {

struct RulesOptions {
  CommonOptions common;
  bool check = false;
  std::string file;
  int maxRank = 4;
};

int rulesCommand(const RulesOptions &o) {
  std::vector<rewrite::Rule> rules = o.file.empty() ? rewrite::defaultRules() : rewrite::loadRules(o.file);
  Solver solver(o.common.solverOptions());
  bool unsound = false;
  for (const rewrite::Rule &r : rules) {
    Json j;
    j["rule"] = r.name;
    j["phase"] = rewrite::spelling(r.phase);
    j["exact"] = r.exact;
    j["text"] = r.builtin ? r.description : r.text.substr(r.text.find(':') + 2);
    std::string line = r.name + " [" + rewrite::spelling(r.phase) + (r.exact ? "" : ", inexact") + "]: " + j["text"].get<std::string>();
    if (o.check) {
      rewrite::RuleClass c = rewrite::classifyRule(r, solver, o.maxRank);
      unsound |= c.soundness == rewrite::Soundness::Unsound;
      j["class"] = rewrite::spelling(c.soundness);
      if (c.soundness == rewrite::Soundness::Strict) {
        j["witness"] = nullptr;
      } else {
        Json w;
        w["program"] = c.program;
        w["point"] = c.point ? assignmentJson(*c.point) : Json(nullptr);
        w["reason"] = c.reason;
        j["witness"] = w;
      }
      j["instances"] = c.instances;
      j["applications"] = c.applications;
      line += "\n    " + std::string(rewrite::spelling(c.soundness)) + " (" + std::to_string(c.applications) +
              " applications in " + std::to_string(c.instances) + " programs)";
      if (c.soundness != rewrite::Soundness::Strict) {
        line += ": " + c.reason + (c.point ? " at " + c.point->toString() : "") + "; the program:\n";
        std::istringstream p(c.program);
        for (std::string l; std::getline(p, l);) line += "      " + l + "\n";
        line.pop_back();
      }
    }
    std::cout << (o.common.json ? dumpJson(j) : line) << "\n";
    std::cout.flush();
  }
  return unsound ? kExitShapeError : kExitOk;
}

} // namespace

void addRewriteCommands(CLI::App &app) {
  auto o = std::make_shared<RulesOptions>();
  CLI::App *cmd = app.add_subcommand("rules", "the rewrite rules; with --check, each rule's class for all shapes");
  cmd->add_flag("--check", o->check, "classify every rule: strict, valid-graph (masks an error) or unsound");
  cmd->add_option("--rules", o->file, "a rule file to read instead of the shipped rules");
  cmd->add_option("--max-rank", o->maxRank, "largest input rank --check instantiates")->capture_default_str()->check(CLI::Range(0, 6));
  addCommonOptions(cmd, o->common, kJson);
  cmd->footer("JSON (one object per rule and line): {\"rule\", \"phase\", \"exact\", \"text\"} and, with --check,\n"
              "\"class\": \"strict\"|\"valid-graph\"|\"unsound\", \"witness\": null or {\"program\", \"point\", \"reason\"},\n"
              "\"instances\", \"applications\".\n"
              "Exit codes: 0 listed (and no rule unsound), 1 some rule is unsound, 2 the rule file does not load.");
  cmd->callback([o] { exitCode() = reportErrors("rules", [&] { return rulesCommand(*o); }); });
}

} // namespace shapelab::driver
