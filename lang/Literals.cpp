// Array literals given by value (`:eval ... with x=[[1.0, 2.0]]`): scalars and nested lists read as
// NumPy reads them.
#include "lang/SessionImpl.h"

namespace shapelab::lang {

auto Session::Impl::scalarLiteral(bool negative) -> Array {
  Token t = peek();
  ++at;
  if (t.kind == Token::Name) {
    Array a(DType::Bool, {});
    a.base<bool>()[0] = is(t.text, "True");
    return a;
  }
  if (t.kind == Token::Int) {
    Array a(DType::Int64, {});
    auto v = parseExpr(t.text).constantValue()->tryToInt64();
    if (!v) failAt("integer out of range", t.pos);
    a.base<int64_t>()[0] = negative ? -*v : *v;
    return a;
  }
  Array a(DType::Float64, {});
  double v = std::strtod(t.text.c_str(), nullptr);
  a.base<double>()[0] = negative ? -v : v;
  return a;
}

auto Session::Impl::literalArray(std::size_t p) -> Array {
  struct Item {
    std::vector<Item> children;
    bool leaf = false;
    Token token;
    bool negative = false;
  };
  std::function<Item(std::size_t)> parse = [&](std::size_t depth) -> Item {
    Item it;
    if (depth > 32) fail("the nested lists are too deep");
    if (acceptOp("[")) {
      if (!isOp("]")) {
        do {
          if (isOp("]")) break;
          it.children.push_back(parse(depth + 1));
        } while (acceptOp(","));
      }
      expectOp("]");
      return it;
    }
    it.leaf = true;
    it.negative = acceptOp("-");
    if (isName("np") && isOp(".", 1) && (isName("nan", 2) || isName("inf", 2))) at += 2; // np.nan, np.inf
    it.token = peek();
    if (it.token.kind != Token::Int && it.token.kind != Token::Float && !isName("True") && !isName("False") &&
        !isName("nan") && !isName("inf"))
      fail("expected a number" + found());
    if (it.token.kind == Token::Name && it.negative && (is(it.token.text, "True") || is(it.token.text, "False")))
      failAt("expected a number, found '-" + it.token.text + "'", it.token.pos);
    if (it.token.kind == Token::Name && (is(it.token.text, "nan") || is(it.token.text, "inf"))) it.token.kind = Token::Float;
    ++at;
    return it;
  };
  Item root = parse(0);
  std::vector<int64_t> shape;
  for (const Item *i = &root; !i->leaf; i = &i->children[0]) {
    shape.push_back(int64_t(i->children.size()));
    if (i->children.empty()) break;
  }
  std::vector<const Item *> leaves;
  std::function<void(const Item &, std::size_t)> walk = [&](const Item &i, std::size_t depth) {
    if (i.leaf) {
      if (depth != shape.size()) failAt("the nested lists have an inhomogeneous shape", p);
      leaves.push_back(&i);
      return;
    }
    if (depth >= shape.size() || int64_t(i.children.size()) != shape[depth])
      failAt("the nested lists have an inhomogeneous shape", p);
    for (const Item &c : i.children) walk(c, depth + 1);
  };
  walk(root, 0);
  bool anyFloat = false, allBool = !leaves.empty();
  for (const Item *l : leaves) {
    anyFloat |= l->token.kind == Token::Float;
    allBool &= l->token.kind == Token::Name;
  }
  // Integers read exactly; as NumPy reads a list, int64 unless one is beyond it and none is
  // negative (uint64 then).
  std::vector<Integer> integers(leaves.size());
  bool beyondInt64 = false, anyNegative = false;
  if (!allBool && !anyFloat)
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      const Item &l = *leaves[i];
      if (l.token.kind == Token::Name) {
        integers[i] = Integer(is(l.token.text, "True") ? 1 : 0);
        continue;
      }
      integers[i] = *parseExpr((l.negative ? "-" : "") + l.token.text).constantValue(); // the sign is part of the number
      beyondInt64 |= !integers[i].fitsInt64();
      anyNegative |= integers[i] < Integer(0);
    }
  static const Integer uint64Limit = Integer::pow(Integer(2), 64);
  if (beyondInt64)
    for (std::size_t i = 0; i < leaves.size(); ++i)
      if (anyNegative || !(integers[i] < uint64Limit)) failAt("integer out of range", leaves[i]->token.pos);
  DType t = allBool ? DType::Bool : anyFloat ? DType::Float64 : beyondInt64 ? DType::UInt64 : DType::Int64;
  Array a(t, shape);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const Item &l = *leaves[i];
    if (t == DType::Bool) {
      a.base<bool>()[i] = is(l.token.text, "True");
    } else if (t == DType::Int64) {
      a.base<int64_t>()[i] = integers[i].toInt64Checked();
    } else if (t == DType::UInt64) {
      // Below 2**63 as it is; above, 2**64 less (its two's complement bits).
      a.base<uint64_t>()[i] = integers[i].fitsInt64() ? uint64_t(integers[i].toInt64Checked())
                                                      : uint64_t((integers[i] - uint64Limit).toInt64Checked());
    } else {
      double v = l.token.kind == Token::Name               ? (is(l.token.text, "True"))
                 : is(l.token.text, "nan")                  ? std::numeric_limits<double>::quiet_NaN()
                 : is(l.token.text, "inf")                  ? std::numeric_limits<double>::infinity()
                                                          : std::strtod(l.token.text.c_str(), nullptr);
      a.base<double>()[i] = l.negative ? -v : v;
    }
  }
  return a;
}

} // namespace shapelab::lang
