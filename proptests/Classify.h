// Classify — the schematic check of a rule: its class for all input shapes (DESIGN §3.6).
//
// Model: each of a rule's examples (its pattern when it has none) is instantiated as a program
// for every rank 0..4 of each variable, with every dimension a fresh size parameter, each
// variable either a plain input or the sum of two inputs (a subprogram with shape errors of its
// own, so that masking them shows), in numpy and static mode. Wherever the rule applies in an
// instance (at any node), the application is checked (checkApplication). The rule's class is the
// worst seen: strict, valid-graph (with the masked error: a program and a point) or unsound
// (with a program and a point where the rewrite adds an error or changes a shape). An
// application the solver cannot decide is counted apart (never called sound or unsound).
// Cost: 2 * (2 * 5)^k instances for k variables, each a few solver questions.
#pragma once

#include <optional>
#include <string>

#include "rewrite/Engine.h"

namespace shapelab::rewrite {

struct RuleClass {
  std::string rule;
  Soundness soundness = Soundness::Strict; // the worst of both modes
  Soundness numpy = Soundness::Strict, static_ = Soundness::Strict; // per mode
  std::size_t instances = 0;    // programs built
  std::size_t applications = 0; // applications checked
  /// Applications the solver could not decide (its work bound): they leave the class as the
  /// decided ones make it; the first one's reason and program are kept.
  std::size_t undecided = 0;
  std::string undecidedProgram, undecidedReason;
  // For valid-graph and unsound: the instance (a `shapelab run` script) and the point.
  std::string program;
  std::optional<Assignment> point;
  std::string reason;
};

/// Classifies `rule` (ranks 0..maxRank). Throws RuleError when the rule applies in no instance
/// (its examples do not exercise it): a rule that was never checked is not called sound.
RuleClass classifyRule(const Rule &rule, Solver &solver, int maxRank = 4);

} // namespace shapelab::rewrite
