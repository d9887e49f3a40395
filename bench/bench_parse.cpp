// µs to read and write expressions, the work of the parser's fuzz target (issue 9):
//   (a) short texts of the kinds users and the fuzzer write, each parsed from scratch (no node
//       outlives an iteration, so every node is built and interned again, as for a new input);
//   (b) printing a DAG whose tree is near the written-out bound (kMaxTreeSize nodes), about
//       64 KiB of text of repeated groups;
//   (c) reading that text back (the groups it repeats are read once).
// Run: build/bench/bench_parse --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "symbolic/Errors.h"
#include "symbolic/Expr.h"
#include "symbolic/Parser.h"

using namespace shapelab;

namespace {

const std::vector<std::string> &shortTexts() {
  static const std::vector<std::string> texts = {
      "n*(n - 1)/2 + m % 3 >= 2*k",
      "min(n, m + 1) * max(0, n - 2) // 5",
      "(a + b/6 + 78*69 + b + 3*c)**3",
      "n**3*3 - 88888888888888888888888888888888*22/5/5 + 52*n",
      "0 <= n < 10 and (m == 1 or m == n)",
      "(n if n > 0 else 1) * m - n*m",
      "((((n + 1) * 2) // 3) % 7) / 2",
      "x + y + z - 2*x + 3*y - z + 17 - x*y",
      "not (n == 1 or m == 2) and k > 0",
      "(n - 1) // 2 + (n + 1) // 2 == n",
      "n*(m*(k - 4)**2/21)*44 - 81",
      "2*n + 1 <",  // an error: the end comes too early
  };
  return texts;
}

void BM_ParseShortTexts(benchmark::State &state) {
  const auto &texts = shortTexts();
  std::size_t i = 0, errors = 0;
  for (auto _ : state) {
    try {
      auto v = parseExprOrPred(texts[i++ % texts.size()]);
      benchmark::DoNotOptimize(v);
    } catch (const SyntaxError &) {
      ++errors;
    }
  }
  state.counters["errors"] = double(errors);
}
BENCHMARK(BM_ParseShortTexts)->Unit(benchmark::kMicrosecond);

/// min(e, 1) + min(e, 2), e the step before: each step doubles the tree and adds two nodes.
Expr largeDag() {
  Expr e = parseExpr("n + m");
  while (2 * e->treeSize + 8 <= kMaxTreeSize) e = min(e, Expr(1)) + min(e, Expr(2));
  return e;
}

void BM_PrintLargeDag(benchmark::State &state) {
  const Expr e = largeDag();
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string text = e.toString();
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["bytes"] = double(bytes);
  state.counters["tree_nodes"] = double(e->treeSize);
}
BENCHMARK(BM_PrintLargeDag)->Unit(benchmark::kMicrosecond);

void BM_ReadBackLargeDag(benchmark::State &state) {
  const Expr e = largeDag();
  const std::string text = e.toString();
  for (auto _ : state) {
    Expr again = parseExpr(text);
    if (again != e) state.SkipWithError("the printed form read back as another node");
    benchmark::DoNotOptimize(again);
  }
  state.counters["bytes"] = double(text.size());
}
BENCHMARK(BM_ReadBackLargeDag)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
