// Reference kernels (Interpreter::run, by family): the random variables' kernel: parameters broadcast, each element drawn from the counter-based generator.
#include "interp/kernels/KernelDetail.h"

namespace shapelab::interp {

Array Interpreter::runRandom(const Node *n) {
  const std::string &name = n->op;
  if (n->dataSize) {
    // permutation(x) of a 0-d integer array: its length is x's value (none below 0), known now.
    const Array &given = values_.at(n->inputs[0]);
    if (given.dtype() == DType::UInt64)
      if (const uint64_t length = given.at<uint64_t>(0); length > uint64_t(INT64_MAX))
        throw OverflowError("permutation's length " + std::to_string(length) + " is larger than the interpreters evaluate");
    const int64_t x = given.astype(DType::Int64).at<int64_t>(0);
    point_.set((*n->dataSize)->name, std::max<int64_t>(x, 0));
    if (!graph_.sizeDefinitions().empty()) defineSizes();
  }
  Dims outShape;
  for (const Expr &d : n->shape) outShape.push_back(value(d));
  Array out(n->dtype, outShape);
  const ops::attr::Draw &attrs = n->attr<ops::attr::Draw>();
  uint64_t draw = uint64_t(attrs.draw);
  std::vector<Array> ps;
  for (const Node *i : n->inputs) ps.push_back(values_.at(i));
  auto fail = [&](const std::string &why) { valueError(name + ": " + why); };
  const RandomVariableInfo *info = findRandomVariable(name);
  // Shapes first (NumPy's rules on the concrete shapes): each parameter's batch part (its shape
  // without the core dims) broadcasts with the others — or, with size, *to* size.
  {
    std::vector<std::size_t> core(ps.size(), 0);
    if (name == "multivariate_normal") core = {1, 2};
    else if (name == "dirichlet" || name == "categorical") core = {1};
    else if (name == "multinomial") core = {0, 1};
    else if (name == "permutation" || name == "choice_without_replacement") core.assign(ps.size(), 99);
    const bool hasSize = bool(attrs.sizeRank);
    std::vector<Dims> batches;
    std::vector<std::size_t> batchOwner, batchCore;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      if (core[i] == 99 || attrs.shapeRanks[i]) continue; // value-shaped and per-call signatures
      batchOwner.push_back(i);
      batchCore.push_back(core[i]);
      if (ps[i].rank() < core[i])
        shapeError("random " + name + ": parameter " + std::to_string(i) + " has " + std::to_string(ps[i].rank()) +
                   " dimension(s), its core needs " + std::to_string(core[i]));
      batches.emplace_back(ps[i].shape().begin(), ps[i].shape().end() - core[i]);
    }
    if (name == "multivariate_normal" && ps.size() == 2) {
      int64_t k = ps[0].shape().back();
      const Dims &c = ps[1].shape();
      if (c[c.size() - 1] != k || c[c.size() - 2] != k)
        shapeError("random multivariate_normal: cov's last two dimensions " + shapeText(Dims(c.end() - 2, c.end())) +
                   " must both be mean's last dimension " + std::to_string(k));
    }
    Dims target;
    if (hasSize) {
      const int64_t sizeRank = *attrs.sizeRank;
      target.assign(outShape.begin(), outShape.begin() + sizeRank);
      for (const Dims &b : batches) {
        if (!broadcastsTo(b, target))
          shapeError("random " + name + ": a parameter's batch shape " + shapeText(b) + " does not broadcast to size " +
                     shapeText(target));
      }
    } else if (!batches.empty()) {
      target = broadcastShapes(batches);
    }
    // Static mode: a batch dimension 1 broadcasts only where the graph marked it (provably 1, or
    // undecided when built) — the same rule the shape inference applied. With a size, parameters
    // broadcast to it by NumPy's rule in both modes (nothing was checked when the graph was built).
    if (n->mode == BroadcastMode::Static && !hasSize)
      for (std::size_t k = 0; k < batches.size(); ++k)
        for (std::size_t j = 0; j < batches[k].size(); ++j) {
          std::size_t fromRight = batches[k].size() - 1 - j, bit = fromRight + batchCore[k];
          int64_t o = target[target.size() - 1 - fromRight];
          bool marked = bit < 64 && batchOwner[k] < n->broadcastable.size() &&
                        (n->broadcastable[batchOwner[k]] >> bit & 1);
          if (batches[k][j] == 1 && o != 1 && !marked)
            shapeError("random " + name + ": parameter " + std::to_string(batchOwner[k]) +
                       " has a batch dimension of length 1 (axis " + std::to_string(j) +
                       ") that was not marked as broadcastable when the graph was built (mode static): batch shape " +
                       shapeText(batches[k]) + ", broadcast to " + shapeText(target));
        }
  }
  bool scalarCore = info && info->signature.find_first_not_of("(),->") == std::string::npos && !info->signature.empty();
  if (scalarCore) {
    std::vector<std::vector<int64_t>> offs;
    std::vector<Array> typed;
    for (const Array &p : ps) typed.push_back(p.astype(DType::Float64));
    for (const Array &p : typed) offs.push_back(offsets(p, outShape));
    std::vector<double> q(ps.size());
    for (int64_t k = 0; k < out.size(); ++k) {
      for (std::size_t i = 0; i < ps.size(); ++i) q[i] = typed[i].base<double>()[offs[i][k]];
      CounterRng rng(options_.seed, draw, uint64_t(k));
      double v;
      std::string error;
      if (!sampleScalar(name, q, rng, v, error)) fail(error);
      dispatch(n->dtype, [&](auto t) { out.base<decltype(t)>()[k] = castValue<decltype(t)>(v); });
    }
    return out;
  }
  // Vector cores: the batch is the output without its core dims.
  auto batchOf = [&](std::size_t coreRank) {
    Dims b(outShape.begin(), outShape.end() - coreRank);
    return b;
  };
  auto rows = [&](const Array &p, std::size_t coreRank, const Dims &batch) {
    Dims target = batch;
    target.insert(target.end(), p.shape().end() - coreRank, p.shape().end());
    return p.astype(DType::Float64).broadcastTo(target).contiguous();
  };
  if (name == "multivariate_normal" || name == "dirichlet" || name == "multinomial" || name == "categorical") {
    std::size_t outCore = name == "categorical" ? 0 : 1;
    Dims batch = batchOf(outCore);
    int64_t count = checkedCount(batch);
    if (name == "multivariate_normal") {
      int64_t dim = outShape.back();
      Array mean = rows(ps[0], 1, batch), cov = rows(ps[1], 2, batch);
      for (int64_t b = 0; b < count; ++b) {
        // Cholesky of the covariance (positive semi-definite: zero pivots are allowed).
        const double *c = cov.base<double>() + b * dim * dim;
        std::vector<double> L(std::size_t(dim * dim), 0.0);
        for (int64_t i = 0; i < dim; ++i)
          for (int64_t j = 0; j <= i; ++j) {
            double s = c[i * dim + j];
            for (int64_t q = 0; q < j; ++q) s -= L[i * dim + q] * L[j * dim + q];
            if (i == j) {
              if (s < -1e-8 * std::max(1.0, std::fabs(c[i * dim + i]))) fail("covariance is not positive semi-definite");
              L[i * dim + i] = std::sqrt(std::max(s, 0.0));
            } else {
              L[i * dim + j] = L[j * dim + j] > 0 ? s / L[j * dim + j] : 0.0;
            }
          }
        CounterRng rng(options_.seed, draw, uint64_t(b));
        std::vector<double> z(static_cast<std::size_t>(dim));
        for (double &v : z) v = rng.normal();
        for (int64_t i = 0; i < dim; ++i) {
          double v = mean.base<double>()[b * dim + i];
          for (int64_t j = 0; j <= i; ++j) v += L[i * dim + j] * z[j];
          out.base<double>()[b * dim + i] = v;
        }
      }
      return out;
    }
    if (name == "dirichlet") {
      int64_t dim = outShape.back();
      Array alpha = rows(ps[0], 1, batch);
      for (int64_t b = 0; b < count; ++b) {
        CounterRng rng(options_.seed, draw, uint64_t(b));
        double total = 0;
        for (int64_t i = 0; i < dim; ++i) {
          double a = alpha.base<double>()[b * dim + i];
          if (!(a > 0)) fail("alpha <= 0");
          total += out.base<double>()[b * dim + i] = rng.gamma(a);
        }
        for (int64_t i = 0; i < dim; ++i) out.base<double>()[b * dim + i] /= total;
      }
      return out;
    }
    // multinomial(n, p) and categorical(p): p rows.
    const Array &pArray = ps[name == "multinomial" ? 1 : 0];
    int64_t dim = pArray.shape().empty() ? 0 : pArray.shape().back();
    Array p = rows(pArray, 1, batch);
    Array trials = name == "multinomial" ? rows(ps[0], 0, batch) : Array();
    for (int64_t b = 0; b < count; ++b) {
      CounterRng rng(options_.seed, draw, uint64_t(b));
      const double *pr = p.base<double>() + b * dim;
      for (int64_t i = 0; i < dim; ++i)
        if (!(pr[i] >= 0 && pr[i] <= 1)) fail("probabilities must be in [0, 1]");
      if (name == "categorical") {
        if (dim == 0) fail("p is empty");
        double u = rng.uniform(), acc = 0;
        int64_t pick = dim - 1;
        for (int64_t i = 0; i < dim; ++i)
          if (u < (acc += pr[i])) {
            pick = i;
            break;
          }
        out.base<int64_t>()[b] = pick;
      } else {
        double count = trials.base<double>()[b];
        if (!(std::fabs(count) < 0x1p63)) fail("n is not a finite count");
        int64_t left = int64_t(count);
        if (left < 0) fail("n < 0");
        double rest = 1.0;
        for (int64_t i = 0; i < dim; ++i) {
          int64_t k = i + 1 == dim ? left : (rest > 0 ? rng.binomial(left, std::min(1.0, pr[i] / rest)) : 0);
          out.base<int64_t>()[b * dim + i] = k;
          left -= k;
          rest -= pr[i];
        }
      }
    }
    return out;
  }
  if (name == "permutation" || name == "choice_without_replacement") {
    // permutation of arange(x) (a literal x) or of an array's first axis; choice draws
    // prod(core_shape) distinct rows of a, weighted by p when given.
    const bool literal = (!attrs.shapeRanks.empty() && attrs.shapeRanks[0]) || n->dataSize;
    Array a = literal ? Array() : ps[0].contiguous();
    int64_t items = literal ? outShape.empty() ? 0 : outShape[0] : (a.rank() ? a.shape()[0] : 0);
    if (name == "permutation" && !literal && a.rank() == 0) fail("x must be an integer or at least 1-dimensional");
    int64_t picks = name == "permutation" ? items : 1;
    std::vector<double> weights(static_cast<std::size_t>(items), 1.0);
    if (name == "choice_without_replacement") {
      int64_t rowSize = a.rank() ? a.size() / std::max<int64_t>(items, 1) : 1;
      picks = rowSize ? out.size() / rowSize : 0;
      if (ps.size() > 1) {
        Array p = ps[1].astype(DType::Float64);
        for (int64_t i = 0; i < items; ++i) weights[i] = p.base<double>()[i];
      }
      if (picks > items) fail("Cannot take a larger sample than population when replace is False");
    }
    CounterRng rng(options_.seed, draw, 0);
    std::vector<int64_t> order(static_cast<std::size_t>(items));
    std::iota(order.begin(), order.end(), 0);
    std::vector<int64_t> chosen;
    // permutation's weights are all 1: the scan below stops at k + floor(u) (its partial sums
    // are exact integers), found directly — the same draw in time linear in the length.
    const bool unweighted = name == "permutation";
    for (int64_t k = 0; k < picks; ++k) {
      if (unweighted && (k & 1023) == 0) checkInterrupt();
      double total = 0;
      if (unweighted) total = double(items - k);
      else
        for (int64_t i = k; i < items; ++i) total += weights[order[i]];
      double u = rng.uniform() * total, acc = 0;
      int64_t at = items - 1;
      if (unweighted) {
        if (u < double(items - k)) at = std::min(items - 1, k + int64_t(u));
      } else {
        for (int64_t i = k; i < items; ++i)
          if (u < (acc += weights[order[i]])) {
            at = i;
            break;
          }
      }
      std::swap(order[k], order[at]);
      chosen.push_back(order[k]);
    }
    if (literal) {
      for (int64_t k = 0; k < items; ++k) out.base<int64_t>()[k] = chosen[k];
      return out;
    }
    int64_t row = items ? a.size() / items : 0;
    std::size_t item = ops::itemSize(n->dtype);
    Array src = a.astype(n->dtype);
    for (std::size_t k = 0; k < chosen.size(); ++k)
      std::memcpy(out.base<char>() + k * row * item, src.base<char>() + chosen[k] * row * item, std::size_t(row) * item);
    return out;
  }
  fail("no sampler");
  return out;
}

} // namespace shapelab::interp
