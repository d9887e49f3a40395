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

// The settings the backend studies compare give the reference's bits: a chain of 0-d operations
// as scalar code or through the block loop, every elementwise op its own loop, layout ops copied
// rather than viewed; each setting shows in the counts.
TEST(Optimized, FusionScalarCodeAndViewSettingsGiveTheReferencesBits) {
  Solver solver;
  lang::Session session(solver, {});
  std::vector<std::string> lines = {"param n", "s = input((), float64)", "t = ((s + 1.0) * 2.0 - exp(s)) / 3.0 + sin(s)",
                                    "x = input((n, 3), float64)", "y = exp(transpose(x)) * 0.5 + cos(transpose(x)) - s"};
  ASSERT_TRUE(executesAll(session, lines));
  Assignment point{{"n", 5}};
  std::map<std::string, interp::Array> inputs;
  interp::addSeededInputs(session.graph(), point, 7, inputs);
  for (const char *name : {"t", "y"}) {
    interp::Array want = interp::Interpreter(session.graph(), point, inputs, {}).evaluate(session.lookup(name));
    for (int setting = 0; setting < 8; ++setting) {
      const bool fusion = setting & 1, scalar = setting & 2, views = setting & 4;
      interp::OptimizedInterpreter optimized(session.graph(), point, inputs, {});
      optimized.setLibmMath(true);
      optimized.setFusion(fusion);
      optimized.setScalarCode(scalar);
      optimized.setViews(views);
      interp::Array got = optimized.evaluate(session.lookup(name));
      const std::string where = std::string(name) + " fusion " + std::to_string(fusion) + " scalar " +
                                std::to_string(scalar) + " views " + std::to_string(views);
      EXPECT_TRUE(want.identical(got)) << where << ": " << want.toString() << " vs " << got.toString();
      const interp::OptimizedStats &st = optimized.stats();
      // t: 7 elementwise ops on 0-d values; y: 5 on (3, n), read through one transpose (hash-consed).
      const std::size_t ops = name[0] == 't' ? 7 : 5;
      EXPECT_EQ(st.fusedLoops, fusion ? 1u : ops) << where;
      EXPECT_EQ(st.fusedNodes, ops) << where;
      EXPECT_EQ(st.scalarLoops, name[0] == 't' && scalar ? st.fusedLoops : 0u) << where;
      EXPECT_EQ(st.views, name[0] == 'y' && views ? 1u : 0u) << where;
    }
  }
}

// With views off, a layout op's copy is a fresh array the next loop may write in place (the
// inplace-views study's "fresh" side); with views on, the transpose is a view of the input,
// which no loop writes. Both give the reference's bits, and the input is never written.
TEST(Optimized, ACopiedLayoutOpIsWrittenInPlaceAndAViewNever) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param n", "x = input((n, 3), float64)", "e = exp(transpose(x)) + 1.0"}));
  Assignment point{{"n", 6}};
  std::map<std::string, interp::Array> inputs;
  interp::addSeededInputs(session.graph(), point, 4, inputs);
  const interp::Array before = inputs.at("x").astype(ops::DType::Float64);
  const interp::Array want = interp::Interpreter(session.graph(), point, inputs, {}).evaluate(session.lookup("e"));
  for (bool views : {true, false}) {
    interp::OptimizedInterpreter optimized(session.graph(), point, inputs, {});
    optimized.setLibmMath(true);
    optimized.setViews(views);
    EXPECT_TRUE(want.identical(optimized.evaluate(session.lookup("e")))) << "views " << views;
    EXPECT_EQ(optimized.stats().inPlace, views ? 0u : 1u) << "views " << views;
    EXPECT_EQ(optimized.stats().views, views ? 1u : 0u) << "views " << views;
  }
  EXPECT_TRUE(inputs.at("x").identical(before));
}
