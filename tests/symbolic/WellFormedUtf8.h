// A check of UTF-8 for the tests and fuzz targets, written apart from the library's own
// (symbolic/Errors.cpp reads a character's length off its lead byte; this decodes each code
// point and checks its value), so that the two can disagree.
#pragma once

#include <cstdint>
#include <string>

namespace shapelab::testutil {

/// Whether `s` is well-formed UTF-8 (RFC 3629): no stray or missing continuation byte, no
/// overlong form, no UTF-16 surrogate, nothing past U+10FFFF.
inline bool wellFormedUtf8(const std::string &s) {
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = (unsigned char)s[i];
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0xFFu >> (n + 1));
    for (std::size_t k = 1; k < n; ++k) {
      if (((unsigned char)s[i + k] >> 6) != 2) return false;
      cp = (cp << 6) | ((unsigned char)s[i + k] & 0x3F);
    }
    static constexpr uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

} // namespace shapelab::testutil
