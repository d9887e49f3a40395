// ArraySize — what makes dimensions the shape of an array that can exist.
//
// Model: NumPy stores dimensions and element counts in npy_intp, so a valid shape has every
// dimension in [0, 2**63 - 1] (defined: an exact division must divide) and an element count
// of at most 2**63 - 1. Both are validity obligations like any other (DESIGN §3.4): decided
// exactly where the expression is quasi-affine; a product of several symbolic sizes is decided
// from the context's bounds and evaluated witnesses, else left Unknown with a runtime check —
// never silently valid.
// Example: under n == 2, (n, 2**62) has 2**63 elements: refuted. (n, m) needs
// `m*n <= 9223372036854775807`, which depends on the sizes (a runtime check).
// Cost: no solver question for constants and plain parameters of an array-size context; one
// question for an affine dimension; products are settled by evaluation when possible.
#pragma once

#include <string>
#include <vector>

#include "shape/Shape.h"
#include "shape/Validity.h"

namespace shapelab {

/// What makes every dimension of `dims` an array size, in two parts of different kinds
/// (DESIGN §3.4): `sizes`, each dimension defined and `>= 0` (a shape obligation: `(n - 5,)`
/// needs `n >= 5`), and `limits`, each at most 2**63 - 1 (NumPy's limit). Dimensions that
/// obviously are sizes (constants in range, parameters of an array-size context) add nothing;
/// a part is True when there is nothing to require.
struct ArraySizeObligations {
  Pred sizes, limits;
};
ArraySizeObligations arraySizeObligations(const Context &context, const std::vector<Expr> &dims);
/// Records both parts in `validity`: the sizes as shape obligations described by `what`, the
/// limits as `limitKind` (Limit for an array the computation makes, Existence for one given).
void requireArraySizes(Validity &validity, const std::vector<Expr> &dims, const std::string &what,
                       ObligationKind limitKind);

/// Fails `validity` with a readable message when a constant dimension of `dims` is negative or
/// above 2**63 - 1 (NumPy: "negative dimensions are not allowed", "Maximum allowed dimension
/// exceeded"); returns false then.
bool constantDimensionsFit(Validity &validity, const std::vector<Expr> &dims, const std::string &what);

/// Records that `shape` has at most 2**63 - 1 elements (its dimensions being sizes), unless that
/// is evident. `what` names the shape for a person ("the result", "output 0").
/// `kind` is Limit for an array the computation makes, Existence for one that is given.
void requireElementCountFits(Validity &validity, const Shape &shape, const std::string &what,
                             ObligationKind kind = ObligationKind::Limit);

/// Records that the running products of `sizes` (the first size, the first two, ..., all of
/// them) are each at most 2**63 - 1: NumPy's iterator multiplies its sizes in order and stops
/// at the first product past it ("iterator is too large"), so a 0 after two huge sizes does
/// not help, and one before them does. `what` names the sizes ("einsum's iteration").
void requireRunningCountFits(Validity &validity, const Shape &sizes, const std::string &what);

/// NumPy's largest rank (NPY_MAXDIMS).
inline constexpr std::size_t kMaxRank = 32;
/// NumPy's message for an array of rank `rank` above kMaxRank, or "" when it fits.
std::string rankError(std::size_t rank);
/// Fails `validity` with NumPy's message when one of `shapes` has more than kMaxRank dimensions;
/// returns false then.
bool ranksFit(Validity &validity, const std::vector<Shape> &shapes);

/// Forgets the element-count answers remembered per solver across sessions (a benchmark of a
/// cold build clears them before each run).
void clearElementCountMemo();

} // namespace shapelab
