#include "shape/Broadcast.h"

#include <algorithm>

#include "shape/ArraySize.h"
#include "symbolic/Errors.h"
#include "symbolic/Evaluate.h"

namespace shapelab {

BroadcastMode parseBroadcastMode(const std::string &name) {
  if (name == "numpy") return BroadcastMode::Numpy;
  if (name == "static") return BroadcastMode::Static;
  throw UserError("broadcast mode must be 'numpy' or 'static', not '" + name + "'");
}

const char *spelling(BroadcastMode m) { return m == BroadcastMode::Numpy ? "numpy" : "static"; }

namespace {

const Integer kMaxElements = Integer(INT64_MAX);

std::string concreteToString(const std::vector<Integer> &s) {
  Shape e;
  for (auto &i : s) e.push_back(Expr(i));
  return toString(e);
}

std::string positionName(std::size_t i, std::size_t rank) {
  return "dimension " + std::to_string(int64_t(i) - int64_t(rank)) + " (axis " + std::to_string(i) + ")";
}

/// Many operands at one position give a conjunction of many pairwise disjunctions, which isl
/// can only take apart at a cost exponential in their number. Usually one small question
/// settles it: a pair that can fail gives a point where the whole conjunction fails, and the
/// context's own point (where all sizes are equal, e.g. all 0) is one where it holds; the exact
/// condition is then the conjunction itself. Returns nullopt when this does not settle it.
std::optional<Decision> decideManyByWitnesses(Solver &solver, const Context &context, const Pred &valid,
                                              const std::vector<Pred> &pairs) {
  constexpr std::size_t kFewPairs = 6; // below this, one isl question on the whole is cheap
  if (pairs.size() < kFewPairs || !context.consistencyProven()) return std::nullopt;
  std::optional<Assignment> violating;
  constexpr std::size_t kPairsAsked = 8; // a failing pair is usually among the first few
  for (std::size_t k = 0; k < pairs.size() && k < kPairsAsked && !violating; ++k) {
    Decision d = solver.decide(context, pairs[k]);
    if (d.answer == Answer::Refuted || d.answer == Answer::Depends) violating = d.violating;
    if (d.answer == Answer::Refuted) return Decision::refuted(*d.violating);
  }
  if (!violating) return std::nullopt;
  return dependsFromPoints(context, valid, {context.samplePoint()}, {*violating});
}

/// Distinct sizes at one position beyond which the linear forms below replace all pairs.
constexpr std::size_t kManyCandidates = 24;
/// Past that, the first few sizes still give pairs for the witness search.
constexpr std::size_t kPairedWhenMany = 8;

/// The size that stands for "above every array size": where the sizes obligation holds, every
/// dimension is at most 2**63 - 1, so no real size equals it.
Expr aboveEverySize() { return Expr(maxArraySize() + Integer(1)); }

/// "The sizes other than 1 agree" in size linear in k: the largest of them is at most the
/// smallest (a 1 counts as 0 in the largest and as aboveEverySize() in the smallest). Exact
/// together with the sizes obligation.
/// Each size with a 1 read as `instead` (0 where the largest is taken, aboveEverySize() where the
/// smallest is).
std::vector<Expr> onesReadAs(const std::vector<Expr> &sizes, const Expr &instead) {
  std::vector<Expr> out;
  for (const Expr &d : sizes) out.push_back(select(eq(d, Expr(1)), instead, d));
  return out;
}

Pred nonOnesAgree(const std::vector<Expr> &sizes) {
  return le(max(onesReadAs(sizes, Expr(0))), min(onesReadAs(sizes, aboveEverySize())));
}

/// Static mode: all sizes equal, as max <= min.
Pred allEqual(const std::vector<Expr> &sizes) { return le(max(sizes), min(sizes)); }

/// The first of `sizes` other than 1, written as choices: `c if b == 1 else b` for (b, c) (where
/// they broadcast: b unless it is 1, then c); 1 for no sizes.
Expr firstOtherThanOne(const std::vector<Expr> &sizes) {
  if (sizes.empty()) return Expr(1);
  Expr result = sizes.back();
  for (std::size_t a = sizes.size() - 1; a-- > 0;) result = select(eq(sizes[a], Expr(1)), result, sizes[a]);
  return result;
}

/// NumPy's result where nonOnesAgree holds: 0 when a size is 0 (then every size other than 1 is
/// 0), otherwise the largest size other than 1, or 1 when all are 1.
Expr commonNonOne(const std::vector<Expr> &sizes) {
  std::vector<Expr> largest = onesReadAs(sizes, Expr(0));
  largest.push_back(Expr(1));
  return select(eq(min(sizes), Expr(0)), Expr(0), max(largest));
}

/// NumPy mode: a size `a` that is what broadcasting c with b gave (`b if c == 1 else c`, the
/// result below) beside c or b again. Where c is 1, a is b; elsewhere a is c. So
///   - beside c, a alone says the same (c adds nothing: it is 1 or equal to a);
///   - beside b, c says the same in a's place (where c is 1, a is b itself).
/// Where every size is defined (the sizes obligation, kept on the sizes as given), the sizes
/// other than 1 then agree exactly when they did, and the result is the same; with two
/// candidates it is the very same expression, a. Without this, `x = x * y` repeated nests the
/// size one level deeper each time (2^k nodes written out after k statements) and adds a
/// weaker copy of the first statement's check.
void absorbBroadcastSizes(std::vector<Expr> &candidates) {
  auto position = [&](const Expr &e) { return std::size_t(std::find(candidates.begin(), candidates.end(), e) - candidates.begin()); };
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const ExprNode *a = candidates[i].node();
    if (a->kind != ExprKind::Select) continue;
    const Expr b = a->operands[0], c = a->operands[1];
    const std::size_t atB = position(b), atC = position(c);
    if ((atB == candidates.size() && atC == candidates.size()) || a->condition != eq(c, Expr(1))) continue;
    if (atC != candidates.size()) {
      candidates.erase(candidates.begin() + std::ptrdiff_t(atC));
    } else {
      candidates.erase(candidates.begin() + std::ptrdiff_t(i));
      // c just before b (the order changes the result only where broadcasting fails): with two
      // candidates the result is then `b if c == 1 else c` again, whichever operand came first.
      candidates.insert(candidates.begin() + std::ptrdiff_t(atB < i ? atB : atB - 1), c);
    }
    i = std::size_t(-1); // what is left may hold another such size
  }
}

} // namespace

Decision oneness(Solver &solver, const Context &context, Expr d) {
  return solver.decide(context, eq(d, Expr(1)));
}

std::optional<std::vector<Integer>> broadcastConcrete(const std::vector<std::vector<Integer>> &shapes,
                                                      std::string &message, bool resultCount) {
  for (const auto &s : shapes)
    if (std::string e = rankError(s.size()); !e.empty()) {
      message = e;
      return std::nullopt;
    }
  for (std::size_t j = 0; j < shapes.size(); ++j) {
    for (const Integer &d : shapes[j]) {
      if (d.sign() < 0) {
        message = "negative dimensions are not allowed";
        return std::nullopt;
      }
      if (d > kMaxElements) {
        message = "Maximum allowed dimension exceeded: arg " + std::to_string(j) + " has a dimension " +
                  d.toString() + " above 2**63 - 1";
        return std::nullopt;
      }
    }
    if (nonZeroProduct(shapes[j]) > kMaxElements) {
      message = tooBigToExist("arg " + std::to_string(j) + " with shape " + concreteToString(shapes[j]), shapes[j]);
      return std::nullopt;
    }
  }
  std::size_t rank = 0;
  for (auto &s : shapes) rank = std::max(rank, s.size());
  std::vector<Integer> out(rank, Integer(1));
  // NumPy's PyArray_Broadcast: left to right over result axes; the first operand with a size
  // other than 1 sets the axis, and the first disagreeing operand is named with it.
  for (std::size_t i = 0; i < rank; ++i) {
    std::size_t source = 0;
    for (std::size_t j = 0; j < shapes.size(); ++j) {
      int64_t k = int64_t(i) + int64_t(shapes[j].size()) - int64_t(rank);
      if (k < 0) continue;
      const Integer &d = shapes[j][k];
      if (d.isOne()) continue;
      if (out[i].isOne()) {
        out[i] = d;
        source = j;
      } else if (out[i] != d) {
        message = "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                  "between arg " + std::to_string(source) + " with shape " +
                  concreteToString(shapes[source]) + " and arg " + std::to_string(j) +
                  " with shape " + concreteToString(shapes[j]) + ".";
        return std::nullopt;
      }
    }
  }
  if (resultCount && nonZeroProduct(out) > kMaxElements) {
    message = "broadcast dimensions too large: " + tooBigToExist("the result shape " + concreteToString(out), out);
    return std::nullopt;
  }
  return out;
}

BroadcastResult broadcast(Solver &solver, const Context &context, const std::vector<Shape> &shapes,
                          BroadcastMode mode, bool requireResultCount,
                          const std::vector<std::string> *positionNames) {
  BroadcastResult r{{}, Validity(solver, context), ""};
  if (!ranksFit(r.validity, shapes)) {
    r.message = r.validity.message();
    return r;
  }
  for (const Shape &s : shapes) r.validity.mention(s);
  // Concrete shapes: NumPy's algorithm and messages, no solver. Both modes agree here, since a
  // constant 1 is provably 1.
  std::vector<std::vector<Integer>> concrete;
  for (const Shape &s : shapes) {
    auto v = concreteValues(s);
    if (!v) break;
    concrete.push_back(*v);
  }
  if (concrete.size() == shapes.size()) {
    auto out = broadcastConcrete(concrete, r.message, requireResultCount);
    if (!out) {
      r.validity.fail(r.message);
      return r;
    }
    for (auto &i : *out) r.shape.push_back(Expr(i));
    r.message = r.validity.message();
    return r;
  }

  for (std::size_t j = 0; j < shapes.size(); ++j)
    if (!constantDimensionsFit(r.validity, shapes[j], "arg " + std::to_string(j))) {
      r.message = r.validity.message();
      return r;
    }
  std::size_t rank = 0;
  for (auto &s : shapes) rank = std::max(rank, s.size());
  auto named = [&](std::size_t i) {
    return positionNames && i < positionNames->size() ? (*positionNames)[i] : positionName(i, rank);
  };
  // The operands need no count obligation of their own: where broadcasting holds, each operand
  // size is 1 or the result's, so the operand's sizes other than 0 multiply to at most the
  // result's. (An empty result does not excuse an operand: `(F8, 1)` with `(7, 1, 1111**6)` at
  // F8 = 0 is refused, as NumPy refuses to make the second operand.)
  // Only an operand whose constant sizes alone are too many is named, as NumPy names it.
  for (std::size_t j = 0; j < shapes.size(); ++j) {
    Integer constant(1);
    for (const Expr &d : shapes[j])
      if (auto v = d.constantValue(); v && !v->isZero()) constant *= *v;
    if (constant > kMaxElements) {
      requireElementCountFits(r.validity, shapes[j], "arg " + std::to_string(j), ObligationKind::Existence);
      r.message = r.validity.message();
      return r;
    }
  }
  for (std::size_t i = 0; i < rank; ++i) {
    std::vector<Expr> dims;
    for (const Shape &s : shapes) {
      int64_t k = int64_t(i) + int64_t(s.size()) - int64_t(rank);
      if (k >= 0) dims.push_back(s[k]);
    }
    // The sizes in the structural order, not the operands': a broadcast's dims and obligations
    // are then the same whatever the order of its operands, so that `y + x` has the very dims of
    // `x + y`, and a rewrite that swaps operands changes no reader's shape (written in operand
    // order, the choice `m if n == 1 else n` became `n if m == 1 else m`, equal only where they
    // broadcast, and each reader was derived and decided again). Simplest first (constants,
    // then parameters by name, then expressions): the result is `n if m == 1 else m`, and a
    // size that is never 1 (a constant) is the result alone. In that order the dims built on
    // a broadcast stay smaller: a program of 10^5 nodes was built in a third of the time the
    // opposite order took, and rewritten in half.
    std::sort(dims.begin(), dims.end(), [](const Expr &a, const Expr &b) { return structuralCompare(a, b) < 0; });
    // The operands are given: their dimensions' limits are assumed (Existence); being sizes
    // (>= 0, defined) is part of the position's shape obligation.
    ArraySizeObligations given = arraySizeObligations(context, dims);
    Pred sizes = given.sizes;
    if (!given.limits.isTrue())
      r.validity.require(given.limits, named(i) + ": the operands' dimensions are at most 2**63 - 1", ObligationKind::Existence);
    // Distinct sizes that may differ from 1; in static mode only provable 1s drop out. When
    // the solver cannot tell whether a size is provably 1, static mode's verdict is unknown.
    // That is asked only where two distinct sizes other than the constant 1 meet: a position
    // with one such size d is d's whether or not d is provably 1 (the position is then 1 =
    // d), and valid where the sizes are.
    std::vector<Expr> notOne; // the distinct sizes other than the constant 1, in that order
    for (Expr d : dims)
      if (!(d.constantValue() && d.constantValue()->isOne()) &&
          std::find(notOne.begin(), notOne.end(), d) == notOne.end())
        notOne.push_back(d);
    std::vector<Expr> candidates;
    std::optional<Decision> undecidedOne;
    for (Expr d : notOne) {
      bool one = false;
      if (mode == BroadcastMode::Static && !d.isConstant() && notOne.size() >= 2) {
        Decision o = oneness(solver, context, d);
        one = o.answer == Answer::Proven;
        if (o.answer == Answer::Unknown && !undecidedOne) undecidedOne = o;
      }
      if (!one) candidates.push_back(d);
    }
    if (undecidedOne) {
      // Static mode's rule depends on what is provable, which is undecided here: the position
      // is unknown, and at run time NumPy's rule is the weakest check that can be made.
      std::vector<Pred> numpyPairs;
      for (std::size_t a = 0; a < notOne.size(); ++a)
        for (std::size_t b = a + 1; b < notOne.size(); ++b)
          numpyPairs.push_back(eq(notOne[a], Expr(1)) || eq(notOne[b], Expr(1)) ||
                               eq(notOne[a], notOne[b]));
      Pred weakest = Pred::conjunction({sizes, Pred::conjunction(numpyPairs)});
      Decision d;
      d.answer = Answer::Unknown;
      d.residual = weakest;
      d.reason = "static mode needs to know whether a size is provably 1, and that is undecided: " +
                 undecidedOne->reason;
      r.validity.record(weakest, named(i) + " broadcasts", d);
      r.shape.push_back(firstOtherThanOne(notOne));
      continue;
    }
    if (mode == BroadcastMode::Numpy) absorbBroadcastSizes(candidates);
    // Two sizes that are provably equal under the context need no broadcasting at all: one
    // question settles both validity and the result.
    if (candidates.size() == 2 &&
        solver.decide(context, eq(candidates[0], candidates[1])).answer == Answer::Proven)
      candidates.pop_back();
    // Pairwise conditions grow as k² in k distinct sizes; past a few, the linear form says the
    // same (the pairs of the first few still serve the witness search).
    bool many = candidates.size() > kManyCandidates;
    std::vector<Pred> pairs;
    std::size_t paired = many ? kPairedWhenMany : candidates.size();
    for (std::size_t a = 0; a < paired; ++a)
      for (std::size_t b = a + 1; b < paired; ++b) {
        Expr x = candidates[a], y = candidates[b];
        if (mode == BroadcastMode::Static)
          pairs.push_back(eq(x, y));
        else
          pairs.push_back(eq(x, Expr(1)) || eq(y, Expr(1)) || eq(x, y));
      }
    Pred agree = !many ? Pred::conjunction(pairs)
                       : mode == BroadcastMode::Static ? allEqual(candidates) : nonOnesAgree(candidates);
    Pred valid = Pred::conjunction({sizes, agree});
    if (!valid.isTrue()) {
      std::string what = named(i) + " broadcasts";
      if (auto d = decideManyByWitnesses(solver, context, valid, pairs))
        r.validity.record(valid, what, *d);
      else
        r.validity.require(valid, what);
    }
    // The result: the first size other than 1 (valid points make all such sizes equal).
    Expr result(1);
    if (many && mode == BroadcastMode::Numpy) {
      result = commonNonOne(candidates);
    } else if (candidates.size() == 1 || (!candidates.empty() && mode == BroadcastMode::Static)) {
      result = candidates.front();
    } else if (!candidates.empty()) {
      // The sizes in order that may differ from 1, up to the first that always does: sizes
      // that are always 1 drop out (whichever place the order gives them), and those after one
      // that never is cannot set the result.
      std::vector<Expr> chain;
      for (const Expr &d : candidates) {
        Decision isNotOne = solver.decide(context, ne(d, Expr(1)));
        if (isNotOne.answer == Answer::Refuted) continue;
        chain.push_back(d);
        if (isNotOne.answer == Answer::Proven) break;
      }
      result = firstOtherThanOne(chain);
    }
    r.shape.push_back(result);
  }
  if (requireResultCount) {
    // A result that is one of the operands' shapes ((n, m) with (1,)) is as large as an array
    // that is given: its count fits as that operand's does (assumed, not a limit to report).
    const bool given = std::any_of(shapes.begin(), shapes.end(), [&](const Shape &s) { return s == r.shape; });
    requireElementCountFits(r.validity, r.shape, "the result", given ? ObligationKind::Existence : ObligationKind::Limit);
  }
  r.message = r.validity.message();
  return r;
}

BroadcastResult broadcastTo(Solver &solver, const Context &context, const Shape &from,
                            const Shape &target) {
  BroadcastResult r{target, Validity(solver, context), ""};
  if (!ranksFit(r.validity, {from, target})) {
    r.message = r.validity.message();
    return r;
  }
  r.validity.mention(from);
  r.validity.mention(target);
  auto f = concreteValues(from), t = concreteValues(target);
  if (from.size() > target.size()) {
    r.message = target.empty() ? "cannot broadcast a non-scalar to a scalar array"
                               : "input operand has more dimensions than allowed by the axis remapping";
    r.validity.fail(r.message);
    return r;
  }
  if (f && t) {
    for (auto &d : *t)
      if (d.sign() < 0) {
        r.validity.fail(r.message = "negative dimensions are not allowed");
        return r;
      }
    if (nonZeroProduct(*t) > kMaxElements) {
      r.validity.fail(r.message = tooBigToExist("the target shape " + toString(target), *t));
      return r;
    }
    for (std::size_t i = 0; i < f->size(); ++i) {
      const Integer &a = (*f)[i], &b = (*t)[target.size() - f->size() + i];
      if (!(a == b || a.isOne())) {
        std::string fs = toString(from), ts = toString(target);
        fs.erase(std::remove(fs.begin(), fs.end(), ' '), fs.end());
        ts.erase(std::remove(ts.begin(), ts.end(), ' '), ts.end());
        r.message = "operands could not be broadcast together with remapped shapes "
                    "[original->remapped]: " + fs + "  and requested shape " + ts;
        r.validity.fail(r.message);
        return r;
      }
    }
    r.message = r.validity.message();
    return r;
  }
  if (!constantDimensionsFit(r.validity, from, "the array") ||
      !constantDimensionsFit(r.validity, target, "the target shape")) {
    r.message = r.validity.message();
    return r;
  }
  for (std::size_t i = 0; i < target.size(); ++i) {
    Expr b = target[i];
    int64_t k = int64_t(i) + int64_t(from.size()) - int64_t(target.size());
    // The target's dimensions are the result's (their limits are limits); the array's are given.
    ArraySizeObligations result = arraySizeObligations(context, {b});
    std::vector<Pred> parts{result.sizes};
    if (!result.limits.isTrue())
      r.validity.require(result.limits, positionName(i, target.size()) + " of the target is at most 2**63 - 1", ObligationKind::Limit);
    if (k >= 0) {
      Expr a = from[k];
      ArraySizeObligations given = arraySizeObligations(context, {a});
      parts.push_back(given.sizes);
      if (!given.limits.isTrue())
        r.validity.require(given.limits, positionName(i, target.size()) + " of the array is at most 2**63 - 1", ObligationKind::Existence);
      parts.push_back(eq(a, b) || eq(a, Expr(1)));
    }
    Pred valid = Pred::conjunction(parts);
    if (!valid.isTrue()) r.validity.require(valid, positionName(i, target.size()) + " broadcasts to the target");
  }
  requireElementCountFits(r.validity, from, "the array", ObligationKind::Existence);
  requireElementCountFits(r.validity, target, "the target shape");
  r.message = r.validity.message();
  return r;
}

} // namespace shapelab
