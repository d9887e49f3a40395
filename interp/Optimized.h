// Optimized — the optimized interpreter: runs a (rewritten) program fast, computing what the
// reference interpreter computes (DESIGN §3.6).
//
// Model: evaluation is the reference's post-order, with three kinds of node:
//  - fused: a float64 elementwise op whose single-use float64 elementwise operands are folded
//    into it. The cluster runs as one loop over the output in blocks of 256 elements: operands
//    are read (or gathered, when broadcast) block by block, each op runs over the block, and only
//    the cluster's result is written — one pass over memory per chain. exp, log, log1p, expm1,
//    sin, cos, tan, tanh use SLEEF's vector functions (simd/VectorMath.h, runtime dispatch, 1 ULP);
//    +, -, *, /, sqrt, abs, negative, floor, ceil, sign, maximum, minimum and the rest use the
//    scalar rules the reference uses, so they give the same bits. Large outputs are shared
//    between the cores: each thread claims the next chunk of blocks from a counter, so a slowed
//    core takes fewer (LoopGeometry). Shapes are checked first, op by op, with the reference's
//    rules and messages.
//  - view: transpose, broadcast_to, expand_dims, squeeze and reshape of a contiguous array share
//    their operand's buffer (no copy).
//  - delegated: every other op runs the reference kernel (on operand values given to it).
// Buffers: a value is dropped after its last reader (liveness by use counts); a fused loop
// writes into an operand's buffer only when that operand is read nowhere else, is a fresh result
// of this evaluation (not a program input, not a view, not shared), and has the output's shape.
// Inputs and views are never written.
// Example: OptimizedInterpreter(g, {{"n", 10000000}}, {}).evaluate(z) for
// z = exp(-((sin(x)*0.5 + cos(x))**2)) + x runs one fused loop over x.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "interp/Interpreter.h"

namespace shapelab::interp {

struct OptimizedStats {
  std::size_t fusedLoops = 0;   // clusters run (scalar ones included)
  std::size_t scalarLoops = 0;  // clusters of one element run as scalar code
  std::size_t fusedNodes = 0;   // nodes computed inside them
  std::size_t views = 0;        // nodes computed as views
  std::size_t inPlace = 0;      // clusters that wrote into an operand's buffer
  std::size_t delegated = 0;    // nodes run by the reference kernels
  std::size_t sinCos = 0;       // sin/cos pairs of one operand computed by one sincos
};

class OptimizedInterpreter {
public:
  OptimizedInterpreter(const ops::Graph &graph, Assignment params, std::map<std::string, Array> inputs,
                       InterpreterOptions options = {});
  /// The node's value (what the reference interpreter would give; transcendental functions
  /// within simd::kUlpBound). Throws EvalError of the kind the reference throws.
  Array evaluate(const ops::Node *node);
  /// The same, with the error returned rather than thrown (Interpreter::attempt).
  std::variant<Array, EvalError> attempt(const ops::Node *node);
  const OptimizedStats &stats() const { return stats_; }
  /// Threads for large loops (default: the machine's cores).
  void setThreads(unsigned threads) { threads_ = threads ? threads : 1; }
  /// How a fused loop walks its elements: in blocks of `block` elements (a register's length),
  /// handed out to the threads in chunks of `blocksPerChunk` blocks when the loop has at least
  /// `parallelFrom` elements. The defaults suit large arrays; the property tests make all three
  /// small so that their small arrays go through the shared loops too. Values below 1 count as 1
  /// (`parallelFrom` as 0).
  struct LoopGeometry {
    int64_t block = 256;
    int64_t blocksPerChunk = 64; // 16384 elements: 128 KB of float64 per leaf
    int64_t parallelFrom = int64_t(1) << 16;
  };
  void setLoopGeometry(LoopGeometry g) {
    geometry_ = {std::max<int64_t>(g.block, 1), std::max<int64_t>(g.blocksPerChunk, 1), std::max<int64_t>(g.parallelFrom, 0)};
  }
  /// Transcendental functions by the C library, as the reference computes them: every result
  /// is then bit for bit the reference's (the property tests use this to check fusion, views,
  /// in-place updates and liveness exactly; the vector math is tested on its own).
  void setLibmMath(bool on) { libmMath_ = on; }
  /// Elementwise chains fused into one loop (default), or every elementwise op its own loop
  /// (the unfused compiled backend of notebooks/fusion-per-backend).
  void setFusion(bool on) { fusion_ = on; }
  /// A loop of one element (a chain of 0-d operations) run as scalar code: its instructions on
  /// doubles in registers, without block buffers or threads (default); off, through the block
  /// loop like any array (notebooks/scalars-vs-0d). The same instructions: the same bits.
  void setScalarCode(bool on) { scalarCode_ = on; }
  /// transpose, broadcast_to, expand_dims, squeeze and reshape as views (default), or as
  /// copies made by the reference kernels (notebooks/inplace-views).
  void setViews(bool on) { viewsOn_ = on; }

private:
  struct Cluster;
  /// Runs a cluster whose shapes were checked (`outShape`: its root's).
  Array runCluster(const Cluster &c, const ops::Node *requested, const std::vector<int64_t> &outShape);
  std::optional<Array> view(const ops::Node *n);
  const ops::Graph &graph_;
  Interpreter ref_;
  std::unordered_map<const ops::Node *, int64_t> uses_;    // readers still to run
  std::unordered_set<const ops::Node *> fusedOrFresh_;     // values this evaluation allocated
  std::unordered_set<const ops::Node *> views_;            // values sharing another's buffer
  unsigned threads_;
  LoopGeometry geometry_;
  bool libmMath_ = false;
  bool fusion_ = true, scalarCode_ = true, viewsOn_ = true;
  OptimizedStats stats_;
};

/// True for nodes the fused loops compute (float64 elementwise ops the loops implement).
bool fusable(const ops::Node *n);

} // namespace shapelab::interp
