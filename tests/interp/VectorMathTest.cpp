// The optimized interpreter's vector math against 100-digit values (Boost.Multiprecision), at
// every instruction-set width this CPU has: each MathOp within kUlpBound ULP of the exact
// result for finite results, and special values (nan, ±inf, ±0, overflow, underflow to
// subnormals) as C's <cmath> gives them. The exact operations (arith) must give the scalar IEEE
// bits at every width.
//
// The reference is independent of the code under test: Boost's own series and range reduction
// at 100 decimal digits (332 bits), enough for the trigonometric inputs drawn here (|x| <= 1e20
// leaves over 260 bits after reduction).
#include <gtest/gtest.h>

#include <bit>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "interp/simd/VectorMath.h"

using namespace shapelab::interp::simd;
using Big = boost::multiprecision::cpp_bin_float_100;

namespace {

struct Isa {
  const char *name;
  void (*apply)(MathOp, const double *, double *, int64_t);
  void (*arith)(Arith, const double *, const double *, double *, int64_t);
  void (*sincos)(const double *, double *, double *, int64_t);
};

std::vector<Isa> isas() {
  __builtin_cpu_init();
  std::vector<Isa> out = {{"sse2", applySse2, arithSse2, sincosSse2}};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) out.push_back({"avx2", applyAvx2, arithAvx2, sincosAvx2});
  if (__builtin_cpu_supports("avx512f")) out.push_back({"avx512f", applyAvx512, arithAvx512, sincosAvx512});
  return out;
}

struct Function {
  MathOp op;
  const char *name;
  double (*libm)(double);
  Big (*exact)(const Big &);
  double lo, hi; // where the samples are drawn (besides the special values)
};

const std::vector<Function> &functions() {
  using boost::multiprecision::cos;
  using boost::multiprecision::exp;
  using boost::multiprecision::log;
  using boost::multiprecision::sin;
  using boost::multiprecision::tan;
  using boost::multiprecision::tanh;
  static const std::vector<Function> fs = {
      {MathOp::Exp, "exp", [](double x) { return std::exp(x); }, [](const Big &x) -> Big { return exp(x); }, -750, 712},
      {MathOp::Log, "log", [](double x) { return std::log(x); }, [](const Big &x) -> Big { return log(x); }, 0, 1e308},
      // For |x| < 1e-30, 1 + x loses x's digits even at 100 digits: the series instead (the
      // first dropped term is below 1e-120 of the result).
      {MathOp::Log1p, "log1p", [](double x) { return std::log1p(x); },
       [](const Big &x) -> Big { return abs(x) < Big(1e-30) ? x - x * x / 2 + x * x * x / 3 : log(Big(1) + x); }, -1,
       1e308},
      {MathOp::Expm1, "expm1", [](double x) { return std::expm1(x); },
       [](const Big &x) -> Big { return abs(x) < Big(1e-30) ? x + x * x / 2 + x * x * x / 6 : exp(x) - 1; }, -50, 712},
      {MathOp::Sin, "sin", [](double x) { return std::sin(x); }, [](const Big &x) -> Big { return sin(x); }, -1e20, 1e20},
      {MathOp::Cos, "cos", [](double x) { return std::cos(x); }, [](const Big &x) -> Big { return cos(x); }, -1e20, 1e20},
      {MathOp::Tan, "tan", [](double x) { return std::tan(x); }, [](const Big &x) -> Big { return tan(x); }, -1e20, 1e20},
      {MathOp::Tanh, "tanh", [](double x) { return std::tanh(x); }, [](const Big &x) -> Big { return tanh(x); }, -30, 30},
  };
  return fs;
}

/// Inputs: the special values, subnormals, values near 0 and near the edges of the range, and
/// random doubles spread over every binade of [lo, hi] (uniform in the exponent, then the bits).
std::vector<double> samples(const Function &f, std::mt19937_64 &rng, int count) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double tiny = std::numeric_limits<double>::denorm_min(), minNormal = std::numeric_limits<double>::min();
  std::vector<double> xs = {0.0,   -0.0,     inf,  -inf, nan,       -nan,       tiny,      -tiny,   minNormal,
                            -minNormal, 3 * tiny, 1.0, -1.0, 0.5, 1e-300, -1e-300, 2.0, 1e-8, -1e-8, f.lo, f.hi,
                            std::nextafter(f.lo, 0.0), std::nextafter(f.hi, 0.0), 709.782712893384, -708.39641853226408,
                            -745.13321910194111, 0.7853981633974483, 1.5707963267948966, 3.141592653589793};
  std::uniform_int_distribution<int> exponent(-1074, 1023);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  while (int(xs.size()) < count) {
    double x;
    switch (rng() % 3) {
    case 0: // any binade
      x = std::ldexp(mantissa(rng), exponent(rng)) * (rng() % 2 ? 1 : -1);
      break;
    case 1: // uniform over the range
      x = std::uniform_real_distribution<double>(f.lo, f.hi)(rng);
      break;
    default: // small magnitudes, where cancellation lives
      x = std::ldexp(mantissa(rng), int(rng() % 40) - 30) * (rng() % 2 ? 1 : -1);
    }
    if (x >= f.lo && x <= f.hi) xs.push_back(x);
  }
  return xs;
}

/// |got - exact| in units of the spacing of doubles at the exact value's binade (the smaller
/// spacing at a power of two, the strict reading), with subnormal spacing below the normals.
double ulpError(double got, const Big &exact) {
  Big a = abs(exact);
  int e = 0;
  if (a != 0) frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  int spacingExponent = std::max(e - 1, -1022) - 52;
  Big err = abs(Big(got) - exact);
  return std::ldexp(err.convert_to<double>(), -spacingExponent);
}

bool sameSpecial(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

/// Checks `got` (f on xs, computed by `how`) against the exact values: specials and ±0 as <cmath>
/// gives them, everything else within kUlpBound. Prints the worst error measured.
void expectWithinBound(const Function &f, const std::string &how, const std::vector<double> &xs,
                       const std::vector<Big> &exact, const std::vector<double> &got) {
  double worst = 0;
  double worstAt = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    double x = xs[i], want = f.libm(x);
    std::string where = std::string(f.name) + "(" + std::to_string(x) + " = " +
                        std::to_string(std::bit_cast<uint64_t>(x)) + "b) on " + how;
    // Specials, and results at the edges of the double range, as <cmath> gives them.
    bool special = !std::isfinite(x) || !std::isfinite(want) || want == 0 ||
                   (f.op == MathOp::Log && x <= 0) || (f.op == MathOp::Log1p && x <= -1);
    if (special) {
      EXPECT_TRUE(sameSpecial(got[i], want)) << where << ": got " << got[i] << ", <cmath> gives " << want;
      continue;
    }
    if (x == 0) { // ±0 in: the sign of the result matters
      EXPECT_TRUE(sameSpecial(got[i], want)) << where << ": got " << got[i] << ", <cmath> gives " << want;
      continue;
    }
    if (!std::isfinite(got[i])) {
      ADD_FAILURE() << where << ": got " << got[i] << ", want " << want;
      continue;
    }
    double ulps = ulpError(got[i], exact[i]);
    if (ulps > worst) worst = ulps, worstAt = x;
    EXPECT_LE(ulps, kUlpBound) << where << ": got " << got[i] << ", exact " << exact[i].str(25) << " ("
                               << ulps << " ULP)";
  }
  // The figure, for the record (what the bound is measured against).
  std::printf("%-6s %-14s worst %.3f ULP (at %.17g), %zu samples\n", f.name, how.c_str(), worst, worstAt, xs.size());
}

} // namespace

TEST(VectorMath, EveryFunctionWithinItsUlpBoundAtEveryWidth) {
  std::mt19937_64 rng(20261122);
  for (const Function &f : functions()) {
    std::vector<double> xs = samples(f, rng, 1500);
    std::vector<Big> exact(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
      if (std::isfinite(xs[i])) exact[i] = f.exact(Big(xs[i]));
    for (const Isa &isa : isas()) {
      // Odd lengths and offsets exercise the vector loops' tails.
      std::vector<double> got(xs.size());
      isa.apply(f.op, xs.data(), got.data(), int64_t(xs.size()));
      std::vector<double> inPlace = xs; // in == out gives the same bits (the edge fix-up too)
      isa.apply(f.op, inPlace.data(), inPlace.data(), int64_t(xs.size()));
      for (std::size_t i = 0; i < xs.size(); ++i)
        EXPECT_TRUE(std::bit_cast<uint64_t>(inPlace[i]) == std::bit_cast<uint64_t>(got[i]) ||
                    (std::isnan(inPlace[i]) && std::isnan(got[i])))
            << f.name << " in place on " << isa.name << " at " << xs[i];
      expectWithinBound(f, isa.name, xs, exact, got);
      // sin and cos also come from the fused sincos, in place too (its input is the sin output).
      if (f.op == MathOp::Sin || f.op == MathOp::Cos) {
        std::vector<double> sines(xs.size()), cosines(xs.size()), shared = xs;
        isa.sincos(xs.data(), sines.data(), cosines.data(), int64_t(xs.size()));
        expectWithinBound(f, std::string("sincos ") + isa.name, xs, exact, f.op == MathOp::Sin ? sines : cosines);
        std::vector<double> other(xs.size());
        isa.sincos(shared.data(), shared.data(), other.data(), int64_t(xs.size()));
        const std::vector<double> &again = f.op == MathOp::Sin ? shared : other;
        const std::vector<double> &first = f.op == MathOp::Sin ? sines : cosines;
        for (std::size_t i = 0; i < xs.size(); ++i)
          EXPECT_TRUE(std::bit_cast<uint64_t>(again[i]) == std::bit_cast<uint64_t>(first[i]) ||
                      (std::isnan(again[i]) && std::isnan(first[i])))
              << "sincos in place on " << isa.name << " at " << xs[i];
      }
    }
  }
}

TEST(VectorMath, ExactOperationsGiveScalarBitsAtEveryWidth) {
  std::mt19937_64 rng(7);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> a = {0.0, -0.0, inf, -inf, nan, 1.0, -2.5, std::numeric_limits<double>::denorm_min(), 1e308, -3.0};
  std::vector<double> b = {-0.0, 0.0, inf, 1.0, 2.0, nan, 0.0, 0.5, 1e308, -inf};
  std::uniform_int_distribution<uint64_t> bits;
  while (a.size() < 1001) { // random bit patterns (nan payloads and subnormals included)
    a.push_back(std::bit_cast<double>(bits(rng)));
    b.push_back(std::bit_cast<double>(bits(rng)));
  }
  struct Scalar {
    Arith op;
    const char *name;
    std::function<double(double, double)> f;
  };
  const std::vector<Scalar> ops = {
      {Arith::Add, "add", [](double x, double y) { return x + y; }},
      {Arith::Sub, "sub", [](double x, double y) { return x - y; }},
      {Arith::Mul, "mul", [](double x, double y) { return x * y; }},
      {Arith::Div, "div", [](double x, double y) { return x / y; }},
      // NumPy's maximum/minimum: a nan in either operand gives nan; equal operands give the
      // second (on x86-64 NumPy 1.24 gives maximum(-0.0, 0.0) = 0.0, maximum(0.0, -0.0) = -0.0).
      {Arith::Max, "maximum", [](double x, double y) { return std::isnan(x) || std::isnan(y) ? std::nan("") : (x > y ? x : y); }},
      {Arith::Min, "minimum", [](double x, double y) { return std::isnan(x) || std::isnan(y) ? std::nan("") : (x < y ? x : y); }},
      {Arith::Negative, "negative", [](double x, double) { return -x; }},
      {Arith::Abs, "abs", [](double x, double) { return std::fabs(x); }},
      {Arith::Sqrt, "sqrt", [](double x, double) { return std::sqrt(x); }},
      {Arith::Floor, "floor", [](double x, double) { return std::floor(x); }},
      {Arith::Ceil, "ceil", [](double x, double) { return std::ceil(x); }},
      {Arith::Square, "square", [](double x, double) { return x * x; }},
  };
  for (const Isa &isa : isas())
    for (const Scalar &s : ops) {
      std::vector<double> out(a.size());
      isa.arith(s.op, a.data(), b.data(), out.data(), int64_t(a.size()));
      for (std::size_t i = 0; i < a.size(); ++i) {
        double want = s.f(a[i], b[i]);
        bool same = std::isnan(want) ? std::isnan(out[i]) : std::bit_cast<uint64_t>(out[i]) == std::bit_cast<uint64_t>(want);
        ASSERT_TRUE(same) << s.name << "(" << a[i] << ", " << b[i] << ") on " << isa.name << ": got " << out[i]
                          << ", IEEE gives " << want;
      }
      // In place (out is a) gives the same.
      std::vector<double> inPlace = a;
      isa.arith(s.op, inPlace.data(), b.data(), inPlace.data(), int64_t(a.size()));
      for (std::size_t i = 0; i < a.size(); ++i)
        ASSERT_TRUE(std::bit_cast<uint64_t>(inPlace[i]) == std::bit_cast<uint64_t>(out[i]) ||
                    (std::isnan(inPlace[i]) && std::isnan(out[i])))
            << s.name << " in place on " << isa.name;
    }
}
