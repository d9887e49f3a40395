// Kernels — the numeric pieces of the reference interpreter that are not plain loops: small
// dense linear algebra, slice bounds, and the counter-based random generator with its samplers.
// NumPy's scalar rules (ops/Scalar.h) are named here too, as the kernels use them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/Scalar.h"
#include "symbolic/Errors.h"

namespace shapelab::interp {

using ops::Bin;
using ops::arithmetic;
using ops::binCode;
using ops::comparison;
using ops::floatSign;
using ops::floorDivide;
using ops::integerPower;
using ops::libmFunction;
using ops::negativeIntegerPower;
using ops::remainder;
using ops::unaryTest;
using ops::unaryValue;


// ---- Linear algebra on row-major n x n doubles -----------------------------------------------

/// LU with partial pivoting in place; returns false when a pivot is exactly 0 (singular).
/// `sign` is the permutation's sign, `pivots` the row swaps.
/// NumPy's basic slice start:stop:step (absent bounds are nullopt) on an axis of length L: the
/// first index it reads and how many it reads (the bounds clipped as NumPy clips them).
struct SliceBounds {
  int64_t start = 0, length = 0;
};
inline SliceBounds sliceBounds(int64_t L, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
  auto adjust = [&](std::optional<int64_t> v, bool isStart) -> int64_t {
    if (!v) return step > 0 ? (isStart ? 0 : L) : (isStart ? L - 1 : -1);
    int64_t w = *v;
    if (w < 0) {
      w += L;
      if (w < 0) w = step < 0 ? -1 : 0;
    } else if (w >= L) {
      w = step < 0 ? L - 1 : L;
    }
    return w;
  };
  int64_t a = adjust(start, true), b = adjust(stop, false);
  int64_t len = step > 0 ? (a < b ? (b - a - 1) / step + 1 : 0) : (b < a ? (a - b - 1) / (-step) + 1 : 0);
  return {a, len};
}

/// np.pad's source positions along one axis of length L padded by (before, after) in `mode`
/// (edge, wrap, symmetric, reflect): NumPy 1.24's own filling (numpy/lib/arraypad.py), run on
/// the positions themselves. A pad wider than the axis is filled in rounds, each copying from
/// what the rounds before filled, so wrap's result is periodic only while each side's pad fits.
/// Requires L >= 1 where a width is positive, widths >= 0 (else NumPy's error, naming `axis`).
std::vector<int64_t> padSources(const std::string &mode, int64_t L, int64_t before, int64_t after, int64_t axis);

// ---- Factorizations (kernels/Linalg.cpp) -----------------------------------------------------

/// QR of the m x n row-major `a` by Householder reflectors as LAPACK's geqrf and orgqr make
/// them: q is m x k (m x m when complete), r is k x n (m x n), k = min(m, n).
void householderQr(std::vector<double> a, std::size_t m, std::size_t n, bool complete, double *q, double *r);
/// a = u diag(s) vt with s descending: u is m x k (m x m when full), vt is k x n (n x n), row-
/// major. `a` (m x n, row-major) must be finite.
struct Svd {
  std::vector<double> u, s, vt;
};
Svd jacobiSvd(const double *a, std::size_t m, std::size_t n, bool full);
/// Eigenvalues (ascending, into w) and eigenvectors (columns of the n x n row-major v) of the
/// symmetric `a`; either output may be null. NaN throughout when `a` is not finite.
void jacobiEigh(std::vector<double> a, std::size_t n, double *w, double *v);

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
