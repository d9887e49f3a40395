#include "rewrite/Classify.h"

#include <regex>
#include <sstream>
#include <unordered_set>

#include "driver/Language.h"

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

} // namespace

RuleClass classifyRule(const Rule &rule, Solver &solver, int maxRank) {
  RuleClass result;
  result.rule = rule.name;
  std::vector<std::string> examples = rule.examples;
  if (examples.empty() && rule.pattern) examples.push_back(rule.pattern->toString());
  auto worse = [&](const ApplicationCheck &c, const std::string &program) {
    if (int(c.soundness) <= int(result.soundness)) return;
    result.soundness = c.soundness;
    result.program = program;
    result.point = c.witness;
    result.reason = c.reason;
  };
  for (const std::string &example : examples) {
    std::vector<std::string> vars = exampleVariables(example);
    std::size_t k = vars.size();
    std::size_t combos = 1;
    for (std::size_t i = 0; i < k; ++i) combos *= std::size_t(2 * (maxRank + 1));
    for (BroadcastMode mode : {BroadcastMode::Numpy, BroadcastMode::Static}) {
      for (std::size_t combo = 0; combo < combos; ++combo) {
        if (result.soundness == Soundness::Unsound) return result;
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
        lines.push_back("self = " + example);
        driver::Session session(solver, {});
        bool built = true;
        for (std::size_t i = 0; i < lines.size() && built; ++i) built = !session.execute(lines[i], int(i + 1)).failed;
        if (!built) continue; // ranks the example does not accept
        ++result.instances;
        std::string program;
        for (const std::string &l : lines) program += l + "\n";
        program += ":errors self\n";
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
        for (const ops::Node *n : nodes) {
          const ops::Node *rep = engine.tryRule(rule, n);
          if (!rep || rep == n) continue;
          ++result.applications;
          worse(checkApplication(graph, n, rep), program);
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
