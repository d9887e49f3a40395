// Predicates: comparisons of expressions (folded when the sides differ by a constant), and,
// or, not (flattened, constants absorbed where every part is defined).
// Example: compare(GT, n + 1, n) is true; conjunction({p, true}) is p.
#include "symbolic/ExprDetail.h"


namespace shapelab {

using namespace exprdetail;

// ---------------------------------------------------------------------------------------------

const char *spelling(CompareOp op) {
  switch (op) {
  case CompareOp::EQ: return "==";
  case CompareOp::NE: return "!=";
  case CompareOp::LT: return "<";
  case CompareOp::LE: return "<=";
  case CompareOp::GT: return ">";
  case CompareOp::GE: return ">=";
  }
  return "?";
}

CompareOp negated(CompareOp op) {
  switch (op) {
  case CompareOp::EQ: return CompareOp::NE;
  case CompareOp::NE: return CompareOp::EQ;
  case CompareOp::LT: return CompareOp::GE;
  case CompareOp::LE: return CompareOp::GT;
  case CompareOp::GT: return CompareOp::LE;
  case CompareOp::GE: return CompareOp::LT;
  }
  return op;
}


// ---------------------------------------------------------------------------------------------
// Pred

Pred::Pred() : Pred(truthNode(true)) {}
Pred Pred::truth(bool value) { return Pred(truthNode(value)); }
PredKind Pred::kind() const { return node()->kind; }

std::optional<bool> Pred::constantValue() const {
  if (node()->kind == PredKind::True) return true;
  if (node()->kind == PredKind::False) return false;
  return std::nullopt;
}

Pred Pred::compare(CompareOp op, Expr lhs, Expr rhs) {
  // Fold a comparison whose two sides differ by a constant (n + 1 > n), unless an exact
  // division makes it undefined somewhere: then its truth still depends on the parameters.
  if (lhs.isTotal() && rhs.isTotal()) {
    if (auto d = constantDifference(lhs.node(), rhs.node())) {
      int s = d->sign();
      bool v = false;
      switch (op) {
      case CompareOp::EQ: v = s == 0; break;
      case CompareOp::NE: v = s != 0; break;
      case CompareOp::LT: v = s < 0; break;
      case CompareOp::LE: v = s <= 0; break;
      case CompareOp::GT: v = s > 0; break;
      case CompareOp::GE: v = s >= 0; break;
      }
      return truth(v);
    }
  }
  PredNode n;
  n.kind = PredKind::Compare;
  n.op = op;
  n.lhs = lhs;
  n.rhs = rhs;
  return internPred(std::move(n));
}

namespace exprdetail {
Pred junction(PredKind kind, const std::vector<Pred> &parts) {
  bool isAnd = kind == PredKind::And;
  // Undefinedness is strict (an undefined part makes the whole undefined, see Evaluate.h), so
  // an absorbing constant decides the junction only when every other part is defined everywhere.
  bool allTotal = true;
  for (const Pred &p : parts) allTotal = allTotal && p.node()->total;
  std::vector<Pred> flat;
  for (const Pred &p : parts) {
    if (p.constantValue() == isAnd) continue;          // neutral element
    if (p.constantValue() == !isAnd && allTotal) return Pred::truth(!isAnd); // absorbing element
    auto add = [&](const Pred &c) {
      if (std::find(flat.begin(), flat.end(), c) == flat.end()) flat.push_back(c);
    };
    if (p.kind() == kind)
      for (const Pred &c : p.node()->children) add(c);
    else
      add(p);
  }
  if (flat.empty()) return Pred::truth(isAnd);
  if (flat.size() == 1) return flat[0];
  PredNode n;
  n.kind = kind;
  n.children = std::move(flat);
  return internPred(std::move(n));
}
} // namespace exprdetail

Pred Pred::conjunction(const std::vector<Pred> &parts) { return junction(PredKind::And, parts); }
Pred Pred::disjunction(const std::vector<Pred> &parts) { return junction(PredKind::Or, parts); }

Pred Pred::negation(const Pred &p) {
  if (auto v = p.constantValue()) return truth(!*v);
  if (p.kind() == PredKind::Not) return p.node()->children[0];
  PredNode n;
  n.kind = PredKind::Not;
  n.children = {p};
  return internPred(std::move(n));
}


} // namespace shapelab
