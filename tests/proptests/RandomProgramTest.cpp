// The random-program generator (proptests/RandomProgram.h) against the op list: over a few
// hundred seeds it makes a node of every kind the list has (ops/OpKinds.def) and calls every
// function the list builds as one op. A kind or function added to the list and forgotten here
// fails this test, instead of going untested by the differential harness.
#include "tests/lang/ProgramFixtures.h"

#include <set>

using namespace shapelab;

TEST(RandomProgram, CoversEveryKindAndFunctionOfTheOpList) {
  std::set<ops::OpKind> kinds;
  std::set<std::string> ops;
  Solver solver;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    lang::Session session(solver, {});
    std::mt19937_64 rng(seed);
    proptests::generateProgram(session, rng, 60);
    for (const ops::Node &n : session.graph().nodes()) kinds.insert(n.kind), ops.insert(n.op);
  }
  for (unsigned k = 0; k <= unsigned(ops::OpKind::Einsum); ++k)
    EXPECT_TRUE(kinds.count(ops::OpKind(k))) << "no " << ops::kindName(ops::OpKind(k)) << " node in 300 programs";
  // Functions the list builds as one node of a kind shared with others (told apart by the op);
  // NumPy's other names for some of them are resolved by the language to the one name.
  const std::set<std::string> otherNames = {"amax", "amin", "divide", "mod"};
  for (const ops::FunctionInfo &f : ops::functions())
    if (f.kind && ops::hasTrait(*f.kind, ops::trait::NamedByOp) && f.has(ops::fn::Function) && !otherNames.count(std::string(f.name))) {
      std::string op(f.name);
      if (op.rfind("linalg.", 0) == 0) op = op.substr(7);
      EXPECT_TRUE(ops.count(op)) << "no call of " << f.name << " in 300 programs";
    }
}
