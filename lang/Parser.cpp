// Expressions of the program language, parsed and evaluated at once by recursive descent (Python's
// precedence): token helpers, conversions of values to nodes, sizes and axes, operators, names,
// attributes, subscripts and call arguments.
#include "lang/SessionImpl.h"

#include <numbers>

namespace shapelab::lang {

auto Session::Impl::takeFlag(const std::string &flag) -> bool {
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

auto Session::Impl::found() const -> std::string {
  const Token &t = peek();
  if (t.kind == Token::End) return " at the end of the line";
  return ", found '" + t.text + "'";
}

auto Session::Impl::array(const Value &v) -> const Node * {
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

auto Session::Impl::sizeOf(const Value &v, const char *what) -> Expr {
  if (v.kind == Value::Size) return v.size;
  if (v.kind == Value::Bool) return Expr(v.flag ? 1 : 0);
  failAt(withWhyNotASize(std::string(what) + " must be an integer (a size expression), not " + kindName(v), v), v.pos);
}

auto Session::Impl::constant(const Value &v, const char *what) -> int64_t {
  Expr e = sizeOf(v, what);
  auto c = e.constantValue();
  if (!c) failAt(std::string(what) + " must be a constant integer, not " + e.toString(), v.pos);
  auto i = c->tryToInt64();
  if (!i) failAt(std::string(what) + " is out of range", v.pos);
  return *i;
}

auto Session::Impl::shapeOf(const Value &v, const char *what) -> Shape {
  if (v.kind == Value::Size) return {v.size};
  if (v.kind != Value::Tuple) failAt(std::string(what) + " must be a tuple of sizes, not " + kindName(v), v.pos);
  Shape s;
  for (const Value &i : v.items) s.push_back(sizeOf(i, "a dimension"));
  return s;
}

auto Session::Impl::keepdimsOf(const Value &keep) -> bool {
  if (keep.kind == Value::None) return false;
  return keep.kind == Value::Bool ? keep.flag : constant(keep, "keepdims") != 0;
}

auto Session::Impl::axesOf(const Value &v) -> std::optional<std::vector<int64_t>> {
  if (v.kind == Value::None) return std::nullopt;
  if (v.kind == Value::Tuple) {
    std::vector<int64_t> a;
    for (const Value &i : v.items) a.push_back(constant(i, "an axis"));
    return a;
  }
  return std::vector<int64_t>{constant(v, "axis")};
}

auto Session::Impl::dtypeOf(const Value &v) -> DType {
  if (v.kind == Value::DTypeName) return v.dtype;
  if (v.kind == Value::String)
    if (auto t = ops::dtypeNamed(v.text)) return *t;
  if (v.kind == Value::String && unsupportedDType(v.text)) failAt(unsupportedDTypeMessage(v.text), v.pos);
  failAt(std::string("expected a dtype (") + ops::dtypeList() + ")", v.pos);
}

auto Session::Impl::expressionList() -> Value {
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

auto Session::Impl::orTest(bool conj) -> Value {
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

auto Session::Impl::logical(const Value &a, const Value &b, bool conj, std::size_t p) -> Value {
  if (a.kind != Value::Predicate || b.kind != Value::Predicate)
    failAt(withWhyNotASize(std::string("'") + (conj ? "and" : "or") + "' joins predicates over sizes; for arrays use logical_" +
                               (conj ? "and" : "or") + " or '" + (conj ? "&" : "|") + "'",
                           a.kind != Value::Predicate ? a : b),
           p);
  return Value::ofPred(conj ? (a.pred && b.pred) : (a.pred || b.pred), a.pos);
}

auto Session::Impl::notTest() -> Value {
  if (!isName("not")) return comparison();
  std::size_t p = peek().pos;
  ++at;
  Nested guard(*this);
  Value a = notTest();
  if (a.kind != Value::Predicate) failAt("'not' applies to a predicate over sizes; for arrays use ~", p);
  a.pred = !a.pred;
  return a;
}

auto Session::Impl::comparison() -> Value {
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

auto Session::Impl::binaryLevel(std::size_t level) -> Value {
  if (level == kBinaryLevels) return factor();
  return binaryOperands(level);
}

auto Session::Impl::binaryOperands(std::size_t level) -> Value {
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

auto Session::Impl::factor() -> Value {
  if (isOp("-") || isOp("+") || isOp("~")) {
    std::string op = peek().text;
    std::size_t p = peek().pos;
    ++at;
    Nested guard(*this); // - - - x
    Value a = factor();
    return unaryOp(op, a, p);
  }
  return power();
}

auto Session::Impl::power() -> Value {
  Value a = primary();
  if (isOp("**")) {
    std::size_t p = peek().pos;
    ++at;
    Nested guard(*this); // 2 ** 2 ** 2
    Value b = factor();
    a = binary("**", a, b, p);
  }
  return a;
}

auto Session::Impl::unaryOp(const std::string &op, Value a, std::size_t p) -> Value {
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

auto Session::Impl::numberLike(const Value &v) -> bool {
  return v.kind == Value::Float || v.kind == Value::Bool || (v.kind == Value::Size && v.size.isConstant());
}

auto Session::Impl::asDouble(const Value &v) -> double {
  if (v.kind == Value::Float) return v.number;
  if (v.kind == Value::Bool) return v.flag;
  return v.size.constantValue()->toDoubleLossy();
}

auto Session::Impl::binary(const std::string &op, const Value &a, const Value &b, std::size_t p) -> Value {
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

auto Session::Impl::binaryUnchecked(const std::string &op, const Value &a, const Value &b, std::size_t p) -> Value {
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
    if (is(op, "//") || is(op, "%")) {
      // Python's floor division of sizes: by a negative constant through -x and -y; by a size,
      // a defined size (Graph::dividedSize), where the divisor must not be 0.
      if (auto c = y.constantValue()) {
        if (*c == Integer(0)) failAt("integer division or modulo by zero", p);
        const Integer by = -*c;
        return Value::ofSize(is(op, "//") ? floorDiv(-x, by) : -mod(-x, by), p);
      }
      if (const std::optional<ops::Graph::DividedSize> parts = graph->dividedSize(x, y)) {
        graph->check(graph->size(y), !eq(y, 0), "the divisor {0} is not 0", "integer division or modulo by zero", {y});
        return Value::ofSize(is(op, "//") ? parts->quotient : parts->remainder, p);
      }
    }
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

auto Session::Impl::whyNotASize(const std::string &op, const Expr &x, const Expr &y) -> std::string {
  // A sum operand in parentheses: '(-k + n) // s', not '-k + n // s'.
  auto operand = [](const Expr &e) { return e->kind == ExprKind::Sum ? "(" + e.toString() + ")" : e.toString(); };
  const std::string written = "'" + operand(x) + " " + op + " " + operand(y) + "'";
  if (is(op, "//") || is(op, "%"))
    return written + " is an int64 array computed at run time: a size divides by another only where the divisor's "
           "sign is known (assume " + y.toString() + " >= 0), or name the quotient as a parameter (param q, assume " +
           x.toString() + " == q*" + (y->kind == ExprKind::Sum ? "(" + y.toString() + ")" : y.toString()) + ")";
  if (is(op, "**")) return written + " is an array computed at run time: a size's exponent is a constant from 0 to 64";
  if (is(op, "/")) return written + " is a float array ('/' is true division); '//' divides sizes";
  return "";
}

auto Session::Impl::withWhyNotASize(std::string message, const Value &v) -> std::string {
  return v.notSize.empty() ? message : message + ": " + v.notSize;
}

auto Session::Impl::primary() -> Value {
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

auto Session::Impl::atom() -> Value {
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

auto Session::Impl::name(const Token &t) -> Value {
  const std::string &n = t.text;
  if (const Value *held = variables.find(n)) {
    // An array held by a name is its node (and, rarely, why it is not a size): copying only
    // that reads one of the entry's four cache lines, not all (in a long program the entries
    // lie far apart).
    Value v = held->kind == Value::Array && held->notSize.empty() ? Value::ofNode(held->node, t.pos) : *held;
    v.pos = t.pos;
    for (const Node *r : v.reads) noteRead(r);
    return v;
  }
  return unheldName(t);
}

auto Session::Impl::refuseStatementKeyword(const Token &t) -> void {
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

auto Session::Impl::unexpectedAfterExpression() -> void {
  if (isName("if"))
    fail("conditional expressions (x if c else y) are not supported: write np.where(c, x, y), which computes "
         "both and picks elementwise");
  if (isName("for")) fail("comprehensions are not supported: write the computation on whole arrays");
  fail("unexpected '" + peek().text + "'");
}

auto Session::Impl::unsupportedDType(const std::string &n) -> bool {
  static const std::vector<std::string> names = {"float128", "complex64", "complex128", "complex256", "longdouble",
                                                 "complex", "clongdouble", "str_", "object_", "bytes_", "void",
                                                 "datetime64", "timedelta64", "int_", "float_", "uint0", "csingle", "cdouble"};
  return std::find(names.begin(), names.end(), n) != names.end();
}

auto Session::Impl::unsupportedDTypeMessage(const std::string &n) -> std::string {
  return "dtype '" + n + "' is not supported: the dtypes are " + std::string(ops::dtypeList());
}

auto Session::Impl::unheldName(const Token &t) -> Value {
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
    // A function is called by its bare name as a convenience (exp(x)); as a value the name is
    // Python's: not defined (a program's own variable it was meant to be, usually).
    if (!isModule(v) && !isOp("("))
      failAt("name '" + n + "' is not defined (did you mean np." + n + "(...)?)", t.pos);
  } else if (unsupportedDType(n)) {
    failAt(unsupportedDTypeMessage(n), t.pos);
  } else {
    failAt("name '" + n + "' is not defined", t.pos);
  }
  return v;
}

auto Session::Impl::numpyConstant(const std::string &n) -> std::optional<double> {
  constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // NumPy 1.24's names (numpy/core/numeric.py, numpy/core/umath.py).
  static const std::pair<const char *, double> constants[] = {
      {"inf", inf},   {"Inf", inf}, {"Infinity", inf}, {"infty", inf}, {"PINF", inf}, {"NINF", -inf},
      {"nan", nan},   {"NaN", nan}, {"NAN", nan},      {"pi", std::numbers::pi}, {"e", std::numbers::e}, {"euler_gamma", std::numbers::egamma},
      {"PZERO", 0.0}, {"NZERO", -0.0}};
  for (const auto &[name, value] : constants)
    if (n == name) return value;
  return std::nullopt;
}

auto Session::Impl::isFunction(const std::string &n) -> bool {
  const ops::FunctionInfo *f = ops::function(n);
  return (f && f->has(ops::fn::Function)) || ops::ufunc(n);
}

auto Session::Impl::attribute(const Value &v, const Token &t) -> Value {
  const std::string &a = t.text;
  if (v.kind == Value::Callable && !v.node) {
    // Only the namespaces have attributes: np.random.normal is a function, and
    // random.normal.normal names nothing.
    // A binary ufunc's methods: np.add.at (in place), np.multiply.outer.
    if (!isModule(v) && (is(a, "at") || is(a, "outer")) &&
        (ops::isBinaryOp(v.text) || is(v.text, "divide") || is(v.text, "mod"))) {
      Value f = v;
      f.text = v.text + "." + a;
      return f;
    }
    if (!isModule(v)) failAt("function '" + v.text + "' has no attribute '" + a + "'", t.pos);
    if (v.text.empty() && is(a, "newaxis")) { // None, as NumPy defines it
      Value none;
      none.pos = t.pos;
      return none;
    }
    // NumPy's float constants: Python floats (weak, as a literal is).
    if (v.text.empty())
      if (std::optional<double> c = numpyConstant(a)) return Value::ofFloat(*c, t.pos);
    // np.float32 and the other dtype names NumPy spells as attributes (np.int and np.float
    // are gone from NumPy).
    if (v.text.empty() && !is(a, "int") && !is(a, "float"))
      if (auto d = ops::dtypeNamed(a)) return Value::ofDType(*d, t.pos);
    Value f = v;
    f.text = v.text.empty() ? a : v.text + "." + a;
    f.flag = v.text.empty(); // spelled np.NAME
    if (v.text.empty() && unsupportedDType(a)) failAt(unsupportedDTypeMessage(a), t.pos);
    if (isModule(f)) return f; // np.lib.stride_tricks
    if (v.text.empty() && !(is(a, "random") || is(a, "linalg") || isFunction(a))) failAt("no function '" + a + "'", t.pos);
    if (is(v.text, "random") && !findRandomVariable(a)) failAt("unknown random variable '" + a + "' (see :ops)", t.pos);
    if (!v.text.empty() && !is(v.text, "random") && !isFunction(f.text)) {
      // The functions of the namespace, from the op list.
      std::vector<std::string> names;
      for (const ops::FunctionInfo &row : ops::functions())
        if (row.name.starts_with(v.text + ".") && row.has(ops::fn::Function))
          names.push_back(std::string(row.name.substr(v.text.size() + 1)));
      std::string list;
      for (std::size_t i = 0; i < names.size(); ++i)
        list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
      failAt("np." + v.text + " has no function '" + a + "' (shapelab's: " + list + ")", t.pos);
    }
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
  if (const ops::FunctionInfo *f = ops::function(a); !f || !f->has(ops::fn::Method)) failAt("an array has no attribute '" + a + "'", t.pos);
  Value m;
  m.kind = Value::Callable;
  m.text = a;
  m.node = n;
  m.pos = t.pos;
  return m;
}

auto Session::Impl::subscriptValues() -> std::vector<Value> {
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
  return entries;
}

auto Session::Impl::subscriptOf(const std::vector<Value> &entries) -> ops::Subscript {
  ops::Subscript index;
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
      x.kind = IndexEntry::Array;
      index.arrays.push_back(e.node);
      break;
    case Value::Tuple:
      // NumPy reads a list as an index array (x[[0, -1]]: integers; x[[True, False]]: a mask).
      if (!e.flag) failAt("a tuple inside an index is not supported: write its entries in the index itself", e.pos);
      x.kind = IndexEntry::Array;
      index.arrays.push_back(arrayOf(e, e.items.empty() ? std::optional<DType>(DType::Int64) : std::nullopt, "an index list"));
      if (!ops::isInteger(index.arrays.back()->dtype) && index.arrays.back()->dtype != DType::Bool)
        failAt("arrays used as indices must be of integer (or boolean) type", e.pos);
      break;
    default: failAt(std::string("an index cannot be ") + kindName(e), e.pos);
    }
    index.entries.push_back(x);
  }
  return index;
}

auto Session::Impl::subscript(const Value &v, std::size_t p) -> Value {
  std::vector<Value> entries = subscriptValues();
  if (v.kind == Value::Tuple) {
    if (entries.size() != 1 || entries[0].kind != Value::Size) failAt("a tuple takes one integer index", p);
    int64_t i = constant(entries[0], "the index");
    int64_t n = int64_t(v.items.size());
    if (i < -n || i >= n) failAt("tuple index out of range", entries[0].pos);
    return v.items[std::size_t(i < 0 ? i + n : i)];
  }
  if (v.kind != Value::Array) failAt(std::string(kindName(v)) + " is not subscriptable", p);
  ops::Subscript index = subscriptOf(entries);
  try {
    return Value::ofNode(ops::gather(*graph, v.node, index), p);
  } catch (const UserError &e) {
    failAt(e.what(), p);
  }
}

auto Session::Impl::callArguments(const Value &called, std::size_t p) -> Value {
  if (called.kind != Value::Callable && called.kind != Value::DTypeName)
    failAt(std::string(kindName(called)) + " is not callable", p);
  // A dtype called (np.float32(1.0), np.int64(x)) is np.array(value, dtype=that dtype): a 0-d
  // array of it for a number.
  Value asArray;
  if (called.kind == Value::DTypeName) {
    asArray.kind = Value::Callable;
    asArray.text = "array";
    asArray.pos = called.pos;
  }
  const Value &f = called.kind == Value::DTypeName ? asArray : called;
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
  if (called.kind == Value::DTypeName) {
    if (args.positional.size() != 1 || !args.keywords.empty())
      failAt(std::string(ops::spelling(called.dtype)) + "() takes one value here", p);
    args.keywords.push_back({"dtype", called});
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

} // namespace shapelab::lang
