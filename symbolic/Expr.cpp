// Expr — interning: every expression and predicate node is made once (support/InternTable.h),
// its derived facts (size, nesting, totality, hash, the partial atoms below) computed then;
// the handles' reference counts and lifetime; the limits every node is checked against;
// parameters and constants. The canonical forms are made by the other rooms (ExprDetail.h).
#include "symbolic/ExprDetail.h"

#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "support/FlatIndex.h"
#include "support/InternTable.h"
#include "symbolic/Errors.h"
#include "symbolic/Parser.h"

namespace shapelab {

using namespace exprdetail;

namespace exprdetail {

// ---------------------------------------------------------------------------------------------
// Interning.

std::size_t mix(std::size_t h, std::size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

bool shallowEqual(const ExprNode &a, const ExprNode &b) {
  if (a.kind != b.kind || a.value != b.value || a.name != b.name ||
      a.constantTerm != b.constantTerm || a.operands != b.operands ||
      a.condition != b.condition || a.terms.size() != b.terms.size() || a.reserved != b.reserved)
    return false;
  for (std::size_t i = 0; i < a.terms.size(); ++i)
    if (a.terms[i].coefficient != b.terms[i].coefficient ||
        a.terms[i].monomial != b.terms[i].monomial)
      return false;
  return true;
}

bool shallowEqual(const PredNode &a, const PredNode &b) {
  return a.kind == b.kind && a.op == b.op && a.lhs == b.lhs && a.rhs == b.rhs &&
         a.children == b.children;
}

template <class Node> struct ShallowEqual {
  bool operator()(const Node &a, const Node &b) const { return shallowEqual(a, b); }
};
template <class Node> using InternTable = detail::InternTable<Node, ShallowEqual<Node>>;

InternTable<ExprNode> &exprTable() {
  static auto *t = new InternTable<ExprNode>(); // never destroyed: static handles outlive it
  return *t;
}
InternTable<PredNode> &predTable() {
  static auto *t = new InternTable<PredNode>();
  return *t;
}

/// Nodes whose last handle went, freed one at a time: freeing a node drops its children's
/// handles, which may queue them here; a deep DAG is freed without deep recursion.
struct Graveyard {
  std::vector<const ExprNode *> exprs;
  std::vector<const PredNode *> preds;
  bool draining = false;
  void drain() {
    if (draining) return;
    draining = true;
    while (!exprs.empty() || !preds.empty()) {
      if (!exprs.empty()) {
        const ExprNode *n = exprs.back();
        exprs.pop_back();
        detail::NodeSlots<ExprNode>::give(n);
      } else {
        const PredNode *n = preds.back();
        preds.pop_back();
        detail::NodeSlots<PredNode>::give(n);
      }
    }
    draining = false;
  }
};
thread_local Graveyard graveyard;

/// Drops one reference without the lock unless it may be the last one.
template <class Node> bool dropReference(const Node *n) {
  uint64_t r = n->refs.count.load(std::memory_order_relaxed);
  while (r > 1)
    if (n->refs.count.compare_exchange_weak(r, r - 1, std::memory_order_acq_rel,
                                            std::memory_order_relaxed))
      return false;
  return true; // possibly the last: decided under the table's lock
}

std::size_t hashOf(const ExprNode &n) {
  std::size_t h = std::size_t(n.kind) * 0x51ed27;
  h = mix(h, n.value.hash());
  h = mix(h, std::hash<std::string>()(n.name));
  for (const Term &t : n.terms) {
    h = mix(h, t.coefficient.hash());
    for (auto &[atom, e] : t.monomial) h = mix(mix(h, atom.node()->structuralHash), e);
  }
  h = mix(h, n.constantTerm.hash());
  for (const Expr &o : n.operands) h = mix(h, o.node()->structuralHash);
  if (n.condition) h = mix(h, n.condition.node()->structuralHash);
  return h;
}

std::size_t hashOf(const PredNode &n) {
  std::size_t h = std::size_t(n.kind) * 0x2545f491;
  h = mix(h, std::size_t(n.op));
  if (n.lhs) h = mix(h, n.lhs.node()->structuralHash);
  if (n.rhs) h = mix(h, n.rhs.node()->structuralHash);
  for (const Pred &c : n.children) h = mix(h, c.node()->structuralHash);
  return h;
}


[[noreturn]] void coefficientTooLarge() {
  throw InputTooLarge("expression too large: a coefficient has more than " + std::to_string(kMaxCoefficientBits) +
                      " bits");
}

void checkCoefficient(const Integer &v) {
  if (v.bitLength() > kMaxCoefficientBits) coefficientTooLarge();
}


void checkTermCount(std::size_t terms) {
  if (terms > kMaxPolynomialTerms)
    throw InputTooLarge("expression too large: more than " + std::to_string(kMaxPolynomialTerms) +
                        " polynomial terms");
}

void checkProductSize(std::size_t termsA, std::size_t termsB) {
  if (termsA * termsB > kMaxPolynomialTerms)
    throw InputTooLarge("expression too large: product has more than " + std::to_string(kMaxPolynomialTerms) +
                        " terms");
}

void checkDegree(uint32_t degree) {
  if (degree > kMaxDegree)
    throw InputTooLarge("expression too large: degree above " + std::to_string(kMaxDegree));
}

void checkNesting(uint32_t nesting) {
  if (nesting > kMaxNesting)
    throw InputTooLarge("expression too large: nested more than " + std::to_string(kMaxNesting) +
                        " levels deep");
}

void checkTreeSize(uint64_t size) {
  if (size > kMaxTreeSize)
    throw InputTooLarge("expression too large: written out it has more than " +
                        std::to_string(kMaxTreeSize) + " nodes");
}

#ifndef NDEBUG
/// The canonical form of a sum (debug builds check it for every node): at least one term, each
/// with a non-zero coefficient and a monomial of atoms (no constants, no sums; distinct, each
/// with a positive exponent), the terms in the canonical order and distinct. A node that breaks
/// it is equal to another without being the same node, which interning relies on.
void checkCanonicalSum(const ExprNode &n) {
  auto fail = [](const char *what) { throw InternalError(std::string("non-canonical sum: ") + what); };
  if (n.terms.empty()) fail("no terms");
  for (std::size_t i = 0; i < n.terms.size(); ++i) {
    const Term &t = n.terms[i];
    if (t.coefficient.isZero()) fail("a zero coefficient");
    if (t.monomial.empty()) fail("a term without atoms");
    for (std::size_t k = 0; k < t.monomial.size(); ++k) {
      const auto &[atom, exponent] = t.monomial[k];
      if (exponent == 0) fail("an exponent 0");
      if (atom->kind == ExprKind::Constant || atom->kind == ExprKind::Sum) fail("a constant or a sum as an atom");
      for (std::size_t j = 0; j < k; ++j)
        if (t.monomial[j].first == atom) fail("an atom twice in a monomial");
    }
    if (i > 0 && monomialCompare(n.terms[i - 1].monomial, t.monomial) >= 0) fail("terms out of order or repeated");
  }
}
#endif

Expr internExpr(ExprNode &&n) {
#ifndef NDEBUG
  if (n.kind == ExprKind::Sum) checkCanonicalSum(n);
#endif
  checkCoefficient(n.value);
  checkCoefficient(n.constantTerm);
  // One pass over the children: the written-out size, the nesting, and the derived flags. The
  // checks keep their order: every coefficient, then the size, then the nesting.
  uint64_t size = 1 + numberWeight(n.value) + numberWeight(n.constantTerm);
  uint32_t below = 0;
  bool total = n.kind != ExprKind::ExactDiv, quasiAffine = true;
  auto child = [&](const ExprNode *c) {
    size = saturatingAdd(size, c->treeSize);
    below = std::max(below, c->nesting);
    total = total && c->total;
    quasiAffine = quasiAffine && c->quasiAffine;
  };
  for (const Term &t : n.terms) {
    checkCoefficient(t.coefficient);
    size = saturatingAdd(size, 1 + numberWeight(t.coefficient));
    uint32_t degree = 0;
    for (auto &[atom, e] : t.monomial) {
      degree += e;
      child(atom.node());
    }
    if (degree > 1) quasiAffine = false;
  }
  for (const Expr &o : n.operands) child(o.node());
  if (n.condition) {
    size = saturatingAdd(size, n.condition->treeSize);
    below = std::max(below, n.condition->nesting);
    total = total && n.condition->total;
  }
  checkTreeSize(size);
  n.treeSize = size;
  n.nesting = below + 1;
  checkNesting(n.nesting);
  n.total = total;
  n.quasiAffine = quasiAffine;
  n.structuralHash = hashOf(n);
  // The partial atoms below, made for a new node only: the list is no part of what makes a node
  // the same as another, and a node found already has its own (a list of more than two atoms is
  // an allocation).
  return Expr::adopt(exprTable().intern(std::move(n), [](ExprNode &n) {
    if (n.total || n.kind == ExprKind::Select) return;
    // The partial children: atoms of the terms and operands (a choice's branches excepted).
    auto eachPartialChild = [&](auto use) {
      for (const Term &t : n.terms)
        for (auto &[atom, e] : t.monomial)
          if (!atom->total) use(atom.node());
      for (const Expr &o : n.operands)
        if (!o->total) use(o.node());
    };
    std::size_t reserve = 0; // one allocation for the list
    eachPartialChild([&](const ExprNode *c) { reserve += c->partialBelow.size() + 1; });
    n.partialBelow.reserve(reserve);
    eachPartialChild([&](const ExprNode *c) {
      n.partialBelow.insert(n.partialBelow.end(), c->partialBelow.begin(), c->partialBelow.end());
      if (c->kind != ExprKind::Sum) n.partialBelow.push_back(c);
    });
    std::sort(n.partialBelow.begin(), n.partialBelow.end());
    n.partialBelow.erase(std::unique(n.partialBelow.begin(), n.partialBelow.end()), n.partialBelow.end());
  }));
}

Pred internPred(PredNode &&n) {
  uint64_t size = 1;
  if (n.lhs) size = saturatingAdd(saturatingAdd(size, n.lhs.node()->treeSize), n.rhs.node()->treeSize);
  for (const Pred &c : n.children) size = saturatingAdd(size, c.node()->treeSize);
  checkTreeSize(size);
  n.treeSize = size;
  uint32_t below = 0;
  if (n.lhs) below = std::max(n.lhs->nesting, n.rhs->nesting);
  for (const Pred &c : n.children) below = std::max(below, c->nesting);
  n.nesting = below + 1;
  checkNesting(n.nesting);
  n.total = true;
  if (n.lhs) n.total = n.lhs.node()->total && n.rhs.node()->total;
  for (const Pred &c : n.children) n.total = n.total && c.node()->total;
  n.structuralHash = hashOf(n);
  return Pred::adopt(predTable().intern(std::move(n)));
}

Expr constantExpr(const Integer &v) {
  ExprNode n;
  n.kind = ExprKind::Constant;
  n.value = v;
  return internExpr(std::move(n));
}

/// Nodes every process needs, kept alive by handles that are never destroyed.
const ExprNode *zeroNode() {
  static const Expr *zero = new Expr(constantExpr(0));
  return zero->node();
}

const PredNode *truthNode(bool v) {
  static const Pred *t = [] {
    PredNode n;
    n.kind = PredKind::True;
    return new Pred(internPred(std::move(n)));
  }();
  static const Pred *f = [] {
    PredNode n;
    n.kind = PredKind::False;
    return new Pred(internPred(std::move(n)));
  }();
  return v ? t->node() : f->node();
}


bool validName(const std::string &s) {
  return !s.empty() && isNameStart(s[0]) && std::all_of(s.begin(), s.end(), isNameChar);
}

Expr makeParam(const std::string &name, bool reserved) {
  if (!validName(name)) throw NameError("'" + name + "' is not a valid parameter name");
  if (!reserved && name[0] == '_')
    throw NameError("parameter name '" + name +
                    "' is reserved: names starting with '_' belong to shapelab");
  ExprNode n;
  n.kind = ExprKind::Param;
  n.name = name;
  n.reserved = name[0] == '_';
  return internExpr(std::move(n));
}


} // namespace exprdetail

// ---------------------------------------------------------------------------------------------
// Lifetime

namespace detail {
void release(const ExprNode *n) {
  if (!dropReference(n) || !exprTable().releaseLast(n)) return;
  graveyard.exprs.push_back(n);
  graveyard.drain();
}
void release(const PredNode *n) {
  if (!dropReference(n) || !predTable().releaseLast(n)) return;
  graveyard.preds.push_back(n);
  graveyard.drain();
}
} // namespace detail

template <class Ref, class Node> CachedHandle<Ref, Node>::~CachedHandle() {
  if (const Node *n = value.load(std::memory_order_relaxed)) detail::release(n);
}
template <class Ref, class Node> std::optional<Ref> CachedHandle<Ref, Node>::get() const {
  if (const Node *n = value.load(std::memory_order_acquire)) return Ref(n);
  return std::nullopt;
}
template <class Ref, class Node> void CachedHandle<Ref, Node>::set(const Ref &h) const {
  // The cache's own reference is taken before the pointer is published.
  detail::acquire(h.node());
  const Node *expected = nullptr;
  if (!value.compare_exchange_strong(expected, h.node(), std::memory_order_acq_rel)) detail::release(h.node());
}
template struct CachedHandle<Pred, PredNode>;
template struct CachedHandle<Expr, ExprNode>;

InternedCounts internedCounts() { return {exprTable().size(), predTable().size()}; }

// ---------------------------------------------------------------------------------------------
// Expr

Expr::Expr() : Expr(zeroNode()) {}
namespace exprdetail {
/// Small constants are built once and shared: literals, 0 and 1 are the most built nodes.
constexpr int64_t kSmallLow = -16, kSmallHigh = 256;
const ExprNode *smallConstant(int64_t v) {
  static const std::vector<Expr> *table = [] {
    auto *t = new std::vector<Expr>();
    for (int64_t i = kSmallLow; i <= kSmallHigh; ++i) t->push_back(constantExpr(Integer(i)));
    return t;
  }();
  return (*table)[std::size_t(v - kSmallLow)].node();
}
} // namespace exprdetail

Expr::Expr(int64_t value)
    : Expr(value >= kSmallLow && value <= kSmallHigh ? Expr(smallConstant(value)) : constantExpr(Integer(value))) {}
Expr::Expr(const Integer &value)
    : Expr([&] {
        auto small = value.tryToInt64();
        return small && *small >= kSmallLow && *small <= kSmallHigh ? Expr(smallConstant(*small))
                                                                   : constantExpr(value);
      }()) {}

Expr Expr::param(const std::string &name) { return makeParam(name, false); }
Expr Expr::reservedParam(const std::string &name) {
  if (name.empty() || name[0] != '_') throw InternalError("reserved names start with '_'");
  return makeParam(name, true);
}

ExprKind Expr::kind() const { return node()->kind; }
std::optional<Integer> Expr::constantValue() const {
  if (node()->kind == ExprKind::Constant) return node()->value;
  return std::nullopt;
}
bool Expr::isTotal() const { return node()->total; }
bool Expr::isQuasiAffine() const { return node()->quasiAffine; }


} // namespace shapelab
