#include "driver/Json.h"

#include <cstdio>

namespace shapelab::driver {

std::string jsonEscape(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += char(c);
      }
    }
  }
  return out + "\"";
}

JsonValue JsonValue::string(const std::string &s) { return raw(jsonEscape(s)); }

JsonValue JsonValue::integer(const Integer &i) {
  return i.fitsInt64() ? raw(i.toString()) : string(i.toString());
}

JsonValue JsonValue::array(const std::vector<JsonValue> &items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i].text();
  }
  return raw(out + "]");
}

JsonValue JsonValue::assignment(const Assignment &a) {
  JsonObject o;
  for (auto &[k, v] : a.values()) o.add(k, integer(v));
  return o.value();
}

std::string JsonObject::toString() const {
  std::string out = "{";
  for (std::size_t i = 0; i < items_.size(); ++i) {
    if (i) out += ", ";
    out += jsonEscape(items_[i].first) + ": " + items_[i].second;
  }
  return out + "}";
}

} // namespace shapelab::driver
