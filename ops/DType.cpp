#include "ops/DType.h"

#include <algorithm>

namespace shapelab::ops {

const char *spelling(DType t) {
  switch (t) {
  case DType::Bool: return "bool";
  case DType::Int8: return "int8";
  case DType::Int16: return "int16";
  case DType::Int32: return "int32";
  case DType::Int64: return "int64";
  case DType::UInt8: return "uint8";
  case DType::UInt16: return "uint16";
  case DType::UInt32: return "uint32";
  case DType::UInt64: return "uint64";
  case DType::Float16: return "float16";
  case DType::Float32: return "float32";
  case DType::Float64: return "float64";
  }
  return "?";
}

const char *dtypeList() { return "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32 and float64"; }

std::optional<DType> dtypeNamed(const std::string &name) {
  static const std::pair<const char *, DType> names[] = {
      {"bool", DType::Bool},       {"bool_", DType::Bool},       {"int8", DType::Int8},       {"byte", DType::Int8},
      {"int16", DType::Int16},     {"short", DType::Int16},      {"int32", DType::Int32},     {"intc", DType::Int32},
      {"int64", DType::Int64},     {"int", DType::Int64},        {"intp", DType::Int64},      {"longlong", DType::Int64},
      {"uint8", DType::UInt8},     {"ubyte", DType::UInt8},      {"uint16", DType::UInt16},   {"ushort", DType::UInt16},
      {"uint32", DType::UInt32},   {"uintc", DType::UInt32},     {"uint64", DType::UInt64},   {"uint", DType::UInt64},
      {"uintp", DType::UInt64},    {"ulonglong", DType::UInt64}, {"float16", DType::Float16}, {"half", DType::Float16},
      {"float32", DType::Float32}, {"single", DType::Float32},   {"float64", DType::Float64}, {"float", DType::Float64},
      {"double", DType::Float64}};
  for (const auto &[n, t] : names)
    if (name == n) return t;
  return std::nullopt;
}

std::size_t itemSize(DType t) {
  switch (t) {
  case DType::Bool: case DType::Int8: case DType::UInt8: return 1;
  case DType::Int16: case DType::UInt16: case DType::Float16: return 2;
  case DType::Int32: case DType::UInt32: case DType::Float32: return 4;
  default: return 8;
  }
}

DType floatFor(DType t) {
  if (isFloat(t)) return t;
  if (t == DType::Bool || t == DType::Int8 || t == DType::UInt8) return DType::Float16;
  if (t == DType::Int16 || t == DType::UInt16) return DType::Float32;
  return DType::Float64;
}

DType accumulatorFor(DType t) { return isFloat(t) ? t : isUnsigned(t) ? DType::UInt64 : DType::Int64; }

bool holds(DType t, long double v) {
  switch (t) {
  case DType::Int8: return v >= -128 && v <= 127;
  case DType::Int16: return v >= -32768 && v <= 32767;
  case DType::Int32: return v >= -2147483648.0L && v <= 2147483647.0L;
  case DType::Int64: return v >= -9223372036854775808.0L && v <= 9223372036854775807.0L;
  case DType::UInt8: return v >= 0 && v <= 255;
  case DType::UInt16: return v >= 0 && v <= 65535;
  case DType::UInt32: return v >= 0 && v <= 4294967295.0L;
  case DType::UInt64: return v >= 0 && v <= 18446744073709551615.0L;
  default: return true;
  }
}

namespace {
int kind(DType t) { return t == DType::Bool ? 0 : isInteger(t) ? 1 : 2; }

/// Bits of an integer dtype's values (signed: without the sign) and of a float's mantissa.
int bits(DType t) {
  switch (t) {
  case DType::Int8: return 7;
  case DType::UInt8: return 8;
  case DType::Int16: return 15;
  case DType::UInt16: return 16;
  case DType::Int32: return 31;
  case DType::UInt32: return 32;
  case DType::Int64: return 63;
  case DType::UInt64: return 64;
  case DType::Float16: return 11;
  case DType::Float32: return 24;
  default: return 53;
  }
}

/// The signed integer dtype of at least `b` value bits (nullopt beyond int64).
std::optional<DType> signedOf(int b) {
  for (DType t : {DType::Int8, DType::Int16, DType::Int32, DType::Int64})
    if (bits(t) >= b) return t;
  return std::nullopt;
}

/// np.promote_types on two strong dtypes (NumPy's table): within a kind the wider; a signed with
/// an unsigned integer the smallest signed one holding both (float64 past int64); an integer
/// with a float the smallest float at least as wide as the two (float16 holds int8 and uint8,
/// float32 int16 and uint16; wider integers need float64).
DType promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (kind(a) == 2 && kind(b) == 2) return bits(a) >= bits(b) ? a : b;
  if (kind(a) == 1 && kind(b) == 1) {
    if (isUnsigned(a) == isUnsigned(b)) return bits(a) >= bits(b) ? a : b;
    const DType u = isUnsigned(a) ? a : b, s = isUnsigned(a) ? b : a;
    if (bits(s) > bits(u)) return s;
    return signedOf(bits(u) + 1).value_or(DType::Float64);
  }
  const DType f = kind(a) == 2 ? a : b, i = kind(a) == 2 ? b : a;
  return promote(f, floatFor(i));
}
} // namespace

bool castsSameKind(DType from, DType to) {
  // Kinds b < u < i < f: an unsigned integer casts to a signed one, not the reverse.
  auto rank = [](DType t) { return t == DType::Bool ? 0 : isUnsigned(t) ? 1 : isInteger(t) ? 2 : 3; };
  return rank(from) <= rank(to);
}

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
