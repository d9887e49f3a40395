#include "proptests/Differential.h"

#include <random>

#include "driver/Language.h"
#include "interp/Optimized.h"
#include "proptests/RandomProgram.h"
#include "rewrite/Engine.h"

namespace shapelab::proptests {

std::string DifferentialFailure::script() const {
  std::string s = "# " + message + "\n";
  for (const std::string &l : program) s += l + "\n";
  return s;
}

namespace {

struct Outcome {
  std::optional<interp::Array> value;
  std::optional<interp::EvalError::Kind> error;
  std::string message;
  std::string internal; // an interpreter's own consistency check failed (e.g. kernel vs shape rule)
};

template <class Run> Outcome outcome(Run &&run) {
  Outcome o;
  try {
    o.value = run();
  } catch (const interp::EvalError &e) {
    o.error = e.kind;
    o.message = e.what();
  } catch (const InternalError &e) {
    o.internal = e.what();
  }
  return o;
}

std::string describe(const Outcome &o) {
  if (o.error) return std::string(interp::EvalError::spelling(*o.error)) + " error (" + o.message + ")";
  return ops::spelling(o.value->dtype()) + std::string(" ") + interp::shapeText(o.value->shape()) + " " +
         (o.value->size() <= 16 ? o.value->toString() : "");
}

/// The names a program assigns (inputs excluded) that its session holds, in order.
std::vector<std::string> outputNames(driver::Session &session, const std::vector<std::string> &lines) {
  std::vector<std::string> names;
  for (const std::string &line : lines) {
    std::size_t eq = line.find(" = ");
    if (eq == std::string::npos || line.find(',') < eq || line.find("input(") != std::string::npos) continue;
    std::string name = line.substr(0, eq);
    if (session.lookup(name)) names.push_back(name);
  }
  return names;
}

/// The check on a program already built in `session`.
std::optional<std::string> checkBuilt(driver::Session &session, const std::vector<std::string> &names, uint64_t seed,
                                      const DifferentialOptions &options, DifferentialStats *stats) {
  ops::Graph &g = session.mutableGraph();
  std::vector<const ops::Node *> originals;
  for (const std::string &n : names) originals.push_back(session.lookup(n));
  rewrite::EngineOptions eo;
  eo.exactOnly = true;
  rewrite::Engine engine(g, rewrite::defaultRules(), eo);
  rewrite::OptimizeResult r;
  try {
    r = engine.run(originals);
  } catch (const UserError &e) {
    return std::string("the rewrite engine failed: ") + e.what();
  }
  if (stats) {
    ++stats->programs;
    for (std::size_t i = 0; i < originals.size(); ++i) stats->rewritten += r.outputs[i] != originals[i];
  }
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < options.points; ++trial) {
    int64_t n = int64_t(rng() % 5), m = int64_t(rng() % 5);
    Assignment point{{"n", n}, {"m", m}};
    // Inputs given explicitly (so that their mutation would show): the seeded values.
    std::map<std::string, interp::Array> inputs, copies;
    interp::addSeededInputs(g, point, seed + uint64_t(trial), inputs);
    for (const auto &[name, a] : inputs) copies[name] = a.astype(a.dtype());
    interp::InterpreterOptions io;
    io.seed = seed;
    interp::Interpreter reference(g, point, inputs, io);
    interp::OptimizedInterpreter optimized(g, point, inputs, io);
    optimized.setLibmMath(true);
    optimized.setThreads(1 + unsigned(trial % 2)); // both the one-thread and the split loops
    for (std::size_t i = 0; i < originals.size(); ++i) {
      Outcome want = outcome([&] { return reference.evaluate(originals[i]); });
      Outcome got = outcome([&] { return optimized.evaluate(r.outputs[i]); });
      if (stats) ++stats->evaluations;
      std::string where = names[i] + " at n = " + std::to_string(n) + ", m = " + std::to_string(m);
      if (!want.internal.empty()) return where + ": the reference interpreter: " + want.internal;
      if (!got.internal.empty()) return where + ": the optimized interpreter: " + got.internal;
      if (want.error || got.error) {
        if (want.error != got.error)
          return where + ": the reference gives " + describe(want) + ", the optimized interpreter " + describe(got);
        if (stats) ++stats->errorsAgreed;
        continue;
      }
      if (!want.value->identical(*got.value))
        return where + ": the reference gives " + describe(want) + ", the optimized interpreter " + describe(got);
    }
    for (const auto &[name, a] : inputs)
      if (!a.identical(copies.at(name))) return "input " + name + " was modified at n = " + std::to_string(n) + ", m = " + std::to_string(m);
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> checkProgram(const std::vector<std::string> &lines, uint64_t seed,
                                        const DifferentialOptions &options, DifferentialStats *stats) {
  Solver local;
  driver::SessionOptions so;
  so.mode = options.mode;
  driver::Session session(options.solver ? *options.solver : local, so);
  for (std::size_t i = 0; i < lines.size(); ++i) session.execute(lines[i], int(i + 1));
  return checkBuilt(session, outputNames(session, lines), seed, options, stats);
}

std::optional<DifferentialFailure> checkRandomProgram(uint64_t seed, const DifferentialOptions &options,
                                                      DifferentialStats *stats) {
  std::vector<std::string> lines;
  std::optional<std::string> failure;
  {
    // The program is checked in the session that generated it (built once).
    Solver local;
    driver::SessionOptions so;
    so.mode = options.mode;
    driver::Session session(options.solver ? *options.solver : local, so);
    std::mt19937_64 rng(seed);
    lines = generateProgram(session, rng, options.statements).lines;
    if (options.mode == BroadcastMode::Static) lines.insert(lines.begin(), "mode static");
    failure = checkBuilt(session, outputNames(session, lines), seed, options, stats);
  }
  if (!failure) return std::nullopt;
  // The script is what reproduces it: confirm with a fresh build, then shrink from there.
  if (std::optional<std::string> again = checkProgram(lines, seed, options)) {
    failure = again;
  } else {
    DifferentialFailure f;
    f.message = *failure + " (seed " + std::to_string(seed) + "; not reproduced by building the script afresh)";
    f.program = lines;
    return f;
  }
  // Shrink: drop statements (from the last) while the program still fails.
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t i = lines.size(); i-- > 0;) {
      if (lines[i].rfind("param", 0) == 0 || lines[i].rfind("mode", 0) == 0) continue;
      std::vector<std::string> fewer = lines;
      fewer.erase(fewer.begin() + std::ptrdiff_t(i));
      if (std::optional<std::string> f = checkProgram(fewer, seed, options)) {
        lines = std::move(fewer);
        failure = f;
        progress = true;
      }
    }
  }
  DifferentialFailure f;
  f.message = *failure + " (seed " + std::to_string(seed) + ")";
  f.program = lines;
  return f;
}

} // namespace shapelab::proptests
