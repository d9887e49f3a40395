// Range — interval bounds of expressions over a context's box, and the proofs they give.
//
// Model: every parameter lies in the interval the context gives it (Context::boundsOf — a
// relaxation: each point of the context lies in the box). rangeOf(e) bounds every defined value
// of `e` at every point of the box, by interval arithmetic over the expression's structure
// (sums of products of atoms, floor division, modulo, min, max, choices). It loses correlation
// (n - min(2, n) is bounded below by -2, not 0), so a range answers only one way:
// provenByRanges(c, p) == true means `p` holds at every point of the context — never a guess —
// and false means nothing.
// Example: under n >= 0, rangeOf(min(1, n)) is [0, 1], so min(1, n) >= 0 is proven; under
// 0 <= n <= 10 the count 4*n*(n // 2) is at most 200, far below 2**63 - 1.
// Cost: one walk over the expression DAG, exact integers (no isl, no rounding).
#pragma once

#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

#include "symbolic/Context.h"
#include "symbolic/Expr.h"

namespace shapelab {

/// [low, high]; an absent end is unbounded.
struct Range {
  std::optional<Integer> low, high;
};

/// Bounds of every defined value of `e` over the context's box. Remembered per context (a
/// shape rule asks for the same ranges many times; a walk costs tens of microseconds).
Range rangeOf(const Expr &e, const Context &context);

namespace detail {
/// rangeOf's answers under one context, kept with it: the handle keeps each expression (and so
/// its address, the key) alive while its entry is there. Cleared when it reaches kMaxEntries.
struct RangeMemo {
  static constexpr std::size_t kMaxEntries = 1 << 14;
  std::mutex lock;
  std::unordered_map<const ExprNode *, std::pair<Expr, Range>> entries;
};
} // namespace detail

/// Walks of boxes made so far in this process (the context's box for a question, each atom's
/// own walk, each narrowed box), for tests that bound the work of a question: a few walks per
/// atom of the expression, whatever its moves make.
uint64_t rangeWalksMade();

/// True only when intervals show that `p` is defined and holds at every point of the context.
bool provenByRanges(const Context &context, const Pred &p);

/// provenByRanges, or provenByRanges on each side of a breakpoint of `p` (a choice's condition,
/// where a min's or max's operands cross) that bounds one parameter, up to two cuts deep: what
/// provenByRanges proves, this proves too. The intervals of
/// m*max(0, 1 - n) and (0 if n - 1 < 0 else n) lose that on each side of n = 1 one of them is
/// 0; cut there, their product is bounded by 0. Costs a few walks more than provenByRanges;
/// the solver asks it where it would otherwise ask isl about a product of sizes.
bool provenByRangesCut(const Context &context, const Pred &p);

/// A parameter x and its one value v when `cond` has truth `truth` only at points of the
/// context's box where x == v: cond reads a*x + k OP 0 (or is a conjunction with such a part,
/// or a disjunction read false) and narrows x's interval to one value (n - 1 < 0 under n >= 0
/// leaves n == 0). nullopt otherwise.
std::optional<std::pair<std::string, Integer>> pinnedParameter(const Context &context, const Pred &cond, bool truth);

/// The one truth value `c` has at every point of the context's box where `cond` has truth
/// `truth`, read by intervals as pinnedParameter reads `cond`: the intervals `cond` leaves its
/// parameters, then whether `c` can have each truth over them (under -n < 0 with n >= 0, that
/// is n >= 1, n - 1 < 0 is false). nullopt when the intervals do not fix it, or when `cond`
/// says nothing of single parameters or never has that truth. Both are read as total: callers
/// pass defined conditions.
std::optional<bool> truthWhere(const Context &context, const Pred &cond, bool truth, const Pred &c);

} // namespace shapelab
