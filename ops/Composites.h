// Composites — NumPy functions built from the graph's ops the way NumPy itself defines them
// (np.tril is `where(tri(N, M, k), m, zeros(1, m.dtype))`). They have no node kind, kernel or
// rewrite rule of their own: their shapes, validity and values are those of the ops they are
// made of, so both interpreters, the checked rewrites and the error domain cover them as they
// cover any program. Each is a row of the op list (ops/Functions.def, kind Composite), and the
// language binds it (lang/Library.cpp).
// Example: tril(g, m, 0, mode) of an input (n, n) is a Where node of shape (n, n), valid.
// Errors: what NumPy refuses when the call is made (a rank, an axis) is an OpError.
// Cost: a handful of nodes per call (each one hash lookup when it exists).
#pragma once

#include <optional>
#include <vector>

#include "ops/Graph.h"

namespace shapelab::ops {

/// np.tril(m, k): the elements on and below diagonal k of the last two axes (a 1-d m is read as
/// the rows of an (N, N) matrix, as NumPy does), the others 0 in m's dtype.
const Node *tril(Graph &g, const Node *m, const Expr &k, BroadcastMode mode);
/// np.triu(m, k): the elements on and above diagonal k.
const Node *triu(Graph &g, const Node *m, const Expr &k, BroadcastMode mode);
/// np.roll(a, shift, axis): the elements shifted along each axis, those past the end coming
/// back at the start. `shifts` and `axes` pair up (one of them may have one entry, used for
/// each of the other's); a shift is any size, negative too; shifts on one axis add. No axes:
/// the flattened array rolls and takes a's shape again.
const Node *roll(Graph &g, const Node *a, const std::vector<Expr> &shifts, const std::optional<std::vector<int64_t>> &axes,
                 BroadcastMode mode);

} // namespace shapelab::ops
