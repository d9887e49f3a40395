// Half — the element type of float16 arrays: IEEE 754 binary16 bits, computed with in float.
//
// Model: a value is its 16 bits; arithmetic converts to float, computes there and rounds the
// result back to the nearest half (ties to even), which is what NumPy's float16 loops do
// (numpy/core/src/umath/loops: npy_half_to_float, the float operation, npy_float_to_half).
// Conversions are exact from half to float; from float they round once, overflow to inf, and
// keep NaN (quiet) and the sign of zero. A double rounds to half directly (not through float:
// double rounding would differ on ties), as NumPy's npy_double_to_half.
// Example: Half(1.0f) + Half(2.0f) == Half(3.0f); float(Half(70000.0)) is inf.
// Cost: a conversion is a few integer operations; no table.
#pragma once

#include <bit>
#include <cstdint>
#include <cmath>
#include <limits>

namespace shapelab::ops {

class Half {
public:
  Half() = default;
  Half(float f) : bits_(fromDouble(double(f))) {}
  Half(double d) : bits_(fromDouble(d)) {}
  /// From an integer: through double (exact for every integer a half can tell apart).
  template <class I, class = std::enable_if_t<std::is_integral_v<I>>> explicit Half(I i) : Half(double(i)) {}
  static Half fromBits(uint16_t b) {
    Half h;
    h.bits_ = b;
    return h;
  }
  uint16_t bits() const { return bits_; }
  operator float() const { return toFloat(bits_); }

  Half operator-() const { return fromBits(uint16_t(bits_ ^ 0x8000u)); }

private:
  uint16_t bits_ = 0;

  static float toFloat(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13)); // inf, NaN
    if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
    // Subnormal (or zero): mantissa * 2^-24, exact in float.
    const float v = float(mantissa) * 0x1p-24f;
    return sign ? -v : v;
  }

  /// Rounds d to the nearest half, ties to even (a float's value is a double's too).
  static uint16_t fromDouble(double d) {
    const uint16_t sign = std::signbit(d) ? 0x8000u : 0;
    if (std::isnan(d)) return uint16_t(sign | 0x7e00u);
    const double a = std::fabs(d);
    if (a >= 65520.0) return uint16_t(sign | 0x7c00u); // rounds to inf (65504 is the largest)
    if (a < 0x1p-14) {
      // Subnormal: a multiple of 2^-24, rounded to nearest even by nearbyint (the default mode).
      const double q = std::nearbyint(a * 0x1p24);
      return uint16_t(sign | uint16_t(q)); // q == 1024 is the smallest normal, which these bits are
    }
    int e;
    const double m = std::frexp(a, &e); // a = m * 2^e, 0.5 <= m < 1
    // 11 significant bits: the mantissa scaled to [1024, 2048), rounded to nearest even.
    double q = std::nearbyint(m * 2048.0);
    if (q == 2048.0) q = 1024.0, ++e;
    const int exponent = e - 1 + 15;
    if (exponent >= 0x1f) return uint16_t(sign | 0x7c00u);
    return uint16_t(sign | (exponent << 10) | (uint16_t(q) - 1024));
  }
};

} // namespace shapelab::ops

template <> class std::numeric_limits<shapelab::ops::Half> {
public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_signed = true;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static shapelab::ops::Half infinity() { return shapelab::ops::Half::fromBits(0x7c00u); }
  static shapelab::ops::Half quiet_NaN() { return shapelab::ops::Half::fromBits(0x7e00u); }
  static shapelab::ops::Half max() { return shapelab::ops::Half::fromBits(0x7bffu); }
  static shapelab::ops::Half lowest() { return shapelab::ops::Half::fromBits(0xfbffu); }
  static shapelab::ops::Half epsilon() { return shapelab::ops::Half::fromBits(0x1400u); }
};
