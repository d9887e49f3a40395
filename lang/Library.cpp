// The library: a call of a NumPy function, its arguments checked by its binding in the op list
// (ops/Functions.def), built from the graph's factories and composites.
#include <functional>

#include "lang/SessionImpl.h"
#include "ops/Grad.h"
#include "ops/Vectorize.h"

namespace shapelab::lang {

auto Session::Impl::checkArguments(const Args &a) -> void {
  // The call's binding in the op list (ops/Functions.def; a ufunc's from its arity).
  const ops::Binding *b = ops::binding(a.fn);
  if (!b) throw InternalError("the op list has no binding for " + a.fn);
  if (!b->variadic && a.positional.size() > b->positional)
    failAt(a.fn + "() takes at most " + std::to_string(b->positional) + " positional arguments (" + std::to_string(a.positional.size()) + " given)", a.pos);
  for (const auto &[k, v] : a.keywords)
    if (std::find(b->names.begin(), b->names.end(), k) == b->names.end())
      failAt(a.fn + "() got an unexpected keyword argument '" + k + "'", v.pos);
}

auto Session::Impl::required(const Args &a, std::size_t i, const char *keyword) -> const Value & {
  const Value *v = a.get(i, keyword);
  if (!v) failAt(a.fn + "() missing required argument '" + keyword + "'", a.pos);
  return *v;
}

auto Session::Impl::optional(const Args &a, std::size_t i, const char *keyword) -> Value {
  const Value *v = a.get(i, keyword);
  return v ? *v : Value();
}

auto Session::Impl::arrays(const Value &list) -> std::vector<const Node *> {
  if (list.kind != Value::Tuple) failAt("expected a list of arrays", list.pos);
  std::vector<const Node *> out;
  for (const Value &v : list.items) out.push_back(array(v));
  return out;
}

auto Session::Impl::arrayOrArrays(const Value &v, const std::string &noneGiven) -> std::vector<const Node *> {
  std::vector<const Node *> out = v.kind == Value::Tuple ? arrays(v) : std::vector<const Node *>{array(v)};
  if (out.empty()) failAt(noneGiven, v.pos);
  return out;
}

auto Session::Impl::call(const Value &f, Args &a) -> Value {
  std::string fn = f.text;
  const std::size_t p = f.pos;
  // Methods: x.sum(axis=...) is sum(x, axis=...).
  if (f.node) a.positional.insert(a.positional.begin(), Value::ofNode(f.node, p));
  // NumPy's other names.
  // A ufunc's method (np.add.at): the ufunc's name resolved as the ufunc's own would be.
  std::string method;
  if (fn.ends_with(".at") || fn.ends_with(".outer")) {
    method = fn.substr(fn.rfind('.'));
    fn.resize(fn.size() - method.size());
  }
  if (is(fn, "amax")) fn = "max";
  if (is(fn, "amin")) fn = "min";
  if (is(fn, "divide")) fn = "true_divide";
  if (is(fn, "mod")) fn = "remainder";
  if (is(fn, "empty")) fn = "zeros"; // NumPy leaves the values unspecified: zeros
  Call c{fn + method, a, p, f};
  if (is(method, ".at")) return bindUfuncAt(c);
  if (is(method, ".outer")) return bindUfuncOuter(c);
  if (ops::isUnaryOp(fn)) return bindUnary(c);
  if (ops::isBinaryOp(fn)) return bindBinary(c);
  if (fn.rfind("random.", 0) == 0) return randomCall(fn.substr(7), a, p);
  const auto &table = binders();
  auto it = table.find(fn);
  if (it == table.end()) failAt("'" + fn + "' is not a function shapelab knows (see :ops)", p);
  return (this->*it->second)(c);
}

/// The binder of each function the library builds, by name (a ufunc's by its arity): the rows
/// of ops/Functions.def the language calls. A binder reads the call's arguments (their checks
/// come from the row's binding) and builds the function from the graph's factories and
/// composites.
auto Session::Impl::binders() -> const std::unordered_map<std::string, Binder> & {
  static const std::unordered_map<std::string, Binder> table = {
      {"input", &Impl::bindInput},
      {"where", &Impl::bindWhere},
      {"astype", &Impl::bindAstype},
      {"transpose", &Impl::bindTranspose},
      {"expand_dims", &Impl::bindExpandDims},
      {"squeeze", &Impl::bindSqueeze},
      {"reshape", &Impl::bindReshape},
      {"broadcast_to", &Impl::bindBroadcastTo},
      {"sum_to", &Impl::bindSumTo},
      {"grad", &Impl::bindGrad},
      {"vectorize", &Impl::bindVectorize},
      {"ravel", &Impl::bindRavel},
      {"flatten", &Impl::bindRavel},
      {"clip", &Impl::bindClip},
      {"zeros_like", &Impl::bindFullLike},
      {"ones_like", &Impl::bindFullLike},
      {"empty_like", &Impl::bindFullLike},
      {"full_like", &Impl::bindFullLike},
      {"full", &Impl::bindFull},
      {"zeros", &Impl::bindFull},
      {"ones", &Impl::bindFull},
      {"concatenate", &Impl::bindJoin},
      {"stack", &Impl::bindJoin},
      {"split", &Impl::bindSplit},
      {"linspace", &Impl::bindLinspace},
      {"meshgrid", &Impl::bindMeshgrid},
      {"diagonal", &Impl::bindDiagonal},
      {"trace", &Impl::bindDiagonal},
      {"diag", &Impl::bindDiagonal},
      {"kron", &Impl::bindKron},
      {"rot90", &Impl::bindRot90},
      {"tensordot", &Impl::bindTensordot},
      {"isclose", &Impl::bindIsclose},
      {"allclose", &Impl::bindIsclose},
      {"nan_to_num", &Impl::bindNanToNum},
      {"correlate", &Impl::bindConvolve},
      {"round", &Impl::bindRound},
      {"around", &Impl::bindRound},
      {"array", &Impl::bindArray},
      {"asarray", &Impl::bindArray},
      {"take", &Impl::bindTake},
      {"sort", &Impl::bindSort},
      {"argsort", &Impl::bindSort},
      {"take_along_axis", &Impl::bindAlongAxis},
      {"put_along_axis", &Impl::bindAlongAxis},
      {"set_subtensor", &Impl::bindSetSubtensor},
      {"inc_subtensor", &Impl::bindSetSubtensor},
      {"argmax", &Impl::bindArgReduction},
      {"argmin", &Impl::bindArgReduction},
      {"sum", &Impl::bindReduction},
      {"prod", &Impl::bindReduction},
      {"max", &Impl::bindReduction},
      {"min", &Impl::bindReduction},
      {"all", &Impl::bindReduction},
      {"any", &Impl::bindReduction},
      {"mean", &Impl::bindReduction},
      {"matmul", &Impl::bindGufunc},
      {"outer", &Impl::bindGufunc},
      {"convolve", &Impl::bindConvolve},
      {"linalg.solve", &Impl::bindGufunc},
      {"dot", &Impl::bindDot},
      {"linalg.norm", &Impl::bindLinalgNorm},
      {"repeat", &Impl::bindRepeated},
      {"tile", &Impl::bindRepeated},
      {"einsum", &Impl::bindEinsum},
      {"pad", &Impl::bindPad},
      {"linalg.det", &Impl::bindLinalgSquare},
      {"linalg.inv", &Impl::bindLinalgSquare},
      {"linalg.cholesky", &Impl::bindLinalgSquare},
      {"linalg.slogdet", &Impl::bindLinalgSquare},
      {"linalg.qr", &Impl::bindQr},
      {"linalg.svd", &Impl::bindSvd},
      {"linalg.eigh", &Impl::bindEigh},
      {"linalg.eigvalsh", &Impl::bindEigh},
      {"linalg.pinv", &Impl::bindPinv},
      {"linalg.lstsq", &Impl::bindLstsq},
      {"linalg.matrix_rank", &Impl::bindMatrixRank},
      {"linalg.matrix_power", &Impl::bindMatrixPower},
      {"diff", &Impl::bindDiff},
      {"cumsum", &Impl::bindCumulative},
      {"cumprod", &Impl::bindCumulative},
      {"specify_shape", &Impl::bindSpecifyShape},
      {"ifelse", &Impl::bindIfelse},
      {"tril", &Impl::bindTriangle},
      {"triu", &Impl::bindTriangle},
      {"roll", &Impl::bindRoll},
      {"flip", &Impl::bindLayout},
      {"swapaxes", &Impl::bindLayout},
      {"moveaxis", &Impl::bindLayout},
      {"copy", &Impl::bindLayout},
      {"atleast_1d", &Impl::bindLayout},
      {"atleast_2d", &Impl::bindLayout},
      {"atleast_3d", &Impl::bindLayout},
      {"vstack", &Impl::bindStacking},
      {"hstack", &Impl::bindStacking},
      {"var", &Impl::bindSpread},
      {"std", &Impl::bindSpread},
      {"ptp", &Impl::bindSpread},
      {"arange", &Impl::bindArange},
      {"eye", &Impl::bindEye},
      {"identity", &Impl::bindEye},
      {"len", &Impl::bindLen},
      {"shape", &Impl::bindShapeAttribute},
      {"ndim", &Impl::bindShapeAttribute},
      {"size", &Impl::bindShapeAttribute},
      {"nonzero", &Impl::bindNonzero},
      {"flatnonzero", &Impl::bindNonzero},
      {"argwhere", &Impl::bindNonzero},
      {"compress", &Impl::bindCompress},
      {"unique", &Impl::bindUnique},
      {"searchsorted", &Impl::bindSearchsorted},
      {"partition", &Impl::bindPartition},
      {"argpartition", &Impl::bindPartition},
      {"tril_indices", &Impl::bindTriangleIndices},
      {"triu_indices", &Impl::bindTriangleIndices},
      {"vander", &Impl::bindVander},
      {"logspace", &Impl::bindLogspace},
      {"indices", &Impl::bindIndices},
      {"broadcast_arrays", &Impl::bindBroadcastArrays},
      {"lib.stride_tricks.sliding_window_view", &Impl::bindSlidingWindow},
  };
  return table;
}

auto Session::Impl::bindInput(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  if (pendingInputName.empty() || p != rhsStart) failAt("input(...) must be the whole right-hand side of an assignment to one name: x = input((n,), float64)", p);
  Shape s = shapeOf(required(a, 0, "shape"));
  Value d = optional(a, 1, "dtype");
  std::string name = pendingInputName;
  pendingInputName.clear();
  inputMade = graph->input(name, d.kind == Value::None ? DType::Float64 : dtypeOf(d), s);
  return c.node(inputMade);
}

auto Session::Impl::bindUnary(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  return c.node(graph->unary(fn, array(required(a, 0, "x"))));
}

auto Session::Impl::bindBinary(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  return c.node(graph->binary(fn, array(required(a, 0, "x1")), array(required(a, 1, "x2")), mode));
}

auto Session::Impl::bindWhere(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  // where(condition) alone is nonzero(condition).
  if (a.positional.size() == 1 && a.keywords.empty()) return bindNonzero(c);
  if (a.positional.size() + a.keywords.size() == 2) failAt("either both or neither of x and y should be given", p);
  return c.node(graph->where(array(required(a, 0, "condition")), array(required(a, 1, "x")), array(required(a, 2, "y")), mode));
}

auto Session::Impl::bindAstype(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  return c.node(graph->astype(array(required(a, 0, "x")), dtypeOf(required(a, 1, "dtype"))));
}

auto Session::Impl::bindTranspose(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  const Node *x = array(required(a, 0, "a"));
  if (f.node && a.positional.size() > 2) {
    Value t;
    t.kind = Value::Tuple;
    t.items.assign(a.positional.begin() + 1, a.positional.end());
    return c.node(graph->transpose(x, axesOf(t)));
  }
  checkArguments(a);
  return c.node(graph->transpose(x, axesOf(optional(a, 1, "axes"))));
}

auto Session::Impl::bindExpandDims(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  return c.node(graph->expandDims(array(required(a, 0, "a")), *axesOf(required(a, 1, "axis"))));
}

auto Session::Impl::bindSqueeze(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  return c.node(graph->squeeze(array(required(a, 0, "a")), axesOf(optional(a, 1, "axis"))));
}

auto Session::Impl::bindReshape(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  // x.reshape(n, m) takes the shape as several arguments; the shape's keyword is newshape,
  // or shape as NumPy 2 names it.
  const bool spread = f.node && a.positional.size() > 2;
  if (!spread) checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  Value s;
  if (spread) {
    s.kind = Value::Tuple;
    s.items.assign(a.positional.begin() + 1, a.positional.end());
  } else {
    const Value *given = a.get(1, "newshape");
    s = given ? *given : a.get(1, "shape") ? *a.get(1, "shape") : required(a, 1, "newshape");
  }
  return c.node(graph->reshape(x, shapeOf(s)));
}

auto Session::Impl::bindBroadcastTo(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  return c.node(graph->broadcastTo(array(required(a, 0, "array")), shapeOf(required(a, 1, "shape"))));
}

auto Session::Impl::bindSumTo(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  return c.node(graph->sumTo(array(required(a, 0, "x")), shapeOf(required(a, 1, "shape"))));
}

auto Session::Impl::bindGrad(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  // grad(cost, x): x's gradient; grad(cost, [x, w]): the tuple of theirs (ops/Grad.h).
  checkArguments(a);
  const Node *cost = array(required(a, 0, "cost"));
  const Value &wrt = required(a, 1, "wrt");
  const std::vector<const Node *> xs = arrayOrArrays(wrt, "grad needs at least one array to differentiate with respect to");
  const std::vector<const Node *> gs = ops::gradients(*graph, cost, xs, mode);
  return wrt.kind == Value::Tuple ? Value::ofNodes(gs, p) : c.node(gs[0]);
}

auto Session::Impl::bindVectorize(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  // vectorize(y, x=xb, w=wb[, in_axes=(0, 1)][, out_axes=0]) or vectorize([y, z], x=xb): the
  // keywords other than the options name the arrays replaced (ops/Vectorize.h).
  if (a.positional.size() != 1)
    failAt("vectorize() takes at most 1 positional arguments (" + std::to_string(a.positional.size()) +
               " given): the arrays rebuilt, an array or a list of them",
           p);
  const Value &outputs = a.positional[0];
  const std::vector<const Node *> ys = arrayOrArrays(outputs, "vectorize needs at least one array to rebuild");
  std::vector<std::pair<const Node *, const Node *>> replace;
  std::optional<Value> inAxes, outAxes;
  for (const auto &[name, v] : a.keywords) {
    if (name == "in_axes") {
      inAxes = v;
      continue;
    }
    if (name == "out_axes") {
      outAxes = v;
      continue;
    }
    const Value *bound = variables.find(name);
    if (!bound || bound->kind != Value::Array)
      failAt("vectorize() got an unexpected keyword argument '" + name + "': it names no array of the session (the keywords name the arrays replaced)", v.pos);
    replace.emplace_back(bound->node, array(v));
  }
  if (replace.empty()) failAt("vectorize needs an array to replace, as a keyword: vectorize(y, x=xb)", p);
  if (inAxes) { // one batch axis per replaced array, moved to the front
    std::vector<Value> axes = inAxes->kind == Value::Tuple ? inAxes->items : std::vector<Value>(replace.size(), *inAxes);
    if (axes.size() != replace.size())
      failAt("in_axes has " + std::to_string(axes.size()) + " entries for " + std::to_string(replace.size()) + " replaced arrays", inAxes->pos);
    for (std::size_t i = 0; i < replace.size(); ++i) {
      const Node *xb = replace[i].second;
      if (int64_t from = axisOf(axes[i], xb->rank()); from != 0) replace[i].second = ops::moveaxis(*graph, xb, from, 0);
    }
  }
  std::vector<const Node *> gs = ops::vectorize(*graph, ys, replace, mode);
  if (outAxes)
    for (const Node *&y : gs) y = ops::moveaxis(*graph, y, 0, axisOf(*outAxes, y->rank()));
  return outputs.kind == Value::Tuple ? Value::ofNodes(gs, p) : c.node(gs[0]);
}

auto Session::Impl::bindRavel(Call &c) -> Value {
  // flatten is a method only
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  return c.node(graph->reshape(array(required(a, 0, "a")), {Expr(-1)}));
}

auto Session::Impl::bindClip(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  // NumPy's clip is minimum(maximum(a, a_min), a_max), None skipping a side.
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  Value lo = optional(a, 1, "a_min"), hi = optional(a, 2, "a_max");
  if (lo.kind != Value::None) x = graph->binary("maximum", x, array(lo), mode);
  if (hi.kind != Value::None) x = graph->binary("minimum", x, array(hi), mode);
  return c.node(x);
}

auto Session::Impl::bindFullLike(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  // The shape and dtype of `a` (an array read for them: computed first, as in NumPy), the
  // values given; `empty_like` gives zeros (NumPy leaves them unspecified).
  bool isFull = is(fn, "full_like");
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  noteRead(x);
  Value d = optional(a, isFull ? 2 : 1, "dtype");
  Value fill = isFull ? required(a, 1, "fill_value") : Value::ofFloat(is(fn, "ones_like") ? 1.0 : 0.0, p);
  return c.node(graph->full(x->shape, array(fill), d.kind != Value::None ? dtypeOf(d) : x->dtype));
}

auto Session::Impl::bindFull(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  bool isFull = is(fn, "full");
  checkArguments(a);
  Shape s = shapeOf(required(a, 0, "shape"));
  Value d = optional(a, isFull ? 2 : 1, "dtype");
  std::optional<DType> t;
  if (d.kind != Value::None) t = dtypeOf(d);
  else if (!isFull) t = DType::Float64;
  Value fill = isFull ? required(a, 1, "fill_value") : Value::ofFloat(is(fn, "ones") ? 1.0 : 0.0, p);
  const Node *value = array(fill);
  if (!t && value->weak) t = value->dtype == DType::Bool ? DType::Bool : value->dtype;
  return c.node(graph->full(s, value, t));
}

auto Session::Impl::bindJoin(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  std::vector<const Node *> xs = arrays(required(a, 0, "arrays"));
  Value ax = optional(a, 1, "axis");
  if (is(fn, "stack")) return c.node(graph->stack(xs, ax.kind == Value::None && !a.get(1, "axis") ? 0 : constant(ax, "axis")));
  std::optional<int64_t> axis = 0;
  if (a.get(1, "axis")) axis = ax.kind == Value::None ? std::nullopt : std::optional<int64_t>(constant(ax, "axis"));
  return c.node(graph->concatenate(xs, axis));
}

auto Session::Impl::bindSplit(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "ary"));
  Value how = required(a, 1, "indices_or_sections");
  Value ax = optional(a, 2, "axis");
  int64_t axis = ax.kind == Value::None ? 0 : constant(ax, "axis");
  std::vector<const Node *> parts;
  if (how.kind == Value::Tuple) {
    std::vector<Expr> at;
    for (const Value &v : how.items) at.push_back(sizeOf(v, "a split index"));
    parts = graph->split(x, at, axis);
  } else {
    parts = graph->split(x, sizeOf(how, "sections"), axis);
  }
  Value t;
  t.kind = Value::Tuple;
  t.flag = true;
  t.pos = p;
  for (const Node *n : parts) t.items.push_back(Value::ofNode(n, p));
  return t;
}

auto Session::Impl::bindSetSubtensor(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  return c.node(graph->setSubtensor(array(required(a, 0, "x")), array(required(a, 1, "y")), fn, mode));
}

auto Session::Impl::numberArgument(const Value &v, const char *what) -> double {
  if (!numberLike(v)) failAt(std::string(what) + " must be a number, not " + kindName(v), v.pos);
  return asDouble(v);
}

auto Session::Impl::bindLinspace(Call &c) -> Value {
  // linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value num = optional(a, 2, "num"), endpoint = optional(a, 3, "endpoint"), retstep = optional(a, 4, "retstep");
  const Value dt = optional(a, 5, "dtype"), axis = optional(a, 6, "axis");
  if (retstep.kind == Value::Bool && retstep.flag) failAt("linspace(): retstep=True is not supported", retstep.pos);
  if (axis.kind != Value::None && !(axis.kind == Value::Size && axis.size == Expr(0)))
    failAt("linspace(): shapelab takes 0-d start and stop, so axis is 0", axis.pos);
  const Expr count = num.kind == Value::None ? Expr(50) : sizeOf(num, "num");
  if (auto k = count.constantValue(); k && *k < Integer(0))
    failAt("Number of samples, " + count.toString() + ", must be non-negative.", num.pos);
  const bool withEnd = endpoint.kind == Value::None || (endpoint.kind == Value::Bool ? endpoint.flag : asDouble(endpoint) != 0);
  const Node *start = array(required(a, 0, "start")), *stop = array(required(a, 1, "stop"));
  const DType dtype = dt.kind != Value::None ? dtypeOf(dt) : ops::resultType({{start->dtype, start->weak}, {stop->dtype, stop->weak}, {DType::Float64, true}});
  return c.node(ops::linspace(*graph, start, stop, count, withEnd, dtype, mode));
}

auto Session::Impl::bindMeshgrid(Call &c) -> Value {
  // meshgrid(*xi, copy=True, sparse=False, indexing='xy'): a tuple of arrays.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  bool cartesian = true;
  for (const auto &[k, v] : a.keywords) {
    if (is(k, "indexing")) {
      if (v.kind != Value::String || !(is(v.text, "xy") || is(v.text, "ij")))
        failAt("Valid values for `indexing` are 'xy' and 'ij'.", v.pos);
      cartesian = is(v.text, "xy");
    } else if (is(k, "sparse") && !(v.kind == Value::Bool && !v.flag)) {
      failAt("meshgrid(): sparse=True is not supported", v.pos);
    }
  }
  std::vector<const Node *> xs;
  for (const Value &v : a.positional) xs.push_back(array(v));
  Value t;
  t.kind = Value::Tuple;
  t.pos = p;
  for (const Node *n : ops::meshgrid(*graph, xs, cartesian)) t.items.push_back(Value::ofNode(n, p));
  return t;
}

auto Session::Impl::bindDiagonal(Call &c) -> Value {
  // diagonal(a, offset=0, axis1=0, axis2=1), trace(a, offset=0, axis1=0, axis2=1), diag(v, k=0)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, is(fn, "diag") ? "v" : "a"));
  const Value offset = optional(a, 1, is(fn, "diag") ? "k" : "offset");
  const int64_t k = offset.kind == Value::None ? 0 : constant(offset, is(fn, "diag") ? "k" : "offset");
  if (is(fn, "diag")) return c.node(ops::diag(*graph, x, k, mode));
  const Value ax1 = optional(a, 2, "axis1"), ax2 = optional(a, 3, "axis2");
  // (ops::diagonal checks the rank, then the axes, as NumPy does.)
  const int64_t i = ax1.kind == Value::None ? 0 : constant(ax1, "axis1"), j = ax2.kind == Value::None ? 1 : constant(ax2, "axis2");
  return c.node(is(fn, "trace") ? ops::trace(*graph, x, k, i, j) : ops::diagonal(*graph, x, k, i, j));
}

auto Session::Impl::bindKron(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  return c.node(ops::kron(*graph, array(required(a, 0, "a")), array(required(a, 1, "b")), mode));
}

auto Session::Impl::bindRot90(Call &c) -> Value {
  // rot90(m, k=1, axes=(0, 1))
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *m = array(required(a, 0, "m"));
  const Value k = optional(a, 1, "k"), axes = optional(a, 2, "axes");
  int64_t i = 0, j = 1;
  if (axes.kind != Value::None) {
    if (axes.kind != Value::Tuple || axes.items.size() != 2) failAt("len(axes) must be 2.", axes.pos);
    i = constant(axes.items[0], "an axis"), j = constant(axes.items[1], "an axis");
    for (int64_t q : {i, j})
      if (q < -int64_t(m->rank()) || q >= int64_t(m->rank()))
        failAt("Axes=(" + std::to_string(i) + ", " + std::to_string(j) + ") out of range for array of ndim=" + std::to_string(m->rank()) + ".", axes.pos);
  }
  return c.node(ops::rot90(*graph, m, k.kind == Value::None ? 1 : constant(k, "k"), i, j));
}

auto Session::Impl::bindTensordot(Call &c) -> Value {
  // tensordot(a, b, axes=2): an int N (a's last N with b's first N) or a pair of axis lists.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a")), *y = array(required(a, 1, "b"));
  const Value axes = optional(a, 2, "axes");
  std::vector<int64_t> ax, bx;
  if (axes.kind == Value::None || axes.kind == Value::Size) {
    const int64_t n = axes.kind == Value::None ? 2 : constant(axes, "axes");
    if (n < 0 || n > int64_t(x->rank()) || n > int64_t(y->rank())) failAt("shape-mismatch for sum", axes.pos);
    for (int64_t q = 0; q < n; ++q) ax.push_back(int64_t(x->rank()) - n + q), bx.push_back(q);
  } else {
    if (axes.kind != Value::Tuple || axes.items.size() != 2) failAt("axes must be an integer or a pair of axis lists", axes.pos);
    auto list = [&](const Value &v, std::size_t rank) {
      std::vector<int64_t> out;
      for (const Value &e : v.kind == Value::Tuple ? v.items : std::vector<Value>{v}) out.push_back(axisOf(e, rank));
      return out;
    };
    ax = list(axes.items[0], x->rank());
    bx = list(axes.items[1], y->rank());
  }
  return c.node(ops::tensordot(*graph, x, y, ax, bx, mode));
}

auto Session::Impl::bindIsclose(Call &c) -> Value {
  // isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False); allclose: all of it (a 0-d bool).
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value rtol = optional(a, 2, "rtol"), atol = optional(a, 3, "atol"), nan = optional(a, 4, "equal_nan");
  const Node *close = ops::isclose(*graph, array(required(a, 0, "a")), array(required(a, 1, "b")),
                                   rtol.kind == Value::None ? 1e-05 : numberArgument(rtol, "rtol"),
                                   atol.kind == Value::None ? 1e-08 : numberArgument(atol, "atol"),
                                   nan.kind != Value::None && numberArgument(nan, "equal_nan") != 0, mode);
  if (is(fn, "isclose")) return c.node(close);
  return c.node(graph->reduce("all", close, std::nullopt, false));
}

auto Session::Impl::bindNanToNum(Call &c) -> Value {
  // nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value nan = optional(a, 2, "nan"), posinf = optional(a, 3, "posinf"), neginf = optional(a, 4, "neginf");
  auto given = [&](const Value &v, const char *what) {
    return v.kind == Value::None ? std::nullopt : std::optional<double>(numberArgument(v, what));
  };
  return c.node(ops::nanToNum(*graph, array(required(a, 0, "x")), nan.kind == Value::None ? 0.0 : numberArgument(nan, "nan"),
                              given(posinf, "posinf"), given(neginf, "neginf"), mode));
}

auto Session::Impl::bindConvolve(Call &c) -> Value {
  // convolve(a, v, mode='full'), correlate(a, v, mode='valid')
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value m = optional(a, 2, "mode");
  if (m.kind != Value::None && m.kind != Value::String) failAt("mode must be a string", m.pos);
  const std::string how = m.kind == Value::None ? (is(fn, "correlate") ? "valid" : "full") : m.text;
  try {
    return c.node(ops::convolveMode(*graph, array(required(a, 0, "a")), array(required(a, 1, "v")), how, is(fn, "correlate")));
  } catch (const UserError &e) {
    failAt(e.what(), m.kind == Value::None ? p : m.pos);
  }
}

auto Session::Impl::bindArray(Call &c) -> Value {
  // np.array(object, dtype=None) / np.asarray.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value dt = optional(a, 1, "dtype");
  return c.node(arrayOf(required(a, 0, "object"), dt.kind != Value::None ? std::optional<DType>(dtypeOf(dt)) : std::nullopt, fn));
}

auto Session::Impl::arrayOf(const Value &object, std::optional<DType> given, const std::string &fn) -> const Node * {
  // Nested lists (or tuples) of numbers, sizes and arrays, stacked along new leading axes. The
  // dtype is NumPy's result type of the elements, Python numbers counting as int64, float64 or
  // bool (np.array does not treat them as weak); an array given alone is itself.
  std::vector<ops::Typed> leaves;
  std::function<void(const Value &)> collect = [&](const Value &v) {
    switch (v.kind) {
    case Value::Tuple: for (const Value &i : v.items) collect(i); break;
    case Value::Array: leaves.push_back({v.node->dtype, false}); break;
    case Value::Size: leaves.push_back({DType::Int64, false}); break;
    case Value::Float: leaves.push_back({DType::Float64, false}); break;
    case Value::Bool: leaves.push_back({DType::Bool, false}); break;
    default: failAt(fn + "() takes numbers, sizes, arrays and lists of them, not " + std::string(kindName(v)), v.pos);
    }
  };
  collect(object);
  const DType dtype = given ? *given : leaves.empty() ? DType::Float64 : ops::resultType(leaves);
  std::function<const Node *(const Value &)> build = [&](const Value &v) -> const Node * {
    if (v.kind != Value::Tuple) {
      const Node *n = array(v);
      return n->dtype == dtype && !n->weak ? n : graph->astype(n, dtype);
    }
    if (v.items.empty()) return graph->full({Expr(0)}, graph->literal(0, dtype), dtype);
    std::vector<const Node *> parts;
    for (const Value &i : v.items) parts.push_back(build(i));
    try {
      return graph->stack(parts, 0);
    } catch (const UserError &e) {
      failAt(std::string("setting an array element with a sequence: the nested lists are not of one shape (") + e.what() + ")", v.pos);
    }
  };
  return build(object);
}

auto Session::Impl::bindRound(Call &c) -> Value {
  // round(a, decimals=0, out=None) / around / x.round(decimals)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value d = optional(a, 1, "decimals");
  if (optional(a, 2, "out").kind != Value::None) failAt(fn + "(): out is not supported", p);
  return c.node(ops::round(*graph, array(required(a, 0, "a")), d.kind == Value::None ? 0 : constant(d, "decimals"), mode));
}

auto Session::Impl::indexArgument(const Value &v) -> ops::Subscript {
  // ufunc.at's indices: an integer array, an integer, or a tuple of them (one per axis).
  std::vector<Value> entries = v.kind == Value::Tuple && !v.flag ? v.items : std::vector<Value>{v};
  for (const Value &e : entries)
    if (e.kind != Value::Array && e.kind != Value::Size)
      failAt("the indices must be an integer array, an integer, or a tuple of them, not " + std::string(kindName(e)), e.pos);
  return subscriptOf(entries);
}

auto Session::Impl::bindUfuncAt(Call &c) -> Value {
  // np.UFUNC.at(a, indices, b): a changes in place (the statement rebinds its name).
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  const std::string ufunc = fn.substr(0, fn.size() - 3);
  if (a.positional.size() + a.keywords.size() > 3 || !a.keywords.empty())
    failAt(fn + "() takes the array, the indices and the values, by position", p);
  if (a.positional.size() < 3)
    failAt(fn + "(): shapelab applies ufunc.at with the values given (np." + ufunc + ".at(a, indices, b))", p);
  const Node *x = array(a.positional[0]);
  ops::Subscript index = indexArgument(a.positional[1]);
  const Node *value = array(a.positional[2]);
  rebindsArgumentAt = a.positional[0].pos;
  try {
    return c.node(ops::scatter(*graph, x, index, value, is(ufunc, "add") ? "inc_subtensor" : ufunc + ".at", mode));
  } catch (const UserError &e) {
    failAt(e.what(), p);
  }
}

auto Session::Impl::bindUfuncOuter(Call &c) -> Value {
  // np.UFUNC.outer(A, B): ufunc(A[..., None, ..., None], B), B's rank of new axes on A.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  const std::string ufunc = fn.substr(0, fn.size() - 6);
  if (a.positional.size() != 2 || !a.keywords.empty()) failAt(fn + "() takes two arrays", p);
  const Node *x = array(a.positional[0]), *y = array(a.positional[1]);
  std::vector<int64_t> axes;
  for (std::size_t i = 0; i < y->rank(); ++i) axes.push_back(int64_t(x->rank() + i));
  const Node *spread = axes.empty() ? x : graph->expandDims(x, axes);
  return c.node(graph->binary(ufunc, spread, y, mode));
}

auto Session::Impl::bindSort(Call &c) -> Value {
  // sort(a, axis=-1, kind=None, order=None), argsort(...): any kind (argsort is stable).
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  const Value ax = optional(a, 1, "axis"), kind = optional(a, 2, "kind"), order = optional(a, 3, "order");
  if (kind.kind != Value::None) {
    static const char *kinds[] = {"quicksort", "mergesort", "heapsort", "stable"};
    if (kind.kind != Value::String || std::none_of(std::begin(kinds), std::end(kinds), [&](const char *k) { return kind.text == k; }))
      failAt("sort kind must be one of 'quick', 'heap', or 'stable' (got '" + (kind.kind == Value::String ? kind.text : std::string(kindName(kind))) + "')", kind.pos);
  }
  if (order.kind != Value::None) failAt(fn + "(): order applies to structured arrays, which shapelab does not have", order.pos);
  std::optional<int64_t> axis = -1;
  if (a.get(1, "axis")) axis = ax.kind == Value::None ? std::nullopt : std::optional<int64_t>(axisOf(ax, x->rank()));
  // x.sort() sorts x in place (NumPy's method returns None): the statement rebinds x.
  if (f.node && is(fn, "sort")) {
    if (!axis) failAt("sort(): the method sorts in place along an axis (axis=None is np.sort's)", ax.pos);
    rebindsObjectAt = f.pos;
  }
  return c.node(graph->sort(fn, x, axis));
}

auto Session::Impl::bindTake(Call &c) -> Value {
  // take(a, indices, axis=None, out=None, mode='raise'): a[..., indices, ...] along the axis (a
  // flattened for None); an integer index drops the axis.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  const Value &indices = required(a, 1, "indices");
  const Value ax = optional(a, 2, "axis"), out = optional(a, 3, "out"), how = optional(a, 4, "mode");
  if (out.kind != Value::None) failAt("take(): out is not supported", out.pos);
  if (how.kind != Value::None && !(how.kind == Value::String && is(how.text, "raise")))
    failAt("take(): shapelab takes mode='raise' (an index out of range is an error)", how.pos);
  const Node *target = ax.kind == Value::None ? graph->reshape(x, {Expr(-1)}) : x;
  const int64_t axis = ax.kind == Value::None ? 0 : axisOf(ax, x->rank());
  std::vector<Value> entries(std::size_t(axis), Value{});
  for (Value &e : entries) {
    e.kind = Value::Slice;
    e.items.resize(3);
  }
  if (indices.kind != Value::Array && indices.kind != Value::Size)
    failAt("take(): the indices must be an integer array or an integer, not " + std::string(kindName(indices)), indices.pos);
  entries.push_back(indices);
  try {
    return c.node(ops::gather(*graph, target, subscriptOf(entries)));
  } catch (const UserError &e) {
    failAt(e.what(), p);
  }
}

auto Session::Impl::bindAlongAxis(Call &c) -> Value {
  // take_along_axis(arr, indices, axis) and put_along_axis(arr, indices, values, axis) (in
  // place: the statement rebinds arr's name). axis=None reads arr flattened (take) or writes
  // it so (put), as NumPy does.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const bool put = is(fn, "put_along_axis");
  const Node *arr = array(required(a, 0, "arr")), *indices = array(required(a, 1, "indices"));
  const Value &ax = put ? required(a, 3, "axis") : required(a, 2, "axis");
  const Node *values = put ? array(required(a, 2, "values")) : nullptr;
  try {
    const Node *target = arr;
    int64_t axis = 0;
    if (ax.kind == Value::None) {
      if (indices->rank() != 1) failAt("when axis=None, `indices` must have a single dimension.", ax.pos);
      target = graph->reshape(arr, {Expr(-1)});
    } else {
      axis = axisOf(ax, arr->rank());
    }
    ops::Subscript index = ops::alongAxis(*graph, target, indices, axis);
    if (!put) return c.node(ops::gather(*graph, target, index));
    rebindsArgumentAt = required(a, 0, "arr").pos; // (arr= may be a keyword)
    const Node *written = ops::scatter(*graph, target, index, values, "set_subtensor", mode);
    return c.node(target == arr ? written : graph->reshape(written, arr->shape));
  } catch (const UserError &e) {
    failAt(e.what(), p);
  }
}

auto Session::Impl::bindArgReduction(Call &c) -> Value {
  // one axis, or the flat index (NumPy's out is not taken)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  Value ax = optional(a, 1, "axis"), keep = optional(a, 3, "keepdims");
  if (optional(a, 2, "out").kind != Value::None) failAt(fn + "(): out is not supported", p);
  if (ax.kind == Value::Tuple) failAt("'tuple' object cannot be interpreted as an integer", ax.pos);
  bool keepdims = keepdimsOf(keep);
  const Node *x = array(required(a, 0, "a"));
  return c.node(graph->reduce(fn, x, zeroDimAxis(x, ax) ? std::nullopt : axesOf(ax), keepdims));
}

auto Session::Impl::zeroDimAxis(const Node *x, const Value &axis) -> bool {
  // NumPy's ufunc reductions and arg reductions take a 0-d array with axis 0 or -1 (one
  // integer, not a tuple) as the whole array: np.array(1.5).sum(axis=-1) is 1.5.
  if (!x->shape.empty() || axis.kind != Value::Size) return false;
  const std::optional<Integer> v = axis.size.constantValue();
  return v && (*v == Integer(0) || *v == Integer(-1));
}

auto Session::Impl::bindReduction(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  if (const Value &x = required(a, 0, "a"); x.kind == Value::Tuple) return tupleReduction(fn, x, a, p);
  Value keep = optional(a, 2, "keepdims");
  bool keepdims = keepdimsOf(keep);
  const Node *x = array(required(a, 0, "a"));
  const Value axis = optional(a, 1, "axis");
  // (mean is no ufunc reduction: it refuses axis 0 of a 0-d array.)
  const std::optional<std::vector<int64_t>> axes = !is(fn, "mean") && zeroDimAxis(x, axis) ? std::nullopt : axesOf(axis);
  // where= and initial= (keyword only): ops::reduceWhere; `where=True` is no mask.
  const Value *where = a.get(SIZE_MAX, "where"), *initial = a.get(SIZE_MAX, "initial");
  if (where && where->kind == Value::Bool && where->flag) where = nullptr;
  if (initial && initial->kind == Value::None) initial = nullptr;
  if (!where && !initial) return c.node(graph->reduce(fn, x, axes, keepdims));
  try {
    return c.node(ops::reduceWhere(*graph, fn, x, axes, keepdims, where ? array(*where) : nullptr, initial ? array(*initial) : nullptr, mode));
  } catch (const UserError &e) {
    failAt(e.what(), where ? where->pos : initial->pos);
  }
}

auto Session::Impl::bindGufunc(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(*(a.get(0, "a") ? a.get(0, "a") : &required(a, 0, "x1")));
  const Value *second = a.get(1, "b");
  if (!second) second = a.get(1, "v");
  if (!second) second = a.get(1, "x2");
  if (!second) failAt(fn + "() takes two arrays", p);
  const Node *y = array(*second);
  if (is(fn, "outer")) {
    x = graph->reshape(x, {Expr(-1)});
    y = graph->reshape(y, {Expr(-1)});
  }
  return c.node(graph->blockwise(is(fn, "linalg.solve") ? "solve" : fn, {x, y}, mode));
}

auto Session::Impl::bindDot(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a")), *y = array(required(a, 1, "b"));
  return c.node(ops::dot(*graph, x, y, mode));
}



auto Session::Impl::bindDiff(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  Value n = optional(a, 1, "n"), ax = optional(a, 2, "axis");
  return c.node(graph->diff(array(required(a, 0, "a")), n.kind == Value::None ? 1 : constant(n, "n"),
                          ax.kind == Value::None ? -1 : constant(ax, "axis")));
}

auto Session::Impl::bindCumulative(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  Value ax = optional(a, 1, "axis");
  return c.node(graph->cumulative(fn, array(required(a, 0, "a")), ax.kind == Value::None ? std::nullopt : std::optional<int64_t>(constant(ax, "axis"))));
}

auto Session::Impl::bindSpecifyShape(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  Value s = required(a, 1, "shape");
  std::vector<std::optional<Expr>> dims;
  if (s.kind == Value::Tuple) {
    for (const Value &d : s.items) dims.push_back(d.kind == Value::None ? std::nullopt : std::optional<Expr>(sizeOf(d, "a dimension")));
  } else {
    dims.push_back(sizeOf(s, "a dimension"));
  }
  return c.node(graph->specifyShape(array(required(a, 0, "x")), dims));
}

auto Session::Impl::bindIfelse(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value &cond = required(a, 0, "cond");
  const Node *x = array(required(a, 1, "a")), *y = array(required(a, 2, "b"));
  if (cond.kind == Value::Predicate) return c.node(graph->ifelse(cond.pred, x, y));
  if (cond.kind == Value::Bool) return c.node(graph->ifelse(Pred::truth(cond.flag), x, y));
  return c.node(graph->ifelse(array(cond), x, y));
}

auto Session::Impl::bindTriangle(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *m = array(required(a, 0, "m"));
  Value k = optional(a, 1, "k");
  Expr diagonal = k.kind == Value::None ? Expr(0) : sizeOf(k, "the diagonal k");
  return c.node(is(fn, "tril") ? ops::tril(*graph, m, diagonal, mode) : ops::triu(*graph, m, diagonal, mode));
}

auto Session::Impl::bindRoll(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  const Value &s = required(a, 1, "shift");
  std::vector<Expr> shifts;
  if (s.kind == Value::Tuple)
    for (const Value &v : s.items) shifts.push_back(sizeOf(v, "a shift"));
  else
    shifts.push_back(sizeOf(s, "the shift"));
  return c.node(ops::roll(*graph, x, shifts, axesOf(optional(a, 2, "axis")), mode));
}

auto Session::Impl::bindStacking(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  // NumPy: vstack joins the arrays made at least 2-d along axis 0; hstack joins those made
  // at least 1-d along axis 1, or 0 when the first is 1-d.
  checkArguments(a);
  std::vector<const Node *> xs = arrays(required(a, 0, "tup"));
  return c.node(is(fn, "vstack") ? ops::vstack(*graph, xs) : ops::hstack(*graph, xs));
}

auto Session::Impl::bindArange(Call &c) -> Value {
  // arange([start,] stop[, step], dtype=None), over sizes
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value *first = a.get(0, "start"), *second = a.get(1, "stop"), *third = a.get(2, "step");
  if (!first && !second) failAt("arange() requires stop to be specified", p);
  auto bound = [&](const Value &v) {
    if (v.kind == Value::Float) failAt("arange with a float bound: its length is computed in floating point; shapelab takes integer (size) bounds", v.pos);
    return sizeOf(v, "an arange bound");
  };
  // One positional argument is stop (start 0); two or three are start, stop, step.
  Expr start = second ? bound(*first) : Expr(0), stop = second ? bound(*second) : bound(*first);
  int64_t step = third ? constant(*third, "arange's step") : 1;
  Value d = optional(a, 3, "dtype");
  return c.node(graph->arange(start, stop, step, d.kind == Value::None ? DType::Int64 : dtypeOf(d)));
}

auto Session::Impl::bindEye(Call &c) -> Value {
  // eye(N, M=None, k=0, dtype=float64); identity(n, dtype=float64)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  const bool eye = is(fn, "eye");
  checkArguments(a);
  Expr rows = sizeOf(required(a, 0, eye ? "N" : "n"), "the number of rows");
  Value m = eye ? optional(a, 1, "M") : Value();
  Expr cols = m.kind == Value::None ? rows : sizeOf(m, "the number of columns");
  Value kv = eye ? optional(a, 2, "k") : Value();
  int64_t k = kv.kind == Value::None ? 0 : constant(kv, "the diagonal k");
  Value d = optional(a, eye ? 3 : 1, "dtype");
  return c.node(ops::eye(*graph, rows, cols, k, d.kind == Value::None ? DType::Float64 : dtypeOf(d), mode));
}

auto Session::Impl::bindLen(Call &c) -> Value {
  // Python's len of an array: its first dimension
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  if (const Value &t = required(a, 0, "obj"); t.kind == Value::Tuple) return Value::ofSize(Expr(int64_t(t.items.size())), p);
  const Node *x = array(required(a, 0, "obj"));
  if (x->rank() == 0) failAt("len() of unsized object", p);
  noteRead(x);
  return Value::ofSize(x->shape[0], p);
}

auto Session::Impl::bindShapeAttribute(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  Token t{Token::Name, fn, p};
  return attribute(Value::ofNode(array(required(a, 0, "a")), p), t);
}


auto Session::Impl::axisOf(const Value &v, std::size_t rank) -> int64_t {
  int64_t k = constant(v, "axis"), r = int64_t(rank);
  if (k < -r || k >= r) failAt("axis " + std::to_string(k) + " is out of bounds for array of dimension " + std::to_string(rank), v.pos);
  return k < 0 ? k + r : k;
}

/// flip, swapaxes, moveaxis, copy and atleast_Nd: views NumPy makes of x, built from indexing,
/// transposes and reshapes (ops/Composites.h).
auto Session::Impl::bindLayout(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  if (is(fn, "copy")) {
    checkArguments(a);
    return c.node(array(required(a, 0, "a"))); // the same values: nodes are immutable
  }
  if (fn.rfind("atleast_", 0) == 0) {
    checkArguments(a);
    return c.node(ops::atleast(*graph, array(required(a, 0, "arys")), std::size_t(fn[8] - '0')));
  }
  if (is(fn, "flip")) { // x[::-1] along the axes (every axis when axis is None)
    checkArguments(a);
    const Node *x = array(required(a, 0, "m"));
    Value ax = optional(a, 1, "axis");
    std::optional<std::vector<int64_t>> axes;
    if (ax.kind != Value::None) axes.emplace();
    for (const Value &v : ax.kind == Value::Tuple ? ax.items : std::vector<Value>{ax})
      if (v.kind != Value::None) {
        const int64_t k = axisOf(v, x->rank());
        if (std::find(axes->begin(), axes->end(), k) != axes->end()) failAt("repeated axis", v.pos);
        axes->push_back(k);
      }
    return c.node(ops::flip(*graph, x, axes));
  }
  // swapaxes(a, axis1, axis2) and moveaxis(a, source, destination): permutations.
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  const Value &from = required(a, 1, is(fn, "swapaxes") ? "axis1" : "source");
  const Value &to = required(a, 2, is(fn, "swapaxes") ? "axis2" : "destination");
  const int64_t i = axisOf(from, x->rank()), j = axisOf(to, x->rank());
  return c.node(is(fn, "swapaxes") ? ops::swapaxes(*graph, x, i, j) : ops::moveaxis(*graph, x, i, j));
}

auto Session::Impl::padPairs(const Value &v, std::size_t rank, bool widths) -> std::vector<std::pair<Value, Value>> {
  // The argument as an array of values: its shape, and its values in C order.
  std::vector<std::size_t> shape;
  std::vector<Value> flat;
  auto scalar = [&](const Value &i) {
    if (widths && (i.kind == Value::Float || (i.kind == Value::Tuple && i.items.empty())))
      failAt("`pad_width` must be of integral type.", i.pos);
    if (i.kind != Value::Size && i.kind != Value::Bool && (widths || i.kind != Value::Float))
      failAt(std::string(widths ? "pad_width" : "constant_values") + " holds " + kindName(i) +
                 (widths ? ", not a size" : ", not a number"),
             i.pos);
    flat.push_back(i);
  };
  if (v.kind != Value::Tuple) {
    scalar(v);
  } else if (v.items.empty()) {
    scalar(v); // refused: NumPy's empty pad_width has no integral type
  } else if (v.items[0].kind != Value::Tuple) {
    shape = {v.items.size()};
    for (const Value &i : v.items) scalar(i);
  } else {
    shape = {v.items.size(), v.items[0].items.size()};
    for (const Value &row : v.items) {
      if (row.kind != Value::Tuple || row.items.size() != shape[1])
        failAt("setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 "
               "dimensions.",
               row.pos);
      for (const Value &i : row.items) {
        if (i.kind == Value::Tuple) failAt("pad(): pairs of pairs are not supported", i.pos);
        scalar(i);
      }
    }
  }
  if (widths)
    for (const Value &w : flat)
      if (auto c = sizeOf(w, "a pad width").constantValue(); c && c->sign() < 0)
        failAt("index can't contain negative values", w.pos);
  // One value, or one pair (not a column of two), is every axis's.
  if (flat.size() == 1) return std::vector<std::pair<Value, Value>>(rank, {flat[0], flat[0]});
  if (flat.size() == 2 && !(shape.size() == 2 && shape[0] == 2 && shape[1] == 1))
    return std::vector<std::pair<Value, Value>>(rank, {flat[0], flat[1]});
  // Otherwise broadcast to (rank, 2).
  const std::size_t rows = shape.size() == 2 ? shape[0] : 1, columns = shape.back();
  if ((rows != 1 && rows != rank) || (columns != 1 && columns != 2)) {
    std::string dims = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) dims += (i ? "," : "") + std::to_string(shape[i]);
    failAt("operands could not be broadcast together with remapped shapes [original->remapped]: " + dims +
               (shape.size() == 1 ? ",)" : ")") + "  and requested shape (" + std::to_string(rank) + ",2)",
           v.pos);
  }
  std::vector<std::pair<Value, Value>> out;
  for (std::size_t r = 0; r < rank; ++r) {
    const std::size_t row = rows == 1 ? 0 : r;
    out.push_back({flat[row * columns], flat[row * columns + (columns == 2 ? 1 : 0)]});
  }
  return out;
}

/// pad(array, pad_width, mode='constant', constant_values=0): each axis, axis 0 first, gets its
/// before and after widths of the constant (in the array's dtype) concatenated on, so that a
/// later axis's constant fills the corners, as NumPy's does. mode='empty' leaves the new values
/// unspecified in NumPy (zeros here); the other modes copy the array's own values and are not
/// supported.
auto Session::Impl::bindPad(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "array"));
  const Value mode = optional(a, 2, "mode");
  bool empty = false;
  if (mode.kind != Value::None) {
    if (mode.kind != Value::String) failAt("pad(): mode must be a string", mode.pos);
    static const std::set<std::string> statistics = {"linear_ramp", "maximum", "mean", "median", "minimum"};
    if (statistics.count(mode.text))
      failAt("pad(): mode '" + mode.text + "' is not supported (constant, empty, edge, wrap, symmetric and reflect are)", mode.pos);
    if (is(mode.text, "edge") || is(mode.text, "wrap") || is(mode.text, "symmetric") || is(mode.text, "reflect")) {
      for (const auto &[k, v] : a.keywords)
        if (is(k, "reflect_type") && !(v.kind == Value::String && is(v.text, "even")))
          failAt("pad(): reflect_type='even' is the one shapelab has", v.pos);
        else if (is(k, "constant_values"))
          failAt("unsupported keyword arguments for mode '" + mode.text + "': {'constant_values'}", v.pos);
      const auto widths = padPairs(required(a, 1, "pad_width"), std::max<std::size_t>(x->rank(), 1), true);
      if (x->rank() == 0) return c.node(x);
      std::vector<std::pair<Expr, Expr>> exprs;
      for (const auto &[before, after] : widths) exprs.emplace_back(sizeOf(before, "a pad width"), sizeOf(after, "a pad width"));
      return c.node(ops::padCopying(*graph, x, exprs, mode.text));
    }
    if (!is(mode.text, "constant") && !is(mode.text, "empty")) failAt("mode '" + mode.text + "' is not supported", mode.pos);
    empty = is(mode.text, "empty");
  }
  const Value given = optional(a, 3, "constant_values");
  if (empty && given.kind != Value::None)
    failAt("unsupported keyword arguments for mode 'empty': {'constant_values'}", given.pos);
  const Value &widthArgument = required(a, 1, "pad_width");
  const auto widths = padPairs(widthArgument, x->rank(), true);
  const auto values = padPairs(given.kind == Value::None ? Value::ofSize(Expr(0), p) : given, x->rank(), false);
  if (x->rank() == 0) {
    // No axis uses the widths, but NumPy checks them: a symbolic one must be a size, which an
    // empty array (w, 0) computed first (and dropped) requires without holding w elements.
    std::vector<const Node *> guards;
    for (const auto &[before, after] : padPairs(widthArgument, 1, true))
      for (const Value &w : {before, after})
        if (Expr e = sizeOf(w, "a pad width"); !e.isConstant())
          guards.push_back(graph->full({e, Expr(0)}, graph->literal(0, DType::Bool), DType::Bool));
    return c.node(graph->after(guards, x));
  }
  for (std::size_t axis = 0; axis < x->rank(); ++axis) {
    std::vector<const Node *> parts;
    auto side = [&](const Value &width, const Value &value) {
      Expr w = sizeOf(width, "a pad width");
      if (w == Expr(0)) return;
      Shape s = x->shape;
      s[axis] = w;
      parts.push_back(graph->full(s, array(value), x->dtype));
    };
    side(widths[axis].first, values[axis].first);
    parts.push_back(x);
    side(widths[axis].second, values[axis].second);
    if (parts.size() > 1) x = graph->concatenate(parts, int64_t(axis));
  }
  return c.node(x);
}

/// einsum(subscripts, *operands, optimize=False), NumPy's einsum without a contraction order.
auto Session::Impl::bindEinsum(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  if (a.positional.empty() || a.positional[0].kind != Value::String)
    failAt("einsum(): the subscripts come first, as a string (the form einsum(a, [0, 1], b, [1, 2]) is not supported)", p);
  for (const auto &[k, v] : a.keywords) // optimize, the one keyword its binding names
    if (!(v.kind == Value::Bool && !v.flag))
      failAt("einsum(): only optimize=False (NumPy's default) is supported: an optimized contraction is another computation", v.pos);
  std::vector<const Node *> xs;
  for (std::size_t i = 1; i < a.positional.size(); ++i) xs.push_back(array(a.positional[i]));
  const Value &subscripts = a.positional[0];
  std::vector<std::size_t> ranks;
  for (const Node *x : xs) ranks.push_back(x->rank());
  EinsumSpec spec;
  try {
    spec = parseEinsum(subscripts.text, ranks);
  } catch (const SyntaxError &e) {
    failAt(e.message(), subscripts.pos + 1 + e.position()); // the caret inside the quotes
  }
  return c.node(graph->einsum(spec, xs, mode));
}

/// repeat(a, repeats, axis=None) with one count (a size) for every element or an array of counts
/// (a list too), and tile(A, reps) (ops/Composites.h).
auto Session::Impl::bindRepeated(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  const bool tile = is(fn, "tile");
  checkArguments(a);
  const Node *x = array(required(a, 0, tile ? "A" : "a"));
  const Value &r = required(a, 1, tile ? "reps" : "repeats");
  if (tile) {
    std::vector<Expr> given;
    for (const Value &v : r.kind == Value::Tuple ? r.items : std::vector<Value>{r}) given.push_back(sizeOf(v, "a count"));
    return c.node(ops::tile(*graph, x, given));
  }
  Value ax = optional(a, 2, "axis");
  const std::optional<int64_t> axis = ax.kind == Value::None ? std::nullopt : std::optional(axisOf(ax, x->rank()));
  if (r.kind == Value::Tuple && !r.items.empty() &&
      std::all_of(r.items.begin(), r.items.end(), [](const Value &v) { return v.kind == Value::Size; })) {
    std::vector<Expr> counts;
    for (const Value &v : r.items) counts.push_back(v.size);
    return c.node(ops::repeat(*graph, x, counts, axis));
  }
  if (r.kind == Value::Tuple || r.kind == Value::Array || r.kind == Value::Literal) {
    return c.node(ops::repeat(*graph, x, arrayOf(r, std::nullopt, fn), axis));
  }
  return c.node(ops::repeat(*graph, x, sizeOf(r, "the count"), axis));
}

/// var and std (NumPy's: the mean of the squared deviations from the mean, divided by
/// max(count - ddof, 0); std its square root) and ptp (max - min).
auto Session::Impl::bindSpread(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  std::optional<std::vector<int64_t>> axes = axesOf(optional(a, 1, "axis"));
  Value keep = optional(a, is(fn, "ptp") ? 2 : 5, "keepdims");
  bool keepdims = keepdimsOf(keep);
  if (!is(fn, "ptp")) {
    if (optional(a, 2, "dtype").kind != Value::None || optional(a, 3, "out").kind != Value::None)
      failAt(fn + "(): dtype and out are not supported", p);
  }
  if (is(fn, "ptp")) return c.node(ops::ptp(*graph, x, axes, keepdims, mode));
  Value dd = optional(a, 4, "ddof");
  Expr ddof = dd.kind == Value::None ? Expr(0) : sizeOf(dd, "ddof");
  return c.node(is(fn, "std") ? ops::standardDeviation(*graph, x, axes, keepdims, ddof, mode)
                       : ops::variance(*graph, x, axes, keepdims, ddof, mode));
}

auto Session::Impl::tupleReduction(const std::string &fn, const Value &x, const Args &a, std::size_t p) -> Value {
  if (Value axis = optional(a, 1, "axis"); axis.kind != Value::None)
    if (int64_t k = constant(axis, "axis"); k != 0 && k != -1)
      failAt("axis " + std::to_string(k) + " is out of bounds for array of dimension 1", axis.pos);
  if (Value keep = optional(a, 2, "keepdims"); keep.kind != Value::None && !(keep.kind == Value::Bool && !keep.flag))
    failAt(fn + "() of a tuple of sizes is a number here: keepdims is not supported", keep.pos);
  if (is(fn, "mean")) failAt("mean() of a tuple of sizes is not a size (it is a float): take it of an array", p);
  std::vector<Expr> items;
  for (const Value &i : x.items) items.push_back(sizeOf(i, "each item of the tuple"));
  if (is(fn, "all") || is(fn, "any")) {
    std::vector<Pred> parts;
    for (const Expr &e : items) parts.push_back(Pred::compare(CompareOp::NE, e, Expr(0)));
    return Value::ofPred(is(fn, "all") ? Pred::conjunction(parts) : Pred::disjunction(parts), p);
  }
  // NumPy's answer is a NumPy scalar: np.int64, or np.float64 for an empty tuple.
  auto numpy = [](Value v) {
    v.numpyScalar = true;
    return v;
  };
  if (items.empty()) {
    if (is(fn, "sum")) return numpy(Value::ofFloat(0.0, p));
    if (is(fn, "prod")) return numpy(Value::ofFloat(1.0, p));
    failAt("zero-size array to reduction operation " + std::string(is(fn, "max") ? "maximum" : "minimum") + " which has no identity", p);
  }
  if (is(fn, "max")) return numpy(Value::ofSize(max(items), p));
  if (is(fn, "min")) return numpy(Value::ofSize(min(items), p));
  Expr r = items[0];
  for (std::size_t i = 1; i < items.size(); ++i) r = is(fn, "sum") ? r + items[i] : r * items[i];
  return numpy(Value::ofSize(r, p));
}

} // namespace shapelab::lang
