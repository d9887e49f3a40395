#include "symbolic/Errors.h"

#include <algorithm>

namespace shapelab {

namespace {
std::string withPosition(const std::string &message, std::size_t position) {
  return message + " at position " + std::to_string(position);
}
} // namespace

SyntaxError::SyntaxError(std::string message, std::string text, std::size_t position)
    : UserError(withPosition(message, position)), message_(std::move(message)),
      text_(std::move(text)), position_(position) {}

SyntaxError::SyntaxError(Verbatim, std::string message, std::string text, std::size_t position)
    : UserError(message), message_(std::move(message)), text_(std::move(text)), position_(position) {}

SyntaxError SyntaxError::verbatim(std::string message, std::string text, std::size_t position) {
  return SyntaxError(Verbatim{}, std::move(message), std::move(text), position);
}

std::string printable(const std::string &text) {
  static const char *hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7f) out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    else out += char(c);
  }
  return out;
}

std::string SyntaxError::render() const {
  // A long text is shown as a window around the caret, elided with "..." on either side.
  constexpr std::size_t kContext = 60;
  std::size_t at = position_ <= text_.size() ? position_ : text_.size();
  std::size_t from = at > kContext ? at - kContext : 0;
  std::size_t to = std::min(text_.size(), at + kContext);
  std::string before = (from > 0 ? "..." : "") + printable(text_.substr(from, at - from));
  std::string after = printable(text_.substr(at, to - at)) + (to < text_.size() ? "..." : "");
  std::string out = printable(what());
  out += "\n  " + before + after + "\n  ";
  out += std::string(before.size(), ' ');
  out += "^";
  return out;
}

} // namespace shapelab
