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

// Item assignment (`x[idx] = v`, `x[idx] op= v`), in-place operators and ufunc.at rebind the
// name to the array written; what read the old array keeps it. Values as NumPy gives them.
TEST(Statements, ItemAssignmentRebindsTheNameAndKeepsTheOldArrayForItsReaders) {
  Solver solver;
  lang::Session s(solver, {});
  s.execute("param n, m", 1);
  s.execute("x = input((n,), float64)", 2);
  s.execute("y = x * 2.0", 3);
  EXPECT_EQ(joined(s.execute("x[0] = 5.0", 4)), "x: (n,) float64, runtime-check: n >= 1\n");
  EXPECT_EQ(joined(s.execute(":eval y with n=2, x=[1.0, 2.0]", 5)), "y = [2.0, 4.0]  (float64, shape (2,))\n");
  EXPECT_EQ(joined(s.execute(":eval x with n=2, x=[1.0, 2.0]", 6)), "x = [5.0, 2.0]  (float64, shape (2,))\n");
  // `k[k] += 1` gathers, adds and scatters: a repeated index is written once (the last write).
  s.execute("k = input((n,), int64)", 7);
  s.execute("j = k", 8);
  s.execute("k[k] += 1", 9);
  EXPECT_EQ(joined(s.execute(":eval k with n=3, k=[0, 0, 2]", 10)), "k = [1, 0, 3]  (int64, shape (3,))\n");
  // np.add.at accumulates.
  s.execute("np.add.at(j, j, 1)", 11);
  EXPECT_EQ(joined(s.execute(":eval j with n=3, k=[0, 0, 2]", 12)), "j = [2, 0, 3]  (int64, shape (3,))\n");
  // A slice with a step, and an in-place operator of a name.
  s.execute("pe = zeros((n, m))", 13);
  s.execute("pe[:, 0::2] = 1.0", 14);
  s.execute("pe *= 3", 15);
  EXPECT_EQ(joined(s.execute(":eval pe with n=1, m=3", 16)), "pe = [[3.0, 0.0, 3.0]]  (float64, shape (1, 3))\n");
}

TEST(Statements, InPlaceOperatorsFollowNumPysCastingAndShapeRules) {
  Solver solver;
  lang::Session s(solver, {});
  s.execute("param n, m", 1);
  s.execute("k = input((n,), int64)", 2);
  s.execute("x = input((n, m), float64)", 3);
  auto error = [&](const std::string &line) {
    lang::Reply r = s.execute(line, 4);
    return r.failed ? r.lines().front() : std::string("(no error)");
  };
  EXPECT_NE(error("k /= 2").find("Cannot cast ufunc 'divide' output from dtype('float64') to dtype('int64') with casting "
                                 "rule 'same_kind'"),
            std::string::npos);
  EXPECT_NE(error("x @= x").find("In-place matrix multiplication is not (yet) supported"), std::string::npos);
  EXPECT_NE(error("k += x").find("non-broadcastable output operand"), std::string::npos);
  EXPECT_NE(error("z = np.add.at(k, k, 1)").find("returns None"), std::string::npos);
  EXPECT_NE(error("np.add.at(k, k, 1) + 1").find("returns None"), std::string::npos);
  // Its array given by keyword rebinds that name too (it crashed: the binder read a positional
  // argument that was not there).
  s.execute("j = input((n,), int64)", 5);
  EXPECT_EQ(error("np.put_along_axis(arr=k, indices=j, values=0, axis=0)"), "(no error)");
  // The broadcast a name takes in place is one way: x (n, m) += a (m,) is valid, k (n,) += x is not.
  s.execute("a = input((m,), float64)", 5);
  EXPECT_EQ(joined(s.execute("x += a", 6)), "x: (n, m) float64, valid\n");
  // A Python number rebinds as in Python.
  s.execute("eps = 1e-5", 7);
  EXPECT_EQ(joined(s.execute("eps *= 2", 8)), "eps: 2e-05\n");
}

// Several index arrays broadcast together; with a slice, None or `...` between the array and
// integer entries their axes go first (NumPy's rule; an ellipsis separates even where it stands
// for no axis).
TEST(Statements, SeveralIndexArraysTakeNumPysAxisPlacement) {
  Solver solver;
  lang::Session s(solver, {});
  s.execute("param n, m, b", 1);
  s.execute("q = input((n, m, 4), float64)", 2);
  s.execute("k = input((b,), int64)", 3);
  auto shape = [&](const std::string &line) {
    std::string r = joined(s.execute(line, 4));
    return r.substr(0, r.find(" float64"));
  };
  EXPECT_EQ(shape("w = q[k, k]"), "w: (b, 4)");
  EXPECT_EQ(shape("w = q[k[:, None], k]"), "w: (b, b, 4)");
  EXPECT_EQ(shape("w = q[:, k, 0]"), "w: (n, b)");
  EXPECT_EQ(shape("w = q[k, :, k]"), "w: (b, m)");
  EXPECT_EQ(shape("w = q[:, k, ..., 0]"), "w: (b, n)");
  EXPECT_EQ(shape("w = q[k, None, k]"), "w: (b, 1, 4)");
  EXPECT_EQ(shape("w = np.take_along_axis(q, np.argmax(q, axis=1, keepdims=True), axis=1)"), "w: (n, 1, 4)");
  s.execute("mask = input((n, m), bool)", 5);
  lang::Reply r = s.execute("w = q[mask, k]", 6);
  ASSERT_TRUE(r.failed);
  EXPECT_NE(r.lines().front().find("boolean index together with another index array"), std::string::npos);
}

// reshape's -1 by exact polynomial division, and through an assumed equality that defines a
// parameter (the heads of attention: d == h*q).
TEST(Statements, AnInferredReshapeDimensionDividesPolynomiallyAndUnderAssumedEqualities) {
  Solver solver;
  lang::Session s(solver, {});
  s.execute("param b, t, d, h, q, n", 1);
  s.execute("assume d == h*q", 2);
  s.execute("x = input((b, t, d), float64)", 3);
  std::string r = joined(s.execute("k = x.reshape(b, t, h, -1)", 4));
  EXPECT_EQ(r.substr(0, r.find('\n')), "k: (b, t, h, q) float64, runtime-check: b*h*t >= 1"); // NumPy: -1 beside a 0
  s.execute("y = input((2*n**2 + 2*n,), float64)", 5);
  EXPECT_EQ(joined(s.execute("w = y.reshape(n + 1, -1)", 6)), "w: (n + 1, 2*n) float64, valid\n");
  EXPECT_EQ(joined(s.execute(":eval w with n=1, y=[1.0, 2.0, 3.0, 4.0]", 7)), "w = [[1.0, 2.0],\n     [3.0, 4.0]]  (float64, shape (2, 2))\n");
}
