#include "rewrite/Rules.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "ops/DType.h"
#include "ops/Graph.h"
#include "rewrite/Builtins.h"

namespace shapelab::rewrite {

const char *spelling(Phase p) {
  switch (p) {
  case Phase::Canonicalize: return "canonicalize";
  case Phase::Specialize: return "specialize";
  default: return "fuse";
  }
}

std::string Term::toString() const {
  if (kind == Var) return name;
  if (kind == Number) {
    std::ostringstream s;
    s << number;
    return s.str();
  }
  std::string s = name + "(" + (list ? "[" : "");
  for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].toString();
  return s + (list ? "])" : ")");
}

namespace {

/// Whether a pattern may match (a replacement may build) a call of `name`, beyond the
/// elementwise ufuncs and operators: the op list's Pattern (Build) rows.
bool allowed(const std::string &name, bool pattern) {
  const ops::FunctionInfo *f = ops::function(name);
  return f && f->has(pattern ? ops::fn::Pattern : ops::fn::Build);
}

struct Parser {
  const std::string &text;
  std::size_t pos = 0;
  std::string where; // "FILE:LINE:"

  [[noreturn]] void fail(const std::string &message, std::size_t at) const {
    throw RuleError(where + std::to_string(at + 1) + ": " + message);
  }
  void skip() {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  }
  bool accept(const std::string &s) {
    skip();
    if (text.compare(pos, s.size(), s) != 0) return false;
    // A word must end at a non-word character.
    if (std::isalpha(static_cast<unsigned char>(s[0])) && pos + s.size() < text.size() &&
        (std::isalnum(static_cast<unsigned char>(text[pos + s.size()])) || text[pos + s.size()] == '_'))
      return false;
    // "*" must not eat "**", "/" not "//".
    if ((s == "*" || s == "/") && pos + 1 < text.size() && text[pos + 1] == s[0]) return false;
    if (s == "-" && pos + 1 < text.size() && text[pos + 1] == '>') return false; // "->"
    pos += s.size();
    return true;
  }
  void expect(const std::string &s) {
    if (!accept(s)) fail("expected '" + s + "'", pos);
  }
  std::string word() {
    skip();
    std::size_t start = pos;
    while (pos < text.size() && (std::isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_')) ++pos;
    if (start == pos || std::isdigit(static_cast<unsigned char>(text[start]))) fail("expected a name", start);
    return text.substr(start, pos - start);
  }
  bool atEnd() {
    skip();
    return pos >= text.size();
  }

  Term call(std::string name, std::vector<Term> args, bool list = false) {
    Term t;
    t.kind = Term::Call;
    t.name = std::move(name);
    t.args = std::move(args);
    t.list = list;
    return t;
  }
  Term expression() { return additive(); }
  Term additive() {
    Term t = multiplicative();
    for (;;) {
      if (accept("+")) t = call("add", {t, multiplicative()});
      else if (accept("-")) t = call("subtract", {t, multiplicative()});
      else return t;
    }
  }
  Term multiplicative() {
    Term t = unary();
    for (;;) {
      if (accept("*")) t = call("multiply", {t, unary()});
      else if (accept("//")) t = call("floor_divide", {t, unary()});
      else if (accept("/")) t = call("true_divide", {t, unary()});
      else if (accept("%")) t = call("remainder", {t, unary()});
      else return t;
    }
  }
  Term unary() {
    if (accept("-")) return call("negative", {unary()});
    return power();
  }
  Term power() {
    Term t = atom();
    if (accept("**")) return call("power", {t, unary()});
    return t;
  }
  Term atom() {
    skip();
    std::size_t start = pos;
    if (accept("(")) {
      Term t = expression();
      expect(")");
      return t;
    }
    if (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      while (pos < text.size() && (std::isdigit(static_cast<unsigned char>(text[pos])) || text[pos] == '.')) ++pos;
      Term t;
      t.kind = Term::Number;
      std::string digits = text.substr(start, pos - start);
      t.integer = digits.find('.') == std::string::npos;
      std::size_t used = 0;
      try {
        t.number = std::stod(digits, &used);
      } catch (const std::exception &) {
      }
      if (used != digits.size()) fail("bad number '" + digits + "'", start); // 1.2.3 is no 1.2
      return t;
    }
    std::string name = word();
    if (!accept("(")) {
      Term t;
      t.name = name;
      return t;
    }
    std::vector<Term> args;
    bool list = false;
    if (accept("[")) {
      list = true;
      do args.push_back(expression());
      while (accept(","));
      expect("]");
    } else if (!accept(")")) {
      do args.push_back(expression());
      while (accept(","));
    } else {
      return call(name, {});
    }
    expect(")");
    return call(name, std::move(args), list);
  }

  Condition conjunct() {
    std::size_t start = (skip(), pos);
    std::string a = word();
    expect(".");
    std::string what = word();
    expect("==");
    Condition c;
    c.a = a;
    if (what == "shape" || what == "dtype") {
      skip();
      std::size_t at = pos;
      std::string b = word();
      if (accept(".")) {
        std::string bwhat = word();
        if (bwhat != what) fail("compare " + what + " with " + what, at);
        c.kind = what == "shape" ? Condition::SameShape : Condition::SameDtype;
        c.b = b;
      } else {
        if (what == "shape") fail("compare a shape with another variable's shape (B.shape)", at);
        if (!ops::dtypeNamed(b)) fail("unknown dtype '" + b + "'", at);
        c.kind = Condition::DtypeIs;
        c.b = b;
      }
    } else if (what == "ndim") {
      skip();
      std::size_t at = pos;
      std::size_t end = at;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      if (end == at) fail("expected a rank", at);
      c.kind = Condition::RankIs;
      c.rank = std::stoll(text.substr(at, end - at));
      pos = end;
    } else {
      fail("a condition compares .shape, .dtype or .ndim", start);
    }
    return c;
  }
};

void collectVariables(const Term &t, std::vector<std::string> &out) {
  if (t.kind == Term::Var && std::find(out.begin(), out.end(), t.name) == out.end()) out.push_back(t.name);
  for (const Term &a : t.args) collectVariables(a, out);
}

/// Checks that every call in `t` is one the engine can match (pattern) or build (replacement),
/// and that a replacement only uses bound variables.
void checkTerm(const Term &t, bool pattern, const std::vector<std::string> &bound, const Parser &p, std::size_t at) {
  if (t.kind == Term::Var) {
    if (t.name == "self") p.fail("'self' names the matched node in a condition only", at);
    if (!pattern && std::find(bound.begin(), bound.end(), t.name) == bound.end())
      p.fail("the replacement uses '" + t.name + "', which the pattern does not bind", at);
    return;
  }
  if (t.kind == Term::Call) {
    bool ufunc = ops::isUnaryOp(t.name) || ops::isBinaryOp(t.name);
    if (!ufunc && !allowed(t.name, pattern))
      p.fail(std::string(pattern ? "a pattern cannot match '" : "a replacement cannot build '") + t.name + "'", at);
    if (ops::isUnaryOp(t.name) && t.args.size() != 1) p.fail(t.name + " takes one operand", at);
    if (ops::isBinaryOp(t.name) && t.args.size() != 2) p.fail(t.name + " takes two operands", at);
    for (const Term &a : t.args) checkTerm(a, pattern, bound, p, at);
  }
}

} // namespace

std::vector<Rule> parseRules(const std::string &text, const std::string &file) {
  std::vector<Rule> rules;
  std::set<std::string> names;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string where = file + ":" + std::to_string(number) + ":";
    std::string body = line.substr(0, line.find('#'));
    if (std::all_of(body.begin(), body.end(), [](unsigned char c) { return std::isspace(c); })) continue;
    Parser p{body, 0, where};
    if (std::isspace(static_cast<unsigned char>(body[0]))) {
      // An option of the rule above.
      if (rules.empty()) p.fail("an indented option line needs a rule above it", 0);
      Rule &r = rules.back();
      std::string key = p.word();
      p.expect(":");
      p.skip();
      std::string value = body.substr(p.pos);
      while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
      if (key == "phase") {
        if (value == "canonicalize") r.phase = Phase::Canonicalize;
        else if (value == "specialize") r.phase = Phase::Specialize;
        else if (value == "fuse") r.phase = Phase::Fuse;
        else p.fail("unknown phase '" + value + "' (canonicalize, specialize, fuse)", p.pos);
      } else if (key == "exact") {
        if (value != "yes" && value != "no") p.fail("exact: yes or no", p.pos);
        r.exact = value == "yes";
      } else if (key == "example") {
        if (value.empty()) p.fail("an example needs an expression", p.pos);
        r.examples.push_back(value);
      } else {
        p.fail("unknown option '" + key + "' (phase, exact, example)", 0);
      }
      continue;
    }
    Rule r;
    r.file = file;
    r.line = number;
    r.text = body;
    while (!r.text.empty() && std::isspace(static_cast<unsigned char>(r.text.back()))) r.text.pop_back();
    std::string kind = p.word();
    if (kind != "rule" && kind != "builtin") p.fail("expected 'rule' or 'builtin', got '" + kind + "'", 0);
    r.builtin = kind == "builtin";
    p.skip();
    std::size_t nameAt = p.pos;
    r.name = p.word();
    if (!names.insert(r.name).second) p.fail("a rule named '" + r.name + "' is defined above", nameAt);
    p.expect(":");
    if (r.builtin) {
      if (!isBuiltin(r.name)) p.fail("no builtin rewrite is named '" + r.name + "'", nameAt);
      p.skip();
      r.description = body.substr(p.pos);
      while (!r.description.empty() && std::isspace(static_cast<unsigned char>(r.description.back()))) r.description.pop_back();
      rules.push_back(std::move(r));
      continue;
    }
    p.skip();
    std::size_t patternAt = p.pos;
    r.pattern = p.expression();
    if (r.pattern->kind != Term::Call) p.fail("a pattern must be an operation, not a variable or number", patternAt);
    collectVariables(*r.pattern, r.variables);
    checkTerm(*r.pattern, true, r.variables, p, patternAt);
    p.expect("->");
    p.skip();
    std::size_t replacementAt = p.pos;
    r.replacement = p.expression();
    checkTerm(*r.replacement, false, r.variables, p, replacementAt);
    if (p.accept("if")) {
      do {
        p.skip();
        std::size_t at = p.pos;
        Condition c = p.conjunct();
        for (const std::string &v : {c.a, c.kind == Condition::SameShape || c.kind == Condition::SameDtype ? c.b : std::string("self")})
          if (v != "self" && std::find(r.variables.begin(), r.variables.end(), v) == r.variables.end())
            p.fail("the condition uses '" + v + "', which the pattern does not bind", at);
        r.condition.push_back(c);
      } while (p.accept("and"));
    }
    if (!p.atEnd()) p.fail("unexpected text after the rule", p.pos);
    rules.push_back(std::move(r));
  }
  return rules;
}

std::vector<Rule> loadRules(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw RuleError("cannot read the rule file " + path);
  std::stringstream s;
  s << in.rdbuf();
  return parseRules(s.str(), path);
}

const std::vector<Rule> &defaultRules() {
  static const auto *rules = new std::vector<Rule>(parseRules(defaultRulesText(), "rewrite/rules/default.rules"));
  return *rules;
}

} // namespace shapelab::rewrite
