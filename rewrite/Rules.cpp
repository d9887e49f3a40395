#include "rewrite/Rules.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "ops/DType.h"
#include "ops/Graph.h"
#include "rewrite/Builtins.h"
#include "rewrite/Match.h"
#include "rewrite/Termination.h"
#include <map>

namespace shapelab::rewrite {

const char *spelling(Phase p) {
  switch (p) {
  case Phase::Canonicalize: return "canonicalize";
  case Phase::Specialize: return "specialize";
  default: return "fuse";
  }
}

std::string Term::toString() const {
  switch (kind) {
  case Var:
  case Name: return name;
  case Number: {
    std::ostringstream s;
    s << number;
    return s.str();
  }
  case Tuple: {
    std::string s = "(";
    for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].toString();
    return s + (args.size() == 1 ? ",)" : ")");
  }
  case Subscript: return args[0].toString() + "[" + name + "]";
  case Prop: return args[0].toString() + "." + name + (args.size() > 1 ? "[" + args[1].toString() + "]" : "");
  case Compare: return args[0].toString() + " " + name + " " + args[1].toString();
  case Logic:
    if (name == "not") return "not (" + args[0].toString() + ")";
    return "(" + args[0].toString() + " " + name + " " + args[1].toString() + ")";
  case Call: break;
  }
  std::string s = name + "(" + (list ? "[" : "");
  for (std::size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].toString();
  if (list) s += "]";
  for (std::size_t i = 0; i < keywords.size(); ++i)
    s += (args.empty() && i == 0 ? "" : ", ") + keywords[i].key + "=" + keywords[i].value.toString();
  return s + ")";
}

namespace {

/// Whether a pattern may match (a replacement may build) a call of `name`, beyond the
/// elementwise ufuncs and operators: the op list's Pattern (Build) rows.
bool allowed(const std::string &name, bool pattern) {
  const ops::FunctionInfo *f = ops::function(name);
  return f && f->has(pattern ? ops::fn::Pattern : ops::fn::Build);
}

/// The functions a condition may call, with their operand counts.
const std::map<std::string, std::size_t> &conditionFunctions() {
  static const std::map<std::string, std::size_t> table{{"is_float", 1},  {"is_integer", 1}, {"is_bool", 1},
                                                        {"is_signed", 1}, {"len", 1},        {"can_cast", 2},
                                                        {"is_basic", 1},  {"is_unit_slices", 1}};
  return table;
}

/// A condition's test of an index variable (`is_basic(i)`, `is_unit_slices(i)`).
bool isIndexTest(const Term &t) { return t.kind == Term::Call && (t.name == "is_basic" || t.name == "is_unit_slices"); }

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
    // "*" must not eat "**", "/" not "//", "=" not "==", "<" not "<=".
    if ((s == "*" || s == "/") && pos + 1 < text.size() && text[pos + 1] == s[0]) return false;
    if ((s == "=" || s == "<" || s == ">") && pos + 1 < text.size() && text[pos + 1] == '=') return false;
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

  Term make(Term::Kind kind, std::string name, std::vector<Term> args, std::size_t at) {
    Term t;
    t.kind = kind;
    t.name = std::move(name);
    t.args = std::move(args);
    t.at = at;
    return t;
  }
  Term call(std::string name, std::vector<Term> args) {
    std::size_t at = args.empty() ? pos : args[0].at;
    return make(Term::Call, std::move(name), std::move(args), at);
  }
  Term expression() { return disjunction(); }
  Term disjunction() {
    Term t = conjunction();
    while (accept("or")) t = make(Term::Logic, "or", {t, conjunction()}, t.at);
    return t;
  }
  Term conjunction() {
    Term t = negation();
    while (accept("and")) t = make(Term::Logic, "and", {t, negation()}, t.at);
    return t;
  }
  Term negation() {
    skip();
    std::size_t at = pos;
    if (accept("not")) return make(Term::Logic, "not", {negation()}, at);
    return comparison();
  }
  Term comparison() {
    Term t = additive();
    for (const char *op : {"==", "!=", "<=", ">=", "<", ">"})
      if (accept(op)) return make(Term::Compare, op, {t, additive()}, t.at);
    return t;
  }
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
    skip();
    std::size_t at = pos;
    if (accept("-")) {
      Term t = unary();
      if (t.kind == Term::Number) { // -1 is a number, as a program's literal is
        t.number = -t.number;
        t.at = at;
        return t;
      }
      return make(Term::Call, "negative", {t}, at);
    }
    return power();
  }
  Term power() {
    Term t = postfix();
    if (accept("**")) return call("power", {t, unary()});
    return t;
  }
  Term postfix() {
    Term t = atom();
    for (;;) {
      skip();
      std::size_t at = pos;
      if (accept(".")) {
        std::string what = word();
        if (what != "shape" && what != "ndim" && what != "dtype" && what != "size")
          fail("'" + what + "': a variable has .shape, .ndim, .dtype and .size", at + 1);
        if (t.kind != Term::Var && t.kind != Term::Subscript) fail("." + what + " of a variable (or of x[i]) only", at);
        t = make(Term::Prop, what, {t}, t.at);
      } else if (text.compare(pos, 1, "[") == 0 && t.kind == Term::Prop && t.name == "shape" && t.args.size() == 1) {
        ++pos;
        t.args.push_back(expression());
        expect("]");
      } else if (text.compare(pos, 1, "[") == 0 && (t.kind == Term::Var || t.kind == Term::Call || t.kind == Term::Subscript)) {
        // `x[i]`: one index variable standing for the whole index.
        ++pos;
        skip();
        const std::size_t at = pos;
        const char *what = "a subscript in a rule is one index variable: x[i] stands for the whole index (its slices, "
                           "integers, new axes and index array)";
        if (pos >= text.size() || !(std::isalpha(static_cast<unsigned char>(text[pos])) || text[pos] == '_')) fail(what, at);
        std::string index = word();
        if (!accept("]") || index == "None" || index == "True" || index == "False" || ops::dtypeNamed(index)) fail(what, at);
        t = make(Term::Subscript, index, {t}, t.at);
      } else {
        return t;
      }
    }
  }
  Term atom() {
    skip();
    std::size_t start = pos;
    if (accept("(")) {
      if (accept(")")) return make(Term::Tuple, "", {}, start);
      Term t = expression();
      if (!accept(",")) {
        expect(")");
        return t;
      }
      std::vector<Term> items{t};
      while (!accept(")")) {
        items.push_back(expression());
        if (!accept(",")) {
          expect(")");
          break;
        }
      }
      return make(Term::Tuple, "", std::move(items), start);
    }
    if (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      while (pos < text.size() && (std::isdigit(static_cast<unsigned char>(text[pos])) || text[pos] == '.')) ++pos;
      Term t;
      t.kind = Term::Number;
      t.at = start;
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
    bool opVariable = accept("$");
    std::string name = (opVariable ? "$" : "") + word();
    if (!accept("(")) {
      if (opVariable) fail("an op variable is called: " + name + "(x)", start);
      const bool constant = name == "True" || name == "False" || name == "None" || ops::dtypeNamed(name);
      return make(constant ? Term::Name : Term::Var, name, {}, start);
    }
    Term t = make(Term::Call, name, {}, start);
    if (accept("[")) {
      t.list = true;
      do t.args.push_back(expression());
      while (accept(","));
      expect("]");
      if (accept(",")) keywords(t);
      expect(")");
      return t;
    }
    if (accept(")")) return t;
    do {
      skip();
      std::size_t save = pos;
      if (pos < text.size() && (std::isalpha(static_cast<unsigned char>(text[pos])) || text[pos] == '_')) {
        (void)word();
        if (accept("=")) {
          pos = save;
          keywords(t);
          break;
        }
        pos = save;
      }
      if (!t.keywords.empty()) fail("a positional operand after a keyword", pos);
      t.args.push_back(expression());
    } while (accept(","));
    expect(")");
    return t;
  }
  /// `key=value, ...` to the end of a call's arguments.
  void keywords(Term &t) {
    do {
      skip();
      std::size_t at = pos;
      std::string key = word();
      expect("=");
      for (const auto &[k, v] : t.keywords)
        if (k == key) fail("the keyword '" + key + "' is given twice", at);
      t.keywords.push_back({key, expression()});
      t.keywords.back().value.at = at; // a message about an attribute points at its keyword
    } while (accept(","));
  }
};

bool bound(const std::vector<std::string> &names, const std::string &v) {
  return std::find(names.begin(), names.end(), v) != names.end();
}

/// An attribute value written in a pattern: an integer, a tuple of them, a name, or an attribute
/// variable (recorded in `attributes`).
void checkAttribute(const Term &t, const Parser &p, std::vector<std::string> &attributes) {
  switch (t.kind) {
  case Term::Var:
    if (std::find(attributes.begin(), attributes.end(), t.name) == attributes.end()) attributes.push_back(t.name);
    return;
  case Term::Name: return;
  case Term::Number:
    if (!t.integer) p.fail("an attribute is an integer, a tuple of integers, a bool, a dtype or None", t.at);
    return;
  case Term::Tuple:
    for (const Term &i : t.args)
      if (i.kind != Term::Number || !i.integer) p.fail("a tuple attribute holds integers", i.at);
    return;
  default: p.fail("an attribute is an integer, a tuple of integers, a bool, a dtype, None or a variable", t.at);
  }
}

/// Checks a pattern: operations of the op list (or op variables), node variables, numbers;
/// attributes the op's kind has.
void checkPattern(const Term &t, const Parser &p, Rule &r) {
  switch (t.kind) {
  case Term::Var:
    if (t.name == "self") p.fail("'self' names the matched node in a condition only", t.at);
    if (!bound(r.variables, t.name)) r.variables.push_back(t.name);
    return;
  case Term::Number: return;
  case Term::Call: break;
  case Term::Subscript:
    if (!bound(r.indexes, t.name)) r.indexes.push_back(t.name);
    checkPattern(t.args[0], p, r);
    return;
  default: p.fail("a pattern matches operations, variables and numbers", t.at);
  }
  if ((t.name == "set_subtensor" || t.name == "inc_subtensor") && (t.args.size() != 2 || t.args[0].kind != Term::Subscript))
    p.fail(t.name + " matches as " + t.name + "(x[i], v)", t.at);
  const bool ufunc = ops::isUnaryOp(t.name) || ops::isBinaryOp(t.name);
  if (t.opVariable()) {
    if (t.args.size() != 1 && t.args.size() != 2) p.fail("an op variable matches a unary or binary elementwise op", t.at);
  } else if (!ufunc && !allowed(t.name, true)) {
    p.fail("a pattern cannot match '" + t.name + "'", t.at);
  }
  if (ops::isUnaryOp(t.name) && t.args.size() != 1) p.fail(t.name + " takes one operand", t.at);
  if (ops::isBinaryOp(t.name) && t.args.size() != 2) p.fail(t.name + " takes two operands", t.at);
  if (!t.keywords.empty()) {
    const ops::FunctionInfo *f = ops::function(t.name);
    const std::vector<std::string> &keys = f && f->kind ? attributeKeys(*f->kind) : attributeKeys(ops::OpKind::Input);
    for (const auto &[k, v] : t.keywords) {
      if (!bound(keys, k)) {
        std::string known;
        for (const std::string &key : keys) known += (known.empty() ? "" : ", ") + key;
        p.fail("'" + t.name + "' has no attribute '" + k + "'" + (known.empty() ? "" : " (it has " + known + ")"), v.at);
      }
      checkAttribute(v, p, r.attributes);
    }
  }
  for (const Term &a : t.args) checkPattern(a, p, r);
}

/// Whether `t` holds a subterm written `text`.
bool containsTerm(const Term &t, const std::string &text) {
  if (t.toString() == text) return true;
  return std::any_of(t.args.begin(), t.args.end(), [&](const Term &a) { return containsTerm(a, text); });
}

/// Checks what a replacement or a condition reads: variables the pattern binds.
void checkBound(const Term &t, const Parser &p, const Rule &r, const char *place, bool allowSelf) {
  auto isIndex = [&](const Term &a) { return a.kind == Term::Var && bound(r.indexes, a.name); };
  if (isIndexTest(t)) {
    if (t.args.size() != 1 || !isIndex(t.args[0]))
      p.fail(t.name + " takes an index variable (bound by x[i] in the pattern)", t.at);
    return;
  }
  if (t.kind == Term::Subscript) {
    if (!bound(r.indexes, t.name))
      p.fail(std::string("the ") + place + " uses the index '" + t.name + "', which the pattern does not bind", t.at);
    // A condition reads x[i].shape of the node the pattern matched: the same subscript.
    if (std::string(place) == "condition" && r.pattern && !containsTerm(*r.pattern, t.toString()))
      p.fail("the condition reads " + t.toString() + ", which the pattern does not match", t.at);
  }
  if (isIndex(t))
    p.fail("'" + t.name + "' is an index: it is used as x[" + t.name + "], or in is_basic(" + t.name + ") or is_unit_slices(" + t.name + ")", t.at);
  if (t.kind == Term::Var) {
    if (t.name == "self" ? !allowSelf : !bound(r.variables, t.name) && !bound(r.attributes, t.name))
      p.fail(t.name == "self" ? std::string("'self' names the matched node in a condition or a shape only")
                              : std::string("the ") + place + " uses '" + t.name + "', which the pattern does not bind",
             t.at);
  }
  for (const Term &a : t.args) checkBound(a, p, r, place, allowSelf);
  for (const auto &kv : t.keywords) checkBound(kv.value, p, r, place, allowSelf);
}

bool isSizeTerm(const Term &t);
/// A shape in a replacement: `x.shape`, `self.shape`, or a tuple of sizes.
bool isShapeTerm(const Term &t) {
  if (t.kind == Term::Prop) return t.name == "shape" && t.args.size() == 1;
  if (t.kind == Term::Tuple) return std::all_of(t.args.begin(), t.args.end(), isSizeTerm);
  return false;
}
/// A size: an integer, `x.shape[i]`, `x.size`, `x.ndim`, arithmetic of them.
bool isSizeTerm(const Term &t) {
  if (t.kind == Term::Number) return t.integer;
  if (t.kind == Term::Var) return true; // an attribute variable (an integer where it is used)
  if (t.kind == Term::Prop) return t.name == "size" || t.name == "ndim" || (t.name == "shape" && t.args.size() == 2);
  if (t.kind == Term::Call && (t.name == "add" || t.name == "subtract" || t.name == "multiply"))
    return isSizeTerm(t.args[0]) && isSizeTerm(t.args[1]);
  return false;
}

/// Checks a replacement: every call is a ufunc, an op variable of the pattern, or a function the
/// op list lets rules build, with operands, shapes and attributes where its builder takes them.
void checkReplacement(const Term &t, const Parser &p, const Rule &r, const std::vector<std::string> &opVars) {
  switch (t.kind) {
  case Term::Var:
    if (t.name == "self") p.fail("'self' names the matched node in a condition or a shape only", t.at);
    if (!bound(r.variables, t.name))
      p.fail("the replacement uses '" + t.name + "', which the pattern does not bind" +
                 (bound(r.attributes, t.name) ? " as an array (it is an attribute)" : ""),
             t.at);
    return;
  case Term::Number: return;
  case Term::Call: break;
  case Term::Subscript:
    if (!bound(r.indexes, t.name)) p.fail("the replacement uses the index '" + t.name + "', which the pattern does not bind", t.at);
    checkReplacement(t.args[0], p, r, opVars);
    return;
  default: p.fail("a replacement builds operations of variables and numbers", t.at);
  }
  if (t.opVariable()) {
    if (!bound(opVars, t.name)) p.fail("the replacement uses '" + t.name + "', which the pattern does not bind", t.at);
    for (const Term &a : t.args) checkReplacement(a, p, r, opVars);
    return;
  }
  if (ops::isUnaryOp(t.name) || ops::isBinaryOp(t.name)) {
    if (t.args.size() != (ops::isUnaryOp(t.name) ? 1u : 2u))
      p.fail(t.name + (ops::isUnaryOp(t.name) ? " takes one operand" : " takes two operands"), t.at);
    if (!t.keywords.empty()) p.fail(t.name + " takes no attributes", t.keywords[0].value.at);
    for (const Term &a : t.args) checkReplacement(a, p, r, opVars);
    return;
  }
  const BuildSpec *spec = allowed(t.name, false) ? buildSpec(t.name) : nullptr;
  if (!spec) p.fail("a replacement cannot build '" + t.name + "'", t.at);
  const std::size_t given = t.list ? 1 : t.args.size();
  if (given > spec->params.size() || given + t.keywords.size() < spec->required)
    p.fail(t.name + " takes " + std::to_string(spec->required) + (spec->params.size() > spec->required ? " to " + std::to_string(spec->params.size()) : "") + " arguments here", t.at);
  for (std::size_t i = 0; i < given; ++i) {
    const Param kind = spec->params[i];
    if (kind == Param::Nodes) {
      if (!t.list) p.fail(t.name + " takes a list of arrays: " + t.name + "([x, y])", t.at);
      for (const Term &a : t.args) checkReplacement(a, p, r, opVars);
      break;
    }
    const Term &a = t.args[i];
    if (kind == Param::Node) checkReplacement(a, p, r, opVars);
    else if (kind == Param::Shape && !isShapeTerm(a)) p.fail("a shape: x.shape, self.shape or a tuple of sizes", a.at);
    else checkBound(a, p, r, "replacement", true);
  }
  for (const auto &[k, v] : t.keywords) {
    if (!bound(spec->keywords, k)) p.fail(t.name + " takes no attribute '" + k + "' here", v.at);
    checkBound(v, p, r, "replacement", true);
  }
}

/// What a condition's term computes, as far as the rule's text says (an attribute variable
/// may be any: its value decides where the rule is tried).
enum class Type { Any, Bool, Size, Sizes, Dtype, None };
const char *typeName(Type t) {
  switch (t) {
  case Type::Bool: return "a truth value";
  case Type::Size: return "a size";
  case Type::Sizes: return "a shape";
  case Type::Dtype: return "a dtype";
  case Type::None: return "None";
  default: return "a value";
  }
}
Type typeOf(const Term &t, const Parser &p, const Rule &r) {
  auto expect = [&](const Term &a, std::initializer_list<Type> ok) {
    Type k = typeOf(a, p, r);
    if (k != Type::Any && std::find(ok.begin(), ok.end(), k) == ok.end())
      p.fail(std::string("expected ") + typeName(*ok.begin()) + ", got " + typeName(k), a.at);
    return k;
  };
  switch (t.kind) {
  case Term::Var:
    if (bound(r.attributes, t.name)) return Type::Any;
    p.fail("'" + t.name + "' is an array: a condition reads its .shape, .ndim, .dtype or .size", t.at);
  case Term::Subscript: p.fail(t.toString() + " is an array: a condition reads its .shape, .ndim, .dtype or .size", t.at);
  case Term::Number:
    if (!t.integer) p.fail("a condition compares integers", t.at);
    return Type::Size;
  case Term::Name:
    if (t.name == "True" || t.name == "False") return Type::Bool;
    return t.name == "None" ? Type::None : Type::Dtype;
  case Term::Tuple:
    for (const Term &a : t.args) expect(a, {Type::Size});
    return Type::Sizes;
  case Term::Prop:
    if (t.name == "dtype") return Type::Dtype;
    if (t.name != "shape") return Type::Size;
    if (t.args.size() == 1) return Type::Sizes;
    return expect(t.args[1], {Type::Size, Type::Sizes}) == Type::Sizes ? Type::Sizes : Type::Size;
  case Term::Logic:
    for (const Term &a : t.args) expect(a, {Type::Bool});
    return Type::Bool;
  case Term::Compare: {
    Type a = typeOf(t.args[0], p, r), b = typeOf(t.args[1], p, r);
    const bool equality = t.name == "==" || t.name == "!=";
    auto sizes = [](Type k) { return k == Type::Size || k == Type::Sizes; };
    if (a == Type::Any || b == Type::Any || (sizes(a) && sizes(b) && (equality || a == Type::Size || b == Type::Size)) ||
        (a == b && equality))
      return Type::Bool;
    p.fail(std::string("cannot compare ") + typeName(a) + " with " + typeName(b) + (equality ? "" : " by " + t.name), t.at);
  }
  case Term::Call:
    if (t.name == "add") { // sizes add, tuples join
      Type a = expect(t.args[0], {Type::Size, Type::Sizes}), b = expect(t.args[1], {Type::Size, Type::Sizes});
      if (a != Type::Any && b != Type::Any && a != b) p.fail(std::string("cannot add ") + typeName(a) + " and " + typeName(b), t.at);
      return a == Type::Any ? b : a;
    }
    if (t.name == "subtract" || t.name == "multiply" || t.name == "negative") {
      for (const Term &a : t.args) expect(a, {Type::Size});
      return Type::Size;
    }
    if (t.name == "len") {
      expect(t.args[0], {Type::Sizes});
      return Type::Size;
    }
    if (isIndexTest(t)) return Type::Bool; // of an index (checkBound)
    for (const Term &a : t.args)
      if (a.kind != Term::Var || bound(r.attributes, a.name)) expect(a, {Type::Dtype});
    return Type::Bool;
  }
  return Type::Any;
}

void checkCondition(const Term &t, const Parser &p, const Rule &r) {
  if (t.kind == Term::Call && t.name != "add" && t.name != "subtract" && t.name != "multiply" && t.name != "negative") {
    auto it = conditionFunctions().find(t.name);
    if (it == conditionFunctions().end()) {
      std::string known;
      for (const auto &kv : conditionFunctions()) known += (known.empty() ? "" : ", ") + kv.first;
      p.fail("a condition cannot call '" + t.name + "' (it may call " + known + ")", t.at);
    }
    if (t.args.size() != it->second) p.fail(t.name + " takes " + std::to_string(it->second) + " operand" + (it->second == 1 ? "" : "s"), t.at);
  }
  if (t.kind == Term::Call && !t.keywords.empty()) p.fail("a condition's call takes no keywords", t.at);
  for (const Term &a : t.args) checkCondition(a, p, r);
}

/// In a pattern or replacement a comparison is the ufunc (`x < y` is less(x, y)).
void comparisonsAsUfuncs(Term &t) {
  if (t.kind == Term::Compare) {
    static const std::map<std::string, std::string> names{{"==", "equal"},      {"!=", "not_equal"}, {"<", "less"},
                                                          {"<=", "less_equal"}, {">", "greater"},    {">=", "greater_equal"}};
    t.kind = Term::Call;
    t.name = names.at(t.name);
  }
  for (Term &a : t.args) comparisonsAsUfuncs(a);
}

void collectOpVariables(const Term &t, std::vector<std::string> &out) {
  if (t.opVariable() && !bound(out, t.name)) out.push_back(t.name);
  for (const Term &a : t.args) collectOpVariables(a, out);
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
      } else if (key == "pytensor") {
        if (value.empty() || value.find_first_of(" \t") != std::string::npos) p.fail("pytensor: the name of one PyTensor rewrite", p.pos);
        r.pytensor = value;
      } else if (key == "example") {
        if (value.empty()) p.fail("an example needs an expression", p.pos);
        r.examples.push_back(value);
      } else {
        p.fail("unknown option '" + key + "' (phase, exact, example, pytensor)", 0);
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
    comparisonsAsUfuncs(*r.pattern);
    if (r.pattern->kind != Term::Call && r.pattern->kind != Term::Subscript)
      p.fail("a pattern must be an operation, not a variable or number", patternAt);
    checkPattern(*r.pattern, p, r);
    for (const std::string &a : r.attributes)
      if (bound(r.variables, a)) p.fail("'" + a + "' names both an array and an attribute", patternAt);
    for (const std::string &i : r.indexes)
      if (bound(r.variables, i) || bound(r.attributes, i)) p.fail("'" + i + "' names both an index and an array or attribute", patternAt);
    std::vector<std::string> opVars;
    collectOpVariables(*r.pattern, opVars);
    p.expect("->");
    p.skip();
    r.replacement = p.expression();
    comparisonsAsUfuncs(*r.replacement);
    checkReplacement(*r.replacement, p, r, opVars);
    if (p.accept("if")) {
      r.condition = p.expression();
      checkBound(*r.condition, p, r, "condition", true);
      checkCondition(*r.condition, p, r);
      if (Type k = typeOf(*r.condition, p, r); k != Type::Bool && k != Type::Any)
        p.fail(std::string("a condition is a comparison or a test, not ") + typeName(k), r.condition->at);
    }
    if (!p.atEnd()) p.fail("unexpected text after the rule", p.pos);
    rules.push_back(std::move(r));
  }
  checkTermination(rules);
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
