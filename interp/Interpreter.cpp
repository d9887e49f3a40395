#include "interp/Interpreter.h"

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

namespace {

using Dims = std::vector<int64_t>;

[[noreturn]] void shapeError(const std::string &message) { throw EvalError(EvalError::Shape, message); }
[[noreturn]] void valueError(const std::string &message) { throw EvalError(EvalError::Value, message); }

std::string numpyShapes(const std::vector<Dims> &shapes) {
  std::string s;
  for (const Dims &d : shapes) {
    std::string t = shapeText(d);
    // NumPy writes (3,) here as "(3,)" and joins with a space.
    s += t + " ";
  }
  return s;
}

/// A reshape target as NumPy's message writes it (`convert_shape_to_string`): leading negative
/// entries left out, later ones written `newaxis`, and "," before ")" only for one entry:
/// (0, -1) is "(0,newaxis)", (-1, 0) is "(0)", (3,) is "(3,)".
std::string reshapeTargetText(const Dims &target) {
  std::size_t i = 0;
  while (i < target.size() && target[i] < 0) ++i;
  if (i == target.size()) return "()";
  std::string s = "(" + std::to_string(target[i++]);
  for (; i < target.size(); ++i) s += target[i] < 0 ? ",newaxis" : "," + std::to_string(target[i]);
  return s + (target.size() == 1 ? ",)" : ")");
}

/// NumPy's broadcasting of concrete shapes (for a kernel's own check).
Dims broadcastShapes(const std::vector<Dims> &shapes) {
  std::size_t rank = 0;
  for (const Dims &s : shapes) rank = std::max(rank, s.size());
  Dims out(rank, 1);
  for (const Dims &s : shapes)
    for (std::size_t i = 0; i < s.size(); ++i) {
      int64_t &o = out[rank - s.size() + i];
      int64_t d = s[i];
      if (d == o || d == 1) continue;
      if (o == 1) o = d;
      else shapeError("operands could not be broadcast together with shapes " + numpyShapes(shapes));
    }
  return out;
}

/// NumPy's one-way rule: `from` broadcasts to `to` (right-aligned, each dim equal or 1).
bool broadcastsTo(const Dims &from, const Dims &to) {
  if (from.size() > to.size()) return false;
  for (std::size_t i = 0; i < from.size(); ++i) {
    int64_t d = from[i], t = to[to.size() - from.size() + i];
    if (d != t && d != 1) return false;
  }
  return true;
}

/// In static mode a size 1 that was not provably 1 when the graph was built does not broadcast.
/// `core[k]`: input k's shape here is its batch shape, before that many core dims (a gufunc's).
void checkStaticBroadcast(const Node *n, const std::vector<Dims> &shapes, const Dims &out,
                          const std::vector<std::size_t> &core = {}) {
  if (n->mode != BroadcastMode::Static) return;
  for (std::size_t k = 0; k < shapes.size(); ++k)
    for (std::size_t i = 0; i < shapes[k].size(); ++i) {
      std::size_t fromRight = shapes[k].size() - 1 - i, bit = fromRight + (k < core.size() ? core[k] : 0);
      int64_t d = shapes[k][i], o = out[out.size() - 1 - fromRight];
      bool marked = bit < 64 && k < n->broadcastable.size() && (n->broadcastable[k] >> bit & 1);
      if (d == 1 && o != 1 && !marked)
        shapeError("Runtime broadcasting not allowed. Input " + std::to_string(k) + " had a distinct dimension length of 1 (axis " +
                   std::to_string(i) + "), but was not marked as broadcastable when the graph was built (mode static): " +
                   (core.empty() ? "shapes " : "batch shapes ") + numpyShapes(shapes));
    }
}


/// Element offsets of `a` broadcast to `shape`, in C order.
std::vector<int64_t> offsets(const Array &a, const Dims &shape) {
  std::vector<int64_t> out;
  out.reserve(std::size_t(checkedCount(shape)));
  a.broadcastTo(shape).forEachOffset([&](int64_t o) { out.push_back(o); });
  return out;
}

/// The gufunc loop of node n: inputs with their core ranks, batch dims broadcast (static mode:
/// only where n marked them), one call per batch index with contiguous core blocks (type T);
/// `core` writes the output block.
template <class T>
Array gufuncLoop(const Node *n, const std::vector<Array> &ins, const std::vector<std::size_t> &coreRanks,
                 const Dims &outCore, DType outType, const std::function<void(const std::vector<const T *> &, T *)> &core) {
  std::vector<Dims> batches;
  for (std::size_t i = 0; i < ins.size(); ++i)
    batches.emplace_back(ins[i].shape().begin(), ins[i].shape().end() - coreRanks[i]);
  Dims batch = broadcastShapes(batches);
  checkStaticBroadcast(n, batches, batch, coreRanks);
  Dims outShape = batch;
  outShape.insert(outShape.end(), outCore.begin(), outCore.end());
  Array out(outType, outShape);
  int64_t outBlock = checkedCount(outCore), count = checkedCount(batch);
  std::vector<Array> typed;
  std::vector<int64_t> blocks;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    typed.push_back(ins[i].astype(dtypeOf<T>()));
    Dims core(ins[i].shape().end() - coreRanks[i], ins[i].shape().end());
    blocks.push_back(checkedCount(core));
  }
  std::vector<std::vector<int64_t>> batchIndex;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    // Which block of input i each batch element reads: broadcast an index array.
    Array idx(DType::Int64, batches[i]);
    int64_t *p = idx.base<int64_t>();
    for (int64_t k = 0; k < idx.size(); ++k) p[k] = k;
    std::vector<int64_t> offs = offsets(idx, batch);
    for (int64_t &o : offs) o = p[o];
    batchIndex.push_back(std::move(offs));
  }
  std::unique_ptr<T[]> result(new T[std::size_t(outBlock)]);
  std::vector<const T *> blockPtrs(ins.size());
  for (int64_t b = 0; b < count; ++b) {
    for (std::size_t i = 0; i < ins.size(); ++i) blockPtrs[i] = typed[i].base<T>() + batchIndex[i][b] * blocks[i];
    std::fill(result.get(), result.get() + outBlock, T(0));
    core(blockPtrs, result.get());
    dispatch(outType, [&](auto t) {
      using O = decltype(t);
      O *o = out.base<O>() + b * outBlock;
      for (int64_t k = 0; k < outBlock; ++k) o[k] = castValue<O>(result[k]);
    });
  }
  return out;
}

} // namespace

std::vector<int64_t> elementwiseShape(const Node *n, const std::vector<std::vector<int64_t>> &shapes) {
  Dims out = broadcastShapes(shapes);
  checkStaticBroadcast(n, shapes, out);
  return out;
}

bool powerIsSquare(const Node *n) {
  if (n->kind != OpKind::Binary || n->op != "power" || !ops::isFloat(n->dtype) || n->inputs[0]->rank() == 0) return false;
  const Node *e = n->inputs[1];
  if (e->kind != OpKind::Scalar || !e->weak) return false;
  if (e->exprs.empty()) return e->number == 2;
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
  for (const Pred &a : graph.assumptions()) {
    // Assumptions about data-dependent sizes hold by construction; check the user's.
    bool dataBound = false;
    for (const Expr &p : parametersOf(a)) dataBound |= p->reserved;
    if (!dataBound && !holds(a, point_))
      throw EvalError(EvalError::Input, point_.toString() + " does not satisfy the assumption " + a.toString());
  }
}

const Node *Interpreter::chosenBranch(const Node *n) {
  bool first;
  if (n->inputs.size() == 3) {
    // On data: the condition's value, which also fixes the data-dependent size _kN.
    first = values_.at(n->inputs[2]).astype(DType::Bool).at<bool>(0);
    point_.set((*n->dataSize)->name, first ? 1 : 0);
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
    else dispatch(n->dtype, [&](auto t) { a.base<decltype(t)>()[0] = castValue<decltype(t)>(n->number); });
    return a;
  }
  case OpKind::Unary: {
    if (ops::isUnaryTest(n->op)) { // tests the value in its own dtype (isnan of a float32 is not of a bool)
      const Array x = in(0).contiguous();
      Array result(DType::Bool, x.shape());
      bool *r = result.base<bool>();
      dispatch(x.dtype(), [&](auto t) {
        using T = decltype(t);
        const T *p = x.base<T>();
        for (int64_t i = 0; i < x.size(); ++i) r[i] = unaryTest<T>(n->op, p[i]);
      });
      return result;
    }
    Array x = in(0).astype(n->dtype);
    dispatch(n->dtype, [&](auto t) {
      using T = decltype(t);
      T *p = x.base<T>();
      for (int64_t i = 0; i < x.size(); ++i) p[i] = unaryValue<T>(n->op, p[i]);
    });
    return x;
  }
  case OpKind::Binary:
  case OpKind::Where: {
    std::vector<Dims> shapes;
    for (std::size_t i = 0; i < n->inputs.size(); ++i) shapes.push_back(in(i).shape());
    Dims out = broadcastShapes(shapes);
    checkStaticBroadcast(n, shapes, out);
    Array result(n->dtype, out);
    if (n->kind == OpKind::Where) {
      Array c = in(0).astype(DType::Bool), a = in(1).astype(n->dtype), b = in(2).astype(n->dtype);
      dispatch(n->dtype, [&](auto t) {
        using T = decltype(t);
        T *r = result.base<T>();
        std::vector<int64_t> cc = offsets(c, out), aa = offsets(a, out), bb = offsets(b, out);
        for (std::size_t k = 0; k < cc.size(); ++k) r[k] = c.base<bool>()[cc[k]] ? a.base<T>()[aa[k]] : b.base<T>()[bb[k]];
      });
      return result;
    }
    Bin op = binCode(n->op);
    bool compare = ops::isComparison(op);
    // The type the values are computed in: the promoted operand type (comparisons), else the
    // result's.
    const Node *a0 = n->inputs[0], *b0 = n->inputs[1];
    DType compute = compare ? ops::resultType({{a0->dtype, a0->weak}, {b0->dtype, b0->weak}}) : n->dtype;
    Array a = in(0).astype(compute), b = in(1).astype(compute);
    std::vector<int64_t> oa = offsets(a, out), ob = offsets(b, out);
    dispatch(compute, [&](auto t) {
      using T = decltype(t);
      const T *pa = a.base<T>(), *pb = b.base<T>();
      if (compare) {
        bool *r = result.base<bool>();
        for (std::size_t k = 0; k < oa.size(); ++k) r[k] = comparison<T>(op, pa[oa[k]], pb[ob[k]]);
      } else if (std::is_floating_point_v<T> && powerIsSquare(n)) {
        T *r = result.base<T>();
        if constexpr (std::is_floating_point_v<T>)
          for (std::size_t k = 0; k < oa.size(); ++k) r[k] = pa[oa[k]] * pa[oa[k]];
      } else {
        T *r = result.base<T>();
        for (std::size_t k = 0; k < oa.size(); ++k) r[k] = arithmetic<T>(op, pa[oa[k]], pb[ob[k]]);
      }
    });
    return result;
  }
  case OpKind::Cast: return in(0).astype(n->dtype);
  case OpKind::Transpose: return in(0).transposed(n->ints).contiguous().astype(n->dtype);
  case OpKind::Reshape: {
    const Array &x = in(0);
    Dims target;
    if (n->op == "squeeze") {
      for (std::size_t i = 0; i < x.rank(); ++i) {
        if (n->ints[i] && x.shape()[i] != 1) shapeError("cannot select an axis to squeeze out which has size not equal to one");
        if (!n->ints[i]) target.push_back(x.shape()[i]);
      }
    } else {
      // NumPy's reading of the target (`_fix_unknown_dimension`): every negative entry is the
      // unknown one (two are an error); the others multiply, checked, in order.
      const bool infers = n->op == "reshape";
      for (const Expr &e : n->exprs) target.push_back(value(e));
      const std::string message = "cannot reshape array of size " + std::to_string(x.size()) + " into shape " +
                                  reshapeTargetText(target);
      int64_t known = 1, unknown = -1;
      for (std::size_t i = 0; i < target.size(); ++i) {
        if (target[i] < 0 && !infers) shapeError("negative dimensions not allowed");
        if (target[i] < 0) {
          if (unknown >= 0) shapeError("can only specify one unknown dimension");
          unknown = int64_t(i);
        } else if (__builtin_mul_overflow(known, target[i], &known)) {
          shapeError(message);
        }
      }
      if (unknown >= 0) {
        if (known == 0 || x.size() % known != 0) shapeError(message);
        target[unknown] = x.size() / known;
      } else if (known != x.size()) {
        shapeError(message);
      }
    }
    return x.reshaped(target).contiguous();
  }
  case OpKind::BroadcastTo:
  case OpKind::Alloc: {
    const Array &x = in(0);
    Dims target;
    for (const Expr &e : n->exprs) {
      int64_t d = value(e);
      if (d < 0) shapeError("negative dimensions are not allowed");
      target.push_back(d);
    }
    checkedCount(target);
    if (!broadcastsTo(x.shape(), target))
      shapeError("operands could not be broadcast together with remapped shapes [original->remapped]: " + shapeText(x.shape()) +
                 "  and requested shape " + shapeText(target));
    return x.astype(n->dtype).broadcastTo(target).contiguous().astype(n->dtype);
  }
  case OpKind::Concatenate:
  case OpKind::Stack: {
    int64_t axis = n->ints[0];
    std::vector<Array> xs;
    for (std::size_t i = 0; i < n->inputs.size(); ++i) {
      Array x = in(i).astype(n->dtype);
      if (n->kind == OpKind::Stack) {
        if (x.shape() != in(0).shape()) shapeError("all input arrays must have the same shape");
        Dims s = x.shape();
        s.insert(s.begin() + axis, 1);
        x = x.reshaped(s);
      } else {
        for (std::size_t d = 0; d < x.rank(); ++d)
          if (int64_t(d) != axis && x.shape()[d] != in(0).shape()[d])
            shapeError("all the input array dimensions except for the concatenation axis must match exactly, but along dimension " +
                       std::to_string(d) + ", the array at index 0 has size " + std::to_string(in(0).shape()[d]) +
                       " and the array at index " + std::to_string(i) + " has size " + std::to_string(x.shape()[d]));
      }
      xs.push_back(x);
    }
    Dims out = xs[0].shape();
    out[axis] = 0;
    for (const Array &x : xs) out[axis] += x.shape()[axis];
    Array result(n->dtype, out);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= out[d];
    for (std::size_t d = axis + 1; d < out.size(); ++d) inner *= out[d];
    std::size_t item = ops::itemSize(n->dtype);
    char *dst = result.base<char>();
    int64_t row = out[axis] * inner;
    int64_t at = 0;
    for (const Array &x : xs) {
      int64_t w = x.shape()[axis] * inner;
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(dst + (o * row + at) * item, x.base<char>() + o * w * item, std::size_t(w) * item);
      at += w;
    }
    return result;
  }
  case OpKind::Index:
  case OpKind::SetSubtensor: {
    const Array &x = in(0);
    if (n->op == "split" && x.shape()[n->ints[1]] % n->ints[0] != 0) shapeError("array split does not result in an equal division");
    const Array *array = nullptr;
    if (n->kind == OpKind::Index && n->inputs.size() > 1) array = &in(1);
    if (n->kind == OpKind::SetSubtensor && n->inputs.size() > 3) array = &in(2);
    // Walk the entries: output dims, and per output element the source offset.
    struct Step {
      IndexEntry::Kind kind;
      int64_t start = 0, step = 1, axis = 0;
    };
    std::vector<Step> steps;
    Dims outShape;
    std::size_t axis = 0;
    std::vector<std::vector<int64_t>> maskCoords; // bool index: coordinates of the true elements
    Array arrayValues;
    std::optional<std::string> outOfBounds; // an index array's value out of range (a value error)
    for (const IndexEntry &e : n->index) {
      switch (e.kind) {
      case IndexEntry::NewAxis:
        outShape.push_back(1);
        steps.push_back({e.kind});
        break;
      case IndexEntry::Integer: {
        int64_t L = x.shape()[axis], i = value(*e.start);
        if (i < -L || i >= L)
          shapeError("index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) + " with size " + std::to_string(L));
        steps.push_back({e.kind, i < 0 ? i + L : i, 0, int64_t(axis++)});
        break;
      }
      case IndexEntry::Slice: {
        auto bound = [&](const std::optional<Expr> &v) { return v ? std::optional<int64_t>(value(*v)) : std::nullopt; };
        SliceBounds b = sliceBounds(x.shape()[axis], bound(e.start), bound(e.stop), e.step);
        outShape.push_back(b.length);
        steps.push_back({e.kind, b.start, e.step, int64_t(axis++)});
        break;
      }
      case IndexEntry::Array: {
        if (array->dtype() == DType::Bool) {
          Array mask = array->contiguous();
          for (std::size_t d = 0; d < mask.rank(); ++d)
            if (mask.shape()[d] != 0 && mask.shape()[d] != x.shape()[axis + d]) // NumPy skips an empty dimension
              shapeError("boolean index did not match indexed array along dimension " + std::to_string(axis + d) +
                         "; dimension is " + std::to_string(x.shape()[axis + d]) + " but corresponding boolean dimension is " +
                         std::to_string(mask.shape()[d]));
          for (int64_t k = 0; k < mask.size(); ++k)
            if (mask.base<bool>()[k]) {
              std::vector<int64_t> c(mask.rank());
              int64_t r = k;
              for (std::size_t d = mask.rank(); d-- > 0;) c[d] = r % mask.shape()[d], r /= mask.shape()[d];
              maskCoords.push_back(c);
            }
          // The mask's count is the region's data-dependent size (a set/inc_subtensor's region
          // is not computed on its own: its kernel counts for it).
          const Node *owner = n->kind == OpKind::Index ? n : n->inputs.back();
          if (owner->dataSize) point_.set((*owner->dataSize)->name, int64_t(maskCoords.size()));
          outShape.push_back(int64_t(maskCoords.size()));
          steps.push_back({e.kind, 0, 0, int64_t(axis)});
          axis += mask.rank();
        } else {
          arrayValues = array->astype(DType::Int64);
          int64_t L = x.shape()[axis];
          for (int64_t k = 0; k < arrayValues.size() && !outOfBounds; ++k) {
            int64_t &v = arrayValues.base<int64_t>()[k];
            if (v < -L || v >= L)
              outOfBounds = "index " + std::to_string(v) + " is out of bounds for axis " + std::to_string(axis) + " with size " + std::to_string(L);
            if (v < 0) v += L;
          }
          outShape.insert(outShape.end(), arrayValues.shape().begin(), arrayValues.shape().end());
          steps.push_back({e.kind, 0, 0, int64_t(axis++)});
        }
        break;
      }
      }
    }
    // set / inc: the value must fit the region (a shape error) before the index array's values
    // are read (a value error), as NumPy checks them.
    if (n->kind == OpKind::SetSubtensor && !broadcastsTo(in(1).shape(), outShape))
      shapeError("could not broadcast input array from shape " + shapeText(in(1).shape()) + " into shape " + shapeText(outShape));
    if (outOfBounds) valueError(*outOfBounds);
    // The region, in its C order: for a gather, offsets into x's buffer (read through any
    // view); for set/inc, which write a C-ordered copy of x, positions in x's C order — a
    // broadcast x has one buffer offset for many elements, which offsets would not tell apart.
    const bool cOrder = n->kind == OpKind::SetSubtensor;
    const Dims strides = cOrder ? Array::cStrides(x.shape()) : x.strides();
    int64_t count = checkedCount(outShape);
    std::vector<int64_t> source;
    source.reserve(std::size_t(count));
    Dims idx(outShape.size(), 0);
    for (int64_t k = 0; k < count; ++k) {
      int64_t off = cOrder ? 0 : x.offset();
      std::size_t o = 0;
      for (const Step &s : steps) {
        switch (s.kind) {
        case IndexEntry::NewAxis: ++o; break;
        case IndexEntry::Integer: off += s.start * strides[s.axis]; break;
        case IndexEntry::Slice: off += (s.start + idx[o++] * s.step) * strides[s.axis]; break;
        case IndexEntry::Array:
          if (array->dtype() == DType::Bool) {
            const std::vector<int64_t> &c = maskCoords[idx[o++]];
            for (std::size_t d = 0; d < c.size(); ++d) off += c[d] * strides[s.axis + d];
          } else {
            int64_t lin = 0;
            for (std::size_t d = 0; d < arrayValues.rank(); ++d) lin = lin * arrayValues.shape()[d] + idx[o++];
            off += arrayValues.base<int64_t>()[lin] * strides[s.axis];
          }
          break;
        }
      }
      source.push_back(off);
      for (std::size_t d = outShape.size(); d-- > 0;) {
        if (++idx[d] < outShape[d]) break;
        idx[d] = 0;
      }
    }
    if (n->kind == OpKind::Index) {
      Array result(n->dtype, outShape);
      std::size_t item = ops::itemSize(n->dtype);
      for (int64_t k = 0; k < count; ++k) std::memcpy(result.base<char>() + k * item, x.base<char>() + source[k] * item, item);
      return result;
    }
    // set / inc: a fresh copy of x with the region written.
    const Array &v = in(1);
    Array copy = x.contiguous().astype(x.dtype());
    // set: the value cast to x's dtype; inc: x + value computed in their promoted type, then
    // cast back (NumPy's `x[idx] += v`).
    const Node *vn = n->inputs[1];
    DType compute = n->op == "inc_subtensor" ? ops::resultType({{n->dtype, false}, {vn->dtype, vn->weak}}) : n->dtype;
    Array value = v.astype(compute);
    std::vector<int64_t> vo = offsets(value, outShape);
    bool inc = n->op == "inc_subtensor";
    dispatch(n->dtype, [&](auto t) {
      using T = decltype(t);
      T *dst = copy.base<T>() + copy.offset();
      dispatch(compute, [&](auto c) {
        using C = decltype(c);
        const C *src = value.base<C>();
        for (int64_t k = 0; k < count; ++k) {
          T &d = dst[source[k]];
          d = inc ? castValue<T>(arithmetic<C>(Bin::Add, castValue<C>(d), src[vo[k]])) : castValue<T>(src[vo[k]]);
        }
      });
    });
    return copy;
  }
  case OpKind::Reduce: {
    const Array &x = in(0);
    std::vector<bool> reduced(x.rank());
    for (int64_t a : n->ints) reduced[a] = true;
    Dims kept, outShape;
    int64_t per = 1;
    for (std::size_t i = 0; i < x.rank(); ++i) {
      if (!reduced[i]) kept.push_back(x.shape()[i]);
      else per *= x.shape()[i];
    }
    const std::string &op = n->op;
    if ((op == "max" || op == "min") && per == 0)
      shapeError(std::string("zero-size array to reduction operation ") + (op == "max" ? "maximum" : "minimum") + " which has no identity");
    const bool arg = op == "argmax" || op == "argmin";
    if (arg && per == 0) shapeError("attempt to get " + op + " of an empty sequence");
    for (std::size_t i = 0; i < x.rank(); ++i) {
      if (!reduced[i]) outShape.push_back(x.shape()[i]);
      else if (n->number != 0) outShape.push_back(1);
    }
    // Move reduced axes last: out index major, reduced minor (C order within: argmax over every
    // axis is the flat index).
    std::vector<int64_t> perm;
    for (std::size_t i = 0; i < x.rank(); ++i)
      if (!reduced[i]) perm.push_back(int64_t(i));
    for (std::size_t i = 0; i < x.rank(); ++i)
      if (reduced[i]) perm.push_back(int64_t(i));
    const int64_t outCount = checkedCount(kept);
    Array result(n->dtype, kept);
    if (arg) {
      // The values in their own dtype: the first extreme, and the first NaN, which wins over any
      // number (NumPy's argmax and argmin).
      const Array moved = x.transposed(perm).contiguous();
      const bool largest = op == "argmax";
      dispatch(x.dtype(), [&](auto t) {
        using T = decltype(t);
        const T *p = moved.base<T>();
        for (int64_t o = 0; o < outCount; ++o) {
          const T *row = p + o * per;
          int64_t best = 0;
          for (int64_t k = 1; k < per; ++k) {
            if constexpr (std::is_floating_point_v<T>) {
              if (std::isnan(row[best])) break;
              if (std::isnan(row[k])) {
                best = k;
                break;
              }
            }
            if (largest ? row[k] > row[best] : row[k] < row[best]) best = k;
          }
          result.base<int64_t>()[o] = best;
        }
      });
      return result.reshaped(outShape);
    }
    DType acc = op == "mean" ? n->dtype : (op == "all" || op == "any") ? DType::Bool : n->dtype;
    Array moved = x.astype(acc).transposed(perm).contiguous();
    dispatch(acc, [&](auto t) {
      using T = decltype(t);
      const T *p = moved.base<T>();
      T *r = result.base<T>();
      for (int64_t o = 0; o < outCount; ++o) {
        const T *row = p + o * per;
        T v;
        if (op == "sum" || op == "mean") {
          v = T(0);
          for (int64_t k = 0; k < per; ++k) v = arithmetic<T>(Bin::Add, v, row[k]);
          if constexpr (std::is_floating_point_v<T>)
            if (op == "mean") v = v / T(per);
        } else if (op == "prod") {
          v = T(1);
          for (int64_t k = 0; k < per; ++k) v = arithmetic<T>(Bin::Mul, v, row[k]);
        } else if (op == "max" || op == "min") {
          v = row[0];
          for (int64_t k = 1; k < per; ++k) v = arithmetic<T>(op == "max" ? Bin::Max : Bin::Min, v, row[k]);
        } else if (op == "all") {
          v = T(1);
          for (int64_t k = 0; k < per; ++k) v = v && row[k];
        } else {
          v = T(0);
          for (int64_t k = 0; k < per; ++k) v = v || row[k];
        }
        r[o] = v;
      }
    });
    return result.reshaped(outShape);
  }
  case OpKind::Blockwise: return runBlockwise(n);
  case OpKind::Einsum: return runEinsum(n);
  case OpKind::Diff: {
    int64_t order = n->ints[0], axis = n->ints[1];
    Array x = in(0).astype(n->dtype);
    for (int64_t r = 0; r < order && x.shape()[axis] > 0; ++r) {
      Dims s = x.shape();
      s[axis] -= 1;
      Array out(n->dtype, s);
      Dims lo(x.rank(), 0), hi(x.rank(), 0);
      hi[axis] = 1;
      Array a = x.view(x.offset() + x.strides()[axis], s, x.strides()), b = x.view(x.offset(), s, x.strides());
      std::vector<int64_t> oa, ob;
      a.forEachOffset([&](int64_t o) { oa.push_back(o); });
      b.forEachOffset([&](int64_t o) { ob.push_back(o); });
      dispatch(n->dtype, [&](auto t) {
        using T = decltype(t);
        T *d = out.base<T>();
        const T *p = x.base<T>();
        for (std::size_t k = 0; k < oa.size(); ++k) {
          if constexpr (std::is_same_v<T, bool>) d[k] = p[oa[k]] != p[ob[k]];
          else d[k] = arithmetic<T>(Bin::Sub, p[oa[k]], p[ob[k]]);
        }
      });
      x = out;
    }
    if (x.shape()[axis] == 0 || order == 0) {
      Dims s = x.shape();
      s[axis] = std::max<int64_t>(0, in(0).shape()[axis] - order);
      if (order > 0 || s != x.shape()) x = Array(n->dtype, s);
    }
    return x;
  }
  case OpKind::Cumsum: {
    int64_t axis = n->ints[0];
    Array x = in(0).astype(n->dtype);
    const bool product = n->op == "cumprod";
    int64_t L = x.shape()[axis], inner = 1, outer = 1;
    for (std::size_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
    for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[d];
    dispatch(n->dtype, [&](auto t) {
      using T = decltype(t);
      T *p = x.base<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i)
          for (int64_t k = 1; k < L; ++k) {
            T &cur = p[(o * L + k) * inner + i];
            cur = arithmetic<T>(product ? Bin::Mul : Bin::Add, p[(o * L + k - 1) * inner + i], cur);
          }
    });
    return x;
  }
  case OpKind::Random: return runRandom(n);
  case OpKind::SpecifyShape: {
    const Array &x = in(0);
    for (std::size_t i = 0; i < x.rank(); ++i)
      if (n->ints[i] && x.shape()[i] != value(n->exprs[i]))
        shapeError("SpecifyShape: dim " + std::to_string(i) + " of input has shape " + std::to_string(x.shape()[i]) + ", expected " +
                   std::to_string(value(n->exprs[i])) + ".");
    return x.contiguous().astype(n->dtype);
  }
  case OpKind::IfElse: {
    return values_.at(chosenBranch(n)).astype(n->dtype);
  }
  case OpKind::After: return in(n->inputs.size() - 1).contiguous().astype(n->dtype);
  case OpKind::Arange: {
    // start + k*step for k < length: between start and stop, so int64 holds each.
    const int64_t start = value(n->exprs[0]), step = n->ints[0], length = value(n->shape[0]);
    Array a(DType::Int64, {length});
    for (int64_t k = 0; k < length; ++k) a.base<int64_t>()[k] = int64_t(uint64_t(start) + uint64_t(k) * uint64_t(step));
    return a.astype(n->dtype);
  }
  }
  throw InternalError("unhandled op");
}

} // namespace shapelab::interp

namespace shapelab::interp {

namespace {
std::string coreMismatch(const std::string &sig, std::size_t operand, std::size_t dim, int64_t got, int64_t want) {
  return "Input operand " + std::to_string(operand) + " has a mismatch in its core dimension " + std::to_string(dim) +
         ", with gufunc signature " + sig + " (size " + std::to_string(got) + " is different from " + std::to_string(want) + ")";
}
} // namespace

Array Interpreter::runEinsum(const Node *n) {
  const EinsumSpec spec = ops::decodeEinsum(n->ints);
  const std::vector<int64_t> labels = spec.iteration();
  const std::size_t F = labels.size();
  std::vector<Array> xs;
  for (const Node *i : n->inputs) xs.push_back(values_.at(i).astype(n->dtype));
  // Each operand as NumPy's iterator sees it: a diagonal's size once, and per iteration label
  // the operand's size there (1 where it has no such axis) and its stride (the sum of the
  // strides of the axes with that label: a diagonal steps along all of them).
  std::vector<Dims> remapped;
  std::vector<std::vector<int64_t>> strides;
  for (std::size_t k = 0; k < xs.size(); ++k) {
    const std::vector<int64_t> &own = spec.operands[k];
    const Dims &shape = xs[k].shape();
    if (auto e = spec.diagonalError(k, std::vector<std::optional<Integer>>(shape.begin(), shape.end()))) shapeError(*e);
    Dims sizes(F, 1);
    std::vector<int64_t> st(F, 0);
    for (std::size_t a = 0; a < own.size(); ++a) {
      std::size_t f = std::size_t(std::find(labels.begin(), labels.end(), own[a]) - labels.begin());
      sizes[f] = shape[a];
      st[f] += xs[k].strides()[a];
    }
    remapped.push_back(sizes);
    strides.push_back(st);
  }
  // The remapped shapes broadcast as any operands do; a mismatch in NumPy's einsum words.
  Dims iter;
  try {
    iter = broadcastShapes(remapped);
  } catch (const EvalError &) {
    std::vector<std::vector<std::string>> texts;
    for (const Array &x : xs) {
      texts.emplace_back();
      for (int64_t d : x.shape()) texts.back().push_back(std::to_string(d));
    }
    shapeError(einsumMismatchMessage(spec, texts));
  }
  checkStaticBroadcast(n, remapped, iter);
  // The iterator's running element count (c_einsum: "iterator is too large"); a view is not
  // iterated.
  for (int64_t d = 0, count = 1; !spec.isView() && std::size_t(d) < F; ++d) {
    if (count != 0 && iter[std::size_t(d)] > std::numeric_limits<int64_t>::max() / count)
      shapeError("iterator is too large");
    count *= iter[std::size_t(d)];
  }
  const std::size_t outRank = spec.output.size();
  Array out(n->dtype, Dims(iter.begin(), iter.begin() + std::ptrdiff_t(outRank)));
  // A size-1 axis broadcast along a longer label steps nowhere.
  for (std::size_t k = 0; k < xs.size(); ++k)
    for (std::size_t f = 0; f < F; ++f)
      if (remapped[k][f] == 1) strides[k][f] = 0;
  int64_t total = 1;
  for (int64_t d : iter) total *= d;
  if (total == 0) return out;
  dispatch(n->dtype, [&](auto t) {
    using T = decltype(t);
    T *o = out.base<T>();
    std::vector<const T *> base;
    for (const Array &x : xs) base.push_back(x.base<T>() + x.offset());
    std::vector<int64_t> index(F, 0), at(xs.size(), 0);
    int64_t inner = 1;
    for (std::size_t f = outRank; f < F; ++f) inner *= iter[f];
    // One operand and nothing summed is a view in NumPy (a permutation or a diagonal): its
    // values as they are (-0.0 stays -0.0). Otherwise each output element is 0 plus the
    // products, the summed labels in C order.
    const bool view = spec.isView();
    for (int64_t e = 0; e < total / inner; ++e) {
      T sum = T(0);
      for (int64_t i = 0; i < inner; ++i) {
        T product = base[0][at[0]];
        for (std::size_t k = 1; k < xs.size(); ++k) product = arithmetic<T>(Bin::Mul, product, base[k][at[k]]);
        sum = view ? product : arithmetic<T>(Bin::Add, sum, product);
        // Next index of the whole iteration (the odometer runs over output and summed labels).
        for (std::size_t f = F; f-- > 0;) {
          for (std::size_t k = 0; k < xs.size(); ++k) at[k] += strides[k][f];
          if (++index[f] < iter[f]) break;
          for (std::size_t k = 0; k < xs.size(); ++k) at[k] -= strides[k][f] * iter[f];
          index[f] = 0;
        }
      }
      o[e] = sum;
    }
  });
  return out;
}

Array Interpreter::runBlockwise(const Node *n) {
  std::vector<Array> xs;
  for (const Node *i : n->inputs) xs.push_back(values_.at(i));
  const std::string &op = n->op;
  auto square = [&](const Array &a) {
    if (a.rank() < 2)
      shapeError(std::string(op) + ": " + std::to_string(a.rank()) + "-dimensional array given. Array must be at least two-dimensional");
    int64_t m = a.shape()[a.rank() - 1];
    if (a.shape()[a.rank() - 2] != m) shapeError("Last 2 dimensions of the array must be square");
    return m;
  };
  if (op == "convolve") {
    int64_t na = xs[0].shape()[0], nv = xs[1].shape()[0];
    if (na == 0) shapeError("a cannot be empty");
    if (nv == 0) shapeError("v cannot be empty");
    return dispatch(n->dtype, [&](auto t) {
      using T = decltype(t);
      return gufuncLoop<T>(n, xs, {1, 1}, {na + nv - 1}, n->dtype, [&](const std::vector<const T *> &in, T *out) {
        for (int64_t i = 0; i < na; ++i)
          for (int64_t j = 0; j < nv; ++j) out[i + j] = arithmetic<T>(Bin::Add, out[i + j], arithmetic<T>(Bin::Mul, in[0][i], in[1][j]));
      });
    });
  }
  if (op == "outer") {
    int64_t m = xs[0].shape()[0], k = xs[1].shape()[0];
    return dispatch(n->dtype, [&](auto t) {
      using T = decltype(t);
      return gufuncLoop<T>(n, xs, {1, 1}, {m, k}, n->dtype, [&](const std::vector<const T *> &in, T *out) {
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < k; ++j) out[i * k + j] = arithmetic<T>(Bin::Mul, in[0][i], in[1][j]);
      });
    });
  }
  if (op == "matmul") {
    const std::string sig = "(n?,k),(k,m?)->(n?,m?)";
    Array a = xs[0], b = xs[1];
    bool aVec = a.rank() == 1, bVec = b.rank() == 1;
    if (aVec) a = a.reshaped({1, a.shape()[0]});
    if (bVec) b = b.reshaped({b.shape()[0], 1});
    int64_t rows = a.shape()[a.rank() - 2], inner = a.shape()[a.rank() - 1], cols = b.shape()[b.rank() - 1];
    if (b.shape()[b.rank() - 2] != inner) shapeError("matmul: " + coreMismatch(sig, 1, 0, b.shape()[b.rank() - 2], inner));
    Dims core;
    if (!aVec) core.push_back(rows);
    if (!bVec) core.push_back(cols);
    return dispatch(n->dtype, [&](auto t) {
      using T = decltype(t);
      Array r = gufuncLoop<T>(n, {a, b}, {2, 2}, {rows, cols}, n->dtype, [&](const std::vector<const T *> &in, T *out) {
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j) {
            T s = T(0);
            for (int64_t q = 0; q < inner; ++q) s = arithmetic<T>(Bin::Add, s, arithmetic<T>(Bin::Mul, in[0][i * inner + q], in[1][q * cols + j]));
            out[i * cols + j] = s;
          }
      });
      Dims s(r.shape().begin(), r.shape().end() - 2);
      s.insert(s.end(), core.begin(), core.end());
      return r.reshaped(s);
    });
  }
  if (op == "det" || op == "inv") {
    int64_t m = square(xs[0]);
    std::size_t sz = std::size_t(m);
    Dims core = op == "det" ? Dims{} : Dims{m, m};
    return gufuncLoop<double>(n, xs, {2}, core, n->dtype, [&](const std::vector<const double *> &in, double *out) {
      std::vector<double> a(in[0], in[0] + m * m);
      if (op == "det") {
        out[0] = determinant(a, sz);
        return;
      }
      std::vector<double> eye(sz * sz, 0.0);
      for (std::size_t i = 0; i < sz; ++i) eye[i * sz + i] = 1.0;
      if (!solveLinear(a, sz, eye, sz)) valueError("Singular matrix");
      std::copy(eye.begin(), eye.end(), out);
    });
  }
  if (op == "solve") {
    int64_t m = square(xs[0]);
    bool vector = xs[1].rank() + 1 == xs[0].rank();
    if (xs[1].rank() < 1) shapeError("solve: b must have at least one dimension");
    int64_t bm = xs[1].shape()[xs[1].rank() - (vector ? 1 : 2)];
    std::string sig = vector ? "(m,m),(m)->(m)" : "(m,m),(m,n)->(m,n)";
    if (bm != m) shapeError("solve: " + coreMismatch(sig, 1, 0, bm, m));
    int64_t k = vector ? 1 : xs[1].shape()[xs[1].rank() - 1];
    Dims core = vector ? Dims{m} : Dims{m, k};
    return gufuncLoop<double>(n, xs, {2, vector ? 1u : 2u}, core, n->dtype, [&](const std::vector<const double *> &in, double *out) {
      std::vector<double> a(in[0], in[0] + m * m), b(in[1], in[1] + m * k);
      if (!solveLinear(a, std::size_t(m), b, std::size_t(k))) valueError("Singular matrix");
      std::copy(b.begin(), b.end(), out);
    });
  }
  throw InternalError("unknown blockwise op " + op);
}

Array Interpreter::runRandom(const Node *n) {
  const std::string &name = n->op;
  Dims outShape;
  for (const Expr &d : n->shape) outShape.push_back(value(d));
  Array out(n->dtype, outShape);
  uint64_t draw = uint64_t(n->ints[0]);
  std::vector<Array> ps;
  for (const Node *i : n->inputs) ps.push_back(values_.at(i));
  auto fail = [&](const std::string &why) { valueError(name + ": " + why); };
  const RandomVariableInfo *info = findRandomVariable(name);
  // Shapes first (NumPy's rules on the concrete shapes): each parameter's batch part (its shape
  // without the core dims) broadcasts with the others — or, with size, *to* size.
  {
    std::vector<std::size_t> core(ps.size(), 0);
    if (name == "multivariate_normal") core = {1, 2};
    else if (name == "dirichlet" || name == "categorical") core = {1};
    else if (name == "multinomial") core = {0, 1};
    else if (name == "permutation" || name == "choice_without_replacement") core.assign(ps.size(), 99);
    bool hasSize = n->ints.size() == 2 + n->inputs.size();
    std::vector<Dims> batches;
    std::vector<std::size_t> batchOwner, batchCore;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      if (core[i] == 99 || n->ints[1 + i] >= 0) continue; // value-shaped and per-call signatures
      batchOwner.push_back(i);
      batchCore.push_back(core[i]);
      if (ps[i].rank() < core[i])
        shapeError("random " + name + ": parameter " + std::to_string(i) + " has " + std::to_string(ps[i].rank()) +
                   " dimension(s), its core needs " + std::to_string(core[i]));
      batches.emplace_back(ps[i].shape().begin(), ps[i].shape().end() - core[i]);
    }
    if (name == "multivariate_normal" && ps.size() == 2) {
      int64_t k = ps[0].shape().back();
      const Dims &c = ps[1].shape();
      if (c[c.size() - 1] != k || c[c.size() - 2] != k)
        shapeError("random multivariate_normal: cov's last two dimensions " + shapeText(Dims(c.end() - 2, c.end())) +
                   " must both be mean's last dimension " + std::to_string(k));
    }
    Dims target;
    if (hasSize) {
      int64_t sizeRank = n->ints.back();
      target.assign(outShape.begin(), outShape.begin() + sizeRank);
      for (const Dims &b : batches) {
        if (!broadcastsTo(b, target))
          shapeError("random " + name + ": a parameter's batch shape " + shapeText(b) + " does not broadcast to size " +
                     shapeText(target));
      }
    } else if (!batches.empty()) {
      target = broadcastShapes(batches);
    }
    // Static mode: a batch dimension 1 broadcasts only where the graph marked it (provably 1, or
    // undecided when built) — the same rule the shape inference applied. With a size, parameters
    // broadcast to it by NumPy's rule in both modes (nothing was checked when the graph was built).
    if (n->mode == BroadcastMode::Static && !hasSize)
      for (std::size_t k = 0; k < batches.size(); ++k)
        for (std::size_t j = 0; j < batches[k].size(); ++j) {
          std::size_t fromRight = batches[k].size() - 1 - j, bit = fromRight + batchCore[k];
          int64_t o = target[target.size() - 1 - fromRight];
          bool marked = bit < 64 && batchOwner[k] < n->broadcastable.size() &&
                        (n->broadcastable[batchOwner[k]] >> bit & 1);
          if (batches[k][j] == 1 && o != 1 && !marked)
            shapeError("random " + name + ": parameter " + std::to_string(batchOwner[k]) +
                       " has a batch dimension of length 1 (axis " + std::to_string(j) +
                       ") that was not marked as broadcastable when the graph was built (mode static): batch shape " +
                       shapeText(batches[k]) + ", broadcast to " + shapeText(target));
        }
  }
  bool scalarCore = info && info->signature.find_first_not_of("(),->") == std::string::npos && !info->signature.empty();
  if (scalarCore) {
    std::vector<std::vector<int64_t>> offs;
    std::vector<Array> typed;
    for (const Array &p : ps) typed.push_back(p.astype(DType::Float64));
    for (const Array &p : typed) offs.push_back(offsets(p, outShape));
    std::vector<double> q(ps.size());
    for (int64_t k = 0; k < out.size(); ++k) {
      for (std::size_t i = 0; i < ps.size(); ++i) q[i] = typed[i].base<double>()[offs[i][k]];
      CounterRng rng(options_.seed, draw, uint64_t(k));
      double v;
      std::string error;
      if (!sampleScalar(name, q, rng, v, error)) fail(error);
      dispatch(n->dtype, [&](auto t) { out.base<decltype(t)>()[k] = castValue<decltype(t)>(v); });
    }
    return out;
  }
  // Vector cores: the batch is the output without its core dims.
  auto batchOf = [&](std::size_t coreRank) {
    Dims b(outShape.begin(), outShape.end() - coreRank);
    return b;
  };
  auto rows = [&](const Array &p, std::size_t coreRank, const Dims &batch) {
    Dims target = batch;
    target.insert(target.end(), p.shape().end() - coreRank, p.shape().end());
    return p.astype(DType::Float64).broadcastTo(target).contiguous();
  };
  if (name == "multivariate_normal" || name == "dirichlet" || name == "multinomial" || name == "categorical") {
    std::size_t outCore = name == "categorical" ? 0 : 1;
    Dims batch = batchOf(outCore);
    int64_t count = checkedCount(batch);
    if (name == "multivariate_normal") {
      int64_t dim = outShape.back();
      Array mean = rows(ps[0], 1, batch), cov = rows(ps[1], 2, batch);
      for (int64_t b = 0; b < count; ++b) {
        // Cholesky of the covariance (positive semi-definite: zero pivots are allowed).
        const double *c = cov.base<double>() + b * dim * dim;
        std::vector<double> L(std::size_t(dim * dim), 0.0);
        for (int64_t i = 0; i < dim; ++i)
          for (int64_t j = 0; j <= i; ++j) {
            double s = c[i * dim + j];
            for (int64_t q = 0; q < j; ++q) s -= L[i * dim + q] * L[j * dim + q];
            if (i == j) {
              if (s < -1e-8 * std::max(1.0, std::fabs(c[i * dim + i]))) fail("covariance is not positive semi-definite");
              L[i * dim + i] = std::sqrt(std::max(s, 0.0));
            } else {
              L[i * dim + j] = L[j * dim + j] > 0 ? s / L[j * dim + j] : 0.0;
            }
          }
        CounterRng rng(options_.seed, draw, uint64_t(b));
        std::vector<double> z(static_cast<std::size_t>(dim));
        for (double &v : z) v = rng.normal();
        for (int64_t i = 0; i < dim; ++i) {
          double v = mean.base<double>()[b * dim + i];
          for (int64_t j = 0; j <= i; ++j) v += L[i * dim + j] * z[j];
          out.base<double>()[b * dim + i] = v;
        }
      }
      return out;
    }
    if (name == "dirichlet") {
      int64_t dim = outShape.back();
      Array alpha = rows(ps[0], 1, batch);
      for (int64_t b = 0; b < count; ++b) {
        CounterRng rng(options_.seed, draw, uint64_t(b));
        double total = 0;
        for (int64_t i = 0; i < dim; ++i) {
          double a = alpha.base<double>()[b * dim + i];
          if (!(a > 0)) fail("alpha <= 0");
          total += out.base<double>()[b * dim + i] = rng.gamma(a);
        }
        for (int64_t i = 0; i < dim; ++i) out.base<double>()[b * dim + i] /= total;
      }
      return out;
    }
    // multinomial(n, p) and categorical(p): p rows.
    const Array &pArray = ps[name == "multinomial" ? 1 : 0];
    int64_t dim = pArray.shape().empty() ? 0 : pArray.shape().back();
    Array p = rows(pArray, 1, batch);
    Array trials = name == "multinomial" ? rows(ps[0], 0, batch) : Array();
    for (int64_t b = 0; b < count; ++b) {
      CounterRng rng(options_.seed, draw, uint64_t(b));
      const double *pr = p.base<double>() + b * dim;
      for (int64_t i = 0; i < dim; ++i)
        if (!(pr[i] >= 0 && pr[i] <= 1)) fail("probabilities must be in [0, 1]");
      if (name == "categorical") {
        if (dim == 0) fail("p is empty");
        double u = rng.uniform(), acc = 0;
        int64_t pick = dim - 1;
        for (int64_t i = 0; i < dim; ++i)
          if (u < (acc += pr[i])) {
            pick = i;
            break;
          }
        out.base<int64_t>()[b] = pick;
      } else {
        double count = trials.base<double>()[b];
        if (!(std::fabs(count) < 0x1p63)) fail("n is not a finite count");
        int64_t left = int64_t(count);
        if (left < 0) fail("n < 0");
        double rest = 1.0;
        for (int64_t i = 0; i < dim; ++i) {
          int64_t k = i + 1 == dim ? left : (rest > 0 ? rng.binomial(left, std::min(1.0, pr[i] / rest)) : 0);
          out.base<int64_t>()[b * dim + i] = k;
          left -= k;
          rest -= pr[i];
        }
      }
    }
    return out;
  }
  if (name == "permutation" || name == "choice_without_replacement") {
    // permutation of arange(x) (a literal x) or of an array's first axis; choice draws
    // prod(core_shape) distinct rows of a, weighted by p when given.
    bool literal = n->ints.size() > 1 && n->ints[1] >= 0;
    Array a = literal ? Array() : ps[0].contiguous();
    int64_t items = literal ? outShape.empty() ? 0 : outShape[0] : (a.rank() ? a.shape()[0] : 0);
    if (name == "permutation" && !literal && a.rank() == 0) fail("x must be an integer or at least 1-dimensional");
    int64_t picks = name == "permutation" ? items : 1;
    std::vector<double> weights(static_cast<std::size_t>(items), 1.0);
    if (name == "choice_without_replacement") {
      int64_t rowSize = a.rank() ? a.size() / std::max<int64_t>(items, 1) : 1;
      picks = rowSize ? out.size() / rowSize : 0;
      if (ps.size() > 1) {
        Array p = ps[1].astype(DType::Float64);
        for (int64_t i = 0; i < items; ++i) weights[i] = p.base<double>()[i];
      }
      if (picks > items) fail("Cannot take a larger sample than population when replace is False");
    }
    CounterRng rng(options_.seed, draw, 0);
    std::vector<int64_t> order(static_cast<std::size_t>(items));
    std::iota(order.begin(), order.end(), 0);
    std::vector<int64_t> chosen;
    for (int64_t k = 0; k < picks; ++k) {
      double total = 0;
      for (int64_t i = k; i < items; ++i) total += weights[order[i]];
      double u = rng.uniform() * total, acc = 0;
      int64_t at = items - 1;
      for (int64_t i = k; i < items; ++i)
        if (u < (acc += weights[order[i]])) {
          at = i;
          break;
        }
      std::swap(order[k], order[at]);
      chosen.push_back(order[k]);
    }
    if (literal) {
      for (int64_t k = 0; k < items; ++k) out.base<int64_t>()[k] = chosen[k];
      return out;
    }
    int64_t row = items ? a.size() / items : 0;
    std::size_t item = ops::itemSize(n->dtype);
    Array src = a.astype(n->dtype);
    for (std::size_t k = 0; k < chosen.size(); ++k)
      std::memcpy(out.base<char>() + k * row * item, src.base<char>() + chosen[k] * row * item, std::size_t(row) * item);
    return out;
  }
  fail("no sampler");
  return out;
}

} // namespace shapelab::interp
