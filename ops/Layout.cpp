// Layout ops: transpose, reshape (NumPy's reading of negative entries), expand_dims, squeeze,
// broadcast_to, full, arange, concatenate, stack, split.
#include <functional>

#include "ops/GraphDetail.h"

namespace shapelab::ops {

// ---------------------------------------------------------------------------------------------
// Layout.

const Node *Graph::transpose(const Node *x, std::optional<std::vector<int64_t>> axes) {
  std::vector<int64_t> perm;
  if (!axes) {
    for (std::size_t i = x->rank(); i-- > 0;) perm.push_back(int64_t(i));
  } else {
    if (axes->size() != x->rank()) throw OpError("axes don't match array");
    std::vector<bool> used(x->rank());
    for (int64_t a : *axes) {
      int64_t k = normalizeAxis(a, x->rank());
      if (used[k]) throw OpError("repeated axis in transpose");
      used[k] = true;
      perm.push_back(k);
    }
  }
  Node c = blank(OpKind::Transpose, "transpose", {x});
  c.attrs = attr::Permutation{perm};
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    for (int64_t k : perm) n.shape.push_back(x->shape[k]);
  });
}

namespace {
/// An operand of " / " as a message writes it: in parentheses unless a parameter or a constant
/// (6 / (2*n - 2), (b*d*t) / (b*h*t)).
std::string operandText(const Expr &e) {
  if (e.kind() == ExprKind::Param || e.isConstant()) return e.toString();
  return "(" + e.toString() + ")";
}
} // namespace

std::optional<Expr> Graph::quotient(const Expr &total, const Expr &rest) const {
  if (std::optional<Expr> q = divideByMonomial(total, rest)) return q;
  if (std::optional<Expr> q = exactQuotient(total, rest)) return q;
  // Under an assumed equality that defines a parameter (`assume d == h*q`: d is h*q wherever
  // the program runs), with the parameter replaced by its definition.
  std::vector<Pred> equalities;
  std::function<void(const Pred &)> collect = [&](const Pred &p) {
    if (p->kind == PredKind::And)
      for (const Pred &c : p->children) collect(c);
    else if (p->kind == PredKind::Compare && p->op == CompareOp::EQ)
      equalities.push_back(p);
  };
  for (const Pred &a : assumptions_) collect(a);
  for (const Pred &e : equalities) {
    const Expr difference = e->lhs - e->rhs;
    auto [terms, constant] = asPolynomial(difference);
    for (const Term &t : terms) {
      if (t.monomial.size() != 1 || t.monomial[0].second != 1 || Integer::abs(t.coefficient) != Integer(1)) continue;
      const Expr &atom = t.monomial[0].first;
      if (atom.kind() != ExprKind::Param) continue;
      const bool once = std::count_if(terms.begin(), terms.end(), [&](const Term &o) {
                          return std::any_of(o.monomial.begin(), o.monomial.end(), [&](const auto &f) { return f.first == atom; });
                        }) == 1;
      if (!once) continue;
      // difference = c*atom + others with c = +-1: atom = -others / c = (c*atom - difference) * c.
      const Expr value = (Expr(t.coefficient) * atom - difference) * Expr(t.coefficient);
      if (std::optional<Expr> q = exactQuotient(substituteAtom(total, atom, value), substituteAtom(rest, atom, value)))
        return q;
    }
  }
  return std::nullopt;
}

/// The reshape rule, as NumPy reads a target (`_fix_unknown_dimension`): every negative entry,
/// -1 or not, written or computed, is the one unknown dimension, inferred as the element count
/// divided by the product of the others (which must be at least 1 and divide it); two negative
/// entries are an error ("can only specify one unknown dimension"); with none, the product must
/// be the element count. A computed entry that may be negative under the context makes the
/// shape piecewise: `(b, t, -q)` of a `(b, t, d)` array is `(b, t, d if -q < 0 else 0)`, valid
/// where q >= 1 and b*t >= 1, or q == 0 and b*t*d == 0. Throws OpError for two negative
/// constants, and for an entry that may be negative where x is valid and whose quotient is not an
/// expression (a sum divides nothing exactly).
Shape Graph::reshapeTarget(Validity &v, const Context &context, const Node *x, const std::vector<Expr> &target) {
  Expr total = product(x->shape);
  // Where x cannot be computed the reshape never runs: an entry that is a size wherever x is
  // valid (x.shape[1] of an (n - 1, m - 1) array) is read as a size. x's domain is asked for
  // only when an entry's own bounds leave its sign open.
  std::optional<Pred> operandDomain;
  auto sizeWhereOperandIsValid = [&](const Expr &e) {
    try {
      if (!operandDomain) operandDomain = validityOf(*this, x).domain();
    } catch (const InputTooLarge &) {
      return false;
    }
    return !operandDomain->isTrue() && provesCheaply(context, !*operandDomain || ge(e, 0));
  };
  const std::string one = "can only specify one unknown dimension";
  std::optional<std::size_t> unknown;
  std::vector<std::size_t> maybeNegative;
  Shape known;
  for (std::size_t i = 0; i < target.size(); ++i) {
    auto value = target[i].constantValue();
    if (!value || *value >= Integer(0)) continue;
    if (unknown) throw OpError(one);
    unknown = i;
  }
  // Beside a written unknown every other entry must be a size (one negative somewhere is a second
  // unknown there); otherwise an entry whose sign is open is inferred where it is negative.
  // A product of consecutive dimensions of x (axes merged: (a, b, c) into (a, b*c)) is a size
  // wherever x exists, though its sign may be beyond the solver where the dims are not sizes
  // everywhere ((3*m - 2)*(2*m - 1) of a padded array).
  auto mergedDims = [&](const Expr &e) {
    for (std::size_t a = 0; a < x->rank(); ++a) {
      Expr run(1);
      for (std::size_t b = a; b < x->rank(); ++b) {
        run = run * x->shape[b];
        if (run == e) return true;
      }
    }
    return false;
  };
  for (std::size_t i = 0; i < target.size() && !unknown; ++i) {
    if (target[i].isConstant()) continue;
    Range r = rangeOf(target[i], context);
    if (!(r.low && *r.low >= Integer(0)) && !provesCheaply(context, ge(target[i], 0)) && !mergedDims(target[i]) &&
        !sizeWhereOperandIsValid(target[i]))
      maybeNegative.push_back(i);
  }
  std::string shown = "(";
  for (std::size_t i = 0; i < target.size(); ++i) shown += (i ? "," : "") + target[i].toString();
  shown += target.size() == 1 ? ",)" : ")";
  std::string sizeText = total.toString();
  std::string message = "cannot reshape array of size " + sizeText + " into shape " + shown;
  for (std::size_t i = 0; i < target.size(); ++i)
    if (i != unknown && std::find(maybeNegative.begin(), maybeNegative.end(), i) == maybeNegative.end())
      known.push_back(target[i]);
  Shape checked; // merged dims are sizes wherever x exists: nothing to require of them
  for (const Expr &d : known)
    if (!mergedDims(d)) checked.push_back(d);
  requireSizes(v, checked, "the new shape");
  if (maybeNegative.empty()) {
    Expr rest = product(known);
    if (!unknown) {
      // (A product h*_qN of a size from sizes compared as its value, d - _rN.)
      requireOr(v, eq(unfoldDefined(total), unfoldDefined(rest)), "the element count is kept (" + sizeText + " == " + rest.toString() + ")", message);
      return target;
    }
    if (rest.constantValue() == Integer(0)) {
      v.fail(message);
      return target;
    }
    std::optional<Expr> q = quotient(total, rest);
    if (!q) {
      // Not a polynomial: the size from sizes total // rest (Graph::dividedSize), where rest
      // divides total (its remainder is 0). Decided with their definition: the node's context
      // gains it, as a mask's node gains its size's bound.
      const std::optional<DividedSize> divided = dividedSize(total, rest);
      if (!divided)
        throw OpError("reshape: the -1 dimension would be " + operandText(total) + " / " + operandText(rest) +
                      ", and shapelab divides only sizes it knows are not negative; give the dimension");
      const DividedSize &parts = *divided;
      std::vector<Expr> reserved;
      addReserved(reserved, parameterNodes(total));
      for (const Expr &d : target) addReserved(reserved, parameterNodes(d));
      addReserved(reserved, parameterNodes(parts.quotient));
      addReserved(reserved, parameterNodes(parts.remainder));
      Validity before = std::move(v);
      v = Validity(*solver_, contextFor(reserved));
      v.absorb(before);
      Shape out = target;
      out[*unknown] = parts.quotient;
      if (!rest.isConstant()) requireOr(v, ge(rest, 1), "the known dimensions are not empty", message);
      requireOr(v, eq(parts.remainder, 0), "the element count " + sizeText + " is a multiple of " + rest.toString(), message);
      return out;
    }
    Shape out = target;
    out[*unknown] = *q;
    if (!rest.isConstant()) requireOr(v, ge(rest, 1), "the known dimensions are not empty", message);
    requireOr(v, definedness(*q), "the element count " + sizeText + " is a multiple of " + rest.toString(), message);
    return out;
  }
  Shape out = target;
  std::vector<Pred> someNegative;
  for (std::size_t k = 0; k < maybeNegative.size(); ++k) {
    const std::size_t j = maybeNegative[k];
    const Expr &e = target[j];
    Shape others = target;
    others.erase(others.begin() + std::ptrdiff_t(j));
    Expr rest = product(others);
    std::optional<Expr> q = quotient(total, rest);
    if (!q)
      throw OpError("reshape: the dimension " + e.toString() + " may be negative, and NumPy then infers it as " +
                    operandText(total) + " / " + operandText(rest) +
                    ", which is not an expression shapelab can represent; assume " + e.toString() +
                    " >= 0 or give the dimension");
    const Pred negative = lt(e, 0);
    someNegative.push_back(negative);
    out[j] = choose(context, negative, *q, e);
    requireOr(v, negative || le(e, Expr(maxArraySize())),
              "the dimension " + e.toString() + " is at most 2**63 - 1 where it is not negative (inferred)",
              "the dimension " + e.toString() + " is larger than 2**63 - 1", ObligationKind::Limit);
    requireOr(v, !negative || (ge(rest, 1) && definedness(*q)),
              "where " + e.toString() + " < 0 (inferred), the other dimensions are not empty and their product " +
                  rest.toString() + " divides " + sizeText,
              message);
    for (std::size_t l = 0; l < k; ++l)
      requireOr(v, !(negative && someNegative[l]),
                "at most one of " + target[maybeNegative[l]].toString() + " and " + e.toString() + " is negative",
                one);
  }
  const Expr count = product(target);
  requireOr(v, Pred::disjunction(someNegative) || eq(unfoldDefined(total), unfoldDefined(count)),
            "the element count is kept (" + sizeText + " == " + count.toString() + ") where no dimension is negative",
            message);
  return out;
}

const Node *Graph::reshape(const Node *x, const std::vector<Expr> &shape) {
  Node c = blank(OpKind::Reshape, "reshape", {x});
  c.exprs = shape;
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    n.shape = reshapeTarget(n.validity, n.validity.context(), x, shape);
    // Where every size is at least 1 the new shape has x's element count, which fits. An empty
    // array does not make any shape of count 0 possible: NumPy refuses to reshape np.empty(0)
    // to (0, 7, 1111**6), whose sizes other than 0 multiply past 2**63 - 1.
    bool mayBeZero = std::any_of(n.shape.begin(), n.shape.end(), [&](const Expr &d) {
      Range r = rangeOf(d, n.validity.context());
      return !r.low || *r.low < Integer(1);
    });
    if (mayBeZero) requireElementCountFits(n.validity, n.shape, "the result");
  });
}

const Node *Graph::expandDims(const Node *x, std::vector<int64_t> axes) {
  std::size_t rank = x->rank() + axes.size();
  std::vector<bool> isNew(rank);
  for (int64_t a : axes) {
    int64_t k = normalizeAxis(a, rank);
    if (isNew[k]) throw OpError("repeated axis");
    isNew[k] = true;
  }
  Shape target;
  for (std::size_t i = 0, j = 0; i < rank; ++i) target.push_back(isNew[i] ? Expr(1) : x->shape[j++]);
  Node c = blank(OpKind::ExpandDims, "expand_dims", {x});
  c.exprs = target;
  attr::NewAxes added;
  for (std::size_t i = 0; i < rank; ++i)
    if (isNew[i]) added.axes.push_back(int64_t(i));
  c.attrs = std::move(added);
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    n.shape = target;
  });
}

const Node *Graph::squeeze(const Node *x, std::optional<std::vector<int64_t>> axes) {
  std::vector<bool> drop(x->rank());
  if (axes) {
    for (int64_t a : *axes) {
      int64_t k = normalizeAxis(a, x->rank());
      if (drop[k]) throw OpError("repeated axis");
      drop[k] = true;
    }
  } else {
    for (std::size_t i = 0; i < x->rank(); ++i) {
      Decision d = solver_->decide(contextFor(reservedOf(blank(OpKind::Squeeze, "", {x}))), eq(x->shape[i], 1));
      if (d.answer == Answer::Proven) drop[i] = true;
      else if (d.answer != Answer::Refuted)
        throw OpError("squeeze without axis: whether dimension " + std::to_string(i) + " (" + dimText(x->shape[i]) +
                      ") is 1 depends on the sizes, so the result's rank would too; give axis=");
    }
  }
  Shape target;
  for (std::size_t i = 0; i < x->rank(); ++i)
    if (!drop[i]) target.push_back(x->shape[i]);
  Node c = blank(OpKind::Squeeze, "squeeze", {x});
  c.exprs = target;
  attr::Dropped dropped;
  for (std::size_t i = 0; i < x->rank(); ++i)
    if (drop[i]) dropped.axes.push_back(int64_t(i));
  c.attrs = std::move(dropped);
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    n.shape = target;
    for (std::size_t i = 0; i < x->rank(); ++i)
      if (drop[i])
        requireOr(n.validity, eq(x->shape[i], 1), "squeezed dimension " + std::to_string(i) + " is 1",
                  "cannot select an axis to squeeze out which has size not equal to one");
  });
}

const Node *Graph::broadcastTo(const Node *x, const Shape &shape) {
  Node c = blank(OpKind::BroadcastTo, "broadcast_to", {x});
  c.exprs = shape;
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    requireSizes(n.validity, shape, "the target shape");
    BroadcastResult r = shapelab::broadcastTo(*solver_, n.validity.context(), x->shape, shape);
    n.shape = shape;
    n.validity.absorb(r.validity);
  });
}

const Node *Graph::full(const Shape &shape, const Node *value, std::optional<DType> dtype) {
  Node c = blank(OpKind::Alloc, "full", {value});
  c.exprs = shape;
  c.attrs = attr::Fill{dtype};
  return make(std::move(c), [&](Node &n) {
    n.dtype = dtype ? *dtype : value->dtype;
    requireSizes(n.validity, shape, "the shape");
    BroadcastResult r = shapelab::broadcastTo(*solver_, n.validity.context(), value->shape, shape);
    n.validity.absorb(r.validity);
    n.shape = shape;
  });
}

const Node *Graph::arange(const Expr &start, const Expr &stop, int64_t step, DType dtype) {
  if (step == 0) throw OpError("arange's step must not be 0 (NumPy: division by zero)");
  Node c = blank(OpKind::Arange, "arange", {});
  c.exprs = {start, stop};
  c.attrs = attr::Steps{step, dtype};
  return make(std::move(c), [&](Node &n) {
    n.dtype = dtype;
    // NumPy takes Python integers as int64: each bound must fit.
    const Expr highest(maxArraySize()), lowest(-maxArraySize() - Integer(1));
    for (const auto &[bound, name] : {std::pair{start, "start"}, std::pair{stop, "stop"}})
      for (const Pred &fits : {ge(bound, lowest), le(bound, highest)})
        requireOr(n.validity, fits, std::string("arange's ") + name + " fits in int64", "Python int too large to convert to C long",
                  ObligationKind::Limit);
    // ceil(d / step) for the distance d the values run over, or 0 where d has the other sign.
    const Expr distance = step > 0 ? stop - start : start - stop;
    const Integer s = Integer::abs(Integer(step));
    n.shape = {smaller(n.validity.context(), Expr(0), floorDiv(distance + Expr(s - Integer(1)), s), false)};
    requireSizes(n.validity, n.shape, "the length");
  });
}

const Node *Graph::padIndex(const std::string &mode, const Expr &length, const Expr &before, const Expr &after, int64_t axis) {
  if (mode != "edge" && mode != "wrap" && mode != "symmetric" && mode != "reflect")
    throw OpError("pad(): mode '" + mode + "' has no source positions");
  Node c = blank(OpKind::PadIndex, mode, {});
  c.exprs = {length, before, after, Expr(axis)};
  return make(std::move(c), [&](Node &n) {
    n.dtype = DType::Int64;
    requireOr(n.validity, Pred::conjunction({ge(before, 0), ge(after, 0)}), "the pad widths of axis " + std::to_string(axis) + " are not negative",
              "index can't contain negative values");
    requireOr(n.validity, ge(length, 1) || (eq(before, 0) && eq(after, 0)), "axis " + std::to_string(axis) + " is not empty where it is padded",
              "can't extend empty axis " + std::to_string(axis) + " using modes other than 'constant' or 'empty'");
    n.shape = {before + length + after};
    requireSizes(n.validity, n.shape, "the padded length");
  });
}

const Node *Graph::repeatIndex(const Node *counts, const Expr &length) {
  if (counts->rank() > 1) throw OpError("object too deep for desired array");
  if (isFloat(counts->dtype) || counts->dtype == DType::UInt64) // counts cast to intp 'safe'ly
    throw OpError(std::string("Cannot cast array data from dtype('") + spelling(counts->dtype) + "') to dtype('int64') according to the rule 'safe'");
  Node c = blank(OpKind::RepeatIndex, "repeat", {counts});
  c.exprs = {length};
  return make(std::move(c), [&](Node &n) {
    n.dtype = DType::Int64;
    if (counts->rank() == 1) {
      const Expr &given = counts->shape[0];
      requireOr(n.validity, eq(given, length) || eq(given, 1), "repeat's counts number " + dimText(length) + " or 1",
                "operands could not be broadcast together with shape (" + dimText(length) + ",) (" + dimText(given) + ",)");
    }
    // Bool counts repeat each element at most once: the length is at most the axis's.
    n.dataSize = freshDataSize(n, counts->dtype == DType::Bool ? std::optional<Expr>(length) : std::nullopt, false);
    n.shape = {*n.dataSize};
  });
}

const Node *Graph::concatenate(const std::vector<const Node *> &xs, std::optional<int64_t> axisArg) {
  if (xs.empty()) throw OpError("need at least one array to concatenate");
  if (!axisArg) {
    std::vector<const Node *> flat;
    for (const Node *x : xs) flat.push_back(reshape(x, {Expr(-1)}));
    return concatenate(flat, 0);
  }
  std::size_t rank = xs[0]->rank();
  if (rank == 0) throw OpError("zero-dimensional arrays cannot be concatenated");
  for (std::size_t i = 1; i < xs.size(); ++i)
    if (xs[i]->rank() != rank)
      throw OpError("all the input arrays must have same number of dimensions, but the array at index 0 has " +
                    std::to_string(rank) + " dimension(s) and the array at index " + std::to_string(i) + " has " +
                    std::to_string(xs[i]->rank()) + " dimension(s)");
  int64_t axis = normalizeAxis(*axisArg, rank);
  Node c = blank(OpKind::Concatenate, "concatenate", xs);
  c.attrs = attr::Axis{axis};
  return make(std::move(c), [&](Node &n) {
    n.dtype = arrayResultType(xs);
    n.shape = xs[0]->shape;
    std::vector<Expr> parts;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      parts.push_back(xs[i]->shape[axis]);
      if (i == 0) continue;
      for (std::size_t d = 0; d < rank; ++d) {
        if (int64_t(d) == axis) continue;
        const Expr &a = xs[0]->shape[d], &b = xs[i]->shape[d];
        requireOr(n.validity, eq(a, b),
                  "dimension " + std::to_string(d) + " of array " + std::to_string(i) + " matches array 0",
                  "all the input array dimensions except for the concatenation axis must match exactly, but along dimension " +
                      std::to_string(d) + ", the array at index 0 has size " + dimText(a) + " and the array at index " +
                      std::to_string(i) + " has size " + dimText(b));
      }
    }
    n.shape[axis] = signedSum(parts);
    requireElementCountFits(n.validity, n.shape, "the result");
  });
}

const Node *Graph::stack(const std::vector<const Node *> &xs, int64_t axisArg) {
  if (xs.empty()) throw OpError("need at least one array to stack");
  std::size_t rank = xs[0]->rank();
  for (std::size_t i = 1; i < xs.size(); ++i)
    if (xs[i]->rank() != rank) throw OpError("all input arrays must have the same shape");
  int64_t axis = normalizeAxis(axisArg, rank + 1);
  Node c = blank(OpKind::Stack, "stack", xs);
  c.attrs = attr::Axis{axis};
  return make(std::move(c), [&](Node &n) {
    n.dtype = arrayResultType(xs);
    for (std::size_t i = 1; i < xs.size(); ++i)
      for (std::size_t d = 0; d < rank; ++d)
        requireOr(n.validity, eq(xs[0]->shape[d], xs[i]->shape[d]),
                  "dimension " + std::to_string(d) + " of array " + std::to_string(i) + " matches array 0",
                  "all input arrays must have the same shape");
    n.shape = xs[0]->shape;
    n.shape.insert(n.shape.begin() + axis, Expr(int64_t(xs.size())));
    requireElementCountFits(n.validity, n.shape, "the result");
  });
}

std::vector<const Node *> Graph::split(const Node *x, std::variant<Expr, std::vector<Expr>> how, int64_t axisArg) {
  if (x->rank() == 0) throw OpError("split of a 0-d array");
  int64_t axis = normalizeAxis(axisArg, x->rank());
  const Expr L = x->shape[axis];
  auto slice = [&](std::optional<Expr> a, std::optional<Expr> b) {
    std::vector<IndexEntry> entries(std::size_t(axis), IndexEntry{});
    entries.push_back({IndexEntry::Slice, a, b, 1});
    return index(x, entries);
  };
  std::vector<const Node *> parts;
  if (auto *sections = std::get_if<Expr>(&how)) {
    auto count = sections->constantValue();
    if (!count)
      throw OpError("split: the number of sections must be a constant (it is how many arrays split returns), not " +
                    sections->toString() + "; to cut at sizes, give indices: split(x, [i, j], axis)");
    if (*count <= Integer(0)) throw OpError("number sections must be larger than 0.");
    if (*count > Integer(4096)) throw OpError("split: at most 4096 sections");
    int64_t k = count->toInt64Checked();
    if (auto l = L.constantValue(); l && Integer::floorMod(*l, *count) != Integer(0))
      throw OpError("array split does not result in an equal division");
    // Part i is [i*L//k, (i+1)*L//k): total bounds; the division is an obligation of each part.
    for (int64_t i = 0; i < k; ++i) {
      std::vector<IndexEntry> entries(std::size_t(axis), IndexEntry{});
      entries.push_back({IndexEntry::Slice, floorDiv(L * Expr(i), *count), floorDiv(L * Expr(i + 1), *count), 1});
      parts.push_back(indexImpl(x, entries, nullptr, attr::Sections{k, axis}));
    }
    return parts;
  }
  const std::vector<Expr> &at = std::get<std::vector<Expr>>(how);
  std::optional<Expr> prev;
  for (std::size_t i = 0; i <= at.size(); ++i) {
    std::optional<Expr> next = i < at.size() ? std::optional<Expr>(at[i]) : std::nullopt;
    parts.push_back(slice(prev, next));
    prev = next;
  }
  return parts;
}

} // namespace shapelab::ops
