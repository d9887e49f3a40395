#include "shape/Einsum.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "shape/ArraySize.h"
#include "symbolic/Errors.h"

namespace shapelab {

std::vector<int64_t> EinsumSpec::iteration() const {
  std::vector<int64_t> out = output, summed;
  for (const std::vector<int64_t> &labels : operands)
    for (int64_t l : labels)
      if (std::find(out.begin(), out.end(), l) == out.end() && std::find(summed.begin(), summed.end(), l) == summed.end())
        summed.push_back(l);
  std::sort(summed.begin(), summed.end());
  out.insert(out.end(), summed.begin(), summed.end());
  return out;
}

std::string EinsumSpec::labelName(int64_t label) { return label < 0 ? "..." : std::string(1, char(label)); }

bool EinsumSpec::isView() const { return operands.size() == 1 && iteration().size() == output.size(); }

std::optional<std::string> EinsumSpec::diagonalError(std::size_t k, const std::vector<std::optional<Integer>> &sizes) const {
  const std::vector<int64_t> &own = operands[k];
  auto message = [&](bool single, std::size_t axis, const Integer &a, const Integer &b) {
    return "dimensions in " + (single ? std::string("single operand") : "operand " + std::to_string(k)) +
           " for collapsing index '" + labelName(own[axis]) + "' don't match (" + a.toString() + " != " + b.toString() + ")";
  };
  auto known = [&](std::size_t a) { return a < sizes.size() ? sizes[a] : std::nullopt; };
  if (operands.size() == 1) {
    // NumPy's walk for a view (get_single_op_view): each label's latest size, 0 as unset.
    std::map<int64_t, std::optional<Integer>> latest;
    bool viewed = true;
    for (std::size_t a = 0; a < own.size() && viewed; ++a) {
      if (std::find(output.begin(), output.end(), own[a]) == output.end()) {
        viewed = false;
        break;
      }
      auto it = latest.find(own[a]);
      if (it != latest.end() && it->second && known(a) && !it->second->isZero() && *it->second != *known(a))
        return message(true, a, *it->second, *known(a));
      latest[own[a]] = known(a);
    }
    if (viewed) {
      // The walk took a size 0 as unset: refused, naming the first pair that differs.
      for (std::size_t a = 0; a < own.size(); ++a)
        for (std::size_t b = a + 1; b < own.size(); ++b)
          if (own[a] == own[b] && known(a) && known(b) && *known(a) != *known(b)) return message(true, b, *known(a), *known(b));
      return std::nullopt;
    }
  }
  // The general path (get_combined_dims_view): each label's first size.
  for (std::size_t b = 0; b < own.size(); ++b)
    for (std::size_t a = 0; a < b; ++a)
      if (own[a] == own[b]) {
        if (known(a) && known(b) && *known(a) != *known(b)) return message(false, b, *known(a), *known(b));
        break;
      }
  return std::nullopt;
}

std::string EinsumSpec::text() const {
  auto spell = [](const std::vector<int64_t> &labels) {
    std::string s;
    for (std::size_t i = 0; i < labels.size(); ++i)
      if (labels[i] >= 0) s += char(labels[i]);
      else if (i == 0 || labels[i - 1] >= 0) s += "...";
    return s;
  };
  std::string s;
  for (std::size_t k = 0; k < operands.size(); ++k) s += (k ? "," : "") + spell(operands[k]);
  return s + "->" + spell(output);
}

std::string einsumMismatchMessage(const EinsumSpec &spec, const std::vector<std::vector<std::string>> &shapes) {
  const std::vector<int64_t> labels = spec.iteration();
  std::string s = "operands could not be broadcast together with remapped shapes [original->remapped]: ";
  for (std::size_t k = 0; k < shapes.size() && k < spec.operands.size(); ++k) {
    const std::vector<int64_t> &own = spec.operands[k];
    std::string original, remapped;
    std::size_t written = 0;
    for (std::size_t a = 0; a < own.size() && a < shapes[k].size(); ++a)
      if (std::find(own.begin(), own.begin() + std::ptrdiff_t(a), own[a]) == own.begin() + std::ptrdiff_t(a)) {
        original += (written++ ? "," : "") + shapes[k][a];
      }
    bool started = false;
    for (int64_t l : labels) {
      auto at = std::find(own.begin(), own.end(), l);
      if (at == own.end() && !started) continue;
      remapped += std::string(started ? "," : "") +
                  (at == own.end() ? std::string("newaxis") : shapes[k][std::size_t(at - own.begin())]);
      started = true;
    }
    // NumPy's npyiter_shape_string: a trailing comma when there is one dimension in all (the
    // remapped shape counts the labels, the leading ones it leaves out included).
    s += "(" + original + (written == 1 ? ",)" : ")") + "->(" + remapped + (started && labels.size() == 1 ? ",)" : ")") + " ";
  }
  return s;
}

EinsumSpec parseEinsum(const std::string &text, const std::vector<std::size_t> &ranks) {
  struct Group {
    std::vector<int64_t> letters;
    std::optional<std::size_t> ellipsis; // how many letters come before it
  };
  auto fail = [&](const std::string &message, std::size_t at) -> void { throw SyntaxError(message, text, at); };
  const std::size_t arrow = text.find("->");
  auto parse = [&](std::size_t from, std::size_t to, bool output) {
    std::vector<Group> groups(1);
    for (std::size_t i = from; i < to; ++i) {
      const char c = text[i];
      const std::string where = output ? "the output" : "operand " + std::to_string(groups.size() - 1);
      if (c == ' ') continue;
      if (c == ',' && !output) {
        groups.emplace_back();
      } else if (c == '.') {
        if (text.compare(i, 3, "...") != 0 || groups.back().ellipsis)
          fail("einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in " + where, i);
        groups.back().ellipsis = groups.back().letters.size();
        i += 2;
      } else if (std::isalpha(static_cast<unsigned char>(c))) {
        groups.back().letters.push_back(int64_t(c));
      } else if ((c == '-' || c == '>') && !output) {
        fail("einstein sum subscript string does not contain proper '->' output specified", i);
      } else {
        fail(std::string("invalid subscript '") + c + "' in einstein sum subscripts string, subscripts must be letters", i);
      }
    }
    return groups;
  };
  const std::vector<Group> inputs = parse(0, arrow == std::string::npos ? text.size() : arrow, false);
  auto expand = [](const Group &g, int64_t dims) {
    std::vector<int64_t> labels(g.letters.begin(), g.letters.begin() + std::ptrdiff_t(g.ellipsis.value_or(g.letters.size())));
    if (!g.ellipsis) return labels;
    for (int64_t d = dims; d >= 1; --d) labels.push_back(-d);
    labels.insert(labels.end(), g.letters.begin() + std::ptrdiff_t(*g.ellipsis), g.letters.end());
    return labels;
  };
  // The broadcast dimensions of each operand: the axes its letters leave (none when too few).
  int64_t broadcast = 0;
  EinsumSpec spec;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    int64_t dims = 0;
    if (inputs[k].ellipsis && k < ranks.size())
      dims = std::max<int64_t>(0, int64_t(ranks[k]) - int64_t(inputs[k].letters.size()));
    broadcast = std::max(broadcast, dims);
    spec.operands.push_back(expand(inputs[k], dims));
  }
  if (arrow != std::string::npos) {
    spec.output = expand(parse(arrow + 2, text.size(), true)[0], broadcast);
  } else {
    for (int64_t d = broadcast; d >= 1; --d) spec.output.push_back(-d);
    std::map<int64_t, int> uses;
    for (const Group &g : inputs)
      for (int64_t l : g.letters) ++uses[l];
    for (const auto &[l, count] : uses)
      if (count == 1) spec.output.push_back(l);
  }
  return spec;
}

std::optional<std::string> einsumOperandsError(const EinsumSpec &spec, const std::vector<std::size_t> &ranks) {
  if (ranks.empty()) return "No input operands";
  if (ranks.size() > spec.operands.size())
    return "more operands provided to einstein sum function than specified in the subscripts string";
  if (ranks.size() < spec.operands.size())
    return "fewer operands provided to einstein sum function than specified in the subscripts string";
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    if (spec.operands[k].size() > ranks[k])
      return "einstein sum subscripts string contains too many subscripts for operand " + std::to_string(k);
    if (spec.operands[k].size() < ranks[k])
      return std::string("operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis "
                         "provided to broadcast the extra dimensions.");
  }
  for (std::size_t i = 0; i < spec.output.size(); ++i) {
    int64_t l = spec.output[i];
    if (std::find(spec.output.begin(), spec.output.begin() + std::ptrdiff_t(i), l) != spec.output.begin() + std::ptrdiff_t(i))
      return "einstein sum subscripts string includes output subscript '" + EinsumSpec::labelName(l) + "' multiple times";
    bool used = false;
    for (const auto &labels : spec.operands) used = used || std::find(labels.begin(), labels.end(), l) != labels.end();
    if (!used && l >= 0)
      return "einstein sum subscripts string included output subscript '" + EinsumSpec::labelName(l) +
             "' which never appeared in an input";
  }
  // A broadcast dimension is never summed: it is in the output, or the subscripts are refused.
  for (const auto &labels : spec.operands)
    for (int64_t l : labels)
      if (l < 0 && std::find(spec.output.begin(), spec.output.end(), l) == spec.output.end())
        return std::string("output has more dimensions than subscripts given in einstein sum, but no '...' ellipsis "
                           "provided to broadcast the extra dimensions.");
  return std::nullopt;
}

EinsumResult resolveEinsum(Solver &solver, const Context &context, const EinsumSpec &spec,
                           const std::vector<Shape> &shapes, BroadcastMode mode, OperandsExist operandsExist) {
  EinsumResult r{{}, {}, Validity(solver, context), ""};
  if (!ranksFit(r.validity, shapes)) {
    r.message = r.validity.message();
    return r;
  }
  for (const Shape &s : shapes) r.validity.mention(s);
  std::vector<std::size_t> ranks;
  for (const Shape &s : shapes) ranks.push_back(s.size());
  auto done = [&]() -> EinsumResult & {
    r.message = r.validity.message();
    return r;
  };
  if (auto e = einsumOperandsError(spec, ranks)) {
    r.validity.fail(*e);
    return done();
  }
  if (operandsExist == OperandsExist::Require)
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      const std::string what = "operand " + std::to_string(k);
      if (!constantDimensionsFit(r.validity, shapes[k], what)) return done();
      requireArraySizes(r.validity, shapes[k], what, ObligationKind::Existence);
      requireElementCountFits(r.validity, shapes[k], what, ObligationKind::Existence);
      if (r.validity.failsEverywhere()) return done();
    }
  const std::vector<int64_t> labels = spec.iteration();
  // Each operand as the iterator sees it: its size at each label (a diagonal's, once), 1 at
  // the labels it does not have.
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const std::vector<int64_t> &own = spec.operands[k];
    std::vector<std::optional<Integer>> constants;
    for (const Expr &d : shapes[k]) constants.push_back(d.constantValue());
    if (auto e = spec.diagonalError(k, constants)) {
      r.validity.fail(*e);
      return done();
    }
    // Sizes not known yet: each one equal to the label's first.
    for (std::size_t b = 0; b < own.size(); ++b)
      for (std::size_t a = 0; a < b; ++a)
        if (own[a] == own[b]) {
          Pred same = eq(shapes[k][a], shapes[k][b]);
          if (!same.isTrue())
            r.validity.require(same, "operand " + std::to_string(k) + "'s axes " + std::to_string(a) + " and " +
                                         std::to_string(b) + " (both '" + EinsumSpec::labelName(own[a]) + "') have one size");
          break;
        }
    Shape remapped;
    for (int64_t l : labels) {
      auto at = std::find(own.begin(), own.end(), l);
      remapped.push_back(at == own.end() ? Expr(1) : shapes[k][std::size_t(at - own.begin())]);
    }
    r.remapped.push_back(remapped);
  }
  // Two sizes at one label that are different constants, neither 1: NumPy's own words.
  for (std::size_t f = 0; f < labels.size(); ++f) {
    std::optional<Integer> seen;
    for (const Shape &s : r.remapped)
      if (auto v = s[f].constantValue(); v && !v->isOne()) {
        if (seen && *seen != *v) {
          std::vector<std::vector<std::string>> texts;
          for (const Shape &s2 : shapes) {
            texts.emplace_back();
            for (const Expr &d : s2) texts.back().push_back(d.toString());
          }
          r.validity.fail(einsumMismatchMessage(spec, texts));
          return done();
        }
        seen = *v;
      }
  }
  // The iteration's sizes: the remapped shapes broadcast. Not an array, so no element count of
  // its own: the iterator's running count instead, then the output's as an array's.
  // Each position named by its label and where the operands have it: the remapped positions
  // are the iteration's, not any operand's.
  std::vector<std::string> names;
  for (int64_t l : labels) {
    std::string where;
    for (std::size_t k = 0; k < spec.operands.size(); ++k) {
      const std::vector<int64_t> &own = spec.operands[k];
      auto at = std::find(own.begin(), own.end(), l);
      if (at == own.end()) continue;
      where += (where.empty() ? "" : ", ") + std::string("operand ") + std::to_string(k) + " axis " +
               std::to_string(at - own.begin());
    }
    names.push_back((l < 0 ? std::string("a '...' dimension") : "label '" + EinsumSpec::labelName(l) + "'") +
                    " (" + where + ")");
  }
  BroadcastResult b = broadcast(solver, context, r.remapped, mode, false, &names);
  r.validity.absorb(b.validity);
  if (b.shape.size() != labels.size()) return done(); // refused before any size was read
  r.shape.assign(b.shape.begin(), b.shape.begin() + std::ptrdiff_t(spec.output.size()));
  // A view (one operand, nothing summed) is neither iterated nor allocated: it is the operand's
  // own elements, which exist.
  if (!spec.isView()) {
    requireRunningCountFits(r.validity, b.shape, "einsum's iteration (" + spec.text() + ")");
    requireElementCountFits(r.validity, r.shape, "the result");
  }
  return done();
}

} // namespace shapelab
