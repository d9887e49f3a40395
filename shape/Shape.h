// Shape — a tuple of dimension expressions, and its text form.
//
// Model: a shape is a sequence of dimensions, each an Expr over size parameters; a concrete
// shape has only constants. Text: "(2, 3)", "()", "(3,)", "(n, m + 1)"; a bare "3" is "(3,)"
// as in NumPy. Printing follows NumPy: "(3,)", "(1, 3)", "()".
// Invariant: a parsed constant dimension is >= 0 (a negative literal is refused with a caret).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "symbolic/Expr.h"

namespace shapelab {

using Shape = std::vector<Expr>;

/// Parses a shape; throws SyntaxError with the position of the problem.
Shape parseShape(const std::string &text);
/// Parses "(...)" starting at `position` inside `text` (for lists of shapes); with `angle`,
/// parses "<...>" instead (shape-only values). Updates `position`.
Shape parseShapeAt(const std::string &text, std::size_t &position, bool angle = false);

/// NumPy's spelling: "(3,)", "(1, 3)", "()"; symbolic dims printed as expressions.
std::string toString(const Shape &s);
/// The values of a concrete shape.
std::optional<std::vector<Integer>> concreteValues(const Shape &s);

/// The product of the sizes other than 0 of a concrete shape: what must be at most 2**63 - 1 for
/// the array to exist. NumPy's constructor skips a zero size when it multiplies the sizes, so
/// (0, 7, 2**62) is refused though it has no element ("array is too big").
Integer nonZeroProduct(const std::vector<Integer> &dims);

/// What is wrong with a concrete shape whose nonZeroProduct is above 2**63 - 1, after
/// `subject` ("arg 0 with shape (7, 2**62)"): "has more than 2**63 - 1 elements", or, with a
/// 0 among the sizes, "is too big to exist: ...".
std::string tooBigToExist(const std::string &subject, const std::vector<Integer> &dims);

} // namespace shapelab
