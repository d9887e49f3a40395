// The expression parser (lang/Parser.cpp): its recursion is bounded, so no text can run the
// stack out; statements nested past 200 levels are refused with one message naming where.
#include <gtest/gtest.h>

#include <rapidcheck/gtest.h>

#include "lang/Session.h"
#include "symbolic/Solver.h"

using namespace shapelab;

namespace {
/// Every construct that nests: brackets, a call, indexing, unary operators, `not`, `**`; each
/// with what opens it and what closes it.
struct Nesting {
  const char *open, *close;
};
constexpr Nesting kNestings[] = {{"(", ")"},     {"[", "]"},        {"np.abs(", ")"}, {"x[", "]"},
                                 {"-", ""},      {"~", ""},         {"+", ""},        {"2 ** ", ""},
                                 {"not ", ""},   {"(n + ", ")"},    {"max(0, ", ")"}};
} // namespace

// A statement nested to a random depth in random constructs (up to 3,000 levels, past any
// stack a level could take): the session replies; past 200 levels (the statement's expression is
// the first, so 200 brackets are too many, as in Python) it refuses with the message,
// within it any reply is the construct's own (never the nesting message).
RC_GTEST_PROP(LangParser, NestingIsBoundedNeverACrash, ()) {
  const auto depth = *rc::gen::inRange<std::size_t>(0, 3000);
  const auto kinds = *rc::gen::container<std::vector<std::size_t>>(depth, rc::gen::inRange<std::size_t>(0, std::size(kNestings)));
  std::string text = "y = ", tail;
  bool operand = false; // after a unary or binary operator, where Python takes no `not`
  for (std::size_t k : kinds) {
    if (operand && std::string(kNestings[k].open) == "not ") k = 0;
    operand = *kNestings[k].close == 0 || std::string(kNestings[k].open) == "(n + ";
    text += kNestings[k].open;
    tail = kNestings[k].close + tail;
  }
  text += "1" + tail;
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_FALSE(session.execute("param n; x = input((n,), int64)", 1).failed);
  const lang::Reply r = session.execute(text, 2);
  const bool refused = r.failed && r.lines().at(0).find("nested too deeply (more than 200 levels)") != std::string::npos;
  RC_ASSERT(refused == (depth + 1 > 200)); // (the statement's expression is the first level)
}

// Exactly at the limit: 199 brackets are read, 201 are refused.
TEST(LangParser, TwoHundredLevelsAreTheLimit) {
  Solver solver;
  lang::Session session(solver, {});
  auto nested = [](std::size_t d) { return "y = " + std::string(d, '(') + "1" + std::string(d, ')'); };
  const lang::Reply ok = session.execute(nested(199), 1);
  EXPECT_FALSE(ok.failed) << ok.lines().at(0);
  const lang::Reply refused = session.execute(nested(201), 2);
  ASSERT_TRUE(refused.failed);
  EXPECT_EQ(refused.lines().at(0).rfind("error: the expression is nested too deeply (more than 200 levels) at column 205", 0), 0u)
      << refused.lines().at(0);
}
