// Solver — decides predicates over size parameters under a context, exactly (DESIGN §3.3).
//
// Model: decide(C, P) answers one of
//   Proven  — every point of C satisfies P;
//   Refuted — no point of C satisfies P (carries a violating point of C);
//   Depends — some do and some don't (carries a point of each side and the exact condition,
//             simplified under C with isl's gist);
//   Unknown — outside the decidable fragment, or isl's work bound was hit (carries the residual
//             predicate to be checked at run time, and the reason).
// Example: under {n >= 1}, "n % 2 == 0 or n == m" Depends, with condition
// "m == n or n % 2 == 0", a satisfying point {m = 0, n = 0}... and a violating one.
// When small points of C already show both sides, Depends is answered without isl, and isl
// computes the condition only when it is read (Decision::condition()).
//
// How: P and C are translated to isl parameter sets, one parameter per size parameter (all
// >= 0). A monomial of degree > 1 (n*m) becomes one opaque extra parameter, non-negative when
// its odd-power factors are parameters. Proven and Refuted proved on that relaxation are true
// of the real question (the real points are among the relaxed ones). Witnesses are always
// *real* points: when opaque atoms are present each witness is re-checked by exact evaluation,
// and Depends is only reported with real points on both sides — otherwise Unknown.
// A predicate over an expression that is undefined somewhere (exact division) holds only where
// it is defined: holds(P) = definedness(P) and P.
//
// Fast paths answer before isl is asked: constant predicates, comparisons whose sides differ
// by a constant (folded when the predicate is built), interval bounds of single affine
// comparisons (exact in a context that is only bounds: "not implied" when the interval crosses
// zero), and Proven from interval arithmetic over min, max, floor division and choices
// (symbolic/Range.h; one-sided: it never refutes). provesQuickly also says "not implied" when
// evaluation finds a small point of the context where P fails. A product with a min, max or
// choice as a factor that no point fails (an element count of sliced shapes) is tried by
// intervals on each side of a breakpoint (provenByRangesCut) before isl splits the factor
// case by case. Results are memoized per (context, predicate); both are hash-consed, so the
// key is two pointers. Each isl call runs under an operation quota reset per question
// (isl_ctx_set_max_operations / isl_ctx_reset_operations, see shared/reference/isl-notes.md §1.2).
//
// Cost: ~tens of µs for an uncached affine question, well under a µs for a fast path or a memo
// hit (bench/bench_decide.cpp). Not thread-safe: one Solver (one isl_ctx) per thread.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <functional>
#include <memory>

#include "symbolic/Context.h"
#include "symbolic/Evaluate.h"
#include "symbolic/Expr.h"

namespace shapelab {

enum class Answer : uint8_t { Proven, Refuted, Depends, Unknown };
const char *spelling(Answer a); // "proven", "refuted", "depends", "unknown"

struct Decision {
  Answer answer = Answer::Unknown;
  std::optional<Assignment> satisfying; // Depends
  std::optional<Assignment> violating;  // Refuted, Depends
  Pred residual;                        // Unknown: what to check at run time
  std::string reason;                   // Unknown: why it is unknown

  /// The decision on a predicate that holds at every point of the context.
  static Decision proven();
  /// The decision on a predicate that fails at every point of the context; `at` is one of them.
  static Decision refuted(Assignment at);

  /// Depends: the exact condition under C; Proven: True; Refuted: False. A Depends settled by
  /// evaluating two points gets its condition from isl when it is first read (most answers are
  /// only asked for their status); copies of the decision share that work. Read it on the
  /// thread of the solver that answered (a Solver is not thread-safe).
  const Pred &condition() const;
  void setCondition(Pred p);
  /// The condition is `compute()` on first read; `compute` must not throw.
  void setConditionOnRead(std::function<Pred()> compute);
  /// Several lines for a person.
  std::string toString() const;

private:
  struct Deferred {
    std::function<Pred()> compute;
    std::optional<Pred> value;
  };
  Pred condition_;
  std::shared_ptr<Deferred> deferred_;
};

/// A question with more distinct products of parameters (opaque atoms) than this is Unknown
/// at once: each product is one more isl dimension, and isl's cost grows steeply with them.
inline constexpr std::size_t kMaxOpaqueProducts = 32;
/// Parameters (plus opaque products) one question may mention.
inline constexpr std::size_t kMaxQuestionParameters = 256;

struct SolverOptions {
  /// isl operations allowed per question (allocations and pivots); 0 means unbounded.
  unsigned long maxOperations = 400000;
  /// The isl operations provesQuickly may spend (a simplification's or a rule condition's
  /// proof): past them the fact is "not proven" and is not used, which is sound. Deterministic
  /// for one isl version, unlike a time bound; a hard proof is rare there (on the rewrite
  /// family's 10^5-node program, a handful of conditions over slices of slices took 0.1-0.2 s
  /// each). Capped by maxOperations; 0 means maxOperations.
  unsigned long quickMaxOperations = 20000;
  /// Wall-clock time one question (or one context) may take; 0 means unbounded. Past it the
  /// answer is Unknown (a context: accepted without a sample point).
  uint64_t timeLimitMs = 1000;
  /// Growth of the process's resident memory one question may cause; 0 means unbounded.
  uint64_t memoryLimitBytes = uint64_t(256) << 20;
  bool memoize = true;
  /// Largest box searched for a real witness when opaque monomials make isl's point unusable.
  uint64_t witnessSearchPoints = 20000;
};

struct SolverStats {
  uint64_t questions = 0, memoHits = 0, fastPaths = 0, islQuestions = 0, quotaHits = 0,
           timeouts = 0, memoryOuts = 0;
  /// provesQuickly's proofs given up at its bound (SolverOptions::quickMaxOperations).
  uint64_t quickBoundHits = 0;
  /// Answered without isl: "not implied" from a point found by evaluation (provesQuickly), or
  /// "proven" from interval bounds, cut at breakpoints or not (symbolic/Range.h).
  uint64_t evaluated = 0, ranges = 0;
  /// Depends answered from two evaluated points (no isl); the conditions of such answers that
  /// were read (and so computed by isl); those of them where isl stopped, so that the condition
  /// is the predicate itself (exact, not simplified under the context).
  uint64_t dependsByPoints = 0, conditionsRead = 0, conditionsCutShort = 0;
  /// Witnesses searched for by evaluation because isl's point, found where products of
  /// parameters are relaxed to free variables, was not a real point.
  uint64_t witnessSearches = 0;
  /// compact(): expressions isl rewrote smaller; those whose rewriting disagreed with the
  /// original at an evaluated point (a fault: the original is kept, and tests expect 0).
  uint64_t compacted = 0, compactionsRejected = 0;
  /// Questions asked again with the mins, maxes and choices that are factors of products split
  /// case by case, because opaque products left them undecided.
  uint64_t piecewiseSplits = 0;
  /// Lists of predicates found jointly impossible by a remembered list they hold
  /// (knownJointlyImpossible), with no question asked.
  uint64_t impossibleByMemo = 0;
  /// Lists of predicates answered Unknown by a remembered list they hold (knownJointlyUndecided).
  uint64_t undecidedByMemo = 0;
  /// Conjunctions of obligations that each depend whose decision was kept (settledJointly).
  uint64_t settledByMemo = 0;
  /// Answers that the clock or the memory limit cut short, and so were not remembered (they
  /// depend on the machine and the moment), and contexts whose point the clock kept from being
  /// found. A memo built on the solver's answers keeps nothing computed while this grew
  /// (Graph::sliceLength's, Graph::contextFor's, the element-count and reply-status memos).
  uint64_t unkept = 0;
  /// Wall-clock seconds the questions that reached isl took (decide's), and the longest one:
  /// machine-dependent, for benchmarks that ask where a run's time went; and how many took
  /// 100 ms or more.
  double islSeconds = 0, slowestIslSeconds = 0;
  uint64_t slowIslQuestions = 0;
};

class Solver {
public:
  explicit Solver(SolverOptions options = {});
  ~Solver();
  Solver(const Solver &) = delete;
  Solver &operator=(const Solver &) = delete;

  /// Builds a context; throws InconsistentAssumptions only when the assumptions are *proven*
  /// contradictory. When their consistency cannot be decided (products of parameters, the
  /// work bound), the context is accepted and `Context::consistencyProven()` says so.
  Context makeContext(const std::vector<Pred> &assumptions,
                      SizeDomain domain = SizeDomain::ArraySizes);
  /// The same, given a point the caller expects to satisfy the assumptions (parameters it leaves
  /// out are 0): when it is in the size domain and every assumption holds there (exact
  /// evaluation), it is the context's sample and isl is not asked (a real point proves the
  /// assumptions consistent); otherwise this is makeContext(assumptions, domain). For a caller
  /// that adds assumptions to a context whose sample often satisfies them, as a graph adds
  /// 0 <= k <= size for each data-dependent size k.
  Context makeContextNear(const std::vector<Pred> &assumptions, SizeDomain domain, const Assignment &point);
  Decision decide(const Context &context, const Pred &predicate);

  /// Whether `p` is proven under `c` (a decision: isl's work when the fast paths do not answer).
  bool proves(const Context &c, const Pred &p) { return decide(c, p).answer == Answer::Proven; }

  /// True when `predicate` is proven under `context`; false when it is not, or not known. At
  /// most one emptiness test (two where products have piecewise factors), without witnesses or
  /// the exact condition (intervals and a few evaluated points answer most questions first),
  /// within SolverOptions::quickMaxOperations: for simplifications and rule conditions that
  /// only need to know that a fact holds (memoized apart from decide()).
  bool provesQuickly(const Context &context, const Pred &predicate);
  /// An expression equal to `e` at every point of the context, as isl writes its piecewise
  /// quasi-affine function (pieces coalesced, with min, max and choices), when that is smaller
  /// than `e`; nullopt otherwise, or when `e` is partial or has products of parameters, or isl
  /// stops. A long chain of clipped slice bounds is often a small function of the sizes.
  std::optional<Expr> compact(const Context &context, const Expr &e);
  /// The least point of the context where `predicate` holds (defined and true), every size at
  /// most `bound`: least by the sum of its sizes, ties broken lexicographically in `order`
  /// (names; parameters it leaves out follow by name). Exact (isl minimises the sum, then each
  /// size in turn, over the set), and so only for quasi-affine assumptions and predicates;
  /// nullopt for others, when there is no such point, or when isl stops. A witness a person
  /// reads: `n = 0, d = 2` rather than the first point isl happens to find.
  std::optional<Assignment> smallestPoint(const Context &context, const Pred &predicate,
                                          const std::vector<std::string> &order, const Integer &bound);
  /// Predicates that no point of the context satisfies together, remembered
  /// (noteJointlyImpossible) so that a list holding all of some remembered list is known to
  /// have no common point either, without a question: the obligations of a node built on an
  /// operand that can never be computed include the operand's. Forgotten by clearMemo().
  void noteJointlyImpossible(const Context &context, std::vector<Pred> predicates);
  bool knownJointlyImpossible(const Context &context, const std::vector<Pred> &predicates) const;
  /// Predicates whose conjunction the solver could not decide within its work bound (not its
  /// clock: that answer depends on the moment), remembered so that a list holding all of them
  /// is answered Unknown at once (the nodes built on a node whose obligations are undecided
  /// hold them, and each question would run to the bound again). Sound: Unknown is never a
  /// wrong answer; it may be less than isl could say about the larger list. Forgotten by
  /// clearMemo().
  void noteJointlyUndecided(const Context &context, std::vector<Pred> predicates);
  bool knownJointlyUndecided(const Context &context, const std::vector<Pred> &predicates) const;
  /// The decision kept (keepSettledJointly) for a conjunction of obligations that each depend
  /// under `context`, or null: Validity decides such a conjunction once per context, and many
  /// nodes of a program hold the same one (every elementwise op on the same operands).
  /// Forgotten by clearMemo().
  std::shared_ptr<const Decision> settledJointly(const Context &context, const Pred &conjunction) const;
  /// Points where the latest joint decisions that depend were satisfied (of any context; newest
  /// last, a few): a program's next node holds most of the obligations of the nodes before it,
  /// so such a point, completed with the new obligations' own points, often satisfies its
  /// conjunction, which evaluation then settles without a question. Forgotten by clearMemo().
  const std::deque<Assignment> &jointPoints() const;
  void noteJointPoint(const Assignment &point);
  void keepSettledJointly(const Context &context, const Pred &conjunction, std::shared_ptr<const Decision> decision);
  /// Bounds the time of every question asked from now on, together (a command's questions):
  /// past `totalMs` from now, a running question stops and later ones stop at once, answering
  /// Unknown as past the per-question limit ("... ms for all the questions together"). 0 removes
  /// the bound. It applies where a limit is watched (timeLimitMs or memoryLimitBytes not 0).
  void limitTotalTime(uint64_t totalMs);
  /// Sets isl's bound on operations per question (SolverOptions::maxOperations) for the
  /// questions asked from now on; 0 removes it. A question past it answers Unknown ("the
  /// solver's work bound ... was reached"), however far isl had got. A new bound forgets what
  /// is remembered (clearMemo): an Unknown kept under one bound is not the answer under another.
  void limitOperations(unsigned long perQuestion);
  const SolverStats &stats() const;
  const SolverOptions &options() const;
  /// Forgets every remembered answer and translated context (what they keep alive is freed),
  /// and gives back what isl keeps for reuse: after it the solver holds only what a new one does.
  void clearMemo();

private:
  Context makeContextImpl(const std::vector<Pred> &assumptions, SizeDomain domain, const Assignment *near);
  struct Impl;
  std::shared_ptr<Impl> impl_; // shared: a deferred condition holds it weakly
};

/// `a` with 0 for every parameter of the context or of `p` that it leaves out: a witness is a
/// complete point (DESIGN §3.3). Such parameters are unconstrained where `a` came from.
Assignment completed(Assignment a, const Context &c, const Pred &p);

} // namespace shapelab
