// Vectorize — a graph rebuilt over batched inputs (a vmap; PyTensor's vectorize_graph): the
// nodes that read a replaced input are built again, batched, as the same graph's nodes.
//
// Model: each replacement gives an input x and a batched node xb whose trailing dims are x's
// shape and whose k leading dims are the batch (fewer leading dims are padded with 1s; the
// batches broadcast against each other, per mode). Every node that reads a replaced input,
// directly or not, is rebuilt with its operands batched: elementwise ops align the operands'
// core dims after the batch (an unbatched operand broadcasts as it did); reductions, cumsum,
// diff, sort, transposes, reshapes, expand_dims, squeeze, concatenate, stack and indexing shift
// their axes past the batch (a reshape, broadcast_to, full or sum_to gets the batch's dims in
// front of its target); gufuncs (matmul, solve, det, inv, ...) take the batch as more batch
// dims (a vector operand of matmul or solve is made a matrix and back, so the batch never reads
// as a core dim); einsum labels the batch with letters of its own; random draws put it in front
// of their size; checks and guards pass it through. What the rebuilt graph computes at a batch
// index is what the original computes on that example; its errors are the union of the
// examples' and the batches' broadcast.
// Refused by name (OpError): a node kind with no batched rule yet (convolve, outer, a draw
// with a shape-only parameter, ...), an index array that reads a replaced input, and a batched
// input whose trailing dims are not the input's.
// Example: with x (n,), y = sum(x * 2.0); vectorize({y}, {{x, xb (b, n)}}) is sum(xb * 2.0, axis=1).
#pragma once

#include <utility>
#include <vector>

#include "ops/Graph.h"

namespace shapelab::ops {

/// `outputs` rebuilt with each replaced node (the first of a pair) read as its batched node
/// (the second); the outputs in order (an output that reads no replaced node is batched by
/// broadcasting it to the batch).
std::vector<const Node *> vectorize(Graph &graph, const std::vector<const Node *> &outputs,
                                    const std::vector<std::pair<const Node *, const Node *>> &replace, BroadcastMode mode);

} // namespace shapelab::ops
