// OpList — the op list: the graph's node kinds with their traits (ops/OpKinds.def), NumPy's
// elementwise functions with their operators and dtype rules (ops/Ufuncs.def), and the
// library's other functions with the kind each builds, where it may be called (np.f, x.f),
// whether rewrite rules may match or build it, and its catalogue entry (ops/Functions.def),
// each written once. The enum OpKind, the kinds' names and traits, ops::Bin (the scalar rules'
// codes), the names the language and the rule engine accept, and `:ops` all come from these
// three files: adding a ufunc is one line there, its scalar function in ops/Scalar.h, and its
// SIMD loop where there is one.
// Example: traitsOf(OpKind::Transpose) has View; ufunc("add")->symbol is "+";
// function("sum")->has(fn::Method).
// Cost: traits are a constexpr table; ufunc(name) and function(name) are one hash lookup.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shapelab::ops {

enum class OpKind : uint8_t {
#define SHAPELAB_OP(kind, attrs, traits) kind,
#include "ops/OpKinds.def"
#undef SHAPELAB_OP
};

namespace trait {
enum : unsigned { None = 0, Leaf = 1, Elementwise = 2, FreshResult = 4, ShapesOnly = 8, View = 16, NamedByOp = 32 };
} // namespace trait

/// The traits of a kind (ops/OpKinds.def says what each means).
constexpr unsigned traitsOf(OpKind k) {
  using namespace trait;
  constexpr unsigned table[] = {
#define SHAPELAB_OP(kind, attrs, traits) (traits),
#include "ops/OpKinds.def"
#undef SHAPELAB_OP
  };
  return table[unsigned(k)];
}
constexpr bool hasTrait(OpKind k, unsigned t) { return (traitsOf(k) & t) == t; }
/// "Unary", "Reshape", ...: the kind's name as the op list writes it.
const char *kindName(OpKind k);

/// The dtype rule of a ufunc (ops/Ufuncs.def).
enum class UfuncRule : uint8_t { Math, Keep, Test, Arith, Divide, Compare, Logical };

struct UfuncInfo {
  std::string name;
  std::string symbol; // the operator ("+"), or "" when it has none
  unsigned arity;     // 1 or 2
  UfuncRule rule;
};
/// Every ufunc, unary ones first, each group in the list's order.
std::span<const UfuncInfo> ufuncs();
/// The ufunc named `name`, or null.
const UfuncInfo *ufunc(std::string_view name);

/// Unary and binary elementwise op names (NumPy's ufunc names).
inline bool isUnaryOp(std::string_view name) {
  const UfuncInfo *u = ufunc(name);
  return u && u->arity == 1;
}
inline bool isBinaryOp(std::string_view name) {
  const UfuncInfo *u = ufunc(name);
  return u && u->arity == 2;
}
/// The unary ops that test each element (logical_not, isnan, isinf, isfinite, signbit): any
/// dtype in, bool out.
inline bool isUnaryTest(std::string_view name) {
  const UfuncInfo *u = ufunc(name);
  return u && u->rule == UfuncRule::Test;
}
/// "add" for "+", "less" for "<", ...; nullopt when `symbol` is not an operator.
std::optional<std::string> binaryOpFor(std::string_view symbol);

namespace fn {
enum : unsigned { None = 0, Function = 1, Method = 2, Pattern = 4, Build = 8 };
} // namespace fn

/// A row of the library's function list (ops/Functions.def).
struct FunctionInfo {
  std::string_view name;
  std::optional<OpKind> kind; // the node kind it builds as one op; nullopt: composite, or the language's own
  unsigned flags;             // fn::Function | fn::Method | fn::Pattern | fn::Build
  std::string_view binding;   // the signature a call binds to: "diff(a, n=1, axis=-1)"
  std::string_view signature, rule; // "" when the row before lists it too
  std::string_view example;         // a call on `:help`'s example inputs; "" where signature is
  bool has(unsigned f) const { return (flags & f) == f; }
};
/// Every row, in the list's order.
std::span<const FunctionInfo> functions();
/// The row named `name` ("sum", "linalg.det"), or null.
const FunctionInfo *function(std::string_view name);

/// A call's parameters, read from a binding ("roll(a, shift, axis=None)"): their names in
/// order; the first `positional` may be given by position, the rest (after `*`) by keyword
/// only; `variadic` takes any number of positional arguments (`*operands`).
struct Binding {
  std::string_view text;
  std::vector<std::string> names;
  std::size_t positional = 0;
  bool variadic = false;
};
/// The binding of the function or ufunc `name` (a ufunc binds (x) or (x1, x2), as NumPy names
/// its operands); null for a name with none.
const Binding *binding(std::string_view name);

/// The catalogue: every function a program may call, with its NumPy-style signature and what
/// its shape rule requires (for `:ops` and the docs): the ufuncs, the functions' rows with a
/// signature, and the random variables (shape/RandomVariable.h).
struct OpInfo {
  std::string name, signature, rule;
  /// A call `:help NAME` runs to show the shape, dtype and validity the op gives: it may use the
  /// example inputs x (n, m) float64, y (m, k) float64, v (n,) float64, w (k,) float64, a (n, n)
  /// float64, ix (n, m) int64, c (n, m) bool (lang: helpExampleInputs).
  std::string example;
};
const std::vector<OpInfo> &opCatalogue();

} // namespace shapelab::ops
