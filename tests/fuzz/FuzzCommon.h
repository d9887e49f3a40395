// Shared helpers of the libFuzzer targets: every target feeds bytes to a public entry point and
// treats a UserError as the expected answer to bad input; anything else escaping (InternalError,
// a crash, a sanitizer report, a hang past libFuzzer's -timeout) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "symbolic/Errors.h"
#include "symbolic/Parser.h"
#include "shape/ArraySize.h"
#include "symbolic/Evaluate.h"
#include "symbolic/Solver.h"
#include "tests/symbolic/WellFormedUtf8.h"

namespace fuzz {

/// Splits the input at 0x00 bytes (several texts in one input); at most `n` pieces.
inline std::vector<std::string> pieces(const uint8_t *data, std::size_t size, std::size_t n) {
  std::vector<std::string> out(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0 && out.size() < n) out.emplace_back();
    else out.back().push_back(char(data[i]));
  }
  return out;
}

/// The targets' solver options: a short time limit per question, so that a slow question is an
/// Unknown answer, not a libFuzzer timeout.
/// SHAPELAB_FUZZ_TIME_LIMIT_MS in the environment sets another limit: a limit of a millisecond
/// or so stops isl in the middle of most questions, which replaying a corpus so exercises.
inline shapelab::SolverOptions solverOptions() {
  shapelab::SolverOptions o;
  o.timeLimitMs = 200;
  if (const char *limit = std::getenv("SHAPELAB_FUZZ_TIME_LIMIT_MS")) o.timeLimitMs = std::strtoull(limit, nullptr, 10);
  return o;
}

/// One solver per target process, with solverOptions(). Targets call forget() after each input.
inline shapelab::Solver &solver() {
  static shapelab::Solver *s = new shapelab::Solver(solverOptions());
  return *s;
}

/// `s` ready for one input, which is one command: its questions together may take
/// `totalMs` (as a shape command's are bounded by --time-limit), each one 200 ms.
inline shapelab::Solver &forInput(shapelab::Solver &s, uint64_t totalMs = 500) {
  s.limitTotalTime(totalMs);
  return s;
}
inline shapelab::Solver &solverForInput() { return forInput(solver()); }

/// After each input: what the solver and the element-count check remember is dropped, so an
/// input allocates no more than it frees. libFuzzer then skips its leak check, which scans the
/// whole heap each time the counts differ.
inline void forget(shapelab::Solver &s) {
  s.clearMemo();
  shapelab::clearElementCountMemo();
}
inline void forget() { forget(solver()); }

/// Points at which a symbolic verdict is compared with the concrete one: every parameter at 0,
/// 1, 2, 3, 2**31 + 1 and 2**62, then each of the first three at 0 with the others at 2**31 + 1
/// (an empty array whose other sizes multiply past 2**63 - 1).
inline std::vector<shapelab::Assignment> comparisonPoints(const std::vector<std::string> &names) {
  using shapelab::Integer;
  std::vector<shapelab::Assignment> out;
  const Integer big = Integer(int64_t(1) << 31) + Integer(1), far(int64_t(1) << 62);
  for (const Integer &v : {Integer(0), Integer(1), Integer(2), Integer(3), big, far}) {
    shapelab::Assignment a;
    for (const std::string &n : names) a.set(n, v);
    out.push_back(a);
  }
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) {
    shapelab::Assignment a;
    for (std::size_t j = 0; j < names.size(); ++j) a.set(names[j], j == i ? Integer(0) : big);
    out.push_back(a);
  }
  return out;
}

/// The parameter names in `shapes`, each once.
inline std::vector<std::string> parameterNames(const std::vector<std::vector<shapelab::Expr>> &shapes) {
  std::vector<std::string> names;
  for (const auto &s : shapes)
    for (const shapelab::Expr &d : s)
      for (const shapelab::Expr &x : shapelab::parametersOf(d))
        if (std::find(names.begin(), names.end(), x.node()->name) == names.end()) names.push_back(x.node()->name);
  return names;
}

/// `shape` at the point `a` (each size a constant), or nullopt where a size is undefined there.
inline std::optional<shapelab::Shape> concreteAt(const shapelab::Shape &shape, const shapelab::Assignment &a) {
  shapelab::Shape out;
  for (const shapelab::Expr &d : shape) {
    auto value = shapelab::evaluate(d, a);
    if (!value) return std::nullopt;
    out.push_back(shapelab::Expr(*value));
  }
  return out;
}

/// Where the symbolic verdict says a call succeeds at `a`, as NumPy's concrete algorithm does:
/// valid, or runtime checks that hold; and every array fits NumPy's limits there (the limits of
/// results and the existence of operands are reported apart from the status, DESIGN §3.4, but a
/// concrete call at a point where an array does not fit fails).
template <class Result> bool symbolicHolds(const Result &r, const shapelab::Assignment &a) {
  if (r.status() != shapelab::Status::Valid && r.status() != shapelab::Status::RuntimeCheck) return false;
  for (const shapelab::Pred &check : r.validity.checks())
    if (!shapelab::holds(check, a)) return false;
  for (const shapelab::Obligation &o : r.validity.obligations())
    if (o.kind != shapelab::ObligationKind::Shape && !shapelab::holds(o.predicate, a)) return false;
  return true;
}

[[noreturn]] inline void finding(const std::string &what) {
  std::fprintf(stderr, "FINDING: %s\n", what.c_str());
  std::abort();
}

/// A syntax error as a person sees it: its message and its rendering (the text and a caret) are
/// well-formed UTF-8, whatever bytes the text held, and the caret lies inside the text.
inline void checkReported(const shapelab::SyntaxError &e, const std::string &text) {
  if (e.position() > text.size()) finding("caret beyond the text: " + shapelab::printable(text));
  if (!shapelab::testutil::wellFormedUtf8(e.what()) || !shapelab::testutil::wellFormedUtf8(e.render()))
    finding("an error message that is not well-formed UTF-8, for the text " + shapelab::printable(text));
}

/// A printed form longer than the parsers read (a small DAG can print as a large tree) cannot
/// round-trip; it must then be refused as too long, which is checked here.
inline bool tooLongToReread(const std::string &printed) {
  if (printed.size() <= shapelab::kMaxTextBytes) return false;
  try {
    (void)shapelab::parseExpr(printed);
  } catch (const shapelab::SyntaxError &e) {
    if (e.message().find("too long") != std::string::npos) return true;
  }
  finding("a text longer than the limit was not refused as too long");
}

} // namespace fuzz
