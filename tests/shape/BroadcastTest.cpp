// Broadcasting: concrete results against NumPy; symbolic results checked point by point.
#include <gtest/gtest.h>
#include <chrono>
#include <thread>
#include <rapidcheck.h>

#include "shape/ArraySize.h"
#include "shape/Broadcast.h"
#include "shape/Validity.h"
#include "symbolic/Parser.h"
#include "tests/shape/OracleData.h"

using namespace shapelab;

namespace {
Context noAssumptions(Solver &s) { return s.makeContext({}); }
/// For properties that assert an answer is decided: the isl-operation quota bounds each question
/// (deterministic), but not the clock or the resident memory, which a sanitizer build and a
/// loaded machine stretch (a 1 s limit made one question Unknown under ASan with both cores busy).
SolverOptions deterministic() {
  SolverOptions o;
  o.timeLimitMs = 0;
  o.memoryLimitBytes = 0;
  return o;
}
} // namespace

TEST(Broadcast, AgreesWithNumpyBroadcastShapes) {
  auto rows = oracle::readRows("numpy_broadcast.tsv");
  ASSERT_GT(rows.size(), 500u);
  Solver solver;
  Context c = noAssumptions(solver);
  for (auto &row : rows) {
    auto shapes = oracle::parseShapes(row[0]);
    for (BroadcastMode mode : {BroadcastMode::Numpy, BroadcastMode::Static}) {
      BroadcastResult r = broadcast(solver, c, shapes, mode);
      if (row[1] == "ok") {
        ASSERT_EQ(r.status(), Status::Valid) << row[0] << ": " << r.message;
        EXPECT_EQ(toString(r.shape), row[2]) << row[0];
      } else {
        ASSERT_EQ(r.status(), Status::Error) << row[0];
        if (row[2].rfind("shape mismatch", 0) == 0) {
          EXPECT_EQ(r.message, row[2]) << row[0];
        }
      }
    }
  }
}

TEST(Broadcast, AgreesWithNumpyBroadcastTo) {
  auto rows = oracle::readRows("numpy_broadcast_to.tsv");
  ASSERT_GT(rows.size(), 200u);
  Solver solver;
  Context c = noAssumptions(solver);
  for (auto &row : rows) {
    BroadcastResult r = broadcastTo(solver, c, parseShape(row[0]), parseShape(row[1]));
    if (row[2] == "ok") {
      EXPECT_EQ(r.status(), Status::Valid) << row[0] << " -> " << row[1] << ": " << r.message;
    } else {
      EXPECT_EQ(r.status(), Status::Error) << row[0] << " -> " << row[1];
      if (row[3] != "iterator is too large") {
        EXPECT_EQ(r.message, row[3]) << row[0] << " -> " << row[1];
      }
    }
  }
}

// Arrays, not just shapes: np.add on int8 arrays of huge, mostly empty shapes
// (scripts/make_numpy_oracle.py). Each operand must exist and so must the result, though it has
// no elements: NumPy multiplies the sizes other than 0. The same rows with sizes made parameters
// (one, or all of an operand's) are checked at the row's values: the symbolic domain holds
// exactly where NumPy adds, and the result evaluates to NumPy's.
TEST(Broadcast, AgreesWithNumpyOnArraysOfHugeShapes) {
  auto rows = oracle::readRows("numpy_array_broadcast.tsv");
  ASSERT_GT(rows.size(), 300u);
  Solver solver(deterministic());
  Context c = noAssumptions(solver);
  std::size_t symbolicChecked = 0, valid = 0;
  for (auto &row : rows) {
    auto shapes = oracle::parseShapes(row[0]);
    ASSERT_EQ(shapes.size(), 2u);
    bool ok = row[1] == "ok";
    valid += ok;
    BroadcastResult r = broadcast(solver, c, shapes);
    ASSERT_EQ(r.status(), ok ? Status::Valid : Status::Error) << row[0] << ": " << r.message;
    if (ok) {
      EXPECT_EQ(toString(r.shape), row[2]) << row[0];
    }
    std::vector<std::vector<std::vector<std::size_t>>> variants{
        {{0}, {}}, {{}, {shapes[1].size() - 1}}, {oracle::allPositions(shapes[0]), {}},
        {oracle::allPositions(shapes[0]), oracle::allPositions(shapes[1])}};
    for (auto &positions : variants) {
      if ((!positions[0].empty() && shapes[0].empty()) || (!positions[1].empty() && shapes[1].empty())) continue;
      Assignment at;
      std::size_t next = 0;
      std::vector<Shape> symbolic{oracle::withParameters(shapes[0], positions[0], at, next),
                                  oracle::withParameters(shapes[1], positions[1], at, next)};
      BroadcastResult s = broadcast(solver, c, symbolic);
      ++symbolicChecked; // Unknown included: the domain is exact whatever the status
      bool holdsThere = s.status() != Status::Error && holds(s.validity.domainWithLimits(), at);
      ASSERT_EQ(holdsThere, ok) << toString(symbolic[0]) << " with " << toString(symbolic[1]) << " at "
                                << row[0] << ": " << s.message;
      if (ok) {
        Shape evaluated;
        for (Expr d : s.shape) evaluated.push_back(Expr(*evaluate(d, at)));
        EXPECT_EQ(toString(evaluated), row[2]) << toString(symbolic[0]) << " with " << toString(symbolic[1]);
      }
    }
  }
  EXPECT_GT(valid, 100u);
  EXPECT_GT(symbolicChecked, rows.size() * 3);
}

TEST(Broadcast, SymbolicDecisions) {
  Solver solver;
  Context c = noAssumptions(solver);
  BroadcastResult r = broadcast(solver, c, {parseShape("(n,)"), parseShape("(m,)")});
  EXPECT_EQ(r.status(), Status::RuntimeCheck);
  EXPECT_EQ(r.shape[0], parseExpr("n if m == 1 else m"));
  ASSERT_EQ(r.validity.checks().size(), 1u);
  EXPECT_EQ(r.validity.checks()[0], parsePred("n == 1 or m == 1 or n == m"));

  Context big = solver.makeContext({parsePred("n >= 2")});
  BroadcastResult v = broadcast(solver, big, {parseShape("(n, 1)"), parseShape("(1, 3)")});
  EXPECT_EQ(toString(v.shape), "(n, 3)");
  // Valid as a broadcast; the only condition left is NumPy's limit on the element count, which
  // is reported apart (limits) and counts as a check only with strict limits.
  EXPECT_EQ(v.status(), Status::Valid);
  EXPECT_TRUE(v.validity.checks().empty());
  ASSERT_EQ(v.validity.limits().size(), 1u);
  EXPECT_EQ(v.validity.limits()[0], parsePred("n <= 3074457345618258602"));
  EXPECT_FALSE(v.validity.violating().has_value());
  // A result that is one of the operands' shapes fits as that operand, which is given, does.
  BroadcastResult same = broadcast(solver, big, {parseShape("(n, 3)"), parseShape("(1, 3)")});
  EXPECT_EQ(same.status(), Status::Valid);
  EXPECT_TRUE(same.validity.limits().empty()) << same.validity.limitsText();
  Validity strict = v.validity;
  strict.strictLimits(true);
  EXPECT_EQ(strict.status(), Status::RuntimeCheck);
  ASSERT_EQ(strict.checks().size(), 1u);
  EXPECT_EQ(strict.checks()[0], parsePred("n <= 3074457345618258602"));
  EXPECT_TRUE(strict.limits().empty());
  EXPECT_EQ(broadcast(solver, big, {parseShape("(n,)"), parseShape("(1,)")}).status(), Status::Valid);

  BroadcastResult e = broadcast(solver, big, {parseShape("(n,)"), parseShape("(n + 1,)")});
  EXPECT_EQ(e.status(), Status::Error);
  ASSERT_TRUE(e.validity.violating());

  // Static mode: n is not provably 1, so (n,) against (3,) needs n == 3 even though numpy
  // mode would also accept n == 1.
  BroadcastResult s = broadcast(solver, c, {parseShape("(n,)"), parseShape("(3,)")}, BroadcastMode::Static);
  EXPECT_EQ(s.validity.checks().at(0), parsePred("n == 3"));
  Context one = solver.makeContext({parsePred("n == 1")});
  EXPECT_EQ(broadcast(solver, one, {parseShape("(n,)"), parseShape("(3,)")}, BroadcastMode::Static).status(),
            Status::Valid);

  // Sizes must be sizes: (n - 1,) needs n >= 1.
  BroadcastResult neg = broadcast(solver, c, {parseShape("(n - 1,)")});
  EXPECT_EQ(neg.status(), Status::RuntimeCheck);
  EXPECT_EQ(neg.validity.checks().at(0), parsePred("n >= 1"));

  // Two axes that each depend but cannot hold together.
  // (n == 1 or n == 2) and (n == 1 or n == 3): only n == 1; with n >= 2 never.
  BroadcastResult joint = broadcast(solver, c, {parseShape("(n, n)"), parseShape("(2, 3)")});
  EXPECT_EQ(joint.status(), Status::RuntimeCheck);
  BroadcastResult never = broadcast(solver, big, {parseShape("(n, n)"), parseShape("(2, 3)")});
  EXPECT_EQ(never.status(), Status::Error);
  ASSERT_TRUE(never.validity.violating());
  // The message names the checks that cannot hold together (not their empty conjunction).
  std::string message = never.validity.message();
  EXPECT_EQ(message.find("False"), std::string::npos) << message;
  std::vector<Pred> checks = never.validity.checks();
  EXPECT_NE(message.find("n == 2"), std::string::npos) << message;
  EXPECT_NE(message.find("n == 3"), std::string::npos) << message;
  for (const Pred &p : checks) EXPECT_NE(message.find(p.toString()), std::string::npos) << message;
}

// The element-count shortcut bounds a count from its parts; a negative multiple of an atom that
// may be negative (min(n, -1)) adds to the count and must not be dropped: 2 * (2**62 - 1 + 1)
// elements is 2**63, one too many, for every n.
TEST(Broadcast, ElementCountBoundKeepsNegativeAtoms) {
  Solver solver;
  Context c = noAssumptions(solver);
  BroadcastResult r = broadcast(solver, c, {parseShape("(2, 2**62 - 1 - min(n, 0 - 1))")});
  EXPECT_EQ(r.status(), Status::Error) << r.message;
}

// The element-count answers are remembered per solver: a Depends reads its exact condition
// with the solver that answered it, and a solver belongs to one thread, so another solver
// answers the same question itself (each solver once, then from the memo).
TEST(Broadcast, ElementCountAnswersAreRememberedPerSolver) {
  clearElementCountMemo();
  Shape shape{Expr(2), parseExpr("n")}; // 2*n elements: quasi-affine, so the solver answers
  Solver a, b;
  for (Solver *s : {&a, &b})
    for (int again = 0; again < 2; ++again) {
      Validity v(*s, s->makeContext({}));
      requireElementCountFits(v, shape, "x");
      ASSERT_EQ(v.obligations().size(), 1u);
      const Decision &d = v.obligations()[0].decision;
      EXPECT_EQ(d.answer, Answer::Depends);
      EXPECT_TRUE(holds(d.condition(), Assignment{{"n", int64_t(1) << 61}}));
      EXPECT_FALSE(holds(d.condition(), Assignment{{"n", int64_t(1) << 62}}));
    }
  for (Solver *s : {&a, &b}) {
    EXPECT_EQ(s->stats().dependsByPoints, 1u);
    EXPECT_EQ(s->stats().conditionsRead, 1u);
  }
}

// An element-count answer the clock cut short is not remembered: asked again once there is
// time, the count is decided. 2 * (2**62 + z), where z is 0 at every size but only isl shows
// it, is 2**63: one element too many everywhere.
TEST(Broadcast, ElementCountAnswersTheClockCutShortAreNotRemembered) {
  clearElementCountMemo();
  Shape shape{Expr(2), parseExpr("2**62 + (a + b) % 2 - (a % 2 + b % 2) % 2")};
  Solver s; // 1 s per question
  Context c = s.makeContext({});
  auto answer = [&] {
    Validity v(s, c);
    requireElementCountFits(v, shape, "x");
    return v.obligations().at(0).decision.answer;
  };
  s.limitTotalTime(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(answer(), Answer::Unknown) << "the clock did not cut the question short: the test shows nothing";
  EXPECT_GE(s.stats().unkept, 1u);
  s.limitTotalTime(0);
  EXPECT_EQ(answer(), Answer::Refuted);
}

TEST(Broadcast, ConcreteOverflowIsRefused) {
  Solver solver;
  Context c = noAssumptions(solver);
  BroadcastResult r = broadcast(solver, c, {parseShape("(2**40, 2**40)"), parseShape("(1,)")});
  EXPECT_EQ(r.status(), Status::Error);
  EXPECT_NE(r.message.find("2**63 - 1"), std::string::npos);
}

namespace {
// Random symbolic shapes over n, m with small affine dims.
rc::Gen<std::vector<std::string>> symbolicShapes() {
  auto dim = rc::gen::element<std::string>("1", "1", "2", "3", "0", "n", "m", "n + 1", "m - 1", "2*n", "n // 2", "max(n, m)");
  auto shape = rc::gen::map(rc::gen::container<std::vector<std::string>>(dim), [](std::vector<std::string> ds) {
    if (ds.size() > 3) ds.resize(3);
    std::string s = "(";
    for (std::size_t i = 0; i < ds.size(); ++i) s += (i ? ", " : "") + ds[i];
    return s + (ds.size() == 1 ? ",)" : ")");
  });
  return rc::gen::suchThat(rc::gen::container<std::vector<std::string>>(shape),
                           [](const std::vector<std::string> &v) { return v.size() >= 1 && v.size() <= 3; });
}
} // namespace

namespace {
/// At `at`: the NumPy-mode domain holds exactly where NumPy's algorithm broadcasts the evaluated
/// shapes, the result is NumPy's there, and static mode accepts no more than NumPy.
void agreesWithConcreteAt(const std::vector<Shape> &shapes, const BroadcastResult &numpy,
                          const BroadcastResult &strict, const Assignment &at) {
  std::vector<std::vector<Integer>> concrete;
  for (const Shape &s : shapes) {
    std::vector<Integer> v;
    for (Expr d : s) {
      auto x = evaluate(d, at);
      RC_ASSERT(x.has_value());
      v.push_back(*x);
    }
    concrete.push_back(v);
  }
  std::string msg;
  auto expected = broadcastConcrete(concrete, msg);
  bool numpyValid = numpy.status() != Status::Error && holds(numpy.validity.domainWithLimits(), at);
  RC_ASSERT(numpyValid == expected.has_value());
  if (expected)
    for (std::size_t i = 0; i < expected->size(); ++i)
      RC_ASSERT(evaluate(numpy.shape[i], at) == std::optional<Integer>((*expected)[i]));
  bool staticValid = strict.status() != Status::Error && holds(strict.validity.domainWithLimits(), at);
  if (staticValid) RC_ASSERT(numpyValid);
}
} // namespace

// At sampled points, the symbolic answer (validity domain and result shape) equals the
// concrete broadcast of the evaluated shapes; static mode never accepts what numpy rejects.
TEST(Broadcast, SymbolicAgreesWithConcreteAtPoints) {
  Solver solver(deterministic());
  Context c = noAssumptions(solver);
  bool ok = rc::check("symbolic == concrete pointwise", [&] {
    auto texts = *symbolicShapes();
    std::vector<Shape> shapes;
    for (auto &t : texts) shapes.push_back(parseShape(t));
    BroadcastResult numpy = broadcast(solver, c, shapes, BroadcastMode::Numpy);
    BroadcastResult strict = broadcast(solver, c, shapes, BroadcastMode::Static);
    RC_ASSERT(numpy.status() != Status::Unknown);
    RC_TAG(spelling(numpy.status()));
    if (strict.status() == Status::Valid) RC_ASSERT(numpy.status() == Status::Valid);
    for (int n = 0; n <= 4; ++n)
      for (int m = 0; m <= 4; ++m) agreesWithConcreteAt(shapes, numpy, strict, Assignment{{"n", n}, {"m", m}});
    // A violating point gives every parameter of the shapes a value, and NumPy fails there.
    if (auto w = numpy.validity.violating()) {
      for (const Shape &s : shapes)
        for (Expr d : s)
          for (Expr p : parametersOf(d)) RC_ASSERT(w->find(p->name) != nullptr);
      std::vector<std::vector<Integer>> concrete;
      for (const Shape &s : shapes) {
        std::vector<Integer> v;
        for (Expr d : s) {
          auto x = evaluate(d, *w);
          if (!x) return; // undefined there (n // 2 is total, but keep the check honest)
          v.push_back(*x);
        }
        concrete.push_back(v);
      }
      std::string msg;
      RC_ASSERT(!broadcastConcrete(concrete, msg).has_value());
    }
  });
  EXPECT_TRUE(ok);
}

// A broadcast's result and obligations do not depend on the order of its operands: `y + x` has
// the very dims and checks of `x + y`. Written in operand order, a rewrite that swaps operands
// ((-x) + y to y - x) changed the dim `m if n == 1 else n` to `n if m == 1 else m`, equal only
// where they broadcast, and every reader below it was derived and decided again (with sizes of
// their own per input, 5x the time of the same program over shared sizes at 10^5 nodes).
TEST(Broadcast, TheOperandsOrderChangesNoDimAndNoObligation) {
  Solver solver(deterministic());
  Context c = noAssumptions(solver);
  auto obligations = [](const BroadcastResult &r) {
    std::vector<std::pair<Pred, Answer>> out;
    for (const Obligation &o : r.validity.obligations()) out.push_back({o.predicate, o.decision.answer});
    std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return structuralCompare(a.first, b.first) < 0; });
    return out;
  };
  bool ok = rc::check("a broadcast of operands in another order is the same", [&] {
    auto texts = *symbolicShapes();
    // Broadcast results too (sizes that are choices), as programs broadcast them again.
    if (*rc::gen::arbitrary<bool>()) texts.push_back("(m if n == 1 else n, 3)");
    std::vector<Shape> shapes;
    for (auto &t : texts) shapes.push_back(parseShape(t));
    std::vector<Shape> other = shapes; // a random permutation (Fisher-Yates)
    for (std::size_t i = other.size(); i > 1; --i) std::swap(other[i - 1], other[*rc::gen::inRange<std::size_t>(0, i)]);
    RC_PRE(other != shapes);
    for (BroadcastMode mode : {BroadcastMode::Numpy, BroadcastMode::Static}) {
      BroadcastResult a = broadcast(solver, c, shapes, mode), b = broadcast(solver, c, other, mode);
      RC_ASSERT(a.status() == b.status());
      if (a.status() == Status::Error) continue; // (NumPy's message names the operands by place)
      RC_ASSERT(a.shape == b.shape);
      RC_ASSERT(obligations(a) == obligations(b));
    }
  });
  EXPECT_TRUE(ok);
}

// Found by fuzz_program (inputs of the form `x = (x * y)[x > 0]` repeated spent the solver's
// time limit): broadcasting a result with an operand it came from, `x = x * y` again, nested the
// size one level deeper each time (`m if (m if n == 1 else n) == 1 else m if n == 1 else n`, 2^k
// nodes written out after k statements) and added a weaker copy of the first check. The result
// is the same size, and wherever the first broadcast holds, the second holds too with the same
// value (what it requires beside that depends on the order broadcast() writes sizes in: where
// the first fails, the result's value is one of its operands' by that order).
TEST(Broadcast, BroadcastingAResultWithItsOperandAgainChangesNothing) {
  Solver solver(deterministic());
  Context c = noAssumptions(solver);
  BroadcastResult once = broadcast(solver, c, {parseShape("(n,)"), parseShape("(m,)")});
  ASSERT_EQ(toString(once.shape), "(n if m == 1 else m,)");
  BroadcastResult again = broadcast(solver, c, {once.shape, parseShape("(m,)")});
  BroadcastResult swapped = broadcast(solver, c, {parseShape("(m,)"), once.shape});
  BroadcastResult withN = broadcast(solver, c, {parseShape("(n,)"), once.shape});
  for (const BroadcastResult *r : {&again, &swapped, &withN}) {
    EXPECT_EQ(r->shape, once.shape);
    EXPECT_LE(r->validity.checks().size(), 1u) << r->validity.checksText();
  }
  // Beside m, the result needs nothing: where m is 1 it is n, and otherwise m.
  EXPECT_EQ(again.status(), Status::Valid) << again.validity.checksText();
  // With a third operand: broadcasting (n, m, k) and then the result with m and k.
  BroadcastResult three = broadcast(solver, c, {parseShape("(n,)"), parseShape("(m,)"), parseShape("(k,)")});
  BroadcastResult threeAgain = broadcast(solver, c, {three.shape, parseShape("(m,)"), parseShape("(k,)")});
  for (int n = 0; n <= 3; ++n)
    for (int m = 0; m <= 3; ++m)
      for (int k = 0; k <= 3; ++k) {
        Assignment at{{"n", n}, {"m", m}, {"k", k}};
        if (holds(once.validity.domainWithLimits(), at))
          for (const BroadcastResult *r : {&again, &swapped, &withN}) {
            EXPECT_TRUE(holds(r->validity.domainWithLimits(), at)) << n << m << k;
            EXPECT_EQ(evaluate(r->shape[0], at), evaluate(once.shape[0], at)) << n << m << k;
          }
        if (holds(three.validity.domainWithLimits(), at)) {
          EXPECT_TRUE(holds(threeAgain.validity.domainWithLimits(), at)) << n << m << k;
          EXPECT_EQ(evaluate(threeAgain.shape[0], at), evaluate(three.shape[0], at)) << n << m << k;
        }
      }
}

// The class: results broadcast again, with their own operands or others, up to four levels, in
// NumPy mode (where a result is a choice between its operands' sizes). At every point of a box
// the domain and the result are NumPy's for the evaluated shapes, each level's own operands
// taken as they evaluate there (a result is defined even where its broadcast fails).
TEST(Broadcast, ResultsBroadcastAgainAgreeWithConcreteAtEveryPoint) {
  Solver solver(deterministic());
  Context c = noAssumptions(solver);
  bool ok = rc::check("results broadcast again: symbolic == concrete pointwise", [&] {
    auto texts = *symbolicShapes();
    std::vector<Shape> pool;
    for (auto &t : texts) pool.push_back(parseShape(t));
    // Choices that look like broadcast results but are not (another condition, another size).
    auto choice = rc::gen::element<std::string>("(m if n == 2 else n,)", "(m if n == 1 else n + 1,)",
                                                "(n if m == 1 else m, 1)", "(m if n == 0 else n,)",
                                                "(m if n >= 1 else n,)", "(1 if n == 1 else n,)");
    if (*rc::gen::arbitrary<bool>()) pool.push_back(parseShape(*choice));
    int levels = *rc::gen::inRange(1, 5);
    for (int level = 0; level < levels; ++level) {
      // Operands: the last result (when there is one) and one to three from the pool, which
      // holds every shape and result so far.
      std::vector<Shape> shapes;
      if (level > 0) shapes.push_back(pool.back());
      int more = *rc::gen::inRange(1, 4);
      for (int j = 0; j < more; ++j) shapes.push_back(pool[*rc::gen::inRange<std::size_t>(0, pool.size())]);
      if (*rc::gen::arbitrary<bool>()) std::reverse(shapes.begin(), shapes.end());
      BroadcastResult numpy = broadcast(solver, c, shapes, BroadcastMode::Numpy);
      BroadcastResult strict = broadcast(solver, c, shapes, BroadcastMode::Static);
      RC_TAG(spelling(numpy.status()));
      for (int n = 0; n <= 4; ++n)
        for (int m = 0; m <= 4; ++m) agreesWithConcreteAt(shapes, numpy, strict, Assignment{{"n", n}, {"m", m}});
      if (numpy.status() == Status::Error) break;
      pool.push_back(numpy.shape);
    }
  });
  EXPECT_TRUE(ok);
}

// Found by fuzz_einsum (each such input spent the 200 ms limit of one question): static mode
// asked whether a lone size is provably 1, and made the position unknown where that was
// undecided. A position with one distinct size other than the constant 1 is that size whatever
// the answer, and is valid where the sizes are, as in NumPy mode. Property: one shape alone,
// beside itself or beside 1s reads the same in both modes, also under an isl quota so small
// that many questions are undecided.
TEST(Broadcast, StaticModeAsksWhetherASizeIsOneOnlyWhereTwoSizesMeet) {
  Solver solver(deterministic());
  Context c = noAssumptions(solver);
  Shape lone = parseShape("(222*b*am //19*mz /219*mz /2*22*b*m0/40/09,)");
  BroadcastResult numpy = broadcast(solver, c, {lone}, BroadcastMode::Numpy);
  BroadcastResult strict = broadcast(solver, c, {lone}, BroadcastMode::Static);
  EXPECT_EQ(numpy.status(), Status::RuntimeCheck) << numpy.message;
  EXPECT_EQ(strict.status(), numpy.status()) << strict.message;
  EXPECT_EQ(strict.validity.checks(), numpy.validity.checks());
  // Two distinct sizes still ask: n*m beside k*j must be equal in static mode.
  BroadcastResult meet = broadcast(solver, c, {parseShape("(n*m,)"), parseShape("(k*j,)")}, BroadcastMode::Static);
  ASSERT_EQ(meet.validity.checks().size(), 1u) << meet.message;
  EXPECT_EQ(meet.validity.checks()[0].toString(), "m*n == j*k");
  // The result is an operand's size (static mode keeps one): as given, no limit.
  EXPECT_TRUE(meet.validity.limits().empty()) << meet.message;

  SolverOptions small = deterministic();
  small.maxOperations = 3000;
  Solver tight(small);
  Context t = tight.makeContext({});
  bool ok = rc::check("one shape: static == numpy", [&] {
    auto dim = rc::gen::element<std::string>("1", "3", "n", "n*m", "n*m // 3", "(n*m + 1) / 2", "n*m*k - 5",
                                             "max(n*m, k) - 2", "n // 2 * m",
                                             // whether these are 1 is undecided under the quota
                                             "222*b*am //19*mz /219*mz /2*22*b*m0/40/09",
                                             "(n*m*k // 19 * m / 219 * k / 2) / 180");
    std::vector<std::string> ds = *rc::gen::resize(3, rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(dim)));
    std::string text = "(", ones = "(";
    for (std::size_t i = 0; i < ds.size(); ++i) {
      text += (i ? ", " : "") + ds[i];
      ones += i ? ", 1" : "1";
    }
    text += ds.size() == 1 ? ",)" : ")";
    ones += ds.size() == 1 ? ",)" : ")";
    Shape shape = parseShape(text);
    std::vector<Shape> operands;
    switch (*rc::gen::inRange(0, 4)) {
    case 0: operands = {shape}; break;
    case 1: operands = {shape, shape}; break;
    case 2: operands = {shape, parseShape(ones)}; break;
    default: operands = {parseShape("(1,)"), shape, parseShape(ones)}; break;
    }
    BroadcastResult a = broadcast(tight, t, operands, BroadcastMode::Numpy);
    BroadcastResult b = broadcast(tight, t, operands, BroadcastMode::Static);
    RC_TAG(spelling(a.status()));
    RC_ASSERT(b.status() == a.status());
    RC_ASSERT(b.validity.checks() == a.validity.checks());
    RC_ASSERT(b.shape == a.shape);
  });
  EXPECT_TRUE(ok);
}

// A check implied by another (its conjuncts all among the other's) is not printed twice: the size
// and count obligations of `(n/2 - 3,)` read `n >= 6 and n % 2 == 0` and `n % 2 == 0` from isl.
// The domain is the same, and the concrete algorithm agrees at every point of a box.
TEST(Broadcast, ChecksImpliedByAnotherAreLeftOut) {
  Solver solver(deterministic());
  Context c = noAssumptions(solver);
  BroadcastResult r = broadcast(solver, c, {parseShape("(n/2 - 3,)")});
  ASSERT_EQ(r.validity.checks().size(), 1u) << r.validity.checksText();
  EXPECT_EQ(r.validity.checksText(), "n >= 6 and n % 2 == 0");
  for (int n = 0; n <= 20; ++n) {
    bool defined = n % 2 == 0, valid = defined && n / 2 - 3 >= 0;
    EXPECT_EQ(evaluate(r.validity.domainWithLimits(), Assignment{{"n", n}}) == std::optional<bool>(true), valid) << n;
  }
}

// A disjunction that one of its disjuncts, a check of its own, implies is left out too: the
// pairwise obligations of a reshape to (a, -b, -c) read `b == 0`, `c == 0` and `b == 0 or c == 0
// and b >= 1`. Property: whatever obligations are recorded, the domain (read off the checks that
// are kept) holds exactly where every obligation holds, at every point of a box.
TEST(Validity, DisjunctionsImpliedByAnotherCheckAreLeftOut) {
  Solver solver(deterministic());
  Context c = noAssumptions(solver);
  Validity v(solver, c);
  v.require(parsePred("b == 0"), "b");
  v.require(parsePred("c == 0"), "c");
  v.require(parsePred("not (b >= 1 and c >= 1)"), "pair");
  EXPECT_EQ(v.checksText(), "b == 0; c == 0");
  const std::vector<std::string> pool = {"a == 0", "b == 0", "a == 0 or b == 0", "a == 0 or b >= 1 and a >= 2",
                                         "a >= 1", "b <= 2 or a == 0", "a == 0 and b == 0", "a % 2 == 0 or b == 1",
                                         "a % 2 == 0", "a == b or a == 0", "a == b", "b >= 1 or a == 3",
                                         // bounds of one expression, some implied by others
                                         "a <= 2", "a < 3", "3 > a", "a <= 3", "2 - a >= 0", "a - b <= 1",
                                         "b - a >= -1", "a >= 1 and b <= 2", "b < 2", "b >= 1", "a + b > 3"};
  bool ok = rc::check("the kept checks' domain is every obligation's", [&] {
    auto picked = *rc::gen::container<std::vector<std::size_t>>(*rc::gen::inRange<std::size_t>(1, 5),
                                                                 rc::gen::inRange<std::size_t>(0, pool.size()));
    Validity w(solver, c);
    std::vector<Pred> all;
    for (std::size_t i : picked) {
      all.push_back(parsePred(pool[i]));
      w.require(all.back(), pool[i]);
    }
    const Pred domain = w.domain();
    for (int a = 0; a <= 4; ++a)
      for (int b = 0; b <= 4; ++b) {
        Assignment at{{"a", a}, {"b", b}};
        bool every = true;
        for (const Pred &p : all) every = every && evaluate(p, at) == std::optional<bool>(true);
        RC_ASSERT((evaluate(domain, at) == std::optional<bool>(true)) == every);
      }
  });
  EXPECT_TRUE(ok);
}

// A bound implied by a stronger bound of the same expression, alone or in another check, is not
// a check of its own: an einsum over (n, m), (m + 1, 2) printed `m <= 9223372036854775806` and
// `m <= 4611686018427387902` beside `m <= 1 and m >= 0`. Bounds the same in other spellings
// (`a - b <= 1`, `b - a >= -1`) are one check; bounds of other expressions all stay.
TEST(Validity, BoundsImpliedByStrongerBoundsAreLeftOut) {
  Solver solver(deterministic());
  Context c = noAssumptions(solver);
  Validity v(solver, c);
  for (const char *p : {"m <= 9223372036854775806", "m <= 4611686018427387902", "m <= 1 and n >= 3", "n >= 2",
                        "n > 2", "m - n <= 7", "n - m >= -7", "m + n < 9", "m < n"})
    v.require(parsePred(p), p);
  std::vector<std::string> kept;
  for (const Pred &p : v.checks()) kept.push_back(p.toString());
  EXPECT_EQ(kept.size(), 4u) << v.checksText();
  for (const char *gone : {"m <= 9223372036854775806", "m <= 4611686018427387902", "n >= 2", "n >= 3"})
    EXPECT_EQ(std::find(kept.begin(), kept.end(), gone), kept.end()) << gone << " in " << v.checksText();
  // The same bound in two spellings (residuals of unknown answers are kept as written): one
  // check, the first; a weaker one and a bound of another expression stay apart.
  auto unknown = [](const char *text) {
    Decision d;
    d.answer = Answer::Unknown;
    d.residual = parsePred(text);
    return d;
  };
  Validity same(solver, c);
  for (const char *p : {"3 > a", "a < 3", "a <= 7", "2*a >= 1"}) same.record(parsePred(p), p, unknown(p));
  std::string checked;
  for (const Pred &p : same.checks()) checked += (checked.empty() ? "" : "; ") + p.toString();
  EXPECT_EQ(checked, "3 > a; 2*a >= 1");
  // Printed, the two bounds of a are one condition as isl simplifies it (shownChecks).
  EXPECT_EQ(same.checksText(), "a >= 1 and a <= 2");
  // Nothing changes where the checks hold (the property above, over bounds too).
  Validity all(solver, c);
  for (const char *p : {"m <= 1 and n >= 3", "m - n <= 7", "m + n < 9", "m < n"}) all.require(parsePred(p), p);
  for (int m = 0; m <= 12; ++m)
    for (int n = 0; n <= 12; ++n) {
      Assignment at{{"m", m}, {"n", n}};
      EXPECT_EQ(evaluate(v.domain(), at), evaluate(all.domain(), at)) << at.toString();
    }
}

// Obligations that pin different parameters, each satisfied at a point that fails the other
// (n == 1 at n = 1, m = 7; m == 2 at n = 9, m = 2): neither point nor their largest values
// satisfies both, a point taking n from the first and m from the second does. The joint
// decision is then made from those points, without a solver question.
TEST(Validity, JointObligationsAreSatisfiedByCombiningTheirPoints) {
  Solver solver(deterministic());
  Context c = solver.makeContext({parsePred("n <= 20"), parsePred("m <= 20")});
  auto depends = [](const Assignment &yes, const Assignment &no) {
    Decision d;
    d.answer = Answer::Depends;
    d.satisfying = yes;
    d.violating = no;
    return d;
  };
  Validity v(solver, c);
  v.record(parsePred("n == 1"), "n", depends({{"n", 1}, {"m", 7}}, {{"n", 0}, {"m", 0}}));
  v.record(parsePred("m == 2"), "m", depends({{"n", 9}, {"m", 2}}, {{"n", 0}, {"m", 0}}));
  const uint64_t questions = solver.stats().questions;
  EXPECT_EQ(v.status(), Status::RuntimeCheck);
  EXPECT_EQ(solver.stats().questions, questions);
  // Obligations no combination satisfies are still decided: n == 1 and n == 2 never hold together.
  Validity w(solver, c);
  w.record(parsePred("n == 1"), "n", depends({{"n", 1}, {"m", 7}}, {{"n", 0}, {"m", 0}}));
  w.record(parsePred("n == 2"), "n2", depends({{"n", 2}, {"m", 2}}, {{"n", 0}, {"m", 0}}));
  EXPECT_EQ(w.status(), Status::Error);
}

// Found by fuzz_shape: an operand with more than 2**63 - 1 elements cannot exist, even where the
// result is empty because another operand has a 0 where it has a 1. `(F8, 1)` with
// `(7, 1, 1111**6)` was valid at F8 = 0; NumPy refuses to make the second array. Shapes with
// large sizes among small ones, compared with the concrete algorithm at every point of a box.
TEST(Broadcast, OperandsTooLargeToExistAreErrorsWhereTheResultIsEmpty) {
  Solver solver(deterministic());
  Context c = noAssumptions(solver);
  BroadcastResult found = broadcast(solver, c, {parseShape("(F8, 1)"), parseShape("(7, 1, 1111**6)")});
  EXPECT_EQ(found.status(), Status::Error) << found.message;
  bool ok = rc::check("large operands: symbolic == concrete pointwise", [&] {
    auto dim = rc::gen::element<std::string>("1", "1", "0", "3", "n", "m", "2**62", "n + 2**62");
    auto shapeOf = [](const std::vector<std::string> &ds) {
      std::string text = "(";
      for (std::size_t i = 0; i < ds.size(); ++i) text += (i ? ", " : "") + ds[i];
      return parseShape(text + (ds.size() == 1 ? ",)" : ")"));
    };
    // One operand too large to exist (a large size times at least 3, and a 1 somewhere), among
    // random ones.
    std::vector<std::string> large{"1", *rc::gen::element<std::string>("2**62", "3*2**61", "n + 2**62"),
                                   *rc::gen::element<std::string>("3", "7", "2**62")};
    std::size_t at = *rc::gen::inRange<std::size_t>(0, 3);
    std::swap(large[0], large[at]);
    std::vector<Shape> shapes{shapeOf(large)};
    std::size_t others = *rc::gen::inRange<std::size_t>(1, 3);
    for (std::size_t k = 0; k < others; ++k)
      shapes.push_back(shapeOf(*rc::gen::container<std::vector<std::string>>(*rc::gen::inRange(1, 4), dim)));
    if (*rc::gen::arbitrary<bool>()) std::swap(shapes.front(), shapes.back());
    BroadcastResult numpy = broadcast(solver, c, shapes, BroadcastMode::Numpy);
    BroadcastResult strict = broadcast(solver, c, shapes, BroadcastMode::Static);
    RC_PRE(numpy.status() != Status::Unknown && strict.status() != Status::Unknown);
    RC_TAG(spelling(numpy.status()));
    for (int n = 0; n <= 2; ++n)
      for (int m = 0; m <= 2; ++m) agreesWithConcreteAt(shapes, numpy, strict, Assignment{{"n", n}, {"m", m}});
  });
  EXPECT_TRUE(ok);
}

// Issue 9 (11): past a few distinct sizes at one position, the all-pairs condition (k² terms) is
// replaced by a linear one (the largest size other than 1 is at most the smallest) and the
// result by a linear expression. Both must still agree with NumPy's algorithm at every point.
TEST(Broadcast, ManyOperandsAgreeWithConcreteAtEveryPoint) {
  Solver solver(deterministic());
  Context c = noAssumptions(solver);
  auto dim = rc::gen::element<std::string>("1", "1", "0", "2", "a", "b", "c", "d", "a + 1", "b - 1", "2*c",
                                           "d // 2", "max(a, b)");
  bool ok = rc::check("many operands: symbolic == concrete pointwise", [&] {
    auto dims = *rc::gen::container<std::vector<std::string>>(*rc::gen::inRange(9, 18), dim);
    std::vector<Shape> shapes;
    for (auto &t : dims) shapes.push_back(parseShape("(" + t + ", 1)"));
    BroadcastResult numpy = broadcast(solver, c, shapes, BroadcastMode::Numpy);
    BroadcastResult strict = broadcast(solver, c, shapes, BroadcastMode::Static);
    RC_ASSERT(numpy.status() != Status::Unknown);
    RC_TAG(spelling(numpy.status()));
    for (int a = 0; a <= 2; ++a)
      for (int b = 0; b <= 2; ++b)
        for (int cc = 0; cc <= 2; ++cc)
          for (int d = 0; d <= 3; ++d)
            agreesWithConcreteAt(shapes, numpy, strict, Assignment{{"a", a}, {"b", b}, {"c", cc}, {"d", d}});
  });
  EXPECT_TRUE(ok);
}

// The same past kManyCandidates distinct sizes (the linear form): up to 40 operands over 30
// parameters, checked at random points (mostly 1s and 2s, sometimes 0 or 3, so that both valid
// and invalid points occur). Whatever the status (unknown included), the domain is exact.
TEST(Broadcast, VeryManyOperandsAgreeWithConcreteAtPoints) {
  Solver solver;
  Context c = noAssumptions(solver);
  bool ok = rc::check("very many operands: symbolic == concrete pointwise", [&] {
    int count = *rc::gen::inRange(25, 41);
    std::vector<std::string> dims;
    for (int i = 0; i < count; ++i) {
      int k = *rc::gen::inRange(0, 34);
      dims.push_back(k < 30 ? "p" + std::to_string(k) : k == 30 ? "1" : k == 31 ? "2" : k == 32 ? "p0 + 1" : "2*p1");
    }
    std::vector<Shape> shapes;
    for (auto &t : dims) shapes.push_back(parseShape("(1, " + t + ")"));
    BroadcastResult numpy = broadcast(solver, c, shapes, BroadcastMode::Numpy);
    BroadcastResult strict = broadcast(solver, c, shapes, BroadcastMode::Static);
    RC_TAG(spelling(numpy.status()));
    for (int point = 0; point < 40; ++point) {
      Assignment at;
      for (int i = 0; i < 30; ++i) at.set("p" + std::to_string(i), *rc::gen::element(1, 1, 2, 2, 2, 0, 3));
      agreesWithConcreteAt(shapes, numpy, strict, at);
    }
  });
  EXPECT_TRUE(ok);
}
