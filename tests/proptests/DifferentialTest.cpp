// The differential harness (proptests/Differential.h): rewritten and optimized against the reference, first errors alike.

#include "tests/lang/ProgramFixtures.h"

using namespace shapelab;
using namespace shapelab::fixtures;

// The differential property (proptests/Differential.h) on RapidCheck's draws: a program of
// 1..20 statements in either mode, its seed, and the number of random points.
RC_GTEST_PROP(Differential, RewrittenOptimizedAgreesWithReference, ()) {
  proptests::DifferentialOptions o;
  o.statements = *rc::gen::inRange(1, 21);
  o.points = *rc::gen::inRange(1, 4);
  o.mode = *rc::gen::element(BroadcastMode::Numpy, BroadcastMode::Static);
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  std::optional<proptests::DifferentialFailure> failure = proptests::checkRandomProgram(seed, o);
  if (failure) RC_FAIL(failure->message + "\n" + failure->script());
}

// Found by the RapidCheck property above: in a fused loop the reference's first error must come
// first — minimum(in4 / in5, inv(...)) raises the division's broadcast error before inv runs.
TEST(Differential, FusedLoopRaisesTheReferencesFirstError) {
  std::vector<std::string> lines = {"mode static",
                                    "param n, m",
                                    "in0 = input((n, m), float64)",
                                    "in4 = input((3,), int64)",
                                    "in5 = input((n,), float32)",
                                    "v6 = linalg.inv(in0 @ transpose(in0) + 1.0)",
                                    "v8 = in4 / in5",
                                    "v9 = minimum(v8, v6)"};
  proptests::DifferentialOptions o;
  o.points = 1;
  o.mode = BroadcastMode::Static;
  std::optional<std::string> failure = proptests::checkProgram(lines, 47585383716u, o);
  EXPECT_FALSE(failure) << *failure;
}
