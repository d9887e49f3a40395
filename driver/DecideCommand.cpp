// `shapelab decide [--assume CONSTRAINT]... PREDICATE [--json]`
#include <iostream>

#include "driver/Command.h"
#include "lang/Json.h"
#include "symbolic/Errors.h"
#include "symbolic/Parser.h"
#include "symbolic/Solver.h"

namespace shapelab::driver {

using namespace lang; // the session, its replies and their JSON

namespace {
const char *kDecideDescription =
    "Decides PREDICATE for every value of its size parameters (all >= 0) allowed by the\n"
    "assumptions: proven, refuted (with a violating point), depends (with the exact\n"
    "condition and a point on each side) or unknown (with what to check at run time).\n"
    "PREDICATE and C are Python-like: n + 1 == m, 0 <= n < 10, n % 2 == 0 and m > n,\n"
    "min(n, m) >= 2, (n*(n-1))/2 == k, not (n == 1 or m == 1).";
const char *kDecideFooter =
    "JSON: {\"answer\", \"satisfying\", \"violating\", \"condition\"} (+ \"residual\", \"reason\" when unknown)\n"
    "exit: 0 answered, 2 bad input (syntax, reserved names, unsatisfiable assumptions)";

struct DecideOptions {
  CommonOptions common;
  std::string predicate;
};

int decide(const DecideOptions &o) {
  Pred p = parsePred(o.predicate);
  Solver solver(o.common.solverOptions());
  solver.limitTotalTime(o.common.solver.timeLimitMs); // the command's questions together
  Context c = contextOf(solver, o.common, SizeDomain::Integers);
  Decision d = solver.decide(c, p);
  if (!o.common.json) {
    std::cout << d.toString() << "\n";
    return kExitOk;
  }
  Json j = Json::object();
  j["answer"] = spelling(d.answer);
  if (d.satisfying) j["satisfying"] = assignmentJson(*d.satisfying);
  if (d.violating) j["violating"] = assignmentJson(*d.violating);
  if (d.answer == Answer::Depends) j["condition"] = d.condition().toString();
  if (d.answer == Answer::Unknown) {
    j["residual"] = d.residual.toString();
    j["reason"] = d.reason;
  }
  std::cout << dumpJson(j) << "\n";
  return kExitOk;
}
} // namespace

void addDecideCommand(CLI::App &app) {
  auto o = std::make_shared<DecideOptions>();
  CLI::App *cmd = app.add_subcommand("decide", "decide a predicate over size parameters under assumptions");
  cmd->description(std::string("decide a predicate over size parameters under assumptions\n") + kDecideDescription);
  cmd->footer(kDecideFooter);
  addCommonOptions(cmd, o->common, kAssume | kJson);
  cmd->add_option("PREDICATE", o->predicate, "the predicate to decide (quote it)")->required();
  cmd->callback([o] { exitCode() = reportErrors("decide", [&] { return decide(*o); }, o->common.json); });
}

} // namespace shapelab::driver
