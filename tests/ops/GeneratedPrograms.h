// What the graph-transforming properties (GradTest, VectorizeTest) share: a random program of
// the basic mix in a session of its own, and the box of sizes they check it over.
#pragma once

#include <map>
#include <random>
#include <string>
#include <vector>

#include "lang/Session.h"
#include "proptests/RandomProgram.h"
#include "symbolic/Evaluate.h"
#include "symbolic/Solver.h"

namespace shapelab::testprograms {

/// A random program (elementwise ops, broadcasts, reshapes, slices, reductions; no
/// data-dependent sizes) of `statements` statements from `seed`, built in its own session in
/// the given mode; `rng` goes on drawing after it (the tests' input data).
struct BasicProgram {
  Solver solver;
  lang::Session session;
  std::mt19937_64 rng;
  proptests::GeneratedProgram program;
  BasicProgram(bool staticMode, uint64_t seed, int statements)
      : session(solver, sessionOptions(staticMode)), rng(seed), program(generate(session, rng, statements)) {}

private:
  static lang::SessionOptions sessionOptions(bool staticMode) {
    lang::SessionOptions o;
    o.mode = staticMode ? BroadcastMode::Static : BroadcastMode::Numpy;
    return o;
  }
  static proptests::GeneratedProgram generate(lang::Session &session, std::mt19937_64 &rng, int statements) {
    proptests::ProgramOptions options;
    options.basicOnly = true;
    options.dataDependent = false;
    return proptests::generateProgram(session, rng, statements, options);
  }
};

/// Every assignment of `low(name)`..`high` to the named sizes (low 0 unless `lows` says).
inline std::vector<Assignment> sizeBox(const std::vector<std::string> &names, int high, const std::map<std::string, int> &lows = {}) {
  std::vector<Assignment> box(1);
  for (const std::string &name : names) {
    std::vector<Assignment> more;
    const auto low = lows.find(name);
    for (const Assignment &a : box)
      for (int v = low == lows.end() ? 0 : low->second; v <= high; ++v) {
        Assignment b = a;
        b.set(name, v);
        more.push_back(b);
      }
    box = std::move(more);
  }
  return box;
}

} // namespace shapelab::testprograms
