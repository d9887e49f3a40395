#include "symbolic/Range.h"

#include "symbolic/Errors.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <unordered_map>
#include <vector>

namespace shapelab {

namespace {

/// An end of an interval: a finite integer, or an infinity of the sign `inf`.
struct End {
  int inf = 0; // -1: minus infinity, +1: plus infinity, 0: the finite value `v`
  Integer v;
};

/// Ends beyond this many bits are widened (a low end down, a high end up): still sound, and the
/// arithmetic stays cheap however deep the expression.
constexpr std::size_t kMaxBits = 2048;

int signOf(const End &e) { return e.inf ? e.inf : e.v.sign(); }

bool less(const End &a, const End &b) {
  if (a.inf != b.inf) return a.inf < b.inf;
  return a.inf == 0 && a.v < b.v;
}

/// `e` as a low end: a value too large to carry becomes minus infinity, or 0 when positive.
End asLow(End e) {
  if (e.inf == 0 && e.v.bitLength() > kMaxBits) return e.v.sign() < 0 ? End{-1, 0} : End{0, 0};
  return e;
}
End asHigh(End e) {
  if (e.inf == 0 && e.v.bitLength() > kMaxBits) return e.v.sign() > 0 ? End{1, 0} : End{0, 0};
  return e;
}

End add(const End &a, const End &b) {
  // Never called with opposite infinities: both are low ends or both high ends.
  if (a.inf) return a;
  if (b.inf) return b;
  return End{0, a.v + b.v};
}

/// The product of two ends of intervals of finite values: zero times an unbounded end is zero.
End mul(const End &a, const End &b) {
  int sa = signOf(a), sb = signOf(b);
  if (sa == 0 || sb == 0) return End{0, 0};
  if (a.inf || b.inf) return End{sa * sb, 0};
  return End{0, a.v * b.v};
}

struct Bounds {
  End low{-1, 0}, high{1, 0};
};

Bounds point(const Integer &v) { return Bounds{End{0, v}, End{0, v}}; }

Bounds sum(const Bounds &a, const Bounds &b) {
  return Bounds{asLow(add(a.low, b.low)), asHigh(add(a.high, b.high))};
}

Bounds product(const Bounds &a, const Bounds &b) {
  End c[4] = {mul(a.low, b.low), mul(a.low, b.high), mul(a.high, b.low), mul(a.high, b.high)};
  Bounds r{c[0], c[0]};
  for (const End &e : c) {
    if (less(e, r.low)) r.low = e;
    if (less(r.high, e)) r.high = e;
  }
  return Bounds{asLow(r.low), asHigh(r.high)};
}

End power(const End &e, uint32_t k) {
  if (e.inf) return End{(k % 2 == 0) ? 1 : e.inf, 0};
  if (e.v.bitLength() * k > kMaxBits) return End{(k % 2 == 0 || e.v.sign() > 0) ? 1 : -1, 0};
  return End{0, Integer::pow(e.v, k)};
}

Bounds power(const Bounds &a, uint32_t k) {
  if (k == 1) return a;
  End lo = power(a.low, k), hi = power(a.high, k);
  if (k % 2 == 1) return Bounds{asLow(lo), asHigh(hi)};
  if (signOf(a.low) >= 0) return Bounds{asLow(lo), asHigh(hi)};
  if (signOf(a.high) <= 0) return Bounds{asLow(hi), asHigh(lo)};
  return Bounds{End{0, 0}, asHigh(less(lo, hi) ? hi : lo)};
}

End floorDivEnd(const End &e, const Integer &d) {
  if (e.inf) return End{d.sign() > 0 ? e.inf : -e.inf, 0};
  return End{0, Integer::floorDiv(e.v, d)};
}

/// Parameter intervals narrower than the context's, inside one branch of a choice.
using Overrides = std::vector<std::pair<std::string, Context::Interval>>;

/// `narrowed` put into `into`: replacing the parameter's interval there, or added.
void narrowInto(Overrides &into, const std::pair<std::string, Context::Interval> &narrowed) {
  auto at = std::find_if(into.begin(), into.end(), [&](const auto &o) { return o.first == narrowed.first; });
  if (at != into.end()) at->second = narrowed.second;
  else into.push_back(narrowed);
}

/// What a choice's condition says about its parameters on one side: nothing (`known` empty), or
/// that the side is never taken in the box (`never`), or narrower intervals for some parameters
/// (each parameter once).
struct Refinement {
  bool never = false;
  Overrides known;
};

/// A comparison read as a*x + k OP 0 over one parameter x (x is kept alive by the comparison);
/// nullopt when it does not read so.
std::optional<OneParameterForm> oneParameter(const PredNode *p) {
  if (p->kind != PredKind::Compare) return std::nullopt;
  return differenceInOneParameter(p->lhs, p->rhs);
}

using IntervalOf = std::function<Context::Interval(const std::string &)>;
/// What `cond` with truth `truth` says of single parameters: a comparison a*x + k OP 0 bounds x;
/// a conjunction that holds (or a disjunction that fails) says what each of its parts says, one
/// after the other (a part read with the intervals the earlier parts left). `interval` gives
/// each parameter's interval before the condition. Only what follows from the condition is
/// kept: a part that says nothing is passed over.
Refinement refineParameter(const Pred &cond, bool truth, const IntervalOf &interval) {
  const PredNode *p = cond.node();
  while (p->kind == PredKind::Not) {
    p = p->children[0].node();
    truth = !truth;
  }
  if ((p->kind == PredKind::And && truth) || (p->kind == PredKind::Or && !truth)) {
    Refinement all;
    const IntervalOf current = [&](const std::string &x) {
      for (const auto &[y, iv] : all.known)
        if (y == x) return iv;
      return interval(x);
    };
    for (const Pred &c : p->children) {
      Refinement r = refineParameter(c, truth, current);
      if (r.never) return Refinement{true, {}};
      for (const auto &narrowed : r.known) narrowInto(all.known, narrowed);
    }
    return all;
  }
  const std::optional<OneParameterForm> one = oneParameter(p);
  if (!one) return {};
  const ExprNode *x = one->x;
  const Integer &a = one->a, &k = one->k;
  // a*x OP t, with t = -k; over the integers, > and < are >= and <= moved by one.
  Integer t = -k;
  auto ceilDiv = [](const Integer &u, const Integer &v) { return -Integer::floorDiv(-u, v); };
  std::optional<Integer> low, high;
  Context::Interval iv = interval(x->name);
  switch (truth ? p->op : negated(p->op)) {
  case CompareOp::GT: t += Integer(1); [[fallthrough]];
  case CompareOp::GE: (a.sign() > 0 ? low : high) = a.sign() > 0 ? ceilDiv(t, a) : Integer::floorDiv(t, a); break;
  case CompareOp::LT: t -= Integer(1); [[fallthrough]];
  case CompareOp::LE: (a.sign() > 0 ? high : low) = a.sign() > 0 ? Integer::floorDiv(t, a) : ceilDiv(t, a); break;
  case CompareOp::EQ:
    if (!Integer::floorMod(t, a).isZero()) return Refinement{true, {}};
    low = high = Integer::floorDiv(t, a);
    break;
  case CompareOp::NE: {
    // x != v moves an end of the interval that is v (n != 0 with n >= 0 is n >= 1).
    if (!Integer::floorMod(t, a).isZero()) return {};
    const Integer v = Integer::floorDiv(t, a);
    if (v == iv.low) low = v + Integer(1);
    else if (iv.high && v == *iv.high) high = v - Integer(1);
    else return {};
    break;
  }
  }
  if (low && *low > iv.low) iv.low = *low;
  if (high && (!iv.high || *high < *iv.high)) iv.high = *high;
  if (iv.high && *iv.high < iv.low) return Refinement{true, {}};
  return Refinement{false, {{x->name, iv}}};
}

Range toRange(const Bounds &b) {
  Range r;
  if (!b.low.inf) r.low = b.low.v;
  if (!b.high.inf) r.high = b.high.v;
  return r;
}

/// The range of `n` kept with the context, or `compute()` kept there now (rangeOf's whole
/// expressions and Walk's atoms share the memo: both are a full-budget walk of the node).
template <class Compute> Range remembered(const Context &context, const ExprNode *n, Compute compute) {
  detail::RangeMemo *memo = context.rangeMemo();
  if (!memo) return compute();
  {
    std::lock_guard<std::mutex> guard(memo->lock);
    if (auto it = memo->entries.find(n); it != memo->entries.end()) return it->second.second;
  }
  Range r = compute();
  std::lock_guard<std::mutex> guard(memo->lock);
  if (memo->entries.size() >= detail::RangeMemo::kMaxEntries) memo->entries.clear();
  memo->entries.emplace(n, std::make_pair(Expr(n), r));
  return r;
}

std::atomic<uint64_t> walksMade{0}; // rangeWalksMade()

class Walk {
public:
  explicit Walk(const Context &context, Overrides overrides = {}, int budget = 64)
      : context_(context), overrides_(std::move(overrides)), budget_(budget) {
    walksMade.fetch_add(1, std::memory_order_relaxed);
  }

  Bounds of(const ExprNode *n) {
    // What a move walks is remembered apart (memo_[1]), so that a node met again outside a move
    // has the bounds a walk outside moves gives it.
    auto &memo = memo_[moving_ > 0];
    if (auto it = memo.find(n); it != memo.end()) return it->second;
    // An atom met while a term is moved (distributedOver) is walked here, under this walk's
    // budget, not as a walk of its own: a move makes atoms the expression did not have (the
    // definedness guard of each exact division that cancels out, and quotients of quotients),
    // and each walk of its own, with a full budget, makes more. Over k chained exact divisions
    // (k*2**70/171/171771/71/171/17167 beside another dim, whose element count is bounded) that
    // was 86 walks for k = 2, 1,098 for k = 3 and 8,894 for k = 5.
    Bounds b = overrides_.empty() && moving_ == 0 && isAtom(n) ? shared(n) : compute(n);
    memo.emplace(n, b);
    return b;
  }

  /// Bounds of an expression made during the walk, kept alive with the memo (a node's address
  /// must not be reused for another while its entry is there).
  Bounds ofKept(Expr e) {
    const ExprNode *n = e.node();
    kept_.push_back(std::move(e));
    return of(n);
  }

  /// Calls `use` with a walk of the box narrowed to where `cond` has truth `truth`, when the
  /// condition bounds one parameter, and returns true; returns false without calling it
  /// otherwise. `never` is set when no point of the box gives `cond` that truth. A narrowed box
  /// is a fresh walk (its memo does not carry over): each one spends the budget, so nested
  /// narrowing cannot multiply the work without bound. Where every point of the box gives
  /// `cond` that truth (n - 1 < 0 false where n >= 1), the box would not shrink: nothing is
  /// spent and false is returned, so that callers go on in this walk — a choice's side is its
  /// value here, and a cut that leaves the box whole splits nothing.
  template <class Use> bool narrowedTo(const Pred &cond, bool truth, bool &never, Use use) {
    Refinement r = refine(cond, truth);
    never = r.never;
    if (r.never || r.known.empty() || budget_ == 0) return false;
    if (std::all_of(r.known.begin(), r.known.end(), [&](const auto &known) {
          const Context::Interval now = interval(known.first);
          return known.second.low == now.low && known.second.high == now.high;
        }))
      return false;
    --budget_;
    Overrides narrower = overrides_;
    for (const auto &known : r.known) narrowInto(narrower, known);
    Walk inner(context_, std::move(narrower), budget_);
    inner.depth_ = depth_ + 1;
    use(inner);
    budget_ = inner.budget_;
    return true;
  }

  /// How many narrowings this walk's box is below the context's own.
  int depth() const { return depth_; }

private:
  /// A min, max, choice, quotient or remainder: what sums (the walk's own and the ones its
  /// moves make) are built from.
  static bool isAtom(const ExprNode *n) {
    switch (n->kind) {
    case ExprKind::Min: case ExprKind::Max: case ExprKind::Select: case ExprKind::FloorDiv:
    case ExprKind::ExactDiv: case ExprKind::Mod: return true;
    default: return false;
    }
  }

  /// The bounds of an atom over the whole box, as a walk of its own with the full budget finds
  /// them, kept with the context: each atom is walked once per context however many shapes and
  /// questions hold it (a slice of a slice repeats its operand's clipped bounds in every
  /// question on it), and its bounds do not depend on which walk met it first or on the budget
  /// that walk had left. Sums are walked by the walk that meets them, under its budget, and so
  /// is every atom met inside a move (see of()): only atoms met outside moves get walks of their
  /// own, and each of those is an atom of the expression asked about or of an atom's own walk,
  /// so the atoms walked once each bound the work.
  Bounds shared(const ExprNode *n) {
    return fromRange(remembered(context_, n, [&] {
      Walk own(context_);
      return toRange(own.compute(n));
    }));
  }

  static Bounds fromRange(const Range &r) {
    Bounds b;
    if (r.low) b.low = End{0, *r.low};
    if (r.high) b.high = End{0, *r.high};
    return b;
  }

  Bounds compute(const ExprNode *n) {
    switch (n->kind) {
    case ExprKind::Constant: return point(n->value);
    case ExprKind::Param: {
      Context::Interval iv = interval(n->name);
      Bounds b{End{0, iv.low}, End{1, 0}};
      if (iv.high) b.high = End{0, *iv.high};
      return b;
    }
    case ExprKind::Sum: {
      if (auto b = distributed(n)) return *b;
      Bounds total = sum(point(n->constantTerm), termsDividedBy(n, nullptr));
      // A shared parameter x: the sum is also its constant plus x times the rest divided by x.
      // m*n - n is n*(m - 1), at least 0 under m >= 1, where the plain intervals of m*n and -n
      // say nothing (they lose that both terms move with n). The quotient is also bounded as an
      // expression of its own, so that its terms are compared with each other as any sum's are
      // (distributed): m*n - m*(0 if n - 1 < 0 else n - 1) is m*(n - (0 if n - 1 < 0 else n - 1)),
      // and the quotient is n where n <= 0 and 1 elsewhere.
      if (const ExprNode *x = commonParameter(n)) {
        Bounds q = termsDividedBy(n, x);
        try {
          q = meet(q, ofKept(quotientBy(n, x)));
        } catch (const InputTooLarge &) {
          // the quotient is too large to write out: the terms' own bounds stay
        }
        total = meet(total, sum(point(n->constantTerm), product(of(x), q)));
      }
      return total;
    }
    case ExprKind::FloorDiv: case ExprKind::ExactDiv: {
      // An exact quotient is one of the floor quotients' values.
      Bounds x = of(n->operands[0].node());
      const Integer &d = n->value;
      End a = floorDivEnd(x.low, d), b = floorDivEnd(x.high, d);
      return d.sign() > 0 ? Bounds{a, b} : Bounds{b, a};
    }
    case ExprKind::Mod: {
      const Integer &d = n->value;
      Bounds x = of(n->operands[0].node());
      // x % d is x itself when x already lies in [0, d - 1] (d > 0).
      if (d.sign() > 0 && signOf(x.low) >= 0 && !x.high.inf && x.high.v < d) return x;
      return d.sign() > 0 ? Bounds{End{0, 0}, End{0, d - 1}} : Bounds{End{0, d + 1}, End{0, 0}};
    }
    case ExprKind::Min: case ExprKind::Max: {
      Bounds r = of(n->operands[0].node());
      for (std::size_t i = 1; i < n->operands.size(); ++i)
        r = extreme(r, of(n->operands[i].node()), n->kind == ExprKind::Min);
      return r;
    }
    case ExprKind::Select: return choice(n->condition, n->operands[0], n->operands[1]);
    }
    return Bounds{};
  }

  /// Bounds of a sum that has a min, max, choice or (with coefficient 1 or -1) quotient among
  /// its terms, found by moving the rest of the sum into each operand: n - min(2, n) is
  /// max(n - 2, n - n), whose operands' intervals keep what the plain interval of the sum loses
  /// (n against itself: [-2, ...] instead of [0, ...]). Bounded by a budget per walk (each level
  /// may double the work). Each such term gives bounds of its own, all true; their intersection
  /// is kept (which term keeps the correlation depends on the sum: -min(1, z) + min(2, z) is
  /// bounded below by 0 when the first term moves into the second, not the other way round).
  std::optional<Bounds> distributed(const ExprNode *n) {
    std::optional<Bounds> best;
    // First the terms with an operand that is another term's atom: moving the rest into them
    // cancels that atom (z - min(1, z) is max(z - 1, 0)), which the budget should reach first.
    auto atomOf = [](const Term &t) { return t.monomial.size() == 1 ? t.monomial[0].first.node() : nullptr; };
    auto cancels = [&](const Term &t) {
      const ExprNode *a = atomOf(t);
      if (!a) return false;
      for (const Expr &o : a->operands)
        for (const Term &u : n->terms)
          if (&u != &t && atomOf(u) == o.node()) return true;
      return false;
    };
    auto movable = [&](const Term &t) {
      if (t.monomial.size() != 1 || t.monomial[0].second != 1) return false;
      const ExprNode *a = t.monomial[0].first.node();
      if (a->kind == ExprKind::Min || a->kind == ExprKind::Max || a->kind == ExprKind::Select) return true;
      // A quotient moves when its coefficient is 1 or -1 and its divisor positive.
      return (a->kind == ExprKind::FloorDiv || a->kind == ExprKind::ExactDiv) &&
             Integer::abs(t.coefficient).isOne() && a->value.sign() > 0;
    };
    std::vector<const Term *> order;
    for (const Term &t : n->terms)
      if (movable(t)) order.push_back(&t);
    std::stable_partition(order.begin(), order.end(), [&](const Term *t) { return cancels(*t); });
    // The budget is shared out among the terms, so the first one cannot spend it all.
    int remaining = budget_;
    for (std::size_t i = 0; i < order.size() && remaining > 0; ++i) {
      int share = std::max(1, remaining / int(order.size() - i));
      remaining -= share;
      budget_ = share - 1; // this move
      try {
        Bounds b = distributedOver(n, *order[i]);
        best = best ? meet(*best, b) : b;
      } catch (const InputTooLarge &) {
        // the moved sums grew past the expression limit: this term gives nothing
      }
      remaining += budget_;
    }
    budget_ = remaining;
    return best;
  }

  /// A parameter that is a factor of every term of a sum (n in m*n - n + 1; the constant term
  /// aside), or null.
  static const ExprNode *commonParameter(const ExprNode *n) {
    if (n->terms.size() < 2) return nullptr;
    for (const auto &factor : n->terms[0].monomial) {
      const Expr &candidate = factor.first; // a structured binding is not captured by clang 14
      if (candidate.kind() != ExprKind::Param) continue;
      bool everywhere = true;
      for (std::size_t i = 1; i < n->terms.size() && everywhere; ++i) {
        const Monomial &m = n->terms[i].monomial;
        everywhere = std::any_of(m.begin(), m.end(), [&](const auto &f) { return f.first == candidate; });
      }
      if (everywhere) return candidate.node();
    }
    return nullptr;
  }

  /// Bounds of the sum of n's terms (its constant left out), each divided once by the parameter
  /// x when x is given (every term then holds it: commonParameter).
  Bounds termsDividedBy(const ExprNode *n, const ExprNode *x) {
    Bounds total = point(Integer(0));
    for (const Term &t : n->terms) {
      Bounds m = point(t.coefficient);
      for (auto &[atom, k] : t.monomial) {
        const uint32_t e = atom.node() == x ? uint32_t(k) - 1 : uint32_t(k);
        if (e > 0) m = product(m, power(of(atom.node()), e));
      }
      total = sum(total, m);
    }
    return total;
  }

  /// The sum of n's terms (its constant left out, as in termsDividedBy) each divided once by the
  /// parameter x, which every term holds (commonParameter).
  static Expr quotientBy(const ExprNode *n, const ExprNode *x) {
    std::vector<Term> terms;
    terms.reserve(n->terms.size());
    for (const Term &t : n->terms) {
      Term q{t.coefficient, {}};
      for (const auto &factor : t.monomial) {
        if (factor.first.node() != x) q.monomial.push_back(factor);
        else if (factor.second > 1) q.monomial.push_back({factor.first, factor.second - 1});
      }
      terms.push_back(std::move(q));
    }
    return fromPolynomial(std::move(terms), Integer(0));
  }

  /// Both bounds hold: the tighter end of each side.
  static Bounds meet(const Bounds &a, const Bounds &b) {
    return Bounds{less(a.low, b.low) ? b.low : a.low, less(a.high, b.high) ? a.high : b.high};
  }

  Bounds distributedOver(const ExprNode *n, const Term &t) {
    ++moving_;
    struct Moved {
      int &moving;
      ~Moved() { --moving; }
    } inMove{moving_};
    const Expr &atom = t.monomial[0].first;
    const ExprKind k = atom.kind();
    const auto &operands = atom.node()->operands;
    if (k == ExprKind::FloorDiv || k == ExprKind::ExactDiv) {
      const Expr rest = Expr(n) - Expr(t.coefficient) * atom;
      // rest + x // d is (x + d*rest) // d, and rest - x // d is (d*rest - x + d - 1) // d
      // (rest is an integer); an exact quotient is a floor quotient where it is defined. The
      // numerator is bounded as one sum, so rest and x are compared term by term.
      const Integer &d = atom.node()->value;
      Expr dRest = Expr(d) * rest;
      Expr numerator = t.coefficient.sign() > 0 ? operands[0] + dRest
                       : k == ExprKind::FloorDiv ? dRest - operands[0] + Expr(d - Integer(1))
                                                 : dRest - operands[0];
      Bounds x = ofKept(numerator);
      return Bounds{floorDivEnd(x.low, d), floorDivEnd(x.high, d)};
    }
    auto moved = [&](const Expr &operand) { return withTermReplaced(Expr(n), atom, t.coefficient, operand); };
    if (k == ExprKind::Select) return choice(atom.node()->condition, moved(operands[0]), moved(operands[1]));
    // c * min(x, y) is min(c*x, c*y) for c > 0 and max(c*x, c*y) for c < 0; likewise max.
    const bool least = (k == ExprKind::Min) == (t.coefficient.sign() > 0);
    Bounds r = ofKept(moved(operands[0]));
    for (std::size_t i = 1; i < operands.size(); ++i) r = extreme(r, ofKept(moved(operands[i])), least);
    return r;
  }

  static Bounds hull(const Bounds &a, const Bounds &b) {
    return Bounds{less(a.low, b.low) ? a.low : b.low, less(a.high, b.high) ? b.high : a.high};
  }

  /// The bounds of min(a, b) (`least`) or of max(a, b).
  static Bounds extreme(const Bounds &a, const Bounds &b, bool least) {
    if (least) return Bounds{less(b.low, a.low) ? b.low : a.low, less(b.high, a.high) ? b.high : a.high};
    return Bounds{less(a.low, b.low) ? b.low : a.low, less(a.high, b.high) ? b.high : a.high};
  }

  /// The bounds of `then if cond else otherwise`: the hull of the sides some point takes.
  Bounds choice(const Pred &cond, const Expr &then, const Expr &otherwise) {
    std::optional<Bounds> r;
    for (int side = 0; side < 2; ++side)
      if (auto b = branch(cond, side == 0, side == 0 ? then : otherwise)) r = r ? hull(*r, *b) : *b;
    // Neither side is taken anywhere in the box: no value to bound (any bounds are true).
    return r ? *r : hull(ofKept(then), ofKept(otherwise));
  }

  Context::Interval interval(const std::string &name) const {
    for (const auto &[x, iv] : overrides_)
      if (x == name) return iv;
    return context_.boundsOf(name);
  }

  /// Bounds of `e` where `cond` has truth `truth` (one side of a choice): in a box narrowed by
  /// the condition when it bounds one parameter (n - 1 < 0 makes n <= 0 on the first side and
  /// n >= 1 on the second); nullopt when no point of the box takes that side.
  std::optional<Bounds> branch(const Pred &cond, bool truth, const Expr &e) {
    bool never = false;
    std::optional<Bounds> b;
    if (narrowedTo(cond, truth, never, [&](Walk &inner) { b = inner.ofKept(e); })) return b;
    if (never) return std::nullopt;
    return ofKept(e);
  }

  /// What `cond` (or its negation) says about a single parameter x when it reads a*x + k OP 0.
  Refinement refine(const Pred &cond, bool truth) const {
    return refineParameter(cond, truth, [this](const std::string &x) { return interval(x); });
  }

  const Context &context_;
  Overrides overrides_;
  int budget_ = 64;
  int depth_ = 0;
  int moving_ = 0;
  std::unordered_map<const ExprNode *, Bounds> memo_[2]; // outside moves, inside them
  std::vector<Expr> kept_;
};

/// Where the box's intervals lose that two parts of an expression move with one parameter, the
/// points where they change form are its breakpoints: the condition of a choice, and where the
/// two operands of a min or max cross. m*max(0, 1 - n)*(0 if n - 1 < 0 else n) is 0 at every
/// point, but its factors' intervals give [0, M*M]; on each side of n = 1 one factor is 0. Up
/// to `limit` such conditions that bound a single parameter, each once, then cuts at small
/// sizes.
std::vector<Pred> breakpoints(const Pred &p, std::size_t limit) {
  std::vector<Pred> out;
  // Only a comparison a*x + k OP 0 of one parameter x narrows a box (refineParameter).
  auto add = [&](const Pred &c) {
    if (std::find(out.begin(), out.end(), c) == out.end() && oneParameter(c.node())) out.push_back(c);
  };
  std::vector<const ExprNode *> stack, seen;
  std::vector<const PredNode *> preds{p.node()};
  while (!preds.empty()) {
    const PredNode *q = preds.back();
    preds.pop_back();
    for (const Pred &c : q->children) preds.push_back(c.node());
    if (q->kind == PredKind::Compare) {
      stack.push_back(q->lhs.node());
      stack.push_back(q->rhs.node());
    }
  }
  // The first nodes met suffice (the search is quadratic in them); a breakpoint deep in a large
  // expression is rarely the one that decides.
  constexpr std::size_t kNodes = 256;
  while (!stack.empty() && out.size() < limit && seen.size() < kNodes) {
    const ExprNode *x = stack.back();
    stack.pop_back();
    if (std::find(seen.begin(), seen.end(), x) != seen.end()) continue;
    seen.push_back(x);
    try {
      if (x->kind == ExprKind::Select) add(x->condition);
      if ((x->kind == ExprKind::Min || x->kind == ExprKind::Max) && x->operands.size() == 2)
        add(le(x->operands[0], x->operands[1]));
    } catch (const InputTooLarge &) {
    }
    for (const Term &t : x->terms)
      for (const auto &factor : t.monomial) stack.push_back(factor.first.node());
    for (const Expr &o : x->operands) stack.push_back(o.node());
  }
  // Then small sizes, where a slice's length changes form without a condition that says so:
  // max(0, min(1, n) - (n - 1)) is 1 at n = 1 and 0 from n = 2 on, a breakpoint that is written
  // nowhere. The first few parameters, each cut after 0, after 1 and after 2: n*max(0, 1 - n)
  // is 0 at n = 0 and at n = 1, but on n <= 1 (its written breakpoint) intervals give it
  // [0, 1]*[0, 1]; n = 0 alone is the cut that proves it 0.
  std::size_t params = 0;
  for (const ExprNode *x : parameterNodes(p)) {
    if (++params > 3) break;
    for (int k : {0, 1, 2}) add(le(Expr(x), Expr(k)));
  }
  return out;
}

/// Breakpoints followed at most this deep (a split inside a split), and this many written ones
/// per level (the cuts at small sizes come after them).
constexpr int kSplitDepth = 2;
constexpr std::size_t kBreakpoints = 3;

bool proven(Walk &walk, const PredNode *n, bool negate);

/// `p`, which the intervals of `walk` do not prove, proven on each side of one of its
/// breakpoints `cuts` (a side no point of the box takes needs nothing), each side as a walk of
/// its own that may split again while its depth is below `depthLimit`.
bool provenBySplit(Walk &walk, const Pred &p, const std::vector<Pred> &cuts, int depthLimit) {
  if (walk.depth() >= depthLimit) return false;
  for (const Pred &cond : cuts) {
    bool sides = true;
    for (bool truth : {true, false}) {
      bool never = false, ok = false;
      bool narrowed = walk.narrowedTo(cond, truth, never, [&](Walk &inner) {
        ok = proven(inner, p.node(), false) || provenBySplit(inner, p, cuts, depthLimit);
      });
      // Not narrowed (no budget left), or this side not proven.
      if ((!narrowed && !never) || (!never && !ok)) {
        sides = false;
        break;
      }
    }
    if (sides) return true;
  }
  return false;
}

bool proven(Walk &walk, const PredNode *n, bool negate) {
  switch (n->kind) {
  case PredKind::True: return !negate;
  case PredKind::False: return negate;
  case PredKind::Not: return proven(walk, n->children[0].node(), !negate);
  case PredKind::And: case PredKind::Or: {
    // Under negation, De Morgan: not (a and b) is (not a) or (not b).
    bool all = (n->kind == PredKind::And) != negate;
    for (const Pred &c : n->children) {
      bool p = proven(walk, c.node(), negate);
      if (all && !p) return false;
      if (!all && p) return true;
    }
    if (all) return true;
    // A disjunction: where one part is false, another must hold. A part that bounds one
    // parameter (n - 1 < 0) narrows the box to where it is false (n >= 1); a part false
    // nowhere in the box holds everywhere.
    for (std::size_t i = 0; i < n->children.size(); ++i) {
      bool never = false, other = false;
      // Part i is `c` (or `not c` under negation); it is false where c has truth `negate`.
      walk.narrowedTo(n->children[i], negate, never, [&](Walk &inner) {
        for (std::size_t j = 0; j < n->children.size() && !other; ++j)
          other = j != i && proven(inner, n->children[j].node(), negate);
      });
      if (never || other) return true;
    }
    return false;
  }
  case PredKind::Compare: {
    // lhs - rhs as one expression: terms common to both sides cancel before the intervals.
    Bounds d;
    try {
      d = walk.ofKept(n->lhs - n->rhs);
    } catch (const InputTooLarge &) {
      return false; // the difference is too large to write out: no proof from intervals
    }
    int lo = signOf(d.low), hi = signOf(d.high);
    switch (negate ? negated(n->op) : n->op) {
    case CompareOp::EQ: return lo == 0 && hi == 0;
    case CompareOp::NE: return lo > 0 || hi < 0;
    case CompareOp::LT: return hi < 0;
    case CompareOp::LE: return hi <= 0;
    case CompareOp::GT: return lo > 0;
    case CompareOp::GE: return lo >= 0;
    }
    return false;
  }
  }
  return false;
}

} // namespace

uint64_t rangeWalksMade() { return walksMade.load(std::memory_order_relaxed); }

Range rangeOf(const Expr &e, const Context &context) {
  return remembered(context, e.node(), [&] {
    Walk walk(context);
    return toRange(walk.of(e.node()));
  });
}

bool provenByRanges(const Context &context, const Pred &p) {
  // Where some part of `p` is undefined, `p` does not hold; intervals say nothing about that.
  if (definedness(p).constantValue() != std::optional<bool>(true)) return false;
  Walk walk(context);
  return proven(walk, p.node(), false);
}

bool provenByRangesCut(const Context &context, const Pred &p) {
  if (definedness(p).constantValue() != std::optional<bool>(true)) return false;
  // Uncut first, in a walk of its own (a choice it meets narrows the box, spending that walk's
  // budget): a cut that leaves the box whole is not followed (Walk::narrowedTo), so what the
  // uncut box proves is proven here.
  if (Walk whole(context); proven(whole, p.node(), false)) return true;
  // Each cut alone first, each with a budget of its own, then cuts inside cuts with one budget
  // for them all: a search that went two deep under the first cut, or only walked both sides
  // of the first few (each side spends some of the budget on the choices it meets), spent the
  // budget before a later cut that proves it alone was tried.
  const std::vector<Pred> cuts = breakpoints(p, kBreakpoints);
  for (const Pred &cut : cuts)
    if (Walk walk(context); provenBySplit(walk, p, {cut}, 1)) return true;
  Walk walk(context);
  return provenBySplit(walk, p, cuts, kSplitDepth);
}

std::optional<bool> truthWhere(const Context &context, const Pred &cond, bool truth, const Pred &c) {
  Refinement r = refineParameter(cond, truth, [&](const std::string &x) { return context.boundsOf(x); });
  if (r.never || r.known.empty()) return std::nullopt;
  const IntervalOf narrowed = [&](const std::string &x) {
    for (const auto &[y, iv] : r.known)
      if (y == x) return iv;
    return context.boundsOf(x);
  };
  if (refineParameter(c, false, narrowed).never) return true;
  if (refineParameter(c, true, narrowed).never) return false;
  return std::nullopt;
}

std::optional<std::pair<std::string, Integer>> pinnedParameter(const Context &context, const Pred &cond, bool truth) {
  Refinement r = refineParameter(cond, truth, [&](const std::string &x) { return context.boundsOf(x); });
  if (r.never) return std::nullopt;
  for (const auto &[x, iv] : r.known)
    if (iv.high && *iv.high == iv.low) return std::make_pair(x, iv.low);
  return std::nullopt;
}

} // namespace shapelab
