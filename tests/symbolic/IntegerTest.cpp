// Integer against GMP (the oracle) around ±2^63 and far beyond.
#include <gmp.h>
#include <gtest/gtest.h>
#include <optional>
#include <thread>
#include <vector>
#include <rapidcheck/gtest.h>
#include <rapidcheck.h>

#include "symbolic/Errors.h"
#include "symbolic/Integer.h"

using shapelab::Integer;

namespace {

struct Z {
  mpz_t v;
  Z() { mpz_init(v); }
  explicit Z(const std::string &s) { mpz_init_set_str(v, s.c_str(), 10); }
  ~Z() { mpz_clear(v); }
  std::string str() const {
    char *c = mpz_get_str(nullptr, 10, v);
    std::string s(c);
    free(c);
    return s;
  }
};

// Values clustered where the int64 fast path switches to GMP, plus huge ones.
rc::Gen<std::string> interestingDecimal() {
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::arbitrary<int64_t>(), [](int64_t x) { return std::to_string(x); }),
      rc::gen::map(rc::gen::inRange<int64_t>(-5, 6),
                   [](int64_t d) {
                     Z z("9223372036854775807");
                     if (d >= 0) mpz_add_ui(z.v, z.v, d); else mpz_sub_ui(z.v, z.v, -d);
                     return z.str();
                   }),
      rc::gen::map(rc::gen::inRange<int64_t>(-5, 6),
                   [](int64_t d) {
                     Z z("-9223372036854775808");
                     if (d >= 0) mpz_add_ui(z.v, z.v, d); else mpz_sub_ui(z.v, z.v, -d);
                     return z.str();
                   }),
      rc::gen::map(rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 10)),
                   [](const std::vector<int> &digits) {
                     std::string s = "1";
                     for (int d : digits) s += char('0' + d);
                     return s;
                   }),
      rc::gen::map(rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 10)),
                   [](const std::vector<int> &digits) {
                     std::string s = "-7";
                     for (int d : digits) s += char('0' + d);
                     return s;
                   }));
}

} // namespace

TEST(Integer, SmallArithmeticAndPythonDivision) {
  EXPECT_EQ(Integer::floorDiv(-7, 2), Integer(-4));
  EXPECT_EQ(Integer::floorMod(-7, 2), Integer(1));
  EXPECT_EQ(Integer::floorDiv(7, -2), Integer(-4));
  EXPECT_EQ(Integer::floorMod(7, -2), Integer(-1));
  EXPECT_EQ(Integer(INT64_MAX) + 1, Integer::parse("9223372036854775808"));
  EXPECT_FALSE((Integer(INT64_MAX) + 1).fitsInt64());
  EXPECT_TRUE((Integer(INT64_MAX) + 1 - 1).fitsInt64());
  EXPECT_EQ(-Integer(INT64_MIN), Integer::parse("9223372036854775808"));
  EXPECT_EQ(Integer::floorDiv(INT64_MIN, -1), Integer::parse("9223372036854775808"));
  EXPECT_EQ(Integer::truncDivRem(-7, 2), std::make_pair(Integer(-3), Integer(-1)));
  EXPECT_EQ(Integer::truncDivRem(7, -2), std::make_pair(Integer(-3), Integer(1)));
  EXPECT_EQ(Integer::truncDivRem(INT64_MIN, -1), std::make_pair(Integer::parse("9223372036854775808"), Integer(0)));
  EXPECT_THROW(Integer::truncDivRem(1, 0), shapelab::UserError);
  EXPECT_EQ(Integer::pow(2, 100).toString(), "1267650600228229401496703205376");
}

TEST(Integer, CheckedConversionRefusesOverflow) {
  EXPECT_EQ(Integer(42).toInt64Checked(), 42);
  EXPECT_THROW((Integer(INT64_MAX) + 1).toInt64Checked(), shapelab::OverflowError);
  EXPECT_FALSE(Integer::tryParse("12a").has_value());
  EXPECT_FALSE(Integer::tryParse("").has_value());
  EXPECT_FALSE(Integer::tryParse("-").has_value());
  EXPECT_THROW(Integer::floorDiv(1, 0), shapelab::UserError);
}

TEST(Integer, AgreesWithGmp) {
  bool ok = rc::check("Integer +,-,*,//,%,compare agree with GMP", [] {
    std::string as = *interestingDecimal(), bs = *interestingDecimal();
    Integer a = Integer::parse(as), b = Integer::parse(bs);
    Z za(as), zb(bs), r;
    RC_ASSERT(a.toString() == za.str());
    mpz_add(r.v, za.v, zb.v);
    RC_ASSERT((a + b).toString() == r.str());
    mpz_sub(r.v, za.v, zb.v);
    RC_ASSERT((a - b).toString() == r.str());
    mpz_mul(r.v, za.v, zb.v);
    RC_ASSERT((a * b).toString() == r.str());
    RC_ASSERT(compare(a, b) == (mpz_cmp(za.v, zb.v) > 0) - (mpz_cmp(za.v, zb.v) < 0));
    RC_ASSERT((a == b) == (mpz_cmp(za.v, zb.v) == 0));
    RC_ASSERT(a.fitsInt64() == (mpz_fits_slong_p(za.v) != 0));
    if (mpz_sgn(zb.v) != 0) {
      mpz_fdiv_q(r.v, za.v, zb.v);
      RC_ASSERT(Integer::floorDiv(a, b).toString() == r.str());
      mpz_fdiv_r(r.v, za.v, zb.v);
      RC_ASSERT(Integer::floorMod(a, b).toString() == r.str());
      Z rem;
      mpz_tdiv_qr(r.v, rem.v, za.v, zb.v);
      auto [q, m] = Integer::truncDivRem(a, b);
      RC_ASSERT(q.toString() == r.str() && m.toString() == rem.str());
      RC_ASSERT(q.fitsInt64() == (mpz_fits_slong_p(r.v) != 0) && m.fitsInt64() == (mpz_fits_slong_p(rem.v) != 0));
    }
    if (a == b) RC_ASSERT(a.hash() == b.hash());
    RC_ASSERT(Integer::parse(a.toString()) == a);
    mpz_neg(r.v, za.v);
    RC_ASSERT((-a).toString() == r.str());
    const uint32_t e = *rc::gen::inRange<uint32_t>(0, 6);
    mpz_pow_ui(r.v, za.v, e);
    RC_ASSERT(Integer::pow(a, e).toString() == r.str());
    // A result that is an operand's own storage (a - 0, a * 1, a // 1) is a value of its own.
    RC_ASSERT((a * Integer(1)).toString() == za.str() && (a - Integer(0)) == a && Integer::floorDiv(a, 1) == a);
    mpz_gcd(r.v, za.v, zb.v);
    RC_ASSERT(Integer::gcd(a, b).toString() == r.str());
    // Common factors, so that the gcd is not almost always 1.
    const int64_t k = *rc::gen::element<int64_t>(1, 2, 6, 1024, int64_t(1) << 40);
    Integer ak = a * Integer(k), bk = b * Integer(k);
    Z zak(ak.toString()), zbk(bk.toString());
    mpz_gcd(r.v, zak.v, zbk.v);
    RC_ASSERT(Integer::gcd(ak, bk).toString() == r.str());
  });
  EXPECT_TRUE(ok);
}

// Decimal texts of every length around the int64 boundary, leading zeros and signs included,
// read as GMP reads them (short texts take a path without GMP).
RC_GTEST_PROP(Integer, ParsesDecimalsAsGmpDoes, ()) {
  const std::size_t length = *rc::gen::inRange<std::size_t>(0, 26);
  // Leading digits often 9 or 0: the texts that just overflow int64, and the padded ones.
  const auto digits = *rc::gen::container<std::vector<int>>(
      length, rc::gen::weightedOneOf<int>({{2, rc::gen::element(0, 9)}, {3, rc::gen::inRange(0, 10)}}));
  const bool negative = *rc::gen::arbitrary<bool>();
  std::string text = negative ? "-" : "";
  for (int d : digits) text += char('0' + d);
  std::optional<Integer> read = Integer::tryParse(text);
  RC_ASSERT(read.has_value() == !digits.empty());
  if (!read) return;
  Z z(text);
  RC_ASSERT(read->toString() == z.str());
  RC_ASSERT(read->fitsInt64() == (mpz_fits_slong_p(z.v) != 0));
}

TEST(Integer, GcdAndParsingAtTheEdgesOfInt64) {
  const Integer two63 = Integer::parse("9223372036854775808");
  EXPECT_EQ(Integer::gcd(INT64_MIN, 0), two63);
  EXPECT_EQ(Integer::gcd(INT64_MIN, INT64_MIN), two63);
  EXPECT_EQ(Integer::gcd(0, INT64_MIN), two63);
  EXPECT_EQ(Integer::gcd(INT64_MIN, INT64_MAX), Integer(1));
  EXPECT_EQ(Integer::gcd(INT64_MIN, int64_t(1) << 62), Integer(int64_t(1) << 62));
  EXPECT_EQ(Integer::gcd(-12, 18), Integer(6));
  EXPECT_EQ(Integer::gcd(0, 0), Integer(0));
  EXPECT_EQ(Integer::parse("-000000000000000000000007"), Integer(-7));
  EXPECT_EQ(Integer::parse("999999999999999999"), Integer(999999999999999999));
  for (const char *text : {"9223372036854775807", "9223372036854775808", "9999999999999999999",
                           "-9223372036854775808", "-9223372036854775809", "-9999999999999999999",
                           "00009223372036854775808", "-0009223372036854775809", "0000000000000000000"}) {
    Z z(text);
    EXPECT_EQ(Integer::parse(text).toString(), z.str()) << text;
    EXPECT_EQ(Integer::parse(text).fitsInt64(), mpz_fits_slong_p(z.v) != 0) << text;
  }
}

// pow's machine-integer path (taken while the result fits in int64) agrees with repeated exact
// multiplication, across the overflow boundary and for negative bases.
RC_GTEST_PROP(Integer, PowMatchesRepeatedMultiplication, ()) {
  const int64_t base = *rc::gen::oneOf(rc::gen::inRange<int64_t>(-20, 21), rc::gen::arbitrary<int64_t>(),
                                       rc::gen::element<int64_t>(3037000499, 3037000500, -3037000500, 2147483648,
                                                                 INT64_MIN, INT64_MAX));
  const uint32_t exponent = *rc::gen::inRange<uint32_t>(0, 70);
  Integer want(1);
  for (uint32_t i = 0; i < exponent; ++i) want = want * Integer(base);
  RC_ASSERT(Integer::pow(Integer(base), exponent) == want);
}

// ProductSum (a sum of products built in place: 128-bit while it fits, then GMP) is the sum of
// the products made one by one, across both overflows (a product past int64, the sum past
// 128 bits) and for big operands; take() starts the sum again from 0.
RC_GTEST_PROP(Integer, ProductSumIsTheSumOfTheProducts, ()) {
  const auto operand = rc::gen::oneOf(
      rc::gen::map(rc::gen::inRange<int64_t>(-20, 21), [](int64_t v) { return Integer(v); }),
      rc::gen::map(rc::gen::arbitrary<int64_t>(), [](int64_t v) { return Integer(v); }),
      rc::gen::map(rc::gen::element<int64_t>(INT64_MIN, INT64_MAX, -INT64_MAX, 3037000500),
                   [](int64_t v) { return Integer(v); }),
      rc::gen::map(rc::gen::inRange<uint32_t>(63, 200), [](uint32_t k) { return Integer::pow(Integer(-3), k); }));
  shapelab::ProductSum sum;
  for (int round = 0; round < 2; ++round) {
    const int n = *rc::gen::inRange(0, 12);
    Integer want(0);
    for (int i = 0; i < n; ++i) {
      const Integer a = *operand, b = *operand;
      want = want + a * b;
      sum.add(a, b);
    }
    const Integer got = sum.take();
    RC_ASSERT(got == want);
    RC_ASSERT(got.fitsInt64() == want.fitsInt64()); // the one form of each value
  }
}

// A big value is one block shared by its copies, across threads too, and each thread computes
// into numbers of its own: threads working from the same big values at once get what one
// thread gets alone.
TEST(Integer, ThreadsShareBigValuesAndComputeApart) {
  const Integer base = Integer::parse("123456789012345678901234567890");
  auto work = [&base](int seed) {
    std::vector<Integer> out;
    Integer x = base + Integer(seed);
    for (int i = 0; i < 3000; ++i) {
      const Integer shared = base; // a copy of the value all threads read
      auto [q, r] = Integer::truncDivRem(x * x + Integer::gcd(x, shared), shared);
      x = shared + Integer::floorMod(q - r, shared); // stays within [base, 2*base)
      out.push_back(x);
    }
    return out;
  };
  std::vector<std::vector<Integer>> alone, together(4);
  for (int t = 0; t < 4; ++t) alone.push_back(work(t));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { together[t] = work(t); });
  for (auto &th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(together[t], alone[t]) << t;
    EXPECT_FALSE(alone[t].back().fitsInt64()) << alone[t].back().toString();
  }
}
