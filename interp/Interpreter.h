// Interpreter — the reference interpreter: the definition of a program's meaning (DESIGN §3.6).
//
// Model: evaluates the nodes a requested node depends on, each once, in the most direct correct
// way: every kernel reads its operands and writes a fresh C-contiguous result (no fusion, no
// in-place, no aliasing). Values follow NumPy (dtypes by ops::resultType, IEEE floats without
// traps, NumPy's integer division and modulo, wrapping integer arithmetic). `ifelse` is lazy.
// Shape errors are detected by each kernel on the concrete shapes, with NumPy's messages, and
// raised as EvalError naming the node. A debug check (on by default) compares every result
// with the node's symbolic shape and validity evaluated at the parameter values; any
// disagreement is an InternalError, never ignored.
// Random variables draw from a counter-based generator keyed by (seed, draw, element), so any
// evaluation order gives the same values.
// Example: Interpreter(g, {{"n", 3}}, {}, 7).evaluate(node) -> the node's array at n = 3, with
// inputs not given filled deterministically from the seed.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <variant>

#include "interp/Array.h"
#include "ops/Graph.h"
#include "symbolic/Evaluate.h"

namespace shapelab::interp {

using ops::EvalError; // ops/Scalar.h: shape, value and input errors

struct InterpreterOptions {
  uint64_t seed = 0;
  bool debugChecks = true;
  /// Names nodes in messages ("z" rather than "add#4"); defaults to Node::describe.
  std::function<std::string(const ops::Node *)> namer;
};

class Interpreter {
public:
  /// `params` must give every size parameter of the graph and satisfy its assumptions;
  /// `inputs` may leave inputs out (they are filled from the seed).
  Interpreter(const ops::Graph &graph, Assignment params, std::map<std::string, Array> inputs,
              InterpreterOptions options = {});
  /// The node's value (evaluating what it needs). Throws EvalError.
  Array evaluate(const ops::Node *node);
  /// The same, with the error (named after the node that raised it) returned, not thrown: for
  /// callers that compare outcomes and would catch it at once (a throw costs microseconds).
  std::variant<Array, EvalError> attempt(const ops::Node *node);
  /// Parameter values, data-dependent sizes included once they are known.
  const Assignment &point() const { return point_; }
  /// Makes `value` the node's value (the optimized interpreter computes some nodes itself).
  void provide(const ops::Node *n, Array value) { values_.insert_or_assign(n, std::move(value)); }
  /// Drops a node's value (its last reader has run), freeing its buffer if nothing else holds it.
  void forget(const ops::Node *n) { values_.erase(n); }
  const Array *find(const ops::Node *n) const {
    auto it = values_.find(n);
    return it == values_.end() ? nullptr : &it->second;
  }
  /// The node as messages name it.
  std::string nameOf(const ops::Node *n) const { return name(n); }

private:
  Array run(const ops::Node *n);
  Array inputValue(const ops::Node *n);
  // The kernels of run(), by family (interp/kernels/).
  Array runUnary(const ops::Node *n);       // Elementwise.cpp: unary ufuncs
  Array runBinary(const ops::Node *n);      //   binary ufuncs, where
  Array runReshape(const ops::Node *n);     // Layout.cpp: reshape, expand_dims, squeeze
  Array runFill(const ops::Node *n);        //   broadcast_to, full
  Array runJoin(const ops::Node *n);        //   concatenate, stack
  Array runIndex(const ops::Node *n);       // Indexing.cpp: indexing, set/inc_subtensor
  Array runReduce(const ops::Node *n);      // Reductions.cpp: reductions,
  Array runSumTo(const ops::Node *n);       //   sum_to (the axes stretched, found at run time),
  Array runDiff(const ops::Node *n);        //   diff,
  Array runCumulative(const ops::Node *n);  //   cumsum, cumprod
  Array runSort(const ops::Node *n);        //   sort, argsort
  Array runSearchSorted(const ops::Node *n); //   searchsorted: a binary search per element
  Array runBlockwise(const ops::Node *n);   // Blockwise.cpp: matmul, outer, det, inv, solve, convolve,
  Array runEinsum(const ops::Node *n);      //   einsum
  Array runMap(const ops::Node *n);         //   vectorize's blockwise wrapper: the core node per example
  Array runRandom(const ops::Node *n);      // Random.cpp: random variables
  /// The branch an ifelse runs (for a data condition, also binds its data-dependent size).
  const ops::Node *chosenBranch(const ops::Node *n);
  void debugCheck(const ops::Node *n, const Array &result, const EvalError *failure);
  int64_t value(const Expr &e) const;
  /// Gives each size from sizes (Graph::dividedSize) whose operands are now known its value
  /// (at the start, and after a data-dependent size is bound).
  void defineSizes();
  std::string name(const ops::Node *n) const;

  const ops::Graph &graph_;
  Assignment point_;
  std::map<std::string, Array> inputs_;
  InterpreterOptions options_;
  std::unordered_map<const ops::Node *, Array> values_;
  /// The error each failed node raised (named), raised again when something needs it.
  std::unordered_map<const ops::Node *, EvalError> failed_;
};

/// The result shape of an elementwise node (Unary, Binary, Where) on operands of these shapes:
/// NumPy's broadcasting, and static mode's rule; throws EvalError(Shape) with the kernels' message.
std::vector<int64_t> elementwiseShape(const ops::Node *n, const std::vector<std::vector<int64_t>> &shapes);

/// `x ** 2` with a float result and a Python literal 2 as exponent: NumPy's `**` computes it as
/// np.square (x * x, correctly rounded), not with pow; both interpreters do the same.
bool powerIsSquare(const ops::Node *n);

/// Deterministic pseudo-random data for an input that was not given: floats are multiples of
/// 1/16 in [-4, 4), integers in [0, 5), bools fair; keyed by (seed, name, element).
Array seededInput(const std::string &name, DType dtype, const std::vector<int64_t> &shape, uint64_t seed);
/// seededInput for every input of `graph` that `given` leaves out and whose shape evaluates at
/// `point` (the values the interpreters would generate), added to `given`.
void addSeededInputs(const ops::Graph &graph, const Assignment &point, uint64_t seed, std::map<std::string, Array> &given);

} // namespace shapelab::interp
