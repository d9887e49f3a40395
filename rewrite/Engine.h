// Engine — applies rewrite rules to a fixed point and checks every application (DESIGN §3.6).
//
// Model: a bottom-up pass per phase (canonicalize, then specialize, then fuse) over the nodes
// the outputs reach, in id order (operands first, and in memory order): each node is rebuilt
// on its rewritten operands (Graph::rebuild; hash-consing merges equal subterms, which is
// common-subexpression elimination), then the phase's rules are tried at it until none fires;
// a replacement's new nodes are simplified the same way. Every application is checked by the
// solver before it is taken (checkApplication): the replacement must have the old node's dtype,
// rank and — wherever the old node is valid — its shape, and its validity domain must equal the
// old one (strict) or contain it (valid-graph: it may mask an error, never add one). An
// application that fails the allowed level is refused and reported with a witness point.
// Cost: a comparison of kinds per node and rule whose pattern's root is of another kind (the
// rules a phase runs, and the kind each one's root matches, are found when the engine is made),
// a match per rule whose root kind agrees; an application costs its
// replacement's shape rules plus the checker's solver questions (none when the replacement
// keeps the same shape expressions and the same pending obligations).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/Graph.h"
#include "rewrite/Builtins.h"
#include "rewrite/Rules.h"

namespace shapelab::rewrite {

/// How a rewrite treats shape errors: keeps every one (strict), may mask some (valid-graph:
/// PyTensor's shape_unsafe), or adds one or changes a shape (unsound).
enum class Soundness { Strict, ValidGraph, Unsound };
const char *spelling(Soundness s); // "strict", "valid-graph", "unsound"

struct ApplicationCheck {
  Soundness soundness = Soundness::Strict;
  /// valid-graph: a point where the old node fails and the new one does not (the masked error);
  /// unsound: a point where the new node fails or differs in shape while the old one is valid.
  std::optional<Assignment> witness;
  std::string reason; // a person's sentence for valid-graph and unsound
  /// The solver could not decide a question (its work bound or clock): the soundness is the
  /// safe answer (the application is not taken), not a proof that it is wrong.
  bool undecided = false;
};

/// Compares `now` with `old` (both nodes of `graph`).
ApplicationCheck checkApplication(const ops::Graph &graph, const ops::Node *old, const ops::Node *now);

struct EngineOptions {
  /// The weakest soundness an application may have to be taken (Strict or ValidGraph).
  Soundness allow = Soundness::Strict;
  /// Only rules that keep values bit for bit (`exact: yes`).
  bool exactOnly = false;
  /// Rules not to run (by name).
  std::vector<std::string> disabled;
  /// Applications per node before the engine stops rewriting it (a rule set that cycles).
  int maxApplicationsPerNode = 32;
};

struct Refusal {
  std::string rule;
  const ops::Node *at = nullptr;
  ApplicationCheck check;
};

struct OptimizeResult {
  std::vector<const ops::Node *> outputs;
  std::map<std::string, int> fired;
  /// Of the applications taken, those that mask a shape error (valid-graph, taken where the
  /// options allow it), by rule.
  std::map<std::string, int> masked;
  std::vector<Refusal> refused;
  std::vector<std::string> trace; // "rule: old -> new", in order
  /// Nodes where rewriting stopped at maxApplicationsPerNode (a rule set that cycles there; the
  /// termination check of rule files makes it 0 for pattern rules).
  std::size_t capped = 0;
};

class Engine {
public:
  Engine(ops::Graph &graph, std::vector<Rule> rules, EngineOptions options = {});
  OptimizeResult run(const std::vector<const ops::Node *> &outputs);
  /// `rule`'s replacement for `n` when it matches and its condition is proven (unchecked).
  const ops::Node *tryRule(const Rule &rule, const ops::Node *n);
  /// A pattern rule's replacement for `n` as program text at the point `at` (`x`, `zeros((2,),
  /// float64)`), each pattern variable written as `nameOf` names the node it binds. zeros_like
  /// and ones_like build an array of their operand's shape without computing the operand, which
  /// NumPy's functions of that name do: they are written with the shape's values at `at`.
  /// Nullopt for a builtin, where it does not match, where a bound node has no name, or where a
  /// shape is undefined at `at`.
  std::optional<std::string> replacementText(const Rule &rule, const ops::Node *n,
                                             const std::function<std::optional<std::string>(const ops::Node *)> &nameOf,
                                             const Assignment &at);

private:
  const ops::Node *rewrite(const ops::Node *n, Phase phase, OptimizeResult &result);
  const ops::Node *simplify(const ops::Node *n, Phase phase, OptimizeResult &result);
  /// Rebuilds `n` over its operands' rewritten nodes (each one done) and simplifies the result;
  /// `ins` is a buffer.
  void rewriteOne(const ops::Node *n, Phase phase, OptimizeResult &result, std::vector<const ops::Node *> &ins);

  ops::Graph *graph_;
  std::vector<Rule> rules_;
  EngineOptions options_;
  // Per phase: node -> rewritten (nullptr: not yet), indexed by node id (a graph's ids are
  // dense): the walk looks a node up several times, and a hash map of a large graph misses
  // the cache on each lookup.
  std::vector<const ops::Node *> done_;
  const ops::Node *doneOf(uint32_t id) const { return id < done_.size() ? done_[id] : nullptr; }
  const ops::Node *doneOf(const ops::Node *n) const { return doneOf(n->id); }
  void setDone(const ops::Node *n, const ops::Node *m) {
    if (n->id >= done_.size()) done_.resize(std::max<std::size_t>(n->id + 1, done_.size() * 2), nullptr);
    done_[n->id] = m;
  }
  /// A rule as a phase tries it: its index in rules_, and the node kind (and op name, when the
  /// kind has several) its pattern's root matches; a builtin, or a pattern whose root is not a
  /// call, is tried at every node.
  struct Candidate {
    std::size_t rule = 0;
    std::optional<ops::OpKind> kind;
    std::string op; // empty: any op of the kind
    const BuiltinRewrite *builtin = nullptr; // a builtin's rewrite, found by name once
  };
  const ops::Node *apply(const Rule &rule, const BuiltinRewrite *builtin, const ops::Node *n);
  /// Per phase (Phase's order), the rules this engine runs in it, in rule order: the options'
  /// exactOnly and disabled are applied once, when the engine is made.
  std::vector<Candidate> candidates_[std::size_t(Phase::Fuse) + 1];
  /// (node, rule index) pairs whose application was refused: not tried there again.
  std::set<std::pair<const ops::Node *, std::size_t>> refusedAt_;
  /// Per phase, by node id: how many readers each node has in the program (operand slots of
  /// the nodes the outputs reach, and the outputs), counted when the phase starts; a node
  /// rewritten to another passes its readers on (redirect). Builtins ask it (Readers).
  std::vector<uint32_t> readers_;
  /// Per phase, by node id: whether the outputs reach the node (counted with readers_).
  std::vector<char> reached_;
  void countReaders(const std::vector<const ops::Node *> &outputs);
  std::size_t readersOf(const ops::Node *n) const { return n->id < readers_.size() ? readers_[n->id] : 0; }
  /// setDone(from, to), and to's readers gain from's.
  void redirect(const ops::Node *from, const ops::Node *to);
};

/// The nodes `outputs` depend on (themselves included).
std::size_t reachableCount(const std::vector<const ops::Node *> &outputs);

} // namespace shapelab::rewrite
