// Shape rules of the ops (ops/): slices, reshapes, pad, ifelse, data-dependent sizes, written as programs.

#include "tests/lang/ProgramFixtures.h"

using namespace shapelab;
using namespace shapelab::fixtures;

// Found by `shapelab proptest --mode static --max-nodes 30` (seed 40424): an attribute may read
// a data-dependent size of an array that is not an operand (a[:b.shape[0]], full((b.shape[0],),
// ...)); the interpreters evaluated only operands, so the size had no value ("no value given
// for parameter '_k1'"). The rewritten program of that seed had such a node too: a split of a
// mask whose operand was merged with an equal mask of another name.
TEST(DataDependentSizes, AnAttributeReadingAnotherArraysSizeRunsThatArrayFirst) {
  std::vector<std::string> lines = {"param n",
                                    "x = input((n,), float64)",
                                    "b = x[x > 0]",
                                    "a = input((n,), float64)",
                                    "v = a[:b.shape[0]]",
                                    "f = full((b.shape[0],), 1.0)",
                                    "t = broadcast_to(a[:1], (x[x > 1].shape[0],))",
                                    "c = ifelse(b.shape[0] > 2, a, a * 2.0)",
                                    "g = random.normal(0.0, 1.0, size=(b.shape[0],))"};
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  interp::Array x = interp::seededInput("x", ops::DType::Float64, {4}, 0);
  double xs[] = {1.0, -1.0, 2.0, 3.0};
  std::copy(xs, xs + 4, x.base<double>());
  for (bool optimized : {false, true}) {
    std::map<std::string, interp::Array> inputs{{"x", x}};
    auto run = [&](const std::string &name) {
      if (!optimized) return interp::Interpreter(session.graph(), {{"n", 4}}, inputs).evaluate(session.lookup(name));
      return interp::OptimizedInterpreter(session.graph(), {{"n", 4}}, inputs).evaluate(session.lookup(name));
    };
    EXPECT_EQ(interp::shapeText(run("v").shape()), "(3,)") << optimized;
    EXPECT_EQ(interp::shapeText(run("f").shape()), "(3,)") << optimized;
    EXPECT_EQ(interp::shapeText(run("t").shape()), "(2,)") << optimized;
    interp::Array a = run("a"), c = run("c"); // 3 > 2: the first branch
    EXPECT_TRUE(a.identical(c)) << optimized;
    EXPECT_EQ(interp::shapeText(run("g").shape()), "(3,)") << optimized;
  }
  std::vector<std::string> program = {"mode static",
                                      "param n, m",
                                      "in5 = input((n,), float32)",
                                      "v7 = transpose(in5)",
                                      "v11 = v7[v7 > 0]",
                                      "v27 = split(v11, 2, axis=0)[1]",
                                      "v29 = in5[in5 > 0]"};
  proptests::DifferentialOptions o;
  o.mode = BroadcastMode::Static;
  std::optional<std::string> failure = proptests::checkProgram(program, 40424u, o);
  EXPECT_FALSE(failure) << *failure;
}

// Found by `shapelab proptest --max-nodes 60` (seed 505750): an ifelse on a size that exists only
// for some sizes (v.shape[1] of reshape(x, (2, -1)): m / 2) ran a branch where the size does not
// exist (m = 1). Its condition's definedness is now an obligation, and the kernel raises a shape
// error there, as the rule says.
TEST(IfElse, AConditionOnASizeThatDoesNotExistIsAShapeError) {
  std::vector<std::string> lines = {"param m", "x = input((m,), float64)", "v = reshape(x, (2, -1))",
                                    "c = ifelse(v.shape[1] > 1, x, x * 2.0)"};
  EXPECT_EQ(outcomeOf(lines, "c", {{"m", 1}}), "shape error");
  EXPECT_EQ(outcomeOf(lines, "c", {{"m", 4}}), "(4,)");
  EXPECT_EQ(outcomeOf(lines, "c", {{"m", 2}}), "(2,)");
  Solver solver;
  lang::Session session(solver, {});
  for (std::size_t i = 0; i < lines.size(); ++i) session.execute(lines[i], int(i + 1));
  Validity v = ops::validityOf(session.graph(), session.lookup("c"));
  EXPECT_EQ(evaluate(v.domain(), {{"m", 1}}), std::optional<bool>(false));
  EXPECT_EQ(evaluate(v.domain(), {{"m", 4}}), std::optional<bool>(true));
}

// The bounds of a slice of `n / 2` are choices (`max(0, n / 2 - n) if -n < 0 else min(-n, n / 2)`)
// whose branches agree wherever they are defined. Graph::choose asked whether they agree in the
// strict reading, which fails at odd n (undefined), so every such slice nested a choice in its
// shape, and in every shape built on it, until shapes passed the expression limit (the program
// of Rewrite.ChecksWhereAValidityConditionIsUndefined). Branches defined at the same points are
// now compared where they are defined.
TEST(Shapes, SliceBoundsOfAnExactDivisionAreNotAChoice) {
  const std::vector<std::string> lines{"param n", "x = input((n,), float64)", "y = reshape(x, (2, -1))",
                                       "z = y[:, -n:]"};
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  const ops::Node *z = session.lookup("z");
  EXPECT_EQ(z->shape[1].toString().find(" if "), std::string::npos) << z->shape[1].toString();
  for (int64_t n : {0, 1, 2, 3, 4, 6, 10})
    EXPECT_EQ(outcomeOf(lines, "z", {{"n", n}}), inferredAt(z->shape, {{"n", n}}).value_or("shape error")) << "n = " << n;
}

// Slices of slices clip their bounds at each step, and written out the bounds nest: the dim of
// x[m:n:2][1:n - 1:2][n - 1::2] was a 500-character expression, though it is 0 for every n
// and m (the second slice is shorter than n - 1). A dim past a few dozen nodes is now the
// function isl writes for it (Solver::compact), and slice lengths are written by the signs of
// their bounds, which keeps these under that size. The dims are checked against the interpreter
// at points of a box; NumPy gives (0,) for e and b at every n, m in [0, 14]. (b's dim, 0 too,
// is short enough to be kept as written.)
TEST(Shapes, NestedSlicesAreWrittenAsTheirFunction) {
  const std::vector<std::string> lines{"param n, m", "x = input((n,), float64)", "e = x[m:n:2][1:n - 1:2][n - 1::2]",
                                       "b = x[n - 1::2][1:m:2]", "f = x[1:][m::2][1:n - 1:3][:m]",
                                       "g = x[2:m][::-2][1:]"};
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  EXPECT_EQ(toString(session.lookup("e")->shape), "(0,)");
  // Lengths written by the signs of their bounds stay short enough that these need no
  // compaction (Solver::compact is tested with its own properties); none was rejected.
  for (const char *name : {"e", "b", "f", "g"})
    EXPECT_LT(toString(session.lookup(name)->shape).size(), 100u) << toString(session.lookup(name)->shape);
  EXPECT_EQ(solver.stats().compactionsRejected, 0u);
  for (const char *name : {"e", "b", "f", "g"}) {
    const Shape &shape = session.lookup(name)->shape;
    for (int64_t n : {0, 1, 2, 3, 5, 8})
      for (int64_t m : {0, 1, 2, 4, 9}) {
        Assignment at{{"n", n}, {"m", m}};
        std::optional<std::string> want = inferredAt(shape, at);
        ASSERT_TRUE(want) << name;
        EXPECT_EQ(outcomeOf(lines, name, at), *want) << name << " at n = " << n << ", m = " << m;
      }
  }
}

// The length of a slice is written in a form chosen by the signs of its bounds
// (Graph::sliceLength), or, in the two mixed cases, by clipping each bound on its own. Property:
// for bounds of every sign class (left out, constants, n, -n, n - 1, ...), both steps' signs,
// axis lengths that are sizes or slices themselves, the inferred length at every point of a box
// is the one NumPy's slice rule gives with plain integers (interp::sliceBounds, the reference
// interpreter's, which tests/programs/test_numpy_programs.py checks against NumPy).
TEST(Shapes, SliceLengthsAgreeWithPythonsRuleAtEveryPoint) {
  const std::vector<std::string> bounds{"",  "0",     "1",      "2",     "5",      "-1",     "-2",    "-4",
                                        "n", "m",     "-n",     "n - 1", "m + 1",  "-m - 1", "n // 2", "-(n // 2) - 1",
                                        "2*n", "n - m"};
  // Products too (n*(n // 2): a reshape of a strided slice), whose choices Graph::choose
  // simplifies by their pinned sizes rather than by asking isl.
  const std::vector<std::string> lengths{"n", "m + 2", "2*n + 1", "n*m", "n*(n // 2)", "n*m + n"};
  bool ok = rc::check("slice lengths are CPython's", [&] {
    const std::string length = *rc::gen::elementOf(lengths);
    // One to three slices in a row: each one's axis is the one before's length.
    const int count = *rc::gen::inRange(1, 4);
    struct Slice {
      std::string start, stop;
      int64_t step;
    };
    std::vector<Slice> slices;
    std::string text = "x";
    for (int i = 0; i < count; ++i) {
      Slice sl{*rc::gen::elementOf(bounds), *rc::gen::elementOf(bounds),
               *rc::gen::element<int64_t>(1, 2, 3, -1, -2, -3)};
      slices.push_back(sl);
      text += "[" + sl.start + ":" + sl.stop + ":" + std::to_string(sl.step) + "]";
    }
    const std::vector<std::string> lines{"param n, m", "x = input((" + length + ",), float64)", "y = " + text};
    Solver solver;
    lang::Session session(solver, {});
    RC_ASSERT(executesAll(session, lines));
    const Expr dim = session.lookup("y")->shape.at(0);
    RC_LOG() << text << " of length " << length << ": " << dim.toString() << "\n";
    for (int64_t n = 0; n <= 7; ++n)
      for (int64_t m = 0; m <= 5; ++m) {
        Assignment at{{"m", m}, {"n", n}};
        auto value = [&](const std::string &e) -> std::optional<int64_t> {
          if (e.empty()) return std::nullopt;
          return evaluate(parseExpr(e), at)->toInt64Checked();
        };
        int64_t want = value(length).value();
        for (const Slice &sl : slices) want = interp::sliceBounds(want, value(sl.start), value(sl.stop), sl.step).length;
        std::optional<Integer> got = evaluate(dim, at);
        RC_ASSERT(got.has_value());
        RC_ASSERT(*got == Integer(want));
      }
  });
  EXPECT_TRUE(ok);
}

// 25 nested slices x[0:n:1][1:n - 1:2][2:n - 2:1]...: before compaction, y8 and every later
// statement failed ("expression too large", past 8192 nodes), and y7's reply was 21,609
// characters long. Every statement now builds, and the last dim agrees with the interpreter on
// both sides of its pieces (NumPy gives the same for n in [0, 40) and at these points).
TEST(Shapes, TwentyFiveNestedSlicesBuild) {
  std::vector<std::string> lines{"param n", "x = input((n,), float64)"};
  std::string e = "x";
  for (int i = 0; i < 25; ++i) {
    e += "[" + std::to_string(i % 3) + ":n - " + std::to_string(i % 4) + ":" + std::to_string(1 + i % 2) + "]";
    lines.push_back("y" + std::to_string(i) + " = " + e);
  }
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  const Expr dim = session.lookup("y24")->shape[0];
  EXPECT_LT(dim.toString().size(), 80u) << dim.toString();
  for (int64_t n : {0, 1, 7, 3802, 3803, 7898, 7899, 10000, 20000}) {
    std::optional<std::string> want = inferredAt({dim}, {{"n", n}});
    ASSERT_TRUE(want);
    EXPECT_EQ(outcomeOf(lines, "y24", {{"n", n}}), *want) << "n = " << n;
  }
}

// A choice taken on one side only where its condition pins a size (-n < 0 is false only at
// n == 0), whose other side is equal there, is that other side: z[-n:] of z = reshape(y, (-1,))
// with n*(n // 2) elements was `min(n, n*(n // 2)) if -n < 0 else 0`, and at n == 0 the first
// side is 0 too. Products of sizes are outside the quasi-affine test Graph::choose asks first,
// and such choices nested in every shape built on them (random programs of 10^5 nodes had
// dims of 175 nodes made of them). Each dim is checked against the interpreter.
TEST(Shapes, AChoiceWhoseSidesAgreeWhereItsConditionPinsASizeIsOneExpression) {
  const std::vector<std::string> lines{"param n, m",      "x = input((n, n), float64)", "y = x[1::2]",
                                       "z = reshape(y, (-1,))", "w = z[-n:]", "u = z[:-n]", "t = z[m - 1:]"};
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  EXPECT_EQ(session.lookup("w")->shape[0].toString(), "min(n, n*(n // 2))");
  EXPECT_EQ(session.lookup("u")->shape[0].toString(), "max(0, n*(n // 2) - n)");
  for (const char *name : {"w", "u", "t"}) {
    const Shape &shape = session.lookup(name)->shape;
    for (int64_t n : {0, 1, 2, 3, 5})
      for (int64_t m : {0, 1, 2, 7}) {
        Assignment at{{"n", n}, {"m", m}};
        std::optional<std::string> want = inferredAt(shape, at);
        ASSERT_TRUE(want) << name;
        EXPECT_EQ(outcomeOf(lines, name, at), *want) << name << " at n = " << n << ", m = " << m;
      }
  }
}

// A choice whose condition leaves one value of a size (n - 1 < 0 with n >= 0: n == 0) reads
// that value on its side: x[:n - 1] was `0 if n - 1 < 0 else n - 1`, not
// `max(0, 2*n - 1) if n - 1 < 0 else n - 1`; with lengths written by the signs of the bounds
// (Graph::sliceLength) the two sides are one expression, max(0, n - 1). Each dim is
// checked against the interpreter.
TEST(Shapes, AChoiceThatPinsASizeReadsItsValue) {
  const std::vector<std::string> lines{"param n, m", "x = input((n, m), float64)", "a = x[:n - 1]",
                                       "b = x[n - 1:, :m - 3]", "c = x[-m:, 2 - m:]"};
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  EXPECT_EQ(session.lookup("a")->shape[0].toString(), "max(0, n - 1)");
  for (const char *name : {"a", "b", "c"}) {
    const Shape &shape = session.lookup(name)->shape;
    for (int64_t n : {0, 1, 2, 5})
      for (int64_t m : {0, 1, 2, 3, 6}) {
        Assignment at{{"n", n}, {"m", m}};
        std::optional<std::string> want = inferredAt(shape, at);
        ASSERT_TRUE(want) << name;
        EXPECT_EQ(outcomeOf(lines, name, at), *want) << name << " at n = " << n << ", m = " << m;
      }
  }
}

// max/min over a slice need it non-empty: the check reads the slice's length without its
// clipping (max(0, X) >= 1 is X >= 1), and agrees with the interpreter on both sides.
TEST(Shapes, AReductionOverASliceChecksTheUnclippedLength) {
  const std::vector<std::string> lines{"param n, m", "x = input((n,), float64)", "y = max(x[1:], axis=0)",
                                       "z = min(x[m:n:2])"};
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  for (const char *name : {"y", "z"}) {
    std::vector<Pred> checks = ops::validityOf(session.graph(), session.lookup(name)).checks();
    ASSERT_EQ(checks.size(), 1u) << name;
    EXPECT_EQ(checks[0].toString().find("max"), std::string::npos) << checks[0].toString();
    for (int64_t n : {0, 1, 2, 3, 6})
      for (int64_t m : {0, 1, 2, 5}) {
        Assignment at{{"n", n}, {"m", m}};
        bool ok = *evaluate(checks[0], at);
        EXPECT_EQ(outcomeOf(lines, name, at), ok ? "()" : "shape error") << name << " at n = " << n << ", m = " << m;
      }
  }
}

// Found by `shapelab proptest --seed 11` once the generator wrote `reshape(a, (a.shape[1], -1))`:
// the -1 of reshape((m,), (m, -1)) is m / m, whose one term lost its only atom; the sum built
// from it held a term without atoms (not canonical: unequal to the constant 1, and the solver
// read past the term's empty monomial). A term without atoms now joins the constant.
TEST(Reshape, MinusOneThatCancelsToAConstant) {
  const std::vector<std::string> lines{"param n, m", "b = input((m,), float64)", "a = input((n, m), float64)",
                                       "x = reshape(b, (b.shape[0], -1))", "y = reshape(a, (a.shape[1], -1))",
                                       "z = reshape(a, (n*m, -1))", "w = x + 1.0"};
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  EXPECT_EQ(toString(session.lookup("x")->shape), "(m, 1)");
  EXPECT_EQ(toString(session.lookup("y")->shape), "(m, n)");
  EXPECT_EQ(toString(session.lookup("z")->shape), "(m*n, 1)");
  EXPECT_EQ(outcomeOf(lines, "w", {{"n", 2}, {"m", 3}}), "(3, 1)");
  EXPECT_EQ(outcomeOf(lines, "x", {{"n", 2}, {"m", 0}}), "shape error"); // NumPy: -1 of an empty array
  EXPECT_EQ(outcomeOf(lines, "y", {{"n", 2}, {"m", 3}}), "(3, 2)");
}

// pad reads pad_width and constant_values as NumPy's _as_pairs does, pads axis 0 first (a later
// axis's constant fills the corners) and checks every width, even of a 0-d array, which no axis
// uses. NumPy 1.24 gave each expected value.
TEST(Pad, WidthsAndConstantsAsNumpyReadsThem) {
  const std::vector<std::string> lines = {
      "param n, m",
      "x = input((2, 3), int32)",
      "z = input((), float64)",
      "one = np.pad(x, 1)",
      "pair = np.pad(x, (1, 2))",
      "column = np.pad(x, ((1,), (2,)))",
      "corners = np.pad(x, ((1, 0), (0, 1)), constant_values=((7, 8), (9, 10)))",
      "cast = np.pad(x, 1, constant_values=2.7)",
      "sized = np.pad(x, (0, n))",
      "scalar = np.pad(z, (m - 1, 0))",
      "empty = np.pad(x, 2, mode='empty')"};
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  auto shape = [&](const char *name) { return toString(session.lookup(name)->shape); };
  EXPECT_EQ(shape("one"), "(4, 5)");
  EXPECT_EQ(shape("pair"), "(5, 6)");
  EXPECT_EQ(shape("column"), "(4, 7)");
  EXPECT_EQ(shape("sized"), "(n + 2, n + 3)");
  EXPECT_EQ(shape("scalar"), "()");
  EXPECT_EQ(shape("empty"), "(6, 7)");
  interp::Array xv(ops::DType::Int32, {2, 3});
  for (int i = 0; i < 6; ++i) xv.base<int32_t>()[i] = i;
  interp::Interpreter in(session.graph(), {{"n", 1}, {"m", 1}}, {{"x", xv}, {"z", interp::Array(ops::DType::Float64, {})}}, {});
  EXPECT_EQ(in.evaluate(session.lookup("corners")).toString(), "[[7, 7, 7, 10], [0, 1, 2, 10], [3, 4, 5, 10]]");
  EXPECT_EQ(in.evaluate(session.lookup("cast")).toString(),
            "[[2, 2, 2, 2, 2], [2, 0, 1, 2, 2], [2, 3, 4, 5, 2], [2, 2, 2, 2, 2]]");
  // The 0-d array's width m - 1 is checked though unused: NumPy refuses m = 0.
  EXPECT_EQ(outcomeOf(lines, "scalar", Assignment{{"n", 1}, {"m", 0}}), "shape error");
  EXPECT_EQ(outcomeOf(lines, "scalar", Assignment{{"n", 1}, {"m", 1}}), "()");
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"w = np.pad(x, 1.5)", "`pad_width` must be of integral type."},
      {"w = np.pad(x, ())", "`pad_width` must be of integral type."},
      {"w = np.pad(x, -1)", "index can't contain negative values"},
      {"w = np.pad(x, ((1, 2), (3, 4), (5, 6)))", "remapped shapes [original->remapped]: (3,2)  and requested shape (2,2)"},
      {"w = np.pad(x, 1, mode='median')", "mode 'median' is not supported (constant, empty, edge, wrap, symmetric and reflect are)"},
      {"w = np.pad(x, 1, mode='edge', constant_values=3)", "unsupported keyword arguments for mode 'edge'"},
      {"w = np.pad(x, 1, mode='reflect', reflect_type='odd')", "reflect_type='even' is the one shapelab has"},
      {"w = np.pad(x, 1, mode='bogus')", "mode 'bogus' is not supported"},
      {"w = np.pad(x, 1, mode='empty', constant_values=3)", "unsupported keyword arguments for mode 'empty'"}};
  for (const auto &[line, message] : refused) EXPECT_TRUE(refusedWith(session, line, message));
}

/// Found by fuzz_program (CI): `reshape(x, (b, t, -q))` evaluated at q = 1. The shape rule read a
/// computed entry as a size and the kernel inferred it, so the interpreter's check of the two
/// raised an internal error. Both now read the target as NumPy does: a negative entry, written
/// or computed, is the inferred one. At q >= 1 the last dim is d (b*t >= 1) or the reshape fails
/// (b*t == 0: nothing to divide by); at q == 0 the count must be kept (b*t*d == 0).
TEST(Reshape, AComputedNegativeEntryIsInferredAsNumPyInfersIt) {
  const std::vector<std::string> lines = {"param b, t, d, q", "x = input((b, t, d), float32)",
                                          "y = reshape(x, (b, t, -q))"};
  for (int64_t q : {0, 1, 2})
    for (int64_t d : {0, 1, 2})
      for (int64_t t : {0, 2}) {
        Assignment at;
        at.set("b", 1);
        at.set("t", t);
        at.set("d", d);
        at.set("q", q);
        std::string expected = "shape error";
        if (q >= 1 && t >= 1) expected = interp::shapeText({1, t, d});
        if (q == 0 && t * d == 0) expected = interp::shapeText({1, t, 0});
        EXPECT_EQ(outcomeOf(lines, "y", at), expected) << "q = " << q << ", d = " << d << ", t = " << t;
      }
  Solver solver;
  lang::Session session(solver, {});
  for (std::size_t i = 0; i < lines.size(); ++i) ASSERT_FALSE(session.execute(lines[i], int(i + 1)).failed);
  // -q is 0 wherever it is not negative: the second branch reads so.
  EXPECT_EQ(toString(session.lookup("y")->shape), "(b, t, d if -q < 0 else 0)");
}

/// An entry whose sign the assumptions leave open but that is a size wherever the operand can be
/// computed (a dim of an (n - 1, m - 1) array) is read as a size: where it would be negative the
/// operand fails first, so NumPy never infers it. (Read as possibly negative, its quotient by a
/// sum could not be written, and these reshapes were refused.)
TEST(Reshape, AnEntryThatIsASizeWhereTheOperandIsValidIsASize) {
  const std::vector<std::string> lines = {"param n, m", "x = input((n - 1, m - 1), float64)",
                                          "y = reshape(x, (x.shape[1], x.shape[0]))", "z = x.reshape(m - 1, n - 1)"};
  Solver solver;
  lang::Session session(solver, {});
  for (std::size_t i = 0; i < lines.size(); ++i) {
    lang::Reply r = session.execute(lines[i], int(i + 1));
    ASSERT_FALSE(r.failed) << lines[i] << ": " << (r.lines().empty() ? "" : r.lines().front());
  }
  EXPECT_EQ(toString(session.lookup("y")->shape), "(m - 1, n - 1)");
  EXPECT_EQ(session.lookup("z"), session.lookup("y")); // the same node: the same target
  for (int64_t n : {0, 1, 3})
    for (int64_t m : {0, 2}) {
      // Where a dim of x is negative, x itself cannot be given (an input error) and y never runs.
      const std::string expected = n >= 1 && m >= 1 ? interp::shapeText({m - 1, n - 1}) : "input error";
      EXPECT_EQ(outcomeOf(lines, "y", {{"n", n}, {"m", m}}), expected) << "n = " << n << ", m = " << m;
    }
}

/// NumPy's reshape (tests/data/numpy_reshape.tsv, made by scripts/make_reshape_oracle.py) at every
/// point of a box, for targets with computed entries that may be negative, a negative literal
/// other than -1, and two entries that may both be negative. Each program is built once; at each
/// point the reference kernel's outcome must be NumPy's, and the interpreter's debug check makes
/// the shape rule (shape and validity) agree with the kernel there.
TEST(Reshape, ComputedEntriesFollowNumPy) {
  auto rows = oracle::readRows("numpy_reshape.tsv");
  ASSERT_GE(rows.size(), 500u);
  std::map<std::pair<std::string, std::string>, std::vector<const std::vector<std::string> *>> cases;
  for (const auto &row : rows) {
    ASSERT_EQ(row.size(), 4u);
    cases[{row[0], row[1]}].push_back(&row);
  }
  std::size_t compared = 0;
  for (const auto &[program, points] : cases) {
    Solver solver;
    lang::Session session(solver, {});
    const std::vector<std::string> lines = {"param a, b, c", "x = input(" + program.first + ", float64)",
                                            "y = reshape(x, " + program.second + ")"};
    for (std::size_t i = 0; i < lines.size(); ++i) {
      lang::Reply r = session.execute(lines[i], int(i + 1));
      ASSERT_FALSE(r.failed) << lines[i] << ": " << (r.lines().empty() ? "" : r.lines().front());
    }
    for (const auto *row : points) {
      Assignment at;
      for (const std::string &kv : oracle::split((*row)[2], ',')) at.set(kv.substr(0, 1), int64_t(std::stoll(kv.substr(2))));
      const std::string expected = (*row)[3] == "error" ? "shape error" : (*row)[3];
      interp::Interpreter in(session.graph(), at, {}, {});
      std::string got;
      try {
        got = interp::shapeText(in.evaluate(session.lookup("y")).shape());
      } catch (const interp::EvalError &e) {
        got = std::string(interp::EvalError::spelling(e.kind)) + " error";
      }
      EXPECT_EQ(got, expected) << "reshape(x" << program.first << ", " << program.second << ") at " << (*row)[2];
      ++compared;
    }
  }
  EXPECT_EQ(compared, rows.size());
}
