// Errors — the typed exceptions every shapelab layer raises.
//
// User errors (bad text, reserved names, inconsistent assumptions, impossible shapes) derive
// from UserError; the driver turns them into a message and exit code 2 (or 1 for a shape
// error). InternalError marks a bug in shapelab itself and is never expected by a test.
// Invariant: a SyntaxError always knows the text it refers to and a 0-based byte offset into
// it, so every message can point at the problem with a caret.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace shapelab {

/// `text` with control bytes and DEL spelled as escapes (\n, \t, \x01), and every byte that
/// begins no well-formed UTF-8 character as well (\xe9): a message never echoes raw control
/// bytes to a terminal, and is always well-formed UTF-8. Whole characters (`é`) stay as they are.
std::string printable(const std::string &text);

/// The length of the well-formed UTF-8 character that starts at byte `i` of `text` (1 for
/// ASCII, 2 to 4 for others), or 0 when no character starts there (a stray continuation byte,
/// an overlong form, a surrogate, a sequence cut short).
std::size_t utf8SequenceLength(std::string_view text, std::size_t i);

/// `text` with every byte that begins no well-formed UTF-8 character escaped (\xe9), and
/// nothing else changed: the part of printable() that every message needs.
std::string wellFormed(std::string text);

/// Anything the caller did wrong. Catch this to report to a person. The message is well-formed
/// UTF-8 whatever bytes it quotes (see wellFormed()): a JSON reply or a Python exception carries
/// it as it is.
class UserError : public std::runtime_error {
public:
  explicit UserError(const std::string &message) : std::runtime_error(wellFormed(message)) {}
  explicit UserError(std::string &&message) : std::runtime_error(wellFormed(std::move(message))) {}
  explicit UserError(const char *message) : UserError(std::string(message)) {}
};

/// Malformed text. `what()` is the one-line message; `render()` adds the text and a caret.
class SyntaxError : public UserError {
public:
  SyntaxError(std::string message, std::string text, std::size_t position);
  /// A message that already names its position (NumPy's "... at position 3 in \"sig\"").
  static SyntaxError verbatim(std::string message, std::string text, std::size_t position);
  const std::string &message() const { return message_; }
  const std::string &text() const { return text_; }
  std::size_t position() const { return position_; }
  /// Refused for its size, not its grammar (longer than kMaxTextBytes, nested too deeply, an
  /// expression past the limits of InputTooLarge): reported as input too large.
  bool tooLarge() const { return tooLarge_; }
  SyntaxError &markTooLarge() {
    tooLarge_ = true;
    return *this;
  }
  /// "message\n  text\n  ^" — the caret sits under byte `position`; control bytes in the
  /// text and message are escaped (see printable()) and the caret accounts for the escapes.
  std::string render() const;

private:
  struct Verbatim {};
  SyntaxError(Verbatim, std::string message, std::string text, std::size_t position);
  std::string message_;
  std::string text_;
  std::size_t position_;
  bool tooLarge_ = false;
};

/// A user name that starts with the reserved prefix `_`, or a clash of names.
class NameError : public UserError {
public:
  using UserError::UserError;
};

/// Assumptions that no assignment of sizes satisfies.
class InconsistentAssumptions : public UserError {
public:
  using UserError::UserError;
};

/// An exact value that does not fit where it has to go (a machine integer, an element count).
class OverflowError : public UserError {
public:
  using UserError::UserError;
};

/// Input beyond one of shapelab's stated size limits (text length, nesting, polynomial terms,
/// degree, coefficient bits, expression size): refused quickly instead of running away.
class InputTooLarge : public UserError {
public:
  using UserError::UserError;
};

/// A bug in shapelab. Never thrown for anything a user can type.
class InternalError : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

} // namespace shapelab
