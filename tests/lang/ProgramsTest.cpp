// Programs in the language (lang/): what statements build, reply and refuse, and the reference kernels against the shape rules on random programs.

#include "tests/lang/ProgramFixtures.h"

using namespace shapelab;
using namespace shapelab::fixtures;

RC_GTEST_PROP(Programs, ReferenceKernelsAgreeWithShapeRules, ()) { kernelsAgreeWithShapeRules(BroadcastMode::Numpy); }

RC_GTEST_PROP(Programs, ReferenceKernelsAgreeWithShapeRulesInStaticMode, ()) {
  kernelsAgreeWithShapeRules(BroadcastMode::Static);
}

// Found by fuzz_program: a mask's shape requirement was dropped when the node took its
// data-dependent size (x[k] with x of shape (3,) and k of (2,) was `valid`), and the interpreter's
// debug check stopped on z = (x * y)[x > 0]. NumPy checks each mask dimension that is not 0
// (an empty one selects nothing along any axis). Checked against the interpreter, whose rule
// is NumPy's, at every point of a box.
TEST(Programs, AMaskMustMatchTheAxesItIndexes) {
  const std::vector<std::string> lines = {"param n, m",
                                          "x = input((n,), float64)",
                                          "y = input((m,), float64)",
                                          "z = (x * y)[x > 0]",
                                          "w = x[y > 0]",
                                          "c = input((3,), float64)",
                                          "k = input((2,), bool)",
                                          "e = c[k]",
                                          "u = input((n, m), float64)",
                                          "v = u[x > 0]"};
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  EXPECT_EQ(ops::validityOf(session.graph(), session.lookup("e")).status(), Status::Error);
  for (const char *name : {"z", "w", "v"}) {
    Validity v = ops::validityOf(session.graph(), session.lookup(name));
    for (int64_t n = 0; n <= 4; ++n)
      for (int64_t m = 0; m <= 4; ++m) {
        std::string outcome = outcomeOf(lines, name, {{"n", n}, {"m", m}});
        Assignment at{{"n", n}, {"m", m}};
        for (const Expr &p : parametersOf(v.domain()))
          if (p->reserved) at.set(p->name, 0); // the masks' counts: any value the data gives
        EXPECT_EQ(holds(v.domain(), at), outcome != "shape error") << name << " at n = " << n << ", m = " << m << ": " << outcome;
      }
  }
  // NumPy: an empty mask dimension is not checked; x[y > 0] with n = 3, m = 0 selects nothing.
  EXPECT_EQ(outcomeOf(lines, "w", {{"n", 3}, {"m", 0}}), "(0,)");
  EXPECT_EQ(outcomeOf(lines, "w", {{"n", 3}, {"m", 2}}), "shape error");
}

// NumPy computes an array to read its shape: zeros((a + b).shape) fails where a and b do not
// broadcast, though its own shape only reads the broadcast's. It was `valid`, with an empty error
// domain, and ran at such points; so did [a + b, a][1], which computes a + b only to drop it.
// What a statement computes and its result does not read now guards the result (in the same
// statement, or later through a size a name holds); an operand guards nothing more.
TEST(Programs, ReadingTheShapeOfAnArrayComputesIt) {
  const std::vector<std::string> lines = {"param n, m",
                                          "a = input((n,), float64)",
                                          "b = input((m,), float64)",
                                          "z = zeros((a + b).shape)",
                                          "k = (a * b).shape[0] + 1",
                                          "w = full((k,), 2.0)",
                                          "r = reshape(a, (a.shape[0], -1))",
                                          "l = ones_like(a - b, dtype=np.int32)",
                                          "d = [a + b, a][1]",
                                          "t = (a * b, a)[1]",
                                          "i = ifelse(n > m, a + b, a)",
                                          "q = [a + b, 3][1]",
                                          "y = zeros(q)"};
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  for (const char *name : {"z", "w", "l", "d", "t", "y"}) {
    const ops::Node *node = session.lookup(name);
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->kind, ops::OpKind::After) << name;
    Validity v = ops::validityOf(session.graph(), node);
    EXPECT_EQ(v.status(), Status::RuntimeCheck) << name;
    for (int64_t n = 0; n <= 4; ++n)
      for (int64_t m = 0; m <= 4; ++m) {
        bool broadcasts = n == m || n == 1 || m == 1;
        EXPECT_EQ(holds(v.domain(), {{"n", n}, {"m", m}}), broadcasts) << name << " at n = " << n << ", m = " << m;
        std::string outcome = outcomeOf(lines, name, {{"n", n}, {"m", m}});
        EXPECT_EQ(outcome == "shape error", !broadcasts) << name << " at n = " << n << ", m = " << m << ": " << outcome;
      }
  }
  // a is r's operand: its shape adds no guard. A lazy ifelse's branch is its operand too: it
  // runs only where chosen.
  EXPECT_EQ(session.lookup("r")->kind, ops::OpKind::Reshape);
  EXPECT_EQ(session.lookup("i")->kind, ops::OpKind::IfElse);
  EXPECT_EQ(outcomeOf(lines, "i", {{"n", 2}, {"m", 3}}), "(2,)");
  EXPECT_EQ(outcomeOf(lines, "i", {{"n", 3}, {"m", 2}}), "shape error");
  lang::Reply errors = session.execute(":errors", int(lines.size() + 1));
  ASSERT_FALSE(errors.lines().empty());
  EXPECT_EQ(errors.lines()[0].find("empty"), std::string::npos) << errors.lines()[0];
}

// Obligations that each depend may be impossible together, and the status is then an error.
// c below needs n == 1 (squeeze) and n % 2 == 0 (reshape), and it was reported as a runtime
// check: the joint question was asked in the strict reading, where the reshape's n / 2 is
// undefined at odd n, so "never together" could not be proven there. Every node built on c
// holds c's obligations, and the solver remembers the impossible list (knownJointlyImpossible):
// those nodes are errors without another question, as a fresh solver finds them: d and e hold
// exactly c's obligations (their conjunction's decision is kept, settledJointly), f one more
// (the remembered impossible list is part of its own).
TEST(Programs, ObligationsImpossibleTogetherAreAnError) {
  const std::vector<std::string> lines{"param n",         "x = input((n,), float64)", "a = squeeze(x, 0)",
                                       "b = reshape(x, (2, -1))", "c = a + b[0]", "d = exp(c)",
                                       "e = d * 2.0 + c", "f = reshape(e, (3, -1))"};
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  EXPECT_EQ(ops::validityOf(session.graph(), session.lookup("a")).status(), Status::RuntimeCheck);
  EXPECT_EQ(ops::validityOf(session.graph(), session.lookup("b")).status(), Status::RuntimeCheck);
  for (const char *name : {"c", "d", "e", "f"}) {
    Solver fresh;
    lang::Session again(fresh, {});
    ASSERT_TRUE(executesAll(again, lines));
    fresh.clearMemo(); // nothing remembered: the question is asked for this node alone
    EXPECT_EQ(ops::validityOf(again.graph(), again.lookup(name)).status(), Status::Error) << name;
    EXPECT_EQ(ops::validityOf(session.graph(), session.lookup(name)).status(), Status::Error) << name;
    for (int64_t n = 0; n <= 8; ++n) EXPECT_EQ(outcomeOf(lines, name, {{"n", n}}), "shape error") << name << " at n = " << n;
  }
  EXPECT_GT(solver.stats().impossibleByMemo, 0u);
  EXPECT_GT(solver.stats().settledByMemo, 0u);
}

// The status of every node of random programs whose sizes the assumptions bound to a box: an
// error exactly where no point of the box satisfies the node's validity domain, read where it
// holds (an undefined obligation fails), by evaluation alone.
TEST(Programs, ErrorStatusIsAnEmptyDomainOnABoundedBox) {
  bool ok = rc::check("error exactly where nothing is valid", [] {
    const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
    std::mt19937_64 rng(seed);
    proptests::ProgramOptions o;
    o.dataDependent = false;
    std::vector<std::string> lines;
    {
      Solver s;
      lang::Session g(s, {});
      lines = proptests::generateProgram(g, rng, *rc::gen::inRange(3, 16), o).lines;
    }
    RC_PRE(!lines.empty() && lines[0].rfind("param ", 0) == 0);
    lines.insert(lines.begin() + 1, "assume n <= 5 and m <= 5");
    Solver solver;
    lang::Session session(solver, {});
    int k = 0;
    for (const std::string &line : lines) session.execute(line, ++k);
    for (const std::string &line : lines) {
      const std::size_t eq = line.find(" = ");
      if (eq == std::string::npos || line.find(',') < eq) continue;
      const ops::Node *node = session.lookup(line.substr(0, eq));
      if (!node) continue;
      const Validity v = ops::validityOf(session.graph(), node);
      const Status status = v.status();
      if (status == Status::Unknown) continue;
      const Pred holds = whereHolds(v.domain());
      bool anyValid = false;
      for (int64_t n = 0; n <= 5 && !anyValid; ++n)
        for (int64_t m = 0; m <= 5 && !anyValid; ++m) {
          // Sizes from sizes (n // m) at their values: Python's floor division, 0 by 0.
          Assignment at{{"m", m}, {"n", n}};
          for (const ops::Graph::SizeDefinition &def : session.graph().sizeDefinitions()) {
            const std::optional<Integer> a = evaluate(def.numerator, at), b = evaluate(def.divisor, at);
            const Integer q = *b == Integer(0) ? Integer(0) : Integer::floorDiv(*a, *b);
            at.set(def.name, def.quotient ? q : *a - q * *b);
          }
          anyValid = evaluate(holds, at) == std::optional<bool>(true);
        }
      RC_LOG() << line << ": " << spelling(status) << "\n";
      RC_ASSERT((status == Status::Error) == !anyValid);
    }
  });
  EXPECT_TRUE(ok);
}

// np.prod(x.shape) and the other reductions of a tuple of sizes: NumPy reduces the tuple as an
// int64 array, so the answer is a size again (a predicate for all and any), usable in shapes.
// Each is checked against plain arithmetic on a box, through the interpreter.
TEST(Programs, AReductionOfATupleOfSizesIsASize) {
  const std::vector<std::string> lines = {
      "param n, m",
      "x = input((n, m + 1), float64)",
      "z = full((np.prod(x.shape), np.max(x.shape), np.sum((n, 1)), len(x.shape), np.min([m, 2])), 0.5)",
      "i = ifelse(np.all(x.shape), ones(2), zeros(3))",
      "j = ifelse(np.any((n - n, m)), ones(2), zeros(3))",
      "y = x.reshape(np.prod(x.shape))"};
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  for (int64_t n = 0; n <= 4; ++n)
    for (int64_t m = 0; m <= 4; ++m) {
      Assignment at{{"n", n}, {"m", m}};
      std::vector<int64_t> want{n * (m + 1), std::max(n, m + 1), n + 1, 2, std::min(m, int64_t(2))};
      EXPECT_EQ(outcomeOf(lines, "z", at), interp::shapeText(want)) << "n = " << n << ", m = " << m;
      EXPECT_EQ(outcomeOf(lines, "i", at), n != 0 ? "(2,)" : "(3,)") << "n = " << n << ", m = " << m;
      EXPECT_EQ(outcomeOf(lines, "j", at), m != 0 ? "(2,)" : "(3,)") << "n = " << n << ", m = " << m;
      EXPECT_EQ(outcomeOf(lines, "y", at), interp::shapeText({n * (m + 1)}));
    }
  // The reply shows the value: a size or a predicate as an expression.
  EXPECT_EQ(session.execute("a = np.all((n, 2))", 10).lines().at(0), "a: n != 0");
  EXPECT_EQ(session.execute("b = np.prod((n, m))", 11).lines().at(0), "b: m*n");
  EXPECT_EQ(session.execute("c = np.prod(())", 12).lines().at(0), "c: 1.0"); // float64, as NumPy's
  // NumPy's errors: an empty tuple has no maximum, a tuple has one axis, and the mean of sizes is
  // no size.
  for (const char *bad : {"d = np.max(())", "d = np.sum(x.shape, axis=1)", "d = np.mean(x.shape)",
                          "d = np.prod((n, 2.5))", "d = np.sum(x.shape, keepdims=True)"}) {
    lang::Reply r = session.execute(bad, 13);
    EXPECT_TRUE(r.failed) << bad;
  }
  EXPECT_NE(session.execute("d = np.max(())", 14).lines().at(0).find("zero-size array to reduction operation maximum"),
            std::string::npos);
}

// arange over sizes and eye: the length is max(0, ceil((stop - start) / step)) as a piecewise
// quasi-affine size; counted here by stepping from start to stop, at every point of a box, and
// compared with the interpreter's values.
TEST(Programs, ArangeAndEyeOverSizes) {
  struct Case {
    const char *text;
    std::function<std::vector<int64_t>(int64_t, int64_t)> values;
  };
  auto stepping = [](int64_t start, int64_t stop, int64_t step) {
    std::vector<int64_t> v;
    for (int64_t x = start; step > 0 ? x < stop : x > stop; x += step) v.push_back(x);
    return v;
  };
  const std::vector<Case> cases = {
      {"arange(n)", [&](int64_t n, int64_t) { return stepping(0, n, 1); }},
      {"np.arange(2, n, 3)", [&](int64_t n, int64_t) { return stepping(2, n, 3); }},
      {"arange(n, m - 1, -2)", [&](int64_t n, int64_t m) { return stepping(n, m - 1, -2); }},
      {"arange(m - 3)", [&](int64_t, int64_t m) { return stepping(0, m - 3, 1); }},
      {"arange(start=n, stop=2 * m, step=4)", [&](int64_t n, int64_t m) { return stepping(n, 2 * m, 4); }}};
  for (const Case &c : cases) {
    const std::vector<std::string> lines = {"param n, m", std::string("a = ") + c.text};
    Solver solver;
    lang::Session session(solver, {});
    ASSERT_TRUE(executesAll(session, lines)) << c.text;
    const ops::Node *a = session.lookup("a");
    // Valid; a bound that may pass int64 (2*m can) is a limit, as an array's size is.
    Validity v = ops::validityOf(session.graph(), a);
    EXPECT_EQ(v.status(), Status::Valid) << c.text;
    const bool limited = std::any_of(v.obligations().begin(), v.obligations().end(), [](const Obligation &o) {
      return o.kind == ObligationKind::Limit && o.decision.answer != Answer::Proven && o.what.find("arange's stop fits in int64") != std::string::npos;
    });
    EXPECT_EQ(limited, std::string(c.text).find("2 * m") != std::string::npos) << c.text;
    for (int64_t n = 0; n <= 6; ++n)
      for (int64_t m = 0; m <= 6; ++m) {
        std::vector<int64_t> want = c.values(n, m);
        Assignment at{{"n", n}, {"m", m}};
        EXPECT_EQ(inferredAt(a->shape, at), interp::shapeText({int64_t(want.size())})) << c.text << " at " << at.toString();
        interp::Interpreter in(session.graph(), at, {}, {});
        interp::Array got = in.evaluate(a);
        ASSERT_EQ(got.size(), int64_t(want.size())) << c.text;
        for (std::size_t k = 0; k < want.size(); ++k) EXPECT_EQ(got.base<int64_t>()[k], want[k]) << c.text;
      }
  }
  // eye(n, m, k): ones where column = row + k; a negative size is a shape error, as in NumPy.
  const std::vector<std::string> lines = {"param n, m", "e = eye(n, m + 1, k=1)", "g = identity(n - 2, dtype=int32)"};
  for (int64_t n = 0; n <= 4; ++n)
    for (int64_t m = 0; m <= 3; ++m) {
      Assignment at{{"n", n}, {"m", m}};
      EXPECT_EQ(outcomeOf(lines, "e", at), interp::shapeText({n, m + 1}));
      EXPECT_EQ(outcomeOf(lines, "g", at), n >= 2 ? interp::shapeText({n - 2, n - 2}) : "shape error");
    }
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, lines));
  interp::Interpreter in(session.graph(), {{"n", 2}, {"m", 2}}, {}, {});
  EXPECT_EQ(in.evaluate(session.lookup("e")).toString(), "[[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]");
  for (const char *bad : {"z = arange(n, 1, 0)", "z = arange(1.5)", "z = arange()"})
    EXPECT_TRUE(session.execute(bad, 9).failed) << bad;
}

// A part of split(x, k) is L // k long (the slice's own length carried clipping that cannot
// happen, `max(0, min(L, L // 3))`, and cost several solver questions a part: 96 sections took
// 0.22 s). At every point of a box the reference interpreter (its debug check compares each
// result with the inferred shape) computes each part where the program is valid, with NumPy's
// length L / k, and raises a shape error where it is not.
TEST(Programs, SplitPartsAreTheAxisDividedBySections) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param n, m", "x = input((n - m, 2, m), float64)", "a, b, c = split(x, 3)",
                                    "p, q = split(x, 2, axis=2)"}));
  EXPECT_EQ(toString(session.lookup("b")->shape), "((-m + n) // 3, 2, m)");
  // An axis split leaves alone is sliced as `:`, which leaves an affine size as it is.
  EXPECT_EQ(toString(session.lookup("q")->shape), "(-m + n, 2, m // 2)");
  int valid = 0, invalid = 0;
  for (int n = 0; n <= 9; ++n)
    for (int m = 0; m <= 4; ++m) {
      Assignment at{{"n", n}, {"m", m}};
      for (const char *name : {"a", "b", "c", "p", "q"}) {
        const ops::Node *part = session.lookup(name);
        interp::Interpreter in(session.graph(), at, {});
        auto r = in.attempt(part);
        const bool splits3 = n >= m && (n - m) % 3 == 0, splits2 = n >= m && m % 2 == 0;
        const bool expected = std::string("abc").find(name[0]) != std::string::npos ? splits3 : splits2;
        ASSERT_EQ(std::holds_alternative<interp::Array>(r), expected) << name << " at n=" << n << ", m=" << m;
        if (!expected) {
          ++invalid;
          continue;
        }
        ++valid;
        const std::vector<int64_t> numpy = name[0] <= 'c' ? std::vector<int64_t>{(n - m) / 3, 2, m}
                                                          : std::vector<int64_t>{n - m, 2, m / 2};
        EXPECT_EQ(std::get<interp::Array>(r).shape(), numpy) << name << " at n=" << n << ", m=" << m;
      }
    }
  EXPECT_GT(valid, 20);
  EXPECT_GT(invalid, 20);
}

// An ifelse computes only the branch it chooses: its branches' obligations become conditional on
// the choice, NumPy's limits of the arrays a branch makes among them (they were dropped).
TEST(Programs, IfElseKeepsItsBranchesLimitsWhereTheyAreChosen) {
  for (bool strict : {false, true}) {
    Solver solver;
    lang::SessionOptions o;
    o.strictLimits = strict;
    lang::Session session(solver, o);
    ASSERT_TRUE(executesAll(session, {"param n", "y = zeros((n, n))", "w = zeros((1, 1))"}));
    const lang::Reply r = session.execute("z = ifelse(n > 2, y, w)", 4);
    ASSERT_FALSE(r.failed);
    const std::string condition = "n <= 2 or n**2 <= 9223372036854775807";
    if (strict) {
      EXPECT_EQ(r.lines().at(0), "z: (n if n > 2 else 1, n if n > 2 else 1) float64, runtime-check: " + condition);
    } else {
      ASSERT_EQ(r.lines().size(), 2u) << r.lines().at(0);
      EXPECT_EQ(r.lines().at(1), "  limits: " + condition);
    }
  }
}

// :eval --opt runs the program rewritten as :optimize rewrites it without flags (strict, bit for
// bit), whatever :optimize was asked before: x - x is 0 only where x is finite, so an inexact
// rewriting shown by :optimize must not change what --opt computes at nan.
TEST(Programs, EvalOptRunsTheStrictExactRewritingWhateverOptimizeShowed) {
  for (const char *flags : {"--inexact", "--valid-graph", "--valid-graph --inexact"}) {
    Solver solver;
    lang::Session session(solver, {});
    ASSERT_TRUE(executesAll(session, {"x = input((1, 2), float64)", "w = x - x"}));
    const std::string eval = ":eval w --opt with x=[[nan, 1.0]]";
    const std::string before = session.execute(eval, 3).lines().at(0);
    EXPECT_EQ(before, "w = [[nan, 0.0]]  (float64, shape (1, 2))");
    lang::Reply shown = session.execute(std::string(":optimize w ") + flags, 4);
    ASSERT_FALSE(shown.failed) << shown.lines().at(0);
    EXPECT_EQ(session.execute(eval, 5).lines().at(0), before) << flags;
  }
}

// :eval needs only the size parameters the value's computation reads; the others take values the
// assumptions allow beside the given ones (nothing computed depends on them).
TEST(Programs, EvalNeedsOnlyTheSizesItReads) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param n, m, k", "assume m >= n + 2", "x = input((n,), float64)", "y = x * 2.0",
                                    "z = zeros((k,))", "w = x[:m]"}));
  lang::Reply ok = session.execute(":eval y with n=3, x=[1.0, 2.0, 3.0]", 7);
  ASSERT_FALSE(ok.failed) << ok.lines().at(0);
  EXPECT_EQ(ok.lines().at(0), "y = [2.0, 4.0, 6.0]  (float64, shape (3,))");
  for (const char *bad : {":eval z with n=3", ":eval w with n=3"}) // z reads k, w reads m
    EXPECT_TRUE(refusedWith(session, bad, "no value for size parameter"));
  // Given values that break the assumptions are still refused.
  lang::Reply r = session.execute(":eval y with n=3, m=1", 9);
  ASSERT_TRUE(r.failed);
  EXPECT_NE(r.lines().at(0).find("does not satisfy the assumption m >= n + 2"), std::string::npos) << r.lines().at(0);
}

// A list literal given to :eval is read as NumPy reads it: its dtype is bool when every leaf is
// True or False, float64 when one is a float, else int64 (True is 1), then cast to the input's
// dtype. Leaves of every kind mixed in one list, against values written out independently.
RC_GTEST_PROP(Programs, ListLiteralsAreReadAsNumPyReadsThem, ()) {
  const bool floatInput = *rc::gen::arbitrary<bool>();
  const auto count = *rc::gen::inRange<std::size_t>(1, 7);
  std::string literal, expected;
  for (std::size_t i = 0; i < count; ++i) {
    const int kind = *rc::gen::inRange(0, floatInput ? 4 : 3); // int, True, False, float
    std::string leaf, value;
    if (kind == 0) {
      const int v = *rc::gen::inRange(-3, 4);
      leaf = std::to_string(v);
      value = floatInput ? std::to_string(v) + ".0" : std::to_string(v);
    } else if (kind == 1 || kind == 2) {
      leaf = kind == 1 ? "True" : "False";
      value = floatInput ? (kind == 1 ? "1.0" : "0.0") : (kind == 1 ? "1" : "0");
    } else {
      const bool half = *rc::gen::arbitrary<bool>();
      leaf = half ? "0.5" : "-2.25";
      value = leaf;
    }
    literal += (i ? ", " : "") + leaf;
    expected += (i ? ", " : "") + value;
  }
  Solver solver;
  lang::Session session(solver, {});
  RC_ASSERT(executesAll(session, {"param n", std::string("f = input((n,), ") + (floatInput ? "float64" : "int64") + ")"}));
  const lang::Reply r = session.execute(":eval f with n=" + std::to_string(count) + ", f=[" + literal + "]", 3);
  RC_ASSERT(!r.failed);
  RC_ASSERT(r.lines().at(0) == "f = [" + expected + "]  (" + (floatInput ? "float64" : "int64") + ", shape (" +
                                    std::to_string(count) + ",))");
}

// Sizes from sizes: `d // h` and `d % h` of two sizes are sizes _q1 and _r1 defined by
// d == h*_q1 + _r1 (0 <= _r1 < h), so a reshape into heads is written as practitioners write it:
// valid where h >= 1 and h divides d (its count check reads b*t*_r1 == 0), each reply saying
// what the fresh sizes are; the interpreter gives them their values; `assume d % h == 0` is an
// assumption about d and h. True division and symbolic exponents are still not sizes.
TEST(Programs, SizesDividedBySizesAreDefinedSizes) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param b, t, d, h", "x = input((b, t, d), float32)"}));
  const lang::Reply y = session.execute("y = reshape(x, (b, t, h, d // h))", 3);
  ASSERT_FALSE(y.failed);
  EXPECT_EQ(y.lines().at(0), "y: (b, t, h, _q1) float32, runtime-check: h >= 1; _r1*b*t == 0");
  EXPECT_EQ(y.lines().back(), "  where _q1 = d // h, _r1 = d % h");
  auto outcome = [&](const char *name, int64_t d, int64_t h) -> std::string {
    Assignment at;
    at.set("b", 1), at.set("t", 2), at.set("d", d), at.set("h", h);
    try {
      interp::Interpreter in(session.graph(), at, {}, {});
      return interp::shapeText(in.evaluate(session.lookup(name)).shape());
    } catch (const interp::EvalError &e) {
      return e.what();
    }
  };
  EXPECT_EQ(outcome("y", 6, 3), "(1, 2, 3, 2)");
  EXPECT_NE(outcome("y", 7, 3).find("cannot reshape array of size 14"), std::string::npos) << outcome("y", 7, 3);
  EXPECT_NE(outcome("y", 6, 0).find("integer division or modulo by zero"), std::string::npos) << outcome("y", 6, 0);
  // The same quotient is the same size; the remainder is one too.
  ASSERT_TRUE(executesAll(session, {"z = zeros((d // h, d % h))"}));
  EXPECT_EQ(toString(session.lookup("z")->shape), "(_q1, _r1)");
  // Under `assume d % h == 0 and h >= 1`, the reshape is valid.
  ASSERT_TRUE(executesAll(session, {"assume d % h == 0 and h >= 1", "w = reshape(x, (b, t, h, d // h))"}));
  EXPECT_EQ(ops::validityOf(session.graph(), session.lookup("w")).status(), Status::Valid);
  EXPECT_TRUE(refusedWith(session, "v = reshape(x, (b, t, d / 2))", "'/' is true division"));
  EXPECT_TRUE(refusedWith(session, "v = reshape(x, (b, t, 2**d))", "a size's exponent is a constant"));
  EXPECT_TRUE(refusedWith(session, "v = zeros(d // 0)", "integer division or modulo by zero"));
  // A negative constant divides as Python divides: 7 // -2 is -4, 7 % -2 is -1.
  ASSERT_TRUE(executesAll(session, {"k = (d + 7) // -2", "r = (d + 7) % -2"}));
  // A numerator that may be negative reads one defined size per sign: (d - 3) // h is _q2 where
  // d >= 3 and -_q3 - 1 below, _q3 being (2 - d) // h clamped at 0 (the box test below checks
  // the values).
  const lang::Reply v = session.execute("v = zeros(((d - 3) // h + 1,))", 9);
  ASSERT_FALSE(v.failed) << v.lines().at(0);
  EXPECT_EQ(v.lines().back(), "  where _q2 = max(0, d - 3) // h, _q3 = max(0, -d + 2) // h");
  // A divisor whose sign is unknown is refused, saying why.
  EXPECT_TRUE(refusedWith(session, "v = zeros(((d + 1) // (h - d),))", "computed at run time"));
}

// Sizes from sizes against plain integer arithmetic (Python's floor division, written here), at
// every point of a box: where the program runs, with what shape, and the symbolic validity and
// shape read at the point (the fresh sizes given their values) agree with the run.
TEST(Programs, SizesFromSizesAgreeWithIntegerArithmeticOnABox) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param d, h", "x = input((d, 2), float64)", "v = input((d,), float64)",
                                    "z = zeros(((d + 3) // h - 2,))", "y = reshape(x, (h, -1))", "w = v[: d // h]",
                                    "u = zeros((d % h, (d + 1) // h))", "s = zeros(((d - 5) // h + 1, (4 - d) % h))",
                                    "t = v[(d - 6) // h :]", "p = zeros(((d - 2) // -h + 2,))"}));
  auto floorDiv = [](int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); };
  for (int64_t d = 0; d <= 9; ++d)
    for (int64_t h = 0; h <= 4; ++h) {
      // NumPy's answer: the shape, or nullopt where it raises.
      std::map<std::string, std::optional<std::vector<int64_t>>> want;
      if (h == 0) {
        want = {{"z", std::nullopt}, {"y", std::nullopt}, {"w", std::nullopt}, {"u", std::nullopt},
                {"s", std::nullopt},   {"t", std::nullopt}, {"p", std::nullopt}};
      } else {
        const int64_t q = floorDiv(d + 3, h) - 2;
        using Shape64 = std::optional<std::vector<int64_t>>;
        want["z"] = q >= 0 ? Shape64(std::vector<int64_t>{q}) : std::nullopt;
        want["y"] = (2 * d) % h == 0 ? Shape64(std::vector<int64_t>{h, 2 * d / h}) : std::nullopt;
        want["w"] = std::vector<int64_t>{std::min(floorDiv(d, h), d)};
        want["u"] = std::vector<int64_t>{d % h, floorDiv(d + 1, h)};
        // Negative numerators (and a negative divisor): Python's floor division and remainder.
        const int64_t s0 = floorDiv(d - 5, h) + 1, s1 = (4 - d) - floorDiv(4 - d, h) * h;
        want["s"] = s0 >= 0 ? Shape64(std::vector<int64_t>{s0, s1}) : std::nullopt;
        const int64_t start = floorDiv(d - 6, h), from = start < 0 ? std::max<int64_t>(start + d, 0) : std::min(start, d);
        want["t"] = std::vector<int64_t>{d - from};
        const int64_t p0 = floorDiv(d - 2, -h) + 2;
        want["p"] = p0 >= 0 ? Shape64(std::vector<int64_t>{p0}) : std::nullopt;
      }
      Assignment at;
      at.set("d", d), at.set("h", h);
      for (const auto &[name, shape] : want) {
        const ops::Node *node = session.lookup(name);
        std::optional<std::vector<int64_t>> got;
        Assignment point = at;
        try {
          interp::Interpreter in(session.graph(), at, {}, {});
          got = in.evaluate(node).shape();
        } catch (const interp::EvalError &) {
        }
        EXPECT_EQ(got, shape) << name << " at d=" << d << ", h=" << h;
        // The validity and shape at the point, the fresh sizes given Python's values.
        for (const ops::Graph::SizeDefinition &def : session.graph().sizeDefinitions()) {
          const int64_t num = evaluate(def.numerator, at)->toInt64Checked(), div = evaluate(def.divisor, at)->toInt64Checked();
          const int64_t q = div == 0 ? 0 : floorDiv(num, div);
          point.set(def.name, def.quotient ? q : num - q * div);
        }
        const Validity v = ops::validityOf(session.graph(), node);
        EXPECT_EQ(evaluate(whereHolds(v.domain()), point) == std::optional<bool>(true), shape.has_value())
            << name << " at d=" << d << ", h=" << h << ": " << v.domain().toString();
        if (shape) {
          std::vector<int64_t> symbolic;
          for (const Expr &e : node->shape) symbolic.push_back(evaluate(e, point)->toInt64Checked());
          EXPECT_EQ(symbolic, *shape) << name << " at d=" << d << ", h=" << h;
        }
      }
    }
}

// x.sort() sorts x in place: the statement rebinds x (what read x before keeps the old value,
// as for item assignment); used as a value, or on anything but a name, it is refused (NumPy's
// method returns None; a[0].sort() writes through a view).
TEST(Programs, SortMethodRebindsItsArray) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param n", "x = input((n, 3), float64)", "y = x", "x.sort(axis=0)"}));
  const ops::Node *sorted = session.lookup("x");
  ASSERT_NE(sorted, session.lookup("y"));
  EXPECT_EQ(sorted->kind, ops::OpKind::Sort);
  EXPECT_TRUE(refusedWith(session, "z = x.sort()", "changes its array in place and returns None"));
  EXPECT_TRUE(refusedWith(session, "x.sort() + 1.0", "on a name (x.sort())"));
  EXPECT_TRUE(refusedWith(session, "x[0].sort()", "on a name (x.sort())"));
  EXPECT_TRUE(refusedWith(session, "x.sort(axis=None)", "axis=None is np.sort's"));
  EXPECT_EQ(session.lookup("x"), sorted); // the refusals rebound nothing
}

// The way to say that h divides d is a parameter for the quotient: `assume d == h*q`. The
// element counts of a multi-head reshape (b*d*t and b*h*q*t) are then equal by substitution, so
// the reshape and everything after it is decided (valid: only the sizes' limits, reported apart), not
// unknown; and the values follow NumPy's reshape at a point.
TEST(Programs, AReshapeIntoHeadsIsDecidedUnderADefiningAssumption) {
  const std::vector<std::string> lines = {"param b, t, d, h, q",
                                          "assume d == h*q and h >= 1",
                                          "x = input((b, t, d), float64)",
                                          "heads = transpose(reshape(x, (b, t, h, q)), (0, 2, 1, 3))",
                                          "att = heads @ transpose(heads, (0, 1, 3, 2))",
                                          "back = reshape(transpose(att @ heads, (0, 2, 1, 3)), (b, t, d))"};
  Solver solver;
  lang::Session session(solver, {});
  for (std::size_t i = 0; i < lines.size(); ++i) {
    lang::Reply r = session.execute(lines[i], int(i + 1));
    ASSERT_FALSE(r.failed) << lines[i];
    if (i >= 3) {
      // Decided: valid, with only the sizes' limits reported apart (never unknown).
      EXPECT_NE(r.lines().at(0).find(" float64, valid"), std::string::npos) << r.lines().at(0);
      ASSERT_EQ(r.lines().size(), 2u) << r.lines().at(0);
      EXPECT_EQ(r.lines().at(1).rfind("  limits: ", 0), 0u) << r.lines().at(1);
      for (const std::string &l : r.lines()) EXPECT_EQ(l.find("b*d*t"), std::string::npos) << l;
    }
  }
  for (int64_t h = 1; h <= 3; ++h)
    for (int64_t q = 0; q <= 2; ++q) {
      Assignment at{{"b", 2}, {"t", 3}, {"d", h * q}, {"h", h}, {"q", q}};
      EXPECT_EQ(outcomeOf(lines, "back", at), interp::shapeText({2, 3, h * q})) << "h = " << h << ", q = " << q;
    }
}

/// An assignment's reply states the validity of computing the array under the assumptions of
/// that moment: replies are kept per gathered obligations and assumptions (the driver's
/// arrayStatus), so a later `assume` changes the reply for the same array and `:reset` starts
/// again with the same replies as the first time.
TEST(Programs, AnArraysReplyFollowsTheAssumptionsOfItsLine) {
  Solver solver;
  lang::Session session(solver, {});
  auto reply = [&](const std::string &line) {
    lang::Reply r = session.execute(line, 1);
    EXPECT_FALSE(r.failed) << line;
    return r.lines().empty() ? std::string() : r.lines().front();
  };
  const std::vector<std::string> program = {"param n", "x = input((n,), float64)", "y = input((3,), float64)"};
  for (int round = 0; round < 2; ++round) {
    for (const std::string &l : program) reply(l);
    // The shape is printed simplified under its checks: 3 wherever n == 3 or n == 1.
    EXPECT_EQ(reply("z = x + y"), "z: (3,) float64, runtime-check: n == 3 or n == 1");
    EXPECT_EQ(reply("w = z"), "w: (3,) float64, runtime-check: n == 3 or n == 1");
    reply("assume n >= 2");
    EXPECT_EQ(reply("v = z"), "v: (3,) float64, runtime-check: n == 3");
    reply("assume n >= 3");
    EXPECT_EQ(reply("u = z"), "u: (3,) float64, runtime-check: n == 3");
    reply("assume n <= 3");
    EXPECT_EQ(reply("t = z"), "t: (3,) float64, valid");
    reply(":reset");
  }
}

/// NumPy's message for a reshape that cannot be done writes negative entries as `newaxis`, leaving
/// out leading ones; an entry that may be negative where NumPy's quotient is not an expression
/// (a sum), and a number of split sections that is a size, are refused when the program is
/// built, saying what to write instead.
TEST(Programs, MessagesFollowNumPyAndWhatCannotBeRepresentedIsRefusedSayingWhy) {
  Solver solver;
  lang::Session session(solver, {});
  for (const char *l : {"param n, m", "x = input((6,), float64)", "y = reshape(x, (0, -1))", "z = reshape(x, (-1, 4))"})
    ASSERT_FALSE(session.execute(l, 1).failed) << l;
  Assignment at;
  at.set("n", 1);
  at.set("m", 1);
  interp::Interpreter in(session.graph(), at, {}, {});
  auto messageOf = [&](const char *name) -> std::string {
    try {
      in.evaluate(session.lookup(name));
    } catch (const interp::EvalError &e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(messageOf("y").find("cannot reshape array of size 6 into shape (0,newaxis)"), std::string::npos) << messageOf("y");
  EXPECT_NE(messageOf("z").find("cannot reshape array of size 6 into shape (4)"), std::string::npos) << messageOf("z");
  // A quotient that is no polynomial is a size from sizes where both sides are sizes (the
  // division a runtime check); n - 1 may be negative, and the refusal says what to write.
  EXPECT_TRUE(refusedWith(session, "p = reshape(x, (2, -1, n - 1))", "would be 6 / (2*n - 2), and shapelab divides only sizes"));
  ASSERT_FALSE(session.execute("p = reshape(x, (2, -1, n + 1))", 4).failed);
  EXPECT_EQ(toString(session.lookup("p")->shape), "(2, _q1, n + 1)");
  // The number of sections decides how many arrays split returns: a size is refused as such.
  EXPECT_TRUE(refusedWith(session, "p = split(x, n - 1)[0]", "the number of sections must be a constant"));
  ASSERT_FALSE(session.execute("u = input((n*m,), float64)", 5).failed);
  EXPECT_TRUE(refusedWith(session, "w = reshape(u, (n - 1, m - 1))", "may be negative"));
  lang::Reply two = session.execute("v = reshape(x, (-1, -2))", 9);
  ASSERT_TRUE(two.failed);
  EXPECT_NE(two.lines().front().find("can only specify one unknown dimension"), std::string::npos) << two.lines().front();
}

// NumPy's float constants are Python floats: weak (float32 * np.pi stays float32), negatable,
// and their values NumPy's (an attention mask of -inf, a log of 0).
TEST(Programs, NumpysFloatConstantsAreWeakPythonFloats) {
  EXPECT_EQ(valueOfLine("x = np.where(np.arange(3) > 0, 0.0, -np.inf)"), "[-inf, 0.0, 0.0]");
  EXPECT_EQ(valueOfLine("x = np.zeros(2) + np.pi"), "[3.141592653589793, 3.141592653589793]");
  EXPECT_EQ(valueOfLine("x = np.ones(1) * np.e"), "[2.718281828459045]");
  EXPECT_EQ(valueOfLine("x = np.isnan(np.zeros(2) + np.nan)"), "[true, true]");
  EXPECT_EQ(valueOfLine("x = np.full((1,), np.NINF)"), "[-inf]");
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param n", "f = input((n,), float32)", "g = f * np.pi", "h = np.inf"}));
  EXPECT_EQ(session.lookup("g")->dtype, ops::DType::Float32);
  for (const char *bad : {"k = np.pie", "k = np.random.pi", "k = np.inf(2)"}) {
    const lang::Reply r = session.execute(bad, 5);
    EXPECT_TRUE(r.failed) << bad;
  }
  EXPECT_NE(session.execute("k = np.pie", 6).lines().at(0).find("no function 'pie'"), std::string::npos);
}

// A bare function name is a call's convenience (exp(x)); read as a value it is Python's
// undefined name, with the NumPy function it may have meant.
TEST(Programs, AFunctionsBareNameAsAValueIsNotDefined) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"x = input((3,), float64)", "w = exp(x) + sum(x)"}));
  for (const auto &[line, name] : std::vector<std::pair<std::string, std::string>>{{"y = var + 1", "var"}, {"y = x * power", "power"}}) {
    const lang::Reply r = session.execute(line, 3);
    ASSERT_TRUE(r.failed) << line;
    EXPECT_NE(r.lines().at(0).find("name '" + name + "' is not defined (did you mean np." + name + "(...)?)"), std::string::npos)
        << r.lines().at(0);
  }
  EXPECT_FALSE(session.execute("y = np.var(x)", 4).failed);
}

// A Python scalar bound to a name (eps = 1e-5) is shown by the commands as the 0-d array NumPy
// makes of it; a size's :eval is its value.
TEST(Programs, CommandsShowPythonScalarsBoundToNames) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"eps = 1e-5", "flag = True", "s = 3"}));
  const lang::Reply e = session.execute(":eval eps", 4);
  ASSERT_FALSE(e.failed) << e.lines().at(0);
  EXPECT_EQ(e.lines().at(0), "eps = 1e-05  (float64, shape ())");
  EXPECT_EQ(session.execute(":eval flag", 5).lines().at(0), "flag = True  (bool, shape ())");
  EXPECT_EQ(session.execute(":eval s", 6).lines().at(0), "s = 3  (int64, shape ())");
  const lang::Reply x = session.execute(":explain eps", 7);
  ASSERT_FALSE(x.failed) << x.lines().at(0);
  EXPECT_EQ(x.lines().at(0), "eps: shape (), dtype float64, valid");
}

// logaddexp and logaddexp2 as NumPy 1.24 computes them (npy_logaddexp: equal operands, the
// infinities among them, give a + log 2; a NaN gives NaN). The expected values are NumPy's:
// np.logaddexp(a, b) and np.logaddexp2(a, b) of these a and b, printed by repr. Both
// interpreters give them; a float32 operand with a Python float stays float32, integers give
// float64.
TEST(Programs, LogAddExpIsNumpys) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param n", "a = input((n,), float64)", "b = input((n,), float64)",
                                    "c = np.logaddexp(a, b)", "d = np.logaddexp2(a, b)", "f = input((1,), float32)",
                                    "g = np.logaddexp(f, 2.25)", "i = input((2,), int64)", "h = np.logaddexp2(i, i)"}));
  const std::string with = " with n=8, a=[0.0, 1.0, -inf, inf, -inf, nan, 1e-300, 800.0], b=[0.0, 2.0, -inf, 1.0, 3.0, 1.0, -5.0, 799.0]";
  for (const char *opt : {"", " --opt"}) {
    EXPECT_EQ(session.execute(std::string(":eval c") + opt + with, 10).lines().at(0),
              "c = [0.6931471805599453, 2.313261687518223, -inf, inf, 3.0, nan,\n"
              "     0.006715348489118068, 800.3132616875182]  (float64, shape (8,))");
    EXPECT_EQ(session.execute(std::string(":eval d") + opt + with, 11).lines().at(0),
              "d = [1.0, 2.584962500721156, -inf, inf, 3.0, nan, 0.044394119358453436,\n"
              "     800.5849625007212]  (float64, shape (8,))");
  }
  EXPECT_EQ(session.execute(":eval g with f=[1.5]", 12).lines().at(0), "g = [2.636871]  (float32, shape (1,))");
  EXPECT_EQ(session.lookup("h")->dtype, ops::DType::Float64);
}

// NumPy's ufunc reductions and arg reductions read axis 0 or -1 of a 0-d array as the whole
// array (np.array(1.5).sum(axis=-1) is 1.5); mean, a tuple of axes and other axes refuse it.
// (Found by tests/python/test_trace.py's random expressions against NumPy.)
TEST(Programs, ZeroDimReductionsTakeAxisZeroAsNumPyDoes) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"x = input((), float64)", "a = x.sum(axis=-1)", "b = np.max(x, axis=0, keepdims=True)",
                                    "c = x.argmin(axis=-1)", "d = np.all(x, axis=0)"}));
  for (const char *name : {"a", "b", "c", "d"}) EXPECT_TRUE(session.lookup(name)->shape.empty()) << name;
  EXPECT_TRUE(refusedWith(session, "e = x.mean(axis=0)", "axis 0 is out of bounds for array of dimension 0"));
  EXPECT_TRUE(refusedWith(session, "e = x.sum(axis=(0,))", "axis 0 is out of bounds for array of dimension 0"));
  EXPECT_TRUE(refusedWith(session, "e = x.sum(axis=1)", "axis 1 is out of bounds for array of dimension 0"));
}

// Issue 70: checks printed simplified. Two checks over related sizes are one condition as isl
// simplifies their conjunction (`nc >= n` and `n >= nc` are `nc == n`), with the same domain; a
// disjunction (a broadcast of sizes that may be 1) is shown as it is, and checks over unrelated
// sizes stay apart.
TEST(Programs, ChecksOverRelatedSizesArePrintedAsOneSimplifiedCondition) {
  Solver solver;
  lang::SessionOptions o;
  o.mode = BroadcastMode::Static;
  lang::Session session(solver, o);
  ASSERT_TRUE(executesAll(session, {"param n, nc, k", "x = input((n,), float64)", "y = input((nc,), float64)",
                                    "b = x[:nc] + y", "c = y[:n] + x", "d = sum(b) + sum(c)", "z = input((k,), float64)",
                                    "e = d + z[0]"}));
  const Validity v = ops::validityOf(session.graph(), session.lookup("d"));
  ASSERT_EQ(v.checks().size(), 2u);
  ASSERT_EQ(v.shownChecks().size(), 1u);
  EXPECT_EQ(v.shownChecks()[0], parsePred("nc == n"));
  EXPECT_EQ(solver.decide(v.context(), parsePred("nc == n")).answer, Answer::Depends);
  // The same domain: the shown condition and the checks agree at every small point.
  for (int64_t n = 0; n <= 4; ++n)
    for (int64_t nc = 0; nc <= 4; ++nc) {
      Assignment at{{"n", n}, {"nc", nc}};
      EXPECT_EQ(evaluate(Pred::conjunction(v.checks()), at), evaluate(Pred::conjunction(v.shownChecks()), at));
    }
  EXPECT_NE(session.execute("d2 = d", 9).lines().front().find("runtime-check: nc == n"), std::string::npos);
  // k is unrelated to n and nc: its check stays apart.
  const std::vector<Pred> shown = ops::validityOf(session.graph(), session.lookup("e")).shownChecks();
  EXPECT_EQ(shown.size(), 2u);
  // A disjunction is shown as it is.
  lang::Session numpy(solver, {});
  ASSERT_TRUE(executesAll(numpy, {"param n, m", "x = input((n,), float64)", "y = input((m,), float64)", "z = x + y"}));
  const Validity w = ops::validityOf(numpy.graph(), numpy.lookup("z"));
  EXPECT_EQ(w.shownChecks(), w.checks());
}
