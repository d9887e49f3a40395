#include "ops/OpList.h"

#include <unordered_map>
#include <vector>

#include "shape/RandomVariable.h"
#include "symbolic/Errors.h"

namespace shapelab::ops {

const char *kindName(OpKind k) {
  static constexpr const char *names[] = {
#define SHAPELAB_OP(kind, attrs, traits) #kind,
#include "ops/OpKinds.def"
#undef SHAPELAB_OP
  };
  return names[unsigned(k)];
}

namespace {

const std::vector<UfuncInfo> &table() {
  static const auto *list = [] {
    auto *l = new std::vector<UfuncInfo>();
    using enum UfuncRule;
#define SHAPELAB_UNARY(name, code, rule, loop) l->push_back({#name, "", 1, rule});
#include "ops/Ufuncs.def"
#define SHAPELAB_BINARY(name, symbol, code, rule) l->push_back({#name, symbol, 2, rule});
#include "ops/Ufuncs.def"
    return l;
  }();
  return *list;
}

} // namespace

std::span<const UfuncInfo> ufuncs() { return table(); }

// Looked up by hash: the rewrite engine asks for every pattern it matches against a node.
const UfuncInfo *ufunc(std::string_view name) {
  static const auto *index = [] {
    auto *m = new std::unordered_map<std::string_view, const UfuncInfo *>();
    for (const UfuncInfo &u : table()) m->emplace(u.name, &u);
    return m;
  }();
  auto it = index->find(name);
  return it == index->end() ? nullptr : it->second;
}

std::optional<std::string> binaryOpFor(std::string_view symbol) {
  if (symbol.empty()) return std::nullopt;
  for (const UfuncInfo &u : table())
    if (u.symbol == symbol) return u.name;
  return std::nullopt;
}

namespace {

// The kind column of ops/Functions.def.
#define SHAPELAB_OP(kind, attrs, traits) constexpr std::optional<OpKind> k##kind = OpKind::kind;
#include "ops/OpKinds.def"
#undef SHAPELAB_OP
constexpr std::optional<OpKind> kComposite, kLanguage;

constexpr FunctionInfo kFunctions[] = {
#define SHAPELAB_FUNCTION(name, kind, flags, binding, signature, rule, example)                                        \
  {name, k##kind, [] { using namespace fn; return unsigned(flags); }(), binding, signature, rule, example},
#include "ops/Functions.def"
#undef SHAPELAB_FUNCTION
};

} // namespace

std::span<const FunctionInfo> functions() { return kFunctions; }

namespace {
/// `text` read as a binding: "name(p1, p2=default, *, p3=default)" or "name(p, *rest)".
Binding parsed(std::string_view text) {
  Binding b;
  b.text = text;
  const std::size_t open = text.find('('), close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    throw InternalError("a binding without parameters: " + std::string(text));
  std::string_view params = text.substr(open + 1, close - open - 1);
  bool keywordOnly = false;
  int depth = 0;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= params.size(); ++i) {
    if (i < params.size() && (params[i] == '(' || params[i] == '[')) ++depth;
    if (i < params.size() && (params[i] == ')' || params[i] == ']')) --depth;
    if (i < params.size() && (params[i] != ',' || depth > 0)) continue;
    std::string_view p = params.substr(from, i - from);
    from = i + 1;
    while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
    p = p.substr(0, p.find('='));
    while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
    if (p == "*") {
      keywordOnly = true;
    } else if (!p.empty() && p.front() == '*') {
      b.variadic = true;
      keywordOnly = true;
    } else if (!p.empty()) {
      b.names.emplace_back(p);
      if (!keywordOnly) ++b.positional;
    }
  }
  return b;
}
} // namespace

const Binding *binding(std::string_view name) {
  static const auto *bindings = [] {
    auto *m = new std::unordered_map<std::string_view, Binding>();
    for (const FunctionInfo &f : kFunctions)
      if (!f.binding.empty()) m->emplace(f.name, parsed(f.binding));
    for (const UfuncInfo &u : table()) m->emplace(u.name, parsed(u.arity == 1 ? "(x)" : "(x1, x2)"));
    return m;
  }();
  auto it = bindings->find(name);
  return it == bindings->end() ? nullptr : &it->second;
}

const FunctionInfo *function(std::string_view name) {
  static const auto *index = [] {
    auto *m = new std::unordered_map<std::string_view, const FunctionInfo *>();
    for (const FunctionInfo &f : kFunctions) m->emplace(f.name, &f);
    return m;
  }();
  auto it = index->find(name);
  return it == index->end() ? nullptr : it->second;
}

const std::vector<OpInfo> &opCatalogue() {
  static const std::vector<OpInfo> list = [] {
    std::vector<OpInfo> l;
    for (const UfuncInfo &f : ufuncs()) {
      const std::string &u = f.name;
      // The bitwise ops take integers; the others are shown on floats.
      const bool integers = u == "invert" || u.rfind("bitwise_", 0) == 0;
      if (f.arity == 1) {
        l.push_back({u, u == "invert" ? "invert(x) / ~x" : u + "(x)",
                     u == "invert"                  ? "bool or integer; same shape and dtype"
                     : f.rule == UfuncRule::Test ? "same shape; bool"
                     : f.rule == UfuncRule::Keep ? "same shape and dtype"
                                                 : "same shape; integers give float64",
                     "np." + u + (integers ? "(ix)" : "(x)")});
        continue;
      }
      // A binary example broadcasts (n, m) with (k,) (or (m, n)): its validity shows the rule.
      const std::string a = integers ? "ix" : "x", b = integers ? "ix.T" : "w";
      l.push_back({u, f.symbol.empty() ? u + "(a, b)" : "a " + f.symbol + " b",
                   std::string("broadcasts a with b (per mode)") +
                       (f.rule == UfuncRule::Logical || f.rule == UfuncRule::Compare ? "; bool"
                        : f.rule == UfuncRule::Math || f.rule == UfuncRule::Divide   ? "; integers give float64"
                                                                                      : ""),
                   f.symbol.empty() ? "np." + u + "(" + a + ", " + b + ")" : a + " " + f.symbol + " " + b});
    }
    for (const FunctionInfo &f : functions())
      if (!f.signature.empty())
        l.push_back({std::string(f.name), std::string(f.signature), std::string(f.rule), std::string(f.example)});
    for (const RandomVariableInfo &rv : randomVariableCatalogue()) {
      // Scalar parameters: the first a vector (n,), the others 1.0, drawn in a batch (m, n).
      std::string example = rv.example;
      if (example.empty()) {
        example = "np.random." + rv.name + "(v";
        for (std::size_t i = 1; i < rv.parameters.size(); ++i) example += ", 1.0";
        example += ", size=(m, n))";
      }
      l.push_back({"random." + rv.name, "random." + rv.name + "(" + rv.parameterList() + ", size=None)",
                   rv.signature.empty() ? rv.note : "gufunc " + rv.signature, example});
    }
    return l;
  }();
  return list;
}

} // namespace shapelab::ops
