// Graph::rebuild: a node over new operands, copied when its rule reads only their shapes (the
// ShapesOnly trait), else through its factory.
#include "ops/GraphDetail.h"

namespace shapelab::ops {

// ---------------------------------------------------------------------------------------------

namespace {
/// Whether n's rule, given `in` for its operands, derives what it derived for n (rebuild()):
/// rules that read their operands' shapes, dtypes and literal flags only, and operands that
/// agree in those (a literal operand must be the same node: its value may matter). The
/// attributes these factories compute from their arguments (normalised axes, padded index
/// entries, a reshape's target) depend on the operands' ranks and shapes alone, so the old node's
/// attributes are also what the factory would compute.
bool derivesAlike(const Node *n, const std::vector<const Node *> &in) {
  if (!hasTrait(n->kind, trait::ShapesOnly)) return false;
  if (n->kind == OpKind::Index && n->inputs.size() != 1) return false; // an index array's values may matter
  if (n->dataSize || in.size() != n->inputs.size()) return false;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Node *a = in[i], *b = n->inputs[i];
    if (a == b) continue;
    if (a->kind == OpKind::Scalar || b->kind == OpKind::Scalar || a->shape != b->shape || a->dtype != b->dtype ||
        a->weak != b->weak)
      return false;
  }
  return true;
}
} // namespace

namespace {
/// n over `in`: n's key (its operands replaced) and derived fields.
Node copyNode(const Node *n, const std::vector<const Node *> &in, std::size_t hash) {
  return Node{.kind = n->kind,
              .dtype = n->dtype,
              .weak = n->weak,
              .mode = n->mode,
              .inputs = in,
              .shape = n->shape,
              .hash = hash,
              .op = n->op,
              .attrs = n->attrs,
              .exprs = n->exprs,
              .index = n->index,
              .cond = n->cond,
              .validity = n->validity,
              .broadcastable = n->broadcastable};
}
} // namespace

const Node *Graph::copyOver(const Node *n, const std::vector<const Node *> &in) {
  const std::size_t hash = keyHash(*n, in);
  if (const Node *found = find(hash, *n, in)) return found;
  return adopt(copyNode(n, in, hash));
}

const Node *Graph::rebuild(const Node *n, const std::vector<const Node *> &in) {
  if (in == n->inputs) return n;
  if (in.size() != n->inputs.size()) throw InternalError("rebuild: " + n->describe() + " with a wrong operand count");
  const bool alike = derivesAlike(n, in);
  if (alike) {
    // The old node over the new operands, its factory not run: it would compute the same
    // attributes and derive the same fields (a rewrite keeps most nodes' operands alike, and
    // the factory was most of a rebuild). With rebuild checks on, the factory runs too, its
    // rule as well (make compares what it derives with n's), and must give this very node.
    if (!checkRebuilds_) return copyOver(n, in);
    const Node *made = nullptr;
    try {
      made = rebuildThroughFactory(n, in, true);
    } catch (const UserError &e) {
      // What the factory made before, over operands of the same shapes and dtypes, it refuses
      // now: n's attributes are not passed back to it as it took them.
      throw InternalError("rebuild: the factory of " + n->describe() + " refuses operands alike to its own: " + e.what());
    }
    const Node copy = copyNode(n, in, keyHash(*n, in));
    if (copy.hash != made->hash || !KeyEq()(made, &copy) || !sameDerived(copy, *made))
      throw InternalError("rebuild: the copy of " + n->describe() + " over new operands is " + copy.describe() +
                          ", its factory made " + made->describe());
    return made;
  }
  return rebuildThroughFactory(n, in, false);
}

const Node *Graph::rebuildThroughFactory(const Node *n, const std::vector<const Node *> &in, bool alike) {
  auto keep = [&] {
    reuseDataSize_ = n->dataSize;
    if (n->kind == OpKind::Random) reuseDraw_ = n->attr<attr::Draw>().draw;
  };
  struct Reset {
    Graph *g;
    ~Reset() { g->reuseDataSize_.reset(), g->reuseDraw_.reset(), g->derivesLike_ = nullptr; }
  } reset{this};
  if (alike) derivesLike_ = n;
  switch (n->kind) {
  case OpKind::Input:
  case OpKind::Scalar: return n;
  case OpKind::Unary: return unary(n->op, in[0]);
  case OpKind::Binary: return binary(n->op, in[0], in[1], n->mode);
  case OpKind::Where: return where(in[0], in[1], in[2], n->mode);
  case OpKind::Cast: return astype(in[0], n->dtype);
  case OpKind::Transpose: return transpose(in[0], n->attr<attr::Permutation>().axes);
  case OpKind::Reshape: return reshape(in[0], n->exprs);
  case OpKind::ExpandDims: return expandDims(in[0], n->attr<attr::NewAxes>().axes);
  case OpKind::Squeeze: return squeeze(in[0], n->attr<attr::Dropped>().axes);
  case OpKind::BroadcastTo: return broadcastTo(in[0], n->exprs);
  case OpKind::SumTo: return sumTo(in[0], n->exprs);
  case OpKind::Alloc: return full(n->exprs, in[0], n->attr<attr::Fill>().dtype);
  case OpKind::Concatenate: return concatenate(in, n->attr<attr::Axis>().axis);
  case OpKind::Stack: return stack(in, n->attr<attr::Axis>().axis);
  case OpKind::Index: keep(); return indexImpl(in[0], n->index, in.size() > 1 ? in[1] : nullptr, std::nullopt);
  case OpKind::Split: return indexImpl(in[0], n->index, nullptr, n->attr<attr::Sections>());
  case OpKind::SetSubtensor: {
    // The region must stay an indexing of the (new) array, whatever its operand became.
    const Node *region = in.back();
    if ((region->kind != OpKind::Index && region->kind != OpKind::Split) || region->inputs[0] != in[0]) {
      std::vector<const Node *> regionInputs{in[0]};
      if (n->inputs.size() > 3) regionInputs.push_back(in[2]);
      region = rebuild(n->inputs.back(), regionInputs);
    }
    return setSubtensor(region, in[1], n->op, n->mode);
  }
  case OpKind::Reduce: {
    // argmax/argmin take one axis or none (the flat index): their list of every axis, as the
    // node keeps it, is passed back as none.
    const attr::Reduction &r = n->attr<attr::Reduction>();
    const bool everyAxisOfArg = (n->op == "argmax" || n->op == "argmin") && r.axes.size() != 1;
    return reduce(n->op, in[0], everyAxisOfArg ? std::nullopt : std::optional(r.axes), r.keepdims);
  }
  case OpKind::Blockwise: return blockwise(n->op, in, n->mode);
  case OpKind::Convolve: return convolve(in[0], in[1]);
  case OpKind::Diff: return diff(in[0], n->attr<attr::Difference>().n, n->attr<attr::Difference>().axis);
  case OpKind::Cumsum:
  case OpKind::Cumprod: return cumulative(n->op, in[0], n->attr<attr::Axis>().axis);
  case OpKind::Sort: return sort(n->op, in[0], n->attr<attr::Axis>().axis);
  case OpKind::SearchSorted: return searchSorted(in[0], in[1], n->op == "searchsorted_right");
  case OpKind::Random: {
    const attr::Draw &draw = n->attr<attr::Draw>();
    std::vector<std::optional<Shape>> shapeOnly;
    std::size_t e = 0;
    for (const std::optional<int64_t> &r : draw.shapeRanks) {
      if (!r) {
        shapeOnly.push_back(std::nullopt);
        continue;
      }
      shapeOnly.push_back(Shape(n->exprs.begin() + e, n->exprs.begin() + e + *r));
      e += std::size_t(*r);
    }
    std::optional<Shape> size;
    if (draw.sizeRank) size = Shape(n->exprs.begin() + e, n->exprs.end());
    keep();
    return random(n->op, in, size, n->mode, shapeOnly);
  }
  case OpKind::SpecifyShape: {
    const std::vector<bool> &given = n->attr<attr::GivenDims>().given;
    std::vector<std::optional<Expr>> shape;
    for (std::size_t i = 0; i < given.size(); ++i) shape.push_back(given[i] ? std::optional(n->exprs[i]) : std::nullopt);
    return specifyShape(in[0], shape);
  }
  case OpKind::Check:
    return check(in[0], n->cond, n->attr<attr::Requirement>().holds, n->attr<attr::Requirement>().fails, n->exprs);
  case OpKind::After: return after(std::vector<const Node *>(in.begin(), in.end() - 1), in.back());
  case OpKind::PadIndex:
    return padIndex(n->op, n->exprs[0], n->exprs[1], n->exprs[2], n->exprs[3].constantValue()->toInt64Checked());
  case OpKind::RepeatIndex:
    keep();
    return repeatIndex(in[0], n->exprs[0]);
  case OpKind::Arange: return arange(n->exprs[0], n->exprs[1], n->attr<attr::Steps>().step, n->attr<attr::Steps>().dtype);
  case OpKind::Einsum: return einsum(n->attr<EinsumSpec>(), in, n->mode);
  case OpKind::Map: return map(n->attr<attr::Core>().core, in, std::size_t(n->attr<attr::Core>().batchRank), n->mode);
  case OpKind::IfElse:
    if (in.size() == 3) {
      keep();
      return ifelse(in[2], in[0], in[1]);
    }
    return ifelse(n->cond, in[0], in[1]);
  }
  throw InternalError("rebuild: unknown op kind");
}

} // namespace shapelab::ops
