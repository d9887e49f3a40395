#include "symbolic/Solver.h"

#include <isl/aff.h>
#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/constraint.h>
#include <isl/ctx.h>
#include <isl/id.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>
#include <isl/val_gmp.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <span>
#include <exception>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "symbolic/Errors.h"
#include "support/FlatIndex.h"
#include "symbolic/Range.h"
#include "symbolic/IntegerGmp.h"
#include "symbolic/Watchdog.h"

namespace shapelab {

const char *spelling(Answer a) {
  switch (a) {
  case Answer::Proven: return "proven";
  case Answer::Refuted: return "refuted";
  case Answer::Depends: return "depends";
  case Answer::Unknown: return "unknown";
  }
  return "?";
}

const Pred &Decision::condition() const {
  if (!deferred_) return condition_;
  if (!deferred_->value) deferred_->value = deferred_->compute();
  return *deferred_->value;
}
void Decision::setCondition(Pred p) {
  condition_ = std::move(p);
  deferred_.reset();
}
void Decision::setConditionOnRead(std::function<Pred()> compute) {
  deferred_ = std::make_shared<Deferred>(Deferred{std::move(compute), std::nullopt});
}
Decision Decision::proven() {
  Decision d;
  d.answer = Answer::Proven;
  d.setCondition(Pred::truth(true));
  return d;
}
Decision Decision::refuted(Assignment at) {
  Decision d;
  d.answer = Answer::Refuted;
  d.setCondition(Pred::truth(false));
  d.violating = std::move(at);
  return d;
}

std::string Decision::toString() const {
  std::string out = spelling(answer);
  if (answer == Answer::Depends) out += "\n  holds when: " + condition().toString();
  if (satisfying) out += "\n  satisfied at: " + (satisfying->empty() ? std::string("(no parameters)") : satisfying->toString());
  if (violating) out += "\n  violated at: " + (violating->empty() ? std::string("(no parameters)") : violating->toString());
  if (answer == Answer::Unknown) {
    out += "\n  reason: " + reason;
    out += "\n  check at run time: " + residual.toString();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Context

Context::Context() {
  auto d = std::make_shared<Data>();
  d->ranges = std::make_shared<detail::RangeMemo>();
  data_ = d;
}

const Integer &maxArraySize() {
  static const Integer max(INT64_MAX);
  return max;
}

Context::Interval Context::boundsOf(const std::string &name) const {
  auto it = data_->bounds.find(name);
  Interval iv = it == data_->bounds.end() ? Interval{} : it->second;
  if (data_->domain == SizeDomain::ArraySizes && (!iv.high || *iv.high > maxArraySize()))
    iv.high = maxArraySize();
  return iv;
}

std::string Context::toString() const {
  return data_->parts.empty() ? std::string("(no assumptions)") : data_->assumptions.toString();
}

// ---------------------------------------------------------------------------------------------
// isl plumbing. Raw pointers stay inside this file; every object is owned by a unique_ptr.
// An isl call's arguments are released owners or fresh copies, never a call that can throw
// (isl's quota throws anywhere): such a call is made first, into a named owner.

namespace {

struct IslFailure {}; // an isl call returned an error; the ctx says which
/// A question outside what the solver takes on (too many products or parameters): Unknown.
struct TooHard {
  std::string reason;
};

struct SetDel { void operator()(isl_set *p) const { isl_set_free(p); } };
struct PwAffDel { void operator()(isl_pw_aff *p) const { isl_pw_aff_free(p); } };
struct PointDel { void operator()(isl_point *p) const { isl_point_free(p); } };
struct ValDel { void operator()(isl_val *p) const { isl_val_free(p); } };
struct AstExprDel { void operator()(isl_ast_expr *p) const { isl_ast_expr_free(p); } };
struct AstBuildDel { void operator()(isl_ast_build *p) const { isl_ast_build_free(p); } };
struct SpaceDel { void operator()(isl_space *p) const { isl_space_free(p); } };
struct AffDel { void operator()(isl_aff *p) const { isl_aff_free(p); } };
struct LocalSpaceDel { void operator()(isl_local_space *p) const { isl_local_space_free(p); } };
using LocalSpacePtr = std::unique_ptr<isl_local_space, LocalSpaceDel>;
using AffPtr = std::unique_ptr<isl_aff, AffDel>;
using SetPtr = std::unique_ptr<isl_set, SetDel>;
using PwAffPtr = std::unique_ptr<isl_pw_aff, PwAffDel>;
using PointPtr = std::unique_ptr<isl_point, PointDel>;
using ValPtr = std::unique_ptr<isl_val, ValDel>;
using AstExprPtr = std::unique_ptr<isl_ast_expr, AstExprDel>;
using AstBuildPtr = std::unique_ptr<isl_ast_build, AstBuildDel>;
using SpacePtr = std::unique_ptr<isl_space, SpaceDel>;

template <class T> T *check(T *p) {
  if (!p) throw IslFailure{};
  return p;
}
bool checkBool(isl_bool b) {
  if (b == isl_bool_error) throw IslFailure{};
  return b == isl_bool_true;
}
/// A walk (isl_*_foreach_*) that isl stopped — its quota or the watchdog — has seen only part
/// of the set: what was gathered must not be read as the whole.
void checkStat(isl_stat s) {
  if (s == isl_stat_error) throw IslFailure{};
}

ValPtr toVal(isl_ctx *ctx, const Integer &i) {
  if (auto s = i.tryToInt64()) return ValPtr(check(isl_val_int_from_si(ctx, *s)));
  mpz_t z;
  mpz_init(z);
  toMpz(i, z);
  isl_val *v = isl_val_int_from_gmp(ctx, z);
  mpz_clear(z);
  return ValPtr(check(v));
}

Integer fromVal(isl_val *v) {
  if (!checkBool(isl_val_is_int(v))) throw InternalError("isl returned a non-integer value");
  mpz_t z;
  mpz_init(z);
  isl_val_get_num_gmp(v, z);
  Integer r = fromMpz(z);
  mpz_clear(z);
  return r;
}

/// isl's AST generator (libisl 0.25) is not safe to stop midway: stopped by its operation quota
/// or by isl_ctx_abort inside isl_ast_build_expr_from_set, it frees an expression twice and
/// leaks others (found by asking the solver fuzz corpus's questions with the quota at every
/// operation count: an invalid read and write in isl_ast_expr_free under valgrind, a glibc heap
/// abort without it, and leaked isl objects that keep their context alive). So such calls run
/// shielded: the quota lifted and an abort the watchdog asks for held back until the call
/// returns, then passed on. Nothing stops a shielded call, so what a caller passes is bounded
/// in size first (kAstMaxDisjuncts and its siblings), and the generator is given the size domain
/// rather than the context (Translation::toPred): over the 2,960 inputs of a solver fuzz corpus
/// the longest shielded call took 40 ms (two fuzzing campaigns sharing the two cores), and
/// 0.6 s before those bounds.
class AbortShield {
public:
  /// Asks isl to stop: at once, or when the shielded call returns. Any thread.
  void abort(isl_ctx *ctx) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shielded_) pending_ = true;
    else isl_ctx_abort(ctx);
  }
  /// `work()` shielded on `ctx`. Throws IslFailure without running it when isl has already
  /// been asked to stop or has spent its quota: the question is over then.
  template <class F> auto run(isl_ctx *ctx, F work) -> decltype(work()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (isl_ctx_aborted(ctx) || isl_ctx_last_error(ctx) == isl_error_quota) throw IslFailure{};
      shielded_ = true;
    }
    struct Lift {
      AbortShield &self;
      isl_ctx *ctx;
      unsigned long quota = isl_ctx_get_max_operations(ctx);
      Lift(AbortShield &s, isl_ctx *c) : self(s), ctx(c) { isl_ctx_set_max_operations(ctx, 0); }
      ~Lift() {
        isl_ctx_set_max_operations(ctx, quota);
        std::lock_guard<std::mutex> lock(self.mutex_);
        self.shielded_ = false;
        if (self.pending_) isl_ctx_abort(ctx);
        self.pending_ = false;
      }
    } lift(*this, ctx);
    return work();
  }

private:
  std::mutex mutex_;
  bool shielded_ = false, pending_ = false;
};

/// The most disjuncts, constraints (all disjuncts together) and integer divisions (in any one
/// disjunct) of a set, or pieces of a function, handed to isl's AST generator, which runs
/// shielded (AbortShield). Beyond them the caller does without it.
constexpr isl_size kAstMaxDisjuncts = 8, kAstMaxConstraints = 32, kAstMaxDivs = 8;

/// Translations kept from one question to the next. A piecewise function or set depends only
/// on the node and the parameter space (what each isl parameter stands for, in order), and the
/// shapes of a program come back in question after question: translated once per space.
struct TranslationCache {
  struct Space {
    std::unordered_map<Expr, isl_pw_aff *> exprs; // owned
    std::unordered_map<Pred, isl_set *> sets;     // owned
    Space() = default;
    Space(const Space &) = delete;
    Space &operator=(const Space &) = delete;
    ~Space() {
      for (auto &[k, v] : exprs) isl_pw_aff_free(v);
      for (auto &[k, v] : sets) isl_set_free(v);
    }
  };
  struct MeaningHash {
    std::size_t operator()(const std::vector<Expr> &m) const {
      std::size_t h = m.size();
      for (const Expr &e : m) h = h * 1000003 + e.hash();
      return h;
    }
  };
  /// Entries kept at most (all spaces together); past it the cache starts again.
  static constexpr std::size_t kMaxEntries = std::size_t(1) << 14;
  // Shared: a translation keeps its space's entries while the cache starts again.
  std::unordered_map<std::vector<Expr>, std::shared_ptr<Space>, MeaningHash> spaces;
  std::size_t entries = 0;
  void clear() {
    spaces.clear();
    entries = 0;
  }
};

/// Whether a product of atoms is >= 0 at every size: each atom to an odd power is a size (m*n,
/// n**3, min(n, 2)**2). The solver's domain bounds such monomials below by 0.
bool nonNegativeMonomial(const Monomial &m) {
  for (const auto &[atom, k] : m)
    if (k % 2 == 1 && atom.kind() != ExprKind::Param) return false;
  return true;
}

/// True when comparison `p` holds wherever every size is >= 0: its sides differ by terms with
/// positive coefficients on sizes, or on products whose factors to an odd power are sizes (the
/// monomials the solver's domain makes non-negative), plus a constant that suffices (`m >= 0`,
/// `2*n + m*k > -1`). isl's gist drops such constraints, but coalescing brings them back: n == 0
/// or n == 1 becomes 0 <= n <= 1, which was printed `n <= 1 and n >= 0`.
bool heldBySizes(const Pred &p) {
  if (p.kind() != PredKind::Compare || !p->lhs.isTotal() || !p->rhs.isTotal()) return false;
  const CompareOp op = p->op;
  if (op == CompareOp::EQ || op == CompareOp::NE) return false;
  const bool below = op == CompareOp::LT || op == CompareOp::LE;
  Expr d; // >= 0, or > 0 when strict
  try {
    d = below ? p->rhs - p->lhs : p->lhs - p->rhs;
  } catch (const InputTooLarge &) {
    return false;
  }
  const ExprNode *n = d.node();
  const Integer least(op == CompareOp::LT || op == CompareOp::GT ? 1 : 0);
  if (n->kind == ExprKind::Constant) return n->value >= least;
  if (n->kind == ExprKind::Param) return least.isZero();
  if (n->kind != ExprKind::Sum || n->constantTerm < least) return false;
  for (const Term &t : n->terms)
    if (t.coefficient.sign() < 0 || !nonNegativeMonomial(t.monomial)) return false;
  return true;
}

/// `p` without the conjuncts that heldBySizes finds (in conjunctions at any depth of and/or).
Pred withoutPartsHeldBySizes(const Pred &p) {
  if (p.kind() != PredKind::And && p.kind() != PredKind::Or) return p;
  std::vector<Pred> parts;
  for (const Pred &c : p->children)
    if (p.kind() == PredKind::Or || !heldBySizes(c)) parts.push_back(withoutPartsHeldBySizes(c));
  return p.kind() == PredKind::And ? Pred::conjunction(parts) : Pred::disjunction(parts);
}

/// One question's translation: a parameter space and the meaning of each isl parameter.
struct Translation {
  isl_ctx *ctx;
  SpacePtr space;
  std::vector<std::string> names;            // isl parameter names, in position order
  std::vector<Expr> meaning;                 // what each parameter stands for
  std::vector<Expr> readback;                // the same, total (exact division read as floor):
                                             // sets already hold definedness, see totalized()
  // Keys are handles: a node stays alive (so its address is not reused) while it is a key.
  std::unordered_map<Expr, int> paramIndex;                // Param node -> position
  std::vector<std::pair<Monomial, int>> monomials;         // opaque monomial -> position
  std::unordered_map<Expr, isl_pw_aff *> memo;             // borrowed, freed in dtor
  std::unordered_map<Pred, isl_set *> setMemo;             // borrowed, freed in dtor
  std::unordered_map<Pred, isl_set *> failsMemo;           // borrowed, freed in dtor
  TranslationCache *cache = nullptr;                        // across questions (optional)
  std::shared_ptr<TranslationCache::Space> shared;          // this space's entries in it

  ~Translation() {
    for (auto &[k, v] : memo) isl_pw_aff_free(v);
    for (auto &[k, v] : setMemo) isl_set_free(v);
    for (auto &[k, v] : failsMemo) isl_set_free(v);
  }

  bool hasOpaqueAtoms() const { return !monomials.empty(); }

  std::unordered_set<const void *> scanned; // each shared node is scanned once (roots held)

  // Registers every parameter and opaque monomial appearing in a node.
  void scan(const Expr &n, std::vector<Expr> &params, std::vector<Monomial> &monos) {
    if (!scanned.insert(n.node()).second) return;
    if (n->kind == ExprKind::Param) {
      if (std::find(params.begin(), params.end(), n) == params.end()) params.push_back(n);
      return;
    }
    for (const Term &t : n->terms) {
      uint32_t degree = 0;
      for (auto &[a, k] : t.monomial) degree += k;
      if (degree > 1 && std::find(monos.begin(), monos.end(), t.monomial) == monos.end())
        monos.push_back(t.monomial);
      for (auto &[a, k] : t.monomial) scan(a, params, monos);
    }
    for (const Expr &o : n->operands) scan(o, params, monos);
    if (n->condition) scan(n->condition, params, monos);
  }
  void scan(const Pred &n, std::vector<Expr> &params, std::vector<Monomial> &monos) {
    if (!scanned.insert(n.node()).second) return;
    if (n->lhs) {
      scan(n->lhs, params, monos);
      scan(n->rhs, params, monos);
    }
    for (const Pred &c : n->children) scan(c, params, monos);
  }

  void build(isl_ctx *c, const std::vector<Pred> &roots, TranslationCache *across = nullptr) {
    ctx = c;
    cache = across;
    std::vector<Expr> params;
    std::vector<Monomial> monos;
    for (const Pred &r : roots) scan(r, params, monos);
    if (monos.size() > kMaxOpaqueProducts)
      throw TooHard{"the question has " + std::to_string(monos.size()) +
                    " distinct products of parameters (the solver takes at most " +
                    std::to_string(kMaxOpaqueProducts) + ")"};
    if (params.size() > kMaxQuestionParameters)
      throw TooHard{"the question has " + std::to_string(params.size()) +
                    " parameters (the solver takes at most " +
                    std::to_string(kMaxQuestionParameters) + ")"};
    std::sort(params.begin(), params.end(),
              [](const Expr &a, const Expr &b) { return a->name < b->name; });
    space.reset(check(isl_space_params_alloc(ctx, params.size() + monos.size())));
    int pos = 0;
    for (const Expr &p : params) {
      paramIndex[p] = pos;
      names.push_back(p->name);
      meaning.push_back(p);
      readback.push_back(p);
      nameDimension(pos, p->name);
      ++pos;
    }
    for (std::size_t i = 0; i < monos.size(); ++i) {
      // '$' cannot appear in a user or reserved name, so these never clash.
      std::string name = "$mono" + std::to_string(i);
      Expr m(1);
      for (auto &[a, k] : monos[i]) m = m * pow(a, k);
      monomials.push_back({monos[i], pos});
      names.push_back(name);
      meaning.push_back(m);
      readback.push_back(totalized(m));
      nameDimension(pos, name);
      ++pos;
    }
    if (cache) {
      if (cache->entries > TranslationCache::kMaxEntries) cache->clear();
      auto &slot = cache->spaces[meaning];
      if (!slot) slot = std::make_shared<TranslationCache::Space>();
      shared = slot;
    }
  }

  // Every isl argument is owned before a call that takes it: a failing allocation (an aborted
  // question) then never leaks an argument computed before it.
  void nameDimension(int pos, const std::string &name) {
    isl_id *id = check(isl_id_alloc(ctx, name.c_str(), nullptr));
    space.reset(check(isl_space_set_dim_id(space.release(), isl_dim_param, pos, id)));
  }

  LocalSpacePtr localSpace() const {
    return LocalSpacePtr(check(isl_local_space_from_space(check(isl_space_copy(space.get())))));
  }
  SetPtr universe() const { return SetPtr(check(isl_set_universe(check(isl_space_copy(space.get()))))); }

  PwAffPtr constant(const Integer &v) const {
    ValPtr value = toVal(ctx, v);
    LocalSpacePtr ls = localSpace();
    isl_aff *a = check(isl_aff_val_on_domain(ls.release(), value.release()));
    return PwAffPtr(check(isl_pw_aff_from_aff(a)));
  }
  PwAffPtr variable(int pos) const {
    isl_aff *a = check(isl_aff_var_on_domain(localSpace().release(), isl_dim_param, pos));
    return PwAffPtr(check(isl_pw_aff_from_aff(a)));
  }

  /// The "all parameters >= 0 (and <= 2**63 - 1 for array sizes), non-negative monomials >= 0"
  /// set.
  SetPtr domain(SizeDomain sizes) const {
    SetPtr s = universe();
    for (std::size_t i = 0; i < names.size(); ++i) {
      const Monomial *m = i >= paramIndex.size() ? &monomials[i - paramIndex.size()].first : nullptr;
      if (!m && sizes == SizeDomain::ArraySizes) {
        PwAffPtr x = variable(int(i)), limit = constant(maxArraySize());
        SetPtr atMost(check(isl_pw_aff_le_set(x.release(), limit.release())));
        s.reset(check(isl_set_intersect(s.release(), atMost.release())));
      }
      if (m && !nonNegativeMonomial(*m)) continue;
      PwAffPtr x = variable(int(i)), zero = constant(0);
      SetPtr atLeastZero(check(isl_pw_aff_ge_set(x.release(), zero.release())));
      s.reset(check(isl_set_intersect(s.release(), atLeastZero.release())));
      // A power p**k (k >= 1) of one parameter p >= 0 is at least p, over the integers.
      if (m) {
        if (m->size() == 1 && (*m)[0].first->kind == ExprKind::Param) {
          const Expr &base = (*m)[0].first;
          PwAffPtr power = variable(int(i)), p = variable(paramIndex.at(base));
          SetPtr atLeastBase(check(isl_pw_aff_ge_set(power.release(), p.release())));
          s.reset(check(isl_set_intersect(s.release(), atLeastBase.release())));
          // p**k and p have the same parity (p**k - p = p*(p**(k-1) - 1) is even).
          PwAffPtr power2 = variable(int(i)), p2 = variable(paramIndex.at(base));
          PwAffPtr difference(check(isl_pw_aff_sub(power2.release(), p2.release())));
          ValPtr two = toVal(ctx, 2);
          PwAffPtr parity(check(isl_pw_aff_mod_val(difference.release(), two.release())));
          PwAffPtr zero2 = constant(0);
          SetPtr even(check(isl_pw_aff_eq_set(parity.release(), zero2.release())));
          s.reset(check(isl_set_intersect(s.release(), even.release())));
        }
      }
    }
    // Array sizes are at most M = 2**63 - 1, so a product of d of them is at most M**d, and one
    // of two is at most M times each factor (so 0 where a factor is). Without these bounds the
    // relaxation lets a product of sizes take any value, and a question past its reach
    // (82**40 - n - a*b <= 2**63 - 1) was Unknown instead of refuted. The factor bounds of
    // higher degrees (coefficients M**(d-1)) made the questions of fuzz_einsum's corpus 37%
    // slower; the constant bound costs nothing measurable.
    if (sizes == SizeDomain::ArraySizes)
      for (const auto &[m, position] : monomials) {
        bool ofSizes = true;
        uint32_t degree = 0;
        for (auto &[a, k] : m) {
          ofSizes = ofSizes && a->kind == ExprKind::Param;
          degree += k;
        }
        if (!ofSizes) continue;
        const int at = position; // a structured binding is not captured by clang 14
        auto atMost = [&](PwAffPtr bound) {
          PwAffPtr product = variable(at);
          SetPtr below(check(isl_pw_aff_le_set(product.release(), bound.release())));
          s.reset(check(isl_set_intersect(s.release(), below.release())));
        };
        if (degree > 2) {
          atMost(constant(Integer::pow(maxArraySize(), degree)));
          continue;
        }
        for (auto &[a, k] : m) {
          PwAffPtr factor = variable(paramIndex.at(a));
          ValPtr scale = toVal(ctx, maxArraySize());
          atMost(PwAffPtr(check(isl_pw_aff_scale_val(factor.release(), scale.release()))));
        }
      }
    // A product is at most the same product with some factors p raised to max(p, ...): the
    // count of an array (n*m) and its sizes other than 0 multiplied (max(1, n)*max(1, m)) are
    // then related, though both are opaque.
    for (std::size_t i = 0; i < monomials.size(); ++i)
      for (std::size_t j = 0; j < monomials.size(); ++j)
        if (i != j && dominated(monomials[i].first, monomials[j].first)) {
          PwAffPtr low = variable(monomials[i].second), high = variable(monomials[j].second);
          SetPtr atMost(check(isl_pw_aff_le_set(low.release(), high.release())));
          s.reset(check(isl_set_intersect(s.release(), atMost.release())));
        }
    return s;
  }

  /// True when `x >= 0` wherever it is defined, by its form alone (parameters are at least 0):
  /// a parameter, a constant >= 0, a sum of such products with coefficients >= 0, and min, max,
  /// select, division and remainder of such. Looks `depth` levels down.
  static bool nonNegativeByForm(const Expr &x, int depth = 6) {
    if (depth == 0) return false;
    switch (x->kind) {
    case ExprKind::Constant: return x->value.sign() >= 0;
    case ExprKind::Param: return true;
    case ExprKind::Sum:
      if (x->constantTerm.sign() < 0) return false;
      for (const Term &t : x->terms) {
        if (t.coefficient.sign() < 0) return false;
        for (const auto &[a, k] : t.monomial)
          if (k % 2 == 1 && !nonNegativeByForm(a, depth - 1)) return false;
      }
      return true;
    case ExprKind::FloorDiv:
    case ExprKind::ExactDiv: return x->value.sign() > 0 && nonNegativeByForm(x->operands[0], depth - 1);
    case ExprKind::Mod: return x->value.sign() > 0;
    case ExprKind::Max:
      return std::any_of(x->operands.begin(), x->operands.end(),
                         [&](const Expr &o) { return nonNegativeByForm(o, depth - 1); });
    case ExprKind::Min:
    case ExprKind::Select:
      return std::all_of(x->operands.begin(), x->operands.end(),
                         [&](const Expr &o) { return nonNegativeByForm(o, depth - 1); });
    }
    return false;
  }

  /// True when `a <= b` at every point because the factors pair up: each factor x**k of `a` is
  /// non-negative (k even, or x so by its form) and its partner in `b` is x**k or
  /// max(..., x, ...)**k.
  static bool dominated(const Monomial &a, const Monomial &b) {
    if (a.size() != b.size() || a == b) return false;
    std::vector<bool> used(b.size(), false);
    for (const auto &[x, k] : a) {
      if (k % 2 == 1 && !nonNegativeByForm(x)) return false;
      bool matched = false;
      for (std::size_t t = 0; t < b.size() && !matched; ++t) {
        if (used[t] || b[t].second != k) continue;
        const Expr &y = b[t].first;
        bool above = y == x || (y->kind == ExprKind::Max &&
                                std::find(y->operands.begin(), y->operands.end(), x) != y->operands.end());
        if (above) used[t] = matched = true;
      }
      if (!matched) return false;
    }
    return true;
  }

  int monomialPosition(const Monomial &m) const {
    for (auto &[mm, p] : monomials)
      if (mm == m) return p;
    throw InternalError("monomial was not scanned");
  }

  /// Borrowed result: owned by the memo.
  isl_pw_aff *pwAff(const Expr &n) {
    auto it = memo.find(n);
    if (it != memo.end()) return it->second;
    if (shared)
      if (auto s = shared->exprs.find(n); s != shared->exprs.end()) {
        isl_pw_aff *copy = check(isl_pw_aff_copy(s->second));
        memo[n] = copy;
        return copy;
      }
    PwAffPtr r = translate(n);
    if (shared) {
      // Only a complete translation is shared (translate() throws when isl stops).
      shared->exprs.emplace(n, check(isl_pw_aff_copy(r.get())));
      ++cache->entries;
    }
    memo[n] = r.get();
    return r.release();
  }
  PwAffPtr pwAffCopy(const Expr &n) { return PwAffPtr(check(isl_pw_aff_copy(pwAff(n)))); }

  PwAffPtr translate(const Expr &n) {
    switch (n->kind) {
    case ExprKind::Constant: return constant(n->value);
    case ExprKind::Param: return variable(paramIndex.at(n));
    case ExprKind::Sum: {
      // The affine part is built as one isl_aff; other atoms are added as pieces.
      ValPtr constantTerm = toVal(ctx, n->constantTerm);
      LocalSpacePtr ls = localSpace();
      AffPtr a(check(isl_aff_val_on_domain(ls.release(), constantTerm.release())));
      std::vector<std::pair<Integer, Expr>> others;
      for (const Term &t : n->terms) {
        uint32_t degree = 0;
        for (auto &[x, k] : t.monomial) degree += k;
        int pos = -1;
        if (degree > 1)
          pos = monomialPosition(t.monomial);
        else if (t.monomial[0].first->kind == ExprKind::Param)
          pos = paramIndex.at(t.monomial[0].first);
        if (pos >= 0) {
          ValPtr coefficient = toVal(ctx, t.coefficient);
          a.reset(check(isl_aff_set_coefficient_val(a.release(), isl_dim_param, pos,
                                                    coefficient.release())));
        }
        else
          others.push_back({t.coefficient, t.monomial[0].first});
      }
      PwAffPtr r(check(isl_pw_aff_from_aff(a.release())));
      for (auto &[c, atom] : others) {
        PwAffPtr atomPiece = pwAffCopy(atom);
        ValPtr factor = toVal(ctx, c);
        PwAffPtr piece(check(isl_pw_aff_scale_val(atomPiece.release(), factor.release())));
        r.reset(check(isl_pw_aff_add(r.release(), piece.release())));
      }
      if (!others.empty()) r.reset(check(isl_pw_aff_coalesce(r.release())));
      return r;
    }
    case ExprKind::FloorDiv: case ExprKind::ExactDiv: {
      // Exact division is floor division here; where it does not divide, definedness() has
      // already excluded the point.
      PwAffPtr e = pwAffCopy(n->operands[0]);
      ValPtr divisor = toVal(ctx, n->value);
      PwAffPtr scaled(check(isl_pw_aff_scale_down_val(e.release(), divisor.release())));
      return PwAffPtr(check(isl_pw_aff_floor(scaled.release())));
    }
    case ExprKind::Mod:
    {
      PwAffPtr e = pwAffCopy(n->operands[0]);
      ValPtr divisor = toVal(ctx, n->value);
      return PwAffPtr(check(isl_pw_aff_mod_val(e.release(), divisor.release())));
    }
    case ExprKind::Min: case ExprKind::Max: {
      PwAffPtr r = pwAffCopy(n->operands[0]);
      for (std::size_t i = 1; i < n->operands.size(); ++i) {
        PwAffPtr o = pwAffCopy(n->operands[i]);
        r.reset(check(n->kind == ExprKind::Min ? isl_pw_aff_min(r.release(), o.release())
                                               : isl_pw_aff_max(r.release(), o.release())));
      }
      return PwAffPtr(check(isl_pw_aff_coalesce(r.release())));
    }
    case ExprKind::Select: {
      SetPtr c = set(n->condition);
      SetPtr notC(check(isl_set_complement(check(isl_set_copy(c.get())))));
      PwAffPtr ifTrue = pwAffCopy(n->operands[0]), ifFalse = pwAffCopy(n->operands[1]);
      PwAffPtr a(check(isl_pw_aff_intersect_params(ifTrue.release(), c.release())));
      PwAffPtr b(check(isl_pw_aff_intersect_params(ifFalse.release(), notC.release())));
      return PwAffPtr(check(isl_pw_aff_coalesce(check(isl_pw_aff_union_add(a.release(), b.release())))));
    }
    }
    throw InternalError("unhandled expression kind");
  }

  /// The set where `n` holds, reading exact division as floor division (see definedness()).
  /// Memoized per node: a predicate DAG is translated in time linear in its size.
  SetPtr set(const Pred &n) {
    auto it = setMemo.find(n);
    if (it != setMemo.end()) return SetPtr(check(isl_set_copy(it->second)));
    if (shared)
      if (auto s = shared->sets.find(n); s != shared->sets.end()) {
        SetPtr r(check(isl_set_copy(s->second)));
        setMemo[n] = check(isl_set_copy(r.get()));
        return r;
      }
    SetPtr r = translateSet(n);
    if (shared) {
      shared->sets.emplace(n, check(isl_set_copy(r.get())));
      ++cache->entries;
    }
    setMemo[n] = check(isl_set_copy(r.get()));
    return r;
  }

  SetPtr translateSet(const Pred &n) {
    switch (n->kind) {
    case PredKind::True: return universe();
    case PredKind::False: return SetPtr(check(isl_set_empty(check(isl_space_copy(space.get())))));
    case PredKind::Compare: {
      PwAffPtr lhs = pwAffCopy(n->lhs), rhs = pwAffCopy(n->rhs);
      isl_pw_aff *a = lhs.release(), *b = rhs.release();
      switch (n->op) {
      case CompareOp::EQ: return SetPtr(check(isl_pw_aff_eq_set(a, b)));
      case CompareOp::NE: return SetPtr(check(isl_pw_aff_ne_set(a, b)));
      case CompareOp::LT: return SetPtr(check(isl_pw_aff_lt_set(a, b)));
      case CompareOp::LE: return SetPtr(check(isl_pw_aff_le_set(a, b)));
      case CompareOp::GT: return SetPtr(check(isl_pw_aff_gt_set(a, b)));
      case CompareOp::GE: return SetPtr(check(isl_pw_aff_ge_set(a, b)));
      }
      break;
    }
    case PredKind::Not:
      return SetPtr(check(isl_set_complement(set(n->children[0]).release())));
    case PredKind::And: case PredKind::Or: {
      SetPtr r = set(n->children[0]);
      for (std::size_t i = 1; i < n->children.size(); ++i) {
        SetPtr c = set(n->children[i]);
        r.reset(check(n->kind == PredKind::And ? isl_set_intersect(r.release(), c.release())
                                               : isl_set_union(r.release(), c.release())));
      }
      return r;
    }
    }
    throw InternalError("unhandled predicate kind");
  }

  /// The set where a total predicate `n` is false, built from the opposite comparisons (De
  /// Morgan) rather than by isl's complement or subtraction, which cost far more. It is the
  /// same set: a total predicate's values are defined everywhere.
  SetPtr fails(const Pred &n) {
    if (!n.node()->total) throw InternalError("fails() of a partial predicate");
    auto it = failsMemo.find(n);
    if (it != failsMemo.end()) return SetPtr(check(isl_set_copy(it->second)));
    SetPtr r;
    switch (n->kind) {
    case PredKind::True: r.reset(check(isl_set_empty(check(isl_space_copy(space.get()))))); break;
    case PredKind::False: r = universe(); break;
    case PredKind::Not: r = set(n->children[0]); break;
    case PredKind::Compare: {
      PwAffPtr lhs = pwAffCopy(n->lhs), rhs = pwAffCopy(n->rhs);
      isl_pw_aff *a = lhs.release(), *b = rhs.release();
      switch (n->op) {
      case CompareOp::EQ: r.reset(check(isl_pw_aff_ne_set(a, b))); break;
      case CompareOp::NE: r.reset(check(isl_pw_aff_eq_set(a, b))); break;
      case CompareOp::LT: r.reset(check(isl_pw_aff_ge_set(a, b))); break;
      case CompareOp::LE: r.reset(check(isl_pw_aff_gt_set(a, b))); break;
      case CompareOp::GT: r.reset(check(isl_pw_aff_le_set(a, b))); break;
      case CompareOp::GE: r.reset(check(isl_pw_aff_lt_set(a, b))); break;
      }
      break;
    }
    case PredKind::And: case PredKind::Or: {
      r = fails(n->children[0]);
      for (std::size_t i = 1; i < n->children.size(); ++i) {
        SetPtr c = fails(n->children[i]);
        r.reset(check(n->kind == PredKind::And ? isl_set_union(r.release(), c.release())
                                               : isl_set_intersect(r.release(), c.release())));
      }
      break;
    }
    }
    failsMemo[n] = check(isl_set_copy(r.get()));
    return r;
  }

  /// holds(c) within the size domain: the set of a context's points, its products of two
  /// parameters bounded by their factors' box (withProductEnvelopes).
  SetPtr holdsWithin(const Pred &c, SizeDomain sizes) {
    SetPtr s = holds(c);
    SetPtr dom = domain(sizes);
    return withProductEnvelopes(SetPtr(check(isl_set_intersect(s.release(), dom.release()))));
  }

  /// `C` with each opaque product of two parameters, x*y or x**2, held inside the envelope of
  /// the box that `C` confines its factors to (McCormick, "Computability of global solutions to
  /// factorable nonconvex programs", Math. Programming 10, 1976): with xl <= x <= xu and
  /// yl <= y <= yu, (x - xl)*(y - yl) >= 0 gives x*y >= xl*y + yl*x - xl*yl, and likewise at
  /// the other three corners. Under n >= 1, m >= 1 the product n*m is then at least n + m - 1
  /// (so n*m == 0 is refuted), and under n >= 1 at least m; without the envelope the relaxation
  /// lets the product take any value and those questions were Unknown.
  /// Exact: every real point of `C` has its factors in the box (the box is computed over the
  /// relaxation, which holds every real point), where the envelope holds. Cost: two integer
  /// programs per factor, only where such products occur; the context set is memoized.
  /// A bound the size domain already gives (an upper bound of 2**63 - 1) adds nothing.
  /// `added`, when given, tells whether any bound was added (C is otherwise returned as it was).
  SetPtr withProductEnvelopes(SetPtr C, bool *added = nullptr) {
    if (added) *added = false;
    struct Box {
      std::optional<Integer> low, high;
    };
    std::map<int, Box> boxes;
    auto boxOf = [&](int pos) -> const Box & {
      auto it = boxes.find(pos);
      if (it != boxes.end()) return it->second;
      Box b;
      for (bool lowSide : {true, false}) {
        AffPtr x(check(isl_aff_var_on_domain(localSpace().release(), isl_dim_param, pos)));
        ValPtr v(check(lowSide ? isl_set_min_val(C.get(), x.get()) : isl_set_max_val(C.get(), x.get())));
        if (!checkBool(isl_val_is_int(v.get()))) continue; // unbounded, or C is empty
        Integer bound = fromVal(v.get());
        if (lowSide && bound.sign() > 0) b.low = bound;
        if (!lowSide && bound < maxArraySize()) b.high = bound;
      }
      return boxes.emplace(pos, b).first->second;
    };
    // coefficient * parameter terms + constant >= 0, intersected into C.
    auto require = [&](const std::vector<std::pair<int, Integer>> &terms, const Integer &constant) {
      LocalSpacePtr ls = localSpace();
      ValPtr c = toVal(ctx, constant);
      AffPtr a(check(isl_aff_val_on_domain(ls.release(), c.release())));
      for (const auto &[pos, coefficient] : terms) {
        ValPtr old(check(isl_aff_get_coefficient_val(a.get(), isl_dim_param, pos)));
        Integer sum = fromVal(old.get()) + coefficient;
        ValPtr total = toVal(ctx, sum);
        a.reset(check(isl_aff_set_coefficient_val(a.release(), isl_dim_param, pos, total.release())));
      }
      PwAffPtr pa(check(isl_pw_aff_from_aff(a.release())));
      SetPtr inside(check(isl_pw_aff_nonneg_set(pa.release())));
      C.reset(check(isl_set_intersect(C.release(), inside.release())));
      if (added) *added = true;
    };
    for (const auto &[m, z] : monomials) {
      uint32_t degree = 0;
      bool ofParameters = true;
      for (auto &[a, k] : m) {
        degree += k;
        ofParameters = ofParameters && a->kind == ExprKind::Param;
      }
      if (degree != 2 || !ofParameters) continue;
      const int x = paramIndex.at(m[0].first), y = paramIndex.at(m.back().first);
      const Box bx = boxOf(x), by = boxOf(y);
      const Integer xl = bx.low.value_or(Integer(0)), yl = by.low.value_or(Integer(0));
      const Integer one(1);
      // (x - xl)(y - yl) >= 0:  z - xl*y - yl*x + xl*yl >= 0 (z >= 0 already when both are 0)
      if (bx.low || by.low) require({{z, one}, {y, -xl}, {x, -yl}}, xl * yl);
      // (xu - x)(y - yl) >= 0:  xu*y + yl*x - xu*yl - z >= 0
      if (bx.high) require({{z, -one}, {y, *bx.high}, {x, yl}}, -(*bx.high * yl));
      // (x - xl)(yu - y) >= 0:  yu*x + xl*y - xl*yu - z >= 0
      if (by.high) require({{z, -one}, {x, *by.high}, {y, xl}}, -(xl * *by.high));
      // (xu - x)(yu - y) >= 0:  z - xu*y - yu*x + xu*yu >= 0
      if (bx.high && by.high) require({{z, one}, {y, -*bx.high}, {x, -*by.high}}, *bx.high * *by.high);
    }
    return C;
  }

  /// Whether `relaxed`, a set of this space (the real parameters and the opaque products), holds
  /// no real point, shown by the envelopes of its own box: withProductEnvelopes over `relaxed`
  /// itself rather than over the context, a round or two (a tighter product can tighten the box).
  /// One side of a question often confines the factors far more than the context does: in
  /// `min(1, m*n) - max(0, m*n - n) >= 1 and min(n, m - 1) >= 3` the side where it holds has
  /// m >= 4 and n >= 3, so m*n >= 4*n + 3*m - 12 > n there, and it has no real point, while the
  /// relaxation (m*n free) has many. Exact for the same reason as the context's envelope: every
  /// real point of the side is a point of `relaxed`, so its factors lie in that box.
  /// A union is taken disjunct by disjunct (up to kMaxEnvelopedDisjuncts of them): the cases a
  /// piecewise factor is split into each confine the factors to a box of their own, which their
  /// union's box (their hull) loses.
  bool noRealPointWithinOwnEnvelopes(isl_set *relaxed) {
    std::vector<SetPtr> pieces;
    const isl_size n = isl_set_n_basic_set(relaxed);
    if (n < 0) check(static_cast<isl_set *>(nullptr));
    if (n > 1 && n <= kMaxEnvelopedDisjuncts) {
      std::vector<isl_basic_set *> basic;
      const isl_stat walked = isl_set_foreach_basic_set(relaxed, [](isl_basic_set *b, void *user) -> isl_stat {
        static_cast<std::vector<isl_basic_set *> *>(user)->push_back(b);
        return isl_stat_ok;
      }, &basic);
      for (isl_basic_set *b : basic) pieces.emplace_back(isl_set_from_basic_set(b)); // owned before any throw
      checkStat(walked);
      for (const SetPtr &p : pieces) check(p.get());
    } else {
      pieces.emplace_back(check(isl_set_copy(relaxed)));
    }
    for (SetPtr &s : pieces)
      for (int round = 0;; ++round) {
        bool added = false;
        s = withProductEnvelopes(std::move(s), &added);
        if (!added) return false;
        if (checkBool(isl_set_is_empty(s.get()))) break; // this piece holds no real point
        if (round == 1) return false;
      }
    return true;
  }
  static constexpr isl_size kMaxEnvelopedDisjuncts = 32;

  /// holds(P) = definedness(P) and P.
  SetPtr holds(const Pred &p) {
    SetPtr s = set(p);
    Pred def = definedness(p);
    if (!def.isTrue()) {
      SetPtr d = set(def);
      s.reset(check(isl_set_intersect(s.release(), d.release())));
    }
    return s;
  }

  /// A point's values for the real parameters, or nullopt when an opaque monomial's
  /// coordinate disagrees with the product of its factors there.
  Assignment pointToAssignment(isl_point *pt, bool &consistent) const {
    Assignment a;
    for (auto &[node, pos] : paramIndex) {
      ValPtr v(check(isl_point_get_coordinate_val(pt, isl_dim_param, pos)));
      a.set(node->name, fromVal(v.get()));
    }
    consistent = true;
    for (auto &[m, pos] : monomials) {
      ValPtr v(check(isl_point_get_coordinate_val(pt, isl_dim_param, pos)));
      auto real = evaluate(meaning[pos], a);
      if (!real || *real != fromVal(v.get())) consistent = false;
    }
    return a;
  }

  // --- back from isl ---------------------------------------------------------------------

  Expr nameToExpr(const char *name) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return readback[i];
    throw InternalError(std::string("isl returned an unknown parameter ") + name);
  }

  /// The operands of an AST operation; isl's error (-1, a stopped computation) is a failure,
  /// never "no operands" (an `and` of none would read as True).
  static int argumentCount(isl_ast_expr *e) {
    isl_size n = isl_ast_expr_op_get_n_arg(e);
    if (n < 0 || isl_ast_expr_op_get_type(e) == isl_ast_expr_op_error) throw IslFailure{};
    return int(n);
  }

  Expr astToExpr(isl_ast_expr *e) const {
    if (isl_ast_expr_get_type(e) == isl_ast_expr_error) throw IslFailure{};
    switch (isl_ast_expr_get_type(e)) {
    case isl_ast_expr_int: {
      ValPtr v(check(isl_ast_expr_int_get_val(e)));
      return Expr(fromVal(v.get()));
    }
    case isl_ast_expr_id: {
      std::unique_ptr<isl_id, isl_id *(*)(isl_id *)> id(check(isl_ast_expr_id_get_id(e)), isl_id_free);
      Expr r = nameToExpr(isl_id_get_name(id.get()));
      return r;
    }
    case isl_ast_expr_op: break;
    default: throw InternalError("unexpected isl AST expression");
    }
    auto arg = [&](int i) { return AstExprPtr(check(isl_ast_expr_op_get_arg(e, i))); };
    const int n = argumentCount(e);
    auto constantArg = [&](int i) {
      Expr c = astToExpr(arg(i).get());
      if (!c.isConstant() || c.constantValue()->sign() <= 0)
        throw InternalError("isl divided by a non-constant");
      return *c.constantValue();
    };
    switch (isl_ast_expr_op_get_type(e)) {
    case isl_ast_expr_op_minus: return -astToExpr(arg(0).get());
    case isl_ast_expr_op_add: return astToExpr(arg(0).get()) + astToExpr(arg(1).get());
    case isl_ast_expr_op_sub: return astToExpr(arg(0).get()) - astToExpr(arg(1).get());
    case isl_ast_expr_op_mul: return astToExpr(arg(0).get()) * astToExpr(arg(1).get());
    // `div` is known to be exact and the p-variants have a non-negative dividend: floor
    // division gives the same value and stays total.
    case isl_ast_expr_op_div: case isl_ast_expr_op_fdiv_q: case isl_ast_expr_op_pdiv_q:
      return floorDiv(astToExpr(arg(0).get()), constantArg(1));
    // zdiv_r is only ever compared with zero, where C's remainder and floor modulo agree.
    case isl_ast_expr_op_pdiv_r: case isl_ast_expr_op_zdiv_r:
      return mod(astToExpr(arg(0).get()), constantArg(1));
    case isl_ast_expr_op_min: case isl_ast_expr_op_max: {
      std::vector<Expr> args;
      for (int i = 0; i < n; ++i) args.push_back(astToExpr(arg(i).get()));
      return isl_ast_expr_op_get_type(e) == isl_ast_expr_op_min ? min(args) : max(args);
    }
    case isl_ast_expr_op_cond: case isl_ast_expr_op_select:
      return select(astToPred(arg(0).get()), astToExpr(arg(1).get()), astToExpr(arg(2).get()));
    default: throw InternalError("unexpected isl AST operator in an expression");
    }
  }

  Pred astToPred(isl_ast_expr *e) const {
    if (isl_ast_expr_get_type(e) == isl_ast_expr_error) throw IslFailure{};
    if (isl_ast_expr_get_type(e) == isl_ast_expr_int) {
      ValPtr v(check(isl_ast_expr_int_get_val(e)));
      return Pred::truth(!fromVal(v.get()).isZero());
    }
    if (isl_ast_expr_get_type(e) != isl_ast_expr_op) throw InternalError("unexpected isl AST condition");
    auto arg = [&](int i) { return AstExprPtr(check(isl_ast_expr_op_get_arg(e, i))); };
    const int n = argumentCount(e);
    auto cmp = [&](CompareOp op) {
      return Pred::compare(op, astToExpr(arg(0).get()), astToExpr(arg(1).get()));
    };
    switch (isl_ast_expr_op_get_type(e)) {
    case isl_ast_expr_op_and: case isl_ast_expr_op_and_then: case isl_ast_expr_op_or:
    case isl_ast_expr_op_or_else: {
      std::vector<Pred> parts;
      for (int i = 0; i < n; ++i) parts.push_back(astToPred(arg(i).get()));
      auto t = isl_ast_expr_op_get_type(e);
      return (t == isl_ast_expr_op_and || t == isl_ast_expr_op_and_then) ? Pred::conjunction(parts)
                                                                         : Pred::disjunction(parts);
    }
    case isl_ast_expr_op_eq: return cmp(CompareOp::EQ);
    case isl_ast_expr_op_le: return cmp(CompareOp::LE);
    case isl_ast_expr_op_lt: return cmp(CompareOp::LT);
    case isl_ast_expr_op_ge: return cmp(CompareOp::GE);
    case isl_ast_expr_op_gt: return cmp(CompareOp::GT);
    default: throw InternalError("unexpected isl AST operator in a condition");
    }
  }

  /// Σ coefficient·parameter + constant of one constraint, as "positive side OP negative side".
  Pred constraintToPred(isl_constraint *c) const {
    Expr lhs(0), rhs(0);
    for (std::size_t i = 0; i < names.size(); ++i) {
      ValPtr v(check(isl_constraint_get_coefficient_val(c, isl_dim_param, int(i))));
      Integer k = fromVal(v.get());
      if (k.sign() > 0) lhs = lhs + Expr(k) * readback[i];
      if (k.sign() < 0) rhs = rhs + Expr(-k) * readback[i];
    }
    ValPtr v(check(isl_constraint_get_constant_val(c)));
    Integer k = fromVal(v.get());
    if (k.sign() > 0) lhs = lhs + Expr(k);
    if (k.sign() < 0) rhs = rhs + Expr(-k);
    bool equality = isl_constraint_is_equality(c) == isl_bool_true;
    if (lhs.isConstant() && !rhs.isConstant()) // "0 >= n - 3" reads better as "n <= 3"
      return Pred::compare(equality ? CompareOp::EQ : CompareOp::LE, rhs, lhs);
    return Pred::compare(equality ? CompareOp::EQ : CompareOp::GE, lhs, rhs);
  }

  /// What isl's AST generator would be given: disjuncts (or pieces), constraints, and whether
  /// every disjunct and function is within kAstMaxDivs.
  struct AstSize {
    isl_size disjuncts = 0, constraints = 0;
    bool fewDivs = true;
    bool fits() const {
      return fewDivs && disjuncts <= kAstMaxDisjuncts && constraints <= kAstMaxConstraints;
    }
    void add(isl_set *s) {
      checkStat(isl_set_foreach_basic_set(s, [](isl_basic_set *b, void *user) -> isl_stat {
        auto *size = static_cast<AstSize *>(user);
        const isl_size n = isl_basic_set_n_constraint(b), divs = isl_basic_set_dim(b, isl_dim_div);
        isl_basic_set_free(b);
        if (n < 0 || divs < 0) return isl_stat_error;
        size->disjuncts += 1;
        size->constraints += n;
        size->fewDivs = size->fewDivs && divs <= kAstMaxDivs;
        return isl_stat_ok;
      }, this));
    }
  };
  static bool fitsAstGenerator(isl_set *s) {
    AstSize size;
    size.add(s);
    return size.fits();
  }
  static bool fitsAstGenerator(isl_pw_aff *f) {
    struct Walk {
      AstSize size;
      bool failed = false;
    } walk;
    isl_stat walked = isl_pw_aff_foreach_piece(f, [](isl_set *domain, isl_aff *a, void *user) -> isl_stat {
      auto *w = static_cast<Walk *>(user);
      const isl_size divs = isl_aff_dim(a, isl_dim_div);
      isl_aff_free(a);
      // The walk over the domain's disjuncts does not throw out of isl's frames.
      try {
        if (divs < 0) throw IslFailure{};
        w->size.fewDivs = w->size.fewDivs && divs <= kAstMaxDivs;
        w->size.add(domain);
      } catch (const IslFailure &) {
        w->failed = true;
      }
      isl_set_free(domain);
      return w->failed ? isl_stat_error : isl_stat_ok;
    }, &walk);
    if (walk.failed) throw IslFailure{};
    checkStat(walked);
    return walk.size.fits();
  }

  /// The set as a predicate, simplified under `context` (gist). Throws TooHard where it has
  /// integer divisions beyond what the AST generator is given (kAstMaxDisjuncts).
  Pred toPred(isl_set *s, isl_set *context, SizeDomain sizes, AbortShield &shield) {
    SetPtr sCopy(check(isl_set_copy(s))), contextCopy(check(isl_set_copy(context)));
    SetPtr g(check(isl_set_gist_params(sCopy.release(), contextCopy.release())));
    g.reset(check(isl_set_coalesce(g.release())));
    // Without integer divisions the constraints read back directly; otherwise isl's AST
    // generator expresses the divisions as // and %.
    bool hasDivs = false;
    checkStat(isl_set_foreach_basic_set(g.get(), [](isl_basic_set *b, void *user) -> isl_stat {
      isl_size divs = isl_basic_set_dim(b, isl_dim_div);
      isl_basic_set_free(b);
      if (divs < 0) return isl_stat_error;
      if (divs > 0) *static_cast<bool *>(user) = true;
      return isl_stat_ok;
    }, &hasDivs));
    if (hasDivs) {
      // The generator would make the divisions explicit itself; done here, where isl may stop.
      g.reset(check(isl_set_compute_divs(g.release())));
      if (!fitsAstGenerator(g.get())) throw TooHard{"the condition is too large to read back"};
      // The generator is given the size domain, not the context: `g` is gisted under the
      // context already, and the generator gists again and proves signs over what it is
      // given, which took half a second for a three-constraint set under a context with
      // large coefficients. The domain's bounds (sizes are >= 0) are what it needs to write
      // `n - 9*(n // 9)` as `n % 9`.
      AstBuildPtr build(check(isl_ast_build_from_context(domain(sizes).release())));
      AstExprPtr e(shield.run(ctx, [&] { return check(isl_ast_build_expr_from_set(build.get(), g.release())); }));
      return withoutPartsHeldBySizes(astToPred(e.get()));
    }
    // No exception may cross isl's C frames: the callbacks catch, stop the walk, and the
    // exception is rethrown here.
    struct Acc {
      const Translation *self;
      std::vector<Pred> disjuncts;
      std::exception_ptr error;
    } acc{this, {}, nullptr};
    isl_stat walked = isl_set_foreach_basic_set(g.get(), [](isl_basic_set *b, void *user) -> isl_stat {
      auto *acc = static_cast<Acc *>(user);
      std::vector<Pred> conj;
      struct Inner {
        const Translation *self;
        std::vector<Pred> *conj;
        std::exception_ptr *error;
      } inner{acc->self, &conj, &acc->error};
      isl_stat constraints = isl_basic_set_foreach_constraint(b, [](isl_constraint *c, void *u) -> isl_stat {
        auto *in = static_cast<Inner *>(u);
        isl_stat status = isl_stat_ok;
        try {
          Pred part = in->self->constraintToPred(c);
          if (!heldBySizes(part)) in->conj->push_back(std::move(part));
        } catch (...) {
          *in->error = std::current_exception();
          status = isl_stat_error;
        }
        isl_constraint_free(c);
        return status;
      }, &inner);
      isl_basic_set_free(b);
      if (acc->error || constraints == isl_stat_error) return isl_stat_error;
      try {
        acc->disjuncts.push_back(Pred::conjunction(conj));
      } catch (...) {
        acc->error = std::current_exception();
        return isl_stat_error;
      }
      return isl_stat_ok;
    }, &acc);
    if (acc.error) std::rethrow_exception(acc.error);
    checkStat(walked);
    return Pred::disjunction(acc.disjuncts);
  }
};

/// The handles keep both nodes alive while memoized, so an address is never reused for another
/// question while its answer is stored.
struct MemoKey {
  Pred assumptions;
  SizeDomain domain;
  Pred predicate;
  bool operator==(const MemoKey &o) const {
    return assumptions == o.assumptions && domain == o.domain && predicate == o.predicate;
  }
};
struct MemoHash {
  std::size_t operator()(const MemoKey &k) const {
    return (k.assumptions.hash() * 31 + std::size_t(k.domain)) * 31 + k.predicate.hash();
  }
};
template <class At> bool wanted(const Pred &p, const At &a, bool want) {
  auto v = evaluate(p, a);
  return want ? v == std::optional<bool>(true) : v != std::optional<bool>(true);
}

} // namespace

// ---------------------------------------------------------------------------------------------

struct Solver::Impl : std::enable_shared_from_this<Solver::Impl> {
  SolverOptions options;
  isl_ctx *ctx;
  SolverStats stats;
  EntryTable<MemoKey, Decision, MemoHash> memo;
  EntryTable<MemoKey, bool, MemoHash> proofMemo; // provesQuickly's answers
  EntryTable<MemoKey, std::shared_ptr<const Decision>, MemoHash> jointMemo; // keepSettledJointly's
  AbortShield shield; // before the watchdog, whose thread calls it
  std::unique_ptr<Watchdog> watchdog;
  uint64_t totalLimitMs = 0; // limitTotalTime's bound, for messages

  // The context the watchdog stops: ctx, read from the watchdog's thread (only while a question
  // runs, and ctx is replaced only between questions).
  std::atomic<isl_ctx *> watched{nullptr};

  static isl_ctx *newIslContext(const SolverOptions &options) {
    isl_ctx *c = isl_ctx_alloc();
    if (!c) throw InternalError("isl_ctx_alloc failed");
    isl_options_set_on_error(c, ISL_ON_ERROR_CONTINUE);
    isl_ctx_set_max_operations(c, options.maxOperations);
    return c;
  }

  explicit Impl(SolverOptions o) : options(o) {
    ctx = newIslContext(options);
    watched.store(ctx);
    // isl_ctx_abort only sets a flag that isl reads at its next counted operation.
    watchdog = std::make_unique<Watchdog>(std::chrono::milliseconds(options.timeLimitMs),
                                          options.memoryLimitBytes, [this] { shield.abort(watched.load()); });
  }

  /// Replaces the isl context by a new one. isl keeps freed blocks (and their integers' limbs)
  /// in its context for reuse, so only a new context gives back all that questions allocated.
  /// Every isl object of the old context must be freed first (the caches).
  void renewIslContext() {
    isl_ctx *fresh = newIslContext(options);
    isl_ctx_free(ctx);
    ctx = fresh;
    watched.store(ctx);
  }
  ~Impl() {
    watchdog.reset();
    memo.clear();
    contextCache.clear();
    translations.clear();
    isl_ctx_free(ctx);
  }
  TranslationCache translations;

  /// One question's time and memory budget, and isl's operation quota, from start to end.
  class Budget {
  public:
    explicit Budget(Impl &im) : im_(im) {
      isl_ctx_resume(im.ctx);
      isl_ctx_reset_error(im.ctx);
      isl_ctx_reset_operations(im.ctx);
      im.watchdog->start();
      // Past the shared deadline, isl stops at its first counted operation (the watchdog's
      // thread may be asleep for its idle poll).
      if (im.watchdog->pastSharedDeadline()) im.shield.abort(im.ctx);
    }
    ~Budget() { finish(); }
    Watchdog::Expired finish() {
      if (!finished_) {
        finished_ = true;
        why_ = im_.watchdog->stop();
        isl_ctx_resume(im_.ctx);
      }
      return why_;
    }
    /// Why the budget ran out, for an Unknown answer; empty when it did not.
    std::string exhausted() {
      finish();
      if (why_ == Watchdog::Expired::Memory) {
        ++im_.stats.memoryOuts;
        return "the solver's memory limit (" + std::to_string(im_.options.memoryLimitBytes >> 20) +
               " MiB per question) was reached";
      }
      if (why_ == Watchdog::Expired::Time || im_.watchdog->pastDeadline()) {
        ++im_.stats.timeouts;
        if (im_.watchdog->pastSharedDeadline())
          return "the solver's time limit (" + std::to_string(im_.totalLimitMs) +
                 " ms for all the questions together) was reached";
        return "the solver's time limit (" + std::to_string(im_.options.timeLimitMs) +
               " ms per question) was reached";
      }
      if (isl_ctx_last_error(im_.ctx) == isl_error_quota) {
        ++im_.stats.quotaHits;
        return "the solver's work bound (" + std::to_string(im_.options.maxOperations) +
               " isl operations) was reached";
      }
      return "";
    }

  private:
    Impl &im_;
    bool finished_ = false;
    Watchdog::Expired why_ = Watchdog::Expired::No;
  };

  bool outOfTime() const { return watchdog->expired() || watchdog->pastDeadline(); }

  /// Searches a small box for a real point where `c` holds and `p` has truth `want`.
  std::optional<Assignment> searchBox(const std::vector<Expr> &params, const Pred &c,
                                      const Pred &p, bool want, uint64_t budget) const {
    if (params.empty()) {
      Assignment a;
      if (holds(c, a) && wanted(p, a, want)) return a;
      return std::nullopt;
    }
    uint64_t side = 1;
    while (true) {
      uint64_t total = 1;
      bool over = false;
      for (std::size_t i = 0; i < params.size() && !over; ++i) {
        total *= (side + 1);
        if (total > budget) over = true;
      }
      if (over) break;
      ++side;
    }
    std::vector<const ExprNode *> nodes;
    for (const Expr &x : params) nodes.push_back(x.node());
    bool complete = false;
    return firstInBox(nodes, std::vector<Integer>(nodes.size(), Integer(0)),
                      std::vector<Integer>(nodes.size(), Integer(int64_t(side - 1))), c, p, want, complete);
  }

  /// The first point of the box (parameter params[i] from low[i] to high[i], the first fastest)
  /// where the assumptions `c` hold and `p` is `want`. `complete` tells, when none is returned,
  /// whether every point was tried: the clock may stop the search first. The points are
  /// NodeValues (a box has up to thousands): no parameter is looked up by its name.
  std::optional<Assignment> firstInBox(const std::vector<const ExprNode *> &params, const std::vector<Integer> &low,
                                       const std::vector<Integer> &high, const Pred &c, const Pred &p,
                                       bool want, bool &complete) const {
    complete = false;
    std::vector<Integer> values = low;
    const NodeValues at{params, values};
    for (uint64_t step = 0;; ++step) {
      if (step % 256 == 0 && outOfTime()) return std::nullopt;
      if (holds(c, at) && wanted(p, at, want)) {
        Assignment a;
        for (std::size_t i = 0; i < params.size(); ++i) a.set(params[i]->name, values[i]);
        return a;
      }
      std::size_t i = 0;
      for (; i < params.size(); ++i) {
        if (values[i] < high[i]) {
          values[i] += Integer(1);
          break;
        }
        values[i] = low[i];
      }
      if (i == params.size()) {
        complete = true;
        return std::nullopt;
      }
    }
  }

  /// Searches for a real point by fixing every parameter but one to small values: what is left
  /// is often quasi-affine in the last parameter (n*m == 1000003 with n = 1 is m == 1000003),
  /// and isl then gives an exact point of it. Each candidate is re-checked by evaluation.
  std::optional<Assignment> searchByFixing(const std::vector<Expr> &params, const Pred &c,
                                           const Pred &p, bool want, SizeDomain sizes) {
    if (params.size() < 2) return std::nullopt;
    constexpr int64_t kSide = 4;          // values 0..3 for the fixed parameters
    constexpr std::size_t kMaxTries = 96; // isl questions at most
    std::size_t tries = 0;
    for (std::size_t free = 0; free < params.size(); ++free) {
      std::size_t others = params.size() - 1;
      if (others > 3) others = 3; // fix at most 3 parameters to small values, the rest to 0
      std::vector<int64_t> v(params.size() - 1, 0);
      while (true) {
        if (++tries > kMaxTries || outOfTime()) return std::nullopt;
        std::map<std::string, Expr> fixed;
        Assignment fixedValues;
        for (std::size_t i = 0, j = 0; i < params.size(); ++i) {
          if (i == free) continue;
          fixed.emplace(params[i].node()->name, Expr(v[j]));
          fixedValues.set(params[i].node()->name, v[j]);
          ++j;
        }
        Pred c2 = substitute(c, fixed), p2 = substitute(p, fixed);
        if (auto point = sampleQuasiAffine(c2, p2, want, sizes)) {
          Assignment a = *point;
          for (auto &[name, value] : fixedValues.values()) a.set(name, value);
          if (holds(c, a) && wanted(p, a, want)) return a;
        }
        std::size_t i = 0;
        while (i < others && ++v[i] >= kSide) v[i++] = 0;
        if (i == others) break;
      }
    }
    return std::nullopt;
  }

  /// A real point where `c` holds and `p` has truth `want`, when both are quasi-affine.
  std::optional<Assignment> sampleQuasiAffine(const Pred &c, const Pred &p, bool want,
                                              SizeDomain sizes) {
    if (!isQuasiAffine(c) || !isQuasiAffine(p)) return std::nullopt;
    Translation t;
    t.build(ctx, {c, p, definedness(c), definedness(p)});
    SetPtr C = t.holdsWithin(c, sizes);
    SetPtr H = t.holds(p);
    SetPtr target(check(want ? isl_set_intersect(C.release(), H.release())
                             : isl_set_subtract(C.release(), H.release())));
    PointPtr pt(check(isl_set_sample_point(target.release())));
    if (checkBool(isl_point_is_void(pt.get()))) return std::nullopt;
    bool consistent = true;
    Assignment a = t.pointToAssignment(pt.get(), consistent);
    if (!consistent) return std::nullopt;
    return a;
  }

  static bool isQuasiAffine(const Pred &p) {
    std::vector<const PredNode *> stack{p.node()};
    std::unordered_set<const PredNode *> seen;
    while (!stack.empty()) {
      const PredNode *n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second) continue;
      if (n->lhs && (!n->lhs->quasiAffine || !n->rhs->quasiAffine)) return false;
      for (const Pred &ch : n->children) stack.push_back(ch.node());
    }
    return true;
  }

  /// A real point of `set` (in translation `t`) where `c` holds and `p` has truth `want`.
  std::optional<Assignment> witness(Translation &t, isl_set *set, const Pred &c, const Pred &p,
                                    bool want, SizeDomain sizes) {
    PointPtr pt(check(isl_set_sample_point(check(isl_set_copy(set)))));
    if (checkBool(isl_point_is_void(pt.get()))) return std::nullopt;
    return witness(t, pt.get(), c, p, want, sizes);
  }
  /// As above, from a point already sampled.
  std::optional<Assignment> witness(Translation &t, isl_point *pt, const Pred &c, const Pred &p,
                                    bool want, SizeDomain sizes) {
    bool consistent = true;
    Assignment a = t.pointToAssignment(pt, consistent);
    if (consistent) return a;
    // The point was found on the relaxation (opaque monomials): re-check it, then search.
    if (holds(c, a) && wanted(p, a, want)) return a;
    ++stats.witnessSearches;
    std::vector<Expr> params = parametersOf(c);
    collectParameters(p, params);
    // Small values first (most witnesses are there), then isl with all but one parameter fixed
    // (finds the large points an element-count limit needs: m*n > 2**63 - 1 at n = 1), then the
    // whole box. A small box that fails costs little; a whole one that fails costs the most.
    const uint64_t small = std::min<uint64_t>(options.witnessSearchPoints, 256);
    if (auto found = searchBox(params, c, p, want, small)) return found;
    if (auto found = searchByFixing(params, c, p, want, sizes)) return found;
    if (small == options.witnessSearchPoints) return std::nullopt;
    return searchBox(params, c, p, want, options.witnessSearchPoints);
  }

  /// Relaxed points at most this many are all tried (realPointAmong), and at most this many
  /// nodes evaluated in all (a point costs the size of the predicate and the assumptions), so
  /// that trying them takes milliseconds: evaluation is not bounded by isl's quota.
  static constexpr uint64_t kMaxRelaxedBox = 4096;
  static constexpr uint64_t kMaxRelaxedEvaluation = uint64_t(1) << 22;

  /// A real point of the question where the assumptions hold and `p` is `want`, found by trying
  /// every point of the box that bounds the real parameters in `relaxed` (the relaxation's set of
  /// such points: a set over the real parameters and the opaque products), when that box has at
  /// most kMaxRelaxedBox points. Every real point of the question is in the box (its products'
  /// values make it a point of the relaxation), so `decided` with no point found means there is
  /// none. Nullopt with `decided` false when the box is unbounded or larger (m**2 == 8 gives
  /// m <= 8, since a power of a parameter is at least the parameter; n*m == 7 bounds neither),
  /// or when the clock stopped the search.
  std::optional<Assignment> realPointAmong(Translation &t, isl_set *relaxed, const Pred &c, const Pred &p,
                                           bool want, bool &decided) {
    decided = false;
    std::vector<const ExprNode *> params;
    std::vector<Integer> low, high;
    const uint64_t perPoint = p.node()->treeSize + c.node()->treeSize;
    Integer points(1);
    for (auto &[node, pos] : t.paramIndex) {
      Integer bound[2];
      for (int side = 0; side < 2; ++side) {
        AffPtr x(check(isl_aff_var_on_domain(t.localSpace().release(), isl_dim_param, pos)));
        ValPtr v(check(side == 0 ? isl_set_min_val(relaxed, x.get()) : isl_set_max_val(relaxed, x.get())));
        if (!checkBool(isl_val_is_int(v.get()))) return std::nullopt; // unbounded, or no point
        bound[side] = fromVal(v.get());
      }
      points = points * (bound[1] - bound[0] + Integer(1));
      if (points > Integer(int64_t(kMaxRelaxedBox)) ||
          points * Integer(int64_t(std::min<uint64_t>(perPoint, kMaxRelaxedEvaluation))) > Integer(int64_t(kMaxRelaxedEvaluation)))
        return std::nullopt;
      params.push_back(node.node());
      low.push_back(bound[0]);
      high.push_back(bound[1]);
    }
    return firstInBox(params, low, high, c, p, want, decided);
  }

  /// The context's set in the question's parameter space, cached per (context, space):
  /// successive questions over the same parameters reuse it.
  struct CachedContext {
    std::vector<Expr> meaning; // what each isl parameter stands for, in order
    SetPtr set;
  };
  struct ContextKeyHash {
    std::size_t operator()(const std::pair<Pred, SizeDomain> &k) const {
      return k.first.hash() * 31 + std::size_t(k.second);
    }
  };
  std::unordered_map<std::pair<Pred, SizeDomain>, CachedContext, ContextKeyHash> contextCache;

  SetPtr contextSet(Translation &t, const Context &c) {
    std::pair<Pred, SizeDomain> key{c.assumptions(), c.domain()};
    auto it = contextCache.find(key);
    if (it != contextCache.end() && it->second.meaning == t.meaning)
      return SetPtr(check(isl_set_copy(it->second.set.get())));
    SetPtr C = t.holdsWithin(c.assumptions(), c.domain());
    if (contextCache.size() > 4096) contextCache.clear();
    CachedContext &slot = contextCache[key];
    slot.meaning = t.meaning;
    slot.set.reset(check(isl_set_copy(C.get())));
    return C;
  }

  /// The context's points where `p` does not hold (undefined counts as not holding).
  static SetPtr violations(Translation &t, const SetPtr &C, const SetPtr &H, const Pred &p) {
    if (p.node()->total) {
      // fails() may throw (isl's quota): nothing owned may sit in a half-built argument list.
      SetPtr f = t.fails(p);
      return SetPtr(check(isl_set_intersect(check(isl_set_copy(C.get())), f.release())));
    }
    return SetPtr(check(isl_set_subtract(check(isl_set_copy(C.get())), check(isl_set_copy(H.get())))));
  }

  Decision unknown(const Pred &p, std::string reason) {
    Decision d;
    d.answer = Answer::Unknown;
    d.residual = p;
    d.reason = std::move(reason);
    return d;
  }

  /// `undecidedInBox` (when given) is set when the answer is exactly "depends" without isl: an
  /// affine comparison (not `!=`) over parameters whose interval straddles zero, in a context
  /// that is exactly its box — the interval's ends are the form's least and greatest values
  /// there (each reached at a corner of the box), so some point satisfies it and some does not.
  std::optional<Decision> fastPath(const Context &c, const Pred &p, bool *undecidedInBox = nullptr) {
    // A refutation carries a real point of the context; without one, isl and the witness
    // search decide (DESIGN §3.3).
    bool canRefute = c.consistencyProven();
    if (auto v = p.constantValue()) {
      if (!*v && !canRefute) return std::nullopt;
      return *v ? Decision::proven() : Decision::refuted(completed(c.samplePoint(), c, p));
    }
    // Interval bounds of a single affine comparison over parameters, or of its negation.
    const PredNode *n = p.node();
    const bool negated = n->kind == PredKind::Not && n->children.size() == 1 &&
                         n->children[0].kind() == PredKind::Compare;
    if (negated) n = n->children[0].node();
    if (n->kind != PredKind::Compare || !n->lhs->total || !n->rhs->total) return std::nullopt;
    // lhs - rhs as (parameter, coefficient) pairs, read off both sides without building the
    // difference as an expression (this runs before every question).
    Integer constant;
    std::vector<std::pair<const ExprNode *, Integer>> terms;
    auto addSide = [&](const Expr &side, int sign) {
      const ExprNode *e = side.node();
      auto add = [&](const ExprNode *param, const Integer &coefficient) {
        for (auto &[x, k] : terms)
          if (x == param) {
            k += sign > 0 ? coefficient : -coefficient;
            return true;
          }
        terms.push_back({param, sign > 0 ? coefficient : -coefficient});
        return true;
      };
      if (e->kind == ExprKind::Constant) {
        constant += sign > 0 ? e->value : -e->value;
        return true;
      }
      if (e->kind == ExprKind::Param) return add(e, Integer(1));
      if (e->kind != ExprKind::Sum) return false;
      constant += sign > 0 ? e->constantTerm : -e->constantTerm;
      for (const Term &t : e->terms) {
        if (t.monomial.size() != 1 || t.monomial[0].second != 1 ||
            t.monomial[0].first->kind != ExprKind::Param)
          return false;
        add(t.monomial[0].first.node(), t.coefficient);
      }
      return true;
    };
    if (!addSide(n->lhs, 1) || !addSide(n->rhs, -1)) return std::nullopt;
    Integer low = constant;
    std::optional<Integer> high = constant;
    for (const auto &[param, coefficient] : terms) {
      if (coefficient.isZero()) continue;
      Context::Interval b = c.boundsOf(param->name);
      bool positive = coefficient.sign() > 0;
      // low += coefficient * (positive ? b.low : b.high), and symmetrically for high.
      if (positive) {
        low += coefficient * b.low;
        if (high && b.high) *high += coefficient * *b.high;
        else high.reset();
      } else {
        if (b.high) low += coefficient * *b.high;
        else return std::nullopt; // unbounded below; no interval answer
        if (high) *high += coefficient * b.low;
      }
    }
    // diff lies in [low, high]; decide `diff OP 0` when the whole interval agrees.
    std::optional<bool> verdict;
    switch (n->op) {
    case CompareOp::GE: if (low.sign() >= 0) verdict = true; else if (high && high->sign() < 0) verdict = false; break;
    case CompareOp::GT: if (low.sign() > 0) verdict = true; else if (high && high->sign() <= 0) verdict = false; break;
    case CompareOp::LE: if (high && high->sign() <= 0) verdict = true; else if (low.sign() > 0) verdict = false; break;
    case CompareOp::LT: if (high && high->sign() < 0) verdict = true; else if (low.sign() >= 0) verdict = false; break;
    case CompareOp::EQ: if (low.sign() > 0 || (high && high->sign() < 0)) verdict = false; else if (low.isZero() && high && high->isZero()) verdict = true; break;
    case CompareOp::NE: if (low.sign() > 0 || (high && high->sign() < 0)) verdict = true; else if (low.isZero() && high && high->isZero()) verdict = false; break;
    }
    // An interval across zero: an order comparison takes both truth values at the box's
    // corners; `==` is only known to be false somewhere (2*n - 2*m == 1 never holds) and `!=`
    // only true somewhere. So in a box the comparison is not implied unless it is `!=`, and its
    // negation is not implied unless it negates `==`.
    if (verdict && negated) verdict = !*verdict;
    if (!verdict && undecidedInBox && c.isBox() && n->op != (negated ? CompareOp::EQ : CompareOp::NE))
      *undecidedInBox = true;
    if (!verdict || (!*verdict && !canRefute)) return std::nullopt;
    return *verdict ? Decision::proven() : Decision::refuted(completed(c.samplePoint(), c, p));
  }

  /// Parameters that the context fixes to one value (n == 1), substituted into a predicate with
  /// products before they are made opaque: under n == 1, n**2 is 1, not an unknown atom.
  /// Likewise a parameter that an equality of the context defines by the other parameters
  /// (`d == h*q`, `n == m + 1`): under d == h*q the element count b*d*t of a reshape to
  /// (b, t, h, q) is b*h*q*t, the same opaque atom as the result's, where it was another atom
  /// (and the reshape Unknown). Exact: at every point of the context the parameter equals what
  /// replaces it (an equality holds only where its sides are defined).
  Pred withFixedParameters(const Context &c, const Pred &p) {
    if (isQuasiAffine(p)) return p;
    std::map<std::string, Expr> fixed;
    for (Expr x : parametersOf(p)) {
      Context::Interval b = c.boundsOf(x.node()->name);
      if (b.high && *b.high == b.low) fixed.emplace(x.node()->name, Expr(b.low));
    }
    Pred q = fixed.empty() ? p : substitute(p, fixed);
    for (const Pred &e : conjuncts(c.assumptions())) {
      if (e.kind() != PredKind::Compare || e->op != CompareOp::EQ) continue;
      if (auto [x, by] = definedParameter(e); x && !fixed.count(x->name)) {
        const std::vector<Expr> used = parametersOf(q);
        if (std::find(used.begin(), used.end(), x) == used.end()) continue;
        fixed.emplace(x->name, by);
        q = substitute(q, {{x->name, by}});
      }
    }
    return q;
  }

  /// For an equality `x + rest == 0` (either side) in which the parameter x has coefficient 1
  /// or -1 and appears nowhere in `rest`, which is total: x and what it equals, -rest or rest.
  /// Else a null x.
  static std::pair<Expr, Expr> definedParameter(const Pred &equality) {
    const Expr difference = equality->lhs - equality->rhs;
    if (difference.kind() != ExprKind::Sum) return {};
    for (const Term &t : difference->terms) {
      if (t.monomial.size() != 1 || t.monomial[0].second != 1 || !Integer::abs(t.coefficient).isOne()) continue;
      const Expr &x = t.monomial[0].first;
      if (x.kind() != ExprKind::Param) continue;
      const Expr rest = difference - Expr(t.coefficient) * x;
      if (!rest.isTotal()) continue;
      const std::vector<Expr> restParameters = parametersOf(rest);
      if (std::find(restParameters.begin(), restParameters.end(), x) != restParameters.end()) continue;
      // x + rest == 0 gives x == -rest; -x + rest == 0 gives x == rest.
      return {x, t.coefficient.sign() > 0 ? Expr(0) - rest : rest};
    }
    return {};
  }

  /// A min, max or choice that is a factor of a product in `p` (a term of degree 2 or more:
  /// `m*max(0, n - 1)`, `min(1, n)*max(0, m)`), or null. To isl such a product is an opaque
  /// atom, unrelated to its factors.
  static const ExprNode *piecewiseFactor(const Pred &p) {
    std::unordered_set<const void *> seen;
    std::function<const ExprNode *(const ExprNode *)> inExpr;
    std::function<const ExprNode *(const PredNode *)> inPred;
    inExpr = [&](const ExprNode *n) -> const ExprNode * {
      if (!seen.insert(n).second) return nullptr;
      for (const Term &t : n->terms) {
        const bool product = t.monomial.size() > 1 || t.monomial[0].second > 1;
        for (auto &[atom, k] : t.monomial) {
          const ExprKind kind = atom->kind;
          if (product && (kind == ExprKind::Min || kind == ExprKind::Max || kind == ExprKind::Select)) return atom.node();
          if (const ExprNode *f = inExpr(atom.node())) return f;
        }
      }
      for (const Expr &o : n->operands)
        if (const ExprNode *f = inExpr(o.node())) return f;
      return n->condition ? inPred(n->condition.node()) : nullptr;
    };
    inPred = [&](const PredNode *n) -> const ExprNode * {
      if (!seen.insert(n).second) return nullptr;
      if (n->lhs)
        for (const Expr *side : {&n->lhs, &n->rhs})
          if (const ExprNode *f = inExpr(side->node())) return f;
      for (const Pred &c : n->children)
        if (const ExprNode *f = inPred(c.node())) return f;
      return nullptr;
    };
    return inPred(p.node());
  }

  /// `p` (total) with each min, max or choice that is a factor of a product replaced by its
  /// operands, case by case: `m*max(0, n - 1) <= k` is `(0 >= n - 1 and 0 <= k) or (n - 1 > 0
  /// and m*n - m <= k)`. The same set, exactly (at every point exactly one case holds, and
  /// there the atom is that operand); products of sizes then remain, which the solver bounds.
  /// At most `depth` atoms are split on one path.
  static Pred splitPiecewiseFactors(const Pred &p, int depth) {
    const ExprNode *a = depth > 0 ? piecewiseFactor(p) : nullptr;
    if (!a) return p;
    const Expr atom(a);
    std::vector<Pred> cases;
    auto add = [&](const Pred &guard, const Expr &value) {
      cases.push_back(splitPiecewiseFactors(guard && substituteAtom(p, atom, value), depth - 1));
    };
    if (a->kind == ExprKind::Select) {
      add(a->condition, a->operands[0]);
      add(!a->condition, a->operands[1]);
    } else {
      const ExprOperands &o = a->operands;
      // Operand i where it is the first extreme one: the cases are disjoint.
      for (std::size_t i = 0; i < o.size(); ++i) {
        std::vector<Pred> chosen;
        for (std::size_t j = 0; j < o.size(); ++j) {
          if (j == i) continue;
          const bool strict = j < i;
          chosen.push_back(a->kind == ExprKind::Min ? (strict ? lt(o[i], o[j]) : le(o[i], o[j]))
                                                    : (strict ? gt(o[i], o[j]) : ge(o[i], o[j])));
        }
        add(Pred::conjunction(chosen), o[i]);
      }
    }
    return Pred::disjunction(cases);
  }

  /// Atoms split on one path of splitPiecewiseFactors (a choice, or a min or max of two, gives
  /// two cases: at most 16 cases from such atoms).
  static constexpr int kPiecewiseSplits = 4;

  /// Where `p` holds (its definedness, then its total form), or where it fails (`failing`: it is
  /// undefined or its total form's negation holds), with piecewise factors of products split.
  /// Each is a union of cases; throws InputTooLarge past the expression limits.
  static Pred splitWhere(const Pred &p, bool failing) {
    const Pred def = definedness(p), total = totalized(p);
    return failing ? !def || splitPiecewiseFactors(!total, kPiecewiseSplits)
                   : def && splitPiecewiseFactors(total, kPiecewiseSplits);
  }

  /// `p` where it holds with piecewise factors of products split (splitWhere), when it has any;
  /// else `p` itself. Past the expression limits, `p` itself.
  static Pred withPiecewiseFactorsSplit(const Pred &p) {
    if (isQuasiAffine(p) || !piecewiseFactor(p)) return p;
    try {
      return splitWhere(p, false);
    } catch (const InputTooLarge &) {
      return p;
    }
  }

  /// Whether `original` fails (`failing`) or holds at no point of the context, asked with the
  /// piecewise factors of its products split (splitWhere): the points where it fails are read as
  /// the split of its negation, a union of cases. (The complement of the split itself would be
  /// an intersection of unions: each case doubles isl's work.)
  bool splitIsEmpty(const Context &c, const Pred &original, bool failing) {
    const Pred q = splitWhere(withFixedParameters(c, original), failing);
    Translation t;
    t.build(ctx, {c.assumptions(), q, definedness(c.assumptions())}, &translations);
    SetPtr C = contextSet(t, c);
    SetPtr where = t.set(q);
    SetPtr both(check(isl_set_intersect(C.release(), where.release())));
    if (checkBool(isl_set_is_empty(both.get()))) return true;
    return t.hasOpaqueAtoms() && t.noRealPointWithinOwnEnvelopes(both.get());
  }

  /// Calls `visit` on small points of the context until it returns true, and says whether it
  /// did. The points are small — every parameter at one value, or all at a base value but
  /// one — then the same with far values (2**31, 2**62, 2**63 - 1), then the context's own
  /// point completed with 0. Each is visited only if the context's assumptions evaluate to
  /// true there; a point whose values are too large to compute with is skipped. Finding none
  /// proves nothing (isl decides then).
  template <class Visit> bool atSmallPoints(const Context &c, const Pred &p, Visit visit, bool few = false) const {
    std::vector<Expr> params = parametersOf(c.assumptions());
    collectParameters(p, params);
    if (params.empty() || params.size() > 8) return false;
    const bool unconstrained = c.assumptions().constantValue() == std::optional<bool>(true);
    auto tryPoint = [&](const Assignment &a) {
      try {
        if (!unconstrained && !holds(c.assumptions(), a)) return false;
        return visit(a);
      } catch (const UserError &) {
        return false;
      }
    };
    Assignment a;
    auto fill = [&](int64_t base, std::size_t which, int64_t value) {
      for (std::size_t i = 0; i < params.size(); ++i)
        a.set(params[i].node()->name, Integer(i == which ? value : base));
    };
    // Small values first; then far ones, where products of sizes pass the element limit.
    static constexpr int64_t kValues[] = {0, 1, 2, 3, 5, 8};
    static constexpr int64_t kFar[] = {int64_t(1) << 31, int64_t(1) << 62, INT64_MAX};
    auto uniform = [&](std::span<const int64_t> values) {
      for (int64_t v : values) {
        fill(v, params.size(), 0);
        if (tryPoint(a)) return true;
      }
      return false;
    };
    auto oneDiffers = [&](std::span<const int64_t> values) {
      if (params.size() > 1)
        for (int64_t base : {0, 1, 3})
          for (std::size_t i = 0; i < params.size(); ++i)
            for (int64_t v : values) {
              if (v == base) continue;
              fill(base, i, v);
              if (tryPoint(a)) return true;
            }
      return false;
    };
    if (few) {
      // A handful of points: every parameter at 0, 1, 2 or 3, then each in turn at 0 or 3 among 1s.
      static constexpr int64_t kFew[] = {0, 1, 2, 3};
      if (uniform(kFew)) return true;
      if (params.size() > 1)
        for (std::size_t i = 0; i < params.size(); ++i)
          for (int64_t v : {0, 3}) {
            fill(1, i, v);
            if (tryPoint(a)) return true;
          }
      return false;
    }
    // A far witness reads best with one far value among small ones.
    if (uniform(kValues) || oneDiffers(kValues) || oneDiffers(kFar) || uniform(kFar)) return true;
    // Last, as its values may be large: the context's own point.
    if (c.consistencyProven()) {
      a = c.samplePoint();
      for (const Expr &x : params)
        if (!a.find(x.node()->name)) a.set(x.node()->name, Integer(0));
      if (tryPoint(a)) return true;
    }
    return false;
  }

  /// Whether evaluation finds a small point of the context where `p` does not hold (is false
  /// or undefined): then the context does not imply `p`, and no isl question is needed to say so.
  bool refutedAtSmallPoints(const Context &c, const Pred &p, bool few = false) const {
    return atSmallPoints(c, p, [&](const Assignment &a) { return evaluate(p, a) != std::optional<bool>(true); }, few);
  }

  /// A small point of the context where `p` holds and one where it does not (false or
  /// undefined), when evaluation finds both: the answer is then Depends, and isl is needed only
  /// for the exact condition. Small witnesses also read better than isl's sample points.
  /// (When evaluation finds only one side, that point still serves: as the witness of a
  /// refutation, or as one side of a Depends, so isl's sample point need not be searched from.)
  struct SmallWitnesses {
    std::optional<Assignment> yes, no;
  };
  SmallWitnesses smallWitnesses(const Context &c, const Pred &p) const {
    SmallWitnesses w;
    atSmallPoints(c, p, [&](const Assignment &a) {
      bool v = evaluate(p, a) == std::optional<bool>(true);
      if (v && !w.yes) w.yes = a;
      if (!v && !w.no) w.no = a;
      return w.yes && w.no;
    });
    return w;
  }

  /// A question in isl: the predicate (fixed parameters substituted), its translation, the
  /// context's set C and the set H where the predicate holds.
  struct Translated {
    Pred p;
    Translation t;
    SetPtr C, H;
  };
  /// With `split`, min, max and choices that are factors of products are split case by case
  /// (withPiecewiseFactorsSplit): the same set, over products of sizes alone.
  void translate(const Context &c, const Pred &original, Translated &q, bool split = false) {
    q.p = withFixedParameters(c, original);
    if (split) q.p = withPiecewiseFactorsSplit(q.p);
    q.t.build(ctx, {c.assumptions(), q.p, definedness(q.p), definedness(c.assumptions())}, &translations);
    q.C = contextSet(q.t, c);
    q.H = q.t.holds(q.p);
  }

  struct CompactKey {
    Pred assumptions;
    SizeDomain domain;
    Expr e;
    bool operator==(const CompactKey &o) const { return assumptions == o.assumptions && domain == o.domain && e == o.e; }
  };
  struct CompactKeyHash {
    std::size_t operator()(const CompactKey &k) const {
      return (k.assumptions.hash() * 31 + std::size_t(k.domain)) * 31 + k.e.hash();
    }
  };
  std::unordered_map<CompactKey, std::optional<Expr>, CompactKeyHash> compactMemo;
  /// noteJointlyImpossible's lists, per context (assumptions, domain), each sorted by node
  /// address (the handles keep the nodes, so an address stays theirs); the oldest go first past
  /// kImpossibleLists per context.
  static constexpr std::size_t kImpossibleLists = 256;
  std::unordered_map<std::pair<Pred, SizeDomain>, std::deque<std::vector<Pred>>, ContextKeyHash> impossible;

  /// `work()`, which gives nullopt for "no answer", under one question's budget; nullopt too
  /// when isl stops (its quota, the clock or memory, counted in the stats) or the question is
  /// too hard or too large for it.
  template <class F> auto attempt(F work) -> decltype(work()) {
    Budget budget(*this);
    try {
      return work();
    } catch (const IslFailure &) {
      (void)budget.exhausted();
      isl_ctx_reset_error(ctx);
    } catch (const TooHard &) {
    } catch (const InputTooLarge &) {
    }
    return std::nullopt;
  }

  /// `e` (total, quasi-affine) as isl writes its function on the context: the pieces gisted
  /// and coalesced, then printed by the AST generator, which uses min, max and choices.
  std::optional<Expr> compactWithIsl(const Context &c, const Expr &e) {
    ++stats.islQuestions;
    return attempt([&]() -> std::optional<Expr> {
      Translation t;
      t.build(ctx, {c.assumptions(), ge(e, Expr(0)), definedness(c.assumptions())}, &translations);
      if (t.hasOpaqueAtoms()) return std::nullopt;
      SetPtr C = contextSet(t, c);
      PwAffPtr f = t.pwAffCopy(e);
      f.reset(check(isl_pw_aff_gist_params(f.release(), check(isl_set_copy(C.get())))));
      f.reset(check(isl_pw_aff_coalesce(f.release())));
      if (!Translation::fitsAstGenerator(f.get())) return std::nullopt;
      AstBuildPtr build(check(isl_ast_build_from_context(t.domain(c.domain()).release())));
      AstExprPtr a(shield.run(ctx, [&] { return check(isl_ast_build_expr_from_pw_aff(build.get(), f.release())); }));
      return t.astToExpr(a.get());
    });
  }

  /// Solver::smallestPoint's work: minimise the sum of the sizes over the set where `c` and `p`
  /// hold (each size at most `bound`), fix it, then minimise each size in `order` and fix it.
  std::optional<Assignment> smallestWithIsl(const Context &c, const Pred &p, const std::vector<std::string> &order,
                                            const Integer &bound) {
    if (!isQuasiAffine(c.assumptions()) || !isQuasiAffine(p)) return std::nullopt;
    ++stats.islQuestions;
    return attempt([&]() -> std::optional<Assignment> {
      Translation t;
      t.build(ctx, {c.assumptions(), p, definedness(c.assumptions()), definedness(p)});
      if (t.hasOpaqueAtoms()) return std::nullopt;
      SetPtr within = t.holdsWithin(c.assumptions(), c.domain());
      SetPtr where = t.holds(p);
      SetPtr target(check(isl_set_intersect(within.release(), where.release())));
      // Positions in the order asked for: named ones first, the others by name.
      std::vector<std::pair<std::size_t, int>> ranked;
      for (auto &[node, pos] : t.paramIndex) {
        auto at = std::find(order.begin(), order.end(), node->name);
        ranked.push_back({std::size_t(at - order.begin()), pos});
      }
      std::sort(ranked.begin(), ranked.end(), [&](const auto &a, const auto &b) {
        if (a.first != b.first) return a.first < b.first;
        return t.names[std::size_t(a.second)] < t.names[std::size_t(b.second)];
      });
      auto var = [&](int pos) { return AffPtr(check(isl_aff_var_on_domain(t.localSpace().release(), isl_dim_param, pos))); };
      auto pw = [&](const AffPtr &a) { return PwAffPtr(check(isl_pw_aff_from_aff(check(isl_aff_copy(a.get()))))); };
      auto restrict = [&](PwAffPtr lhs, PwAffPtr rhs, bool equal) {
        SetPtr s(check(equal ? isl_pw_aff_eq_set(lhs.release(), rhs.release()) : isl_pw_aff_le_set(lhs.release(), rhs.release())));
        target.reset(check(isl_set_intersect(target.release(), s.release())));
      };
      AffPtr sum(check(isl_aff_zero_on_domain(t.localSpace().release())));
      for (auto &[rank, pos] : ranked) {
        restrict(pw(var(pos)), t.constant(bound), false);
        AffPtr x = var(pos);
        sum.reset(check(isl_aff_add(sum.release(), x.release())));
      }
      auto least = [&](const AffPtr &objective) -> std::optional<Integer> {
        ValPtr v(check(isl_set_min_val(target.get(), objective.get())));
        if (!checkBool(isl_val_is_int(v.get()))) return std::nullopt; // empty (or unbounded)
        return fromVal(v.get());
      };
      std::optional<Integer> total = least(sum);
      if (!total) return std::nullopt;
      restrict(pw(sum), t.constant(*total), true);
      Assignment a;
      for (auto &[rank, pos] : ranked) {
        AffPtr x = var(pos);
        std::optional<Integer> v = least(x);
        if (!v) return std::nullopt;
        restrict(pw(x), t.constant(*v), true);
        a.set(t.names[std::size_t(pos)], *v);
      }
      // The point is checked by exact evaluation, as every witness is.
      if (!holds(c.assumptions(), completed(a, c, p)) || !holds(p, completed(a, c, p))) return std::nullopt;
      return completed(a, c, p);
    });
  }

  /// Only whether the context implies p: one emptiness test, no witness, no condition.
  bool provenWithIsl(const Context &c, const Pred &original) {
    ++stats.islQuestions;
    Budget budget(*this);
    try {
      Translated q;
      translate(c, original, q);
      SetPtr V = violations(q.t, q.C, q.H, q.p);
      if (checkBool(isl_set_is_empty(V.get()))) return true;
      // Opaque products with piecewise factors: asked again with those split (decideWithIsl).
      if (!q.t.hasOpaqueAtoms() || outOfTime() || !piecewiseFactor(q.p)) return false;
      ++stats.piecewiseSplits;
      return splitIsEmpty(c, original, true);
    } catch (const IslFailure &) {
      isl_ctx_reset_error(ctx);
      return false;
    } catch (const TooHard &) {
      return false;
    } catch (const InputTooLarge &) {
      return false;
    }
  }

  /// The condition read back from isl must separate the two witnesses; anything else is a
  /// translation cut short, and a wrong condition is never reported.
  static bool separates(const Pred &condition, const Assignment &yes, const Assignment &no) {
    try {
      return holds(condition, yes) && !holds(condition, no);
    } catch (const NameError &) {
      return false; // a parameter the witnesses do not give: not confirmed
    }
  }

  /// The exact condition, read from isl, of a Depends that the points `yes` and `no` settled.
  /// Where isl stops (its budget) or disagrees with the points: the predicate itself, which is
  /// its own exact condition, only not simplified under the context.
  Pred conditionFromIsl(const Context &c, const Pred &original, const Assignment &yes, const Assignment &no) {
    ++stats.conditionsRead;
    std::optional<Pred> read = attempt([&]() -> std::optional<Pred> {
      // Where the plain form's condition is not exact (opaque products with piecewise factors
      // keep isl's sets from separating the witnesses), it is read with those factors split.
      for (bool split : {false, true}) {
        if (split && !piecewiseFactor(original)) break;
        Translated q;
        translate(c, original, q, split);
        Pred condition = q.t.toPred(q.H.get(), q.C.get(), c.domain(), shield);
        if (separates(condition, yes, no)) return condition;
      }
      return std::nullopt;
    });
    if (read) return *read;
    ++stats.conditionsCutShort;
    return original;
  }

  /// A product with a piecewise factor that no point found fails, proven by intervals on each
  /// side of a breakpoint (provenByRangesCut): where that works, isl (which would split the
  /// factor case by case, milliseconds) is not asked.
  bool provenByCuts(const Context &c, const Pred &p, const SmallWitnesses &small) {
    if (small.no || !piecewiseFactor(p) || !provenByRangesCut(c, p)) return false;
    ++stats.ranges;
    return true;
  }

  /// Its mirror: a predicate that fails at a point found and holds at none, whose negation
  /// intervals prove (plainly or cut): `p` fails everywhere, and that point is the witness.
  /// Jointly impossible obligations (n >= 1 and m*max(0, 1 - n) >= 1, or m >= 1 and
  /// -m + min(1, n) >= 1) are such.
  bool refutedByCuts(const Context &c, const Pred &p, const SmallWitnesses &small) {
    if (!small.no || small.yes) return false;
    const Pred fails = !p;
    if (!provenByRangesCut(c, fails)) return false;
    ++stats.ranges;
    return true;
  }

  /// Depends from two points of the context found by evaluation: isl is asked nothing now,
  /// and for the exact condition only when it is read.
  std::optional<Decision> dependsByPoints(const Context &c, const Pred &original, SmallWitnesses &small) {
    try {
      small = smallWitnesses(c, original);
    } catch (const InputTooLarge &) {
      return std::nullopt;
    }
    if (!small.yes || !small.no) return std::nullopt;
    ++stats.dependsByPoints;
    Decision d;
    d.answer = Answer::Depends;
    d.satisfying = completed(*small.yes, c, original);
    d.violating = completed(*small.no, c, original);
    d.setConditionOnRead([solver = weak_from_this(), options = options, c, original, yes = *d.satisfying,
                          no = *d.violating] {
      // The solver may be gone when the condition is read: then a new one computes it.
      if (auto im = solver.lock()) return im->conditionFromIsl(c, original, yes, no);
      Solver fresh(options);
      return fresh.impl_->conditionFromIsl(c, original, yes, no);
    });
    return d;
  }

  Decision decideWithIsl(const Context &c, const Pred &original) {
    SmallWitnesses small;
    if (auto d = dependsByPoints(c, original, small)) return *d;
    if (provenByCuts(c, original, small)) return Decision::proven();
    if (refutedByCuts(c, original, small)) return Decision::refuted(completed(*small.no, c, original));
    ++stats.islQuestions;
    Budget budget(*this);
    // A product with a min, max or choice as a factor is one opaque atom to isl, unrelated to
    // its factors. Where the question is undecided because of such atoms, it is asked again
    // with them split case by case, under the same budget: an answer the plain form gives is
    // never changed, and only an Unknown can become an exact answer.
    // The split form is asked only whether p fails nowhere or holds nowhere (two emptiness
    // tests): the plain form has already searched for the real witnesses it would need else.
    bool again = false;
    std::optional<Assignment> realNo;
    Decision d = decideTranslated(c, original, small, budget, again, realNo);
    if (!again) return d;
    ++stats.piecewiseSplits;
    try {
      if (splitIsEmpty(c, original, true)) return Decision::proven();
      if (realNo && splitIsEmpty(c, original, false)) return Decision::refuted(completed(*realNo, c, original));
    } catch (const IslFailure &) {
      isl_ctx_reset_error(ctx);
    } catch (const TooHard &) {
    } catch (const InputTooLarge &) {
    }
    std::string why = budget.exhausted();
    return unknown(original, why.empty() ? kOpaqueProducts : why);
  }

  /// Neither the clock nor isl's operation quota has stopped the current question: a further
  /// search or a retry may still run under its budget.
  bool budgetLeft() const { return !outOfTime() && isl_ctx_last_error(ctx) != isl_error_quota; }

  static constexpr const char *kOpaqueProducts =
      "the answer depends on products of parameters beyond what the solver decides";

  /// decideWithIsl's question through the plain translation. Where opaque products with
  /// piecewise factors leave it undecided, sets `again` instead of answering (the decision
  /// returned then means nothing), with `realNo` a real point where p fails if one was found.
  Decision decideTranslated(const Context &c, const Pred &original, SmallWitnesses &small, Budget &budget,
                            bool &again, std::optional<Assignment> &realNo) {
    try {
      Translated q;
      translate(c, original, q);
      const Pred &p = q.p;
      Translation &t = q.t;
      const SetPtr &C = q.C, &H = q.H;
      Decision d;
      SetPtr V = violations(t, C, H, p);
      bool opaque = t.hasOpaqueAtoms();
      // A sample point answers emptiness and gives the witness in one isl call.
      PointPtr noPoint(check(isl_set_sample_point(check(isl_set_copy(V.get())))));
      if (checkBool(isl_point_is_void(noPoint.get()))) return Decision::proven();
      SetPtr S(check(isl_set_intersect(check(isl_set_copy(C.get())), check(isl_set_copy(H.get())))));
      PointPtr yesPoint(check(isl_set_sample_point(check(isl_set_copy(S.get())))));
      // p holds at no real point of the context: refuted, given a real point where it fails.
      auto refuted = [&]() {
        auto w = small.no ? small.no : witness(t, noPoint.get(), c.assumptions(), p, false, c.domain());
        if (!w) {
          std::string why = budget.exhausted();
          return unknown(original, why.empty() ? "no real point of the assumptions was found to witness the refutation" : why);
        }
        return Decision::refuted(completed(*w, c, original));
      };
      if (checkBool(isl_point_is_void(yesPoint.get()))) return refuted();
      // A side the small points did not reach, whose relaxation has points, may still have no
      // real one: its own factors' box shows it (jointly impossible obligations over products,
      // 5 to 35 ms each of searching for a point that does not exist before).
      if (opaque && !small.no && t.noRealPointWithinOwnEnvelopes(V.get())) return Decision::proven();
      if (opaque && !small.yes && t.noRealPointWithinOwnEnvelopes(S.get())) return refuted();
      auto yes = small.yes ? small.yes : witness(t, yesPoint.get(), c.assumptions(), p, true, c.domain());
      auto no = !yes ? std::nullopt : small.no ? small.no : witness(t, noPoint.get(), c.assumptions(), p, false, c.domain());
      // Asked without ending the budget: the search below runs under it too.
      if ((!yes || !no) && opaque && budgetLeft()) {
        // The relaxation has points on both sides, but the search found no real one on a side:
        // where the real parameters are confined to a small box there, every point is tried.
        bool decided = false;
        if (!yes) {
          yes = realPointAmong(t, S.get(), c.assumptions(), p, true, decided);
          if (!yes && decided) {
            // p holds at no real point: refuted, given a real point of the context where it fails.
            auto w = small.no ? small.no : witness(t, noPoint.get(), c.assumptions(), p, false, c.domain());
            if (w) return Decision::refuted(completed(*w, c, original));
          }
          if (yes) no = small.no ? small.no : witness(t, noPoint.get(), c.assumptions(), p, false, c.domain());
        }
        if (yes && !no) {
          no = realPointAmong(t, V.get(), c.assumptions(), p, false, decided);
          if (!no && decided) return Decision::proven(); // p fails at no real point of the context
        }
      }
      if (!yes || !no) {
        if (opaque && budgetLeft() && piecewiseFactor(p)) {
          again = true;
          realNo = no ? no : small.no; // (no is searched for only once yes is found)
          return d;
        }
        std::string why = budget.exhausted();
        if (!why.empty()) return unknown(original, why);
        if (opaque) return unknown(original, kOpaqueProducts);
        throw InternalError("isl found points on both sides but no witness was read");
      }
      d.answer = Answer::Depends;
      d.satisfying = completed(*yes, c, original);
      d.violating = completed(*no, c, original);
      // Where the condition is too large to read back, the predicate is its own exact one.
      try {
        d.setCondition(t.toPred(H.get(), C.get(), c.domain(), shield));
      } catch (const TooHard &) {
        ++stats.conditionsCutShort;
        d.setCondition(original);
      }
      if (!separates(d.condition(), *d.satisfying, *d.violating)) {
        std::string why = budget.exhausted();
        return unknown(original, why.empty() ? "the condition read back from the solver disagrees with its witnesses" : why);
      }
      return d;
    } catch (const IslFailure &) {
      std::string why = budget.exhausted();
      std::string msg = isl_ctx_last_error_msg(ctx) ? isl_ctx_last_error_msg(ctx) : "unknown isl error";
      isl_ctx_reset_error(ctx);
      return unknown(original, why.empty() ? "the solver failed: " + msg : why);
    } catch (const TooHard &e) {
      return unknown(original, e.reason);
    } catch (const InputTooLarge &e) {
      return unknown(original, std::string("the solver's answer would be too large: ") + e.what());
    }
  }
};

Solver::Solver(SolverOptions options) : impl_(std::make_shared<Impl>(options)) {}
Solver::~Solver() = default;

const SolverStats &Solver::stats() const { return impl_->stats; }
const SolverOptions &Solver::options() const { return impl_->options; }
void Solver::limitOperations(unsigned long perQuestion) {
  if (perQuestion == impl_->options.maxOperations) return;
  impl_->options.maxOperations = perQuestion;
  clearMemo(); // an Unknown kept under one bound is not the answer under another; the new isl context has the bound
}
void Solver::limitTotalTime(uint64_t totalMs) {
  impl_->totalLimitMs = totalMs;
  impl_->watchdog->setSharedDeadline(totalMs ? std::chrono::steady_clock::now() + std::chrono::milliseconds(totalMs)
                                             : std::chrono::steady_clock::time_point());
}
namespace {
std::vector<Pred> byAddress(std::vector<Pred> v) {
  std::sort(v.begin(), v.end(), [](const Pred &a, const Pred &b) { return a.node() < b.node(); });
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}
} // namespace

void Solver::noteJointlyImpossible(const Context &context, std::vector<Pred> predicates) {
  auto &lists = impl_->impossible[{context.assumptions(), context.domain()}];
  lists.push_back(byAddress(std::move(predicates)));
  if (lists.size() > Impl::kImpossibleLists) lists.pop_front();
}

bool Solver::knownJointlyImpossible(const Context &context, const std::vector<Pred> &predicates) const {
  auto it = impl_->impossible.find({context.assumptions(), context.domain()});
  if (it == impl_->impossible.end()) return false;
  const std::vector<Pred> have = byAddress(predicates);
  auto before = [](const Pred &a, const Pred &b) { return a.node() < b.node(); };
  for (const std::vector<Pred> &known : it->second)
    if (std::includes(have.begin(), have.end(), known.begin(), known.end(), before)) {
      ++impl_->stats.impossibleByMemo;
      return true;
    }
  return false;
}

std::shared_ptr<const Decision> Solver::settledJointly(const Context &context, const Pred &conjunction) const {
  const std::shared_ptr<const Decision> *kept =
      impl_->jointMemo.find(MemoKey{context.assumptions(), context.domain(), conjunction});
  if (!kept) return nullptr;
  ++impl_->stats.settledByMemo;
  return *kept;
}

void Solver::keepSettledJointly(const Context &context, const Pred &conjunction, std::shared_ptr<const Decision> decision) {
  if (impl_->jointMemo.size() > (std::size_t(1) << 16)) impl_->jointMemo.clear();
  impl_->jointMemo.emplace(MemoKey{context.assumptions(), context.domain(), conjunction}, std::move(decision));
}

void Solver::clearMemo() {
  impl_->jointMemo.clear();
  impl_->impossible.clear();
  impl_->memo.clear();
  impl_->proofMemo.clear();
  impl_->contextCache.clear();
  impl_->compactMemo.clear();
  impl_->translations.clear();
  impl_->renewIslContext();
}

bool Solver::provesQuickly(const Context &context, const Pred &predicate) {
  Impl &im = *impl_;
  MemoKey key{context.assumptions(), context.domain(), predicate};
  if (const Decision *d = im.memo.find(key)) return d->answer == Answer::Proven;
  if (const bool *proven = im.proofMemo.find(key)) return *proven;
  bool undecidedInBox = false;
  if (auto d = im.fastPath(context, predicate, &undecidedInBox)) return d->answer == Answer::Proven;
  if (undecidedInBox) {
    ++im.stats.fastPaths;
    return false;
  }
  bool proven = false;
  // A few points first: most predicates asked here do not hold (a simplification tries both
  // a <= b and b <= a), and a point where one fails is cheaper to find than ranges that fail.
  if (im.refutedAtSmallPoints(context, predicate, /*few=*/true)) {
    ++im.stats.evaluated;
  } else if (provenByRanges(context, predicate)) {
    ++im.stats.ranges;
    proven = true;
  } else if (im.refutedAtSmallPoints(context, predicate)) {
    ++im.stats.evaluated;
  } else if (im.provenByCuts(context, predicate, {})) {
    proven = true;
  } else {
    proven = im.provenWithIsl(context, predicate);
    // "Not proven" because the clock ran out depends on the machine and the moment: not kept.
    if (!proven && im.outOfTime()) {
      ++im.stats.unkept;
      return proven;
    }
  }
  if (im.proofMemo.size() > (std::size_t(1) << 20)) im.proofMemo.clear();
  im.proofMemo.emplace(key, proven);
  return proven;
}

std::optional<Expr> Solver::compact(const Context &context, const Expr &e) {
  Impl &im = *impl_;
  if (!e.isTotal() || !e.isQuasiAffine() || e.isConstant()) return std::nullopt;
  Impl::CompactKey key{context.assumptions(), context.domain(), e};
  if (auto it = im.compactMemo.find(key); it != im.compactMemo.end()) return it->second;
  std::optional<Expr> r = im.compactWithIsl(context, e);
  if (r && (r->node()->treeSize >= e.node()->treeSize || *r == e)) r.reset();
  if (r && im.refutedAtSmallPoints(context, eq(e, *r))) {
    ++im.stats.compactionsRejected;
    r.reset();
  }
  if (r) ++im.stats.compacted;
  // "Not compacted" because the clock ran out depends on the moment: not kept.
  if (!r && im.outOfTime()) {
    ++im.stats.unkept;
    return r;
  }
  if (im.compactMemo.size() > (std::size_t(1) << 16)) im.compactMemo.clear();
  im.compactMemo.emplace(key, r);
  return r;
}

std::optional<Assignment> Solver::smallestPoint(const Context &context, const Pred &predicate,
                                                const std::vector<std::string> &order, const Integer &bound) {
  return impl_->smallestWithIsl(context, predicate, order, bound);
}

Decision Solver::decide(const Context &context, const Pred &predicate) {
  Impl &im = *impl_;
  ++im.stats.questions;
  MemoKey key{context.assumptions(), context.domain(), predicate};
  if (im.options.memoize) {
    if (const Decision *d = im.memo.find(key)) {
      ++im.stats.memoHits;
      return *d;
    }
  }
  if (auto d = im.fastPath(context, predicate)) {
    ++im.stats.fastPaths;
    return *d;
  }
  Decision d;
  if (provenByRanges(context, predicate)) {
    ++im.stats.ranges;
    d = Decision::proven();
  } else {
    d = im.decideWithIsl(context, predicate);
  }
  // An answer cut short by the clock or memory is not memoized: it depends on the machine.
  bool budgetAnswer = d.answer == Answer::Unknown &&
                      (d.reason.find("time limit") != std::string::npos ||
                       d.reason.find("memory limit") != std::string::npos);
  if (budgetAnswer) ++im.stats.unkept;
  if (im.options.memoize && !budgetAnswer) {
    if (im.memo.size() > (std::size_t(1) << 20)) im.memo.clear();
    im.memo.emplace(key, d);
  }
  return d;
}

Context Solver::makeContext(const std::vector<Pred> &assumptions, SizeDomain domain) {
  return makeContextImpl(assumptions, domain, nullptr);
}

Context Solver::makeContextNear(const std::vector<Pred> &assumptions, SizeDomain domain, const Assignment &point) {
  return makeContextImpl(assumptions, domain, &point);
}

Context Solver::makeContextImpl(const std::vector<Pred> &assumptions, SizeDomain domain, const Assignment *near) {
  auto data = std::make_shared<Context::Data>();
  data->ranges = std::make_shared<detail::RangeMemo>();
  data->domain = domain;
  data->parts = assumptions;
  data->assumptions = Pred::conjunction(assumptions);
  data->parameters = parametersOf(data->assumptions);
  // Interval bounds from single-parameter comparisons with a constant.
  for (const Pred &part : assumptions) {
    for (const Pred &atom : conjuncts(part)) {
      const PredNode *n = atom.node();
      if (n->kind != PredKind::Compare || !n->lhs->total || !n->rhs->total || n->op == CompareOp::NE) {
        data->box = data->box && atom.isTrue();
        continue;
      }
      auto [terms, k] = asPolynomial(n->lhs - n->rhs);
      if (terms.size() != 1 || terms[0].monomial.size() != 1 || terms[0].monomial[0].second != 1 ||
          terms[0].monomial[0].first->kind != ExprKind::Param) {
        data->box = false;
        continue;
      }
      // coefficient * x + k OP 0
      const Integer &co = terms[0].coefficient;
      const std::string &name = terms[0].monomial[0].first->name;
      Context::Interval &iv = data->bounds[name];
      CompareOp op = n->op;
      if (co.sign() < 0) { // flip to a positive coefficient
        switch (op) {
        case CompareOp::LT: op = CompareOp::GT; break;
        case CompareOp::LE: op = CompareOp::GE; break;
        case CompareOp::GT: op = CompareOp::LT; break;
        case CompareOp::GE: op = CompareOp::LE; break;
        default: break;
        }
      }
      Integer a = Integer::abs(co);
      Integer kk = co.sign() < 0 ? -k : k; // a*x + kk OP 0
      auto ceilDiv = [](const Integer &x, const Integer &y) { return -Integer::floorDiv(-x, y); };
      auto raiseLow = [&](const Integer &v) { if (v > iv.low) iv.low = v; };
      auto lowerHigh = [&](const Integer &v) { if (!iv.high || v < *iv.high) iv.high = v; };
      switch (op) {
      case CompareOp::GE: raiseLow(ceilDiv(-kk, a)); break;                 // x >= -kk/a
      case CompareOp::GT: raiseLow(Integer::floorDiv(-kk, a) + 1); break;    // x > -kk/a
      case CompareOp::LE: lowerHigh(Integer::floorDiv(-kk, a)); break;
      case CompareOp::LT: lowerHigh(ceilDiv(-kk, a) - 1); break;
      case CompareOp::EQ:
        if (Integer::floorMod(-kk, a).isZero()) {
          raiseLow(Integer::floorDiv(-kk, a));
          lowerHigh(Integer::floorDiv(-kk, a));
        } else {
          data->box = false;
        }
        break;
      case CompareOp::NE: break;
      }
    }
  }
  // Refused only when proven contradictory; otherwise a real point of it, when one is found.
  if (data->assumptions.isFalse())
    throw InconsistentAssumptions("the assumptions are contradictory: " +
                                  (assumptions.empty() ? std::string("False") : Pred::conjunction(assumptions).toString()));
  for (auto &[name, iv] : data->bounds)
    if (iv.high && (*iv.high < iv.low || (domain == SizeDomain::ArraySizes && iv.low > maxArraySize())))
      throw InconsistentAssumptions("the assumptions are contradictory: no sizes satisfy " +
                                    data->assumptions.toString());
  // A point the caller offers, in the domain and satisfying every assumption: a real point.
  auto offered = [&]() -> std::optional<Assignment> {
    if (!near) return std::nullopt;
    Assignment a;
    for (const Expr &x : data->parameters) {
      const Integer *v = near->find(x->name);
      Integer value = v ? *v : Integer(0);
      if (value.sign() < 0 || (domain == SizeDomain::ArraySizes && value > maxArraySize())) return std::nullopt;
      a.set(x->name, value);
    }
    if (!holds(data->assumptions, a)) return std::nullopt;
    return a;
  };
  if (!data->assumptions.isTrue()) {
    if (std::optional<Assignment> point = offered()) {
      data->sample = *point;
      return Context(data);
    }
    Impl &im = *impl_;
    Impl::Budget budget(im);
    std::optional<Assignment> sample;
    try {
      Translation t;
      t.build(im.ctx, {data->assumptions, definedness(data->assumptions)});
      SetPtr C = t.holdsWithin(data->assumptions, domain);
      if (checkBool(isl_set_is_empty(C.get())))
        throw InconsistentAssumptions("the assumptions are contradictory: no sizes satisfy " +
                                      data->assumptions.toString());
      sample = im.witness(t, C.get(), data->assumptions, Pred::truth(true), true, domain);
      if (!sample && t.hasOpaqueAtoms()) {
        // Where the relaxation confines the sizes to a small box, every point of it is tried.
        bool decided = false;
        sample = im.realPointAmong(t, C.get(), data->assumptions, Pred::truth(true), true, decided);
        if (!sample && decided)
          throw InconsistentAssumptions("the assumptions are contradictory: no sizes satisfy " +
                                        data->assumptions.toString());
      }
    } catch (const IslFailure &) {
      isl_ctx_reset_error(im.ctx);
    } catch (const TooHard &) {
    } catch (const InputTooLarge &) {
    }
    if (sample) data->sample = *sample;
    else data->consistent = false;
    // A point the clock kept the search from finding: a context that is not one to remember.
    if (!sample && im.outOfTime()) ++im.stats.unkept;
  }
  if (data->consistent)
    for (Expr x : data->parameters)
      if (!data->sample.find(x.node()->name)) data->sample.set(x.node()->name, 0);
  return Context(data);
}

Assignment completed(Assignment a, const Context &c, const Pred &p) {
  for (const Expr &x : c.parameters())
    if (!a.find(x->name)) a.set(x->name, 0);
  for (const Expr &x : parametersOf(p))
    if (!a.find(x->name)) a.set(x->name, 0);
  return a;
}

} // namespace shapelab
