// ProgramFixtures — helpers the program tests share: running statements through a session and
// reading their outcomes at points, and the property that ties the reference kernels to the shape
// rules at points inside and outside each node's validity.
#pragma once

#include <functional>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include "lang/Json.h"
#include "lang/Session.h"
#include "interp/Interpreter.h"
#include "interp/Kernels.h"
#include "interp/Optimized.h"
#include "shape/RandomVariable.h"
#include <chrono>
#include <limits>
#include <thread>
#include "ops/Graph.h"
#include "proptests/Differential.h"
#include "proptests/RandomProgram.h"
#include "rewrite/Engine.h"
#include "symbolic/Errors.h"
#include "symbolic/Parser.h"
#include "tests/shape/OracleData.h"
#include "tests/symbolic/WellFormedUtf8.h"

namespace shapelab::fixtures {

using namespace shapelab;

inline Shape shapeOf(std::initializer_list<Expr> dims) { return Shape(dims); }

/// In `session`: `param n`, x of shape `shape`, then y = x[x > 0] built with the solver's clock
/// run out (it stays run out); `k` is y's size, a data-dependent size.
inline void maskPastTheClock(Solver &solver, lang::Session &session, const std::string &shape, Expr &k) {
  ASSERT_FALSE(session.execute("param n", 1).failed);
  ASSERT_FALSE(session.execute("x = input(" + shape + ", float64)", 2).failed);
  solver.limitTotalTime(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  session.execute("y = x[x > 0]", 3);
  const ops::Node *y = session.lookup("y");
  ASSERT_NE(y, nullptr);
  k = y->shape.at(0); // the mask's size, _k0
  ASSERT_TRUE(k->reserved) << k.toString();
}


inline void kernelsAgreeAt(lang::Session &session, const proptests::GeneratedProgram &p, BroadcastMode mode,
                    uint64_t seed, const std::vector<std::pair<int64_t, int64_t>> &points);

/// The property: at small parameter points, a kernel raises a shape error exactly where its
/// node's validity fails (the interpreter's own debug check throws InternalError on a kernel
/// that disagrees with its shape rule — also a failure here).
inline void kernelsAgreeWithShapeRules(BroadcastMode mode) {
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  std::mt19937_64 rng(seed);
  Solver solver;
  lang::SessionOptions so;
  so.mode = mode;
  lang::Session session(solver, so);
  proptests::GeneratedProgram p = proptests::generateProgram(session, rng, 10);
  // Small sizes, 0 and 1 often: where broadcasting and slicing rules change.
  std::vector<std::pair<int64_t, int64_t>> points;
  for (int trial = 0; trial < 3; ++trial) points.push_back({int64_t(rng() % 5), int64_t(rng() % 5)});
  kernelsAgreeAt(session, p, mode, seed, points);
}

/// The program's kernels against their shape rules at the points (n, m).
inline void kernelsAgreeAt(lang::Session &session, const proptests::GeneratedProgram &p, BroadcastMode mode,
                    uint64_t seed, const std::vector<std::pair<int64_t, int64_t>> &points) {
  const ops::Graph &g = session.graph();
  for (const auto &[n, m] : points) {
    interp::InterpreterOptions options;
    options.seed = seed;
    interp::Interpreter in(g, Assignment{{"n", n}, {"m", m}}, {}, options);
    for (const std::string &name : p.names) {
      const ops::Node *node = session.lookup(name);
      bool shapeError = false;
      std::string program = mode == BroadcastMode::Static ? "mode static\n" : "";
      for (const std::string &l : p.lines) program += l + "\n";
      try {
        in.evaluate(node);
      } catch (const interp::EvalError &e) {
        if (e.kind != interp::EvalError::Shape) continue; // an index value out of range, ...
        shapeError = true;
      } catch (const InternalError &e) {
        RC_FAIL(name + " at n = " + std::to_string(n) + ", m = " + std::to_string(m) + ": " + e.what() + "\n" + program);
      }
      Validity v = ops::validityOf(g, node);
      std::optional<bool> valid;
      try {
        valid = evaluate(v.domain(), in.point());
      } catch (const NameError &) {
        continue; // a data-dependent size that was never computed
      }
      // Undefined (an exact division that does not divide) does not hold (DESIGN §3.3).
      const bool holdsHere = valid == true;
      if (shapeError == holdsHere)
        RC_FAIL(name + (shapeError ? " raised a shape error where its validity holds" : " ran where its validity fails") +
                " at n = " + std::to_string(n) + ", m = " + std::to_string(m) + "; validity " + v.domain().toString() +
                "\n" + program);
    }
  }
}

/// Runs `lines` in `session`, line k as line k + 1; fails at the first line that does not build.
::testing::AssertionResult executesAll(lang::Session &session, const std::vector<std::string> &lines) {
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (session.execute(lines[i], int(i + 1)).failed) return ::testing::AssertionFailure() << lines[i];
  return ::testing::AssertionSuccess();
}

/// Runs `line` in `session`: success when it fails and its first reply line holds `message`.
::testing::AssertionResult refusedWith(lang::Session &session, const std::string &line, const std::string &message) {
  lang::Reply r = session.execute(line, 1);
  if (!r.failed) return ::testing::AssertionFailure() << line << " was not refused";
  const std::string first = r.lines().empty() ? std::string() : r.lines().front();
  if (first.find(message) == std::string::npos)
    return ::testing::AssertionFailure() << line << ": " << first << " does not say: " << message;
  return ::testing::AssertionSuccess();
}

/// Runs `lines` in a session and evaluates `name` at `point`: its shape, or "shape error".
inline std::string outcomeOf(const std::vector<std::string> &lines, const std::string &name, const Assignment &point) {
  Solver solver;
  lang::Session session(solver, {});
  for (std::size_t i = 0; i < lines.size(); ++i) {
    lang::Reply r = session.execute(lines[i], int(i + 1));
    if (r.failed) return "build error: " + (r.lines().empty() ? std::string() : r.lines().front());
  }
  interp::Interpreter in(session.graph(), point, {}, {});
  try {
    return interp::shapeText(in.evaluate(session.lookup(name)).shape());
  } catch (const interp::EvalError &e) {
    return std::string(interp::EvalError::spelling(e.kind)) + " error";
  }
}

/// An inferred shape evaluated at `point`, written as outcomeOf writes the computed one;
/// nullopt where a dim is undefined there.
inline std::optional<std::string> inferredAt(const Shape &shape, const Assignment &point) {
  std::vector<int64_t> dims;
  for (const Expr &d : shape) {
    std::optional<Integer> v = evaluate(d, point);
    if (!v) return std::nullopt;
    dims.push_back(v->toInt64Checked("a dim"));
  }
  return interp::shapeText(dims);
}


/// `x` of a one-line program (`x = ...`) evaluated with no parameters: its value's text, or
/// the build or evaluation error.
inline std::string valueOfLine(const std::string &line) {
  Solver solver;
  lang::Session session(solver, {});
  lang::Reply r = session.execute(line, 1);
  if (r.failed) return "build error: " + (r.lines().empty() ? std::string() : r.lines().front());
  interp::Interpreter in(session.graph(), {}, {}, {});
  try {
    return in.evaluate(session.lookup("x")).toString();
  } catch (const interp::EvalError &e) {
    return std::string(interp::EvalError::spelling(e.kind)) + " error";
  }
}

} // namespace shapelab::fixtures
