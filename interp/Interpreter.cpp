#include "interp/kernels/KernelDetail.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "interp/Kernels.h"
#include "shape/Broadcast.h"
#include "shape/RandomVariable.h"

namespace shapelab::interp {

using ops::IndexEntry;
using ops::Node;
using ops::OpKind;


std::vector<int64_t> elementwiseShape(const Node *n, const std::vector<std::vector<int64_t>> &shapes) {
  Dims out = broadcastShapes(shapes);
  checkStaticBroadcast(n, shapes, out);
  return out;
}

bool powerIsSquare(const Node *n) {
  if (n->kind != OpKind::Binary || n->op != "power" || !ops::isFloat(n->dtype) || n->inputs[0]->rank() == 0) return false;
  const Node *e = n->inputs[1];
  if (e->kind != OpKind::Scalar || !e->weak) return false;
  if (e->exprs.empty()) return e->attr<ops::attr::Constant>().value == 2;
  std::optional<Integer> c = e->exprs[0].constantValue();
  return c && *c == Integer(2);
}

Array seededInput(const std::string &name, DType dtype, const std::vector<int64_t> &shape, uint64_t seed) {
  Array a(dtype, shape);
  uint64_t key = std::hash<std::string>()(name);
  dispatch(dtype, [&](auto t) {
    using T = decltype(t);
    T *p = a.base<T>();
    for (int64_t i = 0; i < a.size(); ++i) {
      CounterRng rng(seed, key, uint64_t(i));
      uint64_t r = rng.next();
      if constexpr (std::is_same_v<T, bool>) p[i] = r & 1;
      else if constexpr (std::is_integral_v<T>) p[i] = T(r % 5);
      else p[i] = T(double(int64_t(r % 128) - 64) / 16.0);
    }
  });
  return a;
}

void addSeededInputs(const ops::Graph &graph, const Assignment &point, uint64_t seed, std::map<std::string, Array> &given) {
  for (const Node &x : graph.nodes()) {
    if (x.kind != OpKind::Input || given.count(x.op)) continue;
    Dims dims;
    for (const Expr &d : x.shape) {
      std::optional<Integer> v = shapelab::evaluate(d, point);
      if (!v || !v->fitsInt64()) break;
      dims.push_back(v->toInt64Checked());
    }
    if (dims.size() == x.shape.size()) given[x.op] = seededInput(x.op, x.dtype, dims, seed);
  }
}

Interpreter::Interpreter(const ops::Graph &graph, Assignment params, std::map<std::string, Array> inputs,
                         InterpreterOptions options)
    : graph_(graph), point_(std::move(params)), inputs_(std::move(inputs)), options_(std::move(options)) {
  for (const Expr &p : graph.params())
    if (!point_.find(p->name)) throw EvalError(EvalError::Input, "no value for size parameter " + p->name);
  for (const auto &[name, v] : point_.values()) {
    if (v < Integer(0)) throw EvalError(EvalError::Input, "size parameter " + name + " is " + v.toString() + "; sizes are >= 0");
    if (!v.fitsInt64()) throw EvalError(EvalError::Input, "size parameter " + name + " does not fit in int64");
  }
  defineSizes();
  for (const Pred &a : graph.assumptions()) {
    // Assumptions about data-dependent sizes hold by construction; check the user's.
    bool dataBound = false;
    for (const Expr &p : parametersOf(a)) dataBound |= p->reserved && !graph.definitionOf(p->name);
    if (!dataBound && !holds(a, point_))
      throw EvalError(EvalError::Input, point_.toString() + " does not satisfy the assumption " + a.toString());
  }
}

void Interpreter::defineSizes() {
  // In the order they were defined (each reads parameters, data-dependent sizes and earlier
  // ones); 0 where the divisor is 0, as their definition says (a node reading one requires the
  // divisor non-zero and fails first). Unset while a size they read is unknown.
  for (const ops::Graph::SizeDefinition &def : graph_.sizeDefinitions()) {
    if (point_.find(def.name)) continue;
    auto known = [&](const Expr &e) {
      const std::vector<Expr> ps = parametersOf(e);
      return std::all_of(ps.begin(), ps.end(), [&](const Expr &p) { return point_.find(p->name) != nullptr; });
    };
    if (!known(def.numerator) || !known(def.divisor)) continue;
    const std::optional<Integer> d = shapelab::evaluate(def.numerator, point_), h = shapelab::evaluate(def.divisor, point_);
    if (!d || !h) continue;
    const Integer q = *h == Integer(0) ? Integer(0) : Integer::floorDiv(*d, *h);
    point_.set(def.name, def.quotient ? q : *h == Integer(0) ? Integer(0) : *d - q * *h);
  }
}

const Node *Interpreter::chosenBranch(const Node *n) {
  bool first;
  if (n->inputs.size() == 3) {
    // On data: the condition's value, which also fixes the data-dependent size _kN.
    first = values_.at(n->inputs[2]).astype(DType::Bool).at<bool>(0);
    point_.set((*n->dataSize)->name, first ? 1 : 0);
    if (!graph_.sizeDefinitions().empty()) defineSizes();
  } else {
    // Undefined where a size it reads does not exist (an operand's reshape that does not
    // divide): the shape rule requires it defined, and running either branch would hide that.
    std::optional<bool> v = shapelab::evaluate(n->cond, point_);
    if (!v) shapeError("the condition " + n->cond.toString() + " is not defined at " + point_.toString());
    first = *v;
  }
  return n->inputs[first ? 0 : 1];
}

std::string Interpreter::name(const Node *n) const { return options_.namer ? options_.namer(n) : n->describe(); }

int64_t Interpreter::value(const Expr &e) const {
  std::optional<Integer> v = shapelab::evaluate(e, point_);
  if (!v) shapeError(e.toString() + " is not defined at " + point_.toString());
  if (!v->fitsInt64()) shapeError(e.toString() + " does not fit in int64 at " + point_.toString());
  return v->toInt64Checked();
}

Array Interpreter::evaluate(const Node *node) {
  std::variant<Array, EvalError> r = attempt(node);
  if (auto *e = std::get_if<EvalError>(&r)) throw *e;
  return std::get<Array>(std::move(r));
}

std::variant<Array, EvalError> Interpreter::attempt(const Node *node) {
  // Iterative post-order (graphs can be deep); ifelse evaluates its condition, then one branch.
  std::vector<std::pair<const Node *, bool>> stack{{node, false}};
  while (!stack.empty()) {
    checkInterrupt(); // (thrown, never recorded as the node's failure)
    auto [n, expanded] = stack.back();
    if (values_.count(n)) {
      stack.pop_back();
      continue;
    }
    // A node that failed fails again the same way (its kernel does not run twice).
    if (auto f = failed_.find(n); f != failed_.end()) return f->second;
    if (!expanded) {
      stack.back().second = true;
      std::vector<const Node *> before = graph_.readsBefore(n);
      for (auto it = before.rbegin(); it != before.rend(); ++it)
        if (!values_.count(*it)) stack.push_back({*it, false});
      continue;
    }
    if (n->kind == OpKind::IfElse) {
      const Node *branch = nullptr;
      try {
        branch = chosenBranch(n);
      } catch (const EvalError &e) {
        if (options_.debugChecks) debugCheck(n, Array(), &e);
        return failed_.emplace(n, EvalError(e.kind, name(n) + ": " + e.what())).first->second;
      }
      if (!values_.count(branch)) {
        stack.push_back({branch, false});
        continue;
      }
    }
    stack.pop_back();
    Array result;
    try {
      result = run(n);
    } catch (const EvalError &e) {
      if (options_.debugChecks && e.kind != EvalError::Input) debugCheck(n, Array(), &e);
      return failed_.emplace(n, EvalError(e.kind, name(n) + ": " + e.what())).first->second;
    } catch (const OverflowError &e) {
      return failed_.emplace(n, EvalError(EvalError::Input, name(n) + ": " + e.what())).first->second;
    }
    if (options_.debugChecks) debugCheck(n, result, nullptr);
    values_.emplace(n, std::move(result));
  }
  return values_.at(node);
}

void Interpreter::debugCheck(const Node *n, const Array &result, const EvalError *failure) {
  bool valid = n->validity.failures().empty();
  try {
    for (const Obligation &o : n->validity.obligations()) valid = valid && holds(o.predicate, point_);
  } catch (const NameError &) {
    // An obligation of a lazy ifelse over a branch that did not run mentions a data-dependent
    // size that was never computed: that branch's validity is not this run's to check.
    if (n->kind == OpKind::IfElse) return;
    throw;
  }
  if (failure) {
    // A shape error exactly where the rule fails; a value error (a singular matrix, an index
    // value out of range) only where the shapes are valid.
    if (failure->kind == EvalError::Shape && valid)
      throw InternalError(name(n) + ": the kernel raised a shape error (" + failure->what() +
                          ") where the shape rule says the op is valid at " + point_.toString());
    if (failure->kind == EvalError::Value && !valid)
      throw InternalError(name(n) + ": the kernel raised a value error (" + failure->what() +
                          ") where the shape rule says the shapes are invalid at " + point_.toString());
    return;
  }
  if (!valid) {
    std::string which;
    for (const std::string &f : n->validity.failures()) which = f;
    for (const Obligation &o : n->validity.obligations())
      if (!holds(o.predicate, point_)) which = o.what + " (" + o.predicate.toString() + ")";
    throw InternalError(name(n) + ": the kernel succeeded where the shape rule requires " + which + ", which fails at " +
                        point_.toString());
  }
  Dims expected;
  for (const Expr &d : n->shape) expected.push_back(value(d));
  if (expected != result.shape())
    throw InternalError(name(n) + ": computed shape " + shapeText(result.shape()) + " but the inferred shape " +
                        toString(n->shape) + " is " + shapeText(expected) + " at " + point_.toString());
  if (result.dtype() != n->dtype)
    throw InternalError(name(n) + ": computed dtype " + ops::spelling(result.dtype()) + " but inferred " + ops::spelling(n->dtype));
}

Array Interpreter::inputValue(const Node *n) {
  Dims declared;
  for (const Expr &d : n->shape) declared.push_back(value(d));
  auto it = inputs_.find(n->op);
  if (it == inputs_.end()) return seededInput(n->op, n->dtype, declared, options_.seed);
  const Array &given = it->second;
  // `[]` stands for any empty array (a nested list cannot spell (0, 2)).
  if (given.size() == 0 && checkedCount(declared) == 0) return Array(n->dtype, declared);
  if (given.shape() != declared)
    throw EvalError(EvalError::Input, "input " + n->op + " has shape " + shapeText(given.shape()) + ", but its declared shape " +
                                          toString(n->shape) + " is " + shapeText(declared) + " at " + point_.toString());
  return given.dtype() == n->dtype ? given : given.astype(n->dtype); // read only: kernels write fresh arrays
}

Array Interpreter::run(const Node *n) {
  auto in = [&](std::size_t i) -> const Array & { return values_.at(n->inputs[i]); };
  switch (n->kind) {
  case OpKind::Input: return inputValue(n);
  case OpKind::Scalar: {
    Array a(n->dtype, {});
    if (!n->exprs.empty()) a.base<int64_t>()[0] = value(n->exprs[0]);
    else dispatch(n->dtype, [&](auto t) { a.base<decltype(t)>()[0] = castValue<decltype(t)>(n->attr<ops::attr::Constant>().value); });
    return a;
  }
  case OpKind::Unary: return runUnary(n);
  case OpKind::Binary:
  case OpKind::Where: return runBinary(n);
  case OpKind::Cast: return in(0).astype(n->dtype);
  case OpKind::Transpose: return in(0).transposed(n->attr<ops::attr::Permutation>().axes).contiguous().astype(n->dtype);
  case OpKind::Reshape:
  case OpKind::ExpandDims:
  case OpKind::Squeeze: return runReshape(n);
  case OpKind::BroadcastTo:
  case OpKind::Alloc: return runFill(n);
  case OpKind::Concatenate:
  case OpKind::Stack: return runJoin(n);
  case OpKind::Index:
  case OpKind::Split:
  case OpKind::SetSubtensor: return runIndex(n);
  case OpKind::Reduce: return runReduce(n);
  case OpKind::SumTo: return runSumTo(n);
  case OpKind::Blockwise:
  case OpKind::Convolve: return runBlockwise(n);
  case OpKind::Einsum: return runEinsum(n);
  case OpKind::Map: return runMap(n);
  case OpKind::Diff: return runDiff(n);
  case OpKind::Cumsum:
  case OpKind::Cumprod: return runCumulative(n);
  case OpKind::Sort: return runSort(n);
  case OpKind::SearchSorted: return runSearchSorted(n);
  case OpKind::Random: return runRandom(n);
  case OpKind::SpecifyShape: {
    const Array &x = in(0);
    for (std::size_t i = 0; i < x.rank(); ++i)
      if (n->attr<ops::attr::GivenDims>().given[i] && x.shape()[i] != value(n->exprs[i]))
        shapeError("SpecifyShape: dim " + std::to_string(i) + " of input has shape " + std::to_string(x.shape()[i]) + ", expected " +
                   std::to_string(value(n->exprs[i])) + ".");
    return x.contiguous().astype(n->dtype);
  }
  case OpKind::IfElse: {
    return values_.at(chosenBranch(n)).astype(n->dtype);
  }
  case OpKind::Check: {
    // Undefined counts as failing: the shape rule requires the condition's sizes defined.
    if (shapelab::evaluate(n->cond, point_) != std::optional<bool>(true)) {
      std::vector<std::string> shown;
      for (const Expr &e : n->exprs) shown.push_back(std::to_string(value(e)));
      shapeError(ops::attr::requirementText(n->attr<ops::attr::Requirement>().fails, shown));
    }
    return in(0).contiguous().astype(n->dtype);
  }
  case OpKind::After: return in(n->inputs.size() - 1).contiguous().astype(n->dtype);
  case OpKind::PadIndex: {
    const std::vector<int64_t> sources = padSources(n->op, value(n->exprs[0]), value(n->exprs[1]), value(n->exprs[2]), value(n->exprs[3]));
    Array a(DType::Int64, {int64_t(sources.size())});
    std::copy(sources.begin(), sources.end(), a.base<int64_t>());
    return a;
  }
  case OpKind::RepeatIndex: {
    // np.repeat(arange(L), counts): the counts broadcast to L, none negative; their sum is the
    // node's data-dependent size.
    const Array counts = in(0).astype(DType::Int64).contiguous();
    const int64_t L = value(n->exprs[0]);
    if (counts.rank() == 1 && counts.shape()[0] != L && counts.shape()[0] != 1)
      shapeError("operands could not be broadcast together with shape (" + std::to_string(L) + ",) (" + std::to_string(counts.shape()[0]) + ",)");
    const bool one = counts.size() == 1;
    Integer total(0);
    for (int64_t k = 0; k < L; ++k) {
      const int64_t c = counts.base<int64_t>()[counts.offset() + (one ? 0 : k)];
      if (c < 0) throw EvalError(EvalError::Value, "repeats may not contain negative values.");
      total = total + Integer(c);
    }
    if (!total.fitsInt64()) throw OverflowError("repeat's result of " + total.toString() + " elements is larger than the interpreters evaluate");
    Array a = Array::uninitialized(DType::Int64, {total.toInt64Checked()}); // OverflowError beyond kMaxElements
    int64_t *out = a.base<int64_t>();
    for (int64_t k = 0; k < L; ++k)
      for (int64_t c = counts.base<int64_t>()[counts.offset() + (one ? 0 : k)]; c > 0; --c) *out++ = k;
    point_.set((*n->dataSize)->name, total.toInt64Checked());
    if (!graph_.sizeDefinitions().empty()) defineSizes();
    return a;
  }
  case OpKind::Arange: {
    // start + k*step for k < length: between start and stop, so int64 holds each.
    const int64_t start = value(n->exprs[0]), step = n->attr<ops::attr::Steps>().step, length = value(n->shape[0]);
    Array a(DType::Int64, {length});
    for (int64_t k = 0; k < length; ++k) a.base<int64_t>()[k] = int64_t(uint64_t(start) + uint64_t(k) * uint64_t(step));
    return a.astype(n->dtype);
  }
  }
  throw InternalError("unhandled op");
}

} // namespace shapelab::interp
