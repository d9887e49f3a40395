// Printing expressions and predicates as Python writes them (precedence levels, shared subtrees
// written once per use).
#include "symbolic/Expr.h"

#include <string>

#include "support/FlatIndex.h"

namespace shapelab {

namespace {

// ---------------------------------------------------------------------------------------------
// Printing. Precedence levels, loosest first.
enum Level { kTernary = 0, kSum = 1, kProduct = 2, kUnary = 3, kPower = 4, kAtom = 5 };
enum PLevel { kOr = 0, kAnd = 1, kNot = 2, kCompare = 3 };

/// Writes nodes as text. A node shared in the DAG is written once per use, so the text of a
/// DAG is its tree (up to kMaxTreeSize nodes from an input a few hundred bytes long); when the
/// tree is much larger than a few dozen nodes, the text of each node of some size is kept where
/// it was first written and copied from there when the node comes again.
struct Printer {
  explicit Printer(std::string &text, uint64_t treeSize) : out(text) {
    if (treeSize >= kMemoFromTreeSize) memo.emplace();
  }
  std::string &out;
  struct Span {
    std::size_t start, length;
  };
  struct PointerHash {
    std::size_t operator()(const void *p) const { return std::size_t(reinterpret_cast<uintptr_t>(p)) * 0x9E3779B97F4A7C15ull; }
  };
  std::optional<EntryTable<const void *, Span, PointerHash>> memo;
  static constexpr uint64_t kMemoFromTreeSize = 64, kMemoNodesFrom = 8;

  /// Writes `write()`, the text of `node` (without the parentheses around it), or copies it.
  template <class Node, class Write> void text(const Node *node, Write write) {
    if (!memo || node->treeSize < kMemoNodesFrom) return write();
    if (const Span *s = memo->find(static_cast<const void *>(node))) {
      out.append(out, s->start, s->length);
      return;
    }
    const std::size_t start = out.size();
    write();
    memo->add(node, Span{start, out.size() - start});
  }
};

void printExpr(const ExprNode *n, int context, Printer &p);
void printPred(const PredNode *n, int context, Printer &p);

int levelOfTerm(const Term &t) {
  bool single = t.monomial.size() == 1 && t.monomial[0].second == 1;
  if (t.coefficient.isOne()) return single ? kAtom : (t.monomial.size() == 1 ? kPower : kProduct);
  if (t.coefficient == Integer(-1)) return kUnary;
  return kProduct;
}

int levelOf(const ExprNode *n) {
  switch (n->kind) {
  case ExprKind::Constant: return n->value.sign() < 0 ? kUnary : kAtom;
  case ExprKind::Param: case ExprKind::Min: case ExprKind::Max: return kAtom;
  case ExprKind::FloorDiv: case ExprKind::Mod: case ExprKind::ExactDiv: return kProduct;
  case ExprKind::Select: return kTernary;
  case ExprKind::Sum:
    if (n->terms.size() == 1 && n->constantTerm.isZero()) return levelOfTerm(n->terms[0]);
    return kSum;
  }
  return kAtom;
}

void printMonomial(const Monomial &m, Printer &p) {
  std::string &out = p.out;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (i) out += "*";
    printExpr(m[i].first.node(), kAtom, p);
    if (m[i].second != 1) out += "**" + std::to_string(m[i].second);
  }
}

void printExpr(const ExprNode *n, int context, Printer &p) {
  std::string &out = p.out;
  bool parens = levelOf(n) < context;
  if (parens) out += "(";
  p.text(n, [&] {
    switch (n->kind) {
    case ExprKind::Constant: out += n->value.toString(); break;
    case ExprKind::Param: out += n->name; break;
    case ExprKind::Sum: {
      bool first = true;
      for (const Term &t : n->terms) {
        Integer c = t.coefficient;
        if (first) {
          if (c.sign() < 0) out += "-";
        } else {
          out += c.sign() < 0 ? " - " : " + ";
        }
        Integer a = Integer::abs(c);
        if (!a.isOne()) out += a.toString() + "*";
        printMonomial(t.monomial, p);
        first = false;
      }
      if (!n->constantTerm.isZero()) {
        if (first)
          out += n->constantTerm.toString();
        else
          out += (n->constantTerm.sign() < 0 ? " - " : " + ") + Integer::abs(n->constantTerm).toString();
      }
      break;
    }
    case ExprKind::FloorDiv: case ExprKind::Mod: case ExprKind::ExactDiv: {
      printExpr(n->operands[0].node(), kProduct, p);
      out += n->kind == ExprKind::FloorDiv ? " // " : n->kind == ExprKind::Mod ? " % " : " / ";
      out += n->value.toString();
      break;
    }
    case ExprKind::Min: case ExprKind::Max: {
      out += n->kind == ExprKind::Min ? "min(" : "max(";
      for (std::size_t i = 0; i < n->operands.size(); ++i) {
        if (i) out += ", ";
        printExpr(n->operands[i].node(), kTernary, p);
      }
      out += ")";
      break;
    }
    case ExprKind::Select:
      printExpr(n->operands[0].node(), kSum, p);
      out += " if ";
      printPred(n->condition.node(), kOr, p);
      out += " else ";
      printExpr(n->operands[1].node(), kTernary, p);
      break;
    }
  });
  if (parens) out += ")";
}

int levelOf(const PredNode *n) {
  switch (n->kind) {
  case PredKind::Or: return kOr;
  case PredKind::And: return kAnd;
  case PredKind::Not: return kNot;
  default: return kCompare;
  }
}

void printPred(const PredNode *n, int context, Printer &p) {
  std::string &out = p.out;
  bool parens = levelOf(n) < context;
  if (parens) out += "(";
  p.text(n, [&] {
    switch (n->kind) {
    case PredKind::True: out += "True"; break;
    case PredKind::False: out += "False"; break;
    case PredKind::Compare:
      printExpr(n->lhs.node(), kSum, p);
      out += std::string(" ") + spelling(n->op) + " ";
      printExpr(n->rhs.node(), kSum, p);
      break;
    case PredKind::And: case PredKind::Or:
      for (std::size_t i = 0; i < n->children.size(); ++i) {
        if (i) out += n->kind == PredKind::And ? " and " : " or ";
        printPred(n->children[i].node(), n->kind == PredKind::And ? kNot : kAnd, p);
      }
      break;
    case PredKind::Not:
      out += "not ";
      // A comparison under `not` is parenthesised for the reader; the parser accepts both.
      printPred(n->children[0].node(), kCompare + 1, p);
      break;
    }
  });
  if (parens) out += ")";
}

} // namespace

std::string Expr::toString() const {
  std::string out;
  Printer p(out, node()->treeSize);
  printExpr(node(), kTernary, p);
  return out;
}

std::string Pred::toString() const {
  std::string out;
  Printer p(out, node()->treeSize);
  printPred(node(), kOr, p);
  return out;
}

} // namespace shapelab
