// Signature — generalized-ufunc signatures: NumPy's grammar (NEP 20) and shapelab's extensions.
//
// Grammar, as NumPy's C parser reads it (shared/reference/gufunc-notes.md §2): arguments
// "(d, d, ...)" separated by ',', inputs "->" outputs; a dim is a name [A-Za-z_][A-Za-z0-9_]*
// or a frozen size (decimal > 0, leading zeros allowed), optionally followed directly by '?';
// blanks and tabs between tokens. Errors carry NumPy's wording and position:
//   expect dimension name or non-zero frozen size at position 1 in "((i)),(i)->()"
// nin and nout are read from the text (NumPy takes them from the ufunc).
// Extensions:
//   * `n|1` — NEP 20's broadcastable dims (never shipped by NumPy). Our reading: sizes of a
//     `|1` name must be equal or 1 across inputs, and it resolves to the one other than 1;
//     every input occurrence must carry `|1`, outputs must not, and `?|1` is refused.
//   * size expressions in core dims: `(m)->(m-1)`, `(m),(n)->(m+n-1)`, `(n,d)->(n*(n-1)//2)`,
//     `(m),(n)->(max(m,n))`, `(n),(n+1,n)->()`. A dim that is not a plain name or size is an
//     expression in shapelab's syntax (it must start with a name or digit).
//   * shape-only parameters `<n>` / `<n,m>` / `<>`: values given at call time (Warren
//     Weckesser's proposal, notes §5.4); only in inputs, no literals, names distinct and not in
//     any other input.
// Invariant: a parsed Signature only names dims that are well-formed; every name has one
// consistent `?` / `|1` flag.
#pragma once

#include <string>
#include <vector>

#include "symbolic/Expr.h"

namespace shapelab {

struct CoreDim {
  enum class Kind { Name, Fixed, Expression };
  Kind kind = Kind::Name;
  std::string name;   // Name
  Integer size;       // Fixed
  Expr expression;    // Expression, over the scoped parameters of the signature's dims (`__n`)
  std::string text;   // as written
  bool optional = false;      // '?'
  bool broadcastable = false; // '|1'
  std::size_t position = 0;   // in the signature text
};

struct CoreArgument {
  std::vector<CoreDim> dims;
  bool shapeOnly = false; // <...>
};

struct Signature {
  std::string text;
  std::vector<CoreArgument> inputs, outputs;
  /// Distinct dims in order of first appearance: names by name, frozen sizes as "#3";
  /// expressions are not listed.
  std::vector<std::string> dimIds;
  /// True when every argument is "()" — NumPy then treats it as a plain elementwise ufunc.
  bool elementwise() const;
};

Signature parseSignature(const std::string &text);

/// Signature dimension names live in their own scope, apart from the caller's size parameters
/// (a call may pass a shape `(n,)` to a signature that also names a dim `n`). Inside a
/// `CoreDim::expression` the dim `n` is the reserved parameter `__n`; these convert.
std::string scopedName(const std::string &dimName);
/// The dim name of a scoped parameter name (`__n` -> `n`); other names are returned unchanged.
std::string unscopedName(const std::string &parameterName);

} // namespace shapelab
