// Signature parsing: NumPy's C parser (oracle data) and shapelab's extensions.
#include <gtest/gtest.h>

#include "shape/Signature.h"
#include "symbolic/Errors.h"
#include "tests/shape/OracleData.h"
#include "tests/symbolic/WellFormedUtf8.h"

using namespace shapelab;

TEST(Signature, AgreesWithNumpysParser) {
  auto rows = oracle::readRows("numpy_signature.tsv");
  ASSERT_GT(rows.size(), 30u);
  // Accepted by shapelab on purpose (extensions), or read differently because shapelab infers
  // nin and nout from the text while NumPy takes them from the ufunc.
  const std::vector<std::string> extensions = {"(n)->(n*2)", "(i|1)->()", "(i),->()"};
  int compared = 0;
  for (auto &row : rows) {
    const std::string &sig = row[2];
    if (std::find(extensions.begin(), extensions.end(), sig) != extensions.end()) continue;
    if (row[3] == "ok") {
      Signature s = parseSignature(sig);
      auto dims = oracle::split(row[4], ',');
      ASSERT_EQ(dims.size(), s.inputs.size() + s.outputs.size()) << sig;
      std::size_t k = 0;
      for (auto *list : {&s.inputs, &s.outputs})
        for (auto &a : *list) EXPECT_EQ(std::to_string(a.dims.size()), dims[k++]) << sig;
    } else {
      try {
        parseSignature(sig);
        ADD_FAILURE() << "accepted " << sig;
      } catch (const SyntaxError &e) {
        EXPECT_EQ(std::string(e.what()), row[4]) << sig;
      }
    }
    ++compared;
  }
  EXPECT_GT(compared, 30);
}

TEST(Signature, Extensions) {
  Signature s = parseSignature("(m),(n)->(m + n - 1)");
  ASSERT_EQ(s.outputs[0].dims[0].kind, CoreDim::Kind::Expression);
  // Signature dims live in their own scope: `n` is the reserved parameter `__n`, so a caller's
  // parameter `n` can never be captured by it.
  EXPECT_EQ(s.outputs[0].dims[0].expression.toString(), "__m + __n - 1");
  EXPECT_EQ(parseSignature("(n,d)->(n*(n-1)//2)").outputs[0].dims[0].expression.toString(), "(__n**2 - __n) // 2");
  EXPECT_EQ(unscopedName(scopedName("n")), "n");
  EXPECT_EQ(unscopedName("n"), "n");
  EXPECT_EQ(parseSignature("(m),(n)->(max(m,n))").outputs[0].dims[0].kind, CoreDim::Kind::Expression);
  EXPECT_EQ(parseSignature("(n),(n+1,n)->()").inputs[1].dims[0].kind, CoreDim::Kind::Expression);
  Signature so = parseSignature("(m),<n>->(m,n)");
  EXPECT_TRUE(so.inputs[1].shapeOnly);
  EXPECT_TRUE(parseSignature("(),(),<>->()").inputs[2].shapeOnly);
  Signature b = parseSignature("(n|1),(n|1)->()");
  EXPECT_TRUE(b.inputs[0].dims[0].broadcastable);
}

TEST(Signature, ExtensionErrors) {
  const char *bad[][2] = {
      {"(n)->(n|1)", "only allowed on input"},
      {"(n|1),(n)->()", "'|1' must be used on every input occurrence"},
      {"(n?|1)->()", "cannot be combined"},
      {"(m),<n>,<n>->(m,n)", "must not appear in any other input"},
      {"(m),<m,n>->(m,n)", "must not appear in any other input"},
      {"(m)-><n>", "only allowed in inputs"},
      {"<3>->()", "take names, not sizes"},
      {"(n+)->()", "expected an expression"},
      {"(n-1?)->()", "apply to dimension names only"},
  };
  for (auto &b : bad) {
    try {
      parseSignature(b[0]);
      ADD_FAILURE() << "accepted " << b[0];
    } catch (const SyntaxError &e) {
      EXPECT_NE(std::string(e.what()).find(b[1]), std::string::npos) << b[0] << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("in \""), std::string::npos) << b[0];
    }
  }
}

// Found by fuzz_signature once it checked messages: NumPy's message quotes the signature, and a
// byte of it that begins no UTF-8 character came out raw (a JSON reply or a Python exception
// could not carry it). Every message is now well-formed; the stray byte reads \xe8.
TEST(Signature, AMessageQuotingStrayBytesIsWellFormedUtf8) {
  const std::string text = "(i)->(i\x8e" "1\xe8)";
  try {
    parseSignature(text);
    FAIL() << "parsed";
  } catch (const SyntaxError &e) {
    EXPECT_TRUE(shapelab::testutil::wellFormedUtf8(e.what())) << e.what();
    EXPECT_TRUE(shapelab::testutil::wellFormedUtf8(e.message()));
    EXPECT_TRUE(shapelab::testutil::wellFormedUtf8(e.render()));
    EXPECT_NE(std::string(e.what()).find("\\x8e"), std::string::npos) << e.what();
  }
}
