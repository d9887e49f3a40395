#include "shape/Shape.h"

#include <algorithm>

#include "symbolic/Errors.h"
#include "symbolic/Parser.h"

namespace shapelab {

namespace {
void skipSpace(const std::string &t, std::size_t &p) {
  while (p < t.size() && (t[p] == ' ' || t[p] == '\t')) ++p;
}
} // namespace

Shape parseShapeAt(const std::string &text, std::size_t &p, bool angle) {
  char open = angle ? '<' : '(', close = angle ? '>' : ')';
  skipSpace(text, p);
  if (p >= text.size() || text[p] != open)
    throw SyntaxError(std::string("expected '") + open + "' to start a shape", text, p);
  ++p;
  Shape s;
  skipSpace(text, p);
  if (p < text.size() && text[p] == close) {
    ++p;
    return s;
  }
  while (true) {
    skipSpace(text, p);
    std::size_t start = p;
    Expr e = parseExprPrefix(text, p, {}, angle);
    if (auto v = e.constantValue(); v && v->sign() < 0)
      throw SyntaxError("negative dimensions are not allowed", text, start);
    s.push_back(e);
    skipSpace(text, p);
    if (p < text.size() && text[p] == ',') {
      ++p;
      skipSpace(text, p);
      if (p < text.size() && text[p] == close) {
        ++p;
        return s;
      }
      continue;
    }
    if (p < text.size() && text[p] == close) {
      ++p;
      return s;
    }
    throw SyntaxError(std::string("expected ',' or '") + close + "' in a shape", text, p);
  }
}

Shape parseShape(const std::string &text) {
  std::size_t p = 0;
  skipSpace(text, p);
  Shape s;
  if (p < text.size() && text[p] != '(') {
    // A bare dimension n means (n,), as NumPy reads a bare int.
    std::size_t start = p;
    Expr e = parseExprPrefix(text, p);
    if (auto v = e.constantValue(); v && v->sign() < 0)
      throw SyntaxError("negative dimensions are not allowed", text, start);
    s = {e};
  } else {
    s = parseShapeAt(text, p);
  }
  skipSpace(text, p);
  if (p != text.size()) throw SyntaxError("unexpected text after the shape", text, p);
  return s;
}

std::string toString(const Shape &s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += s[i].toString();
  }
  if (s.size() == 1) out += ",";
  return out + ")";
}

std::optional<std::vector<Integer>> concreteValues(const Shape &s) {
  std::vector<Integer> out;
  for (Expr e : s) {
    auto v = e.constantValue();
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

Integer nonZeroProduct(const std::vector<Integer> &dims) {
  Integer n(1);
  for (const Integer &d : dims)
    if (!d.isZero()) n *= d;
  return n;
}

std::string tooBigToExist(const std::string &subject, const std::vector<Integer> &dims) {
  bool zero = std::any_of(dims.begin(), dims.end(), [](const Integer &d) { return d.isZero(); });
  return subject + (zero ? " is too big to exist: its sizes other than 0 multiply past 2**63 - 1"
                         : " has more than 2**63 - 1 elements");
}

} // namespace shapelab
