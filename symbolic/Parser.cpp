#include "symbolic/Parser.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "symbolic/Errors.h"
#include "support/FlatIndex.h"

namespace shapelab {

namespace {

enum class Tok {
  End, Integer, Name, Plus, Minus, Star, StarStar, SlashSlash, Slash, Percent, LParen, RParen,
  Comma, EqEq, NotEq, Lt, Le, Gt, Ge, And, Or, Not, If, Else, True, False, Min, Max, Other
};

struct Token {
  Tok kind;
  std::size_t position;
  std::string_view text; // into the text being read, which outlives the parser
};

/// A parsed value: either an integer expression or a predicate, with where it started.
struct Value {
  bool isPred = false;
  Expr expr{nullptr}; // null when isPred (and pred null when not): no reference taken
  Pred pred{nullptr};
  std::size_t position = 0;
};

/// Reads a text in one of two passes over the same grammar. The first (`build` false) checks
/// the grammar alone: tokens, nesting, and which operands are conditions and which integers. It
/// builds nothing, so it allocates nothing but its error. The second builds the value and makes
/// the checks that need it (constant divisors and exponents, the size limits of expressions).
/// A text is read by the first pass and then, if it passed, by the second: a text with a syntax
/// error is refused at its first syntax error without building the expressions before it, and
/// an error the second pass finds is never a syntax error. The first pass does not throw: its
/// first error is kept and ends the text (every later token is the end), so that the descent
/// returns level by level and one exception is thrown from the top (unwinding each level of a
/// deep descent cost more than the whole pass).
class Parser {
public:
  Parser(const std::string &text, std::size_t start, ParseOptions options, bool stopAtComparison, bool build)
      : text_(text), pos_(start), options_(options), stopAtComparison_(stopAtComparison),
        reuseGroups_(options.reuseGroups && text.size() >= kReuseGroupsFrom), build_(build) {
    if (text.size() > kMaxTextBytes)
      fail("the text is too long: " + std::to_string(text.size()) + " bytes (the limit is " +
               std::to_string(kMaxTextBytes) + ")",
           kMaxTextBytes, true);
    advance();
  }

  /// Bounds recursion so that deeply nested text is an error, not a stack overflow.
  struct DepthGuard {
    Parser &p;
    explicit DepthGuard(Parser &parser) : p(parser) {
      if (++p.depth_ > kMaxDepth && !p.failed_) p.fail("the expression is nested too deeply (more than 200 levels)", p.cur_.position, true);
      if (p.depth_ > p.deepest_) p.deepest_ = p.depth_;
    }
    ~DepthGuard() { --p.depth_; }
  };
  static constexpr int kMaxDepth = 200;
  // A printed expression has at most one pair of parentheses per level of nodes, and each pair
  // costs at most three guards (ternary, inversion, unary): every printed form reads back.
  static_assert(1 + 3 * kMaxNesting <= kMaxDepth);

  Value parseTernary() {
    DepthGuard guard(*this);
    Value a = parseDisjunction();
    if (cur_.kind != Tok::If) return a;
    std::size_t ifPos = cur_.position;
    advance();
    Value cond = parseDisjunction();
    expect(Tok::Else, "expected 'else' to complete the conditional");
    Value b = parseTernary();
    requireExpr(a, "the value before 'if'");
    requirePred(cond, "the condition of 'if'");
    requireExpr(b, "the value after 'else'");
    (void)ifPos;
    return exprValue(build_ ? select(cond.pred, a.expr, b.expr) : Expr(nullptr), a.position);
  }

  void expectEnd() {
    if (failed_) return;
    if (cur_.kind == Tok::Other) fail("unexpected character '" + printable(std::string(cur_.text)) + "'", cur_.position);
    if (cur_.kind != Tok::End) fail("unexpected '" + std::string(cur_.text) + "' after the end of the expression", cur_.position);
  }
  std::size_t tokenStart() const { return cur_.position; }
  /// A syntax error: found by the first pass. The second reads only texts the first passed, so
  /// reaching one there means the passes disagree on the grammar, which is an internal error.
  /// In the first pass, the first error is kept and the rest of the text is skipped (the current
  /// token becomes the end); later errors, which follow from the skip, are not kept.
  void fail(std::string message, std::size_t position, bool tooLarge = false) {
    if (build_)
      throw InternalError("the grammar check passed a text that the build refuses: " +
                          SyntaxError(message, text_, position).render());
    if (!failed_) {
      failed_ = true;
      failMessage_ = std::move(message);
      failPosition_ = position;
      failedTooLarge_ = tooLarge;
    }
    pos_ = text_.size();
    cur_ = Token{Tok::End, pos_, ""};
  }
  /// The first pass's error, if it found one.
  std::optional<SyntaxError> error() {
    if (!failed_) return std::nullopt;
    SyntaxError e(std::move(failMessage_), text_, failPosition_);
    if (failedTooLarge_) e.markTooLarge();
    return e;
  }
  /// The first pass's error, thrown (where it found one).
  void throwIfFailed() {
    if (std::optional<SyntaxError> e = error()) throw std::move(*e);
  }
  /// An error only the second pass can find: it needs the value (a divisor that is not a
  /// constant, an expression past the size limits).
  [[noreturn]] void refuse(const std::string &message, std::size_t position) const {
    throw SyntaxError(message, text_, position);
  }
  /// Refused for its size (InputTooLarge's limits), with the position where it grew past them.
  [[noreturn]] void refuseTooLarge(const std::string &message, std::size_t position) const {
    throw SyntaxError(message, text_, position).markTooLarge();
  }
  /// `what` names the operand: text, or a function making the text (then made only on failure;
  /// these checks run for every operator read).
  template <class What> void requireExpr(const Value &v, const What &what) {
    if (v.isPred && !failed_) fail(describe(what) + " must be an integer expression, not a condition", v.position);
  }
  template <class What> void requirePred(const Value &v, const What &what) {
    if (!v.isPred && !failed_) fail(describe(what) + " must be a condition (a comparison), not an integer expression", v.position);
  }
  static std::string describe(const char *what) { return what; }
  bool building() const { return build_; }
  /// The second pass takes the first's index of parentheses (the same text) instead of making it.
  void takeParens(Parser &checked) {
    if (!checked.indexed_) return;
    parens_ = std::move(checked.parens_);
    indexed_ = true;
  }
  template <class F> static std::string describe(const F &what) { return what(); }

private:
  static Value exprValue(Expr e, std::size_t p) { return Value{false, std::move(e), Pred(nullptr), p}; }
  static Value predValue(Pred q, std::size_t p) { return Value{true, Expr(nullptr), std::move(q), p}; }

  Value parseDisjunction() {
    Value a = parseConjunction();
    if (cur_.kind != Tok::Or) return a;
    std::vector<Pred> parts;
    requirePred(a, "the left operand of 'or'");
    if (build_) parts.push_back(a.pred);
    while (cur_.kind == Tok::Or) {
      advance();
      Value b = parseConjunction();
      requirePred(b, "the right operand of 'or'");
      if (build_) parts.push_back(b.pred);
    }
    return predValue(build_ ? Pred::disjunction(parts) : Pred(nullptr), a.position);
  }

  Value parseConjunction() {
    Value a = parseInversion();
    if (cur_.kind != Tok::And) return a;
    std::vector<Pred> parts;
    requirePred(a, "the left operand of 'and'");
    if (build_) parts.push_back(a.pred);
    while (cur_.kind == Tok::And) {
      advance();
      Value b = parseInversion();
      requirePred(b, "the right operand of 'and'");
      if (build_) parts.push_back(b.pred);
    }
    return predValue(build_ ? Pred::conjunction(parts) : Pred(nullptr), a.position);
  }

  Value parseInversion() {
    DepthGuard guard(*this);
    if (cur_.kind == Tok::Not) {
      std::size_t p = cur_.position;
      advance();
      Value v = parseInversion();
      requirePred(v, "the operand of 'not'");
      return predValue(build_ ? !v.pred : Pred(nullptr), p);
    }
    return parseComparison();
  }

  static bool isComparison(Tok t) {
    return t == Tok::EqEq || t == Tok::NotEq || t == Tok::Lt || t == Tok::Le || t == Tok::Gt ||
           t == Tok::Ge;
  }
  static CompareOp opOf(Tok t) {
    switch (t) {
    case Tok::EqEq: return CompareOp::EQ;
    case Tok::NotEq: return CompareOp::NE;
    case Tok::Lt: return CompareOp::LT;
    case Tok::Le: return CompareOp::LE;
    case Tok::Gt: return CompareOp::GT;
    default: return CompareOp::GE;
    }
  }

  Value parseComparison() {
    Value a = parseSum();
    if (!isComparison(cur_.kind) || (stopAtComparison_ && (cur_.kind == Tok::Gt || cur_.kind == Tok::Lt)))
      return a;
    boost::container::small_vector<Pred, 2> parts; // most are one comparison, not a chain
    Value left = a;
    while (isComparison(cur_.kind)) {
      Token op = cur_;
      requireExpr(left, [&] { return "the left side of '" + std::string(op.text) + "'"; });
      advance();
      Value right = parseSum();
      requireExpr(right, [&] { return "the right side of '" + std::string(op.text) + "'"; });
      if (build_) parts.push_back(Pred::compare(opOf(op.kind), left.expr, right.expr));
      left = right;
    }
    if (!build_) return predValue(Pred(nullptr), a.position);
    if (parts.size() == 1) return predValue(std::move(parts[0]), a.position);
    return predValue(Pred::conjunction(std::vector<Pred>(parts.begin(), parts.end())), a.position);
  }

  /// A chain `a ± b ± ...` is built in one step (signedSum) rather than one sum per operator,
  /// which would be quadratic in the length of the chain; when that step is refused as too
  /// large, the chain is folded operator by operator to put the caret where the limit is passed.
  Value parseSum() {
    Value first = parseProduct();
    if (cur_.kind != Tok::Plus && cur_.kind != Tok::Minus) return first;
    requireExpr(first, [&] { return "the left operand of '" + std::string(cur_.text) + "'"; });
    // Most chains are short: kept in place.
    boost::container::small_vector<Expr, 8> exprs{first.expr};
    boost::container::small_vector<bool, 8> negated{false};
    boost::container::small_vector<std::size_t, 8> opPositions;
    while (cur_.kind == Tok::Plus || cur_.kind == Tok::Minus) {
      const Token op = cur_;
      advance();
      Value b = parseProduct();
      requireExpr(b, [&] { return "the right operand of '" + std::string(op.text) + "'"; });
      if (!build_) continue;
      exprs.push_back(std::move(b.expr));
      negated.push_back(op.kind == Tok::Minus);
      opPositions.push_back(op.position);
    }
    if (!build_) return exprValue(Expr(nullptr), first.position);
    try {
      return exprValue(signedSum({exprs.data(), exprs.size()}, {negated.data(), negated.size()}), first.position);
    } catch (const InputTooLarge &) {
    }
    Expr a = first.expr;
    for (std::size_t i = 1; i < exprs.size(); ++i)
      a = guard([&] { return negated[i] ? a - exprs[i] : a + exprs[i]; }, opPositions[i - 1]);
    return exprValue(a, first.position);
  }

  /// The divisor `v` of `op` as a constant (`v` is an integer expression: checked by the caller).
  Integer positiveConstant(const Value &v, const std::string &op) const {
    auto c = v.expr.constantValue();
    if (!c)
      refuse("the divisor of '" + op + "' must be a positive integer constant, not '" +
               v.expr.toString() + "'",
           v.position);
    if (c->sign() <= 0)
      refuse("the divisor of '" + op + "' must be a positive integer constant, not " + c->toString(),
           v.position);
    return *c;
  }

  Value parseProduct() {
    Value a = parseUnary();
    while (cur_.kind == Tok::Star || cur_.kind == Tok::SlashSlash || cur_.kind == Tok::Slash ||
           cur_.kind == Tok::Percent) {
      Token op = cur_;
      requireExpr(a, [&] { return "the left operand of '" + std::string(op.text) + "'"; });
      advance();
      Value b = parseUnary();
      if (op.kind == Tok::Star) {
        requireExpr(b, "the right operand of '*'");
        if (build_) a = exprValue(guard([&] { return a.expr * b.expr; }, op.position), a.position);
        continue;
      }
      requireExpr(b, [&] { return "the divisor of '" + std::string(op.text) + "'"; });
      if (!build_) continue;
      Integer c = positiveConstant(b, std::string(op.text));
      Expr r = guard(
          [&] {
            return op.kind == Tok::SlashSlash ? floorDiv(a.expr, c)
                   : op.kind == Tok::Percent  ? mod(a.expr, c)
                                              : exactDiv(a.expr, c);
          },
          op.position);
      a = exprValue(r, a.position);
    }
    return a;
  }

  Value parseUnary() {
    DepthGuard guard(*this);
    if (cur_.kind == Tok::Minus || cur_.kind == Tok::Plus) {
      Token op = cur_;
      advance();
      Value v = parseUnary();
      requireExpr(v, [&] { return "the operand of unary '" + std::string(op.text) + "'"; });
      return exprValue(build_ && op.kind == Tok::Minus ? -v.expr : v.expr, op.position);
    }
    return parsePower();
  }

  Value parsePower() {
    Value a = parsePrimary();
    if (cur_.kind != Tok::StarStar) return a;
    Token op = cur_;
    requireExpr(a, "the base of '**'");
    advance();
    Value b = parseUnary();
    requireExpr(b, "the exponent of '**'");
    if (!build_) return exprValue(Expr(nullptr), a.position);
    auto c = b.expr.constantValue();
    if (!c || c->sign() < 0)
      refuse("the exponent of '**' must be a non-negative integer constant", b.position);
    if (auto base = a.expr.constantValue()) {
      // A constant power is just a number; refuse only numbers too large to be a size.
      Integer mag = Integer::abs(*base);
      if (mag <= Integer(1)) {
        bool odd = !Integer::floorMod(*c, 2).isZero();
        return exprValue(Expr(c->isZero() ? Integer(1) : (base->sign() < 0 && odd) ? Integer(-1) : mag), a.position);
      }
      std::size_t bits = mag.toString().size() * 4; // >= log2(mag), a safe over-estimate
      if (*c > Integer(int64_t(65536 / bits)))
        refuseTooLarge("the power is too large (more than 65536 bits)", b.position);
      return exprValue(Expr(Integer::pow(*base, uint32_t(c->toInt64Checked()))), a.position);
    }
    if (*c > Integer(64)) refuseTooLarge("the exponent of '**' must be at most 64", b.position);
    uint32_t k = static_cast<uint32_t>(c->toInt64Checked());
    return exprValue(guard([&] { return pow(a.expr, k); }, op.position), a.position);
  }

  template <class F> Expr guard(F f, std::size_t position) const {
    try {
      return f();
    } catch (const SyntaxError &) {
      throw;
    } catch (const InputTooLarge &e) {
      refuseTooLarge(e.what(), position);
    } catch (const UserError &e) {
      refuse(e.what(), position);
    }
  }

  Value parsePrimary() {
    Token t = cur_;
    switch (t.kind) {
    case Tok::Integer: {
      advance();
      return exprValue(build_ ? Expr(Integer::parse(std::string(t.text))) : Expr(nullptr), t.position);
    }
    case Tok::Name: {
      advance();
      if (t.text[0] == '_' && !options_.allowReservedNames)
        fail("name '" + std::string(t.text) + "' is reserved: names starting with '_' belong to shapelab",
             t.position);
      if (!build_) return exprValue(Expr(nullptr), t.position);
      return exprValue(t.text[0] == '_' ? Expr::reservedParam(std::string(t.text)) : Expr::param(std::string(t.text)),
                       t.position);
    }
    case Tok::True: case Tok::False:
      advance();
      return predValue(build_ ? Pred::truth(t.kind == Tok::True) : Pred(nullptr), t.position);
    case Tok::Min: case Tok::Max: {
      advance();
      std::size_t open = cur_.position;
      return group(t.position, open, [&] {
        expect(Tok::LParen, [&] { return "expected '(' after '" + std::string(t.text) + "'"; });
        std::vector<Expr> args;
        while (true) {
          Value v = parseTernary();
          requireExpr(v, [&] { return "an argument of " + std::string(t.text) + "()"; });
          if (build_) args.push_back(v.expr);
          if (cur_.kind == Tok::Comma) {
            advance();
            continue;
          }
          expect(Tok::RParen, [&] { return "expected ',' or ')' in the arguments of " + std::string(t.text) + "()"; });
          break;
        }
        if (!build_) return exprValue(Expr(nullptr), t.position);
        return exprValue(t.kind == Tok::Min ? min(args) : max(args), t.position);
      });
    }
    case Tok::LParen: {
      return group(t.position, t.position, [&] {
        advance();
        Value v = parseTernary();
        expect(Tok::RParen, [&] { return "expected ')' to close the '(' at column " + std::to_string(t.position + 1); });
        v.position = t.position;
        return v;
      });
    }
    case Tok::End:
      if (!failed_) fail("expected an expression, found the end of the text", t.position);
      return exprValue(Expr(nullptr), t.position);
    case Tok::Other: fail("unexpected character '" + printable(std::string(t.text)) + "'", t.position); break;
    default: fail("expected an expression, found '" + std::string(t.text) + "'", t.position); break;
    }
    return exprValue(Expr(nullptr), t.position);
  }

  /// `what` as in requireExpr: a message made only on failure (a group expects its ')').
  template <class What> void expect(Tok kind, const What &what) {
    if (cur_.kind != kind) {
      if (!failed_) fail(describe(what) + (cur_.kind == Tok::End ? ", found the end of the text" : ", found '" + std::string(cur_.text) + "'"), cur_.position);
      return;
    }
    advance();
  }

  void advance() {
    // The scans below stop at the NUL that std::string keeps after the text (no class has it), so
    // a byte is tested once, not also against the length; a NUL inside the text stops them the
    // same way and is then read as a character of its own.
    const char *text = text_.c_str();
    while (charClass(text[pos_]) & kBlank) ++pos_;
    cur_.position = pos_;
    if (pos_ >= text_.size()) {
      cur_ = Token{Tok::End, pos_, ""};
      return;
    }
    const char c = text[pos_];
    if (charClass(c) & kDigit) {
      std::size_t s = pos_;
      while (charClass(text[pos_]) & kDigit) ++pos_;
      if (charClass(text[pos_]) & kNameStart) return fail("a name cannot start with a digit; write '*' for a product", s);
      cur_ = Token{Tok::Integer, s, std::string_view(text_).substr(s, pos_ - s)};
      return;
    }
    if (charClass(c) & kNameStart) {
      std::size_t s = pos_;
      while (charClass(text[pos_]) & kNameChar) ++pos_;
      std::string_view w = std::string_view(text_).substr(s, pos_ - s);
      cur_ = Token{keyword(w), s, w};
      return;
    }
    // Two-character operators, told by their characters (a comparison of the text with each
    // spelling was a call to memcmp per operator token).
    const char next = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
    Tok pair = next == '*' && c == '*'   ? Tok::StarStar
               : next == '/' && c == '/' ? Tok::SlashSlash
               : next != '='             ? Tok::Other
               : c == '='                ? Tok::EqEq
               : c == '!'                ? Tok::NotEq
               : c == '<'                ? Tok::Le
               : c == '>'                ? Tok::Ge
                                         : Tok::Other;
    if (pair != Tok::Other) {
      cur_ = Token{pair, pos_, std::string_view(text_).substr(pos_, 2)};
      pos_ += 2;
      return;
    }
    Tok k = Tok::Other;
    switch (c) {
    case '+': k = Tok::Plus; break;
    case '-': k = Tok::Minus; break;
    case '*': k = Tok::Star; break;
    case '/': k = Tok::Slash; break;
    case '%': k = Tok::Percent; break;
    case '(': k = Tok::LParen; break;
    case ')': k = Tok::RParen; break;
    case ',': k = Tok::Comma; break;
    case '<': k = Tok::Lt; break;
    case '>': k = Tok::Gt; break;
    case '=':
      return fail("'=' is not a comparison; write '==' for equality", pos_);
    default: break;
    }
    // A character outside ASCII is reported whole, not as a broken byte (and a byte that
    // begins no character alone, escaped by the message).
    const std::size_t len = std::max<std::size_t>(1, utf8SequenceLength(text_, pos_));
    cur_ = Token{k, pos_, std::string_view(text_).substr(pos_, len)};
    pos_ += len;
  }

  /// Reads the bracketed group that starts at `start` and whose '(' is at `open` (a
  /// parenthesised value or a min/max call) with `body`, the current token being the group's
  /// first. A printed form writes a shared node out once per use, so the printed form of a DAG
  /// repeats groups, and reading it back would cost the size of the tree. A group's value depends
  /// only on its bytes and on this parse's options, so a group whose bytes equal those of one
  /// read before (compared in full, not by hash alone) takes that group's value, and reading is
  /// linear in the distinct text. Only the nesting depth depends on where the group stands: it is
  /// checked again, and a group that would pass the bound is read in full to report it.
  template <class F> Value group(std::size_t start, std::size_t open, F body) {
    if (!reuseGroups_ || open >= text_.size() || text_[open] != '(') return body();
    if (!indexed_) indexGroups();
    auto paren = std::lower_bound(parens_.begin(), parens_.end(), open,
                                  [](const Paren &p, std::size_t at) { return p.open < at; });
    if (paren == parens_.end() || paren->open != open || paren->close == kUnmatched) return body();
    const uint32_t close = paren->close;
    std::size_t length = close + 1 - start;
    // The hash of text[start, close]: the bytes before '(' (a function's name) are few.
    uint64_t key = 0;
    for (std::size_t i = start; i < open; ++i) key = key * kHashBase + (unsigned char)text_[i];
    key = key * power(close + 1 - open) + paren->hash;
    key ^= uint64_t(length) * 0x9E3779B97F4A7C15ull;
    std::size_t found = groupIndex_.find(key, [&](std::size_t i) {
      const Group &g = groups_[i];
      return g.length == length && std::memcmp(&text_[g.start], &text_[start], length) == 0;
    });
    if (found != FlatIndex::npos && depth_ + groups_[found].depth <= kMaxDepth) {
      const Group &g = groups_[found];
      if (options_.groupsReused) ++*options_.groupsReused;
      // An enclosing group being read counts this group's depth as if it had been read here.
      deepest_ = std::max(deepest_, depth_ + g.depth);
      pos_ = close + 1;
      advance();
      Value v = g.value;
      v.position = start;
      return v;
    }
    int outer = deepest_;
    deepest_ = depth_;
    Value v = body();
    int inner = deepest_ - depth_;
    deepest_ = std::max(outer, deepest_);
    // A group read in full because its reuse would pass the nesting bound is the same bytes as
    // the one recorded: it is not recorded twice.
    if (found == FlatIndex::npos) {
      groupIndex_.insert(key, groups_.size());
      groups_.push_back(Group{start, length, v, inner});
    }
    return v;
  }

  /// Every matched pair of parentheses and the hash of its bytes, in one pass that stores
  /// nothing per byte: a printed form read back can be 64 KiB, and arrays per byte cost more to
  /// allocate and fill (fresh pages) than reading the groups they index.
  void indexGroups() {
    indexed_ = true;
    // h is the polynomial hash of text[0, i); text[a, b) hashes to h(b) - h(a) * kHashBase^(b - a).
    struct Open {
      std::size_t index;
      uint64_t hashBefore;
    };
    std::vector<Open> open;
    uint64_t h = 0;
    for (std::size_t i = 0; i < text_.size(); ++i) {
      const unsigned char c = (unsigned char)text_[i];
      if (c == '(') {
        open.push_back({parens_.size(), h});
        parens_.push_back({uint32_t(i), kUnmatched, 0});
      }
      h = h * kHashBase + c;
      if (c == ')' && !open.empty()) {
        Paren &p = parens_[open.back().index];
        p.close = uint32_t(i);
        p.hash = h - open.back().hashBefore * power(i + 1 - p.open);
        open.pop_back();
      }
    }
  }
  /// The lexer's classes of bytes, as a table (isNameStart and isNameChar, told by one load).
  enum : uint8_t { kBlank = 1, kDigit = 2, kNameStart = 4, kNameChar = 8 };
  static uint8_t charClass(char c) {
    static constexpr auto table = [] {
      std::array<uint8_t, 256> t{};
      for (int i = 0; i < 256; ++i) {
        const char b = char(i);
        t[i] = uint8_t((b == ' ' || b == '\t' ? kBlank : 0) | (b >= '0' && b <= '9' ? kDigit : 0) |
                       (isNameStart(b) ? kNameStart : 0) | (isNameChar(b) ? kNameChar : 0));
      }
      return t;
    }();
    return table[(unsigned char)c];
  }
  /// A name's token: a keyword's, or Tok::Name. Told by length first, so a name is compared with
  /// at most four spellings.
  static Tok keyword(std::string_view w) {
    switch (w.size()) {
    case 2: return w == "or" ? Tok::Or : w == "if" ? Tok::If : Tok::Name;
    case 3:
      return w == "and" ? Tok::And : w == "not" ? Tok::Not : w == "min" ? Tok::Min : w == "max" ? Tok::Max : Tok::Name;
    case 4: return w == "else" ? Tok::Else : w == "True" ? Tok::True : Tok::Name;
    case 5: return w == "False" ? Tok::False : Tok::Name;
    default: return Tok::Name;
    }
  }
  static uint64_t power(std::size_t k) {
    uint64_t r = 1, b = kHashBase;
    for (; k; k >>= 1, b *= b)
      if (k & 1) r *= b;
    return r;
  }

  /// A matched pair of parentheses (close is kUnmatched when the '(' is never closed) and the
  /// hash of text[open, close].
  struct Paren {
    uint32_t open, close;
    uint64_t hash;
  };
  struct Group {
    std::size_t start, length;
    Value value;
    int depth; // the deepest guard reached inside, relative to the group's start
  };
  static constexpr std::size_t kReuseGroupsFrom = 256; // shorter texts seldom repeat a group
  static constexpr uint32_t kUnmatched = UINT32_MAX;
  static constexpr uint64_t kHashBase = 0x100000001B3ull;

  const std::string &text_;
  std::size_t pos_;
  ParseOptions options_;
  bool stopAtComparison_;
  bool reuseGroups_;
  const bool build_; // the second pass (see the class comment)
  bool failed_ = false; // the first pass met an error: failMessage_ at failPosition_
  std::string failMessage_;
  std::size_t failPosition_ = 0;
  bool failedTooLarge_ = false; // the error is the text's size (SyntaxError::tooLarge)
  Token cur_{Tok::End, 0, ""};
  int depth_ = 0;
  int deepest_ = 0;
  bool indexed_ = false;
  std::vector<Paren> parens_; // by `open`, ascending
  std::vector<Group> groups_;  // groups read in full, each with distinct bytes
  FlatIndex groupIndex_;       // their positions in groups_ by the hash of their bytes
};

} // namespace

namespace {
/// The second pass, after `check` (the first) passed the text: `body` on a parser that builds
/// the value. An expression too large for the limits, wherever it is built, becomes a
/// SyntaxError with the caret where parsing had got to.
template <class F> auto built(Parser &check, const std::string &text, std::size_t start,
                              ParseOptions options, bool stopAtComparison, F body) {
  Parser p(text, start, options, stopAtComparison, true);
  p.takeParens(check);
  try {
    return body(p);
  } catch (const InputTooLarge &e) {
    p.refuseTooLarge(e.what(), p.tokenStart());
  }
}

/// Runs `body` on a parser of `text` that checks the grammar, then on one that builds the value
/// (Parser's two passes).
template <class F> auto parsing(const std::string &text, std::size_t start, ParseOptions options,
                                bool stopAtComparison, F body) {
  Parser check(text, start, options, stopAtComparison, false);
  (void)body(check);
  check.throwIfFailed();
  return built(check, text, start, options, stopAtComparison, body);
}

/// An expression or a condition, as the text says.
std::variant<Expr, Pred> exprOrPred(Parser &p) {
  Value v = p.parseTernary();
  p.expectEnd();
  if (v.isPred) return v.pred;
  return v.expr;
}
} // namespace

Expr parseExpr(const std::string &text, ParseOptions options) {
  return parsing(text, 0, options, false, [](Parser &p) {
    Value v = p.parseTernary();
    p.expectEnd();
    p.requireExpr(v, "this");
    return v.expr;
  });
}

Pred parsePred(const std::string &text, ParseOptions options) {
  return parsing(text, 0, options, false, [](Parser &p) {
    Value v = p.parseTernary();
    p.expectEnd();
    p.requirePred(v, "this");
    return v.pred;
  });
}

std::variant<Expr, Pred> parseExprOrPred(const std::string &text, ParseOptions options) {
  return parsing(text, 0, options, false, exprOrPred);
}

std::variant<Expr, Pred, SyntaxError> tryParseExprOrPred(const std::string &text, ParseOptions options) {
  Parser check(text, 0, options, false, false);
  (void)exprOrPred(check);
  if (std::optional<SyntaxError> e = check.error()) return std::move(*e);
  try { // an error only the build finds (a divisor that is not a constant) is thrown from deep in it
    std::variant<Expr, Pred> v = built(check, text, 0, options, false, exprOrPred);
    if (auto *e = std::get_if<Expr>(&v)) return std::move(*e);
    return std::get<Pred>(std::move(v));
  } catch (const SyntaxError &e) {
    return e;
  }
}

Expr parseExprPrefix(const std::string &text, std::size_t &position, ParseOptions options,
                     bool stopAtComparison) {
  // One dimension of a longer text: indexing the whole text for each dimension would cost the
  // text's length per dimension, so a prefix parse never reuses groups.
  options.reuseGroups = false;
  return parsing(text, position, options, stopAtComparison, [&](Parser &p) {
    Value v = p.parseTernary();
    p.requireExpr(v, "a dimension");
    if (p.building()) position = p.tokenStart();
    return v.expr;
  });
}

} // namespace shapelab
