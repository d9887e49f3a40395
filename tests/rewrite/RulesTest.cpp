// The rule file format (rewrite/Rules.h): what parses, and every refusal named with
// FILE:LINE:COLUMN (the column 1-based, at the problem).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <regex>

#include "ops/OpList.h"
#include "rewrite/Rules.h"

using namespace shapelab;
using namespace shapelab::rewrite;

namespace {
/// The message parsing `text` gives, or "" when it parses.
std::string refusal(const std::string &text) {
  try {
    (void)parseRules(text, "t.rules");
  } catch (const RuleError &e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST(Rules, ARuleFileParses) {
  const std::vector<Rule> rules = parseRules("# comment\n"
                                             "rule double_negative: -(-x) -> x\n"
                                             "rule mul_div_cancel: (x * y) / y -> x if self.shape == x.shape and self.dtype == x.dtype\n"
                                             "  exact: no\n"
                                             "  phase: specialize\n"
                                             "  example: (x * y) / y\n"
                                             "builtin constant_fold: constants folded\n",
                                             "t.rules");
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].name, "double_negative");
  EXPECT_TRUE(rules[0].exact);
  EXPECT_EQ(rules[0].replacement->toString(), "x");
  EXPECT_EQ(rules[1].variables, (std::vector<std::string>{"x", "y"}));
  EXPECT_FALSE(rules[1].exact);
  EXPECT_EQ(rules[1].phase, Phase::Specialize);
  ASSERT_TRUE(rules[1].condition);
  EXPECT_EQ(rules[1].condition->toString(), "(self.shape == x.shape and self.dtype == x.dtype)");
  EXPECT_EQ(rules[1].examples, (std::vector<std::string>{"(x * y) / y"}));
  EXPECT_EQ(rules[1].line, 3);
  EXPECT_TRUE(rules[2].builtin);
  EXPECT_EQ(rules[2].body(), "constants folded");
  // The shipped file parses, and every rule in it has a name of its own.
  const std::vector<Rule> &shipped = defaultRules();
  EXPECT_GT(shipped.size(), 10u);
  for (std::size_t i = 0; i < shipped.size(); ++i)
    for (std::size_t j = i + 1; j < shipped.size(); ++j) EXPECT_NE(shipped[i].name, shipped[j].name);
}

TEST(Rules, EveryRefusalNamesFileLineAndColumn) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"rule r: x - x -> y", "t.rules:1:18: the replacement uses 'y', which the pattern does not bind"},
      {"rule r: x -> x", "t.rules:1:9: a pattern must be an operation, not a variable or number"},
      {"rule r: -(-x) -> x\nrule r: -(-x) -> x", "t.rules:2:6: a rule named 'r' is defined above"},
      {"  exact: no", "t.rules:1:1: an indented option line needs a rule above it"},
      {"rule r: -(-x) -> x\n  phase: later", "t.rules:2:10: unknown phase 'later' (canonicalize, specialize, fuse)"},
      {"rule r: -(-x) -> x\n  speed: fast", "t.rules:2:1: unknown option 'speed' (phase, exact, example, pytensor)"},
      {"rewrite r: -(-x) -> x", "t.rules:1:1: expected 'rule' or 'builtin', got 'rewrite'"},
      {"builtin nothing_such: what", "t.rules:1:9: no builtin rewrite is named 'nothing_such'"},
      {"rule r: -(-x) -> x if z.dtype == float64", "t.rules:1:23: the condition uses 'z', which the pattern does not bind"},
      {"rule r: -(-x) -> x x", "t.rules:1:20: unexpected text after the rule"},
      // Every other refusal of the format, each at its column.
      {"rule r: exp(x -> x", "t.rules:1:15: expected ')'"},
      {"rule : exp(x) -> x", "t.rules:1:6: expected a name"},
      {"rule r: x * 1.2.3 -> x", "t.rules:1:13: bad number '1.2.3'"},
      {"rule r: exp(x) -> x if x.shape == x.dtype", "t.rules:1:24: cannot compare a shape with a dtype"},
      {"rule r: exp(x) -> x if x.shape == y.shape", "t.rules:1:35: the condition uses 'y', which the pattern does not bind"},
      {"rule r: exp(x) -> x if x.dtype == complex64", "t.rules:1:35: the condition uses 'complex64', which the pattern does not bind"},
      {"rule r: exp(x) -> x if x.ndim < float64", "t.rules:1:24: cannot compare a size with a dtype by <"},
      {"rule r: exp(x) -> x if x.length == 3", "t.rules:1:26: 'length': a variable has .shape, .ndim, .dtype and .size"},
      {"rule r: exp(x) -> x if x.ndim", "t.rules:1:24: a condition is a comparison or a test, not a size"},
      {"rule r: exp(x) -> x if x == 1", "t.rules:1:24: 'x' is an array: a condition reads its .shape, .ndim, .dtype or .size"},
      {"rule r: exp(x) -> x if x.ndim == 1.5", "t.rules:1:34: a condition compares integers"},
      {"rule r: exp(x) -> x if is_floaty(x)", "t.rules:1:24: a condition cannot call 'is_floaty' (it may call can_cast, is_basic, is_bool, is_float, is_integer, is_signed, is_unit_slices, len)"},
      {"rule r: exp(x) -> x if not x.ndim", "t.rules:1:28: expected a truth value, got a size"},
      // Attributes, op variables, builds.
      {"rule r: sum(x, axes=a) -> x", "t.rules:1:16: 'sum' has no attribute 'axes' (it has axis, keepdims)"},
      {"rule r: exp(x, axis=0) -> x", "t.rules:1:16: 'exp' has no attribute 'axis'"},
      {"rule r: sum(x, axis=1.5) -> x", "t.rules:1:16: an attribute is an integer, a tuple of integers, a bool, a dtype or None"},
      {"rule r: sum(x, axis=a) -> a", "t.rules:1:27: the replacement uses 'a', which the pattern does not bind as an array (it is an attribute)"},
      {"rule r: sum(x, axis=x) -> x", "t.rules:1:9: 'x' names both an array and an attribute"},
      {"rule r: exp(x) -> $f(x)", "t.rules:1:19: the replacement uses '$f', which the pattern does not bind"},
      {"rule r: $f(x, y, z) -> x", "t.rules:1:9: an op variable matches a unary or binary elementwise op"},
      {"rule r: reshape(exp(x)) -> reshape(x, 3)", "t.rules:1:39: a shape: x.shape, self.shape or a tuple of sizes"},
      {"rule r: reshape(exp(x)) -> exp(reshape(x))", "t.rules:1:32: reshape takes 2 arguments here"},
      {"rule r: sum(exp(x)) -> sum(x, axes=0)", "t.rules:1:31: sum takes no attribute 'axes' here"},
      {"rule r: sum(x, axis=0, axis=1) -> x", "t.rules:1:24: the keyword 'axis' is given twice"},
      // Subscripts: one index variable, used where an index goes.
      {"rule r: exp(x)[0] -> x", "t.rules:1:16: a subscript in a rule is one index variable: x[i] stands for the whole index (its slices, integers, new axes and index array)"},
      {"rule r: x[None] -> x", "t.rules:1:11: a subscript in a rule is one index variable: x[i] stands for the whole index (its slices, integers, new axes and index array)"},
      {"rule r: x[i] -> x if i.ndim == 0", "t.rules:1:22: 'i' is an index: it is used as x[i], or in is_basic(i) or is_unit_slices(i)"},
      {"rule r: exp(x) -> x[i]", "t.rules:1:19: the replacement uses the index 'i', which the pattern does not bind"},
      {"rule r: exp(x)[i] -> x if y[i].shape == x.shape", "t.rules:1:27: the condition reads y[i], which the pattern does not match"},
      {"rule r: inc_subtensor(x, v) -> x", "t.rules:1:9: inc_subtensor matches as inc_subtensor(x[i], v)"},
      {"rule r: x[i] -> x if is_basic(x)", "t.rules:1:22: is_basic takes an index variable (bound by x[i] in the pattern)"},
      {"rule r: x[x] -> x", "t.rules:1:9: 'x' names both an index and an array or attribute"},
      {"rule r: x[i] -> x if x[i] == 1", "t.rules:1:22: x[i] is an array: a condition reads its .shape, .ndim, .dtype or .size"},
      {"rule r: exp(x)[i] -> exp(x[i])", "t.rules:1: rule r could loop: it decreases no measure of the reduction order (skeleton size, layout depth, fill height, work below reductions, size; rewrite/Termination.h)"},
      // Termination: a rule that decreases no measure, and a pair that undo each other.
      {"rule grow: exp(x) -> exp(exp(x))", "t.rules:1: rule grow could loop: it decreases no measure of the reduction order (skeleton size, layout depth, fill height, work below reductions, size; rewrite/Termination.h)"},
      {"rule r: x * y -> (x * y) * y", "t.rules:1: rule r could loop: it decreases no measure of the reduction order (skeleton size, layout depth, fill height, work below reductions, size; rewrite/Termination.h)"},
      {"rule up: exp(reshape(x)) -> reshape(exp(x), self.shape)\nrule down: reshape(exp(x)) -> exp(reshape(x, self.shape))",
       "t.rules:1: rules up and down could loop: down rewrites what up builds, and up decreases no measure of the reduction order (rewrite/Termination.h)"},
      {"rule r: frobnicate(x) -> x", "t.rules:1:9: a pattern cannot match 'frobnicate'"},
      {"rule r: exp(self) -> self", "t.rules:1:13: 'self' names the matched node in a condition only"},
      {"rule r: exp(x, y) -> x", "t.rules:1:9: exp takes one operand"},
      {"rule r: add(x) -> x", "t.rules:1:9: add takes two operands"},
      {"rule r: sum_all(x) -> x", "t.rules:1:9: a pattern cannot match 'sum_all'"},
      {"rule r: exp(x) -> diff(x)", "t.rules:1:19: a replacement cannot build 'diff'"},
      {"rule r: exp(x) -> x\n  exact: maybe", "t.rules:2:10: exact: yes or no"},
      {"rule r: exp(x) -> x\n  example:", "t.rules:2:11: an example needs an expression"},
  };
  for (const auto &[text, message] : cases) EXPECT_EQ(refusal(text), message) << text;
  EXPECT_THROW(loadRules("/no/such/file.rules"), RuleError);
}

// The names a rule may match or build are the op list's Pattern and Build rows and the ufuncs.
TEST(Rules, PatternsMatchTheOpListsPatternRows) {
  for (const ops::FunctionInfo &f : ops::functions()) {
    const std::string name(f.name);
    if (name.find('.') != std::string::npos) continue; // a rule names calls by identifiers: linalg.det is none
    const std::string asPattern = refusal("rule r: " + name + "(x) -> x\n");
    if (f.has(ops::fn::Pattern)) {
      EXPECT_EQ(asPattern.find("cannot match"), std::string::npos) << name << ": " << asPattern;
    } else {
      EXPECT_NE(asPattern.find("a pattern cannot match '" + name + "'"), std::string::npos) << name << ": " << asPattern;
    }
    const std::string asReplacement = refusal("rule r: exp(x) -> " + name + "(x)\n");
    if (f.has(ops::fn::Build)) {
      EXPECT_EQ(asReplacement.find("cannot build"), std::string::npos) << name << ": " << asReplacement;
    } else {
      EXPECT_NE(asReplacement.find("a replacement cannot build '" + name + "'"), std::string::npos) << name;
    }
  }
  for (const ops::UfuncInfo &u : ops::ufuncs())
    EXPECT_EQ(refusal("rule r: " + u.name + (u.arity == 1 ? "(x)" : "(x, y)") + " -> x\n"), "") << u.name;
}

// A number in a rule is read whole or refused: the parse of `x * N` holds N's value exactly when N
// is a decimal (digits, at most one point), and is refused otherwise (1.2.3 was read as 1.2).
RC_GTEST_PROP(Rules, ANumberIsReadWholeOrRefused, ()) {
  const std::string digits = *rc::gen::container<std::string>(rc::gen::element('0', '1', '7', '.'));
  RC_PRE(!digits.empty() && digits[0] != '.');
  const bool decimal = std::regex_match(digits, std::regex("[0-9]+(\\.[0-9]*)?"));
  std::vector<Rule> rules;
  try {
    rules = parseRules("rule r: x * " + digits + " -> x\n", "t.rules");
  } catch (const RuleError &e) {
    RC_ASSERT(!decimal);
    RC_ASSERT(std::string(e.what()).find("bad number '" + digits + "'") != std::string::npos);
    return;
  }
  RC_ASSERT(decimal);
  const Term &n = rules.at(0).pattern->args.at(1);
  RC_ASSERT(n.kind == Term::Number);
  RC_ASSERT(n.number == std::strtod(digits.c_str(), nullptr));
}
