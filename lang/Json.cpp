#include "lang/Json.h"

#include <algorithm>

namespace shapelab::lang {

Json integerJson(const Integer &i) {
  if (auto v = i.tryToInt64()) return Json(*v);
  return Json(i.toString());
}

Json assignmentJson(const Assignment &a) {
  Json o = Json::object();
  for (auto &[k, v] : a.values()) o[k] = integerJson(v);
  return o;
}

namespace {
/// A string the library would write as it is, between quotes: printable ASCII without a quote
/// or a backslash.
bool plain(const std::string &s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}
/// Appends a scalar as the library dumps it. The common kinds are written directly (a dump
/// builds a serializer each time, which made a reply's JSON cost more than the statement);
/// floats and strings that need escaping go through the library.
void scalar(const Json &j, std::string &out) {
  switch (j.type()) {
  case Json::value_t::null: out += "null"; return;
  case Json::value_t::boolean: out += j.get<bool>() ? "true" : "false"; return;
  case Json::value_t::number_integer: out += std::to_string(j.get<int64_t>()); return;
  case Json::value_t::number_unsigned: out += std::to_string(j.get<uint64_t>()); return;
  case Json::value_t::string: {
    const std::string &s = j.get_ref<const std::string &>();
    if (plain(s)) {
      out += '"';
      out += s;
      out += '"';
      return;
    }
    break;
  }
  default: break;
  }
  out += j.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
}
void write(const Json &j, std::string &out) {
  if (j.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      appendJsonString(out, it.key());
      out += ": ";
      write(it.value(), out);
    }
    out += '}';
  } else if (j.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (i) out += ", ";
      write(j[i], out);
    }
    out += ']';
  } else {
    scalar(j, out);
  }
}
} // namespace

void appendJsonString(std::string &out, const std::string &s) {
  if (plain(s)) {
    out += '"';
    out += s;
    out += '"';
  } else {
    scalar(Json(s), out);
  }
}

void appendJsonInteger(std::string &out, const Integer &i) {
  if (auto v = i.tryToInt64()) out += std::to_string(*v);
  else appendJsonString(out, i.toString());
}

std::string dumpJson(const Json &j) {
  std::string out;
  write(j, out);
  return out;
}

} // namespace shapelab::lang
