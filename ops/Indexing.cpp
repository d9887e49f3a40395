// Indexing: basic entries, one advanced index (integer array or mask: a data-dependent size), slice
// lengths as NumPy clips them, set/inc_subtensor.
#include "ops/GraphDetail.h"

namespace shapelab::ops {

// ---------------------------------------------------------------------------------------------
// Indexing.

const Node *Graph::index(const Node *x, std::vector<IndexEntry> entries, const Node *array) {
  return indexImpl(x, std::move(entries), array, std::nullopt);
}

std::size_t Graph::SliceKeyHash::operator()(const SliceKey &k) const {
  std::size_t h = mix(k.assumptions.hash(), k.length.hash());
  h = mix(h, k.start ? k.start->hash() : 1);
  h = mix(h, k.stop ? k.stop->hash() : 2);
  return mix(h, std::size_t(k.step) * 2 + std::size_t(k.domain));
}

/// The length of x[start:stop:step] along an axis of length L >= 0 (either bound may be left
/// out), written by the signs of the bounds. NumPy clips each bound by its sign
/// (PySlice_AdjustIndices), and for a fixed pair of signs the difference of the clipped bounds
/// has a form with L in it once, where clipping each bound on its own writes L two to four
/// times; every later shape and question built on the length is that much smaller. The forms
/// (t = |step|; a, b the bounds):
///   step > 0: a, b >= 0: min(b, L) - a;  a >= 0, b < 0: L + b - a;  a < 0, b < 0:
///             min(b - a, L + b);  no stop: L - a (a >= 0) or min(-a, L) (a < 0);
///   step < 0: a, b >= 0: min(a, L - 1) - b;  a < 0, b >= 0: L + a - b;  a < 0, b < 0:
///             min(a - b, L + a + 1);  no start: L - 1 - b (b >= 0) or min(-1 - b, L) (b < 0);
///             no stop: min(a + 1, L) (a >= 0) or L + a + 1 (a < 0); neither: L;
/// each then divided by t rounding up, and at least 0. A bound whose sign varies makes the length
/// a choice on its sign between two such forms. The two mixed cases left out (step > 0 with
/// a < 0 <= b, step < 0 with b < 0 <= a) keep L twice in any form, unless the bound that is not
/// negative lies past the end (then it is as if left out): where one is met, the bounds are
/// clipped one by one instead. Remembered per (assumptions, L, bounds, step): slicedLength
/// computes it.
Expr Graph::sliceLength(const Context &cx, const Expr &L, const std::optional<Expr> &start,
                        const std::optional<Expr> &stop, int64_t step) {
  SliceKey key{cx.assumptions(), cx.domain(), L, start, stop, step};
  if (auto it = sliceLengths_.find(key); it != sliceLengths_.end()) {
    ++stats_.sliceLengthsRemembered;
    return it->second;
  }
  const uint64_t unkept = solver_->stats().unkept;
  Expr length = slicedLength(cx, L, start, stop, step);
  if (solver_->stats().unkept == unkept) {
    if (sliceLengths_.size() >= (std::size_t(1) << 16)) sliceLengths_.clear();
    sliceLengths_.emplace(std::move(key), length);
  }
  return length;
}

Expr Graph::slicedLength(const Context &cx, const Expr &L, const std::optional<Expr> &start,
                         const std::optional<Expr> &stop, int64_t step) {
  enum Sign { Absent, NonNegative, Negative };
  const Integer t(step > 0 ? step : -step);
  // ceil(d / t), and at least 0 unless d is known to be.
  auto count = [&](const Expr &d, bool atLeastZero) {
    Expr q = floorDiv(d + Expr(t - Integer(1)), t);
    return atLeastZero ? q : nonNegative(cx, q);
  };
  // The length where the bounds have the signs sa and sb.
  auto forSigns = [&](Sign sa, Sign sb) -> std::optional<Expr> {
    // A bound past the end clips to where a left-out bound starts: x[-1:n] of an axis of at
    // most n is x[-1:].
    if (step > 0 && sb == NonNegative && provesCheaply(cx, ge(*stop, L))) sb = Absent;
    if (step < 0 && sa == NonNegative && provesCheaply(cx, ge(*start, L - 1))) sa = Absent;
    if (step > 0) {
      const Expr a = sa == Absent ? Expr(0) : *start;
      const bool aNonNegative = sa != Negative;
      if (sb == Absent) return aNonNegative ? count(L - a, false) : count(smaller(cx, -a, L, true), true);
      const Expr &b = *stop;
      if (aNonNegative && sb == NonNegative) return count(smaller(cx, b, L, true) - a, false);
      if (aNonNegative && sb == Negative) return count(L + b - a, false);
      if (!aNonNegative && sb == Negative) return count(smaller(cx, b - a, L + b, true), false);
      return std::nullopt;
    }
    if (sa == Absent) {
      if (sb == Absent) return count(L, true);
      const Expr &b = *stop;
      return sb == NonNegative ? count(L - 1 - b, false) : count(smaller(cx, -1 - b, L, true), true);
    }
    const Expr &a = *start;
    if (sb == Absent) return sa == NonNegative ? count(smaller(cx, a + 1, L, true), true) : count(L + a + 1, false);
    const Expr &b = *stop;
    if (sa == NonNegative && sb == NonNegative) return count(smaller(cx, a, L - 1, true) - b, false);
    if (sa == Negative && sb == NonNegative) return count(L + a - b, false);
    if (sa == Negative && sb == Negative) return count(smaller(cx, a - b, L + a + 1, true), false);
    return std::nullopt;
  };
  // A bound's sign, or both signs when it varies (a choice on the sign then picks the length).
  auto signsOf = [&](const std::optional<Expr> &w) -> std::vector<Sign> {
    if (!w) return {Absent};
    const Pred negative = lt(*w, 0);
    if (auto v = negative.constantValue()) return {*v ? Negative : NonNegative};
    if (provesCheaply(cx, negative)) return {Negative};
    if (provesCheaply(cx, !negative)) return {NonNegative};
    return {Negative, NonNegative};
  };
  const std::vector<Sign> as = signsOf(start), bs = signsOf(stop);
  auto bySigns = [&]() -> std::optional<Expr> {
    std::optional<Expr> byStart[2];
    for (std::size_t i = 0; i < as.size(); ++i) {
      std::optional<Expr> byStop[2];
      for (std::size_t j = 0; j < bs.size(); ++j)
        if (!(byStop[j] = forSigns(as[i], bs[j]))) return std::nullopt;
      byStart[i] = bs.size() == 1 ? byStop[0] : choose(cx, lt(*stop, 0), *byStop[0], *byStop[1]);
    }
    return as.size() == 1 ? byStart[0] : choose(cx, lt(*start, 0), *byStart[0], *byStart[1]);
  };
  if (std::optional<Expr> len = bySigns()) return *len;
  // Otherwise each bound clipped on its own, by its signs: a negative one counts from the end
  // and is clipped below, another is clipped above; a side its sign rules out is not built (its
  // clipping asks the solver too).
  auto clipped = [&](const std::optional<Expr> &w, const std::vector<Sign> &signs, bool isStart) -> Expr {
    if (!w) return step > 0 ? (isStart ? Expr(0) : L) : (isStart ? L - 1 : Expr(-1));
    auto fromEnd = [&] { return smaller(cx, *w + L, step < 0 ? Expr(-1) : Expr(0), false); };
    auto fromStart = [&] { return smaller(cx, *w, step < 0 ? L - 1 : L, true); };
    if (signs.size() == 2) return choose(cx, lt(*w, 0), fromEnd(), fromStart());
    return signs[0] == Negative ? fromEnd() : fromStart();
  };
  const Expr a = clipped(start, as, true), b = clipped(stop, bs, false);
  return count(step > 0 ? b - a : a - b, false);
}

const Node *Graph::indexImpl(const Node *x, std::vector<IndexEntry> entries, const Node *array,
                             std::optional<attr::Sections> part) {
  // Expand `...` and pad with full slices.
  std::size_t consumed = 0, ellipses = 0, arrays = 0;
  for (const IndexEntry &e : entries) {
    if (e.kind == IndexEntry::Slice && e.step == 0) ++ellipses;
    else if (e.kind == IndexEntry::Integer || e.kind == IndexEntry::Slice) ++consumed;
    else if (e.kind == IndexEntry::Array) {
      ++arrays;
      consumed += array && array->dtype == DType::Bool ? std::max<std::size_t>(array->rank(), 0) : 1;
    }
  }
  if (ellipses > 1) throw OpError("an index can only have a single ellipsis ('...')");
  if (arrays > 1 || (arrays && !array)) throw OpError("shapelab supports one array in an index");
  if (array && array->dtype != DType::Bool && !isInteger(array->dtype))
    throw OpError("arrays used as indices must be of integer (or boolean) type");
  if (consumed > x->rank())
    throw OpError("too many indices for array: array is " + std::to_string(x->rank()) + "-dimensional, but " +
                  std::to_string(consumed) + " were indexed");
  std::vector<IndexEntry> full;
  for (const IndexEntry &e : entries) {
    if (e.kind == IndexEntry::Slice && e.step == 0) {
      for (std::size_t i = 0; i < x->rank() - consumed; ++i) full.push_back(IndexEntry{});
    } else {
      full.push_back(e);
    }
  }
  if (!ellipses)
    for (std::size_t i = consumed; i < x->rank(); ++i) full.push_back(IndexEntry{});
  // Integers next to the array index join it (NumPy broadcasts them together); elsewhere they
  // move the array's dimensions to the front (ops::gather builds that). "Next to" is as
  // written: a `...` between them separates them even where it stands for no axis.
  if (array) {
    std::size_t first = entries.size(), last = 0, advanced = 0;
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (entries[i].kind == IndexEntry::Integer || entries[i].kind == IndexEntry::Array) {
        first = std::min(first, i);
        last = i;
        ++advanced;
      }
    if (last - first + 1 != advanced)
      throw OpError("an integer index separated from an array index by a slice, None or '...' moves the result's axes "
                    "(NumPy's advanced indexing rule): index with ops::gather");
  }
  std::vector<const Node *> ins{x};
  if (array) ins.push_back(array);
  Node c = blank(part ? OpKind::Split : OpKind::Index, part ? "split" : "index", ins);
  c.index = full;
  if (part) c.attrs = *part;
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    if (part) {
      const Expr &L = x->shape[std::size_t(part->axis)];
      requireOr(n.validity, eq(mod(L, Integer(part->sections)), 0),
                "axis " + std::to_string(part->axis) + " divides into " + std::to_string(part->sections) + " equal sections",
                "array split does not result in an equal division");
    }
    std::size_t axis = 0;
    bool arrayPlaced = false;
    for (const IndexEntry &e : full) {
      switch (e.kind) {
      case IndexEntry::NewAxis: n.shape.push_back(1); break;
      case IndexEntry::Integer: {
        const Expr &L = x->shape[axis];
        const Expr &i = *e.start;
        requireOr(n.validity, Pred::conjunction({ge(i, -L), lt(i, L)}),
                  "index " + i.toString() + " is within axis " + std::to_string(axis) + " of size " + dimText(L),
                  "index " + i.toString() + " is out of bounds for axis " + std::to_string(axis) + " with size " +
                      dimText(L));
        if (array && !arrayPlaced) {
          arrayPlaced = true;
          if (array->dtype != DType::Bool) for (const Expr &d : array->shape) n.shape.push_back(d);
          else n.shape.push_back(*n.dataSize);
        }
        ++axis;
        break;
      }
      case IndexEntry::Slice: {
        const std::size_t at = axis++;
        const Expr &L = x->shape[at];
        int64_t s = e.step;
        for (const auto &bound : {e.start, e.stop})
          if (bound && !bound->isTotal())
            n.validity.require(definedness(*bound), "the slice bound " + bound->toString() + " is defined (array split does not result in an equal division otherwise)");
        // A part of split(x, k) is [i*L//k, (i+1)*L//k) of an axis k divides: L//k long wherever
        // the part exists (L is then a size, as a dimension of x, and a multiple of k). The
        // slice's own length, exact at every L, would carry clipping that cannot happen there
        // (`max(0, min(L, L // 3))`), and cost a few solver questions a part.
        // The same for `:` over an affine size (`n - m`): L itself, not max(0, L).
        if (part && at == std::size_t(part->axis)) n.shape.push_back(floorDiv(L, Integer(part->sections)));
        else if (!e.start && !e.stop && s == 1 && L.isTotal() && L.isQuasiAffine()) n.shape.push_back(L);
        else n.shape.push_back(sliceLength(n.validity.context(), L, e.start, e.stop, s));
        break;
      }
      case IndexEntry::Array: {
        if (array->dtype == DType::Bool) {
          for (std::size_t d = 0; d < array->rank(); ++d) {
            // NumPy checks only a mask dimension that is not 0 (prepare_index in its
            // mapping.c): an empty mask dimension selects nothing along any axis length.
            const Expr &L = x->shape[axis + d], &M = array->shape[d];
            requireOr(n.validity, eq(M, 0) || eq(L, M),
                      "boolean index dimension " + std::to_string(d) + " matches axis " + std::to_string(axis + d),
                      "boolean index did not match indexed array along dimension " + std::to_string(axis + d) +
                          "; dimension is " + dimText(L) + " but corresponding boolean dimension is " + dimText(M));
          }
          if (!n.dataSize) n.dataSize = freshDataSize(n, product(array->shape), false);
          axis += array->rank();
        } else {
          ++axis;
        }
        if (!arrayPlaced) {
          arrayPlaced = true;
          if (array->dtype != DType::Bool) for (const Expr &d : array->shape) n.shape.push_back(d);
          else n.shape.push_back(*n.dataSize);
        }
        break;
      }
      }
    }
    if (array && array->dtype == DType::Bool && !n.dataSize) n.dataSize = freshDataSize(n, product(array->shape), false);
    // Basic indexing and masks select at most x's elements; an integer array can repeat them.
    if (array && array->dtype != DType::Bool) requireElementCountFits(n.validity, n.shape, "the result");
  });
}

/// The binary ufunc a set/inc_subtensor or ufunc.at write applies ("" for a set).
std::string accumulatingUfunc(const std::string &write) {
  if (write == "set_subtensor") return "";
  if (write == "inc_subtensor") return "add";
  return write.substr(0, write.size() - 3);
}

const Node *Graph::setSubtensor(const Node *region, const Node *value, const std::string &write, BroadcastMode mode) {
  const bool named = write == "set_subtensor" || write == "inc_subtensor";
  if (!named && !(write.size() > 3 && write.ends_with(".at")))
    throw InternalError("unknown subtensor write " + write);
  if (region->kind != OpKind::Index && region->kind != OpKind::Split)
    throw OpError((named ? write : "np." + write) + " needs an indexed array as its first argument, like x[1:3]");
  const std::string ufunc = accumulatingUfunc(write);
  if (!ufunc.empty()) {
    const UfuncRule rule = isBinaryOp(ufunc) ? ruleOf(ufunc) : UfuncRule::Compare;
    if (rule == UfuncRule::Compare || rule == UfuncRule::Logical)
      throw OpError("np." + ufunc + ".at: shapelab applies ufunc.at for the arithmetic binary ufuncs (add, subtract, "
                    "multiply, divide, maximum, minimum, power, ...), not for " + ufunc);
  }
  const Node *x = region->inputs[0];
  std::vector<const Node *> ins{x, value};
  if (region->inputs.size() > 1) ins.push_back(region->inputs[1]);
  ins.push_back(region);
  Node c = blank(OpKind::SetSubtensor, write, ins);
  c.index = region->index;
  c.mode = mode;
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    // The ufunc must have a loop for the element and the value (np.subtract.at of bools has
    // none); its result is cast back to x's dtype.
    if (!ufunc.empty()) binaryResultType(ufunc, {x->dtype, false}, {value->dtype, value->weak});
    n.shape = x->shape;
    n.validity.absorb(region->validity); // the region is not computed first (readsBefore)
    BroadcastResult r = shapelab::broadcastTo(*solver_, n.validity.context(), value->shape, region->shape);
    n.validity.absorb(r.validity);
  });
}

} // namespace shapelab::ops
