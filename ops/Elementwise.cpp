// Sources (inputs, literals, sizes) and the elementwise ops: the broadcasting rule per mode, unary
// and binary ufuncs with NumPy's dtype rules, where, astype.
#include "ops/GraphDetail.h"

namespace shapelab::ops {

// ---------------------------------------------------------------------------------------------
// Sources.

const Node *Graph::input(const std::string &name, DType dtype, const Shape &shape) {
  Expr::param(name); // refuses reserved and malformed names
  if (inputsByName_.count(name)) throw NameError("input '" + name + "' is already defined");
  if (std::find(params_.begin(), params_.end(), Expr::param(name)) != params_.end())
    throw NameError("'" + name + "' is already a size parameter");
  if (std::string e = rankError(shape.size()); !e.empty()) throw OpError(e);
  Node c = blank(OpKind::Input, name, {});
  c.exprs = shape;
  const Node *n = make(std::move(c), [&](Node &n) {
    n.dtype = dtype;
    n.shape = shape;
    requireSizes(n.validity, shape, "input " + name, true);
    requireElementCountFits(n.validity, shape, "input " + name, ObligationKind::Existence);
  });
  inputsByName_[name] = n;
  return n;
}

const Node *Graph::literal(double value, DType kind) {
  Node c = blank(OpKind::Scalar, "literal", {});
  c.attrs = attr::Constant{value, kind};
  c.weak = true;
  return make(std::move(c), [&](Node &n) { n.dtype = kind; });
}

const Node *Graph::constant(double value, DType dtype) {
  Node c = blank(OpKind::Scalar, "constant", {});
  c.attrs = attr::Constant{value, dtype};
  return make(std::move(c), [&](Node &n) { n.dtype = dtype; });
}

namespace {
/// A polynomial with non-negative coefficients in sizes (parameters, and choices, minima and
/// maxima of such polynomials): an element count, never negative.
bool sizePolynomial(const Expr &e) {
  if (e.kind() == ExprKind::Param) return true;
  if (e.kind() == ExprKind::Select || e.kind() == ExprKind::Min || e.kind() == ExprKind::Max)
    return std::all_of(e->operands.begin(), e->operands.end(), sizePolynomial);
  if (e.kind() == ExprKind::Constant) return *e.constantValue() >= Integer(0);
  if (e.kind() != ExprKind::Sum || e->constantTerm < Integer(0)) return false;
  for (const Term &t : e->terms) {
    if (t.coefficient < Integer(0)) return false;
    for (const auto &[atom, power] : t.monomial)
      if (!sizePolynomial(atom)) return false;
  }
  return true;
}
} // namespace

const Node *Graph::size(Expr value) {
  Node c = blank(OpKind::Scalar, "size", {});
  c.exprs = {value};
  c.weak = true;
  return make(std::move(c), [&](Node &n) {
    n.dtype = DType::Int64;
    static const Integer lowest = -maxArraySize() - Integer(1);
    // An element count only needs the upper bound (the same requirement its array has).
    Pred fits = sizePolynomial(value) ? le(value, maxArraySize())
                                      : Pred::conjunction({definedness(value), ge(value, lowest), le(value, maxArraySize())});
    // An element count's bound is its array's limit (of that kind); any other value's is a
    // shape error of its own (NumPy's OverflowError).
    requireOr(n.validity, fits, "the value " + value.toString() + " fits in int64",
              "Python integer " + value.toString() + " out of bounds for int64",
              sizePolynomial(value) ? ObligationKind::Limit : ObligationKind::Shape);
  });
}

// ---------------------------------------------------------------------------------------------
// Elementwise.

void Graph::broadcastOperands(Node &n, BroadcastMode mode) {
  std::vector<Shape> shapes;
  shapes.reserve(n.inputs.size());
  for (const Node *in : n.inputs) shapes.push_back(in->shape);
  // When one operand's shape dominates (every other one, right-aligned, has the same dim or a
  // constant 1 at each position), the result is that shape where valid, and its element count
  // was required where that operand was made: no second count obligation.
  auto dominates = [&](const Shape &big) {
    for (const Shape &s : shapes) {
      if (s.size() > big.size()) return false;
      for (std::size_t i = 1; i <= s.size(); ++i)
        if (s[s.size() - i] != big[big.size() - i] && s[s.size() - i] != Expr(1)) return false;
    }
    return true;
  };
  bool known = std::any_of(shapes.begin(), shapes.end(), dominates);
  const Context &cx = n.validity.context();
  BroadcastKey key{cx.assumptions(), cx.domain(), mode, !known, std::move(shapes)};
  const BroadcastResult *r = nullptr;
  std::optional<BroadcastResult> unkept; // an answer the clock cut short: used, not kept
  if (auto it = broadcasts_.find(key); it != broadcasts_.end()) {
    ++stats_.broadcastsRemembered;
    r = &it->second;
  } else {
    const uint64_t before = solver_->stats().unkept;
    BroadcastResult fresh = broadcast(*solver_, cx, key.shapes, mode, !known);
    if (solver_->stats().unkept != before) {
      r = &unkept.emplace(std::move(fresh));
    } else {
      if (broadcasts_.size() >= (std::size_t(1) << 14)) broadcasts_.clear();
      r = &broadcasts_.emplace(std::move(key), std::move(fresh)).first->second;
    }
  }
  n.shape = r->shape;
  n.validity.absorb(r->validity); // after anything the rule recorded before
  if (mode == BroadcastMode::Static) markStaticBroadcastable(n, true);
}

std::size_t Graph::BroadcastKeyHash::operator()(const BroadcastKey &k) const {
  std::size_t h = mix(k.assumptions.hash(), std::size_t(k.domain) * 4 + std::size_t(k.mode) * 2 + std::size_t(k.count));
  for (const Shape &s : k.shapes) {
    h = mix(h, s.size());
    for (const Expr &d : s) h = mix(h, d.hash());
  }
  return h;
}

void Graph::markStaticBroadcastable(Node &n, bool positionWide, const std::vector<std::size_t> &core,
                                    const std::vector<bool> &apart, const std::vector<Shape> *over) {
  // Static mode: the kernels need to know which sizes 1 may broadcast — those provably 1 when the
  // node was built, and those whose oneness the solver could not decide (the shape rule then
  // checks NumPy's rule at run time, so the kernel must apply the same one). For broadcasting
  // operands one undecided size makes its whole position NumPy's (as shape/Broadcast decides);
  // a random variable's batch dimensions with size are decided one by one. Positions are counted
  // from the right after each input's core dims (core[i], none when not given); bits are kept
  // per position of the whole input shape.
  std::vector<std::vector<Answer>> answers;
  uint64_t undecided = 0;
  for (std::size_t k = 0; k < n.inputs.size(); ++k) {
    const Shape &shape = over ? (*over)[k] : n.inputs[k]->shape;
    std::size_t c = k < core.size() ? core[k] : 0;
    answers.emplace_back();
    for (std::size_t j = 0; j + c < shape.size() && j + c < 64; ++j) {
      Expr d = shape[shape.size() - 1 - c - j];
      Answer one = d.constantValue() ? (d.constantValue()->isOne() ? Answer::Proven : Answer::Refuted)
                                     : oneness(*solver_, n.validity.context(), d).answer;
      answers.back().push_back(one);
      if (one == Answer::Unknown && !(k < apart.size() && apart[k])) undecided |= uint64_t(1) << j;
    }
  }
  for (std::size_t k = 0; k < answers.size(); ++k) {
    const std::vector<Answer> &a = answers[k];
    std::size_t c = k < core.size() ? core[k] : 0;
    uint64_t bits = 0;
    for (std::size_t j = 0; j < a.size(); ++j)
      if (a[j] == Answer::Proven || a[j] == Answer::Unknown || (positionWide && (undecided >> j & 1)))
        bits |= uint64_t(1) << (j + c);
    n.broadcastable.push_back(bits);
  }
}

const Node *Graph::unary(const std::string &op, const Node *x) {
  if (!isUnaryOp(op)) throw OpError("unknown elementwise function '" + op + "'");
  Node c = blank(OpKind::Unary, op, {x});
  return make(std::move(c), [&](Node &n) {
    DType t = x->dtype;
    const UfuncRule rule = ruleOf(op);
    if (rule == UfuncRule::Test) { // any dtype in, bool out
      n.dtype = DType::Bool;
      n.shape = x->shape;
      return;
    }
    bool math = rule != UfuncRule::Keep;
    if (op == "positive" && t == DType::Bool)
      throw OpError("ufunc 'positive' did not contain a loop with signature matching types <class 'numpy.dtype[bool_]'> -> None");
    if (op == "square" && t == DType::Bool) t = DType::Int8; // NumPy's first loop that takes bool
    if (op == "negative" && t == DType::Bool)
      throw OpError("The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the logical_not function instead.");
    if ((op == "sign" && t == DType::Bool) || (op == "invert" && isFloat(t)))
      throw OpError("ufunc '" + op + "' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''");
    if (math) t = x->weak ? DType::Float64 : floatFor(t); // int8 gives float16, int16 float32

    n.dtype = t;
    n.weak = x->weak;
    n.shape = x->shape;
  });
}

const Node *Graph::binary(const std::string &op, const Node *a, const Node *b, BroadcastMode mode) {
  if (!isBinaryOp(op)) throw OpError("unknown elementwise function '" + op + "'");
  Node c = blank(OpKind::Binary, op, {a, b});
  c.mode = mode;
  return make(std::move(c), [&](Node &n) {
    n.dtype = binaryResultType(op, {a->dtype, a->weak}, {b->dtype, b->weak});
    requireLiteralFits(n.validity, a, b), requireLiteralFits(n.validity, b, a);
    n.weak = a->weak && b->weak;
    broadcastOperands(n, mode);
  });
}

bool mustFitNarrowInteger(const Node *literal, const Node *other) {
  return literal->weak && !other->weak && literal->kind == OpKind::Scalar && literal->dtype == DType::Int64 &&
         isInteger(other->dtype) && other->dtype != DType::Int64;
}

void detail::requireLiteralFits(Validity &v, const Node *literal, const Node *other) {
  // NEP 50: a Python integer meeting an integer array takes the array's dtype, and must be one
  // of its values (uint8 array + 300 is NumPy's OverflowError; uint8 array + n requires n <= 255).
  if (!mustFitNarrowInteger(literal, other)) return;
  const uint32_t bits = uint32_t(8 * itemSize(other->dtype)) - (isUnsigned(other->dtype) ? 0 : 1);
  const Integer lo = isUnsigned(other->dtype) ? Integer(0) : Integer(0) - Integer::pow(Integer(2), bits);
  const Integer hi = Integer::pow(Integer(2), bits) - Integer(1);
  const Expr value = literal->op == "size" ? literal->exprs[0] : Expr(Integer(int64_t(literal->attr<attr::Constant>().value)));
  requireOr(v, Pred::conjunction({ge(value, Expr(lo)), le(value, Expr(hi))}),
            "the Python integer " + value.toString() + " is a " + spelling(other->dtype) + " value",
            "Python integer " + value.toString() + " out of bounds for " + spelling(other->dtype));
}

DType Graph::binaryResultType(const std::string &op, Typed a, Typed b) {
  DType t = resultType({a, b});
  const UfuncRule rule = ruleOf(op);
  // A math function of two arrays runs the first float loop each casts to safely: int8 with
  // uint8 is float16 (promoting first would give int16, float32). A Python number's operand
  // promotes first (arctan2(int8 array, 2.5) is float64).
  if (rule == UfuncRule::Math && !a.weak && !b.weak) t = resultType({{floatFor(a.dtype), false}, {floatFor(b.dtype), false}});
  if (t == DType::Bool && op == "subtract")
    throw OpError("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.");
  const bool math = rule == UfuncRule::Math;
  // bool has no loop of its own for these: NumPy's first that takes it is int8's (float16's for
  // the math functions).
  if (t == DType::Bool && (op == "floor_divide" || op == "remainder" || op == "power" || op == "fmod")) t = DType::Int8;
  if ((op == "bitwise_and" || op == "bitwise_or" || op == "bitwise_xor") && isFloat(t))
    throw OpError("ufunc '" + op + "' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''");
  if (math) t = floatFor(t);
  if (rule == UfuncRule::Divide && !isFloat(t)) t = DType::Float64;
  return rule == UfuncRule::Compare || rule == UfuncRule::Logical ? DType::Bool : t;
}

const Node *Graph::where(const Node *cnd, const Node *a, const Node *b, BroadcastMode mode) {
  Node c = blank(OpKind::Where, "where", {cnd, a, b});
  c.mode = mode;
  return make(std::move(c), [&](Node &n) {
    n.dtype = resultType({{a->dtype, a->weak}, {b->dtype, b->weak}});
    requireLiteralFits(n.validity, a, b), requireLiteralFits(n.validity, b, a);
    n.weak = a->weak && b->weak && cnd->weak;
    broadcastOperands(n, mode);
  });
}

const Node *Graph::astype(const Node *x, DType dtype) {
  Node c = blank(OpKind::Cast, "astype", {x});
  c.dtype = dtype;
  return make(std::move(c), [&](Node &n) { n.shape = x->shape; });
}

} // namespace shapelab::ops
