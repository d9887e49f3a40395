#include "ops/OpList.h"

#include <unordered_map>
#include <vector>

#include "shape/RandomVariable.h"

namespace shapelab::ops {

const char *kindName(OpKind k) {
  static constexpr const char *names[] = {
#define SHAPELAB_OP(kind, traits) #kind,
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
#define SHAPELAB_UNARY(name, rule) l->push_back({#name, "", 1, rule});
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
#define SHAPELAB_OP(kind, traits) constexpr std::optional<OpKind> k##kind = OpKind::kind;
#include "ops/OpKinds.def"
#undef SHAPELAB_OP
constexpr std::optional<OpKind> kComposite, kLanguage;

constexpr FunctionInfo kFunctions[] = {
#define SHAPELAB_FUNCTION(name, kind, flags, signature, rule) {name, k##kind, [] { using namespace fn; return unsigned(flags); }(), signature, rule},
#include "ops/Functions.def"
#undef SHAPELAB_FUNCTION
};

} // namespace

std::span<const FunctionInfo> functions() { return kFunctions; }

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
      if (f.arity == 1) {
        l.push_back({u, u == "invert" ? "invert(x) / ~x" : u + "(x)",
                     u == "invert"                  ? "bool or integer; same shape and dtype"
                     : f.rule == UfuncRule::Test ? "same shape; bool"
                     : f.rule == UfuncRule::Keep ? "same shape and dtype"
                                                 : "same shape; integers give float64"});
        continue;
      }
      l.push_back({u, f.symbol.empty() ? u + "(a, b)" : "a " + f.symbol + " b",
                   std::string("broadcasts a with b (per mode)") +
                       (f.rule == UfuncRule::Logical || f.rule == UfuncRule::Compare ? "; bool"
                        : f.rule == UfuncRule::Math || f.rule == UfuncRule::Divide   ? "; integers give float64"
                                                                                      : "")});
    }
    for (const FunctionInfo &f : functions())
      if (!f.signature.empty()) l.push_back({std::string(f.name), std::string(f.signature), std::string(f.rule)});
    for (const RandomVariableInfo &rv : randomVariableCatalogue()) {
      l.push_back({"random." + rv.name, "random." + rv.name + "(" + rv.parameterList() + ", size=None)",
                   rv.signature.empty() ? rv.note : "gufunc " + rv.signature});
    }
    return l;
  }();
  return list;
}

} // namespace shapelab::ops
