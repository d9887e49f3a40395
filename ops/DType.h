// DType — the element types of shapelab's arrays and NumPy's promotion rules over them.
//
// Model: five dtypes (bool, int32, int64, float32, float64), named as NumPy names them. Result
// types follow np.result_type with Python scalar literals "weak" (NEP 50): a literal takes the
// array's type when it is of the same kind or a lower one (int32 array + 2 is int32, float32
// array * 2.0 is float32), and only raises the kind otherwise (int32 array + 2.0 is float64,
// bool array + 2 is int64). Operands that are all literals promote as NumPy's defaults
// (int64, float64).
// Example: resultType({{Int32, false}, {Float32, false}}) == Float64 (NumPy: int32 + float32).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shapelab::ops {

enum class DType : uint8_t { Bool, Int32, Int64, Float32, Float64 };

const char *spelling(DType t); // "bool", "int32", "int64", "float32", "float64"
/// The dtype with NumPy's name (also "float", "int", "bool_" as NumPy's aliases); nullopt otherwise.
std::optional<DType> dtypeNamed(const std::string &name);
inline bool isFloat(DType t) { return t == DType::Float32 || t == DType::Float64; }
inline bool isInteger(DType t) { return t == DType::Int32 || t == DType::Int64; }
/// Whether NumPy casts `from` to `to` under casting='same_kind' (the kind may rise, bool <
/// integer < float, or stay): what an in-place operator's result must satisfy.
bool castsSameKind(DType from, DType to);
/// Bytes per element.
std::size_t itemSize(DType t);

/// One operand of a promotion: an array's dtype, or a Python literal's (weak) kind.
struct Typed {
  DType dtype;
  bool weak = false;
};

/// np.result_type of the operands, literals weak (NEP 50).
DType resultType(const std::vector<Typed> &operands);

} // namespace shapelab::ops
