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
  int cases = 200;
  uint64_t seed = 1;
  int maxNodes = 10;
  int jobs = 1;
};

/// What one run of cases found: the first failing case (by index), and the counts.
struct ProptestRun {
  std::optional<proptests::DifferentialFailure> failure;
  int failedAt = -1; // index of the failing case, or -1
  proptests::DifferentialStats stats;
};

/// Cases 0..cases-1 (case k uses seed + k) on `jobs` threads, each with its own solver (an isl
/// context serves one thread). A thread takes the next case not yet taken; after a failure no
/// case past it is taken, and the cases before it still run, so the failure reported is the first
/// one by index, as on one thread, whatever the number of threads.
ProptestRun runCases(const ProptestOptions &o, const proptests::DifferentialOptions &base, unsigned jobs) {
  ProptestRun out;
  std::atomic<int> next{0};
  std::atomic<int> firstFailure{o.cases}; // no case at or past it is taken
  std::mutex lock;                        // guards out
  auto worker = [&] {
    // One solver per thread: the cases ask much the same questions of n and m. Its memo is
    // cleared now and then so that memory stays bounded on long runs.
    Solver solver(o.common.solverOptions());
    proptests::DifferentialOptions d = base;
    d.solver = &solver;
    proptests::DifferentialStats stats;
    int done = 0;
    for (int k; (k = next.fetch_add(1)) < firstFailure.load();) {
      if (++done % 1024 == 0) solver.clearMemo();
      std::optional<proptests::DifferentialFailure> f = proptests::checkRandomProgram(o.seed + uint64_t(k), d, &stats);
      if (!f) continue;
      std::lock_guard<std::mutex> guard(lock);
      if (out.failedAt < 0 || k < out.failedAt) {
        out.failedAt = k;
        out.failure = std::move(f);
        firstFailure.store(k);
      }
    }
    std::lock_guard<std::mutex> guard(lock);
    out.stats.programs += stats.programs;
    out.stats.evaluations += stats.evaluations;
    out.stats.rewritten += stats.rewritten;
    out.stats.errorsAgreed += stats.errorsAgreed;
  };
  // A worker's exception (bad solver options, no memory) stops the others before their next case
  // and reaches the caller.
  interp::runOnThreads(jobs, worker, [&] { firstFailure.store(-1); });
  return out;
}

int proptestCommand(const ProptestOptions &o) {
  proptests::DifferentialOptions d;
  d.statements = o.maxNodes;
  d.mode = parseBroadcastMode(o.common.mode);
  unsigned jobs = o.jobs > 0 ? unsigned(o.jobs) : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, unsigned(o.cases));
  auto start = std::chrono::steady_clock::now();
  ProptestRun result = runCases(o, d, jobs);
  std::optional<proptests::DifferentialFailure> &failure = result.failure;
  const proptests::DifferentialStats &stats = result.stats;
  // The cases up to the first failure (all of them ran), or all.
  int run = failure ? result.failedAt + 1 : o.cases;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (o.common.json) {
    Json j;
    j["command"] = "proptest";
    j["cases"] = run;
    j["seed"] = o.seed;
    j["mode"] = o.common.mode;
    j["jobs"] = jobs;
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
  pt->add_option("--jobs", p->jobs, "threads checking cases at once (0: one per core); the failure reported is the first by index whatever the number")
      ->capture_default_str()->check(CLI::Range(0, 256));
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
