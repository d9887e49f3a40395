#include "symbolic/Errors.h"

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

std::string SyntaxError::render() const {
  std::string out = what();
  out += "\n  ";
  out += text_;
  out += "\n  ";
  out += std::string(position_ <= text_.size() ? position_ : text_.size(), ' ');
  out += "^";
  return out;
}

} // namespace shapelab
