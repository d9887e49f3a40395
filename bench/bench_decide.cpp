// µs per Solver::decide for the workloads of issue 2:
//   (a) equality of two random affine dims over 3 parameters, 3-constraint context, uncached;
//   (b) the same questions replayed through the memo;
//   (c) constant and syntactically identical questions (no isl call).
// Each figure is also printed as a multiple of a raw isl subset test timed in the same run
// (bench/Anchors.h).
// Run: build/bench/bench_decide --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include "bench/Anchors.h"

#include <random>

#include "symbolic/Parser.h"
#include "symbolic/Solver.h"

using namespace shapelab;

namespace {

struct Workload {
  std::vector<Pred> context;
  std::vector<Pred> questions;
};

Expr randomAffine(std::mt19937 &rng) {
  std::uniform_int_distribution<int> coef(-3, 3), cst(-4, 8);
  Expr e(cst(rng));
  for (const char *p : {"a", "b", "c"}) e = e + Expr(coef(rng)) * Expr::param(p);
  return e;
}

const Workload &workload() {
  static Workload w = [] {
    Workload w;
    std::mt19937 rng(12345);
    w.context = {parsePred("a >= 1"), parsePred("b <= a + 5"), parsePred("c >= b - 2")};
    for (int i = 0; i < 2000; ++i) w.questions.push_back(eq(randomAffine(rng), randomAffine(rng)));
    return w;
  }();
  return w;
}

void BM_DecideAffineEqualityUncached(benchmark::State &state) {
  SolverOptions o;
  o.memoize = false;
  Solver solver(o);
  Context c = solver.makeContext(workload().context);
  std::size_t i = 0;
  std::map<Answer, int> answers;
  for (auto _ : state) {
    Decision d = solver.decide(c, workload().questions[i++ % workload().questions.size()]);
    answers[d.answer]++;
    benchmark::DoNotOptimize(d);
  }
  state.counters["depends"] = answers[Answer::Depends];
  state.counters["refuted"] = answers[Answer::Refuted];
  state.counters["proven"] = answers[Answer::Proven];
  state.counters["fast"] = double(solver.stats().fastPaths);
}
BENCHMARK(BM_DecideAffineEqualityUncached)->Unit(benchmark::kMicrosecond);

void BM_DecideAffineEqualityMemoized(benchmark::State &state) {
  Solver solver;
  Context c = solver.makeContext(workload().context);
  for (const Pred &q : workload().questions) solver.decide(c, q);
  std::size_t i = 0;
  for (auto _ : state) {
    Decision d = solver.decide(c, workload().questions[i++ % workload().questions.size()]);
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(BM_DecideAffineEqualityMemoized)->Unit(benchmark::kMicrosecond);

void BM_DecideConstantAndIdentical(benchmark::State &state) {
  Solver solver;
  Context c = solver.makeContext(workload().context);
  // Built once, as a caller holding its predicates would: both fold when they are built.
  std::vector<Pred> qs = {parsePred("a + b == b + a"), parsePred("3 >= 2"),
                          eq(Expr::param("a") * Expr::param("b"), Expr::param("b") * Expr::param("a")),
                          parsePred("a + 1 > a")};
  std::size_t i = 0;
  for (auto _ : state) {
    Decision d = solver.decide(c, qs[i++ & 3]);
    benchmark::DoNotOptimize(d);
  }
  state.counters["isl_calls"] = double(solver.stats().islQuestions);
}
BENCHMARK(BM_DecideConstantAndIdentical)->Unit(benchmark::kMicrosecond);

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  bench::RatioReporter reporter;
  reporter.addAnchor("raw isl subset test", bench::rawIslSubsetMicros());
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
