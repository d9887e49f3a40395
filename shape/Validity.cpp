#include "shape/Validity.h"

#include "symbolic/Errors.h"
#include "symbolic/Evaluate.h"

#include <algorithm>
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

void Validity::require(const Pred &predicate, std::string what) {
  settled_ = false;
  obligations_.push_back({std::move(what), predicate, solver_->decide(context_, predicate)});
}

void Validity::record(const Pred &predicate, std::string what, Decision decision) {
  settled_ = false;
  obligations_.push_back({std::move(what), predicate, std::move(decision)});
}

void Validity::fail(std::string message) { failures_.push_back(std::move(message)); }

bool Validity::failsEverywhere() const {
  return !failures_.empty() || std::any_of(obligations_.begin(), obligations_.end(), [](const Obligation &o) {
           return o.decision.answer == Answer::Refuted;
         });
}

void Validity::absorb(const Validity &other) {
  settled_ = false;
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
  if (solver_->stats().unkept == unkept) solver_->keepSettledJointly(context_, all, joint_);
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
  if (auto d = dependsFromPoints(context_, all, satisfying, violating))
    return std::make_shared<const Decision>(std::move(*d));
  // Where obligations pin different parameters (n == 3 on one axis, m + 3 == n on another), no
  // one obligation's point satisfies them all, but a point that takes each parameter's value
  // from some obligation's point may; isl would split every product's piecewise factors to
  // find it (tens of milliseconds for a dozen obligations).
  if (auto d = dependsFromPoints(context_, all, combinedPoints(satisfying), violating))
    return std::make_shared<const Decision>(std::move(*d));
  // A node's obligations hold those of the operands it reads: one that can never be computed
  // makes every node built on it impossible too, known without asking again. (The violating
  // point is then the context's own, which is a real point only where its consistency is
  // proven; elsewhere decide() gives the witness.)
  if (context_.consistencyProven() && solver_->knownJointlyImpossible(context_, conditions))
    return std::make_shared<const Decision>(Decision::refuted(completed(context_.samplePoint(), context_, all)));
  // Decided, not only tested for emptiness: the status is a runtime check only where a real
  // point satisfies them all (a Depends with its witnesses); an emptiness test that fails over
  // opaque products (m*n relaxed to a free variable) shows no such point. The conjunction is
  // asked where it holds: an obligation undefined at a point (an exact division that does not
  // divide) fails there, and in the strict reading "never together" could not be proven there.
  // The exact condition is not read.
  auto joint = std::make_shared<const Decision>(solver_->decide(context_, whereHolds(all)));
  if (joint->answer == Answer::Refuted) solver_->noteJointlyImpossible(context_, conditions);
  return joint;
}

Status Validity::status() const {
  if (!failures_.empty()) return Status::Error;
  bool unknown = false, depends = false;
  for (const Obligation &o : obligations_) {
    if (o.decision.answer == Answer::Refuted) return Status::Error;
    if (o.decision.answer == Answer::Unknown) unknown = true;
    if (o.decision.answer == Answer::Depends) depends = true;
  }
  settle();
  // Obligations that cannot hold together make the whole conjunction empty, unknown ones or not;
  // where it is not known whether they can, neither is the status.
  if (joint_ && joint_->answer == Answer::Refuted) return Status::Error;
  if (unknown || (joint_ && joint_->answer == Answer::Unknown)) return Status::Unknown;
  return depends ? Status::RuntimeCheck : Status::Valid;
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

std::vector<Pred> Validity::checks() const {
  std::vector<Pred> out;
  auto add = [&](const Pred &p) {
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  for (const Obligation &o : obligations_) {
    if (o.decision.answer == Answer::Depends) add(o.decision.condition());
    if (o.decision.answer == Answer::Unknown) add(o.decision.residual);
  }
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

std::string Validity::checksText() const {
  std::string all;
  for (const Pred &c : checks()) all += (all.empty() ? "" : "; ") + c.toString();
  return all;
}

Pred Validity::domain() const {
  if (status() == Status::Error) return Pred::truth(false);
  return whereHolds(Pred::conjunction(checks()));
}

std::optional<Assignment> Validity::violating() const {
  // A witness is a complete point of the whole call: the parameters of the other obligations
  // and of the operands get 0 (they are not in the context, so 0 is allowed, and the violated
  // obligation keeps its values, so it stays violated).
  auto whole = [&](const std::optional<Assignment> &point) -> std::optional<Assignment> {
    if (!point) return point;
    Assignment a = *point;
    for (const Obligation &o : obligations_) a = completed(std::move(a), context_, o.predicate);
    for (const Expr &p : mentioned_)
      if (!a.find(p->name)) a.set(p->name, 0);
    return a;
  };
  for (const Obligation &o : obligations_)
    if (o.decision.answer == Answer::Refuted) return whole(o.decision.violating);
  settle();
  if (joint_ && joint_->answer == Answer::Refuted) return whole(joint_->violating);
  for (const Obligation &o : obligations_)
    if (o.decision.answer == Answer::Depends) return whole(o.decision.violating);
  return std::nullopt;
}

std::string Validity::message() const {
  if (!failures_.empty()) return failures_.front();
  for (const Obligation &o : obligations_)
    if (o.decision.answer == Answer::Refuted) {
      std::string at = o.decision.violating && !o.decision.violating->empty()
                           ? " (for example at " + o.decision.violating->toString() + ")"
                           : "";
      return o.what + " fails for every size allowed: " + o.predicate.toString() + at;
    }
  switch (status()) {
  case Status::Valid: return "valid for every size allowed";
  // The checks themselves: domain() is False here, which names nothing.
  case Status::Error: return "the conditions cannot hold together: " + checksText();
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
