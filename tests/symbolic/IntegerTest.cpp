// Integer against GMP (the oracle) around ±2^63 and far beyond.
#include <gmp.h>
#include <gtest/gtest.h>
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
    }
    if (a == b) RC_ASSERT(a.hash() == b.hash());
    RC_ASSERT(Integer::parse(a.toString()) == a);
  });
  EXPECT_TRUE(ok);
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
