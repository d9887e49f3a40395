// Attrs — the constant attributes of a node, one typed struct per meaning (ops/OpKinds.def names
// each kind's). Together with the node's kind, op name, operands, symbolic sizes (`exprs`),
// index entries and size condition they make its structural key: two nodes with equal keys are
// one node (Graph's hash-consing), so each struct has equality and a hash.
// Example: transpose(x, (1, 0)) holds attr::Permutation{{1, 0}}; diff(x, n=2, axis=0) holds
// attr::Difference{2, 0}; node.attr<attr::Difference>().n is 2.
// Invariant: a node's attrs hold the type its kind names (Graph::make checks it).
// Cost: a variant of at most 56 bytes in the node; hashing reads the struct's few integers.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

#include "ops/DType.h"
#include "ops/OpList.h"
#include "shape/Einsum.h"

namespace shapelab::ops::attr {

/// Kinds whose key is their operands, op name, sizes or index entries alone.
struct None {
  bool operator==(const None &) const = default;
};
/// Scalar: a literal's or a folded constant's value, and its dtype (a literal's: bool, int64 or
/// float64, the Python type it was). A size (exprs[0]) holds the default. Values compare by
/// their bits: 0.0 and -0.0 are two constants, a NaN is one.
struct Constant {
  double value = 0;
  DType dtype = DType::Int64;
  bool operator==(const Constant &o) const {
    return std::bit_cast<uint64_t>(value) == std::bit_cast<uint64_t>(o.value) && dtype == o.dtype;
  }
};
/// Transpose: result axis i is operand axis axes[i].
struct Permutation {
  std::vector<int64_t> axes;
  bool operator==(const Permutation &) const = default;
};
/// ExpandDims: the result's axes that are new (of size 1), ascending.
struct NewAxes {
  std::vector<int64_t> axes;
  bool operator==(const NewAxes &) const = default;
};
/// Squeeze: the operand's axes dropped (each must be 1), ascending.
struct Dropped {
  std::vector<int64_t> axes;
  bool operator==(const Dropped &) const = default;
};
/// Alloc: the dtype given to full(), or nullopt (the value's).
struct Fill {
  std::optional<DType> dtype;
  bool operator==(const Fill &) const = default;
};
/// Concatenate, Stack, Cumsum, Cumprod, Sort: the axis (normalised).
struct Axis {
  int64_t axis = 0;
  bool operator==(const Axis &) const = default;
};
/// Split: one part of split(x, sections, axis) (its index entries say which); every part
/// requires that `sections` divides the axis.
struct Sections {
  int64_t sections = 1, axis = 0;
  bool operator==(const Sections &) const = default;
};
/// Reduce: the axes reduced (ascending; argmax/argmin over every axis list them all) and
/// whether they are kept as 1s.
struct Reduction {
  std::vector<int64_t> axes;
  bool keepdims = false;
  bool operator==(const Reduction &) const = default;
};
/// Diff: n-th difference along the axis.
struct Difference {
  int64_t n = 1, axis = -1;
  bool operator==(const Difference &) const = default;
};
/// Random: the draw (the stream the values come from: a rebuilt node keeps it); per parameter,
/// the rank of its value-shape when it is given by its shape alone (permutation(n), choice's
/// sizes), else nullopt; the rank of `size` when given. The node's exprs hold those shapes,
/// then size.
struct Draw {
  int64_t draw = 0;
  std::vector<std::optional<int64_t>> shapeRanks;
  std::optional<int64_t> sizeRank;
  bool operator==(const Draw &) const = default;
};
/// SpecifyShape: per dimension whether a size is given (exprs holds it, else 0).
struct GivenDims {
  std::vector<bool> given;
  bool operator==(const GivenDims &) const = default;
};
/// Check: what its condition (the node's cond) says, and NumPy's message where it fails: `{i}`
/// in either stands for the node's exprs[i] (written symbolically, or as its value when run).
struct Requirement {
  std::string holds, fails;
  bool operator==(const Requirement &) const = default;
};
/// The message of a Requirement with `{i}` replaced by shown[i].
std::string requirementText(const std::string &text, const std::vector<std::string> &shown);
/// Arange: the step (a non-zero constant) and the result's dtype; exprs = {start, stop}.
struct Steps {
  int64_t step = 1;
  DType dtype = DType::Int64;
  bool operator==(const Steps &) const = default;
};

} // namespace shapelab::ops::attr

namespace shapelab::ops {
struct Node;
namespace attr {
/// Map: the node applied to each example (a node of the graph, over the unbatched operands);
/// the leading dims of the Map's batched operands (those that are not the core's own operand)
/// are the batch. Keyed by the core node's identity.
struct Core {
  const Node *core = nullptr;
  int64_t batchRank = 0;
  bool operator==(const Core &) const = default;
};
} // namespace attr

using Attrs = std::variant<attr::None, attr::Constant, attr::Permutation, attr::NewAxes, attr::Dropped, attr::Fill,
                           attr::Axis, attr::Sections, attr::Reduction, attr::Difference, attr::Draw, attr::GivenDims,
                           attr::Requirement, attr::Steps, EinsumSpec, attr::Core>;

namespace attrindex {
template <class T, class V> struct AttrIndex;
template <class T, class... Ts> struct AttrIndex<T, std::variant<Ts...>> {
  static constexpr std::size_t value = [] {
    std::size_t i = 0;
    (void)((std::is_same_v<T, Ts> ? false : (++i, true)) && ...);
    return i;
  }();
  static_assert(value < sizeof...(Ts), "an attribute struct of ops/OpKinds.def that Attrs does not hold");
};
using namespace attr;
/// Per kind, the index in Attrs of its attribute struct.
inline constexpr std::size_t kAttrIndex[] = {
#define SHAPELAB_OP(kind, attrs, traits) AttrIndex<attrs, Attrs>::value,
#include "ops/OpKinds.def"
#undef SHAPELAB_OP
};
} // namespace attrindex

/// The attributes a node of `kind` holds, default-valued (Graph::blank starts a candidate so).
Attrs defaultAttrs(OpKind kind);
/// Whether `a` holds the type `kind` names.
inline bool attrsFit(OpKind kind, const Attrs &a) { return attrindex::kAttrIndex[std::size_t(kind)] == a.index(); }
/// The hash of attributes (part of the structural key's); 0 for attr::None.
std::size_t hashAttrsOf(const Attrs &a);
inline std::size_t hashAttrs(const Attrs &a) { return a.index() == 0 ? 0 : hashAttrsOf(a); }

} // namespace shapelab::ops
