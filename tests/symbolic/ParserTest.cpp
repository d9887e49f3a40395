// Parser: messages and caret positions for bad text; print -> parse is the identity.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <rapidcheck.h>

#include "symbolic/Errors.h"
#include "symbolic/Parser.h"
#include "tests/symbolic/RandomAst.h"
#include "tests/symbolic/WellFormedUtf8.h"

using namespace shapelab;

namespace {
struct Bad {
  const char *text;
  std::size_t position;
  const char *messagePart;
};

void expectSyntaxError(const Bad &b, bool predicate) {
  try {
    if (predicate) parsePred(b.text); else parseExpr(b.text);
    ADD_FAILURE() << "no error for '" << b.text << "'";
  } catch (const SyntaxError &e) {
    EXPECT_EQ(e.position(), b.position) << b.text << ": " << e.what();
    EXPECT_NE(e.message().find(b.messagePart), std::string::npos) << b.text << ": " << e.what();
    EXPECT_NE(e.render().find("^"), std::string::npos);
  }
}
} // namespace

TEST(Parser, ExpressionErrorsNameTheProblemAndPosition) {
  const Bad cases[] = {
      {"", 0, "expected an expression"},
      {"n +", 3, "expected an expression"},
      {"n + * 2", 4, "expected an expression, found '*'"},
      {"(n + 1", 6, "expected ')'"},
      {"n + 1)", 5, "unexpected ')'"},
      {"n // m", 5, "divisor of '//' must be a positive integer constant"},
      {"n % 0", 4, "divisor of '%' must be a positive integer constant, not 0"},
      {"n / -2", 4, "positive integer constant"},
      {"n ** m", 5, "exponent of '**'"},
      {"n ** 65", 5, "at most 64"},
      {"2n", 0, "cannot start with a digit"},
      {"n & m", 2, "unexpected character '&'"},
      {"_shp0 + 1", 0, "reserved"},
      {"min()", 4, "expected an expression"},
      {"min(n m)", 6, "expected ',' or ')'"},
      {"n == 1", 0, "must be an integer expression"},
      {"n if m else 2", 5, "must be a condition"},
      {"n if m > 1", 10, "expected 'else'"},
      {"n + (m > 1)", 4, "must be an integer expression"},
      {"n = 1", 2, "write '=='"},
      {"n \xc3\xa9", 2, "unexpected character"},
  };
  for (const Bad &b : cases) expectSyntaxError(b, false);
}

TEST(Parser, PredicateErrors) {
  const Bad cases[] = {
      {"n", 0, "must be a condition"},
      {"n > 1 and m", 10, "must be a condition"},
      {"not n", 4, "must be a condition"},
      {"n > 1 or", 8, "expected an expression"},
      {"(n > 1", 6, "expected ')'"},
      {"n >< 1", 3, "expected an expression, found '<'"},
  };
  for (const Bad &b : cases) expectSyntaxError(b, true);
}

// The grammar is checked over the whole text before any value is built: a syntax error is
// reported even where a part before it could not be built (a divisor or exponent that is not a
// constant, a power past the limits).
TEST(Parser, ASyntaxErrorComesBeforeErrorsThatNeedTheValue) {
  const Bad cases[] = {
      {"n // m + )", 9, "expected an expression, found ')'"},
      {"n ** m (", 7, "unexpected '('"},
      {"2 ** 100000 + (n > 1)", 14, "must be an integer expression"},
      {"n ** 65 if n else 1", 11, "must be a condition"},
      {"n / 0 + min(n m)", 14, "expected ',' or ')'"},
  };
  for (const Bad &b : cases) expectSyntaxError(b, false);
  // Without the syntax error, the error the value finds.
  expectSyntaxError({"n // m + 1", 5, "must be a positive integer constant"}, false);
  expectSyntaxError({"2 ** 100000 + 1", 5, "too large"}, false);
}

namespace {
/// A random text of the grammar's shapes with no regard for kinds: any operator over any
/// operands, conditions and integers alike, so that most texts misplace a kind somewhere.
std::string untypedText(int depth) {
  if (depth == 0 || *rc::gen::inRange(0, 4) == 0)
    return *rc::gen::elementOf(std::vector<std::string>{"n", "m", "2", "0", "7", "True", "n > 1", "-1"});
  auto sub = [&] {
    std::string t = untypedText(depth - 1);
    return *rc::gen::inRange(0, 3) == 0 ? t : "(" + t + ")";
  };
  switch (*rc::gen::inRange(0, 7)) {
  case 0: {
    std::string op = *rc::gen::elementOf(std::vector<std::string>{
        "+", "-", "*", "/", "//", "%", "**", "==", "<", ">=", "and", "or"});
    return sub() + " " + op + " " + sub();
  }
  case 1: return "not " + sub();
  case 2: return "-" + sub();
  case 3: return sub() + " if " + sub() + " else " + sub();
  case 4: return std::string(*rc::gen::element("min", "max")) + "(" + sub() + ", " + sub() + ")";
  case 5: return "0 <= " + sub() + " < " + sub();
  default: return "(" + sub() + ")";
  }
}
} // namespace

// The passes agree on the grammar: the building pass reads only texts the checking pass passed,
// and a syntax error reached there would be an InternalError. Texts that put conditions and
// integers anywhere, with a few bytes changed (most no longer parse, at every depth), must each
// give a value or a SyntaxError.
TEST(Parser, TheGrammarCheckAndTheBuildAgree) {
  bool ok = rc::check("two passes, one grammar", [] {
    // Twenty texts per case: a text that misplaces one kind only, or breaks its grammar at one
    // point only (where the passes could differ), is one in several.
    for (int i = 0; i < 20; ++i) {
      std::string text = untypedText(*rc::gen::inRange(1, 5));
      const int changes = *rc::gen::elementOf(std::vector<int>{0, 0, 1, 2});
      for (int k = 0; k < changes; ++k) {
        std::size_t at = *rc::gen::inRange<std::size_t>(0, text.size());
        text[at] = *rc::gen::elementOf(std::string("()+-*/%,<>=!n1 _"));
      }
      // The reading that gives its syntax error instead of throwing it gives the same answer.
      std::variant<Expr, Pred, SyntaxError> tried = tryParseExprOrPred(text);
      try {
        std::variant<Expr, Pred> v = parseExprOrPred(text);
        if (auto *e = std::get_if<Expr>(&v)) RC_ASSERT(std::get<Expr>(tried) == *e);
        else RC_ASSERT(std::get<Pred>(tried) == std::get<Pred>(v));
      } catch (const SyntaxError &e) {
        RC_ASSERT(e.position() <= text.size());
        const SyntaxError &t = std::get<SyntaxError>(tried);
        RC_ASSERT(t.position() == e.position());
        RC_ASSERT(t.message() == e.message());
        RC_ASSERT(t.render() == e.render());
      }
    }
  });
  EXPECT_TRUE(ok);
}

TEST(Parser, CaretRendering) {
  try {
    parseExpr("n + * 2");
  } catch (const SyntaxError &e) {
    EXPECT_EQ(e.render(), "expected an expression, found '*' at column 5\n  n + * 2\n      ^");
  }
  // A long text is shown as a window around the caret.
  std::string text = "n + " + std::string(200, '1') + " + * 2" + std::string(200, ' ') + "3";
  try {
    parseExpr(text);
    FAIL();
  } catch (const SyntaxError &e) {
    std::string r = e.render();
    std::string shown = r.substr(r.find('\n') + 3, r.rfind('\n') - r.find('\n') - 3);
    std::string caret = r.substr(r.rfind('\n') + 3);
    EXPECT_EQ(shown.substr(0, 3), "...");
    EXPECT_EQ(shown.substr(shown.size() - 3), "...");
    EXPECT_EQ(shown[caret.size() - 1], '*');
    EXPECT_LT(r.size(), 400u);
  }
}

// Messages echoed bytes from 0x80 up as they were: a stray byte made the message (and a
// terminal's or JSON reader's input) malformed UTF-8, and the caret counted bytes, not columns.
TEST(Errors, PrintableKeepsCharactersAndEscapesStrayBytes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"\xc3\xa9", "\xc3\xa9"},                      // é
      {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"},      // an emoji, four bytes
      {"\xe9", "\\xe9"},                             // Latin-1 é: no UTF-8 character
      {"\x80", "\\x80"},                             // a continuation byte alone
      {"\xc0\xaf", "\\xc0\\xaf"},                    // overlong '/'
      {"\xed\xa0\x80", "\\xed\\xa0\\x80"},           // a UTF-16 surrogate
      {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"},  // past U+10FFFF
      {"\xe6\x97", "\\xe6\\x97"},                    // cut short
      {"a\nb\x01\x7f", "a\\nb\\x01\\x7f"}};
  for (const auto &[text, shown] : cases) {
    EXPECT_EQ(printable(text), shown);
    EXPECT_TRUE(testutil::wellFormedUtf8(printable(text)));
  }
  rc::check("printable() is always well-formed UTF-8 and keeps well-formed text", [](const std::vector<uint8_t> &raw) {
    const std::string bytes(raw.begin(), raw.end());
    RC_ASSERT(testutil::wellFormedUtf8(printable(bytes)));
    bool plain = testutil::wellFormedUtf8(bytes);
    for (unsigned char c : bytes) plain = plain && c >= 0x20 && c != 0x7f;
    if (plain) RC_ASSERT(printable(bytes) == bytes);
  });
}

// Found by fuzz_expr once it checked messages: "found '\xd6'" quoted the token raw in the
// message (the rendering escaped it; what() and message(), which JSON replies and Python
// exceptions carry, did not). Every UserError's message is now well-formed UTF-8.
TEST(Errors, EveryMessageIsWellFormedUtf8) {
  try {
    parseExprOrPred("(n*(n-1\xd6!/2 == k");
    FAIL() << "parsed";
  } catch (const SyntaxError &e) {
    EXPECT_EQ(e.message(), "expected ')' to close the '(' at column 4, found '\\xd6'");
    EXPECT_TRUE(testutil::wellFormedUtf8(e.what()));
  }
  EXPECT_EQ(std::string(UserError("a \xff b \xc3\xa9").what()), "a \\xff b \xc3\xa9");
  rc::check("a parse error's message, what() and rendering are well-formed UTF-8", [](const std::vector<uint8_t> &raw) {
    std::string text(raw.begin(), raw.end());
    text = "(n + " + text + ") * 2";
    try {
      (void)parseExprOrPred(text);
    } catch (const SyntaxError &e) {
      RC_ASSERT(testutil::wellFormedUtf8(e.message()));
      RC_ASSERT(testutil::wellFormedUtf8(e.what()));
      RC_ASSERT(testutil::wellFormedUtf8(e.render()));
    } catch (const UserError &e) {
      RC_ASSERT(testutil::wellFormedUtf8(e.what()));
    }
  });
}

TEST(Errors, TheCaretCountsColumns) {
  EXPECT_EQ(SyntaxError("m", "\xc3\xa9 + $", 5).render(), "m at column 6\n  \xc3\xa9 + $\n      ^");
  // A wide character takes two columns; an escaped byte its four.
  EXPECT_EQ(SyntaxError("m", "\xe6\x97\xa5$", 3).render(), "m at column 4\n  \xe6\x97\xa5$\n    ^");
  EXPECT_EQ(SyntaxError("m", "\xe9$", 1).render(), "m at column 2\n  \\xe9$\n      ^");
  // The window around the caret in a long text does not cut a character in two.
  std::string text;
  for (int i = 0; i < 100; ++i) text += "\xc3\xa9";
  for (std::size_t at : {std::size_t(101), std::size_t(100), std::size_t(63), std::size_t(137)}) {
    const std::string r = SyntaxError("m", text, at).render();
    EXPECT_TRUE(testutil::wellFormedUtf8(r)) << at;
  }
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string deep = std::string(100000, '(') + "n" + std::string(100000, ')');
  EXPECT_THROW(parseExpr(deep), SyntaxError);
  EXPECT_THROW(parseExpr(std::string(100000, '-') + "n"), SyntaxError);
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "not ";
  EXPECT_THROW(parsePred(nots + "n > 1"), SyntaxError);
  EXPECT_NO_THROW(parseExpr(std::string(50, '(') + "n" + std::string(50, ')')));
}

// Issue 9: text length was unbounded. Past kMaxTextBytes a text is refused before any work,
// with the caret at the limit; at the limit it is read.
TEST(Parser, TextLongerThanTheLimitIsRefused) {
  std::string longest = "n" + std::string(kMaxTextBytes - 1, ' ');
  EXPECT_EQ(parseExpr(longest), parseExpr("n"));
  try {
    parseExpr(longest + " ");
    FAIL() << "a text over the limit was accepted";
  } catch (const SyntaxError &e) {
    EXPECT_NE(e.message().find("the text is too long: 65537 bytes"), std::string::npos) << e.message();
    EXPECT_EQ(e.position(), kMaxTextBytes);
  }
  EXPECT_THROW(parsePred("n > 1 " + std::string(kMaxTextBytes, ' ')), SyntaxError);
}

TEST(Parser, BigLiteralsAreExact) {
  EXPECT_EQ(parseExpr("123456789012345678901234567890 + 1").toString(), "123456789012345678901234567891");
  EXPECT_EQ(parseExpr("2**100").toString(), "1267650600228229401496703205376");
}

TEST(Parser, PrintThenParseIsTheIdentity) {
  oracle::GenOptions o;
  o.products = true;
  bool ok = rc::check("parse(print(e)) == e", [o] {
    Expr e = parseExpr(oracle::show(*oracle::genExpr(3, o)));
    RC_ASSERT(parseExpr(e.toString()) == e);
  });
  EXPECT_TRUE(ok);
  ok = rc::check("parse(print(p)) == p", [o] {
    Pred p = parsePred(oracle::show(*oracle::genPred(2, o)));
    RC_ASSERT(parsePred(p.toString()) == p);
  });
  EXPECT_TRUE(ok);
}

TEST(Parser, EitherKindAsTheTextSays) {
  auto e = parseExprOrPred("n + 1");
  ASSERT_TRUE(std::holds_alternative<Expr>(e));
  EXPECT_EQ(std::get<Expr>(e), parseExpr("1 + n"));
  auto p = parseExprOrPred("n + 1 > m or True");
  ASSERT_TRUE(std::holds_alternative<Pred>(p));
  EXPECT_TRUE(std::get<Pred>(p).isTrue());
  EXPECT_THROW(parseExprOrPred("n + "), SyntaxError);
}

// Issue 9, found by fuzz_expr: canonicalisation nests each exact division of a chain
// (`x/5*n/6*n/7...`) one level deeper, so a flat text of moderate nesting printed as a form
// nested past the parser's bound and did not read back. Node nesting is now bounded so that
// every printed form reads back: a chain either parses and round-trips, or is refused as too
// large, whatever its length.
TEST(Parser, EveryPrintedFormReadsBack) {
  for (int links = 1; links <= 150; links += 7) {
    std::string text = "x";
    for (int i = 0; i < links; ++i) text += "/" + std::to_string(5 + i % 3) + "*n";
    Expr e;
    try {
      e = parseExpr(text);
    } catch (const SyntaxError &err) {
      EXPECT_NE(err.message().find("too large"), std::string::npos) << err.message();
      continue;
    }
    EXPECT_EQ(parseExpr(e.toString()), e) << links << " links";
  }
  std::ifstream in(std::string(std::getenv("SHAPELAB_SOURCE_DIR")) +
                   "/tests/fuzz/corpus/expr/regression-nested-printed-form");
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty());
  try {
    Expr e = parseExpr(text.str());
    EXPECT_EQ(parseExpr(e.toString()), e);
  } catch (const SyntaxError &err) {
    EXPECT_NE(err.message().find("too large"), std::string::npos) << err.message();
  }
}

// The written-out size bound (kMaxTreeSize): five copies of a 1000-parameter sum under min()
// are over it and refused with a caret inside the text; four copies are accepted.
TEST(Parser, WrittenOutSizeIsBounded) {
  std::string sum = "a0";
  for (int i = 1; i < 1000; ++i) sum += " + a" + std::to_string(i);
  auto minOf = [&](int copies) {
    std::string text = "min(" + sum;
    for (int i = 1; i < copies; ++i) text += ", " + sum + " + " + std::to_string(i) + "*b";
    return text + ")";
  };
  Expr four = parseExpr(minOf(4));
  EXPECT_LE(four->treeSize, kMaxTreeSize);
  std::string five = minOf(5);
  try {
    (void)parseExpr(five);
    ADD_FAILURE() << "five copies were accepted";
  } catch (const SyntaxError &err) {
    EXPECT_NE(err.message().find("written out it has more than"), std::string::npos) << err.message();
    EXPECT_GT(err.position(), 0u);
    EXPECT_LE(err.position(), five.size());
  }
}

namespace {
/// What a parse gives: the value printed, or the error's position and message.
std::string outcome(const std::string &text, bool reuseGroups, std::size_t *groupsReused = nullptr) {
  ParseOptions options;
  options.reuseGroups = reuseGroups;
  options.groupsReused = groupsReused;
  try {
    auto v = parseExprOrPred(text, options);
    if (auto *e = std::get_if<Expr>(&v)) return "expression " + e->toString();
    return "predicate " + std::get<Pred>(v).toString();
  } catch (const SyntaxError &e) {
    return "error at " + std::to_string(e.position()) + ": " + e.message();
  }
}
} // namespace

// The parser reads a group whose bytes repeat an earlier group's once (the printed form of a
// DAG repeats every shared node). That must change nothing: on texts full of repeated groups,
// and on the same texts with one byte changed, reading every group in full gives the same
// value, or the same error at the same position.
TEST(Parser, ReusingRepeatedGroupsChangesNothing) {
  oracle::GenOptions o;
  o.products = true;
  bool ok = rc::check("reusing groups changes no outcome", [o] {
    std::string a = oracle::show(*oracle::genExpr(3, o));
    std::string b = oracle::show(*oracle::genExpr(2, o));
    std::string p = oracle::show(*oracle::genPred(1, o));
    std::string text = "(" + a + ") * (" + b + ") + min((" + a + "), " + b + ") - (" + a +
                       ") // 2 + max(" + a + ", (" + b + ")) + ((" + a + ") if (" + p + ") else (" + b + ")) - max  (" +
                       a + ", (" + b + ")) * max  (" + a + ", (" + b + "))";
    while (text.size() < 300) text = "(" + text + ") - (" + a + ")";
    std::size_t reused = 0, reusedInFull = 0;
    RC_ASSERT(outcome(text, true, &reused) == outcome(text, false, &reusedInFull));
    RC_ASSERT(reused > 0u); // `(a)` recurs: the property is about texts whose groups are reused
    RC_ASSERT(reusedInFull == 0u);
    std::size_t at = *rc::gen::inRange<std::size_t>(0, text.size());
    char c = *rc::gen::elementOf(std::string("()+-*/%,<>=n1 "));
    std::string changed = text;
    changed[at] = c;
    RC_ASSERT(outcome(changed, true) == outcome(changed, false));
  });
  EXPECT_TRUE(ok);
  // Near the nesting bound: groups inside groups, reused at random depths.
  ok = rc::check("reusing groups keeps the nesting bound", [] {
    auto wrap = [](const std::string &s, int k) { return std::string(k, '(') + s + std::string(k, ')'); };
    for (int i = 0; i < 4; ++i) { // four texts per case: the depths that matter are a narrow band
      std::string g = wrap("n + 1", *rc::gen::inRange(30, 70));
      std::string h = wrap("(" + g + ") * 2", *rc::gen::inRange(0, 30));
      std::string text = g + " + " + h + " - " + wrap(h, *rc::gen::inRange(0, 40)) + " - " +
                         wrap(g, *rc::gen::inRange(0, 40)) + std::string(256, ' ');
      RC_ASSERT(outcome(text, true) == outcome(text, false));
    }
  });
  EXPECT_TRUE(ok);
}

// A reused group still counts its nesting where it recurs: the second `g` below stands 30
// levels deeper than the first and passes the bound, which a full read reports.
TEST(Parser, AReusedGroupStillCountsItsNesting) {
  std::string g = std::string(40, '(') + "n + 1" + std::string(40, ')');
  std::string text = g + " * " + std::string(30, '(') + g + std::string(30, ')') + std::string(64, ' ');
  ASSERT_GE(text.size(), 256u); // long enough for groups to be reused
  EXPECT_NO_THROW(parseExpr(g + " * " + g + std::string(200, ' ')));
  std::string reused = outcome(text, true);
  EXPECT_NE(reused.find("nested too deeply"), std::string::npos) << reused;
  EXPECT_EQ(reused, outcome(text, false));
  // A group that was itself read by reusing an inner group counts the inner group's depth:
  // `h` holds `g` (reused there), and the last `h` stands deep enough to pass the bound.
  std::string h = "(" + g + " * 2)";
  std::string nested = g + " + " + h + " + " + std::string(30, '(') + h + std::string(30, ')');
  std::string nestedReused = outcome(nested, true);
  EXPECT_NE(nestedReused.find("nested too deeply"), std::string::npos) << nestedReused;
  EXPECT_EQ(nestedReused, outcome(nested, false));
}

// The case groups are reused for: a DAG whose printed form is a large tree of repeated groups
// (each step below doubles it, up to the written-out bound) reads back as the same node.
TEST(Parser, APrintedDagReadsBackAsItself) {
  Expr e = parseExpr("n + m");
  while (2 * e->treeSize + 8 <= kMaxTreeSize) e = min(e, Expr(1)) + min(e, Expr(2));
  std::string printed = e.toString();
  EXPECT_GT(printed.size(), 10000u) << printed.size();
  EXPECT_EQ(parseExpr(printed), e);
}

// A run of `*` reads as the left fold with operator* over its factors read one by one: the
// fold's node, or the fold's error at the `*` where the fold raises it (a guard for any faster
// way of reading products). Factors: 0 and 1, constants past int64 (and 2**16000, whose fifth
// power is past the coefficient limit), atoms (a partial one among them), powers up to the
// degree limit, single terms, sums, and large atoms (a few of them are past the written-size
// limit).
TEST(Parser, AProductIsTheFoldOfItsFactors) {
  auto wide = [](int v) { // an atom of thousands of nodes written out
    std::string w = "max(n + " + std::to_string(v);
    for (int i = 1; i < 400; ++i) w += ", (n + " + std::to_string(i) + "*m) // " + std::to_string(i + 1);
    return w + ")";
  };
  const std::vector<std::string> factors = {
      "0", "1", "-1", "2", "3", "1000003", "2**40", "2**62", "-(2**63)", "2**16000", "n", "m", "k",
      "n // 2", "n / 3", "min(n, 3)", "(m if n > 1 else 2)", "n**20", "m**33", "k**40", "3*n**2",
      "(-5*m*k)", "(n + 1)", "(n - m)", wide(0)};
  // Each limit needs several factors of a kind: a case draws from all of them, or from those
  // that reach one limit (the coefficient's, the written size's, the degree's).
  const std::vector<std::vector<std::string>> pools = {
      factors, {"2**16000", "2**16000", "n", "3*n**2"}, {wide(1), wide(2), wide(3), wide(4), "n"}, {"k**40", "n**20", "m**33", "n"}};
  bool ok = rc::check("f1*f2*...*fk reads as ((f1*f2)*...)*fk", [&] {
    const std::vector<std::string> &pool = pools[*rc::gen::inRange<std::size_t>(0, pools.size())];
    const std::size_t k = *rc::gen::inRange<std::size_t>(1, 8);
    std::string text;
    std::vector<std::size_t> stars; // where each `*` is
    std::vector<Expr> read;
    for (std::size_t i = 0; i < k; ++i) {
      const std::string &f = pool[*rc::gen::inRange<std::size_t>(0, pool.size())];
      if (i) {
        stars.push_back(text.size() + 1);
        text += " * ";
      }
      text += "(" + f + ")";
      read.push_back(parseExpr(f));
    }
    std::optional<Expr> want;
    std::string wantError;
    std::size_t wantPosition = 0;
    try {
      Expr r = read[0];
      for (std::size_t i = 1; i < k; ++i) {
        wantPosition = stars[i - 1];
        r = r * read[i];
      }
      want = r;
    } catch (const UserError &e) {
      wantError = e.what();
    }
    RC_TAG(want ? "a product" : wantError.substr(0, 40));
    try {
      Expr got = parseExpr(text);
      RC_ASSERT(want.has_value());
      RC_ASSERT(got == *want);
    } catch (const SyntaxError &e) {
      RC_LOG() << text.substr(0, 200) << ": " << e.what() << " | fold: " << wantError << "\n";
      RC_ASSERT(!want.has_value());
      RC_ASSERT(e.message() == wantError);
      RC_ASSERT(e.position() == wantPosition);
    }
  });
  EXPECT_TRUE(ok);
}

// Issue 65: every text refused for its size says so (SyntaxError::tooLarge, which the CLI
// reports as input too large and Python raises as InputTooLarge), with its caret; a grammar
// error never does. Over texts of growing size: each is read, or refused as too large.
TEST(Parser, TextsRefusedForTheirSizeAreTooLargeAndNoOthers) {
  auto refusal = [](const std::string &text) -> std::optional<SyntaxError> {
    try {
      (void)parsePred(text);
    } catch (const SyntaxError &e) {
      return e;
    }
    return std::nullopt;
  };
  const std::vector<std::string> tooLarge = {
      "(W + 3**702)**52 == 1", "(a+b+c+d+e+f)**12 == 0", "2 ** 100000 + 1 == n", "n ** 65 == 1",
      std::string(300, '(') + "n" + std::string(300, ')') + " == 1", "n == 1" + std::string(kMaxTextBytes, ' ')};
  for (const std::string &t : tooLarge) {
    std::optional<SyntaxError> e = refusal(t);
    ASSERT_TRUE(e) << t.substr(0, 60);
    EXPECT_TRUE(e->tooLarge()) << e->message();
  }
  for (const std::string &t : {"n + * 2 == 1", "n // m == 1", "n ** m == 1", "(n == 1"}) {
    std::optional<SyntaxError> e = refusal(t);
    ASSERT_TRUE(e) << t;
    EXPECT_FALSE(e->tooLarge()) << e->message();
  }
  // Powers of sums of growing width and exponent: read, or refused as too large.
  for (int width = 1; width <= 8; ++width)
    for (int exponent = 1; exponent <= 64; exponent *= 2) {
      std::string sum;
      for (int i = 0; i < width; ++i) sum += (i ? " + x" : "x") + std::to_string(i);
      const std::string text = "(" + sum + " + 3**700)**" + std::to_string(exponent) + " == 1";
      if (std::optional<SyntaxError> e = refusal(text)) EXPECT_TRUE(e->tooLarge()) << text << ": " << e->message();
    }
}
