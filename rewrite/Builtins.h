// Builtins — the rewrites that patterns cannot spell (they compute attributes: composed
// permutations, merged reshapes, folded constants). Each is named in the rule file like a
// pattern rule and goes through the same engine and checker.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "ops/Graph.h"

namespace shapelab::rewrite {

bool isBuiltin(const std::string &name);
/// How many readers a node has in the program being rewritten (operand slots of the nodes the
/// outputs reach, and the outputs themselves). Empty, or 0 for a node, where that is not known:
/// a node the phase made, or any node when the engine has not run (the rule checker applies
/// rules through such an engine). A builtin reads that as "no other reader".
using Readers = std::function<std::size_t(const ops::Node *)>;
/// A builtin's rewrite: the replacement of a node, or nullptr when it does not apply.
using BuiltinRewrite = std::function<const ops::Node *(ops::Graph &, const ops::Node *, const Readers &)>;
/// The builtin named `name`, or nullptr when there is none (found once, applied many times).
/// Unchecked: the engine checks every application.
const BuiltinRewrite *findBuiltin(const std::string &name);

} // namespace shapelab::rewrite
