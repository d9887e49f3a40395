#include "symbolic/SolverDetail.h"

namespace shapelab {

const char *spelling(Answer a) {
  switch (a) {
  case Answer::Proven: return "proven";
  case Answer::Refuted: return "refuted";
  case Answer::Depends: return "depends";
  case Answer::Unknown: return "unknown";
  }
  return "?";
}

const Pred &Decision::condition() const {
  if (!deferred_) return condition_;
  if (!deferred_->value) deferred_->value = deferred_->compute();
  return *deferred_->value;
}
void Decision::setCondition(Pred p) {
  condition_ = std::move(p);
  deferred_.reset();
}
void Decision::setConditionOnRead(std::function<Pred()> compute) {
  deferred_ = std::make_shared<Deferred>(Deferred{std::move(compute), std::nullopt});
}
Decision Decision::proven() {
  Decision d;
  d.answer = Answer::Proven;
  d.setCondition(Pred::truth(true));
  return d;
}
Decision Decision::refuted(Assignment at) {
  Decision d;
  d.answer = Answer::Refuted;
  d.setCondition(Pred::truth(false));
  d.violating = std::move(at);
  return d;
}

std::string Decision::toString() const {
  std::string out = spelling(answer);
  if (answer == Answer::Depends) out += "\n  holds when: " + condition().toString();
  if (satisfying) out += "\n  satisfied at: " + (satisfying->empty() ? std::string("(no parameters)") : satisfying->toString());
  if (violating) out += "\n  violated at: " + (violating->empty() ? std::string("(no parameters)") : violating->toString());
  if (answer == Answer::Unknown) {
    out += "\n  reason: " + reason;
    out += "\n  check at run time: " + residual.toString();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Context

Context::Context() {
  auto d = std::make_shared<Data>();
  d->ranges = std::make_shared<detail::RangeMemo>();
  data_ = d;
}

const Integer &maxArraySize() {
  static const Integer max(INT64_MAX);
  return max;
}

Context::Interval Context::boundsOf(const std::string &name) const {
  auto it = data_->bounds.find(name);
  Interval iv = it == data_->bounds.end() ? Interval{} : it->second;
  if (data_->domain == SizeDomain::ArraySizes && (!iv.high || *iv.high > maxArraySize()))
    iv.high = maxArraySize();
  return iv;
}

std::string Context::toString() const {
  return data_->parts.empty() ? std::string("(no assumptions)") : data_->assumptions.toString();
}

// ---------------------------------------------------------------------------------------------
// isl plumbing. Raw pointers stay inside this file; every object is owned by a unique_ptr.
// An isl call's arguments are released owners or fresh copies, never a call that can throw
// (isl's quota throws anywhere): such a call is made first, into a named owner.

auto Solver::Impl::newIslContext(const SolverOptions &options) -> isl_ctx * {
  isl_ctx *c = isl_ctx_alloc();
  if (!c) throw InternalError("isl_ctx_alloc failed");
  isl_options_set_on_error(c, ISL_ON_ERROR_CONTINUE);
  isl_ctx_set_max_operations(c, options.maxOperations);
  return c;
}

Solver::Impl::Impl(SolverOptions o) : options(o) {
  ctx = newIslContext(options);
  watched.store(ctx);
  // isl_ctx_abort only sets a flag that isl reads at its next counted operation.
  watchdog = std::make_unique<Watchdog>(std::chrono::milliseconds(options.timeLimitMs),
                                        options.memoryLimitBytes, [this] { shield.abort(watched.load()); });
}

auto Solver::Impl::renewIslContext() -> void {
  isl_ctx *fresh = newIslContext(options);
  isl_ctx_free(ctx);
  ctx = fresh;
  watched.store(ctx);
}

Solver::Impl::~Impl() {
  watchdog.reset();
  memo.clear();
  contextCache.clear();
  translations.clear();
  isl_ctx_free(ctx);
}

Solver::Solver(SolverOptions options) : impl_(std::make_shared<Impl>(options)) {}
Solver::~Solver() = default;

const SolverStats &Solver::stats() const { return impl_->stats; }
const SolverOptions &Solver::options() const { return impl_->options; }
void Solver::limitOperations(unsigned long perQuestion) {
  if (perQuestion == impl_->options.maxOperations) return;
  impl_->options.maxOperations = perQuestion;
  clearMemo(); // an Unknown kept under one bound is not the answer under another; the new isl context has the bound
}
void Solver::limitTotalTime(uint64_t totalMs) {
  impl_->totalLimitMs = totalMs;
  impl_->watchdog->setSharedDeadline(totalMs ? std::chrono::steady_clock::now() + std::chrono::milliseconds(totalMs)
                                             : std::chrono::steady_clock::time_point());
}
namespace {
std::vector<Pred> byAddress(std::vector<Pred> v) {
  std::sort(v.begin(), v.end(), [](const Pred &a, const Pred &b) { return a.node() < b.node(); });
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}
} // namespace

namespace {
template <class SubsetLists> void noteList(SubsetLists &memo, const Context &context, std::vector<Pred> predicates, std::size_t most) {
  auto &lists = memo[{context.assumptions(), context.domain()}];
  lists.push_back(byAddress(std::move(predicates)));
  if (lists.size() > most) lists.pop_front();
}
/// Whether `predicates` hold all of some list remembered for the context.
template <class SubsetLists> bool holdsList(const SubsetLists &memo, const Context &context, const std::vector<Pred> &predicates) {
  auto it = memo.find({context.assumptions(), context.domain()});
  if (it == memo.end()) return false;
  const std::vector<Pred> have = byAddress(predicates);
  auto before = [](const Pred &a, const Pred &b) { return a.node() < b.node(); };
  for (const std::vector<Pred> &known : it->second)
    if (std::includes(have.begin(), have.end(), known.begin(), known.end(), before)) return true;
  return false;
}
} // namespace

void Solver::noteJointlyImpossible(const Context &context, std::vector<Pred> predicates) {
  noteList(impl_->impossible, context, std::move(predicates), Impl::kImpossibleLists);
}

bool Solver::knownJointlyImpossible(const Context &context, const std::vector<Pred> &predicates) const {
  if (!holdsList(impl_->impossible, context, predicates)) return false;
  ++impl_->stats.impossibleByMemo;
  return true;
}

void Solver::noteJointlyUndecided(const Context &context, std::vector<Pred> predicates) {
  noteList(impl_->undecided, context, std::move(predicates), Impl::kImpossibleLists);
}

bool Solver::knownJointlyUndecided(const Context &context, const std::vector<Pred> &predicates) const {
  if (!holdsList(impl_->undecided, context, predicates)) return false;
  ++impl_->stats.undecidedByMemo;
  return true;
}

std::shared_ptr<const Decision> Solver::settledJointly(const Context &context, const Pred &conjunction) const {
  const std::shared_ptr<const Decision> *kept =
      impl_->jointMemo.find(MemoKey{context.assumptions(), context.domain(), conjunction});
  if (!kept) return nullptr;
  ++impl_->stats.settledByMemo;
  return *kept;
}

void Solver::keepSettledJointly(const Context &context, const Pred &conjunction, std::shared_ptr<const Decision> decision) {
  if (impl_->jointMemo.size() > (std::size_t(1) << 16)) impl_->jointMemo.clear();
  impl_->jointMemo.emplace(MemoKey{context.assumptions(), context.domain(), conjunction}, std::move(decision));
}

const std::deque<Assignment> &Solver::jointPoints() const { return impl_->jointPoints; }

void Solver::noteJointPoint(const Assignment &point) {
  std::deque<Assignment> &points = impl_->jointPoints;
  if (!points.empty() && points.back() == point) return;
  points.push_back(point);
  if (points.size() > Impl::kJointPoints) points.pop_front();
}

void Solver::clearMemo() {
  impl_->jointPoints.clear();
  impl_->jointMemo.clear();
  impl_->impossible.clear();
  impl_->undecided.clear();
  impl_->memo.clear();
  impl_->proofMemo.clear();
  impl_->contextCache.clear();
  impl_->compactMemo.clear();
  impl_->translations.clear();
  impl_->renewIslContext();
}

bool Solver::provesQuickly(const Context &context, const Pred &predicate) {
  Impl &im = *impl_;
  MemoKey key{context.assumptions(), context.domain(), predicate};
  if (const Decision *d = im.memo.find(key)) return d->answer == Answer::Proven;
  if (const bool *proven = im.proofMemo.find(key)) return *proven;
  bool undecidedInBox = false;
  if (auto d = im.fastPath(context, predicate, &undecidedInBox)) return d->answer == Answer::Proven;
  if (undecidedInBox) {
    ++im.stats.fastPaths;
    return false;
  }
  bool proven = false;
  // A few points first: most predicates asked here do not hold (a simplification tries both
  // a <= b and b <= a), and a point where one fails is cheaper to find than ranges that fail.
  if (im.refutedAtSmallPoints(context, predicate, /*few=*/true)) {
    ++im.stats.evaluated;
  } else if (provenByRanges(context, predicate)) {
    ++im.stats.ranges;
    proven = true;
  } else if (im.refutedAtSmallPoints(context, predicate)) {
    ++im.stats.evaluated;
  } else if (im.provenByCuts(context, predicate, {})) {
    proven = true;
  } else {
    proven = im.provenWithIsl(context, predicate);
    // "Not proven" because the clock ran out depends on the machine and the moment: not kept.
    if (!proven && im.outOfTime()) {
      ++im.stats.unkept;
      return proven;
    }
  }
  if (im.proofMemo.size() > (std::size_t(1) << 20)) im.proofMemo.clear();
  im.proofMemo.emplace(key, proven);
  return proven;
}

std::optional<Expr> Solver::compact(const Context &context, const Expr &e) {
  Impl &im = *impl_;
  if (!e.isTotal() || !e.isQuasiAffine() || e.isConstant()) return std::nullopt;
  Impl::CompactKey key{context.assumptions(), context.domain(), e};
  if (auto it = im.compactMemo.find(key); it != im.compactMemo.end()) return it->second;
  std::optional<Expr> r = im.compactWithIsl(context, e);
  if (r && (r->node()->treeSize >= e.node()->treeSize || *r == e)) r.reset();
  if (r && im.refutedAtSmallPoints(context, eq(e, *r))) {
    ++im.stats.compactionsRejected;
    r.reset();
  }
  if (r) ++im.stats.compacted;
  // "Not compacted" because the clock ran out depends on the moment: not kept.
  if (!r && im.outOfTime()) {
    ++im.stats.unkept;
    return r;
  }
  if (im.compactMemo.size() > (std::size_t(1) << 16)) im.compactMemo.clear();
  im.compactMemo.emplace(key, r);
  return r;
}

std::optional<Assignment> Solver::smallestPoint(const Context &context, const Pred &predicate,
                                                const std::vector<std::string> &order, const Integer &bound) {
  return impl_->smallestWithIsl(context, predicate, order, bound);
}

Decision Solver::decide(const Context &context, const Pred &predicate) {
  Impl &im = *impl_;
  ++im.stats.questions;
  MemoKey key{context.assumptions(), context.domain(), predicate};
  if (im.options.memoize) {
    if (const Decision *d = im.memo.find(key)) {
      ++im.stats.memoHits;
      return *d;
    }
  }
  if (auto d = im.fastPath(context, predicate)) {
    ++im.stats.fastPaths;
    return *d;
  }
  Decision d;
  if (provenByRanges(context, predicate)) {
    ++im.stats.ranges;
    d = Decision::proven();
  } else {
    const auto start = std::chrono::steady_clock::now();
    d = im.decideWithIsl(context, predicate);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    im.stats.islSeconds += took;
    im.stats.slowestIslSeconds = std::max(im.stats.slowestIslSeconds, took);
    if (took >= 0.1) ++im.stats.slowIslQuestions;
  }
  // An answer cut short by the clock or memory is not memoized: it depends on the machine.
  bool budgetAnswer = d.answer == Answer::Unknown &&
                      (d.reason.find("time limit") != std::string::npos ||
                       d.reason.find("memory limit") != std::string::npos);
  if (budgetAnswer) ++im.stats.unkept;
  if (im.options.memoize && !budgetAnswer) {
    if (im.memo.size() > (std::size_t(1) << 20)) im.memo.clear();
    im.memo.emplace(key, d);
  }
  return d;
}

Context Solver::makeContext(const std::vector<Pred> &assumptions, SizeDomain domain) {
  return makeContextImpl(assumptions, domain, nullptr);
}

Context Solver::makeContextNear(const std::vector<Pred> &assumptions, SizeDomain domain, const Assignment &point) {
  return makeContextImpl(assumptions, domain, &point);
}

Context Solver::makeContextImpl(const std::vector<Pred> &assumptions, SizeDomain domain, const Assignment *near) {
  auto data = std::make_shared<Context::Data>();
  data->ranges = std::make_shared<detail::RangeMemo>();
  data->domain = domain;
  data->parts = assumptions;
  data->assumptions = Pred::conjunction(assumptions);
  data->parameters = parametersOf(data->assumptions);
  // Interval bounds from single-parameter comparisons with a constant.
  for (const Pred &part : assumptions) {
    for (const Pred &atom : conjuncts(part)) {
      const PredNode *n = atom.node();
      if (n->kind != PredKind::Compare || !n->lhs->total || !n->rhs->total || n->op == CompareOp::NE) {
        data->box = data->box && atom.isTrue();
        continue;
      }
      auto [terms, k] = asPolynomial(n->lhs - n->rhs);
      if (terms.size() != 1 || terms[0].monomial.size() != 1 || terms[0].monomial[0].second != 1 ||
          terms[0].monomial[0].first->kind != ExprKind::Param) {
        data->box = false;
        continue;
      }
      // coefficient * x + k OP 0
      const Integer &co = terms[0].coefficient;
      const std::string &name = terms[0].monomial[0].first->name;
      Context::Interval &iv = data->bounds[name];
      CompareOp op = n->op;
      if (co.sign() < 0) { // flip to a positive coefficient
        switch (op) {
        case CompareOp::LT: op = CompareOp::GT; break;
        case CompareOp::LE: op = CompareOp::GE; break;
        case CompareOp::GT: op = CompareOp::LT; break;
        case CompareOp::GE: op = CompareOp::LE; break;
        default: break;
        }
      }
      Integer a = Integer::abs(co);
      Integer kk = co.sign() < 0 ? -k : k; // a*x + kk OP 0
      auto ceilDiv = [](const Integer &x, const Integer &y) { return -Integer::floorDiv(-x, y); };
      auto raiseLow = [&](const Integer &v) { if (v > iv.low) iv.low = v; };
      auto lowerHigh = [&](const Integer &v) { if (!iv.high || v < *iv.high) iv.high = v; };
      switch (op) {
      case CompareOp::GE: raiseLow(ceilDiv(-kk, a)); break;                 // x >= -kk/a
      case CompareOp::GT: raiseLow(Integer::floorDiv(-kk, a) + 1); break;    // x > -kk/a
      case CompareOp::LE: lowerHigh(Integer::floorDiv(-kk, a)); break;
      case CompareOp::LT: lowerHigh(ceilDiv(-kk, a) - 1); break;
      case CompareOp::EQ:
        if (Integer::floorMod(-kk, a).isZero()) {
          raiseLow(Integer::floorDiv(-kk, a));
          lowerHigh(Integer::floorDiv(-kk, a));
        } else {
          data->box = false;
        }
        break;
      case CompareOp::NE: break;
      }
    }
  }
  // Refused only when proven contradictory; otherwise a real point of it, when one is found.
  if (data->assumptions.isFalse())
    throw InconsistentAssumptions("the assumptions are contradictory: " +
                                  (assumptions.empty() ? std::string("False") : Pred::conjunction(assumptions).toString()));
  for (auto &[name, iv] : data->bounds)
    if (iv.high && (*iv.high < iv.low || (domain == SizeDomain::ArraySizes && iv.low > maxArraySize())))
      throw InconsistentAssumptions("the assumptions are contradictory: no sizes satisfy " +
                                    data->assumptions.toString());
  // A point the caller offers, in the domain and satisfying every assumption: a real point.
  auto offered = [&]() -> std::optional<Assignment> {
    if (!near) return std::nullopt;
    Assignment a;
    for (const Expr &x : data->parameters) {
      const Integer *v = near->find(x->name);
      Integer value = v ? *v : Integer(0);
      if (value.sign() < 0 || (domain == SizeDomain::ArraySizes && value > maxArraySize())) return std::nullopt;
      a.set(x->name, value);
    }
    if (!holds(data->assumptions, a)) return std::nullopt;
    return a;
  };
  if (!data->assumptions.isTrue()) {
    if (std::optional<Assignment> point = offered()) {
      data->sample = *point;
      return Context(data);
    }
    Impl &im = *impl_;
    Impl::Budget budget(im);
    std::optional<Assignment> sample;
    try {
      Translation t;
      t.build(im.ctx, {data->assumptions, definedness(data->assumptions)});
      SetPtr C = t.holdsWithin(data->assumptions, domain);
      if (checkBool(isl_set_is_empty(C.get())))
        throw InconsistentAssumptions("the assumptions are contradictory: no sizes satisfy " +
                                      data->assumptions.toString());
      sample = im.witness(t, C.get(), data->assumptions, Pred::truth(true), true, domain);
      if (!sample && t.hasOpaqueAtoms()) {
        // Where the relaxation confines the sizes to a small box, every point of it is tried.
        bool decided = false;
        sample = im.realPointAmong(t, C.get(), data->assumptions, Pred::truth(true), true, decided);
        if (!sample && decided)
          throw InconsistentAssumptions("the assumptions are contradictory: no sizes satisfy " +
                                        data->assumptions.toString());
      }
    } catch (const IslFailure &) {
      isl_ctx_reset_error(im.ctx);
    } catch (const TooHard &) {
    } catch (const InputTooLarge &) {
    }
    if (sample) data->sample = *sample;
    else data->consistent = false;
    // A point the clock kept the search from finding: a context that is not one to remember.
    if (!sample && im.outOfTime()) ++im.stats.unkept;
  }
  if (data->consistent)
    for (Expr x : data->parameters)
      if (!data->sample.find(x.node()->name)) data->sample.set(x.node()->name, 0);
  return Context(data);
}

Assignment completed(Assignment a, const Context &c, const Pred &p) {
  for (const Expr &x : c.parameters())
    if (!a.find(x->name)) a.set(x->name, 0);
  for (const Expr &x : parametersOf(p))
    if (!a.find(x->name)) a.set(x->name, 0);
  return a;
}

} // namespace shapelab
