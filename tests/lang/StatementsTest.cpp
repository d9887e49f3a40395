// Statements (lang/Statements.cpp): what an assignment replies — its shape, status and limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <rapidcheck/gtest.h>

#include "lang/Session.h"
#include "symbolic/Solver.h"

using namespace shapelab;

namespace {
std::string joined(const lang::Reply &r) {
  std::string out;
  for (const std::string &l : r.lines()) out += l + "\n";
  return out;
}
/// A reply's first line without its shape (`z: (SHAPE) float64, valid` gives `float64, valid`),
/// its checks sorted: swapped operands may write the same shape differently (`m if n == 1 else
/// n`, `n if m == 1 else m`) and list the same checks in another order.
std::string statusOf(std::string reply) {
  reply = reply.substr(0, reply.find('\n'));
  for (const char *dtype : {") float64, ", ") bool, "})
    if (std::size_t at = reply.find(dtype); reply.rfind("z: (", 0) == 0 && at != std::string::npos) reply = reply.substr(at + 2);
  const std::size_t colon = reply.find(": ");
  if (colon == std::string::npos) return reply;
  std::vector<std::string> checks;
  for (std::size_t from = colon + 2, to; from <= reply.size(); from = to + 2) {
    to = std::min(reply.find("; ", from), reply.size());
    checks.push_back(reply.substr(from, to - from));
  }
  std::sort(checks.begin(), checks.end());
  std::string out = reply.substr(0, colon + 2);
  for (const std::string &c : checks) out += c + "; ";
  return out;
}
} // namespace

// The same requirement reached from several ops is one requirement whatever the order the ops
// are met in: a commutative op replies the same status, checks and limits with its operands
// swapped. (A limit of a computed
// array that an input of the same sizes implies was kept or dropped by the operands' order.)
RC_GTEST_PROP(Statements, ACommutativeOpRepliesAlikeWithItsOperandsSwapped, ()) {
  static const char *dims[] = {"1", "n", "m", "2", "n + 1"};
  auto shape = [&] {
    const std::size_t rank = *rc::gen::inRange<std::size_t>(0, 3);
    std::string s = "(";
    for (std::size_t i = 0; i < rank; ++i) s += std::string(dims[*rc::gen::inRange<std::size_t>(0, 5)]) + (rank == 1 ? "," : i + 1 < rank ? ", " : "");
    return s + ")";
  };
  // Three inputs, and operands that are inputs or computed from them (a broadcast, a sum).
  const std::string a = shape(), b = shape(), c = shape();
  static const char *forms[] = {"x", "y", "w", "x + y", "y * w", "x[..., None] - w"};
  const std::string p = forms[*rc::gen::inRange<std::size_t>(0, 6)], q = forms[*rc::gen::inRange<std::size_t>(0, 6)];
  const char *op = *rc::gen::element("+", "*", "==", "maximum");
  auto statement = [&](const std::string &l, const std::string &r) {
    return std::string(op)[0] >= 'a' ? "z = " + std::string(op) + "(" + l + ", " + r + ")" : "z = (" + l + ") " + op + " (" + r + ")";
  };
  Solver solver;
  std::string replies[2];
  for (int order = 0; order < 2; ++order) {
    lang::Session s(solver, {});
    s.execute("param n, m", 1);
    s.execute("x = input(" + a + ", float64)", 2);
    s.execute("y = input(" + b + ", float64)", 3);
    s.execute("w = input(" + c + ", float64)", 4);
    replies[order] = statusOf(joined(s.execute(order == 0 ? statement(p, q) : statement(q, p), 5)));
  }
  RC_LOG() << "x: " << a << ", y: " << b << ", w: " << c << "; " << statement(p, q) << "\n";
  RC_TAG(replies[0].find("error") == std::string::npos ? "built" : "refused");
  RC_ASSERT(replies[0] == replies[1]);
}

TEST(Statements, AComputedArrayKeepsItsLimitAnInputOfItsSizesDropsIt) {
  Solver solver;
  lang::Session s(solver, {});
  s.execute("param n, m", 1);
  s.execute("i = expand_dims(arange(n), 1)", 2);
  s.execute("j = expand_dims(arange(m), 0)", 3);
  // i >= j is an (n, m) array computed here: it must fit.
  EXPECT_EQ(joined(s.execute("k = i >= j", 4)), "k: (n, m) bool, valid\n  limits: m*n <= 9223372036854775807\n");
  // With an input of those sizes, it does (in either order).
  s.execute("x = input((n, m), float64)", 5);
  EXPECT_EQ(joined(s.execute("z = k + x", 6)), "z: (n, m) float64, valid\n");
  EXPECT_EQ(joined(s.execute("z = x + k", 7)), "z: (n, m) float64, valid\n");
  EXPECT_EQ(joined(s.execute("z = np.where(k, x, 0.0)", 8)), "z: (n, m) float64, valid\n");
}
