#include "proptests/Differential.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>
#include <type_traits>
#include <variant>

#include "lang/Session.h"
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
    auto r = run();
    if constexpr (std::is_same_v<decltype(r), std::variant<interp::Array, interp::EvalError>>) {
      if (auto *e = std::get_if<interp::EvalError>(&r)) {
        o.error = e->kind;
        o.message = e->what();
      } else {
        o.value = std::get<interp::Array>(std::move(r));
      }
    } else {
      o.value = std::move(r);
    }
  } catch (const interp::EvalError &e) {
    o.error = e.kind;
    o.message = e.what();
  } catch (const InternalError &e) {
    o.internal = e.what();
  } catch (const std::exception &e) {
    // Anything else escaping an interpreter (a size it could not evaluate, ...) is a failure to
    // report and shrink like the others, not the end of the run.
    o.internal = std::string("an unexpected error: ") + e.what();
  }
  return o;
}

std::string describe(const Outcome &o) {
  if (o.error) return std::string(interp::EvalError::spelling(*o.error)) + " error (" + o.message + ")";
  return ops::spelling(o.value->dtype()) + std::string(" ") + interp::shapeText(o.value->shape()) + " " +
         (o.value->size() <= 16 ? o.value->toString() : "");
}

/// The names a program assigns (inputs excluded) that its session holds, in order.
std::vector<std::string> outputNames(lang::Session &session, const std::vector<std::string> &lines) {
  std::vector<std::string> names;
  for (const std::string &line : lines) {
    std::size_t eq = line.find(" = ");
    if (eq == std::string::npos || line.find(',') < eq || line.find("input(") != std::string::npos) continue;
    std::string name = line.substr(0, eq);
    if (session.lookup(name)) names.push_back(name);
  }
  return names;
}

/// The same dtype, shape and bits — except that any nan equals any nan (NumPy promises no nan's
/// sign or payload, and x86 gives an operation's nan from whichever operand it reads first).
bool sameValues(const interp::Array &a, const interp::Array &b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.identical(b)) return true;
  interp::Array x = a.contiguous(), y = b.contiguous();
  auto compare = [&](auto *p, auto *q) {
    for (int64_t i = 0; i < x.size(); ++i)
      if (!(std::isnan(p[i]) && std::isnan(q[i])) && std::memcmp(&p[i], &q[i], sizeof p[i]) != 0) return false;
    return true;
  };
  if (a.dtype() == ops::DType::Float64) return compare(x.base<double>(), y.base<double>());
  if (a.dtype() == ops::DType::Float32) return compare(x.base<float>(), y.base<float>());
  return false;
}

/// Replaces about one float element in eight by a special value (nan, ±inf, -0, the largest
/// double, the smallest subnormal), so that the kernels meet them.
void sprinkleSpecials(interp::Array &a, std::mt19937_64 &rng) {
  static const double specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(), -0.0, 1.7976931348623157e308, 5e-324};
  auto fill = [&](auto *p) {
    using T = std::remove_pointer_t<decltype(p)>;
    for (int64_t i = 0; i < a.size(); ++i)
      if (rng() % 8 == 0) p[i] = T(specials[rng() % 6]);
  };
  if (a.dtype() == ops::DType::Float64) fill(a.base<double>());
  else if (a.dtype() == ops::DType::Float32) fill(a.base<float>());
}

/// A shape error and a value error (a singular matrix) are both in a program where its shape
/// rule fails at the point: which one is raised first depends on the order of evaluation, which
/// a rewrite may change (an index lifted through an elementwise op runs before the op's
/// operands). The two outcomes then agree; elsewhere the kinds must be the same.
bool eitherErrorFirst(const ops::Graph &g, const ops::Node *original, const Assignment &point, const Outcome &a,
                      const Outcome &b) {
  using K = interp::EvalError::Kind;
  if (!a.error || !b.error) return false;
  bool shapeAndValue = (*a.error == K::Shape && *b.error == K::Value) || (*a.error == K::Value && *b.error == K::Shape);
  if (!shapeAndValue) return false;
  try {
    return evaluate(ops::validityOf(g, original).domain(), point) != std::optional<bool>(true);
  } catch (const NameError &) {
    return false; // a data-dependent size the run did not reach: not known to fail
  }
}

/// Parameter points: random small ones (0 and 1 often), then where the solver says an output's
/// validity holds and where it fails (its witnesses), when they are small enough to run.
std::vector<Assignment> pointsFor(Solver &solver, const ops::Graph &g, const std::vector<const ops::Node *> &outputs,
                                  std::mt19937_64 &rng, int count) {
  std::vector<Assignment> points;
  for (int i = 0; i < count; ++i) points.push_back(Assignment{{"n", int64_t(rng() % 5)}, {"m", int64_t(rng() % 5)}});
  if (outputs.empty()) return points;
  const ops::Node *pick = outputs[rng() % outputs.size()];
  Pred domain = ops::validityOf(g, pick).domain();
  if (domain.isTrue()) return points;
  Decision d;
  try {
    d = solver.decide(g.contextFor({}), domain);
  } catch (const UserError &) {
    return points; // a question over the limits: the random points only
  }
  for (const std::optional<Assignment> &w : {d.satisfying, d.violating}) {
    if (!w) continue;
    const Integer *n = w->find("n"), *m = w->find("m");
    auto small = [](const Integer *v) { return !v || (v->sign() >= 0 && *v <= Integer(64)); };
    if (small(n) && small(m))
      points.push_back(Assignment{{"n", n ? n->toInt64Checked() : 0}, {"m", m ? m->toInt64Checked() : 0}});
  }
  return points;
}

/// The check on a program already built in `session`.
std::optional<std::string> checkBuilt(lang::Session &session, Solver &solver, const std::vector<std::string> &names,
                                      uint64_t seed, const DifferentialOptions &options, DifferentialStats *stats) {
  ops::Graph &g = session.mutableGraph();
  std::vector<const ops::Node *> originals;
  for (const std::string &n : names) originals.push_back(session.lookup(n));
  rewrite::EngineOptions eo;
  eo.exactOnly = true;
  rewrite::Engine engine(g, rewrite::defaultRules(), eo);
  rewrite::OptimizeResult r;
  g.setCheckRebuilds(options.checkRebuilds);
  struct Unset {
    ops::Graph &g;
    ~Unset() { g.setCheckRebuilds(false); }
  } unset{g};
  try {
    r = engine.run(originals);
  } catch (const UserError &e) {
    return std::string("the rewrite engine failed: ") + e.what();
  } catch (const InternalError &e) {
    return std::string("the rewrite engine failed: ") + e.what();
  }
  // A refusal's witness is what the refusal says it is: a point where the old node is valid
  // (and the replacement fails or differs: unsound) or where it fails (and the replacement runs:
  // valid-graph). The old node's domain is total (Validity::domain), so it is true or false.
  for (const rewrite::Refusal &f : r.refused) {
    if (!f.check.witness) continue;
    std::optional<bool> oldValid;
    try {
      oldValid = evaluate(ops::validityOf(g, f.at).domain(), *f.check.witness);
    } catch (const UserError &) {
      continue; // a data-dependent size has no value at the witness, or the domain is past the limits
    }
    bool claimed = f.check.soundness == rewrite::Soundness::Unsound;
    if (oldValid != std::optional<bool>(claimed))
      return "refused " + f.rule + " at " + f.at->describe() + " (" + spelling(f.check.soundness) +
             ") with a witness where the old node is " +
             (oldValid ? (*oldValid ? "valid" : "not valid") : "undefined") + ": " + f.check.reason;
  }
  if (stats) {
    ++stats->programs;
    for (std::size_t i = 0; i < originals.size(); ++i) stats->rewritten += r.outputs[i] != originals[i];
    for (const auto &[rule, count] : r.fired) stats->fired[rule] += std::size_t(count);
  }
  std::mt19937_64 rng(seed);
  std::vector<Assignment> points = pointsFor(solver, g, originals, rng, options.points);
  for (std::size_t trial = 0; trial < points.size(); ++trial) {
    const Assignment &point = points[trial];
    std::string n = point.find("n")->toString(), m = point.find("m")->toString();
    // Inputs given explicitly (so that their mutation would show): the seeded values, with
    // special values on every other point.
    std::map<std::string, interp::Array> inputs, copies;
    interp::addSeededInputs(g, point, seed + uint64_t(trial), inputs);
    if (trial % 2 == 1)
      for (auto &[name, a] : inputs) sprinkleSpecials(a, rng);
    for (const auto &[name, a] : inputs) copies[name] = a.astype(a.dtype());
    interp::InterpreterOptions io;
    io.seed = seed;
    interp::Interpreter reference(g, point, inputs, io);
    interp::OptimizedInterpreter optimized(g, point, inputs, io);
    optimized.setLibmMath(true);
    // Some seeds run the optimized interpreter's other settings: every elementwise op its own
    // loop, one-element loops through the block loop, layout ops copied instead of viewed.
    optimized.setFusion(seed % 7 != 3);
    optimized.setScalarCode(seed % 3 != 1);
    optimized.setViews(seed % 5 != 2);
    // Every other point runs the fused loops shared between threads, with blocks and chunks
    // small enough (sizes from the seed) that these small arrays are split in several ways.
    if (trial % 2 == 1) {
      optimized.setThreads(2 + unsigned(seed % 2));
      optimized.setLoopGeometry({int64_t(1 + seed % 5), int64_t(1 + (seed / 5) % 3), 0});
    } else {
      optimized.setThreads(1);
    }
    // Every value the optimized interpreter returned, with a private copy: later evaluations
    // must not write through a view or reuse a buffer that a returned value still shares.
    std::vector<std::tuple<std::string, interp::Array, interp::Array>> returned;
    for (std::size_t i = 0; i < originals.size(); ++i) {
      Outcome want = outcome([&] { return reference.attempt(originals[i]); });
      Outcome got = outcome([&] { return optimized.attempt(r.outputs[i]); });
      if (stats) ++stats->evaluations;
      std::string where = names[i] + " at n = " + n + ", m = " + m;
      if (!want.internal.empty()) return where + ": the reference interpreter: " + want.internal;
      if (!got.internal.empty()) return where + ": the optimized interpreter: " + got.internal;
      if (want.error || got.error) {
        if (want.error != got.error && !eitherErrorFirst(g, originals[i], reference.point(), want, got))
          return where + ": the reference gives " + describe(want) + ", the optimized interpreter " + describe(got);
        if (stats) ++stats->errorsAgreed;
        continue;
      }
      if (!sameValues(*want.value, *got.value))
        return where + ": the reference gives " + describe(want) + ", the optimized interpreter " + describe(got);
      returned.emplace_back(names[i], *got.value, got.value->astype(got.value->dtype()));
    }
    for (const auto &[name, value, copy] : returned)
      if (!value.identical(copy))
        return name + " at n = " + n + ", m = " + m + ": the optimized interpreter's returned value changed afterwards";
    for (const auto &[name, a] : inputs)
      if (!a.identical(copies.at(name))) return "input " + name + " was modified at n = " + n + ", m = " + m;
  }
  return std::nullopt;
}

/// The planted failure (DifferentialOptions::planted) of a program, if it has one: a statement
/// that ran (`ran[i]`) and contains the text.
std::optional<std::string> plantedFailure(const std::vector<std::string> &lines, const std::vector<bool> &ran,
                                          const DifferentialOptions &options) {
  if (options.planted.empty()) return std::nullopt;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (ran[i] && lines[i].find(options.planted) != std::string::npos)
      return "a planted failure: a statement contains '" + options.planted + "'";
  return std::nullopt;
}

} // namespace

std::optional<std::string> checkProgram(const std::vector<std::string> &lines, uint64_t seed,
                                        const DifferentialOptions &options, DifferentialStats *stats) {
  Solver local;
  lang::SessionOptions so;
  so.mode = options.mode;
  so.json = true; // replies are read only for failure: nothing rendered as text
  so.replies = false;
  Solver &solver = options.solver ? *options.solver : local;
  lang::Session session(solver, so);
  std::vector<bool> ran;
  for (std::size_t i = 0; i < lines.size(); ++i) ran.push_back(!session.execute(lines[i], int(i + 1)).failed);
  if (std::optional<std::string> p = plantedFailure(lines, ran, options)) return p;
  return checkBuilt(session, solver, outputNames(session, lines), seed, options, stats);
}

void appendGradients(lang::Session &session, std::vector<std::string> &lines) {
  std::string last;
  for (const std::string &line : lines) {
    const std::size_t eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    const ops::Node *n = session.lookup(line.substr(0, eq));
    if (n && ops::isFloat(n->dtype) && n->kind != ops::OpKind::Input) last = line.substr(0, eq);
  }
  if (last.empty()) return;
  const std::string cost = "cost_ = np.sum(np.sin(" + last + "))";
  if (session.execute(cost, int(lines.size() + 1)).failed) return;
  lines.push_back(cost);
  std::vector<std::string> inputs; // (named first: each grad statement adds nodes)
  for (const ops::Node &n : session.graph().nodes())
    if (n.kind == ops::OpKind::Input && ops::isFloat(n.dtype)) inputs.push_back(n.op);
  for (const std::string &x : inputs) {
    const std::string g = "grad_" + x + " = grad(cost_, " + x + ")";
    if (!session.execute(g, int(lines.size() + 1)).failed) lines.push_back(g);
  }
}

std::optional<DifferentialFailure> checkRandomProgram(uint64_t seed, const DifferentialOptions &options,
                                                      DifferentialStats *stats) {
  std::vector<std::string> lines;
  std::optional<std::string> failure;
  {
    // The program is checked in the session that generated it (built once).
    Solver local;
    lang::SessionOptions so;
    so.mode = options.mode;
    so.json = true;
    so.replies = false;
    Solver &solver = options.solver ? *options.solver : local;
    lang::Session session(solver, so);
    std::mt19937_64 rng(seed);
    lines = generateProgram(session, rng, options.statements).lines;
    if (options.gradients) appendGradients(session, lines);
    if (options.mode == BroadcastMode::Static) lines.insert(lines.begin(), "mode static");
    failure = plantedFailure(lines, std::vector<bool>(lines.size(), true), options); // the generator keeps what ran
    if (!failure) failure = checkBuilt(session, solver, outputNames(session, lines), seed, options, stats);
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
