// einsum (ops/Reductions.cpp, shape/Einsum.h): the kernel against the shape rule, NumPy's shapes, dtypes, values and messages.

#include "tests/lang/ProgramFixtures.h"

using namespace shapelab;
using namespace shapelab::fixtures;

namespace {

/// A random einsum over inputs whose sizes are n, m, 0, 1 or 2: labels from "ijk" (shared
/// between operands, so sizes broadcast or fail; repeated in one, a diagonal), '...' sometimes,
/// an implicit or explicit output.
proptests::GeneratedProgram randomEinsum(std::mt19937_64 &rng) {
  auto pick = [&](std::size_t n) { return std::size_t(rng() % n); };
  static const char *dims[] = {"n", "m", "0", "1", "2", "n + 1"};
  proptests::GeneratedProgram p;
  p.lines = {"param n, m"};
  const std::size_t operands = 1 + pick(3);
  const bool ellipsis = pick(3) == 0;
  std::string spec, call, used;
  for (std::size_t k = 0; k < operands; ++k) {
    const std::size_t rank = pick(4);
    std::string shape, labels = ellipsis ? "..." : "";
    for (std::size_t a = 0; a < rank; ++a) shape += std::string(dims[pick(6)]) + (rank == 1 ? "," : a + 1 < rank ? ", " : "");
    const std::size_t lettered = ellipsis ? pick(rank + 1) : rank;
    for (std::size_t a = 0; a < lettered; ++a) labels += "ijk"[pick(3)];
    const std::string x = "x" + std::to_string(k);
    p.lines.push_back(x + " = input((" + shape + "), " + (pick(2) ? "float64" : "int32") + ")");
    spec += (k ? "," : "") + labels;
    call += ", " + x;
    used += labels;
  }
  if (pick(2)) {
    std::string out = ellipsis ? "..." : "";
    for (char c : std::string("kji"))
      if (used.find(c) != std::string::npos && pick(2)) out += c;
    spec += "->" + out;
  }
  p.lines.push_back("e = einsum('" + spec + "'" + call + ")");
  p.names = {"e"};
  return p;
}

} // namespace

// einsum's shape rule against its kernel at every point of a box, both modes: a shape error
// exactly where the validity fails, the inferred shape otherwise (the interpreter's debug check).
RC_GTEST_PROP(Einsum, KernelAgreesWithShapeRuleOnABox, ()) {
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  std::mt19937_64 rng(seed);
  proptests::GeneratedProgram p = randomEinsum(rng);
  std::vector<std::pair<int64_t, int64_t>> box;
  for (int64_t n = 0; n <= 3; ++n)
    for (int64_t m = 0; m <= 3; ++m) box.push_back({n, m});
  for (BroadcastMode mode : {BroadcastMode::Numpy, BroadcastMode::Static}) {
    Solver solver;
    lang::SessionOptions so;
    so.mode = mode;
    lang::Session session(solver, so);
    bool built = true;
    for (std::size_t i = 0; i < p.lines.size() && built; ++i) built = !session.execute(p.lines[i], int(i + 1)).failed;
    if (!built) continue; // subscripts that do not fit the ranks: refused when built, as NumPy refuses them
    kernelsAgreeAt(session, p, mode, seed, box);
  }
}

TEST(Einsum, ShapesDtypesAndValuesAsNumpy) {
  const std::vector<std::string> lines = {
      "param n, m, p",
      "a = input((n, m), float64)",
      "b = input((m, p), float64)",
      "s = input((n, n), int32)",
      "t = input((2, 3), bool)",
      "mm = einsum('ij,jk->ik', a, b)",
      "implicit = einsum('ij,jk', a, b)",
      "upper = einsum('Ba', a)",    // implicit output in character order: 'B' before 'a'
      "lower = einsum('bA', a)",
      "trace = einsum('ii', s)",
      "diag = einsum('ii->i', s)",
      "batch = einsum('...i,...i->...', a, a)",
      "any = einsum('ij->', t)",
      "outer = einsum('i,j', a[0], b[:, 0])",
      "f = input((3,), float32)",
      "scaled = einsum('i,->i', f, 2.0)"};  // a Python number is a 0-d float64 array here
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  auto shape = [&](const char *name) { return toString(session.lookup(name)->shape); };
  EXPECT_EQ(shape("mm"), "(n, p)");
  EXPECT_EQ(session.lookup("implicit"), session.lookup("mm")); // one node: the same spec
  EXPECT_EQ(shape("upper"), "(n, m)");
  EXPECT_EQ(shape("lower"), "(m, n)");
  EXPECT_EQ(shape("trace"), "()");
  EXPECT_EQ(shape("diag"), "(n,)");
  EXPECT_EQ(shape("batch"), "(n,)");
  EXPECT_EQ(session.lookup("trace")->dtype, ops::DType::Int32); // NumPy's einsum keeps int32
  EXPECT_EQ(session.lookup("any")->dtype, ops::DType::Bool);
  EXPECT_EQ(session.lookup("scaled")->dtype, ops::DType::Float64); // not weak: NumPy's einsum takes arrays
  interp::Array sv(ops::DType::Int32, {3, 3}), tv(ops::DType::Bool, {2, 3});
  const int32_t values[] = {2147483647, 0, 0, 0, 1, 0, 0, 0, 5};
  std::copy(std::begin(values), std::end(values), sv.base<int32_t>());
  tv.base<bool>()[4] = true;
  interp::Interpreter in(session.graph(), {{"n", 3}, {"m", 2}, {"p", 2}}, {{"s", sv}, {"t", tv}}, {});
  EXPECT_EQ(in.evaluate(session.lookup("trace")).toString(), "-2147483643"); // wraps as int32 does
  EXPECT_EQ(in.evaluate(session.lookup("diag")).toString(), "[2147483647, 1, 5]");
  EXPECT_EQ(in.evaluate(session.lookup("any")).toString(), "true");
}

// NumPy's iterator multiplies its sizes in order (the output's labels, then the summed ones in
// character order) and refuses the first product past 2**63 - 1: a 0 helps only before the
// huge sizes. Checked with 2**40-element broadcast views in NumPy 1.24.
TEST(Einsum, RunningCountOfTheIterationInNumpysOrder) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param n", "big = input((2**40,), float64)", "none = input((0,), float64)",
                                    "x = input((n,), float64)"}));
  auto status = [&](const std::string &line) {
    lang::Reply r = session.execute(line, 9);
    EXPECT_FALSE(r.failed) << line;
    return ops::validityOf(session.graph(), session.lookup(line.substr(0, line.find(' ')))).status();
  };
  EXPECT_EQ(status("e1 = einsum('i,j,k->', big, big, none)"), Status::Error);  // 2**80 before the 0
  EXPECT_EQ(status("e2 = einsum('i,j,k->', none, big, big)"), Status::Valid);  // 0 first
  EXPECT_EQ(status("e3 = einsum('k,j,i->', none, big, big)"), Status::Error);  // summed in order i, j, k
  EXPECT_EQ(status("e4 = einsum('i,j,k->k', big, big, none)"), Status::Valid); // the output's k first
  // Symbolic: the running products are limits (a runtime check with strict limits); none is
  // asked where the next size is 1 or more.
  EXPECT_EQ(status("e5 = einsum('i,j->', x, big)"), Status::Valid);
  Validity v = ops::validityOf(session.graph(), session.lookup("e5"));
  EXPECT_EQ(v.limits().size(), 1u);
  v.strictLimits(true);
  EXPECT_EQ(v.status(), Status::RuntimeCheck);
  EXPECT_TRUE(evaluate(v.domainWithLimits(), Assignment{{"n", 0}}) == std::optional<bool>(true));
  // n * 2**40 <= 2**63 - 1 exactly up to n = 2**23 - 1.
  EXPECT_TRUE(evaluate(v.domainWithLimits(), Assignment{{"n", (int64_t(1) << 23) - 1}}) == std::optional<bool>(true));
  EXPECT_TRUE(evaluate(v.domainWithLimits(), Assignment{{"n", int64_t(1) << 23}}) == std::optional<bool>(false));
}

// An obligation of the iteration names its label and where the operands have it: the
// iteration's positions ("dimension -1 (axis 2)") are no operand's.
TEST(Einsum, BroadcastObligationsNameTheLabel) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param n, m, p, q", "a = input((n, m), float64)", "b = input((p, q), float64)",
                                    "c = einsum('ij,jk->ik', a, b)", "d = einsum('...i,...i', a, b)"}));
  auto whats = [&](const char *name) {
    std::vector<std::string> out;
    const Validity v = ops::validityOf(session.graph(), session.lookup(name));
    for (const Obligation &o : v.obligations())
      if (o.what.find("broadcasts") != std::string::npos) out.push_back(o.what);
    return out;
  };
  EXPECT_EQ(whats("c"), std::vector<std::string>{"label 'j' (operand 0 axis 1, operand 1 axis 0) broadcasts"});
  EXPECT_EQ(whats("d"), (std::vector<std::string>{"a '...' dimension (operand 0 axis 0, operand 1 axis 0) broadcasts",
                                                  "label 'i' (operand 0 axis 1, operand 1 axis 1) broadcasts"}));
}

// The subscripts are read as NumPy reads them; each refusal names the problem at its place.
TEST(Einsum, BadSubscriptsAreRefusedWithNumpysMessages) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"a = input((2, 3), float64)", "s = input((2, 3), float64)"}));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"z = einsum('ij,jk->ik', a)", "fewer operands provided to einstein sum function"},
      {"z = einsum('ij', a, a)", "more operands provided to einstein sum function"},
      {"z = einsum('ijk', a)", "contains too many subscripts for operand 0"},
      {"z = einsum('i', a)", "operand has more dimensions than subscripts given"},
      {"z = einsum('ij->k', a)", "output subscript 'k' which never appeared in an input"},
      {"z = einsum('ij->ii', a)", "includes output subscript 'i' multiple times"},
      {"z = einsum('...i->i', a)", "output has more dimensions than subscripts given"},
      {"z = einsum('i1', a)", "invalid subscript '1'"},
      {"z = einsum('i..j', a)", "a '.' that is not part of an ellipsis ('...') in operand 0"},
      {"z = einsum('ij-ji', a)", "does not contain proper '->' output specified"},
      {"z = einsum(a, [0, 1])", "the subscripts come first, as a string"},
      {"z = einsum('ij', a, optimize=True)", "only optimize=False"},
      {"z = einsum('ij', a, dtype=float32)", "unexpected keyword argument 'dtype'"}};
  for (const auto &[line, message] : cases) EXPECT_TRUE(refusedWith(session, line, message));
  // The caret is at the offending character inside the string.
  EXPECT_TRUE(refusedWith(session, "z = einsum('i1', a)", "column 14"));
  // Sizes that cannot broadcast: NumPy's remapped shapes; a diagonal of unequal sizes.
  ASSERT_FALSE(session.execute("w = einsum('ij,jk->ik', a, s)", 4).failed);
  EXPECT_EQ(ops::validityOf(session.graph(), session.lookup("w")).message(),
            "operands could not be broadcast together with remapped shapes [original->remapped]: (2,3)->(2,newaxis,3) "
            "(2,3)->(3,2) ");
  ASSERT_FALSE(session.execute("d = einsum('ii->i', a)", 5).failed);
  EXPECT_EQ(ops::validityOf(session.graph(), session.lookup("d")).message(),
            "dimensions in single operand for collapsing index 'i' don't match (2 != 3)");
  ASSERT_FALSE(session.execute("t = einsum('ii', a)", 6).failed);
  EXPECT_EQ(ops::validityOf(session.graph(), session.lookup("t")).message(),
            "dimensions in operand 0 for collapsing index 'i' don't match (2 != 3)");
}
