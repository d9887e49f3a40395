// `shapelab decide [--assume CONSTRAINT]... PREDICATE [--json]`
#include <iostream>

#include "driver/Command.h"
#include "driver/Json.h"
#include "symbolic/Errors.h"
#include "symbolic/Parser.h"
#include "symbolic/Solver.h"

namespace shapelab::driver {

namespace {
const char *kDecideHelp =
    "usage: shapelab decide [--assume CONSTRAINT]... PREDICATE [--json]\n\n"
    "Decides PREDICATE for every value of its size parameters (all >= 0) allowed by the\n"
    "assumptions: proven, refuted (with a violating point), depends (with the exact\n"
    "condition and a point on each side) or unknown (with what to check at run time).\n\n"
    "  PREDICATE, CONSTRAINT   Python-like: n + 1 == m, 0 <= n < 10, n % 2 == 0 and m > n,\n"
    "                          min(n, m) >= 2, (n*(n-1))/2 == k, not (n == 1 or m == 1)\n"
    "  --assume C              add an assumption (repeatable)\n"
    "  --json                  print {\"answer\", \"satisfying\", \"violating\", \"condition\"}\n\n"
    "exit: 0 answered, 2 bad input (syntax, reserved names, unsatisfiable assumptions)\n";
} // namespace

int decideCommand(const std::vector<std::string> &argv) {
  return reportErrors("decide", [&] {
    Arguments a = scanArguments(argv, {"--assume", "--json"});
    if (a.help) {
      std::cout << kDecideHelp;
      return kExitOk;
    }
    if (a.positional.size() != 1)
      throw UsageError{a.positional.empty() ? "missing PREDICATE"
                                            : "expected one PREDICATE (quote it), got " +
                                                  std::to_string(a.positional.size()) + " arguments"};
    Pred p = parsePred(a.positional[0]);
    Solver solver(a.solver);
    Context c = contextOf(solver, a, SizeDomain::Integers);
    Decision d = solver.decide(c, p);
    if (a.json) {
      JsonObject o;
      o.add("answer", JsonValue::string(spelling(d.answer)));
      if (d.satisfying) o.add("satisfying", JsonValue::assignment(*d.satisfying));
      if (d.violating) o.add("violating", JsonValue::assignment(*d.violating));
      if (d.answer == Answer::Depends) o.add("condition", JsonValue::string(d.condition.toString()));
      if (d.answer == Answer::Unknown) {
        o.add("residual", JsonValue::string(d.residual.toString()));
        o.add("reason", JsonValue::string(d.reason));
      }
      std::cout << o.toString() << "\n";
    } else {
      std::cout << d.toString() << "\n";
    }
    return kExitOk;
  });
}

const std::vector<CommandInfo> &commands() {
  static const std::vector<CommandInfo> list = {
      {"decide", "decide a predicate over size parameters under assumptions", decideCommand},
      {"broadcast", "broadcast shapes (numpy or static mode), decided per dimension", broadcastCommand},
      {"broadcast-to", "NumPy's one-way broadcast_to", broadcastToCommand},
      {"gufunc", "resolve a generalized-ufunc (Blockwise) call on symbolic shapes", gufuncCommand},
      {"rv", "output shape of a random variable draw (PyTensor's catalogue)", rvCommand},
  };
  return list;
}

} // namespace shapelab::driver
