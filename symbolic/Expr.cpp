#include "symbolic/Expr.h"

#include <algorithm>
#include <iterator>
#include <mutex>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "symbolic/Errors.h"
#include "support/FlatIndex.h"
#include "support/InternTable.h"
#include "symbolic/Parser.h"

namespace shapelab {

namespace {

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

uint64_t saturatingAdd(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

[[noreturn]] void coefficientTooLarge() {
  throw InputTooLarge("expression too large: a coefficient has more than " + std::to_string(kMaxCoefficientBits) +
                      " bits");
}

void checkCoefficient(const Integer &v) {
  if (v.bitLength() > kMaxCoefficientBits) coefficientTooLarge();
}

/// What a number adds to an expression's written-out size past the node it is part of: one
/// node per 64 bits past the first 64 (a coefficient at the limit, 65,536 bits, is written in
/// 19,729 digits, a thousand times a small one's). Numbers of at most 64 bits add nothing.
uint64_t numberWeight(std::size_t bits) { return bits > 64 ? uint64_t(bits - 1) / 64 : 0; }
uint64_t numberWeight(const Integer &v) { return v.bigStorage() ? numberWeight(v.bitLength()) : 0; } // inline: 64 bits at most

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
int monomialCompare(const Monomial &a, const Monomial &b);
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

// ---------------------------------------------------------------------------------------------
// Structural order.

int cmpInt(const Integer &a, const Integer &b) { return compare(a, b); }

uint32_t degreeOf(const Monomial &m) {
  uint32_t d = 0;
  for (auto &p : m) d += p.second;
  return d;
}

/// The order of two monomials of the same degree: atom by atom, then the shorter first.
int sameDegreeCompare(const Monomial &a, const Monomial &b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (int c = structuralCompare(a[i].first, b[i].first)) return c;
    if (a[i].second != b[i].second) return a[i].second > b[i].second ? -1 : 1;
  }
  return (a.size() > b.size()) - (a.size() < b.size());
}

int monomialCompare(const Monomial &a, const Monomial &b) {
  uint32_t da = degreeOf(a), db = degreeOf(b);
  if (da != db) return da > db ? -1 : 1; // higher degree first
  return sameDegreeCompare(a, b);
}

// ---------------------------------------------------------------------------------------------
// Polynomials.

/// Merges equal monomials of sorted terms and drops zero coefficients, in place.
void mergeSorted(Terms &terms) {
  std::size_t w = 0;
  for (std::size_t r = 0; r < terms.size(); ++r) {
    if (w > 0 && terms[w - 1].monomial == terms[r].monomial)
      terms[w - 1].coefficient += terms[r].coefficient;
    else if (w != r)
      terms[w++] = std::move(terms[r]);
    else
      ++w;
    if (terms[w - 1].coefficient.isZero()) --w;
  }
  terms.resize(w);
}

/// Sorts terms into the canonical order (monomialCompare), merges equal monomials and drops zero
/// coefficients. A long list (a product of sums) is sorted through small keys, each holding its
/// term's degree computed once, and the terms are moved once into place.
void normalise(Terms &terms) {
  if (terms.size() <= 16) {
    std::sort(terms.begin(), terms.end(), [](const Term &a, const Term &b) {
      return monomialCompare(a.monomial, b.monomial) < 0;
    });
    return mergeSorted(terms);
  }
  struct Key {
    uint32_t degree, index;
  };
  std::vector<Key> keys(terms.size());
  for (std::size_t i = 0; i < terms.size(); ++i) keys[i] = {degreeOf(terms[i].monomial), uint32_t(i)};
  std::sort(keys.begin(), keys.end(), [&](const Key &a, const Key &b) {
    if (a.degree != b.degree) return a.degree > b.degree;
    return sameDegreeCompare(terms[a.index].monomial, terms[b.index].monomial) < 0;
  });
  Terms sorted;
  sorted.reserve(terms.size());
  for (const Key &k : keys) sorted.push_back(std::move(terms[k.index]));
  terms = std::move(sorted);
  mergeSorted(terms);
}

/// Where sorted runs of a term list start (and, last, where the list ends); most products make
/// a few, kept in place.
using Runs = boost::container::small_vector<std::size_t, 8>;
/// normalise() for terms that are already sorted runs (run k: [runs[k], runs[k + 1])): the
/// runs are merged pairwise, then equal monomials merge.
void mergeRuns(Terms &terms, Runs &runs) {
  auto before = [](const Term &a, const Term &b) { return monomialCompare(a.monomial, b.monomial) < 0; };
  while (runs.size() > 2) {
    Runs merged{runs[0]};
    for (std::size_t k = 0; k + 2 < runs.size(); k += 2) {
      std::inplace_merge(terms.begin() + std::ptrdiff_t(runs[k]), terms.begin() + std::ptrdiff_t(runs[k + 1]),
                         terms.begin() + std::ptrdiff_t(runs[k + 2]), before);
      merged.push_back(runs[k + 2]);
    }
    if (runs.size() % 2 == 0) merged.push_back(runs.back()); // an odd number of runs: the last one stays
    runs.swap(merged);
  }
  mergeSorted(terms);
}

Monomial multiplyMonomials(const Monomial &a, const Monomial &b) {
  Monomial out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int c = i == a.size() ? 1 : j == b.size() ? -1 : structuralCompare(a[i].first, b[j].first);
    if (c == 0) {
      out.push_back({a[i].first, a[i].second + b[j].second});
      ++i, ++j;
    } else if (c < 0) {
      out.push_back(a[i++]);
    } else {
      out.push_back(b[j++]);
    }
  }
  return out;
}

/// An expression read as a polynomial without copying its terms (asPolynomial copies every
/// term, and with it every atom's handle); `e` must outlive the view.
class PolyRef {
public:
  explicit PolyRef(const Expr &e) {
    const ExprNode *n = e.node();
    if (n->kind == ExprKind::Constant) {
      constant_ = &n->value;
    } else if (n->kind == ExprKind::Sum) {
      begin_ = n->terms.data();
      end_ = begin_ + n->terms.size();
      constant_ = &n->constantTerm;
    } else {
      single_.coefficient = Integer(1);
      single_.monomial.push_back({e, 1});
      begin_ = &single_;
      end_ = begin_ + 1;
    }
  }
  PolyRef(const PolyRef &) = delete;
  PolyRef &operator=(const PolyRef &) = delete;
  const Term *begin() const { return begin_; }
  const Term *end() const { return end_; }
  std::size_t size() const { return std::size_t(end_ - begin_); }
  const Term &operator[](std::size_t i) const { return begin_[i]; }
  const Integer &constant() const { return *constant_; }

private:
  Term single_;
  Integer zero_{0};
  const Term *begin_ = nullptr, *end_ = nullptr;
  const Integer *constant_ = &zero_;
};

// Splits e = c*q + r where every coefficient of r has |coef| < c and the sign of the original
// (truncating split), so "(n - 1) // 2" stays as written and "(2*n + 3) // 2" becomes n + 1.
void splitByDivisor(Expr e, const Integer &c, Terms &q, Integer &q0, Terms &r, Integer &r0) {
  PolyRef terms(e);
  const Integer &constant = terms.constant();
  if (terms.size() > 4) { // a short sum fits in place or grows once; its quotient is often empty
    q.reserve(terms.size());
    r.reserve(terms.size());
  }
  for (const Term &t : terms) {
    auto [qt, rt] = Integer::truncDivRem(t.coefficient, c);
    if (!qt.isZero()) q.push_back({qt, t.monomial});
    if (!rt.isZero()) r.push_back({rt, t.monomial});
  }
  std::tie(q0, r0) = Integer::truncDivRem(constant, c);
}

Integer contentOf(const Terms &terms, const Integer &constant) {
  Integer g = Integer::abs(constant);
  for (const Term &t : terms) g = Integer::gcd(g, t.coefficient);
  return g;
}

void checkDivisor(const Integer &d, const char *op) {
  if (d.sign() <= 0)
    throw UserError(std::string("the divisor of '") + op + "' must be a positive constant, not " +
                    d.toString());
}

Expr makeDivisionAtom(ExprKind kind, Expr e, const Integer &c) {
  ExprNode n;
  n.kind = kind;
  n.value = c;
  n.operands = {e};
  return internExpr(std::move(n));
}

Expr undefinedEverywhere() {
  static const Expr *u = new Expr(makeDivisionAtom(ExprKind::ExactDiv, Expr(1), Integer(2)));
  return *u;
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

/// a - b when it is a constant (their non-constant parts are the same terms), read off the
/// nodes without building the difference: min/max compare every pair of arguments, and every
/// comparison made asks it. Cost: a walk over both term lists, no allocation (shape rules and
/// range walks compare by the thousand).
std::optional<Integer> constantDifference(const ExprNode *a, const ExprNode *b) {
  auto split = [](const ExprNode *n, const Terms *&terms, Integer &constant,
                  const ExprNode *&atom) {
    terms = nullptr;
    atom = nullptr;
    if (n->kind == ExprKind::Constant) constant = n->value;
    else if (n->kind == ExprKind::Sum) terms = &n->terms, constant = n->constantTerm;
    else atom = n, constant = 0;
  };
  const Terms *ta, *tb;
  const ExprNode *xa, *xb;
  Integer ca, cb;
  split(a, ta, ca, xa);
  split(b, tb, cb, xb);
  auto singleAtom = [](const Terms *t, const ExprNode *x) {
    return t && t->size() == 1 && (*t)[0].coefficient.isOne() && (*t)[0].monomial.size() == 1 &&
           (*t)[0].monomial[0].second == 1 && (*t)[0].monomial[0].first.node() == x;
  };
  bool same = false;
  if (xa || xb) same = xa == xb || (xa && singleAtom(tb, xa)) || (xb && singleAtom(ta, xb));
  else if (!ta || !tb) same = !ta && !tb ? true : (ta ? ta->empty() : tb->empty());
  else {
    same = ta->size() == tb->size();
    for (std::size_t i = 0; same && i < ta->size(); ++i)
      same = (*ta)[i].coefficient == (*tb)[i].coefficient && (*ta)[i].monomial == (*tb)[i].monomial;
  }
  if (!same) return std::nullopt;
  return ca - cb;
}

Expr minMax(ExprKind kind, std::vector<Expr> args) {
  if (args.empty()) throw UserError(kind == ExprKind::Min ? "min() needs an argument" : "max() needs an argument");
  bool isMin = kind == ExprKind::Min;
  std::vector<Expr> flat;
  for (Expr a : args) {
    if (a.kind() == kind)
      for (const Expr &o : a.node()->operands) flat.push_back(o);
    else
      flat.push_back(a);
  }
  // Drop any argument that another argument dominates by a constant (min(n, n + 1) = n).
  std::vector<Expr> kept;
  for (std::size_t i = 0; i < flat.size(); ++i) {
    bool dominated = false;
    for (std::size_t j = 0; j < flat.size() && !dominated; ++j) {
      if (i == j || !flat[i].isTotal() || !flat[j].isTotal()) continue;
      auto d = constantDifference(flat[i].node(), flat[j].node());
      if (!d) continue;
      // flat[i] - flat[j] = d: for min, i is dominated when d > 0 (or d == 0 and j < i).
      int s = d->sign();
      if (isMin ? (s > 0 || (s == 0 && j < i)) : (s < 0 || (s == 0 && j < i))) dominated = true;
    }
    if (!dominated) kept.push_back(flat[i]);
  }
  if (kept.size() == 1) return kept[0];
  std::sort(kept.begin(), kept.end(),
            [](Expr a, Expr b) { return structuralCompare(a.node(), b.node()) < 0; });
  ExprNode n;
  n.kind = kind;
  n.operands.assign(kept.begin(), kept.end());
  return internExpr(std::move(n));
}

// ---------------------------------------------------------------------------------------------
// Keeping definedness. Canonicalisation may cancel or drop a sub-expression (x/2 - x/2 = 0,
// (x/2) % 1 = 0, min(x/2, x/2 + 1) = x/2 keeps it, 0*(x/2) = 0). Where the dropped part was
// undefined somewhere, the result must stay undefined there, or an error would be masked.
// The result is then guarded: `result if definedness(dropped) else 1 / 2` (1 / 2 is undefined
// everywhere), so evaluation and the solver see exactly the original domain.

/// Calls `use` on each partial atom at the top of `n`: itself, or a sum's partial atoms.
template <class Use> void forTopPartialAtoms(const ExprNode *n, Use use) {
  if (n->total) return;
  if (n->kind != ExprKind::Sum) return use(n);
  for (const Term &t : n->terms)
    for (auto &p : t.monomial)
      if (!p.first->total) use(p.first.node());
}

/// True when atom `a` still appears in `result`: as the result itself, or below it without
/// entering a Select (where it would be guarded by the condition).
bool stillPresent(const ExprNode *a, const ExprNode *result) {
  return a == result ||
         std::binary_search(result->partialBelow.begin(), result->partialBelow.end(), a);
}

Expr undefinedEverywhere();

} // namespace

Pred definedness(Expr e);

namespace {

template <class Inputs> Expr keepDefinednessOf(Expr result, const Inputs &inputs) {
  bool allTotal = true;
  for (const Expr &i : inputs) allTotal = allTotal && i.isTotal();
  if (allTotal) return result;
  // Most often every partial atom of the inputs is still in the result: asked without
  // collecting them first (this runs for every sum, product and division built).
  bool allPresent = true;
  for (const Expr &i : inputs)
    forTopPartialAtoms(i.node(), [&](const ExprNode *a) { allPresent = allPresent && stillPresent(a, result.node()); });
  if (allPresent) return result;
  std::vector<const ExprNode *> obligations;
  for (const Expr &i : inputs)
    forTopPartialAtoms(i.node(), [&](const ExprNode *a) {
      if (std::find(obligations.begin(), obligations.end(), a) == obligations.end()) obligations.push_back(a);
    });
  std::vector<Pred> missing;
  for (auto *o : obligations)
    if (!stillPresent(o, result.node())) missing.push_back(definedness(Expr(o)));
  if (missing.empty()) return result;
  return select(Pred::conjunction(missing), result, undefinedEverywhere());
}
Expr keepDefinedness(Expr result, std::initializer_list<Expr> inputs) {
  return keepDefinednessOf(std::move(result), inputs);
}

} // namespace


// ---------------------------------------------------------------------------------------------

const char *spelling(CompareOp op) {
  switch (op) {
  case CompareOp::EQ: return "==";
  case CompareOp::NE: return "!=";
  case CompareOp::LT: return "<";
  case CompareOp::LE: return "<=";
  case CompareOp::GT: return ">";
  case CompareOp::GE: return ">=";
  }
  return "?";
}

CompareOp negated(CompareOp op) {
  switch (op) {
  case CompareOp::EQ: return CompareOp::NE;
  case CompareOp::NE: return CompareOp::EQ;
  case CompareOp::LT: return CompareOp::GE;
  case CompareOp::LE: return CompareOp::GT;
  case CompareOp::GT: return CompareOp::LE;
  case CompareOp::GE: return CompareOp::LT;
  }
  return op;
}

int structuralCompare(const ExprNode *a, const ExprNode *b) {
  if (a == b) return 0;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  switch (a->kind) {
  case ExprKind::Constant: return cmpInt(a->value, b->value);
  case ExprKind::Param: return a->name.compare(b->name) < 0 ? -1 : a->name == b->name ? 0 : 1;
  case ExprKind::Sum: {
    for (std::size_t i = 0; i < a->terms.size() && i < b->terms.size(); ++i) {
      if (int c = monomialCompare(a->terms[i].monomial, b->terms[i].monomial)) return c;
      if (int c = cmpInt(a->terms[i].coefficient, b->terms[i].coefficient)) return c;
    }
    if (a->terms.size() != b->terms.size()) return a->terms.size() < b->terms.size() ? -1 : 1;
    return cmpInt(a->constantTerm, b->constantTerm);
  }
  default: break;
  }
  if (int c = cmpInt(a->value, b->value)) return c;
  for (std::size_t i = 0; i < a->operands.size() && i < b->operands.size(); ++i)
    if (int c = structuralCompare(a->operands[i], b->operands[i])) return c;
  if (a->operands.size() != b->operands.size()) return a->operands.size() < b->operands.size() ? -1 : 1;
  if (a->condition && b->condition) return structuralCompare(a->condition, b->condition);
  return 0;
}

int structuralCompare(const PredNode *a, const PredNode *b) {
  if (a == b) return 0;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->op != b->op) return a->op < b->op ? -1 : 1;
  if (a->lhs) {
    if (int c = structuralCompare(a->lhs, b->lhs)) return c;
    if (int c = structuralCompare(a->rhs, b->rhs)) return c;
  }
  for (std::size_t i = 0; i < a->children.size() && i < b->children.size(); ++i)
    if (int c = structuralCompare(a->children[i], b->children[i])) return c;
  return (a->children.size() > b->children.size()) - (a->children.size() < b->children.size());
}

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
namespace {
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
} // namespace

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


std::pair<std::vector<Term>, Integer> asPolynomial(Expr e) {
  const ExprNode *n = e.node();
  if (n->kind == ExprKind::Constant) return {{}, n->value};
  if (n->kind == ExprKind::Sum) return {std::vector<Term>(n->terms.begin(), n->terms.end()), n->constantTerm};
  return {{Term{Integer(1), Monomial{{e, 1}}}}, Integer(0)};
}

namespace {
Expr fromNormalised(Terms terms, Integer constant);

/// Every coefficient and the constant multiplied by a non-zero `k`: the terms stay sorted and
/// non-zero, so no normalisation is needed.
Expr scaled(const PolyRef &p, const Integer &k) {
  Terms out;
  out.reserve(p.size());
  for (const Term &t : p) out.push_back({t.coefficient * k, t.monomial});
  return fromNormalised(std::move(out), p.constant() * k);
}
} // namespace

namespace {
/// fromPolynomial on the node's own term list.
Expr fromTerms(Terms terms, Integer constant) {
  // A term without atoms (a quotient m / m, say) is a constant: it joins the constant term.
  auto atomless = [](const Term &t) { return t.monomial.empty(); };
  for (const Term &t : terms)
    if (atomless(t)) constant += t.coefficient;
  terms.erase(std::remove_if(terms.begin(), terms.end(), atomless), terms.end());
  normalise(terms);
  return fromNormalised(std::move(terms), std::move(constant));
}
} // namespace

Expr fromPolynomial(std::vector<Term> terms, Integer constant) {
  return fromTerms(Terms(std::make_move_iterator(terms.begin()), std::make_move_iterator(terms.end())),
                   std::move(constant));
}

namespace {
/// The node of a polynomial whose terms are sorted, distinct and non-zero.
Expr fromNormalised(Terms terms, Integer constant) {
  checkTermCount(terms.size());
  if (terms.empty()) return Expr(constant);
  if (terms.size() == 1 && constant.isZero() && terms[0].coefficient.isOne() &&
      terms[0].monomial.size() == 1 && terms[0].monomial[0].second == 1)
    return terms[0].monomial[0].first;
  ExprNode n;
  n.kind = ExprKind::Sum;
  n.terms = std::move(terms);
  n.constantTerm = std::move(constant);
  return internExpr(std::move(n));
}
} // namespace

namespace {
/// Walks two sorted term lists (a sum's terms are kept sorted) in monomial order, calling
/// `each(a, b)` with the term each list has at a monomial (null where it has none); stops with
/// false as soon as `each` does. Sums, differences and replaced terms are written by one merge
/// instead of concatenating and sorting.
template <class Each> bool forEachMonomial(const PolyRef &ta, const PolyRef &tb, Each each) {
  std::size_t i = 0, j = 0;
  while (i < ta.size() || j < tb.size()) {
    const int c = i == ta.size() ? 1 : j == tb.size() ? -1 : monomialCompare(ta[i].monomial, tb[j].monomial);
    const Term *a = c <= 0 ? &ta[i++] : nullptr;
    const Term *b = c >= 0 ? &tb[j++] : nullptr;
    if (!each(a, b)) return false;
  }
  return true;
}

/// a + sign*b.
Expr addSigned(const Expr &a, const Expr &b, int sign) {
  if (a.isConstant() && b.isConstant())
    return Expr(sign > 0 ? *a.constantValue() + *b.constantValue() : *a.constantValue() - *b.constantValue());
  PolyRef ta(a), tb(b);
  Terms out;
  out.reserve(ta.size() + tb.size());
  forEachMonomial(ta, tb, [&](const Term *x, const Term *y) {
    if (!y) {
      out.push_back(*x);
    } else if (!x) {
      out.push_back({sign < 0 ? -y->coefficient : y->coefficient, y->monomial});
    } else {
      Integer k = sign > 0 ? x->coefficient + y->coefficient : x->coefficient - y->coefficient;
      if (!k.isZero()) out.push_back({std::move(k), x->monomial});
    }
    return true;
  });
  const Integer &ca = ta.constant(), &cb = tb.constant();
  return keepDefinedness(fromNormalised(std::move(out), sign > 0 ? ca + cb : ca - cb), {a, b});
}
} // namespace

Expr operator+(Expr a, Expr b) { return addSigned(a, b, 1); }

Expr withTermReplaced(const Expr &sum, const Expr &atom, const Integer &c, const Expr &by) {
  if (!sum.isTotal() || !by.isTotal()) return (sum - Expr(c) * atom) + Expr(c) * by;
  PolyRef ts(sum), tb(by);
  // c*by's terms and constant, checked as its node would be (internExpr).
  const Integer byConstant = tb.constant() * c;
  checkCoefficient(byConstant);
  Terms out;
  out.reserve(ts.size() + tb.size());
  // The term c*atom of the sum: subtracted, it leaves nothing.
  auto replaced = [&](const Term *t) {
    return t && t->monomial.size() == 1 && t->monomial[0].second == 1 && t->monomial[0].first == atom &&
           t->coefficient == c;
  };
  forEachMonomial(ts, tb, [&](const Term *x, const Term *y) {
    if (replaced(x)) x = nullptr;
    if (!y) {
      if (x) out.push_back(*x);
      return true;
    }
    Integer k = y->coefficient * c;
    checkCoefficient(k);
    if (x) k = x->coefficient + k;
    if (!k.isZero()) out.push_back({std::move(k), y->monomial});
    return true;
  });
  return fromNormalised(std::move(out), ts.constant() + byConstant);
}

std::optional<OneParameterForm> differenceInOneParameter(const Expr &lhs, const Expr &rhs) {
  if (!lhs.isTotal() || !rhs.isTotal()) return std::nullopt;
  // addSigned's merge, keeping only what survives: one term, a parameter to the first power.
  PolyRef ta(lhs), tb(rhs);
  std::optional<OneParameterForm> out;
  const bool form = forEachMonomial(ta, tb, [&](const Term *x, const Term *y) {
    Integer k = !y ? x->coefficient : !x ? -y->coefficient : x->coefficient - y->coefficient;
    if (k.isZero()) return true;
    const Monomial &m = (x ? x : y)->monomial;
    if (out || m.size() != 1 || m[0].second != 1 || m[0].first.kind() != ExprKind::Param) return false;
    out = OneParameterForm{m[0].first.node(), std::move(k), Integer(0)};
    return true;
  });
  if (!form) return std::nullopt;
  if (out) out->k = ta.constant() - tb.constant();
  return out;
}

Expr Expr::operator-() const { return scaled(PolyRef(*this), Integer(-1)); }

Expr operator-(Expr a, Expr b) { return addSigned(a, b, -1); }

Expr signedSum(std::span<const Expr> operands, std::span<const bool> negated) {
  if (operands.empty()) return Expr(0);
  bool allTotal = true;
  for (const Expr &e : operands) allTotal = allTotal && e.isTotal();
  Terms terms;
  std::size_t count = 0;
  for (const Expr &e : operands) count += e.kind() == ExprKind::Sum ? e.node()->terms.size() : 1;
  terms.reserve(count);
  Integer constant(0);
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const ExprNode *n = operands[i].node();
    bool minus = i > 0 && !negated.empty() && negated[i];
    auto add = [&](Term t) {
      if (minus) t.coefficient = -t.coefficient;
      terms.push_back(std::move(t));
    };
    if (n->kind == ExprKind::Constant) {
      constant = minus ? constant - n->value : constant + n->value;
    } else if (n->kind == ExprKind::Sum) {
      for (const Term &t : n->terms) add(t);
      constant = minus ? constant - n->constantTerm : constant + n->constantTerm;
    } else {
      add(Term{Integer(1), Monomial{{operands[i], 1}}});
    }
  }
  // Where operands are partial, the definedness of every one is kept (as the fold would keep
  // it step by step).
  return keepDefinednessOf(fromTerms(std::move(terms), std::move(constant)), operands);
}

namespace {
/// The canonical order of atoms.
bool atomBefore(const Expr &x, const Expr &y) { return structuralCompare(x, y) < 0; }

/// The atoms of polynomials, in the canonical atom order, each once.
std::vector<Expr> atomsOf(std::initializer_list<const PolyRef *> polys) {
  std::vector<Expr> atoms;
  for (const PolyRef *p : polys)
    for (const Term &t : *p)
      for (auto &[atom, k] : t.monomial) atoms.push_back(atom);
  std::sort(atoms.begin(), atoms.end(), atomBefore);
  atoms.erase(std::unique(atoms.begin(), atoms.end()), atoms.end());
  return atoms;
}

/// A polynomial as rows of exponents over a list of atoms: its non-constant terms in the
/// canonical order (row i: exponents[i*width ...], degrees[i], coefficients[i]), and its constant.
struct PolyRows {
  std::vector<uint32_t> exponents, degrees;
  std::vector<Integer> coefficients;
  Integer constant;
  std::size_t size() const { return coefficients.size(); }
  void clear() { // keeps the buffers
    exponents.clear();
    degrees.clear();
    coefficients.clear();
    constant = Integer(0);
  }
};

/// `p` as rows over `atoms` (atomsOf a list that has p).
PolyRows rowsOf(const PolyRef &p, const std::vector<Expr> &atoms) {
  const std::size_t width = atoms.size();
  PolyRows rows;
  for (const Term &t : p) {
    std::size_t row = rows.size();
    rows.exponents.resize(rows.exponents.size() + width, 0);
    for (auto &[atom, k] : t.monomial) {
      std::size_t at = std::size_t(std::lower_bound(atoms.begin(), atoms.end(), atom, atomBefore) - atoms.begin());
      rows.exponents[row * width + at] = k;
    }
    rows.degrees.push_back(degreeOf(t.monomial));
    rows.coefficients.push_back(t.coefficient);
  }
  rows.constant = p.constant();
  return rows;
}

std::size_t maxCoefficientBits(const PolyRef &p) {
  std::size_t bits = p.constant().bitLength();
  for (const Term &t : p) bits = std::max(bits, t.coefficient.bitLength());
  return bits;
}

/// Whether the product of a and b might have a term that is one product of their coefficients
/// past the coefficient limit: a product of x and y has at most bits(x) + bits(y) bits, and at
/// least one fewer.
bool mayBeCoefficientTooLarge(std::size_t bitsA, std::size_t bitsB) {
  return bitsA + bitsB > kMaxCoefficientBits + 1;
}
bool mayBeCoefficientTooLarge(const PolyRef &a, const PolyRef &b) {
  return mayBeCoefficientTooLarge(maxCoefficientBits(a), maxCoefficientBits(b));
}

/// Throws checkCoefficient's error before a product of two polynomials is computed when one of
/// its coefficients is sure to be past the limit (the last step of a power of a sum with big
/// coefficients multiplied some 600 pairs of 500-limb numbers to find that out). The caller has
/// passed the checks that come before the coefficients' (product size, degree); when the product
/// could have more terms than the limit, nothing is thrown here, since the term count's check,
/// which comes first, might fail instead.
///
/// A term of the product that no other pair of terms reaches keeps its coefficient, the product
/// of two coefficients. Such terms are found by orders on monomials that multiplication keeps
/// (m < m' implies m*n < m'*n): the product's greatest monomial under such an order is the product
/// of the factors' greatest, and no other pair of terms gives it. The orders tried: the canonical
/// order and its reverse (the first and the last terms; the constant is the canonical least),
/// and for each atom, its exponent up or down with ties broken either way by the canonical order
/// (as many atoms as a budget allows). Finding no such term says nothing: the product is computed.
void failEarlyIfProductCoefficientTooLarge(const PolyRows &p, const PolyRows &q, std::size_t width) {
  if (p.size() == 0 || q.size() == 0) return; // a constant factor: the caller scales instead
  if (uint64_t(p.size() + 1) * (q.size() + 1) - 1 > kMaxPolynomialTerms) return;
  auto maxBits = [](const PolyRows &x) {
    std::size_t bits = x.constant.bitLength();
    for (const Integer &c : x.coefficients) bits = std::max(bits, c.bitLength());
    return bits;
  };
  if (!mayBeCoefficientTooLarge(maxBits(p), maxBits(q))) return;
  // Term i of x, for i <= x.size(): row i, or the constant for i = x.size() (last canonically).
  auto coefficient = [](const PolyRows &x, std::size_t i) -> const Integer & {
    return i == x.size() ? x.constant : x.coefficients[i];
  };
  // The greatest non-zero term of x by (weight, then the canonical order or its reverse).
  auto greatest = [&](const PolyRows &x, auto weight, bool reverse) {
    std::size_t best = x.size() + 1;
    int64_t bestWeight = 0;
    for (std::size_t i = 0; i <= x.size(); ++i) {
      if (coefficient(x, i).isZero()) continue; // only a constant can be
      const int64_t w = weight(x, i);
      if (best > x.size() || w > bestWeight || (w == bestWeight && reverse)) best = i, bestWeight = w;
    }
    return best;
  };
  auto check = [&](auto weight) {
    for (bool reverse : {false, true}) {
      const std::size_t i = greatest(p, weight, reverse), j = greatest(q, weight, reverse);
      if (coefficient(p, i).bitLength() + coefficient(q, j).bitLength() - 1 > kMaxCoefficientBits)
        coefficientTooLarge();
    }
  };
  check([](const PolyRows &, std::size_t) { return int64_t(0); });
  // Each order reads every term of both factors; the atoms' orders are tried while that stays a
  // small part of the products it may save (a product of two 2,000-term sums over as many atoms
  // would otherwise be 16,000 passes over 4,000 terms).
  const uint64_t perAtom = 4 * uint64_t(p.size() + q.size() + 2), budget = 16 * uint64_t(p.size() + 1) * (q.size() + 1);
  uint64_t spent = 0;
  for (std::size_t k = 0; k < width && (spent += perAtom) <= budget; ++k)
    for (int64_t sign : {1, -1})
      check([&](const PolyRows &x, std::size_t i) {
        return i == x.size() ? int64_t(0) : sign * int64_t(x.exponents[i * width + k]);
      });
}
} // namespace

Expr operator*(Expr a, Expr b) {
  // A constant factor (the most common product: `2*n`, `n*45`) scales the other side.
  if (a.isConstant() || b.isConstant()) {
    if (a.isConstant() && b.isConstant()) return Expr(*a.constantValue() * *b.constantValue());
    const Expr &k = a.isConstant() ? a : b, &other = a.isConstant() ? b : a;
    const Integer &c = k.node()->value;
    if (c.isOne()) return other;
    if (c.isZero()) return keepDefinedness(Expr(0), {other});
    return keepDefinedness(scaled(PolyRef(other), c), {other});
  }
  PolyRef ta(a), tb(b);
  const Integer &ca = ta.constant(), &cb = tb.constant();
  checkProductSize(ta.size(), tb.size());
  // Terms come highest degree first: the loop below fails the degree check iff the first terms'
  // degrees sum past the limit; the coefficients' check comes after it.
  if (degreeOf(ta[0].monomial) + degreeOf(tb[0].monomial) <= kMaxDegree &&
      mayBeCoefficientTooLarge(ta, tb)) {
    const std::vector<Expr> atoms = atomsOf({&ta, &tb});
    failEarlyIfProductCoefficientTooLarge(rowsOf(ta, atoms), rowsOf(tb, atoms), atoms.size());
  }
  // The terms come in sorted runs: the canonical order is a monomial order (multiplying by a
  // monomial keeps it), so for each term y of the shorter factor the products x*y, x over the
  // longer factor, are in the longer factor's order; so are its terms scaled by the other's
  // constant. Merging the runs replaces sorting the whole list.
  const bool aLonger = ta.size() >= tb.size();
  const PolyRef &longer = aLonger ? ta : tb, &shorter = aLonger ? tb : ta;
  const Integer &cLonger = aLonger ? ca : cb, &cShorter = aLonger ? cb : ca;
  Terms out;
  out.reserve(ta.size() * tb.size() + ta.size() + tb.size());
  Runs runs{0};
  for (const Term &y : shorter) {
    for (const Term &x : longer) {
      Monomial m = multiplyMonomials(x.monomial, y.monomial);
      checkDegree(degreeOf(m));
      out.push_back({x.coefficient * y.coefficient, std::move(m)});
    }
    runs.push_back(out.size());
  }
  if (!cShorter.isZero()) {
    for (const Term &x : longer) out.push_back({x.coefficient * cShorter, x.monomial});
    runs.push_back(out.size());
  }
  if (!cLonger.isZero()) {
    for (const Term &y : shorter) out.push_back({cLonger * y.coefficient, y.monomial});
    runs.push_back(out.size());
  }
  mergeRuns(out, runs);
  return keepDefinedness(fromNormalised(std::move(out), ca * cb), {a, b});
}

namespace {
/// C(n, k), or `cap` when it is larger (exact below it: each step's partial product is itself
/// a binomial, so the division is exact).
uint64_t binomialUpTo(uint64_t n, uint64_t k, uint64_t cap) {
  if (k > n) return 0;
  k = std::min(k, n - k);
  unsigned __int128 c = 1;
  for (uint64_t i = 1; i <= k; ++i) {
    c = c * (n - k + i) / i;
    if (c > cap) return cap;
  }
  return uint64_t(c);
}

/// For a linear base (every term one atom to the first power: `n + m/2 - 3`), throws at once what
/// powerOfSum's step-by-step expansion below would throw for `base**exponent` after expanding
/// every power before the failing one (`(a + b + c - 8)**62` took 1.8 ms to fail at the 20th,
/// natively). The sizes each step checks are known without expanding: base**k has one term per
/// exponent vector of the atoms of total degree at most k (exactly k without a constant), and no
/// term cancels (each coefficient is a multinomial times powers of non-zero coefficients). So
/// the steps' checks run here on binomials, in the loop's order: product size, term count, tree
/// size (the degree check cannot fail: k <= exponent <= kMaxDegree).
/// Every coefficient of base**k is at most s**k, s the sum of the base's |coefficients| (the
/// multinomial expansion of s**k has them all among its positive terms). A coefficient check
/// could fail first only when s**exponent passes the coefficient limit; the loop is then left to
/// find out, in its order. Where s**exponent passes 64 bits, the numbers add to the tree size
/// (numberWeight) by amounts not known without expanding: the run below then throws nothing,
/// bounding each number by s**k, and leaves to the loop any power where a check might fail.
/// True when the base is linear and no step fails (the power can then be written term by term:
/// powerOfSum does).
bool failEarlyIfLinearPowerTooLarge(const PolyRef &base, const std::vector<Expr> &atoms, uint32_t exponent) {
  Integer sumOfMagnitudes = Integer::abs(base.constant());
  uint64_t atomSizes = 0; // the tree sizes of the atoms, summed
  for (const Term &t : base) {
    if (t.monomial.size() != 1 || t.monomial[0].second != 1) return false;
    sumOfMagnitudes = sumOfMagnitudes + Integer::abs(t.coefficient);
    atomSizes = saturatingAdd(atomSizes, t.monomial[0].first.node()->treeSize);
  }
  const uint64_t sBits = sumOfMagnitudes.bitLength();
  if (sBits * exponent > kMaxCoefficientBits) return false;
  // Whether every number of every power weighs nothing: then the sizes below are the steps'.
  const bool exact = numberWeight(sBits * exponent) == 0;
  const uint64_t w = atoms.size();
  const bool constant = !base.constant().isZero();
  constexpr uint64_t cap = uint64_t(1) << 40; // far past every limit, and no product overflows
  // Non-constant terms of (a linear form in `atomCount` atoms, with this constant)**k.
  auto terms = [&](uint64_t k, uint64_t atomCount) -> uint64_t {
    if (atomCount == 0) return 0;
    if (constant) return binomialUpTo(k + atomCount, atomCount, cap) - 1;
    return binomialUpTo(k + atomCount - 1, atomCount - 1, cap);
  };
  for (uint64_t k = 2; k <= exponent; ++k) {
    const uint64_t before = std::min<uint64_t>(terms(k - 1, w), kMaxPolynomialTerms + 1),
                   now = std::min<uint64_t>(terms(k, w), kMaxPolynomialTerms + 1);
    if (exact) {
      checkProductSize(before, w);
      checkTermCount(now);
    } else if (before * w > kMaxPolynomialTerms || now > kMaxPolynomialTerms) {
      return false;
    }
    // Written out: 1, then per term 1 and the size of each atom in it; an atom is in all terms
    // but those of the form without it. Its numbers (the terms' and the constant) weigh at most
    // what s**k weighs each.
    const unsigned __int128 size = 1 + (unsigned __int128)now + (unsigned __int128)atomSizes * (now - terms(k, w - 1)) +
                                   (unsigned __int128)(now + 1) * numberWeight(sBits * k);
    if (exact) checkTreeSize(uint64_t(std::min<unsigned __int128>(size, kMaxTreeSize + 1)));
    else if (size > kMaxTreeSize) return false;
  }
  return true;
}

/// C(n, k) for n <= kMaxDegree, as Integers (C(64, 32) < 2^61).
const Integer &binomial(uint32_t n, uint32_t k) {
  static const std::vector<std::vector<Integer>> table = [] {
    std::vector<std::vector<Integer>> t(kMaxDegree + 1);
    for (uint32_t i = 0; i <= kMaxDegree; ++i) {
      t[i].resize(i + 1);
      t[i][0] = t[i][i] = Integer(1);
      for (uint32_t j = 1; j < i; ++j) t[i][j] = t[i - 1][j - 1] + t[i - 1][j];
    }
    return t;
  }();
  return table[n][k];
}

/// e**exponent for a sum e, exponent >= 2: the repeated product r = e, r = r*e, ... that
/// operator* computes, with the same terms and the same checks and errors at every step, but on
/// rows of exponents over e's atoms, so that the intermediate powers are neither interned nor
/// made of handles. Every atom of e is in every power of e (the term of e that has an atom's
/// highest exponent, raised to the power, is a vertex of the power's Newton polytope, so its
/// coefficient cannot cancel): no partial atom is lost on the way, and the nesting of every
/// power is e's. A linear e skips the steps: their checks are run on binomials
/// (failEarlyIfLinearPowerTooLarge) and the power is written term by term.
Expr powerOfSum(const Expr &e, uint32_t exponent) {
  PolyRef base(e);
  const std::vector<Expr> atoms = atomsOf({&base});
  const std::size_t width = atoms.size();
  using Rows = PolyRows;
  const Rows b = rowsOf(base, atoms);
  const uint32_t baseDegree = *std::max_element(b.degrees.begin(), b.degrees.end());
  const bool linear = failEarlyIfLinearPowerTooLarge(base, atoms, exponent);
  // The canonical order on rows is monomialCompare's: higher degree first, then at the first
  // atom where the exponents differ, the higher exponent first.
  auto before = [&](const Rows &p, std::size_t i, std::size_t j) {
    if (p.degrees[i] != p.degrees[j]) return p.degrees[i] > p.degrees[j];
    const uint32_t *x = &p.exponents[i * width], *y = &p.exponents[j * width];
    for (std::size_t k = 0; k < width; ++k)
      if (x[k] != y[k]) return x[k] > y[k];
    return false;
  };
  // With at most 8 atoms a row's place in that order is one integer: the degree in the top
  // byte, then each atom's exponent in 7 bits, the first atom highest (a degree and so every
  // exponent is at most kMaxDegree = 64 < 128 once checkDegree has passed), so that a larger key
  // comes first, and the key of a product of rows is the sum of their keys. Then a step sorts
  // the products' keys, not rows, and sums each monomial's coefficient in place (ProductSum)
  // instead of making every product an Integer of its own.
  static_assert(kMaxDegree < 128);
  const bool packed = width <= 8;
  auto keyOf = [&](const Rows &p, std::size_t i) {
    uint64_t key = uint64_t(p.degrees[i]) << 56;
    const uint32_t *x = &p.exponents[i * width];
    for (std::size_t k = 0; k < width; ++k) key |= uint64_t(x[k]) << (49 - 7 * k);
    return key;
  };
  struct Product {
    uint64_t key;
    uint32_t i, j; // rows of r and b; r.size() or b.size() for the constant
  };
  std::vector<Product> products;
  std::vector<uint64_t> keysOfB;
  if (packed)
    for (std::size_t j = 0; j < b.size(); ++j) keysOfB.push_back(keyOf(b, j));
  ProductSum sum;
  Rows r;
  if (linear) {
    // The multinomial expansion, written in the canonical order (degree down, then each atom's
    // exponent down in atom order): base = c0 + Σ c_i x_i, and x^k (|k| = d) has the coefficient
    // C(e, d) c0^(e-d) Π_i C(k_i + ... + k_w, k_i) c_i^k_i. No step's check can fail (the dry
    // run above), so this is the node the steps would reach, with a few products a term instead
    // of a sort of every step's products.
    std::vector<Integer> coefficient(width); // c_i, by atom
    for (std::size_t i = 0; i < b.size(); ++i)
      for (std::size_t k = 0; k < width; ++k)
        if (b.exponents[i * width + k]) coefficient[k] = b.coefficients[i];
    auto powers = [&](const Integer &c) { // c^0 .. c^exponent
      std::vector<Integer> p(exponent + 1);
      p[0] = Integer(1);
      for (uint32_t t = 1; t <= exponent; ++t) p[t] = p[t - 1] * c;
      return p;
    };
    std::vector<std::vector<Integer>> atomPowers;
    for (const Integer &c : coefficient) atomPowers.push_back(powers(c));
    const std::vector<Integer> constantPowers = powers(b.constant);
    std::vector<uint32_t> k(width);
    // Atoms j.. share `left` of the degree; `partial` is the coefficient so far.
    auto place = [&](auto &&self, std::size_t j, uint32_t left, const Integer &partial) -> void {
      if (j + 1 == width) {
        k[j] = left;
        r.exponents.insert(r.exponents.end(), k.begin(), k.end());
        r.coefficients.push_back(partial * atomPowers[j][left]);
        return;
      }
      for (uint32_t x = left + 1; x-- > 0;) {
        k[j] = x;
        self(self, j + 1, left - x, partial * binomial(left, x) * atomPowers[j][x]);
      }
    };
    const uint32_t lowest = b.constant.isZero() ? exponent : 1;
    for (uint32_t d = exponent; d >= lowest; --d) {
      place(place, 0, d, binomial(exponent, d) * constantPowers[exponent - d]);
      r.degrees.resize(r.size(), d);
    }
    r.constant = constantPowers[exponent];
  } else {
    r = b;
  }
  // Each step writes into buffers the step before it left (next, all): the same memory each time.
  Rows next, all;
  for (uint32_t step = 2; step <= exponent && !linear; ++step) {
    // operator*'s checks, in its order: the size of the product, the degree of each product of
    // terms, then (fromNormalised, internExpr) the number of terms, each coefficient, the size.
    checkProductSize(r.size(), b.size());
    checkDegree(*std::max_element(r.degrees.begin(), r.degrees.end()) + baseDegree);
    failEarlyIfProductCoefficientTooLarge(r, b, width);
    next.clear();
    next.constant = r.constant * b.constant;
    if (packed) {
      const uint32_t nr = uint32_t(r.size()), nb = uint32_t(b.size());
      products.clear();
      products.reserve((r.size() + 1) * (b.size() + 1));
      for (uint32_t i = 0; i < nr; ++i) {
        const uint64_t key = keyOf(r, i);
        for (uint32_t j = 0; j < nb; ++j) products.push_back({key + keysOfB[j], i, j});
        if (!b.constant.isZero()) products.push_back({key, i, nb});
      }
      if (!r.constant.isZero())
        for (uint32_t j = 0; j < nb; ++j) products.push_back({keysOfB[j], nr, j});
      std::sort(products.begin(), products.end(), [](const Product &x, const Product &y) { return x.key > y.key; });
      next.exponents.reserve(products.size() * width);
      next.degrees.reserve(products.size());
      next.coefficients.reserve(products.size());
      for (std::size_t s = 0; s < products.size();) {
        const uint64_t key = products[s].key;
        for (; s < products.size() && products[s].key == key; ++s) {
          const Product &p = products[s];
          sum.add(p.i == nr ? r.constant : r.coefficients[p.i], p.j == nb ? b.constant : b.coefficients[p.j]);
        }
        Integer c = sum.take();
        if (c.isZero()) continue; // the monomial cancels
        for (std::size_t k = 0; k < width; ++k) next.exponents.push_back(uint32_t(key >> (49 - 7 * k)) & 127);
        next.degrees.push_back(uint32_t(key >> 56));
        next.coefficients.push_back(std::move(c));
      }
    } else {
      all.clear();
      auto add = [&](const uint32_t *x, const uint32_t *y, uint32_t degree, Integer coefficient) {
        for (std::size_t k = 0; k < width; ++k) all.exponents.push_back(x[k] + (y ? y[k] : 0));
        all.degrees.push_back(degree);
        all.coefficients.push_back(std::move(coefficient));
      };
      for (std::size_t i = 0; i < r.size(); ++i) {
        for (std::size_t j = 0; j < b.size(); ++j)
          add(&r.exponents[i * width], &b.exponents[j * width], r.degrees[i] + b.degrees[j], r.coefficients[i] * b.coefficients[j]);
        if (!b.constant.isZero()) add(&r.exponents[i * width], nullptr, r.degrees[i], r.coefficients[i] * b.constant);
      }
      if (!r.constant.isZero())
        for (std::size_t j = 0; j < b.size(); ++j) add(&b.exponents[j * width], nullptr, b.degrees[j], r.constant * b.coefficients[j]);
      std::vector<std::size_t> order(all.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return before(all, i, j); });
      for (std::size_t i : order) {
        const uint32_t *x = &all.exponents[i * width];
        if (next.size() > 0 && std::equal(x, x + width, &next.exponents[(next.size() - 1) * width])) {
          next.coefficients.back() += all.coefficients[i];
          if (next.coefficients.back().isZero()) {
            next.coefficients.pop_back();
            next.degrees.pop_back();
            next.exponents.resize(next.exponents.size() - width);
          }
          continue;
        }
        next.exponents.insert(next.exponents.end(), x, x + width);
        next.degrees.push_back(all.degrees[i]);
        next.coefficients.push_back(std::move(all.coefficients[i]));
      }
    }
    checkTermCount(next.size());
    checkCoefficient(next.constant);
    uint64_t size = 1 + numberWeight(next.constant);
    for (std::size_t i = 0; i < next.size(); ++i) {
      checkCoefficient(next.coefficients[i]);
      size = saturatingAdd(size, 1 + numberWeight(next.coefficients[i]));
      for (std::size_t k = 0; k < width; ++k)
        if (next.exponents[i * width + k]) size = saturatingAdd(size, atoms[k].node()->treeSize);
    }
    checkTreeSize(size);
    std::swap(r, next);
  }
  Terms terms(r.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    terms[i].coefficient = std::move(r.coefficients[i]);
    for (std::size_t k = 0; k < width; ++k)
      if (uint32_t x = r.exponents[i * width + k]) terms[i].monomial.push_back({atoms[k], x});
  }
  return fromNormalised(std::move(terms), std::move(r.constant));
}
} // namespace

Expr pow(Expr e, uint32_t exponent) {
  if (exponent > kMaxDegree)
    throw InputTooLarge("exponent " + std::to_string(exponent) + " is above the limit of " +
                    std::to_string(kMaxDegree));
  if (exponent >= 2 && e.node()->kind == ExprKind::Sum) return keepDefinedness(powerOfSum(e, exponent), {e});
  if (exponent >= 2 && !e.isConstant()) {
    // An atom's power is one term: the product below would make every power up to it a node
    // (the checks of each step are those of the last, which has the highest degree).
    Terms power(1);
    power[0].coefficient = Integer(1);
    power[0].monomial.push_back({e, exponent});
    return keepDefinedness(fromNormalised(std::move(power), Integer(0)), {e});
  }
  Expr r(1);
  for (uint32_t i = 0; i < exponent; ++i) r = r * e;
  return keepDefinedness(r, {e});
}

namespace {
/// The canonical form of e // c, e % c or e / c (kind FloorDiv, Mod or ExactDiv):
/// e = c*q + r (truncating split), then the common factor g of r and c is cancelled:
///   e // c = q + (r/g) // (c/g),  e % c = g * ((r/g) % (c/g)),  e / c = q + (r/g) / (c/g).
Expr divisionCanonical(ExprKind kind, Expr e, const Integer &c) {
  checkDivisor(c, kind == ExprKind::FloorDiv ? "//" : kind == ExprKind::Mod ? "%" : "/");
  if (c.isOne()) return kind == ExprKind::Mod ? Expr(0) : e;
  // An atom (coefficient 1, no constant) splits into no quotient and itself as the remainder,
  // whose content 1 cancels nothing: the division is the atom's division.
  if (!e.isConstant() && e.kind() != ExprKind::Sum) return makeDivisionAtom(kind, e, c);
  Terms q, r;
  Integer q0, r0;
  splitByDivisor(e, c, q, q0, r, r0);
  // q and r keep the order of e's terms, and their coefficients are not zero: no sorting.
  Expr quotient = kind == ExprKind::Mod ? Expr(0) : fromNormalised(std::move(q), q0);
  if (r.empty()) {
    if (kind == ExprKind::FloorDiv) return quotient + Expr(Integer::floorDiv(r0, c));
    if (kind == ExprKind::Mod) return Expr(Integer::floorMod(r0, c));
    if (r0.isZero()) return quotient; // an exact division of a constant that does not divide stays
  }
  Integer g = Integer::gcd(contentOf(r, r0), c);
  for (Term &t : r) t.coefficient = Integer::floorDiv(t.coefficient, g);
  Expr rest = fromNormalised(std::move(r), Integer::floorDiv(r0, g));
  Integer cg = Integer::floorDiv(c, g);
  if (kind == ExprKind::Mod) return cg.isOne() ? Expr(0) : Expr(g) * makeDivisionAtom(kind, rest, cg);
  Expr atom = cg.isOne() ? rest : makeDivisionAtom(kind, rest, cg);
  return quotient.isConstant() && quotient.node()->value.isZero() ? atom : quotient + atom; // 0 + x is x
}

} // namespace

Expr floorDiv(Expr e, const Integer &c) {
  return keepDefinedness(divisionCanonical(ExprKind::FloorDiv, e, c), {e});
}
Expr mod(Expr e, const Integer &c) { return keepDefinedness(divisionCanonical(ExprKind::Mod, e, c), {e}); }
Expr exactDiv(Expr e, const Integer &c) {
  return keepDefinedness(divisionCanonical(ExprKind::ExactDiv, e, c), {e});
}

namespace {
Expr minMaxKeeping(ExprKind kind, const std::vector<Expr> &args) {
  Expr r = minMax(kind, args);
  for (Expr a : args) r = keepDefinedness(r, {a});
  return r;
}
} // namespace

Expr min(std::vector<Expr> args) { return minMaxKeeping(ExprKind::Min, args); }
Expr max(std::vector<Expr> args) { return minMaxKeeping(ExprKind::Max, args); }

Expr select(const Pred &cond, Expr a, Expr b) {
  if (cond.isTrue()) return a;
  if (cond.isFalse()) return b;
  if (a == b && cond.node()->total) return a; // a partial condition still guards
  ExprNode n;
  n.kind = ExprKind::Select;
  n.operands = {a, b};
  n.condition = cond;
  return internExpr(std::move(n));
}

// ---------------------------------------------------------------------------------------------
// Pred

Pred::Pred() : Pred(truthNode(true)) {}
Pred Pred::truth(bool value) { return Pred(truthNode(value)); }
PredKind Pred::kind() const { return node()->kind; }

std::optional<bool> Pred::constantValue() const {
  if (node()->kind == PredKind::True) return true;
  if (node()->kind == PredKind::False) return false;
  return std::nullopt;
}

Pred Pred::compare(CompareOp op, Expr lhs, Expr rhs) {
  // Fold a comparison whose two sides differ by a constant (n + 1 > n), unless an exact
  // division makes it undefined somewhere: then its truth still depends on the parameters.
  if (lhs.isTotal() && rhs.isTotal()) {
    if (auto d = constantDifference(lhs.node(), rhs.node())) {
      int s = d->sign();
      bool v = false;
      switch (op) {
      case CompareOp::EQ: v = s == 0; break;
      case CompareOp::NE: v = s != 0; break;
      case CompareOp::LT: v = s < 0; break;
      case CompareOp::LE: v = s <= 0; break;
      case CompareOp::GT: v = s > 0; break;
      case CompareOp::GE: v = s >= 0; break;
      }
      return truth(v);
    }
  }
  PredNode n;
  n.kind = PredKind::Compare;
  n.op = op;
  n.lhs = lhs;
  n.rhs = rhs;
  return internPred(std::move(n));
}

namespace {
Pred junction(PredKind kind, const std::vector<Pred> &parts) {
  bool isAnd = kind == PredKind::And;
  // Undefinedness is strict (an undefined part makes the whole undefined, see Evaluate.h), so
  // an absorbing constant decides the junction only when every other part is defined everywhere.
  bool allTotal = true;
  for (const Pred &p : parts) allTotal = allTotal && p.node()->total;
  std::vector<Pred> flat;
  for (const Pred &p : parts) {
    if (p.constantValue() == isAnd) continue;          // neutral element
    if (p.constantValue() == !isAnd && allTotal) return Pred::truth(!isAnd); // absorbing element
    auto add = [&](const Pred &c) {
      if (std::find(flat.begin(), flat.end(), c) == flat.end()) flat.push_back(c);
    };
    if (p.kind() == kind)
      for (const Pred &c : p.node()->children) add(c);
    else
      add(p);
  }
  if (flat.empty()) return Pred::truth(isAnd);
  if (flat.size() == 1) return flat[0];
  PredNode n;
  n.kind = kind;
  n.children = std::move(flat);
  return internPred(std::move(n));
}
} // namespace

Pred Pred::conjunction(const std::vector<Pred> &parts) { return junction(PredKind::And, parts); }
Pred Pred::disjunction(const std::vector<Pred> &parts) { return junction(PredKind::Or, parts); }

Pred Pred::negation(const Pred &p) {
  if (auto v = p.constantValue()) return truth(!*v);
  if (p.kind() == PredKind::Not) return p.node()->children[0];
  PredNode n;
  n.kind = PredKind::Not;
  n.children = {p};
  return internPred(std::move(n));
}


} // namespace shapelab
