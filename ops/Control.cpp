// Random variables (NumPy's and PyTensor's shape rules), specify_shape, ifelse on sizes or data,
// and after.
#include "ops/GraphDetail.h"

namespace shapelab::ops {

const Node *Graph::random(const std::string &name, const std::vector<const Node *> &parameters,
                          const std::optional<Shape> &size, BroadcastMode mode,
                          const std::vector<std::optional<Shape>> &shapeOnly) {
  const RandomVariableInfo *info = findRandomVariable(name);
  if (!info) throw OpError("unknown random variable '" + name + "' (see :ops)");
  std::vector<GufuncArgument> args;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (i < shapeOnly.size() && shapeOnly[i]) args.push_back({*shapeOnly[i], true});
    else args.push_back({parameters[i]->shape, false});
  }
  Node c = blank(OpKind::Random, name, parameters);
  attr::Draw draw;
  draw.draw = reuseDraw_ ? *std::exchange(reuseDraw_, std::nullopt) : int64_t(++draws_);
  for (std::size_t i = 0; i < parameters.size(); ++i)
    draw.shapeRanks.push_back(i < shapeOnly.size() && shapeOnly[i] ? std::optional(int64_t(shapeOnly[i]->size())) : std::nullopt);
  for (const auto &s : shapeOnly)
    if (s) c.exprs.insert(c.exprs.end(), s->begin(), s->end());
  if (size) {
    draw.sizeRank = int64_t(size->size());
    c.exprs.insert(c.exprs.end(), size->begin(), size->end());
  }
  c.attrs = std::move(draw);
  c.mode = mode;
  return make(std::move(c), [&](Node &n) {
    if (size) requireSizes(n.validity, *size, "size");
    RandomVariableResult r = inferRandomVariable(*solver_, n.validity.context(), name, args, size, mode,
                                                 OperandsExist::Known);
    // permutation(x) of a 0-d integer array x permutes arange(x) (PyTensor's PermutationRV): its
    // length is x's value, a data-dependent size bound when the draw runs (max(0, x)).
    const bool valueLength = name == "permutation" && parameters.size() == 1 && !(shapeOnly.size() && shapeOnly[0]) &&
                             parameters[0]->rank() == 0 && isInteger(parameters[0]->dtype);
    if (!r.allocatable() && !valueLength)
      throw OpError(name + ": the output shape depends on the value of a parameter (" + r.undetermined.front() +
                    "); give that parameter as a literal" +
                    (name == "permutation" ? std::string(" or as a 0-d integer array") : std::string()));
    if (valueLength && !r.allocatable()) n.dataSize = freshDataSize(n, std::nullopt, false);
    for (const auto &d : r.shape) n.shape.push_back(d ? *d : *n.dataSize);
    n.validity.absorb(r.validity);
    if (mode == BroadcastMode::Static) {
      // Without size the batch shapes broadcast with one another (shape/Broadcast's rule), after
      // each parameter's core dims; parameters given by their shape alone take no part.
      std::vector<std::size_t> core;
      if (!size) {
        Signature sig = parseSignature(r.signature);
        core.assign(parameters.size(), 0);
        for (std::size_t i = 0; i < parameters.size() && i < sig.inputs.size(); ++i) core[i] = sig.inputs[i].dims.size();
      }
      std::vector<bool> apart;
      for (std::size_t i = 0; i < parameters.size(); ++i) apart.push_back(i < shapeOnly.size() && bool(shapeOnly[i]));
      markStaticBroadcastable(n, !size, core, apart);
    }
    if (info->dtype == "int64") n.dtype = DType::Int64;
    else if (name == "permutation" || name == "choice_without_replacement")
      n.dtype = parameters.empty() || (shapeOnly.size() && shapeOnly[0]) || valueLength ? DType::Int64 : parameters[0]->dtype;
    else n.dtype = DType::Float64;
  });
}

const Node *Graph::specifyShape(const Node *x, const std::vector<std::optional<Expr>> &shape) {
  if (shape.size() != x->rank())
    throw OpError("specify_shape: the array has " + std::to_string(x->rank()) + " dimension(s), the shape " +
                  std::to_string(shape.size()));
  Node c = blank(OpKind::SpecifyShape, "specify_shape", {x});
  attr::GivenDims given;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    given.given.push_back(bool(shape[i]));
    c.exprs.push_back(shape[i] ? *shape[i] : Expr(0));
  }
  c.attrs = std::move(given);
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      n.shape.push_back(shape[i] ? *shape[i] : x->shape[i]);
      if (shape[i])
        requireOr(n.validity, eq(x->shape[i], *shape[i]),
                  "dimension " + std::to_string(i) + " is " + shape[i]->toString(),
                  "SpecifyShape: dim " + std::to_string(i) + " of input has shape " + dimText(x->shape[i]) +
                      ", expected " + shape[i]->toString() + ".");
    }
  });
}

namespace {
void foldBranches(Graph &g, Node &n, const Pred &cond, const Node *a, const Node *b) {
  if (a->rank() != b->rank())
    throw OpError("ifelse: the branches have ranks " + std::to_string(a->rank()) + " and " + std::to_string(b->rank()));
  n.dtype = resultType({{a->dtype, a->weak}, {b->dtype, b->weak}});
  const Validity va = validityOf(g, a), vb = validityOf(g, b);
  // NumPy's limits of the arrays a branch makes bind where it runs, as its shape obligations do
  // (reported apart, as limits).
  auto limitsOf = [](const Validity &v) {
    std::vector<Pred> ps;
    for (const Obligation &o : v.obligations())
      if (o.kind == ObligationKind::Limit && o.decision.answer != Answer::Proven) ps.push_back(o.predicate);
    return whereHolds(Pred::conjunction(ps));
  };
  auto fold = [&](const Pred &okA, const Pred &okB, const std::string &what, ObligationKind kind) {
    if (okA == okB) {
      // Both branches need the same: no matter which runs.
      if (!okA.isTrue()) n.validity.require(okA, "either branch " + what, kind);
      return;
    }
    if (!okA.isTrue()) n.validity.require(!cond || okA, "the first branch " + what + " where it is chosen", kind);
    if (!okB.isTrue()) n.validity.require(cond || okB, "the second branch " + what + " where it is chosen", kind);
  };
  fold(va.domain(), vb.domain(), "is valid", ObligationKind::Shape);
  fold(limitsOf(va), limitsOf(vb), "makes arrays that fit NumPy's limits", ObligationKind::Limit);
}
} // namespace

const Node *Graph::ifelse(const Pred &cond, const Node *a, const Node *b) {
  Node c = blank(OpKind::IfElse, "ifelse", {a, b});
  c.cond = cond;
  return make(std::move(c), [&](Node &n) {
    // A condition over a size that may not exist (x.shape[1] of a reshape to (2, -1)) picks no
    // branch where it does not: definedness is an obligation, as for every size.
    Pred defined = definedness(cond);
    if (!defined.isTrue()) n.validity.require(defined, "the condition " + cond.toString() + " is defined");
    foldBranches(*this, n, cond, a, b);
    for (std::size_t i = 0; i < a->rank(); ++i) n.shape.push_back(choose(n.validity.context(), cond, a->shape[i], b->shape[i]));
  });
}

const Node *Graph::check(const Node *x, const Pred &cond, const std::string &holds, const std::string &fails,
                         const std::vector<Expr> &shown) {
  if (cond.constantValue() == true) return x;
  Node c = blank(OpKind::Check, "check", {x});
  c.weak = x->weak;
  c.cond = cond;
  c.exprs = shown;
  c.attrs = attr::Requirement{holds, fails};
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    n.shape = x->shape;
    std::vector<std::string> written;
    for (const Expr &e : shown) written.push_back(dimText(e));
    requireOr(n.validity, cond, attr::requirementText(holds, written), attr::requirementText(fails, written));
  });
}

const Node *Graph::after(const std::vector<const Node *> &guards, const Node *x) {
  if (guards.empty()) return x;
  std::vector<const Node *> inputs = guards;
  inputs.push_back(x);
  Node c = blank(OpKind::After, "after", inputs);
  c.weak = x->weak; // a Python literal stays one (part of the node's key)
  return make(std::move(c), [&](Node &n) {
    // Nothing of its own: the guards' validity and x's come through the operands.
    n.dtype = x->dtype;
    n.shape = x->shape;
  });
}

const Node *Graph::map(const Node *core, const std::vector<const Node *> &operands, std::size_t batchRank, BroadcastMode mode) {
  if (core->inputs.empty()) throw OpError("blockwise: " + core->describe() + " has no operands to batch");
  if (operands.size() != core->inputs.size())
    throw OpError("blockwise: " + core->describe() + " takes " + std::to_string(core->inputs.size()) + " operands, " +
                  std::to_string(operands.size()) + " given");
  // The core's result is one shape for every example: not one that reads a size its own data
  // decides (each example would decide its own).
  if (core->dataSize) {
    const std::string own = (*core->dataSize)->name;
    for (const Expr &d : core->shape)
      for (const Expr &p : parametersOf(d))
        if (p->name == own)
          throw OpError("blockwise: the shape of " + core->describe() + " depends on each example's data (" + own + ")");
  }
  std::vector<std::size_t> coreRanks;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const Node *x = operands[i], *c = core->inputs[i];
    coreRanks.push_back(c->rank());
    if (x == c) continue; // unbatched: every example reads the core's own operand
    if (x->rank() != batchRank + c->rank() || x->dtype != c->dtype ||
        !std::equal(c->shape.begin(), c->shape.end(), x->shape.begin() + std::ptrdiff_t(batchRank)))
      throw OpError("blockwise: operand " + std::to_string(i) + " " + toString(x->shape) + " (" + spelling(x->dtype) + ") is not " +
                    std::to_string(batchRank) + " batch dims before " + c->describe() + "'s " + toString(c->shape) + " (" +
                    spelling(c->dtype) + ")");
  }
  Node c = blank(OpKind::Map, "blockwise", operands);
  c.mode = mode;
  c.attrs = attr::Core{core, int64_t(batchRank)};
  return make(std::move(c), [&](Node &n) {
    n.dtype = core->dtype;
    std::vector<Shape> batches;
    Pred empty = Pred::disjunction({});
    for (std::size_t i = 0; i < operands.size(); ++i) {
      batches.emplace_back(operands[i]->shape.begin(), operands[i]->shape.end() - std::ptrdiff_t(coreRanks[i]));
      for (const Expr &d : batches.back()) empty = empty || eq(d, 0);
    }
    BroadcastResult b = broadcast(*solver_, n.validity.context(), batches, mode);
    n.validity.absorb(b.validity);
    n.shape = b.shape;
    n.shape.insert(n.shape.end(), core->shape.begin(), core->shape.end());
    requireSizes(n.validity, n.shape, "the blockwise result");
    // Each example raises what the core raises there; no example runs in an empty batch. (An
    // ifelse on data folds its branches' obligations into its own, under the branch each
    // example takes: they are its operands' here, which the Map reads before it runs.)
    if (!(core->kind == OpKind::IfElse && core->inputs.size() == 3)) {
      for (const std::string &f : core->validity.failures()) requireOr(n.validity, empty, f, f);
      for (const Obligation &o : core->validity.obligations())
        if (o.kind != ObligationKind::Existence && o.decision.answer != Answer::Proven)
          n.validity.require(empty || o.predicate, o.what, o.kind, o.refusal);
    }
    if (mode == BroadcastMode::Static) markStaticBroadcastable(n, true, coreRanks);
  });
}

const Node *Graph::ifelse(const Node *cond, const Node *a, const Node *b) {
  if (cond->rank() != 0) throw OpError("ifelse: the condition must be a 0-d array or a predicate over sizes");
  Node c = blank(OpKind::IfElse, "ifelse", {a, b, cond});
  return make(std::move(c), [&](Node &n) {
    n.dataSize = freshDataSize(n, 1, true);
    Pred chosen = eq(*n.dataSize, 1);
    n.cond = chosen;
    foldBranches(*this, n, chosen, a, b);
    for (std::size_t i = 0; i < a->rank(); ++i) n.shape.push_back(choose(n.validity.context(), chosen, a->shape[i], b->shape[i]));
  });
}

} // namespace shapelab::ops
