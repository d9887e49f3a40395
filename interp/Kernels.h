// Kernels — the numeric pieces of the reference interpreter that are not plain loops: NumPy's
// scalar arithmetic rules, small dense linear algebra, and the counter-based random generator
// with its samplers.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace shapelab::interp {

// ---- NumPy's scalar rules -------------------------------------------------------------------

/// Floor division and remainder as NumPy computes them (npy_divmod for floats: the remainder
/// has the divisor's sign, the quotient is snapped to an integer; by zero: a / b and fmod).
template <class T> T floorDivide(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0) {
      if ((b < 0) != (mod < 0)) div -= T(1);
    }
    if (div != 0) {
      T floordiv = std::floor(div);
      if (div - floordiv > T(0.5)) floordiv += T(1);
      return floordiv;
    }
    return std::copysign(T(0), a / b);
  } else {
    // Integers: by zero gives 0; MIN // -1 wraps to MIN (NumPy warns and does the same).
    using U = std::make_unsigned_t<T>;
    if (b == 0) return 0;
    if (b == -1) return T(U(0) - U(a));
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
}

template <class T> T remainder(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return std::fmod(a, b);
    T mod = std::fmod(a, b);
    if (mod != 0) {
      if ((b < 0) != (mod < 0)) mod += b;
    } else {
      mod = std::copysign(T(0), b);
    }
    return mod;
  } else {
    if (b == 0 || b == -1) return 0;
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}

/// Integer power by squaring, wrapping; `exponent` >= 0.
template <class T> T integerPower(T base, T exponent) {
  using U = std::make_unsigned_t<T>;
  U result = 1, b = U(base);
  for (auto e = U(exponent); e; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return T(result);
}

// ---- Linear algebra on row-major n x n doubles -----------------------------------------------

/// LU with partial pivoting in place; returns false when a pivot is exactly 0 (singular).
/// `sign` is the permutation's sign, `pivots` the row swaps.
bool luDecompose(std::vector<double> &a, std::size_t n, std::vector<std::size_t> &pivots, int &sign);
double determinant(std::vector<double> a, std::size_t n);
/// Solves a x = b for k right-hand sides (b is n x k, row-major); false when singular.
bool solveLinear(std::vector<double> a, std::size_t n, std::vector<double> &b, std::size_t k);

// ---- Random numbers -------------------------------------------------------------------------

/// A counter-based generator: the stream of one (seed, draw, element) key. Any evaluation order
/// gives the same numbers for the same key.
class CounterRng {
public:
  CounterRng(uint64_t seed, uint64_t draw, uint64_t element);
  uint64_t next();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Uniform in (0, 1).
  double open();
  double normal();
  double exponential();
  double gamma(double shape);
  int64_t poisson(double lam);
  int64_t binomial(int64_t n, double p);

private:
  uint64_t key_, counter_ = 0;
};

/// One draw of a scalar random variable with the given parameters (NumPy's parametrisations).
/// Returns false with `error` set for parameters NumPy refuses (scale < 0, p outside [0, 1]).
bool sampleScalar(const std::string &name, const std::vector<double> &params, CounterRng &rng, double &out,
                  std::string &error);

} // namespace shapelab::interp
