// Reference kernels (Interpreter::run, by family): the blockwise kernels: matmul, outer, det, inv, solve and convolve over gufunc loops, and einsum.
#include "interp/kernels/KernelDetail.h"

namespace shapelab::interp {

namespace {
std::string coreMismatch(const std::string &sig, std::size_t operand, std::size_t dim, int64_t got, int64_t want) {
  return "Input operand " + std::to_string(operand) + " has a mismatch in its core dimension " + std::to_string(dim) +
         ", with gufunc signature " + sig + " (size " + std::to_string(got) + " is different from " + std::to_string(want) + ")";
}
} // namespace

Array Interpreter::runEinsum(const Node *n) {
  const EinsumSpec &spec = n->attr<EinsumSpec>();
  const std::vector<int64_t> labels = spec.iteration();
  const std::size_t F = labels.size();
  std::vector<Array> xs;
  for (const Node *i : n->inputs) xs.push_back(values_.at(i).astype(n->dtype));
  // Each operand as NumPy's iterator sees it: a diagonal's size once, and per iteration label
  // the operand's size there (1 where it has no such axis) and its stride (the sum of the
  // strides of the axes with that label: a diagonal steps along all of them).
  std::vector<Dims> remapped;
  std::vector<std::vector<int64_t>> strides;
  for (std::size_t k = 0; k < xs.size(); ++k) {
    const std::vector<int64_t> &own = spec.operands[k];
    const Dims &shape = xs[k].shape();
    if (auto e = spec.diagonalError(k, std::vector<std::optional<Integer>>(shape.begin(), shape.end()))) shapeError(*e);
    Dims sizes(F, 1);
    std::vector<int64_t> st(F, 0);
    for (std::size_t a = 0; a < own.size(); ++a) {
      std::size_t f = std::size_t(std::find(labels.begin(), labels.end(), own[a]) - labels.begin());
      sizes[f] = shape[a];
      st[f] += xs[k].strides()[a];
    }
    remapped.push_back(sizes);
    strides.push_back(st);
  }
  // The remapped shapes broadcast as any operands do; a mismatch in NumPy's einsum words.
  Dims iter;
  try {
    iter = broadcastShapes(remapped);
  } catch (const EvalError &) {
    std::vector<std::vector<std::string>> texts;
    for (const Array &x : xs) {
      texts.emplace_back();
      for (int64_t d : x.shape()) texts.back().push_back(std::to_string(d));
    }
    shapeError(einsumMismatchMessage(spec, texts));
  }
  checkStaticBroadcast(n, remapped, iter);
  // The iterator's running element count (c_einsum: "iterator is too large"); a view is not
  // iterated.
  for (int64_t d = 0, count = 1; !spec.isView() && std::size_t(d) < F; ++d) {
    if (count != 0 && iter[std::size_t(d)] > std::numeric_limits<int64_t>::max() / count)
      shapeError("iterator is too large");
    count *= iter[std::size_t(d)];
  }
  const std::size_t outRank = spec.output.size();
  Array out(n->dtype, Dims(iter.begin(), iter.begin() + std::ptrdiff_t(outRank)));
  // A size-1 axis broadcast along a longer label steps nowhere.
  for (std::size_t k = 0; k < xs.size(); ++k)
    for (std::size_t f = 0; f < F; ++f)
      if (remapped[k][f] == 1) strides[k][f] = 0;
  int64_t total = 1;
  for (int64_t d : iter) total *= d;
  if (total == 0) return out;
  dispatch(n->dtype, [&](auto t) {
    using T = decltype(t);
    T *o = out.base<T>();
    std::vector<const T *> base;
    for (const Array &x : xs) base.push_back(x.base<T>() + x.offset());
    std::vector<int64_t> index(F, 0), at(xs.size(), 0);
    int64_t inner = 1;
    for (std::size_t f = outRank; f < F; ++f) inner *= iter[f];
    // One operand and nothing summed is a view in NumPy (a permutation or a diagonal): its
    // values as they are (-0.0 stays -0.0). Otherwise each output element is 0 plus the
    // products, the summed labels in C order.
    const bool view = spec.isView();
    for (int64_t e = 0; e < total / inner; ++e) {
      if ((e & 4095) == 0) checkInterrupt();
      T sum = T(0);
      for (int64_t i = 0; i < inner; ++i) {
        T product = base[0][at[0]];
        for (std::size_t k = 1; k < xs.size(); ++k) product = arithmetic<T>(Bin::Mul, product, base[k][at[k]]);
        sum = view ? product : arithmetic<T>(Bin::Add, sum, product);
        // Next index of the whole iteration (the odometer runs over output and summed labels).
        for (std::size_t f = F; f-- > 0;) {
          for (std::size_t k = 0; k < xs.size(); ++k) at[k] += strides[k][f];
          if (++index[f] < iter[f]) break;
          for (std::size_t k = 0; k < xs.size(); ++k) at[k] -= strides[k][f] * iter[f];
          index[f] = 0;
        }
      }
      o[e] = sum;
    }
  });
  return out;
}

Array Interpreter::runBlockwise(const Node *n) {
  std::vector<Array> xs;
  for (const Node *i : n->inputs) xs.push_back(values_.at(i));
  const std::string &op = n->op;
  auto square = [&](const Array &a) {
    if (a.rank() < 2)
      shapeError(std::string(op) + ": " + std::to_string(a.rank()) + "-dimensional array given. Array must be at least two-dimensional");
    int64_t m = a.shape()[a.rank() - 1];
    if (a.shape()[a.rank() - 2] != m) shapeError("Last 2 dimensions of the array must be square");
    return m;
  };
  if (n->kind == OpKind::Convolve) {
    int64_t na = xs[0].shape()[0], nv = xs[1].shape()[0];
    if (na == 0) shapeError("a cannot be empty");
    if (nv == 0) shapeError("v cannot be empty");
    return dispatch(n->dtype, [&](auto t) {
      using T = decltype(t);
      return gufuncLoop<T>(n, xs, {1, 1}, {na + nv - 1}, n->dtype, [&](const std::vector<const T *> &in, T *out) {
        for (int64_t i = 0; i < na; ++i)
          for (int64_t j = 0; j < nv; ++j) out[i + j] = arithmetic<T>(Bin::Add, out[i + j], arithmetic<T>(Bin::Mul, in[0][i], in[1][j]));
      });
    });
  }
  if (op == "outer") {
    int64_t m = xs[0].shape()[0], k = xs[1].shape()[0];
    return dispatch(n->dtype, [&](auto t) {
      using T = decltype(t);
      return gufuncLoop<T>(n, xs, {1, 1}, {m, k}, n->dtype, [&](const std::vector<const T *> &in, T *out) {
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < k; ++j) out[i * k + j] = arithmetic<T>(Bin::Mul, in[0][i], in[1][j]);
      });
    });
  }
  if (op == "matmul") {
    const std::string sig = "(n?,k),(k,m?)->(n?,m?)";
    Array a = xs[0], b = xs[1];
    bool aVec = a.rank() == 1, bVec = b.rank() == 1;
    if (aVec) a = a.reshaped({1, a.shape()[0]});
    if (bVec) b = b.reshaped({b.shape()[0], 1});
    int64_t rows = a.shape()[a.rank() - 2], inner = a.shape()[a.rank() - 1], cols = b.shape()[b.rank() - 1];
    if (b.shape()[b.rank() - 2] != inner) shapeError("matmul: " + coreMismatch(sig, 1, 0, b.shape()[b.rank() - 2], inner));
    Dims core;
    if (!aVec) core.push_back(rows);
    if (!bVec) core.push_back(cols);
    return dispatch(n->dtype, [&](auto t) {
      using T = decltype(t);
      Array r = gufuncLoop<T>(n, {a, b}, {2, 2}, {rows, cols}, n->dtype, [&](const std::vector<const T *> &in, T *out) {
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = (checkInterrupt(), 0); j < cols; ++j) {
            T s = T(0);
            for (int64_t q = 0; q < inner; ++q) s = arithmetic<T>(Bin::Add, s, arithmetic<T>(Bin::Mul, in[0][i * inner + q], in[1][q * cols + j]));
            out[i * cols + j] = s;
          }
      });
      Dims s(r.shape().begin(), r.shape().end() - 2);
      s.insert(s.end(), core.begin(), core.end());
      return r.reshaped(s);
    });
  }
  if (op == "det" || op == "inv") {
    int64_t m = square(xs[0]);
    std::size_t sz = std::size_t(m);
    Dims core = op == "det" ? Dims{} : Dims{m, m};
    return gufuncLoop<double>(n, xs, {2}, core, n->dtype, [&](const std::vector<const double *> &in, double *out) {
      std::vector<double> a(in[0], in[0] + m * m);
      if (op == "det") {
        out[0] = determinant(a, sz);
        return;
      }
      std::vector<double> eye(sz * sz, 0.0);
      for (std::size_t i = 0; i < sz; ++i) eye[i * sz + i] = 1.0;
      if (!solveLinear(a, sz, eye, sz)) valueError("Singular matrix");
      std::copy(eye.begin(), eye.end(), out);
    });
  }
  if (op == "cholesky") {
    // The lower factor L of a = L L^T, column by column (LAPACK's potrf, 'L': a's lower
    // triangle is read); a pivot that is not positive is NumPy's LinAlgError.
    int64_t m = square(xs[0]);
    const std::size_t sz = std::size_t(m);
    return gufuncLoop<double>(n, xs, {2}, {m, m}, n->dtype, [&](const std::vector<const double *> &in, double *out) {
      const double *a = in[0];
      std::fill(out, out + sz * sz, 0.0);
      for (std::size_t j = 0; j < sz; ++j) {
        double d = a[j * sz + j];
        for (std::size_t k = 0; k < j; ++k) d -= out[j * sz + k] * out[j * sz + k];
        if (!(d > 0)) valueError("Matrix is not positive definite");
        const double l = std::sqrt(d);
        out[j * sz + j] = l;
        for (std::size_t i = j + 1; i < sz; ++i) {
          double s = a[i * sz + j];
          for (std::size_t k = 0; k < j; ++k) s -= out[i * sz + k] * out[j * sz + k];
          out[i * sz + j] = s / l;
        }
      }
    });
  }
  if (ops::isFactorization(op)) {
    // One output of qr, svd or eigh (kernels/Linalg.cpp), per matrix of the stack.
    const Array &a = xs[0];
    const int64_t m = a.shape()[a.rank() - 2], cols = a.shape().back(), k = std::min(m, cols);
    const std::size_t M = std::size_t(m), N = std::size_t(cols), K = std::size_t(k);
    const bool eigh = op.starts_with("eigh");
    if (eigh && m != cols) shapeError("Last 2 dimensions of the array must be square");
    Dims core; // the result's dims after the batch
    for (std::size_t d = a.rank() - 2; d < n->rank(); ++d) core.push_back(value(n->shape[d]));
    return gufuncLoop<double>(n, xs, {2}, core, n->dtype, [&](const std::vector<const double *> &in, double *out) {
      if (op.starts_with("qr")) {
        const bool complete = op.ends_with("complete");
        std::vector<double> q(M * (complete ? M : K)), r((complete ? M : K) * N);
        householderQr(std::vector<double>(in[0], in[0] + M * N), M, N, complete, q.data(), r.data());
        const std::vector<double> &which = op.starts_with("qr_q") ? q : r;
        std::copy(which.begin(), which.end(), out);
      } else if (eigh) {
        // The symmetric matrix of one triangle (UPLO: 'L' reads the lower one).
        const bool upper = op.ends_with("upper");
        std::vector<double> sym(M * M);
        for (std::size_t i = 0; i < M; ++i)
          for (std::size_t j = 0; j < M; ++j) sym[i * M + j] = (i >= j) != upper || i == j ? in[0][i * M + j] : in[0][j * M + i];
        if (op.starts_with("eigh_w")) jacobiEigh(std::move(sym), M, out, nullptr);
        else jacobiEigh(std::move(sym), M, nullptr, out);
      } else {
        if (!std::all_of(in[0], in[0] + M * N, [](double x) { return std::isfinite(x); })) valueError("SVD did not converge");
        const Svd f = jacobiSvd(in[0], M, N, op.ends_with("full"));
        const std::vector<double> &which = op.starts_with("svd_u") ? f.u : op == "svd_s" ? f.s : f.vt;
        std::copy(which.begin(), which.end(), out);
      }
    });
  }
  if (op == "solve") {
    int64_t m = square(xs[0]);
    bool vector = xs[1].rank() + 1 == xs[0].rank();
    if (xs[1].rank() < 1) shapeError("solve: b must have at least one dimension");
    int64_t bm = xs[1].shape()[xs[1].rank() - (vector ? 1 : 2)];
    std::string sig = vector ? "(m,m),(m)->(m)" : "(m,m),(m,n)->(m,n)";
    if (bm != m) shapeError("solve: " + coreMismatch(sig, 1, 0, bm, m));
    int64_t k = vector ? 1 : xs[1].shape()[xs[1].rank() - 1];
    Dims core = vector ? Dims{m} : Dims{m, k};
    return gufuncLoop<double>(n, xs, {2, vector ? 1u : 2u}, core, n->dtype, [&](const std::vector<const double *> &in, double *out) {
      std::vector<double> a(in[0], in[0] + m * m), b(in[1], in[1] + m * k);
      if (!solveLinear(a, std::size_t(m), b, std::size_t(k))) valueError("Singular matrix");
      std::copy(b.begin(), b.end(), out);
    });
  }
  throw InternalError("unknown blockwise op " + op);
}

} // namespace shapelab::interp

namespace shapelab::interp {

Array Interpreter::runMap(const Node *n) {
  // Each example: the core node evaluated by an interpreter of its own, given the example's
  // block of each batched operand and each unbatched operand whole (what a loop over the batch
  // computes; the first example that fails raises its error).
  const ops::attr::Core &c = n->attr<ops::attr::Core>();
  const Node *core = c.core;
  std::vector<Array> xs;
  std::vector<std::size_t> coreRanks;
  std::vector<Dims> batches;
  for (std::size_t i = 0; i < n->inputs.size(); ++i) {
    xs.push_back(values_.at(n->inputs[i]).contiguous());
    coreRanks.push_back(core->inputs[i]->rank());
    batches.emplace_back(xs[i].shape().begin(), xs[i].shape().end() - std::ptrdiff_t(coreRanks[i]));
  }
  const Dims batch = broadcastShapes(batches);
  checkStaticBroadcast(n, batches, batch, coreRanks);
  Dims coreShape;
  for (const Expr &d : core->shape) {
    coreShape.push_back(value(d));
    if (coreShape.back() < 0) shapeError("negative dimensions are not allowed"); // (the result's sizes are required >= 0)
  }
  Dims outShape = batch;
  outShape.insert(outShape.end(), coreShape.begin(), coreShape.end());
  Array out(n->dtype, outShape);
  const int64_t count = checkedCount(batch), block = checkedCount(coreShape);
  const std::size_t item = ops::itemSize(n->dtype);
  if (count == 0) return out;
  Interpreter each(graph_, point_, inputs_, options_);
  std::vector<Dims> blockShapes;
  std::vector<int64_t> blocks;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    blockShapes.emplace_back(xs[i].shape().end() - std::ptrdiff_t(coreRanks[i]), xs[i].shape().end());
    blocks.push_back(checkedCount(blockShapes[i]));
  }
  Dims at(batch.size(), 0); // the example's index in the batch
  for (int64_t b = 0; b < count; ++b) {
    checkInterrupt();
    for (std::size_t i = 0; i < xs.size(); ++i) {
      if (batches[i].empty() && n->inputs[i] == core->inputs[i]) {
        each.provide(core->inputs[i], xs[i]);
        continue;
      }
      int64_t which = 0; // the operand's block the example reads (a batch dim of 1 is every example's)
      for (std::size_t d = 0; d < batches[i].size(); ++d)
        which = which * batches[i][d] + (batches[i][d] == 1 ? 0 : at[batch.size() - batches[i].size() + d]);
      each.provide(core->inputs[i], xs[i].view(xs[i].offset() + which * blocks[i], blockShapes[i], Array::cStrides(blockShapes[i])));
    }
    std::variant<Array, EvalError> r = each.attempt(core);
    if (auto *e = std::get_if<EvalError>(&r)) {
      std::string index;
      for (int64_t v : at) index += (index.empty() ? "" : ", ") + std::to_string(v);
      throw EvalError(e->kind, "example (" + index + (at.size() == 1 ? ",)" : ")") + " of the batch: " + e->what());
    }
    const Array result = std::get<Array>(r).astype(n->dtype).contiguous();
    std::memcpy(out.base<char>() + b * block * int64_t(item), result.data(), std::size_t(block) * item);
    each.forget(core);
    for (std::size_t d = batch.size(); d-- > 0;) { // the next index, in C order
      if (++at[d] < batch[d]) break;
      at[d] = 0;
    }
  }
  return out;
}

} // namespace shapelab::interp
