// µs per shape question for the workloads of issue 3:
//   concrete broadcast of two rank-4 shapes (no isl);
//   symbolic broadcast of two rank-4 shapes over 4 parameters, 4-constraint context,
//   uncached and memoized;
//   gufunc (m,n),(n,p)->(m,p) on symbolic rank-4 inputs, uncached.
// Each figure is also printed as a multiple of a raw isl subset test and of NumPy's
// np.broadcast_shapes on the concrete rank-4 pair, timed in the same run (bench/Anchors.h).
// Run: build/bench/bench_shape --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include "bench/Anchors.h"

#include "shape/Broadcast.h"
#include "shape/Gufunc.h"
#include "symbolic/Parser.h"

using namespace shapelab;

namespace {

std::vector<Pred> contextParts() {
  return {parsePred("b >= 1"), parsePred("h >= 2"), parsePred("n >= 1"), parsePred("k == n + 1")};
}

void BM_BroadcastConcreteRank4(benchmark::State &state) {
  Solver solver;
  Context c = solver.makeContext({});
  std::vector<Shape> shapes = {parseShape("(8, 1, 6, 1)"), parseShape("(7, 1, 5)")};
  for (auto _ : state) {
    BroadcastResult r = broadcast(solver, c, shapes);
    benchmark::DoNotOptimize(r);
  }
  state.counters["isl_calls"] = double(solver.stats().islQuestions);
}
BENCHMARK(BM_BroadcastConcreteRank4)->Unit(benchmark::kMicrosecond);

// Batch and head dims broadcast trivially (same parameter or 1); the last axis needs the
// context (k == n + 1 against n + 1) and one more (h against 1 or h) needs a decision.
std::vector<Shape> symbolicShapes() {
  return {parseShape("(b, h, n, k)"), parseShape("(1, h, n, n + 1)")};
}

void BM_BroadcastSymbolicRank4Uncached(benchmark::State &state) {
  SolverOptions o;
  o.memoize = false;
  Solver solver(o);
  Context c = solver.makeContext(contextParts());
  std::vector<Shape> shapes = symbolicShapes();
  for (auto _ : state) {
    BroadcastResult r = broadcast(solver, c, shapes);
    benchmark::DoNotOptimize(r);
  }
  state.counters["isl_per_op"] = double(solver.stats().islQuestions) / double(state.iterations());
}
BENCHMARK(BM_BroadcastSymbolicRank4Uncached)->Unit(benchmark::kMicrosecond);

void BM_BroadcastSymbolicRank4Memoized(benchmark::State &state) {
  Solver solver;
  Context c = solver.makeContext(contextParts());
  std::vector<Shape> shapes = symbolicShapes();
  broadcast(solver, c, shapes);
  for (auto _ : state) {
    BroadcastResult r = broadcast(solver, c, shapes);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_BroadcastSymbolicRank4Memoized)->Unit(benchmark::kMicrosecond);

// A harder pair: the two inner axes hold different expressions, equal only under the context.
void BM_BroadcastSymbolicRank4AllAxesUncached(benchmark::State &state) {
  SolverOptions o;
  o.memoize = false;
  Solver solver(o);
  Context c = solver.makeContext(contextParts());
  std::vector<Shape> shapes = {parseShape("(b, h, k - 1, k)"), parseShape("(b, h, n, n + 1)")};
  for (auto _ : state) {
    BroadcastResult r = broadcast(solver, c, shapes);
    benchmark::DoNotOptimize(r);
  }
  state.counters["isl_per_op"] = double(solver.stats().islQuestions) / double(state.iterations());
}
BENCHMARK(BM_BroadcastSymbolicRank4AllAxesUncached)->Unit(benchmark::kMicrosecond);

void BM_GufuncMatmulSymbolicRank4Uncached(benchmark::State &state) {
  SolverOptions o;
  o.memoize = false;
  Solver solver(o);
  Context c = solver.makeContext(contextParts());
  Signature sig = parseSignature("(m,n),(n,p)->(m,p)");
  std::vector<GufuncArgument> args = {{parseShape("(b, h, m, n)"), false}, {parseShape("(b, 1, k - 1, p)"), false}};
  for (auto _ : state) {
    GufuncResult r = resolveGufunc(solver, c, sig, args);
    benchmark::DoNotOptimize(r);
  }
  state.counters["isl_per_op"] = double(solver.stats().islQuestions) / double(state.iterations());
}
BENCHMARK(BM_GufuncMatmulSymbolicRank4Uncached)->Unit(benchmark::kMicrosecond);

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  bench::RatioReporter reporter;
  reporter.addAnchor("raw isl subset test", bench::rawIslSubsetMicros());
  reporter.addAnchor("np.broadcast_shapes rank 4", bench::numpyBroadcastShapesMicros("(8, 1, 6, 1), (7, 1, 5)"));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
