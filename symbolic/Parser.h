// Parser — the Python-like text syntax of dimension expressions and predicates.
//
// Grammar (loosest binding first; as in Python, `x if c else y` is loosest, `not` binds
// looser than comparisons, and comparisons chain: `0 <= n < 10` means `0 <= n and n < 10`):
//
//   ternary     := disjunction ['if' disjunction 'else' ternary]
//   disjunction := conjunction ('or' conjunction)*
//   conjunction := inversion ('and' inversion)*
//   inversion   := 'not' inversion | comparison
//   comparison  := sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)*
//   sum         := product (('+'|'-') product)*
//   product     := unary (('*'|'//'|'/'|'%') unary)*
//   unary       := ('-'|'+') unary | power
//   power       := primary ['**' unary]
//   primary     := INTEGER | NAME | 'True' | 'False' | ('min'|'max') '(' args ')' | '(' ternary ')'
//
// Divisors of `//`, `%`, `/` must be positive integer constants and exponents non-negative
// constants (anything else leaves the decidable fragment and is refused with a caret).
// Example: parseExpr("(n*(n-1))/2") is the exact half of n² − n, defined where it is even.
// Invariant: parse(print(x)) is x, for every expression and predicate (tests check it).
// Every error is a SyntaxError carrying the text and the byte offset of the problem. The grammar
// is checked over the whole text before any value is built, so a text with a syntax error is
// refused at its first syntax error, even where a part before it has a divisor or exponent that
// is not a constant or passes a size limit (errors found only by building the value).
#pragma once

#include <string>
#include <variant>

#include "symbolic/Errors.h"
#include "symbolic/Expr.h"

namespace shapelab {

/// Longest text any parser reads (expressions, predicates, shapes, signatures); longer text is
/// refused ("the text is too long") before any work is done.
inline constexpr std::size_t kMaxTextBytes = 65536;

/// NAME in the grammar: an ASCII letter or '_', then ASCII letters, digits and '_', whatever the C
/// locale. Parameter names (Expr::param) and signature dimension names follow the same rule, so a
/// name that is accepted is read back.
constexpr bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
constexpr bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9'); }

struct ParseOptions {
  /// Accept names in the reserved `_` namespace (for shapelab's own round trips).
  bool allowReservedNames = false;
  /// Read a bracketed group whose bytes repeat an earlier group's once, taking the earlier
  /// value (the printed form of a DAG repeats each shared node). The result, errors and caret
  /// positions included, is the same either way; off, every group is read in full.
  bool reuseGroups = true;
  /// Where given, counts the groups this parse took from an earlier group instead of reading
  /// them (zero means the parse was the same as a read in full: every group was read).
  std::size_t *groupsReused = nullptr;
};

Expr parseExpr(const std::string &text, ParseOptions options = {});
Pred parsePred(const std::string &text, ParseOptions options = {});
/// Either kind, as the text says (`n + 1` is an expression, `n > 1` a predicate): one parse where
/// a caller would otherwise try one kind and then the other.
std::variant<Expr, Pred> parseExprOrPred(const std::string &text, ParseOptions options = {});
/// parseExprOrPred, giving the SyntaxError it would throw instead of throwing it: for a caller
/// that reads many texts that may not parse (a line as it is typed, a fuzzer), where a throw
/// costs more than reading a short text. Other errors (InternalError) are still thrown.
/// Example: `auto r = tryParseExprOrPred("n +"); std::get<SyntaxError>(r).position() == 3`.
std::variant<Expr, Pred, SyntaxError> tryParseExprOrPred(const std::string &text, ParseOptions options = {});

/// Parses one expression starting at `position` inside a larger text (shapes, signatures)
/// and stops before the first token that cannot continue it; updates `position`. Errors point
/// into `text`. `stopAtComparison` stops before `<`, `>` (for `<n>` shape-only lists).
Expr parseExprPrefix(const std::string &text, std::size_t &position, ParseOptions options = {},
                     bool stopAtComparison = false);

} // namespace shapelab
