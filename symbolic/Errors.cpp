#include "symbolic/Errors.h"

#include <algorithm>
#include <string_view>

namespace shapelab {

namespace {
std::string withPosition(const std::string &message, std::size_t position) {
  // A 1-based column (the byte's), as the JSON replies' "column" counts.
  const std::string at = std::to_string(position + 1);
  std::string out;
  out.reserve(message.size() + 11 + at.size());
  out += message;
  out += " at column ";
  out += at;
  return out;
}
} // namespace

SyntaxError::SyntaxError(std::string message, std::string text, std::size_t position)
    : UserError(withPosition(message, position)), message_(wellFormed(std::move(message))),
      text_(std::move(text)), position_(position) {}

SyntaxError::SyntaxError(Verbatim, std::string message, std::string text, std::size_t position)
    : UserError(message), message_(what()), text_(std::move(text)), position_(position) {} // (made well-formed once)

SyntaxError SyntaxError::verbatim(std::string message, std::string text, std::size_t position) {
  return SyntaxError(Verbatim{}, std::move(message), std::move(text), position);
}

std::size_t utf8SequenceLength(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return (unsigned char)text[k]; };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  // The lead byte gives the length; the second byte's range excludes overlong forms, UTF-16
  // surrogates and code points past U+10FFFF (RFC 3629, section 4).
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) n = 3, lo = 0xA0;
  else if (c == 0xED) n = 3, hi = 0x9F;
  else if (c >= 0xE1 && c <= 0xEF) n = 3;
  else if (c == 0xF0) n = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else if (c == 0xF4) n = 4, hi = 0x8F;
  else return 0;
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return n;
}

namespace {
/// Appends the byte `c` spelled as \xNN.
void appendByteEscape(std::string &out, unsigned char c) {
  static const char *hex = "0123456789abcdef";
  out += "\\x";
  out += hex[c >> 4];
  out += hex[c & 15];
}

/// `text` with each byte that begins no well-formed UTF-8 character as \xNN, and each other byte
/// from 0x80 up kept with its character; ASCII bytes go to `ascii(out, c)`.
template <class Ascii> void escapeBytes(std::string &out, std::string_view text, Ascii ascii) {
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = (unsigned char)text[i];
    if (c < 0x80) {
      ascii(out, c);
      ++i;
    } else if (std::size_t n = utf8SequenceLength(text, i)) {
      out.append(text, i, n);
      i += n;
    } else {
      appendByteEscape(out, c);
      ++i;
    }
  }
}

void appendPrintable(std::string &out, std::string_view text) {
  escapeBytes(out, text, [](std::string &out, unsigned char c) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7f) appendByteEscape(out, c);
    else out += char(c);
  });
}
} // namespace

std::string wellFormed(std::string text) {
  // Most messages are ASCII: returned as they are.
  if (std::all_of(text.begin(), text.end(), [](char c) { return (unsigned char)c < 0x80; })) return text;
  std::string out;
  out.reserve(text.size());
  escapeBytes(out, text, [](std::string &out, unsigned char c) { out += char(c); });
  return out;
}

std::string printable(const std::string &text) {
  // A whole character is kept; a byte that begins none is escaped, so the result is always
  // well-formed UTF-8 (a terminal or a JSON reader gets no broken character).
  std::string out;
  out.reserve(text.size());
  appendPrintable(out, text);
  return out;
}

namespace {
/// The columns a character takes on a terminal: 0 for combining marks, 2 for the wide and
/// fullwidth blocks (CJK, Hangul, fullwidth forms, emoji), 1 otherwise. The ranges are the
/// main blocks of Unicode's East Asian Width W and F classes (UAX #11), not every code point.
int characterColumns(char32_t c) {
  if ((c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) || (c >= 0x1DC0 && c <= 0x1DFF) ||
      (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE20 && c <= 0xFE2F) || c == 0x200B || c == 0x200D)
    return 0;
  if ((c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) || (c >= 0x3041 && c <= 0x33FF) ||
      (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
      (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
      (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
      (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD))
    return 2;
  return 1;
}

/// Columns `s` takes on a terminal (`s` is a printable() text: well-formed UTF-8).
std::size_t columns(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = std::max<std::size_t>(1, utf8SequenceLength(s, i));
    char32_t c = len == 1 ? (unsigned char)s[i] : char32_t((unsigned char)s[i] & (0x7F >> len));
    for (std::size_t k = 1; k < len; ++k) c = (c << 6) | ((unsigned char)s[i + k] & 0x3F);
    n += std::size_t(characterColumns(c));
    i += len;
  }
  return n;
}
} // namespace

std::string SyntaxError::render() const {
  // A long text is shown as a window around the caret, elided with "..." on either side.
  constexpr std::size_t kContext = 60;
  std::size_t at = position_ <= text_.size() ? position_ : text_.size();
  std::size_t from = at > kContext ? at - kContext : 0;
  std::size_t to = std::min(text_.size(), at + kContext);
  // The window's edges move off the middle of a character (at most three bytes each).
  const auto continuation = [&](std::size_t i) { return i < text_.size() && ((unsigned char)text_[i] & 0xC0) == 0x80; };
  for (int k = 0; k < 3 && from > 0 && continuation(from); ++k) --from;
  for (int k = 0; k < 3 && continuation(to); ++k) ++to;
  // Built in one string: an escape is at most 4 bytes a byte, and the caret line takes at most
  // a column a byte of the escaped text before the caret.
  const std::string_view text(text_), message(what());
  std::string out;
  out.reserve(4 * message.size() + 8 * (to - from) + 16);
  appendPrintable(out, message);
  out += "\n  ";
  const std::size_t line = out.size();
  if (from > 0) out += "...";
  appendPrintable(out, text.substr(from, at - from));
  const std::size_t caret = columns(std::string_view(out).substr(line));
  appendPrintable(out, text.substr(at, to - at));
  if (to < text_.size()) out += "...";
  out += "\n  ";
  out.append(caret, ' ');
  out += '^';
  return out;
}

} // namespace shapelab
