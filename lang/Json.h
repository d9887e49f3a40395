// Json — the driver's --json output, on nlohmann::ordered_json (keys keep insertion order).
//
// Every command prints one object per line in one style: `{"answer": "proven", "n": [1, 2]}`
// (", " and ": " as separators, as Python's json.dumps writes them; the contract the golden
// tests pin). Integers that fit in 64 bits are JSON numbers, larger ones decimal strings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "symbolic/Evaluate.h"
#include "symbolic/Integer.h"

namespace shapelab::lang {

using Json = nlohmann::ordered_json;

/// A number when it fits in 64 bits, else its decimal text.
Json integerJson(const Integer &i);
/// {"name": value, ...} in the assignment's (sorted) order.
Json assignmentJson(const Assignment &a);
/// One line of JSON with ", " and ": " separators; bytes that are not UTF-8 become U+FFFD.
std::string dumpJson(const Json &j);
/// What dumpJson writes for a string and for integerJson(i), appended to `out`: for replies
/// written straight into text without building a Json first.
void appendJsonString(std::string &out, const std::string &s);
void appendJsonInteger(std::string &out, const Integer &i);

} // namespace shapelab::lang
