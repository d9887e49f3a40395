// `shapelab rules [--check] [--json] [--rules FILE]`: the rewrite rule table and, with --check,
// each rule's class for all input shapes (proptests/Classify.h) with a witness where it is not
// strict.
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "driver/Command.h"
#include "lang/Json.h"
#include "interp/Threads.h"
#include "proptests/Differential.h"
#include "proptests/Classify.h"
#include "proptests/Shards.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace shapelab::driver {

using namespace lang; // the session, its replies and their JSON

namespace {

struct RulesOptions {
  CommonOptions common;
  bool check = false;
  std::string file;
  int maxRank = 4;
  int jobs = 0;
};

int rulesCommand(const RulesOptions &o) {
  std::vector<rewrite::Rule> rules = o.file.empty() ? rewrite::defaultRules() : rewrite::loadRules(o.file);
  // With --check, the rules are classified on several threads (a solver each; every rule's
  // instances are programs of their own) and printed in the file's order.
  std::vector<std::optional<rewrite::RuleClass>> classes(rules.size());
  if (o.check) {
    std::atomic<std::size_t> next{0};
    const unsigned jobs = unsigned(std::min<std::size_t>(o.jobs > 0 ? unsigned(o.jobs) : std::max(1u, std::thread::hardware_concurrency()), rules.size()));
    interp::runOnThreads(
        std::max(1u, jobs),
        [&] {
          Solver solver(o.common.solverOptions());
          for (std::size_t i; (i = next++) < rules.size();) classes[i] = rewrite::classifyRule(rules[i], solver, o.maxRank);
        },
        [&] { next = rules.size(); });
  }
  bool unsound = false;
  for (std::size_t index = 0; index < rules.size(); ++index) {
    const rewrite::Rule &r = rules[index];
    Json j;
    j["rule"] = r.name;
    j["phase"] = rewrite::spelling(r.phase);
    j["exact"] = r.exact;
    j["text"] = r.body();
    j["pytensor"] = r.pytensor.empty() ? Json(nullptr) : Json(r.pytensor);
    std::string line = r.heading();
    if (o.check) {
      const rewrite::RuleClass &c = *classes[index];
      unsound |= c.soundness == rewrite::Soundness::Unsound;
      j["class"] = rewrite::spelling(c.soundness);
      j["classes"] = {{"numpy", rewrite::spelling(c.numpy)}, {"static", rewrite::spelling(c.static_)}};
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
      j["undecided"] = c.undecided;
      if (c.undecided) j["undecided_example"] = {{"program", c.undecidedProgram}, {"reason", c.undecidedReason}};
      line += "\n    " + std::string(rewrite::spelling(c.soundness)) +
              (c.numpy != c.static_ ? std::string(" (numpy mode: ") + rewrite::spelling(c.numpy) + ", static mode: " + rewrite::spelling(c.static_) + ")" : "") + " (" + std::to_string(c.applications) +
              " applications in " + std::to_string(c.instances) + " programs" +
              (c.undecided ? "; " + std::to_string(c.undecided) + " undecided: " + c.undecidedReason : "") + ")";
      if (c.soundness != rewrite::Soundness::Strict) {
        line += ": " + c.reason + (c.point && !c.point->empty() ? " at " + c.point->toString() : "") + "; the program:\n";
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
  int64_t cases = 200;
  uint64_t seed = 1;
  int maxNodes = 10;
  int jobs = 1;
  std::string shard; // "K/N", or empty: the whole run
  std::string plant; // for testing the harness: DifferentialOptions::planted
};

int proptestCommand(const ProptestOptions &o) {
  proptests::ShardOptions so;
  so.cases = o.cases;
  so.seed = o.seed;
  if (!o.shard.empty()) {
    const auto slash = o.shard.find('/');
    auto number = [&](const std::string &t) -> int64_t {
      if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos)
        throw UserError("--shard must be K/N with integers 0 <= K < N, not '" + o.shard + "'");
      return std::stoll(t);
    };
    if (slash == std::string::npos) throw UserError("--shard must be K/N with integers 0 <= K < N, not '" + o.shard + "'");
    so.shard = number(o.shard.substr(0, slash));
    so.shards = number(o.shard.substr(slash + 1));
  }
  so.check.statements = o.maxNodes;
  so.check.mode = parseBroadcastMode(o.common.mode);
  so.check.planted = o.plant;
  so.solverOptions = o.common.solverOptions();
  const unsigned jobs = unsigned(std::min<int64_t>(o.jobs > 0 ? unsigned(o.jobs) : std::max(1u, std::thread::hardware_concurrency()), o.cases));
  so.jobs = jobs;
  auto start = std::chrono::steady_clock::now();
  const proptests::ShardResult result = proptests::runShard(so);
  const std::optional<proptests::DifferentialFailure> &failure = result.failure;
  const proptests::DifferentialStats &stats = result.totals;
  // The cases up to the first failure (all of them ran), or all.
  const int64_t run = result.casesRun;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string shardText = o.shard.empty() ? "" : " of shard " + std::to_string(so.shard) + "/" + std::to_string(so.shards);
  if (o.common.json) {
    Json j;
    j["command"] = "proptest";
    j["cases"] = run;
    j["seed"] = o.seed;
    j["mode"] = o.common.mode;
    j["jobs"] = jobs;
    j["passed"] = !failure;
    j["seconds"] = seconds;
    j["cases_per_second"] = seconds > 0 ? double(run) / seconds : 0.0;
    j["evaluations"] = stats.evaluations;
    j["errors_agreed"] = stats.errorsAgreed;
    j["rewritten"] = stats.rewritten;
    Json fired = Json::object();
    for (const auto &[rule, k] : stats.fired) fired[rule] = k;
    j["fired"] = fired;
    j["failure"] = failure ? Json(failure->message) : Json(nullptr);
    j["script"] = failure ? Json(failure->script()) : Json(nullptr);
    j["case"] = failure ? Json(result.failedAt) : Json(nullptr);
    if (!o.shard.empty()) j["shard"] = std::to_string(so.shard) + "/" + std::to_string(so.shards);
    std::cout << dumpJson(j) << "\n";
  } else if (failure) {
    std::cout << "FAILED at case " << result.failedAt << " (after " << run << " cases" << shardText << "): " << failure->message
              << "\nshrunk program (shapelab run):\n" << failure->script();
  } else {
    std::cout << run << " cases" << shardText << " passed in " << seconds << " s (" << (seconds > 0 ? double(run) / seconds : 0.0)
              << " cases/s; " << stats.evaluations << " evaluations compared, " << stats.errorsAgreed
              << " errors of the same kind, " << stats.rewritten << " outputs rewritten)\n";
    if (!stats.fired.empty()) {
      std::cout << "rules applied:";
      for (const auto &[rule, k] : stats.fired) std::cout << " " << rule << " x" << k;
      std::cout << "\n";
    }
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
  pt->add_option("--shard", p->shard, "K/N: only the cases k with k % N == K (--cases counts all shards' cases; a failure reports its case k)");
  pt->add_option("--plant-failure", p->plant, "for testing the harness: a program with a statement containing this text fails");
  pt->add_option("--jobs", p->jobs, "threads checking cases at once (0: one per core); the failure reported is the first by index whatever the number")
      ->capture_default_str()->check(CLI::Range(0, 256));
  addCommonOptions(pt, p->common, kJson | kMode);
  pt->footer("Each case: a random program, rewritten (checked, strict, exact rules), run at 3 size points by the\n"
             "reference interpreter (original) and the optimized one (rewritten): same error kind, dtype, shape\n"
             "and bits; inputs unmodified. A failure is shrunk and printed as a `shapelab run` script.\n"
             "After a pass, the applications of each rule (JSON: \"fired\": {rule: count}).\n"
             "Exit codes: 0 all passed, 1 a case failed, 2 bad options.");
  pt->callback([p] { exitCode() = reportErrors("proptest", [&] { return proptestCommand(*p); }, p->common.json); });

  auto o = std::make_shared<RulesOptions>();
  CLI::App *cmd = app.add_subcommand("rules", "the rewrite rules; with --check, each rule's class for all shapes");
  cmd->add_flag("--check", o->check, "classify every rule: strict, valid-graph (masks an error) or unsound");
  cmd->add_option("--rules", o->file, "a rule file to read instead of the shipped rules");
  cmd->add_option("--jobs", o->jobs, "threads classifying rules at once (0: one per core)")->capture_default_str()->check(CLI::Range(0, 256));
  cmd->add_option("--max-rank", o->maxRank, "largest input rank --check instantiates")->capture_default_str()->check(CLI::Range(0, 6));
  addCommonOptions(cmd, o->common, kJson);
  cmd->footer("JSON (one object per rule and line): {\"rule\", \"phase\", \"exact\", \"text\", \"pytensor\" (the PyTensor\n"
              "rewrite it transcribes, or null)} and, with --check, \"class\": \"strict\"|\"valid-graph\"|\"unsound\" (the worse\n"
              "of both modes), \"classes\": {\"numpy\", \"static\"}, \"witness\": null or {\"program\", \"point\", \"reason\"},\n"
              "\"instances\", \"applications\", \"undecided\" (applications the solver could not decide: left out of the class).\n"
              "Exit codes: 0 listed (and no rule unsound), 1 some rule is unsound, 2 the rule file does not load.");
  cmd->callback([o] { exitCode() = reportErrors("rules", [&] { return rulesCommand(*o); }, o->common.json); });
}

} // namespace shapelab::driver
