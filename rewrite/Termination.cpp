#include "rewrite/Termination.h"

#include <algorithm>
#include <map>

#include "rewrite/Match.h"

namespace shapelab::rewrite {

namespace {

enum class Sort { Skeleton, Inward, Outward };

Sort sortOf(const Term &t) {
  static const std::vector<std::string> inward{"transpose", "reshape", "expand_dims", "squeeze", "specify_shape"},
      outward{"full", "broadcast_to", "where", "zeros_like", "ones_like", "negative"};
  if (t.kind != Term::Call) return Sort::Skeleton;
  if (std::find(inward.begin(), inward.end(), t.name) != inward.end()) return Sort::Inward;
  if (std::find(outward.begin(), outward.end(), t.name) != outward.end()) return Sort::Outward;
  return Sort::Skeleton;
}

/// A term's measures, with each variable's size left symbolic.
struct Measures {
  int64_t skeleton = 0;                  // skeleton nodes, variables aside
  int64_t total = 0;                     // every node, variables aside
  std::map<std::string, int64_t> occurs; // variable -> occurrences
  /// Per inward op: the skeleton nodes below it, and the variables below it (with repeats).
  struct Below {
    int64_t nodes = 0;
    std::map<std::string, int64_t> vars;
    bool operator==(const Below &) const = default;
  };
  std::vector<Below> inward;
  std::vector<int64_t> outward;          // per outward op: skeleton nodes above it
  /// Over the reductions: the skeleton nodes below them, and the variables below them.
  Below underReductions;
  std::map<std::string, std::vector<int64_t>> depth; // variable -> skeleton depth of each occurrence
};

/// Walks `t` with `above` skeleton ancestors; returns the skeleton nodes and variables below.
Measures::Below walk(const Term &t, int64_t above, Measures &m) {
  Measures::Below below;
  if (t.kind == Term::Var) {
    ++m.occurs[t.name];
    m.depth[t.name].push_back(above);
    below.vars[t.name] = 1;
    return below;
  }
  // An indexing x[i] is a skeleton op over x (its index is an attribute).
  if (t.kind != Term::Number && t.kind != Term::Call && t.kind != Term::Subscript) return below; // a shape or attribute
  const Sort s = sortOf(t);
  ++m.total;
  if (s == Sort::Skeleton) {
    ++m.skeleton;
    below.nodes = 1;
  }
  // zeros_like(x) and ones_like(x) read x's shape only: a fill of a literal.
  if (t.kind == Term::Call && (t.name == "zeros_like" || t.name == "ones_like")) {
    ++m.total;
    ++m.skeleton;
    below.nodes += 1;
  } else {
    const Sort operandsUnder = s;
    for (const Term &a : t.args) {
      Measures::Below b = walk(a, above + (operandsUnder == Sort::Skeleton ? 1 : 0), m);
      below.nodes += b.nodes;
      for (const auto &[v, k] : b.vars) below.vars[v] += k;
    }
  }
  if (s == Sort::Inward) m.inward.push_back(below);
  static const std::vector<std::string> reductions{"sum", "prod", "max", "min", "all", "any", "mean"};
  if (t.kind == Term::Call && std::find(reductions.begin(), reductions.end(), t.name) != reductions.end()) {
    m.underReductions.nodes += below.nodes - 1; // below it, not itself
    for (const auto &[v, k] : below.vars) m.underReductions.vars[v] += k;
  }
  if (s == Sort::Outward) m.outward.push_back(above);
  return below;
}

Measures measure(const Term &t) {
  Measures m;
  walk(t, 0, m);
  return m;
}

enum class Order { Smaller, Equal, Other };

/// Whether R's variables are at most P's, each.
bool fewerVariables(const std::map<std::string, int64_t> &r, const std::map<std::string, int64_t> &p) {
  for (const auto &[v, k] : r) {
    auto it = p.find(v);
    if (it == p.end() || it->second < k) return false;
  }
  return true;
}

/// Measure 1 (and 4 with `total`): c + sum occurs(v) * |v| for every |v| >= 1.
Order compareSize(const Measures &p, const Measures &r, bool total) {
  if (!fewerVariables(r.occurs, p.occurs)) return Order::Other;
  int64_t sp = total ? p.total : p.skeleton, sr = total ? r.total : r.skeleton;
  for (const auto &[v, k] : p.occurs) sp += k;
  for (const auto &[v, k] : r.occurs) sr += k;
  if (sr < sp) return Order::Smaller;
  if (sr > sp) return Order::Other;
  return Order::Equal; // equal where every variable is one node (and not larger elsewhere)
}

/// Measure 2: every inward op of R is one of P's, or is below fewer skeleton nodes than one of
/// P's over no variable that one lacks (each of P's taking at most three).
Order compareInward(const Measures &p, const Measures &r) {
  std::vector<int> taken(p.inward.size(), 0); // -1: matched as the same op; k > 0: dominates k
  for (const Measures::Below &b : r.inward) {
    bool placed = false;
    for (std::size_t i = 0; i < p.inward.size() && !placed; ++i)
      if (taken[i] == 0 && p.inward[i] == b) {
        taken[i] = -1;
        placed = true;
      }
    for (std::size_t i = 0; i < p.inward.size() && !placed; ++i)
      if (taken[i] >= 0 && taken[i] < 3 && b.nodes < p.inward[i].nodes && fewerVariables(b.vars, p.inward[i].vars)) {
        ++taken[i];
        placed = true;
      }
    if (!placed) return Order::Other;
  }
  return std::all_of(taken.begin(), taken.end(), [](int k) { return k == -1; }) ? Order::Equal : Order::Smaller;
}

/// Measure 3: every outward op of R is as high as one of P's or higher (each of P's taking at
/// most three), and no variable sits deeper.
Order compareOutward(const Measures &p, const Measures &r) {
  for (const auto &[v, depths] : r.depth) {
    auto it = p.depth.find(v);
    if (it == p.depth.end()) return Order::Other;
    const int64_t shallowest = *std::min_element(it->second.begin(), it->second.end());
    for (int64_t d : depths)
      if (d > shallowest) return Order::Other;
  }
  std::vector<int64_t> ps = p.outward, rs = r.outward;
  std::sort(ps.begin(), ps.end());
  std::sort(rs.begin(), rs.end());
  if (ps == rs) return Order::Equal;
  std::vector<int> taken(ps.size(), 0);
  for (int64_t a : rs) {
    bool placed = false;
    for (std::size_t i = 0; i < ps.size() && !placed; ++i)
      if (taken[i] < 3 && a < ps[i]) {
        ++taken[i];
        placed = true;
      }
    if (!placed) return Order::Other;
  }
  return Order::Smaller;
}

/// Measure 4: the skeleton nodes below reductions, each variable counted with its size.
Order compareReductions(const Measures &p, const Measures &r) {
  const Measures::Below &a = p.underReductions, &b = r.underReductions;
  if (!fewerVariables(b.vars, a.vars)) return Order::Other;
  int64_t sa = a.nodes, sb = b.nodes;
  for (const auto &[v, k] : a.vars) sa += k;
  for (const auto &[v, k] : b.vars) sb += k;
  return sb < sa ? Order::Smaller : sb == sa && a == b ? Order::Equal : Order::Other;
}

/// Whether `pattern` matches the term `t` (t's variables are opaque subterms).
bool matchesTerm(const Term &pattern, const Term &t, std::map<std::string, const Term *> &b) {
  if (pattern.kind == Term::Var) {
    auto [it, fresh] = b.emplace(pattern.name, &t);
    return fresh || it->second->toString() == t.toString();
  }
  if (pattern.kind == Term::Number) return t.kind == Term::Number && t.number == pattern.number;
  if (pattern.kind == Term::Subscript) return t.kind == Term::Subscript && matchesTerm(pattern.args[0], t.args[0], b);
  if (pattern.kind != Term::Call || t.kind != Term::Call) return false;
  if (!pattern.opVariable() && pattern.name != t.name) return false;
  if (pattern.opVariable() && !t.opVariable() && !ops::isUnaryOp(t.name) && !ops::isBinaryOp(t.name)) return false;
  // Operands only: a shape or attribute argument of the replacement is not an operand.
  // A function's operands are the arguments its builder takes as arrays (expand_dims(x, 0): x).
  const BuildSpec *spec = t.opVariable() || ops::isUnaryOp(t.name) || ops::isBinaryOp(t.name) ? nullptr : buildSpec(t.name);
  std::vector<const Term *> operands;
  for (std::size_t i = 0; i < t.args.size(); ++i) {
    const Term &a = t.args[i];
    if (spec && !t.list && (i >= spec->params.size() || spec->params[i] != Param::Node)) continue;
    if (a.kind == Term::Var || a.kind == Term::Number || a.kind == Term::Call || a.kind == Term::Subscript) operands.push_back(&a);
  }
  if (operands.size() != pattern.args.size()) return false;
  for (std::size_t i = 0; i < operands.size(); ++i)
    if (!matchesTerm(pattern.args[i], *operands[i], b)) return false;
  return true;
}

} // namespace

std::optional<std::string> decreasingMeasure(const Rule &rule) {
  if (rule.builtin || !rule.pattern || !rule.replacement) return std::nullopt;
  const Measures p = measure(*rule.pattern), r = measure(*rule.replacement);
  switch (compareSize(p, r, false)) {
  case Order::Smaller: return "the skeleton's size";
  case Order::Other: return std::nullopt;
  case Order::Equal: break;
  }
  switch (compareInward(p, r)) {
  case Order::Smaller: return "the layout ops' depth";
  case Order::Other: return std::nullopt;
  case Order::Equal: break;
  }
  switch (compareOutward(p, r)) {
  case Order::Smaller: return "the fills' height";
  case Order::Other: return std::nullopt;
  case Order::Equal: break;
  }
  switch (compareReductions(p, r)) {
  case Order::Smaller: return "the work below reductions";
  case Order::Other: return std::nullopt;
  case Order::Equal: break;
  }
  if (compareSize(p, r, true) == Order::Smaller) return "the term's size";
  return std::nullopt;
}

void checkTermination(const std::vector<Rule> &rules) {
  for (const Rule &rule : rules) {
    if (rule.builtin || decreasingMeasure(rule)) continue;
    std::string back;
    for (const Rule &other : rules) {
      std::map<std::string, const Term *> b;
      if (!other.builtin && other.phase == rule.phase && other.pattern && matchesTerm(*other.pattern, *rule.replacement, b)) {
        back = other.name;
        break;
      }
    }
    const std::string where = rule.file + ":" + std::to_string(rule.line) + ": ";
    if (!back.empty() && back != rule.name)
      throw RuleError(where + "rules " + rule.name + " and " + back + " could loop: " + back + " rewrites what " + rule.name +
                      " builds, and " + rule.name + " decreases no measure of the reduction order (rewrite/Termination.h)");
    throw RuleError(where + "rule " + rule.name +
                    " could loop: it decreases no measure of the reduction order (skeleton size, layout depth, fill "
                    "height, work below reductions, size; rewrite/Termination.h)");
  }
}

} // namespace shapelab::rewrite
