// Validity — the conditions under which a shape computation is valid, each decided exactly.
//
// Model: a shape rule yields obligations (predicates over size parameters) whose conjunction
// is its validity domain. Each obligation is decided separately (DESIGN §3.3; per axis, since
// disjunctions across axes multiply isl's cost — shared/reference/isl-notes.md §1.6), and the
// verdict aggregates them: valid when all are proven; error when one is refuted (or when the
// undecided ones cannot hold together); runtime-check when the remaining ones depend on the
// sizes (their exact conditions are the checks a program must run); unknown when one is
// outside the decidable fragment (its residual predicate is the check).
// Example: broadcasting (n,) with (m,) gives one obligation "n == 1 or m == 1 or n == m",
// which Depends; its condition is the runtime check.
#pragma once

#include <optional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbolic/Solver.h"

namespace shapelab {

enum class Status { Valid, RuntimeCheck, Error, Unknown };
const char *spelling(Status s); // "valid", "runtime-check", "error", "unknown"

/// What an obligation is about (DESIGN §3.4). The status is decided over the shape obligations;
/// NumPy's array-size limits are reported apart, and decide the status only where they fail for
/// every allowed size.
enum class ObligationKind : uint8_t {
  Shape,    // broadcast compatibility, core dims, counts, bounds, sizes >= 0, definedness, ...
  Limit,    // an array the computation makes fits NumPy's limits (each dim, its element count)
  Existence // an array that is given (an input, a command's operand) fits them: it exists, so
            // this is assumed; an error only where it can never hold
};
const char *spelling(ObligationKind k); // "shape", "limit", "existence"

struct Obligation {
  std::string what;  // a person's description: "dimension -1 broadcasts"
  Pred predicate;    // must hold
  Decision decision; // its answer under the context
  ObligationKind kind = ObligationKind::Shape;
  std::string refusal; // what NumPy says where it fails for every size ("" for a sentence made of `what`)
};

/// The largest size a witness takes when the least point is computed by isl (DESIGN §3.4:
/// witnesses are the least points whenever one with every size at most this exists).
inline constexpr int64_t kSmallWitnessBound = int64_t(1) << 20;

class Validity {
public:
  Validity(Solver &solver, const Context &context) : solver_(&solver), context_(context) {}

  /// Decides `predicate` and records it as an obligation.
  void require(const Pred &predicate, std::string what, ObligationKind kind = ObligationKind::Shape,
               std::string refusal = {});
  /// Records an obligation decided elsewhere (by evaluation, or jointly with others).
  void record(const Pred &predicate, std::string what, Decision decision, ObligationKind kind = ObligationKind::Shape,
              std::string refusal = {});
  /// Records a violation found without the solver (e.g. a rank error), with a message.
  void fail(std::string message);
  /// Takes over another computation's obligations and failures (same solver; its context the
  /// same, or one whose decisions hold here too).
  void absorb(const Validity &other);
  /// Notes the parameters of an operand's dims: a witness gives every one of them a value.
  void mention(const std::vector<Expr> &dims);
  /// Room for `n` obligations in all (a caller that knows how many it will record).
  void reserve(std::size_t n) { obligations_.reserve(n); }

  /// The status over the shape obligations (and, with strict limits, those of the limits of
  /// results): valid / runtime-check / unknown; error where one fails for every size, where a
  /// limit (or an array given) can never hold, or where they cannot hold together.
  Status status() const;
  /// True when every obligation, of whatever kind, is proven: nothing to report or gather.
  bool settledValid() const;
  /// Counts the limits of results as runtime checks (`--strict-limits`); arrays given still exist.
  void strictLimits(bool strict) {
    strict_ = strict;
    valid_.reset();
  }
  bool strictLimits() const { return strict_; }
  /// Runtime checks (as predicates) for every counted obligation (shape; limits too when strict)
  /// that is not proven.
  std::vector<Pred> checks() const;
  /// The checks as a person reads them: the conjunctive ones over related sizes (sharing a
  /// parameter, directly or through other checks or the assumptions) joined into one condition,
  /// simplified by isl under the context (`nc >= n` and `n >= nc` are `n == nc`), or, where that
  /// reads longer, without those the others imply. Disjunctions (a broadcast of sizes that may
  /// be 1) are shown as they are: joined, their disjuncts multiply out. A group the solver cannot
  /// decide is left as its checks. The same domain as checks(). Asks the solver: for printing.
  std::vector<Pred> shownChecks() const;
  /// The limit conditions not proven, apart from the checks (empty when strict).
  std::vector<Pred> limits() const;
  std::string limitsText() const;
  /// The same, written for a person: "n >= 1; m == n" (empty when there are none).
  std::string checksText() const;
  /// The exact validity domain: the conjunction of the non-proven obligations' conditions, as
  /// a total predicate (whereHolds: false where a condition is undefined, so `not domain()` is
  /// exactly the error domain). InputTooLarge when that conjunction is past the expression
  /// limits; checks() still fit.
  Pred domain() const;
  /// Where NumPy computes it: the shape domain and every limit (of the arrays made and given),
  /// as a total predicate. Not domain(): `not domainWithLimits()` holds limit errors too.
  Pred domainWithLimits() const;
  /// A point where validity fails, when there is one: complete (every parameter of the
  /// context, of the obligations and of the operands has a value), every array fitting its
  /// limits there (unless no point lets them fit), and small: the least by the sum of the sizes,
  /// ties broken lexicographically in `order` (declaration order; others after it by name),
  /// whenever a point with every size at most kSmallWitnessBound exists. Computed when asked
  /// for: a search by evaluation over small points, then isl's minimum.
  std::optional<Assignment> violating(const std::vector<std::string> &order = {}) const;
  /// `dims` simplified under the validity conditions and the assumptions (a shape exists only
  /// there): `3 if n - 5 == 1 else n - 5` is `3` where `n == 6 or n == 8`. Each dimension is
  /// the constant it is at every valid point, else isl's compact form under the conditions,
  /// else itself. Asks the solver: for printing, not for building.
  std::vector<Expr> simplified(const std::vector<Expr> &dims) const;
  std::vector<std::optional<Expr>> simplified(const std::vector<std::optional<Expr>> &dims) const;
  /// The assumptions, the checks and the limits of the arrays given (which exist), as a
  /// context: the points where the shape exists (nullopt where none can be made, or the status
  /// is an error).
  std::optional<Context> validContext() const;
  /// The first failure's description, or a summary.
  std::string message() const;
  const std::vector<Obligation> &obligations() const { return obligations_; }
  /// The operands' parameters in the order they were first mentioned (a witness's tie-break
  /// order where no declaration order is given).
  std::vector<std::string> mentionedNames() const;
  /// Violations recorded with fail(), in order.
  const std::vector<std::string> &failures() const { return failures_; }
  /// True when validity fails at every size already: a failure, or an obligation refuted. Later
  /// obligations cannot change the status then (a caller may stop asking).
  bool failsEverywhere() const;
  Solver &solver() const { return *solver_; }
  const Context &context() const { return context_; }

private:
  void settle() const;
  bool counted(ObligationKind k) const { return k == ObligationKind::Shape || (strict_ && k == ObligationKind::Limit); }
  std::vector<Pred> conditionsOf(bool countedKinds) const;
  /// The joint decision of `conditions` (the obligations that depend), whose conjunction is `all`.
  /// decideJointly's question asked per group of conditions over related sizes; nullopt where
  /// they form one group or a group's answer is unknown.
  std::optional<Decision> decideByGroups(const std::vector<Pred> &conditions, const Pred &all) const;
  /// `conditions` grouped by related sizes: members[g] the indices of group g (in order of first
  /// appearance), roots[g] its parameters' representative (null for a condition without
  /// parameters), parent each parameter's representative.
  struct RelatedGroups {
    std::vector<std::vector<std::size_t>> members;
    std::vector<const ExprNode *> roots;
    std::unordered_map<const ExprNode *, const ExprNode *> parent;
  };
  RelatedGroups relatedGroups(const std::vector<Pred> &conditions) const;
  std::shared_ptr<const Decision> decideJointly(const std::vector<Pred> &conditions, const Pred &all) const;
  Solver *solver_;
  Context context_;
  std::vector<Obligation> obligations_;
  std::vector<std::string> failures_;
  std::vector<Expr> mentioned_; // parameters of the operands
  bool strict_ = false;
  // Joint decision of the obligations that each depend, computed lazily once. Behind a pointer
  // (shared by copies: it is replaced, never changed): most validities have none, and every node
  // holds one validity, so an inline Decision made each node 136 bytes larger.
  mutable bool settled_ = false;
  mutable std::shared_ptr<const Decision> joint_;
  // validContext(), made on first read (limits() and a printed shape both read it).
  mutable std::shared_ptr<const std::optional<Context>> valid_;
  std::optional<Context> makeValidContext() const;
};

/// `dims` simplified within `where` (Validity::validContext() of a validity whose context is
/// `base`): each dimension the constant it is at every point there, else isl's compact form
/// there, else itself; itself where nothing `where` adds to `base` bears on it; `dims` when
/// `where` is none.
std::vector<Expr> simplifiedWithin(Solver &solver, const std::optional<Context> &where, const Context &base,
                                   const std::vector<Expr> &dims);

/// `pred` as a Depends decision read off evaluated points, without asking isl: the first
/// candidate where the context and `pred` hold, and the first where the context holds and `pred`
/// is false (each completed with 0 for the parameters of `pred` and of the context it leaves
/// out). The predicate is then its own exact condition. Nullopt when no such pair is among the
/// candidates, or the context is not known to be consistent.
std::optional<Decision> dependsFromPoints(const Context &context, const Pred &pred,
                                          const std::vector<Assignment> &satisfying,
                                          const std::vector<Assignment> &violating);

} // namespace shapelab
