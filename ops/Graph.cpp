// The graph's bookkeeping: parameters, data-dependent sizes and their contexts, shape choice
// (choose, smaller), the structural key and interning, pending lists and validityOf.
#include "ops/GraphDetail.h"

namespace shapelab::ops {

std::string Node::describe() const {
  switch (kind) {
  case OpKind::Input: return "input " + op;
  case OpKind::Scalar: return exprs.empty() ? "literal" : "size " + exprs[0].toString();
  case OpKind::Map: return "blockwise(" + attr<attr::Core>().core->op + ")#" + std::to_string(id);
  default: break;
  }
  std::string s = op.empty() ? "node" : op;
  s += "#" + std::to_string(id);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Graph bookkeeping.

Graph::Graph(Solver &solver, std::vector<Pred> assumptions)
    : solver_(&solver), assumptions_(std::move(assumptions)), context_(solver.makeContext(assumptions_)) {}

void Graph::assume(const std::vector<Pred> &more) {
  std::vector<Pred> all = assumptions_;
  all.insert(all.end(), more.begin(), more.end());
  // An assumption about a size from sizes (`assume d % h == 0`) is about what defines it: its
  // definition becomes an assumption too (everything is decided under it, not only the nodes
  // that mention the size).
  for (const Pred &p : more)
    for (const Expr &s : parametersOf(p))
      if (definitionOf(s->name))
        if (auto it = dataBounds_.find(s->name); it != dataBounds_.end() && std::find(all.begin(), all.end(), it->second) == all.end())
          all.push_back(it->second);
  Context c = solver_->makeContext(all); // throws, leaving the graph unchanged
  assumptions_ = std::move(all);
  context_ = std::move(c);
  contexts_.clear();
}

void Graph::checkNewParam(const std::string &name) const {
  Expr p = Expr::param(name); // refuses reserved names
  if (std::find(params_.begin(), params_.end(), p) != params_.end())
    throw NameError("size parameter '" + name + "' is already declared");
  if (inputsByName_.count(name)) throw NameError("'" + name + "' is already an input");
}

Expr Graph::param(const std::string &name) {
  checkNewParam(name);
  Expr p = Expr::param(name);
  params_.push_back(p);
  return p;
}

std::optional<Graph::DividedSize> Graph::dividedSize(const Expr &d, const Expr &h) {
  const auto key = std::make_pair(d.toString(), h.toString());
  if (auto it = divided_.find(key); it != divided_.end()) return it->second;
  // Decided with the bounds of the data-dependent sizes d and h read.
  std::vector<Expr> reserved;
  addReserved(reserved, parameterNodes(d));
  addReserved(reserved, parameterNodes(h));
  const Context cx = contextFor(reserved);
  auto proves = [&](const Pred &p) { return provesCheaply(cx, p) || solver_->decide(cx, p).answer == Answer::Proven; };
  std::optional<DividedSize> parts;
  if (!proves(ge(h, 0))) {
    // A divisor never positive: d // h is (-d) // (-h) and d % h is -((-d) % (-h)).
    if (!proves(le(h, 0))) return std::nullopt;
    if (std::optional<DividedSize> flipped = dividedSize(-d, -h)) parts = DividedSize{flipped->quotient, -flipped->remainder};
    else return std::nullopt;
  } else if (proves(ge(d, 0))) {
    parts = definedPair(d, h);
  } else {
    // A numerator that may be negative ((n - k) // s): defined sizes are never negative, so its
    // two signs read two of them. For d <= -1, with -d - 1 == h*q' + r':
    // d == h*(-q' - 1) + (h - 1 - r'). Each numerator is clamped at 0 so that its definition holds
    // everywhere (a definition that excluded points would hide requirements).
    const DividedSize up = definedPair(max(d, Expr(0)), h);
    const DividedSize down = definedPair(max(-d - Expr(1), Expr(0)), h);
    const Pred nonNegative = ge(d, 0);
    if (proves(!nonNegative)) parts = DividedSize{-down.quotient - Expr(1), h - Expr(1) - down.remainder};
    else
      parts = DividedSize{select(nonNegative, up.quotient, -down.quotient - Expr(1)),
                          select(nonNegative, up.remainder, h - Expr(1) - down.remainder)};
  }
  return divided_.emplace(key, *parts).first->second;
}

Graph::DividedSize Graph::definedPair(const Expr &d, const Expr &h) {
  if (std::optional<Expr> q = quotient(d, h)) return DividedSize{*q, Expr(0)};
  const auto key = std::make_pair(d.toString(), h.toString());
  if (auto it = divided_.find(key); it != divided_.end()) return it->second;
  const std::string n = std::to_string(definitions_.size() / 2 + 1);
  const Expr q = Expr::reservedParam("_q" + n), r = Expr::reservedParam("_r" + n);
  // Python's floor division: d == h*q + r, r between 0 and h (h's sign), h != 0.
  // With the linear facts that follow (the solver reads h*q as a size of its own): the quotient
  // and the remainder are at most d.
  const Pred defined = Pred::disjunction(
      {Pred::conjunction({ge(h, 1), eq(d, h * q + r), ge(r, 0), le(r, h - Expr(1)), le(q, d), le(r, d)}),
       Pred::conjunction({eq(h, 0), eq(q, 0), eq(r, 0)})});
  dataBounds_.emplace(q->name, defined);
  dataBounds_.emplace(r->name, defined);
  definitions_.push_back({q->name, d, h, true});
  definitions_.push_back({r->name, d, h, false});
  return divided_.emplace(key, DividedSize{q, r}).first->second;
}

std::string Graph::SizeDefinition::text() const {
  auto operand = [](const Expr &e) { return e->kind == ExprKind::Sum ? "(" + e.toString() + ")" : e.toString(); };
  return operand(numerator) + (quotient ? " // " : " % ") + operand(divisor);
}

Expr Graph::unfoldDefined(const Expr &e) const {
  if (definitions_.empty()) return e;
  auto [terms, constant] = asPolynomial(e);
  bool changed = false;
  for (std::size_t i = 0; i + 1 < definitions_.size(); i += 2) {
    const SizeDefinition &def = definitions_[i];
    auto [hTerms, hConstant] = asPolynomial(def.divisor);
    if (hTerms.size() != 1 || hConstant != Integer(0) || hTerms[0].coefficient != Integer(1)) continue;
    Monomial factor = hTerms[0].monomial; // h*q: h's atoms and q once
    const Expr q = Expr::reservedParam(def.name), r = Expr::reservedParam(definitions_[i + 1].name);
    factor.emplace_back(q, 1);
    std::vector<Term> next;
    for (const Term &t : terms) {
      // t = c * rest * h*q where its monomial holds each atom of h*q often enough.
      Monomial rest = t.monomial;
      bool divides = true;
      for (const auto &factorPower : factor) {
        const Expr &atom = factorPower.first;
        auto it = std::find_if(rest.begin(), rest.end(), [&atom](const auto &f) { return f.first == atom; });
        if (it == rest.end() || it->second < factorPower.second) {
          divides = false;
          break;
        }
        if ((it->second -= factorPower.second) == 0) rest.erase(it);
      }
      if (!divides) {
        next.push_back(t);
        continue;
      }
      changed = true;
      Expr restExpr = Expr(t.coefficient);
      for (const auto &[atom, power] : rest) restExpr = restExpr * pow(atom, power);
      auto [unfolded, c] = asPolynomial(restExpr * (def.numerator - r));
      next.insert(next.end(), unfolded.begin(), unfolded.end());
      constant = constant + c;
    }
    terms = std::move(next);
  }
  return changed ? fromPolynomial(std::move(terms), constant) : e;
}

const Graph::SizeDefinition *Graph::definitionOf(const std::string &name) const {
  for (const SizeDefinition &d : definitions_)
    if (d.name == name) return &d;
  return nullptr;
}

Expr Graph::freshDataSize(Node &n, const std::optional<Expr> &size, bool boolean) {
  // The bound is total: where the operand's size is undefined (its reshape's exact division
  // does not divide) the operand fails before this node runs, and a partial bound would make the
  // context exclude those points — hiding the operand's requirement from every later validity.
  Expr k = Expr(0);
  auto boundOf = [&](const Expr &s) { return boolean ? le(s, Expr(1)) : size ? le(s, totalized(*size)) : ge(s, Expr(0)); };
  // A rebuilt node keeps its data-dependent size when the bound is the same (rewrites compare
  // shapes across the old and the new node).
  std::optional<Expr> reuse = std::exchange(reuseDataSize_, std::nullopt);
  if (reuse) {
    auto it = dataBounds_.find((*reuse)->name);
    if (it != dataBounds_.end() && it->second == boundOf(*reuse)) k = *reuse;
    else reuse.reset();
  }
  if (!reuse) k = Expr::reservedParam("_k" + std::to_string(++dataSizes_));
  dataBounds_.emplace(k->name, boundOf(k));
  // The node's later obligations may mention k: they are decided with its bound. Those already
  // recorded (a mask's shape must match the indexed axes) are kept with their decisions: they
  // do not mention k, whose bound (satisfied by k = 0) restricts no other size.
  std::vector<Expr> reserved = reservedOf(n);
  reserved.push_back(k);
  Validity before = std::move(n.validity);
  n.validity = Validity(*solver_, contextFor(reserved));
  n.validity.absorb(before);
  return k;
}

bool addReserved(std::vector<Expr> &into, const std::vector<const ExprNode *> &params) {
  bool any = false;
  for (const ExprNode *p : params)
    if (p->reserved) {
      any = true;
      if (std::none_of(into.begin(), into.end(), [p](const Expr &x) { return x.node() == p; })) into.push_back(Expr(p));
    }
  return any;
}

std::vector<Expr> Graph::reservedOf(const Node &c) const {
  std::vector<Expr> out;
  auto add = [&](const Expr &e) { addReserved(out, parameterNodes(e)); };
  for (const Node *i : c.inputs)
    for (const Expr &d : i->shape) add(d);
  for (const Expr &e : c.exprs) add(e);
  for (const IndexEntry &e : c.index) {
    if (e.start) add(*e.start);
    if (e.stop) add(*e.stop);
  }
  return out;
}

Context Graph::contextFor(std::vector<Expr> reserved) const {
  if (reserved.empty()) return context_;
  // Bounds can mention other data-dependent sizes: close the set.
  for (std::size_t i = 0; i < reserved.size(); ++i) {
    auto it = dataBounds_.find(reserved[i]->name);
    if (it == dataBounds_.end()) continue;
    addReserved(reserved, parameterNodes(it->second));
  }
  std::sort(reserved.begin(), reserved.end(), [](const Expr &a, const Expr &b) { return a->name < b->name; });
  std::string key;
  for (const Expr &r : reserved) key += r->name + ",";
  if (auto it = contexts_.find(key); it != contexts_.end()) return it->second;
  std::vector<Pred> all = assumptions_;
  for (const Expr &r : reserved)
    if (auto it = dataBounds_.find(r->name); it != dataBounds_.end()) all.push_back(it->second);
  const uint64_t unkept = solver_->stats().unkept;
  // The graph's own sample with 0 for the data-dependent sizes satisfies their bounds
  // (0 <= k <= size) wherever the sizes are not negative there, and is then this context's
  // sample without asking isl (the masks of the random programs made a context each: 8% of the
  // property harness's time was isl finding such a point).
  Context c = context_.consistencyProven() ? solver_->makeContextNear(all, SizeDomain::ArraySizes, context_.samplePoint())
                                           : solver_->makeContext(all);
  if (solver_->stats().unkept == unkept) contexts_.emplace(key, c); // else the clock cut its search short
  return c;
}

Expr Graph::choose(const Context &context, const Pred &cond, const Expr &whereTrue, const Expr &whereFalse) {
  if (whereTrue == whereFalse) return whereTrue;
  if (auto v = cond.constantValue()) return *v ? whereTrue : whereFalse;
  // A choice inside a side, whose condition this one decides wherever that side is taken, takes
  // its side there: the first side of `min(n - 1, 1 if n - 1 < 0 else k) if -n < 0 else 0` is
  // taken where n >= 1, where n - 1 < 0 is false, so it is min(n - 1, k). Each side below is
  // then equal to the one given wherever it is taken (and so is what this returns). Slices of
  // slices of random programs nest such choices.
  Expr a = whereTrue, b = whereFalse;
  if (cond.node()->total) {
    auto takenWhere = [&](bool truth) {
      return [&context, &cond, truth](const Pred &c) -> std::optional<bool> {
        return c.node()->total ? truthWhere(context, cond, truth, c) : std::nullopt;
      };
    };
    a = resolveChoices(whereTrue, takenWhere(true));
    b = resolveChoices(whereFalse, takenWhere(false));
    if (a == b) return a;
  }
  if (provesCheaply(context, cond)) return a;
  if (provesCheaply(context, !cond)) return b;
  // Branches that agree wherever one of them is taken are one expression: `0 if -n < 0 else -n`
  // is 0 for every size n. Kept as a choice, it would nest in every shape built on it and make
  // each later question larger. Decided only where the comparison is quasi-affine (cheap).
  if (a.isQuasiAffine() && b.isQuasiAffine() && definedness(cond).constantValue() == std::optional<bool>(true)) {
    // Branches defined at the same points (both built on one exact division, as the bounds of
    // a slice of `n / 2` are) need only agree where they are defined: elsewhere the choice is
    // undefined whichever branch it keeps. Asked in total form, so that an undefined point
    // does not make the question fail.
    Pred same = eq(a, b);
    if (!a.isTotal() || !b.isTotal()) {
      Pred da = definedness(a);
      if (da != definedness(b)) return constantIfFixed(context, select(cond, a, b));
      same = !da || eq(totalized(a), totalized(b));
    }
    if (provesCheaply(context, cond || same)) return a;
    if (provesCheaply(context, !cond || same)) return b;
  }
  // A side taken only where the condition pins a size to one value reads that value: with
  // n >= 0, `n + 2 if n - 1 < 0 else ...` is `2 if n - 1 < 0 else ...`. (A slice bound of
  // n - 1 gives such a choice, and every shape built on it would carry n + 2.)
  using Pin = std::optional<std::pair<std::string, Integer>>;
  const Pin pinTrue = pinnedParameter(context, cond, true), pinFalse = pinnedParameter(context, cond, false);
  auto atPin = [](const Expr &side, const Pin &pin) {
    return pin ? substitute(side, {{pin->first, Expr(pin->second)}}) : side;
  };
  Expr pa = atPin(a, pinTrue), pb = atPin(b, pinFalse);
  if (pa == pb) return pa;
  // A side taken only where the condition pins a size, and the other side equal to it there, is
  // not a choice: `max(0, n*k - n) if -n < 0 else 0` is its first side for every size n (at
  // n == 0, the one point of the second, the first is 0 too). Equal as written out after the
  // pin, the two sides are equal functions there, defined at the same points. (Products make
  // such dims, which the quasi-affine test above leaves alone.)
  if (definedness(cond).constantValue() == std::optional<bool>(true)) {
    auto agreesAt = [&](const Expr &other, const Pin &pin, const Expr &pinnedSide) {
      if (!pin) return false;
      try {
        return atPin(other, pin) == pinnedSide;
      } catch (const UserError &) {
        return false; // written out at the pin, `other` is past the expression limits
      }
    };
    if (agreesAt(a, pinFalse, pb)) return a;
    if (agreesAt(b, pinTrue, pa)) return b;
  }
  return constantIfFixed(context, select(cond, pa, pb));
}

Expr Graph::constantIfFixed(const Context &context, const Expr &e) {
  if (e.isConstant() || !e.isTotal()) return e;
  Range r = rangeOf(e, context);
  return r.low && r.high && *r.low == *r.high ? Expr(*r.low) : e;
}

// Simplifications only: a question isl answers directly (quasi-affine) is asked; one over
// products of sizes would make the solver search for witnesses, so the general form is kept.
bool Graph::provesCheaply(const Context &context, const Pred &p) {
  if (auto v = p.constantValue()) return *v;
  if (p.kind() == PredKind::Compare && !(p->lhs.isQuasiAffine() && p->rhs.isQuasiAffine())) return false;
  return solver_->provesQuickly(context, p);
}

Expr Graph::nonNegative(const Context &context, const Expr &e) {
  if (auto c = e.constantValue()) return *c < Integer(0) ? Expr(0) : e;
  return provesCheaply(context, ge(e, 0)) ? e : constantIfFixed(context, max(Expr(0), e));
}

Expr Graph::smaller(const Context &context, const Expr &a, const Expr &b, bool smallest) {
  if (a == b) return a;
  if (provesCheaply(context, le(a, b))) return smallest ? a : b;
  if (provesCheaply(context, le(b, a))) return smallest ? b : a;
  return constantIfFixed(context, smallest ? min(a, b) : max(a, b));
}

bool Graph::KeyEq::operator()(const Node *a, const Node *b) const { return sameKeyOver(*a, *b, b->inputs); }

const Node *Graph::find(std::size_t hash, const Node &key, std::span<const Node *const> inputs) {
  ++stats_.lookups;
  std::size_t at = interned_.find(hash, [&](std::size_t id) { return sameKeyOver(nodes_[id], key, inputs); });
  if (at == FlatIndex::npos) return nullptr;
  ++stats_.hits;
  if (madeLog_) madeLog_->push_back(&nodes_[at]);
  return &nodes_[at];
}

const Node *Graph::adopt(Node &&c) {
  c.id = uint32_t(nodes_.size());
  nodes_.push_back(std::move(c));
  Node &n = nodes_.back();
  for (const Node *i : n.inputs) operandIds_.push_back(i->id);
  operandStart_.push_back(operandIds_.size());
  finish(n);
  interned_.insert(n.hash, n.id);
  ++stats_.nodes;
  if (madeLog_) madeLog_->push_back(&n);
  return &n;
}

Node Graph::blank(OpKind kind, std::string op, std::vector<const Node *> inputs) const {
  Node n{.kind = kind, .inputs = std::move(inputs), .op = std::move(op), .attrs = defaultAttrs(kind),
         .validity = Validity(*solver_, context_)};
  return n;
}

std::vector<const Node *> Graph::readsBefore(const Node *n) const {
  std::vector<const Node *> out;
  if (n->kind == OpKind::IfElse) {
    if (n->inputs.size() == 3) out.push_back(n->inputs[2]);
  } else if (n->kind == OpKind::SetSubtensor) {
    out.assign(n->inputs.begin(), n->inputs.end() - 1);
  } else {
    out = n->inputs;
  }
  if (dataOwners_.empty()) return out;
  const std::size_t operands = out.size();
  auto add = [&](const std::vector<Expr> &params) {
    for (const Expr &p : params) {
      if (!p->reserved) continue;
      auto it = dataOwners_.find(p->name);
      if (it != dataOwners_.end() && it->second != n &&
          std::find(out.begin() + std::ptrdiff_t(operands), out.end(), it->second) == out.end())
        out.push_back(it->second);
    }
  };
  for (const Expr &e : n->exprs) add(parametersOf(e));
  for (const IndexEntry &e : n->index) {
    if (e.start) add(parametersOf(*e.start));
    if (e.stop) add(parametersOf(*e.stop));
  }
  add(parametersOf(n->cond));
  return out;
}

bool raisesValueErrors(const Node &n) {
  switch (n.kind) {
  case OpKind::Index: return n.inputs.size() > 1;  // an index array's values out of range
  case OpKind::SetSubtensor: return n.inputs.size() > 3; // its region's index array, read by its kernel
  case OpKind::Random:                            // an invalid parameter
  case OpKind::RepeatIndex: return true;          // a negative count
  case OpKind::Blockwise:                         // a singular or indefinite matrix, a non-finite one
    return n.op == "inv" || n.op == "solve" || n.op == "cholesky" || n.op.starts_with("svd");
  case OpKind::Binary: return n.op == "power" && isInteger(n.dtype); // a negative integer exponent
  case OpKind::Map: return raisesValueErrors(*n.attr<attr::Core>().core); // each example's, as its core's
  default: return false;
  }
}

void Graph::finish(Node &n) {
  n.validity.mention(n.shape);
  n.valueErrors = raisesValueErrors(n) || std::any_of(n.inputs.begin(), n.inputs.end(), [](const Node *i) { return i->valueErrors; });
  if (n.dataSize) dataOwners_.emplace((*n.dataSize)->name, &n);
  // What computing n gathers: its own obligations (unless valid) and those of what it reads
  // before it runs (a lazy ifelse folds its branches' into its own obligations instead).
  std::vector<const Node *> reads;
  std::span<const Node *const> from = readsBefore(&n, reads);
  bool own = !n.validity.settledValid();
  std::shared_ptr<const std::vector<const Node *>> single;
  bool several = false;
  for (const Node *i : from) {
    if (!i->pending || i->pending == single) continue; // (a list is never empty)
    if (single) several = true;
    else single = i->pending;
  }
  if (!own && !several) {
    n.pending = single;
    return;
  }
  // Merged in a buffer the graph keeps: a list equal to one already made is only looked up.
  std::vector<const Node *> &merged = mergeScratch_;
  merged.clear();
  std::unordered_set<const Node *> seen;
  for (const Node *i : from)
    if (i->pending)
      for (const Node *p : *i->pending) appendIfNew(merged, p, seen);
  if (own) merged.push_back(&n);
  const std::size_t h = PendingHash()(merged);
  std::size_t at = pendingIndex_.find(h, [&](std::size_t i) { return *pendingLists_[i] == merged; });
  if (at == FlatIndex::npos) {
    at = pendingLists_.size();
    pendingLists_.push_back(std::make_shared<const std::vector<const Node *>>(merged));
    pendingIndex_.insert(h, at);
  }
  n.pending = pendingLists_[at];
}

std::size_t Graph::PendingHash::operator()(const std::vector<const Node *> &v) const {
  std::size_t h = v.size();
  for (const Node *p : v) h = mix(h, reinterpret_cast<std::uintptr_t>(p)); // not p->id: see appendIfNew
  return h;
}

std::vector<const Node *> nodesRead(const std::vector<const Node *> &roots, const std::function<bool(const Node *)> &stopAt) {
  std::vector<const Node *> out;
  std::unordered_set<const Node *> seen;
  std::vector<const Node *> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    const Node *n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    out.push_back(n);
    if (!stopAt || !stopAt(n))
      for (const Node *i : n->inputs) stack.push_back(i);
  }
  std::sort(out.begin(), out.end(), [](const Node *a, const Node *b) { return a->id < b->id; });
  return out;
}

Validity validityOf(const Graph &graph, const std::vector<const Node *> &nodes) {
  // What is gathered: every pending node once, every distinct requirement once, each with
  // whether it mentions data-dependent sizes (their bounds then join the context).
  struct Gathered {
    const Node *from;
    const Obligation *obligation;
    bool userOnly;
    ObligationKind kind; // see gather
    bool givenInput;     // an input's own existence (an array the user gives)
  };
  std::vector<Gathered> gathered;
  std::vector<const Node *> pending;
  std::vector<Expr> reserved;
  // Told apart as Graph::finish does (appendIfNew); one node's list holds each pending node
  // once (finish made it so).
  std::unordered_set<const Node *> seen;
  std::unordered_map<Pred, std::size_t> recorded; // gathered's entries by predicate, once it is long
  auto firstVisit = [&](const Node *p) {
    if (nodes.size() != 1) return appendIfNew(pending, p, seen);
    pending.push_back(p);
    return true;
  };
  // The same requirement from another op is gathered once, whichever op comes first, with the
  // kind that says most: an existence when an input has it (an array the user gives, so the
  // requirement holds), else a limit when an op has it so (an array computed here must fit),
  // else an existence (an op's operands exist: their own obligations say when).
  auto gather = [&](const Node *p, const Obligation &o) {
    const bool input = p->kind == OpKind::Input && o.kind == ObligationKind::Existence;
    Gathered *same = nullptr;
    if (gathered.size() < kLinearSearch) {
      for (Gathered &g : gathered)
        if (g.obligation->predicate == o.predicate) same = &g;
    } else {
      if (recorded.empty())
        for (std::size_t i = 0; i < gathered.size(); ++i) recorded.emplace(gathered[i].obligation->predicate, i);
      auto [at, added] = recorded.emplace(o.predicate, gathered.size());
      if (!added) same = &gathered[at->second];
    }
    if (!same) {
      gathered.push_back({p, &o, !addReserved(reserved, parameterNodes(o.predicate)), o.kind, input});
    } else if (input) {
      same->kind = ObligationKind::Existence, same->givenInput = true;
    } else if (!same->givenInput && o.kind == ObligationKind::Limit) {
      same->kind = ObligationKind::Limit;
    }
  };
  pending.reserve(nodes.size() == 1 && nodes[0]->pending ? nodes[0]->pending->size() : 0);
  for (const Node *node : nodes) {
    if (node->pending)
      for (const Node *p : *node->pending)
        if (firstVisit(p)) {
          for (const Obligation &o : p->validity.obligations()) gather(p, o);
        }
    for (const Expr &d : node->shape) addReserved(reserved, parameterNodes(d));
  }
  Context context = graph.contextFor(reserved);
  Validity v(graph.solver(), context);
  v.reserve(gathered.size());
  for (const Node *p : pending)
    for (const std::string &f : p->validity.failures()) v.fail(f);
  for (const Gathered &g : gathered) {
    const Obligation &o = *g.obligation;
    // A requirement over size parameters alone is decided under the user's assumptions: the
    // bounds of data-dependent sizes (each satisfiable by 0) do not restrict the parameters,
    // and their products would only make the question harder.
    const Context &where = g.userOnly ? graph.context() : context;
    if (g.from->validity.context().assumptions() == where.assumptions()) v.record(o.predicate, o.what, o.decision, g.kind, o.refusal);
    else v.record(o.predicate, o.what, graph.solver().decide(where, o.predicate), g.kind, o.refusal);
  }
  for (const Node *node : nodes) {
    v.mention(node->shape);
    for (const Node *i : node->inputs) v.mention(i->shape);
  }
  return v;
}

} // namespace shapelab::ops
