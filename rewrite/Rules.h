// Rules — rewrite rules as data: the text format, its parser, and the rule table (DESIGN §3.6).
//
// Model: a rule file holds one rule per `rule` or `builtin` line, with indented option lines
// after it (phase, exact, example). A pattern rule reads `rule NAME: PATTERN -> REPLACEMENT
// [if CONDITION]`: the pattern is a term over pattern variables (lower-case names), numbers,
// operators and calls spelled as in programs; the replacement is built from the variables with
// the ops' factories; the condition is a conjunction of shape, dtype and rank equalities that
// must be proven where the rule fires. A builtin names a rewrite written in C++ (Builtins.cpp),
// kept in the same table so the engine, the checker and `:rules` treat both alike.
// Refused when loaded, with file, line and column: text that does not parse, a replacement or
// condition using a variable the pattern does not bind, a call the engine cannot match or
// build, an unknown builtin or option.
// Example: `rule mul_div_cancel: (x * y) / y -> x if self.shape == x.shape` matches
// true_divide(multiply(a, b), b) with x = a, y = b.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "symbolic/Errors.h"

namespace shapelab::rewrite {

/// A rule file that does not load: the message names the file, line and column.
class RuleError : public UserError {
public:
  using UserError::UserError;
};

/// A term of a rule: a pattern, a replacement or a condition (one grammar; what each place
/// accepts is checked when the rule is loaded).
///   Var      a pattern variable (a node), an attribute variable (bound by `axis=a`), or `self`
///   Number   a literal (`-1` is one number)
///   Call     an op: a ufunc, a function of the op list, an op variable `$f` (any elementwise op
///            of the same arity; the same op where it recurs), or a condition's function
///            (`is_float(x)`, `len(a)`, `can_cast(d1, d2)`); `keywords` give attributes
///   Name     True, False, None or a dtype name
///   Tuple    `(0, 1)`, `(x.shape[0], 1)`, `()`
///   Prop     `x.shape`, `x.ndim`, `x.dtype`, `x.size` (args[0] the variable), with an index
///            `x.shape[i]` as args[1]
///   Compare  `==`, `!=`, `<`, `<=`, `>`, `>=` (name) of args[0] and args[1]
///   Logic    `and`, `or`, `not` (name) of args
///   Subscript `x[i]` (args[0] the array, name the index variable): in a pattern, an indexing
///            (NumPy's basic indexing, or one index array) binding its whole index to i; in a
///            replacement, the same index applied to another array; `x[i].shape` in a condition
struct Keyword;

struct Term {
  enum Kind { Var, Number, Call, Name, Tuple, Prop, Compare, Logic, Subscript } kind = Var;
  std::string name;
  double number = 0;       // Number
  bool integer = false;    // Number: written without a point
  bool list = false;       // Call: the operands were written as one list (concatenate([x]))
  std::vector<Term> args;
  std::vector<Keyword> keywords; // Call: `axis=a`
  std::size_t at = 0;      // the column it starts at (for messages)
  bool opVariable() const { return kind == Call && !name.empty() && name[0] == '$'; }
  std::string toString() const;
};

// A call's `key=value` (a struct, not a pair: a pair would need Term complete inside Term).
struct Keyword {
  std::string key;
  Term value;
};

enum class Phase { Canonicalize, Specialize, Fuse };
const char *spelling(Phase p);

struct Rule {
  std::string name;
  bool builtin = false;
  Phase phase = Phase::Canonicalize;
  bool exact = true;                 // keeps values bit for bit (not only shapes)
  std::optional<Term> pattern, replacement;
  std::optional<Term> condition;     // must be proven where the rule fires
  std::string pytensor;              // the PyTensor rewrite it transcribes (`pytensor:` option), or ""
  std::string text;                  // the rule as written (one line)
  std::string description;           // builtin: what it does
  std::vector<std::string> examples; // program expressions it rewrites (for the checker)
  std::vector<std::string> variables;// the pattern's node variables, in order of appearance
  std::vector<std::string> attributes;// its attribute variables (`sum(x, axis=a)`: a)
  std::vector<std::string> indexes;  // its index variables (`x[i]`: i)
  std::string file;
  int line = 0;
  /// What it does: a builtin's description, a pattern rule's text after "NAME: ".
  std::string body() const { return builtin ? description : text.substr(text.find(':') + 2); }
  /// "NAME [phase, inexact]: body", the rule table's line.
  std::string heading() const {
    return name + " [" + spelling(phase) + (exact ? "" : ", inexact") + (pytensor.empty() ? "" : ", pytensor: " + pytensor) +
           "]: " + body();
  }
};

/// Parses a rule file's text. Throws RuleError ("FILE:LINE:COL: message").
std::vector<Rule> parseRules(const std::string &text, const std::string &file);
/// Reads and parses a file.
std::vector<Rule> loadRules(const std::string &path);
/// The rules shipped with shapelab (rewrite/rules/default.rules, compiled in).
const std::vector<Rule> &defaultRules();
/// The shipped rule file's text.
const std::string &defaultRulesText();

} // namespace shapelab::rewrite
