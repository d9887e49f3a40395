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
  // m - n + 1 to fit (an (0, 2**63 - 1) array x is no error of its own): a limit.
  const Validity u = validityOf(f.g, triu(f.g, x, f.n, BroadcastMode::Numpy));
  EXPECT_EQ(u.status(), Status::Valid);
  std::vector<std::string> limits;
  for (const Obligation &o : u.obligations())
    if (o.kind == ObligationKind::Limit && o.decision.answer != Answer::Proven) limits.push_back(o.predicate.toString());
  std::string listed;
  for (const std::string &l : limits) listed += l + "; ";
  EXPECT_NE(std::find(limits.begin(), limits.end(), "m - n + 1 <= 9223372036854775807"), limits.end()) << listed;
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

TEST(Composites, LayoutCompositesGiveNumpysShapes) {
  Fixture f;
  const Node *x = f.g.input("x", DType::Float64, {f.n, f.m, Expr(3)});
  EXPECT_EQ(flip(f.g, x, std::nullopt)->shape, (Shape{f.n, f.m, Expr(3)}));
  EXPECT_EQ(flip(f.g, x, std::vector<int64_t>{-1, 0})->shape, (Shape{f.n, f.m, Expr(3)}));
  EXPECT_EQ(flip(f.g, x, std::vector<int64_t>{})->kind, OpKind::Index); // NumPy: a view flipping nothing
  EXPECT_THROW(flip(f.g, x, std::vector<int64_t>{1, -2}), OpError);     // repeated axis
  EXPECT_THROW(flip(f.g, x, std::vector<int64_t>{3}), OpError);
  EXPECT_EQ(swapaxes(f.g, x, 0, -1)->shape, (Shape{Expr(3), f.m, f.n}));
  EXPECT_EQ(moveaxis(f.g, x, 0, -1)->shape, (Shape{f.m, Expr(3), f.n}));
  EXPECT_EQ(moveaxis(f.g, x, 2, 0)->shape, (Shape{Expr(3), f.n, f.m}));
  EXPECT_THROW(swapaxes(f.g, x, 0, 3), OpError);
  // atleast_Nd as NumPy adds the axes: (m,) is (1, m) at 2-d and (1, m, 1) at 3-d.
  const Node *v = f.g.input("v", DType::Int64, {f.m});
  EXPECT_EQ(atleast(f.g, v, 1), v);
  EXPECT_EQ(atleast(f.g, v, 2)->shape, (Shape{Expr(1), f.m}));
  EXPECT_EQ(atleast(f.g, v, 3)->shape, (Shape{Expr(1), f.m, Expr(1)}));
  EXPECT_EQ(atleast(f.g, f.g.input("w", DType::Int64, {f.n, f.m}), 3)->shape, (Shape{f.n, f.m, Expr(1)}));
  EXPECT_EQ(atleast(f.g, f.g.literal(2, DType::Int64), 2)->shape, (Shape{Expr(1), Expr(1)}));
  EXPECT_EQ(vstack(f.g, {v, v})->shape, (Shape{Expr(2), f.m}));
  EXPECT_EQ(hstack(f.g, {v, v})->shape, (Shape{f.m * Expr(2)}));
  EXPECT_THROW(vstack(f.g, {}), OpError);
  // repeat without an axis flattens; tile pads the shorter of shape and reps with 1s.
  EXPECT_EQ(repeat(f.g, v, Expr(3), 0)->shape, (Shape{f.m * Expr(3)}));
  EXPECT_EQ(repeat(f.g, x, f.n, std::nullopt)->shape, (Shape{f.n * f.n * f.m * Expr(3)}));
  EXPECT_EQ(repeat(f.g, x, Expr(1), 1), x);
  EXPECT_EQ(tile(f.g, v, {Expr(2), f.n})->shape, (Shape{Expr(2), f.m * f.n}));
  EXPECT_EQ(tile(f.g, x, {Expr(2)})->shape, (Shape{f.n, f.m, Expr(6)}));
  // A count that may be negative is a requirement (broadcast_to's target must be a size).
  EXPECT_EQ(validityOf(f.g, tile(f.g, v, {f.n - f.m})).status(), Status::RuntimeCheck);
}

TEST(Composites, SourcesAndReductionsGiveNumpysShapesAndDtypes) {
  Fixture f;
  const Node *e = eye(f.g, f.n, f.m, 1, DType::Int32, BroadcastMode::Numpy);
  EXPECT_EQ(e->shape, (Shape{f.n, f.m}));
  EXPECT_EQ(e->dtype, DType::Int32);
  const Node *x = f.g.input("x", DType::Int64, {f.n, f.m});
  const Node *var = variance(f.g, x, std::vector<int64_t>{1}, false, Expr(1), BroadcastMode::Numpy);
  EXPECT_EQ(var->shape, (Shape{f.n}));
  EXPECT_EQ(var->dtype, DType::Float64);
  EXPECT_EQ(standardDeviation(f.g, x, std::nullopt, true, Expr(0), BroadcastMode::Numpy)->shape, (Shape{Expr(1), Expr(1)}));
  EXPECT_EQ(ptp(f.g, x, std::vector<int64_t>{0}, false, BroadcastMode::Numpy)->dtype, DType::Int64);
  EXPECT_EQ(norm(f.g, x, std::nullopt, false, BroadcastMode::Numpy)->shape, Shape{});
  EXPECT_EQ(norm(f.g, x, std::nullopt, false, BroadcastMode::Numpy)->dtype, DType::Float64);
  EXPECT_THROW(norm(f.g, f.g.input("t", DType::Float64, {f.n, f.n, f.n}), std::vector<int64_t>{0, 1, 2}, false,
                    BroadcastMode::Numpy),
               OpError);
  const Node *y = f.g.input("y", DType::Float64, {f.m, Expr(4)});
  EXPECT_EQ(dot(f.g, x, y, BroadcastMode::Numpy)->shape, (Shape{f.n, Expr(4)}));
  EXPECT_EQ(dot(f.g, f.g.literal(2.0, DType::Float64), y, BroadcastMode::Numpy)->shape, (Shape{f.m, Expr(4)}));
  EXPECT_THROW(dot(f.g, f.g.input("s", DType::Float64, {Expr(2), f.n, f.m}), y, BroadcastMode::Numpy), OpError);
}

// Matrices and numbers (ops/MatrixComposites.cpp, ops/NumericComposites.cpp): NumPy's shapes and
// refusals; values against NumPy in tests/data/numpy_programs_functions.jsonl.
TEST(Composites, MatrixAndNumericCompositesGiveNumpysShapes) {
  Fixture f;
  const BroadcastMode numpy = BroadcastMode::Numpy;
  const Node *a = f.g.input("a", DType::Float64, {f.n, f.m, Expr(3)});
  EXPECT_EQ(diagonal(f.g, a, 0, 0, 1)->shape, (Shape{Expr(3), min(f.n, f.m)}));
  EXPECT_EQ(diagonal(f.g, a, 1, 0, 1)->shape, (Shape{Expr(3), max(Expr(0), min(f.n, f.m - Expr(1)))}));
  EXPECT_EQ(trace(f.g, a, 1, 1, 2)->shape, (Shape{f.n}));
  EXPECT_THROW(diagonal(f.g, a, 0, 1, -2), OpError); // the same axis twice
  const Node *v = f.g.input("v", DType::Int32, {f.n});
  EXPECT_EQ(diag(f.g, v, -2, numpy)->shape, (Shape{f.n + Expr(2), f.n + Expr(2)}));
  EXPECT_EQ(diag(f.g, v, 0, numpy)->dtype, DType::Int32);
  EXPECT_EQ(kron(f.g, v, a, numpy)->shape, (Shape{f.n, f.m, Expr(3) * f.n}));
  EXPECT_EQ(rot90(f.g, a, 1, 0, 1)->shape, (Shape{f.m, f.n, Expr(3)}));
  EXPECT_EQ(rot90(f.g, a, 2, 0, 1)->shape, a->shape);
  EXPECT_EQ(tensordot(f.g, a, a, {0, 1}, {0, 1}, numpy)->shape, (Shape{Expr(3), Expr(3)}));
  const Node *b = f.g.input("b", DType::Float64, {f.m, f.n});
  // Each summed pair must be of one length: (n, m) against (m, n) requires n == m, not only the
  // products' equality.
  const Node *t = tensordot(f.g, a, b, {0, 1}, {0, 1}, numpy);
  EXPECT_EQ(t->shape, (Shape{Expr(3)}));
  EXPECT_FALSE(validityOf(f.g, t).domain().isTrue());
  EXPECT_EQ(linspace(f.g, f.g.literal(0, DType::Float64), f.g.literal(1, DType::Float64), f.n, true, DType::Float32, numpy)->shape,
            (Shape{f.n}));
  std::vector<const Node *> grid = meshgrid(f.g, {v, b}, true);
  EXPECT_EQ(grid[0]->shape, (Shape{f.m * f.n, f.n}));
  EXPECT_EQ(isclose(f.g, v, b, 1e-5, 1e-8, false, numpy)->dtype, DType::Bool);
  EXPECT_EQ(nanToNum(f.g, v, 0.0, std::nullopt, std::nullopt, numpy), v); // integers as they are
  const Node *w = f.g.input("w", DType::Float64, {f.m});
  const Node *x = f.g.input("x", DType::Float64, {f.n});
  EXPECT_EQ(convolveMode(f.g, x, w, "same", false)->shape, (Shape{max(f.m, f.n)}));
  EXPECT_THROW(convolveMode(f.g, x, w, "middle", false), OpError);
}

TEST(Composites, AxesCountFromTheEndWhereNegative) {
  // Every composite taking an axis reads -1 as the last one: the same node (hash-consed) as the
  // normalised axis gives. alongAxis once read -1 as no axis and gathered nothing.
  Fixture f;
  const Node *a = f.g.input("a", DType::Float64, {f.n, f.m});
  const Node *i = f.g.input("i", DType::Int64, {f.n, Expr(2)});
  EXPECT_EQ(gather(f.g, a, alongAxis(f.g, a, i, -1)), gather(f.g, a, alongAxis(f.g, a, i, 1)));
  EXPECT_EQ(gather(f.g, a, alongAxis(f.g, a, i, -1))->shape, (Shape{f.n, Expr(2)}));
  EXPECT_EQ(swapaxes(f.g, a, -1, -2), swapaxes(f.g, a, 1, 0));
  EXPECT_EQ(moveaxis(f.g, a, -1, 0), moveaxis(f.g, a, 1, 0));
  const Node *counts = f.g.input("c", DType::Int64, {f.m});
  EXPECT_EQ(repeat(f.g, a, counts, -1), repeat(f.g, a, counts, 1));
  EXPECT_EQ(flip(f.g, a, std::vector<int64_t>{-1}), flip(f.g, a, std::vector<int64_t>{1}));
  EXPECT_THROW(alongAxis(f.g, a, i, 2), UserError); // out of range: NumPy's AxisError
}

TEST(Composites, FactorizationsGiveNumpysShapes) {
  Fixture f;
  const BroadcastMode numpy = BroadcastMode::Numpy;
  const Node *a = f.g.input("a", DType::Float32, {Expr(2), f.n, f.m});
  const Expr k = min(f.n, f.m);
  const std::vector<const Node *> qr_ = qr(f.g, a, "reduced");
  EXPECT_EQ(qr_[0]->shape, (Shape{Expr(2), f.n, k}));
  EXPECT_EQ(qr_[1]->shape, (Shape{Expr(2), k, f.m}));
  EXPECT_EQ(qr_[0]->dtype, DType::Float32);
  EXPECT_EQ(qr(f.g, a, "complete")[0]->shape, (Shape{Expr(2), f.n, f.n}));
  EXPECT_THROW(qr(f.g, a, "bogus"), OpError);
  const std::vector<const Node *> usv = svd(f.g, a, true, true, false, numpy);
  EXPECT_EQ(usv[0]->shape, (Shape{Expr(2), f.n, f.n}));
  EXPECT_EQ(usv[1]->shape, (Shape{Expr(2), k}));
  EXPECT_EQ(usv[2]->shape, (Shape{Expr(2), f.m, f.m}));
  EXPECT_EQ(svd(f.g, a, false, true, false, numpy)[2]->shape, (Shape{Expr(2), k, f.m}));
  const std::vector<const Node *> wv = eigh(f.g, a, "L", true);
  EXPECT_EQ(wv[0]->shape, (Shape{Expr(2), f.n}));
  EXPECT_FALSE(wv[0]->validity.settledValid()); // square only where n == m
  EXPECT_EQ(pinv(f.g, a, f.g.literal(1e-15, DType::Float64), false, numpy)->shape, (Shape{Expr(2), f.m, f.n}));
  const Node *i = f.g.input("i", DType::Int64, {f.n, f.m});
  EXPECT_EQ(pinv(f.g, i, f.g.literal(1e-15, DType::Float64), false, numpy)->dtype, DType::Float64);
  const Node *b = f.g.input("b", DType::Float64, {f.n});
  const std::vector<const Node *> ls = lstsq(f.g, i, b, std::nullopt, numpy);
  EXPECT_EQ(ls[0]->shape, (Shape{f.m}));
  EXPECT_EQ(ls[2]->dtype, DType::Int32);
  EXPECT_EQ(ls[3]->shape, (Shape{k}));
  EXPECT_THROW(lstsq(f.g, a, b, std::nullopt, numpy), OpError); // a must be 2-d
  EXPECT_THROW(svd(f.g, b, true, true, false, numpy), OpError);  // at least 2-d
  EXPECT_EQ(matrixRank(f.g, a, nullptr, false, numpy)->shape, (Shape{Expr(2)}));
}
