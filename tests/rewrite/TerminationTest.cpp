// The reduction order of rule files (rewrite/Termination.h): every shipped rule decreases it, no
// rule's reverse does, and rewriting random programs with every rule never cycles.

#include "rewrite/Termination.h"
#include "tests/lang/ProgramFixtures.h"
#include "tests/ops/GeneratedPrograms.h"

using namespace shapelab;

TEST(Termination, EveryShippedRuleDecreasesAndItsReverseDoesNot) {
  std::size_t pattern = 0;
  for (const rewrite::Rule &r : rewrite::defaultRules()) {
    if (r.builtin) continue;
    ++pattern;
    EXPECT_TRUE(rewrite::decreasingMeasure(r).has_value()) << r.name;
    // The order is strict: a rule and its reverse cannot both decrease it (else the pair loops).
    rewrite::Rule back = r;
    std::swap(back.pattern, back.replacement);
    EXPECT_FALSE(rewrite::decreasingMeasure(back).has_value()) << r.name << " reversed";
  }
  EXPECT_GE(pattern, 60u);
}

// The class of bug the check exists for: a rule set that cycles makes the engine stop at its
// cap per node, having rewritten in circles. Over random programs in both modes, every shipped
// rule allowed to mask errors (so that more fire), no node reaches the cap.
TEST(Termination, RewritingRandomProgramsNeverCycles) {
  std::size_t fired = 0;
  for (bool staticMode : {false, true})
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      testprograms::BasicProgram p(staticMode, seed, 30);
      rewrite::EngineOptions options;
      options.allow = rewrite::Soundness::ValidGraph;
      rewrite::Engine engine(p.session.mutableGraph(), rewrite::defaultRules(), options);
      std::vector<const ops::Node *> outputs;
      for (const std::string &n : p.program.names) outputs.push_back(p.session.lookup(n));
      rewrite::OptimizeResult r = engine.run(outputs);
      EXPECT_EQ(r.capped, 0u) << "seed " << seed << (staticMode ? " static" : " numpy");
      for (const auto &kv : r.fired) fired += std::size_t(kv.second);
    }
  EXPECT_GT(fired, 0u);
}
