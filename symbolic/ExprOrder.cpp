// The structural order of expressions and predicates: the canonical order of atoms in a
// monomial, of monomials in a sum and of min/max operands. Interned nodes compare by address
// first (equal nodes are one node).
#include "symbolic/ExprDetail.h"


namespace shapelab {

using namespace exprdetail;

int structuralCompare(const ExprNode *a, const ExprNode *b) {
  if (a == b) return 0;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  switch (a->kind) {
  case ExprKind::Constant: return cmpInt(a->value, b->value);
  case ExprKind::Param: return a->name.compare(b->name) < 0 ? -1 : a->name == b->name ? 0 : 1;
  case ExprKind::Sum: {
    for (std::size_t i = 0; i < a->terms.size() && i < b->terms.size(); ++i) {
      if (int c = monomialCompare(a->terms[i].monomial, b->terms[i].monomial)) return c;
      if (int c = cmpInt(a->terms[i].coefficient, b->terms[i].coefficient)) return c;
    }
    if (a->terms.size() != b->terms.size()) return a->terms.size() < b->terms.size() ? -1 : 1;
    return cmpInt(a->constantTerm, b->constantTerm);
  }
  default: break;
  }
  if (int c = cmpInt(a->value, b->value)) return c;
  for (std::size_t i = 0; i < a->operands.size() && i < b->operands.size(); ++i)
    if (int c = structuralCompare(a->operands[i], b->operands[i])) return c;
  if (a->operands.size() != b->operands.size()) return a->operands.size() < b->operands.size() ? -1 : 1;
  if (a->condition && b->condition) return structuralCompare(a->condition, b->condition);
  return 0;
}

int structuralCompare(const PredNode *a, const PredNode *b) {
  if (a == b) return 0;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->op != b->op) return a->op < b->op ? -1 : 1;
  if (a->lhs) {
    if (int c = structuralCompare(a->lhs, b->lhs)) return c;
    if (int c = structuralCompare(a->rhs, b->rhs)) return c;
  }
  for (std::size_t i = 0; i < a->children.size() && i < b->children.size(); ++i)
    if (int c = structuralCompare(a->children[i], b->children[i])) return c;
  return (a->children.size() > b->children.size()) - (a->children.size() < b->children.size());
}

} // namespace shapelab
