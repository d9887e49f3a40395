// Graph — the immutable, hash-consed tensor program IR (DESIGN §2, §3.6).
//
// Model: a Graph owns its nodes. A node is an operation applied to earlier nodes with constant
// attributes (axes, symbolic slice bounds, a dtype, ...); its dtype, symbolic shape and
// validity are computed once, by the op's factory, when the node is made. Structurally equal
// nodes (same op, attributes, operands and broadcasting mode) are one node, so a node's
// identity is its pointer and equality and hashing are O(1). Ranks are concrete; dimensions
// are expressions over the size parameters and over data-dependent sizes `_kN` that boolean
// masks and value-dependent conditions introduce (each bounded in the graph's context).
//
// Validity: each node records the obligations of its own op (decided by the solver under the
// graph's context: valid / runtime-check / error / unknown); the validity of *computing* a node
// gathers the obligations of every node it depends on (`validityOf`). A rank or axis error,
// a wrong argument or dtype is not an obligation: the factory throws OpError and makes nothing.
// Example: with n, m parameters, add(input x (n, 1), input y (1, m)) has shape (n, m) and is
// valid; add of (n,) and (m,) needs `n == 1 or m == 1 or n == m` at run time.
//
// Lifetime: the expressions a graph's nodes hold are released with the graph; a program's
// nodes live exactly as long as its Graph (the REPL's :reset drops it).
// Cost: a factory is one hash lookup when the node exists; a new node costs its shape rule
// (solver questions per obligation, memoized per context). Not thread-safe.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "ops/Attrs.h"
#include "ops/DType.h"
#include "ops/OpList.h"
#include "shape/Broadcast.h"
#include "shape/Shape.h"
#include "shape/Einsum.h"
#include "shape/Validity.h"
#include "symbolic/Errors.h"
#include "support/FlatIndex.h"

namespace shapelab::ops {

/// Whether `op` is one output of np.linalg's qr, svd or eigh as Graph::blockwise names them
/// (qr_q, qr_r, svd_u, svd_s, svd_vh, eigh_w, eigh_v, with _complete, _full, _upper variants).
bool isFactorization(const std::string &op);

/// Whether `literal`, a Python integer (a weak int64 scalar: a literal or a size), meets in an
/// elementwise op an integer array narrower than int64, whose dtype it then takes: NEP 50 makes
/// it one of that dtype's values (the shape rule requires it; the interpreters check it).
struct Node;
bool mustFitNarrowInteger(const Node *literal, const Node *other);

/// Whether the node's own kernel may raise a value error (an error of the data: Node::valueErrors).
bool raisesValueErrors(const Node &n);

/// A build-time error of an operation that no parameter value can fix: a wrong rank or axis,
/// a bad argument, an unsupported dtype. Its message reads like NumPy's.
class OpError : public UserError {
public:
  using UserError::UserError;
};


/// One entry of an index expression, after `...` is expanded.
struct IndexEntry {
  enum Kind : uint8_t { Integer, Slice, NewAxis, Array } kind = Slice;
  std::optional<Expr> start, stop; // Integer: start is the index
  int64_t step = 1;
  friend bool operator==(const IndexEntry &a, const IndexEntry &b) {
    return a.kind == b.kind && a.start == b.start && a.stop == b.stop && a.step == b.step;
  }
};

class Graph;

/// The binary ufunc a set/inc_subtensor node's write applies to each element ("" for a set,
/// "add" for inc_subtensor, UFUNC for "UFUNC.at").
std::string accumulatingUfunc(const std::string &write);

struct Node {
  // The first cache line holds what a walk reads of each node (kind, id, inputs) and what a
  // node built on this one reads of it (dtype, shape; then pending, in the next line): in a
  // large graph an operand is a cache miss per line read.
  OpKind kind;
  /// Position in the graph (creation order: operands come first).
  uint32_t id = 0;
  // What the factory derived (dtype, weak) and part of the structural key (mode), packed here.
  DType dtype = DType::Float64;
  bool weak = false;       // a Python literal (Scalar only)
  /// This node, or one it reads, may raise a value error: an error of the data, not of the
  /// shapes (an index array's value out of range, a singular matrix, a random variable's
  /// invalid parameter). Shape analysis cannot see these; a rewrite that stops computing such
  /// a node may mask one (rewrite/Engine's checker).
  bool valueErrors = false;
  BroadcastMode mode = BroadcastMode::Numpy;
  std::vector<const Node *> inputs;
  Shape shape{};
  /// Nodes (this one and those it depends on) whose own validity is not `valid`: what the
  /// validity of computing this node gathers. Shared between nodes where it does not change.
  /// Null when there are none: a list is never empty.
  std::shared_ptr<const std::vector<const Node *>> pending{};
  std::size_t hash = 0;
  // The rest of the structural key.
  std::string op;
  Attrs attrs{};           // the kind's attribute struct (ops/OpKinds.def)
  std::vector<Expr> exprs{};
  std::vector<IndexEntry> index{};
  Pred cond{};             // IfElse on sizes: the condition
  Validity validity;       // this op's own obligations
  /// Static mode: per input, a bit per (right-aligned) dimension that may broadcast (provably 1,
  /// or undecided: NumPy's rule at run time). Random variables: bits of the whole parameter shape.
  std::vector<uint64_t> broadcastable{};
  /// The data-dependent size this node introduces (Index with a mask, IfElse on data).
  std::optional<Expr> dataSize{};

  std::size_t rank() const { return shape.size(); }
  /// The attributes as the struct of the node's kind: attr<attr::Axis>().axis.
  template <class A> const A &attr() const { return std::get<A>(attrs); }
  /// A short description: "add(x, y)", "input x".
  std::string describe() const;
};

/// The validity of computing `nodes` from the graph's inputs, their operands included (under
/// the current assumptions and the bounds of the data-dependent sizes involved).
Validity validityOf(const Graph &graph, const std::vector<const Node *> &nodes);
/// Adds to `into` the data-dependent sizes among `params` that it does not hold yet (the set a
/// question's context is made for: Graph::contextFor); true when `params` has one.
bool addReserved(std::vector<Expr> &into, const std::vector<const ExprNode *> &params);
inline Validity validityOf(const Graph &graph, const Node *node) { return validityOf(graph, std::vector<const Node *>{node}); }
/// The nodes `roots` read, transitively, themselves included, each once, in creation order
/// (operands before their readers); a node for which `stopAt` holds is listed but not walked
/// into. What a pass over a program's nodes visits (gradients from the cost down, vectorize
/// from the inputs up, :optimize's node counts).
std::vector<const Node *> nodesRead(const std::vector<const Node *> &roots,
                                    const std::function<bool(const Node *)> &stopAt = nullptr);

struct GraphStats {
  std::size_t nodes = 0, lookups = 0, hits = 0;
  /// Slice lengths found remembered (Graph::sliceLength), not computed again.
  std::size_t sliceLengthsRemembered = 0;
  /// Broadcasts of operand shapes found remembered (elementwise ops), not computed again.
  std::size_t broadcastsRemembered = 0;
};

class Graph {
public:
  /// `assumptions` over the size parameters; throws InconsistentAssumptions when proven empty.
  Graph(Solver &solver, std::vector<Pred> assumptions = {});
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  Solver &solver() const { return *solver_; }
  /// The user's assumptions (size parameters only).
  const Context &context() const { return context_; }
  /// The assumptions plus the bounds of the given data-dependent sizes (and of those their
  /// bounds mention): where questions about them are decided. Memoized.
  Context contextFor(std::vector<Expr> reserved) const;
  const std::vector<Pred> &assumptions() const { return assumptions_; }
  /// Adds assumptions (refused, leaving the graph unchanged, when they contradict the others).
  void assume(const std::vector<Pred> &more);
  /// Declares a size parameter (a name usable in shapes); names must be new.
  Expr param(const std::string &name);
  /// Throws what param(name) would, declaring nothing.
  void checkNewParam(const std::string &name) const;
  const std::vector<Expr> &params() const { return params_; }
  /// The input declared with this name, or null.
  const Node *inputNamed(const std::string &name) const {
    auto it = inputsByName_.find(name);
    return it == inputsByName_.end() ? nullptr : it->second;
  }

  /// Sizes from sizes: d // h and d % h (Python's floor division) for sizes d and h where h is
  /// not a constant. Where h divides d as polynomials (or under an assumed equality defining a
  /// parameter: `assume d == h*q`), the quotient itself and 0; otherwise fresh sizes _qN and
  /// _rN defined by d == h*_qN + _rN with 0 <= _rN < h (both 0 where h is 0, which Python
  /// refuses: the caller requires h != 0). The same d and h give the same pair. The definitions
  /// bound every question about them, as a mask's bound does. Defined sizes are never negative:
  /// a numerator that may be negative reads two of them, one per sign ((n - k) // s is
  /// `n - k >= 0 ? _q1 : -_q2 - 1` with _q1 = max(n - k, 0) // s, _q2 = max(k - n - 1, 0) // s);
  /// a divisor must be proven >= 0 or <= 0 under the assumptions: nullopt otherwise.
  struct DividedSize {
    Expr quotient, remainder;
  };
  std::optional<DividedSize> dividedSize(const Expr &d, const Expr &h);
  /// A defined size: its name (_qN or _rN), what it is of, and its text ("d // h", "d % h").
  struct SizeDefinition {
    std::string name;
    Expr numerator, divisor;
    bool quotient;
    std::string text() const;
  };
  /// The sizes dividedSize defined, in order (a definition reads only earlier ones).
  const std::vector<SizeDefinition> &sizeDefinitions() const { return definitions_; }
  /// The definition of the size named `name`, or null.
  const SizeDefinition *definitionOf(const std::string &name) const;
  /// e with each product h*_qN (of a quotient by a monomial h) written as d - _rN, its value:
  /// `_q1*b*h*t == b*d*t` reads `b*t*(d - _r1) == b*d*t`, which is `_r1*b*t == 0`.
  Expr unfoldDefined(const Expr &e) const;

  // Factories. Each validates its arguments, computes the node's shape and validity once, and
  // returns the existing node when an equal one was made before.
  const Node *input(const std::string &name, DType dtype, const Shape &shape);
  const Node *literal(double value, DType kind);      // a Python literal: bool, int or float
  const Node *size(Expr value);                        // a symbolic size as a 0-d int64 (weak)
  /// A 0-d constant of a dtype (not weak): what constant folding produces. `value` must hold
  /// the result exactly (integers within 2**53).
  const Node *constant(double value, DType dtype);
  const Node *unary(const std::string &op, const Node *x);
  const Node *binary(const std::string &op, const Node *a, const Node *b, BroadcastMode mode);
  /// The dtype of binary ufunc `op` of operands so typed (NumPy's loops; OpError where NumPy
  /// has no loop for them or its loop is a dtype shapelab lacks).
  static DType binaryResultType(const std::string &op, Typed a, Typed b);
  const Node *where(const Node *c, const Node *a, const Node *b, BroadcastMode mode);
  const Node *astype(const Node *x, DType dtype);
  const Node *transpose(const Node *x, std::optional<std::vector<int64_t>> axes);
  const Node *expandDims(const Node *x, std::vector<int64_t> axes);
  const Node *squeeze(const Node *x, std::optional<std::vector<int64_t>> axes);
  /// Target dims may hold one negative entry (inferred, as NumPy infers any negative entry);
  /// a computed entry that may be negative makes the shape piecewise.
  const Node *reshape(const Node *x, const std::vector<Expr> &shape);
  const Node *broadcastTo(const Node *x, const Shape &shape);
  const Node *full(const Shape &shape, const Node *value, std::optional<DType> dtype);
  /// arange(start, stop, step) over integers (sizes): start, start + step, ... short of stop;
  /// max(0, ceil((stop - start) / step)) values. `step` is a non-zero constant; the values are
  /// computed in int64 (start and stop must fit it) and then given `dtype`.
  const Node *arange(const Expr &start, const Expr &stop, int64_t step, DType dtype);
  /// np.pad's copying modes along one axis of length L (mode edge, wrap, symmetric or
  /// reflect): for each of the before + L + after positions, the position of x it copies, as
  /// NumPy 1.24 fills them (wider pads iteratively: not a periodic extension; interp's
  /// padSources). Requires widths >= 0 and, where one is positive, L >= 1 (`axis` names the
  /// axis in NumPy's message).
  const Node *padIndex(const std::string &mode, const Expr &length, const Expr &before, const Expr &after, int64_t axis);
  /// np.repeat's source positions for an axis of `length` with an array of counts (0-d, or 1-d
  /// of that length or 1; bool or integer): each position k repeated counts[k] times, a 1-d
  /// int64 array of the counts' sum, a data-dependent size _kN >= 0 (at most length for bool counts, else unbounded). A negative
  /// count is a value error when it runs.
  const Node *repeatIndex(const Node *counts, const Expr &length);
  /// np.searchsorted(a, v, side): for each element of v, the count of a's elements before it in
  /// NumPy's order (NaN last; left: those < v, right: those <= v), v's shape, int64. `a` is 1-d
  /// (NumPy's "object too deep" otherwise); both compare in their result type.
  const Node *searchSorted(const Node *a, const Node *v, bool right);
  const Node *concatenate(const std::vector<const Node *> &xs, std::optional<int64_t> axis);
  const Node *stack(const std::vector<const Node *> &xs, int64_t axis);
  /// split(x, sections) or split(x, indices): the parts.
  std::vector<const Node *> split(const Node *x, std::variant<Expr, std::vector<Expr>> how, int64_t axis);
  /// Index entries may contain one Ellipsis marker (kind Slice with step 0) and one Array entry
  /// (then `array` is the int or bool index array).
  const Node *index(const Node *x, std::vector<IndexEntry> entries, const Node *array = nullptr);
  /// set_subtensor / inc_subtensor of the region `region` (an Index or Split node) with
  /// `value`, the write named: "set_subtensor", "inc_subtensor" (np.add.at), or
  /// "UFUNC.at" for another binary ufunc whose values are arithmetic (np.multiply.at,
  /// np.maximum.at, ...): each element of the region, in the region's C order, becomes
  /// `ufunc(element, value)` computed in the ufunc's result type and cast back to x's dtype,
  /// so a repeated index applies the ufunc again (NumPy's ufunc.at; a set's last write wins).
  const Node *setSubtensor(const Node *region, const Node *value, const std::string &write, BroadcastMode mode);
  const Node *reduce(const std::string &op, const Node *x, std::optional<std::vector<int64_t>> axes,
                     bool keepdims);
  /// sum_to(g, shape), NumPy's "unbroadcast": `shape` broadcasts to g's shape (the obligation),
  /// and the result, of that shape, sums g over its leading axes and over each axis where
  /// `shape` has 1 and g does not. Which axes those are is decided at run time: in numpy mode
  /// `x + y` with x (n,), y (m,) gives the adjoint of x as g summed when n == 1 and m != 1,
  /// else g itself. The adjoint of every broadcast (ops/Grad.h). An obligation that g's own
  /// pending shape obligations imply is not recorded (sum_to runs after g).
  const Node *sumTo(const Node *g, const Shape &shape);
  /// matmul, outer, linalg.det, linalg.inv, linalg.cholesky, linalg.solve (op = matmul, outer,
  /// det, inv, cholesky, solve): gufuncs over the operands' batch dimensions (op "convolve" gives
  /// convolve()); and the factorizations' outputs, one op per output of linalg qr, svd and eigh
  /// (isFactorization), over the stack of matrices of one operand.
  const Node *blockwise(const std::string &op, const std::vector<const Node *> &xs, BroadcastMode mode);
  /// np.convolve(a, v) (mode 'full'): 1-d operands, neither empty; a + v - 1 long.
  const Node *convolve(const Node *a, const Node *v);
  /// np.einsum(subscripts, *xs) as NumPy computes it without `optimize`: one iterator over the
  /// output's labels and then the summed ones. Each label's sizes broadcast across operands
  /// (per mode; a label repeated within one operand, a diagonal, needs equal sizes there), and
  /// the iterator's running element count stays at most 2**63 - 1 ("iterator is too large").
  /// The dtype is the operands' result type; sums are of products in it (bool: any of all).
  const Node *einsum(const EinsumSpec &spec, const std::vector<const Node *> &xs, BroadcastMode mode);
  const Node *diff(const Node *x, int64_t n, int64_t axis);
  /// cumsum or cumprod along an axis (None flattens first).
  const Node *cumulative(const std::string &op, const Node *x, std::optional<int64_t> axis);
  /// np.sort (op "sort": x's dtype) or np.argsort ("argsort": int64 positions) along an axis
  /// (None flattens first); NaNs last. argsort is stable (ties keep their order: NumPy's
  /// kind='stable', which its default quicksort does not promise).
  const Node *sort(const std::string &op, const Node *x, std::optional<int64_t> axis);
  /// Parameters are nodes; `shapeOnly` gives the value-shaped parameters of permutation and
  /// choice (a size tuple). `size` nullopt is NumPy's size=None.
  const Node *random(const std::string &name, const std::vector<const Node *> &parameters,
                     const std::optional<Shape> &size, BroadcastMode mode,
                     const std::vector<std::optional<Shape>> &shapeOnly = {});
  const Node *specifyShape(const Node *x, const std::vector<std::optional<Expr>> &shape);
  /// x itself where `cond` (a predicate over sizes) holds, and NumPy's error `fails` where it does
  /// not: a composite's requirement that its ops would not state, or not with NumPy's words
  /// (np.pad's "can't extend empty axis", np.partition's "kth(=k) out of bounds"). `{i}` in
  /// `holds` and `fails` stands for shown[i]: written symbolically, or its value when run.
  const Node *check(const Node *x, const Pred &cond, const std::string &holds, const std::string &fails,
                    const std::vector<Expr> &shown = {});
  /// vectorize's Blockwise wrapper: `core` (a node of this graph) run on each example of a
  /// batch. Operand i is the core's operand i (unbatched: every example reads it whole) or an
  /// array of `batchRank` leading batch dims before the core operand's shape (same dtype). The
  /// batched operands' batch dims broadcast (per mode); the result is the batch, then the core's
  /// shape. Each example fails as the core does: its obligations hold, or the batch is empty.
  /// Refused (OpError) for a core whose shape differs per example (a mask's count, an ifelse on
  /// data with branches of two shapes) or that has no operands.
  const Node *map(const Node *core, const std::vector<const Node *> &operands, std::size_t batchRank, BroadcastMode mode);
  /// ifelse on a predicate over sizes (lazy: only the chosen branch runs).
  const Node *ifelse(const Pred &cond, const Node *a, const Node *b);
  /// ifelse on a 0-d bool array (its value decides at run time).
  const Node *ifelse(const Node *cond, const Node *a, const Node *b);
  /// `x`, computed after `guards`: arrays NumPy computes first that x does not read. NumPy
  /// computes an array to read its shape, so `zeros((a + b).shape)` fails where a + b does
  /// (x's symbolic shape no longer mentions a + b: the guard keeps its validity), and computes
  /// `a + b` in `[a + b, a][1]` only to drop it. Returns x when there are no guards.
  const Node *after(const std::vector<const Node *> &guards, const Node *x);

  /// While set, every node a factory returns (new, or one already in the graph) is appended to
  /// `log`: what evaluating an expression built. Unset with nullptr.
  void setMadeLog(std::vector<const Node *> *log) { madeLog_ = log; }

  /// The node `n` with its operands replaced by `inputs` (same op and attributes), through the
  /// op's factory: shape and validity are derived anew. A random draw keeps its draw number and
  /// a data-dependent size its name, so rewritten programs draw the same values and their shapes
  /// compare with the old ones. Returns `n` when the operands are the same. Throws OpError
  /// when the new operands do not fit the op (ranks).
  /// An op whose rule reads nothing of its operands but their shapes, dtypes and literal flags
  /// (elementwise ops, casts, layout ops, reductions, basic indexing, concatenation, ...), with
  /// new operands that agree with the old ones in those, derives what the old node derived:
  /// the new node is a copy of n over the new operands, its factory not run. With
  /// setCheckRebuilds(true) the factory and its rule run too, and any difference from the copy
  /// is an InternalError (the property harness runs so).
  const Node *rebuild(const Node *n, const std::vector<const Node *> &inputs);
  void setCheckRebuilds(bool on) { checkRebuilds_ = on; }

  /// What running `n` reads before its kernel, in order: its operands (of a lazy ifelse only
  /// its condition array; the branch is chosen when it runs; of a set/inc_subtensor not its
  /// region, which describes where it writes: its kernel indexes x itself, and its validity
  /// holds the region's, so that, as in NumPy, a value that does not fit the region is
  /// reported before an index array's values out of range), then the nodes whose
  /// data-dependent sizes n reads through its attributes rather than its operands' shapes
  /// (`a[:b.shape[0]]`, full((b.shape[0],), 1.0), an ifelse on b.shape[0] > 2), so that the sizes
  /// have values. Each size's first node stands for it (a rebuilt node that keeps the name
  /// computes the same size). Both interpreters run these first; n's validity gathers theirs.
  std::vector<const Node *> readsBefore(const Node *n) const;
  /// The same list without a copy where it is n's operands (most nodes: no data-dependent size
  /// in the graph, not an ifelse or set/inc_subtensor); otherwise made in `scratch`.
  std::span<const Node *const> readsBefore(const Node *n, std::vector<const Node *> &scratch) const {
    if (dataOwners_.empty() && n->kind != OpKind::IfElse && n->kind != OpKind::SetSubtensor) return n->inputs;
    scratch = readsBefore(n);
    return scratch;
  }

  const std::deque<Node> &nodes() const { return nodes_; }
  /// The operands of node `id`, by id, in its inputs' order. They are kept beside the nodes in
  /// one array, so that a walk over the graph's edges (a rewrite phase counts the readers of
  /// every node the outputs reach, then visits each in id order) reads 4 bytes an edge in order.
  /// Cost: read through the nodes, the same walk would load a 368-byte node and its operand
  /// list per edge, wherever they lie: at 10^5 nodes that misses the cache.
  std::span<const uint32_t> operandIds(std::size_t id) const {
    return {operandIds_.data() + operandStart_[id], operandIds_.data() + operandStart_[id + 1]};
  }
  const GraphStats &stats() const { return stats_; }

private:
  struct KeyEq {
    bool operator()(const Node *a, const Node *b) const;
  };
  /// Looks `candidate` up; when new, runs `rule` on it (fills dtype, shape, validity) and keeps it.
  template <class Rule> const Node *make(Node candidate, Rule rule);
  /// The node of the graph with `key`'s structural key over `inputs` (key's own inputs are not
  /// read), found by `hash`; null when there is none.
  const Node *find(std::size_t hash, const Node &key, std::span<const Node *const> inputs);
  /// Keeps `c` (its key, hash and derived fields set) as a new node of the graph.
  const Node *adopt(Node &&c);
  /// rebuild() of a node whose new operands derive alike: a copy of n over `inputs`, which takes
  /// n's derived fields, without running n's factory.
  const Node *copyOver(const Node *n, const std::vector<const Node *> &inputs);
  /// rebuild() through the op's factory. With `alike` (the operands derive alike: only with
  /// rebuild checks on), make() compares what the rule derives with n's derived fields.
  const Node *rebuildThroughFactory(const Node *n, const std::vector<const Node *> &inputs, bool alike);
  Node blank(OpKind kind, std::string op, std::vector<const Node *> inputs) const;
  /// A new data-dependent size 0 <= _kN <= bound (0 or 1 when `boolean`; unbounded above
  /// without a bound) that node `n` introduces; n's validity is then decided in a context holding the bound.
  Expr freshDataSize(Node &n, const std::optional<Expr> &size, bool boolean);
  bool provesCheaply(const Context &context, const Pred &p);
  /// dividedSize for d and h proven >= 0: the polynomial quotient, or a fresh defined pair.
  DividedSize definedPair(const Expr &d, const Expr &h);
  /// The elementwise rule: n's inputs broadcast (per mode); fills shape, validity, broadcastable.
  void broadcastOperands(Node &n, BroadcastMode mode);
  /// Static mode: fills n.broadcastable from n's inputs' shapes (their dims before the last
  /// core[i]; inputs marked `apart` take no part in deciding a whole position).
  /// `over`, when given, replaces the inputs' shapes (one shape per input: einsum's operands
  /// remapped to its iteration labels).
  void markStaticBroadcastable(Node &n, bool positionWide, const std::vector<std::size_t> &core = {},
                               const std::vector<bool> &apart = {}, const std::vector<Shape> *over = nullptr);
  /// The reshape rule: the shape of `x` reshaped to `target` (NumPy's reading of negative
  /// entries), its obligations recorded in `v`.
  Shape reshapeTarget(Validity &v, const Context &context, const Node *x, const std::vector<Expr> &target);
  /// An inferred reshape dimension: total / rest as a polynomial, where rest divides total
  /// exactly, or does once a parameter an assumed equality defines is replaced (`assume d ==
  /// h*q` makes (b*d*t) / (b*h*t) q); nullopt otherwise.
  std::optional<Expr> quotient(const Expr &total, const Expr &rest) const;
  /// max(0, e), or e when the solver proves e >= 0.
  Expr nonNegative(const Context &context, const Expr &e);
  /// min(a, b) (or max when !smallest), or the one argument the solver proves it is.
  Expr smaller(const Context &context, const Expr &a, const Expr &b, bool smallest);
  /// The length of a basic slice (indexImpl), written by the signs of its bounds. Remembered
  /// (sliceLengths_); slicedLength computes it.
  Expr sliceLength(const Context &cx, const Expr &L, const std::optional<Expr> &start,
                   const std::optional<Expr> &stop, int64_t step);
  Expr slicedLength(const Context &cx, const Expr &L, const std::optional<Expr> &start,
                    const std::optional<Expr> &stop, int64_t step);
  /// index(), or with `part` one part of split().
  const Node *indexImpl(const Node *x, std::vector<IndexEntry> entries, const Node *array,
                        std::optional<attr::Sections> part);
  /// The data-dependent sizes a candidate's operands and attributes mention.
  std::vector<Expr> reservedOf(const Node &c) const;
  /// `cond` ? a : b, with the branch picked when the solver decides `cond`.
  Expr choose(const Context &context, const Pred &cond, const Expr &whereTrue, const Expr &whereFalse);
  /// `e` itself, or the constant it is at every point of the context when its interval bounds
  /// meet (0 if -n < 0 ... else -n: a choice whose every branch is 0 where taken).
  Expr constantIfFixed(const Context &context, const Expr &e);
  void finish(Node &n);

  Solver *solver_;
  std::vector<Pred> assumptions_;
  Context context_;
  std::vector<Expr> params_;
  std::map<std::string, Pred> dataBounds_; // _kN -> its bound (and _qN, _rN -> their definition)
  std::vector<SizeDefinition> definitions_;                // dividedSize's, in order
  std::map<std::pair<std::string, std::string>, DividedSize> divided_; // by (d, h) as written
  std::unordered_map<std::string, const Node *> dataOwners_; // _kN -> the first node computing it
  mutable std::map<std::string, Context> contexts_;
  std::deque<Node> nodes_;
  std::vector<uint32_t> operandIds_;        // every node's operands' ids, node after node
  std::vector<std::size_t> operandStart_{0}; // node id -> where its ids begin (one past: the end)
  FlatIndex interned_; // the nodes (their ids) by hash, told apart by KeyEq
  /// Pending lists made by merging, one per content (in order): nodes that gather the same
  /// pending nodes share one list, and what is kept per list (a reply's status) is found again.
  struct PendingHash {
    std::size_t operator()(const std::vector<const Node *> &v) const;
  };
  std::vector<std::shared_ptr<const std::vector<const Node *>>> pendingLists_;
  FlatIndex pendingIndex_; // pendingLists_ by content
  std::vector<const Node *> mergeScratch_; // finish()'s merged list, before it is looked up
  std::unordered_map<std::string, const Node *> inputsByName_;
  /// sliceLength's answers. A program slices the same axis the same way again and again (in
  /// random programs about one slice in five is new), and each length asks the solver several
  /// questions and builds choices. An answer is kept only when no solver answer under it was
  /// cut short by the clock (SolverStats::unkept).
  struct SliceKey {
    Pred assumptions;
    SizeDomain domain;
    Expr length;
    std::optional<Expr> start, stop;
    int64_t step;
    bool operator==(const SliceKey &) const = default;
  };
  struct SliceKeyHash {
    std::size_t operator()(const SliceKey &k) const;
  };
  std::unordered_map<SliceKey, Expr, SliceKeyHash> sliceLengths_;
  /// broadcastOperands' broadcasts, kept likewise: an elementwise op over shapes met before
  /// repeats the shape, obligations and decisions of the first (most broadcasts of a long
  /// program are of shapes met before).
  struct BroadcastKey {
    Pred assumptions;
    SizeDomain domain;
    BroadcastMode mode;
    bool count;
    std::vector<Shape> shapes;
    bool operator==(const BroadcastKey &) const = default;
  };
  struct BroadcastKeyHash {
    std::size_t operator()(const BroadcastKey &k) const;
  };
  std::unordered_map<BroadcastKey, BroadcastResult, BroadcastKeyHash> broadcasts_;
  uint32_t dataSizes_ = 0, draws_ = 0;
  std::optional<Expr> reuseDataSize_; // rebuild(): the name freshDataSize gives
  std::optional<int64_t> reuseDraw_;  // rebuild(): the draw random() takes
  GraphStats stats_;
  std::vector<const Node *> *madeLog_ = nullptr; // setMadeLog
  const Node *derivesLike_ = nullptr; // rebuild(): the node whose derived fields make() copies
  bool checkRebuilds_ = false;
};


} // namespace shapelab::ops
