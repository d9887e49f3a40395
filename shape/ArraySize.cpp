#include "shape/ArraySize.h"

#include <mutex>
#include <optional>

#include "support/FlatIndex.h"
#include "symbolic/Range.h"

namespace shapelab {

namespace {

/// Whether `d` is an array size wherever the context holds, read off its form: a constant in
/// range, a size parameter, or a choice, least or largest of such sizes (a broadcast result
/// `m if n == 1 else n`, a clipped bound `min(n, m)`) that is defined everywhere. Looked into
/// `depth` levels deep (a DAG of shared choices would be a tree exponentially larger); past
/// that the answer is no, and the obligation is written out as for any other size.
bool obviouslyArraySize(const Context &context, const Expr &d, int depth = 4) {
  if (auto v = d.constantValue()) return v->sign() >= 0 && *v <= maxArraySize();
  switch (d.kind()) {
  case ExprKind::Param: return context.domain() == SizeDomain::ArraySizes;
  case ExprKind::Select:
  case ExprKind::Min:
  case ExprKind::Max:
    if (depth == 0 || !d.isTotal()) return false;
    for (const Expr &e : d.node()->operands)
      if (!obviouslyArraySize(context, e, depth - 1)) return false;
    return true;
  default: return false;
  }
}

/// Decides `fits` (`count <= 2**63 - 1`) for a product of sizes without asking isl about opaque
/// products where evaluation settles it: a real point on each side makes it Depends, with the
/// predicate itself as the exact condition.
Decision decideFits(Solver &solver, const Context &context, const Expr &count, const Pred &fits) {
  // Only for a count defined everywhere: where it is undefined, `fits` does not hold.
  if (auto high = count.isTotal() ? rangeOf(count, context).high : std::nullopt; high && *high <= maxArraySize())
    return Decision::proven();
  if (count.isQuasiAffine()) return solver.decide(context, fits);
  // Far points: every parameter of the product at 2**62 (any product of two exceeds the limit),
  // or one parameter at 2**62 and the others at the context's point (the context may tie
  // parameters together, as k == n + 1 does). Evaluation is cheap; isl on opaque products is not.
  const Integer far(int64_t(1) << 62);
  std::vector<Expr> params = parametersOf(count);
  std::vector<Assignment> farPoints;
  Assignment all = context.samplePoint();
  for (const Expr &x : params) all.set(x->name, far);
  farPoints.push_back(all);
  // The same with the product's other parameters raised to at least 2 (a 0 or 1 at the
  // context's point would keep the product small).
  Assignment raised = context.samplePoint();
  for (const Expr &x : params) {
    const Integer *v = raised.find(x->name);
    if (!v || *v < Integer(2)) raised.set(x->name, 2);
  }
  for (const Assignment &base : {context.samplePoint(), raised})
    for (const Expr &x : params) {
      Assignment one = base;
      one.set(x->name, far);
      farPoints.push_back(one);
    }
  if (auto d = dependsFromPoints(context, fits, {context.samplePoint()}, farPoints)) return *d;
  return solver.decide(context, fits);
}

/// Per solver too: a Depends computes its exact condition on first read with the solver that
/// answered it, and a solver belongs to one thread (Solver.h), so a decision is handed back only
/// to the solver that made it.
struct Key {
  const Solver *solver;
  Pred context;
  Expr count;
  bool operator==(const Key &o) const { return solver == o.solver && context == o.context && count == o.count; }
};
struct KeyHash {
  std::size_t operator()(const Key &k) const {
    return (std::hash<const void *>()(k.solver) * 31 + k.context.hash()) * 31 + k.count.hash();
  }
};
// Held by a pointer that is never destroyed: the handles it keeps must not be released after
// the intern table is gone at exit (a static or thread_local map is destroyed in an order
// relative to the table that nothing guarantees).
/// What is remembered per (solver, assumptions, count): the obligation and its decision.
struct Fits {
  Pred predicate;
  Decision decision;
};
EntryTable<Key, Fits, KeyHash> &fitsMemo() {
  static auto *memo = new EntryTable<Key, Fits, KeyHash>();
  return *memo;
}
std::mutex &memoLock() {
  static auto *lock = new std::mutex();
  return *lock;
}

/// Records `count <= 2**63 - 1` with `description`, decided once per (solver, context, count).
void recordFits(Validity &validity, const Expr &count, const std::string &description, ObligationKind kind) {
  const Context &context = validity.context();
  // The same count recurs along a program (every elementwise op on the same shape): remember
  // the obligation and its answer per (context, count) — evaluation at far points is cheap,
  // but not free, the solver's fallback may search for witnesses, and even writing the
  // comparison out (count - (2**63 - 1) in canonical form) allocates.
  Key key{&validity.solver(), context.assumptions(), count};
  std::mutex &lock = memoLock();
  auto *memo = &fitsMemo();
  std::optional<Fits> known;
  {
    std::lock_guard<std::mutex> guard(lock);
    if (const Fits *kept = memo->find(key)) known = *kept;
  }
  if (!known) {
    Pred fits = le(count, Expr(maxArraySize()));
    const uint64_t unkept = validity.solver().stats().unkept;
    known = Fits{fits, decideFits(validity.solver(), context, count, fits)};
    // An answer the clock cut short is the solver's to ask again, not this memo's to keep.
    if (validity.solver().stats().unkept == unkept) {
      std::lock_guard<std::mutex> guard(lock);
      if (memo->size() > 65536) memo->clear(); // a bound on what the memo keeps alive
      memo->emplace(key, *known);
    }
  }
  validity.record(known->predicate, description, known->decision, kind);
}

} // namespace

std::string rankError(std::size_t rank) {
  if (rank <= kMaxRank) return "";
  return "maximum supported dimension for an ndarray is " + std::to_string(kMaxRank) + ", found " + std::to_string(rank);
}

bool ranksFit(Validity &validity, const std::vector<Shape> &shapes) {
  for (const Shape &s : shapes)
    if (std::string e = rankError(s.size()); !e.empty()) {
      validity.fail(e);
      return false;
    }
  return true;
}

void clearElementCountMemo() {
  std::lock_guard<std::mutex> guard(memoLock());
  fitsMemo().clear();
}

ArraySizeObligations arraySizeObligations(const Context &context, const std::vector<Expr> &dims) {
  std::vector<Pred> sizes, limits;
  for (Expr d : dims) {
    if (obviouslyArraySize(context, d)) continue;
    sizes.push_back(ge(d, Expr(0)));
    if (d.isQuasiAffine()) limits.push_back(le(d, Expr(maxArraySize())));
  }
  return {Pred::conjunction(sizes), Pred::conjunction(limits)};
}

void requireArraySizes(Validity &validity, const std::vector<Expr> &dims, const std::string &what,
                       ObligationKind limitKind) {
  ArraySizeObligations o = arraySizeObligations(validity.context(), dims);
  if (!o.sizes.isTrue()) validity.require(o.sizes, what + " has sizes as dimensions");
  if (!o.limits.isTrue()) validity.require(o.limits, what + " has dimensions of at most 2**63 - 1", limitKind);
}

bool constantDimensionsFit(Validity &validity, const std::vector<Expr> &dims, const std::string &what) {
  for (Expr d : dims) {
    auto v = d.constantValue();
    if (!v) continue;
    if (v->sign() < 0) {
      validity.fail("negative dimensions are not allowed: " + what + " has a dimension " + v->toString());
      return false;
    }
    if (*v > maxArraySize()) {
      validity.fail("Maximum allowed dimension exceeded: " + what + " has a dimension " + v->toString() +
                    ", above 2**63 - 1");
      return false;
    }
  }
  return true;
}

void requireElementCountFits(Validity &validity, const Shape &shape, const std::string &what, ObligationKind kind) {
  const Context &context = validity.context();
  // NumPy's constructor multiplies the sizes other than 0 (PyArray_NewFromDescr skips a zero
  // size), so a 0 among the sizes does not let the others multiply past 2**63 - 1:
  // np.empty((0, 7, 1111**6), np.int8) is "array is too big".
  Integer constant(1);
  bool zero = false;
  std::vector<Expr> symbolic;
  for (Expr d : shape) {
    if (auto v = d.constantValue()) {
      if (v->isZero()) zero = true;
      else constant *= *v;
    } else {
      symbolic.push_back(d);
    }
  }
  // Sizes are at least 0, so the product of the sizes other than 0 is at least `constant`.
  if (constant > maxArraySize()) {
    if (symbolic.empty() && !zero)
      validity.fail(what + " has " + constant.toString() + " elements, more than 2**63 - 1");
    else
      validity.fail(what + " is too big to exist: its sizes other than 0 multiply to " +
                    std::string(symbolic.empty() ? "" : "at least ") + constant.toString() + ", more than 2**63 - 1");
    return;
  }
  if (symbolic.empty()) return;
  // A single parameter of an array-size context is itself at most 2**63 - 1.
  if (symbolic.size() == 1 && constant.isOne() && symbolic[0].kind() == ExprKind::Param &&
      context.domain() == SizeDomain::ArraySizes)
    return;
  // The product of the sizes other than 0. A symbolic size that may be 0 counts as max(d, 1),
  // except where the plain product says the same: one symbolic size (at d = 0 the rest is the
  // constant, already checked), or two parameters of an array-size context and no constant
  // factor (at n = 0 the other is at most 2**63 - 1 by its domain).
  bool plain = symbolic.size() == 1 ||
               (symbolic.size() == 2 && constant.isOne() && obviouslyArraySize(context, symbolic[0]) &&
                obviouslyArraySize(context, symbolic[1]));
  Expr count(constant);
  bool capped = false; // some size counts as max(d, 1)
  std::vector<bool> asIs(symbolic.size(), plain);
  for (std::size_t i = 0; i < symbolic.size(); ++i) {
    const Expr &d = symbolic[i];
    if (!asIs[i]) {
      Range r = rangeOf(d, context);
      asIs[i] = r.low && *r.low >= Integer(1);
    }
    count = count * (asIs[i] ? d : max(d, Expr(1)));
    capped = capped || !asIs[i];
  }
  std::string description = capped || zero ? what + " is small enough to exist: its sizes other than 0 multiply "
                                                    "to at most 2**63 - 1"
                                           : what + " has at most 2**63 - 1 elements";
  recordFits(validity, count, description, kind);
}

void requireRunningCountFits(Validity &validity, const Shape &sizes, const std::string &what) {
  const Context &context = validity.context();
  Expr running(1);
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    running = running * sizes[k];
    // Where the next size is at least 1 the next count is at least this one: only it is asked.
    if (k + 1 < sizes.size()) {
      const Expr &next = sizes[k + 1];
      auto low = next.isTotal() ? rangeOf(next, context).low : std::nullopt;
      if (low && *low >= Integer(1)) continue;
    }
    if (auto c = running.constantValue()) {
      if (*c > maxArraySize()) {
        validity.fail("iterator is too large: the first " + std::to_string(k + 1) + " sizes of " + what + " multiply to " +
                      c->toString() + ", more than 2**63 - 1");
        return;
      }
      continue;
    }
    if (obviouslyArraySize(context, running)) continue;
    recordFits(validity, running,
               "the first " + std::to_string(k + 1) + " sizes of " + what + " multiply to at most 2**63 - 1",
               ObligationKind::Limit);
  }
}

} // namespace shapelab
