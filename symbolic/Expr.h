// Expr and Pred — hash-consed dimension expressions and the predicates over them.
//
// Model: a dimension expression is an integer-valued function of named size parameters
// (each >= 0). The decidable core is piecewise quasi-affine (DESIGN §3.2): integer linear
// combinations, `e // c`, `e % c` and `e / c` (exact division, defined only where c divides e)
// for positive constants c, `min`, `max`, and `a if cond else b`. Products of parameters are
// kept as canonical monomials (`n*m`, `n**2`).
//
// Example: parse("n + n") and parse("2*n") are the same node; so are "(2*n + 3) // 2" and
// "n + 1", and "min(n, n + 1)" and "n".
//
// Invariant: every node is built by a canonicalising factory and interned before it is
// returned, so structurally equal expressions are the same pointer: equality and hashing are
// O(1). At the top level an expression is a polynomial Σ coefficient·monomial + constant over
// *atoms* (parameters and the non-polynomial nodes); a polynomial that is a single atom is that
// atom's node, and a constant polynomial is a Constant node. Terms are sorted by a structural
// order that does not depend on creation order, so printing is deterministic.
//
// Cost: building a node canonicalises (a polynomial merge, linear in the number of terms) and
// takes one lock on the global intern table. Lifetime: handles (Expr, Pred, and the handles a
// node holds to its children) count references; a node is freed, and leaves the intern table,
// when its last handle goes (children are freed iteratively, so a deep DAG cannot overflow the
// stack). Copying a handle is one atomic increment. Every walk over the DAG visits a shared node once
// (memoized), so no operation is exponential in the text; and every node obeys the size limits
// below, so a short text cannot build a huge expression.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "symbolic/Integer.h"
#include "support/Slots.h"

namespace shapelab {

class ExprNode;
class PredNode;

/// Limits every expression obeys (README, "Limits"). Building past one throws InputTooLarge.
inline constexpr std::size_t kMaxPolynomialTerms = 4096;
inline constexpr uint32_t kMaxDegree = 64;
inline constexpr std::size_t kMaxCoefficientBits = 65536;
/// Nodes of an expression written out as a tree (its printed size, up to a constant factor): a
/// number counts one node more per 64 bits past its first 64, for its digits.
inline constexpr uint64_t kMaxTreeSize = uint64_t(1) << 13;
/// Levels of nesting of an expression's nodes. Printing adds at most one pair of parentheses
/// per level, so every printed form stays within the parser's nesting bound and reads back
/// (canonicalisation can nest deeper than the text did: `x/5*n/6*n/7...` nests each division).
inline constexpr uint32_t kMaxNesting = 60;

enum class ExprKind : uint8_t { Constant, Param, Sum, FloorDiv, Mod, ExactDiv, Min, Max, Select };
enum class PredKind : uint8_t { True, False, Compare, And, Or, Not };
enum class CompareOp : uint8_t { EQ, NE, LT, LE, GT, GE };

const char *spelling(CompareOp op);
/// The operator that holds exactly where `op` does not (EQ<->NE, LT<->GE, ...).
CompareOp negated(CompareOp op);

class Pred;

namespace detail {
inline void acquire(const ExprNode *n);
inline void acquire(const PredNode *n);
void release(const ExprNode *n);
void release(const PredNode *n);

/// A counted reference to an interned node: copying takes a reference, destruction drops it,
/// moving passes it on. Equality and hashing are by node (structural, thanks to interning).
template <class Node> class Handle {
public:
  /// A new handle to a node some other handle keeps alive (or the null handle, which only a
  /// node's unused child slots hold).
  explicit Handle(const Node *node) : node_(node) { if (node_) acquire(node_); }
  Handle(const Handle &o) : node_(o.node_) { if (node_) acquire(node_); }
  Handle(Handle &&o) noexcept : node_(o.node_) { o.node_ = nullptr; }
  Handle &operator=(const Handle &o) {
    Handle copy(o);
    std::swap(node_, copy.node_);
    return *this;
  }
  Handle &operator=(Handle &&o) noexcept {
    std::swap(node_, o.node_);
    return *this;
  }
  ~Handle() { if (node_) drop(node_); }

  const Node *node() const { return node_; }
  const Node *operator->() const { return node_; }
  explicit operator bool() const { return node_ != nullptr; }
  std::size_t hash() const { return std::hash<const void *>()(node_); }

protected:
  struct Adopt {};
  /// Takes over the reference the intern table handed out with `node`.
  Handle(const Node *node, Adopt) : node_(node) {}

private:
  /// Drops a reference that is not the node's last inline (one compare-and-swap); the last one,
  /// or a count that changed meanwhile, goes to release(), which decides under the table's lock.
  static void drop(const Node *n) {
    uint64_t r = n->refs.count.load(std::memory_order_relaxed);
    if (r > 1 && n->refs.count.compare_exchange_strong(r, r - 1, std::memory_order_acq_rel, std::memory_order_relaxed))
      return;
    release(n);
  }

  const Node *node_;
};
} // namespace detail

/// A handle to an interned expression node; cheap to copy, compared by identity. It keeps the
/// node alive.
class Expr : public detail::Handle<ExprNode> {
public:
  Expr(); // the constant 0
  explicit Expr(const ExprNode *node) : Handle(node) {}
  /// Takes over the reference the intern table handed out with `node`.
  static Expr adopt(const ExprNode *node) { return Expr(node, Adopt{}); }
  Expr(int64_t value); // NOLINT: constants read naturally
  Expr(int value) : Expr(int64_t(value)) {} // NOLINT
  Expr(const Integer &value);                // NOLINT

  /// A user size parameter. Throws NameError for reserved (`_`-prefixed) or invalid names.
  static Expr param(const std::string &name);
  /// A parameter in the reserved namespace (data-dependent sizes, solver atoms).
  static Expr reservedParam(const std::string &name);

  ExprKind kind() const;
  bool isConstant() const { return kind() == ExprKind::Constant; }
  /// The value when this is a constant.
  std::optional<Integer> constantValue() const;
  /// True when no exact division appears, so the expression is defined everywhere.
  bool isTotal() const;
  /// True when the expression is quasi-affine (no monomial of degree > 1 anywhere).
  bool isQuasiAffine() const;
  std::string toString() const;

  friend bool operator==(Expr a, Expr b) { return a.node() == b.node(); }
  friend bool operator!=(Expr a, Expr b) { return a.node() != b.node(); }
  friend Expr operator+(Expr a, Expr b);
  friend Expr operator-(Expr a, Expr b);
  friend Expr operator*(Expr a, Expr b);
  Expr operator-() const;

private:
  Expr(const ExprNode *node, Adopt a) : Handle(node, a) {}
};

/// sum - c*atom + c*by, where c*atom is one of the terms of `sum` (atom to the first power): the
/// sum with that term's atom replaced by `by`, written in one merge of two term lists. The node
/// the three steps (sum - c*atom, c*by, their sum) build, limits included, when `sum` and `by`
/// are total; otherwise it is those steps (they keep the definedness of what cancels). A range
/// walk moves the rest of a sum into each operand of a min, max or choice this way.
Expr withTermReplaced(const Expr &sum, const Expr &atom, const Integer &c, const Expr &by);

/// lhs - rhs read as a*x + k for one parameter x (a != 0), as the node `lhs - rhs` would read,
/// without building it: nullopt when the difference is not of that form (or when a side is
/// partial, where the difference would carry the definedness of what cancelled). A range walk
/// asks this of every condition it narrows a box by.
struct OneParameterForm {
  const ExprNode *x; // kept alive by lhs or rhs
  Integer a, k;
};
std::optional<OneParameterForm> differenceInOneParameter(const Expr &lhs, const Expr &rhs);

/// e0 ± e1 ± ... (`negated[i]` says the sign of operand i, operand 0 always added; no `negated`:
/// every operand added), built in one
/// normalisation (linear in the number of terms where folding with + and - is quadratic). The
/// same node as the fold when every operand is total; with partial operands, the same value
/// and the same domain of definition (the fold may guard a cancellation step by step).
Expr signedSum(std::span<const Expr> operands, std::span<const bool> negated = {});

/// Floor division by a positive constant; throws UserError for divisor <= 0.
Expr floorDiv(Expr e, const Integer &divisor);
/// Python-style modulo by a positive constant (result in [0, divisor)).
Expr mod(Expr e, const Integer &divisor);
/// Exact division by a positive constant: defined only where divisor | e.
Expr exactDiv(Expr e, const Integer &divisor);
Expr min(std::vector<Expr> args);
Expr max(std::vector<Expr> args);
inline Expr min(Expr a, Expr b) { return min(std::vector<Expr>{a, b}); }
inline Expr max(Expr a, Expr b) { return max(std::vector<Expr>{a, b}); }
Expr select(const Pred &cond, Expr ifTrue, Expr ifFalse);
/// e**exponent, expanded into a polynomial. Throws UserError when the result would be huge.
Expr pow(Expr e, uint32_t exponent);

/// A handle to an interned predicate node.
class Pred : public detail::Handle<PredNode> {
public:
  Pred(); // True
  explicit Pred(const PredNode *node) : Handle(node) {}
  static Pred adopt(const PredNode *node) { return Pred(node, Adopt{}); }
  static Pred truth(bool value);
  static Pred compare(CompareOp op, Expr lhs, Expr rhs);
  static Pred conjunction(const std::vector<Pred> &parts);
  static Pred disjunction(const std::vector<Pred> &parts);
  static Pred negation(const Pred &p);

  PredKind kind() const;
  bool isTrue() const { return kind() == PredKind::True; }
  bool isFalse() const { return kind() == PredKind::False; }
  /// Truth value when it does not depend on any parameter, as far as construction can tell.
  std::optional<bool> constantValue() const;
  std::string toString() const;
  friend bool operator==(const Pred &a, const Pred &b) { return a.node() == b.node(); }
  friend bool operator!=(const Pred &a, const Pred &b) { return a.node() != b.node(); }

private:
  Pred(const PredNode *node, Adopt a) : Handle(node, a) {}
};

inline Pred eq(Expr a, Expr b) { return Pred::compare(CompareOp::EQ, a, b); }
inline Pred ne(Expr a, Expr b) { return Pred::compare(CompareOp::NE, a, b); }
inline Pred lt(Expr a, Expr b) { return Pred::compare(CompareOp::LT, a, b); }
inline Pred le(Expr a, Expr b) { return Pred::compare(CompareOp::LE, a, b); }
inline Pred gt(Expr a, Expr b) { return Pred::compare(CompareOp::GT, a, b); }
inline Pred ge(Expr a, Expr b) { return Pred::compare(CompareOp::GE, a, b); }
inline Pred operator&&(const Pred &a, const Pred &b) { return Pred::conjunction({a, b}); }
inline Pred operator||(const Pred &a, const Pred &b) { return Pred::disjunction({a, b}); }
inline Pred operator!(const Pred &a) { return Pred::negation(a); }

/// A lazily computed, interned value (`Ref`, a Pred or an Expr, over `Node`) cached in a node:
/// a node's definedness, a partial node's total form. It holds a reference (written once; a
/// racing writer that loses drops its own).
template <class Ref, class Node> struct CachedHandle {
  mutable std::atomic<const Node *> value{nullptr};
  CachedHandle() = default;
  CachedHandle(CachedHandle &&o) noexcept : value(o.value.exchange(nullptr, std::memory_order_relaxed)) {}
  ~CachedHandle();
  std::optional<Ref> get() const;
  void set(const Ref &h) const;
};
using CachedPred = CachedHandle<Pred, PredNode>;
using CachedExpr = CachedHandle<Expr, ExprNode>;

/// The size parameters below a node, sorted by name, computed on first use and cached in the
/// node (written once; a racing writer that loses drops its own). The node keeps them alive.
/// The list is the node's own, or the list of a child that holds them all (borrowed).
struct CachedParams {
  using List = std::vector<const ExprNode *>;
  /// What computing a node's list gives: a list of its own, or (where it holds nothing the list
  /// of one child does not) that child's list, kept alive by the node's handle on the child.
  struct Computed {
    const List *borrowed = nullptr;
    List own;
  };
  /// The list, its lowest bit set where it is borrowed (lists are aligned, so the bit is free).
  mutable std::atomic<std::uintptr_t> value{0};
  CachedParams() = default;
  CachedParams(CachedParams &&o) noexcept : value(o.value.exchange(0, std::memory_order_relaxed)) {}
  ~CachedParams() { dispose(value.load(std::memory_order_relaxed)); }
  /// The cached list, or the one `compute` gives (then cached).
  template <class F> const List &get(F compute) const {
    if (std::uintptr_t v = value.load(std::memory_order_acquire)) return listOf(v);
    Computed c = compute();
    std::uintptr_t mine = c.borrowed ? reinterpret_cast<std::uintptr_t>(c.borrowed) | 1
                                     : reinterpret_cast<std::uintptr_t>(new List(std::move(c.own)));
    std::uintptr_t expected = 0;
    if (value.compare_exchange_strong(expected, mine, std::memory_order_acq_rel)) return listOf(mine);
    dispose(mine);
    return listOf(expected);
  }

private:
  static const List &listOf(std::uintptr_t v) { return *reinterpret_cast<const List *>(v & ~std::uintptr_t(1)); }
  static void dispose(std::uintptr_t v) {
    if (v && !(v & 1)) delete reinterpret_cast<const List *>(v);
  }
};

/// A node's reference count (not copied with the node's contents).
struct RefCount {
  mutable std::atomic<uint64_t> count{0};
  RefCount() = default;
  RefCount(const RefCount &) {}
  RefCount(RefCount &&) noexcept {}
};

/// A monomial: atoms with positive exponents, sorted by the structural order. Most have one
/// atom or two (an element count m*n), kept in place (no allocation per term).
/// Past their inline space, monomials and term lists take their buffers from per-thread slots
/// (detail::SlotAllocator): products and sums make and drop them by the thousand.
using Monomial = boost::container::small_vector<std::pair<Expr, uint32_t>, 2, detail::SlotAllocator<std::pair<Expr, uint32_t>>>;
struct Term {
  Integer coefficient;
  Monomial monomial;
};
/// A sum's terms: the first in place (2*n, n + 1 and m*n - 1 have one), so that most sums made
/// cost one allocation, the node.
using Terms = boost::container::small_vector<Term, 1, detail::SlotAllocator<Term>>;

/// The operands of a division (one), a choice (two) or a min/max (two or more): the first two
/// in place, since a division is built for every `/`, `//` and `%` read.
using ExprOperands = boost::container::small_vector<Expr, 2, detail::SlotAllocator<Expr>>;

/// The read-only node behind an Expr. Fields used depend on `kind`.
class ExprNode {
public:
  ExprKind kind;
  Integer value;                         // Constant: the value; FloorDiv/Mod/ExactDiv: divisor
  std::string name;                      // Param
  Terms terms;                           // Sum: non-constant terms, sorted, non-zero coefficients
  Integer constantTerm;                  // Sum
  ExprOperands operands;                 // FloorDiv/Mod/ExactDiv: {e}; Min/Max: args; Select: {a, b}
  Pred condition{nullptr};               // Select
  // Derived once at construction.
  std::size_t structuralHash = 0;
  bool total = true;       // no ExactDiv inside
  bool quasiAffine = true; // no monomial of degree > 1 inside
  bool reserved = false;   // Param in the reserved namespace
  uint64_t treeSize = 1;   // nodes when written out as a tree (saturating)
  uint32_t nesting = 1;    // levels of nodes below and including this one
  /// The partial atoms (non-sum nodes containing an exact division) below this node, reached
  /// without entering a Select, sorted by address; the node's handles keep them alive. Lets
  /// canonicalisation ask "is this division still in the result?" without walking the DAG.
  boost::container::small_vector<const ExprNode *, 2, detail::SlotAllocator<const ExprNode *>> partialBelow;
  CachedPred definedness;  // definedness(this), computed on first use
  CachedExpr totalForm;    // totalized(this) of a partial node, computed on first use (a total
                           // node, so it never refers back to this one)
  CachedParams params;     // parametersOf(this), computed on first use
  RefCount refs;
};

class PredNode {
public:
  PredKind kind;
  CompareOp op = CompareOp::EQ;          // Compare
  Expr lhs{nullptr}, rhs{nullptr};       // Compare
  std::vector<Pred> children;            // And/Or: >= 2; Not: 1
  std::size_t structuralHash = 0;
  bool total = true;
  uint64_t treeSize = 1;
  uint32_t nesting = 1;
  CachedPred definedness;
  CachedParams params;
  RefCount refs;
};

namespace detail {
inline void acquire(const ExprNode *n) { n->refs.count.fetch_add(1, std::memory_order_relaxed); }
inline void acquire(const PredNode *n) { n->refs.count.fetch_add(1, std::memory_order_relaxed); }
} // namespace detail

/// How many expression and predicate nodes are alive (interned) now.
struct InternedCounts {
  std::size_t exprs = 0, preds = 0;
};
InternedCounts internedCounts();

/// Total order on nodes that depends only on structure (never on creation order).
int structuralCompare(const ExprNode *a, const ExprNode *b);
int structuralCompare(const PredNode *a, const PredNode *b);
inline int structuralCompare(const Expr &a, const Expr &b) { return structuralCompare(a.node(), b.node()); }
inline int structuralCompare(const Pred &a, const Pred &b) { return structuralCompare(a.node(), b.node()); }

/// The conjuncts of `p`: its children when it is a conjunction, else `p` alone.
std::vector<Pred> conjuncts(const Pred &p);

/// The parameters an expression or predicate mentions, sorted by name.
std::vector<Expr> parametersOf(Expr e);
std::vector<Expr> parametersOf(const Pred &p);
void collectParameters(Expr e, std::vector<Expr> &out);
void collectParameters(const Pred &p, std::vector<Expr> &out);
/// The same parameters as nodes: the list kept with the node, so no copy is made and no
/// reference taken (valid while `e` or `p` lives). For loops that only look.
const std::vector<const ExprNode *> &parameterNodes(const Expr &e);
const std::vector<const ExprNode *> &parameterNodes(const Pred &p);

/// The condition under which every exact division in `e` (or `p`) divides evenly.
Pred definedness(Expr e);
Pred definedness(const Pred &p);

/// The same expression with every exact division read as floor division: total, and equal to
/// `e` wherever `e` is defined. The solver reads its sets back through it (a set already holds
/// the definedness conditions, so its predicate must not add them a second time).
Expr totalized(Expr e);
/// The same for a predicate: total, with the truth value of `p` wherever `p` is defined.
Pred totalized(const Pred &p);
/// Where `p` holds, as a total predicate: `definedness(p) and totalized(p)` (`p` itself when it
/// is total). A predicate over an undefined expression does not hold, and neither does its
/// negation: a condition that is combined further (`not ok`, `not c or ok`, an error domain)
/// must be this form, which is false there, so that its negation is true there.
Pred whereHolds(const Pred &p);

/// Replaces parameters by expressions (absent ones stay).
Expr substitute(Expr e, const std::map<std::string, Expr> &bindings);
Pred substitute(const Pred &p, const std::map<std::string, Expr> &bindings);
/// Replaces every occurrence of the sub-expression `atom` by `by` (the rest canonicalised again:
/// `m*max(0, n - 1)` with `n - 1` for the max is `m*n - m`).
Expr substituteAtom(Expr e, const Expr &atom, const Expr &by);
Pred substituteAtom(const Pred &p, const Expr &atom, const Expr &by);
/// The side a choice takes, by its condition (true: the first side), or nullopt to keep it.
using ChoiceTaken = std::function<std::optional<bool>(const Pred &condition)>;
/// `e` with each choice whose condition `taken` answers replaced by that side (the rest
/// canonicalised again; a choice inside a condition included). `e` itself when it has no choice
/// outside conditions. Sound where the answers hold: a caller that knows a condition's truth
/// only on part of the points (one side of an enclosing choice) uses the result there only.
Expr resolveChoices(Expr e, const ChoiceTaken &taken);

/// The expression as a polynomial over atoms: (terms, constant).
std::pair<std::vector<Term>, Integer> asPolynomial(Expr e);
/// Builds the canonical expression of a polynomial (terms may be unsorted / repeated).
Expr fromPolynomial(std::vector<Term> terms, Integer constant);
/// numerator / divisor as a polynomial with integer coefficients over the atoms, where the
/// divisor divides the numerator exactly ((2*n**2 + 2*n) / (n + 1) is 2*n, (m + 1) / (m + 1) is
/// 1); nullopt otherwise (a remainder, or a quotient with fractions). Division by the divisor's
/// leading term in the canonical (graded) order: for one divisor its remainder is 0 exactly
/// when it divides. Cost: a step per quotient term, at most kMaxPolynomialTerms.
std::optional<Expr> exactQuotient(const Expr &numerator, const Expr &divisor);

} // namespace shapelab

template <> struct std::hash<shapelab::Expr> {
  std::size_t operator()(shapelab::Expr e) const { return e.hash(); }
};
template <> struct std::hash<shapelab::Pred> {
  std::size_t operator()(const shapelab::Pred &p) const { return p.hash(); }
};
