// Gufunc — call-time shape resolution of a generalized ufunc, i.e. Blockwise inference
// (DESIGN §3.5), on symbolic shapes under a context.
//
// Model (NumPy's algorithm, shared/reference/gufunc-notes.md §3.1, decided symbolically):
//   1. drop `?` dims for operands with too few dims (NumPy's order; a dropped dim is dropped for
//      every operand); an operand still short is an error;
//   2. core dims bind from the right: the first size of a name fixes it, later sizes must be
//      equal (an obligation); frozen sizes must match; `|1` names broadcast among themselves;
//      a name that only appears inside an affine input expression is solved for
//      (`(n+1)` on size d binds n = d - 1 and requires d >= 1);
//   3. output dims follow from the bindings; an output dim with no source is *undetermined*
//      (the output cannot be allocated before running), never guessed;
//   4. loop dims: the non-core prefixes of all inputs broadcast (numpy or static mode);
//   5. outputs = loop dims + output core dims.
// Example: "(m,n),(n,p)->(m,p)" on (b, m, n) and (n, p) gives batch (b), core {m, n, p}, out
// (b, m, p), valid for all sizes.
// Concrete errors use NumPy's wording: "Input operand 1 has a mismatch in its core dimension 0,
// with gufunc signature (i),(i)->() (size 4 is different from 3)".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "shape/Broadcast.h"
#include "shape/Signature.h"

namespace shapelab {

struct GufuncArgument {
  Shape shape;            // an array's shape, or a shape-only value tuple
  bool shapeOnly = false; // given as <...>
};

/// An argument as text: a shape ("(b, m, n)") or a shape-only value ("<4>", "<2, 3>").
GufuncArgument parseGufuncArgument(const std::string &text);

struct GufuncResult {
  Shape batchShape;
  /// Every signature name with its size, or nullopt when nothing determines it.
  std::vector<std::pair<std::string, std::optional<Expr>>> coreDims;
  /// Output shapes; an undetermined dim is nullopt.
  std::vector<std::vector<std::optional<Expr>>> outShapes;
  std::vector<std::string> undetermined; // output dims without a source
  std::vector<Shape> loopShapes;         // each input's shape without its core dims
  Validity validity;
  std::string message;
  Status status() const { return validity.status(); }
  /// True when every output shape is known before the core computation runs.
  bool allocatable() const { return undetermined.empty(); }
};

/// Throws UserError for a call that does not fit the signature's arguments (count, or a
/// shape-only argument given as an array) or for expressions that cannot be solved.
/// With `broadcastLoops` false the loop dims are left to the caller (RandomVariable with a
/// `size`, where every parameter must broadcast *to* the size instead); `loopShapes` still
/// holds each input's loop part.
/// Array operands must be able to exist (ArraySize.h); `OperandsExist::Known` leaves that
/// obligation out, for a caller whose operands are arrays made under it already.
enum class OperandsExist { Require, Known };
GufuncResult resolveGufunc(Solver &solver, const Context &context, const Signature &signature,
                           const std::vector<GufuncArgument> &arguments,
                           BroadcastMode mode = BroadcastMode::Numpy, bool broadcastLoops = true,
                           OperandsExist operandsExist = OperandsExist::Require);

} // namespace shapelab
