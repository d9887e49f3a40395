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
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include "lang/Session.h"
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
/// With `parts` > 1: that many independent programs of nodes/parts each, one after the other,
/// as one session runs them (the second and later ones name their values apart and read only
/// their own); each part is a list of lines, and every part but the first reads the size
/// parameters the first declared (partText gives a part that runs alone).
std::vector<std::vector<std::string>> programParts(std::size_t nodes, bool basicOnly, std::size_t parts = 1) {
  Solver solver;
  lang::Session session(solver, {});
  std::mt19937_64 rng(2026);
  proptests::ProgramOptions o;
  o.dataDependent = !basicOnly;
  o.basicOnly = basicOnly;
  o.partialOps = !basicOnly;
  o.practitioner = false; // the workloads the figures were measured on
  std::vector<std::vector<std::string>> out;
  for (std::size_t k = 0; k < parts; ++k)
    out.push_back(proptests::generateProgram(session, rng, int((basicOnly ? nodes : nodes / 2) / parts), o).lines);
  return out;
}
/// The parts one after the other, as one program.
std::vector<std::string> joined(const std::vector<std::vector<std::string>> &parts) {
  std::vector<std::string> lines;
  for (const auto &part : parts) lines.insert(lines.end(), part.begin(), part.end());
  return lines;
}
std::vector<std::string> programText(std::size_t nodes, bool basicOnly, std::size_t parts = 1) {
  return joined(programParts(nodes, basicOnly, parts));
}
/// Part `k` of programParts as a program of its own: the first part declares the size
/// parameters, and the others get that declaration in front.
std::vector<std::string> partText(const std::vector<std::vector<std::string>> &parts, std::size_t k) {
  std::vector<std::string> lines;
  if (parts[0].at(0).rfind("param ", 0) != 0) throw std::logic_error("the first part does not declare the size parameters first");
  if (k > 0) lines.push_back(parts[0][0]);
  lines.insert(lines.end(), parts[k].begin(), parts[k].end());
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
  lang::SessionOptions sessionOptions;
  sessionOptions.json = state.range(3) != 0;
  double teardownSeconds = 0;
  for (auto _ : state) {
    clearElementCountMemo(); // a cold build: nothing remembered from the last run
    auto solver = std::make_unique<Solver>(options);
    auto session = std::make_unique<lang::Session>(*solver, sessionOptions);
    int k = 0;
    // The replies are read, as a script's are printed (a reply's text is made when read).
    for (const std::string &l : lines) benchmark::DoNotOptimize(session->execute(l, ++k).lines().size());
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

/// What one run of inferAndRewrite measured.
struct RewriteRun {
  std::size_t nodes = 0, fired = 0, refused = 0, dims = 0, conditionsRead = 0, islQuestions = 0, made = 0;
  std::size_t shapeNodes = 0, pendingEntries = 0;
  double rewriteSeconds = 0, dimTreeTotal = 0, teardownSeconds = 0;
  /// Of the rewriting: seconds in questions that reached isl, the longest one (when longer than
  /// any of the build), the answers cut short by the time limit, the questions of 100 ms or more,
  /// the quick proofs given up at their bound.
  double rewriteIslSeconds = 0, rewriteSlowest = 0;
  std::size_t rewriteTimeouts = 0, rewriteSlowQuestions = 0, rewriteQuickBoundHits = 0;
  RewriteRun &operator+=(const RewriteRun &r) {
    rewriteIslSeconds += r.rewriteIslSeconds, rewriteSlowest = std::max(rewriteSlowest, r.rewriteSlowest);
    rewriteTimeouts += r.rewriteTimeouts, rewriteSlowQuestions += r.rewriteSlowQuestions;
    rewriteQuickBoundHits += r.rewriteQuickBoundHits;
    nodes += r.nodes, fired += r.fired, refused += r.refused, dims += r.dims, conditionsRead += r.conditionsRead;
    islQuestions += r.islQuestions, made += r.made, shapeNodes += r.shapeNodes, pendingEntries += r.pendingEntries;
    rewriteSeconds += r.rewriteSeconds, dimTreeTotal += r.dimTreeTotal, teardownSeconds += r.teardownSeconds;
    return *this;
  }
};

/// SHAPELAB_PROFILE_FIFO=F: writes `command` and a newline to the fifo F, so that a profiler
/// reading its commands there (started disabled) samples the rewriting only:
///   mkfifo F; perf record -D -1 --control fifo:F -g build/bench/bench_programs ...
void profilerControl(const char *command) {
  if (const char *fifo = std::getenv("SHAPELAB_PROFILE_FIFO")) {
    std::ofstream out(fifo, std::ios::app); // (appending: a file given for F is not emptied)
    out << command << "\n" << std::flush;
  }
}

/// Runs `lines` in a fresh session and solver, then rewrites every name they assigned with the
/// default rules, every application checked (strict, exact); the session and solver are dropped
/// with the clock stopped.
RewriteRun inferAndRewrite(benchmark::State &state, const std::vector<std::string> &lines, bool exactOnly = true) {
  RewriteRun run;
  SolverOptions options;
  options.witnessSearchPoints = 256;
  clearElementCountMemo();
  auto solver = std::make_unique<Solver>(options);
  auto session = std::make_unique<lang::Session>(*solver, lang::SessionOptions{});
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
  run.nodes = session->nodeCount();
  // The size of the shapes built, written out: of every dim of every node, and of the named
  // arrays' dims. Random programs of more nodes are deeper, and deeper shapes (a slice of a
  // slice of ...) are larger expressions with harder questions.
  for (const ops::Node &node : session->mutableGraph().nodes()) {
    for (const Expr &d : node.shape) run.shapeNodes += d.node()->treeSize;
    if (node.pending) run.pendingEntries += node.pending->size();
  }
  for (const ops::Node *node : outputs)
    for (const Expr &d : node->shape) {
      run.dimTreeTotal += double(d.node()->treeSize);
      ++run.dims;
    }
  const SolverStats before = solver->stats();
  auto start = std::chrono::steady_clock::now();
  rewrite::EngineOptions eo;
  eo.exactOnly = exactOnly;
  {
    rewrite::Engine engine(session->mutableGraph(), rewrite::defaultRules(), eo);
    profilerControl("enable");
    rewrite::OptimizeResult r = engine.run(outputs);
    profilerControl("disable");
    run.made = session->nodeCount() - run.nodes;
    run.rewriteSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const auto &[rule, count] : r.fired) run.fired += count;
    run.refused = r.refused.size();
    benchmark::DoNotOptimize(r);
  }
  const SolverStats &after = solver->stats();
  run.rewriteIslSeconds = after.islSeconds - before.islSeconds;
  // The longest question of the rewriting, when it was longer than every one before it.
  run.rewriteSlowest = after.slowestIslSeconds > before.slowestIslSeconds ? after.slowestIslSeconds : 0;
  run.rewriteTimeouts = after.timeouts - before.timeouts;
  run.rewriteSlowQuestions = after.slowIslQuestions - before.slowIslQuestions;
  run.rewriteQuickBoundHits = after.quickBoundHits - before.quickBoundHits;
  run.conditionsRead = solver->stats().conditionsRead;
  run.islQuestions = solver->stats().islQuestions;
  run.teardownSeconds = dropUntimed(state, session, solver);
  return run;
}

/// Shape inference + checked rewriting (issue 7: time per node flat from 10^3 to 10^5 nodes,
/// 10^3 nodes in <= 30 ms). Args: nodes, parts, apart.
/// - parts = 1: one random program; its depth grows like log(nodes), and its shapes with it.
/// - parts > 1, apart = 0: that many independent programs of nodes/parts each, run one after
///   the other in one session and rewritten together: a program of `nodes` nodes whose depth and
///   shapes are those of a program of nodes/parts.
/// - apart = 1: the same programs, each in a fresh session of its own (the time summed): the
///   mean over `parts` random programs of nodes/parts, where parts = 1 is a single draw.
/// The counters are per iteration (summed over the parts run apart).
void BM_InferAndRewrite(benchmark::State &state) {
  static std::map<std::pair<int64_t, int64_t>, std::vector<std::vector<std::string>>> cache;
  auto &parts = cache[{state.range(0), state.range(1)}];
  if (parts.empty()) parts = programParts(std::size_t(state.range(0)), true, std::size_t(state.range(1)));
  const bool apart = state.range(2) != 0;
  std::vector<std::vector<std::string>> runs;
  if (apart)
    for (std::size_t k = 0; k < parts.size(); ++k) runs.push_back(partText(parts, k));
  else
    runs.push_back(joined(parts));
  // Summed over the iterations, each of which runs the same programs: divided by their number,
  // a count is one iteration's.
  RewriteRun all;
  for (auto _ : state)
    for (const auto &lines : runs) all += inferAndRewrite(state, lines);
  const double iterations = double(state.iterations());
  state.counters["teardown_s"] = all.teardownSeconds / iterations;
  state.counters["nodes"] = double(all.nodes) / iterations;
  state.counters["fired"] = double(all.fired) / iterations;
  state.counters["refused"] = double(all.refused) / iterations;
  // Nodes the rewriting made (the replacements, and each reader of a changed node rebuilt).
  state.counters["made"] = double(all.made) / iterations;
  state.counters["rewrite_s"] = all.rewriteSeconds / iterations;
  // Exact conditions computed by isl (a Depends reads its condition only when asked for it).
  state.counters["conditions_read"] = double(all.conditionsRead) / iterations;
  // Questions that reached isl, building and rewriting together (machine-independent).
  state.counters["isl_questions"] = double(all.islQuestions) / iterations;
  state.counters["mean_dim_nodes"] = all.dims ? all.dimTreeTotal / double(all.dims) : 0;
  state.counters["s_per_node"] = benchmark::Counter(double(all.nodes) / iterations,
                                                    benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["shape_nodes"] = double(all.shapeNodes) / iterations;
  // Nodes with obligations that computing a node gathers (its pending list), on average over
  // the nodes built: a node's validity is read from them, and they grow with its ancestors.
  state.counters["pending_per_node"] = all.nodes ? double(all.pendingEntries) / double(all.nodes) : 0;
  // Seconds per node of the dims built (shape_nodes): the time as a function of the shapes'
  // size rather than of the node count.
  state.counters["s_per_shape_node"] = benchmark::Counter(double(all.shapeNodes) / iterations,
                                                          benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_InferAndRewrite)
    ->ArgNames({"nodes", "parts", "apart"})
    ->Args({1000, 1, 0})
    ->Args({10000, 1, 0})
    ->Args({100000, 1, 0})
    ->Args({10000, 10, 0})
    ->Args({100000, 100, 0})
    ->Args({100000, 100, 1})
    ->Args({100000, 10, 1})
    ->Args({100000, 10, 0})
    ->Args({300000, 3, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->ComputeStatistics("min", fastest);

/// Rewriting graphs that come from other compilers (issue 70): a random program of elementwise
/// ops with broadcasting, transposes, expand_dims, reshapes, keepdims sums and symbolic slices,
/// its inputs sharing the sizes n and m (independent = 0) or each dim of each input its own size
/// (independent = 1, PyTensor's None), built and then rewritten with the exact rules (rules = 0)
/// or every rule (rules = 1). Targets: independent within 2x of shared at 10^3, 10^4, 10^5.
void BM_RewriteFamily(benchmark::State &state) {
  static std::map<std::pair<int64_t, int64_t>, std::vector<std::string>> cache;
  auto &lines = cache[{state.range(0), state.range(1)}];
  if (lines.empty()) {
    Solver solver;
    lang::Session session(solver, {});
    std::mt19937_64 rng(2027);
    proptests::ProgramOptions o;
    o.basicOnly = true;
    o.layoutOps = true;
    o.dataDependent = false;
    o.partialOps = true;
    o.practitioner = false;
    o.independentSizes = state.range(1) != 0;
    // SHAPELAB_DUMP_DIR=D writes each program as D/family-NODES-INDEPENDENT.shl (to profile
    // or run it with `shapelab run`), or reads it from there when a run before wrote it
    // (generating a program of 10^5 nodes takes minutes).
    const char *dir = std::getenv("SHAPELAB_DUMP_DIR");
    const std::string file = dir ? std::string(dir) + "/family-" + std::to_string(state.range(0)) + "-" +
                                       std::to_string(state.range(1)) + ".shl"
                                 : "";
    if (std::ifstream in(file); dir && in)
      for (std::string l; std::getline(in, l);) lines.push_back(l);
    if (lines.empty()) {
      lines = proptests::generateProgram(session, rng, int(state.range(0)), o).lines;
      if (dir) {
        std::ofstream out(file);
        for (const std::string &l : lines) out << l << "\n";
      }
    }
  }
  RewriteRun all;
  double buildSeconds = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    RewriteRun run = inferAndRewrite(state, lines, state.range(2) == 0);
    buildSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - run.rewriteSeconds -
                    run.teardownSeconds;
    all += run;
  }
  const double iterations = double(state.iterations());
  state.counters["nodes"] = double(all.nodes) / iterations;
  state.counters["fired"] = double(all.fired) / iterations;
  state.counters["refused"] = double(all.refused) / iterations;
  state.counters["build_s"] = buildSeconds / iterations;
  state.counters["rewrite_s"] = all.rewriteSeconds / iterations;
  state.counters["rewrite_us_per_node"] = all.nodes ? 1e6 * all.rewriteSeconds / double(all.nodes) : 0;
  // Nodes the rewriting made (the replacements, and each reader of a changed node rebuilt).
  state.counters["made"] = double(all.made) / iterations;
  state.counters["rewrite_isl_s"] = all.rewriteIslSeconds / iterations;
  state.counters["rewrite_slowest_s"] = all.rewriteSlowest;
  state.counters["rewrite_timeouts"] = double(all.rewriteTimeouts) / iterations;
  state.counters["rewrite_slow_questions"] = double(all.rewriteSlowQuestions) / iterations;
  // Rule conditions and simplifications not proven within provesQuickly's bound.
  state.counters["rewrite_quick_bound_hits"] = double(all.rewriteQuickBoundHits) / iterations;
  state.counters["isl_questions"] = double(all.islQuestions) / iterations;
}
BENCHMARK(BM_RewriteFamily)
    ->ArgNames({"nodes", "independent", "rules"})
    ->ArgsProduct({{1000, 10000, 100000}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

/// Each iteration builds `lines` in a fresh session (timed: build_s) and then runs `after`
/// (timed: WHAT_s), the last statement of which must succeed; reports both, WHAT_over_build,
/// the nodes of the program (nodes) and those `after` added (nodes_added). Replies as JSON
/// (shape and status per statement, as `shapelab run --json` prints them).
void buildThen(benchmark::State &state, const std::vector<std::string> &lines, const std::vector<std::string> &after,
               const std::string &what) {
  lang::SessionOptions json;
  json.json = true;
  double build = 0, then = 0, teardown = 0;
  std::size_t programNodes = 0, allNodes = 0;
  for (auto _ : state) {
    clearElementCountMemo();
    auto solver = std::make_unique<Solver>();
    auto session = std::make_unique<lang::Session>(*solver, json);
    int k = 0;
    auto start = std::chrono::steady_clock::now();
    for (const std::string &l : lines) benchmark::DoNotOptimize(session->execute(l, ++k).lines().size());
    auto built = std::chrono::steady_clock::now();
    programNodes = session->nodeCount();
    lang::Reply r;
    for (const std::string &l : after) benchmark::DoNotOptimize((r = session->execute(l, ++k)).lines().size());
    auto done = std::chrono::steady_clock::now();
    if (r.failed) throw std::logic_error(what + " failed: " + r.lines().at(0));
    build += std::chrono::duration<double>(built - start).count();
    then += std::chrono::duration<double>(done - built).count();
    allNodes = session->nodeCount();
    teardown += dropUntimed(state, session, solver);
  }
  const double n = double(state.iterations());
  state.counters["build_s"] = build / n;
  state.counters[what + "_s"] = then / n;
  state.counters[what + "_over_build"] = then / build;
  state.counters["teardown_s"] = teardown / n;
  state.counters["nodes"] = double(programNodes);
  state.counters["nodes_added"] = double(allNodes - programNodes);
}

/// The gradient of a random program (the figure: grad of a 10^4-node program built in at
/// most 2x the time of building the program). The program (basic mix) gets a cost that reads
/// every array no other array reads (the sum of their sums), so every node is on a path; each
/// iteration builds it in a fresh session (timed as build_s) and then differentiates the cost
/// with respect to every float input it reads (timed as grad_s). Reported: both, and their ratio.
void BM_GradOfProgram(benchmark::State &state) {
  std::vector<std::string> lines = programText(std::size_t(state.range(0)), true);
  std::string wrt;
  {
    // The sinks and the float inputs, found once.
    Solver solver;
    lang::Session session(solver, {});
    int k = 0;
    for (const std::string &l : lines) session.execute(l, ++k);
    std::set<const ops::Node *> read;
    for (const ops::Node &n : session.graph().nodes())
      for (const ops::Node *i : n.inputs) read.insert(i);
    std::string cost;
    for (const ops::Node &n : session.graph().nodes()) {
      if (read.count(&n) || !ops::isFloat(n.dtype) || n.kind == ops::OpKind::Input) continue;
      const std::string name = [&] {
        for (const std::string &l : lines) {
          const std::string nm = l.substr(0, l.find(" = "));
          if (session.lookup(nm) == &n) return nm;
        }
        return std::string();
      }();
      if (!name.empty()) cost += (cost.empty() ? "" : " + ") + std::string("np.sum(") + name + ")";
    }
    lines.push_back("cost = " + cost);
    const lang::Reply made = session.execute(lines.back(), ++k);
    if (made.failed) throw std::logic_error("the cost is refused: " + made.lines().at(0));
    std::vector<std::string> inputs; // (named first: each probe adds nodes to the graph)
    for (const ops::Node &n : session.graph().nodes())
      if (n.kind == ops::OpKind::Input && ops::isFloat(n.dtype)) inputs.push_back(n.op);
    for (const std::string &input : inputs) {
      const lang::Reply probe = session.execute("g_probe = grad(cost, " + input + ")", ++k);
      if (!probe.failed) wrt += (wrt.empty() ? "" : ", ") + input;
      else if (probe.lines().at(0).find("does not depend") == std::string::npos)
        throw std::logic_error("grad is refused: " + probe.lines().at(0));
    }
  }
  buildThen(state, lines, {"g = grad(cost, [" + wrt + "])"}, "grad");
}
BENCHMARK(BM_GradOfProgram)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(3);

/// Vectorizing a random program (the figure: vectorize of a 10^4-node program in at
/// most 2x the build time): each iteration builds the program (build_s), then replaces its
/// first float input by a batch of b examples and rebuilds every array of the program over
/// it in one vectorize call (vectorize_s).
void BM_VectorizeProgram(benchmark::State &state) {
  std::vector<std::string> lines = programText(std::size_t(state.range(0)), true);
  std::string input, shape, dtype, outputs;
  {
    Solver solver;
    lang::Session session(solver, {});
    int k = 0;
    for (const std::string &l : lines) session.execute(l, ++k);
    for (const ops::Node &n : session.graph().nodes())
      if (n.kind == ops::OpKind::Input && ops::isFloat(n.dtype)) {
        input = n.op;
        dtype = ops::spelling(n.dtype);
        shape = "(nb";
        for (const Expr &d : n.shape) shape += ", " + d.toString();
        shape += ")";
        break;
      }
    for (const std::string &l : lines) {
      const std::string name = l.substr(0, l.find(" = "));
      if (name != l && session.lookup(name) && session.lookup(name)->kind != ops::OpKind::Input)
        outputs += (outputs.empty() ? "" : ", ") + name;
    }
  }
  buildThen(state, lines,
            {"param nb", "xb_ = input(" + shape + ", " + dtype + ")", "out_ = vectorize([" + outputs + "], " + input + "=xb_)"},
            "vectorize");
}
BENCHMARK(BM_VectorizeProgram)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(3);

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
      lang::Session session(solver, {});
      proptests::ProgramOptions o;
      o.practitioner = false; // the workload the figures were measured on
      proptests::GeneratedProgram p = proptests::generateProgram(session, rng, 4, o);
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
