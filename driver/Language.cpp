#include "driver/Language.h"

#include <charconv>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <set>
#include <unordered_map>

#include "driver/Json.h"
#include "interp/Interpreter.h"
#include "interp/Optimized.h"
#include "ops/Graph.h"
#include "rewrite/Engine.h"
#include "shape/RandomVariable.h"
#include "symbolic/Errors.h"
#include "support/FlatIndex.h"
#include "symbolic/Parser.h"

namespace shapelab::driver {

using interp::Array;
using ops::DType;
using ops::IndexEntry;
using ops::Node;

namespace {

/// Whether `s` is the literal `lit`: its length first (known when compiled), so that most
/// comparisons of a name or an operator against the language's words end at one test.
template <std::size_t N> inline bool is(std::string_view s, const char (&lit)[N]) {
  return s.size() == N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}

/// An error at a byte position of the line.
struct LangError {
  std::string message;
  std::size_t position;
};

// ---------------------------------------------------------------------------------------------
// Tokens.

struct Token {
  enum Kind { Name, Int, Float, String, Op, End } kind = End;
  std::string text;
  std::size_t pos = 0;
};

// Character classes of names and numbers, in ASCII whatever the C locale says.
constexpr bool isDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
constexpr bool isNameChar(char c) { return isNameStart(c) || isDigit(c); }

/// The operator that starts at line[i] (the longest one), or 0 characters.
std::size_t operatorLength(const std::string &line, std::size_t i) {
  auto next = [&](std::size_t k) { return i + k < line.size() ? line[i + k] : '\0'; };
  switch (line[i]) {
  case '.': return next(1) == '.' && next(2) == '.' ? 3 : 1;
  case '*': return next(1) == '*' ? 2 : 1;
  case '/': return next(1) == '/' ? 2 : 1;
  case '=': case '<': case '>': return next(1) == '=' ? 2 : 1;
  case '!': return next(1) == '=' ? 2 : 0;
  case '(': case ')': case '[': case ']': case ',': case ':': case '+': case '-': case '%': case '@': case '&':
  case '|': case '^': case '~': return 1;
  default: return 0;
  }
}

/// The tokens of `line` into `out` (emptied first; its storage is reused from line to line).
void tokenize(const std::string &line, std::vector<Token> &out) {
  out.clear();
  // Each token is made in place (its text assigned, short texts staying in the string itself).
  auto add = [&](Token::Kind kind, std::size_t from, std::size_t length) {
    Token &t = out.emplace_back();
    t.kind = kind;
    t.text.assign(line, from, length);
    t.pos = from;
  };
  std::size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#') break;
    if (isNameStart(c)) {
      std::size_t s = i;
      while (i < line.size() && isNameChar(line[i])) ++i;
      add(Token::Name, s, i - s);
      continue;
    }
    if (isDigit(c) || (c == '.' && i + 1 < line.size() && isDigit(line[i + 1]))) {
      std::size_t s = i;
      bool isFloat = false;
      while (i < line.size() && isDigit(line[i])) ++i;
      if (i < line.size() && line[i] == '.' && line.compare(i, 3, "...") != 0) {
        isFloat = true;
        ++i;
        while (i < line.size() && isDigit(line[i])) ++i;
      }
      if (i < line.size() && (line[i] == 'e' || line[i] == 'E')) {
        std::size_t e = i + 1;
        if (e < line.size() && (line[e] == '+' || line[e] == '-')) ++e;
        if (e < line.size() && isDigit(line[e])) {
          isFloat = true;
          i = e;
          while (i < line.size() && isDigit(line[i])) ++i;
        }
      }
      if (i < line.size() && isNameStart(line[i])) throw LangError{"invalid number literal", s};
      add(isFloat ? Token::Float : Token::Int, s, i - s);
      continue;
    }
    if (c == '"' || c == '\'') {
      std::size_t s = i++;
      std::string text;
      while (i < line.size() && line[i] != c) {
        if (line[i] == '\\' && i + 1 < line.size()) ++i;
        text += line[i++];
      }
      if (i >= line.size()) throw LangError{"unterminated string", s};
      ++i;
      out.push_back({Token::String, std::move(text), s});
      continue;
    }
    const std::size_t n = operatorLength(line, i);
    if (n == 0) {
      // A character outside ASCII is named whole (`é`), a byte that begins none as an escape.
      const std::size_t length = std::max<std::size_t>(1, utf8SequenceLength(line, i));
      throw LangError{"unexpected character '" + printable(line.substr(i, length)) + "'", i};
    }
    add(Token::Op, i, n);
    i += n;
  }
  add(Token::End, line.size(), 0);
}

// ---------------------------------------------------------------------------------------------
// Values of the language.

/// What an expression of the language evaluates to. An Array is its node and, rarely, notSize:
/// no other member is set for one (a name's read copies only those: Impl::name).
struct Value {
  enum Kind { None, Array, Size, Float, Bool, Predicate, Tuple, String, DTypeName, Ellipsis, Slice, Callable, Literal };
  Kind kind = None;
  const Node *node = nullptr; // Array; Callable: the bound array of a method
  Expr size;                  // Size
  double number = 0;          // Float
  bool flag = false;          // Bool; Tuple: written as a list
  /// Size or Float: a NumPy scalar (np.prod(x.shape) is an np.int64), not a Python number, so
  /// not weak when it meets an array (NEP 50): np.prod(x.shape) * f32 is float64.
  bool numpyScalar = false;
  Pred pred;                  // Predicate
  std::vector<Value> items;   // Tuple/list; Slice: start, stop, step
  std::string text;           // String; Callable: the function's name
  DType dtype = DType::Float64;
  std::shared_ptr<interp::Array> literal; // Literal: an array given by value (in :eval bindings)
  std::size_t pos = 0;
  /// Not an array, held by a name: the arrays its statement computed (built, or read for their
  /// shape, size or dtype), which NumPy computes first; those valid everywhere are left out. An
  /// array built from it carries them as guards (Graph::after).
  std::vector<const Node *> reads;
  /// Array: computed from sizes by an operation that size expressions lack (`d // h`), with why;
  /// said where a size or a predicate over sizes is wanted and this array comes instead.
  std::string notSize;

  static Value ofSize(Expr e, std::size_t p) {
    Value v;
    v.kind = Size;
    v.size = std::move(e);
    v.pos = p;
    return v;
  }
  static Value ofNode(const Node *n, std::size_t p) {
    Value v;
    v.kind = Array;
    v.node = n;
    v.pos = p;
    return v;
  }
  static Value ofFloat(double x, std::size_t p) {
    Value v;
    v.kind = Float;
    v.number = x;
    v.pos = p;
    return v;
  }
  static Value ofPred(Pred q, std::size_t p) {
    Value v;
    v.kind = Predicate;
    v.pred = std::move(q);
    v.pos = p;
    return v;
  }
  static Value ofDType(DType d, std::size_t p) {
    Value v;
    v.kind = DTypeName;
    v.dtype = d;
    v.pos = p;
    return v;
  }
};

/// A value that is not an array, as a reply shows it: a size or predicate as an expression
/// (`m*n`, `n != 0 and m != 0`), a float or bool as Python writes it, a tuple item by item;
/// anything else by its kind.
std::string valueText(const Value &v);

const char *kindName(Value::Kind k) {
  switch (k) {
  case Value::None: return "None";
  case Value::Array: return "an array";
  case Value::Size: return "an integer";
  case Value::Float: return "a float";
  case Value::Bool: return "a bool";
  case Value::Predicate: return "a predicate";
  case Value::Tuple: return "a tuple";
  case Value::String: return "a string";
  case Value::DTypeName: return "a dtype";
  case Value::Ellipsis: return "...";
  case Value::Slice: return "a slice";
  case Value::Callable: return "a function";
  case Value::Literal: return "an array literal";
  }
  return "?";
}

/// np, np.random or np.linalg: the language holds them as functions without a name of their
/// own ("", "random", "linalg"); only they have attributes.
bool isModule(const Value &v) {
  return v.kind == Value::Callable && !v.node && (v.text.empty() || v.text == "random" || v.text == "linalg");
}

/// What a value is, in a message: kindName, except that a module is one, as Python says.
const char *kindName(const Value &v) { return isModule(v) ? "a module" : kindName(v.kind); }

std::string valueText(const Value &v) {
  switch (v.kind) {
  case Value::Size: return v.size.toString();
  case Value::Predicate: return v.pred.toString();
  case Value::Float: return interp::formatDouble(v.number);
  case Value::Bool: return v.flag ? "True" : "False";
  case Value::Tuple: {
    for (const Value &i : v.items)
      if (i.kind != Value::Size && i.kind != Value::Float && i.kind != Value::Bool && i.kind != Value::Predicate)
        return kindName(v); // arrays have no short text
    std::string out = v.flag ? "[" : "(";
    for (std::size_t i = 0; i < v.items.size(); ++i) out += (i ? ", " : "") + valueText(v.items[i]);
    if (!v.flag && v.items.size() == 1) out += ",";
    return out + (v.flag ? "]" : ")");
  }
  default: return kindName(v);
  }
}

Json shapeJson(const Shape &s) {
  Json a = Json::array();
  for (const Expr &d : s) {
    if (auto c = d.constantValue()) a.push_back(integerJson(*c));
    else a.push_back(d.toString());
  }
  return a;
}

Json valueJson(const Array &a) {
  std::function<Json(std::size_t, int64_t)> rec = [&](std::size_t dim, int64_t off) -> Json {
    if (dim == a.rank()) {
      return interp::dispatch(a.dtype(), [&](auto t) -> Json {
        using T = decltype(t);
        T v = a.base<T>()[off];
        if constexpr (std::is_same_v<T, bool>) return Json(v);
        else if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(v)) return "nan";
          if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
          return Json(double(v));
        } else return Json(int64_t(v));
      });
    }
    Json list = Json::array();
    for (int64_t i = 0; i < a.shape()[dim]; ++i) list.push_back(rec(dim + 1, off + i * a.strides()[dim]));
    return list;
  };
  return rec(0, a.offset());
}

const std::string kHelp =
    "statements (one per line, # comments):\n"
    "  param n, m                     size parameters (integers >= 0)\n"
    "  assume n >= 1 and m % 2 == 0   assumptions (predicates over sizes)\n"
    "  mode numpy | mode static       broadcasting mode of the ops built after it\n"
    "  x = input((n, 1), float64)     a named input\n"
    "  z = exp(x + y) * 2.0           NumPy expressions (see :ops)\n"
    "  a, b = split(x, 2, axis=0)     several names at once\n"
    "  x + 1                          an expression alone: shown as _, bound to no name\n"
    "commands:\n"
    "  :shape EXPR                    shape, dtype, status\n"
    "  :explain EXPR                  + runtime checks, validity condition, a violating point\n"
    "  :errors                        the program's error domain, with a witness\n"
    "  :eval EXPR [with n=3, x=[[1.0]], y=load(\"y.npy\")]   evaluate (missing inputs are seeded; sizes it does not read may be left out)\n"
    "  :save EXPR \"file.npy\" [with ...]                     evaluate and save as .npy\n"
    "  :graph EXPR                    the DAG (shared nodes once)\n"
    "  :optimize NAME [--valid-graph] [--inexact]   rewrite, every application checked: by default\n"
    "                                 strict (keeps every shape error) with the rules that keep values\n"
    "                                 bit for bit; --valid-graph may mask shape errors, --inexact adds\n"
    "                                 rules that change nan/inf/rounding. Shows the rewritten graph,\n"
    "                                 the rules that fired and the applications refused (a witness)\n"
    "  :eval NAME --opt [with ...]    evaluate with the optimized interpreter the program rewritten as\n"
    "                                 :optimize NAME rewrites it without flags (strict, bit for bit)\n"
    "  :time NAME [with ...]          median seconds of the reference and the optimized interpreter\n"
    "  :rules  :ops  :help  :reset  :quit";

} // namespace

// ---------------------------------------------------------------------------------------------

struct Session::Impl {
  Solver &solver;
  SessionOptions options;
  BroadcastMode mode;
  std::unique_ptr<ops::Graph> graph;
  EntryTable<std::string, Value, NameHash> variables;
  std::vector<std::string> names; // by node id: the name a statement last gave the node, or ""
  const std::string *nameOf(const Node *n) const {
    return n->id < names.size() && !names[n->id].empty() ? &names[n->id] : nullptr;
  }
  std::vector<const Node *> statements; // every node a statement assigned, in order
  /// Per entry of `statements`: the line and the name it was assigned to (`_` for a bare
  /// expression or a value's arrays), for :errors' list of failing statements.
  std::vector<std::pair<int, std::string>> statementOrigins;
  std::vector<const Node *> metadataReads; // this statement's arrays read for their shape, size or dtype (noteRead)
  std::vector<const Node *> made;          // every node this statement's evaluation built (Graph::setMadeLog)
  std::unordered_map<const Node *, const Node *> optimized; // :optimize's results

  // The line being run.
  std::vector<Token> toks;
  std::size_t at = 0;
  std::string line;
  std::string pendingInputName; // `x = input(...)`: the name the input takes
  std::size_t rhsStart = 0;     // where that right-hand side starts
  const Node *inputMade = nullptr;

  Impl(Solver &s, SessionOptions o) : solver(s), options(std::move(o)), mode(options.mode) { reset(); }

  void reset() {
    variables.clear();
    names.clear();
    optimized.clear();
    statements.clear();
    statementOrigins.clear();
    arrayStatusMemo.clear(); // before the graph: its keys hold the graph's pending lists
    unkeptStatus.reset();
    graph.reset();
    graph = std::make_unique<ops::Graph>(solver);
    mode = options.mode;
  }

  // ---- token helpers ----
  const Token &peek(std::size_t k = 0) const { return toks[std::min(at + k, toks.size() - 1)]; }
  // Against literals: the length first (known when compiled), then the bytes.
  template <std::size_t N> bool isOp(const char (&o)[N], std::size_t k = 0) const {
    const Token &t = peek(k);
    return t.kind == Token::Op && is(t.text, o);
  }
  /// The operator of `ops` the next token is, or null. Most operands end at a token that is
  /// no operator (the end of the line) or none of them (`,`, `)`): a test or two.
  template <class Ops> const char *opAmong(const Ops &ops) const {
    const Token &t = peek();
    if (t.kind != Token::Op) return nullptr;
    for (const char *o : ops)
      if (t.text[0] == o[0] && t.text == o) return o;
    return nullptr;
  }
  template <std::size_t N> bool isName(const char (&n)[N], std::size_t k = 0) const {
    const Token &t = peek(k);
    return t.kind == Token::Name && is(t.text, n);
  }
  /// Takes a command flag such as `--opt` out of the rest of the line (it would read as
  /// arithmetic otherwise); true when it was there.
  bool takeFlag(const std::string &flag) {
    for (std::size_t i = at; i < toks.size() && toks[i].kind != Token::End; ++i) {
      std::size_t p = toks[i].pos, end = p + flag.size();
      if (line.compare(p, flag.size(), flag) != 0) continue;
      if (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) continue;
      std::size_t j = i;
      while (toks[j].kind != Token::End && toks[j].pos < end) ++j;
      toks.erase(toks.begin() + std::ptrdiff_t(i), toks.begin() + std::ptrdiff_t(j));
      return true;
    }
    return false;
  }
  template <std::size_t N> bool acceptOp(const char (&o)[N]) {
    if (!isOp(o)) return false;
    ++at;
    return true;
  }
  template <std::size_t N> void expectOp(const char (&o)[N]) {
    if (!acceptOp(o)) fail(std::string("expected '") + o + "'" + found());
  }
  std::string found() const {
    const Token &t = peek();
    if (t.kind == Token::End) return " at the end of the line";
    return ", found '" + t.text + "'";
  }
  [[noreturn]] void fail(const std::string &message) const { throw LangError{message, peek().pos}; }
  [[noreturn]] static void failAt(const std::string &message, std::size_t pos) { throw LangError{message, pos}; }

  // ---- conversions ----
  const Node *array(const Value &v) {
    switch (v.kind) {
    case Value::Array: return v.node;
    case Value::Size: return v.numpyScalar ? graph->astype(graph->size(v.size), DType::Int64) : graph->size(v.size);
    case Value::Float:
      return v.numpyScalar ? graph->astype(graph->literal(v.number, DType::Float64), DType::Float64)
                           : graph->literal(v.number, DType::Float64);
    case Value::Bool: return graph->literal(v.flag ? 1 : 0, DType::Bool);
    default: failAt(std::string("expected an array, found ") + kindName(v), v.pos);
    }
  }
  Expr sizeOf(const Value &v, const char *what) {
    if (v.kind == Value::Size) return v.size;
    if (v.kind == Value::Bool) return Expr(v.flag ? 1 : 0);
    failAt(withWhyNotASize(std::string(what) + " must be an integer (a size expression), not " + kindName(v), v), v.pos);
  }
  int64_t constant(const Value &v, const char *what) {
    Expr e = sizeOf(v, what);
    auto c = e.constantValue();
    if (!c) failAt(std::string(what) + " must be a constant integer, not " + e.toString(), v.pos);
    auto i = c->tryToInt64();
    if (!i) failAt(std::string(what) + " is out of range", v.pos);
    return *i;
  }
  Shape shapeOf(const Value &v, const char *what = "a shape") {
    if (v.kind == Value::Size) return {v.size};
    if (v.kind != Value::Tuple) failAt(std::string(what) + " must be a tuple of sizes, not " + kindName(v), v.pos);
    Shape s;
    for (const Value &i : v.items) s.push_back(sizeOf(i, "a dimension"));
    return s;
  }
  /// A keepdims argument: a bool, or an integer read as one; absent is false.
  bool keepdimsOf(const Value &keep) {
    if (keep.kind == Value::None) return false;
    return keep.kind == Value::Bool ? keep.flag : constant(keep, "keepdims") != 0;
  }
  std::optional<std::vector<int64_t>> axesOf(const Value &v) {
    if (v.kind == Value::None) return std::nullopt;
    if (v.kind == Value::Tuple) {
      std::vector<int64_t> a;
      for (const Value &i : v.items) a.push_back(constant(i, "an axis"));
      return a;
    }
    return std::vector<int64_t>{constant(v, "axis")};
  }
  DType dtypeOf(const Value &v) {
    if (v.kind == Value::DTypeName) return v.dtype;
    if (v.kind == Value::String)
      if (auto t = ops::dtypeNamed(v.text)) return *t;
    failAt("expected a dtype (bool, int32, int64, float32, float64)", v.pos);
  }

  // ---- expressions (Python's precedence) ----
  Value expression() { return orTest(); }
  /// A statement's value: an expression, or several separated by commas, which are a tuple as in
  /// Python (`x, y = 1, 2`; `t = n, m`; a trailing comma makes one: `t = n,`).
  Value expressionList() {
    Value first = expression();
    if (!isOp(",")) return first;
    Value v;
    v.kind = Value::Tuple;
    v.pos = first.pos;
    v.items.push_back(std::move(first));
    while (acceptOp(",")) {
      if (peek().kind == Token::End) break;
      v.items.push_back(expression());
    }
    return v;
  }

  /// `or` (loosest), then `and`, both over predicates.
  Value orTest(bool conj = false) {
    auto operand = [&] { return conj ? notTest() : orTest(true); };
    Value a = operand();
    while (conj ? isName("and") : isName("or")) {
      std::size_t p = peek().pos;
      ++at;
      Value b = operand();
      a = logical(a, b, conj, p);
    }
    return a;
  }
  Value logical(const Value &a, const Value &b, bool conj, std::size_t p) {
    if (a.kind != Value::Predicate || b.kind != Value::Predicate)
      failAt(withWhyNotASize(std::string("'") + (conj ? "and" : "or") + "' joins predicates over sizes; for arrays use logical_" +
                                 (conj ? "and" : "or") + " or '" + (conj ? "&" : "|") + "'",
                             a.kind != Value::Predicate ? a : b),
             p);
    return Value::ofPred(conj ? (a.pred && b.pred) : (a.pred || b.pred), a.pos);
  }
  Value notTest() {
    if (!isName("not")) return comparison();
    std::size_t p = peek().pos;
    ++at;
    Value a = notTest();
    if (a.kind != Value::Predicate) failAt("'not' applies to a predicate over sizes; for arrays use ~", p);
    a.pred = !a.pred;
    return a;
  }
  Value comparison() {
    static const char *const cmp[] = {"==", "!=", "<=", ">=", "<", ">"};
    Value result = binaryLevel();
    const char *op = opAmong(cmp);
    if (!op) return result;
    // a < b < c: (a < b) and (b < c), each operand read once.
    Value a = std::move(result);
    for (bool first = true; op; op = opAmong(cmp), first = false) {
      std::size_t p = peek().pos;
      ++at;
      Value b = binaryLevel();
      Value r = binary(op, a, b, p);
      if (first) {
        result = std::move(r);
      } else {
        if (result.kind != Value::Predicate || r.kind != Value::Predicate)
          failAt("chained comparisons are only for sizes", p);
        result.pred = result.pred && r.pred;
      }
      a = std::move(b);
    }
    return result;
  }
  /// The binary operators by precedence, loosest first (Python's: | then & then + - then * / // % @).
  static constexpr std::size_t kBinaryLevels = 5;
  Value binaryLevel(std::size_t level = 0) {
    if (level == kBinaryLevels) return factor();
    return binaryOperands(level);
  }
  /// One level's operands and operators (its only return is `a`: returned in place).
  Value binaryOperands(std::size_t level) {
    static const std::vector<const char *> levels[kBinaryLevels] = {{"|"}, {"^"}, {"&"}, {"+", "-"}, {"*", "/", "//", "%", "@"}};
    Value a = binaryLevel(level + 1);
    while (true) {
      const char *op = opAmong(levels[level]);
      if (!op) return a;
      std::size_t p = peek().pos;
      ++at;
      a = binary(op, a, binaryLevel(level + 1), p);
    }
  }
  Value factor() {
    if (isOp("-") || isOp("+") || isOp("~")) {
      std::string op = peek().text;
      std::size_t p = peek().pos;
      ++at;
      Value a = factor();
      return unaryOp(op, a, p);
    }
    return power();
  }
  // The parsing functions return one named Value from every return (or a call's result), so
  // that it is built in the caller's place: a Value is large, and each statement passes through
  // every level.
  Value power() {
    Value a = primary();
    if (isOp("**")) {
      std::size_t p = peek().pos;
      ++at;
      Value b = factor();
      a = binary("**", a, b, p);
    }
    return a;
  }

  Value unaryOp(const std::string &op, Value a, std::size_t p) {
    try {
      if (is(op, "+")) return a;
      if (is(op, "-")) {
        if (a.kind == Value::Size) {
          Value r = Value::ofSize(-a.size, p);
          r.numpyScalar = a.numpyScalar;
          return r;
        }
        if (a.kind == Value::Float) return a.number = -a.number, a.pos = p, a;
        return Value::ofNode(graph->unary("negative", array(a)), p);
      }
      if (a.kind == Value::Predicate) return a.pred = !a.pred, a;
      return Value::ofNode(graph->unary("invert", array(a)), p);
    } catch (const UserError &e) {
      failAt(e.what(), p);
    }
  }

  static bool numberLike(const Value &v) {
    return v.kind == Value::Float || v.kind == Value::Bool || (v.kind == Value::Size && v.size.isConstant());
  }
  static double asDouble(const Value &v) {
    if (v.kind == Value::Float) return v.number;
    if (v.kind == Value::Bool) return v.flag;
    return v.size.constantValue()->toDoubleLossy();
  }

  Value binary(const std::string &op, const Value &a, const Value &b, std::size_t p) {
    try {
      Value r = binaryUnchecked(op, a, b, p);
      // Python's arithmetic with a NumPy scalar gives a NumPy scalar.
      if ((r.kind == Value::Size || r.kind == Value::Float) && (a.numpyScalar || b.numpyScalar)) r.numpyScalar = true;
      return r;
    } catch (const LangError &) {
      throw;
    } catch (const UserError &e) {
      failAt(e.what(), p);
    }
  }

  Value binaryUnchecked(const std::string &op, const Value &a, const Value &b, std::size_t p) {
    bool sizes = a.kind == Value::Size && b.kind == Value::Size;
    if (sizes) {
      const Expr &x = a.size, &y = b.size;
      auto positive = [](const Expr &e) -> std::optional<Integer> {
        auto c = e.constantValue();
        if (c && *c > Integer(0)) return c;
        return std::nullopt;
      };
      if (is(op, "+")) return Value::ofSize(x + y, p);
      if (is(op, "-")) return Value::ofSize(x - y, p);
      if (is(op, "*")) return Value::ofSize(x * y, p);
      if (is(op, "//") && positive(y)) return Value::ofSize(floorDiv(x, *positive(y)), p);
      if (is(op, "%") && positive(y)) return Value::ofSize(mod(x, *positive(y)), p);
      if (is(op, "**")) {
        auto c = y.constantValue();
        if (c && *c >= Integer(0) && *c <= Integer(64)) return Value::ofSize(pow(x, uint32_t(c->toInt64Checked())), p);
      }
      static const std::map<std::string, CompareOp> cmp = {{"==", CompareOp::EQ}, {"!=", CompareOp::NE}, {"<", CompareOp::LT},
                                                           {"<=", CompareOp::LE}, {">", CompareOp::GT}, {">=", CompareOp::GE}};
      if (auto it = cmp.find(op); it != cmp.end()) return Value::ofPred(Pred::compare(it->second, x, y), a.pos);
    }
    if (a.kind == Value::Predicate && b.kind == Value::Predicate && (is(op, "&") || is(op, "|") || is(op, "^"))) {
      Value v = a;
      v.pred = is(op, "&") ? (a.pred && b.pred) : is(op, "|") ? (a.pred || b.pred) : ((a.pred && !b.pred) || (!a.pred && b.pred));
      return v;
    }
    // Python numbers fold (2.0 * 3 is 6.0).
    if (numberLike(a) && numberLike(b) && !sizes && (a.kind == Value::Float || b.kind == Value::Float)) {
      double x = asDouble(a), y = asDouble(b), r;
      if (is(op, "+")) r = x + y;
      else if (is(op, "-")) r = x - y;
      else if (is(op, "*")) r = x * y;
      else if (is(op, "/")) {
        if (y == 0) failAt("float division by zero", p);
        r = x / y;
      } else if (is(op, "**")) r = std::pow(x, y);
      else goto nodes;
      return Value::ofFloat(r, a.pos);
    }
  nodes:
    if (is(op, "@")) return Value::ofNode(graph->blockwise("matmul", {array(a), array(b)}, mode), p);
    std::optional<std::string> name = ops::binaryOpFor(op);
    if (!name) failAt("unsupported operator '" + op + "'", p);
    Value r = Value::ofNode(graph->binary(*name, array(a), array(b), mode), p);
    r.notSize = sizes ? whyNotASize(op, a.size, b.size) : !a.notSize.empty() ? a.notSize : b.notSize;
    return r;
  }

  /// Why `x op y` of two sizes is an array computed at run time (as NumPy computes it) rather
  /// than a size expression, and what to write instead.
  static std::string whyNotASize(const std::string &op, const Expr &x, const Expr &y) {
    const std::string written = "'" + x.toString() + " " + op + " " + y.toString() + "'";
    if (is(op, "//") || is(op, "%"))
      return written + " is an int64 array computed at run time: size expressions divide only by positive "
             "integer constants; name the quotient as a parameter instead (param q, assume " +
             x.toString() + " == q*" + (y->kind == ExprKind::Sum ? "(" + y.toString() + ")" : y.toString()) + ")";
    if (is(op, "**")) return written + " is an array computed at run time: a size's exponent is a constant from 0 to 64";
    if (is(op, "/")) return written + " is a float array ('/' is true division); '//' divides sizes";
    return "";
  }
  /// `message`, with why the value is not a size when it was computed from sizes.
  static std::string withWhyNotASize(std::string message, const Value &v) {
    return v.notSize.empty() ? message : message + ": " + v.notSize;
  }

  Value primary() {
    Value v = atom();
    while (true) {
      if (isOp("(")) {
        std::size_t p = peek().pos;
        ++at;
        v = callArguments(v, p);
      } else if (isOp("[")) {
        std::size_t p = peek().pos;
        ++at;
        v = subscript(v, p);
      } else if (isOp(".")) {
        ++at;
        if (peek().kind != Token::Name) fail("expected an attribute name" + found());
        const Token &t = peek(); // the token list does not change while an expression is read
        ++at;
        v = attribute(v, t);
      } else {
        return v;
      }
    }
  }

  Value atom() {
    const Token &t = peek(); // the token list does not change while an expression is read
    switch (t.kind) {
    case Token::Int: {
      ++at;
      // Most literals fit in 18 digits: read directly; longer ones by the expression parser,
      // which knows any size (and says why a literal is not a size).
      int64_t small = 0;
      if (t.text.size() <= 18 &&
          std::from_chars(t.text.data(), t.text.data() + t.text.size(), small).ptr == t.text.data() + t.text.size())
        return Value::ofSize(Expr(small), t.pos);
      Expr e;
      try {
        e = parseExpr(t.text);
      } catch (const UserError &err) {
        failAt(err.what(), t.pos);
      }
      return Value::ofSize(e, t.pos);
    }
    case Token::Float: {
      ++at;
      return Value::ofFloat(std::strtod(t.text.c_str(), nullptr), t.pos);
    }
    case Token::String: {
      ++at;
      Value v;
      v.kind = Value::String;
      v.text = t.text;
      v.pos = t.pos;
      return v;
    }
    case Token::Name: {
      ++at;
      return name(t);
    }
    case Token::Op:
      if (is(t.text, "(")) {
        ++at;
        if (acceptOp(")")) {
          Value v;
          v.kind = Value::Tuple;
          v.pos = t.pos;
          return v;
        }
        Value first = expression();
        if (!isOp(",")) {
          expectOp(")");
          return first;
        }
        Value v;
        v.kind = Value::Tuple;
        v.pos = t.pos;
        v.items.push_back(first);
        while (acceptOp(",")) {
          if (isOp(")")) break;
          v.items.push_back(expression());
        }
        expectOp(")");
        return v;
      }
      if (is(t.text, "[")) {
        ++at;
        Value v;
        v.kind = Value::Tuple;
        v.flag = true;
        v.pos = t.pos;
        if (!acceptOp("]")) {
          do {
            if (isOp("]")) break;
            v.items.push_back(expression());
          } while (acceptOp(","));
          expectOp("]");
        }
        return v;
      }
      if (is(t.text, "...")) {
        ++at;
        Value v;
        v.kind = Value::Ellipsis;
        v.pos = t.pos;
        return v;
      }
      break;
    default: break;
    }
    fail(t.kind == Token::End ? "expected an expression at the end of the line" : "expected an expression, found '" + t.text + "'");
  }

  /// True, False and None, which always read as themselves: as in Python, no statement binds
  /// them (assign and param refuse them), so `variables` never holds them.
  static bool isConstantName(const std::string &n) { return is(n, "True") || is(n, "False") || is(n, "None"); }

  Value name(const Token &t) {
    const std::string &n = t.text;
    if (const Value *held = variables.find(n)) {
      // An array held by a name is its node (and, rarely, why it is not a size): copying only
      // that reads one of the entry's four cache lines, not all (in a 10^5-statement program
      // the entries are far apart, and the whole copy was a sixth of the build's cache misses).
      Value v = held->kind == Value::Array && held->notSize.empty() ? Value::ofNode(held->node, t.pos) : *held;
      v.pos = t.pos;
      for (const Node *r : v.reads) noteRead(r);
      return v;
    }
    return unheldName(t);
  }
  /// Python statements the language does not have, each with what to write instead.
  void refuseStatementKeyword(const Token &t) {
    const std::string &k = t.text;
    if (is(k, "import") || is(k, "from"))
      failAt("'" + k + "' is not needed: np (numpy), random and linalg are always there (write np.exp(x), "
             "random.normal(0.0, 1.0, size=(n,)))", t.pos);
    if (is(k, "for") || is(k, "while"))
      failAt("there are no loops: write the computation on whole arrays (broadcasting, reductions with "
             "axis=, einsum)", t.pos);
    if (is(k, "def") || is(k, "lambda") || is(k, "class"))
      failAt("'" + k + "' is not supported: functions are not defined here; write each step as an assignment "
             "(y = np.exp(x) * 2.0)", t.pos);
    if (is(k, "if") || is(k, "elif") || is(k, "else"))
      failAt("there is no 'if' statement: for a choice between arrays write np.where(condition, x, y); for "
             "a condition on sizes, assume", t.pos);
    if (is(k, "return") || is(k, "try") || is(k, "with") || is(k, "del") || is(k, "global"))
      failAt("'" + k + "' is not part of the language: a program is assignments, param, assume and mode lines",
             t.pos);
  }
  /// What follows a whole expression that should have ended the line.
  [[noreturn]] void unexpectedAfterExpression() {
    if (isName("if"))
      fail("conditional expressions (x if c else y) are not supported: write np.where(c, x, y), which computes "
           "both and picks elementwise");
    if (isName("for")) fail("comprehensions are not supported: write the computation on whole arrays");
    fail("unexpected '" + peek().text + "'");
  }
  /// NumPy dtypes shapelab does not compute with.
  static bool unsupportedDType(const std::string &n) {
    static const std::vector<std::string> names = {"int8", "int16", "uint8", "uint16", "uint32", "uint64",
                                                   "float16", "float128", "complex64", "complex128", "complex256",
                                                   "half", "single", "double", "longdouble", "byte", "ubyte",
                                                   "short", "ushort", "intc", "uintc", "longlong", "ulonglong",
                                                   "complex", "str_", "object_", "bytes_", "datetime64", "timedelta64"};
    return std::find(names.begin(), names.end(), n) != names.end();
  }
  static std::string unsupportedDTypeMessage(const std::string &n) {
    return "dtype '" + n + "' is not supported: the dtypes are bool, int32, int64, float32 and float64";
  }
  /// A name no statement assigned: True, False, None, a dtype, a module or a function.
  Value unheldName(const Token &t) {
    const std::string &n = t.text;
    Value v;
    v.pos = t.pos;
    if (is(n, "True") || is(n, "False")) {
      v.kind = Value::Bool;
      v.flag = is(n, "True");
    } else if (is(n, "None")) {
    } else if (auto d = ops::dtypeNamed(n)) {
      v = Value::ofDType(*d, t.pos);
    } else if (is(n, "np") || is(n, "numpy") || is(n, "random") || is(n, "linalg") || isFunction(n)) {
      v.kind = Value::Callable;
      v.text = (is(n, "np") || is(n, "numpy")) ? "" : n;
    } else if (unsupportedDType(n)) {
      failAt(unsupportedDTypeMessage(n), t.pos);
    } else {
      failAt("name '" + n + "' is not defined", t.pos);
    }
    return v;
  }

  static bool isFunction(const std::string &n) {
    static const std::set<std::string> fns = {
        "input", "where", "astype", "transpose", "expand_dims", "squeeze", "reshape", "broadcast_to", "full", "zeros",
        "ones", "concatenate", "stack", "split", "set_subtensor", "inc_subtensor", "sum", "prod", "max", "min", "all",
        "any", "mean", "amax", "amin", "matmul", "outer", "diff", "cumsum", "cumprod", "convolve", "specify_shape", "ifelse",
        "divide", "mod", "logical_not", "shape", "ndim", "size", "ravel", "empty", "zeros_like", "ones_like",
        "empty_like", "full_like", "clip", "len", "arange", "eye", "identity", "flip", "swapaxes", "moveaxis",
        "atleast_1d", "atleast_2d", "atleast_3d", "vstack", "hstack", "copy", "var", "std", "ptp", "argmax",
        "argmin", "dot", "repeat", "tile", "einsum", "pad"};
    return fns.count(n) || ops::isUnaryOp(n) || ops::isBinaryOp(n);
  }

  Value attribute(const Value &v, const Token &t) {
    const std::string &a = t.text;
    if (v.kind == Value::Callable && !v.node) {
      // Only the namespaces have attributes: np.random.normal is a function, and
      // random.normal.normal names nothing.
      if (!isModule(v)) failAt("function '" + v.text + "' has no attribute '" + a + "'", t.pos);
      if (v.text.empty() && is(a, "newaxis")) { // None, as NumPy defines it
        Value none;
        none.pos = t.pos;
        return none;
      }
      // np.float32 and the other dtype names NumPy spells as attributes (np.int and np.float
      // are gone from NumPy).
      if (v.text.empty() && !is(a, "int") && !is(a, "float"))
        if (auto d = ops::dtypeNamed(a)) return Value::ofDType(*d, t.pos);
      Value f = v;
      f.text = v.text.empty() ? a : v.text + "." + a;
      f.flag = v.text.empty(); // spelled np.NAME
      if (v.text.empty() && unsupportedDType(a)) failAt(unsupportedDTypeMessage(a), t.pos);
      if (v.text.empty() && !(is(a, "random") || is(a, "linalg") || isFunction(a))) failAt("no function '" + a + "'", t.pos);
      if (is(v.text, "random") && !findRandomVariable(a)) failAt("unknown random variable '" + a + "' (see :ops)", t.pos);
      if (is(v.text, "linalg") && !is(a, "det") && !is(a, "inv") && !is(a, "solve") && !is(a, "norm"))
        failAt("linalg has det, inv, solve and norm", t.pos);
      return f;
    }
    if (v.kind != Value::Array) failAt(std::string(kindName(v)) + " has no attribute '" + a + "'", t.pos);
    const Node *n = v.node;
    if (is(a, "shape") || is(a, "ndim") || is(a, "size") || is(a, "dtype")) noteRead(n);
    if (is(a, "shape")) {
      Value s;
      s.kind = Value::Tuple;
      s.pos = t.pos;
      for (const Expr &d : n->shape) s.items.push_back(Value::ofSize(d, t.pos));
      return s;
    }
    if (is(a, "ndim")) return Value::ofSize(Expr(int64_t(n->rank())), t.pos);
    if (is(a, "size")) {
      Expr p = 1;
      for (const Expr &d : n->shape) p = p * d;
      return Value::ofSize(p, t.pos);
    }
    if (is(a, "T")) return Value::ofNode(graph->transpose(n, std::nullopt), t.pos);
    if (is(a, "dtype")) return Value::ofDType(n->dtype, t.pos);
    static const std::set<std::string> methods = {"sum", "prod", "max", "min", "all", "any", "mean", "reshape", "astype",
                                                  "transpose", "squeeze", "cumsum", "cumprod", "ravel", "flatten", "clip",
                                                  "swapaxes", "copy", "var", "std", "ptp", "argmax", "argmin", "dot",
                                                  "repeat"};
    if (!methods.count(a)) failAt("an array has no attribute '" + a + "'", t.pos);
    Value m;
    m.kind = Value::Callable;
    m.text = a;
    m.node = n;
    m.pos = t.pos;
    return m;
  }

  Value subscript(const Value &v, std::size_t p) {
    // Entries: expressions, slices a:b:c, None, ...
    std::vector<Value> entries;
    do {
      if (isOp("]")) break;
      std::optional<Value> start;
      std::size_t ep = peek().pos;
      if (!isOp(":")) start = expression();
      if (isOp(":")) {
        Value s;
        s.kind = Value::Slice;
        s.pos = ep;
        s.items.resize(3);
        if (start) s.items[0] = *start;
        ++at;
        if (!isOp(":") && !isOp(",") && !isOp("]")) s.items[1] = expression();
        if (acceptOp(":"))
          if (!isOp(",") && !isOp("]")) s.items[2] = expression();
        entries.push_back(s);
      } else {
        entries.push_back(*start);
      }
    } while (acceptOp(","));
    expectOp("]");
    if (v.kind == Value::Tuple) {
      if (entries.size() != 1 || entries[0].kind != Value::Size) failAt("a tuple takes one integer index", p);
      int64_t i = constant(entries[0], "the index");
      int64_t n = int64_t(v.items.size());
      if (i < -n || i >= n) failAt("tuple index out of range", entries[0].pos);
      return v.items[std::size_t(i < 0 ? i + n : i)];
    }
    if (v.kind != Value::Array) failAt(std::string(kindName(v)) + " is not subscriptable", p);
    std::vector<IndexEntry> index;
    const Node *arrayIndex = nullptr;
    for (const Value &e : entries) {
      IndexEntry x;
      switch (e.kind) {
      case Value::Slice:
        x.kind = IndexEntry::Slice;
        if (e.items[0].kind != Value::None) x.start = sizeOf(e.items[0], "a slice start");
        if (e.items[1].kind != Value::None) x.stop = sizeOf(e.items[1], "a slice stop");
        if (e.items[2].kind != Value::None) {
          x.step = constant(e.items[2], "a slice step");
          if (x.step == 0) failAt("slice step cannot be zero", e.items[2].pos);
        }
        break;
      case Value::None: x.kind = IndexEntry::NewAxis; break;
      case Value::Ellipsis:
        x.kind = IndexEntry::Slice;
        x.step = 0;
        break;
      case Value::Size:
      case Value::Bool:
        if (e.kind == Value::Bool) failAt("a bool scalar index is not supported", e.pos);
        x.kind = IndexEntry::Integer;
        x.start = e.size;
        break;
      case Value::Array:
        if (arrayIndex) failAt("shapelab supports one array in an index", e.pos);
        x.kind = IndexEntry::Array;
        arrayIndex = e.node;
        break;
      case Value::Tuple:
        // NumPy reads x[[0, 2]] as an integer-array index; here an index array is an array value.
        failAt("a list or tuple cannot be an index: index with an integer array (an input, or one the program computes)", e.pos);
      default: failAt(std::string("an index cannot be ") + kindName(e), e.pos);
      }
      index.push_back(x);
    }
    try {
      return Value::ofNode(graph->index(v.node, index, arrayIndex), p);
    } catch (const UserError &e) {
      failAt(e.what(), p);
    }
  }

  struct Args {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> keywords;
    std::size_t pos;
    std::string fn;
    const Value *get(std::size_t i, const char *keyword) const {
      if (i < positional.size()) return &positional[i];
      for (const auto &[k, v] : keywords)
        if (k == keyword) return &v;
      return nullptr;
    }
  };

  Value callArguments(const Value &f, std::size_t p) {
    if (f.kind != Value::Callable) failAt(std::string(kindName(f)) + " is not callable", p);
    Args args;
    args.pos = f.pos;
    args.fn = f.text;
    if (!acceptOp(")")) {
      do {
        if (isOp(")")) break;
        if (peek().kind == Token::Name && isOp("=", 1)) {
          std::string k = peek().text;
          at += 2;
          args.keywords.push_back({k, expression()});
        } else {
          if (!args.keywords.empty()) fail("positional argument follows keyword argument");
          args.positional.push_back(expression());
        }
      } while (acceptOp(","));
      expectOp(")");
    }
    try {
      // A NumPy function of Python numbers gives a NumPy scalar, which is not weak (NEP 50):
      // np.exp(2.0) * f32 is float64, where 2.0 * f32 is float32. Python's own abs keeps a
      // number a Python number.
      Value r = call(f, args);
      if (r.kind == Value::Array && r.node->weak && !(is(f.text, "abs") && !f.flag && !f.node))
        r.node = graph->astype(r.node, r.node->dtype);
      return r;
    } catch (const LangError &) {
      throw;
    } catch (const UserError &e) {
      failAt(e.what(), f.pos);
    }
  }

  void checkArguments(const Args &a, std::size_t most, std::initializer_list<const char *> keywords) {
    if (a.positional.size() > most)
      failAt(a.fn + "() takes at most " + std::to_string(most) + " positional arguments (" + std::to_string(a.positional.size()) + " given)", a.pos);
    for (const auto &[k, v] : a.keywords) {
      bool ok = false;
      for (const char *w : keywords) ok |= k == w;
      if (!ok) failAt(a.fn + "() got an unexpected keyword argument '" + k + "'", v.pos);
    }
  }
  const Value &required(const Args &a, std::size_t i, const char *keyword) {
    const Value *v = a.get(i, keyword);
    if (!v) failAt(a.fn + "() missing required argument '" + keyword + "'", a.pos);
    return *v;
  }
  Value optional(const Args &a, std::size_t i, const char *keyword) {
    const Value *v = a.get(i, keyword);
    return v ? *v : Value();
  }
  std::vector<const Node *> arrays(const Value &list) {
    if (list.kind != Value::Tuple) failAt("expected a list of arrays", list.pos);
    std::vector<const Node *> out;
    for (const Value &v : list.items) out.push_back(array(v));
    return out;
  }

  Value call(const Value &f, Args &a) {
    std::string fn = f.text;
    const std::size_t p = f.pos;
    auto node = [&](const Node *n) { return Value::ofNode(n, p); };
    // Methods: x.sum(axis=...) is sum(x, axis=...).
    if (f.node) a.positional.insert(a.positional.begin(), Value::ofNode(f.node, p));
    if (is(fn, "amax")) fn = "max";
    if (is(fn, "amin")) fn = "min";
    if (is(fn, "divide")) fn = "true_divide";
    if (is(fn, "mod")) fn = "remainder";
    if (is(fn, "input")) {
      checkArguments(a, 2, {"shape", "dtype"});
      if (pendingInputName.empty() || p != rhsStart) failAt("input(...) must be the whole right-hand side of an assignment to one name: x = input((n,), float64)", p);
      Shape s = shapeOf(required(a, 0, "shape"));
      Value d = optional(a, 1, "dtype");
      std::string name = pendingInputName;
      pendingInputName.clear();
      inputMade = graph->input(name, d.kind == Value::None ? DType::Float64 : dtypeOf(d), s);
      return node(inputMade);
    }
    if (ops::isUnaryOp(fn)) {
      checkArguments(a, 1, {"x"});
      return node(graph->unary(fn, array(required(a, 0, "x"))));
    }
    if (ops::isBinaryOp(fn)) {
      checkArguments(a, 2, {"x1", "x2"});
      return node(graph->binary(fn, array(required(a, 0, "x1")), array(required(a, 1, "x2")), mode));
    }
    if (is(fn, "where")) {
      checkArguments(a, 3, {"condition", "x", "y"});
      return node(graph->where(array(required(a, 0, "condition")), array(required(a, 1, "x")), array(required(a, 2, "y")), mode));
    }
    if (is(fn, "astype")) {
      checkArguments(a, 2, {"x", "dtype"});
      return node(graph->astype(array(required(a, 0, "x")), dtypeOf(required(a, 1, "dtype"))));
    }
    if (is(fn, "transpose")) {
      const Node *x = array(required(a, 0, "a"));
      if (f.node && a.positional.size() > 2) {
        Value t;
        t.kind = Value::Tuple;
        t.items.assign(a.positional.begin() + 1, a.positional.end());
        return node(graph->transpose(x, axesOf(t)));
      }
      checkArguments(a, 2, {"a", "axes"});
      return node(graph->transpose(x, axesOf(optional(a, 1, "axes"))));
    }
    if (is(fn, "expand_dims")) {
      checkArguments(a, 2, {"a", "axis"});
      return node(graph->expandDims(array(required(a, 0, "a")), *axesOf(required(a, 1, "axis"))));
    }
    if (is(fn, "squeeze")) {
      checkArguments(a, 2, {"a", "axis"});
      return node(graph->squeeze(array(required(a, 0, "a")), axesOf(optional(a, 1, "axis"))));
    }
    if (is(fn, "reshape")) {
      const Node *x = array(required(a, 0, "a"));
      Value s = required(a, 1, "newshape");
      if (f.node && a.positional.size() > 2) {
        s = Value();
        s.kind = Value::Tuple;
        s.items.assign(a.positional.begin() + 1, a.positional.end());
      } else {
        checkArguments(a, 2, {"a", "newshape", "shape"});
      }
      return node(graph->reshape(x, shapeOf(s)));
    }
    if (is(fn, "broadcast_to")) {
      checkArguments(a, 2, {"array", "shape"});
      return node(graph->broadcastTo(array(required(a, 0, "array")), shapeOf(required(a, 1, "shape"))));
    }
    if (is(fn, "ravel") || is(fn, "flatten")) { // flatten is a method only
      checkArguments(a, 1, {"a"});
      return node(graph->reshape(array(required(a, 0, "a")), {Expr(-1)}));
    }
    if (is(fn, "clip")) {
      // NumPy's clip is minimum(maximum(a, a_min), a_max), None skipping a side.
      checkArguments(a, 3, {"a", "a_min", "a_max"});
      const Node *x = array(required(a, 0, "a"));
      Value lo = optional(a, 1, "a_min"), hi = optional(a, 2, "a_max");
      if (lo.kind != Value::None) x = graph->binary("maximum", x, array(lo), mode);
      if (hi.kind != Value::None) x = graph->binary("minimum", x, array(hi), mode);
      return node(x);
    }
    if (is(fn, "zeros_like") || is(fn, "ones_like") || is(fn, "empty_like") || is(fn, "full_like")) {
      // The shape and dtype of `a` (an array read for them: computed first, as in NumPy), the
      // values given; `empty_like` gives zeros (NumPy leaves them unspecified).
      bool isFull = is(fn, "full_like");
      if (isFull) checkArguments(a, 3, {"a", "fill_value", "dtype"});
      else checkArguments(a, 2, {"a", "dtype"});
      const Node *x = array(required(a, 0, "a"));
      noteRead(x);
      Value d = optional(a, isFull ? 2 : 1, "dtype");
      Value fill = isFull ? required(a, 1, "fill_value") : Value::ofFloat(is(fn, "ones_like") ? 1.0 : 0.0, p);
      return node(graph->full(x->shape, array(fill), d.kind != Value::None ? dtypeOf(d) : x->dtype));
    }
    if (is(fn, "empty")) fn = "zeros"; // NumPy leaves the values unspecified: zeros
    if (is(fn, "full") || is(fn, "zeros") || is(fn, "ones")) {
      bool isFull = is(fn, "full");
      checkArguments(a, isFull ? 3 : 2, {"shape", "fill_value", "dtype"});
      Shape s = shapeOf(required(a, 0, "shape"));
      Value d = optional(a, isFull ? 2 : 1, "dtype");
      std::optional<DType> t;
      if (d.kind != Value::None) t = dtypeOf(d);
      else if (!isFull) t = DType::Float64;
      Value fill = isFull ? required(a, 1, "fill_value") : Value::ofFloat(is(fn, "ones") ? 1.0 : 0.0, p);
      const Node *value = array(fill);
      if (!t && value->weak) t = value->dtype == DType::Bool ? DType::Bool : value->dtype;
      return node(graph->full(s, value, t));
    }
    if (is(fn, "concatenate") || is(fn, "stack")) {
      checkArguments(a, 2, {"arrays", "axis"});
      std::vector<const Node *> xs = arrays(required(a, 0, "arrays"));
      Value ax = optional(a, 1, "axis");
      if (is(fn, "stack")) return node(graph->stack(xs, ax.kind == Value::None && !a.get(1, "axis") ? 0 : constant(ax, "axis")));
      std::optional<int64_t> axis = 0;
      if (a.get(1, "axis")) axis = ax.kind == Value::None ? std::nullopt : std::optional<int64_t>(constant(ax, "axis"));
      return node(graph->concatenate(xs, axis));
    }
    if (is(fn, "split")) {
      checkArguments(a, 3, {"ary", "indices_or_sections", "axis"});
      const Node *x = array(required(a, 0, "ary"));
      Value how = required(a, 1, "indices_or_sections");
      Value ax = optional(a, 2, "axis");
      int64_t axis = ax.kind == Value::None ? 0 : constant(ax, "axis");
      std::vector<const Node *> parts;
      if (how.kind == Value::Tuple) {
        std::vector<Expr> at;
        for (const Value &v : how.items) at.push_back(sizeOf(v, "a split index"));
        parts = graph->split(x, at, axis);
      } else {
        parts = graph->split(x, sizeOf(how, "sections"), axis);
      }
      Value t;
      t.kind = Value::Tuple;
      t.flag = true;
      t.pos = p;
      for (const Node *n : parts) t.items.push_back(Value::ofNode(n, p));
      return t;
    }
    if (is(fn, "set_subtensor") || is(fn, "inc_subtensor")) {
      checkArguments(a, 2, {"x", "y"});
      return node(graph->setSubtensor(array(required(a, 0, "x")), array(required(a, 1, "y")), is(fn, "inc_subtensor"), mode));
    }
    if (is(fn, "argmax") || is(fn, "argmin")) { // one axis, or the flat index (NumPy's out is not taken)
      checkArguments(a, 3, {"a", "axis", "out", "keepdims"});
      Value ax = optional(a, 1, "axis"), keep = optional(a, 3, "keepdims");
      if (optional(a, 2, "out").kind != Value::None) failAt(fn + "(): out is not supported", p);
      if (ax.kind == Value::Tuple) failAt("'tuple' object cannot be interpreted as an integer", ax.pos);
      bool keepdims = keepdimsOf(keep);
      return node(graph->reduce(fn, array(required(a, 0, "a")), axesOf(ax), keepdims));
    }
    if (is(fn, "sum") || is(fn, "prod") || is(fn, "max") || is(fn, "min") || is(fn, "all") || is(fn, "any") || is(fn, "mean")) {
      checkArguments(a, 3, {"a", "axis", "keepdims"});
      if (const Value &x = required(a, 0, "a"); x.kind == Value::Tuple) return tupleReduction(fn, x, a, p);
      Value keep = optional(a, 2, "keepdims");
      bool keepdims = keepdimsOf(keep);
      return node(graph->reduce(fn, array(required(a, 0, "a")), axesOf(optional(a, 1, "axis")), keepdims));
    }
    if (is(fn, "matmul") || is(fn, "outer") || is(fn, "convolve") || is(fn, "linalg.solve")) {
      checkArguments(a, 2, {"a", "b", "v", "x1", "x2"});
      const Node *x = array(*(a.get(0, "a") ? a.get(0, "a") : &required(a, 0, "x1")));
      const Value *second = a.get(1, "b");
      if (!second) second = a.get(1, "v");
      if (!second) second = a.get(1, "x2");
      if (!second) failAt(fn + "() takes two arrays", p);
      const Node *y = array(*second);
      if (is(fn, "outer")) {
        x = graph->reshape(x, {Expr(-1)});
        y = graph->reshape(y, {Expr(-1)});
      }
      return node(graph->blockwise(is(fn, "linalg.solve") ? "solve" : fn, {x, y}, mode));
    }
    if (is(fn, "dot")) {
      // NumPy's dot is matmul where both have at most two dimensions or b has one (and for a
      // 1-d a); a 0-d operand multiplies. A stack times a stack is a tensor product NumPy
      // computes differently: refused.
      checkArguments(a, 2, {"a", "b"});
      const Node *x = array(required(a, 0, "a")), *y = array(required(a, 1, "b"));
      if (x->rank() == 0 || y->rank() == 0) return node(graph->binary("multiply", x, y, mode));
      if (x->rank() > 2 && y->rank() >= 2)
        failAt("dot of a " + std::to_string(x->rank()) + "-d and a " + std::to_string(y->rank()) +
                   "-d array (a sum over a's last and b's second-to-last axis, not a stack) is not supported; matmul stacks",
               p);
      return node(graph->blockwise("matmul", {x, y}, mode));
    }
    if (is(fn, "linalg.norm")) {
      // ord=None: the 2-norm of the flattened array (axis None), of vectors (one axis) or the
      // Frobenius norm (two axes): sqrt(sum(x * x)); integers and bools as float64 first.
      checkArguments(a, 4, {"x", "ord", "axis", "keepdims"});
      const Node *x = array(required(a, 0, "x"));
      if (optional(a, 1, "ord").kind != Value::None) failAt("norm(): only ord=None is supported", p);
      Value ax = optional(a, 2, "axis"), keep = optional(a, 3, "keepdims");
      std::optional<std::vector<int64_t>> axes = axesOf(ax);
      if (axes && axes->size() > 2) failAt("Improper number of dimensions to norm.", ax.pos);
      bool keepdims = keepdimsOf(keep);
      if (!ops::isFloat(x->dtype)) x = graph->astype(x, DType::Float64);
      const Node *squares = graph->binary("multiply", x, x, mode);
      return node(graph->unary("sqrt", graph->reduce("sum", squares, axes, keepdims)));
    }
    if (is(fn, "repeat") || is(fn, "tile")) return node(repeated(fn, a, p));
    if (is(fn, "einsum")) return node(einsum(a, p));
    if (is(fn, "pad")) return node(padded(a, p));
    if (is(fn, "linalg.det") || is(fn, "linalg.inv")) {
      checkArguments(a, 1, {"a"});
      return node(graph->blockwise(fn.substr(7), {array(required(a, 0, "a"))}, mode));
    }
    if (is(fn, "diff")) {
      checkArguments(a, 3, {"a", "n", "axis"});
      Value n = optional(a, 1, "n"), ax = optional(a, 2, "axis");
      return node(graph->diff(array(required(a, 0, "a")), n.kind == Value::None ? 1 : constant(n, "n"),
                              ax.kind == Value::None ? -1 : constant(ax, "axis")));
    }
    if (is(fn, "cumsum") || is(fn, "cumprod")) {
      checkArguments(a, 2, {"a", "axis"});
      Value ax = optional(a, 1, "axis");
      return node(graph->cumulative(fn, array(required(a, 0, "a")), ax.kind == Value::None ? std::nullopt : std::optional<int64_t>(constant(ax, "axis"))));
    }
    if (is(fn, "specify_shape")) {
      checkArguments(a, 2, {"x", "shape"});
      Value s = required(a, 1, "shape");
      std::vector<std::optional<Expr>> dims;
      if (s.kind == Value::Tuple) {
        for (const Value &d : s.items) dims.push_back(d.kind == Value::None ? std::nullopt : std::optional<Expr>(sizeOf(d, "a dimension")));
      } else {
        dims.push_back(sizeOf(s, "a dimension"));
      }
      return node(graph->specifyShape(array(required(a, 0, "x")), dims));
    }
    if (is(fn, "ifelse")) {
      checkArguments(a, 3, {"cond", "a", "b"});
      const Value &c = required(a, 0, "cond");
      const Node *x = array(required(a, 1, "a")), *y = array(required(a, 2, "b"));
      if (c.kind == Value::Predicate) return node(graph->ifelse(c.pred, x, y));
      if (c.kind == Value::Bool) return node(graph->ifelse(Pred::truth(c.flag), x, y));
      return node(graph->ifelse(array(c), x, y));
    }
    if (is(fn, "flip") || is(fn, "swapaxes") || is(fn, "moveaxis") || is(fn, "copy") || fn.rfind("atleast_", 0) == 0)
      return node(layout(fn, a, p));
    if (is(fn, "vstack") || is(fn, "hstack")) {
      // NumPy: vstack joins the arrays made at least 2-d along axis 0; hstack joins those made
      // at least 1-d along axis 1, or 0 when the first is 1-d.
      checkArguments(a, 1, {"tup"});
      std::vector<const Node *> xs = arrays(required(a, 0, "tup"));
      if (xs.empty()) failAt("need at least one array to concatenate", p);
      for (const Node *&x : xs) x = atLeast(x, is(fn, "vstack") ? 2 : 1);
      return node(graph->concatenate(xs, is(fn, "vstack") || xs[0]->rank() == 1 ? 0 : 1));
    }
    if (is(fn, "var") || is(fn, "std") || is(fn, "ptp")) return node(spread(fn, a, p));
    if (is(fn, "arange")) { // arange([start,] stop[, step], dtype=None), over sizes
      checkArguments(a, 4, {"start", "stop", "step", "dtype"});
      const Value *first = a.get(0, "start"), *second = a.get(1, "stop"), *third = a.get(2, "step");
      if (!first && !second) failAt("arange() requires stop to be specified", p);
      auto bound = [&](const Value &v) {
        if (v.kind == Value::Float) failAt("arange with a float bound: its length is computed in floating point; shapelab takes integer (size) bounds", v.pos);
        return sizeOf(v, "an arange bound");
      };
      // One positional argument is stop (start 0); two or three are start, stop, step.
      Expr start = second ? bound(*first) : Expr(0), stop = second ? bound(*second) : bound(*first);
      int64_t step = third ? constant(*third, "arange's step") : 1;
      Value d = optional(a, 3, "dtype");
      return node(graph->arange(start, stop, step, d.kind == Value::None ? DType::Int64 : dtypeOf(d)));
    }
    if (is(fn, "eye") || is(fn, "identity")) { // eye(N, M=None, k=0, dtype=float64); identity(n, dtype=float64)
      const bool eye = is(fn, "eye");
      if (eye) checkArguments(a, 4, {"N", "M", "k", "dtype"});
      else checkArguments(a, 2, {"n", "dtype"});
      Expr rows = sizeOf(required(a, 0, eye ? "N" : "n"), "the number of rows");
      Value m = eye ? optional(a, 1, "M") : Value();
      Expr cols = m.kind == Value::None ? rows : sizeOf(m, "the number of columns");
      Value kv = eye ? optional(a, 2, "k") : Value();
      int64_t k = kv.kind == Value::None ? 0 : constant(kv, "the diagonal k");
      Value d = optional(a, eye ? 3 : 1, "dtype");
      // Row i holds its 1 in column i + k: arange(N)[:, None] + k == arange(M)[None, :], as
      // dtype, of shape (N, M) (which refuses a negative N or M, as NumPy does).
      const Node *i = graph->reshape(graph->arange(Expr(0), rows, 1, DType::Int64), {Expr(-1), Expr(1)});
      const Node *j = graph->reshape(graph->arange(Expr(0), cols, 1, DType::Int64), {Expr(1), Expr(-1)});
      const Node *shifted = k == 0 ? i : graph->binary("add", i, graph->literal(double(k), DType::Int64), mode);
      const Node *ones = graph->astype(graph->binary("equal", shifted, j, mode), d.kind == Value::None ? DType::Float64 : dtypeOf(d));
      return node(graph->broadcastTo(ones, {rows, cols}));
    }
    if (is(fn, "len")) { // Python's len of an array: its first dimension
      checkArguments(a, 1, {"obj"});
      if (const Value &t = required(a, 0, "obj"); t.kind == Value::Tuple) return Value::ofSize(Expr(int64_t(t.items.size())), p);
      const Node *x = array(required(a, 0, "obj"));
      if (x->rank() == 0) failAt("len() of unsized object", p);
      noteRead(x);
      return Value::ofSize(x->shape[0], p);
    }
    if (is(fn, "shape") || is(fn, "ndim") || is(fn, "size")) {
      checkArguments(a, 1, {"a"});
      Token t{Token::Name, fn, p};
      return attribute(Value::ofNode(array(required(a, 0, "a")), p), t);
    }
    if (fn.rfind("random.", 0) == 0) return randomCall(fn.substr(7), a, p);
    failAt("'" + fn + "' is not a function shapelab knows (see :ops)", p);
  }

  /// x with at least `rank` dimensions, as NumPy's atleast_1d/2d/3d make it: () -> (1,), (1, 1)
  /// or (1, 1, 1); (n,) -> (1, n) or (1, n, 1); (m, n) -> (m, n, 1).
  const Node *atLeast(const Node *x, std::size_t rank) {
    if (x->rank() >= rank) return x;
    if (x->rank() == 0) return graph->reshape(x, Shape(rank, Expr(1)));
    if (rank == 2) return graph->expandDims(x, {0});
    return graph->expandDims(x, x->rank() == 1 ? std::vector<int64_t>{0, -1} : std::vector<int64_t>{-1});
  }

  /// An axis argument as NumPy normalises it (AxisError's message).
  int64_t axisOf(const Value &v, std::size_t rank) {
    int64_t k = constant(v, "axis"), r = int64_t(rank);
    if (k < -r || k >= r) failAt("axis " + std::to_string(k) + " is out of bounds for array of dimension " + std::to_string(rank), v.pos);
    return k < 0 ? k + r : k;
  }

  /// flip, swapaxes, moveaxis, copy and atleast_Nd: views NumPy makes of x, built from
  /// indexing, transposes and reshapes.
  const Node *layout(const std::string &fn, Args &a, std::size_t p) {
    if (is(fn, "copy")) {
      checkArguments(a, 1, {"a"});
      return array(required(a, 0, "a")); // the same values: nodes are immutable
    }
    if (fn.rfind("atleast_", 0) == 0) {
      checkArguments(a, 1, {"arys"});
      return atLeast(array(required(a, 0, "arys")), std::size_t(fn[8] - '0'));
    }
    if (is(fn, "flip")) { // x[::-1] along the axes (every axis when axis is None)
      checkArguments(a, 2, {"m", "axis"});
      const Node *x = array(required(a, 0, "m"));
      Value ax = optional(a, 1, "axis");
      std::vector<bool> flipped(x->rank(), ax.kind == Value::None);
      for (const Value &v : ax.kind == Value::Tuple ? ax.items : std::vector<Value>{ax})
        if (v.kind != Value::None) {
          std::size_t k = std::size_t(axisOf(v, x->rank()));
          if (flipped[k]) failAt("repeated axis", v.pos);
          flipped[k] = true;
        }
      std::vector<ops::IndexEntry> entries(x->rank());
      for (std::size_t k = 0; k < entries.size(); ++k)
        if (flipped[k]) entries[k].step = -1;
      return graph->index(x, entries);
    }
    // swapaxes(a, axis1, axis2) and moveaxis(a, source, destination): permutations.
    if (is(fn, "swapaxes")) checkArguments(a, 3, {"a", "axis1", "axis2"});
    else checkArguments(a, 3, {"a", "source", "destination"});
    const Node *x = array(required(a, 0, "a"));
    const Value &from = required(a, 1, is(fn, "swapaxes") ? "axis1" : "source");
    const Value &to = required(a, 2, is(fn, "swapaxes") ? "axis2" : "destination");
    int64_t i = axisOf(from, x->rank()), j = axisOf(to, x->rank());
    std::vector<int64_t> perm;
    for (int64_t k = 0; k < int64_t(x->rank()); ++k) perm.push_back(k);
    if (is(fn, "swapaxes")) {
      std::swap(perm[std::size_t(i)], perm[std::size_t(j)]);
    } else {
      perm.erase(perm.begin() + i);
      perm.insert(perm.begin() + j, i);
    }
    return graph->transpose(x, perm);
  }

  /// pad's pad_width or constant_values as NumPy reads them (numpy/lib/arraypad.py, _as_pairs):
  /// one value, one (before, after) pair, or one of either per axis, broadcast to `rank` pairs.
  std::vector<std::pair<Value, Value>> padPairs(const Value &v, std::size_t rank, bool widths) {
    // The argument as an array of values: its shape, and its values in C order.
    std::vector<std::size_t> shape;
    std::vector<Value> flat;
    auto scalar = [&](const Value &i) {
      if (widths && (i.kind == Value::Float || (i.kind == Value::Tuple && i.items.empty())))
        failAt("`pad_width` must be of integral type.", i.pos);
      if (i.kind != Value::Size && i.kind != Value::Bool && (widths || i.kind != Value::Float))
        failAt(std::string(widths ? "pad_width" : "constant_values") + " holds " + kindName(i) +
                   (widths ? ", not a size" : ", not a number"),
               i.pos);
      flat.push_back(i);
    };
    if (v.kind != Value::Tuple) {
      scalar(v);
    } else if (v.items.empty()) {
      scalar(v); // refused: NumPy's empty pad_width has no integral type
    } else if (v.items[0].kind != Value::Tuple) {
      shape = {v.items.size()};
      for (const Value &i : v.items) scalar(i);
    } else {
      shape = {v.items.size(), v.items[0].items.size()};
      for (const Value &row : v.items) {
        if (row.kind != Value::Tuple || row.items.size() != shape[1])
          failAt("setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 "
                 "dimensions.",
                 row.pos);
        for (const Value &i : row.items) {
          if (i.kind == Value::Tuple) failAt("pad(): pairs of pairs are not supported", i.pos);
          scalar(i);
        }
      }
    }
    if (widths)
      for (const Value &w : flat)
        if (auto c = sizeOf(w, "a pad width").constantValue(); c && c->sign() < 0)
          failAt("index can't contain negative values", w.pos);
    // One value, or one pair (not a column of two), is every axis's.
    if (flat.size() == 1) return std::vector<std::pair<Value, Value>>(rank, {flat[0], flat[0]});
    if (flat.size() == 2 && !(shape.size() == 2 && shape[0] == 2 && shape[1] == 1))
      return std::vector<std::pair<Value, Value>>(rank, {flat[0], flat[1]});
    // Otherwise broadcast to (rank, 2).
    const std::size_t rows = shape.size() == 2 ? shape[0] : 1, columns = shape.back();
    if ((rows != 1 && rows != rank) || (columns != 1 && columns != 2)) {
      std::string dims = "(";
      for (std::size_t i = 0; i < shape.size(); ++i) dims += (i ? "," : "") + std::to_string(shape[i]);
      failAt("operands could not be broadcast together with remapped shapes [original->remapped]: " + dims +
                 (shape.size() == 1 ? ",)" : ")") + "  and requested shape (" + std::to_string(rank) + ",2)",
             v.pos);
    }
    std::vector<std::pair<Value, Value>> out;
    for (std::size_t r = 0; r < rank; ++r) {
      const std::size_t row = rows == 1 ? 0 : r;
      out.push_back({flat[row * columns], flat[row * columns + (columns == 2 ? 1 : 0)]});
    }
    return out;
  }

  /// pad(array, pad_width, mode='constant', constant_values=0): each axis, axis 0 first, gets
  /// its before and after widths of the constant (in the array's dtype) concatenated on, so that
  /// a later axis's constant fills the corners, as NumPy's does. mode='empty' leaves the new
  /// values unspecified in NumPy (zeros here); the other modes copy the array's own values and
  /// are not supported.
  const Node *padded(const Args &a, std::size_t p) {
    checkArguments(a, 4, {"array", "pad_width", "mode", "constant_values"});
    const Node *x = array(required(a, 0, "array"));
    const Value mode = optional(a, 2, "mode");
    bool empty = false;
    if (mode.kind != Value::None) {
      if (mode.kind != Value::String) failAt("pad(): mode must be a string", mode.pos);
      static const std::set<std::string> copying = {"edge", "linear_ramp", "maximum", "mean", "median",
                                                     "minimum", "reflect", "symmetric", "wrap"};
      if (copying.count(mode.text))
        failAt("pad(): mode '" + mode.text + "' is not supported (constant and empty are)", mode.pos);
      if (!is(mode.text, "constant") && !is(mode.text, "empty")) failAt("mode '" + mode.text + "' is not supported", mode.pos);
      empty = is(mode.text, "empty");
    }
    const Value given = optional(a, 3, "constant_values");
    if (empty && given.kind != Value::None)
      failAt("unsupported keyword arguments for mode 'empty': {'constant_values'}", given.pos);
    const Value &widthArgument = required(a, 1, "pad_width");
    const auto widths = padPairs(widthArgument, x->rank(), true);
    const auto values = padPairs(given.kind == Value::None ? Value::ofSize(Expr(0), p) : given, x->rank(), false);
    if (x->rank() == 0) {
      // No axis uses the widths, but NumPy checks them: a symbolic one must be a size, which an
      // empty array (w, 0) computed first (and dropped) requires without holding w elements.
      std::vector<const Node *> guards;
      for (const auto &[before, after] : padPairs(widthArgument, 1, true))
        for (const Value &w : {before, after})
          if (Expr e = sizeOf(w, "a pad width"); !e.isConstant())
            guards.push_back(graph->full({e, Expr(0)}, graph->literal(0, DType::Bool), DType::Bool));
      return graph->after(guards, x);
    }
    for (std::size_t axis = 0; axis < x->rank(); ++axis) {
      std::vector<const Node *> parts;
      auto side = [&](const Value &width, const Value &value) {
        Expr w = sizeOf(width, "a pad width");
        if (w == Expr(0)) return;
        Shape s = x->shape;
        s[axis] = w;
        parts.push_back(graph->full(s, array(value), x->dtype));
      };
      side(widths[axis].first, values[axis].first);
      parts.push_back(x);
      side(widths[axis].second, values[axis].second);
      if (parts.size() > 1) x = graph->concatenate(parts, int64_t(axis));
    }
    return x;
  }

  /// einsum(subscripts, *operands, optimize=False), NumPy's einsum without a contraction order.
  const Node *einsum(const Args &a, std::size_t p) {
    if (a.positional.empty() || a.positional[0].kind != Value::String)
      failAt("einsum(): the subscripts come first, as a string (the form einsum(a, [0, 1], b, [1, 2]) is not supported)", p);
    for (const auto &[k, v] : a.keywords) {
      if (!is(k, "optimize")) failAt("einsum() got an unexpected keyword argument '" + k + "'", v.pos);
      if (!(v.kind == Value::Bool && !v.flag))
        failAt("einsum(): only optimize=False (NumPy's default) is supported: an optimized contraction is another computation", v.pos);
    }
    std::vector<const Node *> xs;
    for (std::size_t i = 1; i < a.positional.size(); ++i) xs.push_back(array(a.positional[i]));
    const Value &subscripts = a.positional[0];
    std::vector<std::size_t> ranks;
    for (const Node *x : xs) ranks.push_back(x->rank());
    EinsumSpec spec;
    try {
      spec = parseEinsum(subscripts.text, ranks);
    } catch (const SyntaxError &e) {
      failAt(e.message(), subscripts.pos + 1 + e.position()); // the caret inside the quotes
    }
    return graph->einsum(spec, xs, mode);
  }

  /// repeat(a, repeats, axis=None) with one count (a size) for every element, and tile(A,
  /// reps): each axis of length d becomes r*d, built by broadcasting a new axis of r next to it
  /// (after it for repeat, before it for tile) and merging the two.
  const Node *repeated(const std::string &fn, Args &a, std::size_t p) {
    const bool tile = is(fn, "tile");
    if (tile) checkArguments(a, 2, {"A", "reps"});
    else checkArguments(a, 3, {"a", "repeats", "axis"});
    const Node *x = array(required(a, 0, tile ? "A" : "a"));
    const Value &r = required(a, 1, tile ? "reps" : "repeats");
    std::vector<Expr> reps; // per axis of x (1 where it is not repeated)
    if (tile) {
      std::vector<Expr> given;
      for (const Value &v : r.kind == Value::Tuple ? r.items : std::vector<Value>{r}) given.push_back(sizeOf(v, "a count"));
      // The shorter of the two is padded in front with 1s (x with dimensions of 1).
      while (x->rank() < given.size()) x = graph->expandDims(x, {0});
      reps.assign(x->rank() - given.size(), Expr(1));
      reps.insert(reps.end(), given.begin(), given.end());
    } else {
      if (r.kind == Value::Tuple) failAt("repeat(): one count for every element is supported, not a list of counts", r.pos);
      Value ax = optional(a, 2, "axis");
      if (ax.kind == Value::None) x = graph->reshape(x, {Expr(-1)});
      const std::size_t k = ax.kind == Value::None ? 0 : std::size_t(axisOf(ax, x->rank()));
      reps.assign(x->rank(), Expr(1));
      reps[k] = sizeOf(r, "the count");
    }
    // x with a 1 beside each repeated axis, broadcast to the count there, then merged.
    Shape spread, target, merged;
    for (std::size_t i = 0; i < x->rank(); ++i) {
      const bool counted = reps[i] != Expr(1);
      if (counted && tile) spread.push_back(Expr(1)), target.push_back(reps[i]);
      spread.push_back(x->shape[i]);
      target.push_back(x->shape[i]);
      if (counted && !tile) spread.push_back(Expr(1)), target.push_back(reps[i]);
      merged.push_back(counted ? x->shape[i] * reps[i] : x->shape[i]);
    }
    if (spread.size() == x->rank()) return x; // every count is 1
    // The counts must be sizes (NumPy: negative dimensions are not allowed), which
    // broadcast_to requires of its target.
    return graph->reshape(graph->broadcastTo(graph->reshape(x, spread), target), merged);
  }

  /// var and std (NumPy's: the mean of the squared deviations from the mean, divided by
  /// max(count - ddof, 0); std its square root) and ptp (max - min).
  const Node *spread(const std::string &fn, Args &a, std::size_t p) {
    if (is(fn, "ptp")) checkArguments(a, 3, {"a", "axis", "keepdims"});
    else checkArguments(a, 5, {"a", "axis", "dtype", "out", "ddof", "keepdims"});
    const Node *x = array(required(a, 0, "a"));
    std::optional<std::vector<int64_t>> axes = axesOf(optional(a, 1, "axis"));
    Value keep = optional(a, is(fn, "ptp") ? 2 : 5, "keepdims");
    bool keepdims = keepdimsOf(keep);
    if (!is(fn, "ptp")) {
      if (optional(a, 2, "dtype").kind != Value::None || optional(a, 3, "out").kind != Value::None)
        failAt(fn + "(): dtype and out are not supported", p);
    }
    if (is(fn, "ptp")) return graph->binary("subtract", graph->reduce("max", x, axes, keepdims), graph->reduce("min", x, axes, keepdims), mode);
    Value dd = optional(a, 4, "ddof");
    Expr ddof = dd.kind == Value::None ? Expr(0) : sizeOf(dd, "ddof");
    const Node *mean = graph->reduce("mean", x, axes, true);
    const Node *deviation = graph->binary("subtract", x, mean, mode);
    const Node *squares = graph->binary("multiply", deviation, deviation, mode);
    // The count of the reduced elements (the mean's axes, normalised), less ddof, as a Python
    // int would divide (weak).
    Expr count(1);
    for (int64_t k : mean->ints) count = count * x->shape[std::size_t(k)];
    const Node *divisor = graph->size(ddof.constantValue() == Integer(0) ? count : max({count - ddof, Expr(0)}));
    const Node *v = graph->binary("true_divide", graph->reduce("sum", squares, axes, keepdims), divisor, mode);
    return is(fn, "std") ? graph->unary("sqrt", v) : v;
  }

  /// sum, prod, max, min, all or any of a tuple of sizes (np.prod(x.shape)). NumPy makes the
  /// tuple an int64 array and reduces it: the answer is a size, or a predicate for all and any
  /// (np.all(x.shape): no dimension is 0). An empty tuple is a float64 array, as in NumPy.
  Value tupleReduction(const std::string &fn, const Value &x, const Args &a, std::size_t p) {
    if (Value axis = optional(a, 1, "axis"); axis.kind != Value::None)
      if (int64_t k = constant(axis, "axis"); k != 0 && k != -1)
        failAt("axis " + std::to_string(k) + " is out of bounds for array of dimension 1", axis.pos);
    if (Value keep = optional(a, 2, "keepdims"); keep.kind != Value::None && !(keep.kind == Value::Bool && !keep.flag))
      failAt(fn + "() of a tuple of sizes is a number here: keepdims is not supported", keep.pos);
    if (is(fn, "mean")) failAt("mean() of a tuple of sizes is not a size (it is a float): take it of an array", p);
    std::vector<Expr> items;
    for (const Value &i : x.items) items.push_back(sizeOf(i, "each item of the tuple"));
    if (is(fn, "all") || is(fn, "any")) {
      std::vector<Pred> parts;
      for (const Expr &e : items) parts.push_back(Pred::compare(CompareOp::NE, e, Expr(0)));
      return Value::ofPred(is(fn, "all") ? Pred::conjunction(parts) : Pred::disjunction(parts), p);
    }
    // NumPy's answer is a NumPy scalar: np.int64, or np.float64 for an empty tuple.
    auto numpy = [](Value v) {
      v.numpyScalar = true;
      return v;
    };
    if (items.empty()) {
      if (is(fn, "sum")) return numpy(Value::ofFloat(0.0, p));
      if (is(fn, "prod")) return numpy(Value::ofFloat(1.0, p));
      failAt("zero-size array to reduction operation " + std::string(is(fn, "max") ? "maximum" : "minimum") + " which has no identity", p);
    }
    if (is(fn, "max")) return numpy(Value::ofSize(max(items), p));
    if (is(fn, "min")) return numpy(Value::ofSize(min(items), p));
    Expr r = items[0];
    for (std::size_t i = 1; i < items.size(); ++i) r = is(fn, "sum") ? r + items[i] : r * items[i];
    return numpy(Value::ofSize(r, p));
  }

  Value randomCall(const std::string &name, Args &a, std::size_t p) {
    const RandomVariableInfo *info = findRandomVariable(name);
    if (!info) failAt("unknown random variable '" + name + "' (see :ops)", p);
    std::vector<const Node *> params;
    std::vector<std::optional<Shape>> shapeOnly;
    std::optional<Shape> size;
    const std::size_t count = info->parameters.size();
    if (a.positional.size() > count)
      failAt("random." + name + "() takes " + std::to_string(count) + " parameters (" + info->parameterList() + ")", p);
    std::vector<std::optional<Value>> given(a.positional.begin(), a.positional.end());
    given.resize(count);
    for (const auto &[k, v] : a.keywords) {
      if (is(k, "size")) {
        if (v.kind != Value::None) size = shapeOf(v, "size");
        continue;
      }
      auto it = std::find(info->parameters.begin(), info->parameters.end(), k);
      if (it == info->parameters.end()) failAt("random." + name + "() got an unexpected keyword argument '" + k + "'", v.pos);
      std::size_t i = std::size_t(it - info->parameters.begin());
      if (given[i]) failAt("random." + name + "() got multiple values for '" + k + "'", v.pos);
      given[i] = v;
    }
    // Parameters left out take the catalogue's defaults: normal(size=3) is normal(0.0, 1.0,
    // size=3), and integers(k) is integers(0, k).
    for (std::size_t i = 0; i < count; ++i) {
      if (given[i]) continue;
      const std::optional<std::optional<double>> d = info->defaultValue(i);
      if (d && !*d && is(name, "integers") && given[0]) {
        given[1] = given[0];
        given[0] = Value::ofSize(Expr(0), p);
      } else if (d && *d) {
        given[i] = Value::ofFloat(**d, p);
      } else if (is(name, "choice_without_replacement") && i == 1) {
        given[i] = Value(); // p=None
      } else {
        failAt("random." + name + "() is missing parameter '" + info->parameters[i] + "' (" + info->parameterList() + ")", p);
      }
    }
    bool byValue = is(name, "permutation") || is(name, "choice_without_replacement");
    for (std::size_t i = 0; i < count; ++i) {
      const Value &v = *given[i];
      // Value-shaped parameters: permutation's integer x, choice's core_shape.
      bool valueShaped = byValue && ((is(name, "permutation") && v.kind == Value::Size) ||
                                     (is(name, "choice_without_replacement") && i == info->parameters.size() - 1));
      if (valueShaped) {
        Shape s = v.kind == Value::Tuple ? shapeOf(v) : Shape{sizeOf(v, "the value")};
        shapeOnly.push_back(s);
        params.push_back(graph->size(0));
      } else if (is(name, "choice_without_replacement") && i == 1 && v.kind == Value::None) {
        continue; // p=None
      } else {
        shapeOnly.push_back(std::nullopt);
        params.push_back(array(v));
      }
    }
    return Value::ofNode(graph->random(name, params, size, mode, shapeOnly), p);
  }

  // ---- statements ----
  Json lineJson(int lineNumber) {
    Json j;
    j["line"] = lineNumber;
    return j;
  }

  std::string statusText(const Validity &v) {
    std::string s = spelling(v.status());
    if (v.status() == Status::Error) s += ": " + v.message();
    else if (std::string checks = v.checksText(); !checks.empty()) s += ": " + checks;
    return s;
  }
  /// The limits line of a reply ("" when there are none): never mixed into the checks.
  std::string limitsLine(const Validity &v) {
    if (v.status() == Status::Error) return "";
    std::string l = v.limitsText();
    return l.empty() ? "" : "  limits: " + l;
  }
  /// The validity of computing `nodes`, read as the session asks (strict limits or not).
  Validity gathered(const std::vector<const Node *> &nodes) {
    Validity v = ops::validityOf(*graph, nodes);
    v.strictLimits(options.strictLimits);
    return v;
  }
  Validity gathered(const Node *n) { return gathered(std::vector<const Node *>{n}); }
  /// The declared size parameters, in declaration order: a witness's tie-break order.
  std::vector<std::string> declaredOrder() const {
    std::vector<std::string> out;
    for (const Expr &p : graph->params()) out.push_back(p->name);
    return out;
  }

  /// What an assignment's reply says of computing array `n`: the status of
  /// ops::validityOf(n) and its text. That validity reads only n's pending nodes (a list shared
  /// between nodes where it does not change), the data-dependent sizes n's shape mentions (their
  /// bounds join the context) and the graph's assumptions, so it is kept under those three: a
  /// statement that adds no obligation repeats the reply of the one it reads, and a long program
  /// does not gather, decide and print its whole history again at every line.
  /// The text (the checks, whose exact conditions the solver may still have to read) is made
  /// when first asked for: a JSON reply says only the status, and a JSON session keeps no
  /// validity for it (at 10^5 statements they held 26 MB of obligations that nothing read).
  struct ArrayStatus {
    Status status;
    std::optional<Validity> validity; // kept where a text may be asked for, until it is made
    std::optional<std::string> text;
    std::vector<std::string> limits;  // JSON: made with the status
    std::optional<std::string> limitsText; // text: made with the text
    std::optional<std::optional<Context>> valid; // where the checks hold (shownShape)
    Context base;                                // the validity's own context (shownShape)
  };
  struct ArrayStatusKey {
    std::shared_ptr<const std::vector<const Node *>> pending; // held: its address stays unique
    std::vector<Expr> reserved;
    Pred assumptions;
    bool operator==(const ArrayStatusKey &) const = default;
  };
  struct ArrayStatusKeyHash {
    std::size_t operator()(const ArrayStatusKey &k) const {
      std::size_t h = std::hash<const void *>()(k.pending.get()) ^ (k.assumptions.hash() * 31);
      for (const Expr &e : k.reserved) h = h * 1000003 + e.hash();
      return h;
    }
  };
  // Shared: a reply whose text is made when read holds the status it prints.
  EntryTable<ArrayStatusKey, std::shared_ptr<ArrayStatus>, ArrayStatusKeyHash> arrayStatusMemo;

  /// A status some solver answer of which the clock cut short: not kept (it depends on the
  /// machine and the moment), it lives here until the next one.
  std::shared_ptr<ArrayStatus> unkeptStatus;

  std::shared_ptr<ArrayStatus> arrayStatus(const Node *n) {
    ArrayStatusKey key{n->pending, {}, graph->context().assumptions()};
    for (const Expr &d : n->shape) ops::addReserved(key.reserved, parameterNodes(d));
    if (std::shared_ptr<ArrayStatus> *kept = arrayStatusMemo.find(key)) return *kept;
    const uint64_t unkept = graph->solver().stats().unkept;
    Validity v = gathered(n);
    const Status status = v.status();
    std::vector<std::string> limits;
    std::optional<std::optional<Context>> valid;
    if (options.json && status != Status::Error) {
      for (const Pred &l : v.limits()) limits.push_back(l.toString());
      if (status == Status::RuntimeCheck) valid = v.validContext(); // the shape is printed simplified
    }
    auto made = std::make_shared<ArrayStatus>(
        ArrayStatus{status, std::nullopt, std::nullopt, std::move(limits), std::nullopt, std::move(valid), v.context()});
    if (!options.json) made->validity.emplace(std::move(v));
    if (graph->solver().stats().unkept != unkept) return unkeptStatus = std::move(made);
    return arrayStatusMemo.add(std::move(key), std::move(made));
  }
  const std::string &statusTextOf(ArrayStatus &s) {
    if (!s.text) {
      if (!s.validity) throw InternalError("a status text was asked for in a session that keeps none");
      s.text = statusText(*s.validity);
      s.limitsText = limitsLine(*s.validity);
      if (s.status == Status::RuntimeCheck && !s.valid) s.valid = s.validity->validContext();
      s.validity.reset(); // the text is all a reply reads of it again (at 10^5 statements the
                          // kept obligations were a sixth of the heap)
    }
    return *s.text;
  }
  /// A statement's shape as a reply prints it: simplified under its validity where it has
  /// runtime checks (it exists only there). The context of the valid points is made once per
  /// status (the nodes that share their pending list share it), with the text.
  Shape shownShape(const Shape &shape, ArrayStatus &s) {
    if (s.status != Status::RuntimeCheck) return shape;
    if (std::all_of(shape.begin(), shape.end(), [](const Expr &d) { return d.isConstant(); })) return shape;
    if (!s.valid) {
      if (!s.validity) return shape;
      s.valid = s.validity->validContext();
    }
    return simplifiedWithin(graph->solver(), *s.valid, s.base, shape);
  }

  /// An array whose shape, size or dtype the statement read (x.shape, x.ndim, ...): NumPy
  /// computes it, so what the statement builds must not exist where it fails.
  void noteRead(const Node *n) {
    if (!n->pending) return; // valid everywhere: nothing to keep (a pending list is never empty)
    if (std::find(metadataReads.begin(), metadataReads.end(), n) == metadataReads.end()) metadataReads.push_back(n);
  }

  /// Whether `g` adds to what computing `n` requires: a failure or an obligation of its pending
  /// nodes that n's do not have (by node, then by predicate: a set_subtensor's region repeats
  /// what the set_subtensor itself requires).
  static bool addsTo(const Node *g, const Node *n) {
    if (!g->pending || g->pending == n->pending) return false;
    std::vector<const Node *> missing;
    for (const Node *p : *g->pending)
      if (!n->pending || std::find(n->pending->begin(), n->pending->end(), p) == n->pending->end()) missing.push_back(p);
    if (missing.empty()) return false;
    std::unordered_set<Pred> has;
    if (n->pending)
      for (const Node *p : *n->pending)
        for (const Obligation &o : p->validity.obligations()) has.insert(o.predicate);
    for (const Node *p : missing) {
      if (!p->validity.failures().empty()) return true;
      for (const Obligation &o : p->validity.obligations())
        if (o.decision.answer != Answer::Proven && !has.count(o.predicate)) return true;
    }
    return false;
  }

  /// Whether `g` is `n` or one of its operands, at any depth (a node's operands were made before
  /// it: the walk stops below g's id).
  static bool reads(const Node *n, const Node *g) {
    std::vector<const Node *> stack{n};
    std::unordered_set<const Node *> seen;
    while (!stack.empty()) {
      const Node *x = stack.back();
      stack.pop_back();
      if (x == g) return true;
      if (x->id < g->id || !seen.insert(x).second) continue;
      for (const Node *i : x->inputs) stack.push_back(i);
    }
    return false;
  }

  /// `n` computed after what NumPy computes in the statement and n does not read: the arrays
  /// the statement evaluated only to drop them (`[a + b, a][1]`) or to read their shape, size or
  /// dtype (`zeros((a + b).shape)`), where they add to what n requires. An operand of n is not
  /// one (a lazy ifelse's branch included: only the chosen one runs).
  const Node *guarded(const Node *n) {
    std::vector<const Node *> guards;
    auto consider = [&](const Node *g, bool operandsExempt) {
      if (g == n || std::find(guards.begin(), guards.end(), g) != guards.end()) return;
      if (!addsTo(g, n) || (operandsExempt && reads(n, g))) return;
      guards.push_back(g);
    };
    for (const Node *g : metadataReads) consider(g, false);
    for (const Node *g : made) consider(g, true);
    return graph->after(guards, n);
  }

  /// What a value that is not an array carries from its statement: every array the statement
  /// computed (built, or read for its metadata) that can fail. `k = [a + b, 3][1]` fails where
  /// a + b does, and so does what is built from k.
  std::vector<const Node *> computedArrays() const {
    std::vector<const Node *> out = metadataReads;
    for (const Node *g : made)
      if (g->pending && std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
    return out;
  }

  /// Binds `v` to `targets` and replies with each name's value. `bare`: a statement that is an
  /// expression alone, shown as `_` as if it were assigned (its arrays are the program's), but
  /// bound to no name: `_` names are reserved, and the nodes keep the names they have.
  void assign(const std::vector<std::string> &targets, Value v, int lineNumber, Reply &r, bool bare = false) {
    if (targets.size() != 1) {
      if (v.kind != Value::Tuple) failAt("cannot unpack " + std::string(kindName(v)) + " into " + std::to_string(targets.size()) + " names", 0);
      if (v.items.size() != targets.size())
        failAt("expected " + std::to_string(targets.size()) + " values to unpack, got " + std::to_string(v.items.size()), 0);
    }
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const std::string &t = targets[i];
      if (!bare) {
        if (t.empty() || t[0] == '_') failAt("names starting with '_' are reserved", 0);
        if (is(t, "param") || is(t, "assume") || is(t, "mode")) failAt("'" + t + "' is a statement keyword", 0);
        if (isConstantName(t)) failAt("cannot assign to " + t, 0);
      }
      Value bound = targets.size() == 1 ? std::move(v) : v.items[i];
      if (bound.kind == Value::Array) bound.node = guarded(bound.node);
      else bound.reads = computedArrays();
      std::optional<Value> shown; // a bare expression's value: made only for one
      // Moved in, then read from there.
      const Value &val = bare ? shown.emplace(std::move(bound)) : (variables[t] = std::move(bound));
      if (val.kind == Value::Array) {
        if (!bare) {
          if (val.node->id >= names.size()) names.resize(std::max<std::size_t>(val.node->id + 1, names.size() * 2));
          names[val.node->id] = t;
        }
        statements.push_back(val.node);
        statementOrigins.push_back({lineNumber, bare ? "_" : t});
      } else {
        // The arrays it was computed from are the program's too (its error domain has them;
        // validityOf gathers a node once, so a repeat costs nothing).
        statements.insert(statements.end(), val.reads.begin(), val.reads.end());
        statementOrigins.resize(statements.size(), {lineNumber, bare ? "_" : t});
      }
      if (!options.replies) continue;
      // Not an array: valid unless the arrays its statement computed can fail.
      std::optional<Validity> computed;
      if (val.kind != Value::Array && !val.reads.empty()) computed = gathered(val.reads);
      if (!options.json) {
        // The text is made when the reply is read (the status is known now: it decides
        // `failed`); what it prints is held, not the session's state, which later lines change.
        if (val.kind == Value::Array) {
          r.addLater([this, as = arrayStatus(val.node), t, shape = val.node->shape, dtype = val.node->dtype](std::vector<std::string> &out) {
            const std::string &status = statusTextOf(*as);
            out.push_back(t + ": " + toString(shownShape(shape, *as)) + " " + ops::spelling(dtype) + ", " + status);
            if (as->limitsText && !as->limitsText->empty()) out.push_back(*as->limitsText);
          });
        } else if (computed) {
          r.addLater([this, line = t + ": " + valueText(val), v = std::make_shared<Validity>(std::move(*computed))](std::vector<std::string> &out) {
            out.push_back(line + ", " + statusText(*v));
            if (std::string l = limitsLine(*v); !l.empty()) out.push_back(l);
          });
        } else {
          r.add(t + ": " + valueText(val));
        }
        continue;
      }
      if (val.kind == Value::Array) {
        // Written straight out (one reply per statement; a Json built and dumped cost more
        // than most statements): what dumpJson writes for {line, assign, shape, status, dtype}.
        ArrayStatus &as = *arrayStatus(val.node);
        const Status status = as.status;
        const Shape shown = shownShape(val.node->shape, as);
        std::string out;
        out.reserve(96);
        out += "{\"line\": ";
        out += std::to_string(lineNumber);
        out += ", \"assign\": ";
        appendJsonString(out, t);
        out += ", \"shape\": ";
        // Like the shape commands: no shape where no size makes the op valid.
        if (status == Status::Error) {
          out += "null";
        } else {
          out += '[';
          for (std::size_t i = 0; i < shown.size(); ++i) {
            if (i) out += ", ";
            const Expr &d = shown[i];
            if (auto c = d.constantValue()) appendJsonInteger(out, *c);
            else appendJsonString(out, d.toString());
          }
          out += ']';
        }
        out += ", \"status\": ";
        appendJsonString(out, spelling(status));
        out += ", \"dtype\": ";
        appendJsonString(out, ops::spelling(val.node->dtype));
        out += ", \"limits\": [";
        for (std::size_t i = 0; i < as.limits.size(); ++i) {
          if (i) out += ", ";
          appendJsonString(out, as.limits[i]);
        }
        out += "]}";
        r.add(std::move(out));
        continue;
      }
      Json j = lineJson(lineNumber);
      j["assign"] = t;
      j["shape"] = Json::array();
      j["status"] = computed ? spelling(computed->status()) : "valid";
      j["limits"] = Json::array();
      if (computed && computed->status() != Status::Error)
        for (const Pred &l : computed->limits()) j["limits"].push_back(l.toString());
      j["kind"] = kindName(val);
      if (val.kind == Value::Size || val.kind == Value::Predicate) j["value"] = valueText(val);
      r.add(dumpJson(j));
    }
  }

  Reply execute(const std::string &text, int lineNumber) {
    Reply r;
    line = text;
    at = 0;
    pendingInputName.clear();
    metadataReads.clear();
    made.clear();
    // What the statement builds is logged while it runs (guarded() reads it).
    struct LogMade {
      std::unique_ptr<ops::Graph> &g; // :reset replaces the graph (which starts with no log)
      LogMade(std::unique_ptr<ops::Graph> &graph, std::vector<const Node *> &log) : g(graph) { g->setMadeLog(&log); }
      ~LogMade() {
        if (g) g->setMadeLog(nullptr);
      }
    } logMade(graph, made);
    try {
      tokenize(text, toks);
      if (peek().kind == Token::End) return r;
      if (isOp(":")) return command(lineNumber);
      if (peek().kind == Token::Name && !isOp("=", 1)) refuseStatementKeyword(peek());
      if (isName("param") && peek(1).kind == Token::Name) {
        ++at;
        // Every name is read and checked before any is declared: a statement that fails
        // changes nothing.
        std::vector<std::string> declared;
        std::vector<Token> names;
        do {
          if (peek().kind != Token::Name) fail("expected a parameter name" + found());
          Token t = peek();
          ++at;
          if (isConstantName(t.text)) failAt("cannot declare " + t.text + " as a parameter", t.pos);
          if (std::find(declared.begin(), declared.end(), t.text) != declared.end())
            failAt("size parameter '" + t.text + "' is declared twice", t.pos);
          try {
            graph->checkNewParam(t.text);
          } catch (const UserError &e) {
            failAt(e.what(), t.pos);
          }
          declared.push_back(t.text);
          names.push_back(t);
        } while (acceptOp(","));
        if (peek().kind != Token::End) fail("expected ',' or the end of the line" + found());
        for (const Token &t : names) variables[t.text] = Value::ofSize(graph->param(t.text), t.pos);
        Json j = lineJson(lineNumber);
        j["param"] = declared;
        if (options.json) r.add(dumpJson(j));
        return r;
      }
      if (isName("assume") && peek(1).kind != Token::End && !isOp("=", 1)) {
        ++at;
        std::size_t p = peek().pos;
        Value v = expression();
        if (peek().kind != Token::End) fail("unexpected '" + peek().text + "' after the predicate");
        if (v.kind == Value::Bool) {
          v.kind = Value::Predicate;
          v.pred = Pred::truth(v.flag);
        }
        if (v.kind != Value::Predicate) failAt(withWhyNotASize("assume takes a predicate over sizes (n >= 1, m % 2 == 0, ...)", v), p);
        try {
          graph->assume({v.pred});
        } catch (const InconsistentAssumptions &e) {
          failAt(std::string("inconsistent assumptions: ") + e.what(), p);
        }
        Json j = lineJson(lineNumber);
        j["assume"] = v.pred.toString();
        if (options.json) r.add(dumpJson(j));
        return r;
      }
      if (isName("mode") && peek(1).kind == Token::Name && peek(2).kind == Token::End) {
        const Token &t = peek(1);
        if (!is(t.text, "numpy") && !is(t.text, "static")) failAt("mode is numpy or static, not '" + t.text + "'", t.pos);
        mode = parseBroadcastMode(t.text);
        Json j = lineJson(lineNumber);
        j["mode"] = t.text;
        if (options.json) r.add(dumpJson(j));
        return r;
      }
      // Assignment: NAME (, NAME)* = expression.
      std::vector<std::string> targets;
      std::size_t k = 0;
      while (peek(k).kind == Token::Name && (isOp(",", k + 1) || isOp("=", k + 1))) {
        targets.push_back(peek(k).text);
        if (isOp("=", k + 1)) break;
        k += 2;
      }
      if (!targets.empty() && isOp("=", 2 * targets.size() - 1)) {
        at = 2 * targets.size();
        if (targets.size() == 1) pendingInputName = targets[0];
        rhsStart = peek().pos;
        inputMade = nullptr;
        Value v = expressionList();
        if (peek().kind != Token::End) unexpectedAfterExpression();
        if (inputMade && v.node != inputMade)
          failAt("input(...) must be the whole right-hand side of an assignment to one name: x = input((n,), float64)", rhsStart);
        assign(targets, std::move(v), lineNumber, r);
        return r;
      }
      Value v = expressionList();
      if (peek().kind != Token::End) unexpectedAfterExpression();
      // A bare expression shows what an assignment would.
      assign({"_"}, std::move(v), lineNumber, r, true);
      return r;
    } catch (const LangError &e) {
      return error(e.message, e.position, lineNumber);
    } catch (const SyntaxError &e) {
      return error(e.message(), 0, lineNumber);
    } catch (const UserError &e) {
      return error(e.what(), 0, lineNumber);
    }
  }

  Reply error(const std::string &message, std::size_t position, int lineNumber) {
    Reply r;
    r.failed = true;
    position = std::min(position, line.size());
    if (options.json) {
      Json j = lineJson(lineNumber);
      j["error"] = wellFormed(message); // a message may quote bytes of the line
      j["column"] = position + 1;
      r.add(dumpJson(j));
    } else {
      SyntaxError rendered(message, line, position);
      r.add("error: " + rendered.render());
    }
    return r;
  }

  // ---- commands ----
  std::string targetText() const {
    std::size_t from = peek().pos, to = from;
    for (std::size_t k = at; k < toks.size() && toks[k].kind != Token::End && !(toks[k].kind == Token::Name && toks[k].text == "with") &&
                              toks[k].kind != Token::String;
         ++k)
      to = toks[k].pos + toks[k].text.size();
    return line.substr(from, to - from);
  }

  const Node *target(std::string &text, bool sizesToo = false) {
    text = targetText();
    std::size_t p = peek().pos;
    Value v = expression();
    if (sizesToo && v.kind == Value::Size) return guarded(graph->size(v.size));
    if (v.kind != Value::Array) failAt("expected an array, found " + std::string(kindName(v)), p);
    return guarded(v.node);
  }

  Json assignmentOrNull(const std::optional<Assignment> &a) { return a ? assignmentJson(*a) : Json(nullptr); }

  /// `n` as :optimize left it, or rewritten now (strict, exact rules: values keep their bits).
  const Node *optimizedFor(const Node *n) {
    if (auto it = optimized.find(n); it != optimized.end()) return it->second;
    rewrite::EngineOptions eo;
    eo.exactOnly = true;
    rewrite::Engine engine(*graph, rewrite::defaultRules(), eo);
    const Node *m = engine.run({n}).outputs[0];
    optimized[n] = m;
    return m;
  }
  static std::string formatSeconds(double s) {
    char buf[32];
    if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
    else if (s < 1) std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
    else std::snprintf(buf, sizeof buf, "%.3f s", s);
    return buf;
  }
  static std::string formatRatio(double r) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", r);
    return buf;
  }

  /// The DAG below `n` (shared nodes once), a line per node; with `json`, also as objects.
  std::vector<std::string> graphLines(const Node *n, Json *json = nullptr) {
    std::vector<std::string> lines;
      std::vector<const Node *> order;
    std::set<const Node *> seen;
    std::vector<std::pair<const Node *, bool>> stack{{n, false}};
    while (!stack.empty()) {
      auto [x, expanded] = stack.back();
      stack.pop_back();
      if (seen.count(x)) continue;
      if (expanded) {
        seen.insert(x);
        order.push_back(x);
        continue;
      }
      stack.push_back({x, true});
      for (auto it = x->inputs.rbegin(); it != x->inputs.rend(); ++it)
        if (!seen.count(*it)) stack.push_back({*it, false});
    }
    Json nodes = Json::array();
    for (const Node *x : order) {
      Json o;
      o["id"] = x->id;
      o["op"] = x->kind == ops::OpKind::Input ? std::string("input") : x->op;
      std::vector<uint32_t> ins;
      for (const Node *i : x->inputs) ins.push_back(i->id);
      o["inputs"] = ins;
      o["shape"] = shapeJson(x->shape);
      o["dtype"] = ops::spelling(x->dtype);
      if (const std::string *name = nameOf(x)) o["name"] = *name;
      std::string args;
      if (x->kind == ops::OpKind::Einsum) { // the subscripts are what the node computes
        const std::string subscripts = ops::decodeEinsum(x->ints).text();
        o["subscripts"] = subscripts;
        args = "'" + subscripts + "'";
      }
      if (json) json->push_back(o);
      for (const Node *i : x->inputs) args += (args.empty() ? "%" : ", %") + std::to_string(i->id);
      std::string label = x->kind == ops::OpKind::Input ? "input " + x->op
                          : x->kind == ops::OpKind::Scalar ? (x->exprs.empty() ? interp::formatDouble(x->number) : x->exprs[0].toString())
                                                           : x->op + "(" + args + ")";
      const std::string *name = nameOf(x);
      lines.push_back("%" + std::to_string(x->id) + " = " + label + " : " + toString(x->shape) + " " + ops::spelling(x->dtype) +
                        (name ? "   # " + *name : ""));
    }
    return lines;
  }

  Reply command(int lineNumber) {
    Reply r;
    ++at;
    if (peek().kind != Token::Name) fail("expected a command after ':' (see :help)");
    std::string cmd = peek().text;
    std::size_t cmdPos = peek().pos;
    ++at;
    Json j = lineJson(lineNumber);
    auto done = [&]() {
      if (peek().kind != Token::End) fail("unexpected '" + peek().text + "'");
    };
    if (is(cmd, "shape") || is(cmd, "explain")) {
      std::string name;
      const Node *n = target(name);
      done();
      Validity v = gathered(n);
      std::vector<Pred> checks = v.checks();
      std::vector<Pred> limits = v.status() == Status::Error ? std::vector<Pred>{} : v.limits();
      const std::vector<std::string> order = declaredOrder();
      std::optional<Assignment> bad = v.violating(order);
      Pred condition = v.domain();
      const Shape shown = v.simplified(n->shape);
      j["command"] = cmd;
      j["name"] = name;
      j["shape"] = v.status() == Status::Error ? Json(nullptr) : shapeJson(shown);
      j["status"] = spelling(v.status());
      Json cj = Json::array(), lj = Json::array();
      for (const Pred &c : checks) cj.push_back(c.toString());
      for (const Pred &l : limits) lj.push_back(l.toString());
      j["checks"] = cj;
      j["limits"] = lj;
      j["violating"] = assignmentOrNull(bad);
      j["condition"] = condition.toString();
      j["dtype"] = ops::spelling(n->dtype);
      if (is(cmd, "explain")) {
        Json obs = Json::array();
        for (const Obligation &o : v.obligations()) {
          Json x;
          x["what"] = o.what;
          x["predicate"] = o.predicate.toString();
          x["answer"] = spelling(o.decision.answer);
          // An input's own limits are assumed: the kind a reader acts on is "limit".
          x["kind"] = spelling(o.kind);
          obs.push_back(x);
        }
        j["obligations"] = obs;
        Json fs = Json::array();
        for (const std::string &f : v.failures()) fs.push_back(f);
        j["failures"] = fs;
      }
      if (options.json) {
        r.add(dumpJson(j));
        return r;
      }
      r.add(name + ": shape " + toString(shown) + ", dtype " + ops::spelling(n->dtype) + ", " + spelling(v.status()));
      for (std::size_t i = 0; i < n->rank(); ++i) {
        auto c = shown[i].constantValue();
        r.add("  dim " + std::to_string(i) + ": " + shown[i].toString() + (c ? "" : shown[i].kind() == ExprKind::Select ? "  (piecewise)" : "  (symbolic)"));
      }
      if (is(cmd, "explain")) {
        for (const std::string &f : v.failures()) r.add("  error: " + f);
        for (const Obligation &o : v.obligations())
          if (o.decision.answer != Answer::Proven && o.kind != ObligationKind::Existence)
            r.add("  requires " + o.what + ": " + o.predicate.toString() + "  [" + spelling(o.decision.answer) +
                              (o.kind == ObligationKind::Limit ? ", limit" : "") + "]");
        for (const Pred &c : checks) r.add("  runtime check: " + c.toString());
        if (std::string l = limitsLine(v); !l.empty()) r.add(l);
        r.add("  valid where: " + condition.toString());
        if (bad) r.add("  violating point: " + bad->toString(order));
      } else {
        for (const Pred &c : checks) r.add("  runtime check: " + c.toString());
        if (std::string l = limitsLine(v); !l.empty()) r.add(l);
      }
      return r;
    }
    if (is(cmd, "errors")) {
      const bool withLimits = takeFlag("--limits"); // the limits of results count too
      done();
      Validity v = gathered(statements);
      if (withLimits) v.strictLimits(true);
      Status st = v.status();
      j["command"] = "errors";
      const std::vector<std::string> order = declaredOrder();
      std::optional<Assignment> witness = v.violating(order);
      // The statements whose own obligations fail at the witness (the nodes each statement
      // made first: not those that fail only because an operand did).
      Json failing = Json::array();
      std::vector<std::string> failingText;
      if (witness) {
        std::unordered_set<const Node *> attributed;
        for (std::size_t i = 0; i < statements.size(); ++i) {
          const Node *s = statements[i];
          if (!s->pending) continue;
          std::optional<std::string> message;
          for (const Node *p : *s->pending) {
            if (!attributed.insert(p).second || message) continue;
            if (!p->validity.failures().empty()) message = p->validity.failures().front();
            for (const Obligation &o : p->validity.obligations())
              if (!message && o.decision.answer != Answer::Proven &&
                  (o.kind == ObligationKind::Shape || (options.strictLimits && o.kind == ObligationKind::Limit)) &&
                  !holds(o.predicate, *witness))
                message = o.what + " fails (" + o.predicate.toString() + ")";
          }
          if (!message) continue;
          Json f;
          f["line"] = statementOrigins[i].first;
          f["name"] = statementOrigins[i].second;
          f["message"] = *message;
          failing.push_back(f);
          failingText.push_back("line " + std::to_string(statementOrigins[i].first) + ", " + statementOrigins[i].second + ": " + *message);
        }
      }
      j["failing"] = failing;
      Json lj = Json::array();
      if (st != Status::Error)
        for (const Pred &l : v.limits()) lj.push_back(l.toString());
      j["limits"] = lj;
      std::string condition;
      if (st == Status::Valid) condition = "False";
      else if (st == Status::Error) condition = "True";
      else condition = (!v.domain()).toString();
      if (st == Status::Unknown && !witness) j["empty"] = nullptr;
      else j["empty"] = st == Status::Valid;
      j["condition"] = condition;
      j["witness"] = assignmentOrNull(witness);
      j["status"] = spelling(st);
      if (options.json) {
        r.add(dumpJson(j));
        return r;
      }
      if (st == Status::Valid) r.add("error domain: empty (every statement is valid for every size allowed)");
      else {
        r.add("error domain: " + condition + (st == Status::Unknown ? "  (undecided: checked at run time)" : ""));
        if (witness) r.add("  witness: " + witness->toString(order));
        for (const std::string &f : failingText) r.add("  fails: " + f);
      }
      if (std::string l = limitsLine(v); !l.empty()) r.add(l);
      return r;
    }
    if (is(cmd, "eval") || is(cmd, "save") || is(cmd, "time")) {
      bool opt = !is(cmd, "time") && takeFlag("--opt");
      std::string name;
      const Node *n = target(name, true);
      std::string path;
      if (is(cmd, "save")) {
        if (peek().kind != Token::String) fail("expected the file name as a string" + found());
        path = peek().text; // written where Python would write it: the working directory
        ++at;
      }
      Assignment point;
      std::map<std::string, Array> inputs;
      if (isName("with")) {
        ++at;
        bindings(point, inputs);
      }
      done();
      completePoint(n, point);
      j["command"] = cmd;
      j["name"] = name;
      try {
        interp::InterpreterOptions io;
        io.seed = options.seed;
        io.namer = [this](const Node *x) {
          if (x->kind == ops::OpKind::Input) return "input " + x->op;
          const std::string *name = nameOf(x);
          return name ? *name + " (" + x->op + ")" : x->describe();
        };
        if (is(cmd, "time")) {
          // Medians of repeated runs, each interpreter fresh (no value reused between runs).
          const Node *fast = optimizedFor(n);
          io.debugChecks = false;
          // Inputs not given are generated once, outside the timed runs.
          interp::addSeededInputs(*graph, point, options.seed, inputs);
          auto median = [&](auto &&run) {
            std::vector<double> seconds;
            double spent = 0;
            while (seconds.size() < 3 || (seconds.size() < 25 && spent < 1.0)) {
              auto start = std::chrono::steady_clock::now();
              run();
              seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
              spent += seconds.back();
            }
            std::sort(seconds.begin(), seconds.end());
            return std::pair(seconds[seconds.size() / 2], seconds.size());
          };
          auto [ref, refRuns] = median([&] { interp::Interpreter(*graph, point, inputs, io).evaluate(n); });
          auto [optimized, optRuns] = median([&] { interp::OptimizedInterpreter(*graph, point, inputs, io).evaluate(fast); });
          j["reference_s"] = ref;
          j["optimized_s"] = optimized;
          j["repeats"] = std::min(refRuns, optRuns);
          j["reference_repeats"] = refRuns;
          j["optimized_repeats"] = optRuns;
          if (options.json) r.add(dumpJson(j));
          else
            r.add(name + ": reference " + formatSeconds(ref) + ", optimized " + formatSeconds(optimized) + " (" +
                              (optimized > 0 ? formatRatio(ref / optimized) : std::string("-")) + "x; medians of " +
                              std::to_string(refRuns) + " and " + std::to_string(optRuns) + " runs)");
          return r;
        }
        Array value;
        if (opt) {
          interp::OptimizedInterpreter in(*graph, point, inputs, io);
          value = in.evaluate(optimizedFor(n));
        } else {
          interp::Interpreter in(*graph, point, inputs, io);
          value = in.evaluate(n);
        }
        if (is(cmd, "save")) {
          interp::saveNpy(value, path);
          j["path"] = path;
        }
        j["dtype"] = ops::spelling(value.dtype());
        j["shape"] = value.shape();
        if (is(cmd, "eval")) {
          if (value.size() > 1000000) throw interp::EvalError(interp::EvalError::Input, "the value has " + std::to_string(value.size()) + " elements; use :save");
          j["value"] = valueJson(value);
        }
        if (options.json) r.add(dumpJson(j));
        else if (is(cmd, "eval"))
          r.add(name + " = " + value.toString() + "  (" + ops::spelling(value.dtype()) + ", shape " + interp::shapeText(value.shape()) + ")");
        else
          r.add("saved " + name + " " + interp::shapeText(value.shape()) + " " + ops::spelling(value.dtype()) + " to " + path);
      } catch (const interp::EvalError &e) {
        r.failed = true;
        Json err;
        err["kind"] = interp::EvalError::spelling(e.kind);
        err["message"] = e.what();
        j["error"] = err;
        if (options.json) r.add(dumpJson(j));
        else r.add(std::string(interp::EvalError::spelling(e.kind)) + " error: " + e.what());
      }
      return r;
    }
    if (is(cmd, "graph")) {
      std::string name;
      const Node *n = target(name);
      done();
      Json nodes = Json::array();
      r.set(graphLines(n, &nodes));
      j["command"] = "graph";
      j["name"] = name;
      j["nodes"] = nodes;
      if (options.json) r.set({dumpJson(j)});
      return r;
    }
    if (is(cmd, "rules")) {
      done();
      Json list = Json::array();
      for (const rewrite::Rule &rule : rewrite::defaultRules()) {
        Json x;
        x["rule"] = rule.name;
        x["phase"] = rewrite::spelling(rule.phase);
        x["exact"] = rule.exact;
        x["text"] = rule.body();
        list.push_back(x);
        r.add("  " + rule.heading());
      }
      j["command"] = "rules";
      j["rules"] = list;
      if (options.json) r.set({dumpJson(j)});
      return r;
    }
    if (is(cmd, "optimize")) {
      rewrite::EngineOptions eo;
      if (takeFlag("--valid-graph")) eo.allow = rewrite::Soundness::ValidGraph;
      eo.exactOnly = !takeFlag("--inexact");
      std::string name;
      const Node *n = target(name);
      done();
      auto start = std::chrono::steady_clock::now();
      rewrite::Engine engine(*graph, rewrite::defaultRules(), eo);
      rewrite::OptimizeResult result = engine.run({n});
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      // --opt and :time run the program rewritten as :optimize rewrites it without flags
      // (strict, values bit for bit); another rewriting is shown, not kept for them.
      if (eo.allow == rewrite::Soundness::Strict && eo.exactOnly) optimized[n] = result.outputs[0];
      j["command"] = "optimize";
      j["name"] = name;
      j["nodes_before"] = rewrite::reachableCount({n});
      j["nodes_after"] = rewrite::reachableCount(result.outputs);
      j["seconds"] = seconds;
      Json fired = Json::object();
      for (const auto &[rule, count] : result.fired) fired[rule] = count;
      j["fired"] = fired;
      Json refused = Json::array();
      for (const rewrite::Refusal &f : result.refused) {
        Json x;
        x["rule"] = f.rule;
        x["witness"] = assignmentOrNull(f.check.witness);
        x["class"] = rewrite::spelling(f.check.soundness);
        x["reason"] = f.check.reason;
        refused.push_back(x);
      }
      j["refused"] = refused;
      j["soundness"] = eo.allow == rewrite::Soundness::Strict ? "strict" : "valid-graph";
      j["exact"] = eo.exactOnly;
      if (options.json) {
        r.add(dumpJson(j));
        return r;
      }
      r.set(graphLines(result.outputs[0]));
      std::string summary = name + ": " + std::to_string(j["nodes_before"].get<std::size_t>()) + " -> " +
                            std::to_string(j["nodes_after"].get<std::size_t>()) + " nodes";
      for (const auto &[rule, count] : result.fired) summary += ", " + rule + " x" + std::to_string(count);
      r.add(summary);
      for (const rewrite::Refusal &f : result.refused)
        r.add("refused " + f.rule + " (" + rewrite::spelling(f.check.soundness) + "): " + f.check.reason +
                          (f.check.witness ? " at " + f.check.witness->toString() : ""));
      return r;
    }
    if (is(cmd, "ops")) {
      done();
      Json list = Json::array();
      for (const ops::OpInfo &o : ops::opCatalogue()) {
        Json x;
        x["name"] = o.name;
        x["signature"] = o.signature;
        x["rule"] = o.rule;
        list.push_back(x);
        r.add("  " + o.signature + "  — " + o.rule);
      }
      j["command"] = "ops";
      j["ops"] = list;
      if (options.json) r.set({dumpJson(j)});
      return r;
    }
    if (is(cmd, "help")) {
      done();
      j["command"] = "help";
      j["text"] = kHelp;
      if (options.json) r.add(dumpJson(j));
      else r.add(kHelp);
      return r;
    }
    if (is(cmd, "reset")) {
      done();
      reset();
      j["command"] = "reset";
      if (options.json) r.add(dumpJson(j));
      return r;
    }
    if (is(cmd, "quit") || is(cmd, "q") || is(cmd, "exit")) {
      done();
      r.quit = true;
      j["command"] = "quit";
      if (options.json) r.add(dumpJson(j));
      return r;
    }
    failAt("unknown command ':" + cmd + "' (see :help)", cmdPos);
  }

  /// A file to read: as Python would open it (relative to the working directory), else next to
  /// the script.
  std::string resolve(const std::string &path) const {
    if (options.baseDirectory.empty() || std::filesystem::path(path).is_absolute()) return path;
    std::error_code ignored;
    if (std::filesystem::exists(path, ignored)) return path;
    return (std::filesystem::path(options.baseDirectory) / path).string();
  }

  /// with n=3, m=4, x=[[1.0],[2.0]], y=load("y.npy")
  void bindings(Assignment &point, std::map<std::string, Array> &inputs) {
    do {
      if (peek().kind != Token::Name || !isOp("=", 1)) fail("expected name=value" + found());
      Token t = peek();
      at += 2;
      std::size_t p = peek().pos;
      bool known = false;
      for (const Expr &q : graph->params()) known |= q->name == t.text;
      for (const Node &x : graph->nodes()) known |= x.kind == ops::OpKind::Input && x.op == t.text;
      if (!known) failAt("there is no size parameter or input named '" + t.text + "'", t.pos);
      if (isName("load") && isOp("(", 1)) {
        at += 2;
        if (peek().kind != Token::String) fail("load takes a file name string");
        std::string path = resolve(peek().text);
        ++at;
        expectOp(")");
        try {
          inputs[t.text] = interp::loadNpy(path);
        } catch (const UserError &e) {
          failAt(e.what(), p);
        }
        continue;
      }
      if (isOp("[")) {
        inputs[t.text] = literalArray(p);
        continue;
      }
      bool negative = acceptOp("-");
      if (peek().kind == Token::Int) {
        Integer v = parseExpr(peek().text).constantValue().value();
        ++at;
        if (negative) v = -v;
        const Value *var = variables.find(t.text);
        if (var && var->kind == Value::Array) {
          Array a(DType::Int64, {});
          if (!v.fitsInt64()) failAt("the value does not fit in int64", p);
          a.base<int64_t>()[0] = v.toInt64Checked();
          inputs[t.text] = a;
        } else {
          point.set(t.text, v);
        }
        continue;
      }
      if (peek().kind == Token::Float || isName("True") || isName("False")) {
        Array a = scalarLiteral(negative);
        inputs[t.text] = a;
        continue;
      }
      fail("expected an integer, a list of numbers or load(\"file.npy\")" + found());
    } while (acceptOp(","));
  }

  Array scalarLiteral(bool negative) {
    Token t = peek();
    ++at;
    if (t.kind == Token::Name) {
      Array a(DType::Bool, {});
      a.base<bool>()[0] = is(t.text, "True");
      return a;
    }
    if (t.kind == Token::Int) {
      Array a(DType::Int64, {});
      auto v = parseExpr(t.text).constantValue()->tryToInt64();
      if (!v) failAt("integer out of range", t.pos);
      a.base<int64_t>()[0] = negative ? -*v : *v;
      return a;
    }
    Array a(DType::Float64, {});
    double v = std::strtod(t.text.c_str(), nullptr);
    a.base<double>()[0] = negative ? -v : v;
    return a;
  }

  /// The size parameters an evaluation of `n` was not given: those its computation reads (a
  /// shape, index, size or condition of n or of what it is computed from) stay missing, and the
  /// interpreter names them; the others take values the assumptions allow beside the given
  /// ones (0 where no assumption mentions them), since nothing computed depends on them.
  void completePoint(const Node *n, Assignment &point) {
    std::set<std::string> read;
    auto note = [&](const auto &e) {
      for (const Expr &p : parametersOf(e)) read.insert(p->name);
    };
    std::vector<const Node *> stack{n};
    std::unordered_set<const Node *> seen{n};
    while (!stack.empty()) {
      const Node *x = stack.back();
      stack.pop_back();
      for (const Expr &d : x->shape) note(d);
      for (const Expr &e : x->exprs) note(e);
      for (const ops::IndexEntry &e : x->index) {
        if (e.start) note(*e.start);
        if (e.stop) note(*e.stop);
      }
      note(x->cond);
      for (const Obligation &o : x->validity.obligations()) note(o.predicate);
      for (const Node *i : x->inputs)
        if (seen.insert(i).second) stack.push_back(i);
    }
    std::vector<std::string> unread;
    for (const Expr &p : graph->params())
      if (!point.find(p->name) && !read.count(p->name)) unread.push_back(p->name);
    if (unread.empty()) return;
    std::vector<Pred> fixed = graph->assumptions();
    for (const auto &[name, v] : point.values()) fixed.push_back(eq(Expr::param(name), Expr(v)));
    try {
      Context c = solver.makeContext(fixed);
      if (c.consistencyProven()) {
        for (const std::string &p : unread) {
          if (const Integer *v = c.samplePoint().find(p)) point.set(p, *v);
          else point.set(p, Integer(0)); // not in the assumptions: any size
        }
      }
    } catch (const UserError &) {
      // The given values contradict the assumptions (or are no sizes): the interpreter says
      // which one fails, whatever the others are.
      for (const std::string &p : unread) point.set(p, Integer(0));
    }
  }

  /// A nested list of numbers (rectangular) as an array: bool, int64 or float64 as NumPy infers.
  Array literalArray(std::size_t p) {
    struct Item {
      std::vector<Item> children;
      bool leaf = false;
      Token token;
      bool negative = false;
    };
    std::function<Item(std::size_t)> parse = [&](std::size_t depth) -> Item {
      Item it;
      if (depth > 32) fail("the nested lists are too deep");
      if (acceptOp("[")) {
        if (!isOp("]")) {
          do {
            if (isOp("]")) break;
            it.children.push_back(parse(depth + 1));
          } while (acceptOp(","));
        }
        expectOp("]");
        return it;
      }
      it.leaf = true;
      it.negative = acceptOp("-");
      if (isName("np") && isOp(".", 1) && (isName("nan", 2) || isName("inf", 2))) at += 2; // np.nan, np.inf
      it.token = peek();
      if (it.token.kind != Token::Int && it.token.kind != Token::Float && !isName("True") && !isName("False") &&
          !isName("nan") && !isName("inf"))
        fail("expected a number" + found());
      if (it.token.kind == Token::Name && it.negative && (is(it.token.text, "True") || is(it.token.text, "False")))
        failAt("expected a number, found '-" + it.token.text + "'", it.token.pos);
      if (it.token.kind == Token::Name && (is(it.token.text, "nan") || is(it.token.text, "inf"))) it.token.kind = Token::Float;
      ++at;
      return it;
    };
    Item root = parse(0);
    std::vector<int64_t> shape;
    for (const Item *i = &root; !i->leaf; i = &i->children[0]) {
      shape.push_back(int64_t(i->children.size()));
      if (i->children.empty()) break;
    }
    std::vector<const Item *> leaves;
    std::function<void(const Item &, std::size_t)> walk = [&](const Item &i, std::size_t depth) {
      if (i.leaf) {
        if (depth != shape.size()) failAt("the nested lists have an inhomogeneous shape", p);
        leaves.push_back(&i);
        return;
      }
      if (depth >= shape.size() || int64_t(i.children.size()) != shape[depth])
        failAt("the nested lists have an inhomogeneous shape", p);
      for (const Item &c : i.children) walk(c, depth + 1);
    };
    walk(root, 0);
    bool anyFloat = false, allBool = !leaves.empty();
    for (const Item *l : leaves) {
      anyFloat |= l->token.kind == Token::Float;
      allBool &= l->token.kind == Token::Name;
    }
    DType t = allBool ? DType::Bool : anyFloat ? DType::Float64 : DType::Int64;
    Array a(t, shape);
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      const Item &l = *leaves[i];
      if (t == DType::Bool) {
        a.base<bool>()[i] = is(l.token.text, "True");
      } else if (t == DType::Int64 && l.token.kind == Token::Name) { // True, False among integers
        a.base<int64_t>()[i] = is(l.token.text, "True") ? 1 : 0;
      } else if (t == DType::Int64) {
        // The sign is part of the number: -9223372036854775808 is in range.
        auto x = parseExpr((l.negative ? "-" : "") + l.token.text).constantValue()->tryToInt64();
        if (!x) failAt("integer out of range", l.token.pos);
        a.base<int64_t>()[i] = *x;
      } else {
        double v = l.token.kind == Token::Name               ? (is(l.token.text, "True"))
                   : is(l.token.text, "nan")                  ? std::numeric_limits<double>::quiet_NaN()
                   : is(l.token.text, "inf")                  ? std::numeric_limits<double>::infinity()
                                                            : std::strtod(l.token.text.c_str(), nullptr);
        a.base<double>()[i] = l.negative ? -v : v;
      }
    }
    return a;
  }
};

Session::Session(Solver &solver, SessionOptions options) : impl_(std::make_unique<Impl>(solver, std::move(options))) {}
Session::~Session() = default;
Reply Session::execute(const std::string &line, int lineNumber) { return impl_->execute(line, lineNumber); }
std::size_t Session::nodeCount() const { return impl_->graph->nodes().size(); }
const ops::Graph &Session::graph() const { return *impl_->graph; }
ops::Graph &Session::mutableGraph() { return *impl_->graph; }
const ops::Node *Session::lookup(const std::string &name) const {
  const Value *v = impl_->variables.find(name);
  return v && v->kind == Value::Array ? v->node : nullptr;
}

/// A script stops after this many failed lines.
const std::vector<std::string> &Reply::lines() const {
  if (!lines_) {
    std::vector<std::string> out;
    for (const Piece &p : pieces_) {
      if (p.make) p.make(out);
      else out.push_back(p.line);
    }
    lines_ = std::move(out);
  }
  return *lines_;
}

void Reply::add(std::string line) {
  pieces_.push_back({std::move(line), {}});
  lines_.reset();
}

void Reply::addLater(std::function<void(std::vector<std::string> &)> make) {
  pieces_.push_back({{}, std::move(make)});
  lines_.reset();
}

void Reply::set(std::vector<std::string> lines) {
  pieces_.clear();
  for (std::string &l : lines) add(std::move(l));
}

constexpr int kMaxReportedErrors = 100;

int runScript(Solver &solver, const std::string &text, SessionOptions options, std::ostream &out, const std::string &fileName) {
  Session session(solver, options);
  std::istringstream in(text);
  std::string line;
  int number = 0, failures = 0;
  while (std::getline(in, line)) {
    ++number;
    Reply r = session.execute(line, number);
    for (const std::string &l : r.lines()) {
      if (r.failed && !options.json) out << fileName << ":" << number << ": ";
      out << l << "\n";
    }
    if (r.failed && ++failures == kMaxReportedErrors) {
      // Past this many errors the rest is counted, not run: a file that is not a program
      // would otherwise print an error for every line.
      int more = 0;
      while (std::getline(in, line)) ++more;
      if (more > 0) {
        if (options.json) out << "{\"error\": \"stopped after " << kMaxReportedErrors << " errors\", \"lines_not_run\": " << more << "}\n";
        else out << fileName << ": stopped after " << kMaxReportedErrors << " errors, and " << more << " more lines not run\n";
      }
      break;
    }
    if (r.quit) break;
  }
  return failures;
}

} // namespace shapelab::driver
