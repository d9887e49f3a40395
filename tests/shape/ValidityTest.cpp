// Validity (shape/Validity.h): what a status is decided over, the limits reported apart, the
// arrays given assumed, the least witness, shapes simplified under their checks, and NumPy's
// words where an obligation fails for every size. Oracles: evaluation over boxes of points.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "shape/Validity.h"
#include "symbolic/Evaluate.h"
#include "symbolic/Parser.h"

using namespace shapelab;

namespace {
SolverOptions deterministic() {
  SolverOptions o; // answers bounded by the quota, not by a loaded machine's clock
  o.timeLimitMs = 0;
  o.memoryLimitBytes = 0;
  return o;
}
const char *kMax = "9223372036854775807";
} // namespace

TEST(Validity, TheStatusIsDecidedOverShapeObligationsAndLimitsAreListedApart) {
  Solver solver(deterministic());
  Context c = solver.makeContext({});
  Validity v(solver, c);
  v.require(parsePred("n == m or n == 1 or m == 1"), "dimension 0 broadcasts");
  v.require(parsePred(std::string("m*n <= ") + kMax), "the result has at most 2**63 - 1 elements", ObligationKind::Limit);
  EXPECT_EQ(v.status(), Status::RuntimeCheck);
  ASSERT_EQ(v.checks().size(), 1u);
  EXPECT_EQ(v.limitsText(), std::string("m*n <= ") + kMax);
  // A limit alone leaves the status valid; counted, it is a check.
  Validity only(solver, c);
  only.require(parsePred(std::string("m*n <= ") + kMax), "count", ObligationKind::Limit);
  EXPECT_EQ(only.status(), Status::Valid);
  EXPECT_EQ(only.limits().size(), 1u);
  only.strictLimits(true);
  EXPECT_EQ(only.status(), Status::RuntimeCheck);
  EXPECT_EQ(only.checks().size(), 1u);
}

TEST(Validity, ALimitThatFailsForEverySizeIsAnError) {
  Solver solver(deterministic());
  Context c = solver.makeContext({});
  Validity v(solver, c);
  v.require(parsePred(std::string("n + ") + kMax + " <= " + kMax + " - 1"), "too many", ObligationKind::Limit);
  EXPECT_EQ(v.status(), Status::Error);
}

// The limits of an array that is given (an input, an operand) are assumed: never listed, an
// error only where they can never hold; a limit they imply is no news either.
TEST(Validity, TheArraysGivenAreAssumedToExist) {
  Solver solver(deterministic());
  Context c = solver.makeContext({});
  const Pred count = parsePred(std::string("m*n <= ") + kMax);
  Validity v(solver, c);
  v.require(count, "the input has at most 2**63 - 1 elements", ObligationKind::Existence);
  EXPECT_EQ(v.status(), Status::Valid);
  EXPECT_TRUE(v.limits().empty());
  v.require(count, "the result has at most 2**63 - 1 elements", ObligationKind::Limit);
  EXPECT_TRUE(v.limits().empty()) << v.limitsText();
  // A limit on other sizes stays.
  v.require(parsePred(std::string("k*n <= ") + kMax), "another result", ObligationKind::Limit);
  EXPECT_EQ(v.limitsText(), std::string("k*n <= ") + kMax);
  Validity never(solver, c);
  never.require(parsePred(std::string("n >= ") + kMax + " + 1"), "impossible", ObligationKind::Existence);
  EXPECT_EQ(never.status(), Status::Error);
}

TEST(Validity, ALimitTheChecksImplyIsLeftOut) {
  Solver solver(deterministic());
  Context c = solver.makeContext({});
  Validity v(solver, c);
  v.require(parsePred("n == 3 or n == 1"), "dimension 0 broadcasts");
  v.require(parsePred(std::string("2*n <= ") + kMax), "count", ObligationKind::Limit);
  EXPECT_EQ(v.status(), Status::RuntimeCheck);
  EXPECT_TRUE(v.limits().empty()) << v.limitsText();
}

// A shape is printed simplified under its checks: a choice they decide is resolved, a dim they
// pin is that constant; a dim nothing in them bears on is left as it was built.
TEST(Validity, ShapesAreSimplifiedUnderTheirChecks) {
  Solver solver(deterministic());
  Context c = solver.makeContext({});
  Validity v(solver, c);
  v.require(parsePred("n == 6 or n == 8"), "n");
  const std::vector<Expr> dims = {parseExpr("3 if n - 5 == 1 else n - 5"), parseExpr("n + 1"),
                                  parseExpr("m if k == 1 else k")};
  const std::vector<Expr> shown = v.simplified(dims);
  EXPECT_EQ(shown[0], Expr(3));
  EXPECT_EQ(shown[1], dims[1]); // 7 or 9: not a constant
  EXPECT_EQ(shown[2], dims[2]); // nothing the checks say bears on m and k
  Validity pinned(solver, c);
  pinned.require(parsePred("n == 4 or n == 1"), "n");
  pinned.require(parsePred("n >= 2"), "n");
  EXPECT_EQ(pinned.simplified(std::vector<Expr>{parseExpr("n + 1")})[0], Expr(5));
  // Where the shape may not be simplified, it is what it was: a valid status, an error.
  Validity valid(solver, c);
  EXPECT_EQ(valid.simplified(dims), dims);
}

// Property (brute force): the witness is the least point by the sum of the sizes, ties broken in
// the order given, at which the shape condition fails.
TEST(Validity, TheWitnessIsTheLeastViolatingPoint) {
  Solver solver(deterministic());
  Context c = solver.makeContext({});
  const std::vector<std::string> pool = {"n == m", "n == 1 or m == 1 or n == m", "n >= 3", "m <= 2 or n >= m + 2",
                                         "n % 2 == 0", "2*n == m + 1 or m == 0", "n + m != 4", "n*m <= 6",
                                         "m >= 1", "n != 2 or m != 3"};
  bool ok = rc::check("the witness is the least violating point", [&] {
    const std::size_t i = *rc::gen::inRange<std::size_t>(0, pool.size());
    const std::size_t j = *rc::gen::inRange<std::size_t>(0, pool.size());
    const bool nFirst = *rc::gen::arbitrary<bool>();
    const Pred a = parsePred(pool[i]), b = parsePred(pool[j]);
    Validity v(solver, c);
    v.require(a, pool[i]);
    v.require(b, pool[j]);
    const std::vector<std::string> order = nFirst ? std::vector<std::string>{"n", "m"} : std::vector<std::string>{"m", "n"};
    std::optional<Assignment> w = v.violating(order);
    // The least failing point of the box, by sum, then the first name's value, smallest first.
    std::optional<Assignment> least;
    for (int sum = 0; sum <= 24 && !least; ++sum)
      for (int first = 0; first <= sum && !least; ++first) {
        Assignment at{{order[0], first}, {order[1], sum - first}};
        if (!holds(a, at) || !holds(b, at)) least = at;
      }
    if (!least) {
      if (w) {
        const Integer *n = w->find("n"), *m = w->find("m");
        const bool beyond = n && m && (*n + *m) > Integer(24);
        RC_ASSERT(beyond);
      }
      return;
    }
    RC_ASSERT(w.has_value());
    RC_ASSERT(*w->find("n") == *least->find("n"));
    RC_ASSERT(*w->find("m") == *least->find("m"));
  });
  EXPECT_TRUE(ok);
}

// Where an obligation fails for every size, its message is NumPy's words for it, then for
// which sizes; a requirement without such words is said as a sentence.
TEST(Validity, AFailureEverywhereIsSaidInNumPysWords) {
  Solver solver(deterministic());
  Context c = solver.makeContext({parsePred("n <= 5")});
  Validity v(solver, c);
  v.require(parsePred("1000 < n"), "index 1000 is within axis 0 of size n", ObligationKind::Shape,
            "index 1000 is out of bounds for axis 0 with size n");
  EXPECT_EQ(v.status(), Status::Error);
  EXPECT_EQ(v.message().rfind("index 1000 is out of bounds for axis 0 with size n, for every size allowed", 0), 0u)
      << v.message();
  Validity plain(solver, c);
  plain.require(parsePred("n >= 6"), "the sizes are at least 6");
  EXPECT_EQ(plain.message().rfind("it requires that the sizes are at least 6, which holds for no size allowed", 0), 0u)
      << plain.message();
}
