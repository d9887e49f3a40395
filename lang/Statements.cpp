// Statements: assignment of values to names, the guards of arrays read for their shape, each
// array's status (memoized per pending list) and a line's reply.
#include "lang/SessionImpl.h"

namespace shapelab::lang {

auto Session::Impl::lineJson(int lineNumber) -> Json {
  Json j;
  j["line"] = lineNumber;
  return j;
}

auto Session::Impl::statusText(const Validity &v) -> std::string {
  std::string s = spelling(v.status());
  if (v.status() == Status::Error) s += ": " + v.message();
  else if (std::string checks = v.checksText(); !checks.empty()) s += ": " + checks;
  return s;
}

auto Session::Impl::definedSizes(const Shape &shape, const std::vector<Pred> &preds) const
    -> std::vector<std::pair<std::string, std::string>> {
  if (graph->sizeDefinitions().empty()) return {};
  std::set<std::string> mentioned;
  for (const Expr &d : shape)
    for (const Expr &p : parametersOf(d)) mentioned.insert(p->name);
  for (const Pred &c : preds)
    for (const Expr &p : parametersOf(c)) mentioned.insert(p->name);
  std::vector<std::pair<std::string, std::string>> out;
  for (const ops::Graph::SizeDefinition &def : graph->sizeDefinitions())
    if (mentioned.count(def.name)) out.emplace_back(def.name, def.text());
  return out;
}

auto Session::Impl::sizesLine(const std::vector<std::pair<std::string, std::string>> &sizes) -> std::string {
  std::string l;
  for (const auto &[name, text] : sizes) l += (l.empty() ? "  where " : ", ") + name + " = " + text;
  return l;
}

auto Session::Impl::sizesJson(const std::vector<std::pair<std::string, std::string>> &sizes) -> std::string {
  if (sizes.empty()) return "";
  std::string out = ", \"sizes\": {";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (i) out += ", ";
    appendJsonString(out, sizes[i].first);
    out += ": ";
    appendJsonString(out, sizes[i].second);
  }
  return out + "}";
}

auto Session::Impl::limitsLine(const Validity &v) -> std::string {
  if (v.status() == Status::Error) return "";
  std::string l = v.limitsText();
  return l.empty() ? "" : "  limits: " + l;
}

auto Session::Impl::gathered(const std::vector<const Node *> &nodes) -> Validity {
  Validity v = ops::validityOf(*graph, nodes);
  v.strictLimits(options.strictLimits);
  return v;
}

auto Session::Impl::declaredOrder() const -> std::vector<std::string> {
  std::vector<std::string> out;
  for (const Expr &p : graph->params()) out.push_back(p->name);
  return out;
}

auto Session::Impl::arrayStatus(const Node *n) -> std::shared_ptr<ArrayStatus> {
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
      ArrayStatus{status, std::nullopt, std::nullopt, std::move(limits), std::nullopt, std::move(valid), v.context(), {}});
  if (!graph->sizeDefinitions().empty()) {
    std::vector<Pred> said = v.checks();
    if (status != Status::Error)
      for (const Pred &l : v.limits()) said.push_back(l);
    made->sizes = definedSizes(n->shape, said);
  }
  if (!options.json) made->validity.emplace(std::move(v));
  if (graph->solver().stats().unkept != unkept) return unkeptStatus = std::move(made);
  return arrayStatusMemo.add(std::move(key), std::move(made));
}

auto Session::Impl::statusTextOf(ArrayStatus &s) -> const std::string & {
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

auto Session::Impl::shownShape(const Shape &shape, ArrayStatus &s) -> Shape {
  if (s.status != Status::RuntimeCheck) return shape;
  if (std::all_of(shape.begin(), shape.end(), [](const Expr &d) { return d.isConstant(); })) return shape;
  if (!s.valid) {
    if (!s.validity) return shape;
    s.valid = s.validity->validContext();
  }
  return simplifiedWithin(graph->solver(), *s.valid, s.base, shape);
}

auto Session::Impl::noteRead(const Node *n) -> void {
  if (!n->pending) return; // valid everywhere: nothing to keep (a pending list is never empty)
  if (std::find(metadataReads.begin(), metadataReads.end(), n) == metadataReads.end()) metadataReads.push_back(n);
}

auto Session::Impl::addsTo(const Node *g, const Node *n) -> bool {
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

auto Session::Impl::reads(const Node *n, const Node *g) -> bool {
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

auto Session::Impl::guarded(const Node *n) -> const Node * {
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

auto Session::Impl::computedArrays() const -> std::vector<const Node *> {
  std::vector<const Node *> out = metadataReads;
  for (const Node *g : made)
    if (g->pending && std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  return out;
}

auto Session::Impl::assign(const std::vector<std::string> &targets, Value v, int lineNumber, Reply &r, bool bare) -> void {
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
          if (std::string w = sizesLine(as->sizes); !w.empty()) out.push_back(w);
        });
      } else if (computed) {
        r.addLater([this, line = t + ": " + valueText(val), v = std::make_shared<Validity>(std::move(*computed)),
                    where = sizesLine(val.kind == Value::Size ? definedSizes({val.size}, {}) : std::vector<std::pair<std::string, std::string>>{})](
                       std::vector<std::string> &out) {
          out.push_back(line + ", " + statusText(*v));
          if (std::string l = limitsLine(*v); !l.empty()) out.push_back(l);
          if (!where.empty()) out.push_back(where);
        });
      } else {
        r.add(t + ": " + valueText(val));
        if (val.kind == Value::Size)
          if (std::string w = sizesLine(definedSizes({val.size}, {})); !w.empty()) r.add(w);
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
      out += "]";
      out += sizesJson(as.sizes);
      out += "}";
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
    if (val.kind == Value::Size) {
      const auto sizes = definedSizes({val.size}, {});
      if (!sizes.empty()) {
        Json sj = Json::object();
        for (const auto &[size, text] : sizes) sj[size] = text;
        j["sizes"] = sj;
      }
    }
    r.add(dumpJson(j));
  }
}

auto Session::Impl::augmentedUfunc(const Token &t) -> std::optional<std::string> {
  if (t.kind != Token::Op || t.text.size() < 2 || t.text.back() != '=' || is(t.text, "==") || is(t.text, "<=") ||
      is(t.text, ">=") || is(t.text, "!=") || is(t.text, "@="))
    return std::nullopt;
  return ops::binaryOpFor(std::string_view(t.text).substr(0, t.text.size() - 1));
}

auto Session::Impl::itemAssignment(int lineNumber, Reply &r) -> void {
  const Token target = peek();
  at = 1;
  Value held = name(target);
  std::optional<std::vector<Value>> entries;
  if (acceptOp("[")) entries = subscriptValues();
  const Token op = peek();
  ++at;
  if (is(op.text, "@="))
    failAt("In-place matrix multiplication is not (yet) supported. Use 'a = a @ b' instead of 'a @= b'.", op.pos);
  const std::optional<std::string> ufunc = augmentedUfunc(op);
  rhsStart = peek().pos;
  rebindsArgumentAt.reset();
  rebindsObjectAt.reset();
  Value v = expressionList();
  if (peek().kind != Token::End) unexpectedAfterExpression();
  if (rebindsArgumentAt) failAt("this call changes its first argument in place and returns None", *rebindsArgumentAt);
  if (rebindsObjectAt) failAt("this method changes its array in place and returns None: write it as a statement of its own (x.sort())", *rebindsObjectAt);
  if (!entries && held.kind != Value::Array) {
    // A size, float or bool: Python rebinds the name to the new value.
    assign({target.text}, binary(op.text.substr(0, op.text.size() - 1), held, v, op.pos), lineNumber, r);
    return;
  }
  if (held.kind != Value::Array)
    failAt(std::string(kindName(held)) + " does not support item assignment", target.pos);
  const Node *x = held.node, *value = array(v);
  const Node *result;
  try {
    if (!entries) {
      result = ops::inPlace(*graph, *ufunc, x, value, mode);
    } else {
      ops::Subscript index = subscriptOf(*entries);
      if (ufunc) value = ops::inPlace(*graph, *ufunc, ops::gather(*graph, x, index), value, mode);
      result = ops::scatter(*graph, x, index, value, "set_subtensor", mode);
    }
  } catch (const UserError &e) {
    failAt(e.what(), op.pos);
  }
  assign({target.text}, Value::ofNode(result, target.pos), lineNumber, r);
}

auto Session::Impl::execute(const std::string &text, int lineNumber) -> Reply {
  Reply r;
  line = text;
  at = 0;
  pendingInputName.clear();
  rebindsArgumentAt.reset();
  rebindsObjectAt.reset();
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
    // Item assignment and augmented assignment: NAME[index] = v, NAME[index] op= v, NAME op= v.
    if (peek().kind == Token::Name) {
      std::size_t k = 1;
      if (isOp("[", 1))
        for (int depth = 0; peek(k).kind != Token::End; ++k) {
          if (isOp("[", k) || isOp("(", k)) ++depth;
          else if ((isOp("]", k) || isOp(")", k)) && --depth == 0) {
            ++k;
            break;
          }
        }
      if ((k > 1 && isOp("=", k)) || augmentedUfunc(peek(k)) || isOp("@=", k)) {
        itemAssignment(lineNumber, r);
        return r;
      }
    }
    // Assignment: NAME (, NAME)* = expression.
    std::vector<std::string> targets;
    std::size_t k = 0;
    while (peek(k).kind == Token::Name && (isOp(",", k + 1) || isOp("=", k + 1))) {
      targets.push_back(peek(k).text);
      if (isOp("=", k + 1)) break;
      k += 2;
    }
    // `name, = f(...)`: one name unpacked from a tuple of one.
    const bool trailingComma = !targets.empty() && isOp(",", 2 * targets.size() - 1) && isOp("=", 2 * targets.size());
    if (!targets.empty() && (trailingComma || isOp("=", 2 * targets.size() - 1))) {
      at = 2 * targets.size() + (trailingComma ? 1 : 0);
      if (targets.size() == 1) pendingInputName = targets[0];
      rhsStart = peek().pos;
      inputMade = nullptr;
      rebindsArgumentAt.reset();
  rebindsObjectAt.reset();
      Value v = expressionList();
      if (peek().kind != Token::End) unexpectedAfterExpression();
      if (rebindsArgumentAt)
        failAt("this call changes its first argument in place and returns None: write it as a statement of its own "
               "(np.add.at(x, i, 1.0))", *rebindsArgumentAt);
      if (rebindsObjectAt)
        failAt("this method changes its array in place and returns None: write it as a statement of its own (x.sort())", *rebindsObjectAt);
      if (inputMade && v.node != inputMade)
        failAt("input(...) must be the whole right-hand side of an assignment to one name: x = input((n,), float64)", rhsStart);
      if (trailingComma && targets.size() == 1) {
        if (v.kind != Value::Tuple) failAt("cannot unpack " + std::string(kindName(v)) + " into 1 name", rhsStart);
        if (v.items.size() != 1) failAt("too many values to unpack (expected 1, got " + std::to_string(v.items.size()) + ")", rhsStart);
        Value one = v.items[0];
        v = std::move(one);
      }
      assign(targets, std::move(v), lineNumber, r);
      return r;
    }
    rebindsArgumentAt.reset();
  rebindsObjectAt.reset();
    Value v = expressionList();
    if (peek().kind != Token::End) unexpectedAfterExpression();
    if (rebindsObjectAt) {
      // x.sort(): x changes in place; NumPy returns None. The statement must be NAME.sort(...)
      // alone (a[0].sort() would write through a view of a).
      bool alone = toks.size() >= 5 && toks[0].kind == Token::Name && toks[1].kind == Token::Op && is(toks[1].text, ".") &&
                   toks[2].pos == *rebindsObjectAt && toks[3].kind == Token::Op && is(toks[3].text, "(") &&
                   toks.back().kind == Token::End && v.kind == Value::Array && !rebindsArgumentAt;
      if (alone) {
        // The '(' after the method closes at the end of the statement.
        int depth = 0;
        std::size_t close = 3;
        for (; close < toks.size() && toks[close].kind != Token::End; ++close) {
          if (toks[close].kind == Token::Op && (is(toks[close].text, "(") || is(toks[close].text, "["))) ++depth;
          if (toks[close].kind == Token::Op && (is(toks[close].text, ")") || is(toks[close].text, "]")) && --depth == 0) break;
        }
        alone = close + 2 == toks.size();
      }
      if (!alone)
        failAt("this method changes its array in place and returns None: write it as a statement of its own, on a name "
               "(x.sort())", *rebindsObjectAt);
      assign({toks[0].text}, std::move(v), lineNumber, r);
      return r;
    }
    if (rebindsArgumentAt) {
      // np.add.at(x, i, v), np.put_along_axis(x, i, v, axis): x changes in place; NumPy
      // returns None.
      std::size_t k = 0;
      while (k + 1 < toks.size() && toks[k].pos != *rebindsArgumentAt) ++k;
      const Token &target = toks[k], &after = toks[std::min(k + 1, toks.size() - 1)];
      // The statement must be the call alone: a dotted name, then '(' whose ')' is the last
      // token (`np.add.at(x, i, 1.0) + 1` rebinds nothing), the array's name an argument of
      // it (positional or `arr=x`).
      std::size_t open = 0;
      while (open < toks.size() && (toks[open].kind == Token::Name || (toks[open].kind == Token::Op && is(toks[open].text, "."))))
        ++open;
      bool alone = open > 0 && open < k && toks[open].kind == Token::Op && is(toks[open].text, "(") &&
                   toks[k - 1].kind == Token::Op && (is(toks[k - 1].text, "(") || is(toks[k - 1].text, ",") || is(toks[k - 1].text, "="));
      if (alone) {
        int depth = 0;
        std::size_t close = open;
        for (; close < toks.size() && toks[close].kind != Token::End; ++close) {
          if (toks[close].kind == Token::Op && (is(toks[close].text, "(") || is(toks[close].text, "["))) ++depth;
          if (toks[close].kind == Token::Op && (is(toks[close].text, ")") || is(toks[close].text, "]")) && --depth == 0) break;
        }
        alone = close + 1 < toks.size() && toks[close + 1].kind == Token::End;
      }
      if (!alone || target.kind != Token::Name || after.kind != Token::Op || !(is(after.text, ",") || is(after.text, ")")) ||
          v.kind != Value::Array)
        failAt("this call changes its first argument in place and returns None: write it as a statement of its own, "
               "with the array's name as the first argument (np.add.at(x, i, 1.0))", *rebindsArgumentAt);
      assign({target.text}, std::move(v), lineNumber, r);
      return r;
    }
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

auto Session::Impl::error(const std::string &message, std::size_t position, int lineNumber) -> Reply {
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

} // namespace shapelab::lang
