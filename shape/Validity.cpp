#include "shape/Validity.h"

#include "symbolic/Bearing.h"
#include "symbolic/Errors.h"
#include "symbolic/Evaluate.h"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <span>

namespace shapelab {

const char *spelling(Status s) {
  switch (s) {
  case Status::Valid: return "valid";
  case Status::RuntimeCheck: return "runtime-check";
  case Status::Error: return "error";
  case Status::Unknown: return "unknown";
  }
  return "?";
}

const char *spelling(ObligationKind k) {
  switch (k) {
  case ObligationKind::Shape: return "shape";
  case ObligationKind::Limit: return "limit";
  case ObligationKind::Existence: return "existence";
  }
  return "?";
}

void Validity::require(const Pred &predicate, std::string what, ObligationKind kind, std::string refusal) {
  settled_ = false;
  valid_.reset();
  obligations_.push_back({std::move(what), predicate, solver_->decide(context_, predicate), kind, std::move(refusal)});
}

void Validity::record(const Pred &predicate, std::string what, Decision decision, ObligationKind kind,
                      std::string refusal) {
  settled_ = false;
  valid_.reset();
  obligations_.push_back({std::move(what), predicate, std::move(decision), kind, std::move(refusal)});
}

void Validity::fail(std::string message) { failures_.push_back(std::move(message)); }

bool Validity::failsEverywhere() const {
  return !failures_.empty() || std::any_of(obligations_.begin(), obligations_.end(), [](const Obligation &o) {
           return o.decision.answer == Answer::Refuted;
         });
}

void Validity::absorb(const Validity &other) {
  settled_ = false;
  valid_.reset();
  obligations_.insert(obligations_.end(), other.obligations_.begin(), other.obligations_.end());
  failures_.insert(failures_.end(), other.failures_.begin(), other.failures_.end());
  mentioned_.insert(mentioned_.end(), other.mentioned_.begin(), other.mentioned_.end());
}

void Validity::mention(const std::vector<Expr> &dims) {
  for (const Expr &d : dims)
    for (const ExprNode *p : parameterNodes(d))
      if (std::none_of(mentioned_.begin(), mentioned_.end(), [p](const Expr &m) { return m.node() == p; }))
        mentioned_.push_back(Expr(p));
}

namespace {
/// Points that take each parameter's value from one of `points` (every parameter a point of
/// them gives; at most kValues values each, the first ones met), in turn, at most kCombined.
std::vector<Assignment> combinedPoints(const std::vector<Assignment> &points) {
  constexpr std::size_t kCombined = 64, kValues = 4;
  std::vector<std::pair<std::string, std::vector<Integer>>> values;
  for (const Assignment &a : points)
    for (const auto &entry : a.values()) { // not a structured binding: clang 14 cannot capture one
      const std::string &name = entry.first;
      const Integer &value = entry.second;
      auto at = std::find_if(values.begin(), values.end(), [&](const auto &v) { return v.first == name; });
      if (at == values.end()) values.push_back({name, {value}});
      else if (at->second.size() < kValues && std::find(at->second.begin(), at->second.end(), value) == at->second.end())
        at->second.push_back(value);
    }
  std::vector<Assignment> out;
  std::vector<std::size_t> digit(values.size(), 0);
  while (out.size() < kCombined) {
    Assignment a;
    for (std::size_t i = 0; i < values.size(); ++i) a.set(values[i].first, values[i].second[digit[i]]);
    out.push_back(std::move(a));
    // The next combination, the last parameter fastest.
    std::size_t i = values.size();
    while (i > 0 && ++digit[i - 1] == values[i - 1].second.size()) digit[--i] = 0;
    if (i == 0) break;
  }
  return out;
}
} // namespace

void Validity::settle() const {
  if (settled_) return;
  settled_ = true;
  joint_.reset();
  // Obligations that each depend may still be jointly impossible (n == 1 on one axis and
  // n == 2 on another): decide their conjunction once. Within the context each predicate is
  // its own exact condition; conditions are not read, so isl does not compute them.
  // Counted first: most validities have one such obligation, and then nothing is copied.
  std::size_t depending = 0;
  for (const Obligation &o : obligations_) depending += o.decision.answer == Answer::Depends;
  if (depending < 2) return;
  std::vector<Pred> conditions;
  conditions.reserve(depending);
  for (const Obligation &o : obligations_)
    if (o.decision.answer == Answer::Depends) conditions.push_back(o.predicate);
  // Conditions that each fit may not fit together (their conjunction written out is past
  // kMaxTreeSize): the joint question is then not asked, as when the solver cannot answer it,
  // and each obligation stays a runtime check of its own.
  Pred all;
  try {
    all = Pred::conjunction(conditions);
  } catch (const InputTooLarge &) {
    return;
  }
  // Many nodes of a program hold the same obligations that depend (every elementwise op on the
  // same operands): their conjunction is decided once per context. An answer the clock cut
  // short is not kept.
  if ((joint_ = solver_->settledJointly(context_, all))) return;
  const uint64_t unkept = solver_->stats().unkept;
  joint_ = decideJointly(conditions, all);
  if (joint_->answer == Answer::Depends && joint_->satisfying) solver_->noteJointPoint(*joint_->satisfying);
  if (solver_->stats().unkept == unkept) solver_->keepSettledJointly(context_, all, joint_);
}

auto Validity::relatedGroups(const std::vector<Pred> &conditions) const -> RelatedGroups {
  // Union-find over the parameters: the parameters of one condition, or of one assumption, are
  // one group.
  RelatedGroups out;
  std::unordered_map<const ExprNode *, const ExprNode *> &parent = out.parent;
  std::function<const ExprNode *(const ExprNode *)> root = [&](const ExprNode *x) {
    auto it = parent.find(x);
    if (it == parent.end()) return parent[x] = x;
    if (it->second == x) return x;
    return it->second = root(it->second);
  };
  auto join = [&](const std::vector<const ExprNode *> &ps) {
    for (std::size_t i = 1; i < ps.size(); ++i) parent[root(ps[i])] = root(ps[0]);
    if (!ps.empty()) root(ps[0]);
  };
  std::vector<std::vector<const ExprNode *>> params;
  for (const Pred &c : conditions) {
    params.push_back(parameterNodes(c));
    join(params.back());
  }
  for (const Pred &a : context_.parts()) join(parameterNodes(a));
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const ExprNode *r = params[i].empty() ? nullptr : root(params[i][0]);
    auto at = std::find(out.roots.begin(), out.roots.end(), r);
    if (at == out.roots.end()) {
      out.roots.push_back(r);
      out.members.emplace_back();
      at = out.roots.end() - 1;
    }
    out.members[std::size_t(at - out.roots.begin())].push_back(i);
  }
  for (auto &[node, up] : parent) up = root(node);
  return out;
}

std::optional<Decision> Validity::decideByGroups(const std::vector<Pred> &conditions, const Pred &all) const {
  if (conditions.size() < 2 || !context_.consistencyProven()) return std::nullopt;
  const RelatedGroups related = relatedGroups(conditions);
  const std::vector<const ExprNode *> &roots = related.roots;
  std::vector<std::vector<Pred>> groups;
  for (const std::vector<std::size_t> &g : related.members) {
    groups.emplace_back();
    for (std::size_t i : g) groups.back().push_back(conditions[i]);
  }
  if (groups.size() < 2) return std::nullopt;
  // Each group decided alone; a point of all of them takes each group's parameters from its own.
  Assignment satisfying = context_.samplePoint();
  std::optional<Assignment> violating;
  std::unordered_map<std::string, const ExprNode *> groupOf;
  for (const auto &[node, up] : related.parent) groupOf[node->name] = up;
  auto take = [&](Assignment &into, const Assignment &from, const ExprNode *group) {
    for (const auto &[name, value] : from.values())
      if (auto it = groupOf.find(name); it != groupOf.end() && it->second == group) into.set(name, value);
  };
  bool depends = false;
  std::vector<std::pair<const Assignment *, const ExprNode *>> failing;
  std::vector<Decision> decisions;
  decisions.reserve(groups.size());
  const uint64_t unkept = solver_->stats().unkept;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    decisions.push_back(solver_->decide(context_, whereHolds(Pred::conjunction(groups[g]))));
    const Decision &d = decisions.back();
    if (d.answer == Answer::Refuted) {
      solver_->noteJointlyImpossible(context_, conditions);
      return Decision::refuted(completed(context_.samplePoint(), context_, all));
    }
    if (d.answer == Answer::Unknown) {
      // The whole question, as before (where the group's answer was the work bound's, its
      // conditions are remembered: a list that holds them is not asked again).
      if (solver_->stats().unkept == unkept) solver_->noteJointlyUndecided(context_, groups[g]);
      return std::nullopt;
    }
    if (d.answer == Answer::Depends) {
      if (!d.satisfying || !d.violating || !roots[g]) return std::nullopt;
      depends = true;
      take(satisfying, *d.satisfying, roots[g]);
      failing.push_back({&*d.violating, roots[g]});
    }
  }
  if (!depends) return Decision::proven();
  violating = satisfying;
  take(*violating, *failing.front().first, failing.front().second);
  return dependsFromPoints(context_, all, {satisfying}, {*violating});
}

std::shared_ptr<const Decision> Validity::decideJointly(const std::vector<Pred> &conditions, const Pred &all) const {
  std::vector<Assignment> satisfying, violating;
  satisfying.reserve(conditions.size() + 2);
  violating.reserve(conditions.size());
  for (const Obligation &o : obligations_)
    if (o.decision.answer == Answer::Depends) {
      if (o.decision.satisfying) satisfying.push_back(*o.decision.satisfying);
      if (o.decision.violating) violating.push_back(*o.decision.violating);
    }
  // Usually one obligation's satisfying point satisfies them all, or their largest values do
  // (most obligations ask for sizes large enough): then evaluation settles it.
  Assignment largest;
  for (const Assignment &a : satisfying)
    for (const auto &[name, value] : a.values()) {
      const Integer *v = largest.find(name);
      if (!v || *v < value) largest.set(name, value);
    }
  // The largest values first: each candidate is an evaluation of the whole conjunction, and an
  // obligation's own point often fails another one, so trying them first costs k evaluations
  // of k obligations where the largest point settles it with one.
  satisfying.insert(satisfying.begin(), {largest, context_.samplePoint()});
  // First of all, the points of the latest joint decisions (of the nodes built just before,
  // whose obligations this one mostly holds), each completed by the obligations' points where
  // it has no value, or overridden by them: with every input dim a size of its own the largest
  // values often fail one obligation, and trying each obligation's point evaluates the whole
  // conjunction once per obligation (quadratic in the obligations a node gathers).
  {
    std::vector<Assignment> recent;
    const std::deque<Assignment> &points = solver_->jointPoints();
    for (auto it = points.rbegin(); it != points.rend(); ++it) {
      Assignment under = *it, over = *it;
      for (const auto &[name, value] : largest.values()) {
        if (!under.find(name)) under.set(name, value);
        over.set(name, value);
      }
      recent.push_back(std::move(under));
      recent.push_back(std::move(over));
    }
    satisfying.insert(satisfying.begin(), std::make_move_iterator(recent.begin()), std::make_move_iterator(recent.end()));
  }
  if (auto d = dependsFromPoints(context_, all, satisfying, violating))
    return std::make_shared<const Decision>(std::move(*d));
  // Where obligations pin different parameters (n == 3 on one axis, m + 3 == n on another), no
  // one obligation's point satisfies them all, but a point that takes each parameter's value
  // from some obligation's point may; isl would split every product's piecewise factors to
  // find it (tens of milliseconds for a dozen obligations).
  if (auto d = dependsFromPoints(context_, all, combinedPoints(satisfying), violating))
    return std::make_shared<const Decision>(std::move(*d));
  // Broadcasts hold where every size is 1, or where the sizes are all equal: with every input
  // dim a size of its own, no one obligation's point satisfies them all (each pins its own
  // sizes), but one value for every size often does.
  {
    std::vector<Assignment> uniform;
    for (int64_t v : {1, 2, 3}) {
      Assignment a;
      for (const Expr &p : parametersOf(all)) a.set(p->name, Integer(v));
      uniform.push_back(std::move(a));
    }
    if (auto d = dependsFromPoints(context_, all, uniform, violating)) return std::make_shared<const Decision>(std::move(*d));
  }
  // A node's obligations hold those of the operands it reads: one that can never be computed
  // makes every node built on it impossible too, known without asking again. (The violating
  // point is then the context's own, which is a real point only where its consistency is
  // proven; elsewhere decide() gives the witness.)
  if (context_.consistencyProven() && solver_->knownJointlyImpossible(context_, conditions))
    return std::make_shared<const Decision>(Decision::refuted(completed(context_.samplePoint(), context_, all)));
  // Obligations of an operand whose joint question was past the work bound: a node built on
  // it holds them, and its question would run to the bound again.
  if (solver_->knownJointlyUndecided(context_, conditions)) {
    Decision d;
    d.residual = whereHolds(all);
    d.reason = "the obligations of an operand could not be decided together within the work bound";
    return std::make_shared<const Decision>(std::move(d));
  }

  // Obligations over sizes no other one (nor an assumption) relates to them hold together
  // exactly where each group holds: each group is its own question (smaller, and the same group
  // recurs across the program's nodes: the solver's memo answers it again). With every input
  // dim its own size, a node's obligations fall into one group per independent axis, and their
  // conjunction as one question grows as the product of the groups' disjunctions.
  if (auto d = decideByGroups(conditions, all)) return std::make_shared<const Decision>(std::move(*d));
  // Decided, not only tested for emptiness: the status is a runtime check only where a real
  // point satisfies them all (a Depends with its witnesses); an emptiness test that fails over
  // opaque products (m*n relaxed to a free variable) shows no such point. The conjunction is
  // asked where it holds: an obligation undefined at a point (an exact division that does not
  // divide) fails there, and in the strict reading "never together" could not be proven there.
  // The exact condition is not read.
  const uint64_t unkept = solver_->stats().unkept;
  auto joint = std::make_shared<const Decision>(solver_->decide(context_, whereHolds(all)));
  if (joint->answer == Answer::Refuted) solver_->noteJointlyImpossible(context_, conditions);
  if (joint->answer == Answer::Unknown && solver_->stats().unkept == unkept) solver_->noteJointlyUndecided(context_, conditions);
  return joint;
}

Status Validity::status() const {
  if (!failures_.empty()) return Status::Error;
  bool unknown = false, depends = false;
  std::size_t countedDepends = 0;
  for (const Obligation &o : obligations_) {
    // A limit that fails at every allowed size is NumPy's immediate refusal: an error too.
    if (o.decision.answer == Answer::Refuted) return Status::Error;
    if (!counted(o.kind)) continue;
    if (o.decision.answer == Answer::Unknown) unknown = true;
    if (o.decision.answer == Answer::Depends) {
      depends = true;
      ++countedDepends;
    }
  }
  settle();
  // Obligations that cannot hold together make the whole conjunction empty, unknown ones or not:
  // the joint question holds the limits too, so that "no point where the shape holds and every
  // array fits" is an error, as DESIGN §3.4 has it.
  if (joint_ && joint_->answer == Answer::Refuted) return Status::Error;
  if (unknown) return Status::Unknown;
  // Where it is not known whether the shape conditions can hold together, neither is the
  // status. An undecided joint question over one shape condition and limits is the limits'
  // question: they are reported apart.
  if (joint_ && joint_->answer == Answer::Unknown && countedDepends >= 2) return Status::Unknown;
  return depends ? Status::RuntimeCheck : Status::Valid;
}

bool Validity::settledValid() const {
  return failures_.empty() && std::all_of(obligations_.begin(), obligations_.end(), [](const Obligation &o) {
           return o.decision.answer == Answer::Proven;
         });
}

namespace {
/// `side <= limit` (upper) or `side >= limit`: the integer bound a comparison with a constant
/// says of its other side, without that side's constant term (`1 >= m` is `m <= 1`, `n + 2 < 5`
/// is `n <= 2`). Read off the nodes, nothing built: checks() runs for every reply. None for `==`,
/// `!=` and a comparison without a constant side.
struct Bound {
  const ExprNode *side = nullptr;
  bool upper = true;
  Integer limit;
};
std::optional<Bound> boundIn(const Pred &p) {
  if (p.kind() != PredKind::Compare || p->op == CompareOp::EQ || p->op == CompareOp::NE) return std::nullopt;
  const bool lhsConstant = p->lhs.isConstant(), rhsConstant = p->rhs.isConstant();
  if (lhsConstant == rhsConstant) return std::nullopt;
  // side op c, with op turned around when the constant is on the left.
  const ExprNode *side = lhsConstant ? p->rhs.node() : p->lhs.node();
  const Integer &c = lhsConstant ? p->lhs.node()->value : p->rhs.node()->value;
  CompareOp op = p->op;
  if (lhsConstant) op = op == CompareOp::LT ? CompareOp::GT : op == CompareOp::GT ? CompareOp::LT
                      : op == CompareOp::LE ? CompareOp::GE : CompareOp::LE;
  Bound b{side, op == CompareOp::LE || op == CompareOp::LT, c};
  if (side->kind == ExprKind::Sum) b.limit = b.limit - side->constantTerm;
  if (op == CompareOp::LT) b.limit = b.limit - Integer(1);
  if (op == CompareOp::GT) b.limit = b.limit + Integer(1);
  return b;
}
/// Whether two bounds' sides are the same expression apart from their constant terms.
bool sameSide(const ExprNode *a, const ExprNode *b) {
  if (a == b) return true;
  auto terms = [](const ExprNode *n) {
    return n->kind == ExprKind::Sum ? std::span<const Term>(n->terms.data(), n->terms.size()) : std::span<const Term>();
  };
  // A sum's terms against another sum's, or a sum of one term 1*x against the atom x.
  std::span<const Term> x = terms(a), y = terms(b);
  if (a->kind == ExprKind::Sum && b->kind == ExprKind::Sum)
    return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](const Term &s, const Term &t) {
      return s.coefficient == t.coefficient && s.monomial == t.monomial;
    });
  const ExprNode *sum = a->kind == ExprKind::Sum ? a : b, *atom = sum == a ? b : a;
  if (sum->kind != ExprKind::Sum || sum->terms.size() != 1) return false;
  const Term &t = sum->terms.front();
  return t.coefficient.isOne() && t.monomial.size() == 1 && t.monomial[0].second == 1 &&
         t.monomial[0].first.node() == atom;
}
/// Whether bound `q` implies bound `p` strictly (> 0), is the same bound (0), or neither (< 0).
int strength(const Bound &q, const Bound &p) {
  if (q.upper != p.upper || !sameSide(q.side, p.side)) return -1;
  return q.upper ? compare(p.limit, q.limit) : compare(q.limit, p.limit);
}
} // namespace

namespace {
/// `conditions` without those another one implies by its form (no question asked).
std::vector<Pred> withoutImplied(std::vector<Pred> out) {
  // A check whose conjuncts are all conjuncts of another check is implied by it: left out, the
  // conjunction is the same (`n % 2 == 0` beside `n >= 6 and n % 2 == 0`, an array's size and
  // count obligations over one exact division).
  if (out.size() < 2) return out;
  // Read in place (checks() runs for every reply): the children of a conjunction, or the check.
  auto parts = [&](std::size_t i) {
    return out[i].kind() == PredKind::And ? std::span<const Pred>(out[i]->children) : std::span<const Pred>(&out[i], 1);
  };
  // Likewise a total disjunction one of whose disjuncts is a conjunct of another check: `a == 0
  // or b == 0 and a >= 1` beside `a == 0` (total: where a disjunct is undefined the disjunction
  // does not hold, whatever the others say). A disjunction never implies a check this way (its
  // only part is itself, which flattening keeps out of another disjunction), so no two checks
  // leave each other out.
  auto isPartOf = [&](const Pred &q, std::size_t j) {
    const std::span<const Pred> other = parts(j);
    return std::find(other.begin(), other.end(), q) != other.end();
  };
  // And a bound implied by a stronger bound of the same expression among another check's
  // conjuncts: `m <= 4611686018427387902` beside `m <= 1 and m >= 0` (a size limit and a
  // broadcast's condition on one dimension). Equal bounds: the earlier check keeps its own.
  std::vector<std::optional<Bound>> bounds(out.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    if (parts(i).size() == 1) bounds[i] = boundIn(out[i]);
  auto impliedBound = [&](std::size_t i, std::size_t j) {
    for (const Pred &q : parts(j))
      if (std::optional<Bound> b = boundIn(q))
        if (const int s = strength(*b, *bounds[i]); s > 0 || (s == 0 && j < i)) return true;
    return false;
  };
  std::vector<Pred> kept;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::span<const Pred> own = parts(i);
    bool implied = false;
    for (std::size_t j = 0; j < out.size() && !implied; ++j) {
      const std::span<const Pred> other = parts(j);
      implied = j != i && other.size() > own.size() &&
                std::all_of(own.begin(), own.end(), [&](const Pred &q) { return isPartOf(q, j); });
      implied = implied || (j != i && bounds[i] && impliedBound(i, j));
    }
    if (!implied && out[i].kind() == PredKind::Or && out[i]->total)
      for (std::size_t j = 0; j < out.size() && !implied; ++j)
        implied = j != i && std::any_of(out[i]->children.begin(), out[i]->children.end(),
                                        [&](const Pred &q) { return isPartOf(q, j); });
    if (!implied) kept.push_back(out[i]);
  }
  return kept;
}

std::string joined(const std::vector<Pred> &conditions) {
  std::string all;
  for (const Pred &c : conditions) all += (all.empty() ? "" : "; ") + c.toString();
  return all;
}
} // namespace

std::vector<Pred> Validity::conditionsOf(bool countedKinds) const {
  std::vector<Pred> out;
  auto add = [&](const Pred &p) {
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  for (const Obligation &o : obligations_) {
    if (countedKinds ? !counted(o.kind) : (o.kind != ObligationKind::Limit || counted(o.kind))) continue;
    if (o.decision.answer == Answer::Depends) add(o.decision.condition());
    if (o.decision.answer == Answer::Unknown) add(o.decision.residual);
  }
  return withoutImplied(std::move(out));
}

std::vector<Pred> Validity::checks() const { return conditionsOf(true); }

namespace {
/// The parts of `where` that bear on `x`'s parameters: those that share a parameter with them,
/// or with such a part, and so on. A part about other sizes narrows nothing `x` takes (where is
/// consistent).
std::vector<Pred> bearingParts(const Context &where, const std::vector<const ExprNode *> &params) {
  const std::vector<Pred> &parts = where.parts();
  const std::vector<bool> taken = bearingOn(parts, params);
  std::vector<Pred> kept;
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (taken[i]) kept.push_back(parts[i]);
  return kept;
}

/// Whether every one of `kept` is a part of `base`: then `where` narrows nothing beyond the
/// context the expression was built (and decided) under.
bool onlyBase(const std::vector<Pred> &kept, const Context &base) {
  const std::vector<Pred> &b = base.parts();
  return std::all_of(kept.begin(), kept.end(), [&](const Pred &p) { return std::find(b.begin(), b.end(), p) != b.end(); });
}

/// Points of `where` found without isl: its sample point, and the points that vary the sizes
/// `params` from it (each alone, and all together) over small and large values, that satisfy
/// every part of it. Used to see quickly that a condition is open there.
std::vector<Assignment> pointsNear(const Context &where, const std::vector<const ExprNode *> &params) {
  std::vector<Assignment> out;
  Assignment sample = where.samplePoint();
  for (const ExprNode *p : params)
    if (!sample.find(p->name)) sample.set(p->name, Integer(0)); // a size the context does not bound
  auto keep = [&](const Assignment &a) {
    if (holds(where.assumptions(), a)) out.push_back(a);
  };
  keep(sample);
  static const int64_t values[] = {0, 1, 2, 3, 5, 8, 1000, int64_t(1) << 31, int64_t(1) << 62};
  for (int64_t v : values) {
    Assignment all = sample;
    for (const ExprNode *p : params) {
      Assignment one = sample;
      one.set(p->name, Integer(v));
      keep(one);
      all.set(p->name, Integer(v));
    }
    if (params.size() > 1) keep(all);
  }
  return out;
}

/// `where` narrowed to `kept` (its sample point proves it consistent): statements whose checks
/// differ only about other sizes share one question to isl (compact() and proofs are kept per
/// context).
Context narrowed(Solver &solver, const Context &where, const std::vector<Pred> &kept) {
  if (kept.size() == where.parts().size()) return where;
  return solver.makeContextNear(kept, where.domain(), where.samplePoint());
}
} // namespace

std::vector<Pred> Validity::limits() const {
  std::vector<Pred> all = conditionsOf(false);
  // A limit the checks imply is no news: (x1, 2) needs 2*x1 <= 2**63 - 1, which x1 == 3 says;
  // nor one that the arrays given imply (a broadcast whose result is an operand's shape).
  if (all.empty() || (status() != Status::RuntimeCheck && status() != Status::Valid)) return all;
  std::optional<Context> where = validContext();
  if (!where) return all;
  std::vector<Pred> out;
  for (const Pred &l : all) {
    // Asked only where a check or a given array bears on it, within the parts that do.
    const std::vector<Pred> kept = bearingParts(*where, parameterNodes(l));
    if (std::find(kept.begin(), kept.end(), whereHolds(l)) != kept.end()) continue; // said by a given array
    if (onlyBase(kept, context_)) {
      out.push_back(l);
      continue;
    }
    // A limit fails only at large sizes, which the solver's small points never reach: a valid
    // point found by varying its sizes, where it fails, answers without isl.
    const Context in = narrowed(*solver_, *where, kept);
    const std::vector<Assignment> near = pointsNear(in, parameterNodes(l));
    if (std::any_of(near.begin(), near.end(), [&](const Assignment &a) { return evaluate(l, a) == false; }) ||
        !solver_->provesQuickly(in, l))
      out.push_back(l);
  }
  return out;
}

std::vector<Pred> Validity::shownChecks() const {
  std::vector<Pred> checked = checks();
  if (checked.size() < 2 || !context_.consistencyProven()) return checked;
  const RelatedGroups related = relatedGroups(checked);
  if (related.members.size() == checked.size()) return checked; // no two over related sizes
  // A disjunction (a broadcast of sizes that may be 1) is left as it is: joining several of them
  // multiplies their disjuncts out, and isl's questions over them cost milliseconds per reply.
  auto convex = [](const Pred &p) {
    if (p.kind() == PredKind::Or) return false;
    if (p.kind() == PredKind::And)
      return std::none_of(p->children.begin(), p->children.end(), [](const Pred &q) { return q.kind() == PredKind::Or; });
    return true;
  };
  std::vector<Pred> out;
  for (const std::vector<std::size_t> &g : related.members) {
    std::vector<Pred> parts, apart;
    for (std::size_t i : g) (convex(checked[i]) ? parts : apart).push_back(checked[i]);
    if (parts.size() > 1) {
      // One question per group; its exact condition is isl's, simplified under the context,
      // taken where it reads no longer than the checks it joins (a conjunction of disjunctions
      // can multiply out into a longer one).
      std::optional<Pred> joined;
      try {
        const Decision d = solver_->decide(context_, whereHolds(Pred::conjunction(parts)));
        std::size_t length = 0;
        for (const Pred &q : parts) length += q.toString().size() + 2;
        if (d.answer == Answer::Depends && d.condition().toString().size() <= length) joined = d.condition();
      } catch (const UserError &) {
        // Past the expression limits or isl's work bound: the checks are shown as they are.
      }
      if (joined) {
        out.push_back(*joined);
        out.insert(out.end(), apart.begin(), apart.end());
        continue;
      }
      // Otherwise each check the group's others imply (under the assumptions) is left out.
      for (std::size_t i = 0; i < parts.size() && parts.size() > 1;) {
        std::vector<Pred> others = context_.parts();
        for (std::size_t j = 0; j < parts.size(); ++j)
          if (j != i) others.push_back(parts[j]);
        bool implied = false;
        try {
          implied = solver_->decide(solver_->makeContext(others, context_.domain()), parts[i]).answer == Answer::Proven;
        } catch (const UserError &) {
          // The others contradict the assumptions: nothing is left out.
        }
        if (implied) parts.erase(parts.begin() + std::ptrdiff_t(i));
        else ++i;
      }
    }
    out.insert(out.end(), parts.begin(), parts.end());
    out.insert(out.end(), apart.begin(), apart.end());
  }
  return out;
}

std::string Validity::checksText() const { return joined(shownChecks()); }

std::string Validity::limitsText() const { return joined(limits()); }

Pred Validity::domain() const {
  if (status() == Status::Error) return Pred::truth(false);
  return whereHolds(Pred::conjunction(checks()));
}

namespace {
/// Points of `params` by increasing sum of values, each sum's points in lexicographic order
/// (the first parameter smallest first), `visit` called on each until it returns true or
/// `budget` points have been visited. The found point, if any.
std::optional<Assignment> searchSmall(const std::vector<Expr> &params, std::size_t budget,
                                      const std::function<bool(const Assignment &)> &visit) {
  const std::size_t k = params.size();
  std::vector<int64_t> v(k, 0);
  std::size_t visited = 0;
  std::optional<Assignment> found;
  // The points of sum `rest` over params[i..], params[..i) fixed.
  std::function<bool(std::size_t, int64_t)> walk = [&](std::size_t i, int64_t rest) -> bool {
    if (visited >= budget) return true;
    if (i + 1 >= k) {
      if (k > 0) v[k - 1] = rest;
      else if (rest > 0) return false;
      ++visited;
      Assignment a;
      for (std::size_t j = 0; j < k; ++j) a.set(params[j]->name, Integer(v[j]));
      if (visit(a)) {
        found = std::move(a);
        return true;
      }
      return false;
    }
    for (int64_t x = 0; x <= rest; ++x) {
      v[i] = x;
      if (walk(i + 1, rest - x)) return true;
    }
    return false;
  };
  for (int64_t sum = 0; visited < budget; ++sum) {
    if (walk(0, sum)) return found;
    if (k == 0) break;
  }
  return found;
}

/// Whether every comparison of `p` is between quasi-affine expressions.
bool quasiAffine(const Pred &p) {
  if (p->lhs && (!p->lhs.isQuasiAffine() || !p->rhs.isQuasiAffine())) return false;
  return std::all_of(p->children.begin(), p->children.end(), [](const Pred &c) { return quasiAffine(c); });
}
} // namespace

std::vector<std::string> Validity::mentionedNames() const {
  std::vector<std::string> out;
  for (const Expr &p : mentioned_) out.push_back(p->name);
  return out;
}

Pred Validity::domainWithLimits() const {
  if (!failures_.empty()) return Pred::truth(false);
  std::vector<Pred> all;
  for (const Obligation &o : obligations_) {
    if (o.decision.answer == Answer::Refuted) return Pred::truth(false);
    if (o.decision.answer == Answer::Depends) all.push_back(o.decision.condition());
    if (o.decision.answer == Answer::Unknown) all.push_back(o.decision.residual);
  }
  settle();
  if (joint_ && joint_->answer == Answer::Refuted) return Pred::truth(false);
  return whereHolds(Pred::conjunction(all));
}

std::optional<Assignment> Validity::violating(const std::vector<std::string> &declared) const {
  const std::vector<std::string> order = declared.empty() ? mentionedNames() : declared;
  const Status st = status(); // settles the joint question read below
  if (st == Status::Valid) return std::nullopt;
  // Which failure the witness shows: a counted obligation failing (or a failure recorded,
  // which holds everywhere), with every limit holding; or, when the error is that a limit can
  // never hold, any point of the context.
  bool everywhere = !failures_.empty(), limitNever = false;
  std::vector<const Obligation *> open, limits;
  for (const Obligation &o : obligations_) {
    if (o.decision.answer == Answer::Proven) continue;
    if (counted(o.kind)) {
      everywhere = everywhere || o.decision.answer == Answer::Refuted;
      open.push_back(&o);
    } else {
      limitNever = limitNever || o.decision.answer == Answer::Refuted;
      limits.push_back(&o);
    }
  }
  // Without a failing counted obligation there is nothing to show but the joint refutation, or
  // an Unknown status whose failing points are not known.
  if (open.empty() && !everywhere && !limitNever && !(joint_ && joint_->answer == Answer::Refuted)) return std::nullopt;
  // The parameters a witness gives: those of the context, the obligations and the operands, in
  // `order` first (declaration order), the others by name.
  std::vector<Expr> params;
  auto addParams = [&](const std::vector<Expr> &more) {
    for (const Expr &p : more)
      if (std::find(params.begin(), params.end(), p) == params.end()) params.push_back(p);
  };
  addParams(context_.parameters());
  for (const Obligation &o : obligations_) addParams(parametersOf(o.predicate));
  addParams(mentioned_);
  auto rank = [&](const Expr &p) { return std::size_t(std::find(order.begin(), order.end(), p->name) - order.begin()); };
  std::sort(params.begin(), params.end(), [&](const Expr &a, const Expr &b) {
    const std::size_t ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a->name < b->name;
  });
  auto complete = [&](Assignment a) {
    for (const Expr &p : params)
      if (!a.find(p->name)) a.set(p->name, 0);
    for (const std::string &name : order)
      if (!a.find(name)) a.set(name, 0);
    return a;
  };
  auto fitsLimits = [&](const Assignment &a) {
    return limitNever || std::all_of(limits.begin(), limits.end(), [&](const Obligation *o) { return holds(o->predicate, a); });
  };
  auto fails = [&](const Assignment &a) {
    return everywhere || limitNever || (joint_ && joint_->answer == Answer::Refuted) ||
           std::any_of(open.begin(), open.end(), [&](const Obligation *o) { return !holds(o->predicate, a); });
  };
  auto wanted = [&](const Assignment &a) { return holds(context_.assumptions(), a) && fitsLimits(a) && fails(a); };
  // Small points first, by evaluation (exact, products included): the least one is the witness.
  constexpr std::size_t kSearched = 2048;
  if (auto a = searchSmall(params, kSearched, wanted)) return complete(*a);
  // Beyond them, isl's least point of the failing set where it is quasi-affine (the limits with
  // products, which small points satisfy, are checked after).
  std::vector<Pred> affineFitting, failing;
  for (const Obligation *o : limits)
    if (quasiAffine(o->predicate)) affineFitting.push_back(whereHolds(o->predicate));
  for (const Obligation *o : open) failing.push_back(whereHolds(o->predicate));
  if (!failing.empty() && !everywhere && !limitNever) {
    std::vector<Pred> target = affineFitting;
    target.push_back(!Pred::conjunction(failing));
    try {
      if (auto a = solver_->smallestPoint(context_, Pred::conjunction(target), order, Integer(kSmallWitnessBound)))
        if (wanted(complete(*a))) return complete(*a);
    } catch (const InputTooLarge &) {
    }
  }
  // Else a point the decisions carry: one where the limits hold first.
  std::vector<Assignment> candidates;
  for (const Obligation *o : open)
    if (o->decision.violating) candidates.push_back(complete(*o->decision.violating));
  if (joint_ && joint_->violating) candidates.push_back(complete(*joint_->violating));
  for (const Obligation *o : limits)
    if (o->decision.violating && limitNever) candidates.push_back(complete(*o->decision.violating));
  for (const Assignment &a : candidates)
    if (wanted(a)) return a;
  if (!candidates.empty()) return candidates.front();
  if (everywhere || limitNever) return complete(context_.samplePoint());
  return std::nullopt;
}

std::vector<std::optional<Expr>> Validity::simplified(const std::vector<std::optional<Expr>> &dims) const {
  std::vector<Expr> known;
  for (const auto &d : dims)
    if (d) known.push_back(*d);
  known = simplified(known);
  std::vector<std::optional<Expr>> out;
  std::size_t k = 0;
  for (const auto &d : dims) out.push_back(d ? std::optional<Expr>(known[k++]) : std::nullopt);
  return out;
}

std::optional<Context> Validity::validContext() const {
  if (valid_) return *valid_;
  valid_ = std::make_shared<const std::optional<Context>>(makeValidContext());
  return *valid_;
}

std::optional<Context> Validity::makeValidContext() const {
  if (status() == Status::Error) return std::nullopt;
  // The points where the shape exists: the assumptions and the checks (limits apart: a
  // shape is what NumPy computes wherever it does not refuse it).
  try {
    std::vector<Pred> parts = context_.parts();
    const std::vector<Pred> checked = checks();
    // The arrays given exist (their limits are assumed): a limit they imply is no news either.
    std::vector<Pred> given;
    for (const Obligation &o : obligations_)
      if (o.kind == ObligationKind::Existence && (o.decision.answer == Answer::Depends || o.decision.answer == Answer::Unknown))
        given.push_back(o.predicate);
    if (checked.empty() && given.empty()) return context_;
    for (const Pred &c : checked) parts.push_back(whereHolds(c));
    for (const Pred &e : given) parts.push_back(whereHolds(e));
    // A point where every check holds proves the context consistent without asking isl: the
    // joint decision's, else one of a check's own (each is tried against all of them).
    std::vector<const Assignment *> offered;
    if (joint_ && joint_->satisfying) offered.push_back(&*joint_->satisfying);
    for (const Obligation &o : obligations_)
      if (o.decision.answer == Answer::Depends && o.decision.satisfying) offered.push_back(&*o.decision.satisfying);
    const Pred all = Pred::conjunction(parts);
    for (const Assignment *a : offered)
      if (holds(all, completed(*a, context_, all))) return solver_->makeContextNear(parts, context_.domain(), *a);
    Context where = solver_->makeContext(parts, context_.domain());
    if (where.consistencyProven()) return where;
  } catch (const UserError &) { // contradictory (cannot be: the status is not an error), too large
  }
  return std::nullopt;
}

std::vector<Expr> Validity::simplified(const std::vector<Expr> &dims) const {
  if (std::all_of(dims.begin(), dims.end(), [](const Expr &d) { return d.isConstant(); })) return dims;
  if (status() != Status::RuntimeCheck) return dims; // valid: nothing narrows it; else no shape
  return simplifiedWithin(*solver_, validContext(), context_, dims);
}

namespace {
/// Whether `ok` holds for every node of `e`, each shared node visited once (a sum's atoms and
/// every node's operands are below it); stops at the first where it does not.
bool everyNode(const Expr &e, const std::function<bool(const ExprNode *)> &ok) {
  std::vector<const ExprNode *> todo{e.node()}, seen;
  while (!todo.empty()) {
    const ExprNode *n = todo.back();
    todo.pop_back();
    if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
    seen.push_back(n);
    if (!ok(n)) return false;
    for (const Term &t : n->terms)
      for (const auto &[atom, exponent] : t.monomial) todo.push_back(atom.node());
    for (const Expr &o : n->operands) todo.push_back(o.node());
  }
  return true;
}

/// Whether `e` chooses between pieces (a min, max, choice, division or remainder inside): only
/// then can isl's compact form under narrower sizes differ from it other than by a constant.
bool piecewise(const Expr &e) {
  return !everyNode(e, [](const ExprNode *n) {
    return n->kind == ExprKind::Constant || n->kind == ExprKind::Param || n->kind == ExprKind::Sum;
  });
}

/// Whether every choice inside `e` (a min or max between two of its operands, a choice's
/// condition) goes both ways among `points`; a division or remainder counts as settled (the
/// sizes may make it exact).
bool allChoicesOpen(const Expr &e, const std::vector<Assignment> &points) {
  auto open = [&](const Pred &c) {
    bool yes = false, no = false;
    for (const Assignment &a : points) {
      std::optional<bool> v = evaluate(c, a);
      yes = yes || v == true;
      no = no || v == false;
    }
    return yes && no;
  };
  return everyNode(e, [&](const ExprNode *n) {
    switch (n->kind) {
    case ExprKind::Constant:
    case ExprKind::Param:
    case ExprKind::Sum: return true;
    case ExprKind::Min:
    case ExprKind::Max:
      for (std::size_t i = 0; i < n->operands.size(); ++i)
        for (std::size_t j = i + 1; j < n->operands.size(); ++j)
          if (!open(le(n->operands[i], n->operands[j]))) return false;
      return true;
    case ExprKind::Select: return open(n->condition);
    default: return false;
    }
  });
}
} // namespace

std::vector<Expr> simplifiedWithin(Solver &solver, const std::optional<Context> &where, const Context &base,
                                   const std::vector<Expr> &dims) {
  if (!where) return dims;
  std::vector<Expr> out;
  for (const Expr &d : dims) {
    if (d.isConstant() || !d.isTotal()) {
      out.push_back(d);
      continue;
    }
    const std::vector<Pred> kept = bearingParts(*where, parameterNodes(d));
    if (onlyBase(kept, base)) { // as it was built: nothing the checks say bears on it
      out.push_back(d);
      continue;
    }
    const Context in = narrowed(solver, *where, kept);
    // The constant it is at one valid point, if it is that everywhere.
    if (auto v = evaluate(d, completed(in.samplePoint(), in, ge(d, Expr(0)))))
      if (solver.provesQuickly(in, eq(d, Expr(*v)))) {
        out.push_back(Expr(*v));
        continue;
      }
    // A polynomial is left as it is unless the narrower sizes pin it (above): isl rewrites
    // only choices between pieces (a max that the checks decide, a division they make exact),
    // and only where a choice may be settled: one that goes both ways at points of `in` found
    // by evaluation is open there, and a shape whose choices are all open is left as built.
    if (auto c = !piecewise(d) || allChoicesOpen(d, pointsNear(in, parameterNodes(d))) ? std::nullopt : solver.compact(in, d))
      out.push_back(*c);
    else
      out.push_back(d);
  }
  return out;
}

std::string Validity::message() const {
  if (!failures_.empty()) return failures_.front();
  // A shape obligation's failure first: it is the one a person acts on.
  for (int pass = 0; pass < 2; ++pass)
    for (const Obligation &o : obligations_)
      if (o.decision.answer == Answer::Refuted && (pass == 1 || o.kind == ObligationKind::Shape)) {
        const bool at = o.decision.violating && !o.decision.violating->empty();
        // NumPy's words where the op has them, then for which sizes; else the requirement.
        if (!o.refusal.empty())
          return o.refusal + ", for every size allowed" + (at ? " (for example at " + o.decision.violating->toString() + ")" : "");
        return "it requires that " + o.what + ", which holds for no size allowed (" + o.predicate.toString() +
               " is false" + (at ? ", for example at " + o.decision.violating->toString() : "") + ")";
      }
  switch (status()) {
  case Status::Valid: return "valid for every size allowed";
  // The checks themselves: domain() is False here, which names nothing.
  case Status::Error: {
    std::string all = checksText();
    if (std::string l = limitsText(); !l.empty()) all += (all.empty() ? "" : "; ") + l;
    return "the conditions cannot hold together: " + all;
  }
  case Status::Unknown: return "validity could not be decided; check at run time";
  default: return "valid only where the runtime checks hold";
  }
}

std::optional<Decision> dependsFromPoints(const Context &context, const Pred &pred,
                                          const std::vector<Assignment> &satisfying,
                                          const std::vector<Assignment> &violating) {
  if (!context.consistencyProven()) return std::nullopt;
  auto first = [&](const std::vector<Assignment> &candidates, bool want) -> std::optional<Assignment> {
    for (const Assignment &c : candidates) {
      Assignment a = completed(c, context, pred);
      if (holds(context.assumptions(), a) && evaluate(pred, a) == std::optional<bool>(want)) return a;
    }
    return std::nullopt;
  };
  auto yes = first(satisfying, true);
  if (!yes) return std::nullopt;
  auto no = first(violating, false);
  if (!no) return std::nullopt;
  Decision d;
  d.answer = Answer::Depends;
  d.setCondition(pred);
  d.satisfying = yes;
  d.violating = no;
  return d;
}

} // namespace shapelab
