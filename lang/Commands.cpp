// The REPL's commands (`:shape`, `:eval`, `:optimize`, ...), a table of rows that also writes
// `:help`.
#include "lang/SessionImpl.h"

namespace shapelab::lang {

namespace {

/// The statements part of :help; the commands part is written from the command table.
const char *const kStatementsHelp =
    "statements (one per line, # comments):\n"
    "  param n, m                     size parameters (integers >= 0)\n"
    "  assume n >= 1 and m % 2 == 0   assumptions (predicates over sizes)\n"
    "  mode numpy | mode static       broadcasting mode of the ops built after it\n"
    "  x = input((n, 1), float64)     a named input\n"
    "  z = exp(x + y) * 2.0           NumPy expressions (see :ops)\n"
    "  a, b = split(x, 2, axis=0)     several names at once\n"
    "  x[i, 0::2] = v    x += 1       item and in-place assignment (NumPy's): x is rebound to the\n"
    "                                 array written; what read the old x keeps it\n"
    "  x + 1                          an expression alone: shown as _, bound to no name\n";

} // namespace

auto Session::Impl::targetText() const -> std::string {
  std::size_t from = peek().pos, to = from;
  for (std::size_t k = at; k < toks.size() && toks[k].kind != Token::End && !(toks[k].kind == Token::Name && toks[k].text == "with") &&
                            toks[k].kind != Token::String;
       ++k)
    to = toks[k].pos + toks[k].text.size();
  return line.substr(from, to - from);
}

auto Session::Impl::refuseUnknownFlags() const -> void {
  // `--name` after a space, left once the command took the flags it knows: an option it lacks,
  // not `- (-name)`.
  for (std::size_t k = at; k + 2 < toks.size() && toks[k].kind != Token::End; ++k) {
    const Token &a = toks[k], &b = toks[k + 1], &c = toks[k + 2];
    if (a.kind == Token::Op && a.text == "-" && b.kind == Token::Op && b.text == "-" && b.pos == a.pos + 1 &&
        c.kind == Token::Name && c.pos == b.pos + 1 && (a.pos == 0 || std::isspace(static_cast<unsigned char>(line[a.pos - 1]))))
      throw LangError{"unknown option '--" + c.text + "'", a.pos};
  }
}

auto Session::Impl::target(std::string &text, bool sizesToo) -> const Node * {
  refuseUnknownFlags();
  text = targetText();
  std::size_t p = peek().pos;
  Value v = expression();
  if (sizesToo && v.kind == Value::Size) return guarded(graph->size(v.size));
  // A Python float or bool (eps = 1e-5) as the 0-d array NumPy would make of it.
  if (v.kind == Value::Float || v.kind == Value::Bool) return guarded(array(v));
  if (v.kind != Value::Array) failAt("expected an array, found " + std::string(kindName(v)), p);
  return guarded(v.node);
}

auto Session::Impl::optimizedFor(const Node *n) -> const Node * {
  if (auto it = optimized.find(n); it != optimized.end()) return it->second;
  rewrite::EngineOptions eo;
  eo.exactOnly = true;
  rewrite::Engine engine(*graph, rewrite::defaultRules(), eo);
  const Node *m = engine.run({n}).outputs[0];
  optimized[n] = m;
  return m;
}

auto Session::Impl::formatSeconds(double s) -> std::string {
  char buf[32];
  if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else if (s < 1) std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

auto Session::Impl::formatRatio(double r) -> std::string {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", r);
  return buf;
}

auto Session::Impl::graphLines(const Node *n, Json *json) -> std::vector<std::string> {
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
      const std::string subscripts = x->attr<EinsumSpec>().text();
      o["subscripts"] = subscripts;
      args = "'" + subscripts + "'";
    }
    if (x->kind == ops::OpKind::Map) { // the op each example runs, and the batch's rank
      const ops::attr::Core &c = x->attr<ops::attr::Core>();
      o["core"] = c.core->op;
      o["batch_dims"] = c.batchRank;
    }
    if (json) json->push_back(o);
    for (const Node *i : x->inputs) args += (args.empty() ? "%" : ", %") + std::to_string(i->id);
    std::string label = x->kind == ops::OpKind::Input ? "input " + x->op
                        : x->kind == ops::OpKind::Scalar ? (x->exprs.empty() ? interp::formatDouble(x->attr<ops::attr::Constant>().value) : x->exprs[0].toString())
                        : x->kind == ops::OpKind::Map ? "blockwise[" + x->attr<ops::attr::Core>().core->op + "](" + args + ")"
                                                         : x->op + "(" + args + ")";
    const std::string *name = nameOf(x);
    lines.push_back("%" + std::to_string(x->id) + " = " + label + " : " + toString(x->shape) + " " + ops::spelling(x->dtype) +
                      (name ? "   # " + *name : ""));
  }
  return lines;
}

/// The REPL's commands, in the order :help lists them: the names a row answers to, its help
/// lines (none: named on the last line of :help), and the member that runs it.
auto Session::Impl::commandTable() -> const std::vector<CommandRow> & {
  static const std::vector<CommandRow> rows = {
      {{"shape"}, "  :shape EXPR                    shape, dtype, status\n", &Impl::commandShape},
      {{"explain"}, "  :explain EXPR                  + runtime checks, validity condition, a violating point\n", &Impl::commandShape},
      {{"errors"}, "  :errors                        the program's error domain, with a witness\n", &Impl::commandErrors},
      {{"eval"},
       "  :eval EXPR [with n=3, x=[[1.0]], y=load(\"y.npy\")]   evaluate (missing inputs are seeded; sizes it does not read may be left out)\n",
       &Impl::commandEval},
      {{"save"}, "  :save EXPR \"file.npy\" [with ...]                     evaluate and save as .npy\n", &Impl::commandEval},
      {{"graph"}, "  :graph EXPR                    the DAG (shared nodes once)\n", &Impl::commandGraph},
      {{"decide"}, "  :decide PRED                   proven, refuted or depends under the assumptions (a size: != 0)\n",
       &Impl::commandDecide},
      {{"optimize"},
       "  :optimize NAME [--valid-graph] [--inexact]   rewrite, every application checked: by default\n"
       "                                 strict (keeps every shape error) with the rules that keep values\n"
       "                                 bit for bit; --valid-graph may mask shape errors, --inexact adds\n"
       "                                 rules that change nan/inf/rounding. Shows the rewritten graph,\n"
       "                                 the rules that fired and the applications refused (a witness)\n"
       "  :eval NAME --opt [with ...]    evaluate with the optimized interpreter the program rewritten as\n"
       "                                 :optimize NAME rewrites it without flags (strict, bit for bit)\n",
       &Impl::commandOptimize},
      {{"time"}, "  :time NAME [with ...]          median seconds of the reference and the optimized interpreter\n", &Impl::commandEval},
      {{"load"}, "  :load FILE                     run a script's lines in this session\n", &Impl::commandLoad},
      {{"save-session"}, "  :save-session FILE             write the statements so far as a script `shapelab run` replays\n",
       &Impl::commandSaveSession},
      {{"rules"}, "", &Impl::commandRules},
      {{"ops"}, "  :ops [PATTERN]                 the ops (those whose name or signature holds PATTERN)\n", &Impl::commandOps},
      {{"help"}, "  :help [NAME]                   this text, or one command's or op's (:help reshape)\n", &Impl::commandHelp},
      {{"reset"}, "", &Impl::commandReset},
      {{"quit", "q", "exit"}, "", &Impl::commandQuit},
  };
  return rows;
}

auto Session::Impl::helpText() -> const std::string & {
  static const std::string text = [] {
    std::string s = std::string(kStatementsHelp) + "commands:\n", last = " ";
    for (const CommandRow &row : commandTable()) {
      if (*row.help) s += row.help;
      else last += std::string(" :") + row.names[0] + " ";
    }
    last.pop_back();
    return s + last;
  }();
  return text;
}

auto Session::Impl::endOfCommand() const -> void {
  refuseUnknownFlags();
  if (peek().kind != Token::End) fail("unexpected '" + peek().text + "'");
}

auto Session::Impl::command(int lineNumber) -> Reply {
  ++at;
  if (peek().kind != Token::Name) fail("expected a command after ':' (see :help)");
  CommandCall call;
  call.name = peek().text, call.pos = peek().pos, call.json = lineJson(lineNumber), call.lineNumber = lineNumber;
  ++at;
  // A hyphenated name (save-session): its parts written together.
  while (isOp("-") && peek(1).kind == Token::Name && peek().pos == call.pos + call.name.size() &&
         peek(1).pos == peek().pos + 1) {
    call.name += "-" + peek(1).text;
    at += 2;
  }
  for (const CommandRow &row : commandTable())
    for (const char *name : row.names)
      if (name && call.name == name) return (this->*row.run)(call);
  failAt("unknown command ':" + call.name + "' (see :help)", call.pos);
}

auto Session::Impl::commandShape(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  const std::string &cmd = call.name;
  Json &j = call.json;
  std::string name;
  const Node *n = target(name);
  endOfCommand();
  Validity v = gathered(n);
  std::vector<Pred> checks = v.shownChecks();
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
  std::vector<Pred> said = checks;
  said.insert(said.end(), limits.begin(), limits.end());
  said.push_back(condition);
  const auto sizes = definedSizes(shown, said);
  if (!sizes.empty()) {
    Json sj = Json::object();
    for (const auto &[size, text] : sizes) sj[size] = text;
    j["sizes"] = sj;
  }
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
  if (std::string w = sizesLine(sizes); !w.empty()) r.add(w);
  return r;
}

auto Session::Impl::commandErrors(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  Json &j = call.json;
  const bool withLimits = takeFlag("--limits"); // the limits of results count too
  endOfCommand();
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

auto Session::Impl::commandEval(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  const std::string &cmd = call.name;
  Json &j = call.json;
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
  endOfCommand();
  j["command"] = cmd;
  j["name"] = name;
  try {
    sizesFromInputs(inputs, point);
    completePoint(n, point);
    interp::InterpreterOptions io = interpreterOptions();
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
    Array value = evaluateNode(n, point, inputs, opt);
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
    else if (is(cmd, "eval")) {
      // A long expression puts a value of several lines on lines of its own.
      const std::string one = value.printed(name.size() + 3);
      const bool below = name.size() > 21 && one.find('\n') != std::string::npos;
      r.add(name + (below ? " =\n  " + value.printed(2) : " = " + one) + "  (" + ops::spelling(value.dtype()) +
            ", shape " + interp::shapeText(value.shape()) + ")");
    } else
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

std::vector<std::string> Session::completions(const std::string &word) const {
  std::set<std::string> all;
  auto offer = [&](const std::string &c) {
    if (c.size() >= word.size() && c.compare(0, word.size(), word) == 0) all.insert(c);
  };
  if (!word.empty() && word[0] == ':') {
    for (const Impl::CommandRow &row : Impl::commandTable())
      for (const char *n : row.names)
        if (n) offer(std::string(":") + n);
  } else {
    const bool numpy = word.rfind("np.", 0) == 0;
    const std::string prefix = numpy ? "np." : "";
    for (const ops::OpInfo &o : ops::opCatalogue()) offer(prefix + o.name);
    for (const char *c : {"inf", "nan", "pi", "e", "newaxis", "float16", "float32", "float64", "int8", "int16", "int32",
                          "int64", "uint8", "uint16", "uint32", "uint64", "bool_", "linalg.", "random."})
      offer(prefix + c);
    if (!numpy) {
      for (const char *k : {"param", "assume", "mode", "input", "np."}) offer(k);
      for (const std::string &n : impl_->names)
        if (!n.empty()) offer(n);
      for (const Expr &p : impl_->graph->params()) offer(p->name);
    }
  }
  return {all.begin(), all.end()};
}

namespace {
/// Where the file name being typed at the end of `before` starts, if one is: in a string opened
/// right after `load(`, or after the commands that take a file.
std::optional<std::size_t> fileNameStart(const std::string &before) {
  const std::size_t first = before.find_first_not_of(' ');
  if (first != std::string::npos)
    for (const char *command : {":load", ":save-session"}) {
      const std::size_t n = std::strlen(command);
      if (before.compare(first, n, command) == 0 && first + n < before.size() && before[first + n] == ' ') {
        std::size_t at = before.find_first_not_of(' ', first + n);
        if (at == std::string::npos) return before.size();
        if (before[at] == '"' || before[at] == '\'') ++at; // :load "a file"
        return before.find_first_of("\"'", at) == std::string::npos ? std::optional(at) : std::nullopt;
      }
    }
  // The string still open at the end of the line: its quote, once the quotes before it pair up.
  std::optional<std::size_t> open;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const char c = before[i];
    if (open) {
      if (c == '\\') ++i;
      else if (c == before[*open]) open.reset();
    } else if (c == '"' || c == '\'') {
      open = i;
    } else if (c == '#') {
      return std::nullopt; // a comment
    }
  }
  if (!open) return std::nullopt;
  std::size_t callEnd = *open;
  while (callEnd > 0 && before[callEnd - 1] == ' ') --callEnd;
  const std::string call = "load(";
  if (callEnd < call.size() || before.compare(callEnd - call.size(), call.size(), call) != 0) return std::nullopt;
  const std::size_t nameStart = callEnd - call.size();
  if (nameStart > 0 && (std::isalnum(static_cast<unsigned char>(before[nameStart - 1])) || before[nameStart - 1] == '_'))
    return std::nullopt; // reload(", not load("
  return *open + 1;
}

/// The entries of the directory part of `prefix` whose names continue its last part, as
/// `prefix` spells them (a directory with '/' after it), sorted.
std::vector<std::string> fileNames(const std::string &prefix, const std::string &baseDirectory) {
  const std::size_t slash = prefix.rfind('/');
  const std::string directory = slash == std::string::npos ? "" : prefix.substr(0, slash + 1);
  const std::string stem = prefix.substr(directory.size());
  std::filesystem::path where = directory.empty() ? "." : directory;
  if (where.is_relative() && !baseDirectory.empty()) where = std::filesystem::path(baseDirectory) / where;
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(where, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, stem.size(), stem) != 0 || (name[0] == '.' && (stem.empty() || stem[0] != '.'))) continue;
    std::error_code dirError;
    out.push_back(directory + name + (it->is_directory(dirError) ? "/" : ""));
    if (out.size() >= 10000) break; // a huge directory: the first ones
  }
  std::sort(out.begin(), out.end());
  return out;
}
} // namespace

auto Session::complete(const std::string &before) const -> Completion {
  Completion c;
  if (std::optional<std::size_t> at = fileNameStart(before)) {
    c.start = *at;
    c.fileName = true;
    c.words = fileNames(before.substr(*at), impl_->options.baseDirectory);
    return c;
  }
  const std::size_t cut = before.find_last_of(" \t\"\\'`@$><=;|&{}()[],+-*/%~!^");
  c.start = cut == std::string::npos ? 0 : cut + 1;
  c.words = completions(before.substr(c.start));
  return c;
}

auto Session::Impl::restOfLine() -> std::string {
  std::string text = line.substr(std::min(peek().pos, line.size()));
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  at = toks.size() - 1; // the End token
  return text;
}

auto Session::Impl::fileArgument(const char *command) -> std::string {
  if (peek().kind == Token::String) {
    std::string path = peek().text;
    ++at;
    endOfCommand();
    return path;
  }
  if (peek().kind == Token::End) fail(std::string("expected a file name after :") + command);
  return restOfLine();
}

auto Session::Impl::commandLoad(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  Json &j = call.json;
  const std::size_t p = peek().pos;
  const std::string path = fileArgument("load");
  if (loading >= 16) failAt("scripts loaded 16 deep: a script that loads itself?", p);
  std::ifstream in(resolve(path), std::ios::binary);
  if (!in) failAt("cannot read '" + path + "'", p);
  // Each statement as the prompt reads it (continuation lines joined), numbered by its first line.
  std::vector<std::pair<int, std::string>> statementsRead;
  {
    std::string text;
    int number = 0;
    auto next = [&]() -> std::optional<std::string> {
      std::string l;
      if (!std::getline(in, l)) return std::nullopt;
      ++number;
      return l;
    };
    while (std::getline(in, text)) {
      const int first = ++number;
      statementsRead.emplace_back(first, readStatement(text, next));
    }
  }
  ++loading;
  struct Unload {
    int &n;
    ~Unload() { --n; }
  } unload{loading};
  int failed = 0;
  for (const auto &[number, text] : statementsRead) {
    Reply one = executeLine(text, number);
    if (one.failed) ++failed;
    for (const std::string &l : one.lines()) r.add(one.failed && !options.json ? path + ":" + std::to_string(number) + ": " + l : l);
    if (one.quit) break;
  }
  j["command"] = "load";
  j["path"] = path;
  j["statements"] = statementsRead.size();
  j["failed"] = failed;
  if (options.json) r.add(dumpJson(j));
  else r.add("loaded " + path + ": " + std::to_string(statementsRead.size()) + (statementsRead.size() == 1 ? " statement" : " statements") +
             (failed ? ", " + std::to_string(failed) + " failed" : ""));
  return r; // the statements' own errors are reported in place (file:line), the load itself ran
}

auto Session::Impl::commandSaveSession(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  Json &j = call.json;
  const std::size_t p = peek().pos;
  const std::string path = fileArgument("save-session");
  std::ofstream out(path, std::ios::binary);
  for (const std::string &s : transcript) out << s << "\n";
  out.close();
  if (!out) failAt("cannot write '" + path + "'", p);
  j["command"] = "save-session";
  j["path"] = path;
  j["statements"] = transcript.size();
  if (options.json) r.add(dumpJson(j));
  else r.add("saved " + std::to_string(transcript.size()) + " statements to " + path);
  return r;
}

auto Session::Impl::commandDecide(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  Json &j = call.json;
  const std::size_t p = peek().pos;
  const Value v = expression();
  endOfCommand();
  Pred pred;
  if (v.kind == Value::Predicate) pred = v.pred;
  else if (v.kind == Value::Size) pred = ne(v.size, Expr(0)); // Python's truth of an int
  else failAt("expected a predicate over sizes (n >= 1, d % h == 0) or a size", p);
  // Decided where the defined and data-dependent sizes it reads satisfy their definitions.
  std::vector<Expr> reserved;
  for (const Expr &e : parametersOf(pred))
    if (!e->name.empty() && e->name[0] == '_') reserved.push_back(e);
  const Decision d = solver.decide(graph->contextFor(reserved), pred);
  j["command"] = "decide";
  j["predicate"] = pred.toString();
  j["answer"] = spelling(d.answer);
  j["condition"] = d.answer == Answer::Depends ? Json(d.condition().toString()) : Json(nullptr);
  j["satisfying"] = assignmentOrNull(d.satisfying);
  j["violating"] = assignmentOrNull(d.violating);
  if (options.json) r.add(dumpJson(j));
  else {
    std::string line = pred.toString() + ": " + spelling(d.answer);
    if (d.answer == Answer::Depends) line += " (holds where " + d.condition().toString() + ")";
    if (d.satisfying && !d.satisfying->empty()) line += "\n  holds at " + d.satisfying->toString();
    if (d.violating && !d.violating->empty()) line += "\n  fails at " + d.violating->toString();
    r.add(line);
  }
  return r;
}

auto Session::Impl::commandGraph(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  Json &j = call.json;
  std::string name;
  const Node *n = target(name);
  endOfCommand();
  Json nodes = Json::array();
  r.set(graphLines(n, &nodes));
  j["command"] = "graph";
  j["name"] = name;
  j["nodes"] = nodes;
  if (options.json) r.set({dumpJson(j)});
  return r;
}

auto Session::Impl::commandRules(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  Json &j = call.json;
  endOfCommand();
  Json list = Json::array();
  for (const rewrite::Rule &rule : rewrite::defaultRules()) {
    Json x;
    x["rule"] = rule.name;
    x["phase"] = rewrite::spelling(rule.phase);
    x["exact"] = rule.exact;
    x["text"] = rule.body();
    x["pytensor"] = rule.pytensor.empty() ? Json(nullptr) : Json(rule.pytensor);
    list.push_back(x);
    r.add("  " + rule.heading());
  }
  j["command"] = "rules";
  j["rules"] = list;
  if (options.json) r.set({dumpJson(j)});
  return r;
}

auto Session::Impl::commandOptimize(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  Json &j = call.json;
  rewrite::EngineOptions eo;
  if (takeFlag("--valid-graph")) eo.allow = rewrite::Soundness::ValidGraph;
  eo.exactOnly = !takeFlag("--inexact");
  std::string name;
  const Node *n = target(name);
  endOfCommand();
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
  Json masked = Json::object();
  for (const auto &[rule, count] : result.masked) masked[rule] = count;
  j["masked"] = masked;
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
  // The program as rewritten against the program as written, at the output (exact: a masked
  // error at one node may still be raised by another the output reads).
  const rewrite::ApplicationCheck whole = rewrite::checkApplication(*graph, n, result.outputs[0]);
  j["whole"] = {{"class", rewrite::spelling(whole.soundness)},
                {"witness", assignmentOrNull(whole.witness)},
                {"reason", whole.reason},
                {"undecided", whole.undecided}};
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
  for (const auto &[rule, count] : result.masked)
    r.add("masked " + std::to_string(count) + " shape error" + (count == 1 ? "" : "s") + " (valid-graph): " + rule);
  if (whole.soundness != rewrite::Soundness::Strict)
    r.add("the rewritten program is " + std::string(rewrite::spelling(whole.soundness)) + ": " + whole.reason +
          (whole.witness ? " at " + whole.witness->toString() : ""));
  for (const rewrite::Refusal &f : result.refused)
    r.add("refused " + f.rule + " (" + rewrite::spelling(f.check.soundness) + "): " + f.check.reason +
                      (f.check.witness ? " at " + f.check.witness->toString() : ""));
  return r;
}

auto Session::Impl::commandOps(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  Json &j = call.json;
  // :ops PATTERN: the rows whose name or signature holds it (case-insensitive).
  const std::size_t patternAt = peek().pos;
  const std::string pattern = restOfLine();
  auto lower = [](std::string t) {
    for (char &ch : t) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return t;
  };
  const std::string want = lower(pattern);
  Json list = Json::array();
  for (const ops::OpInfo &o : ops::opCatalogue()) {
    if (!want.empty() && lower(o.name).find(want) == std::string::npos && lower(o.signature).find(want) == std::string::npos)
      continue;
    Json x;
    x["name"] = o.name;
    x["signature"] = o.signature;
    x["rule"] = o.rule;
    list.push_back(x);
    r.add("  " + o.signature + "  — " + o.rule);
  }
  if (!pattern.empty() && list.empty()) failAt("no op's name or signature holds '" + pattern + "' (:ops lists them all)", patternAt);
  j["command"] = "ops";
  if (!pattern.empty()) j["pattern"] = pattern;
  j["ops"] = list;
  if (options.json) r.set({dumpJson(j)});
  return r;
}

namespace {
/// The inputs `:help`'s examples are run on (ops::OpInfo::example): their names and shapes.
struct ExampleInput {
  const char *name, *shape, *dtype;
};
constexpr ExampleInput kHelpExampleInputs[] = {{"x", "(n, m)", "float64"}, {"y", "(m, k)", "float64"},
                                               {"v", "(n,)", "float64"},   {"w", "(k,)", "float64"},
                                               {"a", "(n, n)", "float64"}, {"ix", "(n, m)", "int64"},
                                               {"c", "(n, m)", "bool"}};

/// The example inputs `call` reads, as "x: (n, m) float64", in the order it first reads them.
std::vector<std::string> exampleInputsOf(const std::string &call) {
  std::vector<std::pair<std::size_t, std::string>> used;
  for (const ExampleInput &input : kHelpExampleInputs) {
    const std::string n = input.name;
    for (std::size_t at = call.find(n); at != std::string::npos; at = call.find(n, at + 1)) {
      auto word = [&](std::size_t i) { return std::isalnum(static_cast<unsigned char>(call[i])) || call[i] == '_'; };
      const bool quoted = std::count(call.begin(), call.begin() + std::ptrdiff_t(at), '\'') % 2 == 1; // einsum's 'ij,jk->ik'
      if ((at == 0 || !(word(at - 1) || call[at - 1] == '.')) && (at + n.size() >= call.size() || !word(at + n.size())) && !quoted) {
        used.emplace_back(at, n + ": " + input.shape + " " + input.dtype);
        break;
      }
    }
  }
  std::sort(used.begin(), used.end());
  std::vector<std::string> out;
  for (auto &[at, text] : used) out.push_back(std::move(text));
  return out;
}
} // namespace

/// An op's example run in a session of its own (so it can never drift from what the op does):
/// the lines the session prints for the call (read before the session goes), and whether it
/// failed.
auto Session::Impl::runHelpExample(const std::string &call) const -> std::pair<std::vector<std::string>, bool> {
  SessionOptions scratchOptions;
  scratchOptions.json = options.json;
  scratchOptions.mode = options.mode;
  Session scratch(solver, scratchOptions);
  std::string setup = "param n, m, k";
  for (const ExampleInput &i : kHelpExampleInputs) setup += std::string("; ") + i.name + " = input(" + i.shape + ", " + i.dtype + ")";
  Reply declared = scratch.execute(setup, 1);
  if (declared.failed) throw std::logic_error(":help's example inputs are refused: " + declared.lines().front());
  Reply r = scratch.execute(call, 2);
  return {r.lines(), r.failed};
}

auto Session::Impl::commandHelp(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  Json &j = call.json;
  // :help NAME: a command (its :help lines) or an op (its :ops row: signature and shape rule).
  if (peek().kind != Token::End) {
    const std::size_t nameAt = peek().pos;
    const std::string name = restOfLine();
    std::string bare = name;
    const bool numpy = bare.rfind("np.", 0) == 0; // np.shape: the op, not the command
    if (numpy) bare = bare.substr(3);
    if (!bare.empty() && bare[0] == ':') bare = bare.substr(1);
    j["command"] = "help";
    j["name"] = name;
    for (const CommandRow &row : commandTable())
      for (const char *n : row.names)
        if (n && bare == n && !numpy) {
          static const std::map<std::string, std::string> brief = {
              {"rules", "  :rules                         the rewrite rules (name, phase, exact, text)\n"},
              {"reset", "  :reset                         forget every statement (a new session)\n"},
              {"quit", "  :quit  :q  :exit               leave (Ctrl-D on an empty line too)\n"}};
          const std::string text = *row.help ? std::string(row.help) : brief.at(row.names[0]);
          j["kind"] = "command";
          j["text"] = text.substr(0, text.size() - 1);
          if (options.json) r.add(dumpJson(j));
          else r.add(text.substr(0, text.size() - 1));
          return r;
        }
    // An op by its name, or by another name its signature gives (argsort is in sort's row).
    const ops::OpInfo *found = nullptr;
    for (const ops::OpInfo &o : ops::opCatalogue())
      if (o.name == bare) found = &o;
    if (!found)
      for (const ops::OpInfo &o : ops::opCatalogue()) {
        const std::string &sig = o.signature;
        for (std::size_t at = sig.find(bare); !found && at != std::string::npos; at = sig.find(bare, at + 1)) {
          const bool startOk = at == 0 || !(std::isalnum(static_cast<unsigned char>(sig[at - 1])) || sig[at - 1] == '_');
          const std::size_t e = at + bare.size();
          const bool endOk = e >= sig.size() || !(std::isalnum(static_cast<unsigned char>(sig[e])) || sig[e] == '_');
          if (startOk && endOk) found = &o;
        }
      }
    if (!found) failAt("no command or op named '" + name + "' (:help lists the commands, :ops the ops)", nameAt);
    j["kind"] = "op";
    j["op"] = found->name;
    j["signature"] = found->signature;
    // NumPy's full signature, with every parameter and default, where the op list's binding row
    // says more than the catalogue's short form.
    const ops::Binding *numpyBinding = ops::binding(found->name);
    std::string call;
    if (numpyBinding && !numpyBinding->text.empty())
      call = "np." + (numpyBinding->text[0] == '(' ? found->name : "") + std::string(numpyBinding->text); // a ufunc's is "(x1, x2)"
    if (!call.empty()) j["call"] = call;
    j["rule"] = found->rule;
    // The example: its call, the inputs it reads, and what the session says of it (shape, dtype,
    // validity with its conditions, limits), or the error it raises.
    const auto [example, exampleFailed] =
        found->example.empty() ? std::pair(std::vector<std::string>(), false) : runHelpExample(found->example);
    const std::vector<std::string> inputs = exampleInputsOf(found->example);
    if (options.json) {
      if (!found->example.empty()) {
        Json e;
        e["call"] = found->example;
        e["inputs"] = inputs;
        Json result = Json::parse(example.back());
        result.erase("line");
        result.erase("assign");
        e["result"] = result;
        j["example"] = e;
      }
      r.add(dumpJson(j));
      return r;
    }
    std::string text = found->name + ": " + found->signature + (call.empty() ? "" : "\n  call: " + call) +
                       "\n  shape rule: " + found->rule;
    if (!found->example.empty()) {
      std::string with;
      for (const std::string &i : inputs) with += (with.empty() ? "  (" : ", ") + i;
      text += "\n  example: " + found->example + (with.empty() ? "" : with + ")");
      for (std::string line : example) {
        // "_: (m, n) float64, valid" (or the name an in-place call rebinds) reads "gives ...".
        const std::size_t colon = line.find(": ");
        if (!exampleFailed && colon != std::string::npos && colon > 0 &&
            std::all_of(line.begin(), line.begin() + std::ptrdiff_t(colon), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }))
          line = "gives " + line.substr(colon + 2);
        std::size_t at = 0;
        while ((at = line.find('\n', at)) != std::string::npos) line.insert(++at, "    ");
        text += "\n    " + line;
      }
    }
    r.add(text);
    return r;
  }
  endOfCommand();
  j["command"] = "help";
  j["text"] = helpText();
  if (options.json) r.add(dumpJson(j));
  else r.add(helpText());
  return r;
}

auto Session::Impl::commandReset(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  Json &j = call.json;
  endOfCommand();
  reset();
  j["command"] = "reset";
  if (options.json) r.add(dumpJson(j));
  return r;
}

auto Session::Impl::commandQuit(CommandCall &call) -> Reply {
  Reply &r = call.reply;
  Json &j = call.json;
  endOfCommand();
  r.quit = true;
  j["command"] = "quit";
  if (options.json) r.add(dumpJson(j));
  return r;
}

auto Session::Impl::resolve(const std::string &path) const -> std::string {
  if (options.baseDirectory.empty() || std::filesystem::path(path).is_absolute()) return path;
  std::error_code ignored;
  if (std::filesystem::exists(path, ignored)) return path;
  return (std::filesystem::path(options.baseDirectory) / path).string();
}

auto Session::Impl::bindings(Assignment &point, std::map<std::string, Array> &inputs) -> void {
  std::set<std::string> seen;
  do {
    if (peek().kind != Token::Name || !isOp("=", 1)) fail("expected name=value" + found());
    Token t = peek();
    if (!seen.insert(t.text).second) fail("'" + t.text + "' is given twice");
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

auto Session::Impl::interpreterOptions() -> interp::InterpreterOptions {
  interp::InterpreterOptions io;
  io.seed = options.seed;
  io.namer = [this](const Node *x) {
    if (x->kind == ops::OpKind::Input) return "input " + x->op;
    const std::string *name = nameOf(x);
    return name ? *name + " (" + x->op + ")" : x->describe();
  };
  return io;
}

auto Session::Impl::evaluateNode(const Node *n, const Assignment &point, const std::map<std::string, Array> &inputs, bool opt,
                                 bool checked) -> Array {
  interp::InterpreterOptions io = interpreterOptions();
  io.debugChecks = checked;
  if (opt) return interp::OptimizedInterpreter(*graph, point, inputs, io).evaluate(optimizedFor(n));
  return interp::Interpreter(*graph, point, inputs, io).evaluate(n);
}

auto Session::Impl::sizesFromInputs(const std::map<std::string, Array> &inputs, Assignment &point) -> void {
  // A dimension that is one parameter plus a constant names the parameter's value; the others
  // (and a rank that differs) are left to the interpreter, which checks every input's shape.
  // Two arrays that give one parameter different values are an error naming both.
  std::map<std::string, std::pair<std::string, Integer>> from; // parameter -> (what gave it, value)
  auto said = [&](const std::string &name, const Array &value, const Node *in) {
    return name + ", of shape " + interp::shapeText(value.shape()) + " for " + toString(in->shape) + ",";
  };
  for (const auto &[name, value] : inputs) {
    const Node *in = graph->inputNamed(name);
    if (!in || in->shape.size() != value.shape().size()) continue;
    for (std::size_t i = 0; i < in->shape.size(); ++i) {
      const std::vector<Expr> ps = parametersOf(in->shape[i]);
      if (ps.size() != 1) continue;
      const std::string &p = ps[0]->name;
      const std::optional<Integer> c = (in->shape[i] - ps[0]).constantValue();
      if (!c) continue;
      const Integer v = Integer(value.shape()[i]) - *c;
      if (auto it = from.find(p); it != from.end()) {
        if (it->second.second != v)
          throw interp::EvalError(interp::EvalError::Input,
                                  "the given arrays disagree on " + p + ": " + it->second.first + " gives " + p + " = " +
                                      it->second.second.toString() + "; " + said(name, value, in) + " gives " + p + " = " +
                                      v.toString());
        continue;
      }
      from.emplace(p, std::make_pair(said(name, value, in), v));
      if (!point.find(p) && v >= Integer(0)) point.set(p, v);
    }
  }
}

interp::Array Session::evaluate(const std::string &name, Assignment point, std::map<std::string, interp::Array> inputs,
                                bool optimized, bool checked) {
  const ops::Node *n = impl_->evaluationTarget(name, inputs, point);
  return impl_->evaluateNode(n, point, inputs, optimized, checked);
}

std::vector<double> Session::time(const std::string &name, Assignment point, std::map<std::string, interp::Array> inputs,
                                  const interp::Backend &backend, int repeat, int inner) {
  const ops::Node *n = impl_->evaluationTarget(name, inputs, point);
  return interp::timeEvaluation(*impl_->graph, n, point, std::move(inputs), backend, repeat, inner);
}

auto Session::Impl::evaluationTarget(const std::string &name, const std::map<std::string, Array> &inputs, Assignment &point)
    -> const Node * {
  const Node *n = arrayNamed(name);
  if (!n) throw NameError("'" + name + "' is not bound to an array");
  sizesFromInputs(inputs, point);
  completePoint(n, point);
  return n;
}

auto Session::Impl::completePoint(const Node *n, Assignment &point) -> void {
  // The parameters n's computation reads (memoized: a node never changes).
  auto memo = paramsRead.find(n);
  if (memo == paramsRead.end()) {
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
    memo = paramsRead.emplace(n, std::move(read)).first;
  }
  const std::set<std::string> &read = memo->second;
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

} // namespace shapelab::lang
