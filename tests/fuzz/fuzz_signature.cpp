// Signature parser: any text either parses or raises a SyntaxError whose position lies inside
// the text (a caret can point at it) and whose report is well-formed UTF-8.
#include "tests/fuzz/FuzzCommon.h"
#include "shape/Signature.h"

using namespace shapelab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
  if (size > 4096) return 0;
  std::string text(reinterpret_cast<const char *>(data), size);
  try {
    Signature s = parseSignature(text);
    if (s.outputs.empty()) fuzz::finding("a signature without outputs parsed: " + text);
  } catch (const SyntaxError &e) {
    fuzz::checkReported(e, text);
  } catch (const UserError &) {
  }
  return 0;
}
