// RandomVariable shapes: the catalogue against PyTensor's list, and the size semantics.
#include <gtest/gtest.h>

#include <fstream>

#include "shape/RandomVariable.h"
#include "symbolic/Errors.h"
#include "symbolic/Parser.h"
#include "tests/shape/OracleData.h"
#include "symbolic/Evaluate.h"

using namespace shapelab;

namespace {
std::vector<GufuncArgument> args(const std::vector<const char *> &shapes) {
  std::vector<GufuncArgument> out;
  for (auto *s : shapes) {
    std::string t(s);
    if (t[0] == '<') {
      std::size_t p = 0;
      out.push_back({parseShapeAt(t, p, true), true});
    } else {
      out.push_back({parseShape(t), false});
    }
  }
  return out;
}
std::string text(const std::vector<std::optional<Expr>> &s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + (s[i] ? s[i]->toString() : "?");
  return out + (s.size() == 1 ? ",)" : ")");
}
} // namespace

TEST(RandomVariable, CatalogueMatchesPyTensor) {
  std::ifstream in(std::string(std::getenv("SHAPELAB_SOURCE_DIR") ? std::getenv("SHAPELAB_SOURCE_DIR") : ".") +
                   "/../shared/reference/pytensor-rv-catalogue.tsv");
  if (!in) GTEST_SKIP() << "../shared/reference is not beside the checkout";
  std::string line;
  std::getline(in, line);
  int seen = 0, withParams = 0;
  while (std::getline(in, line)) {
    auto cols = oracle::split(line, '\t');
    if (cols.size() < 4 || cols[0].empty() || cols[0][0] == '(') continue;
    const RandomVariableInfo *info = findRandomVariable(cols[0]);
    ASSERT_NE(info, nullptr) << cols[0];
    if (cols[2].find("no class-level") == std::string::npos) {
      EXPECT_EQ(info->signature, cols[2]) << cols[0];
      EXPECT_EQ(info->dtype, cols[3]) << cols[0];
    } else {
      EXPECT_TRUE(info->signature.empty()) << cols[0];
    }
    // The notes begin "params (loc=0.0, scale=1.0)" where PyTensor's helper names its
    // parameters: the same names and defaults ("None" as written; numbers by value: 0 is 0.0).
    if (cols.size() > 5 && cols[5].rfind("params (", 0) == 0) {
      std::string list = cols[5].substr(8, cols[5].find(')') - 8);
      auto params = oracle::split(list, ',');
      ASSERT_EQ(params.size(), info->parameters.size()) << cols[0];
      for (std::size_t i = 0; i < params.size(); ++i) {
        std::string p = params[i].substr(params[i].find_first_not_of(' '));
        std::size_t eq = p.find('=');
        EXPECT_EQ(p.substr(0, eq), info->parameters[i]) << cols[0];
        std::string expected = eq == std::string::npos ? "" : p.substr(eq + 1);
        std::string have = info->defaultOf(i);
        if (expected.empty() || expected == "None" || have.empty() || have == "None")
          EXPECT_EQ(have, expected) << cols[0] << " " << info->parameters[i];
        else
          EXPECT_EQ(std::stod(have), std::stod(expected)) << cols[0] << " " << info->parameters[i];
      }
      ++withParams;
    }
    ++seen;
  }
  EXPECT_EQ(seen, int(randomVariableCatalogue().size()));
  EXPECT_GT(withParams, 25);
}

// A draw of `size` must exist: an int8 array of each shape in numpy_exist.tsv exists exactly
// where NumPy made it. Checked concrete, and with every size a parameter, at the row's values.
TEST(RandomVariable, DrawsExistWhereNumpyMakesArrays) {
  auto rows = oracle::readRows("numpy_exist.tsv");
  ASSERT_GT(rows.size(), 200u);
  Solver solver;
  Context c = solver.makeContext({});
  for (auto &row : rows) {
    Shape size = parseShape(row[0]);
    bool ok = row[1] == "ok";
    RandomVariableResult r = inferRandomVariable(solver, c, "normal", args({"()", "()"}), size);
    ASSERT_EQ(r.status(), ok ? Status::Valid : Status::Error) << row[0] << ": " << r.message;
    Assignment at;
    std::size_t next = 0;
    Shape symbolic = oracle::withParameters(size, oracle::allPositions(size), at, next);
    RandomVariableResult s = inferRandomVariable(solver, c, "normal", args({"()", "()"}), symbolic);
    EXPECT_EQ(s.status() != Status::Error && holds(s.validity.domainWithLimits(), at), ok)
        << toString(symbolic) << " at " << row[0] << ": " << s.message;
    // The same shape as a parameter array: it must exist to be given.
    RandomVariableResult p = inferRandomVariable(solver, c, "normal", {{size, false}, {parseShape("()"), false}}, std::nullopt);
    EXPECT_EQ(p.status(), ok ? Status::Valid : Status::Error) << row[0] << ": " << p.message;
  }
}

TEST(RandomVariable, Shapes) {
  Solver solver;
  Context c = solver.makeContext({});
  auto rv = [&](const char *name, std::vector<const char *> ps, std::optional<const char *> size = std::nullopt) {
    std::optional<Shape> sz;
    if (size) sz = parseShape(*size);
    return inferRandomVariable(solver, c, name, args(ps), sz);
  };
  EXPECT_EQ(text(rv("normal", {"(3, 1)", "(4,)"}).shape), "(3, 4)");
  EXPECT_EQ(text(rv("normal", {"(1,)", "()"}).shape), "(1,)");
  // size=() is not size=None: a batched parameter cannot broadcast to ().
  EXPECT_EQ(rv("normal", {"(1,)", "()"}, "()").status(), Status::Error);
  EXPECT_EQ(text(rv("normal", {"()", "()"}, "()").shape), "()");
  // Size never broadcasts: (3,) cannot go to size (1,).
  EXPECT_EQ(rv("normal", {"(3,)", "()"}, "(1,)").status(), Status::Error);
  EXPECT_EQ(text(rv("normal", {"(1,)", "()"}, "(2, 5)").shape), "(2, 5)");
  auto mv = rv("multivariate_normal", {"(5, n)", "(n, n)"});
  EXPECT_EQ(text(mv.shape), "(5, n)");
  EXPECT_EQ(mv.coreShape, CoreShapeSource::ParameterShapes);
  EXPECT_EQ(rv("multivariate_normal", {"(3,)", "(4, 4)"}).status(), Status::Error);
  EXPECT_EQ(text(rv("multivariate_normal", {"(n,)", "(n, n)"}, "(2, 5)").shape), "(2, 5, n)");
  EXPECT_EQ(text(rv("multinomial", {"(2,)", "(2, 4)"}).shape), "(2, 4)");
  EXPECT_EQ(text(rv("dirichlet", {"(3, k)"}).shape), "(3, k)");
  EXPECT_EQ(text(rv("categorical", {"(4, 1, 3)"}, "(4, 2)").shape), "(4, 2)");
  auto perm = rv("permutation", {"<5>"});
  EXPECT_EQ(text(perm.shape), "(5,)");
  EXPECT_TRUE(perm.allocatable());
  auto permUnknown = rv("permutation", {"()"});
  EXPECT_FALSE(permUnknown.allocatable());
  EXPECT_EQ(text(rv("permutation", {"(2, 5)"}).shape), "(2, 5)");
  EXPECT_EQ(text(rv("choice_without_replacement", {"(10, 3)", "<2, 4>"}).shape), "(2, 4, 3)");
  EXPECT_EQ(rv("choice_without_replacement", {"(10, 3)", "(10,)", "(2,)"}).undetermined.size(), 2u);
  auto sym = rv("normal", {"(n,)", "(m,)"});
  EXPECT_EQ(sym.status(), Status::RuntimeCheck);
  EXPECT_THROW(rv("nosuch", {"()"}), UserError);
  EXPECT_THROW(rv("gamma", {"()"}), UserError); // scale has no default
  EXPECT_THROW(rv("normal", {"()", "()", "()"}), UserError);
  // Trailing parameters left out take their defaults, scalars.
  EXPECT_EQ(text(rv("normal", {"(4,)"}).shape), "(4,)");
  EXPECT_EQ(text(rv("normal", {}, "(2, 3)").shape), "(2, 3)");
}

// Static mode asked whether a parameter's batch size is provably 1 even where the size given is
// that same expression, and where the question was undecided made the draw unknown: nothing
// broadcasts there, so both modes must read alike (found with the broadcast case, fuzz_einsum).
TEST(RandomVariable, StaticModeAsksNothingWhereABatchSizeIsTheSizeItself) {
  SolverOptions deterministic; // the quota bounds each question, not a loaded machine's clock
  deterministic.timeLimitMs = 0;
  deterministic.memoryLimitBytes = 0;
  Solver solver(deterministic);
  Context c = solver.makeContext({});
  const char *same = "(222*b*am //19*mz /219*mz /2*22*b*m0/40/09, n)";
  for (const char *param : {same, "(1, n)", "(n,)"}) {
    auto numpy = inferRandomVariable(solver, c, "normal", args({param, "()"}), parseShape(same), BroadcastMode::Numpy);
    auto strict = inferRandomVariable(solver, c, "normal", args({param, "()"}), parseShape(same), BroadcastMode::Static);
    EXPECT_EQ(numpy.status(), Status::RuntimeCheck) << param << ": " << numpy.message;
    EXPECT_EQ(strict.status(), numpy.status()) << param << ": " << strict.message;
    EXPECT_EQ(strict.validity.checks(), numpy.validity.checks()) << param;
  }
}

namespace {
bool holdsAt(const RandomVariableResult &r, const std::vector<std::pair<std::string, int>> &point) {
  if (r.status() == Status::Valid) return true;
  if (r.status() != Status::RuntimeCheck) return false;
  Assignment a;
  for (const auto &[name, value] : point) a.set(name, Integer(value));
  for (const Pred &c : r.validity.checks())
    if (!holds(c, a)) return false;
  return true;
}
} // namespace

// With a size, nothing is checked against the parameters when a graph is built, and NumPy's
// sampler broadcasts each to size at run time: a parameter of batch size u draws (3,) where
// u == 1 as where u == 3, in static mode too. Over parameter shapes and sizes, both modes give
// the same verdict and the same checks.
TEST(RandomVariable, WithASizeParametersBroadcastToItByNumPysRuleInBothModes) {
  Solver solver;
  Context c = solver.makeContext({});
  auto numpy = inferRandomVariable(solver, c, "normal", args({"(u,)", "()"}), parseShape("(3,)"), BroadcastMode::Numpy);
  auto strict = inferRandomVariable(solver, c, "normal", args({"(u,)", "()"}), parseShape("(3,)"), BroadcastMode::Static);
  for (const auto *r : {&numpy, &strict}) {
    EXPECT_TRUE(holdsAt(*r, {{"u", 1}})) << r->message;
    EXPECT_TRUE(holdsAt(*r, {{"u", 3}})) << r->message;
    EXPECT_FALSE(holdsAt(*r, {{"u", 2}})) << r->message;
    EXPECT_EQ(text(r->shape), "(3,)");
  }
  for (const char *param : {"(u,)", "(1,)", "(3,)", "(2,)", "(u, 3)", "(n,)", "(1, n)", "()"})
    for (const char *size : {"(3,)", "(2, 3)", "(n,)", "(n, u)", "(u, 1)"}) {
      auto a = inferRandomVariable(solver, c, "normal", args({param, "()"}), parseShape(size), BroadcastMode::Numpy);
      auto b = inferRandomVariable(solver, c, "normal", args({param, "()"}), parseShape(size), BroadcastMode::Static);
      EXPECT_EQ(a.status(), b.status()) << param << " to " << size << ": " << b.message;
      EXPECT_EQ(a.validity.checks(), b.validity.checks()) << param << " to " << size;
    }
}

// A sample without replacement is drawn from a's first axis: it is no larger than that axis
// (at n = 1 NumPy refuses a sample of 2; at n = 0 too, where an empty result was returned).
TEST(RandomVariable, ChoiceWithoutReplacementNeedsAPopulationAsLargeAsItsSample) {
  Solver solver;
  Context c = solver.makeContext({});
  auto one = inferRandomVariable(solver, c, "choice_without_replacement", args({"(n,)", "<2>"}), std::nullopt,
                                 BroadcastMode::Numpy);
  EXPECT_EQ(one.status(), Status::RuntimeCheck) << one.message;
  for (int n = 0; n < 5; ++n) EXPECT_EQ(holdsAt(one, {{"n", n}}), n >= 2) << "n = " << n;
  auto grid = inferRandomVariable(solver, c, "choice_without_replacement", args({"(n, m)", "<2, 3>"}), std::nullopt,
                                  BroadcastMode::Numpy);
  EXPECT_EQ(text(grid.shape), "(2, 3, m)");
  for (int n = 4; n < 9; ++n) EXPECT_EQ(holdsAt(grid, {{"n", n}, {"m", 1}}), n >= 6) << "n = " << n;
  auto never = inferRandomVariable(solver, c, "choice_without_replacement", args({"(1,)", "<2>"}), std::nullopt,
                                   BroadcastMode::Numpy);
  EXPECT_EQ(never.status(), Status::Error);
  auto empty = inferRandomVariable(solver, c, "choice_without_replacement", args({"(0,)", "<0>"}), std::nullopt,
                                   BroadcastMode::Numpy);
  EXPECT_EQ(empty.status(), Status::Valid) << empty.message;
}
