// Einsum — np.einsum as NumPy computes it without `optimize`, on symbolic shapes under a context.
//
// Model: c_einsum in numpy/core/src/multiarray/einsum.c.src (NumPy 1.24), checked against NumPy:
//   1. the subscripts name each operand's axes with letters; '...' stands for the operand's
//      other axes (broadcast dimensions, right-aligned across operands); without '->' the
//      output is the broadcast dimensions, then the letters used once, in character order;
//   2. a letter repeated within one operand is a diagonal: its sizes there must be equal;
//   3. NumPy's iterator runs over the output's labels, then the summed ones in character
//      order; each operand is remapped to those labels (1 where it lacks one) and the remapped
//      shapes broadcast, per mode (numpy: equal or 1; static: only sizes provably 1 stretch);
//   4. the iterator multiplies its sizes in that order and refuses the first running product
//      past 2**63 - 1 ("iterator is too large"): a 0 helps only before the huge sizes;
//   5. the output is the iteration's first sizes, an array like any other.
// Example: 'ij,jk->ik' on (n, m) and (m, p) gives (n, p) where n*p and m*n*p (the iteration
// i, k, j) are at most 2**63 - 1; on (2, 1) and (3, 4), j broadcasts: (2, 4).
// Messages are NumPy's ("operands could not be broadcast together with remapped shapes
// [original->remapped]: (2,3)->(2,newaxis,3) (4,5)->(5,4) ").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "shape/Broadcast.h"
#include "shape/Gufunc.h"

namespace shapelab {

/// The subscripts with the ellipsis expanded: one label per axis of each operand, and the
/// output's labels. A letter is its character code; the broadcast dimensions ('...') are
/// negative, -1 for the last one, -2 for the one before it, and so on.
struct EinsumSpec {
  std::vector<std::vector<int64_t>> operands;
  std::vector<int64_t> output;
  /// The labels NumPy's iterator runs over, outermost first: the output's, then the summed
  /// ones in character order.
  std::vector<int64_t> iteration() const;
  /// NumPy's spelling with an explicit output, "ij,jk->ik" ("..." for the broadcast dimensions).
  std::string text() const;
  /// The label as NumPy's messages name it: the letter, or "..." for a broadcast dimension.
  static std::string labelName(int64_t label);
  /// NumPy returns a view for one operand when nothing is summed (a permutation, a diagonal).
  bool isView() const;
  /// NumPy's error for operand k's diagonals (a label repeated within it) whose sizes differ,
  /// or nullopt: `sizes` are the operand's sizes where known (unknown ones are not compared).
  /// With one operand NumPy first walks the axes for a view and names a mismatch met there "in
  /// single operand"; at an axis it must sum it starts again on the general path, which names
  /// "operand k". The walk of NumPy 1.24 takes a size 0 as unset and gives a view of the next
  /// size (shape (1,) from a (0, 1) array: past its end); shapelab refuses that, in the walk's
  /// words.
  std::optional<std::string> diagonalError(std::size_t k, const std::vector<std::optional<Integer>> &sizes) const;
  bool operator==(const EinsumSpec &) const = default;
};

/// Reads `subscripts` as NumPy does (letters, one '...' per operand, ',' between operands, an
/// optional '->' and the output; spaces skipped), expanding each '...' by the operand's rank in
/// `ranks` (an operand past them has none). Throws SyntaxError (NumPy's message, the position
/// in `subscripts`). Whether the subscripts fit the operands is einsumOperandsError's.
EinsumSpec parseEinsum(const std::string &subscripts, const std::vector<std::size_t> &ranks);

/// NumPy's error for subscripts that do not fit operands of these ranks (their count, each
/// operand's axes, the output's labels), or nullopt. It does not depend on the sizes.
std::optional<std::string> einsumOperandsError(const EinsumSpec &spec, const std::vector<std::size_t> &ranks);

/// NumPy's message for sizes that do not broadcast. `shapes` are the operands' sizes as text;
/// an original is written with a diagonal once, a remapped shape over the iteration labels,
/// leading labels the operand lacks left out.
std::string einsumMismatchMessage(const EinsumSpec &spec, const std::vector<std::vector<std::string>> &shapes);

struct EinsumResult {
  Shape shape;                  // the output's
  std::vector<Shape> remapped;  // each operand over the iteration labels (static mode's marks)
  Validity validity;
  std::string message;
  Status status() const { return validity.status(); }
};

/// The output shape and validity of einsum(spec, operands of `shapes`). Subscripts that do not
/// fit the operands' ranks are an error of the result (einsumOperandsError). The operands are
/// arrays, which must be able to exist (sizes as dimensions, their count), unless `Known`.
EinsumResult resolveEinsum(Solver &solver, const Context &context, const EinsumSpec &spec,
                           const std::vector<Shape> &shapes, BroadcastMode mode = BroadcastMode::Numpy,
                           OperandsExist operandsExist = OperandsExist::Require);

} // namespace shapelab
