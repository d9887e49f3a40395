// Vectorizing a graph (ops/Vectorize.h): one batched rule per node kind.
#include "ops/Vectorize.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "ops/GraphDetail.h"
#include "shape/Einsum.h"
#include "shape/RandomVariable.h"

namespace shapelab::ops {

namespace {

class Batcher {
public:
  Batcher(Graph &graph, BroadcastMode mode) : g_(graph), mode_(mode) {}

  std::vector<const Node *> run(const std::vector<const Node *> &outputs,
                                const std::vector<std::pair<const Node *, const Node *>> &replace) {
    if (replace.empty()) throw OpError("vectorize needs at least one input to replace");
    for (const auto &[x, xb] : replace) {
      if (xb->rank() < x->rank())
        throw OpError("vectorize: the batched " + xb->describe() + " has rank " + std::to_string(xb->rank()) + ", less than " +
                      x->describe() + "'s " + std::to_string(x->rank()));
      for (std::size_t i = 0; i < x->rank(); ++i)
        if (!(xb->shape[xb->rank() - x->rank() + i] == x->shape[i]))
          throw OpError("vectorize: the last dims of " + xb->describe() + " " + toString(xb->shape) + " are not those of " +
                        x->describe() + " " + toString(x->shape));
      if (xb->dtype != x->dtype)
        throw OpError("vectorize: " + xb->describe() + " is " + spelling(xb->dtype) + ", " + x->describe() + " is " + spelling(x->dtype));
      k_ = std::max(k_, xb->rank() - x->rank());
    }
    // Each batched input with k leading dims (1s in front where it has fewer).
    for (const auto &[x, xb] : replace) {
      const Node *b = xb;
      const std::size_t have = xb->rank() - x->rank();
      if (have < k_) {
        std::vector<int64_t> front(k_ - have);
        std::iota(front.begin(), front.end(), 0);
        b = g_.expandDims(b, front);
      }
      batched_[x] = b;
      if (batch_.empty() || have == k_) batch_ = Shape(b->shape.begin(), b->shape.begin() + std::ptrdiff_t(k_));
    }
    // The nodes the outputs read (not past a replaced one), in creation order (operands first),
    // rebuilt where they read a replaced node.
    for (const Node *n : nodesRead(outputs, [&](const Node *r) { return batched_.count(r) > 0; })) {
      if (batched_.count(n)) continue;
      bool reads = false;
      for (const Node *i : n->inputs) reads = reads || batched_.count(i);
      if (reads) batched_[n] = rule(n);
    }
    std::vector<const Node *> out;
    for (const Node *o : outputs) out.push_back(batched_.count(o) ? batched_.at(o) : spread(o));
    return out;
  }

private:
  Graph &g_;
  BroadcastMode mode_;
  std::size_t k_ = 0;
  Shape batch_; // the batch dims of one batched input with k of them (concatenate's and the
                // unbatched outputs' batch)
  std::unordered_map<const Node *, const Node *> batched_;

  bool isBatched(const Node *n) const { return batched_.count(n) > 0; }
  const Node *in(const Node *n, std::size_t i) const {
    auto it = batched_.find(n->inputs[i]);
    return it == batched_.end() ? n->inputs[i] : it->second;
  }
  /// An unbatched node as every example sees it: broadcast to the batch.
  const Node *spread(const Node *n) {
    Shape target = batch_;
    target.insert(target.end(), n->shape.begin(), n->shape.end());
    return g_.broadcastTo(n, target);
  }
  /// A batched node of core rank r made of core rank `rank`: 1s inserted after the batch (an
  /// elementwise operand aligns its core dims with the result's, not with the batch).
  const Node *aligned(const Node *b, std::size_t coreRank, std::size_t rank) {
    if (coreRank >= rank) return b;
    std::vector<int64_t> axes(rank - coreRank);
    std::iota(axes.begin(), axes.end(), int64_t(k_));
    return g_.expandDims(b, axes);
  }
  Shape prefixed(const Shape &core) const {
    Shape s = batch_;
    s.insert(s.end(), core.begin(), core.end());
    return s;
  }
  /// The batch dims of a batched node (its first k).
  Shape batchOf(const Node *b) const { return Shape(b->shape.begin(), b->shape.begin() + std::ptrdiff_t(k_)); }
  std::vector<int64_t> shifted(std::vector<int64_t> axes) const {
    for (int64_t &a : axes) a += int64_t(k_);
    return axes;
  }
  [[noreturn]] static void noRule(const Node *n, const std::string &why = "") {
    throw OpError("vectorize: " + n->describe() + " has no batched rule in shapelab yet" + (why.empty() ? "" : " (" + why + ")"));
  }
  const Node *rule(const Node *n);
  const Node *blockwise(const Node *n);
  /// The Blockwise wrapper (PyTensor's fallback): n run on each example, its batched operands
  /// read with their k batch dims; refused with the reason where the wrapper cannot be made.
  const Node *wrapped(const Node *n) {
    std::vector<const Node *> ins;
    for (std::size_t i = 0; i < n->inputs.size(); ++i) ins.push_back(in(n, i));
    try {
      return g_.map(n, ins, k_, mode_);
    } catch (const OpError &e) {
      noRule(n, e.what());
    }
  }
  /// A Map batched again: the new batch in front of its own, over the same core.
  const Node *mapAgain(const Node *n) {
    const attr::Core &c = n->attr<attr::Core>();
    std::vector<const Node *> ins;
    for (std::size_t i = 0; i < n->inputs.size(); ++i) {
      const Node *core = c.core->inputs[i];
      if (!isBatched(n->inputs[i])) ins.push_back(n->inputs[i] == core ? core : spread(n->inputs[i]));
      else ins.push_back(n->inputs[i] == core ? aligned(in(n, i), core->rank(), core->rank() + std::size_t(c.batchRank)) : in(n, i));
    }
    return g_.map(c.core, ins, k_ + std::size_t(c.batchRank), mode_);
  }
};

const Node *Batcher::blockwise(const Node *n) {
  const std::string &op = n->op;
  if (op == "matmul") {
    const Node *a = in(n, 0), *b = in(n, 1);
    const bool aVec = isBatched(n->inputs[0]) && n->inputs[0]->rank() == 1, bVec = isBatched(n->inputs[1]) && n->inputs[1]->rank() == 1;
    // A batched vector is a matrix of one row (a) or one column (b), dropped again after.
    if (aVec) a = g_.expandDims(a, {int64_t(a->rank()) - 1});
    if (bVec) b = g_.expandDims(b, {int64_t(b->rank())});
    const Node *r = g_.blockwise("matmul", {a, b}, mode_);
    const int64_t last = int64_t(r->rank()) - 1;
    // The axes the matrices added: a's row (last but one, or last where an unbatched vector b
    // dropped the columns) and b's column (last).
    std::vector<int64_t> drop;
    if (aVec && bVec) drop = {last - 1, last};
    else if (aVec) drop = {n->inputs[1]->rank() == 1 ? last : last - 1};
    else if (bVec) drop = {last};
    return drop.empty() ? r : g_.squeeze(r, drop);
  }
  if (op == "solve") {
    const Node *a = n->inputs[0], *b = n->inputs[1];
    if (isBatched(b) && b->rank() == a->rank() - 1) { // a vector b: a column, then back
      const Node *column = g_.expandDims(in(n, 1), {int64_t(in(n, 1)->rank())});
      const Node *r = g_.blockwise("solve", {in(n, 0), column}, mode_);
      return g_.squeeze(r, std::vector<int64_t>{int64_t(r->rank()) - 1});
    }
    if (!isBatched(b) && b->rank() == a->rank() - 1) // batched a, vector b: b as a column
      return g_.squeeze(g_.blockwise("solve", {in(n, 0), g_.expandDims(b, {int64_t(b->rank())})}, mode_),
                        std::vector<int64_t>{int64_t(k_ + n->rank())});
    return g_.blockwise("solve", {in(n, 0), in(n, 1)}, mode_);
  }
  if (op == "outer") {
    // np.outer ravels each operand: each example's core dims flattened after the batch, then
    // the column of one times the row of the other.
    auto flat = [&](std::size_t i) {
      const Node *x = isBatched(n->inputs[i]) ? in(n, i) : spread(n->inputs[i]);
      std::vector<Expr> shape(x->shape.begin(), x->shape.begin() + std::ptrdiff_t(k_));
      Expr count(1);
      for (const Expr &d : n->inputs[i]->shape) count = count * d;
      shape.push_back(count);
      return g_.reshape(x, shape);
    };
    const Node *a = flat(0), *b = flat(1);
    return g_.binary("multiply", g_.expandDims(a, {int64_t(k_) + 1}), g_.expandDims(b, {int64_t(k_)}), mode_);
  }
  std::vector<const Node *> ins;
  for (std::size_t i = 0; i < n->inputs.size(); ++i) ins.push_back(in(n, i));
  return g_.blockwise(op, ins, mode_);
}

const Node *Batcher::rule(const Node *n) {
  const std::size_t k = k_;
  switch (n->kind) {
  case OpKind::Unary:
  case OpKind::Binary:
  case OpKind::Where:
  case OpKind::Cast: {
    std::vector<const Node *> ins;
    for (std::size_t i = 0; i < n->inputs.size(); ++i)
      ins.push_back(isBatched(n->inputs[i]) ? aligned(in(n, i), n->inputs[i]->rank(), n->rank()) : n->inputs[i]);
    return g_.rebuild(n, ins);
  }
  case OpKind::Transpose: {
    std::vector<int64_t> perm(k);
    std::iota(perm.begin(), perm.end(), 0);
    for (int64_t p : n->attr<attr::Permutation>().axes) perm.push_back(p + int64_t(k));
    return g_.transpose(in(n, 0), perm);
  }
  case OpKind::Reshape: {
    std::vector<Expr> target = batchOf(in(n, 0));
    target.insert(target.end(), n->exprs.begin(), n->exprs.end());
    return g_.reshape(in(n, 0), target);
  }
  case OpKind::ExpandDims: return g_.expandDims(in(n, 0), shifted(n->attr<attr::NewAxes>().axes));
  case OpKind::Squeeze: return g_.squeeze(in(n, 0), shifted(n->attr<attr::Dropped>().axes));
  case OpKind::BroadcastTo: {
    Shape target = batchOf(in(n, 0));
    target.insert(target.end(), n->exprs.begin(), n->exprs.end());
    return g_.broadcastTo(aligned(in(n, 0), n->inputs[0]->rank(), n->rank()), target);
  }
  case OpKind::SumTo: {
    Shape target = batchOf(in(n, 0));
    target.insert(target.end(), n->exprs.begin(), n->exprs.end());
    return g_.sumTo(in(n, 0), target);
  }
  case OpKind::Alloc: {
    Shape target = batchOf(in(n, 0));
    target.insert(target.end(), n->exprs.begin(), n->exprs.end());
    return g_.full(target, aligned(in(n, 0), n->inputs[0]->rank(), n->rank()), n->attr<attr::Fill>().dtype);
  }
  case OpKind::Reduce: {
    const attr::Reduction &r = n->attr<attr::Reduction>();
    const Node *x = in(n, 0);
    const bool arg = n->op == "argmax" || n->op == "argmin";
    if (arg && r.axes.size() > 1) { // argmax over every axis: the flat index within the example
      Shape flat = batchOf(x);
      flat.push_back(Expr(-1));
      const Node *index = g_.reduce(n->op, g_.reshape(x, flat), std::vector<int64_t>{int64_t(k)}, false);
      if (!r.keepdims) return index;
      Shape kept = batchOf(x);
      kept.insert(kept.end(), n->shape.begin(), n->shape.end());
      return g_.reshape(index, kept);
    }
    return g_.reduce(n->op, x, shifted(r.axes), r.keepdims);
  }
  case OpKind::Cumsum:
  case OpKind::Cumprod: return g_.cumulative(n->op, in(n, 0), n->attr<attr::Axis>().axis + int64_t(k));
  case OpKind::Sort: return g_.sort(n->op, in(n, 0), n->attr<attr::Axis>().axis + int64_t(k));
  case OpKind::Diff: {
    const attr::Difference &d = n->attr<attr::Difference>();
    return g_.diff(in(n, 0), d.n, d.axis + int64_t(k));
  }
  case OpKind::Index:
  case OpKind::Split: {
    if (n->inputs.size() > 1 && isBatched(n->inputs[1])) {
      // x[idx, ...] with the integer array first: the result's first dims are the array's, so
      // a batched array (over an x the batch does not reach) puts the batch in front by itself.
      const Node *array = n->inputs[1];
      if (n->kind == OpKind::Index && !isBatched(n->inputs[0]) && array->dtype != DType::Bool && !n->index.empty() &&
          n->index[0].kind == IndexEntry::Array)
        return g_.index(n->inputs[0], n->index, in(n, 1));
      return wrapped(n); // (a mask's count differs per example: refused by the wrapper)
    }
    std::vector<IndexEntry> entries(k);
    entries.insert(entries.end(), n->index.begin(), n->index.end());
    return g_.index(in(n, 0), entries, n->inputs.size() > 1 ? n->inputs[1] : nullptr);
  }
  case OpKind::Concatenate:
  case OpKind::Stack: {
    std::vector<const Node *> ins;
    Shape batch;
    for (std::size_t i = 0; i < n->inputs.size() && batch.empty(); ++i)
      if (isBatched(n->inputs[i])) batch = batchOf(in(n, i));
    for (std::size_t i = 0; i < n->inputs.size(); ++i) {
      Shape target = batch;
      target.insert(target.end(), n->inputs[i]->shape.begin(), n->inputs[i]->shape.end());
      const Node *x = in(n, i);
      ins.push_back(x->shape == target ? x : g_.broadcastTo(x, target)); // (an unbatched operand, or another batch)
    }
    const int64_t axis = n->attr<attr::Axis>().axis + int64_t(k);
    return n->kind == OpKind::Concatenate ? g_.concatenate(ins, axis) : g_.stack(ins, axis);
  }
  case OpKind::Blockwise: return blockwise(n);
  case OpKind::Map: return mapAgain(n);
  case OpKind::Einsum: {
    // Letters the subscripts do not use label the batch: in front of each batched operand's
    // labels and of the output's (each batch label's sizes broadcast across operands).
    const EinsumSpec &spec = n->attr<EinsumSpec>();
    std::vector<int64_t> batchLabels;
    for (const char *c = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"; *c && batchLabels.size() < k; ++c) {
      bool used = std::count(spec.output.begin(), spec.output.end(), int64_t(*c)) > 0;
      for (const auto &labels : spec.operands) used = used || std::count(labels.begin(), labels.end(), int64_t(*c)) > 0;
      if (!used) batchLabels.push_back(int64_t(*c));
    }
    if (batchLabels.size() < k) return wrapped(n); // no letters left for the batch
    EinsumSpec batched = spec;
    std::vector<const Node *> ins;
    for (std::size_t i = 0; i < n->inputs.size(); ++i) {
      if (isBatched(n->inputs[i])) batched.operands[i].insert(batched.operands[i].begin(), batchLabels.begin(), batchLabels.end());
      ins.push_back(in(n, i));
    }
    batched.output.insert(batched.output.begin(), batchLabels.begin(), batchLabels.end());
    return g_.einsum(batched, ins, mode_);
  }
  case OpKind::SpecifyShape: {
    std::vector<std::optional<Expr>> shape(k);
    for (std::size_t i = 0; i < n->rank(); ++i)
      shape.push_back(n->attr<attr::GivenDims>().given[i] ? std::optional<Expr>(n->exprs[i]) : std::nullopt);
    return g_.specifyShape(in(n, 0), shape);
  }
  case OpKind::Check:
  case OpKind::After: {
    std::vector<const Node *> ins;
    for (std::size_t i = 0; i < n->inputs.size(); ++i) ins.push_back(in(n, i));
    if (n->kind == OpKind::After && !isBatched(n->inputs.back())) ins.back() = spread(n->inputs.back());
    return g_.rebuild(n, ins);
  }
  case OpKind::Random: {
    // The batch joins the draw's batch: in front of its size (or of the parameters' broadcast
    // batch, size=None), each batched parameter aligned past the batch to the draw's batch rank.
    const RandomVariableInfo *info = findRandomVariable(n->op);
    const attr::Draw &draw = n->attr<attr::Draw>();
    if (!info || info->signature.empty()) noRule(n, "a signature built per call");
    for (const std::optional<int64_t> &r : draw.shapeRanks)
      if (r) noRule(n, "a shape-only parameter");
    std::vector<std::size_t> coreRanks; // per parameter, from the signature's inputs "(n),(n,n)"
    {
      const std::string inputs = info->signature.substr(0, info->signature.find("->"));
      for (std::size_t at = inputs.find('('); at != std::string::npos; at = inputs.find('(', at + 1)) {
        const std::string group = inputs.substr(at + 1, inputs.find(')', at) - at - 1);
        coreRanks.push_back(group.empty() ? 0 : std::size_t(std::count(group.begin(), group.end(), ',')) + 1);
      }
    }
    if (coreRanks.size() != n->inputs.size()) noRule(n, "parameters unlike its signature");
    std::optional<Shape> size;
    std::size_t batchRank = 0; // the draw's own batch rank
    if (draw.sizeRank) {
      size = batch_;
      size->insert(size->end(), n->exprs.end() - *draw.sizeRank, n->exprs.end());
      batchRank = std::size_t(*draw.sizeRank);
    } else {
      for (std::size_t i = 0; i < n->inputs.size(); ++i) batchRank = std::max(batchRank, n->inputs[i]->rank() - coreRanks[i]);
    }
    std::vector<const Node *> ins;
    for (std::size_t i = 0; i < n->inputs.size(); ++i) {
      const Node *p = n->inputs[i];
      ins.push_back(isBatched(p) ? aligned(in(n, i), p->rank(), batchRank + coreRanks[i]) : p);
    }
    if (!size) { // every parameter batched or not: the unbatched ones broadcast over the batch
      bool any = false;
      for (std::size_t i = 0; i < n->inputs.size(); ++i) any = any || isBatched(n->inputs[i]);
      if (!any) noRule(n);
    }
    return g_.random(n->op, ins, size, n->mode);
  }
  case OpKind::IfElse: {
    // A condition on data the batch does not reach is one for every example: the same ifelse
    // of the batched branches. One the batch reaches differs per example (each example would
    // run its own branch).
    const bool onData = n->inputs.size() > 2;
    if (onData && isBatched(n->inputs[2])) {
      // Each example takes its own branch: the wrapper, whose operands (both branches) are
      // computed for the whole batch, is exact only where neither branch can raise.
      for (std::size_t i = 0; i < 2; ++i) {
        const Node *branch = in(n, i);
        const Validity v = validityOf(g_, branch);
        if (branch->valueErrors || v.status() != Status::Valid || !v.limits().empty())
          noRule(n, "a condition on data that reads a replaced input, and a branch that can raise: each example would compute only the branch it takes");
      }
      return wrapped(n);
    }
    const Node *a = isBatched(n->inputs[0]) ? in(n, 0) : spread(n->inputs[0]);
    const Node *b = isBatched(n->inputs[1]) ? in(n, 1) : spread(n->inputs[1]);
    return onData ? g_.ifelse(n->inputs[2], a, b) : g_.ifelse(n->cond, a, b);
  }
  case OpKind::Input:
  case OpKind::Scalar: noRule(n);
  default: return wrapped(n); // set/inc_subtensor, convolve, searchsorted, ...
  }
}

} // namespace

std::vector<const Node *> vectorize(Graph &graph, const std::vector<const Node *> &outputs,
                                    const std::vector<std::pair<const Node *, const Node *>> &replace, BroadcastMode mode) {
  return Batcher(graph, mode).run(outputs, replace);
}

} // namespace shapelab::ops
