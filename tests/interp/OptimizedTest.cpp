// The optimized interpreter (interp/Optimized.h): views, shared sincos, parallel loops with the reference's bits.

#include "tests/lang/ProgramFixtures.h"

using namespace shapelab;
using namespace shapelab::fixtures;

// The optimized interpreter makes basic indexing and split views (no copies) and computes
// through them what the reference computes; the input is never written.
TEST(Optimized, BasicIndexingAndSplitAreViews) {
  Solver solver;
  lang::Session session(solver, {});
  std::vector<std::string> lines = {"param n, m", "x = input((n, m), float64)", "y = x[1:, ::-2]",
                                    "z = exp(y) * 2.0 + x[:3, ::2]", "a, b = split(x, 2, axis=0)", "w = a[:, None, :] - b[::-1, None, :]",
                                    "s = x[-1, 2]"};
  ASSERT_TRUE(executesAll(session, lines));
  Assignment point{{"n", 4}, {"m", 5}};
  std::map<std::string, interp::Array> inputs;
  interp::addSeededInputs(session.graph(), point, 3, inputs);
  interp::Array before = inputs.at("x").astype(ops::DType::Float64);
  for (const char *name : {"y", "z", "w", "s"}) {
    interp::Interpreter reference(session.graph(), point, inputs, {});
    interp::OptimizedInterpreter optimized(session.graph(), point, inputs, {});
    optimized.setLibmMath(true);
    interp::Array want = reference.evaluate(session.lookup(name)), got = optimized.evaluate(session.lookup(name));
    EXPECT_TRUE(want.identical(got)) << name << ": " << want.toString() << " vs " << got.toString();
    EXPECT_GE(optimized.stats().views, 1u) << name;
  }
  EXPECT_TRUE(inputs.at("x").identical(before));
}

// sin and cos of one operand in a fused loop are one sincos (the argument reduction shared):
// with the C library's functions the loop gives the reference's bits; with the vector ones, each
// value within the stated bound of the reference's (VectorMathTest measures sincos itself).
TEST(Optimized, SinAndCosOfOneOperandShareOneSincos) {
  Solver solver;
  lang::Session session(solver, {});
  std::vector<std::string> lines = {"param n", "x = input((n,), float64)",
                                    "z = exp(-((sin(x)*0.5 + cos(x))**2)) + x - sin(x + 1.0)"};
  ASSERT_TRUE(executesAll(session, lines));
  Assignment point{{"n", 1000}};
  std::map<std::string, interp::Array> inputs;
  interp::addSeededInputs(session.graph(), point, 5, inputs);
  interp::Interpreter reference(session.graph(), point, inputs, {});
  interp::Array want = reference.evaluate(session.lookup("z"));
  for (bool libm : {true, false}) {
    interp::OptimizedInterpreter optimized(session.graph(), point, inputs, {});
    optimized.setLibmMath(libm);
    interp::Array got = optimized.evaluate(session.lookup("z"));
    EXPECT_EQ(optimized.stats().sinCos, 1u) << "sin(x) and cos(x) fused; sin(x + 1.0) has no partner";
    ASSERT_EQ(got.shape(), want.shape());
    if (libm) {
      EXPECT_TRUE(want.identical(got)) << want.toString() << " vs " << got.toString();
      continue;
    }
    const double *w = want.base<double>() + want.offset(), *g = got.base<double>() + got.offset();
    for (int64_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(g[i], w[i], 1e-12 * std::max(1.0, std::fabs(w[i]))) << "element " << i;
  }
}

// A fused loop large enough to be shared between threads (chunks handed out from a counter)
// gives the reference's bits for every thread count, whatever the leaves are: contiguous,
// gathered through a transpose, broadcast along an axis, a scalar. 301 x 257 elements are more
// than the parallel threshold and not a whole number of chunks or blocks.
TEST(Optimized, ParallelFusedLoopsGiveTheReferencesBits) {
  Solver solver;
  lang::Session session(solver, {});
  std::vector<std::string> lines = {"param n, m", "x = input((n, m), float64)", "t = input((m, n), float64)",
                                    "r = input((m,), float64)", "z = exp(-((sin(x)*0.5 + cos(x))**2)) + transpose(t) * r - 3.0"};
  ASSERT_TRUE(executesAll(session, lines));
  Assignment point{{"n", 301}, {"m", 257}};
  std::map<std::string, interp::Array> inputs;
  interp::addSeededInputs(session.graph(), point, 11, inputs);
  interp::Array want = interp::Interpreter(session.graph(), point, inputs, {}).evaluate(session.lookup("z"));
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    interp::OptimizedInterpreter optimized(session.graph(), point, inputs, {});
    optimized.setLibmMath(true);
    optimized.setThreads(threads);
    interp::Array got = optimized.evaluate(session.lookup("z"));
    EXPECT_EQ(optimized.stats().fusedLoops, 1u) << threads << " threads";
    EXPECT_TRUE(want.identical(got)) << threads << " threads";
  }
}
