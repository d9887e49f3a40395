// Bearing — which predicates bear on some parameters: those sharing a parameter with them, or
// with a predicate that does, and so on (a connected component of the predicates' parameters).
// A question about those parameters needs only these; the others constrain other sizes.
// Example: of {n == 1 or m == 1, m == k, p >= 2}, the first two bear on {n}.
// Cost: quadratic in the predicates in the worst case (each pass adds at least one).
#pragma once

#include <vector>

#include "symbolic/Expr.h"

namespace shapelab {

/// Per entry of `preds`, whether it bears on `params`.
std::vector<bool> bearingOn(const std::vector<Pred> &preds, std::vector<const ExprNode *> params);

} // namespace shapelab
