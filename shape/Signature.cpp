#include "shape/Signature.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "symbolic/Errors.h"
#include "symbolic/Parser.h"

namespace shapelab {

bool Signature::elementwise() const {
  for (auto *list : {&inputs, &outputs})
    for (const CoreArgument &a : *list)
      if (!a.dims.empty() || a.shapeOnly) return false;
  return true;
}

namespace {

class SignatureParser {
public:
  explicit SignatureParser(const std::string &t) : t_(t) {}

  Signature parse() {
    Signature s;
    s.text = t_;
    skip();
    if (end()) fail("incomplete signature: not all arguments found");
    if (!arrow()) {
      while (true) {
        s.inputs.push_back(argument(true));
        skip();
        if (arrow()) break;
        if (end()) fail("incomplete signature: not all arguments found");
        if (t_[p_] != ',') fail("expect '->'");
        ++p_;
        skip();
      }
    }
    p_ += 2; // "->"
    while (true) {
      skip();
      s.outputs.push_back(argument(false));
      skip();
      if (end()) break;
      if (t_[p_] != ',') fail("expect '('");
      ++p_;
    }
    finish(s);
    return s;
  }

private:
  [[noreturn]] void fail(const std::string &msg) { fail(msg, p_); }
  [[noreturn]] void fail(const std::string &msg, std::size_t at) {
    throw SyntaxError::verbatim(msg + " at position " + std::to_string(at) + " in \"" + t_ + "\"", t_, at);
  }
  bool end() const { return p_ >= t_.size(); }
  void skip() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t')) ++p_;
  }
  bool arrow() const { return t_.compare(p_, 2, "->") == 0; }

  CoreArgument argument(bool input) {
    if (end()) fail("expect '('");
    CoreArgument a;
    char close = ')';
    if (t_[p_] == '<') {
      if (!input) fail("shape-only parameters <...> are only allowed in inputs");
      a.shapeOnly = true;
      close = '>';
    } else if (t_[p_] != '(') {
      fail("expect '('");
    }
    ++p_;
    skip();
    if (end()) fail("unexpected end of signature string");
    if (t_[p_] == close) {
      ++p_;
      return a;
    }
    while (true) {
      skip();
      if (end()) fail("unexpected end of signature string");
      a.dims.push_back(dim(input, a.shapeOnly));
      skip();
      if (end()) fail("unexpected end of signature string");
      if (t_[p_] == ',') {
        ++p_;
        skip();
        if (!end() && t_[p_] == close) fail("',' must not be followed by ')'");
        continue;
      }
      if (t_[p_] == close) {
        ++p_;
        return a;
      }
      fail(a.shapeOnly ? "expect ',' or '>'" : "expect ',' or ')'");
    }
  }

  CoreDim dim(bool input, bool shapeOnly) {
    CoreDim d;
    d.position = p_;
    std::size_t start = p_;
    if (isNameStart(t_[p_])) {
      while (!end() && isNameChar(t_[p_])) ++p_;
      d.kind = CoreDim::Kind::Name;
      d.name = t_.substr(start, p_ - start);
    } else if (std::isdigit((unsigned char)t_[p_])) {
      while (!end() && std::isdigit((unsigned char)t_[p_])) ++p_;
      d.kind = CoreDim::Kind::Fixed;
      // NumPy reads "3a" and "0x10" as one bad token, not as a size followed by junk.
      if (!end() && isNameStart(t_[p_])) fail("expect dimension name or non-zero frozen size", start);
    } else if (t_[p_] == '+') {
      fail("expect ',' or ')'"); // NumPy's wording and position for a signed size
    } else {
      fail("expect dimension name or non-zero frozen size");
    }
    // Does an expression continue here ("n+1", "max(m, n)", "n*(n-1)//2")?
    std::size_t q = p_;
    while (q < t_.size() && (t_[q] == ' ' || t_[q] == '\t')) ++q;
    bool call = d.kind == CoreDim::Kind::Name && (d.name == "min" || d.name == "max") &&
                q < t_.size() && t_[q] == '(';
    bool op = q < t_.size() && std::string("+-*/%").find(t_[q]) != std::string::npos &&
              t_.compare(q, 2, "->") != 0;
    if (call || op) {
      if (shapeOnly) fail("shape-only parameters take plain names", start);
      std::size_t e = start;
      try {
        d.expression = parseExprPrefix(t_, e);
      } catch (const SyntaxError &err) {
        fail(err.message(), err.position());
      }
      std::map<std::string, Expr> scoped;
      for (Expr x : parametersOf(d.expression))
        scoped.emplace(x.node()->name, Expr::reservedParam(scopedName(x.node()->name)));
      d.expression = substitute(d.expression, scoped);
      p_ = e;
      d.kind = CoreDim::Kind::Expression;
      d.text = t_.substr(start, p_ - start);
      while (!d.text.empty() && (d.text.back() == ' ' || d.text.back() == '\t')) d.text.pop_back();
      if (auto c = d.expression.constantValue()) {
        if (c->sign() <= 0) fail("a frozen size must be positive", start);
        d.kind = CoreDim::Kind::Fixed;
        d.size = *c;
      }
      if (!end() && (t_[p_] == '?' || t_[p_] == '|'))
        fail("'?' and '|1' apply to dimension names only");
      return d;
    }
    d.text = t_.substr(start, p_ - start);
    if (d.kind == CoreDim::Kind::Fixed) {
      if (shapeOnly) fail("shape-only parameters take names, not sizes", start);
      auto v = Integer::tryParse(d.text);
      // NumPy reads frozen sizes with strtoll: 0 and values beyond 2**63 - 1 are refused.
      if (!v || v->sign() <= 0 || !v->fitsInt64())
        fail("expect dimension name or non-zero frozen size", start);
      d.size = *v;
    }
    if (!end() && t_[p_] == '?') {
      d.optional = true;
      ++p_;
    }
    if (t_.compare(p_, 2, "|1") == 0) {
      if (d.optional) fail("'?' and '|1' cannot be combined");
      if (!input) fail("'|1' is only allowed on input dimensions");
      if (d.kind != CoreDim::Kind::Name) fail("'|1' applies to dimension names only", start);
      d.broadcastable = true;
      p_ += 2;
    }
    // Every occurrence of a dimension agrees on '?': a name's, and a frozen size's, which NumPy
    // matches by value ((3),(03?) is the same dimension twice).
    if (d.kind == CoreDim::Kind::Name || d.kind == CoreDim::Kind::Fixed) {
      const std::string key = d.kind == CoreDim::Kind::Name ? d.name : "#" + d.size.toString();
      auto it = optional_.find(key);
      if (it == optional_.end()) {
        optional_[key] = d.optional;
      } else if (it->second != d.optional) {
        fail(d.optional ? "? cannot be used, name already seen without ?"
                        : "? must be used, name already seen with ?",
             start);
      }
    }
    return d;
  }

  void finish(Signature &s) {
    auto note = [&](const std::string &id) {
      if (std::find(s.dimIds.begin(), s.dimIds.end(), id) == s.dimIds.end()) s.dimIds.push_back(id);
    };
    std::map<std::string, int> broadcastFlag; // name -> 1 with |1, 0 without (inputs)
    std::map<std::string, int> argumentOf;    // name -> input index (shape-only checks)
    for (std::size_t i = 0; i < s.inputs.size(); ++i)
      for (const CoreDim &d : s.inputs[i].dims) {
        if (d.kind == CoreDim::Kind::Name) {
          auto it = broadcastFlag.find(d.name);
          if (it != broadcastFlag.end() && it->second != int(d.broadcastable))
            fail("'|1' must be used on every input occurrence of '" + d.name + "'", d.position);
          broadcastFlag[d.name] = d.broadcastable;
        }
      }
    for (std::size_t i = 0; i < s.inputs.size(); ++i) {
      for (const CoreDim &d : s.inputs[i].dims) {
        if (d.kind != CoreDim::Kind::Name) continue;
        auto it = argumentOf.find(d.name);
        bool clash = it != argumentOf.end() && (s.inputs[i].shapeOnly || s.inputs[it->second].shapeOnly);
        if (clash)
          fail("the shape-only parameter '" + d.name + "' must not appear in any other input", d.position);
        argumentOf.emplace(d.name, int(i));
      }
    }
    for (auto *list : {&s.inputs, &s.outputs})
      for (const CoreArgument &a : *list)
        for (const CoreDim &d : a.dims) {
          if (d.kind == CoreDim::Kind::Name) note(d.name);
          if (d.kind == CoreDim::Kind::Fixed) note("#" + d.size.toString());
        }
  }

  const std::string &t_;
  std::size_t p_ = 0;
  std::map<std::string, bool> optional_;
};

} // namespace

Signature parseSignature(const std::string &text) { return SignatureParser(text).parse(); }

std::string scopedName(const std::string &dimName) { return "__" + dimName; }

std::string unscopedName(const std::string &parameterName) {
  return parameterName.rfind("__", 0) == 0 ? parameterName.substr(2) : parameterName;
}

} // namespace shapelab
