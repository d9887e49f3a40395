// SessionImpl — the state of a session and the members that run a line (internal to lang/).
//
// Model: one Impl per Session. A line is tokenized into `toks`; a statement is parsed and
// evaluated at once by recursive descent (Parser.cpp: Python's precedence; Literals.cpp: array
// literals given by value), functions are called through the library (Library.cpp), values are
// bound to names with their guards and status (Statements.cpp), and commands answer questions
// about the program (Commands.cpp). Errors are LangError (a message and a byte position) or a
// UserError of a lower layer, turned into a reply with a caret by execute().
// Invariant: `graph` holds every node a name is bound to; `names` and `statements` index it.
#pragma once

#include <array>
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

#include "interp/Interpreter.h"
#include "interp/Optimized.h"
#include "ops/Composites.h"
#include "ops/Graph.h"
#include "rewrite/Engine.h"
#include "shape/RandomVariable.h"
#include "symbolic/Errors.h"
#include "support/FlatIndex.h"
#include "symbolic/Parser.h"
#include "lang/Json.h"
#include "lang/Lexer.h"
#include "lang/Session.h"
#include "lang/Value.h"

namespace shapelab::lang {

struct Session::Impl {
  Solver &solver;
  SessionOptions options;
  BroadcastMode mode;
  std::unique_ptr<ops::Graph> graph;
  EntryTable<std::string, Value, NameHash> variables;
  std::vector<std::string> names; // by node id: the name a statement last gave the node, or ""
  const std::string *nameOf(const Node *n) const;
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

  void reset();

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
  bool takeFlag(const std::string &flag);
  template <std::size_t N> bool acceptOp(const char (&o)[N]) {
    if (!isOp(o)) return false;
    ++at;
    return true;
  }
  template <std::size_t N> void expectOp(const char (&o)[N]) {
    if (!acceptOp(o)) fail(std::string("expected '") + o + "'" + found());
  }
  std::string found() const;
  [[noreturn]] void fail(const std::string &message) const { throw LangError{message, peek().pos}; }
  [[noreturn]] static void failAt(const std::string &message, std::size_t pos) { throw LangError{message, pos}; }

  // ---- conversions ----
  const Node *array(const Value &v);
  Expr sizeOf(const Value &v, const char *what);
  /// One size, or a tuple of them (partition's kth, a window shape), in order.
  std::vector<Expr> sizesOf(const Value &v, const char *what);
  int64_t constant(const Value &v, const char *what);
  Shape shapeOf(const Value &v, const char *what = "a shape");
  /// A keepdims argument: a bool, or an integer read as one; absent is false.
  bool keepdimsOf(const Value &keep);
  std::optional<std::vector<int64_t>> axesOf(const Value &v);
  DType dtypeOf(const Value &v);

  // ---- expressions (Python's precedence) ----
  Value expression() {
    Nested guard(*this);
    return orTest();
  }
  /// How deep the parser is: each nested expression (a bracket, a call's argument, an index),
  /// each operator of a chain of unary operators, `not`s or `**`s is one level. Past 200 levels
  /// (Python's limit on brackets; the size parser's too) the statement is refused before the
  /// stack runs out.
  static constexpr int kMaxNesting = 200;
  int nesting = 0;
  struct Nested {
    Impl &impl;
    explicit Nested(Impl &i) : impl(i) {
      if (++impl.nesting > kMaxNesting) {
        --impl.nesting;
        impl.fail("the expression is nested too deeply (more than 200 levels)");
      }
    }
    ~Nested() { --impl.nesting; }
    Nested(const Nested &) = delete;
    Nested &operator=(const Nested &) = delete;
  };
  /// A statement's value: an expression, or several separated by commas, which are a tuple as in
  /// Python (`x, y = 1, 2`; `t = n, m`; a trailing comma makes one: `t = n,`).
  Value expressionList();

  /// `or` (loosest), then `and`, both over predicates.
  Value orTest(bool conj = false);
  Value logical(const Value &a, const Value &b, bool conj, std::size_t p);
  Value notTest();
  Value comparison();
  /// The binary operators by precedence, loosest first (Python's: | then & then + - then * / // % @).
  static constexpr std::size_t kBinaryLevels = 5;
  Value binaryLevel(std::size_t level = 0);
  /// One level's operands and operators (its only return is `a`: returned in place).
  Value binaryOperands(std::size_t level);
  Value factor();
  // The parsing functions return one named Value from every return (or a call's result), so
  // that it is built in the caller's place: a Value is large, and each statement passes through
  // every level.
  Value power();

  Value unaryOp(const std::string &op, Value a, std::size_t p);

  static bool numberLike(const Value &v);
  static double asDouble(const Value &v);

  Value binary(const std::string &op, const Value &a, const Value &b, std::size_t p);

  Value binaryUnchecked(const std::string &op, const Value &a, const Value &b, std::size_t p);

  /// Why `x op y` of two sizes is an array computed at run time (as NumPy computes it) rather
  /// than a size expression, and what to write instead.
  static std::string whyNotASize(const std::string &op, const Expr &x, const Expr &y);
  /// `message`, with why the value is not a size when it was computed from sizes.
  static std::string withWhyNotASize(std::string message, const Value &v);

  Value primary();

  Value atom();

  /// True, False and None, which always read as themselves: as in Python, no statement binds
  /// them (assign and param refuse them), so `variables` never holds them.
  static bool isConstantName(const std::string &n) { return is(n, "True") || is(n, "False") || is(n, "None"); }

  Value name(const Token &t);
  /// Python statements the language does not have, each with what to write instead.
  void refuseStatementKeyword(const Token &t);
  /// What follows a whole expression that should have ended the line.
  [[noreturn]] void unexpectedAfterExpression();
  /// NumPy dtypes shapelab does not compute with.
  static bool unsupportedDType(const std::string &n);
  static std::string unsupportedDTypeMessage(const std::string &n);
  /// A name no statement assigned: True, False, None, a dtype, a module or a function.
  Value unheldName(const Token &t);

  /// np.inf, np.nan, np.pi, np.e and NumPy's other float constants by name; nullopt for another name.
  static std::optional<double> numpyConstant(const std::string &n);
  static bool isFunction(const std::string &n);

  Value attribute(const Value &v, const Token &t);

  Value subscript(const Value &v, std::size_t p);
  /// The entries of a subscript, read up to its closing ']' (the '[' was read).
  std::vector<Value> subscriptValues();
  /// Those entries as an index (sizes, slices, None, `...`, index arrays).
  ops::Subscript subscriptOf(const std::vector<Value> &entries);
  /// `NAME[index] = value` and `NAME[index] op= value` (NumPy's item assignment and its
  /// augmented forms), and `NAME op= value`: the name rebound to the array written, as an
  /// assignment replies. Nodes that read the old array keep it (the program is functional).
  void itemAssignment(int lineNumber, Reply &r);
  /// The binary ufunc of an augmented assignment operator (`+=` is add), or nullopt.
  static std::optional<std::string> augmentedUfunc(const Token &t);
  /// Set by a call that changes its first argument in place (np.add.at, np.put_along_axis):
  /// where that argument was written, so the statement rebinds the name written there.
  std::optional<std::size_t> rebindsArgumentAt;
  /// Set by a method that changes its array in place (x.sort()): the method name's position.
  std::optional<std::size_t> rebindsObjectAt;

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

  Value callArguments(const Value &f, std::size_t p);

  /// Refuses a call whose arguments its binding (ops::binding) does not take: too many
  /// positional ones, an unknown keyword (NumPy's messages).
  void checkArguments(const Args &a);
  const Value &required(const Args &a, std::size_t i, const char *keyword);
  Value optional(const Args &a, std::size_t i, const char *keyword);
  std::vector<const Node *> arrays(const Value &list);
  /// One array, or a list of them (grad's `wrt`, vectorize's outputs); `noneGiven` refuses an
  /// empty list.
  std::vector<const Node *> arrayOrArrays(const Value &v, const std::string &noneGiven);

  /// A call of a library function: its NumPy name resolved, the function's row found in
  /// binders() (a ufunc's by its arity), and the row's binder run.
  Value call(const Value &f, Args &a);
  /// A library call being bound: the function's name (NumPy's other names resolved), its
  /// arguments (a method's object first), the call's position, and the callable (f.node is a
  /// method's object).
  struct Call {
    std::string fn;
    Args &a;
    std::size_t p;
    const Value &f;
    /// The call's result: an array made at the call's position.
    Value node(const Node *n) const { return Value::ofNode(n, p); }
  };
  using Binder = Value (Impl::*)(Call &);
  static const std::unordered_map<std::string, Binder> &binders();
  // The binders (lang/Library.cpp), one per function or family of functions built alike.
  Value bindInput(Call &c);
  Value bindUnary(Call &c);
  Value bindBinary(Call &c);
  Value bindWhere(Call &c);
  Value bindAstype(Call &c);
  Value bindTranspose(Call &c);
  Value bindExpandDims(Call &c);
  Value bindSqueeze(Call &c);
  Value bindReshape(Call &c);
  Value bindBroadcastTo(Call &c);
  Value bindSumTo(Call &c);
  Value bindGrad(Call &c);
  Value bindVectorize(Call &c);
  Value bindRavel(Call &c);
  Value bindClip(Call &c);
  Value bindFullLike(Call &c);
  Value bindFull(Call &c);
  Value bindJoin(Call &c);
  Value bindSplit(Call &c);
  Value bindSetSubtensor(Call &c);
  Value bindArray(Call &c);
  Value bindRound(Call &c);
  /// np.array(object, dtype) of a value: nested lists of numbers, sizes and arrays stacked.
  const Node *arrayOf(const Value &object, std::optional<DType> dtype, const std::string &fn);
  Value bindLinspace(Call &c);
  Value bindMeshgrid(Call &c);
  Value bindDiagonal(Call &c);
  Value bindKron(Call &c);
  Value bindRot90(Call &c);
  Value bindTensordot(Call &c);
  Value bindIsclose(Call &c);
  Value bindNanToNum(Call &c);
  Value bindConvolve(Call &c);
  /// A Python number (or bool) argument, as a double.
  double numberArgument(const Value &v, const char *what);
  Value bindUfuncAt(Call &c);
  Value bindUfuncOuter(Call &c);
  Value bindAlongAxis(Call &c);
  Value bindTake(Call &c);
  Value bindSort(Call &c);
  /// ufunc.at's indices argument as an index: an integer array, an integer, or a tuple of them.
  ops::Subscript indexArgument(const Value &v);
  Value bindArgReduction(Call &c);
  /// Whether `axis` is 0 or -1 given to a 0-d array, which NumPy's ufunc reductions read as None.
  static bool zeroDimAxis(const Node *x, const Value &axis);
  Value bindReduction(Call &c);
  Value bindGufunc(Call &c);
  Value bindDot(Call &c);
  Value bindRepeated(Call &c);
  Value bindEinsum(Call &c);
  Value bindPad(Call &c);
  Value bindDiff(Call &c);
  Value bindCumulative(Call &c);
  Value bindSpecifyShape(Call &c);
  Value bindIfelse(Call &c);
  Value bindTriangle(Call &c);
  Value bindRoll(Call &c);
  Value bindLayout(Call &c);
  Value bindStacking(Call &c);
  Value bindSpread(Call &c);
  Value bindArange(Call &c);
  Value bindEye(Call &c);
  Value bindLen(Call &c);
  Value bindShapeAttribute(Call &c);
  // (lang/LibraryLinalg.cpp)
  Value bindLinalgNorm(Call &c);
  Value bindLinalgSquare(Call &c);
  Value bindMatrixPower(Call &c);
  Value bindQr(Call &c);
  Value bindSvd(Call &c);
  Value bindEigh(Call &c);
  Value bindPinv(Call &c);
  Value bindLstsq(Call &c);
  Value bindMatrixRank(Call &c);
  // (lang/LibrarySelection.cpp)
  Value bindNonzero(Call &c);
  Value bindCompress(Call &c);
  Value bindUnique(Call &c);
  Value bindSearchsorted(Call &c);
  Value bindPartition(Call &c);
  Value bindTriangleIndices(Call &c);
  Value bindVander(Call &c);
  Value bindLogspace(Call &c);
  Value bindIndices(Call &c);
  Value bindBroadcastArrays(Call &c);
  Value bindSlidingWindow(Call &c);
  /// A flag argument (True/False, or an integer read as one); `absent` when not given.
  bool flagOf(const Value &v, bool absent, const char *what);

  /// An axis argument as NumPy normalises it (AxisError's message).
  int64_t axisOf(const Value &v, std::size_t rank);

  /// pad's pad_width or constant_values as NumPy reads them (numpy/lib/arraypad.py, _as_pairs):
  /// one value, one (before, after) pair, or one of either per axis, broadcast to `rank` pairs.
  std::vector<std::pair<Value, Value>> padPairs(const Value &v, std::size_t rank, bool widths);

  /// sum, prod, max, min, all or any of a tuple of sizes (np.prod(x.shape)). NumPy makes the
  /// tuple an int64 array and reduces it: the answer is a size, or a predicate for all and any
  /// (np.all(x.shape): no dimension is 0). An empty tuple is a float64 array, as in NumPy.
  Value tupleReduction(const std::string &fn, const Value &x, const Args &a, std::size_t p);

  /// np.random.NAME(parameters..., size=None) (lang/LibraryRandom.cpp).
  Value randomCall(const std::string &name, Args &a, std::size_t p);

  // ---- statements ----
  Json lineJson(int lineNumber);

  std::string statusText(const Validity &v);
  /// The limits line of a reply ("" when there are none): never mixed into the checks.
  std::string limitsLine(const Validity &v);
  /// The sizes from sizes (_qN = d // h, _rN = d % h) that `shape` and `preds` mention, in the
  /// order they were defined: (name, definition).
  std::vector<std::pair<std::string, std::string>> definedSizes(const Shape &shape, const std::vector<Pred> &preds) const;
  /// Their line of a text reply ("  where _q1 = d // h"), "" when there are none.
  static std::string sizesLine(const std::vector<std::pair<std::string, std::string>> &sizes);
  /// Their JSON member text (`, "sizes": {"_q1": "d // h"}`), "" when there are none.
  static std::string sizesJson(const std::vector<std::pair<std::string, std::string>> &sizes);
  /// The validity of computing `nodes`, read as the session asks (strict limits or not).
  Validity gathered(const std::vector<const Node *> &nodes);
  Validity gathered(const Node *n) { return gathered(std::vector<const Node *>{n}); }
  /// The declared size parameters, in declaration order: a witness's tie-break order.
  std::vector<std::string> declaredOrder() const;

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
    std::vector<std::pair<std::string, std::string>> sizes; // the sizes from sizes it mentions
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

  std::shared_ptr<ArrayStatus> arrayStatus(const Node *n);
  const std::string &statusTextOf(ArrayStatus &s);
  /// A statement's shape as a reply prints it: simplified under its validity where it has
  /// runtime checks (it exists only there). The context of the valid points is made once per
  /// status (the nodes that share their pending list share it), with the text.
  Shape shownShape(const Shape &shape, ArrayStatus &s);

  /// An array whose shape, size or dtype the statement read (x.shape, x.ndim, ...): NumPy
  /// computes it, so what the statement builds must not exist where it fails.
  void noteRead(const Node *n);

  /// Whether `g` adds to what computing `n` requires: a failure or an obligation of its pending
  /// nodes that n's do not have (by node, then by predicate: a set_subtensor's region repeats
  /// what the set_subtensor itself requires).
  static bool addsTo(const Node *g, const Node *n);

  /// Whether `g` is `n` or one of its operands, at any depth (a node's operands were made before
  /// it: the walk stops below g's id).
  static bool reads(const Node *n, const Node *g);

  /// `n` computed after what NumPy computes in the statement and n does not read: the arrays
  /// the statement evaluated only to drop them (`[a + b, a][1]`) or to read their shape, size or
  /// dtype (`zeros((a + b).shape)`), where they add to what n requires. An operand of n is not
  /// one (a lazy ifelse's branch included: only the chosen one runs).
  const Node *guarded(const Node *n);

  /// What a value that is not an array carries from its statement: every array the statement
  /// computed (built, or read for its metadata) that can fail. `k = [a + b, 3][1]` fails where
  /// a + b does, and so does what is built from k.
  std::vector<const Node *> computedArrays() const;

  /// Binds `v` to `targets` and replies with each name's value. `bare`: a statement that is an
  /// expression alone, shown as `_` as if it were assigned (its arrays are the program's), but
  /// bound to no name: `_` names are reserved, and the nodes keep the names they have.
  void assign(const std::vector<std::string> &targets, Value v, int lineNumber, Reply &r, bool bare = false);

  Reply execute(const std::string &text, int lineNumber);
  /// execute() for each statement of a line `;` separates (Session::execute).
  Reply executeLine(const std::string &text, int lineNumber);
  std::vector<std::string> transcript; // the statements that ran, for :save-session
  int loading = 0;                     // :load's nesting

  Reply error(const std::string &message, std::size_t position, int lineNumber);

  // ---- commands ----
  std::string targetText() const;

  const Node *target(std::string &text, bool sizesToo = false);

  Json assignmentOrNull(const std::optional<Assignment> &a) { return a ? assignmentJson(*a) : Json(nullptr); }

  /// `n` as :optimize left it, or rewritten now (strict, exact rules: values keep their bits).
  const Node *optimizedFor(const Node *n);
  static std::string formatSeconds(double s);
  static std::string formatRatio(double r);

  /// The DAG below `n` (shared nodes once), a line per node; with `json`, also as objects.
  std::vector<std::string> graphLines(const Node *n, Json *json = nullptr);

  Reply command(int lineNumber);
  /// A command being run: its name, where it is, the JSON reply's start, and the reply.
  struct CommandCall {
    Reply reply;
    std::string name;
    std::size_t pos = 0;
    Json json;
    int lineNumber = 0;
  };
  /// A row of the command table: the names it answers to (up to three), its :help lines.
  struct CommandRow {
    std::array<const char *, 3> names;
    const char *help;
    Reply (Impl::*run)(CommandCall &);
  };
  static const std::vector<CommandRow> &commandTable();
  /// Refuses anything after a command that takes nothing more.
  void endOfCommand() const;
  /// :help's text: the statements, then each command row's lines.
  static const std::string &helpText();
  Reply commandShape(CommandCall &call);    // :shape, :explain
  Reply commandDecide(CommandCall &call);   // :decide
  Reply commandLoad(CommandCall &call);        // :load FILE
  Reply commandSaveSession(CommandCall &call); // :save-session FILE
  /// Refuses an option (`--name`) left after a command took the ones it knows.
  void refuseUnknownFlags() const;
  /// The rest of the line from the current token, trailing spaces dropped, every token taken: an
  /// argument that is no expression (a pattern, a name, a file).
  std::string restOfLine();
  /// A file name after :COMMAND: a string, or the rest of the line.
  std::string fileArgument(const char *command);
  Reply commandErrors(CommandCall &call);   // :errors
  Reply commandEval(CommandCall &call);     // :eval, :save, :time
  Reply commandGraph(CommandCall &call);    // :graph
  Reply commandRules(CommandCall &call);    // :rules
  Reply commandOptimize(CommandCall &call); // :optimize
  Reply commandOps(CommandCall &call);      // :ops
  Reply commandHelp(CommandCall &call);     // :help
  std::pair<std::vector<std::string>, bool> runHelpExample(const std::string &call) const;
  Reply commandReset(CommandCall &call);    // :reset
  Reply commandQuit(CommandCall &call);     // :quit, :q, :exit

  /// A file to read: as Python would open it (relative to the working directory), else next to
  /// the script.
  std::string resolve(const std::string &path) const;

  /// with n=3, m=4, x=[[1.0],[2.0]], y=load("y.npy")
  void bindings(Assignment &point, std::map<std::string, Array> &inputs);

  Array scalarLiteral(bool negative);

  /// The size parameters an evaluation of `n` was not given: those its computation reads (a
  /// shape, index, size or condition of n or of what it is computed from) stay missing, and the
  /// interpreter names them; the others take values the assumptions allow beside the given
  /// ones (0 where no assumption mentions them), since nothing computed depends on them.
  void completePoint(const Node *n, Assignment &point);
  std::unordered_map<const Node *, std::set<std::string>> paramsRead; // completePoint's memo
  /// The sizes the given inputs' shapes say (a dimension `p` or `p + c` gives p), where not given.
  void sizesFromInputs(const std::map<std::string, Array> &inputs, Assignment &point);
  /// The array bound to `name`, or null (Session::lookup).
  const Node *arrayNamed(const std::string &name) const;
  /// The node bound to `name` (NameError if none), `point` completed for evaluating it: the
  /// sizes the inputs say, then completePoint. Session::evaluate and Session::time start here.
  const Node *evaluationTarget(const std::string &name, const std::map<std::string, Array> &inputs, Assignment &point);
  interp::InterpreterOptions interpreterOptions();
  /// `n`'s value at `point` (reference interpreter, or the optimized one on :optimize's graph).
  Array evaluateNode(const Node *n, const Assignment &point, const std::map<std::string, Array> &inputs, bool opt,
                     bool checked = true);

  /// A nested list of numbers (rectangular) as an array: bool, int64 or float64 as NumPy infers.
  Array literalArray(std::size_t p);
};

} // namespace shapelab::lang
