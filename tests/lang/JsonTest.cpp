// The JSON writer (lang/Json.h) against nlohmann-json.

#include "tests/lang/ProgramFixtures.h"

using namespace shapelab;
using namespace shapelab::fixtures;

// The JSON writer writes common scalars itself (a library dump per scalar cost more than the
// statement it reports); every value must come out as the library writes it, scalar by scalar,
// with the contract's ", " and ": " separators. The reference below is that definition.
namespace {
std::string referenceJson(const lang::Json &j) {
  auto scalar = [](const lang::Json &s) { return s.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace); };
  if (j.is_object()) {
    std::string out = "{";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      out += (first ? "" : ", ") + scalar(lang::Json(it.key())) + ": " + referenceJson(it.value());
      first = false;
    }
    return out + "}";
  }
  if (j.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < j.size(); ++i) out += (i ? ", " : "") + referenceJson(j[i]);
    return out + "]";
  }
  return scalar(j);
}

rc::Gen<std::string> jsonText() {
  // Printable text, and bytes of every kind: quotes, backslashes, controls, UTF-8 and not.
  return rc::gen::oneOf(rc::gen::container<std::string>(rc::gen::inRange<char>(0x20, 0x7f)),
                        rc::gen::container<std::string>(rc::gen::arbitrary<char>()),
                        rc::gen::element<std::string>("", "\"", "\\", "a\nb", "\x7f", "\xc3\xa9", "\xff\xfe", "\xe2\x82"));
}

rc::Gen<lang::Json> jsonScalar() {
  using lang::Json;
  return rc::gen::oneOf(
      rc::gen::just(Json(nullptr)), rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return Json(b); }),
      rc::gen::map(rc::gen::arbitrary<int64_t>(), [](int64_t v) { return Json(v); }),
      rc::gen::map(rc::gen::arbitrary<uint64_t>(), [](uint64_t v) { return Json(v); }),
      rc::gen::map(rc::gen::arbitrary<double>(), [](double v) { return Json(v); }),
      rc::gen::map(rc::gen::element<double>(0.0, -0.0, 1.0, 0.1, 1e300, std::numeric_limits<double>::quiet_NaN(),
                                            std::numeric_limits<double>::infinity(), 5e-324),
                   [](double v) { return Json(v); }),
      rc::gen::map(jsonText(), [](std::string s) { return Json(std::move(s)); }));
}
} // namespace

RC_GTEST_PROP(Json, WriterAgreesWithTheLibraryScalarByScalar, ()) {
  using lang::Json;
  const auto items = *rc::gen::container<std::vector<Json>>(jsonScalar());
  const auto keys = *rc::gen::container<std::vector<std::string>>(items.size(), jsonText());
  Json object = Json::object(), array = Json::array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    object[keys[i]] = items[i];
    array.push_back(items[i]);
  }
  Json nested = Json::object();
  nested["object"] = object;
  nested["array"] = array;
  nested["empty"] = Json::array();
  for (const Json &j : {nested, array, object})
    RC_ASSERT(lang::dumpJson(j) == referenceJson(j));
  for (const Json &j : items) RC_ASSERT(lang::dumpJson(j) == referenceJson(j));
}

// Assignment replies are written straight into text (appendJsonString, appendJsonInteger): each
// piece must be what the library writes for the same value.
RC_GTEST_PROP(Json, AppendedPiecesAgreeWithTheLibrary, ()) {
  const std::string text = *jsonText();
  std::string out = "x";
  lang::appendJsonString(out, text);
  RC_ASSERT(out == "x" + referenceJson(lang::Json(text)));
  // Integers of every size: int64 extremes, and past them (written as strings).
  const int64_t v = *rc::gen::arbitrary<int64_t>();
  const int shift = *rc::gen::inRange(0, 3);
  Integer i(v);
  for (int k = 0; k < shift; ++k) i = i * Integer(int64_t(1) << 40);
  std::string n;
  lang::appendJsonInteger(n, i);
  RC_ASSERT(n == referenceJson(lang::integerJson(i)));
}
