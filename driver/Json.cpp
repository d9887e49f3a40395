#include "driver/Json.h"

namespace shapelab::driver {

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
std::string scalar(const Json &j) {
  return j.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
}
void write(const Json &j, std::string &out) {
  if (j.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      out += scalar(Json(it.key()));
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
    out += scalar(j);
  }
}
} // namespace

std::string dumpJson(const Json &j) {
  std::string out;
  write(j, out);
  return out;
}

} // namespace shapelab::driver
