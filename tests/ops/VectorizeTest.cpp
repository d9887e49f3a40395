// Vectorizing a graph (ops/Vectorize.h), against its definition: the batched graph at a batch
// equals the original evaluated on each example, stacked (bitwise, in the reference
// interpreter), and fails exactly where some example fails.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include <rapidcheck/gtest.h>

#include "interp/Interpreter.h"
#include "lang/Session.h"
#include "tests/lang/ProgramFixtures.h"
#include "proptests/RandomProgram.h"
#include "tests/ops/GeneratedPrograms.h"
#include "symbolic/Evaluate.h"
#include "symbolic/Solver.h"

using namespace shapelab;
using ops::DType;

namespace {

interp::Array filled(DType dtype, const std::vector<int64_t> &shape, std::mt19937_64 &rng) {
  interp::Array a(DType::Float64, shape);
  std::uniform_int_distribution<int> d(-8, 8); // small integers: every dtype holds them exactly
  for (int64_t i = 0; i < a.size(); ++i) a.base<double>()[i] = d(rng) / 4.0;
  return a.astype(dtype);
}

/// Example `i` of a batched array (its leading axis): a copy, C-contiguous.
interp::Array example(const interp::Array &batched, int64_t i) {
  std::vector<int64_t> shape(batched.shape().begin() + 1, batched.shape().end());
  const interp::Array c = batched.contiguous();
  interp::Array out(c.dtype(), shape);
  const std::size_t bytes = std::size_t(out.size()) * ops::itemSize(c.dtype());
  std::memcpy(out.base<char>(), c.base<char>() + std::size_t(i) * bytes, bytes);
  return out;
}

bool sameBits(const interp::Array &a, const interp::Array &b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  const interp::Array x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.base<char>(), y.base<char>(), std::size_t(x.size()) * ops::itemSize(x.dtype())) == 0;
}


/// At `point`, the batched array `batched` against `name` evaluated on each example, where each
/// replaced input x reads example i of its batch xb (leading axis; index 0 where that axis is
/// 1): the batched one fails iff the batches do not broadcast or some example fails, and
/// otherwise holds each example's value at its index, bitwise. True when values were compared.
bool stackedAt(lang::Session &session, const std::string &name, const std::string &batched,
               const std::vector<std::pair<std::string, std::string>> &replaced, const Assignment &point,
               const std::map<std::string, interp::Array> &given) {
  int64_t batch = 1;
  bool broadcasts = true;
  for (const auto &[x, xb] : replaced) {
    const int64_t d = given.at(xb).shape().at(0);
    if (d != 1 && batch != 1 && d != batch) broadcasts = false;
    if (d != 1) batch = d;
  }
  std::vector<std::optional<interp::Array>> each;
  for (int64_t i = 0; i < batch && broadcasts; ++i) {
    std::map<std::string, interp::Array> one = given;
    for (const auto &[x, xb] : replaced) one.insert_or_assign(x, example(given.at(xb), given.at(xb).shape()[0] == 1 ? 0 : i));
    try {
      each.push_back(session.evaluate(name, point, one));
    } catch (const interp::EvalError &) {
      each.push_back(std::nullopt);
    }
  }
  const bool fails = !broadcasts || std::any_of(each.begin(), each.end(), [](const auto &e) { return !e; });
  std::optional<interp::Array> whole;
  try {
    whole = session.evaluate(batched, point, given);
  } catch (const interp::EvalError &) {
  }
  RC_ASSERT(whole.has_value() == !fails);
  if (!whole) return false;
  RC_ASSERT(whole->rank() >= 1 && whole->shape()[0] == batch);
  for (int64_t i = 0; i < batch; ++i) RC_ASSERT(sameBits(example(*whole, i), *each[std::size_t(i)]));
  return true;
}

} // namespace

// Random programs (elementwise ops, broadcasts, reshapes, slices, reductions), in both modes,
// one float or int input replaced by a batch of b examples: at every point of the box (the
// sizes and b in 1..3), each output of the batched graph fails iff some example fails, and
// otherwise holds each example's value at its index, bitwise.
RC_GTEST_PROP(Vectorize, ABatchIsItsExamplesStacked, ()) {
  const bool staticMode = *rc::gen::arbitrary<bool>();
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  testprograms::BasicProgram program(staticMode, seed, 12);
  lang::Session &session = program.session;
  std::mt19937_64 &rng = program.rng;
  const proptests::GeneratedProgram &p = program.program;
  std::vector<const ops::Node *> inputs;
  for (const ops::Node &n : session.graph().nodes())
    if (n.kind == ops::OpKind::Input) inputs.push_back(&n);
  RC_PRE(!inputs.empty());
  const ops::Node *x = inputs[std::size_t(*rc::gen::inRange<std::size_t>(0, inputs.size()))];
  std::string shape = "(nb";
  for (const Expr &d : x->shape) shape += ", " + d.toString();
  shape += ")";
  RC_PRE(!session.execute("param nb", 80).failed);
  RC_ASSERT(!session.execute("xb_ = input(" + shape + ", " + std::string(ops::spelling(x->dtype)) + ")", 81).failed);
  // The outputs: the program's arrays that read x.
  std::vector<std::string> outputs;
  for (const std::string &name : p.names) {
    const lang::Reply r = session.execute("b_" + name + " = vectorize(" + name + ", " + x->op + "=xb_)", 82);
    if (r.failed) {
      RC_ASSERT(r.lines().at(0).find("has no batched rule") != std::string::npos);
      continue;
    }
    outputs.push_back(name);
  }
  RC_PRE(!outputs.empty());
  std::vector<std::string> params;
  for (const Expr &e : session.graph().params()) params.push_back(e->name);
  RC_PRE(params.size() <= 4);
  const std::vector<Assignment> box = testprograms::sizeBox(params, 3, {{"nb", 1}}); // (a batch of at least one)
  int compared = 0;
  for (const Assignment &point : box) {
    const int64_t batch = point.find("nb")->toInt64Checked("nb");
    std::map<std::string, interp::Array> given;
    for (const ops::Node *in : inputs) {
      std::vector<int64_t> dims;
      for (const Expr &d : in->shape) dims.push_back(evaluate(d, point)->toInt64Checked("a test size"));
      given.emplace(in->op, filled(in->dtype, dims, rng));
      if (in == x) {
        dims.insert(dims.begin(), batch);
        given.emplace("xb_", filled(in->dtype, dims, rng));
      }
    }
    for (const std::string &name : outputs) compared += stackedAt(session, name, "b_" + name, {{x->op, "xb_"}}, point, given);
  }
  RC_CLASSIFY(compared > 0, "values compared");
}

// The Blockwise wrapper (vectorize's fallback for ops without a batched rule: convolve,
// searchsorted, set/inc_subtensor, an index array after the first entry, an ifelse on batched
// data whose branches cannot raise, a wrapper batched again), in both modes: at every point of
// the box, the batched array fails iff the batches do not broadcast (static mode: unless
// equal, a batch of 1 not being provably 1) or some example fails, and else holds each
// example's value, bitwise.
namespace {
struct WrapperCase {
  const char *program;                                    // defines y from x (n,), w (m,), v (2,), j (2,) int64
  std::vector<std::pair<std::string, std::string>> batch; // input replaced, its batched declaration
};
const std::vector<WrapperCase> &wrapperCases() {
  static const std::vector<WrapperCase> cases = {
      {"y = np.convolve(x, w)", {{"x", "(b, n)"}}},
      {"y = np.convolve(x, w)", {{"x", "(b, n)"}, {"w", "(c, m)"}}},
      {"y = np.searchsorted(np.sort(w), x)", {{"w", "(b, m)"}}},
      {"y = np.searchsorted(np.sort(w), x) * 2", {{"x", "(b, n)"}, {"w", "(c, m)"}}},
      {"y = set_subtensor(x[:2], v * 2.0)", {{"x", "(b, n)"}}},
      {"y = set_subtensor(x[:2], v)", {{"v", "(b, 2)"}}},
      {"y = inc_subtensor(x[j], 1.0)", {{"j", "(b, 2)"}}},
      {"y = inc_subtensor(x[j], v)", {{"x", "(b, n)"}, {"j", "(c, 2)"}}},
      {"y = np.outer(w, x)[:, j]", {{"j", "(b, 2)"}}},
      {"y = ifelse(np.sum(x) > 0.0, x * 2.0, x - 1.0)", {{"x", "(b, n)"}}},
  };
  return cases;
}
} // namespace

RC_GTEST_PROP(Vectorize, TheBlockwiseWrapperIsItsExamplesStacked, ()) {
  // (resize: every case and point alike likely, from the first run on)
  const WrapperCase &c = wrapperCases()[*rc::gen::resize(100, rc::gen::inRange<std::size_t>(0, wrapperCases().size()))];
  const bool staticMode = *rc::gen::arbitrary<bool>();
  const bool again = *rc::gen::arbitrary<bool>(); // the batched array batched again (a wrapper of a wrapper)
  std::mt19937_64 rng(*rc::gen::arbitrary<uint64_t>());
  Solver solver;
  lang::Session session(solver, {});
  std::vector<std::string> lines = {"param n, m, b, c, d", staticMode ? "mode static" : "mode numpy", "x = input((n,), float64)",
                                    "w = input((m,), float64)", "v = input((2,), float64)", "j = input((2,), int64)", c.program};
  std::string keywords;
  std::vector<std::pair<std::string, std::string>> replaced;
  for (const auto &[x, shape] : c.batch) {
    lines.push_back(x + "b_ = input(" + shape + ", " + (x == "j" ? "int64" : "float64") + ")");
    keywords += ", " + x + "=" + x + "b_";
    replaced.push_back({x, x + "b_"});
  }
  lines.push_back("yb_ = vectorize(y" + keywords + ")");
  if (again) { // the first replaced input's batch batched again, over d
    const std::string &x = c.batch[0].first;
    std::string shape = c.batch[0].second;
    shape.insert(1, "d, ");
    lines.push_back(x + "bb_ = input(" + shape + ", " + (x == "j" ? "int64" : "float64") + ")");
    lines.push_back("ybb_ = vectorize(yb_, " + x + "b_=" + x + "bb_)");
  }
  for (const std::string &line : lines) {
    const lang::Reply r = session.execute(line, 1);
    RC_ASSERT(!r.failed);
  }
  for (const char *name : {"yb_", "ybb_"})
    if (session.lookup(name)) RC_ASSERT(session.lookup(name)->kind == ops::OpKind::Map || session.lookup(name)->kind == ops::OpKind::Binary);
  const std::vector<Assignment> box = testprograms::sizeBox({"n", "m", "b", "c", "d"}, 3, {{"b", 1}, {"c", 1}, {"d", 1}});
  const Assignment &point = box[*rc::gen::resize(100, rc::gen::inRange<std::size_t>(0, box.size()))];
  std::map<std::string, interp::Array> given;
  for (const ops::Node &in : session.graph().nodes()) {
    if (in.kind != ops::OpKind::Input) continue;
    std::vector<int64_t> dims;
    for (const Expr &e : in.shape) dims.push_back(evaluate(e, point)->toInt64Checked("a test size"));
    given.emplace(in.op, filled(in.dtype, dims, rng));
  }
  // Static mode: batches that differ do not broadcast (no batch size is provably 1).
  auto agree = [&](const std::vector<std::pair<std::string, std::string>> &r) {
    for (const auto &[x, xb] : r)
      if (given.at(xb).shape()[0] != given.at(r[0].second).shape()[0]) return false;
    return true;
  };
  bool compared;
  if (!again) {
    if (staticMode && !agree(replaced)) {
      RC_ASSERT_THROWS_AS(session.evaluate("yb_", point, given), interp::EvalError);
      return;
    }
    compared = stackedAt(session, "y", "yb_", replaced, point, given);
  } else {
    compared = stackedAt(session, "yb_", "ybb_", {{replaced[0].second, replaced[0].first + "bb_"}}, point, given);
  }
  RC_CLASSIFY(compared, "values compared");
  RC_TAG(std::string(c.program) + (compared ? " compared" : ""));
}

// The wrapper's refusals name the reason: a mask's count differs per example, and an ifelse on
// batched data whose branch can raise would raise where the example's branch does not. With no
// batch dims (an input replaced by an array of its own shape), the wrapper is its core op once
// :optimize has run (useless_blockwise).
TEST(Vectorize, TheBlockwiseWrapperRefusesWhatDiffersPerExample) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(fixtures::executesAll(session, {"param n, m, b", "x = input((n,), float64)", "w = input((m,), float64)",
                                              "xb = input((b, n), float64)", "y = np.convolve(x, w)", "z = vectorize(y, x=x + 1.0)"}));
  EXPECT_TRUE(fixtures::refusedWith(session, "q = vectorize(x[x > 0.0], x=xb)", "depends on each example's data"));
  EXPECT_TRUE(fixtures::refusedWith(session, "q = vectorize(ifelse(np.sum(x) > 0.0, x * 2.0, x * w), x=xb)", "a branch that can raise"));
  // An index array's values out of range are each example's value errors, and the wrapper's.
  ASSERT_TRUE(fixtures::executesAll(session, {"j = input((2,), int64)", "jb = input((b, 2), int64)", "ob = vectorize(np.outer(w, x)[:, j], j=jb)"}));
  int wrappedIndex = 0;
  for (const ops::Node &n : session.graph().nodes())
    if (n.kind == ops::OpKind::Map && n.attr<ops::attr::Core>().core->kind == ops::OpKind::Index) {
      EXPECT_TRUE(n.valueErrors);
      ++wrappedIndex;
    }
  EXPECT_EQ(wrappedIndex, 1);
  ASSERT_EQ(session.lookup("z")->kind, ops::OpKind::Map);
  EXPECT_EQ(toString(session.lookup("z")->shape), "(m + n - 1,)");
  const lang::Reply optimized = session.execute(":optimize z", 4);
  ASSERT_FALSE(optimized.failed);
  std::string text;
  for (const std::string &l : optimized.lines()) text += l + "\n";
  EXPECT_NE(text.find("useless_blockwise x1"), std::string::npos) << text;
  EXPECT_NE(text.find("convolve("), std::string::npos) << text;
  EXPECT_EQ(text.find("blockwise["), std::string::npos) << text;
}

// The batched forms of the ops the random programs do not make: matmul with vectors on
// either side, solve with a vector, concatenate with an unbatched operand, in_axes/out_axes;
// each against its examples.
TEST(Vectorize, GufuncsJoinsAndAxes) {
  Solver solver;
  lang::Session session(solver, {});
  for (const char *line : {"param n, m, b", "x = input((n,), float64)", "w = input((n, m), float64)", "s = input((n, n), float64)",
                           "y = np.sum(np.tanh(x @ w)) + (x @ s) @ x + np.sum(np.linalg.solve(s, x))",
                           "z = np.concatenate([x, np.ones((m,))]) * 2.0 + np.einsum('i,ij->j', x, w).sum() + np.sum(np.outer(w, x) ** 2)",
                           "xb = input((b, n), float64)", "yb, zb = vectorize([y, z], x=xb)", "xt = input((n, b), float64)", "zt = vectorize(z, x=xt, in_axes=1, out_axes=1)"}) {
    const lang::Reply r = session.execute(line, 1);
    ASSERT_FALSE(r.failed) << line << ": " << r.lines().at(0);
  }
  EXPECT_EQ(toString(session.lookup("yb")->shape), "(b,)");
  EXPECT_EQ(toString(session.lookup("zt")->shape), "(m + n, b)");
  std::mt19937_64 rng(5);
  const Assignment point{{"n", 3}, {"m", 2}, {"b", 4}};
  std::map<std::string, interp::Array> given = {{"w", filled(DType::Float64, {3, 2}, rng)}, {"s", filled(DType::Float64, {3, 3}, rng)},
                                                {"xb", filled(DType::Float64, {4, 3}, rng)}};
  for (int i = 0; i < 3; ++i) given.at("s").base<double>()[i * 4] += 4.0;
  const interp::Array yb = session.evaluate("yb", point, given), zb = session.evaluate("zb", point, given);
  for (int64_t i = 0; i < 4; ++i) {
    std::map<std::string, interp::Array> one = given;
    one.emplace("x", example(given.at("xb"), i));
    EXPECT_TRUE(sameBits(example(yb, i), session.evaluate("y", point, one))) << i;
    EXPECT_TRUE(sameBits(example(zb, i), session.evaluate("z", point, one))) << i;
  }
  // in_axes=1 reads the batch from the last axis, out_axes=1 puts it last.
  given.emplace("xt", interp::Array(given.at("xb").transposed({1, 0}).contiguous()));
  EXPECT_TRUE(sameBits(session.evaluate("zt", point, given), zb.transposed({1, 0}).contiguous()));
  // An integer index array first in the index, batched over an array the batch does not reach.
  for (const char *line : {"j = input((2,), int64)", "t = w[j, 1:] * 2.0 + w[j, 0][:, None]", "jb = input((b, 2), int64)", "tb = vectorize(t, j=jb)"}) {
    const lang::Reply r = session.execute(line, 4);
    ASSERT_FALSE(r.failed) << line << ": " << r.lines().at(0);
  }
  EXPECT_EQ(toString(session.lookup("tb")->shape), "(b, 2, max(0, m - 1))");
  given.emplace("jb", filled(DType::Int64, {4, 2}, rng)); // -2..2: within n = 3
  const interp::Array tb = session.evaluate("tb", point, given);
  for (int64_t i = 0; i < 4; ++i) {
    std::map<std::string, interp::Array> one = given;
    one.emplace("j", example(given.at("jb"), i));
    EXPECT_TRUE(sameBits(example(tb, i), session.evaluate("t", point, one))) << i;
  }
  const lang::Reply first = session.execute("q = vectorize(x[j], j=jb)", 5);
  ASSERT_FALSE(first.failed) << first.lines().at(0);
  // After the first entry, the wrapper runs each example (TheBlockwiseWrapperIsItsExamplesStacked).
  const lang::Reply later = session.execute("q2 = vectorize(w[:, j], j=jb)", 5);
  ASSERT_FALSE(later.failed) << later.lines().at(0);
  EXPECT_EQ(toString(session.lookup("q2")->shape), "(b, n, 2)");
  // Refusals name what is wrong.
  const lang::Reply bad = session.execute("q = vectorize(y, x=w)", 2);
  ASSERT_TRUE(bad.failed);
  EXPECT_NE(bad.lines().at(0).find("the last dims of input w (n, m) are not those of input x (n,)"), std::string::npos) << bad.lines().at(0);
  const lang::Reply empty = session.execute("q = vectorize([], x=xb)", 3);
  ASSERT_TRUE(empty.failed);
  EXPECT_NE(empty.lines().at(0).find("needs at least one array to rebuild"), std::string::npos) << empty.lines().at(0);
  const lang::Reply none = session.execute("q = vectorize(y, zz=xb)", 3);
  ASSERT_TRUE(none.failed);
  EXPECT_NE(none.lines().at(0).find("unexpected keyword argument 'zz': it names no array"), std::string::npos) << none.lines().at(0);
}

// An ifelse on data the batch does not reach is the same ifelse of the batched branches, which
// run lazily: the branch not taken (here a broadcast that fails, (3,) * (2,)) raises nothing,
// and the one taken fails as each example does. One the batch reaches is refused by name.
TEST(Vectorize, IfelseOnDataTheBatchDoesNotReach) {
  Solver solver;
  lang::Session session(solver, {});
  for (const char *line : {"param n, m, b", "x = input((n,), float64)", "c = input((m,), float64)",
                           "y = ifelse(np.sum(c) > 0.0, x * 2.0, x * c)", "xb = input((b, n), float64)", "yb = vectorize(y, x=xb)"}) {
    const lang::Reply r = session.execute(line, 1);
    ASSERT_FALSE(r.failed) << line << ": " << r.lines().at(0);
  }
  std::mt19937_64 rng(3);
  const Assignment point{{"n", 3}, {"m", 2}, {"b", 4}};
  for (double sign : {1.0, -1.0}) {
    interp::Array c(DType::Float64, {2});
    c.base<double>()[0] = c.base<double>()[1] = sign;
    std::map<std::string, interp::Array> given = {{"c", c}, {"xb", filled(DType::Float64, {4, 3}, rng)}};
    if (sign > 0) {
      const interp::Array yb = session.evaluate("yb", point, given);
      for (int64_t i = 0; i < 4; ++i) {
        std::map<std::string, interp::Array> one = given;
        one.emplace("x", example(given.at("xb"), i));
        EXPECT_TRUE(sameBits(example(yb, i), session.evaluate("y", point, one))) << i;
      }
    } else { // x * c: (3,) * (2,) fails, for the batch as for each example
      std::map<std::string, interp::Array> one = given;
      one.emplace("x", example(given.at("xb"), 0));
      EXPECT_THROW(session.evaluate("y", point, one), interp::EvalError);
      EXPECT_THROW(session.evaluate("yb", point, given), interp::EvalError);
    }
  }
  const lang::Reply batched = session.execute("cb = input((b, m), float64)", 2);
  ASSERT_FALSE(batched.failed);
  const lang::Reply refused = session.execute("q = vectorize(y, c=cb)", 3);
  ASSERT_TRUE(refused.failed);
  EXPECT_NE(refused.lines().at(0).find("a condition on data that reads a replaced input"), std::string::npos) << refused.lines().at(0);
}

// Random draws take the batch in front of their size, or of their parameters' batch (size
// None), each batched parameter aligned past the batch; a draw is a new variable (its values are
// not the examples'), so only shapes are compared, with NumPy's rule for the batched call.
TEST(Vectorize, RandomDrawsBatchTheirSize) {
  Solver solver;
  lang::Session session(solver, {});
  for (const char *line : {"param n, b", "loc = input((n,), float64)", "d = np.random.normal(loc, 1.0)",
                           "e = np.random.normal(loc, 1.0, size=(3, n))", "mv = np.random.multivariate_normal(loc, np.eye(n))",
                           "lb = input((b, n), float64)", "db, eb, mb = vectorize([d, e, mv], loc=lb)"}) {
    const lang::Reply r = session.execute(line, 1);
    ASSERT_FALSE(r.failed) << line << ": " << r.lines().at(0);
  }
  EXPECT_EQ(toString(session.lookup("db")->shape), "(b, n)");
  EXPECT_EQ(toString(session.lookup("eb")->shape), "(b, 3, n)");
  EXPECT_EQ(toString(session.lookup("mb")->shape), "(b, n)");
  const interp::Array eb = session.evaluate("eb", {{"n", 2}, {"b", 4}}, {});
  EXPECT_EQ(eb.shape(), (std::vector<int64_t>{4, 3, 2}));
  const lang::Reply perm = session.execute("p = np.random.permutation(n)", 2);
  ASSERT_FALSE(perm.failed);
}
