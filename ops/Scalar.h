// Scalar — NumPy's rules for one value of each dtype: the C++ element types, casts, and the
// scalar arithmetic of the ufuncs (DESIGN §2: ops/, the scalar NumPy rules).
//
// Model: each dtype has a C++ element type (Element, dispatch); a cast of one value follows
// NumPy's C casts (castValue); each ufunc's scalar function follows NumPy's loops (integer
// division and modulo with the divisor's sign, wrapping integer arithmetic, NaN-propagating
// maximum). Both interpreters compute elements with these functions and constant folding in
// rewrite/ folds with them, so exact operations give the same bits everywhere.
// Example: arithmetic<int64_t>(Bin::FloorDiv, -7, 2) == -4; castValue<int32_t>(NAN) == INT32_MIN.
// Errors: a value error (an integer to a negative power) is an EvalError of kind Value.
// Cost: header-only, inlined into the kernels' loops; binCode and unaryCode look a name up in a
// short table (call them once per op, not per element; the functions then switch on the code).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ops/DType.h"
#include "ops/Half.h"
#include "symbolic/Errors.h"

namespace shapelab::ops {

/// A failure while evaluating: a shape error (the program is invalid at these sizes), a value
/// error (a singular matrix, an index out of bounds, a negative integer power), or bad inputs.
class EvalError : public UserError {
public:
  enum Kind { Shape, Value, Input };
  EvalError(Kind kind, std::string message) : UserError(std::move(message)), kind(kind) {}
  Kind kind;
  static const char *spelling(Kind k) { return k == Shape ? "shape" : k == Value ? "value" : "input"; }
};

/// The C++ element type of each dtype.
template <DType T> struct Element;
template <> struct Element<DType::Bool> { using type = bool; };
template <> struct Element<DType::Int8> { using type = int8_t; };
template <> struct Element<DType::Int16> { using type = int16_t; };
template <> struct Element<DType::Int32> { using type = int32_t; };
template <> struct Element<DType::Int64> { using type = int64_t; };
template <> struct Element<DType::UInt8> { using type = uint8_t; };
template <> struct Element<DType::UInt16> { using type = uint16_t; };
template <> struct Element<DType::UInt32> { using type = uint32_t; };
template <> struct Element<DType::UInt64> { using type = uint64_t; };
template <> struct Element<DType::Float16> { using type = Half; };
template <> struct Element<DType::Float32> { using type = float; };
template <> struct Element<DType::Float64> { using type = double; };

/// Whether T is a float element type (float16's Half among them).
template <class T> inline constexpr bool floating = std::is_floating_point_v<T> || std::is_same_v<T, Half>;

/// Calls f(T{}) with T the element type of `t`.
template <class F> decltype(auto) dispatch(DType t, F &&f) {
  switch (t) {
  case DType::Bool: return f(bool{});
  case DType::Int8: return f(int8_t{});
  case DType::Int16: return f(int16_t{});
  case DType::Int32: return f(int32_t{});
  case DType::Int64: return f(int64_t{});
  case DType::UInt8: return f(uint8_t{});
  case DType::UInt16: return f(uint16_t{});
  case DType::UInt32: return f(uint32_t{});
  case DType::UInt64: return f(uint64_t{});
  case DType::Float16: return f(Half{});
  case DType::Float32: return f(float{});
  default: return f(double{});
  }
}

template <class T> constexpr DType dtypeOf();
template <> constexpr DType dtypeOf<bool>() { return DType::Bool; }
template <> constexpr DType dtypeOf<int8_t>() { return DType::Int8; }
template <> constexpr DType dtypeOf<int16_t>() { return DType::Int16; }
template <> constexpr DType dtypeOf<int32_t>() { return DType::Int32; }
template <> constexpr DType dtypeOf<int64_t>() { return DType::Int64; }
template <> constexpr DType dtypeOf<uint8_t>() { return DType::UInt8; }
template <> constexpr DType dtypeOf<uint16_t>() { return DType::UInt16; }
template <> constexpr DType dtypeOf<uint32_t>() { return DType::UInt32; }
template <> constexpr DType dtypeOf<uint64_t>() { return DType::UInt64; }
template <> constexpr DType dtypeOf<Half>() { return DType::Float16; }
template <> constexpr DType dtypeOf<float>() { return DType::Float32; }
template <> constexpr DType dtypeOf<double>() { return DType::Float64; }

/// NumPy's cast of one value, as its C casts behave on x86-64. Float to int64 or int32: NaN and
/// out-of-range values give the type's minimum. Float to a narrower integer goes through int32
/// (so 300.7 to uint8 is 44, 1e10 to int16 is 0), to uint32 through int64, and to uint64
/// through int64 below 2**63 (NaN and values from 2**64 give 2**63). Integer to integer wraps;
/// anything to bool is "non-zero"; float16 computes through float.
template <class To, class From> To castValue(From v) {
  if constexpr (std::is_same_v<From, Half>) return castValue<To>(float(v));
  else if constexpr (std::is_same_v<To, bool>) return v != From(0);
  else if constexpr (std::is_same_v<To, Half>) return Half(double(v));
  else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if constexpr (sizeof(To) < 4) return To(static_cast<std::make_unsigned_t<To>>(castValue<int32_t>(v)));
    else if constexpr (std::is_same_v<To, uint32_t>) return To(castValue<int64_t>(v));
    else if constexpr (std::is_same_v<To, uint64_t>) {
      if (double(v) < 0x1p63) return uint64_t(castValue<int64_t>(v));
      return double(v) < 0x1p64 ? uint64_t(v) : uint64_t(1) << 63;
    } else {
      constexpr double lo = double(std::numeric_limits<To>::min());
      constexpr double hi = -lo; // 2**31 or 2**63, exactly representable
      if (!(double(v) >= lo && double(v) < hi)) return std::numeric_limits<To>::min();
      return To(v);
    }
  } else if constexpr (std::is_integral_v<To> && std::is_integral_v<From>) {
    return To(static_cast<std::make_unsigned_t<To>>(v)); // wraps, as NumPy's int casts do
  } else {
    return To(v);
  }
}

/// The unsigned type integer arithmetic on T wraps in: at least unsigned int, so that no
/// operand is promoted to a signed int (uint16 * uint16 would overflow int).
template <class T> using Wrapping = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

// ---- NumPy's scalar rules -------------------------------------------------------------------

/// Floor division and remainder as NumPy computes them (npy_divmod for floats: the remainder
/// has the divisor's sign, the quotient is snapped to an integer; by zero: a / b and fmod).
template <class T> T floorDivide(T a, T b) {
  if constexpr (std::is_same_v<T, Half>) return Half(floorDivide<float>(a, b));
  else if constexpr (std::is_unsigned_v<T>) return b == 0 ? T(0) : T(a / b);
  else if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0) {
      if ((b < 0) != (mod < 0)) div -= T(1);
    }
    if (div != 0) {
      T floordiv = std::floor(div);
      if (div - floordiv > T(0.5)) floordiv += T(1);
      return floordiv;
    }
    return std::copysign(T(0), a / b);
  } else {
    // Integers: by zero gives 0; MIN // -1 wraps to MIN (NumPy warns and does the same).
    using U = std::make_unsigned_t<T>;
    if (b == 0) return 0;
    if (b == -1) return T(U(0) - U(a));
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
}

template <class T> T remainder(T a, T b) {
  if constexpr (std::is_same_v<T, Half>) return Half(remainder<float>(a, b));
  else if constexpr (std::is_unsigned_v<T>) return b == 0 ? T(0) : T(a % b);
  else if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return std::fmod(a, b);
    T mod = std::fmod(a, b);
    if (mod != 0) {
      if ((b < 0) != (mod < 0)) mod += b;
    } else {
      mod = std::copysign(T(0), b);
    }
    return mod;
  } else {
    if (b == 0 || b == -1) return 0;
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}

/// Integer power by squaring, wrapping; `exponent` >= 0.
template <class T> T integerPower(T base, T exponent) {
  using U = Wrapping<T>;
  U result = 1, b = U(std::make_unsigned_t<T>(base));
  for (auto e = std::make_unsigned_t<T>(exponent); e; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return T(result);
}

/// NumPy's sign of a float: -1, 0 or 1, nan kept.
template <class T> T floatSign(T x) { return std::isnan(x) ? x : T((x > 0) - (x < 0)); }

/// Raises the value error of an integer to a negative integer power.
[[noreturn]] void negativeIntegerPower();

/// The binary ufuncs by code, and their scalar rules (shared by both interpreters, so exact
/// operations give the same bits in each).
enum class Bin {
#define SHAPELAB_BINARY(name, symbol, code, rule) code,
#include "ops/Ufuncs.def"
};
/// Whether `b` compares (bool result): equal ... greater_equal, adjacent in the list.
constexpr bool isComparison(Bin b) { return b >= Bin::Eq && b <= Bin::Ge; }
/// The code of a binary ufunc's name (InternalError for another name). A short search: call it
/// once per op, not per element.
/// The code `op` has in `table` (a ufunc list's names with their codes); InternalError naming
/// `what` for a name it does not hold.
template <class Code, std::size_t N>
Code codeNamed(const std::pair<const char *, Code> (&table)[N], const std::string &op, const char *what) {
  for (const auto &[name, code] : table)
    if (op == name) return code;
  throw InternalError(std::string("unknown ") + what + " op " + op);
}

inline Bin binCode(const std::string &op) {
  static const std::pair<const char *, Bin> table[] = {
#define SHAPELAB_BINARY(name, symbol, code, rule) {#name, Bin::code},
#include "ops/Ufuncs.def"
  };
  return codeNamed(table, op, "binary");
}

template <class T> T arithmetic(Bin op, T a, T b) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half(arithmetic<float>(op, a, b)); // NumPy's float16 loops compute in float
  } else if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
    // The logical ops compute on their operands' truth (the interpreter casts them to bool).
    case Bin::Add: case Bin::Max: case Bin::Or: case Bin::Fmax: case Bin::LogicalOr: return a || b;
    case Bin::Mul: case Bin::Min: case Bin::And: case Bin::Fmin: case Bin::LogicalAnd: return a && b;
    case Bin::Xor: case Bin::LogicalXor: return a != b;
    default: throw InternalError("bool arithmetic");
    }
  } else if constexpr (std::is_integral_v<T>) {
    using U = Wrapping<T>;
    switch (op) {
    case Bin::Add: return T(U(a) + U(b));
    case Bin::Sub: return T(U(a) - U(b));
    case Bin::Mul: return T(U(a) * U(b));
    case Bin::FloorDiv: return floorDivide(a, b);
    case Bin::Mod: return remainder(a, b);
    case Bin::Pow:
      if constexpr (std::is_signed_v<T>)
        if (b < 0) negativeIntegerPower();
      return integerPower(a, b);
    case Bin::Max: case Bin::Fmax: return std::max(a, b);
    case Bin::Min: case Bin::Fmin: return std::min(a, b);
    case Bin::And: return a & b;
    case Bin::Or: return a | b;
    case Bin::Xor: return a ^ b;
    // C's remainder (the dividend's sign); NumPy gives 0 for a zero divisor, and the quotient
    // MIN / -1 does not exist, but its remainder is 0.
    case Bin::Fmod:
      if constexpr (std::is_signed_v<T>) return b == 0 || b == T(-1) ? T(0) : T(a % b);
      else return b == 0 ? T(0) : T(a % b);
    default: throw InternalError("int arithmetic");
    }
  } else {
    switch (op) {
    case Bin::Add: return a + b;
    case Bin::Sub: return a - b;
    case Bin::Mul: return a * b;
    case Bin::Div: return a / b;
    case Bin::FloorDiv: return floorDivide(a, b);
    case Bin::Mod: return remainder(a, b);
    case Bin::Pow: return std::pow(a, b);
    // NumPy on x86-64 (MAXPD/MINPD): equal operands give the second one, so maximum(-0.0, 0.0)
    // is 0.0 and maximum(0.0, -0.0) is -0.0; a NaN operand gives that NaN. A reduction folds
    // left to right, so the last of equal zeros wins there too.
    case Bin::Max: return (a > b || std::isnan(a)) ? a : b;
    case Bin::Min: return (a < b || std::isnan(a)) ? a : b;
    // fmax and fmin skip a NaN operand; otherwise as maximum and minimum (equal zeros give the
    // second, though NumPy's own loops differ there by path).
    case Bin::Fmax: return std::isnan(b) ? a : std::isnan(a) ? b : a > b ? a : b;
    case Bin::Fmin: return std::isnan(b) ? a : std::isnan(a) ? b : a < b ? a : b;
    case Bin::Fmod: return std::fmod(a, b);
    case Bin::Atan2: return std::atan2(a, b);
    case Bin::Hypot: return std::hypot(a, b);
    case Bin::Copysign: return std::copysign(a, b);
    // NumPy's npy_logaddexp and npy_logaddexp2: equal operands (infinities of one sign too)
    // give a + log(2) (a + 1); otherwise the larger plus log1p of the exponential of the
    // difference; a NaN operand gives the NaN difference.
    case Bin::LogAddExp: {
      if (a == b) return a + T(std::numbers::ln2);
      const T d = a - b;
      return d > 0 ? a + std::log1p(std::exp(-d)) : d <= 0 ? b + std::log1p(std::exp(d)) : d;
    }
    case Bin::LogAddExp2: {
      if (a == b) return a + T(1);
      const T d = a - b;
      return d > 0 ? a + T(std::numbers::log2e) * std::log1p(std::exp2(-d))
                   : d <= 0 ? b + T(std::numbers::log2e) * std::log1p(std::exp2(d)) : d;
    }
    default: throw InternalError("float arithmetic");
    }
  }
}

template <class T> bool comparison(Bin op, T a, T b) {
  switch (op) {
  case Bin::Eq: return a == b;
  case Bin::Ne: return a != b;
  case Bin::Lt: return a < b;
  case Bin::Le: return a <= b;
  case Bin::Gt: return a > b;
  default: return a >= b;
  }
}

/// The unary ufuncs by code (ops/Ufuncs.def).
enum class Un {
#define SHAPELAB_UNARY(name, code, rule, loop) code,
#include "ops/Ufuncs.def"
};
/// How the optimized interpreter computes a unary op on float64 (ops/Ufuncs.def says each).
enum class UfuncLoop : uint8_t { Vector, Arith, Libm, Own, Test };
constexpr UfuncLoop loopOf(Un u) {
  using enum UfuncLoop;
  constexpr UfuncLoop table[] = {
#define SHAPELAB_UNARY(name, code, rule, loop) loop,
#include "ops/Ufuncs.def"
  };
  return table[int(u)];
}
/// The code of a unary ufunc's name (InternalError for another name). A short search: call it
/// once per op, not per element.
inline Un unaryCode(const std::string &op) {
  static const std::pair<const char *, Un> table[] = {
#define SHAPELAB_UNARY(name, code, rule, loop) {#name, Un::code},
#include "ops/Ufuncs.def"
  };
  return codeNamed(table, op, "unary");
}

/// The function of a unary op computed with the C library alone (the rows of loop Libm: exp2,
/// arcsin, rint, positive, ...) for float32 or float64 (T): the float overloads for float32, as
/// NumPy's loops. The reference and the optimized interpreter call the same one, so they agree
/// bit for bit. nullptr for the other ops.
template <class T> T (*libmFunction(Un op))(T) {
  switch (op) {
  case Un::Exp2: return [](T x) { return std::exp2(x); };
  case Un::Log2: return [](T x) { return std::log2(x); };
  case Un::Log10: return [](T x) { return std::log10(x); };
  case Un::Sinh: return [](T x) { return std::sinh(x); };
  case Un::Cosh: return [](T x) { return std::cosh(x); };
  case Un::Arcsin: return [](T x) { return std::asin(x); };
  case Un::Arccos: return [](T x) { return std::acos(x); };
  case Un::Arctan: return [](T x) { return std::atan(x); };
  case Un::Arcsinh: return [](T x) { return std::asinh(x); };
  case Un::Arccosh: return [](T x) { return std::acosh(x); };
  case Un::Arctanh: return [](T x) { return std::atanh(x); };
  case Un::Cbrt: return [](T x) { return std::cbrt(x); };
  case Un::Trunc: return [](T x) { return std::trunc(x); };
  case Un::Rint: return [](T x) { return std::nearbyint(x); }; // halves to even
  case Un::Fabs: return [](T x) { return std::fabs(x); };
  case Un::Positive: return [](T x) { return x; };
  default: return nullptr;
  }
}

/// The scalar function of a unary ufunc (not an element test) on a value of type T.
template <class T> T unaryValue(Un op, T x) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half(unaryValue<float>(op, x));
  } else if constexpr (std::is_same_v<T, bool>) {
    if (op == Un::Invert) return !x;
    return x; // abs
  } else if constexpr (std::is_integral_v<T>) {
    using U = Wrapping<T>;
    switch (op) {
    case Un::Abs:
      if constexpr (std::is_signed_v<T>) return x < 0 ? T(U(0) - U(x)) : x;
      else return x;
    case Un::Negative: return T(U(0) - U(x));
    case Un::Sign:
      if constexpr (std::is_signed_v<T>) return T((x > 0) - (x < 0));
      else return T(x > 0);
    case Un::Invert: return T(~x);
    case Un::Square: return T(U(x) * U(x));
    case Un::Positive: return x;
    default: throw InternalError("integer unary op " + std::to_string(int(op)));
    }
  } else {
    switch (op) {
    case Un::Exp: return std::exp(x);
    case Un::Log: return std::log(x);
    case Un::Log1p: return std::log1p(x);
    case Un::Expm1: return std::expm1(x);
    case Un::Sin: return std::sin(x);
    case Un::Cos: return std::cos(x);
    case Un::Tan: return std::tan(x);
    case Un::Tanh: return std::tanh(x);
    case Un::Sqrt: return std::sqrt(x);
    case Un::Abs: return std::fabs(x);
    case Un::Negative: return -x;
    case Un::Sign: return floatSign(x);
    case Un::Floor: return std::floor(x);
    case Un::Ceil: return std::ceil(x);
    case Un::Square: return x * x;
    default:
      if (T (*fn)(T) = libmFunction<T>(op)) return fn(x);
      throw InternalError("float unary op " + std::to_string(int(op)));
    }
  }
}

/// The element tests (the rows of loop Test) on a value of the input's own dtype.
template <class T> bool unaryTest(Un op, T x) {
  if (op == Un::LogicalNot) return x == T(0); // a NaN is true, so not logical_not
  if constexpr (floating<T>) {
    switch (op) {
    case Un::Isnan: return std::isnan(x);
    case Un::Isinf: return std::isinf(x);
    case Un::Isfinite: return std::isfinite(x);
    case Un::Signbit: return std::signbit(x);
    default: break;
    }
  } else {
    switch (op) {
    case Un::Isnan: case Un::Isinf: return false;
    case Un::Isfinite: return true;
    case Un::Signbit:
      if constexpr (std::is_signed_v<T>) return x < T(0);
      else return false;
    default: break;
    }
  }
  throw InternalError("element test " + std::to_string(int(op)));
}

} // namespace shapelab::ops
