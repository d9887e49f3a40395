// DType — the element types of shapelab's arrays and NumPy's promotion rules over them.
//
// Model: twelve dtypes (bool; int8, int16, int32, int64; uint8 .. uint64; float16, float32,
// float64), named as NumPy names them. Result types follow np.result_type with Python scalar literals "weak" (NEP 50): a literal takes the
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

// (The first five keep their numbers: they seed the random inputs and draws.)
enum class DType : uint8_t { Bool, Int32, Int64, Float32, Float64, Int8, Int16, UInt8, UInt16, UInt32, UInt64, Float16 };

const char *spelling(DType t); // "bool", "int8", ..., "uint64", "float16", "float32", "float64"
/// The dtype with NumPy's name (also NumPy's aliases "float", "int", "bool_", "byte", "ubyte",
/// "short", "ushort", "intc", "uintc", "intp", "uintp", "uint", "half", "single", "double",
/// "longlong", "ulonglong"); nullopt otherwise.
std::optional<DType> dtypeNamed(const std::string &name);
/// "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32 and
/// float64": what a message lists when a dtype is not one of them.
const char *dtypeList();
inline bool isFloat(DType t) { return t == DType::Float16 || t == DType::Float32 || t == DType::Float64; }
inline bool isUnsigned(DType t) { return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64; }
inline bool isInteger(DType t) { return t != DType::Bool && !isFloat(t); }
/// The float dtype NumPy's math loops (exp, sqrt, arctan2, ...) give for an input of dtype t:
/// the smallest float that holds every value of t (bool, int8, uint8: float16; int16, uint16:
/// float32; wider integers: float64); a float is itself.
DType floatFor(DType t);
/// The dtype NumPy's sum, prod, cumsum and cumprod give: int64 for bool and the signed
/// integers, uint64 for the unsigned ones, a float itself.
DType accumulatorFor(DType t);
/// Whether the integer `v` (a Python literal) is a value of the integer dtype t.
bool holds(DType t, long double v);
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
