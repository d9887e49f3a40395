// `shapelab broadcast | broadcast-to | gufunc | einsum | rv` — the shape layer from the command line.
#include <iostream>

#include "driver/Command.h"
#include "lang/Json.h"
#include "shape/Broadcast.h"
#include "shape/Einsum.h"
#include "shape/Gufunc.h"
#include "shape/RandomVariable.h"
#include "symbolic/Errors.h"
#include "symbolic/Parser.h"

namespace shapelab::driver {

using namespace lang; // the session, its replies and their JSON

namespace {

Json dimJson(const std::optional<Expr> &d) {
  if (!d) return nullptr;
  if (auto v = d->constantValue()) return integerJson(*v);
  return d->toString();
}

Json shapeJson(const std::vector<std::optional<Expr>> &s) {
  Json items = Json::array();
  for (auto &d : s) items.push_back(dimJson(d));
  return items;
}

Json shapeJson(const Shape &s) {
  return shapeJson(std::vector<std::optional<Expr>>(s.begin(), s.end()));
}

Json stringsJson(const std::vector<std::string> &v) {
  Json items = Json::array();
  for (auto &x : v) items.push_back(x);
  return items;
}

std::string shapeText(const std::vector<std::optional<Expr>> &s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += s[i] ? s[i]->toString() : "?";
  }
  return out + (s.size() == 1 ? ",)" : ")");
}

/// The fields every shape command prints: status, checks, limits, violating, message.
void addVerdict(Json &o, const Validity &v, const std::string &message) {
  o["status"] = spelling(v.status());
  Json checks = Json::array(), limits = Json::array();
  if (v.status() != Status::Error) {
    for (const Pred &p : v.shownChecks()) checks.push_back(p.toString());
    for (const Pred &p : v.limits()) limits.push_back(p.toString());
  }
  o["checks"] = checks;
  o["limits"] = limits;
  if (auto w = v.violating()) o["violating"] = assignmentJson(*w);
  o["message"] = message;
}

void printVerdict(const Validity &v, const std::string &message) {
  std::cout << "status: " << spelling(v.status()) << "\n";
  if (v.status() != Status::Error) {
    for (const Pred &p : v.shownChecks()) std::cout << "check at run time: " << p.toString() << "\n";
    if (std::string l = v.limitsText(); !l.empty()) std::cout << "limits: " << l << "\n";
  }
  if (auto w = v.violating(); w && !w->empty()) std::cout << "violated at: " << w->toString(v.mentionedNames()) << "\n";
  std::cout << message << "\n";
}

/// Reads `v` as the command line asks (--strict-limits); the message follows a changed status.
void applyStrictness(const CommonOptions &a, Validity &v, std::string &message) {
  if (!a.strictLimits) return;
  const Status before = v.status();
  v.strictLimits(true);
  if (v.status() != before) message = v.message();
}

int exitFor(const Validity &v) { return v.status() == Status::Error ? kExitShapeError : kExitOk; }

/// Prints a broadcast or broadcast-to result and returns the exit code.
int report(const CommonOptions &a, BroadcastResult r) {
  applyStrictness(a, r.validity, r.message);
  bool error = r.status() == Status::Error;
  if (a.json) {
    Json o = Json::object();
    addVerdict(o, r.validity, r.message);
    o["shape"] = error ? Json(nullptr) : shapeJson(r.validity.simplified(r.shape));
    std::cout << dumpJson(o) << "\n";
  } else {
    if (!error) std::cout << "shape: " << toString(r.validity.simplified(r.shape)) << "\n";
    printVerdict(r.validity, r.message);
  }
  return exitFor(r.validity);
}

/// The solver (with the command's limits) and the --assume context of one shape command.
struct Setup {
  explicit Setup(const CommonOptions &a) : solver(a.solverOptions()) {
    // --time-limit bounds the command: all its questions together, not each one.
    solver.limitTotalTime(a.solver.timeLimitMs);
    context = contextOf(solver, a, SizeDomain::ArraySizes);
  }
  Solver solver;
  std::optional<Context> context;
};


const char *kExit = "exit: 0 valid/runtime-check/unknown, 1 error, 2 bad input";

struct BroadcastOptions {
  CommonOptions common;
  std::vector<std::string> shapes;
};

int broadcastRun(const BroadcastOptions &o) {
  std::vector<Shape> shapes;
  for (auto &s : o.shapes) shapes.push_back(parseShape(s));
  Setup s(o.common);
  return report(o.common, broadcast(s.solver, *s.context, shapes, parseBroadcastMode(o.common.mode)));
}

struct BroadcastToOptions {
  CommonOptions common;
  std::string from, target;
};

int broadcastToRun(const BroadcastToOptions &o) {
  Shape from = parseShape(o.from), target = parseShape(o.target);
  Setup s(o.common);
  return report(o.common, broadcastTo(s.solver, *s.context, from, target));
}

struct GufuncOptions {
  CommonOptions common;
  std::string signature;
  std::vector<std::string> arguments;
};

int gufuncRun(const GufuncOptions &o) {
  Signature sig = parseSignature(o.signature);
  std::vector<GufuncArgument> args;
  for (auto &a : o.arguments) args.push_back(parseGufuncArgument(a));
  Setup s(o.common);
  GufuncResult r = resolveGufunc(s.solver, *s.context, sig, args, parseBroadcastMode(o.common.mode));
  applyStrictness(o.common, r.validity, r.message);
  bool error = r.status() == Status::Error;
  if (!error) {
    for (auto &sh : r.outShapes) sh = r.validity.simplified(sh);
    r.batchShape = r.validity.simplified(r.batchShape);
  }
  if (o.common.json) {
    Json j = Json::object();
    addVerdict(j, r.validity, r.message);
    j["batch_shape"] = error ? Json(nullptr) : shapeJson(r.batchShape);
    Json core = Json::object();
    for (auto &[name, value] : r.coreDims) core[name] = dimJson(value);
    j["core_dims"] = core;
    Json outs = Json::array();
    for (auto &sh : r.outShapes) outs.push_back(shapeJson(sh));
    j["out_shapes"] = error ? Json(nullptr) : outs;
    j["undetermined"] = stringsJson(r.undetermined);
    std::cout << dumpJson(j) << "\n";
  } else {
    if (!error) {
      std::cout << "batch shape: " << toString(r.batchShape) << "\n";
      for (std::size_t i = 0; i < r.outShapes.size(); ++i)
        std::cout << "output " << i << ": " << shapeText(r.outShapes[i]) << "\n";
      for (auto &u : r.undetermined)
        std::cout << "undetermined: " << u << " (no input determines it: the output cannot be allocated before running)\n";
    }
    printVerdict(r.validity, r.message);
  }
  return exitFor(r.validity);
}

struct EinsumOptions {
  CommonOptions common;
  std::string subscripts;
  std::vector<std::string> shapes;
};

int einsumRun(const EinsumOptions &o) {
  std::vector<Shape> shapes;
  std::vector<std::size_t> ranks;
  for (auto &s : o.shapes) {
    shapes.push_back(parseShape(s));
    ranks.push_back(shapes.back().size());
  }
  EinsumSpec spec = parseEinsum(o.subscripts, ranks);
  Setup s(o.common);
  EinsumResult r = resolveEinsum(s.solver, *s.context, spec, shapes, parseBroadcastMode(o.common.mode));
  applyStrictness(o.common, r.validity, r.message);
  const bool error = r.status() == Status::Error;
  if (!error) r.shape = r.validity.simplified(r.shape);
  if (o.common.json) {
    Json j = Json::object();
    addVerdict(j, r.validity, r.message);
    j["shape"] = error ? Json(nullptr) : shapeJson(r.shape);
    j["subscripts"] = spec.text();
    std::cout << dumpJson(j) << "\n";
  } else {
    std::cout << "subscripts: " << spec.text() << "\n";
    if (!error) std::cout << "shape: " << toString(r.shape) << "\n";
    printVerdict(r.validity, r.message);
  }
  return exitFor(r.validity);
}

struct RvOptions {
  CommonOptions common;
  bool list = false;
  std::string name;
  std::optional<std::string> size;
  std::vector<std::string> parameters;
};

int rvList(const RvOptions &o) {
  Json items = Json::array();
  for (const RandomVariableInfo &i : randomVariableCatalogue()) {
    if (o.common.json) {
      Json j = Json::object();
      j["name"] = i.name;
      j["class"] = i.className;
      j["parameters"] = stringsJson(i.parameters);
      // Per parameter with a default: its value (null for integers' high: integers(k) is
      // integers(0, k)).
      Json defaults = Json::object();
      for (std::size_t k = 0; k < i.parameters.size(); ++k)
        if (auto d = i.defaultValue(k)) defaults[i.parameters[k]] = *d ? Json(**d) : Json(nullptr);
      j["defaults"] = defaults;
      j["signature"] = i.signature;
      j["dtype"] = i.dtype;
      j["core_shape"] = spelling(i.coreShape);
      items.push_back(j);
    } else {
      std::printf("%-27s %-16s %-8s %-11s (%s)\n", i.name.c_str(),
                  i.signature.empty() ? "(per call)" : i.signature.c_str(), i.dtype.c_str(),
                  spelling(i.coreShape), i.parameterList().c_str());
    }
  }
  if (o.common.json) std::cout << dumpJson(items) << "\n";
  return kExitOk;
}

int rvRun(const RvOptions &o) {
  if (o.list) return rvList(o);
  if (o.name.empty()) throw CLI::RequiredError("NAME");
  const std::string &name = o.name;
  if (!findRandomVariable(name)) throw UserError("unknown random variable '" + name + "'; 'shapelab rv --list' lists them");
  std::vector<GufuncArgument> params;
  for (auto &p : o.parameters) params.push_back(parseGufuncArgument(p));
  std::optional<Shape> size;
  if (o.size) size = parseShape(*o.size);
  Setup s(o.common);
  RandomVariableResult r = inferRandomVariable(s.solver, *s.context, name, params, size, parseBroadcastMode(o.common.mode));
  applyStrictness(o.common, r.validity, r.message);
  bool error = r.status() == Status::Error;
  if (!error) {
    r.shape = r.validity.simplified(r.shape);
    r.batchShape = r.validity.simplified(r.batchShape);
  }
  if (o.common.json) {
    Json j = Json::object();
    addVerdict(j, r.validity, r.message);
    j["shape"] = error ? Json(nullptr) : shapeJson(r.shape);
    j["batch_shape"] = error ? Json(nullptr) : shapeJson(r.batchShape);
    j["signature"] = r.signature;
    j["allocatable"] = r.allocatable();
    j["core_shape"] = spelling(r.coreShape);
    j["undetermined"] = stringsJson(r.undetermined);
    std::cout << dumpJson(j) << "\n";
  } else {
    std::cout << "signature: " << r.signature << "\n";
    if (!error) std::cout << "shape: " << shapeText(r.shape) << "\n";
    std::cout << "allocatable before sampling: " << (r.allocatable() ? "yes" : "no (core shape needs a parameter's value)") << "\n";
    printVerdict(r.validity, r.message);
  }
  return exitFor(r.validity);
}

/// Adds a command whose options live in a shared `Options` and whose body is `run`.
template <class Options>
CLI::App *command(CLI::App &app, const std::string &name, const std::string &summary,
                  const std::string &details, std::shared_ptr<Options> o, int (*run)(const Options &)) {
  CLI::App *cmd = app.add_subcommand(name, summary);
  cmd->description(summary + "\n" + details);
  cmd->callback([o, run, name] { exitCode() = reportErrors(name, [&] { return run(*o); }, o->common.json); });
  return cmd;
}

} // namespace

void addShapeCommands(CLI::App &app) {
  {
    auto o = std::make_shared<BroadcastOptions>();
    CLI::App *cmd = command(app, "broadcast", "broadcast shapes (numpy or static mode), decided per dimension",
        "Broadcasts the shapes (right-aligned, left-padded with 1). numpy mode: sizes equal or 1;\n"
        "static mode: only sizes provably 1 broadcast. SHAPE: (2,3), (), (3,), (n, m+1).", o, broadcastRun);
    cmd->footer(std::string("JSON: {\"status\": valid|runtime-check|error|unknown, \"shape\", \"checks\", \"violating\", \"message\"}\n") + kExit);
    addCommonOptions(cmd, o->common, kAssume | kJson | kMode);
    cmd->add_option("SHAPE", o->shapes, "the shapes to broadcast");
  }
  {
    auto o = std::make_shared<BroadcastToOptions>();
    CLI::App *cmd = command(app, "broadcast-to", "NumPy's one-way broadcast_to",
        "SHAPE may broadcast to TARGET, never the reverse.", o, broadcastToRun);
    cmd->footer(std::string("JSON: as broadcast\n") + kExit);
    addCommonOptions(cmd, o->common, kAssume | kJson);
    cmd->add_option("SHAPE", o->from, "the shape broadcast")->required();
    cmd->add_option("TARGET", o->target, "the shape it must broadcast to")->required();
  }
  {
    auto o = std::make_shared<GufuncOptions>();
    CLI::App *cmd = command(app, "gufunc", "resolve a generalized-ufunc (Blockwise) call on symbolic shapes",
        "SIGNATURE: NumPy's grammar ((m,n),(n,p)->(m,p), n?, frozen sizes), n|1 broadcastable dims,\n"
        "size expressions ((m)->(m-1), (n,d)->(n*(n-1)//2)), shape-only parameters <n>.\n"
        "ARG: a SHAPE, or <4>/<2,3> for a shape-only value.", o, gufuncRun);
    cmd->footer(std::string("JSON: {\"status\", \"batch_shape\", \"core_dims\", \"out_shapes\" (null = undetermined),\n"
                            "\"undetermined\", \"checks\", \"violating\", \"message\"}\n") + kExit);
    addCommonOptions(cmd, o->common, kAssume | kJson | kMode);
    cmd->add_option("SIGNATURE", o->signature, "the gufunc signature")->required();
    cmd->add_option("ARG", o->arguments, "one shape per operand");
  }
  {
    auto o = std::make_shared<EinsumOptions>();
    CLI::App *cmd = command(app, "einsum", "output shape of np.einsum (without optimize) on symbolic shapes",
        "SUBSCRIPTS as NumPy reads them: 'ij,jk->ik', '...i,...i', 'ii->i' (a diagonal), no '->' for the\n"
        "implicit output. One SHAPE per operand. Each label's sizes broadcast across operands (per\n"
        "mode); NumPy's iterator (the output's labels, then the summed ones in character order)\n"
        "refuses a running element count past 2**63 - 1.", o, einsumRun);
    cmd->footer(std::string("JSON: {\"status\", \"shape\", \"subscripts\" (with the output spelled out), \"checks\",\n"
                            "\"violating\", \"message\"}\n") + kExit);
    addCommonOptions(cmd, o->common, kAssume | kJson | kMode);
    cmd->add_option("SUBSCRIPTS", o->subscripts, "the einsum subscripts")->required();
    cmd->add_option("SHAPE", o->shapes, "one shape per operand");
  }
  {
    auto o = std::make_shared<RvOptions>();
    CLI::App *cmd = command(app, "rv", "output shape of a random variable draw (PyTensor's catalogue)",
        "One SHAPE per parameter in the catalogue's order (normal: loc, scale); a parameter whose\n"
        "value sets the core shape may be given as <5>. Without --size the batch shape is the\n"
        "broadcast of the parameters' batch shapes; with --size every parameter must broadcast to\n"
        "it. --size '()' is not the same as no --size. 'shapelab rv --list' lists the catalogue.", o, rvRun);
    cmd->footer(std::string("JSON: {\"status\", \"shape\", \"batch_shape\", \"signature\", \"allocatable\", \"core_shape\",\n"
                            "\"undetermined\", \"checks\", \"violating\", \"message\"}\n") +
                "exit: 0 valid/runtime-check/unknown, 1 error, 2 bad input (syntax, unknown RV, ...)");
    addCommonOptions(cmd, o->common, kAssume | kJson | kMode);
    CLI::Option *list = cmd->add_flag("--list", o->list, "list the catalogue (with --json: as JSON)");
    CLI::Option *size = cmd->add_option("--size", o->size, "the draw's batch shape")->type_name("SHAPE");
    CLI::Option *name = cmd->add_option("NAME", o->name, "the random variable");
    CLI::Option *params = cmd->add_option("SHAPE", o->parameters, "one shape per parameter");
    list->excludes(size)->excludes(name)->excludes(params)->excludes("--assume")->excludes("--mode");
  }
}

} // namespace shapelab::driver
