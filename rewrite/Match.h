// Match — what a rule's terms mean on a graph: matching a pattern (ops, operands, attributes),
// deciding a condition, building a replacement (DESIGN §3.6; rewrite/README.md).
//
// Model: matching binds node variables to nodes, attribute variables to attribute values
// (`sum(x, axis=a)` binds a to the reduced axes), op variables to ufunc names. A condition is
// turned into one predicate over the sizes (facts of ranks, dtypes and attributes fold to true
// or false) that the solver must prove under the program's assumptions. A replacement is built
// with the ops' factories, each function of the op list a rule may build through its row in
// builders() (the parameters it takes: operands, a shape, attributes).
// Example: `sum(x, axis=a, keepdims=False)` matches sum(t, axis=(0, 2)) with a = (0, 2); the
// condition `x.shape[a] == 1` is `t0 == 1 and t2 == 1`.
// Cost: matching is a walk of the pattern; a condition with sizes is one solver question.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ops/Graph.h"
#include "rewrite/Rules.h"

namespace shapelab::rewrite {

/// An attribute's value: an integer (an axis, n), integers (axes), a bool (keepdims), a dtype,
/// or None (no dtype given to full; axis=None).
struct AttrValue {
  enum Kind { Int, Ints, Bool, Dtype, None } kind = None;
  int64_t i = 0;
  std::vector<int64_t> ints = {};
  bool b = false;
  ops::DType dtype = ops::DType::Float64;
  bool operator==(const AttrValue &) const = default;
  std::string toString() const; // program spelling: 0, (0, 1), True, float64, None
};

/// The attributes a pattern may match on a node of `kind` (`axis`, `keepdims`, `dtype`, `axes`,
/// `n`), in the order they are written.
const std::vector<std::string> &attributeKeys(ops::OpKind kind);
/// Node `n`'s attribute `key` (nullopt when its kind has none so named).
std::optional<AttrValue> attributeOf(const ops::Node *n, const std::string &key);

/// What a replacement's function takes, position by position.
enum class Param { Node, Nodes, Shape, Attr };
struct BuildSpec {
  std::vector<Param> params;          // positional, in order (the trailing ones may be missing)
  std::vector<std::string> names;     // their names (an Attr param may be given by keyword)
  std::size_t required = 0;           // how many must be given
  std::vector<std::string> keywords;  // attribute keywords (also the names of Attr params)
};
/// The replacement builder of an op-list function, or null: every row flagged Build has one.
const BuildSpec *buildSpec(const std::string &name);

/// What an index variable (`x[i]`) binds: the matched indexing's entries (expanded: one per
/// axis, new axes among them) and its index array, if any.
struct IndexBinding {
  const std::vector<ops::IndexEntry> *entries = nullptr;
  const ops::Node *array = nullptr;
};

struct Bindings {
  /// Node variables, and each matched subscript under its text (`x[i]`, read by x[i].shape).
  std::map<std::string, const ops::Node *> nodes;
  std::map<std::string, IndexBinding> indexes;
  std::map<std::string, AttrValue> attrs;
  std::map<std::string, std::string> ops; // op variable ("$f") -> ufunc name
  /// The broadcasting mode of the matched ops that broadcast (a replacement's broadcasts are
  /// built in it: the matched root may be a transpose, whose node carries no mode of its own).
  std::optional<BroadcastMode> mode;
};

/// The node kind a pattern's root matches, and its op where the kind has several ("" for any):
/// what the engine compares before it tries to match. Nullopt for a root that matches nothing.
std::optional<std::pair<ops::OpKind, std::string>> rootKind(const Term &pattern);
/// Whether `pattern` matches `n`, binding into `b`.
bool match(const Term &pattern, const ops::Node *n, Bindings &b);
/// Whether the condition is proven where `self` matched with `b` (false where it cannot be
/// evaluated: an index out of range, a dtype where a size is asked).
bool conditionHolds(ops::Graph &g, const Term &condition, const ops::Node *self, const Bindings &b);
/// The replacement built (throws UserError where a factory refuses it).
const ops::Node *build(ops::Graph &g, const Term &replacement, const ops::Node *self, const Bindings &b);
/// The replacement as program text at the point `at`: each node variable as `nameOf` names it,
/// shapes with their values at `at`; nullopt where a node has no name or a size no value.
std::optional<std::string> replacementText(const Term &replacement, const ops::Node *self, const Bindings &b,
                                           const std::function<std::optional<std::string>(const ops::Node *)> &nameOf,
                                           const Assignment &at);

} // namespace shapelab::rewrite
