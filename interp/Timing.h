// Timing — one node's evaluation timed on a chosen backend, for the studies that compare
// backends (notebooks/fusion-per-backend, scalars-vs-0d, inplace-views) and their benchmarks.
//
// Each evaluation runs on a fresh interpreter whose program inputs were computed before the
// clock starts: what is timed is the graph's work, not making the inputs. Example:
//   timeEvaluation(g, z, {{"n", 1000000}}, {}, {.optimized = true, .fusion = false}, 5, 3)
// gives five figures, each the mean of three evaluations of z with every elementwise op its
// own loop.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "interp/Interpreter.h"

namespace shapelab::interp {

struct Backend {
  bool optimized = true;   // the optimized interpreter; false: the reference (checks off)
  bool fusion = true;      // OptimizedInterpreter::setFusion
  bool scalarCode = true;  // OptimizedInterpreter::setScalarCode
  bool views = true;       // OptimizedInterpreter::setViews
  int64_t block = 256;     // elements per block of a fused loop (1: element at a time)
  bool libm = false;       // OptimizedInterpreter::setLibmMath
  unsigned threads = 1;
};

/// Seconds per evaluation of `node`: `repeat` figures, each the mean over `inner` evaluations.
/// Throws EvalError when the evaluation fails.
std::vector<double> timeEvaluation(const ops::Graph &graph, const ops::Node *node, const Assignment &point,
                                   std::map<std::string, Array> inputs, const Backend &backend, int repeat, int inner);

} // namespace shapelab::interp
