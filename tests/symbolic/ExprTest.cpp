// Canonical forms: equal polynomials are one node, canonicalisation keeps the value.
#include <array>
#include <cstring>
#include <iostream>
#include <map>
#include <tuple>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <optional>
#include <set>
#include <thread>

#include "symbolic/Errors.h"
#include "symbolic/Evaluate.h"
#include "symbolic/Expr.h"
#include "symbolic/Parser.h"
#include "tests/symbolic/RandomAst.h"

using namespace shapelab;

namespace {
Expr E(const char *s) { return parseExpr(s); }
} // namespace

TEST(Expr, EqualPolynomialsAreTheSameNode) {
  EXPECT_EQ(E("n + n"), E("2*n"));
  EXPECT_EQ(E("n*m"), E("m*n"));
  EXPECT_EQ(E("(n+1)*(n-1)"), E("n**2 - 1"));
  EXPECT_EQ(E("n - n"), Expr(0));
  EXPECT_EQ(E("(2*n + 3) // 2"), E("n + 1"));
  EXPECT_EQ(E("(4*n + 2) // 4"), E("(2*n + 1) // 2"));
  EXPECT_EQ(E("(2*n + 3) % 2"), Expr(1));
  EXPECT_EQ(E("(6*n) / 3"), E("2*n"));
  EXPECT_EQ(E("min(n, n + 1)"), E("n"));
  EXPECT_EQ(E("max(n, n + 1, 3, 5)"), E("max(n + 1, 5)"));
  EXPECT_EQ(E("min(m, n)"), E("min(n, m)"));
  EXPECT_EQ(E("n if 1 == 1 else m"), E("n"));
  EXPECT_EQ(E("n if m > 0 else n"), E("n"));
  EXPECT_EQ(Expr::param("n") + Expr::param("n"), Expr(2) * Expr::param("n"));
}

// fromPolynomial takes any terms: a term without atoms is a constant (a regression: such a term
// was kept as a term, and the node was unequal to the same value written as a constant).
TEST(Expr, FromPolynomialFoldsTermsWithoutAtoms) {
  Expr m = Expr::param("m");
  std::vector<Term> terms{{Integer(2), {}}, {Integer(3), {{m, 1}}}, {Integer(-1), {}}};
  EXPECT_EQ(fromPolynomial(terms, 4), parseExpr("3*m + 5"));
  EXPECT_EQ(fromPolynomial({{Integer(7), {}}}, 0), Expr(7));
  EXPECT_TRUE(fromPolynomial({{Integer(7), {}}}, 0).isConstant());
}

TEST(Expr, PrintsCanonically) {
  EXPECT_EQ(E("n*(n-1)/2").toString(), "(n**2 - n) / 2");
  EXPECT_EQ(E("-n + 1").toString(), "-n + 1");
  EXPECT_EQ(E("1 - 2*m + 3*n*m").toString(), "3*m*n - 2*m + 1");
  EXPECT_EQ(E("2 * (n // 3)").toString(), "2*(n // 3)");
  EXPECT_EQ(E("(n - 1) // 2").toString(), "(n - 1) // 2");
  EXPECT_EQ(E("m if n == 1 else n").toString(), "m if n == 1 else n");
  EXPECT_EQ(E("1 + (m if n == 1 else n)").toString(), "(m if n == 1 else n) + 1");
  EXPECT_EQ(parsePred("0 <= n < 10").toString(), "0 <= n and n < 10");
  EXPECT_EQ(parsePred("not (n == 1 or m == 2) and k > 0").toString(), "not (n == 1 or m == 2) and k > 0");
}

// A large printed tree copies the text of a node it has written before instead of writing it
// again. Each step below shares the previous expression twice; its text must be the previous
// text, assembled here by string operations, written twice (the two atoms in either order).
TEST(Expr, PrintsASharedNodeTheSameEachTimeItComes) {
  oracle::GenOptions o;
  o.products = true;
  bool ok = rc::check("a shared node is written the same at each use", [o] {
    Expr e = parseExpr(oracle::show(*oracle::genExpr(3, o))) + Expr::param("q");
    RC_PRE(!e.isConstant() && e.kind() != ExprKind::Min && e.kind() != ExprKind::Max);
    std::string text = e.toString();
    while (e->treeSize < 600) {
      Expr next = min(e, Expr(1)) + min(e, Expr(2));
      std::string printed = next.toString();
      // min's arguments and the sum's atoms stand in the structural order, which this test
      // leaves open: any order of the texts is accepted, no other text.
      std::set<std::string> expected;
      for (const std::string &a : {"min(1, " + text + ")", "min(" + text + ", 1)"})
        for (const std::string &b : {"min(2, " + text + ")", "min(" + text + ", 2)"})
          expected.insert({a + " + " + b, b + " + " + a});
      RC_ASSERT(expected.count(printed) == 1u);
      Pred p = ge(next, Expr(0)) && le(next, Expr(5));
      RC_ASSERT(p.toString() == printed + " >= 0 and " + printed + " <= 5");
      RC_ASSERT(parseExpr(printed) == next);
      e = next;
      text = printed;
    }
  });
  EXPECT_TRUE(ok);
}

TEST(Expr, FoldsComparisonsThatDoNotDependOnParameters) {
  EXPECT_TRUE(parsePred("n + 1 > n").isTrue());
  EXPECT_TRUE(parsePred("n == n").isTrue());
  EXPECT_TRUE(parsePred("2*n != 2*n + 1").isTrue());
  // An exact division makes the truth depend on n (it is undefined for odd n).
  EXPECT_FALSE(parsePred("n / 2 == n / 2").constantValue().has_value());
}

TEST(Expr, ReservedAndInvalidNames) {
  EXPECT_THROW(Expr::param("_shp0"), NameError);
  EXPECT_THROW(Expr::param("3x"), NameError);
  EXPECT_NO_THROW(Expr::reservedParam("_shp0"));
}

TEST(Expr, DefinednessOfExactDivision) {
  Expr e = E("n*(n-1)/2");
  EXPECT_FALSE(e.isTotal());
  EXPECT_EQ(evaluate(e, {{"n", 4}}), Integer(6));
  EXPECT_EQ(evaluate(E("n/2"), {{"n", 3}}), std::nullopt);
  Pred d = definedness(E("n/2 + m"));
  EXPECT_TRUE(holds(d, {{"n", 4}, {"m", 1}}));
  EXPECT_FALSE(holds(d, {{"n", 3}, {"m", 1}}));
}

// Found through `shapelab proptest --max-nodes 60` (seed 806451): the definedness of a select
// read its condition and branches as they are, so `not c or defined(a)` was undefined — not
// true — where c is false and a undefined, and a defined slice bound failed its "is defined"
// obligation. The class: definedness is itself defined everywhere, and true exactly where the
// expression has a value (the independent evaluator decides), over expressions with selects,
// exact divisions and their nestings.
TEST(Expr, DefinednessIsTotalAndExact) {
  oracle::GenOptions o;
  o.products = true;
  bool ok = rc::check("definedness is defined everywhere and holds exactly where e is", [o] {
    oracle::EP t = *oracle::genExpr(5, o);
    Expr e = parseExpr(oracle::show(t));
    Pred d = definedness(e);
    RC_LOG() << oracle::show(t) << "  ->  " << d.toString() << "\n";
    for (long a = 0; a < 5; ++a)
      for (long b = 0; b < 5; ++b)
        for (long c = 0; c < 4; ++c) {
          std::vector<long> v = {a, b, c};
          std::optional<bool> holds = evaluate(d, {{"a", a}, {"b", b}, {"c", c}});
          RC_ASSERT(holds.has_value());
          RC_ASSERT(*holds == oracle::eval(t, v).has_value());
        }
  });
  EXPECT_TRUE(ok);
  // The case above, in small: at n = 0 the select takes its defined branch.
  Pred d = definedness(parseExpr("(1 / 2 if n == 1 else n)"));
  EXPECT_EQ(evaluate(d, {{"n", 0}}), std::optional<bool>(true));
  EXPECT_EQ(evaluate(d, {{"n", 1}}), std::optional<bool>(false));
}

TEST(Expr, CancellationKeepsTheDomainOfDefinition) {
  // x/2 - x/2 is 0 where x is even and undefined (an error) elsewhere: never a plain 0.
  for (const char *text : {"a/2 - a/2", "(a/2) % 1", "0 * (a/2)", "(a/2)**0", "b if a/2 == 1 else b"}) {
    Expr e = E(text);
    EXPECT_EQ(evaluate(e, {{"a", 1}, {"b", 5}}), std::nullopt) << text << " -> " << e.toString();
    EXPECT_TRUE(evaluate(e, {{"a", 2}, {"b", 5}}).has_value()) << text;
    EXPECT_EQ(parseExpr(e.toString()), e) << text;
  }
  EXPECT_FALSE(parsePred("a/2 == 1 or True").isTrue());
  EXPECT_FALSE(holds(parsePred("a/2 == 1 or True"), {{"a", 1}}));
}

TEST(Expr, Substitute) {
  Expr e = E("n*m + n // 2");
  EXPECT_EQ(substitute(e, {{"n", E("k + 1")}}), E("(k + 1)*m + (k + 1) // 2"));
}

TEST(Expr, HugeExpressionsAreRefused) {
  EXPECT_THROW(E("(a+b+c+d+e+f+g+h)**20"), UserError);
}

// Canonicalisation must keep the value: evaluate the parsed (canonical) expression against the
// test's own evaluator of the same random tree.
TEST(Expr, CanonicalFormKeepsTheValue) {
  oracle::GenOptions o;
  o.products = true;
  bool ok = rc::check("canonical form evaluates like the source tree", [o] {
    oracle::EP t = *oracle::genExpr(3, o);
    Expr e = parseExpr(oracle::show(t));
    RC_LOG() << oracle::show(t) << "  ->  " << e.toString() << "\n";
    std::vector<long> v = *rc::gen::container<std::vector<long>>(3, rc::gen::inRange<long>(0, 9));
    auto expected = oracle::eval(t, v);
    auto got = evaluate(e, {{"a", v[0]}, {"b", v[1]}, {"c", v[2]}});
    RC_ASSERT(expected.has_value() == got.has_value());
    if (expected) RC_ASSERT(Integer(int64_t(*expected)) == *got);
  });
  EXPECT_TRUE(ok);
}

namespace {
/// The parameters below a node by a plain walk of its fields (the cached lists are not read).
void walkParams(const ExprNode *n, std::set<std::string> &out);
void walkParams(const PredNode *n, std::set<std::string> &out) {
  if (n->lhs) {
    walkParams(n->lhs.node(), out);
    walkParams(n->rhs.node(), out);
  }
  for (const Pred &c : n->children) walkParams(c.node(), out);
}
void walkParams(const ExprNode *n, std::set<std::string> &out) {
  if (n->kind == ExprKind::Param) out.insert(n->name);
  for (const Term &t : n->terms)
    for (auto &p : t.monomial) walkParams(p.first.node(), out);
  for (const Expr &o : n->operands) walkParams(o.node(), out);
  if (n->condition) walkParams(n->condition.node(), out);
}
std::vector<std::string> names(const std::vector<Expr> &params) {
  std::vector<std::string> out;
  for (const Expr &x : params) out.push_back(x->name);
  return out;
}
} // namespace

// Each node remembers its parameters (computed from its children's on first use); the lists
// must be what a walk of the structure finds, sorted by name, and merging must be the union.
TEST(Expr, RememberedParametersAreTheParametersBelow) {
  oracle::GenOptions o;
  o.products = true;
  o.variables = 4;
  bool ok = rc::check("parametersOf is the set a plain walk finds", [o] {
    oracle::PP t = *oracle::genPred(3, o);
    oracle::EP u = *oracle::genExpr(3, o);
    Pred p = parsePred(oracle::show(t));
    Expr e = parseExpr(oracle::show(u));
    std::set<std::string> inP, inE;
    walkParams(p.node(), inP);
    walkParams(e.node(), inE);
    RC_ASSERT(names(parametersOf(p)) == std::vector<std::string>(inP.begin(), inP.end()));
    RC_ASSERT(names(parametersOf(e)) == std::vector<std::string>(inE.begin(), inE.end()));
    std::vector<Expr> both = parametersOf(e);
    collectParameters(p, both);
    std::set<std::string> all = inP;
    all.insert(inE.begin(), inE.end());
    RC_ASSERT(names(both) == std::vector<std::string>(all.begin(), all.end()));
    // Asked again (now from the cache), and for a predicate built over the same nodes.
    RC_ASSERT(names(parametersOf(p)) == std::vector<std::string>(inP.begin(), inP.end()));
    Pred q = p && Pred::compare(CompareOp::GE, e, Expr(0));
    std::set<std::string> inQ;
    walkParams(q.node(), inQ);
    RC_ASSERT(names(parametersOf(q)) == std::vector<std::string>(inQ.begin(), inQ.end()));
  });
  EXPECT_TRUE(ok);
}

// A product of two long sums has more terms than the short-list sort handles, so its sorted
// runs are merged; it must be the node that distributing one term at a time gives (sums of
// short products, merged pairwise), and the node the products of single terms give, in either
// order of the operands, and must have the product's value. Coefficients reach past int64; some
// sums range over 10 parameters.
TEST(Expr, LongProductsAreTheDistributedSum) {
  bool ok = rc::check("a*b == sum of (term of a)*b", [] {
    const char *names[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
    const int width = *rc::gen::inRange(0, 4) == 0 ? 10 : 4;
    auto sum = [&](std::size_t k) {
      std::vector<Expr> terms;
      for (std::size_t i = 0; i < k; ++i) {
        Expr t = Expr(*rc::gen::element<int64_t>(-3, -2, -1, 1, 2, 3, int64_t(1) << 40, -(int64_t(1) << 62)));
        for (int j = *rc::gen::inRange(0, 3); j > 0; --j)
          t = t * Expr::param(names[*rc::gen::inRange(0, width)]);
        terms.push_back(t);
      }
      return terms;
    };
    std::vector<Expr> x = sum(*rc::gen::inRange<std::size_t>(5, 12));
    std::vector<Expr> y = sum(*rc::gen::inRange<std::size_t>(5, 12));
    Expr a(0), b(0);
    for (const Expr &t : x) a = a + t;
    for (const Expr &t : y) b = b + t;
    Expr distributed(0), termByTerm(0);
    for (const Expr &t : x) {
      distributed = distributed + t * b;
      for (const Expr &u : y) termByTerm = termByTerm + t * u;
    }
    RC_ASSERT(a * b == distributed);
    RC_ASSERT(b * a == distributed);
    RC_ASSERT(a * b == termByTerm);
    for (long v = 0; v < 3; ++v) {
      Assignment at;
      for (int i = 0; i < 10; ++i) at.set(names[i], Integer(int64_t((v + 2 * i) % 7 - 3)));
      RC_ASSERT(*evaluate(a * b, at) == *evaluate(a, at) * *evaluate(b, at));
    }
  });
  EXPECT_TRUE(ok);
}

// pow(e, k) of a sum is computed on exponent rows, not by k - 1 products: it must be the node
// the products give, or fail with the same error (a limit on terms, degree, coefficient size or
// written size reached at the same step). Atoms include an exact division (definedness kept),
// a floor division and a product of parameters; exponents reach past every limit. Sums of up to
// 8 atoms take the packed rows (one integer key per monomial), larger ones the plain rows (a
// quarter of the sums have all 11 atoms).
TEST(Expr, PowerOfASumIsTheRepeatedProduct) {
  bool ok = rc::check("pow(e, k) == e * e * ... * e", [] {
    const Expr a = Expr::param("a"), b = Expr::param("b"), c = Expr::param("c"), d = Expr::param("d"),
               f = Expr::param("f"), g = Expr::param("g"), h = Expr::param("h");
    const Expr atoms[] = {a, b, c, exactDiv(a + Expr(1), Integer(2)), floorDiv(b * Expr(3) + Expr(1), Integer(5)), a * c,
                          d, f, g, h, min(d, Expr(3))};
    Expr e(int64_t(*rc::gen::inRange(-2, 3)));
    for (int t = *rc::gen::inRange(1, 8); t > 0; --t) {
      Expr term(*rc::gen::element<int64_t>(-7, -2, -1, 1, 1, 2, 3, 1000003, int64_t(1) << 40));
      for (int k = *rc::gen::inRange(1, 3); k > 0; --k) term = term * atoms[*rc::gen::inRange(0, 11)];
      e = e + term;
    }
    if (*rc::gen::inRange(0, 4) == 0) // every atom: more than 8 of them
      for (const Expr &x : atoms) e = e + Expr(int64_t(*rc::gen::inRange(1, 4))) * x;
    std::set<const ExprNode *> width; // the atoms of e's monomials
    if (e.kind() == ExprKind::Sum)
      for (const Term &t : e.node()->terms)
        for (const auto &factor : t.monomial) width.insert(factor.first.node());
    RC_TAG(width.size() <= 8 ? "packed rows" : "plain rows");
    const uint32_t k = *rc::gen::inRange<uint32_t>(1, 40); // (0: 1, defined where e is)
    struct Outcome {
      std::optional<Expr> value;
      std::string error;
    };
    auto outcome = [](auto &&compute) {
      try {
        return Outcome{compute(), ""};
      } catch (const InputTooLarge &err) {
        return Outcome{std::nullopt, err.what()};
      }
    };
    Outcome want = outcome([&] {
      Expr r(1);
      for (uint32_t i = 0; i < k; ++i) r = r * e;
      return r;
    });
    Outcome got = outcome([&] { return pow(e, k); });
    RC_LOG() << "(" << e.toString() << ")**" << k << ": " << (want.value ? want.value->toString() : want.error) << "\n";
    RC_TAG(want.error.substr(0, 40));
    RC_ASSERT(got.error == want.error);
    RC_ASSERT(got.value.has_value() == want.value.has_value());
    if (want.value) RC_ASSERT(*got.value == *want.value); // both alive: one node when equal
  });
  EXPECT_TRUE(ok);
}

// The power of a linear sum (every term one atom to the first power) fails before expanding
// when a step would fail (its sizes are binomials): it must throw what the step-by-step
// expansion throws, at the same step, and otherwise give the same node. An atom with a large
// written size makes the size limit the first to fail; many atoms, the product limit; huge
// coefficients leave it to the expansion (their powers may pass the coefficient limit).
namespace linearpower {
struct Outcome {
  std::optional<Expr> value;
  std::string error;
};
template <class F> Outcome outcome(F &&compute) {
  try {
    return {compute(), ""};
  } catch (const InputTooLarge &err) {
    return {std::nullopt, err.what()};
  }
}
/// What the fold e * e * ... * e (k factors) gives, and what pow(e, k) gives: the same.
std::pair<Outcome, Outcome> foldAndPow(const Expr &e, uint32_t k) {
  Outcome fold = outcome([&] {
    Expr r = e;
    for (uint32_t i = 1; i < k; ++i) r = r * e;
    return r;
  });
  return {fold, outcome([&] { return pow(e, k); })};
}
bool same(const Outcome &x, const Outcome &y) { return x.error == y.error && x.value == y.value; }
/// (x0 + 2*x1 + ... + 60*x59) // 7: an atom written in 120 nodes and more.
Expr wideAtom() {
  Expr wide;
  for (int i = 0; i < 60; ++i) wide = wide + Expr(i + 1) * Expr::param("x" + std::to_string(i));
  return floorDiv(wide, Integer(7));
}
} // namespace linearpower

// A comparison whose sides differ by a constant folds, read off the two sides: even where the
// difference (2**65536 here) would pass the coefficient limit that both sides are within.
TEST(Expr, ComparisonOfSidesDifferingByAConstantFolds) {
  const std::string a = "2**10000*2**10000*2**10000*2**10000*2**10000*2**10000*2**5535"; // 2**65535
  EXPECT_EQ(parsePred("n + " + a + " > n - " + a), Pred::truth(true));
  EXPECT_EQ(parsePred("n + " + a + " == n - " + a), Pred::truth(false));
  EXPECT_EQ(parsePred("m*n + 3 <= m*n + 2"), Pred::truth(false));
  EXPECT_EQ(parsePred("n/2 + 1 > n/2").kind(), PredKind::Compare); // undefined at odd n: not folded
  EXPECT_THROW(parseExpr("n + " + a) - parseExpr("n - " + a), InputTooLarge); // the difference itself
}

// withTermReplaced(sum, atom, c, by) writes sum - c*atom + c*by in one merge: it must be the
// node the three steps build (or their error), for random sums holding c*atom (a min, max or
// choice, as a range walk moves them), partial ones included.
TEST(Expr, WithTermReplacedIsTheThreeSteps) {
  oracle::GenOptions o;
  bool ok = rc::check("withTermReplaced == (sum - c*atom) + c*by", [&] {
    Expr base = parseExpr(oracle::show(*oracle::genExpr(2, o)));
    Expr a = parseExpr(oracle::show(*oracle::genExpr(1, o))), b = parseExpr(oracle::show(*oracle::genExpr(1, o)));
    Expr atom;
    switch (*rc::gen::inRange(0, 3)) {
    case 0: atom = min(a, b); break;
    case 1: atom = max(a, b); break;
    default: atom = select(lt(a, b), a, b); break;
    }
    RC_PRE(atom.kind() == ExprKind::Min || atom.kind() == ExprKind::Max || atom.kind() == ExprKind::Select);
    Expr sum = base + Expr(*rc::gen::element<int64_t>(-3, -1, 1, 2, 5)) * atom;
    // The coefficient the sum holds the atom with (base may hold it too).
    std::optional<Integer> c;
    if (sum.kind() == ExprKind::Sum)
      for (const Term &t : sum.node()->terms)
        if (t.monomial.size() == 1 && t.monomial[0].first == atom && t.monomial[0].second == 1) c = t.coefficient;
    if (sum == atom) c = Integer(1);
    RC_PRE(c.has_value());
    Expr by = *rc::gen::inRange(0, 2) ? atom.node()->operands[*rc::gen::inRange(0, 2)]
                                      : parseExpr(oracle::show(*oracle::genExpr(2, o)));
    RC_LOG() << sum.toString() << " with " << c->toString() << "*(" << atom.toString() << ") -> " << by.toString() << "\n";
    RC_TAG(sum.isTotal() && by.isTotal() ? "total" : "partial");
    std::optional<Expr> steps, merged;
    std::string stepsError, mergedError;
    try {
      steps = (sum - Expr(*c) * atom) + Expr(*c) * by;
    } catch (const InputTooLarge &e) {
      stepsError = e.what();
    }
    try {
      merged = withTermReplaced(sum, atom, *c, by);
    } catch (const InputTooLarge &e) {
      mergedError = e.what();
    }
    RC_ASSERT(stepsError == mergedError);
    RC_ASSERT(steps == merged);
  });
  EXPECT_TRUE(ok);
}

// differenceInOneParameter reads lhs - rhs as a*x + k without building it: it must say what the
// built node says (a parameter, or a sum of one term a*x and a constant k), for random sides
// that often differ by such a term, partial sides (exact division) included.
TEST(Expr, DifferenceInOneParameterReadsAsTheBuiltDifference) {
  auto formOfBuilt = [](const Expr &lhs, const Expr &rhs) -> std::optional<OneParameterForm> {
    const Expr diff = lhs - rhs;
    const ExprNode *d = diff.node();
    if (d->kind == ExprKind::Param) return OneParameterForm{d, Integer(1), Integer(0)};
    if (d->kind == ExprKind::Sum && d->terms.size() == 1 && d->terms[0].monomial.size() == 1 &&
        d->terms[0].monomial[0].second == 1 && d->terms[0].monomial[0].first.kind() == ExprKind::Param)
      return OneParameterForm{d->terms[0].monomial[0].first.node(), d->terms[0].coefficient, d->constantTerm};
    return std::nullopt;
  };
  ASSERT_TRUE(differenceInOneParameter(parseExpr("n + m"), parseExpr("m")).has_value());
  EXPECT_EQ(differenceInOneParameter(parseExpr("n + m"), parseExpr("m"))->x, parseExpr("n").node());
  EXPECT_EQ(differenceInOneParameter(parseExpr("3*n - 2"), parseExpr("n + 5"))->a, Integer(2));
  EXPECT_EQ(differenceInOneParameter(parseExpr("3*n - 2"), parseExpr("n + 5"))->k, Integer(-7));
  EXPECT_EQ(differenceInOneParameter(parseExpr("n*m + n"), parseExpr("n*m"))->x, parseExpr("n").node());
  EXPECT_FALSE(differenceInOneParameter(parseExpr("n/2 + n"), parseExpr("n/2")).has_value()); // keeps n/2's definedness
  EXPECT_FALSE(differenceInOneParameter(parseExpr("n**2"), parseExpr("0")).has_value());
  EXPECT_FALSE(differenceInOneParameter(parseExpr("n + m"), parseExpr("0")).has_value());
  EXPECT_FALSE(differenceInOneParameter(parseExpr("min(n, 2)"), parseExpr("0")).has_value());
  oracle::GenOptions o;
  bool ok = rc::check("differenceInOneParameter == the built difference's form", [&] {
    Expr lhs = parseExpr(oracle::show(*oracle::genExpr(2, o)));
    Expr rhs;
    switch (*rc::gen::inRange(0, 3)) {
    case 0: rhs = parseExpr(oracle::show(*oracle::genExpr(2, o))); break;
    default: {
      // lhs less a*x + k, sometimes with a term of lhs left out too
      const char *x = oracle::kNames[*rc::gen::inRange(0, 3)];
      rhs = lhs - Expr(*rc::gen::inRange<int64_t>(-3, 4)) * Expr::param(x) - Expr(*rc::gen::inRange<int64_t>(-5, 6));
      if (*rc::gen::inRange(0, 4) == 0) rhs = rhs + parseExpr(oracle::show(*oracle::genExpr(0, o)));
      break;
    }
    }
    RC_LOG() << lhs.toString() << " - (" << rhs.toString() << ")\n";
    std::optional<OneParameterForm> read = differenceInOneParameter(lhs, rhs), built = formOfBuilt(lhs, rhs);
    RC_TAG(built ? "one parameter" : "other");
    RC_ASSERT(read.has_value() == built.has_value());
    if (read) {
      RC_ASSERT(read->x == built->x);
      RC_ASSERT(read->a == built->a);
      RC_ASSERT(read->k == built->k);
    }
  });
  EXPECT_TRUE(ok);
}

TEST(Expr, PowerOfALinearSumFailsAsTheRepeatedProduct) {
  using namespace linearpower;
  const Expr a = Expr::param("a"), b = Expr::param("b"), c = Expr::param("c");
  // Each way out, once for sure (the property below meets them by chance).
  auto error = [](const Expr &e, uint32_t k) {
    auto [fold, power] = foldAndPow(e, k);
    EXPECT_TRUE(same(fold, power)) << "(" << e.toString() << ")**" << k << ": " << fold.error << " | " << power.error;
    return fold.error;
  };
  EXPECT_EQ(error(a + b + Expr(1), 5), "");
  EXPECT_EQ(error(exactDiv(a, Integer(4)) + b + c - Expr(8), 62), // 19 powers were expanded first
            "expression too large: product has more than 4096 terms");
  EXPECT_EQ(error(wideAtom() + a + Expr(1), 20), "expression too large: written out it has more than 8192 nodes");
  // 3**3200 has 5072 bits: the 13th power has a coefficient of 65,936 bits, while the 12th
  // written out weighs less than the limit (its numbers count a node per 64 bits).
  EXPECT_EQ(error(Expr(Integer::pow(Integer(3), 3200)) * a + Expr(1), 20),
            "expression too large: a coefficient has more than 65536 bits");
  // 3**2000 has 3170 bits: its 20th power's coefficient would pass the limit, but the powers
  // before it written out pass 8192 nodes first (at the 18th, about 8,000 nodes for their digits).
  EXPECT_EQ(error(Expr(Integer::pow(Integer(3), 2000)) * a + Expr(1), 40),
            "expression too large: written out it has more than 8192 nodes");
  EXPECT_EQ(error(a + b + c, 64), "expression too large: product has more than 4096 terms"); // no constant

  bool ok = rc::check("pow(linear, k) == e * e * ... * e", [] {
    std::vector<Expr> atoms;
    for (const char *name : {"a", "b", "c", "d", "f", "g", "h", "p", "q", "r", "s", "t"})
      atoms.push_back(Expr::param(name));
    atoms.push_back(exactDiv(Expr::param("a") + Expr(1), Integer(2)));
    atoms.push_back(wideAtom());
    Expr e(int64_t(*rc::gen::element<int64_t>(0, 0, 1, -3, 7)));
    const int width = *rc::gen::inRange(1, 9);
    for (int i = 0; i < width; ++i) {
      Integer coefficient(*rc::gen::element<int64_t>(-2, -1, 1, 1, 2, 5, 1000003));
      if (*rc::gen::inRange(0, 10) == 0) coefficient = Integer::pow(Integer(3), 2000); // 3170 bits
      e = e + Expr(coefficient) * atoms[std::size_t(*rc::gen::inRange(0, int(atoms.size())))];
    }
    RC_PRE(e.kind() == ExprKind::Sum);
    const uint32_t k = *rc::gen::inRange<uint32_t>(2, 65);
    auto [fold, power] = foldAndPow(e, k);
    RC_LOG() << "(" << e.toString() << ")**" << k << ": " << (fold.value ? "a value" : fold.error) << " | "
             << (power.value ? "a value" : power.error) << "\n";
    RC_TAG(fold.value ? "a value" : fold.error.substr(0, 40));
    RC_ASSERT(same(fold, power));
  });
  EXPECT_TRUE(ok);
}

// A product or a power of sums whose coefficients are near half (a third) of the coefficient
// limit fails exactly when a coefficient of the product (of some power on the way) is past the
// limit, after cancellation, and otherwise is the product: checked against a dense polynomial
// product over the parameters that shares no code with Expr. The product's sure-to-survive terms
// are tried before the products are computed (failEarlyIfProductCoefficientTooLarge); this
// is what that shortcut must keep.
namespace densepoly {
using Poly = std::map<std::array<uint32_t, 3>, Integer>; // exponents of a, b, c -> coefficient
Poly times(const Poly &x, const Poly &y) {
  Poly out;
  for (auto &[mx, cx] : x)
    for (auto &[my, cy] : y) {
      std::array<uint32_t, 3> m{mx[0] + my[0], mx[1] + my[1], mx[2] + my[2]};
      out[m] = out[m] + cx * cy;
    }
  std::erase_if(out, [](const auto &t) { return t.second.isZero(); });
  return out;
}
bool pastLimit(const Poly &x) {
  for (auto &[m, c] : x)
    if (c.bitLength() > kMaxCoefficientBits) return true;
  return false;
}
/// Nodes of x written out, as the limit counts them: the sum, then per term one node, one per
/// parameter in it, and one per 64 bits of its coefficient past the first 64 (the constant's too).
uint64_t writtenSize(const Poly &x) {
  auto digits = [](const Integer &c) -> uint64_t { return c.bitLength() > 64 ? (c.bitLength() - 1) / 64 : 0; };
  uint64_t size = 1;
  for (auto &[m, c] : x) {
    if (m == std::array<uint32_t, 3>{0, 0, 0}) {
      size += digits(c);
      continue;
    }
    size += 1 + digits(c) + (m[0] > 0) + (m[1] > 0) + (m[2] > 0);
  }
  return size;
}
Expr build(const Poly &x) {
  Expr e(0);
  const char *names[3] = {"a", "b", "c"};
  for (auto &[m, c] : x) {
    Expr t(c);
    for (int k = 0; k < 3; ++k)
      for (uint32_t i = 0; i < m[k]; ++i) t = t * Expr::param(names[k]);
    e = e + t;
  }
  return e;
}
Integer valueAt(const Poly &x, const std::array<int64_t, 3> &at) {
  Integer sum(0);
  for (auto &[m, c] : x) {
    Integer t = c;
    for (int k = 0; k < 3; ++k)
      for (uint32_t i = 0; i < m[k]; ++i) t = t * Integer(at[k]);
    sum = sum + t;
  }
  return sum;
}
/// Up to 5 terms over a, b, c (exponents 0..2), coefficients small or about 2**bits.
Poly genPoly(std::size_t bits) {
  Poly x;
  const int terms = *rc::gen::inRange(1, 6);
  for (int i = 0; i < terms; ++i) {
    std::array<uint32_t, 3> m{uint32_t(*rc::gen::inRange(0, 3)), uint32_t(*rc::gen::inRange(0, 3)),
                              uint32_t(*rc::gen::inRange(0, 3))};
    Integer c(*rc::gen::element<int64_t>(-3, -1, 1, 2, 7));
    if (*rc::gen::inRange(0, 3) != 0)
      c = c * (Integer::pow(Integer(2), uint32_t(int(bits) + *rc::gen::inRange(-2, 2))) + Integer(*rc::gen::inRange(-1, 2)));
    x[m] = x[m] + c;
  }
  std::erase_if(x, [](const auto &t) { return t.second.isZero(); });
  return x;
}
} // namespace densepoly

TEST(Expr, ABigProductFailsExactlyWhenACoefficientIsPastTheLimit) {
  using namespace densepoly;
  // At the edge: 2**32767 * 2**32768 = 2**65535 has 65536 bits, the limit.
  const Expr a = Expr::param("a"), b = Expr::param("b");
  auto two = [](uint32_t k) { return Expr(Integer::pow(Integer(2), k)); };
  EXPECT_NO_THROW(two(32767) * a * (two(32768) * b + Expr(1)));
  EXPECT_NO_THROW((Expr(-1) * two(32767) * a + b) * (two(32768) * b + a));
  EXPECT_THROW((two(32768) * a + Expr(1)) * (two(32768) * b + Expr(1)), InputTooLarge);
  EXPECT_NO_THROW(pow(two(32767) * a * b + a, 2) * Expr(2));
  EXPECT_THROW(pow(two(32768) * a * b + a, 2), InputTooLarge);
  // Within the coefficient limit, but written out past the size limit: 10 terms of 64,001 bits
  // (19,266 digits each) count about 1,000 nodes each.
  const Expr wide = two(32000) * (a + b + Expr::param("c") + Expr(1));
  try {
    (void)(wide * wide);
    ADD_FAILURE() << "a product of 10 terms of 64,001 bits was not refused";
  } catch (const InputTooLarge &e) {
    EXPECT_EQ(std::string(e.what()), "expression too large: written out it has more than 8192 nodes");
  }
  EXPECT_NO_THROW(wide * (two(32000) * (a + b)));
  bool ok = rc::check("p*q and p**k against a dense product", [] {
    const uint32_t k = *rc::gen::inRange<uint32_t>(1, 4); // 1: a product p*q, else p**k
    Poly p = genPoly(kMaxCoefficientBits / (k == 1 ? 2 : k));
    RC_PRE(!p.empty());
    Poly q = k == 1 ? genPoly(kMaxCoefficientBits / 2) : p;
    RC_PRE(!q.empty());
    // The expected outcome: each power on the way is checked (pow is the repeated product), its
    // coefficients first, then its size written out.
    bool past = false, tooBig = false;
    Poly expected = p;
    for (uint32_t step = 1; step < std::max<uint32_t>(k, 2) && !past && !tooBig; ++step) {
      expected = times(expected, q);
      past = pastLimit(expected);
      tooBig = !past && writtenSize(expected) > kMaxTreeSize;
    }
    std::optional<Expr> got;
    std::string error;
    try {
      got = k == 1 ? build(p) * build(q) : pow(build(p), k);
    } catch (const InputTooLarge &e) {
      error = e.what();
    }
    RC_TAG(past ? "past the limit" : tooBig ? "too large written out" : "within");
    if (past) {
      RC_ASSERT(error == "expression too large: a coefficient has more than " + std::to_string(kMaxCoefficientBits) + " bits");
      return;
    }
    if (tooBig) {
      RC_ASSERT(error == "expression too large: written out it has more than " + std::to_string(kMaxTreeSize) + " nodes");
      return;
    }
    RC_ASSERT(error == "");
    for (const auto &at : {std::array<int64_t, 3>{2, 3, 5}, std::array<int64_t, 3>{-1, 7, 0}, std::array<int64_t, 3>{4, -2, 3}})
      RC_ASSERT(evaluate(*got, {{"a", at[0]}, {"b", at[1]}, {"c", at[2]}}) == valueAt(expected, at));
  });
  EXPECT_TRUE(ok);
}

// signedSum (one normalisation for a whole chain `a ± b ± ...`, used by the parser) is the node
// the left fold with + and - gives for total operands, and has its value and domain of
// definition (undefined exactly where the fold is) for partial ones.
TEST(Expr, SignedSumIsTheLeftFold) {
  oracle::GenOptions o;
  o.products = true;
  bool ok = rc::check("signedSum == fold of + and -", [o] {
    std::size_t k = *rc::gen::inRange<std::size_t>(1, 7);
    std::vector<Expr> operands;
    std::array<bool, 7> negated{};
    for (std::size_t i = 0; i < k; ++i) {
      operands.push_back(parseExpr(oracle::show(*oracle::genExpr(2, o))));
      negated[i] = *rc::gen::arbitrary<bool>();
    }
    Expr fold = operands[0];
    for (std::size_t i = 1; i < k; ++i) fold = negated[i] ? fold - operands[i] : fold + operands[i];
    Expr sum = signedSum(operands, std::span<const bool>(negated.data(), k));
    if (fold.isTotal()) RC_ASSERT(sum == fold);
    for (long a = 0; a <= 4; ++a)
      for (long b = 0; b <= 4; ++b)
        for (long c = 0; c <= 2; ++c) {
          Assignment at{{"a", a}, {"b", b}, {"c", c}};
          RC_ASSERT(evaluate(sum, at) == evaluate(fold, at));
        }
  });
  EXPECT_TRUE(ok);
}

// Issue 9: interned nodes were never freed (~1.4 KB per distinct predicate). A node now lives
// exactly as long as a handle to it: after many distinct parses, solver questions and
// definedness caches, the intern tables are back to where they started.
TEST(ExprLifetime, DistinctPredicatesAreFreedWithTheirLastHandle) {
  Pred keep = parsePred("n / 3 + m*k >= 2 and n % 7 != 1"); // a shared part stays alive
  (void)(parsePred("(x / 2 - x / 2 + 1) // 1 > 0") || Pred::truth(false)); // the process's lasting nodes, made once
  InternedCounts before = internedCounts();
  for (int i = 0; i < 20000; ++i) {
    std::string k = std::to_string(i);
    Pred p = parsePred("(n" + k + " / 2 + m*n" + k + ")**2 >= " + k + " or x" + k + " == min(n, " + k + ")");
    (void)definedness(p);             // the cache in the node holds a reference too
    (void)totalized(parseExpr("n" + k + " / 4 + 1"));
    (void)(p && keep);
  }
  InternedCounts after = internedCounts();
  EXPECT_EQ(after.exprs, before.exprs);
  EXPECT_EQ(after.preds, before.preds);
  EXPECT_EQ(parsePred("n / 3 + m*k >= 2 and n % 7 != 1"), keep);
}

TEST(ExprLifetime, AStructurallyEqualNodeIsTheLiveOneOrANewOne) {
  const ExprNode *first = nullptr;
  {
    Expr e = parseExpr("q17 * r17 + 5");
    first = e.node();
    Expr again = parseExpr("r17*q17 + 5");
    EXPECT_EQ(again.node(), first); // alive: the same node
  }
  // Gone with its handles; building it again gives an equal, live node (its address may or may
  // not be reused — only liveness matters).
  Expr e = parseExpr("q17 * r17 + 5");
  EXPECT_EQ(e.toString(), "q17*r17 + 5");
  EXPECT_EQ(e, parseExpr("5 + r17*q17"));
}

// The intern table under random interleavings of building and dropping (entries leave from the
// middle of probe runs, the table grows while entries come and go): a structurally equal
// expression is always the node that is alive, and when every handle is gone the table is back
// where it started.
TEST(ExprLifetime, InterningSurvivesRandomBuildsAndDrops) {
  (void)(parsePred("(x / 2 - x / 2 + 1) // 1 > 0") || Pred::truth(false)); // lasting nodes, made once
  const InternedCounts before = internedCounts();
  bool ok = rc::check("a rebuilt expression is the live node", [] {
    const int pool = *rc::gen::inRange(1, 400);
    auto text = [](int i) {
      std::string k = std::to_string(i);
      return "t" + k + " * u + " + k + " // (1 + " + std::to_string(i % 7) + ") + v" + std::to_string(i % 13);
    };
    std::map<int, std::vector<Expr>> live;
    const auto steps = *rc::gen::container<std::vector<std::pair<bool, int>>>(
        rc::gen::pair(rc::gen::arbitrary<bool>(), rc::gen::inRange(0, pool)));
    for (const auto &[build, i] : steps) {
      if (build) {
        Expr e = parseExpr(text(i));
        for (const Expr &other : live[i]) RC_ASSERT(other == e);
        live[i].push_back(e);
      } else if (!live[i].empty()) {
        live[i].pop_back();
      }
    }
    for (auto &[i, handles] : live)
      if (!handles.empty()) RC_ASSERT(parseExpr(text(i)) == handles.front());
  });
  EXPECT_TRUE(ok);
  const InternedCounts after = internedCounts();
  EXPECT_EQ(after.exprs, before.exprs);
  EXPECT_EQ(after.preds, before.preds);
}

// Several threads build and drop the same nodes at once: the last handle of one thread and a
// lookup in another must never free a node that is handed out (checked under ASan in CI's
// sanitizer run; here the counts and values are checked).
TEST(ExprLifetime, ThreadsBuildingAndDroppingTheSameNodes) {
  InternedCounts before = internedCounts();
  auto work = [](int seed) {
    for (int i = 0; i < 3000; ++i) {
      int k = (i * 7 + seed) % 50;
      std::string s = std::to_string(k);
      Pred p = parsePred("a" + s + " / 2 + b >= " + s + " or c == " + s);
      Pred q = definedness(p);
      if (q.toString() != "a" + s + " % 2 == 0") std::abort();
    }
  };
  std::vector<std::thread> threads;
  (void)(parsePred("(x / 2 - x / 2 + 1) // 1 > 0") || Pred::truth(false)); // the process's lasting nodes, made once
  before = internedCounts();
  for (int t = 0; t < 4; ++t) threads.emplace_back(work, t);
  for (auto &t : threads) t.join();
  InternedCounts after = internedCounts();
  EXPECT_EQ(after.exprs, before.exprs);
  EXPECT_EQ(after.preds, before.preds);
}

// Small constants come from a shared table, larger ones from the intern table: either way one
// value is one node, at and around the table's edges.
TEST(Expr, ConstantsAreOneNodePerValue) {
  for (int64_t v : {-17, -16, -1, 0, 1, 255, 256, 257, 100000}) {
    EXPECT_EQ(Expr(v), Expr(Integer(v))) << v;
    EXPECT_EQ(Expr(v), parseExpr(std::to_string(v))) << v;
    EXPECT_EQ(Expr(v).constantValue(), std::optional<Integer>(Integer(v))) << v;
  }
  EXPECT_EQ(Expr(), Expr(0));
}

// A point given by parameter nodes (NodeValues, the solver's box search) evaluates like the
// same point given by names, defined and undefined alike, and a parameter left out is the same
// NameError.
TEST(Evaluate, AtNodeValuesAsAtNames) {
  oracle::GenOptions o;
  o.products = true;
  bool ok = rc::check("NodeValues and Assignment give the same value", [o] {
    Pred p = parsePred(oracle::show(*oracle::genPred(3, o)));
    Expr e = parseExpr(oracle::show(*oracle::genExpr(4, o)));
    const Expr a = Expr::param("a"), b = Expr::param("b"), c = Expr::param("c"); // keep the nodes
    const std::vector<const ExprNode *> nodes{a.node(), b.node(), c.node()};
    const auto values = *rc::gen::container<std::vector<int64_t>>(3, rc::gen::inRange<int64_t>(-3, 8));
    const std::vector<Integer> big{Integer(values[0]), Integer(values[1]), Integer(values[2])};
    const NodeValues at{nodes, big};
    const Assignment named{{"a", values[0]}, {"b", values[1]}, {"c", values[2]}};
    RC_ASSERT(evaluate(p, at) == evaluate(p, named));
    RC_ASSERT(evaluate(e, at) == evaluate(e, named));
    RC_ASSERT(holds(p, at) == holds(p, named));
  });
  EXPECT_TRUE(ok);
  const Expr n = Expr::param("n");
  const std::vector<const ExprNode *> onlyN{n.node()};
  const std::vector<Integer> one{Integer(1)};
  EXPECT_THROW(evaluate(parseExpr("n + m"), NodeValues{onlyN, one}), NameError);
  EXPECT_EQ(evaluate(parseExpr("n**3 + 2*n"), NodeValues{onlyN, one}), std::optional<Integer>(3));
}

// A DAG whose tree is far larger than itself (each level reads the one below three times)
// evaluates to what the same recurrence computes on integers, defined and undefined alike, at
// every point of a small box (the recurrence is the oracle).
TEST(Evaluate, SharedNodesOfALargeDagEvaluateLikeTheRecurrence) {
  Expr n = Expr::param("n"), m = Expr::param("m");
  std::vector<Expr> levels{n};
  for (int k = 0; levels.back()->treeSize < 600; ++k) {
    const Expr &e = levels.back();
    // (e - m where e > m, else (e + k) / 2, undefined where e + k is odd) + e % 5
    levels.push_back(select(gt(e, m), e - m, exactDiv(e + Expr(k), 2)) + mod(e, 5));
  }
  const Expr &top = levels.back();
  const int kLevels = int(levels.size()) - 1;
  ASSERT_GE(kLevels, 3);
  for (int64_t nv = 0; nv < 12; ++nv)
    for (int64_t mv = 0; mv < 6; ++mv) {
      bool defined = true;
      int64_t value = nv;
      for (int k = 0; k < kLevels && defined; ++k) {
        const int64_t e = value;
        if (e > mv) value = e - mv;
        else if ((e + k) % 2 == 0) value = (e + k) / 2;
        else defined = false;
        value += ((e % 5) + 5) % 5;
      }
      std::optional<Integer> got = evaluate(top, Assignment{{"n", nv}, {"m", mv}});
      ASSERT_EQ(got.has_value(), defined) << "n = " << nv << ", m = " << mv;
      if (defined) {
        EXPECT_EQ(*got, Integer(value)) << "n = " << nv << ", m = " << mv;
      }
      EXPECT_EQ(holds(le(top, Expr(int64_t(1) << 40)), Assignment{{"n", nv}, {"m", mv}}), defined);
    }
}

// Copies of an Assignment share their values until one is set (copy on write): each copy must
// still read as if it were its own, whatever order copies and sets come in.
TEST(Assignment, CopiesAreIndependentUnderAnyOrderOfCopiesAndSets) {
  bool ok = rc::check("each copy agrees with its own model", [] {
    std::vector<shapelab::Assignment> copies(1);
    std::vector<std::map<std::string, int64_t>> models(1);
    const auto steps = *rc::gen::container<std::vector<std::tuple<int, int, int, int>>>(rc::gen::tuple(
        rc::gen::inRange(0, 3), rc::gen::inRange(0, 8), rc::gen::inRange(0, 4), rc::gen::inRange<int>(-3, 4)));
    for (const auto &[what, which, name, value] : steps) {
      const std::size_t i = std::size_t(which) % copies.size();
      const std::string n = std::string(1, char('a' + name));
      if (what == 0) { // copy one
        copies.push_back(copies[i]);
        models.push_back(models[i]);
      } else if (what == 1) { // assign over one
        copies[i] = copies[std::size_t(value + 3) % copies.size()];
        models[i] = models[std::size_t(value + 3) % models.size()];
      } else {
        copies[i].set(n, shapelab::Integer(int64_t(value)));
        models[i][n] = value;
      }
      for (std::size_t k = 0; k < copies.size(); ++k) {
        RC_ASSERT(copies[k].values().size() == models[k].size());
        RC_ASSERT(copies[k].empty() == models[k].empty());
        for (const auto &[key, v] : models[k]) {
          const shapelab::Integer *got = copies[k].find(key);
          RC_ASSERT(got != nullptr);
          RC_ASSERT(*got == shapelab::Integer(v));
        }
      }
    }
  });
  EXPECT_TRUE(ok);
}

// exactQuotient: a product divided by one factor is the other factor; a quotient, when given, is
// exact (times the divisor it is the numerator); a numerator with a remainder gives none.
TEST(Expr, ExactQuotientDividesExactlyOrNotAtAll) {
  const Expr n = Expr::param("n"), m = Expr::param("m");
  EXPECT_EQ(exactQuotient(Expr(2) * n * n + Expr(2) * n, n + Expr(1)), std::optional<Expr>(Expr(2) * n));
  EXPECT_EQ(exactQuotient(m + Expr(1), m + Expr(1)), std::optional<Expr>(Expr(1)));
  EXPECT_EQ(exactQuotient(n * n - Expr(1), n - Expr(1)), std::optional<Expr>(n + Expr(1)));
  EXPECT_EQ(exactQuotient(n * n + Expr(1), n + Expr(1)), std::nullopt); // remainder 2
  EXPECT_EQ(exactQuotient(n * n + n, Expr(2) * n + Expr(2)), std::nullopt); // n/2: not integral
  EXPECT_EQ(exactQuotient(Expr(3), n), std::nullopt);
  EXPECT_EQ(exactQuotient(n, Expr(0)), std::nullopt);
  bool ok = rc::check("exactQuotient(a*b, b) == a; any quotient is exact", [] {
    const char *names[] = {"a", "b", "c"};
    auto poly = [&](std::size_t terms) {
      Expr p(*rc::gen::inRange<int64_t>(-3, 4));
      for (std::size_t i = 0; i < terms; ++i) {
        Expr t = Expr(*rc::gen::element<int64_t>(-3, -2, -1, 1, 2, 3));
        for (int j = *rc::gen::inRange(0, 3); j > 0; --j) t = t * Expr::param(names[*rc::gen::inRange(0, 3)]);
        p = p + t;
      }
      return p;
    };
    const Expr a = poly(*rc::gen::inRange<std::size_t>(0, 4)), b = poly(*rc::gen::inRange<std::size_t>(1, 4));
    RC_PRE(!(b == Expr(0)));
    RC_ASSERT(exactQuotient(a * b, b) == std::optional<Expr>(a));
    const Expr c = poly(*rc::gen::inRange<std::size_t>(0, 4));
    if (std::optional<Expr> q = exactQuotient(c, b)) RC_ASSERT(*q * b == c);
  });
  EXPECT_TRUE(ok);
}
