// Values of the program language (Value.h): their names in messages, their text, their JSON.
#include "lang/Value.h"

#include <cmath>
#include <functional>

namespace shapelab::lang {

const char *kindName(Value::Kind k) {
  switch (k) {
  case Value::None: return "None";
  case Value::Array: return "an array";
  case Value::Size: return "an integer";
  case Value::Float: return "a float";
  case Value::Bool: return "a bool";
  case Value::Predicate: return "a predicate";
  case Value::Tuple: return "a tuple";
  case Value::String: return "a string";
  case Value::DTypeName: return "a dtype";
  case Value::Ellipsis: return "...";
  case Value::Slice: return "a slice";
  case Value::Callable: return "a function";
  case Value::Literal: return "an array literal";
  }
  return "?";
}

bool isModule(const Value &v) {
  return v.kind == Value::Callable && !v.node &&
         (v.text.empty() || v.text == "random" || v.text == "linalg" || v.text == "lib" || v.text == "lib.stride_tricks");
}

const char *kindName(const Value &v) { return isModule(v) ? "a module" : kindName(v.kind); }

std::string valueText(const Value &v) {
  switch (v.kind) {
  case Value::Size: return v.size.toString();
  case Value::Predicate: return v.pred.toString();
  case Value::Float: return interp::formatDouble(v.number);
  case Value::Bool: return v.flag ? "True" : "False";
  case Value::Tuple: {
    for (const Value &i : v.items)
      if (i.kind != Value::Size && i.kind != Value::Float && i.kind != Value::Bool && i.kind != Value::Predicate)
        return kindName(v); // arrays have no short text
    std::string out = v.flag ? "[" : "(";
    for (std::size_t i = 0; i < v.items.size(); ++i) out += (i ? ", " : "") + valueText(v.items[i]);
    if (!v.flag && v.items.size() == 1) out += ",";
    return out + (v.flag ? "]" : ")");
  }
  default: return kindName(v);
  }
}

Json shapeJson(const Shape &s) {
  Json a = Json::array();
  for (const Expr &d : s) {
    if (auto c = d.constantValue()) a.push_back(integerJson(*c));
    else a.push_back(d.toString());
  }
  return a;
}

Json valueJson(const Array &a) {
  std::function<Json(std::size_t, int64_t)> rec = [&](std::size_t dim, int64_t off) -> Json {
    if (dim == a.rank()) {
      return interp::dispatch(a.dtype(), [&](auto t) -> Json {
        using T = decltype(t);
        T v = a.base<T>()[off];
        if constexpr (std::is_same_v<T, bool>) return Json(v);
        else if constexpr (ops::floating<T>) {
          if (std::isnan(v)) return "nan";
          if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
          return Json(double(v));
        } else if constexpr (std::is_unsigned_v<T>) return Json(uint64_t(v));
        else return Json(int64_t(v));
      });
    }
    Json list = Json::array();
    for (int64_t i = 0; i < a.shape()[dim]; ++i) list.push_back(rec(dim + 1, off + i * a.strides()[dim]));
    return list;
  };
  return rec(0, a.offset());
}

} // namespace shapelab::lang
