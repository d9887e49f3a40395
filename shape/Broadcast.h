// Broadcast — n-ary broadcasting of symbolic shapes, decided per dimension (DESIGN §3.4).
//
// Model: shapes are right-aligned and left-padded with 1. In `numpy` mode the sizes at each
// position must be equal or 1, and the result is the common size other than 1 ((0) with (1)
// is (0)). In `static` mode (the Theano/PyTensor rule) a size broadcasts only where it is
// *provably* 1 under the context; all other sizes must be equal at run time.
// Example: (n, 1) with (m,) in numpy mode: position 0 is n (valid); position 1 is
// `m if ... ` — m against 1 — valid; with (n,) and (m,): valid when "n == 1 or m == 1 or
// n == m", result "m if n == 1 else n".
// Every input dimension must also be >= 0 (a size), which matters for expressions like n - 1.
// Concrete shapes are handled without the solver, with NumPy's messages:
//   "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0
//    with shape (3,) and arg 1 with shape (4,)."
// Cost: one decision per result position that is not trivially valid (see Solver).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "shape/Shape.h"
#include "shape/Validity.h"

namespace shapelab {

enum class BroadcastMode { Numpy, Static };
BroadcastMode parseBroadcastMode(const std::string &name); // "numpy" | "static"
const char *spelling(BroadcastMode m);

struct BroadcastResult {
  Shape shape;          // the result shape; meaningful where validity holds
  Validity validity;    // per-position obligations and the aggregate verdict
  std::string message;  // NumPy's message for a concrete error, else the validity summary
  Status status() const { return validity.status(); }
};

/// Broadcasts any number of shapes under `context`. The operands and the result are arrays, so
/// the sizes other than 0 of each multiply to at most 2**63 - 1 (ArraySize.h); the result's
/// obligation implies the operands'. `requireResultCount` false leaves it out, for a caller that
/// knows it holds already (the result is an existing operand's shape) or whose result is not an
/// array (einsum's iteration, which counts as NumPy's iterator does). `positionNames`, when
/// given, names each position of the result in the obligations ("label 'j' (...)") instead of
/// "dimension -1 (axis 0)".
BroadcastResult broadcast(Solver &solver, const Context &context, const std::vector<Shape> &shapes,
                          BroadcastMode mode = BroadcastMode::Numpy, bool requireResultCount = true,
                          const std::vector<std::string> *positionNames = nullptr);

/// NumPy's one-way broadcast_to: `from` may broadcast to `target`, never the reverse.
BroadcastResult broadcastTo(Solver &solver, const Context &context, const Shape &from,
                            const Shape &target);

/// The solver's answer to `d == 1`: static mode needs to tell Unknown from "not provably 1".
Decision oneness(Solver &solver, const Context &context, Expr d);

/// NumPy's concrete algorithm; returns the shape or sets `message`. Refuses element counts
/// above 2**63 - 1 (`message` says so); the result's only when `resultCount` (a caller whose
/// result is not an array, or is one already, leaves it out).
std::optional<std::vector<Integer>> broadcastConcrete(const std::vector<std::vector<Integer>> &shapes,
                                                      std::string &message, bool resultCount = true);

} // namespace shapelab
