// Lexer — the tokens of one line of the program language (names, numbers, strings, operators).
//
// Model: a line is split into Name, Int, Float, String and Op tokens, each with its byte
// position, and an End token; names and numbers are ASCII whatever the C locale says; the
// longest operator wins (`**` over `*`, `//=` is not one). A character that starts no token is
// a LangError at its position.
// Example: tokenize("z = x[:, None] ** 2") gives Name z, Op =, Name x, Op [, Op :, Op ,,
// Name None, Op ], Op **, Int 2, End.
// Cost: one pass over the line; the token vector's storage is reused from line to line.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace shapelab::lang {

/// Whether `s` is the literal `lit`: its length first (known when compiled), so that most
/// comparisons of a name or an operator against the language's words end at one test.
template <std::size_t N> inline bool is(std::string_view s, const char (&lit)[N]) {
  return s.size() == N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}

/// An error at a byte position of the line.
struct LangError {
  std::string message;
  std::size_t position;
};

struct Token {
  enum Kind { Name, Int, Float, String, Op, End } kind = End;
  std::string text;
  std::size_t pos = 0;
};

// Character classes of names and numbers, in ASCII whatever the C locale says.
constexpr bool isDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
constexpr bool isNameChar(char c) { return isNameStart(c) || isDigit(c); }

/// The tokens of `line` into `out` (emptied first; its storage is reused from line to line).
void tokenize(const std::string &line, std::vector<Token> &out);

} // namespace shapelab::lang
