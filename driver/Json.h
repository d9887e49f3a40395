// Json — a minimal JSON writer for the driver's --json output.
//
// Example: JsonObject o; o.add("answer", JsonValue::string("proven")); o.toString()
// gives {"answer": "proven"}. Keys keep insertion order. Integers that fit in 64 bits are
// JSON numbers; larger ones are decimal strings (the contract of `shapelab decide --json`).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "symbolic/Evaluate.h"
#include "symbolic/Integer.h"

namespace shapelab::driver {

class JsonValue {
public:
  static JsonValue raw(std::string text) { return JsonValue(std::move(text)); }
  static JsonValue string(const std::string &s);
  static JsonValue integer(const Integer &i);
  static JsonValue boolean(bool b) { return raw(b ? "true" : "false"); }
  static JsonValue null() { return raw("null"); }
  static JsonValue array(const std::vector<JsonValue> &items);
  static JsonValue assignment(const Assignment &a);
  const std::string &text() const { return text_; }

private:
  explicit JsonValue(std::string t) : text_(std::move(t)) {}
  std::string text_;
};

class JsonObject {
public:
  JsonObject &add(const std::string &key, const JsonValue &v) {
    items_.emplace_back(key, v.text());
    return *this;
  }
  std::string toString() const;
  JsonValue value() const { return JsonValue::raw(toString()); }

private:
  std::vector<std::pair<std::string, std::string>> items_;
};

std::string jsonEscape(const std::string &s);

} // namespace shapelab::driver
