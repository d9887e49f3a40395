#include "rewrite/Match.h"

#include <algorithm>
#include <mutex>
#include <numeric>
#include <unordered_map>

#include "symbolic/Evaluate.h"

namespace shapelab::rewrite {

using ops::DType;
using ops::Node;
using ops::OpKind;

std::string AttrValue::toString() const {
  switch (kind) {
  case Int: return std::to_string(i);
  case Ints: {
    std::string s = "(";
    for (std::size_t k = 0; k < ints.size(); ++k) s += (k ? ", " : "") + std::to_string(ints[k]);
    return s + (ints.size() == 1 ? ",)" : ")");
  }
  case Bool: return b ? "True" : "False";
  case Dtype: return ops::spelling(dtype);
  default: return "None";
  }
}

const std::vector<std::string> &attributeKeys(OpKind kind) {
  static const std::vector<std::string> none, reduce{"axis", "keepdims"}, axes{"axes"}, axis{"axis"}, dtype{"dtype"},
      diff{"n", "axis"};
  switch (kind) {
  case OpKind::Reduce: return reduce;
  case OpKind::Transpose: return axes;
  case OpKind::ExpandDims:
  case OpKind::Squeeze:
  case OpKind::Concatenate:
  case OpKind::Stack:
  case OpKind::Cumsum:
  case OpKind::Cumprod:
  case OpKind::Sort: return axis;
  case OpKind::Cast:
  case OpKind::Alloc: return dtype;
  case OpKind::Diff: return diff;
  default: return none;
  }
}

namespace {

AttrValue ofInt(int64_t v) { return {.kind = AttrValue::Int, .i = v}; }
AttrValue ofInts(std::vector<int64_t> v) { return {.kind = AttrValue::Ints, .ints = std::move(v)}; }
AttrValue ofBool(bool v) { return {.kind = AttrValue::Bool, .b = v}; }
AttrValue ofDtype(DType d) { return {.kind = AttrValue::Dtype, .dtype = d}; }

/// The rank an axis attribute of `n` counts in (a negative axis written in a pattern is
/// normalised by it): the operand's for reductions and squeeze, the result's otherwise.
std::size_t axisRank(const Node *n) {
  return n->kind == OpKind::Reduce || n->kind == OpKind::Squeeze ? n->inputs[0]->rank() : n->rank();
}

} // namespace

std::optional<AttrValue> attributeOf(const Node *n, const std::string &key) {
  switch (n->kind) {
  case OpKind::Reduce: {
    const auto &r = n->attr<ops::attr::Reduction>();
    if (key == "axis") return ofInts(r.axes);
    if (key == "keepdims") return ofBool(r.keepdims);
    break;
  }
  case OpKind::Transpose:
    if (key == "axes") return ofInts(n->attr<ops::attr::Permutation>().axes);
    break;
  case OpKind::ExpandDims:
    if (key == "axis") return ofInts(n->attr<ops::attr::NewAxes>().axes);
    break;
  case OpKind::Squeeze:
    if (key == "axis") return ofInts(n->attr<ops::attr::Dropped>().axes);
    break;
  case OpKind::Concatenate:
  case OpKind::Stack:
  case OpKind::Cumsum:
  case OpKind::Cumprod:
  case OpKind::Sort:
    if (key == "axis") return ofInt(n->attr<ops::attr::Axis>().axis);
    break;
  case OpKind::Cast:
    if (key == "dtype") return ofDtype(n->dtype);
    break;
  case OpKind::Alloc:
    if (key == "dtype") {
      const auto &f = n->attr<ops::attr::Fill>();
      return f.dtype ? ofDtype(*f.dtype) : AttrValue{};
    }
    break;
  case OpKind::Diff:
    if (key == "n") return ofInt(n->attr<ops::attr::Difference>().n);
    if (key == "axis") return ofInt(n->attr<ops::attr::Difference>().axis);
    break;
  default: break;
  }
  return std::nullopt;
}

namespace {

/// A value a pattern, condition or replacement computes (from attributes, shapes, literals).
struct Val {
  enum Kind { Bool, Size, Sizes, Dtype, None } kind = None;
  Pred pred = Pred::truth(true);
  Expr size = {};
  std::vector<Expr> sizes = {};
  DType dtype = DType::Float64;
};
/// A condition or an argument that does not evaluate here (an index out of range, a dtype where
/// a size is asked): the rule does not fire.
struct NotApplicable {};

Val boolVal(Pred p) { return {.kind = Val::Bool, .pred = std::move(p)}; }
Val sizeVal(Expr e) { return {.kind = Val::Size, .size = std::move(e)}; }
Val sizesVal(std::vector<Expr> e) { return {.kind = Val::Sizes, .sizes = std::move(e)}; }
Val dtypeVal(DType d) { return {.kind = Val::Dtype, .dtype = d}; }

Val ofAttr(const AttrValue &a) {
  switch (a.kind) {
  case AttrValue::Int: return sizeVal(Expr(a.i));
  case AttrValue::Ints: {
    std::vector<Expr> e;
    for (int64_t i : a.ints) e.push_back(Expr(i));
    return sizesVal(std::move(e));
  }
  case AttrValue::Bool: return boolVal(Pred::truth(a.b));
  case AttrValue::Dtype: return dtypeVal(a.dtype);
  default: return Val{};
  }
}

struct Evaluator {
  const Node *self;
  const Bindings &b;

  const Node *node(const Term &t) const {
    if (t.kind == Term::Subscript) {
      auto it = b.nodes.find(t.toString());
      if (it == b.nodes.end()) throw NotApplicable{};
      return it->second;
    }
    if (t.kind != Term::Var) throw NotApplicable{};
    if (t.name == "self") return self;
    auto it = b.nodes.find(t.name);
    if (it == b.nodes.end()) throw NotApplicable{};
    return it->second;
  }
  int64_t constant(const Expr &e) const {
    std::optional<Integer> c = e.constantValue();
    if (!c || !c->fitsInt64()) throw NotApplicable{};
    return c->toInt64Checked();
  }
  Expr size(const Term &t) const {
    Val v = eval(t);
    if (v.kind != Val::Size) throw NotApplicable{};
    return v.size;
  }
  Val eval(const Term &t) const {
    switch (t.kind) {
    case Term::Var: {
      if (auto it = b.attrs.find(t.name); it != b.attrs.end()) return ofAttr(it->second);
      throw NotApplicable{}; // an array is not a value of a condition
    }
    case Term::Number:
      if (!t.integer) throw NotApplicable{};
      return sizeVal(Expr(int64_t(t.number)));
    case Term::Name: {
      if (t.name == "True" || t.name == "False") return boolVal(Pred::truth(t.name == "True"));
      if (t.name == "None") return Val{};
      return dtypeVal(*ops::dtypeNamed(t.name));
    }
    case Term::Tuple: {
      std::vector<Expr> e;
      for (const Term &i : t.args) e.push_back(size(i));
      return sizesVal(std::move(e));
    }
    case Term::Prop: {
      const Node *n = node(t.args[0]);
      if (t.name == "ndim") return sizeVal(Expr(int64_t(n->rank())));
      if (t.name == "dtype") return dtypeVal(n->dtype);
      if (t.name == "size") {
        Expr count(1);
        for (const Expr &d : n->shape) count = count * d;
        return sizeVal(count);
      }
      if (t.args.size() == 1) return sizesVal(std::vector<Expr>(n->shape.begin(), n->shape.end()));
      auto dim = [&](int64_t i) {
        const int64_t r = int64_t(n->rank());
        if (i < -r || i >= r) throw NotApplicable{};
        return n->shape[std::size_t(i < 0 ? i + r : i)];
      };
      Val index = eval(t.args[1]);
      if (index.kind == Val::Size) return sizeVal(dim(constant(index.size)));
      if (index.kind != Val::Sizes) throw NotApplicable{};
      std::vector<Expr> out;
      for (const Expr &i : index.sizes) out.push_back(dim(constant(i)));
      return sizesVal(std::move(out));
    }
    case Term::Compare: return boolVal(compare(t.name, eval(t.args[0]), eval(t.args[1])));
    case Term::Logic: {
      auto pred = [&](const Term &a) {
        Val v = eval(a);
        if (v.kind != Val::Bool) throw NotApplicable{};
        return v.pred;
      };
      if (t.name == "not") return boolVal(!pred(t.args[0]));
      if (t.name == "and") return boolVal(pred(t.args[0]) && pred(t.args[1]));
      return boolVal(pred(t.args[0]) || pred(t.args[1]));
    }
    case Term::Subscript: throw NotApplicable{}; // an array is not a value of a condition
    case Term::Call: break;
    }
    if (t.name == "is_basic" || t.name == "is_unit_slices") {
      auto it = b.indexes.find(t.args[0].name);
      if (it == b.indexes.end()) throw NotApplicable{};
      const std::vector<ops::IndexEntry> &entries = *it->second.entries;
      if (t.name == "is_basic")
        return boolVal(Pred::truth(!it->second.array && std::none_of(entries.begin(), entries.end(), [](const ops::IndexEntry &e) {
                                     return e.kind == ops::IndexEntry::Array;
                                   })));
      return boolVal(Pred::truth(std::all_of(entries.begin(), entries.end(), [](const ops::IndexEntry &e) {
        return e.kind == ops::IndexEntry::Slice && e.step == 1;
      })));
    }
    if (t.name == "add") {
      Val a = eval(t.args[0]), c = eval(t.args[1]);
      if (a.kind == Val::Sizes && c.kind == Val::Sizes) { // tuples join, as Python's do (axes a + b)
        a.sizes.insert(a.sizes.end(), c.sizes.begin(), c.sizes.end());
        return a;
      }
      if (a.kind != Val::Size || c.kind != Val::Size) throw NotApplicable{};
      return sizeVal(a.size + c.size);
    }
    if (t.name == "subtract") return sizeVal(size(t.args[0]) - size(t.args[1]));
    if (t.name == "multiply") return sizeVal(size(t.args[0]) * size(t.args[1]));
    if (t.name == "negative") return sizeVal(-size(t.args[0]));
    if (t.name == "len") {
      Val v = eval(t.args[0]);
      if (v.kind != Val::Sizes) throw NotApplicable{};
      return sizeVal(Expr(int64_t(v.sizes.size())));
    }
    auto dtypeOf = [&](const Term &a) {
      if (a.kind == Term::Var && !b.attrs.count(a.name)) return node(a)->dtype;
      Val v = eval(a);
      if (v.kind != Val::Dtype) throw NotApplicable{};
      return v.dtype;
    };
    if (t.name == "is_float") return boolVal(Pred::truth(ops::isFloat(dtypeOf(t.args[0]))));
    if (t.name == "is_integer") return boolVal(Pred::truth(ops::isInteger(dtypeOf(t.args[0]))));
    if (t.name == "is_bool") return boolVal(Pred::truth(dtypeOf(t.args[0]) == DType::Bool));
    if (t.name == "is_signed") {
      DType d = dtypeOf(t.args[0]);
      return boolVal(Pred::truth(ops::isFloat(d) || (ops::isInteger(d) && !ops::isUnsigned(d))));
    }
    if (t.name == "can_cast") { // NumPy's can_cast(from, to, 'safe'): the pair promotes to `to`
      DType from = dtypeOf(t.args[0]), to = dtypeOf(t.args[1]);
      return boolVal(Pred::truth(ops::resultType({{from, false}, {to, false}}) == to));
    }
    throw NotApplicable{};
  }
  static Pred compareSizes(const std::string &op, const Expr &a, const Expr &c) {
    // The same expression: decided without the solver (a size undefined somewhere, as n / 2
    // where n is odd, is still itself).
    if (a == c) return Pred::truth(op == "==" || op == "<=" || op == ">=");
    if (op == "==") return eq(a, c);
    if (op == "!=") return ne(a, c);
    if (op == "<") return lt(a, c);
    if (op == "<=") return le(a, c);
    if (op == ">") return gt(a, c);
    return ge(a, c);
  }
  static Pred compare(const std::string &op, const Val &a, const Val &c) {
    const bool equality = op == "==" || op == "!=";
    auto result = [&](bool same) { return Pred::truth(op == "==" ? same : !same); };
    if (a.kind == Val::Size && c.kind == Val::Size) return compareSizes(op, a.size, c.size);
    if (a.kind == Val::Sizes && c.kind == Val::Sizes) {
      if (!equality) throw NotApplicable{};
      if (a.sizes.size() != c.sizes.size()) return result(false);
      std::vector<Pred> parts;
      for (std::size_t i = 0; i < a.sizes.size(); ++i) parts.push_back(compareSizes("==", a.sizes[i], c.sizes[i]));
      Pred all = Pred::conjunction(parts);
      return op == "==" ? all : !all;
    }
    // A tuple against one size: each element compared (`x.shape[a] == 1` for axes a).
    if (a.kind == Val::Sizes && c.kind == Val::Size) {
      std::vector<Pred> parts;
      for (const Expr &e : a.sizes) parts.push_back(compareSizes(op, e, c.size));
      return Pred::conjunction(parts);
    }
    if (a.kind != c.kind || !equality) throw NotApplicable{};
    switch (a.kind) {
    case Val::Dtype: return result(a.dtype == c.dtype);
    case Val::None: return result(true);
    case Val::Bool: {
      std::optional<bool> x = a.pred.constantValue(), y = c.pred.constantValue();
      if (!x || !y) throw NotApplicable{};
      return result(*x == *y);
    }
    default: throw NotApplicable{};
    }
  }
  /// An attribute argument of a replacement.
  AttrValue attr(const Term &t) const {
    if (t.kind == Term::Var)
      if (auto it = b.attrs.find(t.name); it != b.attrs.end()) return it->second;
    Val v = eval(t);
    switch (v.kind) {
    case Val::Size: return ofInt(constant(v.size));
    case Val::Sizes: {
      std::vector<int64_t> out;
      for (const Expr &e : v.sizes) out.push_back(constant(e));
      return ofInts(std::move(out));
    }
    case Val::Bool: {
      std::optional<bool> c = v.pred.constantValue();
      if (!c) throw NotApplicable{};
      return ofBool(*c);
    }
    case Val::Dtype: return ofDtype(v.dtype);
    default: return AttrValue{};
    }
  }
  Shape shape(const Term &t) const {
    Val v = eval(t);
    if (v.kind != Val::Sizes) throw NotApplicable{};
    return Shape(v.sizes.begin(), v.sizes.end());
  }
};

/// Whether the pattern's attribute value `t` matches the node's `value`.
bool matchAttribute(const Term &t, const AttrValue &value, const Node *n, Bindings &b) {
  const int64_t rank = int64_t(axisRank(n));
  auto norm = [&](int64_t a) { return a < 0 ? a + rank : a; };
  switch (t.kind) {
  case Term::Var: {
    auto [it, fresh] = b.attrs.emplace(t.name, value);
    if (fresh || it->second == value) return true;
    // One axis is the same attribute as the list of it (concatenate's axis k, sum's axis (k,)).
    auto one = [](const AttrValue &v) -> std::optional<int64_t> {
      if (v.kind == AttrValue::Int) return v.i;
      if (v.kind == AttrValue::Ints && v.ints.size() == 1) return v.ints[0];
      return std::nullopt;
    };
    return one(it->second) && one(it->second) == one(value);
  }
  case Term::Number: {
    const int64_t v = int64_t(t.number);
    if (value.kind == AttrValue::Int) return norm(v) == value.i;
    return value.kind == AttrValue::Ints && value.ints == std::vector<int64_t>{norm(v)};
  }
  case Term::Tuple: {
    if (value.kind != AttrValue::Ints) return false;
    std::vector<int64_t> want;
    for (const Term &i : t.args) want.push_back(n->kind == OpKind::Transpose ? int64_t(i.number) : norm(int64_t(i.number)));
    if (n->kind != OpKind::Transpose) std::sort(want.begin(), want.end());
    return want == value.ints;
  }
  case Term::Name:
    if (t.name == "None") {
      if (value.kind == AttrValue::None) return true;
      // axis=None of a reduction: every axis of the operand.
      if (n->kind != OpKind::Reduce || value.kind != AttrValue::Ints) return false;
      std::vector<int64_t> all(static_cast<std::size_t>(rank), 0);
      std::iota(all.begin(), all.end(), 0);
      return value.ints == all;
    }
    if (t.name == "True" || t.name == "False") return value.kind == AttrValue::Bool && value.b == (t.name == "True");
    return value.kind == AttrValue::Dtype && value.dtype == *ops::dtypeNamed(t.name);
  default: return false;
  }
}

/// What a pattern's function name matches: nodes of one kind, and of that op name too where
/// the kind has several (`exp` among the unary functions, `sum` among the reductions).
struct NameMatch {
  OpKind kind;
  bool sameOp;
};
std::optional<NameMatch> nameMatch(const std::string &name) {
  if (const ops::UfuncInfo *u = ops::ufunc(name)) return NameMatch{u->arity == 1 ? OpKind::Unary : OpKind::Binary, true};
  const ops::FunctionInfo *f = ops::function(name);
  if (!f || !f->has(ops::fn::Pattern) || !f->kind) return std::nullopt;
  return NameMatch{*f->kind, ops::hasTrait(*f->kind, ops::trait::NamedByOp)};
}

bool kindMatches(const std::string &name, const Node *n) {
  // Matching runs for every rule at every node: each name is looked up in the op list once
  // (a table shared by every engine, guarded for engines on several threads).
  static std::mutex lock;
  static auto *known = new std::unordered_map<std::string, std::optional<NameMatch>>();
  std::optional<NameMatch> how;
  {
    std::lock_guard<std::mutex> guard(lock);
    auto it = known->find(name);
    if (it == known->end()) it = known->emplace(name, nameMatch(name)).first;
    how = it->second;
  }
  return how && n->kind == how->kind && (!how->sameOp || n->op == name);
}

} // namespace

std::optional<std::pair<OpKind, std::string>> rootKind(const Term &pattern) {
  if (pattern.kind == Term::Subscript) return std::pair{OpKind::Index, std::string()};
  if (pattern.kind != Term::Call) return std::nullopt;
  if (pattern.opVariable()) return std::pair{pattern.args.size() == 1 ? OpKind::Unary : OpKind::Binary, std::string()};
  std::optional<NameMatch> how = nameMatch(pattern.name);
  if (!how) return std::nullopt;
  return std::pair{how->kind, how->sameOp ? pattern.name : std::string()};
}

bool match(const Term &t, const Node *n, Bindings &b) {
  switch (t.kind) {
  case Term::Var: {
    auto [it, fresh] = b.nodes.emplace(t.name, n);
    return fresh || it->second == n; // hash-consing: the same subterm is the same node
  }
  case Term::Subscript: {
    if (n->kind != OpKind::Index) return false;
    const Node *array = n->inputs.size() > 1 ? n->inputs[1] : nullptr;
    auto [it, fresh] = b.indexes.emplace(t.name, IndexBinding{&n->index, array});
    if (!fresh && (*it->second.entries != n->index || it->second.array != array)) return false;
    b.nodes[t.toString()] = n;
    return match(t.args[0], n->inputs[0], b);
  }
  case Term::Number: {
    if (n->kind != OpKind::Scalar) return false;
    if (n->exprs.empty()) return n->attr<ops::attr::Constant>().value == t.number;
    // A size that is a constant (a Python int meeting an array).
    std::optional<Integer> c = n->exprs[0].constantValue();
    return t.integer && c && *c == Integer(int64_t(t.number));
  }
  case Term::Call: {
    if (t.opVariable()) {
      const OpKind kind = t.args.size() == 1 ? OpKind::Unary : OpKind::Binary;
      if (n->kind != kind) return false;
      auto [it, fresh] = b.ops.emplace(t.name, n->op);
      if (!fresh && it->second != n->op) return false;
    } else if (!kindMatches(t.name, n)) {
      return false;
    }
    if (n->kind == OpKind::SetSubtensor) {
      // set_subtensor(x[i], v): the node's inputs are {x, v, [index array], the region x[i]}.
      b.mode = n->mode;
      return t.args.size() == 2 && match(t.args[0], n->inputs.back(), b) && match(t.args[1], n->inputs[1], b);
    }
    // A list pattern (concatenate([x, y])) matches that many operands.
    if (t.args.size() != n->inputs.size()) return false;
    if (n->kind == OpKind::Binary || n->kind == OpKind::Where || n->kind == OpKind::Blockwise) b.mode = n->mode;
    for (const auto &[key, value] : t.keywords) {
      std::optional<AttrValue> v = attributeOf(n, key);
      if (!v || !matchAttribute(value, *v, n, b)) return false;
    }
    for (std::size_t i = 0; i < t.args.size(); ++i)
      if (!match(t.args[i], n->inputs[i], b)) return false;
    return true;
  }
  default: return false;
  }
}

bool conditionHolds(ops::Graph &g, const Term &condition, const Node *self, const Bindings &b) {
  Pred p = Pred::truth(false);
  try {
    Val v = Evaluator{self, b}.eval(condition);
    if (v.kind != Val::Bool) return false;
    p = v.pred;
  } catch (const NotApplicable &) {
    return false;
  }
  if (std::optional<bool> c = p.constantValue()) return *c;
  std::vector<Expr> reserved;
  ops::addReserved(reserved, parameterNodes(p));
  return g.solver().provesQuickly(g.contextFor(reserved), p);
}

namespace {

/// A builder: the spec the rule parser checks, and the factory call.
struct Builder {
  BuildSpec spec;
  std::function<const Node *(ops::Graph &, BroadcastMode mode, const std::vector<const Node *> &nodes, const Shape &shape,
                             const std::map<std::string, AttrValue> &attrs, const std::string &name)>
      make;
};

std::optional<std::vector<int64_t>> axesOf(const std::map<std::string, AttrValue> &a, const char *key) {
  auto it = a.find(key);
  if (it == a.end() || it->second.kind == AttrValue::None) return std::nullopt;
  if (it->second.kind == AttrValue::Int) return std::vector<int64_t>{it->second.i};
  if (it->second.kind != AttrValue::Ints) throw NotApplicable{};
  return it->second.ints;
}
std::optional<int64_t> axisOf(const std::map<std::string, AttrValue> &a, const char *key) {
  auto it = a.find(key);
  if (it == a.end() || it->second.kind == AttrValue::None) return std::nullopt;
  if (it->second.kind != AttrValue::Int) throw NotApplicable{};
  return it->second.i;
}
std::optional<DType> dtypeOf(const std::map<std::string, AttrValue> &a) {
  auto it = a.find("dtype");
  if (it == a.end() || it->second.kind == AttrValue::None) return std::nullopt;
  if (it->second.kind != AttrValue::Dtype) throw NotApplicable{};
  return it->second.dtype;
}
bool boolOf(const std::map<std::string, AttrValue> &a, const char *key) {
  auto it = a.find(key);
  if (it == a.end()) return false;
  if (it->second.kind != AttrValue::Bool) throw NotApplicable{};
  return it->second.b;
}

const std::unordered_map<std::string, Builder> &builders() {
  using P = Param;
  static const auto *table = [] {
    auto *m = new std::unordered_map<std::string, Builder>();
    auto add = [&](std::vector<std::string> names, BuildSpec spec, decltype(Builder::make) make) {
      for (const std::string &n : names) m->emplace(n, Builder{spec, make});
    };
    add({"where"}, {{P::Node, P::Node, P::Node}, {"condition", "x", "y"}, 3, {}},
        [](ops::Graph &g, BroadcastMode mode, auto &xs, auto &, auto &, auto &) { return g.where(xs[0], xs[1], xs[2], mode); });
    add({"astype"}, {{P::Node, P::Attr}, {"x", "dtype"}, 2, {"dtype"}},
        [](ops::Graph &g, BroadcastMode, auto &xs, auto &, auto &a, auto &) { return g.astype(xs[0], *dtypeOf(a)); });
    add({"transpose"}, {{P::Node, P::Attr}, {"a", "axes"}, 1, {"axes"}},
        [](ops::Graph &g, BroadcastMode, auto &xs, auto &, auto &a, auto &) { return g.transpose(xs[0], axesOf(a, "axes")); });
    add({"expand_dims"}, {{P::Node, P::Attr}, {"a", "axis"}, 2, {"axis"}},
        [](ops::Graph &g, BroadcastMode, auto &xs, auto &, auto &a, auto &) {
          std::optional<std::vector<int64_t>> axes = axesOf(a, "axis");
          if (!axes) throw NotApplicable{};
          return g.expandDims(xs[0], *axes);
        });
    add({"squeeze"}, {{P::Node, P::Attr}, {"a", "axis"}, 1, {"axis"}},
        [](ops::Graph &g, BroadcastMode, auto &xs, auto &, auto &a, auto &) { return g.squeeze(xs[0], axesOf(a, "axis")); });
    add({"reshape"}, {{P::Node, P::Shape}, {"a", "newshape"}, 2, {}},
        [](ops::Graph &g, BroadcastMode, auto &xs, const Shape &s, auto &, auto &) {
          return g.reshape(xs[0], std::vector<Expr>(s.begin(), s.end()));
        });
    add({"broadcast_to"}, {{P::Node, P::Shape}, {"array", "shape"}, 2, {}},
        [](ops::Graph &g, BroadcastMode, auto &xs, const Shape &s, auto &, auto &) { return g.broadcastTo(xs[0], s); });
    add({"sum_to"}, {{P::Node, P::Shape}, {"x", "shape"}, 2, {}},
        [](ops::Graph &g, BroadcastMode, auto &xs, const Shape &s, auto &, auto &) { return g.sumTo(xs[0], s); });
    add({"specify_shape"}, {{P::Node, P::Shape}, {"x", "shape"}, 2, {}},
        [](ops::Graph &g, BroadcastMode, auto &xs, const Shape &s, auto &, auto &) {
          return g.specifyShape(xs[0], std::vector<std::optional<Expr>>(s.begin(), s.end()));
        });
    add({"full"}, {{P::Shape, P::Node, P::Attr}, {"shape", "fill_value", "dtype"}, 2, {"dtype"}},
        [](ops::Graph &g, BroadcastMode, auto &xs, const Shape &s, auto &a, auto &) { return g.full(s, xs[0], dtypeOf(a)); });
    add({"zeros_like", "ones_like"}, {{P::Node, P::Attr}, {"a", "dtype"}, 1, {"dtype"}},
        [](ops::Graph &g, BroadcastMode, auto &xs, auto &, auto &a, const std::string &name) {
          // The operand's shape, not its value (the operand is not computed).
          const Node *x = xs[0];
          return g.full(x->shape, g.literal(name == "ones_like" ? 1 : 0, DType::Int64), dtypeOf(a).value_or(x->dtype));
        });
    add({"sum", "prod", "max", "min", "all", "any", "mean"}, {{P::Node, P::Attr, P::Attr}, {"a", "axis", "keepdims"}, 1, {"axis", "keepdims"}},
        [](ops::Graph &g, BroadcastMode, auto &xs, auto &, auto &a, const std::string &name) {
          return g.reduce(name, xs[0], axesOf(a, "axis"), boolOf(a, "keepdims"));
        });
    add({"concatenate"}, {{P::Nodes, P::Attr}, {"arrays", "axis"}, 1, {"axis"}},
        [](ops::Graph &g, BroadcastMode, auto &xs, auto &, auto &a, auto &) {
          return g.concatenate(xs, a.count("axis") ? axisOf(a, "axis") : std::optional<int64_t>(0));
        });
    add({"stack"}, {{P::Nodes, P::Attr}, {"arrays", "axis"}, 1, {"axis"}},
        [](ops::Graph &g, BroadcastMode, auto &xs, auto &, auto &a, auto &) { return g.stack(xs, axisOf(a, "axis").value_or(0)); });
    add({"cumsum", "cumprod"}, {{P::Node, P::Attr}, {"a", "axis"}, 1, {"axis"}},
        [](ops::Graph &g, BroadcastMode, auto &xs, auto &, auto &a, const std::string &name) {
          return g.cumulative(name, xs[0], axisOf(a, "axis"));
        });
    add({"matmul", "outer"}, {{P::Node, P::Node}, {"x1", "x2"}, 2, {}},
        [](ops::Graph &g, BroadcastMode mode, auto &xs, auto &, auto &, const std::string &name) {
          return g.blockwise(name, xs, mode);
        });
    return m;
  }();
  return *table;
}

} // namespace

const BuildSpec *buildSpec(const std::string &name) {
  auto it = builders().find(name);
  return it == builders().end() ? nullptr : &it->second.spec;
}

namespace {

/// The arguments of a builder's call, read from the replacement term.
struct CallArgs {
  std::vector<const Term *> nodes; // in order (a list's items)
  const Term *shape = nullptr;
  std::vector<std::pair<std::string, const Term *>> attrs;
};
CallArgs callArgs(const Term &t, const BuildSpec &spec) {
  CallArgs c;
  const std::size_t given = t.list ? 1 : t.args.size();
  for (std::size_t i = 0; i < given; ++i) {
    switch (spec.params[i]) {
    case Param::Nodes:
      for (const Term &a : t.args) c.nodes.push_back(&a);
      break;
    case Param::Node: c.nodes.push_back(&t.args[i]); break;
    case Param::Shape: c.shape = &t.args[i]; break;
    case Param::Attr: c.attrs.push_back({spec.names[i], &t.args[i]}); break;
    }
  }
  for (const auto &[k, v] : t.keywords) c.attrs.push_back({k, &v});
  return c;
}

} // namespace

const Node *build(ops::Graph &g, const Term &t, const Node *self, const Bindings &b) {
  try {
    std::function<const Node *(const Term &)> go = [&](const Term &t) -> const Node * {
      if (t.kind == Term::Var) return b.nodes.at(t.name);
      if (t.kind == Term::Number) return g.literal(t.number, t.integer ? DType::Int64 : DType::Float64);
      if (t.kind == Term::Subscript) {
        const IndexBinding &i = b.indexes.at(t.name);
        return g.index(go(t.args[0]), *i.entries, i.array);
      }
      std::vector<const Node *> args;
      const std::string op = t.opVariable() ? b.ops.at(t.name) : t.name;
      if (ops::isUnaryOp(op)) return g.unary(op, go(t.args[0]));
      if (ops::isBinaryOp(op)) return g.binary(op, go(t.args[0]), go(t.args[1]), b.mode.value_or(self->mode));
      const Builder &builder = builders().at(op);
      CallArgs c = callArgs(t, builder.spec);
      Evaluator e{self, b};
      for (const Term *n : c.nodes) args.push_back(go(*n));
      Shape shape = c.shape ? e.shape(*c.shape) : Shape{};
      std::map<std::string, AttrValue> attrs;
      for (const auto &[k, v] : c.attrs) attrs[k] = e.attr(*v);
      return builder.make(g, b.mode.value_or(self->mode), args, shape, attrs, op);
    };
    return go(t);
  } catch (const NotApplicable &) {
    return nullptr;
  }
}

std::optional<std::string> replacementText(const Term &t, const Node *self, const Bindings &b,
                                           const std::function<std::optional<std::string>(const Node *)> &nameOf,
                                           const Assignment &at) {
  bool written = true;
  Evaluator e{self, b};
  auto value = [&](const Expr &d) {
    std::optional<Integer> v = evaluate(d, at);
    written = written && v;
    return v ? v->toString() : std::string("0");
  };
  auto tuple = [&](const Shape &s) {
    std::string dims;
    for (std::size_t i = 0; i < s.size(); ++i) dims += (i ? ", " : "") + value(s[i]);
    return "(" + dims + (s.size() == 1 ? ",)" : ")");
  };
  std::function<std::string(const Term &)> write = [&](const Term &t) -> std::string {
    if (t.kind == Term::Var) {
      std::optional<std::string> name = nameOf(b.nodes.at(t.name));
      written = written && name;
      return name.value_or(t.name);
    }
    if (t.kind == Term::Subscript) {
      const IndexBinding &i = b.indexes.at(t.name);
      std::string entries;
      for (const ops::IndexEntry &e : *i.entries) {
        std::string s;
        switch (e.kind) {
        case ops::IndexEntry::Integer: s = value(*e.start); break;
        case ops::IndexEntry::NewAxis: s = "None"; break;
        case ops::IndexEntry::Array: {
          std::optional<std::string> name = nameOf(i.array);
          written = written && name;
          s = name.value_or("?");
          break;
        }
        case ops::IndexEntry::Slice:
          s = (e.start ? value(*e.start) : "") + ":" + (e.stop ? value(*e.stop) : "") + (e.step != 1 ? ":" + std::to_string(e.step) : "");
          break;
        }
        entries += (entries.empty() ? "" : ", ") + s;
      }
      return write(t.args[0]) + "[" + (entries.empty() ? "()" : entries) + "]";
    }
    if (t.kind == Term::Number) {
      std::string s = t.toString();
      // A float literal reads as one (1.0, not the integer 1), as the replacement builds it.
      if (!t.integer && s.find_first_of(".einf") == std::string::npos) s += ".0";
      return s;
    }
    const std::string op = t.opVariable() ? b.ops.at(t.name) : t.name;
    if (ops::isUnaryOp(op) || ops::isBinaryOp(op)) {
      std::string s = op + "(";
      for (std::size_t i = 0; i < t.args.size(); ++i) s += (i ? ", " : "") + write(t.args[i]);
      return s + ")";
    }
    const Builder &builder = builders().at(op);
    CallArgs c = callArgs(t, builder.spec);
    if (op == "zeros_like" || op == "ones_like") {
      // NumPy's functions compute their operand; the rule's do not: written with the shape.
      const Node *x = b.nodes.at(c.nodes.at(0)->name);
      std::string dtype = ops::spelling(x->dtype);
      for (const auto &[k, v] : c.attrs)
        if (k == "dtype") dtype = e.attr(*v).toString();
      return std::string(op == "zeros_like" ? "zeros" : "ones") + "(" + tuple(x->shape) + ", " + dtype + ")";
    }
    std::vector<std::string> parts;
    std::string nodes;
    for (const Term *n : c.nodes) nodes += (nodes.empty() ? "" : ", ") + write(*n);
    for (std::size_t i = 0; i < builder.spec.params.size(); ++i) {
      switch (builder.spec.params[i]) {
      case Param::Nodes: parts.push_back("[" + nodes + "]"); break;
      case Param::Node:
        if (!c.nodes.empty()) {
          parts.push_back(write(*c.nodes.front()));
          c.nodes.erase(c.nodes.begin());
        }
        break;
      case Param::Shape:
        if (c.shape) parts.push_back(tuple(e.shape(*c.shape)));
        break;
      case Param::Attr: break;
      }
    }
    for (const auto &[k, v] : c.attrs) parts.push_back(k + "=" + e.attr(*v).toString());
    std::string s = op + "(";
    for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
    return s + ")";
  };
  try {
    std::string text = write(t);
    if (!written) return std::nullopt;
    return text;
  } catch (const NotApplicable &) {
    return std::nullopt;
  }
}

} // namespace shapelab::rewrite
