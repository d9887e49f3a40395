// The lexer of the program language (Lexer.h): a line into tokens.
#include "lang/Lexer.h"

#include "symbolic/Errors.h"

namespace shapelab::lang {

namespace {

/// The operator that starts at line[i] (the longest one), or 0 characters.
std::size_t operatorLength(const std::string &line, std::size_t i) {
  auto next = [&](std::size_t k) { return i + k < line.size() ? line[i + k] : '\0'; };
  switch (line[i]) {
  case '.': return next(1) == '.' && next(2) == '.' ? 3 : 1;
  // `**`, `//` and the augmented assignments (`+=`, `**=`, `//=`, ...) are one token each.
  case '*': case '/':
    if (next(1) == line[i]) return next(2) == '=' ? 3 : 2;
    return next(1) == '=' ? 2 : 1;
  case '=': case '<': case '>': return next(1) == '=' ? 2 : 1;
  case '!': return next(1) == '=' ? 2 : 0;
  case '+': case '-': case '%': case '@': case '&': case '|': case '^': return next(1) == '=' ? 2 : 1;
  case '(': case ')': case '[': case ']': case ',': case ':': case '~': return 1;
  default: return 0;
  }
}

} // namespace

/// The tokens of `line` into `out` (emptied first; its storage is reused from line to line).
void tokenize(const std::string &line, std::vector<Token> &out) {
  out.clear();
  // Each token is made in place (its text assigned, short texts staying in the string itself).
  auto add = [&](Token::Kind kind, std::size_t from, std::size_t length) {
    Token &t = out.emplace_back();
    t.kind = kind;
    t.text.assign(line, from, length);
    t.pos = from;
  };
  std::size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#') break;
    if (isNameStart(c)) {
      std::size_t s = i;
      while (i < line.size() && isNameChar(line[i])) ++i;
      add(Token::Name, s, i - s);
      continue;
    }
    if (isDigit(c) || (c == '.' && i + 1 < line.size() && isDigit(line[i + 1]))) {
      std::size_t s = i;
      bool isFloat = false;
      while (i < line.size() && isDigit(line[i])) ++i;
      if (i < line.size() && line[i] == '.' && line.compare(i, 3, "...") != 0) {
        isFloat = true;
        ++i;
        while (i < line.size() && isDigit(line[i])) ++i;
      }
      if (i < line.size() && (line[i] == 'e' || line[i] == 'E')) {
        std::size_t e = i + 1;
        if (e < line.size() && (line[e] == '+' || line[e] == '-')) ++e;
        if (e < line.size() && isDigit(line[e])) {
          isFloat = true;
          i = e;
          while (i < line.size() && isDigit(line[i])) ++i;
        }
      }
      if (i < line.size() && isNameStart(line[i])) throw LangError{"invalid number literal", s};
      add(isFloat ? Token::Float : Token::Int, s, i - s);
      continue;
    }
    if (c == '"' || c == '\'') {
      std::size_t s = i++;
      std::string text;
      while (i < line.size() && line[i] != c) {
        if (line[i] == '\\' && i + 1 < line.size()) ++i;
        text += line[i++];
      }
      if (i >= line.size()) throw LangError{"unterminated string", s};
      ++i;
      out.push_back({Token::String, std::move(text), s});
      continue;
    }
    const std::size_t n = operatorLength(line, i);
    if (n == 0) {
      // A character outside ASCII is named whole (`é`), a byte that begins none as an escape.
      const std::size_t length = std::max<std::size_t>(1, utf8SequenceLength(line, i));
      throw LangError{"unexpected character '" + printable(line.substr(i, length)) + "'", i};
    }
    add(Token::Op, i, n);
    i += n;
  }
  add(Token::End, line.size(), 0);
}

} // namespace shapelab::lang
