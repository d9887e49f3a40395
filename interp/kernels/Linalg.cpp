// Reference kernels (Interpreter::run, by family): the factorizations behind np.linalg's qr,
// svd and eigh (and the composites over them: pinv, lstsq, matrix_rank, norm's 2, -2, 'nuc'),
// in float64 on one row-major matrix each.
//
// qr is Householder's, with LAPACK's reflector convention (geqrf/orgqr: R's diagonal is
// -sign(a_jj) * norm, a column already zero below the diagonal is left as it is), so Q and R are
// LAPACK's up to rounding. svd is one-sided Jacobi (Hestenes) and eigh cyclic Jacobi: their
// singular values and eigenvalues are LAPACK's up to rounding, their vectors up to sign (and to a
// rotation within a repeated value's space), which NumPy's documentation leaves open too.
// Cost: O(m n min(m, n)) per sweep; a few sweeps (at most 64) for the Jacobi methods.
#include "interp/Kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace shapelab::interp {

namespace {
constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kMaxSweeps = 64;

/// The plane rotation (x, y) <- (c x - s y, s x + c y) on `count` pairs x[k * step], y[k * step]:
/// two columns of a row-major matrix (step = its columns) or two rows (step = 1).
void rotate(double *x, double *y, std::size_t count, std::size_t step, double c, double s) {
  for (std::size_t k = 0; k < count; ++k) {
    const double a = x[k * step], b = y[k * step];
    x[k * step] = c * a - s * b, y[k * step] = s * a + c * b;
  }
}

/// Fills the columns of the m x cols row-major `q` not in `have` with unit vectors orthogonal to
/// every other column: for each, the unit vector e_j that keeps the most after two rounds of
/// Gram-Schmidt against the columns so far.
void completeColumns(std::vector<double> &q, std::size_t m, std::size_t cols, std::vector<bool> have) {
  for (std::size_t c = 0; c < cols; ++c) {
    if (have[c]) continue;
    std::vector<double> best;
    double bestNorm = -1;
    for (std::size_t j = 0; j < m; ++j) {
      std::vector<double> v(m, 0.0);
      v[j] = 1.0;
      for (int round = 0; round < 2; ++round)
        for (std::size_t o = 0; o < cols; ++o) {
          if (!have[o]) continue;
          double d = 0;
          for (std::size_t i = 0; i < m; ++i) d += q[i * cols + o] * v[i];
          for (std::size_t i = 0; i < m; ++i) v[i] -= d * q[i * cols + o];
        }
      double norm = 0;
      for (double x : v) norm += x * x;
      if (norm > bestNorm) bestNorm = norm, best = std::move(v);
    }
    const double s = 1.0 / std::sqrt(bestNorm);
    for (std::size_t i = 0; i < m; ++i) q[i * cols + c] = best[i] * s;
    have[c] = true;
  }
}
} // namespace

void householderQr(std::vector<double> a, std::size_t m, std::size_t n, bool complete, double *q, double *r) {
  const std::size_t k = std::min(m, n);
  std::vector<double> tau(k, 0.0);
  for (std::size_t j = 0; j < k; ++j) {
    const double alpha = a[j * n + j];
    double xnorm = 0;
    for (std::size_t i = j + 1; i < m; ++i) xnorm = std::hypot(xnorm, a[i * n + j]);
    if (xnorm == 0) continue; // H = I: the column is already upper triangular
    const double beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
    tau[j] = (beta - alpha) / beta;
    const double scale = 1.0 / (alpha - beta);
    for (std::size_t i = j + 1; i < m; ++i) a[i * n + j] *= scale; // v, with v_j = 1 implied
    a[j * n + j] = beta;
    for (std::size_t c = j + 1; c < n; ++c) {
      double w = a[j * n + c];
      for (std::size_t i = j + 1; i < m; ++i) w += a[i * n + j] * a[i * n + c];
      w *= tau[j];
      a[j * n + c] -= w;
      for (std::size_t i = j + 1; i < m; ++i) a[i * n + c] -= w * a[i * n + j];
    }
  }
  // R: the upper triangle (k x n, or m x n with zero rows below k when complete).
  const std::size_t rRows = complete ? m : k;
  for (std::size_t i = 0; i < rRows; ++i)
    for (std::size_t c = 0; c < n; ++c) r[i * n + c] = i < k && c >= i ? a[i * n + c] : 0.0;
  // Q = H_0 H_1 ... H_{k-1} applied to the first columns of the identity (orgqr).
  const std::size_t qCols = complete ? m : k;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t c = 0; c < qCols; ++c) q[i * qCols + c] = i == c ? 1.0 : 0.0;
  for (std::size_t j = k; j-- > 0;) {
    if (tau[j] == 0) continue;
    for (std::size_t c = 0; c < qCols; ++c) {
      double w = q[j * qCols + c];
      for (std::size_t i = j + 1; i < m; ++i) w += a[i * n + j] * q[i * qCols + c];
      w *= tau[j];
      q[j * qCols + c] -= w;
      for (std::size_t i = j + 1; i < m; ++i) q[i * qCols + c] -= w * a[i * n + j];
    }
  }
}

Svd jacobiSvd(const double *a, std::size_t m, std::size_t n, bool full) {
  // Columns of W (rows x cols, rows >= cols) are rotated until orthogonal: W = A V, so the
  // column norms are the singular values and the normalized columns U. A wide matrix is done
  // transposed (A^T = U' S V'^T gives A = V' S U'^T).
  const bool wide = m < n;
  const std::size_t rows = wide ? n : m, cols = wide ? m : n;
  std::vector<double> w(rows * cols), v(cols * cols, 0.0);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t c = 0; c < cols; ++c) w[i * cols + c] = wide ? a[c * n + i] : a[i * n + c];
  for (std::size_t c = 0; c < cols; ++c) v[c * cols + c] = 1.0;
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    bool rotated = false;
    for (std::size_t p = 0; p + 1 < cols; ++p)
      for (std::size_t q = p + 1; q < cols; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (std::size_t i = 0; i < rows; ++i) {
          const double x = w[i * cols + p], y = w[i * cols + q];
          alpha += x * x, beta += y * y, gamma += x * y;
        }
        if (gamma == 0 || std::abs(gamma) <= kEps * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = std::copysign(1.0, zeta) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        rotate(&w[p], &w[q], rows, cols, c, s);
        rotate(&v[p], &v[q], cols, cols, c, s);
      }
    if (!rotated) break;
  }
  // Singular values in descending order.
  std::vector<double> norms(cols);
  for (std::size_t c = 0; c < cols; ++c) {
    double s = 0;
    for (std::size_t i = 0; i < rows; ++i) s += w[i * cols + c] * w[i * cols + c];
    norms[c] = std::sqrt(s);
  }
  std::vector<std::size_t> order(cols);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return norms[x] > norms[y]; });
  // Left vectors: rows x (rows when full, else cols); right: cols x cols.
  const std::size_t leftCols = full ? rows : cols;
  std::vector<double> left(rows * leftCols, 0.0), right(cols * cols);
  std::vector<bool> have(leftCols, false);
  Svd out;
  for (std::size_t j = 0; j < cols; ++j) {
    const std::size_t c = order[j];
    out.s.push_back(norms[c]);
    for (std::size_t i = 0; i < cols; ++i) right[i * cols + j] = v[i * cols + c];
    if (norms[c] > 0) {
      for (std::size_t i = 0; i < rows; ++i) left[i * leftCols + j] = w[i * cols + c] / norms[c];
      have[j] = true;
    }
  }
  completeColumns(left, rows, leftCols, have);
  // u and vt for A: tall, u = left and vt = right^T; wide, u = right and vt = left^T.
  if (!wide) {
    out.u = std::move(left); // m x (m or k)
    out.vt.resize(cols * cols);
    for (std::size_t i = 0; i < cols; ++i)
      for (std::size_t j = 0; j < cols; ++j) out.vt[i * cols + j] = right[j * cols + i];
  } else {
    out.u = std::move(right); // m x m (k == m)
    out.vt.resize(leftCols * rows);
    for (std::size_t i = 0; i < leftCols; ++i)
      for (std::size_t j = 0; j < rows; ++j) out.vt[i * rows + j] = left[j * leftCols + i];
  }
  return out;
}

void jacobiEigh(std::vector<double> a, std::size_t n, double *w, double *v) {
  std::vector<double> vec(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) vec[i * n + i] = 1.0;
  const bool finite = std::all_of(a.begin(), a.end(), [](double x) { return std::isfinite(x); });
  for (int sweep = 0; finite && sweep < kMaxSweeps; ++sweep) {
    double off = 0, total = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) (i == j ? total : off) += a[i * n + j] * a[i * n + j];
    if (off <= kEps * kEps * (total + off)) break;
    for (std::size_t p = 0; p + 1 < n; ++p)
      for (std::size_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const double t = std::isinf(theta * theta) ? 1 / (2 * theta)
                                                   : std::copysign(1.0, theta) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        // A' = J^T A J with J the rotation in the (p, q) plane; V' = V J.
        rotate(&a[p], &a[q], n, n, c, s);         // columns p, q
        rotate(&a[p * n], &a[q * n], n, 1, c, s); // rows p, q
        a[p * n + q] = a[q * n + p] = 0;
        rotate(&vec[p], &vec[q], n, n, c, s);
      }
  }
  // Ascending eigenvalues, each with its column (NaN throughout for a matrix that is not finite).
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return a[x * n + x] < a[y * n + y]; });
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t j = 0; j < n; ++j) {
    if (w) w[j] = finite ? a[order[j] * n + order[j]] : nan;
    if (v)
      for (std::size_t i = 0; i < n; ++i) v[i * n + j] = finite ? vec[i * n + order[j]] : nan;
  }
}

} // namespace shapelab::interp
