// Programs: parse + build + infer every shape of a random program (the figures: 10^4
// nodes in < 0.1 s, 10^5 in < 1 s), and memory across many built-and-dropped programs.
// The program text is generated once (proptests/RandomProgram.h: elementwise ops with
// broadcasting, reshapes, slices with symbolic bounds, reductions, ... over symbolic inputs);
// each iteration runs it in a fresh session (tokenize, evaluate, build nodes, decide validity),
// then drops the session with the clock stopped (its time is the counter teardown_s).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <sstream>

#include "driver/Language.h"
#include "ops/Graph.h"
#include "proptests/RandomProgram.h"
#include "rewrite/Engine.h"
#include "shape/ArraySize.h"

using namespace shapelab;

namespace {

/// The fastest of the repetitions (--benchmark_repetitions=N): on a shared machine a run is
/// slowed by what else runs, never sped up, so the minimum is the figure that repeats.
double fastest(const std::vector<double> &v) { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); }

/// Drops what an iteration built (the session, its graph and expressions, then the solver)
/// with the clock stopped: freeing a 10^5-node program takes about 40 ms, which is neither
/// parsing, building nor inferring. Returns the seconds it took, which the benchmarks report
/// as their own counter (teardown_s).
template <class... Owned> double dropUntimed(benchmark::State &state, Owned &...owned) {
  state.PauseTiming();
  auto start = std::chrono::steady_clock::now();
  (owned.reset(), ...);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  state.ResumeTiming();
  return seconds;
}

/// A program of about `nodes` graph nodes, as text (one generated program: its statements
/// refer to names it defined; the basic mix makes about one node per statement, the full mix
/// about two).
/// With `parts` > 1: that many independent programs of nodes/parts each, one after the other in
/// one session (the second and later ones name their values apart and read only their own).
std::vector<std::string> programText(std::size_t nodes, bool basicOnly, std::size_t parts = 1) {
  Solver solver;
  driver::Session session(solver, {});
  std::mt19937_64 rng(2026);
  proptests::ProgramOptions o;
  o.dataDependent = !basicOnly;
  o.basicOnly = basicOnly;
  o.partialOps = !basicOnly;
  // A statement makes one to three nodes.
  std::vector<std::string> lines;
  for (std::size_t k = 0; k < parts; ++k) {
    std::vector<std::string> part =
        proptests::generateProgram(session, rng, int((basicOnly ? nodes : nodes / 2) / parts), o).lines;
    lines.insert(lines.end(), part.begin(), part.end());
  }
  return lines;
}

void BM_ParseBuildInfer(benchmark::State &state) {
  static std::map<std::pair<int64_t, int64_t>, std::vector<std::string>> cache;
  auto &lines = cache[{state.range(0), state.range(2)}];
  if (lines.empty()) lines = programText(std::size_t(state.range(0)), state.range(2) != 0);
  std::size_t nodes = 0;
  uint64_t islQuestions = 0;
  SolverOptions options;
  options.witnessSearchPoints = uint64_t(state.range(1));
  driver::SessionOptions sessionOptions;
  sessionOptions.json = state.range(3) != 0;
  double teardownSeconds = 0;
  for (auto _ : state) {
    clearElementCountMemo(); // a cold build: nothing remembered from the last run
    auto solver = std::make_unique<Solver>(options);
    auto session = std::make_unique<driver::Session>(*solver, sessionOptions);
    int k = 0;
    for (const std::string &l : lines) session->execute(l, ++k);
    nodes = session->nodeCount();
    islQuestions = solver->stats().islQuestions;
    benchmark::DoNotOptimize(nodes);
    teardownSeconds += dropUntimed(state, session, solver);
  }
  state.counters["teardown_s"] = teardownSeconds / double(state.iterations());
  state.counters["nodes"] = double(nodes);
  // Questions that reached isl (the rest were answered by memo, intervals or evaluation): a
  // figure that does not depend on the machine.
  state.counters["isl_questions"] = double(islQuestions);
  state.counters["statements"] = double(lines.size());
  // Seconds per node (the time divided by the nodes built per iteration).
  state.counters["s_per_node"] = benchmark::Counter(double(nodes), benchmark::Counter::kIsIterationInvariantRate |
                                                                       benchmark::Counter::kInvert);
}
// Args: nodes, the solver's witness-search budget, basic mix (1) or every op (0), replies as
// text (0: each assignment's shape, status and runtime checks, whose exact conditions are read
// from the solver) or as JSON (1: shape and status, as `shapelab run --json` prints them).
BENCHMARK(BM_ParseBuildInfer)
    ->ArgNames({"nodes", "witness", "basic", "json"})
    ->Args({10000, 20000, 1, 0})
    ->Args({10000, 256, 1, 0})
    ->Args({10000, 256, 1, 1})
    ->Args({100000, 256, 1, 0})
    ->Args({100000, 256, 1, 1})
    ->Args({2000, 20000, 0, 0})
    ->Args({2000, 256, 0, 0})->Unit(benchmark::kMillisecond)->Iterations(3)->ComputeStatistics("min", fastest);

/// Shape inference + checked rewriting (issue 7: time per node flat from 10^3 to 10^5 nodes,
/// 10^3 nodes in <= 30 ms): the program is built in a fresh session, then every name it
/// assigned is rewritten by the default rules with every application checked (strict, exact).
/// `rewrite_s` is the rewriting part alone.
void BM_InferAndRewrite(benchmark::State &state) {
  static std::map<std::pair<int64_t, int64_t>, std::vector<std::string>> cache;
  auto &lines = cache[{state.range(0), state.range(1)}];
  if (lines.empty()) lines = programText(std::size_t(state.range(0)), true, std::size_t(state.range(1)));
  std::size_t nodes = 0, fired = 0, refused = 0, dims = 0, conditionsRead = 0, islQuestions = 0;
  double rewriteSeconds = 0, dimTreeTotal = 0;
  SolverOptions options;
  options.witnessSearchPoints = 256;
  double teardownSeconds = 0;
  for (auto _ : state) {
    clearElementCountMemo();
    auto solver = std::make_unique<Solver>(options);
    auto session = std::make_unique<driver::Session>(*solver, driver::SessionOptions{});
    int k = 0;
    std::vector<std::string> names;
    for (const std::string &l : lines) {
      session->execute(l, ++k);
      std::size_t eq = l.find(" = ");
      if (eq != std::string::npos && l.find(',') > eq) names.push_back(l.substr(0, eq));
    }
    std::vector<const ops::Node *> outputs;
    for (const std::string &n : names)
      if (const ops::Node *node = session->lookup(n)) outputs.push_back(node);
    nodes = session->nodeCount();
    // The size of the shapes built: random programs of more nodes are deeper, and deeper
    // shapes (a slice of a slice of ...) are larger expressions with harder questions.
    dimTreeTotal = 0;
    dims = 0;
    for (const ops::Node *node : outputs)
      for (const Expr &d : node->shape) {
        dimTreeTotal += double(d.node()->treeSize);
        ++dims;
      }
    auto start = std::chrono::steady_clock::now();
    rewrite::EngineOptions eo;
    eo.exactOnly = true;
    {
      rewrite::Engine engine(session->mutableGraph(), rewrite::defaultRules(), eo);
      rewrite::OptimizeResult r = engine.run(outputs);
      rewriteSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fired = 0;
      for (const auto &[rule, count] : r.fired) fired += count;
      refused = r.refused.size();
      benchmark::DoNotOptimize(r);
    }
    conditionsRead = solver->stats().conditionsRead;
    islQuestions = solver->stats().islQuestions;
    teardownSeconds += dropUntimed(state, session, solver);
  }
  state.counters["teardown_s"] = teardownSeconds / double(state.iterations());
  state.counters["nodes"] = double(nodes);
  state.counters["fired"] = double(fired);
  state.counters["refused"] = double(refused);
  state.counters["rewrite_s"] = rewriteSeconds / double(state.iterations());
  // Exact conditions computed by isl (a Depends reads its condition only when asked for it).
  state.counters["conditions_read"] = double(conditionsRead);
  // Questions that reached isl, building and rewriting together (machine-independent).
  state.counters["isl_questions"] = double(islQuestions);
  state.counters["mean_dim_nodes"] = dims ? dimTreeTotal / double(dims) : 0;
  state.counters["s_per_node"] = benchmark::Counter(double(nodes), benchmark::Counter::kIsIterationInvariantRate |
                                                                       benchmark::Counter::kInvert);
}
// Args: nodes, and how many independent programs share them. parts = 10 keeps each program's
// depth (and so the size of its shapes) that of a program of nodes/10: against parts = 1 it
// separates the cost of deeper shapes from the cost of a larger graph.
BENCHMARK(BM_InferAndRewrite)
    ->ArgNames({"nodes", "parts"})
    ->Args({1000, 1})
    ->Args({10000, 1})
    ->Args({100000, 1})
    ->Args({10000, 10})
    ->Args({100000, 100})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->ComputeStatistics("min", fastest);

long peakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

/// Builds and drops 10^5 small random programs (the figure), each with its own symbolic
/// expressions; reports the growth of the peak resident set across them.
void BM_BuildAndDropPrograms(benchmark::State &state) {
  std::mt19937_64 rng(11);
  Solver solver;
  long before = 0;
  for (auto _ : state) {
    for (int64_t i = 0; i < state.range(0); ++i) {
      driver::Session session(solver, {});
      proptests::GeneratedProgram p = proptests::generateProgram(session, rng, 4);
      benchmark::DoNotOptimize(p);
      if (i == 100) before = peakRssKb();
      if (i % 1000 == 0) solver.clearMemo();
    }
  }
  state.counters["peak_rss_growth_MB"] = double(peakRssKb() - before) / 1024.0;
  InternedCounts c = internedCounts();
  state.counters["exprs_alive_after"] = double(c.exprs);
}
BENCHMARK(BM_BuildAndDropPrograms)->Arg(100000)->Unit(benchmark::kSecond)->Iterations(1);

} // namespace

BENCHMARK_MAIN();
