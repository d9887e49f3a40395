// Differential — the property harness's main check: a random program, rewritten by the checked
// engine and run by the optimized interpreter, computes what the reference interpreter computes
// on the original program (DESIGN §3.6).
//
// Model: a program (lines of the shapelab language) is built in a session; every assigned name
// is rewritten (strict, exact rules) and evaluated by the reference interpreter on the original
// node and by the optimized one on the rewritten node, at `points` random parameter values (n, m
// in [0, 4], 0 and 1 often) and at the solver's witnesses for one output's validity (a point
// where it holds and one where it fails, when small enough to run). Inputs are the seeded values,
// with nan, ±inf, -0, the largest double and a subnormal sprinkled in on every other point. They
// must agree: the same error kind (shape/value/none), the same dtype and shape, and the same bits
// (any nan equals any nan; the optimized interpreter uses libm math here, the vector math is
// checked separately against 100-digit values). An interpreter's own consistency check (a
// kernel against its node's shape rule) failing is a finding too. Given inputs must not be
// modified. A failing program is shrunk by deleting statements while it still fails, and
// printed as a script.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shape/Broadcast.h"
#include "symbolic/Solver.h"

namespace shapelab::lang {
class Session;
} // namespace shapelab::lang

namespace shapelab::proptests {

struct DifferentialOptions {
  int statements = 10;
  int points = 3;
  BroadcastMode mode = BroadcastMode::Numpy;
  /// One solver for many cases (its memo is shared: the programs ask much the same questions);
  /// null: each check has its own.
  Solver *solver = nullptr;
  /// Graph::setCheckRebuilds while rewriting: a node the engine rebuilds by copying what its old
  /// node derived is also derived by its rule, and the two must agree.
  bool checkRebuilds = true;
  /// For testing the harness itself: a program with a statement containing this text fails
  /// ("a planted failure"), and is shrunk as any failure is. Empty: none.
  std::string planted;
  /// Also differentiate: a cost (the sum of the sine of the program's last float array) and its
  /// gradient with respect to each float input it reads join the program, so the gradients are
  /// rewritten, run by both interpreters and compared (their errors the cost's) as the other
  /// arrays are.
  bool gradients = true;
};

struct DifferentialFailure {
  std::string message;
  std::vector<std::string> program; // shrunk; a `shapelab run` script reproducing the failure
  std::string script() const;
};

struct DifferentialStats {
  std::size_t programs = 0, evaluations = 0, rewritten = 0, errorsAgreed = 0;
  /// Applications of each rule (the strict rewriting of exact rules), by rule name.
  std::map<std::string, std::size_t> fired;
};

/// Checks `lines` (already a program) with the parameter points drawn from `seed`.
std::optional<std::string> checkProgram(const std::vector<std::string> &lines, uint64_t seed,
                                        const DifferentialOptions &options, DifferentialStats *stats = nullptr);

/// Generates a program from `seed`, checks it, and shrinks it when it fails.
/// The gradient statements (DifferentialOptions::gradients) run in `session` and added to
/// `lines`: `cost_ = np.sum(np.sin(LAST))` of the last float array, then
/// `grad_X = grad(cost_, X)` for each float input X.
void appendGradients(lang::Session &session, std::vector<std::string> &lines);
std::optional<DifferentialFailure> checkRandomProgram(uint64_t seed, const DifferentialOptions &options,
                                                      DifferentialStats *stats = nullptr);

} // namespace shapelab::proptests
