// Evaluate — concrete values of expressions and predicates at a point.
//
// Model: an Assignment maps parameter names to exact integers. evaluate(e, a) is the value of
// e at a, or nullopt where e is undefined (an exact division that does not divide).
// Example: evaluate(parseExpr("(n*(n-1))/2"), {{"n", 4}}) == 6; at n = 5 it is 10; and
// evaluate(parseExpr("n/2"), {{"n", 3}}) is nullopt.
// A predicate over an undefined expression does not hold (it is an error, not a truth value):
// evaluate(pred) returns nullopt there, and holds() returns false.
// Invariant: arithmetic is exact (Integer); nothing here can overflow or round.
#pragma once

#include <optional>
#include <span>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "symbolic/Expr.h"

namespace shapelab {

/// Parameter values, kept sorted by name.
class Assignment {
public:
  Assignment() = default;
  Assignment(std::initializer_list<std::pair<std::string, Integer>> values);
  void set(const std::string &name, const Integer &value);
  const Integer *find(const std::string &name) const;
  const std::vector<std::pair<std::string, Integer>> &values() const { return values_ ? *values_ : none(); }
  bool empty() const { return !values_ || values_->empty(); }
  /// "n = 3, m = 0"
  std::string toString() const;
  /// The same with the names in `order` first, in that order (declaration order), then the rest.
  std::string toString(const std::vector<std::string> &order) const;
  friend bool operator==(const Assignment &a, const Assignment &b) { return a.values() == b.values(); }

private:
  using Values = std::vector<std::pair<std::string, Integer>>;
  static const Values &none();
  // Shared by copies until one of them is set (copy on write): a witness is copied with every
  // decision that carries it (an array's status gathers the decisions of everything it reads),
  // and a copy is then a count, not a vector of names and values.
  std::shared_ptr<Values> values_;
};

/// Parameter values by the parameters' nodes (a parameter's node is the only one of its name
/// while a handle keeps it: hold one for each), for a loop that evaluates at many points: a
/// lookup compares pointers, not names. The spans are parallel and must outlive the value.
struct NodeValues {
  std::span<const ExprNode *const> params;
  std::span<const Integer> values;
  const Integer *find(const ExprNode *param) const {
    for (std::size_t i = 0; i < params.size(); ++i)
      if (params[i] == param) return &values[i];
    return nullptr;
  }
};

/// Value of `e`; nullopt where undefined. Throws NameError for an unassigned parameter.
std::optional<Integer> evaluate(Expr e, const Assignment &at);
std::optional<Integer> evaluate(Expr e, const NodeValues &at);
/// Truth of `p`; nullopt where an expression in it is undefined.
std::optional<bool> evaluate(const Pred &p, const Assignment &at);
std::optional<bool> evaluate(const Pred &p, const NodeValues &at);
/// True only where `p` is defined and true.
inline bool holds(const Pred &p, const Assignment &at) { return evaluate(p, at) == true; }
inline bool holds(const Pred &p, const NodeValues &at) { return evaluate(p, at) == true; }

} // namespace shapelab
