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
// Cost: header-only, inlined into the kernels' loops; binCode and libmFunction look a name up
// in a short table (call them once per op, not per element).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ops/DType.h"
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
template <> struct Element<DType::Int32> { using type = int32_t; };
template <> struct Element<DType::Int64> { using type = int64_t; };
template <> struct Element<DType::Float32> { using type = float; };
template <> struct Element<DType::Float64> { using type = double; };

/// Calls f(T{}) with T the element type of `t`.
template <class F> decltype(auto) dispatch(DType t, F &&f) {
  switch (t) {
  case DType::Bool: return f(bool{});
  case DType::Int32: return f(int32_t{});
  case DType::Int64: return f(int64_t{});
  case DType::Float32: return f(float{});
  default: return f(double{});
  }
}

template <class T> constexpr DType dtypeOf();
template <> constexpr DType dtypeOf<bool>() { return DType::Bool; }
template <> constexpr DType dtypeOf<int32_t>() { return DType::Int32; }
template <> constexpr DType dtypeOf<int64_t>() { return DType::Int64; }
template <> constexpr DType dtypeOf<float>() { return DType::Float32; }
template <> constexpr DType dtypeOf<double>() { return DType::Float64; }

/// NumPy's cast of one value (float to int: NaN and out-of-range values give the type's
/// minimum, as NumPy's C casts do on x86-64; to bool: non-zero).
template <class To, class From> To castValue(From v) {
  if constexpr (std::is_same_v<To, bool>) return v != From(0);
  else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    constexpr double lo = double(std::numeric_limits<To>::min());
    constexpr double hi = -lo; // 2**31 or 2**63, exactly representable
    if (!(double(v) >= lo && double(v) < hi)) return std::numeric_limits<To>::min();
    return To(v);
  } else if constexpr (std::is_integral_v<To> && std::is_integral_v<From>) {
    return To(static_cast<std::make_unsigned_t<To>>(v)); // wraps, as NumPy's int casts do
  } else {
    return To(v);
  }
}

// ---- NumPy's scalar rules -------------------------------------------------------------------

/// Floor division and remainder as NumPy computes them (npy_divmod for floats: the remainder
/// has the divisor's sign, the quotient is snapped to an integer; by zero: a / b and fmod).
template <class T> T floorDivide(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
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
  if constexpr (std::is_floating_point_v<T>) {
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
  using U = std::make_unsigned_t<T>;
  U result = 1, b = U(base);
  for (auto e = U(exponent); e; e >>= 1) {
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
inline Bin binCode(const std::string &op) {
  static const std::pair<const char *, Bin> table[] = {
#define SHAPELAB_BINARY(name, symbol, code, rule) {#name, Bin::code},
#include "ops/Ufuncs.def"
  };
  for (const auto &[name, code] : table)
    if (op == name) return code;
  throw InternalError("unknown binary op " + op);
}

template <class T> T arithmetic(Bin op, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
    // The logical ops compute on their operands' truth (the interpreter casts them to bool).
    case Bin::Add: case Bin::Max: case Bin::Or: case Bin::Fmax: case Bin::LogicalOr: return a || b;
    case Bin::Mul: case Bin::Min: case Bin::And: case Bin::Fmin: case Bin::LogicalAnd: return a && b;
    case Bin::Xor: case Bin::LogicalXor: return a != b;
    default: throw InternalError("bool arithmetic");
    }
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
    case Bin::Add: return T(U(a) + U(b));
    case Bin::Sub: return T(U(a) - U(b));
    case Bin::Mul: return T(U(a) * U(b));
    case Bin::FloorDiv: return floorDivide(a, b);
    case Bin::Mod: return remainder(a, b);
    case Bin::Pow:
      if (b < 0) negativeIntegerPower();
      return integerPower(a, b);
    case Bin::Max: case Bin::Fmax: return std::max(a, b);
    case Bin::Min: case Bin::Fmin: return std::min(a, b);
    case Bin::And: return a & b;
    case Bin::Or: return a | b;
    case Bin::Xor: return a ^ b;
    // C's remainder (the dividend's sign); NumPy gives 0 for a zero divisor, and the quotient
    // MIN / -1 does not exist, but its remainder is 0.
    case Bin::Fmod: return b == 0 || b == T(-1) ? T(0) : T(a % b);
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

/// The function of a unary op computed with the C library alone (exp2, arcsin, rint, positive,
/// ...) for float32 or float64 (T): the float overloads for float32, as NumPy's loops. The
/// reference and the optimized interpreter call the same one, so they agree bit for bit.
/// nullptr for the other ops.
template <class T> T (*libmFunction(const std::string &op))(T) {
  static const std::vector<std::pair<std::string, T (*)(T)>> table = {
      {"exp2", [](T x) { return std::exp2(x); }},     {"log2", [](T x) { return std::log2(x); }},
      {"log10", [](T x) { return std::log10(x); }},   {"sinh", [](T x) { return std::sinh(x); }},
      {"cosh", [](T x) { return std::cosh(x); }},     {"arcsin", [](T x) { return std::asin(x); }},
      {"arccos", [](T x) { return std::acos(x); }},   {"arctan", [](T x) { return std::atan(x); }},
      {"arcsinh", [](T x) { return std::asinh(x); }}, {"arccosh", [](T x) { return std::acosh(x); }},
      {"arctanh", [](T x) { return std::atanh(x); }}, {"cbrt", [](T x) { return std::cbrt(x); }},
      {"trunc", [](T x) { return std::trunc(x); }},   {"rint", [](T x) { return std::nearbyint(x); }}, // halves to even
      {"fabs", [](T x) { return std::fabs(x); }},     {"positive", [](T x) { return x; }}};
  for (const auto &[name, fn] : table)
    if (name == op) return fn;
  return nullptr;
}

template <class T> T unaryValue(const std::string &op, T x) {
  if constexpr (std::is_same_v<T, bool>) {
    if (op == "invert") return !x;
    return x; // abs
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    if (op == "abs") return x < 0 ? T(U(0) - U(x)) : x;
    if (op == "negative") return T(U(0) - U(x));
    if (op == "sign") return T((x > 0) - (x < 0));
    if (op == "invert") return T(~x);
    if (op == "square") return T(U(x) * U(x));
    if (op == "positive") return x;
    throw InternalError("integer unary " + op);
  } else {
    if (op == "exp") return std::exp(x);
    if (op == "log") return std::log(x);
    if (op == "log1p") return std::log1p(x);
    if (op == "expm1") return std::expm1(x);
    if (op == "sin") return std::sin(x);
    if (op == "cos") return std::cos(x);
    if (op == "tan") return std::tan(x);
    if (op == "tanh") return std::tanh(x);
    if (op == "sqrt") return std::sqrt(x);
    if (op == "abs") return std::fabs(x);
    if (op == "negative") return -x;
    if (op == "sign") return floatSign(x);
    if (op == "floor") return std::floor(x);
    if (op == "ceil") return std::ceil(x);
    if (op == "square") return x * x;
    if (T (*fn)(T) = libmFunction<T>(op)) return fn(x);
    throw InternalError("float unary " + op);
  }
}

/// The element tests (ops::isUnaryTest) on a value of the input's own dtype.
template <class T> bool unaryTest(const std::string &op, T x) {
  if (op == "logical_not") return x == T(0); // a NaN is true, so not logical_not
  if constexpr (std::is_floating_point_v<T>) {
    if (op == "isnan") return std::isnan(x);
    if (op == "isinf") return std::isinf(x);
    if (op == "isfinite") return std::isfinite(x);
    if (op == "signbit") return std::signbit(x);
  } else {
    if (op == "isnan" || op == "isinf") return false;
    if (op == "isfinite") return true;
    if (op == "signbit") return x < T(0);
  }
  throw InternalError("element test " + op);
}

} // namespace shapelab::ops
