// Builtins — the rewrites that patterns cannot spell (they compute attributes: composed
// permutations, merged reshapes, folded constants). Each is named in the rule file like a
// pattern rule and goes through the same engine and checker.
#pragma once

#include <string>

#include "ops/Graph.h"

namespace shapelab::rewrite {

bool isBuiltin(const std::string &name);
/// The replacement of `n` by builtin `name`, or nullptr when it does not apply. Unchecked: the
/// engine checks every application.
const ops::Node *applyBuiltin(const std::string &name, ops::Graph &graph, const ops::Node *n);

} // namespace shapelab::rewrite
