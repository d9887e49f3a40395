#include "interp/Kernels.h"

#include <algorithm>
#include <limits>
#include <numbers>

namespace shapelab::interp {

bool luDecompose(std::vector<double> &a, std::size_t n, std::vector<std::size_t> &pivots, int &sign) {
  sign = 1;
  pivots.assign(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < n; ++i)
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    pivots[k] = p;
    if (a[p * n + k] == 0.0) return false;
    if (p != k) {
      for (std::size_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      sign = -sign;
    }
    for (std::size_t i = k + 1; i < n; ++i) {
      double f = a[i * n + k] / a[k * n + k];
      a[i * n + k] = f;
      for (std::size_t j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return true;
}

double determinant(std::vector<double> a, std::size_t n) {
  std::vector<std::size_t> piv;
  int sign;
  if (!luDecompose(a, n, piv, sign)) return 0.0;
  double d = sign;
  for (std::size_t i = 0; i < n; ++i) d *= a[i * n + i];
  return d;
}

bool solveLinear(std::vector<double> a, std::size_t n, std::vector<double> &b, std::size_t k) {
  std::vector<std::size_t> piv;
  int sign;
  if (!luDecompose(a, n, piv, sign)) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (piv[i] != i)
      for (std::size_t c = 0; c < k; ++c) std::swap(b[i * k + c], b[piv[i] * k + c]);
  for (std::size_t c = 0; c < k; ++c) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < i; ++j) b[i * k + c] -= a[i * n + j] * b[j * k + c];
    for (std::size_t i = n; i-- > 0;) {
      for (std::size_t j = i + 1; j < n; ++j) b[i * k + c] -= a[i * n + j] * b[j * k + c];
      b[i * k + c] /= a[i * n + i];
    }
  }
  return true;
}

namespace {
uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
} // namespace

CounterRng::CounterRng(uint64_t seed, uint64_t draw, uint64_t element)
    : key_(splitmix(splitmix(splitmix(seed) ^ draw) ^ element)) {}

uint64_t CounterRng::next() { return splitmix(key_ ^ splitmix(++counter_)); }
double CounterRng::uniform() { return double(next() >> 11) * 0x1.0p-53; }
double CounterRng::open() {
  double u;
  do u = uniform();
  while (u == 0.0);
  return u;
}
double CounterRng::normal() {
  // Box-Muller on two fresh uniforms (one value per call keeps the stream simple).
  double u1 = open(), u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}
double CounterRng::exponential() { return -std::log(open()); }
double CounterRng::gamma(double shape) {
  // nan and inf as NumPy gives them (the rejection loop below would never accept them).
  if (std::isnan(shape) || std::isinf(shape)) return shape;
  if (shape <= 0) return 0.0;
  if (shape < 1) return gamma(shape + 1.0) * std::pow(open(), 1.0 / shape);
  // Marsaglia and Tsang (2000).
  double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x, v;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    double u = open();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}
int64_t CounterRng::poisson(double lam) {
  if (lam <= 0) return 0;
  if (lam < 30) {
    double l = std::exp(-lam), p = 1.0;
    int64_t k = 0;
    do {
      ++k;
      p *= uniform();
    } while (p > l);
    return k - 1;
  }
  // Large means: split into a gamma-distributed waiting time (Ahrens-Dieter style recursion).
  int64_t m = int64_t(lam * 7.0 / 8.0);
  double x = gamma(double(m));
  if (x > lam) return binomial(m - 1, lam / x);
  return m + poisson(lam - x);
}
int64_t CounterRng::binomial(int64_t n, double p) {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (n < 64) {
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) k += uniform() < p;
    return k;
  }
  // Split through the order statistics of uniforms: a beta-distributed quantile.
  int64_t i = 1 + n / 2;
  double a = gamma(double(i)), b = gamma(double(n + 1 - i));
  double x = a / (a + b);
  if (x >= p) return binomial(i - 1, p / x);
  return i + binomial(n - i, (p - x) / (1 - x));
}

namespace {
/// NumPy's largest Poisson mean (int64's maximum less ten standard deviations).
constexpr double kPoissonLamMax = 9.223372006484771e18;
/// A count parameter that converts to int64 exactly enough (finite, below 2**63).
bool fitsCount(double v) { return std::isfinite(v) && std::fabs(v) < 0x1p63; }
} // namespace

bool sampleScalar(const std::string &name, const std::vector<double> &q, CounterRng &rng, double &out,
                  std::string &error) {
  auto need = [&](bool ok, const char *message) {
    if (!ok) error = message;
    return ok;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (name == "uniform") return out = q[0] + (q[1] - q[0]) * rng.uniform(), true;
  if (name == "triangular") {
    double l = q[0], m = q[1], r = q[2];
    if (!need(l <= m && m <= r && l < r, "left <= mode <= right and left < right")) return false;
    double u = rng.uniform(), f = (m - l) / (r - l);
    out = u < f ? l + std::sqrt(u * (r - l) * (m - l)) : r - std::sqrt((1 - u) * (r - l) * (r - m));
    return true;
  }
  if (name == "beta") {
    if (!need(q[0] > 0 && q[1] > 0, "a <= 0 or b <= 0")) return false;
    double x = rng.gamma(q[0]), y = rng.gamma(q[1]);
    return out = x / (x + y), true;
  }
  if (name == "normal" || name == "halfnormal" || name == "lognormal") {
    if (!need(q[1] >= 0, "scale < 0")) return false;
    double z = rng.normal();
    if (name == "normal") out = q[0] + q[1] * z;
    else if (name == "halfnormal") out = q[0] + q[1] * std::fabs(z);
    else out = std::exp(q[0] + q[1] * z);
    return true;
  }
  if (name == "gamma") {
    if (!need(q[0] >= 0 && q[1] >= 0, "shape < 0 or scale < 0")) return false;
    return out = q[1] * rng.gamma(q[0]), true;
  }
  if (name == "invgamma") {
    if (!need(q[0] > 0 && q[1] > 0, "shape <= 0 or scale <= 0")) return false;
    return out = q[1] / rng.gamma(q[0]), true;
  }
  if (name == "pareto") {
    if (!need(q[0] > 0, "b <= 0")) return false;
    return out = q[1] * std::pow(rng.open(), -1.0 / q[0]), true;
  }
  if (name == "gumbel") return out = q[0] - q[1] * std::log(rng.exponential()), true;
  if (name == "exponential") {
    if (!need(q[0] >= 0, "scale < 0")) return false;
    return out = q[0] * rng.exponential(), true;
  }
  if (name == "weibull") {
    if (!need(q[0] >= 0, "a < 0")) return false;
    return out = q[0] == 0 ? 0.0 : std::pow(rng.exponential(), 1.0 / q[0]), true;
  }
  if (name == "logistic") {
    double u = rng.open();
    return out = q[0] + q[1] * std::log(u / (1 - u)), true;
  }
  if (name == "laplace") {
    double u = rng.uniform() - 0.5;
    return out = q[0] - q[1] * (u < 0 ? -1.0 : 1.0) * std::log(1 - 2 * std::fabs(u)), true;
  }
  if (name == "cauchy" || name == "halfcauchy") {
    double c = std::tan(std::numbers::pi * (rng.open() - 0.5));
    return out = q[0] + q[1] * (name == "cauchy" ? c : std::fabs(c)), true;
  }
  if (name == "vonmises") {
    // Best and Fisher (1979).
    double mu = q[0], kappa = q[1];
    if (!need(kappa >= 0, "kappa < 0")) return false;
    if (kappa < 1e-8) return out = std::numbers::pi * (2 * rng.uniform() - 1), true;
    if (kappa > 1e6) {
      // Best and Fisher's loop loses its precision (and at inf never ends): a wrapped normal,
      // as NumPy does above this kappa.
      double theta = mu + std::sqrt(1 / kappa) * rng.normal();
      return out = std::remainder(theta, 2 * std::numbers::pi), true;
    }
    double r = 1 + std::sqrt(1 + 4 * kappa * kappa), rho = (r - std::sqrt(2 * r)) / (2 * kappa);
    double s = (1 + rho * rho) / (2 * rho), w;
    while (true) {
      double u1 = rng.uniform(), u2 = rng.uniform();
      double z = std::cos(std::numbers::pi * u1);
      w = (1 + s * z) / (s + z);
      double y = kappa * (s - w);
      if (y * (2 - y) - u2 > 0 || std::log(y / u2) + 1 - y >= 0) break;
    }
    double theta = std::acos(std::clamp(w, -1.0, 1.0)) * (rng.uniform() < 0.5 ? -1 : 1);
    out = std::remainder(theta + mu, 2 * std::numbers::pi);
    return true;
  }
  if (name == "wald") {
    double mean = q[0], scale = q[1];
    if (!need(mean > 0 && scale > 0, "mean <= 0 or scale <= 0")) return false;
    double y = rng.normal();
    y = mean * y * y;
    double x = mean + mean * y / (2 * scale) - mean / (2 * scale) * std::sqrt(4 * mean * scale * y + y * y);
    out = rng.uniform() <= mean / (mean + x) ? x : mean * mean / x;
    return true;
  }
  if (name == "truncexpon") {
    double b = q[0], loc = q[1], scale = q[2];
    if (!need(b > 0, "b <= 0")) return false;
    out = loc + scale * -std::log1p(-rng.uniform() * -std::expm1(-b));
    return true;
  }
  if (name == "t") {
    if (!need(q[0] > 0, "df <= 0")) return false;
    double z = rng.normal(), g = 2 * rng.gamma(q[0] / 2);
    return out = q[1] + q[2] * z / std::sqrt(g / q[0]), true;
  }
  if (name == "gengamma") {
    double alpha = q[0], p = q[1], lambd = q[2];
    if (!need(alpha > 0 && p > 0 && lambd > 0, "alpha, p and lambd must be > 0")) return false;
    return out = lambd * std::pow(rng.gamma(alpha / p), 1.0 / p), true;
  }
  if (name == "poisson") {
    if (!need(q[0] >= 0, "lam < 0 or lam is NaN")) return false;
    if (!need(q[0] <= kPoissonLamMax, "lam value too large")) return false;
    return out = double(rng.poisson(q[0])), true;
  }
  if (name == "geometric") {
    if (!need(q[0] > 0 && q[0] <= 1, "p <= 0, p > 1 or p contains NaNs")) return false;
    if (q[0] == 1) return out = 1, true;
    return out = std::ceil(std::log(rng.open()) / std::log1p(-q[0])), true;
  }
  if (name == "bernoulli") {
    if (!need(q[0] >= 0 && q[0] <= 1, "p < 0, p > 1 or p is NaN")) return false;
    return out = rng.uniform() < q[0] ? 1 : 0, true;
  }
  if (name == "binomial") {
    if (!need(q[0] >= 0 && q[1] >= 0 && q[1] <= 1, "n < 0, p < 0, p > 1 or p is NaN")) return false;
    if (!need(fitsCount(q[0]), "n is not a finite count")) return false;
    return out = double(rng.binomial(int64_t(q[0]), q[1])), true;
  }
  if (name == "negative_binomial") {
    if (!need(q[0] > 0 && q[1] > 0 && q[1] <= 1, "n <= 0, p <= 0 or p > 1")) return false;
    double lam = rng.gamma(q[0]) * (1 - q[1]) / q[1];
    if (!need(lam <= kPoissonLamMax, "n value too large: the Poisson mean it draws exceeds what can be sampled")) return false;
    return out = double(rng.poisson(lam)), true;
  }
  if (name == "beta_binomial") {
    if (!need(q[0] >= 0 && q[1] > 0 && q[2] > 0, "n < 0, a <= 0 or b <= 0")) return false;
    if (!need(fitsCount(q[0]), "n is not a finite count")) return false;
    double x = rng.gamma(q[1]), y = rng.gamma(q[2]);
    return out = double(rng.binomial(int64_t(q[0]), x / (x + y))), true;
  }
  if (name == "hypergeometric") {
    // The draw loop is linear in nsample: counts are bounded as NumPy bounds them.
    if (!need(fitsCount(q[0]) && fitsCount(q[1]) && fitsCount(q[2]), "ngood, nbad and nsample must be finite counts")) return false;
    if (!need(q[0] < 1e9 && q[1] < 1e9, "ngood and nbad must each be less than 1000000000")) return false;
    int64_t good = int64_t(q[0]), bad = int64_t(q[1]), sample = int64_t(q[2]);
    if (!need(good >= 0 && bad >= 0 && sample >= 0 && sample <= good + bad, "ngood < 0, nbad < 0, nsample < 0 or nsample > ngood + nbad"))
      return false;
    int64_t k = 0;
    for (int64_t i = 0; i < sample; ++i) {
      if (double(good) > rng.uniform() * double(good + bad)) ++k, --good;
      else --bad;
    }
    return out = double(k), true;
  }
  if (name == "integers") {
    if (!need(std::fabs(q[0]) < 0x1p63 && std::fabs(q[1]) < 0x1p63, "low and high must be finite int64 values")) return false;
    int64_t lo = int64_t(q[0]), hi = int64_t(q[1]);
    if (!need(lo < hi, "low >= high")) return false;
    uint64_t span = uint64_t(hi) - uint64_t(lo);
    return out = double(lo + int64_t(rng.next() % span)), true;
  }
  error = "no sampler";
  out = nan;
  return false;
}

} // namespace shapelab::interp
