// Reverse-mode gradients (ops/Grad.h), against oracles independent of them: central finite
// differences of the cost (the reference interpreter, float64), and, for the error domain, the
// cost's own evaluation at every point of a small box.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include <rapidcheck/gtest.h>

#include "interp/Interpreter.h"
#include "lang/Session.h"
#include "ops/Grad.h"
#include "proptests/RandomProgram.h"
#include "tests/ops/GeneratedPrograms.h"
#include "symbolic/Evaluate.h"
#include "symbolic/Solver.h"

using namespace shapelab;
using ops::DType;
using ops::isFloat;

namespace {

struct Fixture {
  Solver solver;
  lang::Session session;
  explicit Fixture(lang::SessionOptions o = {}) : session(solver, o) {}
  void run(const std::string &line) {
    const lang::Reply r = session.execute(line, 1);
    ASSERT_FALSE(r.failed) << line << ": " << (r.lines().empty() ? "" : r.lines()[0]);
  }
};

interp::Array filled(const std::vector<int64_t> &shape, std::mt19937_64 &rng, double low, double high) {
  interp::Array a(DType::Float64, shape);
  std::uniform_real_distribution<double> d(low, high);
  for (int64_t i = 0; i < a.size(); ++i) a.base<double>()[i] = d(rng);
  return a;
}

double scalar(const interp::Array &a) { return a.astype(DType::Float64).contiguous().base<double>()[0]; }

/// The largest gap between each gradient and central differences of the cost, relative to
/// 1 + |the difference|, over every element of every input named in `wrt` (h = 1e-6). With
/// `robust` (random programs), elements are left out where the difference is no derivative to
/// compare with: where the gradient is not finite (a step through an infinity: 0 * inf is NaN
/// in the chain rule, where the cost is locally flat), and where the difference with h = 1e-5
/// disagrees with it (the cost curves too fast there: a quotient by a mean near 0).
double worstGap(lang::Session &session, const std::string &cost, const std::vector<std::pair<std::string, std::string>> &wrt,
                const Assignment &point, std::map<std::string, interp::Array> inputs, bool robust = false) {
  double worst = 0;
  for (const auto &[input, gradient] : wrt) {
    const interp::Array g = session.evaluate(gradient, point, inputs).astype(DType::Float64).contiguous();
    interp::Array &x = inputs.at(input);
    EXPECT_EQ(g.shape(), x.shape()) << gradient;
    for (int64_t i = 0; i < x.size(); ++i) {
      if (robust && !std::isfinite(g.base<double>()[i])) continue;
      const double kept = x.base<double>()[i];
      auto difference = [&](double h) {
        x.base<double>()[i] = kept + h;
        const double up = scalar(session.evaluate(cost, point, inputs));
        x.base<double>()[i] = kept - h;
        const double down = scalar(session.evaluate(cost, point, inputs));
        x.base<double>()[i] = kept;
        return (up - down) / (2 * h);
      };
      const double numeric = difference(1e-6);
      if (robust && !(std::abs(difference(1e-5) - numeric) <= 1e-6 * (1 + std::abs(numeric)))) continue;
      worst = std::max(worst, std::abs(numeric - g.base<double>()[i]) / (1 + std::abs(numeric)));
    }
  }
  return worst;
}

} // namespace

// One cost per adjoint rule (elementwise, broadcasting both ways, reductions, layout, indexing,
// joins, products, solves, cumsum, diff, set/inc_subtensor): each gradient within 1e-6 of
// central differences (relative to 1 + |difference|; h = 1e-6 leaves errors near 1e-9).
TEST(Grad, EveryRuleAgreesWithFiniteDifferences) {
  const std::vector<std::string> costs = {
      "np.sum(np.exp(x) * np.log(a) + np.sin(v[:, None]) / w)",
      "np.sum(np.tanh(x) ** 2 + np.sqrt(a) * np.cos(x) - np.arctan(x) + np.abs(x - 0.5))",
      "np.sum(np.maximum(x, v[:, None] * 0.9) + np.minimum(x, 0.6) + np.where(x > 0.8, x * x, a))",
      "np.mean(x ** a) + np.sum(np.hypot(x, v[:, None])) + np.sum(np.arctan2(x, w)) + np.sum(np.logaddexp(x, a))",
      "np.sum(np.max(x, axis=0) * np.min(x * a, axis=1, keepdims=True)) + np.prod(v)",
      "np.sum(np.transpose(x) @ x) + np.sum(x.reshape(-1)[1::2] ** 2) + np.sum(np.expand_dims(v, 1) * x)",
      "np.sum(np.concatenate([x, a], axis=1) ** 2) + np.sum(np.stack([v, v * v], axis=0)[1]) + np.sum(np.split(w, 1)[0])",
      "np.sum(x[[0, 2, 0]] * 3.0) + np.sum(x[1:, ::-1] ** 3) + np.sum(x[x > 0.9])",
      "np.sum(np.linalg.inv(s)) + np.linalg.det(s) + np.sum(np.linalg.solve(s, v)) + np.sum(np.linalg.solve(s, x))",
      // cholesky reads s's lower triangle (diagonal 3 + entries in (-1, 1): positive definite)
      "np.sum(np.linalg.cholesky(s) * a) + np.linalg.slogdet(s)[1]",
      "np.sum(np.linalg.cholesky(s @ s.T + 0.5 * np.eye(n)) ** 2)",
      // eigh reads one triangle; eigenvectors up to sign (a cost of their squares does not see it).
      "np.sum(np.linalg.eigvalsh(s) * v) + np.sum(np.linalg.eigh(s, UPLO='U')[0] ** 2) + np.sum(np.linalg.eigh(s)[1] ** 2 * a)",
      "np.sum(np.linalg.eigh(s @ s.T)[1] ** 2 * x[:, :1]) + np.sum(np.linalg.svd(x, compute_uv=False) ** 2) + np.sum(np.linalg.svd(s)[1] * v)",
      // svd's vectors (reduced) of square and rectangular matrices: costs their signs do not change.
      "np.sum(np.linalg.svd(x, full_matrices=False)[0] ** 2 * a[:, :1]) + np.sum((np.linalg.svd(x, full_matrices=False)[2] ** 2) * w[:1])",
      // qr (reduced) of tall, square and wide matrices; Q and R up to the signs of R's diagonal.
      "np.sum(np.linalg.qr(x)[1] ** 2 * a[:1, :]) + np.sum(np.linalg.qr(x)[0] ** 2 * a[:, :1])",
      "np.sum(np.linalg.qr(x)[0] @ np.linalg.qr(x)[1] * a) + np.sum(np.abs(np.linalg.qr(s, mode='r')))",
      "np.sum(np.linalg.pinv(x) ** 2) + np.sum(np.linalg.svd(s, full_matrices=False)[0] @ np.linalg.svd(s, full_matrices=False)[2] * a[:, :1])",
      "np.sum(np.cumsum(x, axis=1) ** 2) + np.sum(np.diff(v, n=2) ** 2) + np.sum(np.cumsum(a))",
      "np.sum(np.einsum('ij,ik->jk', x, a) ** 2) + np.sum(np.outer(v, w)) + np.sum(v @ x) + v @ v",
      // Diagonals (a label repeated in an operand) and labels summed within one operand alone.
      "np.sum(np.einsum('ii->i', s) ** 2) + np.einsum('ii', s * s) + np.sum(np.einsum('ij->i', x) ** 2) + np.einsum('ij->', a)",
      "np.sum(np.einsum('ii,ij->ij', s, x) ** 2) + np.sum(np.einsum('ij,i->', x, v) * np.einsum('jj,j->j', s, v))",
      "np.sum(set_subtensor(x[0], w) ** 2) + np.sum(inc_subtensor(a[:, 1], v) ** 2) + np.sum(np.broadcast_to(w, (n, m)) * x)",
      "np.sum(np.sort(x, axis=1) * a) + np.sum(np.sort(v) * np.arange(n)) + np.sum(np.convolve(v, w) ** 2)",
      "np.sum(np.convolve(w, v * v) * np.arange(n + m - 1))",
      "np.sum(np.cumprod(x, axis=1) * a) + np.sum(ifelse(n > 2, x, a)) + np.sum(ifelse(n > 5, v, v * 2.0))",
      // ifelse on data: conditions that always hold (v >= 0.2), never hold, or go either way.
      "np.sum(ifelse(np.sum(x) > np.sum(a) * 0.55, x * x, a)) + np.sum(ifelse(np.sum(x) < np.sum(a) * 0.55, np.sin(x), v[:, None] * a))",
      "np.sum(ifelse(np.min(v) > 0.1, v, v[::-1] * w[:1])) + np.sum(ifelse(np.min(v) > 10.0, w, w * w))",
      // Integer and bool arrays on the way carry nothing (abs of an int64 has no sign to take).
      "np.sum(np.abs((x > 0.5).astype(np.int64) - 1) * x) + np.sum(np.floor(x * 4.0) * a)",
      "np.sum(sum_to(x * a, (1, m)) ** 2) + np.sum(np.full((n, m), v[:, None]) * x) + np.sum(x.astype(np.float16).astype(np.float64) * 0.0 + x)",
  };
  std::mt19937_64 rng(7);
  for (const std::string &cost : costs) {
    Fixture f;
    for (const char *line : {"param n, m", "x = input((n, m), float64)", "a = input((n, m), float64)", "v = input((n,), float64)",
                             "w = input((m,), float64)", "s = input((n, n), float64)"})
      f.run(line);
    f.run("cost = " + cost);
    // Differentiate with respect to the inputs the cost reads.
    std::vector<std::pair<std::string, std::string>> wrt;
    std::string list;
    for (const char *x : {"x", "a", "v", "w", "s"}) {
      const lang::Reply r = f.session.execute("g_" + std::string(x) + " = grad(cost, " + x + ")", 2);
      if (r.failed) {
        ASSERT_NE(r.lines().at(0).find("does not depend on input " + std::string(x)), std::string::npos) << cost << ": " << r.lines()[0];
        continue;
      }
      wrt.emplace_back(x, "g_" + std::string(x));
    }
    ASSERT_FALSE(wrt.empty()) << cost;
    // At sizes where a result is empty or one long too (diff of fewer than n + 1 elements, a
    // slice past the end): wherever the cost runs, so does each gradient, with its input's shape.
    int evaluated = 0;
    for (const auto &[n, m] : std::vector<std::pair<int64_t, int64_t>>{{3, 3}, {2, 3}, {1, 2}, {2, 1}, {1, 1}, {0, 2}, {2, 0}}) {
      const Assignment point{{"n", n}, {"m", m}};
      std::map<std::string, interp::Array> inputs = {
          {"x", filled({n, m}, rng, 0.1, 1.0)}, {"a", filled({n, m}, rng, 0.5, 1.5)}, {"v", filled({n}, rng, 0.2, 1.0)},
          {"w", filled({m}, rng, 0.5, 1.5)},    {"s", filled({n, n}, rng, -1.0, 1.0)}};
      for (int64_t i = 0; i < n; ++i) inputs.at("s").base<double>()[i * (n + 1)] += 3.0; // well conditioned
      try {
        (void)f.session.evaluate("cost", point, inputs);
      } catch (const UserError &) {
        continue; // the cost fails here (a maximum of nothing, a shape error): so do its gradients
      }
      ++evaluated;
      try {
        EXPECT_LT(worstGap(f.session, "cost", wrt, point, inputs), 1e-6) << cost << " at n = " << n << ", m = " << m;
      } catch (const UserError &e) {
        ADD_FAILURE() << cost << " at n = " << n << ", m = " << m << ": the cost runs, a gradient fails: " << e.what();
      }
    }
    EXPECT_GE(evaluated, 1) << cost; // (3, 3) at least
  }
}

// Broadcasting in the backward pass is exact in numpy mode: x (n,) and y (m,) give x's
// gradient y summed when n == 1 != m, and y itself when n == m; the symbolic shape is x's.
TEST(Grad, BroadcastingAdjointIsDecidedAtRunTime) {
  Fixture f;
  for (const char *line : {"param n, m", "x = input((n,), float64)", "y = input((m,), float64)", "cost = np.sum(x * y)",
                           "gx = grad(cost, x)", "gy = grad(cost, y)"})
    f.run(line);
  EXPECT_EQ(toString(f.session.lookup("gx")->shape), "(n,)");
  EXPECT_EQ(toString(f.session.lookup("gy")->shape), "(m,)");
  interp::Array one(DType::Float64, {1}), three(DType::Float64, {3});
  one.base<double>()[0] = 2.0;
  for (int i = 0; i < 3; ++i) three.base<double>()[i] = 4.0 + i;
  auto at = [&](const char *name, int64_t n, int64_t m, interp::Array x, interp::Array y) {
    return f.session.evaluate(name, {{"n", n}, {"m", m}}, {{"x", x}, {"y", y}}).contiguous();
  };
  interp::Array gx = at("gx", 1, 3, one, three);
  ASSERT_EQ(gx.shape(), std::vector<int64_t>{1});
  EXPECT_EQ(gx.base<double>()[0], 15.0);
  interp::Array gy = at("gy", 1, 3, one, three);
  ASSERT_EQ(gy.shape(), std::vector<int64_t>{3});
  EXPECT_EQ(gy.base<double>()[2], 2.0);
  gx = at("gx", 3, 3, three, three);
  EXPECT_EQ(gx.base<double>()[1], 5.0);
  // The gradient raises the cost's error, with its message, where the cost has one.
  try {
    std::mt19937_64 rng(1);
    at("gx", 2, 3, filled({2}, rng, 0, 1), three);
    ADD_FAILURE() << "no error at n = 2, m = 3";
  } catch (const interp::EvalError &e) {
    EXPECT_NE(std::string(e.what()).find("operands could not be broadcast together"), std::string::npos) << e.what();
  }
}

// What has no gradient is refused by name: a cost that is not 0-d float, an input the cost
// does not read, an integer input, an op without an adjoint.
TEST(Grad, RefusalsNameWhatIsWrong) {
  Fixture f;
  for (const char *line : {"param n", "x = input((n,), float64)", "y = input((n,), float64)", "i = input((n,), int64)"}) f.run(line);
  auto refused = [&](const std::string &line, const std::string &message) {
    const lang::Reply r = f.session.execute(line, 2);
    ASSERT_TRUE(r.failed) << line;
    EXPECT_NE(r.lines().at(0).find(message), std::string::npos) << r.lines().at(0);
  };
  refused("g = grad(x * 2.0, x)", "the cost must be a 0-d float array, not an array of rank 1");
  refused("g = grad(np.sum(x), y)", "the cost does not depend on input y");
  refused("g = grad(np.sum(x + i), i)", "input i is int64: only float arrays have a gradient");
  refused("g = grad(np.sum((x > 0.5).astype(np.float64)) + np.sum(y), x)", "no differentiable path from input x");
  refused("g = grad(np.sum(np.linalg.svd(np.stack([x, y]))[0]), x)", "has no adjoint in shapelab yet (full_matrices=True");
}

// Random programs (elementwise ops, broadcasts, reshapes, slices, reductions), in both modes:
// the gradient of a smooth cost of the last array agrees with finite differences at a point
// where the cost is valid; at every point of the box n, m in 0..3 the gradient fails exactly
// where the cost fails (its error domain is the cost's); and the optimized interpreter computes
// the gradients the reference computes (within 1e-9, relative: fused loops use vector math,
// whose last-bit differences a chain of products and quotients magnifies).
RC_GTEST_PROP(Grad, RandomProgramsAgreeWithFiniteDifferencesAndKeepTheErrorDomain, ()) {
  const bool staticMode = *rc::gen::arbitrary<bool>();
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  testprograms::BasicProgram program(staticMode, seed, 20);
  lang::Session &session = program.session;
  std::mt19937_64 &rng = program.rng;
  const proptests::GeneratedProgram &p = program.program;
  // The last float array of rank >= 1 reading an input: its cost is sum(sin(.)).
  std::string last;
  for (const std::string &name : p.names) {
    const ops::Node *node = session.lookup(name);
    if (node && isFloat(node->dtype) && node->kind != ops::OpKind::Input) last = name;
  }
  RC_PRE(!last.empty());
  RC_PRE(!session.execute("cost = np.sum(np.sin(" + last + ")) * 1.0", 90).failed);
  std::vector<std::pair<std::string, std::string>> wrt, wrt64; // (float64 inputs: finite differences in float16 or
  std::vector<const ops::Node *> inputs;                       // float32 round their steps away)
  std::vector<const ops::Node *> floatInputs; // (found first: each grad statement adds nodes)
  for (const ops::Node &node : session.graph().nodes())
    if (node.kind == ops::OpKind::Input && isFloat(node.dtype)) floatInputs.push_back(&node);
  for (const ops::Node *n : floatInputs) {
      const std::string g = "g_" + n->op;
      const lang::Reply r = session.execute(g + " = grad(cost, " + n->op + ")", 91);
      if (r.failed) { // only for a reason grad gives (never an op's refusal of what grad built)
        const std::string &why = r.lines().at(0);
        RC_LOG() << why << "\n";
        if (why.find("does not depend on") == std::string::npos && why.find("no differentiable path") == std::string::npos &&
            why.find("has no adjoint in shapelab yet") == std::string::npos) {
          std::cerr << why << "\n";
          for (const std::string &line : p.lines) std::cerr << "  " << line << "\n";
          std::cerr << "  cost = np.sum(np.sin(" << last << ")) * 1.0\n";
        }
        RC_ASSERT(why.find("does not depend on") != std::string::npos || why.find("no differentiable path") != std::string::npos ||
                  why.find("has no adjoint in shapelab yet") != std::string::npos);
        continue;
      }
      wrt.emplace_back(n->op, g);
      inputs.push_back(n);
      if (n->dtype == DType::Float64) wrt64.emplace_back(n->op, g);
    }
  RC_PRE(!wrt.empty());
  std::vector<std::string> params;
  for (const Expr &e : session.graph().params()) params.push_back(e->name);
  auto outcome = [&](const std::string &name, const Assignment &point, const std::map<std::string, interp::Array> &given) {
    try {
      session.evaluate(name, point, given);
      return std::string("ok");
    } catch (const interp::EvalError &e) {
      return std::string(interp::EvalError::spelling(e.kind));
    }
  };
  // The box: every assignment of 0..3 to the parameters (at most 3 of them).
  RC_PRE(params.size() <= 3);
  const std::vector<Assignment> box = testprograms::sizeBox(params, 3);
  bool checkedOne = false;
  // Finite differences only for a cost without kinks or ties (max, min, maximum, abs, floor,
  // remainder ...: a program's broadcasts make ties, where the tie rule is not a difference
  // quotient; the hand-written costs above check those rules on tie-free data).
  bool smooth = true;
  {
    std::vector<const ops::Node *> stack{session.lookup("cost")};
    std::set<const ops::Node *> seen;
    while (!stack.empty()) {
      const ops::Node *n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second) continue;
      static const std::set<std::string> kinks = {"max", "min", "maximum", "minimum", "fmax", "fmin", "abs", "fabs", "sign",
                                                  "floor", "ceil", "trunc", "rint", "remainder", "fmod", "floor_divide"};
      if ((n->kind == ops::OpKind::Reduce || n->kind == ops::OpKind::Unary || n->kind == ops::OpKind::Binary) && kinks.count(n->op))
        smooth = false;
      for (const ops::Node *i : n->inputs) stack.push_back(i);
    }
  }
  for (const Assignment &point : box) {
    std::map<std::string, interp::Array> given;
    for (const ops::Node *x : inputs) {
      std::vector<int64_t> shape;
      for (const Expr &d : x->shape) shape.push_back(evaluate(d, point)->toInt64Checked("a test size"));
      given.emplace(x->op, filled(shape, rng, -1.0, 1.0));
    }
    const std::string costOutcome = outcome("cost", point, given);
    for (const auto &[x, g] : wrt) RC_ASSERT(outcome(g, point, given) == costOutcome);
    // The optimized interpreter (fused loops) computes the same gradients. Not where the cost's
    // sine reads values past 1e6: there its argument's last bit (vector math against libm, both
    // within an ulp) moves the sine's derivative by more than the tolerance (exp of a product
    // of sizes reached 5.8e9: the two gradients differed in the 8th digit).
    bool conditioned = costOutcome == "ok";
    if (conditioned) {
      const interp::Array v = session.evaluate(last, point, given).astype(DType::Float64).contiguous();
      for (int64_t i = 0; i < v.size() && conditioned; ++i) conditioned = std::abs(v.base<double>()[i]) <= 1e6;
    }
    if (conditioned)
      for (const auto &[x, g] : wrt) {
        const interp::Array ref = session.evaluate(g, point, given).astype(DType::Float64).contiguous();
        const interp::Array fast = session.evaluate(g, point, given, true).astype(DType::Float64).contiguous();
        RC_ASSERT(ref.shape() == fast.shape());
        for (int64_t i = 0; i < ref.size(); ++i) {
          const double r = ref.base<double>()[i], f = fast.base<double>()[i];
          if (!(r == f || (std::isnan(r) && std::isnan(f)) || std::abs(r - f) <= 1e-9 * (1 + std::abs(r)))) {
            std::cerr << g << "[" << i << "] at " << point.toString() << ": reference " << r << ", optimized " << f << "\n";
            for (const std::string &line : p.lines) std::cerr << "  " << line << "\n";
          }
          RC_ASSERT(r == f || (std::isnan(r) && std::isnan(f)) || std::abs(r - f) <= 1e-9 * (1 + std::abs(r)));
        }
      }
    // Finite differences where the cost is a moderate number (a program may overflow or divide
    // by zero: no derivative to compare there).
    if (costOutcome == "ok" && !checkedOne && !wrt64.empty() && smooth && std::abs(scalar(session.evaluate("cost", point, given))) < 1e6) {
      checkedOne = true;
      const double gap = worstGap(session, "cost", wrt64, point, given, true);
      if (!(gap < 1e-5)) {
        std::cerr << "at " << point.toString() << ", gap " << gap << ":\n";
        for (const std::string &line : p.lines) std::cerr << "  " << line << "\n";
      }
      RC_ASSERT(gap < 1e-5);
    }
  }
  RC_CLASSIFY(checkedOne, "finite differences compared");
  RC_CLASSIFY(staticMode, "static mode");
}

// The gradient fails exactly where the cost fails, also where the failing part of the cost is
// not on the way to the input (its adjoint reads nothing of it), in both modes: at every point
// of the box n, m in 0..3, the same outcome.
// The same where a branch of an ifelse (on sizes, or on data) fails where it is not taken: its
// backward pass runs only where the branch does.
TEST(Grad, TheErrorDomainIsTheCostsWhereTheBackwardPassReadsNothingThatFails) {
  const std::vector<std::string> costs = {
      "cost = np.sum(x * 2.0) + np.sum(a + b) * 0.0 + np.sum(x[1:] - a[:m])",
      // The branch not taken fails at n = 2, m = 0 (sizes) and at n = 1, m = 2 (data: x >= 0).
      "cost = np.sum(ifelse(n > 1, x, x[::-1] * b[:1]))",
      "cost = np.sum(ifelse(np.sum(x) >= 0.0, x * a, x[:1] * b)) + np.sum(ifelse(np.sum(a) < 0.0, np.exp(x) * b[1:], x))"};
  for (const std::string &costLine : costs)
  for (BroadcastMode mode : {BroadcastMode::Numpy, BroadcastMode::Static}) {
    lang::SessionOptions o;
    o.mode = mode;
    Fixture f(o);
    for (const std::string &line : {std::string("param n, m"), std::string("x = input((n,), float64)"), std::string("a = input((n,), float64)"),
                                    std::string("b = input((m,), float64)"), costLine, std::string("gx = grad(cost, x)")})
      f.run(line);
    std::mt19937_64 rng(3);
    int failures = 0;
    for (int64_t n = 0; n <= 3; ++n)
      for (int64_t m = 0; m <= 3; ++m) {
        const Assignment point{{"n", n}, {"m", m}};
        const std::map<std::string, interp::Array> given = {
            {"x", filled({n}, rng, 0, 1)}, {"a", filled({n}, rng, 0, 1)}, {"b", filled({m}, rng, 0, 1)}};
        std::string cost = "ok", gx = "ok";
        try {
          f.session.evaluate("cost", point, given);
        } catch (const interp::EvalError &e) {
          cost = e.what();
        }
        try {
          f.session.evaluate("gx", point, given);
        } catch (const interp::EvalError &e) {
          gx = e.what();
        }
        failures += cost != "ok";
        EXPECT_EQ(gx.substr(gx.find(':') + 1), cost.substr(cost.find(':') + 1)) << costLine << " at " << point.toString(); // the same message
      }
    if (costLine == costs[0]) {
      EXPECT_GT(failures, 0) << costLine; // (the box holds failing points)
    }
  }
}

// A gradient's status restates nothing: x (n,) · y (m,) gives each gradient the cost's one
// check, the sum_to's own obligation (implied by the broadcast that made its operand) not asked
// again.
TEST(Grad, AGradientShowsTheCostsCheckOnce) {
  Fixture f;
  for (const char *line : {"param n, m", "x = input((n,), float64)", "y = input((m,), float64)", "cost = np.sum(x * y)"}) f.run(line);
  const lang::Reply r = f.session.execute("gx, gy = grad(cost, [x, y])", 2);
  ASSERT_FALSE(r.failed);
  ASSERT_EQ(r.lines().size(), 2u);
  EXPECT_EQ(r.lines()[0], "gx: (n,) float64, runtime-check: n == 1 or m == 1 or n == m");
  EXPECT_EQ(r.lines()[1], "gy: (m,) float64, runtime-check: n == 1 or m == 1 or n == m");
}

// A chain of ifelses, each reading the one before in both branches: the gradient walks each
// branch's own nodes once (a pass per branch down to the inputs would be 2^k passes).
TEST(Grad, NestedIfelsesAddNodesInProportion) {
  for (const char *condition : {"n > %d", "np.sum(x) > %d.5"}) {
    Fixture f;
    f.run("param n");
    f.run("x = input((n,), float64)");
    f.run("x0 = x");
    const int k = 40;
    for (int i = 1; i <= k; ++i) {
      char c[64];
      std::snprintf(c, sizeof c, condition, i);
      f.run("x" + std::to_string(i) + " = ifelse(" + c + ", x" + std::to_string(i - 1) + ", x" + std::to_string(i - 1) + " * 2.0)");
    }
    f.run("cost = np.sum(x" + std::to_string(k) + ")");
    const std::size_t before = f.session.nodeCount();
    f.run("g = grad(cost, x)");
    EXPECT_LT(f.session.nodeCount() - before, std::size_t(30 * k)) << condition;
    // The value: 2 to the number of conditions that fail (here every one: n = 3, x in [0, 1)).
    interp::Array zeros(DType::Float64, {3});
    for (int64_t i = 0; i < 3; ++i) zeros.base<double>()[i] = 0.0;
    const std::map<std::string, interp::Array> given = {{"x", zeros}};
    const interp::Array g = f.session.evaluate("g", Assignment{{"n", 3}}, given).astype(DType::Float64).contiguous();
    const double want = std::string(condition) == "n > %d" ? std::pow(2.0, k - 2) : std::pow(2.0, k);
    EXPECT_EQ(g.base<double>()[0], want) << condition;
  }
}
