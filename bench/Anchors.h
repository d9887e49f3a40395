// Anchors: figures measured in the same run as the benchmarks, so that every benchmark can be
// read as a ratio (absolute µs differ several-fold between machines; ratios much less).
//   - a raw isl subset test on sets built with isl's C API (the cost floor of one exact
//     question: what any isl-based answer pays at least);
//   - NumPy's np.broadcast_shapes on concrete shapes, timed by /usr/bin/python3's timeit
//     (what a Python caller pays today for the concrete answer).
// The reporter prints Google Benchmark's usual table, then each benchmark's time as a multiple
// of each anchor. An anchor that cannot be measured (no NumPy) is said, not invented.
#pragma once

#include <benchmark/benchmark.h>
#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/id.h>
#include <isl/local_space.h>
#include <isl/set.h>
#include <isl/space.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace bench {

/// µs per isl_set_is_subset(context, {lhs == rhs}) over parameters a, b, c: the context
/// (a >= 1, b <= a + 5, c >= b - 2, a, b, c >= 0) and the equality of two random affine
/// forms (coefficients in [-3, 3]) are built with isl's C API on every iteration, as the
/// solver builds its sets — the same workload as bench_decide's uncached questions.
inline double rawIslSubsetMicros() {
  isl_ctx *ctx = isl_ctx_alloc();
  isl_space *space = isl_space_params_alloc(ctx, 3);
  const char *names[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i)
    space = isl_space_set_dim_id(space, isl_dim_param, i, isl_id_alloc(ctx, names[i], nullptr));
  auto affine = [&](std::array<int, 4> c) { // c0*a + c1*b + c2*c + c3
    isl_aff *aff = isl_aff_zero_on_domain(isl_local_space_from_space(isl_space_copy(space)));
    for (int i = 0; i < 3; ++i) aff = isl_aff_set_coefficient_si(aff, isl_dim_param, i, c[i]);
    return isl_aff_set_constant_si(aff, c[3]);
  };
  auto nonNegative = [&](std::array<int, 4> c) {
    return isl_pw_aff_nonneg_set(isl_pw_aff_from_aff(affine(c)));
  };
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> coef(-3, 3), cst(-4, 8);
  auto random = [&] { return std::array<int, 4>{coef(rng), coef(rng), coef(rng), cst(rng)}; };
  std::vector<std::array<int, 4>> differences;
  for (int i = 0; i < 2000; ++i) {
    auto l = random(), r = random();
    differences.push_back({l[0] - r[0], l[1] - r[1], l[2] - r[2], l[3] - r[3]});
  }
  int subsets = 0;
  auto once = [&](const std::array<int, 4> &d) {
    isl_set *context = nonNegative({1, 0, 0, -1});
    context = isl_set_intersect(context, nonNegative({1, -1, 0, 5}));
    context = isl_set_intersect(context, nonNegative({0, -1, 1, 2}));
    for (int i = 0; i < 3; ++i) {
      std::array<int, 4> x{0, 0, 0, 0};
      x[i] = 1;
      context = isl_set_intersect(context, nonNegative(x));
    }
    isl_set *equal = isl_set_from_basic_set(isl_aff_zero_basic_set(affine(d)));
    subsets += isl_set_is_subset(context, equal) == isl_bool_true;
    isl_set_free(context);
    isl_set_free(equal);
  };
  for (int i = 0; i < 200; ++i) once(differences[i % differences.size()]); // warm up
  auto start = std::chrono::steady_clock::now();
  std::size_t n = 0;
  double elapsed = 0;
  while (elapsed < 0.5) {
    once(differences[n++ % differences.size()]);
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  benchmark::DoNotOptimize(subsets);
  isl_space_free(space);
  isl_ctx_free(ctx);
  return elapsed * 1e6 / double(n);
}

/// µs per np.broadcast_shapes(*shapes) (shapes as Python literals, e.g. "(8,1,6,1), (7,1,5)"),
/// or nullopt when /usr/bin/python3 or NumPy is not there.
inline std::optional<double> numpyBroadcastShapesMicros(const std::string &shapes) {
  std::string command =
      "/usr/bin/python3 -c \"import timeit, numpy as np\n"
      "args = (" + shapes + ")\n"
      "f = np.broadcast_shapes\n"
      "n = 200000\n"
      "print(min(timeit.repeat('f(*args)', globals=globals(), number=n, repeat=3)) / n * 1e6)\" 2>/dev/null";
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe) return std::nullopt;
  char buffer[128] = {0};
  bool read = std::fgets(buffer, sizeof buffer, pipe) != nullptr;
  if (pclose(pipe) != 0 || !read) return std::nullopt;
  try {
    return std::stod(buffer);
  } catch (...) {
    return std::nullopt;
  }
}

/// Google Benchmark's console table, then every benchmark as a multiple of every anchor.
class RatioReporter : public benchmark::ConsoleReporter {
public:
  RatioReporter()
      : ConsoleReporter(isatty(fileno(stdout)) ? OO_ColorTabular : OO_Tabular) {}

  void addAnchor(const std::string &name, std::optional<double> micros) {
    anchors_.push_back({name, micros});
    if (micros)
      std::printf("anchor: %s = %.3f us\n", name.c_str(), *micros);
    else
      std::printf("anchor: %s = not measured (not available here)\n", name.c_str());
  }

  void ReportRuns(const std::vector<Run> &runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run &r : runs) {
      if (r.error_occurred || r.run_type != Run::RT_Iteration) continue;
      double micros = r.GetAdjustedRealTime() * 1e6 / benchmark::GetTimeUnitMultiplier(r.time_unit);
      results_.push_back({r.benchmark_name(), micros});
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nRatios (benchmark time / anchor time, same run):\n");
    for (auto &[name, micros] : results_) {
      std::printf("  %-48s %10.3f us", name.c_str(), micros);
      for (auto &[anchor, a] : anchors_)
        if (a && *a > 0) std::printf("  = %8.2f x %s", micros / *a, anchor.c_str());
      std::printf("\n");
    }
  }

private:
  std::vector<std::pair<std::string, std::optional<double>>> anchors_;
  std::vector<std::pair<std::string, double>> results_;
};

} // namespace bench
