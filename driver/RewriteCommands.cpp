// `shapelab rules [--check] [--json] [--rules FILE]`: the rewrite rule table and, with --check,
// each rule's class for all input shapes (rewrite/Classify.h) with a witness where it is not
// strict.
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "driver/Command.h"
#include "driver/Json.h"
#include "proptests/Differential.h"
#include "rewrite/Classify.h"

#include <chrono>

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
    j["text"] = r.body();
    std::string line = r.heading();
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

struct ProptestOptions {
  CommonOptions common;
  int cases = 200;
  uint64_t seed = 1;
  int maxNodes = 10;
};

int proptestCommand(const ProptestOptions &o) {
  proptests::DifferentialOptions d;
  d.statements = o.maxNodes;
  d.mode = parseBroadcastMode(o.common.mode);
  proptests::DifferentialStats stats;
  auto start = std::chrono::steady_clock::now();
  std::optional<proptests::DifferentialFailure> failure;
  int run = 0;
  // One solver for the run: the cases ask much the same questions of n and m. Its memo is
  // cleared now and then so that memory stays bounded on long runs.
  Solver solver(o.common.solverOptions());
  d.solver = &solver;
  for (; run < o.cases && !failure; ++run) {
    if (run % 1024 == 1023) solver.clearMemo();
    failure = proptests::checkRandomProgram(o.seed + uint64_t(run), d, &stats);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (o.common.json) {
    Json j;
    j["command"] = "proptest";
    j["cases"] = run;
    j["seed"] = o.seed;
    j["mode"] = o.common.mode;
    j["passed"] = !failure;
    j["seconds"] = seconds;
    j["cases_per_second"] = seconds > 0 ? run / seconds : 0.0;
    j["evaluations"] = stats.evaluations;
    j["errors_agreed"] = stats.errorsAgreed;
    j["rewritten"] = stats.rewritten;
    j["failure"] = failure ? Json(failure->message) : Json(nullptr);
    j["script"] = failure ? Json(failure->script()) : Json(nullptr);
    std::cout << dumpJson(j) << "\n";
  } else if (failure) {
    std::cout << "FAILED after " << run << " cases: " << failure->message << "\nshrunk program (shapelab run):\n"
              << failure->script();
  } else {
    std::cout << run << " cases passed in " << seconds << " s (" << (seconds > 0 ? run / seconds : 0.0)
              << " cases/s; " << stats.evaluations << " evaluations compared, " << stats.errorsAgreed
              << " errors of the same kind, " << stats.rewritten << " outputs rewritten)\n";
  }
  return failure ? kExitShapeError : kExitOk;
}

} // namespace

void addRewriteCommands(CLI::App &app) {
  auto p = std::make_shared<ProptestOptions>();
  CLI::App *pt = app.add_subcommand("proptest", "random programs: reference vs rewritten + optimized interpreter");
  pt->add_option("--cases", p->cases, "programs to check")->capture_default_str()->check(CLI::Range(1, 100000000));
  pt->add_option("--seed", p->seed, "seed of the first program (case k uses seed + k)")->capture_default_str();
  pt->add_option("--max-nodes", p->maxNodes, "statements per program")->capture_default_str()->check(CLI::Range(1, 1000));
  addCommonOptions(pt, p->common, kJson | kMode);
  pt->footer("Each case: a random program, rewritten (checked, strict, exact rules), run at 3 size points by the\n"
             "reference interpreter (original) and the optimized one (rewritten): same error kind, dtype, shape\n"
             "and bits; inputs unmodified. A failure is shrunk and printed as a `shapelab run` script.\n"
             "Exit codes: 0 all passed, 1 a case failed, 2 bad options.");
  pt->callback([p] { exitCode() = reportErrors("proptest", [&] { return proptestCommand(*p); }); });

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
