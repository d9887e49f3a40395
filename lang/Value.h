// Value — what an expression of the program language evaluates to: an array (a graph node), a
// size (an exact expression), a float, a bool, a predicate over sizes, a tuple or list, a
// string, a dtype, `...`, a slice, a function (with the array of a bound method), or an array
// literal given by value.
//
// Model: one struct with a kind and the members that kind uses (see each member's comment); an
// Array uses only `node` (and, rarely, notSize), so copying a name's array is cheap.
// Example: `n + 1` is a Size, `x.shape` a Tuple of Sizes, `n > 1` a Predicate, `x + 1` an Array.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "interp/Array.h"
#include "lang/Json.h"
#include "ops/Graph.h"

namespace shapelab::lang {

using interp::Array;
using ops::DType;
using ops::IndexEntry;
using ops::Node;

/// What an expression of the language evaluates to. An Array is its node and, rarely, notSize:
/// no other member is set for one (a name's read copies only those: Impl::name).
struct Value {
  enum Kind { None, Array, Size, Float, Bool, Predicate, Tuple, String, DTypeName, Ellipsis, Slice, Callable, Literal };
  Kind kind = None;
  const Node *node = nullptr; // Array; Callable: the bound array of a method
  Expr size;                  // Size
  double number = 0;          // Float
  bool flag = false;          // Bool; Tuple: written as a list
  /// Size or Float: a NumPy scalar (np.prod(x.shape) is an np.int64), not a Python number, so
  /// not weak when it meets an array (NEP 50): np.prod(x.shape) * f32 is float64.
  bool numpyScalar = false;
  Pred pred;                  // Predicate
  std::vector<Value> items;   // Tuple/list; Slice: start, stop, step
  std::string text;           // String; Callable: the function's name
  DType dtype = DType::Float64;
  std::shared_ptr<interp::Array> literal; // Literal: an array given by value (in :eval bindings)
  std::size_t pos = 0;
  /// Not an array, held by a name: the arrays its statement computed (built, or read for their
  /// shape, size or dtype), which NumPy computes first; those valid everywhere are left out. An
  /// array built from it carries them as guards (Graph::after).
  std::vector<const Node *> reads;
  /// Array: computed from sizes by an operation that size expressions lack (`d // h`), with why;
  /// said where a size or a predicate over sizes is wanted and this array comes instead.
  std::string notSize;

  static Value ofSize(Expr e, std::size_t p) {
    Value v;
    v.kind = Size;
    v.size = std::move(e);
    v.pos = p;
    return v;
  }
  static Value ofNode(const Node *n, std::size_t p) {
    Value v;
    v.kind = Array;
    v.node = n;
    v.pos = p;
    return v;
  }
  /// A tuple of arrays (what a function returning several gives).
  static Value ofNodes(const std::vector<const Node *> &nodes, std::size_t p) {
    Value t;
    t.kind = Tuple;
    t.pos = p;
    for (const Node *n : nodes) t.items.push_back(ofNode(n, p));
    return t;
  }
  /// What a function returning one array or several gives: the array, or their tuple.
  static Value ofResults(const std::vector<const Node *> &nodes, std::size_t p) {
    return nodes.size() == 1 ? ofNode(nodes[0], p) : ofNodes(nodes, p);
  }
  static Value ofFloat(double x, std::size_t p) {
    Value v;
    v.kind = Float;
    v.number = x;
    v.pos = p;
    return v;
  }
  static Value ofPred(Pred q, std::size_t p) {
    Value v;
    v.kind = Predicate;
    v.pred = std::move(q);
    v.pos = p;
    return v;
  }
  static Value ofDType(DType d, std::size_t p) {
    Value v;
    v.kind = DTypeName;
    v.dtype = d;
    v.pos = p;
    return v;
  }
};

/// A value that is not an array, as a reply shows it: a size or predicate as an expression
/// (`m*n`, `n != 0 and m != 0`), a float or bool as Python writes it, a tuple item by item;
/// anything else by its kind.
std::string valueText(const Value &v);
/// What a kind of value is, in a message ("an array", "a tuple").
const char *kindName(Value::Kind k);
/// np, np.random or np.linalg: the language holds them as functions without a name of their
/// own ("", "random", "linalg"); only they have attributes.
bool isModule(const Value &v);
/// What a value is, in a message: kindName, except that a module is one, as Python says.
const char *kindName(const Value &v);
/// A shape as JSON: constant dims as numbers, symbolic ones as their text.
Json shapeJson(const Shape &s);
/// An array's elements as nested JSON lists (nan and inf as strings).
Json valueJson(const Array &a);

} // namespace shapelab::lang
