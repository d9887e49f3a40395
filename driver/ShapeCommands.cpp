// `shapelab broadcast | broadcast-to | gufunc | rv` — the shape layer from the command line.
#include <iostream>

#include "driver/Command.h"
#include "driver/Json.h"
#include "shape/Broadcast.h"
#include "shape/Gufunc.h"
#include "shape/RandomVariable.h"
#include "symbolic/Errors.h"
#include "symbolic/Parser.h"

namespace shapelab::driver {

namespace {

JsonValue dimJson(const std::optional<Expr> &d) {
  if (!d) return JsonValue::null();
  if (auto v = d->constantValue()) return JsonValue::integer(*v);
  return JsonValue::string(d->toString());
}

JsonValue shapeJson(const std::vector<std::optional<Expr>> &s) {
  std::vector<JsonValue> items;
  for (auto &d : s) items.push_back(dimJson(d));
  return JsonValue::array(items);
}

JsonValue shapeJson(const Shape &s) {
  return shapeJson(std::vector<std::optional<Expr>>(s.begin(), s.end()));
}

std::string shapeText(const std::vector<std::optional<Expr>> &s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += s[i] ? s[i]->toString() : "?";
  }
  return out + (s.size() == 1 ? ",)" : ")");
}

/// The fields every shape command prints: status, checks, violating, message.
void addVerdict(JsonObject &o, const Validity &v, const std::string &message) {
  o.add("status", JsonValue::string(spelling(v.status())));
  std::vector<JsonValue> checks;
  if (v.status() != Status::Error)
    for (const Pred &p : v.checks()) checks.push_back(JsonValue::string(p.toString()));
  o.add("checks", JsonValue::array(checks));
  if (auto w = v.violating()) o.add("violating", JsonValue::assignment(*w));
  o.add("message", JsonValue::string(message));
}

void printVerdict(const Validity &v, const std::string &message) {
  std::cout << "status: " << spelling(v.status()) << "\n";
  if (v.status() != Status::Error)
    for (const Pred &p : v.checks()) std::cout << "check at run time: " << p.toString() << "\n";
  if (auto w = v.violating(); w && !w->empty()) std::cout << "violated at: " << w->toString() << "\n";
  std::cout << message << "\n";
}

int exitFor(const Validity &v) { return v.status() == Status::Error ? kExitShapeError : kExitOk; }

/// Prints a broadcast or broadcast-to result and returns the exit code.
int report(const Arguments &a, const BroadcastResult &r) {
  bool error = r.status() == Status::Error;
  if (a.json) {
    JsonObject o;
    addVerdict(o, r.validity, r.message);
    o.add("shape", error ? JsonValue::null() : shapeJson(r.shape));
    std::cout << o.toString() << "\n";
  } else {
    if (!error) std::cout << "shape: " << toString(r.shape) << "\n";
    printVerdict(r.validity, r.message);
  }
  return exitFor(r.validity);
}

/// The solver (with the command's limits) and the --assume context of one shape command.
struct Setup {
  explicit Setup(const Arguments &a) : solver(a.solver) {
    context = contextOf(solver, a, SizeDomain::ArraySizes);
  }
  Solver solver;
  std::optional<Context> context;
};

GufuncArgument parseArgument(const std::string &text) {
  std::size_t p = 0;
  while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
  if (p < text.size() && text[p] == '<') {
    GufuncArgument g{parseShapeAt(text, p, true), true};
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    if (p != text.size()) throw SyntaxError("unexpected text after the shape-only value", text, p);
    return g;
  }
  return {parseShape(text), false};
}

const char *kBroadcastHelp =
    "usage: shapelab broadcast [--mode numpy|static] [--assume C]... SHAPE... [--json]\n\n"
    "Broadcasts the shapes (right-aligned, left-padded with 1). numpy mode: sizes equal or 1;\n"
    "static mode: only sizes provably 1 broadcast. SHAPE: (2,3), (), (3,), (n, m+1).\n"
    "JSON: {\"status\": valid|runtime-check|error|unknown, \"shape\", \"checks\", \"violating\", \"message\"}\n"
    "exit: 0 valid/runtime-check/unknown, 1 error, 2 bad input\n";

const char *kBroadcastToHelp =
    "usage: shapelab broadcast-to [--assume C]... SHAPE TARGET [--json]\n\n"
    "NumPy's one-way broadcast_to: SHAPE may broadcast to TARGET, never the reverse.\n"
    "exit: 0 valid/runtime-check/unknown, 1 error, 2 bad input\n";

const char *kGufuncHelp =
    "usage: shapelab gufunc [--mode numpy|static] [--assume C]... SIGNATURE ARG... [--json]\n\n"
    "Resolves a generalized-ufunc call (Blockwise) on symbolic shapes. SIGNATURE: NumPy's\n"
    "grammar ((m,n),(n,p)->(m,p), n?, frozen sizes), n|1 broadcastable dims, size expressions\n"
    "((m)->(m-1), (n,d)->(n*(n-1)//2)), shape-only parameters <n>. ARG: a SHAPE, or <4>/<2,3>\n"
    "for a shape-only value.\n"
    "JSON: {\"status\", \"batch_shape\", \"core_dims\", \"out_shapes\" (null = undetermined),\n"
    "\"undetermined\", \"checks\", \"violating\", \"message\"}\n"
    "exit: 0 valid/runtime-check/unknown, 1 error, 2 bad input\n";

const char *kRvHelp =
    "usage: shapelab rv [--mode numpy|static] [--assume C]... NAME [--size SHAPE] SHAPE... [--json]\n"
    "       shapelab rv --list [--json]\n\n"
    "Output shape of a random variable draw: one SHAPE per parameter in the catalogue's order\n"
    "(normal: loc, scale); a parameter whose value sets the core shape may be given as <5>.\n"
    "Without --size the batch shape is the broadcast of the parameters' batch shapes; with\n"
    "--size every parameter must broadcast to it. --size '()' is not the same as no --size.\n"
    "JSON: {\"status\", \"shape\", \"batch_shape\", \"signature\", \"allocatable\", \"core_shape\",\n"
    "\"undetermined\", \"checks\", \"violating\", \"message\"}\n"
    "exit: 0 valid/runtime-check/unknown, 1 error, 2 bad input (syntax, unknown RV, ...)\n";

} // namespace

int broadcastCommand(const std::vector<std::string> &argv) {
  return reportErrors("broadcast", [&] {
    Arguments a = scanArguments(argv, {"--mode", "--assume", "--json"});
    if (a.help) return std::cout << kBroadcastHelp, kExitOk;
    std::vector<Shape> shapes;
    for (auto &s : a.positional) shapes.push_back(parseShape(s));
    Setup s(a);
    return report(a, broadcast(s.solver, *s.context, shapes, parseBroadcastMode(a.mode)));
  });
}

int broadcastToCommand(const std::vector<std::string> &argv) {
  return reportErrors("broadcast-to", [&] {
    Arguments a = scanArguments(argv, {"--assume", "--json"});
    if (a.help) return std::cout << kBroadcastToHelp, kExitOk;
    if (a.positional.size() != 2) throw UsageError{"expected SHAPE and TARGET"};
    Shape from = parseShape(a.positional[0]), target = parseShape(a.positional[1]);
    Setup s(a);
    return report(a, broadcastTo(s.solver, *s.context, from, target));
  });
}

int gufuncCommand(const std::vector<std::string> &argv) {
  return reportErrors("gufunc", [&] {
    Arguments a = scanArguments(argv, {"--mode", "--assume", "--json"});
    if (a.help) return std::cout << kGufuncHelp, kExitOk;
    if (a.positional.empty()) throw UsageError{"missing SIGNATURE"};
    Signature sig = parseSignature(a.positional[0]);
    std::vector<GufuncArgument> args;
    for (std::size_t i = 1; i < a.positional.size(); ++i) args.push_back(parseArgument(a.positional[i]));
    Setup s(a);
    GufuncResult r = resolveGufunc(s.solver, *s.context, sig, args, parseBroadcastMode(a.mode));
    bool error = r.status() == Status::Error;
    if (a.json) {
      JsonObject o;
      addVerdict(o, r.validity, r.message);
      o.add("batch_shape", error ? JsonValue::null() : shapeJson(r.batchShape));
      JsonObject core;
      for (auto &[name, value] : r.coreDims) core.add(name, dimJson(value));
      o.add("core_dims", core.value());
      std::vector<JsonValue> outs;
      for (auto &sh : r.outShapes) outs.push_back(shapeJson(sh));
      o.add("out_shapes", error ? JsonValue::null() : JsonValue::array(outs));
      std::vector<JsonValue> und;
      for (auto &u : r.undetermined) und.push_back(JsonValue::string(u));
      o.add("undetermined", JsonValue::array(und));
      std::cout << o.toString() << "\n";
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
  });
}

int rvCommand(const std::vector<std::string> &argv) {
  return reportErrors("rv", [&] {
    std::vector<std::string> rest;
    bool list = false;
    for (auto &x : argv) (x == "--list" ? list = true : (rest.push_back(x), false));
    Arguments a = scanArguments(rest, {"--mode", "--assume", "--json", "--size"});
    if (a.help) return std::cout << kRvHelp, kExitOk;
    if (list && (!a.positional.empty() || !a.assumptions.empty() || a.hasSize))
      throw UsageError{"--list takes no other arguments (only --json)"};
    if (list) {
      std::vector<JsonValue> items;
      for (const RandomVariableInfo &i : randomVariableCatalogue()) {
        if (a.json) {
          std::vector<JsonValue> ps;
          for (auto &p : i.parameters) ps.push_back(JsonValue::string(p));
          JsonObject o;
          o.add("name", JsonValue::string(i.name)).add("class", JsonValue::string(i.className));
          o.add("parameters", JsonValue::array(ps)).add("signature", JsonValue::string(i.signature));
          o.add("dtype", JsonValue::string(i.dtype)).add("core_shape", JsonValue::string(spelling(i.coreShape)));
          items.push_back(o.value());
        } else {
          std::string ps;
          for (auto &p : i.parameters) ps += (ps.empty() ? "" : ", ") + p;
          std::printf("%-27s %-16s %-8s %-11s (%s)\n", i.name.c_str(),
                      i.signature.empty() ? "(per call)" : i.signature.c_str(), i.dtype.c_str(),
                      spelling(i.coreShape), ps.c_str());
        }
      }
      if (a.json) std::cout << JsonValue::array(items).text() << "\n";
      return kExitOk;
    }
    if (a.positional.empty()) throw UsageError{"missing NAME"};
    std::string name = a.positional[0];
    if (!findRandomVariable(name)) throw UserError("unknown random variable '" + name + "'; 'shapelab rv --list' lists them");
    std::vector<GufuncArgument> params;
    for (std::size_t i = 1; i < a.positional.size(); ++i) params.push_back(parseArgument(a.positional[i]));
    std::optional<Shape> size;
    if (a.hasSize) size = parseShape(a.size);
    Setup s(a);
    RandomVariableResult r = inferRandomVariable(s.solver, *s.context, name, params, size, parseBroadcastMode(a.mode));
    bool error = r.status() == Status::Error;
    if (a.json) {
      JsonObject o;
      addVerdict(o, r.validity, r.message);
      o.add("shape", error ? JsonValue::null() : shapeJson(r.shape));
      o.add("batch_shape", error ? JsonValue::null() : shapeJson(r.batchShape));
      o.add("signature", JsonValue::string(r.signature));
      o.add("allocatable", JsonValue::boolean(r.allocatable()));
      o.add("core_shape", JsonValue::string(spelling(r.coreShape)));
      std::vector<JsonValue> und;
      for (auto &u : r.undetermined) und.push_back(JsonValue::string(u));
      o.add("undetermined", JsonValue::array(und));
      std::cout << o.toString() << "\n";
    } else {
      std::cout << "signature: " << r.signature << "\n";
      if (!error) std::cout << "shape: " << shapeText(r.shape) << "\n";
      std::cout << "allocatable before sampling: " << (r.allocatable() ? "yes" : "no (core shape needs a parameter's value)") << "\n";
      printVerdict(r.validity, r.message);
    }
    return exitFor(r.validity);
  });
}

} // namespace shapelab::driver
