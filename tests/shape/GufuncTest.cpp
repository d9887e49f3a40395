// Gufunc (Blockwise) resolution: NumPy's gufuncs as the oracle, and symbolic cases.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "shape/Gufunc.h"
#include "symbolic/Errors.h"
#include "symbolic/Parser.h"
#include "tests/shape/OracleData.h"

using namespace shapelab;

namespace {
std::vector<GufuncArgument> arrays(const std::vector<const char *> &shapes) {
  std::vector<GufuncArgument> out;
  for (auto *s : shapes) out.push_back({parseShape(s), false});
  return out;
}
std::string outText(const std::vector<std::optional<Expr>> &s) {
  Shape e;
  for (auto &d : s) e.push_back(d ? *d : Expr::reservedParam("_undetermined"));
  return toString(e);
}
} // namespace

TEST(Gufunc, AgreesWithNumpysGufuncs) {
  auto rows = oracle::readRows("numpy_gufunc.tsv");
  ASSERT_GT(rows.size(), 500u);
  Solver solver;
  Context c = solver.makeContext({});
  int exactMessages = 0;
  for (auto &row : rows) {
    Signature sig = parseSignature(row[0]);
    std::vector<GufuncArgument> args;
    for (auto &s : oracle::parseShapes(row[1])) args.push_back({s, false});
    GufuncResult r = resolveGufunc(solver, c, sig, args);
    std::string where = row[0] + " on " + row[1];
    if (row[2] == "ok") {
      ASSERT_EQ(r.status(), Status::Valid) << where << ": " << r.message;
      auto outs = oracle::split(row[3], '|');
      ASSERT_EQ(outs.size(), r.outShapes.size()) << where;
      for (std::size_t i = 0; i < outs.size(); ++i) EXPECT_EQ(outText(r.outShapes[i]), outs[i]) << where;
    } else if (row[3].find("unspecified") != std::string::npos) {
      // NumPy cannot allocate an output-only dim; shapelab reports it undetermined.
      EXPECT_NE(r.status(), Status::Error) << where;
      EXPECT_FALSE(r.allocatable()) << where;
    } else {
      ASSERT_EQ(r.status(), Status::Error) << where;
      if (row[3].find("remapped shapes") == std::string::npos) {
        EXPECT_EQ(r.message, row[3]) << where;
        ++exactMessages;
      }
    }
  }
  EXPECT_GT(exactMessages, 20);
}

// An operand must exist, whether or not a core size it has reaches an output: an int8 array of
// each shape in numpy_exist.tsv exists exactly where NumPy made it (its sizes other than 0
// multiply to at most 2**63 - 1). Checked concrete, and with every size a parameter, at the
// row's values.
TEST(Gufunc, OperandsExistWhereNumpyMakesThem) {
  auto rows = oracle::readRows("numpy_exist.tsv");
  ASSERT_GT(rows.size(), 200u);
  Solver solver;
  Context c = solver.makeContext({});
  Signature sig = parseSignature("(i)->()");
  std::size_t refused = 0;
  for (auto &row : rows) {
    Shape shape = parseShape(row[0]);
    bool ok = row[1] == "ok";
    refused += !ok;
    GufuncResult r = resolveGufunc(solver, c, sig, {{shape, false}});
    ASSERT_EQ(r.status(), ok ? Status::Valid : Status::Error) << row[0] << ": " << r.message;
    Assignment at;
    std::size_t next = 0;
    Shape symbolic = oracle::withParameters(shape, oracle::allPositions(shape), at, next);
    GufuncResult s = resolveGufunc(solver, c, sig, {{symbolic, false}});
    EXPECT_EQ(s.status() != Status::Error && holds(s.validity.domainWithLimits(), at), ok)
        << toString(symbolic) << " at " << row[0] << ": " << s.message;
  }
  EXPECT_GT(refused, 50u);
}

TEST(Gufunc, SymbolicMatmul) {
  Solver solver;
  Context c = solver.makeContext({});
  GufuncResult r = resolveGufunc(solver, c, parseSignature("(m,n),(n,p)->(m,p)"), arrays({"(b, m, n)", "(n, p)"}));
  // Valid as a gufunc call. The operands exist (their element counts are assumed); the output's
  // sizes other than 0 must multiply to at most 2**63 - 1 (a size that may be 0 counts as
  // max(1, d)): NumPy's limit, reported apart from the checks.
  EXPECT_EQ(r.status(), Status::Valid);
  EXPECT_TRUE(r.validity.checks().empty());
  EXPECT_EQ(r.validity.limits(), (std::vector<Pred>{parsePred("max(1, b)*max(1, m)*max(1, p) <= 9223372036854775807")}));
  // The operands' limits are still obligations of their own kind, an error only where they never hold.
  std::size_t existence = 0;
  for (const Obligation &o : r.validity.obligations()) existence += o.kind == ObligationKind::Existence;
  EXPECT_EQ(existence, 2u);
  EXPECT_EQ(outText(r.outShapes[0]), "(b, m, p)");
  GufuncResult k = resolveGufunc(solver, c, parseSignature("(m,n),(n,p)->(m,p)"), arrays({"(m, k)", "(n, p)"}));
  EXPECT_EQ(k.status(), Status::RuntimeCheck);
  EXPECT_EQ(k.validity.checks().at(0), parsePred("n == k"));
}

TEST(Gufunc, ExpressionsAndSolving) {
  Solver solver;
  Context c = solver.makeContext({});
  GufuncResult d = resolveGufunc(solver, c, parseSignature("(m)->(m-1)"), arrays({"(k,)"}));
  EXPECT_EQ(d.status(), Status::RuntimeCheck);
  EXPECT_EQ(d.validity.checks().at(0), parsePred("k >= 1"));
  GufuncResult s = resolveGufunc(solver, c, parseSignature("(n+1)->(n)"), arrays({"(d,)"}));
  EXPECT_EQ(outText(s.outShapes[0]), "(d - 1,)");
  EXPECT_EQ(s.validity.checks().at(0), parsePred("d >= 1"));
  GufuncResult conv = resolveGufunc(solver, c, parseSignature("(m),(n)->(m+n-1)"), arrays({"(3, 6)", "(2, 1, 7)"}));
  EXPECT_EQ(outText(conv.outShapes[0]), "(2, 3, 12)");
  GufuncResult simplex = resolveGufunc(solver, c, parseSignature("(n),(n+1,n)->()"), arrays({"(4,)", "(5, 4)"}));
  EXPECT_EQ(simplex.status(), Status::Valid);
  GufuncResult bad = resolveGufunc(solver, c, parseSignature("(n),(n+1,n)->()"), arrays({"(4,)", "(4, 4)"}));
  EXPECT_EQ(bad.status(), Status::Error);
  GufuncResult pd = resolveGufunc(solver, c, parseSignature("(n,d)->(n*(n-1)/2)"), arrays({"(n, 3)"}));
  // n*(n-1) is always even; the output has more than 2**63 - 1 elements for huge n (a limit;
  // the operand's own count is assumed: it exists).
  EXPECT_TRUE(pd.validity.checks().empty());
  EXPECT_EQ(pd.validity.limits(), (std::vector<Pred>{parsePred("(n**2 - n) / 2 <= 9223372036854775807")}));
  GufuncResult two = resolveGufunc(solver, c, parseSignature("(2*n)->(n)"), arrays({"(k,)"}));
  EXPECT_EQ(two.validity.checks().at(0).toString(), "k % 2 == 0");
  GufuncResult only = resolveGufunc(solver, c, parseSignature("(m),<n>->(m,n)"), {{parseShape("(5,)"), false}, {parseShape("(2, 3)"), true}});
  EXPECT_EQ(outText(only.outShapes[0]), "(2, 5, 3)");
  GufuncResult und = resolveGufunc(solver, c, parseSignature("()->(n)"), arrays({"(4,)"}));
  EXPECT_FALSE(und.allocatable());
  EXPECT_EQ(und.undetermined, std::vector<std::string>{"n"});
  GufuncResult bc = resolveGufunc(solver, c, parseSignature("(n|1),(n|1)->(n)"), arrays({"(1,)", "(5,)"}));
  EXPECT_EQ(outText(bc.outShapes[0]), "(5,)");
  EXPECT_EQ(resolveGufunc(solver, c, parseSignature("(n|1),(n|1)->(n)"), arrays({"(2,)", "(5,)"})).status(), Status::Error);
  EXPECT_THROW(resolveGufunc(solver, c, parseSignature("(n*m)->()"), arrays({"(6,)"})), UserError);
  EXPECT_THROW(resolveGufunc(solver, c, parseSignature("(n)->()"), arrays({"(6,)", "(2,)"})), UserError);
}

// Random signatures and symbolic shapes: at every point of a small box, the symbolic verdict
// and output shapes equal the resolution of the evaluated (concrete) shapes.
TEST(Gufunc, SymbolicAgreesWithConcreteAtPoints) {
  Solver solver;
  Context c = solver.makeContext({});
  bool ok = rc::check("gufunc symbolic == concrete pointwise", [&] {
    std::string sigText = *rc::gen::element<std::string>(
        "(i),(i)->()", "(m,n),(n,p)->(m,p)", "(n?,k),(k,m?)->(n?,m?)", "(3),(3)->(3)", "(m)->(m-1)",
        "(n+1)->(n)", "(m),(n)->(m+n-1)", "(n|1),(n|1)->(n)", "(n),(n+1,n)->()", "(2*n)->(n)");
    Signature sig = parseSignature(sigText);
    auto dim = rc::gen::element<std::string>("a", "b", "1", "2", "3", "0", "a + 1", "2*b");
    std::vector<GufuncArgument> args;
    for (const CoreArgument &in : sig.inputs) {
      int rank = *rc::gen::inRange<int>(0, 3) + int(in.dims.size()) - (*rc::gen::inRange(0, 4) == 0 ? 1 : 0);
      std::string t = "(";
      for (int i = 0; i < std::max(rank, 0); ++i) t += (i ? ", " : "") + *dim;
      t += rank == 1 ? ",)" : ")";
      args.push_back({parseShape(t), false});
    }
    GufuncResult sym = resolveGufunc(solver, c, sig, args);
    RC_TAG(spelling(sym.status()));
    RC_ASSERT(sym.status() != Status::Unknown);
    auto concreteAt = [&](const Assignment &at) {
      std::vector<GufuncArgument> concrete;
      for (auto &g : args) {
        Shape s;
        for (Expr d : g.shape) s.push_back(Expr(*evaluate(d, at)));
        concrete.push_back({s, false});
      }
      return resolveGufunc(solver, c, sig, concrete);
    };
    // A violating point is complete (every parameter of the call has a value) and the call
    // fails there.
    if (auto w = sym.validity.violating()) {
      for (auto &g : args)
        for (Expr d : g.shape)
          for (Expr p : parametersOf(d)) RC_ASSERT(w->find(p->name) != nullptr);
      RC_ASSERT(concreteAt(*w).status() == Status::Error);
    }
    for (int a = 0; a <= 3; ++a)
      for (int b = 0; b <= 3; ++b) {
        Assignment at{{"a", a}, {"b", b}};
        GufuncResult con = concreteAt(at);
        bool symValid = sym.status() != Status::Error && holds(sym.validity.domainWithLimits(), at);
        bool conValid = con.status() == Status::Valid;
        RC_ASSERT(con.status() != Status::RuntimeCheck);
        RC_ASSERT(symValid == conValid);
        if (!conValid) continue;
        RC_ASSERT(sym.outShapes.size() == con.outShapes.size());
        for (std::size_t o = 0; o < con.outShapes.size(); ++o) {
          RC_ASSERT(sym.outShapes[o].size() == con.outShapes[o].size());
          for (std::size_t k = 0; k < con.outShapes[o].size(); ++k)
            RC_ASSERT(evaluate(*sym.outShapes[o][k], at) == con.outShapes[o][k]->constantValue());
        }
      }
  });
  EXPECT_TRUE(ok);
}
