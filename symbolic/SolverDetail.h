// SolverDetail — the solver's internals, shared by its parts (internal to symbolic/): isl
// handles and the abort shield, the translation of predicates to isl sets and back
// (Translation: IslTranslate.cpp, IslRead.cpp), and Solver::Impl, whose members are in
// Solver.cpp (contexts, the public questions), SolverWitness.cpp (points: boxes, fixing,
// isl's samples), SolverFastPaths.cpp (contexts as isl sets, fast paths, piecewise splits,
// small points) and SolverPipeline.cpp (compaction, least points, proofs and the decide
// pipeline with its budget).
#pragma once


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

#include "symbolic/Solver.h"

namespace shapelab {

namespace detail {


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
inline bool checkBool(isl_bool b) {
  if (b == isl_bool_error) throw IslFailure{};
  return b == isl_bool_true;
}
/// A walk (isl_*_foreach_*) that isl stopped — its quota or the watchdog — has seen only part
/// of the set: what was gathered must not be read as the whole.
inline void checkStat(isl_stat s) {
  if (s == isl_stat_error) throw IslFailure{};
}

inline ValPtr toVal(isl_ctx *ctx, const Integer &i) {
  if (auto s = i.tryToInt64()) return ValPtr(check(isl_val_int_from_si(ctx, *s)));
  mpz_t z;
  mpz_init(z);
  toMpz(i, z);
  isl_val *v = isl_val_int_from_gmp(ctx, z);
  mpz_clear(z);
  return ValPtr(check(v));
}

inline Integer fromVal(isl_val *v) {
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
inline bool nonNegativeMonomial(const Monomial &m) {
  for (const auto &[atom, k] : m)
    if (k % 2 == 1 && atom.kind() != ExprKind::Param) return false;
  return true;
}

/// True when comparison `p` holds wherever every size is >= 0: its sides differ by terms with
/// positive coefficients on sizes, or on products whose factors to an odd power are sizes (the
/// monomials the solver's domain makes non-negative), plus a constant that suffices (`m >= 0`,
/// `2*n + m*k > -1`). isl's gist drops such constraints, but coalescing brings them back: n == 0
/// or n == 1 becomes 0 <= n <= 1, which was printed `n <= 1 and n >= 0`.
inline bool heldBySizes(const Pred &p) {
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
inline Pred withoutPartsHeldBySizes(const Pred &p) {
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

  ~Translation();

  bool hasOpaqueAtoms() const { return !monomials.empty(); }

  std::unordered_set<const void *> scanned; // each shared node is scanned once (roots held)

  // Registers every parameter and opaque monomial appearing in a node.
  void scan(const Expr &n, std::vector<Expr> &params, std::vector<Monomial> &monos);
  void scan(const Pred &n, std::vector<Expr> &params, std::vector<Monomial> &monos);

  void build(isl_ctx *c, const std::vector<Pred> &roots, TranslationCache *across = nullptr);

  // Every isl argument is owned before a call that takes it: a failing allocation (an aborted
  // question) then never leaks an argument computed before it.
  void nameDimension(int pos, const std::string &name);

  LocalSpacePtr localSpace() const;
  SetPtr universe() const { return SetPtr(check(isl_set_universe(check(isl_space_copy(space.get()))))); }

  PwAffPtr constant(const Integer &v) const;
  PwAffPtr variable(int pos) const;

  /// The "all parameters >= 0 (and <= 2**63 - 1 for array sizes), non-negative monomials >= 0"
  /// set.
  SetPtr domain(SizeDomain sizes) const;

  /// True when `x >= 0` wherever it is defined, by its form alone (parameters are at least 0):
  /// a parameter, a constant >= 0, a sum of such products with coefficients >= 0, and min, max,
  /// select, division and remainder of such. Looks `depth` levels down.
  static bool nonNegativeByForm(const Expr &x, int depth = 6);

  /// True when `a <= b` at every point because the factors pair up: each factor x**k of `a` is
  /// non-negative (k even, or x so by its form) and its partner in `b` is x**k or
  /// max(..., x, ...)**k.
  static bool dominated(const Monomial &a, const Monomial &b);

  int monomialPosition(const Monomial &m) const;

  /// Borrowed result: owned by the memo.
  isl_pw_aff *pwAff(const Expr &n);
  PwAffPtr pwAffCopy(const Expr &n) { return PwAffPtr(check(isl_pw_aff_copy(pwAff(n)))); }

  PwAffPtr translate(const Expr &n);

  /// The set where `n` holds, reading exact division as floor division (see definedness()).
  /// Memoized per node: a predicate DAG is translated in time linear in its size.
  SetPtr set(const Pred &n);

  SetPtr translateSet(const Pred &n);

  /// The set where a total predicate `n` is false, built from the opposite comparisons (De
  /// Morgan) rather than by isl's complement or subtraction, which cost far more. It is the
  /// same set: a total predicate's values are defined everywhere.
  SetPtr fails(const Pred &n);

  /// holds(c) within the size domain: the set of a context's points, its products of two
  /// parameters bounded by their factors' box (withProductEnvelopes).
  SetPtr holdsWithin(const Pred &c, SizeDomain sizes);

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
  SetPtr withProductEnvelopes(SetPtr C, bool *added = nullptr);

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
  bool noRealPointWithinOwnEnvelopes(isl_set *relaxed);
  static constexpr isl_size kMaxEnvelopedDisjuncts = 32;

  /// holds(P) = definedness(P) and P.
  SetPtr holds(const Pred &p);

  /// A point's values for the real parameters, or nullopt when an opaque monomial's
  /// coordinate disagrees with the product of its factors there.
  Assignment pointToAssignment(isl_point *pt, bool &consistent) const;

  // --- back from isl ---------------------------------------------------------------------

  Expr nameToExpr(const char *name) const;

  /// The operands of an AST operation; isl's error (-1, a stopped computation) is a failure,
  /// never "no operands" (an `and` of none would read as True).
  static int argumentCount(isl_ast_expr *e);

  Expr astToExpr(isl_ast_expr *e) const;

  Pred astToPred(isl_ast_expr *e) const;

  /// Σ coefficient·parameter + constant of one constraint, as "positive side OP negative side".
  Pred constraintToPred(isl_constraint *c) const;

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
  static bool fitsAstGenerator(isl_set *s);
  static bool fitsAstGenerator(isl_pw_aff *f);

  /// The set as a predicate, simplified under `context` (gist). Throws TooHard where it has
  /// integer divisions beyond what the AST generator is given (kAstMaxDisjuncts).
  Pred toPred(isl_set *s, isl_set *context, SizeDomain sizes, AbortShield &shield);
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
} // namespace detail

using namespace detail;

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

  static isl_ctx *newIslContext(const SolverOptions &options);

  explicit Impl(SolverOptions o);

  /// Replaces the isl context by a new one. isl keeps freed blocks (and their integers' limbs)
  /// in its context for reuse, so only a new context gives back all that questions allocated.
  /// Every isl object of the old context must be freed first (the caches).
  void renewIslContext();
  ~Impl();
  TranslationCache translations;

  /// One question's time and memory budget, and isl's operation quota, from start to end:
  /// the solver's (SolverOptions::maxOperations), or `quota` operations when it is not 0.
  class Budget {
  public:
    explicit Budget(Impl &im, unsigned long quota = 0) : im_(im) {
      isl_ctx_resume(im.ctx);
      isl_ctx_reset_error(im.ctx);
      isl_ctx_reset_operations(im.ctx);
      isl_ctx_set_max_operations(im.ctx, quota ? quota : im.options.maxOperations);
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
        // Between questions the context keeps the solver's bound (it is made with it).
        isl_ctx_set_max_operations(im_.ctx, im_.options.maxOperations);
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
  std::optional<Assignment> searchBox(const std::vector<Expr> &params, const Pred &c, const Pred &p, bool want, uint64_t budget) const;

  /// The first point of the box (parameter params[i] from low[i] to high[i], the first fastest)
  /// where the assumptions `c` hold and `p` is `want`. `complete` tells, when none is returned,
  /// whether every point was tried: the clock may stop the search first. The points are
  /// NodeValues (a box has up to thousands): no parameter is looked up by its name.
  std::optional<Assignment> firstInBox(const std::vector<const ExprNode *> &params, const std::vector<Integer> &low, const std::vector<Integer> &high, const Pred &c, const Pred &p, bool want, bool &complete) const;

  /// Searches for a real point by fixing every parameter but one to small values: what is left
  /// is often quasi-affine in the last parameter (n*m == 1000003 with n = 1 is m == 1000003),
  /// and isl then gives an exact point of it. Each candidate is re-checked by evaluation.
  std::optional<Assignment> searchByFixing(const std::vector<Expr> &params, const Pred &c, const Pred &p, bool want, SizeDomain sizes);

  /// A real point where `c` holds and `p` has truth `want`, when both are quasi-affine.
  std::optional<Assignment> sampleQuasiAffine(const Pred &c, const Pred &p, bool want, SizeDomain sizes);

  static bool isQuasiAffine(const Pred &p);

  /// A real point of `set` (in translation `t`) where `c` holds and `p` has truth `want`.
  std::optional<Assignment> witness(Translation &t, isl_set *set, const Pred &c, const Pred &p, bool want, SizeDomain sizes);
  /// As above, from a point already sampled.
  std::optional<Assignment> witness(Translation &t, isl_point *pt, const Pred &c, const Pred &p, bool want, SizeDomain sizes);

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
  std::optional<Assignment> realPointAmong(Translation &t, isl_set *relaxed, const Pred &c, const Pred &p, bool want, bool &decided);

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

  SetPtr contextSet(Translation &t, const Context &c);

  /// The context's points where `p` does not hold (undefined counts as not holding).
  static SetPtr violations(Translation &t, const SetPtr &C, const SetPtr &H, const Pred &p);

  Decision unknown(const Pred &p, std::string reason);

  /// `undecidedInBox` (when given) is set when the answer is exactly "depends" without isl: an
  /// affine comparison (not `!=`) over parameters whose interval straddles zero, in a context
  /// that is exactly its box — the interval's ends are the form's least and greatest values
  /// there (each reached at a corner of the box), so some point satisfies it and some does not.
  std::optional<Decision> fastPath(const Context &c, const Pred &p, bool *undecidedInBox = nullptr);

  /// Parameters that the context fixes to one value (n == 1), substituted into a predicate with
  /// products before they are made opaque: under n == 1, n**2 is 1, not an unknown atom.
  /// Likewise a parameter that an equality of the context defines by the other parameters
  /// (`d == h*q`, `n == m + 1`): under d == h*q the element count b*d*t of a reshape to
  /// (b, t, h, q) is b*h*q*t, the same opaque atom as the result's, where it was another atom
  /// (and the reshape Unknown). Exact: at every point of the context the parameter equals what
  /// replaces it (an equality holds only where its sides are defined).
  Pred withFixedParameters(const Context &c, const Pred &p);

  /// For an equality `x + rest == 0` (either side) in which the parameter x has coefficient 1
  /// or -1 and appears nowhere in `rest`, which is total: x and what it equals, -rest or rest.
  /// Else a null x.
  static std::pair<Expr, Expr> definedParameter(const Pred &equality);

  /// A min, max or choice that is a factor of a product in `p` (a term of degree 2 or more:
  /// `m*max(0, n - 1)`, `min(1, n)*max(0, m)`), or null. To isl such a product is an opaque
  /// atom, unrelated to its factors.
  static const ExprNode *piecewiseFactor(const Pred &p);

  /// `p` (total) with each min, max or choice that is a factor of a product replaced by its
  /// operands, case by case: `m*max(0, n - 1) <= k` is `(0 >= n - 1 and 0 <= k) or (n - 1 > 0
  /// and m*n - m <= k)`. The same set, exactly (at every point exactly one case holds, and
  /// there the atom is that operand); products of sizes then remain, which the solver bounds.
  /// At most `depth` atoms are split on one path.
  static Pred splitPiecewiseFactors(const Pred &p, int depth);

  /// Atoms split on one path of splitPiecewiseFactors (a choice, or a min or max of two, gives
  /// two cases: at most 16 cases from such atoms).
  static constexpr int kPiecewiseSplits = 4;

  /// Where `p` holds (its definedness, then its total form), or where it fails (`failing`: it is
  /// undefined or its total form's negation holds), with piecewise factors of products split.
  /// Each is a union of cases; throws InputTooLarge past the expression limits.
  static Pred splitWhere(const Pred &p, bool failing);

  /// `p` where it holds with piecewise factors of products split (splitWhere), when it has any;
  /// else `p` itself. Past the expression limits, `p` itself.
  static Pred withPiecewiseFactorsSplit(const Pred &p);

  /// Whether `original` fails (`failing`) or holds at no point of the context, asked with the
  /// piecewise factors of its products split (splitWhere): the points where it fails are read as
  /// the split of its negation, a union of cases. (The complement of the split itself would be
  /// an intersection of unions: each case doubles isl's work.)
  bool splitIsEmpty(const Context &c, const Pred &original, bool failing);

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
  bool refutedAtSmallPoints(const Context &c, const Pred &p, bool few = false) const;

  /// A small point of the context where `p` holds and one where it does not (false or
  /// undefined), when evaluation finds both: the answer is then Depends, and isl is needed only
  /// for the exact condition. Small witnesses also read better than isl's sample points.
  /// (When evaluation finds only one side, that point still serves: as the witness of a
  /// refutation, or as one side of a Depends, so isl's sample point need not be searched from.)
  struct SmallWitnesses {
    std::optional<Assignment> yes, no;
  };
  SmallWitnesses smallWitnesses(const Context &c, const Pred &p) const;

  /// A question in isl: the predicate (fixed parameters substituted), its translation, the
  /// context's set C and the set H where the predicate holds.
  struct Translated {
    Pred p;
    Translation t;
    SetPtr C, H;
  };
  /// With `split`, min, max and choices that are factors of products are split case by case
  /// (withPiecewiseFactorsSplit): the same set, over products of sizes alone.
  void translate(const Context &c, const Pred &original, Translated &q, bool split = false);

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
  /// The same for lists whose joint question was past the work bound (noteJointlyUndecided).
  std::unordered_map<std::pair<Pred, SizeDomain>, std::deque<std::vector<Pred>>, ContextKeyHash> undecided;
  /// Satisfying points of the latest joint decisions that depend (noteJointPoint), newest last.
  std::deque<Assignment> jointPoints;
  static constexpr std::size_t kJointPoints = 4;

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
  std::optional<Expr> compactWithIsl(const Context &c, const Expr &e);

  /// Solver::smallestPoint's work: minimise the sum of the sizes over the set where `c` and `p`
  /// hold (each size at most `bound`), fix it, then minimise each size in `order` and fix it.
  std::optional<Assignment> smallestWithIsl(const Context &c, const Pred &p, const std::vector<std::string> &order, const Integer &bound);

  /// Only whether the context implies p: one emptiness test (and one with piecewise factors
  /// split), no witness, no condition, within provesQuickly's quota (quickQuota()).
  bool provenWithIsl(const Context &c, const Pred &original);
  /// provesQuickly's quota: quickMaxOperations, at most maxOperations (0 is unbounded).
  unsigned long quickQuota() const {
    const unsigned long quick = options.quickMaxOperations, all = options.maxOperations;
    if (quick == 0) return all;
    return all == 0 ? quick : std::min(quick, all);
  }

  /// The condition read back from isl must separate the two witnesses; anything else is a
  /// translation cut short, and a wrong condition is never reported.
  static bool separates(const Pred &condition, const Assignment &yes, const Assignment &no);

  /// The exact condition, read from isl, of a Depends that the points `yes` and `no` settled.
  /// Where isl stops (its budget) or disagrees with the points: the predicate itself, which is
  /// its own exact condition, only not simplified under the context.
  Pred conditionFromIsl(const Context &c, const Pred &original, const Assignment &yes, const Assignment &no);

  /// A product with a piecewise factor that no point found fails, proven by intervals on each
  /// side of a breakpoint (provenByRangesCut): where that works, isl (which would split the
  /// factor case by case, milliseconds) is not asked.
  bool provenByCuts(const Context &c, const Pred &p, const SmallWitnesses &small);

  /// Its mirror: a predicate that fails at a point found and holds at none, whose negation
  /// intervals prove (plainly or cut): `p` fails everywhere, and that point is the witness.
  /// Jointly impossible obligations (n >= 1 and m*max(0, 1 - n) >= 1, or m >= 1 and
  /// -m + min(1, n) >= 1) are such.
  bool refutedByCuts(const Context &c, const Pred &p, const SmallWitnesses &small);

  /// Depends from two points of the context found by evaluation: isl is asked nothing now,
  /// and for the exact condition only when it is read.
  std::optional<Decision> dependsByPoints(const Context &c, const Pred &original, SmallWitnesses &small);

  Decision decideWithIsl(const Context &c, const Pred &original);

  /// Neither the clock nor isl's operation quota has stopped the current question: a further
  /// search or a retry may still run under its budget.
  bool budgetLeft() const { return !outOfTime() && isl_ctx_last_error(ctx) != isl_error_quota; }

  static constexpr const char *kOpaqueProducts =
      "the answer depends on products of parameters beyond what the solver decides";

  /// decideWithIsl's question through the plain translation. Where opaque products with
  /// piecewise factors leave it undecided, sets `again` instead of answering (the decision
  /// returned then means nothing), with `realNo` a real point where p fails if one was found.
  Decision decideTranslated(const Context &c, const Pred &original, SmallWitnesses &small, Budget &budget, bool &again, std::optional<Assignment> &realNo);
};

} // namespace shapelab
