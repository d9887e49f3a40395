#include "proptests/Classify.h"

#include <regex>
#include <sstream>
#include <unordered_set>

#include "lang/Session.h"

namespace shapelab::rewrite {

namespace {

std::vector<std::string> exampleVariables(const std::string &example) {
  std::vector<std::string> out;
  for (const char *v : {"x", "y", "z"})
    if (std::regex_search(example, std::regex(std::string("\\b") + v + "\\b"))) out.push_back(v);
  return out;
}

/// The lines declaring variable `v` with `rank` dims, as an input or as a sum of two.
void declare(std::vector<std::string> &lines, std::vector<std::string> &params, const std::string &v, int rank, bool sum) {
  auto input = [&](const std::string &name) {
    std::string dims;
    for (int i = 0; i < rank; ++i) {
      std::string p = name + "_" + std::to_string(i);
      params.push_back(p);
      dims += p + ", ";
    }
    if (rank == 1) dims = dims.substr(0, dims.size() - 1);
    else if (rank > 1) dims = dims.substr(0, dims.size() - 2);
    return name + " = input((" + dims + "), float64)";
  };
  if (!sum) {
    lines.push_back(input(v));
    return;
  }
  lines.push_back(input(v + "a"));
  lines.push_back(input(v + "b"));
  lines.push_back(v + " = " + v + "a + " + v + "b");
}

/// Whether `line` fails when `session` runs it.
bool failed(lang::Session &session, const std::string &line, int number) {
  return session.execute(line, number).failed;
}

/// The rewritten program's lines: the node named `v` of the instance `lines` replaced by `text`,
/// and every line after its definition copied over the new names (`x_new`); self's copy is
/// named `new`.
std::vector<std::string> rewrittenLines(const std::vector<std::string> &lines, const std::string &v, const std::string &text) {
  auto renamed = [](const std::string &x) { return x == "self" ? std::string("new") : x + "_new"; };
  std::vector<std::string> out{renamed(v) + " = " + text}, names{v};
  bool after = false;
  for (const std::string &l : lines) {
    const std::size_t eq = l.find(" = ");
    if (eq == std::string::npos) continue;
    if (!after) {
      after = l.compare(0, eq, v) == 0 && eq == v.size();
      continue;
    }
    std::string rhs = l.substr(eq + 3);
    if (rhs.rfind("input(", 0) == 0) continue; // the same input in both programs
    for (const std::string &r : names) rhs = std::regex_replace(rhs, std::regex("\\b" + r + "\\b"), renamed(r));
    names.push_back(l.substr(0, eq));
    out.push_back(renamed(names.back()) + " = " + rhs);
  }
  return out;
}

/// A script `shapelab run` runs (DESIGN: every reproducer runs): the instance `lines`, the
/// rewritten program (`new`, see rewrittenLines) where the rule fired at a named node of the
/// instance and its replacement can be written, then both evaluated at the witness. The witness is completed with the same value
/// for the sizes it leaves out, the first of 0, 1, 2 at which the script shows what the class
/// says: the old program failing where the new one runs (valid-graph), the old one running
/// (unsound, the new one computing another shape). `point` is set to the values used.
std::string reproducer(Solver &solver, const std::vector<std::string> &lines, const std::vector<std::string> &params,
                       const std::function<std::optional<std::vector<std::string>>(const Assignment &)> &replacement,
                       const ApplicationCheck &check, std::optional<Assignment> &point) {
  std::string program;
  for (const std::string &l : lines) program += l + "\n";
  if (!replacement) {
    program += "# the rule rewrites a node the program does not name: `:optimize self --valid-graph --inexact` shows it\n";
    point = check.witness;
    return program;
  }
  std::optional<std::string> first;
  for (int fill : {0, 1, 2}) {
    Assignment at;
    std::string with;
    for (const std::string &p : params) {
      const Integer *v = check.witness ? check.witness->find(p) : nullptr;
      at.set(p, v ? *v : Integer(fill));
      with += (with.empty() ? " with " : ", ") + p + "=" + (v ? *v : Integer(fill)).toString();
    }
    std::optional<std::vector<std::string>> written = replacement(at);
    if (!written) continue;
    std::string script;
    for (const std::string &l : *written) script += l + "\n";
    script += ":eval self" + with + "\n:eval new" + with + "\n";
    if (!first) {
      first = script;
      point = at;
    }
    lang::Session session(solver, {});
    int k = 0;
    bool built = true;
    for (const std::string &l : lines) built = built && !failed(session, l, ++k);
    for (const std::string &l : *written) built = built && !failed(session, l, ++k);
    if (!built) continue;
    const bool oldFails = failed(session, ":eval self" + with, ++k), newFails = failed(session, ":eval new" + with, ++k);
    if (check.soundness == Soundness::ValidGraph ? (oldFails && !newFails) : !oldFails) {
      point = at;
      return program + script;
    }
  }
  if (!first) {
    point = check.witness;
    return program + "# the rewritten node cannot be written at the witness\n";
  }
  return program + *first;
}

} // namespace

RuleClass classifyRule(const Rule &rule, Solver &solver, int maxRank) {
  RuleClass result;
  result.rule = rule.name;
  std::vector<std::string> examples = rule.examples;
  if (examples.empty() && rule.pattern) examples.push_back(rule.pattern->toString());
  // The worst class found, with a reproducer; of one class, an application at an instance's
  // root is preferred (its script writes the rewritten program out).
  bool written = false;
  auto worse = [&](const ApplicationCheck &c, bool root) { return int(c.soundness) > int(result.soundness) || (root && !written && c.soundness == result.soundness && c.soundness != Soundness::Strict); };
  for (const std::string &example : examples) {
    std::vector<std::string> vars = exampleVariables(example);
    std::size_t k = vars.size();
    std::size_t combos = 1;
    for (std::size_t i = 0; i < k; ++i) combos *= std::size_t(2 * (maxRank + 1));
    for (BroadcastMode mode : {BroadcastMode::Numpy, BroadcastMode::Static}) {
      Soundness &modeClass = mode == BroadcastMode::Numpy ? result.numpy : result.static_;
      for (std::size_t combo = 0; combo < combos; ++combo) {
        if (modeClass == Soundness::Unsound) break;
        std::vector<std::string> lines, params, decls;
        std::size_t c = combo;
        for (const std::string &v : vars) {
          int choice = int(c % std::size_t(2 * (maxRank + 1)));
          c /= std::size_t(2 * (maxRank + 1));
          declare(decls, params, v, choice % (maxRank + 1), choice > maxRank);
        }
        if (mode == BroadcastMode::Static) lines.push_back("mode static");
        if (!params.empty()) {
          std::string p = "param ";
          for (std::size_t i = 0; i < params.size(); ++i) p += (i ? ", " : "") + params[i];
          lines.push_back(p);
        }
        lines.insert(lines.end(), decls.begin(), decls.end());
        // `a = EXPR; b = EXPR; EXPR`: named steps before the rewritten expression (so that
        // a reproducer can write a replacement over them).
        std::string rest = example;
        for (std::size_t semi; (semi = rest.find("; ")) != std::string::npos; rest = rest.substr(semi + 2))
          lines.push_back(rest.substr(0, semi));
        lines.push_back("self = " + rest);
        lang::Session session(solver, {});
        bool built = true;
        for (std::size_t i = 0; i < lines.size() && built; ++i) built = !session.execute(lines[i], int(i + 1)).failed;
        if (!built) continue; // ranks the example does not accept
        ++result.instances;
        const ops::Node *self = session.lookup("self");
        ops::Graph &graph = session.mutableGraph();
        Engine engine(graph, {rule});
        // Every node of the instance where the rule applies (not only the root).
        std::vector<const ops::Node *> stack{self}, nodes;
        std::unordered_set<const ops::Node *> seen;
        while (!stack.empty()) {
          const ops::Node *n = stack.back();
          stack.pop_back();
          if (!seen.insert(n).second) continue;
          nodes.push_back(n);
          for (const ops::Node *i : n->inputs) stack.push_back(i);
        }
        // The instance's names, for writing the rewritten program.
        auto nameOf = [&](const ops::Node *x) -> std::optional<std::string> {
          for (const std::string &l : lines)
            if (std::size_t eq = l.find(" = "); eq != std::string::npos && session.lookup(l.substr(0, eq)) == x)
              return l.substr(0, eq);
          return std::nullopt;
        };
        for (const ops::Node *n : nodes) {
          const ops::Node *rep = engine.tryRule(rule, n);
          if (!rep || rep == n) continue;
          ++result.applications;
          ApplicationCheck c = checkApplication(graph, n, rep);
          if (c.undecided) {
            if (result.undecided++ == 0) {
              result.undecidedReason = c.reason;
              for (const std::string &l : lines) result.undecidedProgram += l + "\n";
            }
            continue;
          }
          if (int(c.soundness) > int(modeClass)) modeClass = c.soundness;
          const std::optional<std::string> v = rule.builtin ? std::nullopt : nameOf(n);
          const bool root = bool(v);
          if (!worse(c, root)) continue;
          std::function<std::optional<std::vector<std::string>>(const Assignment &)> replacement;
          if (root)
            replacement = [&](const Assignment &at) -> std::optional<std::vector<std::string>> {
              std::optional<std::string> text = engine.replacementText(rule, n, nameOf, at);
              if (!text) return std::nullopt;
              return rewrittenLines(lines, *v, *text);
            };
          result.soundness = c.soundness;
          result.reason = c.reason;
          result.program = reproducer(solver, lines, params, replacement, c, result.point);
          written = root;
        }
      }
    }
  }
  if (result.applications == 0)
    throw RuleError(rule.file + ":" + std::to_string(rule.line) + ": rule " + rule.name +
                    " applies in none of its example instances; add an `example:` it rewrites");
  return result;
}

} // namespace shapelab::rewrite
