#include "ops/DType.h"

#include <algorithm>

namespace shapelab::ops {

const char *spelling(DType t) {
  switch (t) {
  case DType::Bool: return "bool";
  case DType::Int32: return "int32";
  case DType::Int64: return "int64";
  case DType::Float32: return "float32";
  case DType::Float64: return "float64";
  }
  return "?";
}

std::optional<DType> dtypeNamed(const std::string &name) {
  if (name == "bool" || name == "bool_") return DType::Bool;
  if (name == "int32") return DType::Int32;
  if (name == "int64" || name == "int") return DType::Int64;
  if (name == "float32") return DType::Float32;
  if (name == "float64" || name == "float") return DType::Float64;
  return std::nullopt;
}

std::size_t itemSize(DType t) {
  switch (t) {
  case DType::Bool: return 1;
  case DType::Int32: case DType::Float32: return 4;
  default: return 8;
  }
}

namespace {
int kind(DType t) { return t == DType::Bool ? 0 : isInteger(t) ? 1 : 2; }

/// np.promote_types on two strong dtypes.
DType promote(DType a, DType b) {
  if (a == b) return a;
  if (kind(a) == kind(b)) return std::max(a, b); // int32 < int64, float32 < float64
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  // integer with float: float32 cannot hold every int32 or int64
  return DType::Float64;
}
} // namespace

bool castsSameKind(DType from, DType to) { return kind(from) <= kind(to); }

DType resultType(const std::vector<Typed> &operands) {
  std::optional<DType> strong;
  int weakKind = -1;
  DType weakDefault = DType::Bool;
  for (const Typed &t : operands) {
    if (t.weak) {
      if (kind(t.dtype) > weakKind) { weakKind = kind(t.dtype); weakDefault = t.dtype; }
    } else {
      strong = strong ? promote(*strong, t.dtype) : t.dtype;
    }
  }
  if (!strong) return weakKind == 0 ? DType::Bool : weakKind == 1 ? DType::Int64 : weakKind == 2 ? DType::Float64 : weakDefault;
  if (weakKind <= kind(*strong)) return *strong;
  // A literal of a higher kind: its default type of that kind, promoted with the array's.
  return promote(*strong, weakKind == 1 ? DType::Int64 : DType::Float64);
}

} // namespace shapelab::ops
