#include "symbolic/Evaluate.h"

#include <algorithm>

#include "symbolic/Errors.h"

namespace shapelab {

Assignment::Assignment(std::initializer_list<std::pair<std::string, Integer>> values) {
  for (auto &[k, v] : values) set(k, v);
}

const Assignment::Values &Assignment::none() {
  static const Values empty;
  return empty;
}

void Assignment::set(const std::string &name, const Integer &value) {
  if (!values_) values_ = std::make_shared<Values>();
  else if (values_.use_count() > 1) values_ = std::make_shared<Values>(*values_); // no longer shared
  Values &v = *values_;
  auto it = std::lower_bound(v.begin(), v.end(), name, [](const auto &p, const std::string &n) { return p.first < n; });
  if (it != v.end() && it->first == name)
    it->second = value;
  else
    v.insert(it, {name, value});
}

const Integer *Assignment::find(const std::string &name) const {
  if (!values_) return nullptr;
  auto it = std::lower_bound(values_->begin(), values_->end(), name,
                             [](const auto &p, const std::string &n) { return p.first < n; });
  return it != values_->end() && it->first == name ? &it->second : nullptr;
}

std::string Assignment::toString() const {
  std::string out;
  for (auto &[k, v] : values()) {
    if (!out.empty()) out += ", ";
    out += k + " = " + v.toString();
  }
  return out;
}

std::string Assignment::toString(const std::vector<std::string> &order) const {
  std::string out;
  auto add = [&](const std::string &k, const Integer &v) {
    if (!out.empty()) out += ", ";
    out += k + " = " + v.toString();
  };
  for (const std::string &name : order)
    if (const Integer *v = find(name)) add(name, *v);
  for (auto &[k, v] : values())
    if (std::find(order.begin(), order.end(), k) == order.end()) add(k, v);
  return out;
}

namespace {
// One evaluator for both kinds of point: `At` is an Assignment (parameters by name) or
// NodeValues (by node).
const Integer *valueOf(const ExprNode *param, const Assignment &at) { return at.find(param->name); }
const Integer *valueOf(const ExprNode *param, const NodeValues &at) { return at.find(param); }

template <class At> std::optional<Integer> eval(const ExprNode *n, const At &at);
template <class At> std::optional<bool> eval(const PredNode *n, const At &at);
template <class At> std::optional<Integer> eval(const Expr &e, const At &at) { return eval(e.node(), at); }
template <class At> std::optional<bool> eval(const Pred &p, const At &at) { return eval(p.node(), at); }

template <class At> std::optional<Integer> eval(const ExprNode *n, const At &at) {
  switch (n->kind) {
  case ExprKind::Constant: return n->value;
  case ExprKind::Param: {
    if (const Integer *v = valueOf(n, at)) return *v;
    throw NameError("no value given for parameter '" + n->name + "'");
  }
  case ExprKind::Sum: {
    Integer total = n->constantTerm;
    for (const Term &t : n->terms) {
      Integer m = t.coefficient;
      for (auto &[atom, k] : t.monomial) {
        auto v = eval(atom, at);
        if (!v) return std::nullopt;
        m *= k == 1 ? *v : Integer::pow(*v, k);
      }
      total += m;
    }
    return total;
  }
  case ExprKind::FloorDiv: case ExprKind::Mod: case ExprKind::ExactDiv: {
    auto v = eval(n->operands[0], at);
    if (!v) return std::nullopt;
    if (n->kind == ExprKind::Mod) return Integer::floorMod(*v, n->value);
    if (n->kind == ExprKind::ExactDiv && !Integer::floorMod(*v, n->value).isZero())
      return std::nullopt;
    return Integer::floorDiv(*v, n->value);
  }
  case ExprKind::Min: case ExprKind::Max: {
    std::optional<Integer> best;
    for (const Expr &o : n->operands) {
      auto v = eval(o, at);
      if (!v) return std::nullopt;
      if (!best || (n->kind == ExprKind::Min ? *v < *best : *v > *best)) best = v;
    }
    return best;
  }
  case ExprKind::Select: {
    auto c = eval(n->condition, at);
    if (!c) return std::nullopt;
    return eval(*c ? n->operands[0] : n->operands[1], at);
  }
  }
  return std::nullopt;
}

template <class At> std::optional<bool> eval(const PredNode *n, const At &at) {
  switch (n->kind) {
  case PredKind::True: return true;
  case PredKind::False: return false;
  case PredKind::Compare: {
    auto a = eval(n->lhs, at), b = eval(n->rhs, at);
    if (!a || !b) return std::nullopt;
    int c = compare(*a, *b);
    switch (n->op) {
    case CompareOp::EQ: return c == 0;
    case CompareOp::NE: return c != 0;
    case CompareOp::LT: return c < 0;
    case CompareOp::LE: return c <= 0;
    case CompareOp::GT: return c > 0;
    case CompareOp::GE: return c >= 0;
    }
    return std::nullopt;
  }
  case PredKind::Not: {
    auto v = eval(n->children[0], at);
    if (!v) return std::nullopt;
    return !*v;
  }
  case PredKind::And: case PredKind::Or: {
    // Every operand is evaluated: an undefined operand makes the whole predicate undefined,
    // matching the solver, which conjoins the definedness of all parts.
    bool isAnd = n->kind == PredKind::And;
    bool result = isAnd;
    for (const Pred &c : n->children) {
      auto v = eval(c, at);
      if (!v) return std::nullopt;
      result = isAnd ? (result && *v) : (result || *v);
    }
    return result;
  }
  }
  return std::nullopt;
}
} // namespace

std::optional<Integer> evaluate(Expr e, const Assignment &at) { return eval(e.node(), at); }
std::optional<bool> evaluate(const Pred &p, const Assignment &at) { return eval(p.node(), at); }
std::optional<Integer> evaluate(Expr e, const NodeValues &at) { return eval(e.node(), at); }
std::optional<bool> evaluate(const Pred &p, const NodeValues &at) { return eval(p.node(), at); }

} // namespace shapelab
