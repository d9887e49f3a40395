// Shared helpers of the libFuzzer targets: every target feeds bytes to a public entry point and
// treats a UserError as the expected answer to bad input; anything else escaping (InternalError,
// a crash, a sanitizer report, a hang past libFuzzer's -timeout) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>

#include "symbolic/Errors.h"
#include "symbolic/Parser.h"
#include "shape/ArraySize.h"
#include "symbolic/Solver.h"

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

/// One solver per target process, with a short time limit so that a slow question is an
/// Unknown answer, not a libFuzzer timeout. Targets call forget() after each input.
inline shapelab::Solver &solver() {
  static shapelab::Solver *s = [] {
    shapelab::SolverOptions o;
    o.timeLimitMs = 200;
    return new shapelab::Solver(o);
  }();
  return *s;
}

/// The solver for one input, which is one command: its questions together may take 500 ms (as a
/// shape command's are bounded by --time-limit), each one 200 ms.
inline shapelab::Solver &solverForInput() {
  solver().limitTotalTime(500);
  return solver();
}

/// After each input: what the solver and the element-count check remember is dropped, so an
/// input allocates no more than it frees. libFuzzer then skips its leak check, which scans the
/// whole heap each time the counts differ.
inline void forget() {
  solver().clearMemo();
  shapelab::clearElementCountMemo();
}

[[noreturn]] inline void finding(const std::string &what) {
  std::fprintf(stderr, "FINDING: %s\n", what.c_str());
  std::abort();
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
