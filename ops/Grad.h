// Grad — reverse-mode gradients on the graph IR (DESIGN §3.6): the adjoint of a 0-d float cost
// with respect to chosen nodes, built as more nodes of the same graph.
//
// Model: the nodes on a path from a differentiated node to the cost are visited from the cost
// down (creation order reversed: operands come first), each passing its adjoint to its
// operands by its op's rule (its vector-Jacobian product); adjoints reaching one node add up.
// Broadcasting is exact in the backward pass: the adjoint of a broadcast operand is
// sum_to(g, operand's shape) (Graph::sumTo), which sums over the axes that were stretched as the
// sizes say at run time, so `x + y` with x (n,), y (m,) gives x's adjoint g summed when
// n == 1 != m, and g itself otherwise, in numpy mode; in static mode the stretched axes are
// those known to be 1 when the graph is built.
// Each gradient has its node's shape and dtype, and is computed after the cost (Graph::after)
// where the cost has shape obligations: its error domain is the cost's — differentiating adds
// no shape error and hides none. (A cost valid for every size is not evaluated first, as the
// language drops guards valid everywhere: a value error of it that the gradient does not read,
// such as a singular matrix, is not raised.)
// Ties: max/min pass the adjoint to every element equal to the result (PyTensor's rule);
// maximum(a, b) passes it to a where a >= b and to b elsewhere (minimum: a <= b), where(c, a, b)
// to a where c holds. Operations with no derivative (comparisons, logical and bitwise ops,
// argmax/argmin, sign, floor, integer casts, a draw's parameters, an index array) pass nothing.
// Operations with an adjoint not written yet (qr, svd, eigh, ifelse on data, an einsum
// diagonal) are refused by name (OpError).
// Example: gradients(g, sum(x * y), {x}) with x (n,), y (m,) is after(cost, sum_to(y' , (n,)))
// where y' is broadcast_to(1, (m if n == 1 else n,)) * y.
// Cost: linear in the nodes between the cost and the differentiated nodes (a few nodes each).
#pragma once

#include <vector>

#include "ops/Graph.h"

namespace shapelab::ops {

/// The gradient of `cost` (0-d, float) with respect to each of `wrt` (float arrays), in order.
/// Throws OpError when the cost is not a 0-d float, when a node of `wrt` is not a float array
/// or has no differentiable path to the cost (its name in the message), or when a node on the
/// way has no adjoint yet.
std::vector<const Node *> gradients(Graph &graph, const Node *cost, const std::vector<const Node *> &wrt,
                                    BroadcastMode mode);

} // namespace shapelab::ops
