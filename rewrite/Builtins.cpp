#include "rewrite/Builtins.h"

#include <cmath>
#include <functional>
#include <unordered_map>
#include <utility>

#include "ops/Scalar.h"

namespace shapelab::rewrite {

using ops::DType;
using ops::Node;
using ops::OpKind;

namespace {

bool isConstant(const Node *n) { return n->kind == OpKind::Scalar && n->exprs.empty(); }
/// The value an isConstant node holds.
double constantValue(const Node *n) { return n->attr<ops::attr::Constant>().value; }

/// The value of a folded constant of type T as the double a constant node holds, when exact.
template <class T> std::optional<double> exactly(T v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // (cmp_*: compared as integers, so an unsigned v is not compared with -2**53 made unsigned)
    if (std::cmp_greater(v, int64_t(1) << 53) || std::cmp_less(v, -(int64_t(1) << 53))) return std::nullopt;
  }
  return double(v);
}

const Node *constantFold(ops::Graph &g, const Node *n) {
  if (n->kind != OpKind::Unary && n->kind != OpKind::Binary && n->kind != OpKind::Cast) return nullptr;
  for (const Node *i : n->inputs)
    if (!isConstant(i)) return nullptr;
  std::optional<double> value;
  try {
    if (n->kind == OpKind::Unary && ops::isUnaryTest(n->op)) {
      // A test reads the operand in its own dtype (isnan of a float, not of its truth).
      double x = constantValue(n->inputs[0]);
      ops::dispatch(n->inputs[0]->dtype, [&](auto s) {
        value = double(ops::unaryTest<decltype(s)>(ops::unaryCode(n->op), decltype(s)(x)));
      });
    } else if (n->kind == OpKind::Cast || n->kind == OpKind::Unary) {
      double x = constantValue(n->inputs[0]);
      ops::dispatch(n->dtype, [&](auto t) {
        using T = decltype(t);
        // The operand as the node's type first (a cast, or the unary op's input conversion).
        T v = ops::dispatch(n->inputs[0]->dtype, [&](auto s) { return ops::castValue<T>(decltype(s)(x)); });
        value = exactly<T>(n->kind == OpKind::Cast ? v : ops::unaryValue<T>(ops::unaryCode(n->op), v));
      });
    } else {
      ops::Bin op = ops::binCode(n->op);
      bool compare = ops::isComparison(op);
      const Node *a = n->inputs[0], *b = n->inputs[1];
      DType compute = compare ? ops::resultType({{a->dtype, a->weak}, {b->dtype, b->weak}}) : n->dtype;
      ops::dispatch(compute, [&](auto t) {
        using T = decltype(t);
        auto operand = [&](const Node *o) {
          return ops::dispatch(o->dtype, [&](auto s) { return ops::castValue<T>(decltype(s)(constantValue(o))); });
        };
        if (compare) value = double(ops::comparison<T>(op, operand(a), operand(b)));
        else value = exactly<T>(ops::arithmetic<T>(op, operand(a), operand(b)));
      });
    }
  } catch (const UserError &) {
    return nullptr; // a value error (an integer to a negative power) stays for run time
  }
  if (!value) return nullptr;
  return g.constant(*value, n->dtype);
}

const Node *transposeMerge(ops::Graph &g, const Node *n) {
  if (n->kind != OpKind::Transpose || n->inputs[0]->kind != OpKind::Transpose) return nullptr;
  const Node *inner = n->inputs[0];
  const std::vector<int64_t> &outer = n->attr<ops::attr::Permutation>().axes, &within = inner->attr<ops::attr::Permutation>().axes;
  std::vector<int64_t> axes;
  for (int64_t q : outer) axes.push_back(within[std::size_t(q)]);
  return g.transpose(inner->inputs[0], axes);
}

const Node *transposeIdentity(ops::Graph &, const Node *n) {
  if (n->kind != OpKind::Transpose) return nullptr;
  const std::vector<int64_t> &axes = n->attr<ops::attr::Permutation>().axes;
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != int64_t(i)) return nullptr;
  return n->inputs[0];
}

/// Reshape, ExpandDims, Squeeze: each is a reshape of its operand to its shape.
bool reshapes(const Node *n) {
  return n->kind == OpKind::Reshape || n->kind == OpKind::ExpandDims || n->kind == OpKind::Squeeze;
}

const Node *reshapeMerge(ops::Graph &g, const Node *n) {
  if (!reshapes(n) || !reshapes(n->inputs[0])) return nullptr;
  return g.reshape(n->inputs[0]->inputs[0], n->shape);
}

const Node *subtensorLift(ops::Graph &g, const Node *n, const Readers &readers) {
  if (n->kind != OpKind::Index || n->inputs.size() != 1) return nullptr;
  const Node *e = n->inputs[0];
  if (e->kind != OpKind::Unary && e->kind != OpKind::Binary && e->kind != OpKind::Cast) return nullptr;
  // An elementwise result that something else reads too stays computed whole: indexing its
  // operands instead would compute the op a second time, on the indexed elements (PyTensor's
  // local_subtensor_lift asks for a single client for this reason). In a program with much
  // sharing, lifting anyway also rebuilt every node above each lift.
  if (readers && readers(e) > 1) return nullptr;
  // An integer power raises a value error for a negative exponent: computed on the indexed
  // elements only, it would not raise for one the index leaves out.
  if (e->kind == OpKind::Binary && e->op == "power" && !ops::isFloat(e->dtype)) return nullptr;
  // Every operand has the op's shape (the same expressions) or is 0-d: indexing it then picks
  // the same elements, and no broadcasting check is dropped.
  std::vector<const Node *> operands;
  for (const Node *o : e->inputs) {
    if (o->rank() == 0) {
      operands.push_back(o);
      continue;
    }
    if (o->shape != e->shape) return nullptr;
    operands.push_back(g.rebuild(n, {o}));
  }
  if (operands == e->inputs) return nullptr;
  return g.rebuild(e, operands);
}

const Node *sumOfAlloc(ops::Graph &g, const Node *n) {
  if (n->kind != OpKind::Reduce || n->op != "sum" || n->attr<ops::attr::Reduction>().keepdims) return nullptr;
  const Node *alloc = n->inputs[0];
  if (alloc->kind != OpKind::Alloc || n->attr<ops::attr::Reduction>().axes.size() != alloc->rank()) return nullptr;
  const Node *v = alloc->inputs[0];
  if (v->rank() != 0 || v->dtype != alloc->dtype || n->dtype != alloc->dtype) return nullptr;
  if (alloc->dtype != DType::Float64 && alloc->dtype != DType::Int64) return nullptr;
  Expr count(1);
  for (const Expr &d : alloc->exprs) count = count * d;
  return g.binary("multiply", v, g.size(count), n->mode);
}

/// vectorize's Blockwise wrapper with no batch dims: one example, the core over the operands.
const Node *uselessBlockwise(ops::Graph &g, const Node *n) {
  if (n->kind != OpKind::Map || n->attr<ops::attr::Core>().batchRank != 0) return nullptr;
  return g.rebuild(n->attr<ops::attr::Core>().core, n->inputs);
}

/// A builtin that does not ask how many readers a node has.
template <const Node *(*f)(ops::Graph &, const Node *)> const Node *alone(ops::Graph &g, const Node *n, const Readers &) {
  return f(g, n);
}
const std::unordered_map<std::string, BuiltinRewrite> &builtins() {
  static const auto *table = new std::unordered_map<std::string, BuiltinRewrite>{
      {"constant_fold", alone<constantFold>},     {"transpose_merge", alone<transposeMerge>},
      {"transpose_identity", alone<transposeIdentity>}, {"reshape_merge", alone<reshapeMerge>},
      {"subtensor_lift", subtensorLift},          {"sum_of_alloc", alone<sumOfAlloc>},
      {"useless_blockwise", alone<uselessBlockwise>}};
  return *table;
}

} // namespace

const BuiltinRewrite *findBuiltin(const std::string &name) {
  auto it = builtins().find(name);
  return it == builtins().end() ? nullptr : &it->second;
}

bool isBuiltin(const std::string &name) { return findBuiltin(name) != nullptr; }

} // namespace shapelab::rewrite
