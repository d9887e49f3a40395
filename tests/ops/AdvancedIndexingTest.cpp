// Advanced indexing, item assignment and ufunc.at (ops/AdvancedIndexing.cpp, ops/Composites.h):
// the kernels against the shape rules at every point of a box. Their values against NumPy's are
// checked on generated programs (tests/data/numpy_programs_assign.jsonl).

#include "tests/lang/ProgramFixtures.h"

using namespace shapelab;
using namespace shapelab::fixtures;

namespace {

/// x of rank 1..3 over sizes n, m, 0, 1, 2, indexed by a random subscript: per axis a slice, an
/// integer (0 or -1, which fail on an empty axis) or an index array brought into range by `%`
/// of the axis's length (three arrays of shapes (2,), (m,) and (2, 1), which broadcast with each
/// other or fail); None inserted and a run of full slices written `...`, now and then. The
/// subscript is read (`g = x[...]`) and written: `x[...] = v`, `x[...] += v` or np.add.at.
proptests::GeneratedProgram randomIndexing(std::mt19937_64 &rng) {
  auto pick = [&](std::size_t n) { return std::size_t(rng() % n); };
  static const char *dims[] = {"n", "m", "0", "1", "2"};
  proptests::GeneratedProgram p;
  p.lines = {"param n, m", "ia = input((2,), int64)", "ib = input((m,), int64)", "ic = input((2, 1), int64)"};
  const std::size_t rank = 1 + pick(3);
  std::string shape;
  for (std::size_t a = 0; a < rank; ++a) shape += std::string(dims[pick(5)]) + (rank == 1 ? "," : a + 1 < rank ? ", " : "");
  p.lines.push_back("x = input((" + shape + "), float64)");
  std::vector<std::string> entries;
  bool arrays = false;
  for (std::size_t a = 0; a < rank; ++a) {
    if (pick(6) == 0) entries.push_back("None");
    switch (pick(6)) {
    case 0: entries.push_back(":"); break;
    case 1: entries.push_back(pick(2) ? "1:" : "::-2"); break;
    case 2: entries.push_back(pick(2) ? "0" : "-1"); break;
    default:
      entries.push_back("abs(" + std::string(*rc::gen::element("ia", "ib", "ic")) + ") % x.shape[" + std::to_string(a) + "]");
      arrays = true;
    }
  }
  if (pick(3) == 0) { // a run of trailing full slices as `...` (it stands for what is left)
    while (!entries.empty() && entries.back() == ":") entries.pop_back();
    entries.insert(entries.begin() + std::ptrdiff_t(pick(entries.size() + 1)), "...");
  }
  if (!arrays && std::find(entries.begin(), entries.end(), "...") == entries.end()) entries.push_back("...");
  std::string index;
  for (const std::string &e : entries) index += (index.empty() ? "" : ", ") + e;
  // `...` may stand after entries that already index every axis, and an integer and `...`
  // in front of them: both as NumPy reads them (`...` then stands for no axis).
  p.lines.push_back("g = x[" + index + "]");
  p.lines.push_back("w = np.copy(x)");
  const bool tupleOk = std::all_of(entries.begin(), entries.end(), [](const std::string &e) {
    return e == "0" || e == "-1" || e.rfind("abs(", 0) == 0;
  });
  switch (pick(tupleOk ? 3 : 2)) {
  case 0: p.lines.push_back("w[" + index + "] = " + (pick(2) ? "1.5" : "g"));
    break;
  case 1: p.lines.push_back("w[" + index + "] += " + (pick(2) ? "2.0" : "ia[:, None]"));
    break;
  default:
    p.lines.push_back("np.add.at(w, (" + index + (entries.size() == 1 ? ",)" : ")") + ", 1.0)");
  }
  p.names = {"g", "w"};
  return p;
}

} // namespace

// Reads and writes through any mix of index arrays, integers, slices, None and `...`: a shape
// error exactly where the validity fails, the inferred shape otherwise (the interpreter's debug
// check), at every point of a box with sizes 0, 1 and 2.
RC_GTEST_PROP(AdvancedIndexing, KernelAgreesWithShapeRuleOnABox, ()) {
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  std::mt19937_64 rng(seed);
  proptests::GeneratedProgram p = randomIndexing(rng);
  std::vector<std::pair<int64_t, int64_t>> box;
  for (int64_t n = 0; n <= 2; ++n)
    for (int64_t m = 0; m <= 2; ++m) box.push_back({n, m});
  Solver solver;
  lang::Session session(solver, {});
  for (std::size_t i = 0; i < p.lines.size(); ++i)
    if (session.execute(p.lines[i], int(i + 1)).failed) {
      // Refused when built, as NumPy refuses it whatever the sizes: a value of another rank
      // than the region's (`w[0, :] += ia[:, None]`).
      RC_TAG("refused");
      return;
    }
  RC_TAG("built");
  kernelsAgreeAt(session, p, BroadcastMode::Numpy, seed, box);
}

TEST(AdvancedIndexing, UfuncAtAppliesTheUfuncPerIndexAndTheTypeRuleOfTheUfunc) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param n", "x = input((n,), int64)", "i = input((3,), int64)",
                                    "np.multiply.at(x, i, 3)", "b = input((n,), bool)"}));
  interp::Array xv(ops::DType::Int64, {2}), iv(ops::DType::Int64, {3});
  xv.base<int64_t>()[0] = 1, xv.base<int64_t>()[1] = 2;
  iv.base<int64_t>()[0] = 0, iv.base<int64_t>()[1] = 0, iv.base<int64_t>()[2] = -1;
  interp::Interpreter in(session.graph(), {{"n", 2}}, {{"x", xv}, {"i", iv}}, {});
  EXPECT_EQ(in.evaluate(session.lookup("x")).toString(), "[9, 6]"); // 1*3*3, 2*3
  // NumPy has no bool loop for subtract: refused when built, with NumPy's message.
  EXPECT_TRUE(refusedWith(session, "np.subtract.at(b, i, True)", "numpy boolean subtract"));
  EXPECT_TRUE(refusedWith(session, "np.less.at(x, i, 1)", "ufunc.at for the arithmetic binary ufuncs"));
}
