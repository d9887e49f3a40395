// Termination — the reduction order every pattern rule must decrease, checked when a rule file
// is loaded (the check of Halide's rule verifier: Newcomb et al., "Verifying and Improving
// Halide's Term Rewriting System with Program Synthesis", OOPSLA 2020).
//
// Model: a term's ops are of three sorts. Layout ops that rules move toward the inputs
// (transpose, reshape, expand_dims, squeeze, specify_shape: PyTensor's "lifts"); fills and
// selections that rules move toward the outputs (full, broadcast_to, where, zeros_like,
// ones_like: PyTensor's "sinks"; and negation, taken out of reductions); and the rest, the skeleton (numbers and every other op).
// A rule must decrease, lexicographically:
//   1. the skeleton's size (each variable counted with its own size, so a rule may not copy a
//      variable more often than the pattern holds it);
//   2. the sum over the inward-moving ops of 4^(skeleton nodes below it): moving one below an
//      op, or copying it onto at most three operands, makes it smaller;
//   3. the sum over the outward-moving ops of 4^(skeleton nodes above it), no variable sitting
//      deeper under the skeleton than it did;
//   4. the skeleton nodes below reductions (sum(x * c) -> sum(x) * c moves work out of one);
//   5. the term's size.
// Each measure is a natural number that the rewrite of a subterm changes the same way inside
// any program, so no chain of rewrites that each decrease it is infinite. A rule that does not
// decrease it is refused, naming it, and naming the rule that rewrites its result back where
// one does. Builtins (C++) are not checked: each one's description says what it removes.
// Cost: linear in the size of the rules, when loaded.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rewrite/Rules.h"

namespace shapelab::rewrite {

/// Which measure `rule` decreases ("the skeleton's size", ...), or nullopt when none does.
std::optional<std::string> decreasingMeasure(const Rule &rule);
/// Throws RuleError (FILE:LINE: ...) for the first pattern rule that does not decrease the
/// order, naming a rule of the same phase whose pattern matches its replacement.
void checkTermination(const std::vector<Rule> &rules);

} // namespace shapelab::rewrite
