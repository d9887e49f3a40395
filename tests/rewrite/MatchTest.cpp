// What a rule's terms mean on a graph (rewrite/Match.h): attributes matched and bound, op
// variables, conditions proven as one predicate, replacements built with shapes and attributes.

#include "rewrite/Match.h"
#include "tests/lang/ProgramFixtures.h"

using namespace shapelab;
using namespace shapelab::fixtures;

namespace {

/// The node `name` of a session that ran `lines`, rewritten by `rule` alone where it applies at
/// that node (the rule's own replacement, unchecked), or null.
struct Applied {
  Solver solver;
  lang::Session session{solver, {}};
  const ops::Node *node = nullptr, *result = nullptr;
  Applied(const std::vector<std::string> &lines, const std::string &name, const std::string &ruleText) {
    EXPECT_TRUE(executesAll(session, lines));
    node = session.lookup(name);
    std::vector<rewrite::Rule> rules = rewrite::parseRules(ruleText, "t.rules");
    rewrite::Engine engine(session.mutableGraph(), rules);
    result = engine.tryRule(rules.at(0), node);
  }
};

} // namespace

TEST(Match, AttributesBindAndConditionsReadThem) {
  const std::string rule = "rule r: sum(x, axis=a, keepdims=False) -> squeeze(x, axis=a) if x.shape[a] == 1";
  // Axes 0 and 2 are 1: the sum over them is a squeeze of them.
  Applied yes({"param n", "t = input((1, n, 1), float64)", "s = sum(t, axis=(0, 2))"}, "s", rule);
  ASSERT_NE(yes.result, nullptr);
  EXPECT_EQ(yes.result->kind, ops::OpKind::Squeeze);
  EXPECT_EQ(yes.result->attr<ops::attr::Dropped>().axes, (std::vector<int64_t>{0, 2}));
  // Axis 1 is n, not proven 1: no.
  Applied no({"param n", "t = input((1, n, 1), float64)", "s = sum(t, axis=(0, 1))"}, "s", rule);
  EXPECT_EQ(no.result, nullptr);
  // Under an assumption that makes it 1, yes.
  Applied assumed({"param n", "assume n == 1", "t = input((1, n, 1), float64)", "s = sum(t, axis=(0, 1))"}, "s", rule);
  EXPECT_NE(assumed.result, nullptr);
  // keepdims=True does not match keepdims=False.
  Applied kept({"t = input((1, 3), float64)", "s = sum(t, axis=0, keepdims=True)"}, "s", rule);
  EXPECT_EQ(kept.result, nullptr);
  // A literal axis matches after normalising a negative one; None matches every axis.
  Applied last({"t = input((2, 1), float64)", "s = sum(t, axis=-1)"}, "s",
               "rule r: sum(x, axis=-1) -> squeeze(x, axis=1) if x.shape[1] == 1");
  EXPECT_NE(last.result, nullptr);
  Applied all({"t = input((1, 1), float64)", "s = sum(t)"}, "s", "rule r: sum(x, axis=None) -> squeeze(x) if x.size == 1");
  EXPECT_NE(all.result, nullptr);
}

TEST(Match, OpVariablesMatchOneOpThroughout) {
  const std::string rule = "rule r: $f($f(x)) -> $f(x)\n  exact: no";
  Applied same({"x = input((3,), float64)", "y = exp(exp(x))"}, "y", rule);
  ASSERT_NE(same.result, nullptr);
  EXPECT_EQ(same.result->op, "exp");
  Applied other({"x = input((3,), float64)", "y = exp(log(x))"}, "y", rule);
  EXPECT_EQ(other.result, nullptr);
  // Arity: a binary op variable matches binary ops only.
  Applied binary({"x = input((3,), float64)", "y = x * x"}, "y", "rule r: $g(x, x) -> x\n  exact: no");
  EXPECT_NE(binary.result, nullptr);
  Applied unary({"x = input((3,), float64)", "y = -x"}, "y", "rule r: $g(x, x) -> x\n  exact: no");
  EXPECT_EQ(unary.result, nullptr);
}

TEST(Match, ConditionsAreProvenPredicates) {
  const std::string rule = "rule r: reshape(x) -> x if self.shape == x.shape or (x.ndim == 1 and x.shape[0] <= 1)";
  // The disjunction: the second part holds where x has at most one element... as a proof, not a
  // guess: (n,) -> (n,) is the first part; a length assumed <= 1 and reshaped to (1,) is not
  // the same shape, and the condition then proves nothing about values: the engine's checker
  // refuses the application (a shape change), the condition only says where the rule is tried.
  Applied first({"param n", "x = input((n,), float64)", "y = reshape(x, (n,))"}, "y", rule);
  EXPECT_NE(first.result, nullptr);
  Applied neither({"param n", "x = input((n, 2), float64)", "y = reshape(x, (2, n))"}, "y", rule);
  EXPECT_EQ(neither.result, nullptr);
  // Dtype tests and can_cast.
  Applied cast({"x = input((3,), float32)", "y = astype(astype(x, float64), float32)"}, "y",
               "rule r: astype(astype(x, dtype=a), dtype=b) -> x if b == x.dtype and can_cast(x.dtype, a) and is_float(x)");
  EXPECT_EQ(cast.result, cast.session.lookup("x"));
  Applied narrowing({"x = input((3,), float64)", "y = astype(astype(x, float32), float64)"}, "y",
                    "rule r: astype(astype(x, dtype=a), dtype=b) -> x if b == x.dtype and can_cast(x.dtype, a)");
  EXPECT_EQ(narrowing.result, nullptr); // float64 -> float32 loses: not a safe cast
}

TEST(Match, ReplacementsBuildShapesAndAttributes) {
  Applied chain({"param n", "x = input((n, 2, 3), float64)", "y = sum(sum(x, axis=0, keepdims=True), axis=2, keepdims=True)"}, "y",
                "rule r: sum(sum(x, axis=a, keepdims=True), axis=b, keepdims=True) -> sum(x, axis=a + b, keepdims=True)\n  exact: no");
  ASSERT_NE(chain.result, nullptr);
  EXPECT_EQ(chain.result->inputs[0], chain.session.lookup("x"));
  EXPECT_EQ(chain.result->attr<ops::attr::Reduction>().axes, (std::vector<int64_t>{0, 2}));
  EXPECT_TRUE(chain.result->attr<ops::attr::Reduction>().keepdims);
  // A fill of the matched node's shape and dtype (the node itself is not computed).
  Applied zero({"param n", "x = input((n, 2), float32)", "y = x * 0"}, "y",
               "rule r: x * 0 -> full(self.shape, 0, dtype=self.dtype)\n  exact: no");
  ASSERT_NE(zero.result, nullptr);
  EXPECT_EQ(zero.result->kind, ops::OpKind::Alloc);
  EXPECT_EQ(zero.result->shape, zero.node->shape);
  EXPECT_EQ(zero.result->dtype, ops::DType::Float32);
  // Its program text at a point, for the checker's reproducers.
  std::vector<rewrite::Rule> rules = rewrite::parseRules("rule r: x * 0 -> full(self.shape, 0, dtype=self.dtype)\n  exact: no", "t");
  rewrite::Engine engine(zero.session.mutableGraph(), rules);
  auto nameOf = [&](const ops::Node *n) -> std::optional<std::string> {
    if (n == zero.session.lookup("x")) return "x";
    return std::nullopt;
  };
  EXPECT_EQ(engine.replacementText(rules[0], zero.node, nameOf, Assignment{{"n", 4}}), std::optional<std::string>("full((4, 2), 0, dtype=float32)"));
}

// Every function the op list lets rules build has a builder, and one rules may match has a kind.
TEST(Match, EveryBuildRowHasABuilder) {
  for (const ops::FunctionInfo &f : ops::functions()) {
    if (f.has(ops::fn::Build)) {
      EXPECT_NE(rewrite::buildSpec(std::string(f.name)), nullptr) << f.name;
    }
    if (f.has(ops::fn::Pattern)) {
      EXPECT_TRUE(f.kind.has_value()) << f.name;
    }
  }
}

// `x[i]` binds a whole index: is_basic/is_unit_slices read it, x[i].shape reads the matched
// indexing, a replacement applies the same index to another array, and set_subtensor(x[i], v)
// matches the write through its region.
TEST(Match, SubscriptsBindTheWholeIndex) {
  const std::string useless = "rule r: x[i] -> x if is_unit_slices(i) and self.shape == x.shape";
  Applied whole({"param n", "x = input((n, 3), float64)", "y = x[:, 0:3]"}, "y", useless);
  EXPECT_EQ(whole.result, whole.session.lookup("x"));
  // A slice that may drop elements, a step, an integer, a new axis: not unit slices, or not the same shape.
  for (const char *index : {"x[1:]", "x[::-1]", "x[0]", "x[None]", "x[:, 0:2]"}) {
    Applied part({"param n", "x = input((n, 3), float64)", std::string("y = ") + index}, "y", useless);
    EXPECT_EQ(part.result, nullptr) << index;
  }
  // is_basic: no index array.
  const std::string basic = "rule r: full(v)[i] -> full(self.shape, v, dtype=self.dtype) if v.ndim == 0 and is_basic(i)";
  Applied sliced({"param n", "y = full((n, 4), 2.5)[1:, ::2]"}, "y", basic);
  ASSERT_NE(sliced.result, nullptr);
  EXPECT_EQ(sliced.result->kind, ops::OpKind::Alloc);
  EXPECT_EQ(sliced.result->shape, sliced.node->shape);
  Applied gathered({"param n", "j = input((2,), int64)", "y = full((n, 4), 2.5)[j]"}, "y", basic);
  EXPECT_EQ(gathered.result, nullptr);
  // The index applied to another operand, and its program text at a point.
  const std::string moved = "rule r: $f(x)[i] -> x[i]\n  exact: no";
  Applied written({"param n", "x = input((n, 3), float64)", "w = x[1:, None, 2]", "y = exp(x)[1:, None, 2]"}, "y", moved);
  ASSERT_NE(written.result, nullptr);
  EXPECT_EQ(written.result, written.session.lookup("w")); // the same index on x: the same node
  std::vector<rewrite::Rule> rules = rewrite::parseRules(moved, "t");
  rewrite::Engine engine(written.session.mutableGraph(), rules);
  auto nameOf = [&](const ops::Node *n) -> std::optional<std::string> {
    if (n == written.session.lookup("x")) return "x";
    return std::nullopt;
  };
  EXPECT_EQ(engine.replacementText(rules[0], written.node, nameOf, Assignment{{"n", 4}}), std::optional<std::string>("x[1:, None, 2]"));
  // set_subtensor(x[i], v) and x[i].shape.
  const std::string write =
      "rule r: set_subtensor(x[i], v) -> v if is_unit_slices(i) and x[i].shape == x.shape and v.shape == x.shape";
  Applied all({"param n", "x = input((n, 3), float64)", "y = set_subtensor(x[:], exp(x))"}, "y", write);
  ASSERT_NE(all.result, nullptr);
  EXPECT_EQ(all.result->op, "exp");
  Applied some({"param n", "x = input((n, 3), float64)", "y = set_subtensor(x[1:], exp(x[1:]))"}, "y", write);
  EXPECT_EQ(some.result, nullptr);
}
