// Solver: unit questions, and a property against brute-force enumeration of small boxes.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>
#include <rapidcheck.h>

#include "symbolic/Errors.h"
#include "symbolic/Parser.h"
#include "symbolic/Range.h"
#include "symbolic/Solver.h"
#include "tests/symbolic/RandomAst.h"

using namespace shapelab;

namespace {
/// The oracle's point (a, b, c) of a witness; a parameter the witness leaves out reads as 0.
std::vector<long> at(const Assignment &w) {
  std::vector<long> v;
  for (int i = 0; i < 3; ++i) {
    const Integer *x = w.find(oracle::kNames[i]);
    v.push_back(x ? long(x->toInt64Checked()) : 0);
  }
  return v;
}
/// For questions whose answers a test asserts: the isl quota bounds each one (the same on every
/// machine), not the clock or the resident memory, which a loaded machine stretches.
SolverOptions withoutClock() {
  SolverOptions o;
  o.timeLimitMs = 0;
  o.memoryLimitBytes = 0;
  return o;
}
Context ctx(Solver &s, std::vector<const char *> assumptions) {
  std::vector<Pred> ps;
  for (auto *a : assumptions) ps.push_back(parsePred(a));
  return s.makeContext(ps);
}
Decision ask(Solver &s, std::vector<const char *> assumptions, const char *p) {
  return s.decide(ctx(s, assumptions), parsePred(p));
}
/// The context low[i] <= x_i <= low[i] + width[i] over the oracle's first three names.
Context boxContext(Solver &s, const std::vector<long> &low, const std::vector<long> &width) {
  std::vector<Pred> assumptions;
  for (int i = 0; i < 3; ++i) {
    std::string name = oracle::kNames[i];
    assumptions.push_back(parsePred(name + " >= " + std::to_string(low[i])));
    assumptions.push_back(parsePred(name + " <= " + std::to_string(low[i] + width[i])));
  }
  return s.makeContext(assumptions);
}
/// "[low, high]", an absent end as -inf or inf.
std::string rangeText(const Range &r) {
  return "[" + (r.low ? r.low->toString() : "-inf") + ", " + (r.high ? r.high->toString() : "inf") + "]";
}
/// A node of the oracle's expression tree.
oracle::EP oracleNode(oracle::E::Kind kind, long value, oracle::EP l, oracle::EP r) {
  auto e = std::make_shared<oracle::E>();
  e->kind = kind;
  e->value = value;
  e->a = std::move(l);
  e->b = std::move(r);
  return e;
}
/// The oracle's i-th name, and a constant.
oracle::EP oracleVariable(int i) {
  auto e = std::make_shared<oracle::E>();
  e->kind = oracle::E::Var;
  e->var = i;
  return e;
}
oracle::EP oracleConstant(long k) { return oracleNode(oracle::E::Const, k, nullptr, nullptr); }
/// The oracle's comparison l OP r (OP numbered as in oracle::P).
std::shared_ptr<oracle::P> oracleCompare(int op, oracle::EP l, oracle::EP r) {
  auto cmp = std::make_shared<oracle::P>();
  cmp->kind = oracle::P::Cmp;
  cmp->op = op;
  cmp->l = std::move(l);
  cmp->r = std::move(r);
  return cmp;
}
/// The oracle's comparison a*x + k OP 0 on its x-th name.
std::shared_ptr<oracle::P> oneParameterComparison(int x, long a, long k, int op) {
  return oracleCompare(op,
                       oracleNode(oracle::E::Add, 0, oracleNode(oracle::E::MulConst, a, oracleVariable(x), nullptr),
                                  oracleConstant(k)),
                       oracleConstant(0));
}
/// The oracle's `x and y`, `x or y` or `not x` (kind And, Or or Not).
oracle::PP oracleJunction(oracle::P::Kind kind, oracle::PP x, oracle::PP y = nullptr) {
  auto p = std::make_shared<oracle::P>();
  p->kind = kind;
  p->x = std::move(x);
  p->y = std::move(y);
  return p;
}
/// Inside a property: `c`, or (one time in four) its negation.
oracle::PP negatedAtTimes(oracle::PP c) {
  if (*rc::gen::inRange(0, 4) != 0) return c;
  return oracleJunction(oracle::P::Not, std::move(c));
}
/// Inside a property: a random comparison a*x + k OP 0 on one of the oracle's first three names,
/// negated at times.
oracle::PP randomOneParameterPart() {
  const int x = *rc::gen::inRange(0, 3);
  const long a = *rc::gen::element(-3L, -2L, -1L, 1L, 2L, 3L);
  const long k = *rc::gen::inRange<long>(-6, 7);
  const int op = *rc::gen::inRange(0, 6);
  return negatedAtTimes(oneParameterComparison(x, a, k, op));
}
/// Inside a property: such a part, or a conjunction or disjunction of two or three (on the same
/// parameter or not), the whole negated at times.
oracle::PP randomOneParameterCondition() {
  oracle::PP cond = randomOneParameterPart();
  for (int more = *rc::gen::inRange(0, 3), kind = *rc::gen::inRange(0, 2); more > 0; --more)
    cond = oracleJunction(kind == 0 ? oracle::P::And : oracle::P::Or, cond, randomOneParameterPart());
  return negatedAtTimes(cond);
}
/// Inside a property: a refutation's or a dependence's witnesses are real points (`context`
/// holds there, and `p` has the truth each claims); returns a Depends condition read back from
/// its text.
std::optional<Pred> checkedWitnesses(const Decision &d, const Pred &context, const Pred &p) {
  auto real = [&](const std::optional<Assignment> &w, bool truth) {
    RC_ASSERT(w.has_value());
    RC_ASSERT(holds(context, *w));
    RC_ASSERT(holds(p, *w) == truth);
  };
  if (d.answer == Answer::Refuted) real(d.violating, false);
  if (d.answer != Answer::Depends) return std::nullopt;
  real(d.satisfying, true);
  real(d.violating, false);
  return parsePred(d.condition().toString());
}
/// The oracle's predicate parsed (and logged); a case past the stated size limits is discarded.
/// a <= bound[0], b <= bound[1], c <= bound[2]: the box the brute-force properties enumerate.
std::vector<Pred> boxBounds(const std::vector<long> &bound) {
  std::vector<Pred> out;
  for (std::size_t i = 0; i < bound.size(); ++i)
    out.push_back(parsePred(std::string(oracle::kNames[i]) + " <= " + std::to_string(bound[i])));
  return out;
}

Pred parsedOrDiscarded(const oracle::PP &pred) {
  RC_LOG() << "predicate: " << oracle::show(pred) << "\n";
  try {
    return parsePred(oracle::show(pred));
  } catch (const InputTooLarge &) {
    RC_DISCARD("beyond the stated size limits");
  }
  return Pred();
}
/// Calls `f` at every point (a, b, c) of that box.
template <class F> void forEachPoint(const std::vector<long> &low, const std::vector<long> &width, F f) {
  for (long a = low[0]; a <= low[0] + width[0]; ++a)
    for (long b = low[1]; b <= low[1] + width[1]; ++b)
      for (long c = low[2]; c <= low[2] + width[2]; ++c) f(std::vector<long>{a, b, c});
}
} // namespace

TEST(Solver, ProvenRefutedDepends) {
  Solver s;
  EXPECT_EQ(ask(s, {"n >= 1"}, "n != 0").answer, Answer::Proven);
  EXPECT_EQ(ask(s, {"n % 4 == 0"}, "n % 2 == 0").answer, Answer::Proven);
  EXPECT_EQ(ask(s, {"n >= m"}, "max(n, m) == n").answer, Answer::Proven);
  Decision r = ask(s, {"n >= 2"}, "n == 1");
  EXPECT_EQ(r.answer, Answer::Refuted);
  ASSERT_TRUE(r.violating);
  EXPECT_GE(*r.violating->find("n"), Integer(2));
  Decision d = ask(s, {"n >= 1"}, "n % 2 == 0 or n == m");
  ASSERT_EQ(d.answer, Answer::Depends);
  EXPECT_TRUE(holds(parsePred("n % 2 == 0 or n == m"), *d.satisfying));
  EXPECT_FALSE(holds(parsePred("n % 2 == 0 or n == m"), *d.violating));
  EXPECT_EQ(ask(s, {}, "n >= 0").answer, Answer::Proven); // parameters are sizes
}

// Where small points witness both sides, the witnesses are small (not the context's own point,
// which may be huge), and the condition is still isl's exact one.
TEST(Solver, DependsWitnessesAreSmallWhereSmallOnesExist) {
  Solver s;
  for (auto [assume, question] : {std::pair{"n >= 2", "n == m"}, {"n >= 2 and m >= 2", "n == 2*m or m == 3"},
                                  {"k == n + 1", "k % 3 == 0"}}) {
    Decision d = ask(s, {assume}, question);
    ASSERT_EQ(d.answer, Answer::Depends) << question;
    for (const Assignment *w : {&*d.satisfying, &*d.violating}) {
      EXPECT_TRUE(holds(parsePred(assume), *w)) << w->toString();
      for (const auto &[name, value] : w->values()) EXPECT_LE(value, Integer(9)) << w->toString();
    }
    EXPECT_TRUE(holds(parsePred(question), *d.satisfying));
    EXPECT_FALSE(holds(parsePred(question), *d.violating));
    EXPECT_TRUE(holds(d.condition(), *d.satisfying));
    EXPECT_FALSE(holds(d.condition(), *d.violating));
  }
  EXPECT_EQ(ask(s, {"n >= 2"}, "n == m").condition().toString(), "n == m");
  // A product past the element limit: one far value among small ones, found by evaluation.
  Decision far = ask(s, {}, "m*n <= 9223372036854775807");
  ASSERT_EQ(far.answer, Answer::Depends);
  EXPECT_FALSE(holds(parsePred("m*n <= 9223372036854775807"), *far.violating));
  EXPECT_TRUE(*far.violating->find("m") <= Integer(9) || *far.violating->find("n") <= Integer(9))
      << far.violating->toString();
}

// A refutation's witness is a small point too when evaluation met one on its way to isl
// (isl's own point on a relaxation of products can be far: n = m = 2**63 - 1 for n*m + 1 <= 0).
TEST(Solver, RefutationWitnessesAreSmallWhereSmallOnesExist) {
  Solver s;
  for (auto [assume, question] : {std::pair{"", "n*m + 1 <= 0"}, {"", "n*m < 0"}, {"k >= 1", "n*m*k + k <= 0"},
                                  {"n >= 2", "n*m == 2*j + 1 and n*m == 2*i"}}) {
    Decision d = ask(s, assume[0] ? std::vector<const char *>{assume} : std::vector<const char *>{}, question);
    ASSERT_EQ(d.answer, Answer::Refuted) << question;
    ASSERT_TRUE(d.violating) << question;
    if (assume[0]) {
      EXPECT_TRUE(holds(parsePred(assume), *d.violating)) << d.violating->toString();
    }
    EXPECT_FALSE(holds(parsePred(question), *d.violating)) << d.violating->toString();
    for (const Expr &x : parametersOf(parsePred(question))) EXPECT_TRUE(d.violating->find(x->name)) << x->name;
    for (const auto &[name, value] : d.violating->values()) EXPECT_LE(value, Integer(9)) << question << ": " << d.violating->toString();
  }
}

TEST(Solver, ConditionIsSimplifiedUnderTheContext) {
  Solver s;
  Decision d = ask(s, {"n >= 1", "m >= 1"}, "n >= 1 and m == 1");
  ASSERT_EQ(d.answer, Answer::Depends);
  EXPECT_EQ(d.condition().toString(), "m == 1");
}

TEST(Solver, WitnessesBeyond64Bits) {
  Solver s;
  Context integers = s.makeContext({parsePred("n >= 2**70")}, SizeDomain::Integers);
  Decision d = s.decide(integers, parsePred("n == 2**70 + 5"));
  ASSERT_EQ(d.answer, Answer::Depends);
  EXPECT_EQ(d.satisfying->find("n")->toString(), "1180591620717411303429");
  EXPECT_FALSE(d.violating->find("n")->fitsInt64());
  // Array sizes stop at 2**63 - 1 (NumPy's npy_intp).
  EXPECT_THROW(ctx(s, {"n >= 2**70"}), InconsistentAssumptions);
  EXPECT_EQ(ask(s, {}, "n <= 9223372036854775807").answer, Answer::Proven);
}

TEST(Solver, InconsistentAssumptionsAreAnError) {
  Solver s;
  EXPECT_THROW(ctx(s, {"n < 0"}), InconsistentAssumptions);
  EXPECT_THROW(ctx(s, {"n >= 3", "n <= 2"}), InconsistentAssumptions);
  EXPECT_THROW(ctx(s, {"n % 2 == 0", "n % 2 == 1"}), InconsistentAssumptions);
  EXPECT_THROW(ctx(s, {"n / 2 == 1", "n == 3"}), InconsistentAssumptions);
  // The relaxation confines m to [0, 8] (m**2 >= m): each point is tried, none squares to 8.
  EXPECT_THROW(ctx(s, {"m**2 == 8"}), InconsistentAssumptions);
  EXPECT_NO_THROW(ctx(s, {"m**2 == 9"}));
}

TEST(Solver, MonomialsAreOpaqueButSound) {
  Solver s;
  EXPECT_EQ(ask(s, {}, "n*m >= 0").answer, Answer::Proven);
  EXPECT_EQ(ask(s, {}, "n*n >= n").answer, Answer::Proven);
  EXPECT_EQ(ask(s, {}, "n*m == m*n + 1").answer, Answer::Refuted);
  Decision d = ask(s, {}, "n*m == 6");
  ASSERT_EQ(d.answer, Answer::Depends);
  EXPECT_TRUE(holds(parsePred("n*m == 6"), *d.satisfying));
  // (n - m)**2 >= 0 needs the algebra of products: never guessed.
  Decision u = ask(s, {}, "n**2 + m**2 >= 2*n*m");
  EXPECT_TRUE(u.answer == Answer::Unknown || u.answer == Answer::Proven);
  EXPECT_NE(u.answer, Answer::Refuted);
  Decision half = ask(s, {"n >= 2"}, "(n*(n-1))/2 >= 1");
  EXPECT_NE(half.answer, Answer::Refuted);
}

// Found by fuzz_einsum: `(82**40 - n - T0*i7ij,)` was unknown (a product of sizes is opaque to
// isl, and the relaxation let it take any value), though the dimension exceeds 2**63 - 1 at every
// size: T0*i7ij <= (2**63 - 1)**2. Array sizes bound their products: at most M**d (M = 2**63 - 1,
// d the degree), and a product of two at most M times each factor. Property: random products of
// sizes against constants past their reach are refuted or proven, never unknown; within reach
// they depend, with witnesses that are real points.
TEST(Solver, ProductsOfSizesAreBoundedBySizes) {
  Solver s(withoutClock());
  Context c = s.makeContext({});
  auto decide = [&](const std::string &p) { return s.decide(c, parsePred(p)); };
  EXPECT_EQ(decide("82**40 - n - T0*i7ij <= 2**63 - 1").answer, Answer::Refuted);
  EXPECT_EQ(decide("n*m <= (2**63 - 1)**2").answer, Answer::Proven);
  EXPECT_EQ(decide("n != 0 or n*m*k == 0").answer, Answer::Proven);
  EXPECT_EQ(decide("n*m == (2**63 - 1)**2").answer, Answer::Depends);
  // Integers (not array sizes) have no such bound.
  Context integers = s.makeContext({}, SizeDomain::Integers);
  EXPECT_NE(s.decide(integers, parsePred("n*m <= (2**63 - 1)**2")).answer, Answer::Proven);
  bool ok = rc::check("products of sizes against constants past their reach", [&] {
    const std::vector<std::string> params = {"n", "m", "k"};
    std::vector<std::string> factors = *rc::gen::resize(4, rc::gen::container<std::vector<std::string>>(
                                                               rc::gen::elementOf(params)));
    RC_PRE(factors.size() >= 2);
    std::string product;
    for (const std::string &f : factors) product += (product.empty() ? "" : "*") + f;
    const std::string reach = "(2**63 - 1)**" + std::to_string(factors.size());
    const int past = *rc::gen::inRange(1, 1000);
    const std::string linear = *rc::gen::element<std::string>("", " + n", " - m", " + 3*k - 7");
    Decision above = decide(product + linear + " >= " + reach + " + 3*(2**63) + " + std::to_string(past));
    RC_ASSERT(above.answer == Answer::Refuted);
    Decision below = decide(product + " <= " + reach);
    RC_ASSERT(below.answer == Answer::Proven);
    const std::string reachable = product + linear + " >= " + std::to_string(past);
    Decision within = decide(reachable);
    RC_ASSERT(within.answer == Answer::Depends);
    RC_ASSERT(holds(parsePred(reachable), *within.satisfying));
    RC_ASSERT(!holds(parsePred(reachable), *within.violating));
  });
  EXPECT_TRUE(ok);
}

// `reshape` of a (15,) array to (n, n) was unknown: n**2 == 15 has no solution, but the solver
// treats n**2 as an opaque atom and found no real point, so it could not tell. A power of a size
// is at least the size, so the relaxation confines n to [0, 15]; where the real parameters are
// confined to a box that small, every point of it is tried. Property: sums of powers of one or
// two sizes equal to a constant are decided exactly as enumeration decides them, never unknown.
TEST(Solver, SmallBoxesOfTheRelaxationAreTriedPointByPoint) {
  Solver s(withoutClock());
  EXPECT_EQ(ask(s, {}, "n*n == 15").answer, Answer::Refuted);
  EXPECT_EQ(ask(s, {}, "n**2 != 15").answer, Answer::Proven);
  EXPECT_EQ(ask(s, {}, "n**2 + m**2 == 3").answer, Answer::Refuted);
  Decision d = ask(s, {}, "n**2 + m**2 == 25 and n >= 1 and m >= 1");
  ASSERT_EQ(d.answer, Answer::Depends);
  EXPECT_TRUE(holds(parsePred("n**2 + m**2 == 25 and n >= 1 and m >= 1"), *d.satisfying));
  // Confined by the envelope of its own box (n, m >= 2 make n*m >= 2*n + 2*m - 4, so n + m <= 5;
  // then n, m <= 3 tighten it again): refuted.
  EXPECT_EQ(ask(s, {}, "n*m == 7 and n >= 2 and m >= 2").answer, Answer::Refuted);
  // Not confined to a small box (n, m up to 500001): only factoring 1000003, a prime, refutes it.
  // Unknown, never guessed.
  EXPECT_EQ(ask(s, {}, "n*m == 1000003 and n >= 2 and m >= 2").answer, Answer::Unknown);
  bool ok = rc::check("powers equal to a constant, against enumeration", [&] {
    const int k = *rc::gen::inRange(2, 4);
    const int c = *rc::gen::inRange(0, 60);
    const bool two = *rc::gen::arbitrary<bool>();
    const bool equal = *rc::gen::arbitrary<bool>();
    const std::string lhs = two ? "n**" + std::to_string(k) + " + m**" + std::to_string(k) : "n**" + std::to_string(k);
    const std::string text = lhs + (equal ? " == " : " != ") + std::to_string(c);
    bool some = false, all = true; // over every point: a power is at least its base, so n, m <= c
    for (int64_t n = 0; n <= c + 1; ++n)
      for (int64_t m = 0; m <= (two ? c + 1 : 0); ++m) {
        int64_t v = 1, w = 1;
        for (int i = 0; i < k; ++i) v *= n, w *= m;
        bool h = (two ? v + w : v) == c;
        if (!equal) h = !h;
        some = some || h;
        all = all && h;
      }
    Decision got = s.decide(s.makeContext({}, SizeDomain::Integers), parsePred(text));
    RC_TAG(spelling(got.answer));
    RC_ASSERT(got.answer == (all ? Answer::Proven : some ? Answer::Depends : Answer::Refuted));
  });
  EXPECT_TRUE(ok);
}

TEST(Solver, QuotaHitIsUnknown) {
  SolverOptions o;
  o.maxOperations = 50;
  Solver s(o);
  Context c = s.makeContext({});
  // Only isl proves it; it stops at the quota.
  Pred proven = parsePred("(a + b) % 2 == (a % 2 + b % 2) % 2");
  Decision d = s.decide(c, proven);
  EXPECT_EQ(d.answer, Answer::Unknown);
  EXPECT_NE(d.reason.find("work bound"), std::string::npos);
  EXPECT_EQ(d.residual, proven);
  EXPECT_GE(s.stats().quotaHits, 1u);
}

// provesQuickly has its own, smaller bound (a rule's condition, a simplification): past it the
// fact is not proven and that is remembered (the bound counts operations, not time, so the
// answer is the same on any machine), while decide() still proves it under the solver's bound.
TEST(Solver, QuickProofsStopAtTheirOwnBound) {
  const Pred onlyIsl = parsePred("(a + b) % 2 == (a % 2 + b % 2) % 2");
  {
    SolverOptions o;
    o.quickMaxOperations = 50;
    Solver s(o);
    Context c = s.makeContext({});
    EXPECT_FALSE(s.provesQuickly(c, onlyIsl));
    EXPECT_EQ(s.stats().quickBoundHits, 1u);
    EXPECT_FALSE(s.provesQuickly(c, onlyIsl)); // remembered: not asked again
    EXPECT_EQ(s.stats().quickBoundHits, 1u);
    EXPECT_EQ(s.decide(c, onlyIsl).answer, Answer::Proven);
    EXPECT_EQ(s.stats().quotaHits, 0u);
    EXPECT_TRUE(s.provesQuickly(c, onlyIsl)); // what decide() proved is read first
    // The solver's bound is isl's again after a quick question.
    EXPECT_FALSE(s.provesQuickly(c, parsePred("(a + b + c) % 3 == (a % 3 + (b + c) % 3) % 3")));
    EXPECT_EQ(s.decide(c, parsePred("(a + b + c) % 3 == (a % 3 + (b + c) % 3) % 3")).answer, Answer::Proven);
  }
  {
    Solver s; // the default quick bound proves it
    EXPECT_GT(s.options().quickMaxOperations, 0u);
    EXPECT_TRUE(s.provesQuickly(s.makeContext({}), onlyIsl));
    EXPECT_EQ(s.stats().quickBoundHits, 0u);
  }
  {
    SolverOptions o; // the solver's bound caps the quick one
    o.maxOperations = 50;
    Solver s(o);
    EXPECT_FALSE(s.provesQuickly(s.makeContext({}), onlyIsl));
    EXPECT_EQ(s.stats().quickBoundHits, 1u);
  }
}

// limitTotalTime bounds all the questions asked after it together (a command's questions):
// past it a question that needs isl is Unknown at once, says why, and is not remembered; once
// the bound is removed the same solver answers it. A "not proven" cut short by the clock is not
// remembered by provesQuickly either.
TEST(Solver, TotalTimeLimitBoundsTheQuestionsTogether) {
  Solver s; // 1 s per question
  Context c = s.makeContext({});
  Pred onlyIsl = parsePred("(a + b) % 2 == (a % 2 + b % 2) % 2");
  s.limitTotalTime(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto start = std::chrono::steady_clock::now();
  Decision late = s.decide(c, onlyIsl);
  EXPECT_EQ(s.stats().unkept, 1u);
  EXPECT_FALSE(s.provesQuickly(c, onlyIsl));
  EXPECT_EQ(s.stats().unkept, 2u); // what a memo built on the solver's answers reads
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
  EXPECT_EQ(late.answer, Answer::Unknown);
  EXPECT_NE(late.reason.find("time limit (1 ms for all the questions together)"), std::string::npos) << late.reason;
  EXPECT_EQ(late.residual, onlyIsl);
  s.limitTotalTime(0);
  EXPECT_EQ(s.decide(c, onlyIsl).answer, Answer::Proven);
  EXPECT_EQ(s.stats().unkept, 2u);
  EXPECT_TRUE(s.provesQuickly(c, parsePred("(a + b) % 2 == (b % 2 + a % 2) % 2")));
  // provesQuickly's own question, first asked past the bound, then after it.
  Pred other = parsePred("(a + b + c) % 3 == (a % 3 + (b + c) % 3) % 3");
  s.limitTotalTime(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_FALSE(s.provesQuickly(c, other));
  s.limitTotalTime(0);
  EXPECT_TRUE(s.provesQuickly(c, other));
}

// Two small points settle Depends without isl; isl computes the condition when it is read, and
// where isl stops the condition is the predicate itself: still exact, never cut short.
TEST(Solver, DependsByPointsReadsItsConditionOnlyWhenAsked) {
  Pred p = parsePred("(a + 2*b + 3*c) % 7 == (5*a + b) % 11 or a // 3 == c % 5");
  {
    SolverOptions o;
    o.maxOperations = 50;
    Solver s(o);
    Decision d = s.decide(s.makeContext({}), p);
    ASSERT_EQ(d.answer, Answer::Depends);
    EXPECT_EQ(s.stats().islQuestions, 0u);
    EXPECT_EQ(s.stats().conditionsRead, 0u);
    EXPECT_EQ(d.condition(), p);
    EXPECT_EQ(s.stats().conditionsRead, 1u);
    EXPECT_EQ(s.stats().conditionsCutShort, 1u);
    EXPECT_GE(s.stats().quotaHits, 1u);
  }
  Solver s;
  Context c = ctx(s, {"n >= 1"});
  Decision d = s.decide(c, parsePred("n % 2 == 0 or n == m"));
  ASSERT_EQ(d.answer, Answer::Depends);
  Decision copy = d;
  EXPECT_EQ(s.stats().conditionsRead, 0u);
  EXPECT_EQ(copy.condition().toString(), "n == m or n % 2 == 0");
  EXPECT_EQ(d.condition().toString(), "n == m or n % 2 == 0"); // computed once, for both
  EXPECT_EQ(s.stats().conditionsRead, 1u);
  EXPECT_EQ(s.stats().conditionsCutShort, 0u);
  // Read after its solver is gone: a new solver computes it.
  std::optional<Decision> orphan;
  {
    Solver gone;
    orphan = gone.decide(ctx(gone, {"n >= 1"}), parsePred("n % 3 == 0 or n == m + 1"));
  }
  ASSERT_EQ(orphan->answer, Answer::Depends);
  EXPECT_TRUE(holds(orphan->condition(), *orphan->satisfying));
  EXPECT_FALSE(holds(orphan->condition(), *orphan->violating));
}

// Found by fuzz_solver under load: a quota hit while the condition was read back from isl
// left a walk half done, and Depends came with the condition True. Every quota from a handful
// of operations up: the answer is Unknown, or right at every point of a small box (the
// condition included) — never a half-read condition. In the sanitizer build the sweep also
// checks that a quota hit leaks nothing: a copy of the context set made before a throwing call
// in the same argument list leaked (found by fuzz_solver, only where arguments are evaluated
// left to right), which the last question reaches.
TEST(Solver, AnswerCutShortAtAnyQuotaIsUnknownNeverWrong) {
  // The quotas: a coarse sweep, and every quota around where the reading of the third
  // question's condition runs (2332 operations left it with True before the fix).
  std::vector<unsigned long> quotas;
  for (unsigned long quota = 1; quota < 20000; quota += 1 + quota / 8) quotas.push_back(quota);
  for (unsigned long quota = 2250; quota < 2450; ++quota) quotas.push_back(quota);
  const char *questions[] = {"n % 3 == 1 or m >= n + 2", "n // 2 >= m or m % 4 == 3 and n >= 1",
                             "n == 2*m or n == 3 or m == 5", "(n + m) % 5 == 2 and n != m",
                             // proven only by isl: its violations are built (and cut short) too
                             "(n + m) % 2 == (n % 2 + m % 2) % 2"};
  for (const char *q : questions) {
    Pred p = parsePred(q);
    // Cut short: Unknown, or a Depends whose condition isl could not finish (the predicate
    // itself is then the condition). Answered: isl finished.
    std::size_t cutShort = 0, answered = 0;
    for (unsigned long quota : quotas) {
      SolverOptions o;
      o.maxOperations = quota;
      o.memoize = false;
      Solver s(o);
      Decision d = s.decide(s.makeContext({}), p);
      if (d.answer == Answer::Unknown) {
        ++cutShort;
        continue;
      }
      for (int64_t n = 0; n <= 7; ++n)
        for (int64_t m = 0; m <= 7; ++m) {
          Assignment a{{"m", m}, {"n", n}};
          bool truth = holds(p, a);
          if (d.answer == Answer::Proven) {
            ASSERT_TRUE(truth) << q << " quota " << quota;
          }
          if (d.answer == Answer::Refuted) {
            ASSERT_FALSE(truth) << q << " quota " << quota;
          }
          if (d.answer == Answer::Depends) {
            ASSERT_EQ(holds(d.condition(), a), truth) << q << " quota " << quota << ": " << d.condition().toString();
          }
        }
      ++(s.stats().conditionsCutShort > 0 ? cutShort : answered);
    }
    // Both kinds occur along the sweep: the small quotas stop isl, the large ones do not.
    EXPECT_GT(cutShort, 0u) << q;
    EXPECT_GT(answered, 0u) << q;
  }
}

TEST(Solver, FastPathsAndMemo) {
  Solver s;
  Context c = ctx(s, {"n >= 1", "n <= 10"});
  s.decide(c, parsePred("n + 1 > n"));
  s.decide(c, parsePred("n >= 1"));
  s.decide(c, parsePred("n >= 11"));
  EXPECT_EQ(s.stats().fastPaths, 3u);
  EXPECT_EQ(s.stats().islQuestions, 0u);
  Decision r = s.decide(c, parsePred("n >= 11"));
  EXPECT_EQ(r.answer, Answer::Refuted);
  EXPECT_TRUE(holds(c.assumptions(), *r.violating));
  s.decide(c, parsePred("n % 3 == 1")); // two small points: Depends without isl
  s.decide(c, parsePred("n % 3 == 1"));
  EXPECT_EQ(s.stats().dependsByPoints, 1u);
  s.decide(c, parsePred("n % 6 % 3 == n % 3")); // only isl proves it
  s.decide(c, parsePred("n % 6 % 3 == n % 3"));
  EXPECT_EQ(s.stats().islQuestions, 1u);
  EXPECT_EQ(s.stats().memoHits, 2u);
}

// In a context that is only bounds (a box), an affine comparison whose interval straddles zero
// is not implied, and provesQuickly says so without isl; a context relating parameters still
// goes to isl (which proves n <= m from m == n + 1, where intervals cannot).
TEST(Solver, ProvesQuicklyAnswersBoxContextsWithoutIsl) {
  Solver s;
  Context box = ctx(s, {"n >= 1", "m <= 10"});
  EXPECT_TRUE(box.isBox());
  EXPECT_FALSE(s.provesQuickly(box, parsePred("n <= m")));
  EXPECT_FALSE(s.provesQuickly(box, parsePred("2*n - 3*m + 1 == 0")));
  EXPECT_FALSE(s.provesQuickly(box, parsePred("1 <= m")));
  EXPECT_TRUE(s.provesQuickly(box, parsePred("0 <= n - 1")));
  EXPECT_EQ(s.stats().islQuestions, 0u);
  // != is not decided by the interval (2*n - 1 != 0 holds, though [-1, ...] contains 0).
  EXPECT_TRUE(s.provesQuickly(box, parsePred("2*m - 1 != 0")));
  EXPECT_EQ(s.stats().islQuestions, 1u);
  Context related = ctx(s, {"m == n + 1"});
  EXPECT_FALSE(related.isBox());
  EXPECT_TRUE(s.provesQuickly(related, parsePred("n <= m")));
  EXPECT_EQ(s.stats().islQuestions, 2u);
  EXPECT_FALSE(ctx(s, {"n != 3"}).isBox());
  EXPECT_TRUE(s.makeContext({}).isBox());
}

// Interval bounds prove what they can without isl (min(1, n) >= 0), and a point found by
// evaluation says "not implied" without isl ((-m + min(m, n) + 1) // 2 >= 0 fails at m = 2,
// n = 0); what neither settles still goes to isl.
TEST(Solver, RangesAndSmallPointsAnswerWithoutIsl) {
  Solver s;
  Context none = s.makeContext({});
  EXPECT_TRUE(s.provesQuickly(none, parsePred("min(1, n) >= 0")));
  EXPECT_TRUE(s.provesQuickly(none, parsePred("not (n % 3 > 2)")));
  EXPECT_TRUE(s.provesQuickly(none, parsePred("m*(n // 4) + 1 > 0")));
  EXPECT_EQ(s.stats().ranges, 3u);
  EXPECT_FALSE(s.provesQuickly(none, parsePred("(-m + min(m, n) + 1) // 2 >= 0")));
  EXPECT_FALSE(s.provesQuickly(none, parsePred("-min(2, n) + max(0, n - 1) >= 0")));
  EXPECT_FALSE(s.provesQuickly(none, parsePred("n/2 >= 0"))); // undefined at n = 1
  EXPECT_EQ(s.stats().evaluated, 3u);
  EXPECT_EQ(s.stats().islQuestions, 0u);
  // The rest of a sum moved into a min: n - min(2, n) is max(n - 2, 0), so it is >= 0 (the
  // plain interval, n against itself, says only >= -2).
  EXPECT_TRUE(s.provesQuickly(none, parsePred("n - min(2, n) >= 0")));
  EXPECT_TRUE(s.provesQuickly(none, parsePred("3 - max(n, 3) + n >= 0")));
  EXPECT_EQ(s.stats().ranges, 5u);
  // Correlated through a floor: intervals cannot see n - 2*(n // 2) >= 0 and no small point
  // fails it; isl proves it.
  EXPECT_TRUE(s.provesQuickly(none, parsePred("n - 2*(n // 2) >= 0")));
  EXPECT_EQ(s.stats().islQuestions, 1u);
  // decide() takes the interval proof too.
  Context bounded = ctx(s, {"n <= 10", "m <= 4"});
  Decision d = s.decide(bounded, parsePred("4*n*(n // 2)*m <= 800"));
  EXPECT_EQ(d.answer, Answer::Proven);
  EXPECT_EQ(s.stats().ranges, 6u);
  // And the refutation of what no small point satisfies and intervals prove false everywhere:
  // obligations of a program that cannot hold together (where m >= 1, -m + min(1, ...) is at
  // most 0), which went to isl when they held no product.
  const uint64_t isl = s.stats().islQuestions;
  // The last three need a cut at n = 0: on n <= 1, n*max(0, 1 - n) has intervals [0, 1]*[0, 1],
  // and only n = 0 and n = 1 apart give 0 (obligations from the benchmark's random programs).
  for (const char *never : {"-m + min(1, max(0, n - 1)) >= 1 and m >= 1", "n >= 1 and -n + 1 >= 1",
                            "(a + b + c + d + 1)**8 == 0", "n*max(0, -n + 1) >= 1",
                            "n*max(0, (-n // 2) + 1) >= 1", "m*n >= 1 and m*max(0, -n + 1) >= 1"}) {
    Decision r = s.decide(none, parsePred(never));
    EXPECT_EQ(r.answer, Answer::Refuted) << never;
    ASSERT_TRUE(r.violating) << never;
    EXPECT_FALSE(holds(parsePred(never), *r.violating)) << never;
  }
  EXPECT_EQ(s.stats().ranges, 12u);
  EXPECT_EQ(s.stats().islQuestions, isl);
}

// Interval bounds never exclude a value: on small boxes, every defined value of a random
// expression (products, floor and exact division, modulo, min, max, choices) lies in its
// range, and a predicate proven by ranges holds at every point.
TEST(Range, BoundsEveryValueOnSmallBoxes) {
  Solver solver;
  bool ok = rc::check("rangeOf contains every value", [&solver] {
    oracle::GenOptions o;
    o.products = true;
    std::vector<long> low = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 3));
    std::vector<long> width = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 4));
    oracle::EP e = *oracle::genExpr(3, o);
    oracle::PP p = *oracle::genPred(1, o);
    Context c = boxContext(solver, low, width);
    Range r = rangeOf(parseExpr(oracle::show(e)), c);
    bool proven = provenByRanges(c, parsePred(oracle::show(p)));
    RC_LOG() << "expression: " << oracle::show(e) << "\npredicate: " << oracle::show(p) << "\nrange "
             << rangeText(r) << "\n";
    forEachPoint(low, width, [&](const std::vector<long> &v) {
      if (auto x = oracle::eval(e, v)) {
        RC_ASSERT(!r.low || *r.low <= Integer(*x));
        RC_ASSERT(!r.high || Integer(*x) <= *r.high);
      }
      if (proven) RC_ASSERT(oracle::eval(p, v) == std::optional<bool>(true));
    });
    RC_TAG(proven ? "proven" : "not proven");
  });
  EXPECT_TRUE(ok);
}

// Element-count checks of sliced shapes (`max(1, m*max(0, 1 - n))*max(1, 0 if n - 1 < 0 else
// (n - 1) // 2) <= 2**63 - 1`) hold at every size, but their factors' intervals lose that one
// of them is 1 on each side of n = 1, and isl answered them by splitting the factors case by case
// (1-2 ms each, a dozen per 10^4-statement program). Cut at that breakpoint, intervals prove them
// (provenByRangesCut). Property: on small boxes, a product of random expressions (min, max,
// choices, quotients) proven by cuts holds at every point.
TEST(Range, CutsAtBreakpointsProveOnlyWhatHolds) {
  Solver solver(withoutClock());
  Context sizes = solver.makeContext({});
  const Pred zero = parsePred("m*max(0, 1 - n)*(0 if n - 1 < 0 else n) <= 0");
  EXPECT_FALSE(provenByRanges(sizes, zero));
  EXPECT_TRUE(provenByRangesCut(sizes, zero));
  const Pred count = parsePred("max(1, m*max(0, -n + 1))*max(1, 0 if n - 1 < 0 else min(n - 1, max(0, (n - 1) // 2)))"
                               " <= 2**63 - 1");
  EXPECT_FALSE(provenByRanges(sizes, count));
  EXPECT_TRUE(provenByRangesCut(sizes, count));
  // In the integers the first factor is unbounded at n = 0: not proven.
  EXPECT_FALSE(provenByRangesCut(solver.makeContext({}, SizeDomain::Integers), count));
  uint64_t isl = solver.stats().islQuestions;
  EXPECT_EQ(solver.decide(sizes, count).answer, Answer::Proven);
  EXPECT_EQ(solver.stats().islQuestions, isl);
  // Obligations that cannot hold together (n >= 1 on one axis, m*max(0, 1 - n) >= 1 on
  // another) are refuted the same way, with a real violating point.
  const Pred never = parsePred("n >= 1 and m >= 1 and m*max(0, 1 - n) >= 1");
  Decision refuted = solver.decide(sizes, never);
  EXPECT_EQ(refuted.answer, Answer::Refuted);
  ASSERT_TRUE(refuted.violating);
  EXPECT_FALSE(holds(never, *refuted.violating));
  EXPECT_EQ(solver.stats().islQuestions, isl);
  // n*max(0, 2 - n)*max(0, m - 3)*min(1, 3 - m) is never positive: cut at m = 3, the third
  // factor is 0 on one side and the last one at most 0 on the other. Without the last factor
  // it is 1 at n = 1, m = 4: no cut may prove it.
  EXPECT_TRUE(provenByRangesCut(sizes, parsePred("n*max(0, 2 - n)*max(0, m - 3)*min(1, 3 - m) <= 0")));
  EXPECT_FALSE(provenByRangesCut(sizes, parsePred("n*max(0, 2 - n)*max(0, m - 3) <= 0")));
  // A slice's element count from the 10^4-statement program: 0 at n = 0 and from n = 2 on, m at
  // n = 1. It takes a cut at n - 1 < 0 and, on its side n >= 1, one after n = 1. In every box
  // below the first cut the choice's condition is decided already; that side of the choice
  // once narrowed the box to itself, spending the walk's budget on a copy, and the second cut
  // found none left (the answer was unknown, after isl).
  const Pred sliced = parsePred("m*n*max(0, min(1, n) - (0 if n - 1 < 0 else n - 1)) <= 2**63 - 1");
  EXPECT_FALSE(provenByRanges(sizes, sliced));
  EXPECT_TRUE(provenByRangesCut(sizes, sliced));
  isl = solver.stats().islQuestions;
  EXPECT_EQ(solver.decide(sizes, sliced).answer, Answer::Proven);
  EXPECT_EQ(solver.stats().islQuestions, isl);
  // Past 2**63 - 1 it fails at n = 1 (m = 2**63 - 1 and the bound one less): not proven.
  EXPECT_FALSE(provenByRangesCut(sizes, parsePred("m*n*max(0, min(1, n) - (0 if n - 1 < 0 else n - 1)) <= 2**63 - 2")));
  // The same count as a factor beside max(1, 1 - m): one cut after n = 1 proves it, but it
  // comes after five others, and walking both sides of those spent a budget shared by all the
  // cuts; each cut alone now has a budget of its own. Against 2**63 - 2 it fails as above.
  const Pred beside = parsePred("max(1, m*n*max(0, min(1, n) - (0 if n - 1 < 0 else n - 1)))*max(1, -m + 1)"
                                " <= 2**63 - 1");
  EXPECT_TRUE(provenByRangesCut(sizes, beside));
  EXPECT_FALSE(provenByRangesCut(
      sizes, parsePred("max(1, m*n*max(0, min(1, n) - (0 if n - 1 < 0 else n - 1)))*max(1, -m + 1) <= 2**63 - 2")));
  // Factors that change form at a size: x, k - x, max(0, k - x), max(0, x - k), min(k, x),
  // min(1, k - x), a constant, or a choice on x - k < 0 (or == 0) between two of those. Their
  // products are where intervals lose the correlation and a cut may win it back.
  using oracle::E;
  std::function<rc::Gen<oracle::EP>(int)> factor = [&](int depth) -> rc::Gen<oracle::EP> {
    return rc::gen::exec([depth, &factor] {
      // Mostly the first name: factors that change form at the same size are the ones whose
      // intervals lose their correlation.
      const oracle::EP x = oracleVariable(*rc::gen::element(0, 0, 0, 1, 2));
      const oracle::EP k = oracleConstant(*rc::gen::inRange<long>(0, 6));
      switch (*rc::gen::inRange(0, depth > 0 ? 8 : 7)) {
      case 0: return x;
      case 6: return oracleConstant(*rc::gen::inRange<long>(0, 3));
      case 1: return oracleNode(E::Sub, 0, k, x);
      case 2: return oracleNode(E::Max, 0, oracleConstant(0), oracleNode(E::Sub, 0, k, x));
      case 3: return oracleNode(E::Max, 0, oracleConstant(0), oracleNode(E::Sub, 0, x, k));
      case 4: return oracleNode(E::Min, 0, k, x);
      case 5: return oracleNode(E::Min, 0, oracleConstant(1), oracleNode(E::Sub, 0, k, x));
      default: {
        auto e = std::make_shared<E>(*oracleNode(E::Select, 0, *factor(depth - 1), *factor(depth - 1)));
        // x - k < 0 cuts the box in two; x - k == 0 narrows only its true side.
        e->cond = oracleCompare(*rc::gen::element(2, 2, 0), oracleNode(E::Sub, 0, x, k), oracleConstant(0));
        return oracle::EP(e);
      }
      }
    });
  };
  bool ok = rc::check("cuts prove only what holds", [&solver, &factor] {
    std::vector<long> low = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 3));
    std::vector<long> width = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 9));
    const int count = *rc::gen::inRange(2, 4);
    oracle::EP product = *factor(1);
    for (int i = 1; i < count; ++i) product = oracleNode(E::Mul, 0, product, *factor(1));
    const long bound = *rc::gen::inRange<long>(-1, 3); // near 0: where one factor vanishing decides
    const int op = *rc::gen::element(3, 5); // <= or >=
    auto cmp = oracleCompare(op, product, oracleConstant(bound));
    const std::string text = oracle::show(oracle::PP(cmp));
    Pred p;
    try {
      p = parsePred(text);
    } catch (const InputTooLarge &) {
      RC_DISCARD("beyond the stated size limits");
    }
    Context c = boxContext(solver, low, width);
    const bool plain = provenByRanges(c, p), cut = provenByRangesCut(c, p);
    RC_LOG() << "predicate: " << text << "\n";
    bool everywhere = true;
    forEachPoint(low, width, [&](const std::vector<long> &v) {
      if (oracle::eval(oracle::PP(cmp), v) != std::optional<bool>(true)) everywhere = false;
    });
    if (cut) RC_ASSERT(everywhere);
    RC_TAG(cut ? (plain ? "proven by both" : "proven by cuts only")
               : (everywhere ? "holds, not proven" : "fails somewhere"));
  });
  EXPECT_TRUE(ok);
}

// An atom's bounds are kept with the context and found again by every later walk (Walk::shared):
// bounds must not depend on what was walked before in the same context. Property: an
// expression's range and a predicate's interval proof are the same in a fresh context and in
// one where other expressions (sharing atoms with it, at times) were walked first.
TEST(Range, BoundsDoNotDependOnWhatWasWalkedBefore) {
  bool ok = rc::check("ranges are independent of the walks before", [] {
    using oracle::E;
    oracle::GenOptions o;
    o.products = true;
    std::vector<long> low = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 3));
    std::vector<long> width = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 4));
    // e is built from pieces, which the other context walks first, alone and inside sums (where
    // the walk meeting their atoms has spent part of its budget).
    const int count = *rc::gen::inRange(2, 5);
    std::vector<oracle::EP> pieces = *rc::gen::container<std::vector<oracle::EP>>(std::size_t(count), oracle::genExpr(3, o));
    oracle::EP e = pieces[0];
    for (std::size_t i = 1; i < pieces.size(); ++i)
      e = oracleNode(*rc::gen::element(E::Add, E::Sub, E::Min, E::Max), 0, e, pieces[i]);
    oracle::PP p = *oracle::genPred(2, o);
    Solver fresh, used;
    Context a = boxContext(fresh, low, width), b = boxContext(used, low, width);
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      Expr x = parseExpr(oracle::show(pieces[i])), y = parseExpr(oracle::show(pieces[(i + 1) % pieces.size()]));
      (void)rangeOf(x + y, b);
      (void)provenByRanges(b, ge(x - y, 0));
      (void)rangeOf(x, b);
    }
    Expr ee = parseExpr(oracle::show(e));
    Pred pp = parsePred(oracle::show(p));
    RC_LOG() << "expression: " << oracle::show(e) << "\npredicate: " << oracle::show(p) << "\n";
    RC_ASSERT(rangeText(rangeOf(ee, a)) == rangeText(rangeOf(ee, b)));
    RC_ASSERT(provenByRanges(a, pp) == provenByRanges(b, pp));
  });
  EXPECT_TRUE(ok);
}

// Found by fuzz_shape (a 10-second timeout under ASan, 1 s natively, on the 62-byte shape
// '(0,mZZZZ77/111*F2-S2*0,mZZZZ1*2**7071/171/171771/71/171/17167)'): bounding the element count
// max(1, F)*max(1, k*2**70/171/...) moved terms into the chained exact divisions, each move made
// atoms the expression did not have (guards of divisions that cancel out, quotients of
// quotients), and each such atom had a walk of its own with a full budget, which made more:
// 84 walks at two divisions, 1,096 at three, 8,892 at five. Atoms met inside a move are now walked
// under the moving walk's budget, so a question's walks grow with the atoms it has.
TEST(Range, WalksGrowWithTheExpressionsAtomsNotWithWhatMovesMake) {
  const char *divisors[] = {"171", "171771", "71", "171", "17167", "17167", "1719", "13"};
  std::string dim = "k*2**70";
  for (int k = 1; k <= 8; ++k) {
    dim += std::string("/") + divisors[k - 1];
    Solver solver;
    Context c = solver.makeContext({});
    Pred count = parsePred("max(1, F)*max(1, " + dim + ") <= 9223372036854775807");
    const uint64_t before = rangeWalksMade();
    (void)provenByRangesCut(c, count);
    (void)rangeOf(parseExpr("max(1, F)*max(1, " + dim + ")"), c);
    // A walk of the context's box, one per atom (k quotients, two maxes) and a few narrowed
    // boxes: 3 to 5 walks here; 86 at k = 2 and 13,430 from k = 6 on when moves made walks.
    EXPECT_LE(rangeWalksMade() - before, uint64_t(4 * (k + 2))) << dim;
  }
}

namespace {
/// The distinct atoms of `e` (min, max, choice, quotient, remainder), its DAG walked once.
std::size_t atomCount(const Expr &e) {
  std::vector<const ExprNode *> stack{e.node()}, seen;
  std::size_t atoms = 0;
  while (!stack.empty()) {
    const ExprNode *x = stack.back();
    stack.pop_back();
    if (std::find(seen.begin(), seen.end(), x) != seen.end()) continue;
    seen.push_back(x);
    switch (x->kind) {
    case ExprKind::Min: case ExprKind::Max: case ExprKind::Select: case ExprKind::FloorDiv:
    case ExprKind::ExactDiv: case ExprKind::Mod: ++atoms; break;
    default: break;
    }
    for (const Term &t : x->terms)
      for (const auto &factor : t.monomial) stack.push_back(factor.first.node());
    for (const Expr &o : x->operands) stack.push_back(o.node());
  }
  return atoms;
}
} // namespace

// The class of the timeout above: chains of exact and floor divisions of a product with a large
// coefficient, beside a random expression, asked as an element count is (each dim's max(1, d)
// multiplied, at most 2**63 - 1). A question walks the context's box a few times (uncut, then
// at each of up to twelve cuts, then the cuts together; rangeOf once more), each atom once in a
// walk of its own, and each of these walks narrows at most a budget's worth (64) of boxes: so
// at most 65 walks per atom and per top-level walk. With the old rule (every atom a move made walked on its own) 3 divisions
// already made 1,098 walks.
TEST(Range, AQuestionsWalksStayWithinABudgetPerAtom) {
  bool ok = rc::check("walks per atom", [] {
    const int k = *rc::gen::inRange(1, 8);
    std::string chain = "x*" + std::to_string(*rc::gen::inRange<long>(2, 1L << 30)) + "**" +
                        std::to_string(*rc::gen::inRange(1, 40));
    for (int i = 0; i < k; ++i)
      chain += (*rc::gen::arbitrary<bool>() ? " / " : " // ") + std::to_string(*rc::gen::inRange<long>(2, 200000));
    oracle::GenOptions o;
    o.products = true;
    const std::string text = "max(1, " + oracle::show(*oracle::genExpr(2, o)) + ")*max(1, " + chain + ")";
    RC_LOG() << text << "\n";
    Expr e;
    try {
      e = parseExpr(text);
    } catch (const UserError &) {
      RC_DISCARD("too large to write out");
    }
    Solver solver;
    Context c = solver.makeContext({});
    const uint64_t before = rangeWalksMade();
    (void)provenByRangesCut(c, le(e, Expr(Integer::parse("9223372036854775807"))));
    (void)rangeOf(e, c);
    const uint64_t walks = rangeWalksMade() - before;
    RC_TAG(walks > 20 ? "over 20 walks" : "20 walks or fewer");
    RC_ASSERT(walks <= 65 * (atomCount(e) + 15));
  });
  EXPECT_TRUE(ok);
}

// A sum whose terms share a parameter is also bounded as that parameter times the rest:
// m*n - n is n*(m - 1), at least 0 under m >= 1 (the plain intervals of m*n and -n say nothing),
// so n <= m*n is proven by intervals, without isl. Property: sums of terms each holding the
// shared factor contain every value on small boxes.
TEST(Range, SumsWithASharedFactorAreBoundedFactoredOut) {
  Solver solver;
  Context c = solver.makeContext({parsePred("m >= 1")});
  Range r = rangeOf(parseExpr("m*n - n"), c);
  ASSERT_TRUE(r.low);
  EXPECT_EQ(*r.low, Integer(0));
  EXPECT_TRUE(provenByRanges(c, parsePred("n <= m*n")));
  EXPECT_FALSE(provenByRanges(solver.makeContext({}), parsePred("n <= m*n")));
  using oracle::E;
  bool ok = rc::check("factored bounds contain every value", [&solver] {
    std::vector<long> low = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 3));
    std::vector<long> width = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 4));
    const int shared = *rc::gen::inRange(0, 3);
    auto variable = oracleVariable;
    oracle::GenOptions o;
    o.products = true;
    oracle::EP e;
    const int terms = *rc::gen::inRange(2, 4);
    for (int i = 0; i < terms; ++i) {
      oracle::EP rest = *rc::gen::arbitrary<bool>() ? variable(*rc::gen::inRange(0, 3)) : *oracle::genExpr(2, o);
      oracle::EP term = oracleNode(E::MulConst, *rc::gen::element<long>(1, -1, 2, -3),
                                   oracleNode(E::Mul, 0, variable(shared), rest), nullptr);
      e = e ? oracleNode(E::Add, 0, e, term) : term;
    }
    // A constant term too, at times: the rest of the sum is factored with the constant aside.
    if (*rc::gen::arbitrary<bool>()) e = oracleNode(E::Add, 0, e, oracleConstant(*rc::gen::inRange<long>(-3, 4)));
    Context c = boxContext(solver, low, width);
    Range r = rangeOf(parseExpr(oracle::show(e)), c);
    RC_LOG() << "expression: " << oracle::show(e) << "\nrange " << rangeText(r) << "\n";
    forEachPoint(low, width, [&](const std::vector<long> &v) {
      if (auto x = oracle::eval(e, v)) {
        RC_ASSERT(!r.low || *r.low <= Integer(*x));
        RC_ASSERT(!r.high || Integer(*x) <= *r.high);
      }
    });
  });
  EXPECT_TRUE(ok);
}

// The quotient of a sum by its shared parameter is bounded as a sum of its own, its choices and
// minima distributed (Walk::distributed): a slice's length times another size, or a size times
// a clipped bound, was asked of isl before, where the quotient's plain terms said nothing.
TEST(Range, AQuotientByASharedParameterIsBoundedAsASum) {
  Solver solver;
  Context sizes = solver.makeContext({});
  Range r = rangeOf(parseExpr("m*n - m*(0 if n - 1 < 0 else n - 1)"), sizes);
  ASSERT_TRUE(r.low && r.high);
  EXPECT_EQ(*r.low, Integer(0));
  EXPECT_EQ(*r.high, maxArraySize());
  for (const char *p : {"n**2 - n*min(m, n) >= 0", "n**2 - n*min(1, n - 1) - n >= 0",
                        "m*max(0, n - 1) - m*(0 if n - 1 < 0 else n - 1) == 0",
                        "m*n - m*(0 if n - 1 < 0 else n - 1) <= 9223372036854775807"})
    EXPECT_TRUE(provenByRanges(sizes, parsePred(p))) << p;
  // Bounds that do not hold are not proven: the quotient n - min(m, n) is 0 where m >= n.
  EXPECT_FALSE(provenByRanges(sizes, parsePred("n**2 - n*min(m, n) >= 1")));
}

// A choice's side is narrowed by every part of a condition that holds (a conjunction) or fails
// (a disjunction), and `n != 0` moves n's low end: isl writes a compacted size as a chain of
// such choices, and its size obligation (at least 0) is then settled by intervals.
TEST(Range, ChoicesAreNarrowedByEveryPartOfTheirCondition) {
  Solver solver;
  Context sizes = solver.makeContext({});
  Range r = rangeOf(parseExpr("1 if n >= 3 and n >= m + 2 else 0 if n >= 2 and m + 1 >= n or n == 0 else n - 1"), sizes);
  ASSERT_TRUE(r.low);
  EXPECT_EQ(*r.low, Integer(0));
  EXPECT_TRUE(provenByRanges(sizes, parsePred("(n - 1 if n != 0 else 5) >= 0")));
  EXPECT_TRUE(provenByRanges(sizes, parsePred("(n + m - 2 if n >= 1 and m >= 1 else 0) >= 0")));
  EXPECT_TRUE(provenByRanges(sizes, parsePred("(0 if n <= 0 or m <= 2 else m - 3) >= 0")));
  EXPECT_FALSE(provenByRanges(sizes, parsePred("(0 if n <= 0 or m <= 2 else m - 4) >= 0")));
  auto pin = pinnedParameter(sizes, parsePred("m >= 1 and n <= 0"), true);
  ASSERT_TRUE(pin);
  EXPECT_EQ(pin->first, "n");
  EXPECT_EQ(pin->second, Integer(0));
}

// rangeOf remembers its answers per context. A context that has answered many questions (its
// memo warm, expressions made and dropped between them, so a freed node's address can come
// back as another's) gives the same range as a new context with the same assumptions.
TEST(Range, RememberedRangesAreTheRanges) {
  Solver solver;
  Context warm = solver.makeContext({parsePred("a >= 1"), parsePred("b <= 6"), parsePred("c <= 3")});
  std::vector<Pred> parts = warm.parts();
  bool ok = rc::check("a remembered range equals a fresh one", [&] {
    oracle::GenOptions o;
    o.products = true;
    std::string text = oracle::show(*oracle::genExpr(3, o));
    Range remembered = rangeOf(parseExpr(text), warm);
    Range again = rangeOf(parseExpr(text), warm);
    Range fresh = rangeOf(parseExpr(text), solver.makeContext(parts));
    RC_LOG() << text << ": remembered " << rangeText(remembered) << ", fresh " << rangeText(fresh) << "\n";
    RC_ASSERT(rangeText(remembered) == rangeText(fresh));
    RC_ASSERT(rangeText(again) == rangeText(fresh));
  });
  EXPECT_TRUE(ok);
}

// A choice on one parameter (a*x + k OP 0) narrows that parameter's interval inside each
// branch; on small boxes the narrowed bounds still contain every value, and a branch no point
// takes is left out. (The general property above meets such conditions rarely.)
TEST(Range, ChoicesOnOneParameterNarrowSoundly) {
  Solver solver;
  bool ok = rc::check("narrowed branches contain every value", [&solver] {
    oracle::GenOptions o;
    std::vector<long> low = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 3));
    std::vector<long> width = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 5));
    // The condition: a*x + k OP 0, or a conjunction or disjunction of two or three such parts
    // (on the same parameter or not), each part and the whole negated at times: a branch of a
    // conjunction that holds, or of a disjunction that fails, is narrowed by every part.
    const oracle::PP cond = randomOneParameterCondition();
    oracle::EP then = *oracle::genExpr(2, o), otherwise = *oracle::genExpr(2, o), rest = *oracle::genExpr(1, o);
    // (then if cond else otherwise) - rest, as the oracle's tree.
    auto choice = oracleNode(oracle::E::Select, 0, then, otherwise);
    std::const_pointer_cast<oracle::E>(choice)->cond = cond;
    const oracle::EP whole = oracleNode(oracle::E::Sub, 0, choice, rest);
    const std::string text = oracle::show(whole);
    Range r = rangeOf(parseExpr(text), boxContext(solver, low, width));
    RC_LOG() << text << "\nrange " << rangeText(r) << "\n";
    forEachPoint(low, width, [&](const std::vector<long> &point) {
      auto v = oracle::eval(whole, point);
      if (!v) return;
      RC_ASSERT(!r.low || *r.low <= Integer(*v));
      RC_ASSERT(!r.high || Integer(*v) <= *r.high);
    });
  });
  EXPECT_TRUE(ok);
}

// Choices inside one side of a choice whose condition that choice's condition decides there
// take their side (truthWhere + resolveChoices, as Graph::choose uses them): under -n < 0 with
// n >= 0 (n >= 1), n - 1 < 0 is false. Property: on small boxes, the side resolved this way has
// the value of the side as given (defined at the same points) at every point where the
// enclosing condition has the truth it was resolved for; a condition that says nothing of one
// parameter, or a choice inside it that it does not decide, leaves the side as it was.
TEST(Range, ChoicesDecidedByAnEnclosingConditionKeepTheirValueWhereItHolds) {
  Solver solver;
  {
    Context c = ctx(solver, {"n >= 0"});
    EXPECT_EQ(truthWhere(c, parsePred("-n < 0"), true, parsePred("n - 1 < 0")), std::optional<bool>(false));
    EXPECT_EQ(truthWhere(c, parsePred("-n < 0"), false, parsePred("n - 1 < 0")), std::optional<bool>(true));
    EXPECT_EQ(truthWhere(c, parsePred("-n < 0"), true, parsePred("n - 2 < 0")), std::nullopt);
    const Expr side = parseExpr("min(n - 1, 1 if n - 1 < 0 else m)");
    const Expr resolved = resolveChoices(side, [&](const Pred &p) { return truthWhere(c, parsePred("-n < 0"), true, p); });
    EXPECT_EQ(resolved, parseExpr("min(n - 1, m)")) << resolved.toString();
  }
  bool ok = rc::check("a resolved side keeps its value where it is taken", [&solver] {
    oracle::GenOptions o;
    std::vector<long> low = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 3));
    std::vector<long> width = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 5));
    // The enclosing condition, and the choices' own conditions: comparisons on one parameter,
    // joined by `and` / `or` and negated at times.
    const oracle::PP cond = randomOneParameterCondition();
    // The side: choices on one parameter (one nested in another's branch at times) inside
    // sums, mins and maxes of random expressions.
    auto choice = [&](oracle::EP then, oracle::EP otherwise) {
      auto e = oracleNode(oracle::E::Select, 0, std::move(then), std::move(otherwise));
      std::const_pointer_cast<oracle::E>(e)->cond = randomOneParameterPart();
      return e;
    };
    oracle::EP inner = choice(*oracle::genExpr(1, o), *oracle::genExpr(1, o));
    if (*rc::gen::arbitrary<bool>()) inner = choice(inner, *oracle::genExpr(1, o));
    const std::vector<oracle::E::Kind> joins{oracle::E::Add, oracle::E::Sub, oracle::E::Min, oracle::E::Max};
    const oracle::EP side = oracleNode(*rc::gen::elementOf(joins), 0, inner, *oracle::genExpr(1, o));
    const bool truth = *rc::gen::arbitrary<bool>();
    const Context context = boxContext(solver, low, width);
    const Pred condition = parsePred(oracle::show(cond));
    Expr given;
    try {
      given = parseExpr(oracle::show(side));
    } catch (const InputTooLarge &) {
      RC_DISCARD("beyond the stated size limits");
    }
    const Expr resolved = resolveChoices(given, [&](const Pred &c) -> std::optional<bool> {
      return c.node()->total ? truthWhere(context, condition, truth, c) : std::nullopt;
    });
    RC_LOG() << "where " << condition.toString() << " is " << (truth ? "true" : "false") << ": " << given.toString()
             << "\nresolved: " << resolved.toString() << "\n";
    RC_TAG(resolved == given ? "unchanged" : "resolved");
    forEachPoint(low, width, [&](const std::vector<long> &v) {
      if (oracle::eval(oracle::PP(cond), v) != std::optional<bool>(truth)) return;
      Assignment at;
      for (int i = 0; i < 3; ++i) at.set(oracle::kNames[i], Integer(v[i]));
      RC_ASSERT(evaluate(resolved, at) == evaluate(given, at));
    });
  });
  EXPECT_TRUE(ok);
}

// A disjunction with a part on one parameter (a*x + k OP 0) is proven by ranges where the
// other parts hold in the box narrowed to where that part is false; on small boxes, what is
// proven so holds at every point. (The general property above meets such parts rarely.)
TEST(Range, DisjunctionsNarrowSoundly) {
  Solver solver;
  bool ok = rc::check("a disjunction proven by narrowing holds everywhere", [&solver] {
    oracle::GenOptions o;
    std::vector<long> low = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 3));
    std::vector<long> width = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 5));
    const int x = *rc::gen::inRange(0, 3);
    const long a = *rc::gen::element(-2L, -1L, 1L, 2L);
    const long k = *rc::gen::inRange<long>(-6, 7);
    const int op = *rc::gen::inRange(0, 6);
    const bool negated = *rc::gen::arbitrary<bool>();
    // (a*x + k OP 0) or other, the part negated or not, as the oracle's tree.
    oracle::PP part = oneParameterComparison(x, a, k, op);
    if (negated) part = oracleJunction(oracle::P::Not, part);
    const oracle::PP whole = oracleJunction(oracle::P::Or, part, *oracle::genPred(1, o));
    const std::string text = oracle::show(whole);
    bool proven = provenByRanges(boxContext(solver, low, width), parsePred(text));
    RC_LOG() << text << (proven ? ": proven" : "") << "\n";
    if (proven)
      forEachPoint(low, width, [&](const std::vector<long> &v) {
        RC_ASSERT(oracle::eval(oracle::PP(whole), v) == std::optional<bool>(true));
      });
    RC_TAG(proven ? "proven" : "not proven");
  });
  EXPECT_TRUE(ok);
}

// The property the whole project leans on: on a small box the solver's answer, witnesses and
// condition agree with enumerating every point.
TEST(Solver, AgreesWithBruteForceOnSmallBoxes) {
  // Affine questions must be decided, so the answers are checked and not the clock: no time or
  // memory limit (the operation quota stays), or a loaded machine turns one into Unknown.
  const SolverOptions exact = withoutClock();
  Solver solver(exact);
  Solver quick(exact); // provesQuickly through isl, not through decide()'s memo
  bool ok = rc::check("decide == enumeration", [&solver, &quick] {
    oracle::GenOptions o;
    std::vector<long> bound = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 5));
    bool withExtra = *rc::gen::arbitrary<bool>();
    oracle::PP assumption = *oracle::genPred(0, o);
    oracle::PP pred = *oracle::genPred(2, o);

    std::vector<Pred> assumptions = boxBounds(bound);
    if (withExtra) assumptions.push_back(parsePred(oracle::show(assumption)));
    Pred p = parsePred(oracle::show(pred));
    RC_LOG() << "bounds " << bound[0] << "," << bound[1] << "," << bound[2]
             << (withExtra ? " extra: " + oracle::show(assumption) : std::string()) << "\n"
             << "predicate: " << oracle::show(pred) << "\n";

    long sat = 0, viol = 0, inContext = 0;
    std::vector<std::vector<long>> contextPoints;
    for (long a = 0; a <= bound[0]; ++a)
      for (long b = 0; b <= bound[1]; ++b)
        for (long c = 0; c <= bound[2]; ++c) {
          std::vector<long> v{a, b, c};
          if (withExtra && oracle::eval(assumption, v) != std::optional<bool>(true)) continue;
          ++inContext;
          contextPoints.push_back(v);
          (oracle::eval(pred, v) == std::optional<bool>(true) ? sat : viol)++;
        }
    if (inContext == 0) {
      RC_ASSERT_THROWS_AS(solver.makeContext(assumptions), InconsistentAssumptions);
      return;
    }
    Context c = solver.makeContext(assumptions);
    Decision d = solver.decide(c, p);
    RC_LOG() << "decision: " << d.toString() << "\n";
    RC_TAG(spelling(d.answer));
    RC_ASSERT(d.answer != Answer::Unknown);
    // The quick proof (one emptiness test) is exact on affine questions too.
    RC_ASSERT(quick.provesQuickly(c, p) == (viol == 0));
    auto inCtx = [&](const std::vector<long> &v) {
      for (int i = 0; i < 3; ++i)
        if (v[i] < 0 || v[i] > bound[i]) return false;
      return !withExtra || oracle::eval(assumption, v) == std::optional<bool>(true);
    };
    if (viol == 0) {
      RC_ASSERT(d.answer == Answer::Proven);
    } else if (sat == 0) {
      RC_ASSERT(d.answer == Answer::Refuted);
      RC_ASSERT(d.violating.has_value());
      auto v = at(*d.violating);
      RC_ASSERT(inCtx(v));
      RC_ASSERT(oracle::eval(pred, v) != std::optional<bool>(true));
    } else {
      RC_ASSERT(d.answer == Answer::Depends);
      auto s = at(*d.satisfying), v = at(*d.violating);
      RC_ASSERT(inCtx(s));
      RC_ASSERT(inCtx(v));
      RC_ASSERT(oracle::eval(pred, s) == std::optional<bool>(true));
      RC_ASSERT(oracle::eval(pred, v) != std::optional<bool>(true));
      // The condition is exact on the context.
      for (auto &pt : contextPoints) {
        Assignment asg{{"a", pt[0]}, {"b", pt[1]}, {"c", pt[2]}};
        RC_ASSERT(holds(d.condition(), asg) == (oracle::eval(pred, pt) == std::optional<bool>(true)));
      }
    }
  });
  EXPECT_TRUE(ok);
}

// makeContextNear takes the offered point as the context's sample only where it is a real
// point (in the domain, every assumption true there); elsewhere it is makeContext. Property:
// random assumptions over a box and a random offered point (sometimes negative, sometimes
// leaving a parameter out): the context is refused exactly when the box has no point of the
// assumptions, as makeContext's is; its sample satisfies the assumptions; it is the offered
// point (completed with 0) when that one does; and a question gets the same answer under both
// contexts.
TEST(Solver, AContextMadeNearAPointIsTheContext) {
  Solver solver(withoutClock());
  const std::vector<Pred> nm = {parsePred("n >= 3"), parsePred("m <= n - 2")};
  EXPECT_EQ(solver.makeContextNear(nm, SizeDomain::ArraySizes, Assignment{{"n", 5}, {"m", 2}, {"k", 7}}).samplePoint(),
            (Assignment{{"m", 2}, {"n", 5}}));
  for (const Assignment &wrong : {Assignment{{"n", 1}}, Assignment{{"n", 5}, {"m", -1}}, Assignment{{"n", 4}, {"m", 3}}}) {
    Assignment sample = solver.makeContextNear(nm, SizeDomain::ArraySizes, wrong).samplePoint();
    EXPECT_TRUE(holds(Pred::conjunction(nm), sample)) << sample.toString();
  }
  EXPECT_THROW(solver.makeContextNear({parsePred("n >= 3"), parsePred("n <= 1")}, SizeDomain::ArraySizes, Assignment{{"n", 2}}),
               InconsistentAssumptions);
  bool ok = rc::check("makeContextNear == makeContext", [&solver] {
    oracle::GenOptions o;
    std::vector<long> bound = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 5));
    oracle::PP assumption = *oracle::genPred(1, o);
    oracle::PP pred = *oracle::genPred(1, o);
    std::vector<Pred> assumptions = boxBounds(bound);
    assumptions.push_back(parsePred(oracle::show(assumption)));
    std::vector<long> offered;
    for (int i = 0; i < 3; ++i) offered.push_back(*rc::gen::inRange<long>(-1, bound[i] + 2));
    const bool leaveOutC = *rc::gen::arbitrary<bool>();
    Assignment point{{"a", offered[0]}, {"b", offered[1]}};
    if (leaveOutC) offered[2] = 0;
    else point.set("c", offered[2]);
    RC_LOG() << "bounds " << bound[0] << "," << bound[1] << "," << bound[2] << " extra: " << oracle::show(assumption)
             << "\npoint: " << point.toString() << "\n";
    bool any = false;
    for (long a = 0; a <= bound[0]; ++a)
      for (long b = 0; b <= bound[1]; ++b)
        for (long c = 0; c <= bound[2]; ++c) any |= oracle::eval(assumption, {a, b, c}) == std::optional<bool>(true);
    if (!any) {
      RC_ASSERT_THROWS_AS(solver.makeContextNear(assumptions, SizeDomain::ArraySizes, point), InconsistentAssumptions);
      return;
    }
    Context near = solver.makeContextNear(assumptions, SizeDomain::ArraySizes, point);
    Context plain = solver.makeContext(assumptions);
    RC_ASSERT(near.consistencyProven());
    std::vector<long> sample = at(near.samplePoint());
    bool real = true;
    for (int i = 0; i < 3; ++i) real &= offered[i] >= 0 && offered[i] <= bound[i];
    real = real && oracle::eval(assumption, offered) == std::optional<bool>(true);
    RC_TAG(real ? "the point offered is real" : "isl's point");
    RC_ASSERT(oracle::eval(assumption, sample) == std::optional<bool>(true));
    for (int i = 0; i < 3; ++i) RC_ASSERT(sample[i] >= 0 && sample[i] <= bound[i]);
    if (real) RC_ASSERT(sample == offered);
    Pred p = parsePred(oracle::show(pred));
    RC_ASSERT(solver.decide(near, p).answer == solver.decide(plain, p).answer);
  });
  EXPECT_TRUE(ok);
}

// A condition read back from isl says nothing that every size satisfies: coalescing n == 0 or
// n == 1 gives 0 <= n <= 1, and its n >= 0 was printed (`n <= 1 and n >= 0`). The property: no
// part of a condition (a conjunct, or a disjunct that is one comparison) is proven where the
// only assumption is that sizes are >= 0, for random predicates under a box, and the condition
// stays exact on the box.
TEST(Solver, ConditionsLeaveOutWhatEverySizeSatisfies) {
  Solver solver;
  const Context sizesOnly = solver.makeContext({});
  {
    Decision d = solver.decide(sizesOnly, parsePred("n == 0 or n == 1"));
    ASSERT_EQ(d.answer, Answer::Depends);
    EXPECT_EQ(d.condition().toString(), "n <= 1");
    Context c = solver.makeContext({parsePred("m <= 5")});
    d = solver.decide(c, parsePred("m == 2 or m == 3 or n == 7"));
    ASSERT_EQ(d.answer, Answer::Depends);
    EXPECT_EQ(d.condition().toString().find(">= 0"), std::string::npos) << d.condition().toString();
    // With a division the condition is read through isl's expression builder, not constraint by
    // constraint: it gave `... or b >= 0 and b <= 1`.
    d = solver.decide(sizesOnly, parsePred("b != a or a <= b % 2"));
    ASSERT_EQ(d.answer, Answer::Depends);
    EXPECT_EQ(d.condition().toString(), "b >= a + 1 or a >= b + 1 or b <= 1");
  }
  bool ok = rc::check("conditions hold no part every size satisfies", [&] {
    oracle::GenOptions o;
    o.exactDivision = *rc::gen::inRange(0, 3) == 0;
    std::vector<long> bound = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(1, 6));
    // Half the time a union of small pieces (a == 1 or a == 2 or b <= 1): the shape of the
    // sets that coalescing merges into one interval, bringing back its end at 0.
    oracle::PP pred;
    if (*rc::gen::arbitrary<bool>()) {
      auto piece = [] {
        const int op = *rc::gen::element(0, 0, 3, 2);
        oracle::EP l = oracleVariable(*rc::gen::inRange(0, 3));
        return oracle::PP(oracleCompare(op, l, oracleConstant(*rc::gen::inRange<long>(0, 4))));
      };
      pred = piece();
      for (int k = *rc::gen::inRange(1, 4); k > 0; --k) pred = oracleJunction(oracle::P::Or, pred, piece());
    } else {
      pred = *oracle::genPred(2, o);
    }
    std::vector<Pred> assumptions = boxBounds(bound);
    Pred p = parsedOrDiscarded(pred);
    Context c = solver.makeContext(assumptions);
    Decision d = solver.decide(c, p);
    RC_TAG(spelling(d.answer));
    if (d.answer != Answer::Depends) return; // no condition to read
    const Pred condition = d.condition();
    RC_LOG() << "condition: " << condition.toString() << "\n";
    std::vector<Pred> parts;
    std::vector<Pred> stack{condition};
    while (!stack.empty()) {
      Pred q = stack.back();
      stack.pop_back();
      if (q.kind() == PredKind::And || q.kind() == PredKind::Or)
        for (const Pred &child : q->children) stack.push_back(child);
      else if (q.kind() == PredKind::Compare)
        parts.push_back(q);
    }
    for (const Pred &part : parts) {
      RC_LOG() << "part: " << part.toString() << "\n";
      RC_ASSERT(solver.decide(sizesOnly, part).answer != Answer::Proven);
    }
    for (long a = 0; a <= bound[0]; ++a)
      for (long b = 0; b <= bound[1]; ++b)
        for (long cc = 0; cc <= bound[2]; ++cc) {
          Assignment asg{{"a", a}, {"b", b}, {"c", cc}};
          RC_ASSERT(holds(condition, asg) == (oracle::eval(pred, {a, b, cc}) == std::optional<bool>(true)));
        }
  });
  EXPECT_TRUE(ok);
}

// Products of parameters (opaque to isl) together with exact division: the class of issue 9's
// first wrong answer. The answer may be Unknown, but whatever is claimed must hold at every point
// of the box, the witnesses must be complete points, and the printed condition, parsed back from
// its text, must agree with the predicate at every point of the context.
TEST(Solver, ProductsWithDivisionAgreeWithBruteForce) {
  Solver solver;
  bool ok = rc::check("decide with products == enumeration", [&solver] {
    oracle::GenOptions o;
    o.products = true;
    std::vector<long> bound = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 5));
    oracle::PP pred = *oracle::genPred(2, o);
    std::vector<Pred> assumptions = boxBounds(bound);
    Pred p = parsedOrDiscarded(pred);
    Context c = solver.makeContext(assumptions);
    Decision d = solver.decide(c, p);
    RC_LOG() << "decision: " << d.toString() << "\n";
    RC_TAG(spelling(d.answer));
    long sat = 0, viol = 0;
    std::vector<std::vector<long>> points;
    for (long a = 0; a <= bound[0]; ++a)
      for (long b = 0; b <= bound[1]; ++b)
        for (long cc = 0; cc <= bound[2]; ++cc) {
          points.push_back({a, b, cc});
          (oracle::eval(pred, points.back()) == std::optional<bool>(true) ? sat : viol)++;
        }
    auto complete = [&](const Assignment &w) {
      for (Expr x : parametersOf(p)) RC_ASSERT(w.find(x.node()->name) != nullptr);
      for (Expr x : c.parameters()) RC_ASSERT(w.find(x.node()->name) != nullptr);
    };
    switch (d.answer) {
    case Answer::Proven: RC_ASSERT(viol == 0); break;
    case Answer::Refuted:
      RC_ASSERT(sat == 0);
      complete(*d.violating);
      RC_ASSERT(oracle::eval(pred, at(*d.violating)) != std::optional<bool>(true));
      break;
    case Answer::Depends: {
      RC_ASSERT(sat > 0 && viol > 0);
      complete(*d.satisfying);
      complete(*d.violating);
      Pred printed = parsePred(d.condition().toString());
      for (auto &pt : points) {
        Assignment asg{{"a", pt[0]}, {"b", pt[1]}, {"c", pt[2]}};
        RC_ASSERT(holds(printed, asg) == (oracle::eval(pred, pt) == std::optional<bool>(true)));
      }
      break;
    }
    case Answer::Unknown:
      RC_ASSERT(d.residual == p);
      break;
    }
  });
  EXPECT_TRUE(ok);
}

// The solver relates a product to the same product with factors raised to max(factor, ...)
// (an array's count n*m and its sizes other than 0 multiplied, max(1, n)*max(1, m)). Questions
// built from such pairs, against enumeration of a box: a proven answer holds at every point, a
// refuted one at none, and a condition is exact.
TEST(Solver, ProductsAndTheirRaisedFormsAgreeWithBruteForce) {
  Solver solver;
  using oracle::E;
  auto node = [](E::Kind kind, long value, oracle::EP a, oracle::EP b) { return oracleNode(kind, value, a, b); };
  auto variable = oracleVariable;
  bool ok = rc::check("products vs raised products == enumeration", [&] {
    oracle::GenOptions o;
    o.exactDivision = false;
    std::size_t count = *rc::gen::inRange<std::size_t>(1, 4);
    if (*rc::gen::inRange(0, 4)) count = 2;
    std::vector<oracle::EP> low, high;
    for (std::size_t i = 0; i < count; ++i) {
      // Often an atom that may be negative (a sum would be multiplied out, and parameters are
      // at least 0): min(x - k, y).
      oracle::EP f = *rc::gen::inRange(0, 4) == 0
                         ? *oracle::genExpr(1, o)
                         : node(E::Min, 0,
                                node(E::Sub, 0, variable(*rc::gen::inRange(0, 3)),
                                     node(E::Const, *rc::gen::inRange<long>(0, 4), nullptr, nullptr)),
                                variable(*rc::gen::inRange(0, 3)));
      low.push_back(f);
      oracle::EP other = *rc::gen::inRange(0, 4) ? node(E::Const, *rc::gen::inRange<long>(-3, 2), nullptr, nullptr)
                                                : *oracle::genExpr(0, o);
      switch (*rc::gen::inRange(0, 3)) {
      case 0: high.push_back(f); break;
      case 1: high.push_back(node(E::Max, 0, f, other)); break;
      default: high.push_back(node(E::Max, 0, other, f)); break;
      }
    }
    std::vector<std::size_t> order(count);
    for (std::size_t i = 0; i < count; ++i) order[i] = i;
    order = *rc::gen::elementOf(std::vector<std::vector<std::size_t>>{order, {order.rbegin(), order.rend()}});
    oracle::EP a = low[0], b = high[order[0]];
    for (std::size_t i = 1; i < count; ++i) {
      a = node(E::Mul, 0, a, low[i]);
      b = node(E::Mul, 0, b, high[order[i]]);
    }
    // Mostly a <= b + k and its negation, the comparisons the fact decides.
    bool plain = *rc::gen::inRange(0, 4) != 0;
    long ka = plain ? 1 : *rc::gen::inRange<long>(1, 4), kb = plain ? 1 : *rc::gen::inRange<long>(1, 4);
    long k = *rc::gen::inRange<long>(-3, 4);
    const int op = plain ? *rc::gen::element(3, 4) : *rc::gen::inRange(0, 6);
    oracle::PP pred = oracleCompare(op, node(E::MulConst, ka, a, nullptr),
                                    node(E::Add, 0, node(E::MulConst, kb, b, nullptr), node(E::Const, k, nullptr, nullptr)));
    // Asked over every size half of the time (small points are then not the whole question, so
    // the solver's sets decide it), else over a box; either way checked on the box.
    std::vector<long> bound = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 4));
    std::vector<Pred> assumptions;
    if (*rc::gen::arbitrary<bool>()) assumptions = boxBounds(bound);
    Pred p = parsePred(oracle::show(pred));
    RC_LOG() << "predicate: " << oracle::show(pred) << "\n";
    Decision d = solver.decide(solver.makeContext(assumptions), p);
    RC_TAG(spelling(d.answer));
    forEachPoint({0, 0, 0}, bound, [&](const std::vector<long> &pt) {
      std::optional<bool> truth = oracle::eval(pred, pt);
      if (d.answer == Answer::Proven) RC_ASSERT(truth == std::optional<bool>(true));
      if (d.answer == Answer::Refuted) RC_ASSERT(truth != std::optional<bool>(true));
      if (d.answer == Answer::Depends) {
        Assignment asg{{"a", pt[0]}, {"b", pt[1]}, {"c", pt[2]}};
        RC_ASSERT(holds(parsePred(d.condition().toString()), asg) == (truth == std::optional<bool>(true)));
      }
    });
  });
  EXPECT_TRUE(ok);
  // The fact itself: under the raised form's bound, the plain product's bound is proven.
  EXPECT_EQ(ask(solver, {"max(1, a)*max(1, b)*max(1, c) <= 9223372036854775807"}, "a*b*c <= 9223372036854775807").answer,
            Answer::Proven);
  // Not the converse over all integers: at a = 2**63, b = 0 the plain product is 0.
  Decision converse = solver.decide(solver.makeContext({parsePred("a*b <= 9223372036854775807")}, SizeDomain::Integers),
                                    parsePred("max(1, a)*max(1, b) <= 9223372036854775807"));
  EXPECT_TRUE(converse.answer == Answer::Depends || converse.answer == Answer::Unknown) << converse.toString();
  // Over array sizes (each at most 2**63 - 1) it holds: with the maxes split case by case, a
  // case with a factor 1 is the other size's own bound, and the case a, b >= 1 is a*b's.
  EXPECT_EQ(ask(solver, {"a*b <= 9223372036854775807"}, "max(1, a)*max(1, b) <= 9223372036854775807").answer,
            Answer::Proven);
}

// A product of two sizes is an opaque atom to isl: under n >= 1 and m >= 1, `n*m == 0` and
// `n*m >= m` were Unknown, since the relaxation let n*m take any value >= 0. The context set now
// holds each product of two parameters inside the envelope of its factors' box (McCormick):
// x*y >= xl*y + yl*x - xl*yl, and with upper bounds the other three corners.
// Property: products and squares of two sizes, bounded below (and often far above: boxes too
// large to try point by point), compared with enumeration near the box's corners; the envelope's
// own inequalities at the box's bounds are proven, never unknown.
TEST(Solver, ProductsAreBoundedByTheirFactorsBoxes) {
  Solver s(withoutClock());
  EXPECT_EQ(ask(s, {"n >= 1", "m >= 1"}, "n*m == 0").answer, Answer::Refuted);
  EXPECT_EQ(ask(s, {"n >= 1"}, "n*m >= m").answer, Answer::Proven);
  EXPECT_EQ(ask(s, {"n >= 1", "m >= 1"}, "n*m >= n + m - 1").answer, Answer::Proven);
  EXPECT_EQ(ask(s, {"n >= 2"}, "n*m >= 2*m").answer, Answer::Proven);
  EXPECT_EQ(ask(s, {"n >= 3"}, "n**2 >= 3*n").answer, Answer::Proven);
  EXPECT_EQ(ask(s, {"n >= 1", "n <= 5000"}, "n**2 <= 5001*n - 5000").answer, Answer::Proven);
  EXPECT_EQ(ask(s, {"n <= 1000", "m <= 2000"}, "n*m <= 2000000").answer, Answer::Proven);
  Decision edge = ask(s, {"n <= 1000", "m <= 2000"}, "n*m <= 1999999");
  ASSERT_EQ(edge.answer, Answer::Depends) << edge.toString();
  EXPECT_FALSE(holds(parsePred("n*m <= 1999999"), *edge.violating));
  EXPECT_THROW(s.makeContext({parsePred("n >= 1"), parsePred("m >= 1"), parsePred("n*m == 0")}),
               InconsistentAssumptions);
  using oracle::E;
  auto node = [](E::Kind kind, long value, oracle::EP a, oracle::EP b) { return oracleNode(kind, value, a, b); };
  auto variable = oracleVariable;
  auto constant = oracleConstant;
  bool ok = rc::check("products of two sizes in a box == enumeration", [&] {
    const bool square = *rc::gen::inRange(0, 4) == 0;
    const std::vector<long> low = {*rc::gen::inRange<long>(0, 6), *rc::gen::inRange<long>(0, 6)};
    std::vector<std::optional<long>> high(2);
    for (int i = 0; i < 2; ++i)
      if (*rc::gen::arbitrary<bool>()) high[i] = low[i] + *rc::gen::element<long>(0, 1, 5, 5000, 100000);
    std::vector<Pred> assumptions;
    for (int i = 0; i < 2; ++i) {
      const std::string name = oracle::kNames[i];
      assumptions.push_back(parsePred(name + " >= " + std::to_string(low[i])));
      if (high[i]) assumptions.push_back(parsePred(name + " <= " + std::to_string(*high[i])));
    }
    const int y = square ? 0 : 1;
    // c1*x*y + c2*x + c3*y + k OP 0
    const long c1 = *rc::gen::element<long>(1, -1, 2), c2 = *rc::gen::inRange<long>(-6, 7),
               c3 = *rc::gen::inRange<long>(-6, 7), k = *rc::gen::inRange<long>(-40, 41);
    oracle::EP lhs = node(E::Add, 0,
                          node(E::Add, 0, node(E::MulConst, c1, node(E::Mul, 0, variable(0), variable(y)), nullptr),
                               node(E::MulConst, c2, variable(0), nullptr)),
                          node(E::Add, 0, node(E::MulConst, c3, variable(1), nullptr), constant(k)));
    const oracle::PP pred = oracleCompare(*rc::gen::inRange(0, 6), lhs, constant(0));
    const Pred p = parsedOrDiscarded(pred);
    Context c = s.makeContext(assumptions);
    Decision d = s.decide(c, p);
    RC_LOG() << "decision: " << d.toString() << "\n";
    RC_TAG(spelling(d.answer));
    const std::optional<Pred> printed = checkedWitnesses(d, Pred::conjunction(assumptions), p);
    // Each size near its lower bound, and near its upper bound when it has one.
    std::vector<std::vector<long>> values(2);
    for (int i = 0; i < 2; ++i)
      for (long v = 0; v <= 6; ++v) {
        values[i].push_back(low[i] + v);
        if (high[i]) values[i].push_back(std::max(low[i], *high[i] - v));
      }
    for (long a : values[0])
      for (long b : values[1]) {
        if ((high[0] && a > *high[0]) || (high[1] && b > *high[1])) continue;
        const bool truth = oracle::eval(pred, {a, b, 0}) == std::optional<bool>(true);
        if (d.answer == Answer::Proven) RC_ASSERT(truth);
        if (d.answer == Answer::Refuted) RC_ASSERT(!truth);
        if (printed) RC_ASSERT(holds(*printed, Assignment{{"a", a}, {"b", b}}) == truth);
      }
    // The envelope's own inequalities are decided: proven.
    const long ya = low[y];
    std::string xy = square ? "a**2" : "a*b", yName = square ? "a" : "b";
    RC_ASSERT(s.decide(c, parsePred(xy + " >= " + std::to_string(low[0]) + "*" + yName + " + " +
                                     std::to_string(ya) + "*a - " + std::to_string(low[0] * ya)))
                  .answer == Answer::Proven);
    if (high[0])
      RC_ASSERT(s.decide(c, parsePred(xy + " <= " + std::to_string(*high[0]) + "*" + yName + " + " +
                                       std::to_string(ya) + "*a - " + std::to_string(*high[0] * ya)))
                    .answer == Answer::Proven);
  });
  EXPECT_TRUE(ok);
}

// A random program's arrays gather obligations that each depend but cannot hold together:
// `min(n, m - 1) >= 3` (which needs m >= 4, n >= 3) beside `min(1, m*n) - max(0, m*n - n) >= 1`
// (which needs m*n <= n). With no assumptions, the context's box says nothing of m and n, so
// m*n was free in the relaxation and the conjunction Unknown, after a witness search of 5 to
// 35 ms that could not succeed (ten such conjunctions were a tenth of a 10^5-node benchmark's
// time). The side where the conjunction holds confines its factors itself; the envelope of that
// box refutes it. A split form's cases are enveloped one by one.
// Property: bounds of a and b written plainly or through min/max, with a*b held below its
// envelope at those bounds by `slack` (impossible at slack 0, satisfiable above it), negated at
// times (then proven at slack 0): decided exactly as enumeration on [0, 40]^2 decides, and at
// slack 0 never Unknown.
TEST(Solver, ProductsAreBoundedByTheBoxOfTheQuestionsOwnSide) {
  Solver s(withoutClock());
  EXPECT_EQ(ask(s, {}, "min(1, m*n) - max(0, m*n - n) >= 1 and min(n, m - 1) - 2 >= 1").answer, Answer::Refuted);
  EXPECT_EQ(ask(s, {}, "not (min(1, m*n) - max(0, m*n - n) >= 1 and min(n, m - 1) - 2 >= 1)").answer, Answer::Proven);
  // Cases of a piecewise factor: m*max(0, n - 1) is m*n - m where n >= 1.
  EXPECT_EQ(ask(s, {}, "m*max(0, n - 1) <= 2*n - 2 and m*n >= 2*n + 3 and n >= 2").answer, Answer::Refuted);
  // Satisfiable ones stay so: depends, with real witnesses.
  Decision d = ask(s, {}, "min(1, m*n) - max(0, m*n - n) >= 1 and min(n, m) >= 1");
  ASSERT_EQ(d.answer, Answer::Depends) << d.toString();
  EXPECT_TRUE(holds(parsePred("min(1, m*n) - max(0, m*n - n) >= 1 and min(n, m) >= 1"), *d.satisfying));
  using oracle::E;
  auto node = [](E::Kind kind, long value, oracle::EP a, oracle::EP b) { return oracleNode(kind, value, a, b); };
  auto variable = oracleVariable;
  auto constant = oracleConstant;
  std::map<std::string, int> answers;
  bool ok = rc::check("products bounded by their side's own box == enumeration", [&] {
    const long la = *rc::gen::inRange<long>(1, 7), lb = *rc::gen::inRange<long>(1, 7);
    // x >= low, written as x - low >= 0, min(x, other - d) >= low (other >= low + d too) or
    // max(0, x - low + 1) >= 1.
    auto atLeast = [&](int x, long low) -> oracle::PP {
      switch (*rc::gen::inRange(0, 3)) {
      case 0: return oracleCompare(5, node(E::Add, 0, variable(x), constant(-low)), constant(0));
      case 1: {
        const long d = *rc::gen::inRange<long>(-low, 3);
        return oracleCompare(5, node(E::Min, 0, variable(x), node(E::Add, 0, variable(1 - x), constant(-d))), constant(low));
      }
      default:
        return oracleCompare(5, node(E::Max, 0, constant(0), node(E::Add, 0, variable(x), constant(1 - low))), constant(1));
      }
    };
    // a*b <= lb*a + la*b - la*lb - 1 + slack, i.e. (a - la)*(b - lb) <= slack - 1.
    const long slack = *rc::gen::element<long>(0, 0, 1, 2, 7);
    oracle::EP product = node(E::Mul, 0, variable(0), variable(1));
    oracle::EP envelope = node(E::Add, 0, node(E::Add, 0, node(E::MulConst, lb, variable(0), nullptr), node(E::MulConst, la, variable(1), nullptr)),
                               constant(-la * lb - 1 + slack));
    oracle::PP pred = oracleJunction(oracle::P::And, oracleJunction(oracle::P::And, atLeast(0, la), atLeast(1, lb)),
                                     oracleCompare(3, product, envelope));
    const bool negated = *rc::gen::arbitrary<bool>();
    if (negated) pred = oracleJunction(oracle::P::Not, pred);
    const Pred p = parsedOrDiscarded(pred);
    Context c = s.makeContext({});
    Decision d = s.decide(c, p);
    RC_LOG() << "decision: " << d.toString() << "\n";
    RC_TAG(spelling(d.answer));
    ++answers[spelling(d.answer)];
    const std::optional<Pred> printed = checkedWitnesses(d, Pred::truth(true), p);
    for (long a = 0; a <= 40; ++a)
      for (long b = 0; b <= 40; ++b) {
        const bool truth = oracle::eval(pred, {a, b, 0}) == std::optional<bool>(true);
        if (d.answer == Answer::Proven) RC_ASSERT(truth);
        if (d.answer == Answer::Refuted) RC_ASSERT(!truth);
        if (printed) RC_ASSERT(holds(*printed, Assignment{{"a", a}, {"b", b}}) == truth);
      }
    if (slack == 0) RC_ASSERT(d.answer == (negated ? Answer::Proven : Answer::Refuted));
  });
  EXPECT_TRUE(ok);
  // Every kind of answer was reached.
  EXPECT_GT(answers["refuted"], 0);
  EXPECT_GT(answers["proven"], 0);
  EXPECT_GT(answers["depends"], 0);
}

// `assume d == h*q` (the way to say that h divides d) left a reshape of (b, t, d) to
// (b, t, h, q) Unknown: its element counts b*d*t and b*h*q*t were two unrelated opaque atoms.
// A parameter that an equality of the context defines by the others is now substituted into a
// question with products. Property: contexts `a == rhs(b, c)` and random polynomial questions
// over a, b, c, checked by enumerating b and c (a follows from them).
TEST(Solver, ParametersDefinedByTheContextAreSubstitutedIntoProducts) {
  Solver s(withoutClock());
  EXPECT_EQ(ask(s, {"d == h*q"}, "b*d*t == b*h*q*t").answer, Answer::Proven);
  EXPECT_EQ(ask(s, {"d == h*q"}, "b*d*t != b*h*q*t").answer, Answer::Refuted);
  EXPECT_EQ(ask(s, {"n == m + 1"}, "n*k == m*k + k").answer, Answer::Proven);
  EXPECT_EQ(ask(s, {"m + 1 == n"}, "n**2 == m**2 + 2*m + 1").answer, Answer::Proven);
  Decision d = ask(s, {"n == m + 1"}, "n*k >= 2*m*k");
  ASSERT_EQ(d.answer, Answer::Depends) << d.toString();
  for (const Assignment *w : {&*d.satisfying, &*d.violating}) {
    ASSERT_NE(w->find("n"), nullptr);
    EXPECT_EQ(*w->find("n"), *w->find("m") + Integer(1));
  }
  using oracle::E;
  auto node = [](E::Kind kind, long value, oracle::EP a, oracle::EP b) { return oracleNode(kind, value, a, b); };
  auto variable = oracleVariable;
  auto constant = oracleConstant;
  bool ok = rc::check("parameters defined by an equality of the context == enumeration", [&] {
    // a == rhs(b, c)
    const std::vector<oracle::EP> rhsChoices = {
        node(E::Mul, 0, variable(1), variable(2)),
        node(E::Add, 0, variable(1), variable(2)),
        node(E::Add, 0, node(E::MulConst, 2, node(E::Mul, 0, variable(1), variable(2)), nullptr), constant(1)),
        node(E::Mul, 0, variable(1), variable(1)),
        node(E::Add, 0, node(E::Mul, 0, variable(1), variable(2)), variable(1))};
    const oracle::EP rhs = *rc::gen::elementOf(rhsChoices);
    // Sum of up to three terms k*u*v (u, v among a, b, c, v possibly 1) plus a constant, OP 0.
    auto factor = [&]() { return variable(*rc::gen::inRange(0, 3)); };
    oracle::EP lhs = constant(*rc::gen::inRange<long>(-8, 9));
    const int terms = *rc::gen::inRange(1, 4);
    for (int i = 0; i < terms; ++i) {
      oracle::EP term = *rc::gen::arbitrary<bool>() ? node(E::Mul, 0, factor(), factor()) : factor();
      lhs = node(E::Add, 0, lhs, node(E::MulConst, *rc::gen::element<long>(1, -1, 2, -3), term, nullptr));
    }
    const oracle::PP pred = oracleCompare(*rc::gen::inRange(0, 6), lhs, constant(0));
    const Pred p = parsedOrDiscarded(pred);
    const Pred assumption = parsePred("a == " + oracle::show(rhs));
    Context c = s.makeContext({assumption});
    Decision d = s.decide(c, p);
    RC_LOG() << "context: " << assumption.toString() << "; decision: " << d.toString() << "\n";
    RC_TAG(spelling(d.answer));
    const std::optional<Pred> printed = checkedWitnesses(d, assumption, p);
    for (long b = 0; b <= 6; ++b)
      for (long cc = 0; cc <= 6; ++cc) {
        const long a = *oracle::eval(rhs, {0, b, cc});
        const bool truth = oracle::eval(pred, {a, b, cc}) == std::optional<bool>(true);
        if (d.answer == Answer::Proven) RC_ASSERT(truth);
        if (d.answer == Answer::Refuted) RC_ASSERT(!truth);
        if (printed) RC_ASSERT(holds(*printed, Assignment{{"a", a}, {"b", b}, {"c", cc}}) == truth);
      }
  });
  EXPECT_TRUE(ok);
}

// A product with a min, max or choice as a factor (`m*max(0, n - 1)`, `min(1, n)*max(0, m)`)
// is one opaque atom to isl; where that leaves a question undecided, the solver splits such
// factors case by case. Asked over all array sizes (no box: small-box enumeration would answer
// first) and checked on the box [0, 5]^3: a proven answer holds at every point, a refuted one
// at none, a condition (parsed back from its text) is exact, and witnesses are real points.
TEST(Solver, PiecewiseFactorsOfProductsAgreeWithBruteForce) {
  Solver solver(withoutClock());
  using oracle::E;
  auto node = [](E::Kind kind, long value, oracle::EP a, oracle::EP b) { return oracleNode(kind, value, a, b); };
  std::map<std::string, int> answers;
  bool ok = rc::check("piecewise factors of products == enumeration", [&] {
    oracle::GenOptions o;
    o.exactDivision = *rc::gen::arbitrary<bool>();
    // factor * piecewise (+ rest) OP other
    oracle::EP factor = *oracle::genExpr(*rc::gen::inRange(0, 2), o);
    oracle::EP a = *oracle::genExpr(1, o), b = *oracle::genExpr(1, o);
    oracle::EP piecewise;
    switch (*rc::gen::inRange(0, 3)) {
    case 0: piecewise = node(E::Min, 0, a, b); break;
    case 1: piecewise = node(E::Max, 0, a, b); break;
    default: {
      auto e = std::make_shared<E>();
      e->kind = E::Select;
      e->a = a;
      e->b = b;
      e->cond = *oracle::genPred(0, o);
      piecewise = e;
    }
    }
    oracle::EP lhs = *rc::gen::arbitrary<bool>() ? node(E::Mul, 0, factor, piecewise) : node(E::Mul, 0, piecewise, factor);
    if (*rc::gen::arbitrary<bool>()) lhs = node(E::Add, 0, lhs, *oracle::genExpr(1, o));
    const int op = *rc::gen::inRange(0, 6);
    oracle::PP pred = oracleCompare(op, lhs, *oracle::genExpr(1, o));
    Pred p = parsedOrDiscarded(pred);
    Context c = solver.makeContext({});
    Decision d = solver.decide(c, p);
    RC_LOG() << "decision: " << d.toString() << "\n";
    RC_TAG(spelling(d.answer));
    ++answers[spelling(d.answer)];
    auto real = [&](const Assignment &w, bool truth) {
      for (Expr x : parametersOf(p)) RC_ASSERT(w.find(x.node()->name) != nullptr);
      RC_ASSERT(holds(p, w) == truth);
    };
    if (d.answer == Answer::Refuted) real(*d.violating, false);
    if (d.answer == Answer::Depends) {
      real(*d.satisfying, true);
      real(*d.violating, false);
    }
    std::optional<Pred> printed;
    if (d.answer == Answer::Depends) printed = parsePred(d.condition().toString());
    forEachPoint({0, 0, 0}, {5, 5, 5}, [&](const std::vector<long> &pt) {
      const bool truth = oracle::eval(pred, pt) == std::optional<bool>(true);
      if (d.answer == Answer::Proven) RC_ASSERT(truth);
      if (d.answer == Answer::Refuted) RC_ASSERT(!truth);
      if (printed) RC_ASSERT(holds(*printed, Assignment{{"a", pt[0]}, {"b", pt[1]}, {"c", pt[2]}}) == truth);
    });
  });
  EXPECT_TRUE(ok);
  // Most such questions are decided (an Unknown is allowed, never a wrong answer).
  EXPECT_LT(answers["unknown"] * 4, answers["proven"] + answers["refuted"] + answers["depends"] + answers["unknown"]);
  // Residual checks of random programs, undecided before the split: each is decided now.
  Context sizes = solver.makeContext({parsePred("m*n <= 9223372036854775807")});
  for (const char *q : {"m*n - m*(0 if n - 1 < 0 else n - 1) <= 9223372036854775807",
                        "m*max(0, min(2, n) - min(m, n)) <= 9223372036854775807",
                        "-min(1, n)*max(0, min(1, m) - (max(0, m - n) if -n < 0 else 0)) + "
                        "max(0, min(1, m) - (max(0, m - n) if -n < 0 else 0)) >= 0"})
    EXPECT_EQ(solver.decide(sizes, parsePred(q)).answer, Answer::Proven) << q;
  // Under the bound of the sizes' count, a raised count's bound holds (each max split: a
  // factor 1 leaves the other size's own bound).
  EXPECT_EQ(solver.decide(sizes, parsePred("max(1, m)*max(1, n) <= 9223372036854775807")).answer, Answer::Proven);
}

// compact() rewrites an expression as isl writes its function on the context; the result
// must equal the expression at every point of the context. Checked against the oracle's
// evaluation of the original at every point of a box: the context itself when it is a box,
// else [0, 9]^3 of the sizes' context (with a random relation between two sizes, or none).
TEST(Solver, CompactExpressionsEqualTheOriginalEverywhere) {
  Solver solver;
  bool ok = rc::check("compact(e) == e on the context", [&solver] {
    oracle::GenOptions o;
    o.exactDivision = false; // compact() takes total expressions only
    oracle::EP e = *oracle::genExpr(4, o);
    const bool box = *rc::gen::arbitrary<bool>();
    std::vector<long> low(3, 0), width(3, 9);
    Context c = solver.makeContext({});
    if (box) {
      low = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 4));
      width = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 6));
      c = boxContext(solver, low, width);
    } else if (*rc::gen::arbitrary<bool>()) {
      c = solver.makeContext({parsePred(*rc::gen::element<std::string>("a <= b + 2", "2*a >= c", "b == c + 1"))});
    }
    Expr original = parseExpr(oracle::show(e));
    std::optional<Expr> r = solver.compact(c, original);
    RC_TAG(r ? "compacted" : "kept");
    if (!r) return;
    RC_LOG() << "expression: " << oracle::show(e) << "\ncompact: " << r->toString() << "\n";
    RC_ASSERT(r->node()->treeSize < original.node()->treeSize);
    forEachPoint(low, width, [&](const std::vector<long> &v) {
      Assignment a;
      for (int i = 0; i < 3; ++i) a.set(oracle::kNames[i], Integer(v[i]));
      if (!holds(c.assumptions(), a)) return;
      std::optional<long> want = oracle::eval(e, v);
      RC_ASSERT(want.has_value());
      RC_ASSERT(evaluate(*r, a) == std::optional<Integer>(Integer(*want)));
    });
  });
  EXPECT_TRUE(ok);
  // Each rewriting also agreed with the original at the solver's own small points.
  EXPECT_EQ(solver.stats().compactionsRejected, 0u);
}

// A solver keeps translations from one question to the next (per parameter space). A solver
// that has answered many questions over the same sizes, whose parts come back in later ones,
// answers each question as a new solver does: the same answer and the same condition. Its
// memo of answers is off, so that every question is translated again.
TEST(Solver, KeptTranslationsGiveTheFreshAnswers) {
  // A condition cut short by the clock is the predicate itself, not isl's form of it: only the
  // isl quota, which is the same on every machine, may bound the two solvers (under load, one
  // of 400 cases differed so).
  SolverOptions o = withoutClock();
  o.memoize = false;
  Solver warm(o);
  std::vector<oracle::EP> seen; // earlier expressions come back inside later questions
  bool ok = rc::check("warm solver == fresh solver", [&] {
    oracle::GenOptions g;
    oracle::EP l = *oracle::genExpr(3, g);
    if (!seen.empty() && *rc::gen::arbitrary<bool>()) {
      auto e = std::make_shared<oracle::E>();
      e->kind = *rc::gen::element(oracle::E::Min, oracle::E::Max, oracle::E::Add);
      e->a = seen[*rc::gen::inRange<std::size_t>(0, seen.size())];
      e->b = l;
      l = e;
    }
    seen.push_back(l);
    if (seen.size() > 64) seen.erase(seen.begin());
    const int op = *rc::gen::inRange(0, 6);
    const std::string text = oracle::show(oracle::PP(oracleCompare(op, l, *oracle::genExpr(1, g))));
    const std::vector<Pred> assumptions{parsePred("a <= b + 3")};
    Solver fresh(o);
    Decision w = warm.decide(warm.makeContext(assumptions), parsePred(text));
    Decision f = fresh.decide(fresh.makeContext(assumptions), parsePred(text));
    RC_LOG() << text << ": warm " << spelling(w.answer) << ", fresh " << spelling(f.answer) << "\n";
    // Where one solver runs out of the isl quota (an Unknown at the work bound), the other may
    // still answer (see below). Any other difference in the answer is a fault.
    if (w.answer != f.answer) {
      auto outOfQuota = [](const Decision &d) {
        return d.answer == Answer::Unknown && d.reason.find("work bound") != std::string::npos;
      };
      RC_LOG() << "warm: " << w.reason << "\nfresh: " << f.reason << "\n";
      RC_ASSERT(outOfQuota(w) || outOfQuota(f));
      RC_TAG("one solver out of its quota");
      return;
    }
    if (w.answer == Answer::Depends && w.condition() != f.condition()) {
      // The same quota goes further with kept translations: the warm solver may read the exact
      // condition where the fresh one stops and gives the predicate itself (exact too, only not
      // simplified). Any other difference is a fault; either way the two agree at every point.
      const Pred asked = parsePred(text);
      RC_LOG() << "warm: " << w.condition().toString() << "\nfresh: " << f.condition().toString() << "\n";
      RC_ASSERT(w.condition() == asked || f.condition() == asked);
      forEachPoint({0, 0, 0}, {5, 5, 5}, [&](const std::vector<long> &v) {
        Assignment at{{"a", v[0]}, {"b", v[1]}, {"c", v[2]}};
        if (holds(assumptions[0], at)) RC_ASSERT(holds(w.condition(), at) == holds(f.condition(), at));
      });
      RC_TAG("condition cut short on one side");
    }
    RC_TAG(spelling(w.answer));
  });
  EXPECT_TRUE(ok);
}

// isl stopped partway (its operation bound, or the watchdog's abort, which isl honours at the
// same places) must leave a sound answer and nothing behind. isl's AST generator did not: stopped
// inside it, it freed an expression twice and leaked the rest (see AbortShield in Solver.cpp;
// found by sweeping the bound over the solver fuzz corpus). Property: a random question asked
// under a random small bound answers Unknown, or as the unbounded solver does where that one
// answers, with witnesses in the context that show it; a Depends's condition separates them;
// a compacted expression equals the original at every point of a small box. Leaks are the
// sanitizer build's to find (at exit); the release build's MemoryBalance test counts them.
TEST(Solver, QuestionsStoppedPartwayAnswerSoundly) {
  SolverOptions o = withoutClock();
  Solver full(o), stopped(o);
  int cutShort = 0;
  bool ok = rc::check("a stopped question answers Unknown or the full answer", [&] {
    oracle::GenOptions g;
    oracle::PP p = *oracle::genPred(2, g);
    // Large sizes keep small-box enumeration from answering: isl is asked.
    const std::string assumption = *rc::gen::element<std::string>(
        "", "a <= b + 2", "2*a >= c", "a % 3 == 1", "a >= 1000 and b >= 1000 and c >= 1000");
    // As many small bounds as large ones: 1 to 4095.
    const unsigned long bound = *rc::gen::inRange<unsigned long>(1, 64) << *rc::gen::inRange(0, 7);
    std::vector<Pred> assumptions;
    if (!assumption.empty()) assumptions.push_back(parsePred(assumption));
    const Pred predicate = parsePred(oracle::show(p));
    RC_LOG() << "assumption: " << assumption << "\npredicate: " << oracle::show(p) << "\nbound: " << bound << "\n";
    const Decision want = full.decide(full.makeContext(assumptions, SizeDomain::Integers), predicate);
    stopped.limitOperations(bound);
    const Context c = stopped.makeContext(assumptions, SizeDomain::Integers);
    const Decision got = stopped.decide(c, predicate);
    const uint64_t hits = stopped.stats().quotaHits;
    // Two answers that are not Unknown agree (a step the bound cut short may let a cheaper one
    // answer where the full solver gave up: the witnesses below check such an answer).
    if (got.answer != Answer::Unknown && want.answer != Answer::Unknown) RC_ASSERT(got.answer == want.answer);
    if (got.answer == Answer::Refuted) {
      RC_ASSERT(got.violating.has_value());
      RC_ASSERT(holds(c.assumptions(), *got.violating));
      RC_ASSERT(!holds(predicate, *got.violating));
    }
    if (got.answer == Answer::Depends) {
      RC_ASSERT(holds(c.assumptions(), *got.satisfying));
      RC_ASSERT(holds(c.assumptions(), *got.violating));
      RC_ASSERT(holds(got.condition(), *got.satisfying));
      RC_ASSERT(!holds(got.condition(), *got.violating));
      RC_ASSERT(holds(predicate, *got.satisfying));
      RC_ASSERT(!holds(predicate, *got.violating));
    }
    // Stopped while answering, or while reading the condition back.
    const bool wasStopped = stopped.stats().quotaHits > hits;
    RC_TAG(wasStopped ? "stopped" : "not stopped");
    cutShort += wasStopped;
    oracle::GenOptions total;
    total.exactDivision = false;
    oracle::EP e = *oracle::genExpr(3, total);
    const Expr original = parseExpr(oracle::show(e));
    if (std::optional<Expr> r = stopped.compact(c, original)) {
      forEachPoint({0, 0, 0}, {6, 6, 6}, [&](const std::vector<long> &v) {
        Assignment a;
        for (int i = 0; i < 3; ++i) a.set(oracle::kNames[i], Integer(v[i]));
        if (holds(c.assumptions(), a)) RC_ASSERT(evaluate(*r, a) == evaluate(original, a));
      });
    }
  });
  EXPECT_TRUE(ok);
  EXPECT_GT(cutShort, 0) << "some bound stopped a question";
}
