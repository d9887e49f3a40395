// The op list (ops/OpList.h): its three files expand into consistent tables, and what comes
// from them (the catalogue, the ufunc lookups, the scalar codes) agrees with them.
#include <gtest/gtest.h>

#include <set>

#include "ops/Graph.h"
#include "ops/OpList.h"
#include "ops/Scalar.h"

using namespace shapelab;
using namespace shapelab::ops;

TEST(OpList, KindsHaveNamesAndTraits) {
  EXPECT_STREQ(kindName(OpKind::Input), "Input");
  EXPECT_STREQ(kindName(OpKind::Einsum), "Einsum");
  EXPECT_TRUE(hasTrait(OpKind::Input, trait::Leaf));
  EXPECT_TRUE(hasTrait(OpKind::Transpose, trait::View | trait::ShapesOnly));
  EXPECT_FALSE(hasTrait(OpKind::Cast, trait::FreshResult)); // a cast may return its operand's buffer
  EXPECT_TRUE(hasTrait(OpKind::Reduce, trait::NamedByOp));
  EXPECT_FALSE(hasTrait(OpKind::Where, trait::NamedByOp));
  // A leaf has no other trait; an elementwise kind is never a view.
  for (unsigned k = 0; k <= unsigned(OpKind::Einsum); ++k) {
    const OpKind kind = OpKind(k);
    if (hasTrait(kind, trait::Leaf)) {
      EXPECT_EQ(traitsOf(kind), trait::Leaf) << kindName(kind);
    }
    EXPECT_FALSE(hasTrait(kind, trait::Elementwise | trait::View)) << kindName(kind);
  }
}

TEST(OpList, UfuncsAreFoundByNameAndOperator) {
  std::set<std::string> names;
  for (const UfuncInfo &u : ufuncs()) {
    EXPECT_TRUE(names.insert(u.name).second) << "twice: " << u.name;
    EXPECT_EQ(ufunc(u.name), &u);
    EXPECT_EQ(isUnaryOp(u.name), u.arity == 1);
    EXPECT_EQ(isBinaryOp(u.name), u.arity == 2);
    if (!u.symbol.empty()) {
      EXPECT_EQ(binaryOpFor(u.symbol), u.name);
    }
    // Every binary ufunc has a scalar code, comparisons exactly the Compare rule.
    if (u.arity == 2) {
      EXPECT_EQ(isComparison(binCode(u.name)), u.rule == UfuncRule::Compare) << u.name;
    }
  }
  EXPECT_EQ(ufunc("sum"), nullptr);
  EXPECT_EQ(binaryOpFor("@"), std::nullopt); // matmul is no ufunc
  EXPECT_EQ(binaryOpFor(""), std::nullopt);
  EXPECT_TRUE(isUnaryTest("isnan"));
  EXPECT_FALSE(isUnaryTest("exp"));
  EXPECT_THROW(binCode("exp"), InternalError);
}

TEST(OpList, FunctionRowsAreConsistent) {
  std::set<std::string_view> names;
  for (const FunctionInfo &f : functions()) {
    EXPECT_TRUE(names.insert(f.name).second) << "twice: " << f.name;
    EXPECT_EQ(function(f.name), &f);
    EXPECT_EQ(ufunc(f.name), nullptr) << f.name << " is in both lists";
    // A rule may match only a call that is one node kind; signature and rule come together.
    if (f.has(fn::Pattern)) {
      EXPECT_TRUE(f.kind.has_value()) << f.name;
    }
    EXPECT_EQ(f.signature.empty(), f.rule.empty()) << f.name;
  }
  EXPECT_TRUE(function("sum")->has(fn::Function | fn::Method | fn::Pattern));
  EXPECT_EQ(function("sum")->kind, OpKind::Reduce);
  EXPECT_TRUE(function("flatten")->has(fn::Method));
  EXPECT_FALSE(function("flatten")->has(fn::Function)); // np.flatten does not exist
  EXPECT_EQ(function("no_such_function"), nullptr);
}

TEST(OpList, TheCatalogueListsEveryRowWithASignature) {
  std::vector<std::string> listed;
  for (const OpInfo &o : opCatalogue()) listed.push_back(o.name);
  std::size_t at = 0;
  for (const UfuncInfo &u : ufuncs()) EXPECT_EQ(listed.at(at++), u.name);
  for (const FunctionInfo &f : functions())
    if (!f.signature.empty()) {
      EXPECT_EQ(listed.at(at++), f.name);
    }
  // Then the random variables.
  ASSERT_LT(at, listed.size());
  EXPECT_EQ(listed[at].rfind("random.", 0), 0u);
}

// Each unary ufunc of the list has a code, a loop and a scalar function: every row's name reads
// back as its code, a Libm row has the C library's function (and only those), a Test row is an
// element test and every other row a value function, on float64 and, where NumPy defines it,
// on int64.
TEST(OpList, EveryUnaryUfuncHasItsScalarFunction) {
  std::size_t rows = 0;
  for (const UfuncInfo &u : ufuncs()) {
    if (u.arity != 1) continue;
    ++rows;
    const Un code = unaryCode(u.name);
    EXPECT_EQ(int(code), int(rows - 1)) << u.name; // the codes follow the list
    const UfuncLoop loop = loopOf(code);
    EXPECT_EQ(libmFunction<double>(code) != nullptr, loop == UfuncLoop::Libm) << u.name;
    EXPECT_EQ(loop == UfuncLoop::Test, u.rule == UfuncRule::Test) << u.name;
    if (loop == UfuncLoop::Test) {
      EXPECT_NO_THROW(unaryTest<double>(code, 0.5)) << u.name;
      EXPECT_NO_THROW(unaryTest<int64_t>(code, 3)) << u.name;
    } else if (code != Un::Invert) {
      EXPECT_NO_THROW(unaryValue<double>(code, 0.5)) << u.name;
      if (u.rule == UfuncRule::Keep) {
        EXPECT_NO_THROW(unaryValue<int64_t>(code, -3)) << u.name;
      }
    }
  }
  EXPECT_EQ(unaryValue<double>(Un::Rint, 2.5), 2.0); // halves to even
  EXPECT_EQ(unaryValue<int64_t>(Un::Negative, INT64_MIN), INT64_MIN); // wraps, as NumPy
  EXPECT_EQ(unaryValue<int32_t>(Un::Invert, 0), -1);
  EXPECT_TRUE(unaryTest<float>(Un::Signbit, -0.0f));
  EXPECT_THROW(unaryCode("add"), InternalError);
}
