#include "rewrite/Engine.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "rewrite/Builtins.h"
#include "rewrite/Match.h"
#include "symbolic/Bearing.h"
#include "symbolic/Evaluate.h"

namespace shapelab::rewrite {

using ops::DType;
using ops::Node;
using ops::OpKind;

const char *spelling(Soundness s) {
  switch (s) {
  case Soundness::Strict: return "strict";
  case Soundness::ValidGraph: return "valid-graph";
  default: return "unsound";
  }
}

namespace {

/// The monomials of degree 2 or more (products of sizes, opaque to isl) in `p`, each once.
std::vector<Monomial> productsIn(const Pred &p) {
  std::vector<Monomial> out;
  std::unordered_set<const ExprNode *> seenExprs;
  std::unordered_set<const PredNode *> seenPreds;
  std::vector<const ExprNode *> exprs;
  std::vector<const PredNode *> preds{p.node()};
  while (!preds.empty() || !exprs.empty()) {
    if (!preds.empty()) {
      const PredNode *n = preds.back();
      preds.pop_back();
      if (!seenPreds.insert(n).second) continue;
      if (n->lhs) exprs.insert(exprs.end(), {n->lhs.node(), n->rhs.node()});
      for (const Pred &ch : n->children) preds.push_back(ch.node());
      continue;
    }
    const ExprNode *e = exprs.back();
    exprs.pop_back();
    if (e->quasiAffine || !seenExprs.insert(e).second) continue; // no product below
    for (const shapelab::Term &t : e->terms) {
      uint32_t degree = 0;
      for (const auto &factor : t.monomial) {
        degree += factor.second;
        exprs.push_back(factor.first.node());
      }
      if (degree > 1 && std::find(out.begin(), out.end(), t.monomial) == out.end()) out.push_back(t.monomial);
    }
    for (const Expr &o : e->operands) exprs.push_back(o.node());
    if (e->condition) preds.push_back(e->condition.node());
  }
  return out;
}

/// The data-dependent sizes in `p` and in the shapes of `nodes`.
std::vector<Expr> reservedIn(const std::vector<Pred> &preds, const std::vector<const Node *> &nodes) {
  std::vector<Expr> out;
  for (const Pred &p : preds) ops::addReserved(out, parameterNodes(p));
  for (const Node *n : nodes)
    for (const Expr &d : n->shape) ops::addReserved(out, parameterNodes(d));
  return out;
}

/// A point of the context where `p` holds (nullopt when there is none or none was found).
std::optional<Assignment> pointWhere(Solver &solver, const Context &c, const Pred &p) {
  Decision d = solver.decide(c, p);
  if (d.satisfying) return d.satisfying;
  if (d.answer == Answer::Proven) {
    Decision e = solver.decide(c, !p);
    if (e.violating) return e.violating;
  }
  return std::nullopt;
}

std::set<const Node *> pendingOf(const Node *n) {
  if (!n->pending) return {};
  return std::set<const Node *>(n->pending->begin(), n->pending->end());
}

/// A node `old` computes first for a data-dependent size its attributes read (the mask of
/// broadcast_to(x, (a[a > 0].shape[0], 2))) that `now` no longer computes; null when none.
const Node *lostSizeSource(const ops::Graph &graph, const Node *old, const Node *now) {
  std::vector<const Node *> sources;
  for (const Node *s : graph.readsBefore(old))
    if (std::find(old->inputs.begin(), old->inputs.end(), s) == old->inputs.end()) sources.push_back(s);
  if (sources.empty()) return nullptr;
  std::unordered_set<const Node *> seen{now};
  std::vector<const Node *> stack{now};
  while (!stack.empty()) {
    const Node *n = stack.back();
    stack.pop_back();
    for (const Node *i : graph.readsBefore(n))
      if (seen.insert(i).second) stack.push_back(i);
  }
  for (const Node *s : sources)
    if (!seen.count(s)) return s;
  return nullptr;
}

/// A node whose kernel may raise a value error (ops::raisesValueErrors) that `old` computes and
/// `now` does not: an error of the data that the rewrite would mask (shape analysis cannot see
/// it). Both walks keep to nodes marked Node::valueErrors, which most graphs have none of.
const Node *lostValueErrorSource(const Node *old, const Node *now) {
  if (!old->valueErrors) return nullptr;
  auto reach = [](const Node *from) {
    std::vector<const Node *> out, stack{from};
    std::unordered_set<const Node *> seen{from};
    while (!stack.empty()) {
      const Node *n = stack.back();
      stack.pop_back();
      out.push_back(n);
      for (const Node *i : n->inputs)
        if (i->valueErrors && seen.insert(i).second) stack.push_back(i);
    }
    return std::pair(std::move(out), std::move(seen));
  };
  const auto kept = reach(now).second; // {now} alone where nothing below it may raise one
  for (const Node *n : reach(old).first)
    if (ops::raisesValueErrors(*n) && !kept.count(n)) return n;
  return nullptr;
}

/// Whether `q` follows from the conjunction of `have` under `c`, asked of the requirements that
/// share a parameter with q (directly, or through other requirements or the context's
/// assumptions) alone: the rest constrain other parameters, so they either hold somewhere
/// (and a point refuting the slice extends to one refuting the whole, their values added) or
/// nowhere (and q follows vacuously). Per axis, a broadcast's requirements are a slice of their
/// own: a question over every axis's disjunctions at once grows as their product.
/// Unknown when either question is; nullopt when the slice is every requirement.
std::optional<Decision> decideSliced(Solver &solver, const Context &c, const std::vector<Pred> &have, const Pred &q) {
  // The requirements and the context's assumptions together: an assumption links parameters too.
  std::vector<Pred> all = have;
  all.insert(all.end(), c.parts().begin(), c.parts().end());
  const std::vector<bool> in = bearingOn(all, parameterNodes(q));
  std::vector<Pred> slice, rest;
  for (std::size_t i = 0; i < have.size(); ++i) (in[i] ? slice : rest).push_back(have[i]);
  if (rest.empty()) return std::nullopt;
  Decision d = solver.decide(c, !whereHolds(Pred::conjunction(slice)) || whereHolds(q));
  if (d.answer == Answer::Proven || d.answer == Answer::Unknown) return d;
  // A point of the slice where q fails; the rest must hold somewhere for it to be a witness.
  Decision r = solver.decide(c, !whereHolds(Pred::conjunction(rest)));
  if (r.answer == Answer::Proven) return Decision::proven(); // the rest holds nowhere
  if (r.answer == Answer::Unknown || !r.violating || !d.violating) {
    Decision unknown;
    unknown.reason = r.answer == Answer::Unknown ? r.reason : "no point of the other requirements was found";
    return unknown;
  }
  Assignment at = *r.violating;
  for (const auto &[name, value] : d.violating->values()) at.set(name, value);
  d.violating = at;
  return d;
}

ApplicationCheck checkApplicationOrThrow(const ops::Graph &graph, const Node *old, const Node *now) {
  ApplicationCheck r;
  if (old == now) return r;
  // Shapes aside: a replacement that no longer computes what the old node computed for a
  // data-dependent size would skip whatever error computing it raises (a value error, as a
  // random variable's invalid parameter): it may mask an error.
  if (const Node *lost = lostSizeSource(graph, old, now)) {
    r.soundness = Soundness::ValidGraph;
    r.reason = "the new node does not compute " + lost->describe() +
               ", which the old one computes for a data-dependent size: an error raised there would be masked";
    return r;
  }
  if (const Node *lost = lostValueErrorSource(old, now)) {
    r.soundness = Soundness::ValidGraph;
    r.reason = "the new node does not compute " + lost->describe() +
               ", which may raise a value error (an error of the data, not of the shapes): it would be masked";
    return r;
  }
  Solver &solver = graph.solver();
  bool sameShapes = old->shape == now->shape;
  std::set<const Node *> po = pendingOf(old), pn = pendingOf(now);
  if (old->dtype == now->dtype && sameShapes && po == pn) return r; // same dims, same requirements
  Validity vo = validityOf(graph, old), vn = validityOf(graph, now);
  // Shape requirements only: the error domain is the shape-error domain (DESIGN §3.6), NumPy's
  // array-size limits apart.
  auto requirements = [](const Validity &v) {
    std::vector<Pred> out;
    for (const Obligation &o : v.obligations())
      if (o.kind == ObligationKind::Shape)
        for (const Pred &p : conjuncts(o.predicate)) out.push_back(p);
    return out;
  };
  std::vector<Pred> ro = requirements(vo), rn = requirements(vn);
  bool failsOld = !vo.failures().empty(), failsNew = !vn.failures().empty();
  // Each domain is the conjunction of its requirements: under the context the same set as
  // Validity::domain(), which reads each obligation's exact condition from isl (over piecewise
  // shapes of many sizes, most of a check's time) to print it.
  Pred okOld = failsOld ? Pred::truth(false) : whereHolds(Pred::conjunction(ro));
  Pred okNew = failsNew ? Pred::truth(false) : whereHolds(Pred::conjunction(rn));
  Context c = graph.contextFor(reservedIn({okOld, okNew}, {old, now}));
  if (old->dtype != now->dtype || old->rank() != now->rank()) {
    r.soundness = Soundness::Unsound;
    r.witness = pointWhere(solver, c, okOld);
    // An old node that fails for every size has no value to change: the replacement masks its
    // error where it runs (or keeps it, failing everywhere too).
    if (!r.witness && (failsOld || solver.decide(c, okOld).answer == Answer::Refuted)) {
      const bool alsoFails = failsNew || solver.decide(c, okNew).answer == Answer::Refuted;
      r.soundness = alsoFails ? Soundness::Strict : Soundness::ValidGraph;
      r.witness = alsoFails ? std::nullopt : pointWhere(solver, c, okNew);
      r.reason = alsoFails ? "" : "it masks a shape error: the old node fails for every size, the new one runs";
      return r;
    }
    r.reason = old->dtype != now->dtype
                   ? std::string("the dtype changes from ") + ops::spelling(old->dtype) + " to " + ops::spelling(now->dtype)
                   : "the rank changes from " + std::to_string(old->rank()) + " to " + std::to_string(now->rank());
    return r;
  }
  // `p` follows from the requirements `have` (whose conjunction is `all`): first under the
  // context alone, then from those holding one of p's products of sizes, then from those
  // sharing a parameter with p, then from all of them (each step costs more, and `all` grows
  // with the program above the node; a proof from some requirements is one from all, and only
  // the last step's answer decides a failure). Each side is read as where it holds
  // (whereHolds): a requirement undefined at a point fails there, and the implication must not.
  const Decision proven = Decision::proven();
  auto implied = [&](const std::vector<Pred> &have, const Pred &all, const Pred &p) -> Decision {
    if (solver.provesQuickly(c, p)) return proven;
    // From `some` of the requirements, when they are fewer than all of them.
    auto fromSome = [&](const std::vector<Pred> &some) {
      return !some.empty() && some.size() < have.size() &&
             solver.provesQuickly(c, !whereHolds(Pred::conjunction(some)) || whereHolds(p));
    };
    // A limit on a product (m*n in an element count) mostly follows from the one on the same
    // product further up the program, while every requirement shares a parameter with it.
    if (std::vector<Monomial> products = productsIn(p); !products.empty()) {
      std::vector<Pred> holding;
      for (const Pred &h : have) {
        std::vector<Monomial> hp = productsIn(h);
        if (std::any_of(hp.begin(), hp.end(), [&](const Monomial &m) {
              return std::find(products.begin(), products.end(), m) != products.end();
            }))
          holding.push_back(h);
      }
      if (fromSome(holding)) return proven;
    }
    std::vector<Expr> params = parametersOf(p);
    std::vector<Pred> relevant;
    for (const Pred &h : have)
      for (const Expr &q : parametersOf(h))
        if (std::find(params.begin(), params.end(), q) != params.end()) {
          relevant.push_back(h);
          break;
        }
    if (fromSome(relevant)) return proven;
    if (std::optional<Decision> d = decideSliced(solver, c, have, p)) return *d;
    return solver.decide(c, !all || whereHolds(p));
  };
  for (std::size_t i = 0; i < old->rank(); ++i) {
    if (old->shape[i] == now->shape[i]) continue;
    // Equal at every point of the context (the common case: a rewrite keeps its shapes) needs
    // no hypothesis; only otherwise is the old node's whole validity domain assumed, a question
    // that grows with the program above the node.
    const Pred same = whereHolds(eq(old->shape[i], now->shape[i]));
    if (solver.provesQuickly(c, same)) continue;
    if (failsOld) continue; // the old node is valid nowhere
    Decision d = implied(ro, okOld, same);
    if (d.answer == Answer::Proven) continue;
    r.soundness = Soundness::Unsound;
    r.witness = d.violating;
    r.undecided = d.answer == Answer::Unknown;
    r.reason = "dimension " + std::to_string(i) + " is " + old->shape[i].toString() + " before and " +
               now->shape[i].toString() + " after" +
               (d.answer == Answer::Unknown ? " (their equality could not be decided: " + d.reason + ")" : "");
    return r;
  }
  if (okOld == okNew) return r;
  // Requirements compared one by one: those both nodes have need no question (the common case:
  // a rewrite keeps most of a program), only the others are asked under the other domain.
  auto missingFrom = [](const std::vector<Pred> &have, const std::vector<Pred> &need) {
    std::unordered_set<Pred> in(have.begin(), have.end());
    std::vector<Pred> out;
    for (const Pred &p : need)
      if (!in.count(p) && !p.isTrue()) out.push_back(p);
    return out;
  };
  // New errors: the new node must be valid wherever the old one is.
  std::vector<Pred> added = missingFrom(ro, rn);
  if (failsNew && !failsOld) added.push_back(Pred::truth(false));
  for (const Pred &p : added) {
    Decision d = implied(ro, okOld, p);
    if (d.answer == Answer::Proven) continue;
    r.soundness = Soundness::Unsound;
    r.witness = d.violating;
    r.undecided = d.answer == Answer::Unknown;
    r.reason = d.answer == Answer::Unknown ? "whether it adds a shape error could not be decided (" + d.reason + ")"
                                           : "it raises a shape error where the old program is valid (" + p.toString() + " fails)";
    return r;
  }
  // Masked errors: where the new node is valid and the old one is not.
  std::vector<Pred> dropped = missingFrom(rn, ro);
  if (failsOld && !failsNew) dropped.push_back(Pred::truth(false));
  for (const Pred &q : dropped) {
    Decision d = implied(rn, okNew, q);
    if (d.answer == Answer::Proven) continue;
    r.soundness = Soundness::ValidGraph;
    r.witness = d.violating;
    r.undecided = d.answer == Answer::Unknown;
    r.reason = d.answer == Answer::Unknown ? "whether it masks a shape error could not be decided (" + d.reason + ")"
                                           : "it masks a shape error: the old program fails where the new one runs (" +
                                                 q.toString() + " fails)";
    return r;
  }
  return r;
}

} // namespace

ApplicationCheck checkApplication(const ops::Graph &graph, const Node *old, const Node *now) {
  try {
    return checkApplicationOrThrow(graph, old, now);
  } catch (const UserError &e) {
    // A question past the limits (the two validity domains, written out, past kMaxTreeSize):
    // nothing is proven, so the application is not taken.
    ApplicationCheck r;
    r.soundness = Soundness::Unsound;
    r.undecided = true;
    r.reason = std::string("it could not be checked: ") + e.what();
    return r;
  }
}

Engine::Engine(ops::Graph &graph, std::vector<Rule> rules, EngineOptions options)
    : graph_(&graph), rules_(std::move(rules)), options_(std::move(options)) {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const Rule &rule = rules_[i];
    if (options_.exactOnly && !rule.exact) continue;
    if (std::find(options_.disabled.begin(), options_.disabled.end(), rule.name) != options_.disabled.end()) continue;
    Candidate c;
    c.rule = i;
    if (rule.builtin) c.builtin = findBuiltin(rule.name);
    if (!rule.builtin && rule.pattern) {
      // What matching asks of the root, asked once. (A root the list does not know matches
      // nothing: the rule is tried at no node.)
      std::optional<std::pair<OpKind, std::string>> root = rootKind(*rule.pattern);
      if (!root) continue;
      c.kind = root->first;
      c.op = root->second;
    }
    candidates_[std::size_t(rule.phase)].push_back(std::move(c));
  }
}

const Node *Engine::tryRule(const Rule &rule, const Node *n) {
  return apply(rule, rule.builtin ? findBuiltin(rule.name) : nullptr, n);
}

std::optional<std::string> Engine::replacementText(const Rule &rule, const Node *n,
                                                   const std::function<std::optional<std::string>(const Node *)> &nameOf,
                                                   const Assignment &at) {
  if (rule.builtin || !rule.pattern || !rule.replacement) return std::nullopt;
  Bindings b;
  if (!match(*rule.pattern, n, b)) return std::nullopt;
  return rewrite::replacementText(*rule.replacement, n, b, nameOf, at);
}

const Node *Engine::apply(const Rule &rule, const BuiltinRewrite *builtin, const Node *n) {
  try {
    if (rule.builtin) return builtin ? (*builtin)(*graph_, n, [this](const Node *x) { return readersOf(x); }) : nullptr;
    Bindings b;
    if (!match(*rule.pattern, n, b)) return nullptr;
    if (rule.condition && !conditionHolds(*graph_, *rule.condition, n, b)) return nullptr;
    return build(*graph_, *rule.replacement, n, b);
  } catch (const UserError &) {
    return nullptr; // the replacement does not build here (a rank or dtype the factory refuses)
  }
}

const Node *Engine::simplify(const Node *m, Phase phase, OptimizeResult &result) {
  for (int k = 0;; ++k) {
    if (k == options_.maxApplicationsPerNode) {
      ++result.capped;
      break;
    }
    bool fired = false;
    for (const Candidate &c : candidates_[std::size_t(phase)]) {
      // A root of another kind does not match (match would say so after a lookup by name).
      if (c.kind && (m->kind != *c.kind || (!c.op.empty() && m->op != c.op))) continue;
      if (!refusedAt_.empty() && refusedAt_.count({m, c.rule})) continue;
      const Rule &rule = rules_[c.rule];
      const Node *rep = apply(rule, c.builtin, m);
      if (!rep || rep == m) continue;
      ApplicationCheck check = checkApplication(*graph_, m, rep);
      if (int(check.soundness) > int(options_.allow)) {
        refusedAt_.insert({m, c.rule});
        result.refused.push_back({rule.name, m, std::move(check)});
        continue;
      }
      ++result.fired[rule.name];
      if (check.soundness == Soundness::ValidGraph) ++result.masked[rule.name];
      result.trace.push_back(rule.name + ": " + m->describe() + " -> " + rep->describe());
      m = rewrite(rep, phase, result);
      fired = true;
      break;
    }
    if (!fired) break;
  }
  return m;
}

const Node *Engine::rewrite(const Node *root, Phase phase, OptimizeResult &result) {
  std::vector<std::pair<const Node *, bool>> stack{{root, false}};
  std::vector<const Node *> ins; // the operands rewritten, one buffer for the walk
  while (!stack.empty()) {
    auto [n, expanded] = stack.back();
    if (doneOf(n)) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().second = true;
      for (const Node *i : n->inputs)
        if (!doneOf(i)) stack.push_back({i, false});
      continue;
    }
    stack.pop_back();
    rewriteOne(n, phase, result, ins);
  }
  return doneOf(root);
}

void Engine::rewriteOne(const Node *n, Phase phase, OptimizeResult &result, std::vector<const Node *> &ins) {
  // The operands' rewritten nodes, found by id in the graph's operand table, so that neither
  // the operands nor n's operand list are loaded: where every operand stays itself, n is its
  // own rebuild (as rebuild() would find, comparing the lists).
  const std::deque<Node> &nodes = graph_->nodes();
  ins.clear();
  bool unchanged = true;
  for (uint32_t i : graph_->operandIds(n->id)) {
    const Node *d = doneOf(i);
    ins.push_back(d);
    unchanged = unchanged && d == &nodes[i];
  }
  const Node *m;
  try {
    m = unchanged ? n : graph_->rebuild(n, ins);
  } catch (const UserError &) {
    // The node over its rewritten operands does not build (its shape, written out, past the
    // expression limits): it stays as it was, over its old operands, which still compute.
    setDone(n, n);
    return;
  }
  if (const Node *earlier = doneOf(m)) { // an equal node was rewritten before
    redirect(n, earlier);
    return;
  }
  setDone(m, m); // while it is simplified: a replacement that contains it stops here
  m = simplify(m, phase, result);
  redirect(n, m);
  setDone(m, m);
}

void Engine::countReaders(const std::vector<const Node *> &outputs) {
  // One sweep down the ids (a node's operands were made before it, so every reader of a node
  // is reached before the node is) over the graph's operand table: no node is loaded, where a
  // walk from the outputs jumps across the whole graph (a tenth of rewriting 10^5 nodes) and a
  // sweep over the nodes themselves loads each one.
  const std::size_t count = graph_->nodes().size();
  readers_.assign(count, 0);
  reached_.assign(count, 0);
  for (const Node *o : outputs) {
    ++readers_[o->id];
    reached_[o->id] = 1;
  }
  for (std::size_t id = count; id-- > 0;) {
    if (!reached_[id]) continue;
    for (uint32_t i : graph_->operandIds(id)) {
      if (i >= id) throw InternalError("node " + std::to_string(id) + " reads a later node");
      ++readers_[i];
      reached_[i] = 1;
    }
  }
}

void Engine::redirect(const Node *from, const Node *to) {
  setDone(from, to);
  if (from == to || from->id >= readers_.size()) return;
  if (to->id >= readers_.size()) readers_.resize(std::max<std::size_t>(to->id + 1, readers_.size() * 2), 0);
  readers_[to->id] += readers_[from->id];
}

OptimizeResult Engine::run(const std::vector<const Node *> &outputs) {
  OptimizeResult result;
  result.outputs = outputs;
  for (Phase phase : {Phase::Canonicalize, Phase::Specialize, Phase::Canonicalize, Phase::Fuse}) {
    // A phase with no rules rebuilds every node over operands that are themselves (Graph::rebuild
    // returns such a node as it is): it changes nothing, and is not walked.
    if (candidates_[std::size_t(phase)].empty()) continue;
    done_.assign(graph_->nodes().size(), nullptr);
    countReaders(result.outputs);
    // The nodes the outputs reach, in id order: a node's operands come before it, so each is
    // rewritten before its readers, as a walk from the outputs would; and the nodes are read in
    // the order they sit in memory, where a walk from the outputs jumps across a large graph.
    // Each node visited is loaded (its kind picks the rules to try, its operand list is
    // compared): that is fetched a few nodes ahead, its address computed, not read from a node.
    const std::deque<Node> &nodes = graph_->nodes();
    std::vector<const Node *> ins;
    constexpr std::size_t kAhead = 8; // nodes fetched ahead of their turn
    for (std::size_t id = 0, end = reached_.size(); id < end; ++id) {
      if (id + kAhead < end && reached_[id + kAhead]) {
        const char *ahead = reinterpret_cast<const char *>(&nodes[id + kAhead]);
        __builtin_prefetch(ahead);
        __builtin_prefetch(ahead + 64);
      }
      if (reached_[id] && !done_[id]) rewriteOne(&nodes[id], phase, result, ins);
    }
    for (const Node *&o : result.outputs) o = doneOf(o);
  }
  return result;
}

std::size_t reachableCount(const std::vector<const Node *> &outputs) { return ops::nodesRead(outputs).size(); }

} // namespace shapelab::rewrite
