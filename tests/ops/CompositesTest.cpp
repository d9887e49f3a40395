// The composites (ops/Composites.h), built on a graph from C++: their shapes, validity and
// refusals. Their values are checked against NumPy by NumpyProgramTest
// (tests/data/numpy_programs_tri.jsonl).
#include <gtest/gtest.h>

#include "ops/Composites.h"

using namespace shapelab;
using namespace shapelab::ops;

namespace {
struct Fixture {
  Solver solver;
  Graph g{solver};
  Expr n = g.param("n"), m = g.param("m");
};
} // namespace

TEST(Composites, TrilAndTriuKeepTheShapeAndAreValid) {
  Fixture f;
  const Node *x = f.g.input("x", DType::Float64, {f.n, f.m});
  for (const Node *t : {tril(f.g, x, Expr(0), BroadcastMode::Numpy), triu(f.g, x, f.n, BroadcastMode::Numpy)}) {
    EXPECT_EQ(t->shape, (Shape{f.n, f.m}));
    EXPECT_EQ(t->dtype, DType::Float64);
  }
  EXPECT_EQ(validityOf(f.g, tril(f.g, x, Expr(0), BroadcastMode::Numpy)).status(), Status::Valid);
  // NumPy's tri(N, M, k) computes arange(-k, M - k) in int64: triu's k - 1 = n - 1 needs
  // m - n + 1 to fit (an (0, 2**63 - 1) array x is no error of its own).
  const Validity u = validityOf(f.g, triu(f.g, x, f.n, BroadcastMode::Numpy));
  EXPECT_EQ(u.status(), Status::RuntimeCheck);
  ASSERT_EQ(u.checks().size(), 1u);
  EXPECT_EQ(u.checks()[0].toString(), "n + 9223372036854775806 >= m");
  // A bool stays bool (NumPy's zeros(1, m.dtype)), a stack keeps its batch axes.
  const Node *b = f.g.input("b", DType::Bool, {Expr(2), f.n, f.n});
  EXPECT_EQ(tril(f.g, b, Expr(-1), BroadcastMode::Static)->dtype, DType::Bool);
  EXPECT_EQ(tril(f.g, b, Expr(-1), BroadcastMode::Static)->shape, (Shape{Expr(2), f.n, f.n}));
  // A 1-d m is the rows of an (N, N) matrix; a 0-d one is refused.
  const Node *v = f.g.input("v", DType::Int32, {f.m});
  EXPECT_EQ(triu(f.g, v, Expr(0), BroadcastMode::Numpy)->shape, (Shape{f.m, f.m}));
  EXPECT_THROW(tril(f.g, f.g.literal(1, DType::Float64), Expr(0), BroadcastMode::Numpy), OpError);
}

TEST(Composites, RollKeepsTheShape) {
  Fixture f;
  const Node *x = f.g.input("x", DType::Float64, {f.n, f.m});
  EXPECT_EQ(roll(f.g, x, {Expr(1)}, std::nullopt, BroadcastMode::Numpy)->shape, (Shape{f.n, f.m}));
  EXPECT_EQ(roll(f.g, x, {f.n, Expr(-2)}, std::vector<int64_t>{0, -1}, BroadcastMode::Numpy)->shape, (Shape{f.n, f.m}));
  const Node *r = roll(f.g, x, {f.m}, std::vector<int64_t>{1}, BroadcastMode::Numpy);
  EXPECT_EQ(r->kind, OpKind::Index); // a gather along axis 1
  EXPECT_EQ(validityOf(f.g, r).status(), Status::Valid);
  EXPECT_EQ(roll(f.g, x, {Expr(0)}, std::vector<int64_t>{0}, BroadcastMode::Numpy), x); // nothing to move
  EXPECT_THROW(roll(f.g, x, {Expr(1)}, std::vector<int64_t>{2}, BroadcastMode::Numpy), OpError);
  EXPECT_THROW(roll(f.g, x, {Expr(1), Expr(2), Expr(3)}, std::vector<int64_t>{0, 1}, BroadcastMode::Numpy), OpError);
}
