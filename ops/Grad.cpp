// Reverse-mode gradients (ops/Grad.h): one adjoint rule per op, built from the graph's
// factories.
#include "ops/Grad.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ops/Composites.h"
#include "ops/GraphDetail.h"
#include "shape/Einsum.h"

namespace shapelab::ops {

namespace {

class Backward {
public:
  Backward(Graph &graph, BroadcastMode mode) : g_(graph), mode_(mode), onPath_(ownPath_) {}
  /// A pass over one branch of an ifelse, sharing the outer pass's paths and inputs.
  Backward(const Backward &outer, int)
      : g_(outer.g_), mode_(outer.mode_), onPath_(outer.onPath_), readers_(outer.readers_), wrt_(outer.wrt_) {}

  /// Adds `adjoint` to what node `n` receives.
  /// Only float arrays carry an adjoint: an integer or bool node passes none, and receives none.
  void give(const Node *n, const Node *adjoint) {
    if (!onPath_.count(n) || !adjoint || !isFloat(n->dtype)) return;
    auto [it, fresh] = adjoint_.emplace(n, adjoint);
    if (!fresh) it->second = add(it->second, adjoint);
  }

  std::vector<const Node *> run(const Node *cost, const std::vector<const Node *> &wrt) {
    if (cost->rank() != 0 || !isFloat(cost->dtype))
      throw OpError("grad: the cost must be a 0-d float array, not " + std::string(cost->rank() ? "an array of rank " + std::to_string(cost->rank()) : "a 0-d " + std::string(spelling(cost->dtype))) +
                    " (sum it first)");
    for (const Node *x : wrt)
      if (!isFloat(x->dtype))
        throw OpError("grad: " + x->describe() + " is " + spelling(x->dtype) + ": only float arrays have a gradient");
    // The nodes the cost reads (transitively), and among them those that read a node of `wrt`.
    const std::vector<const Node *> ancestors = nodesRead({cost});
    for (const Node *x : wrt) onPath_.insert(x);
    wrt_ = wrt;
    for (const Node *n : ancestors)
      for (const Node *i : n->inputs) ownReaders_[i].push_back(n);
    for (const Node *n : ancestors)
      for (const Node *i : n->inputs)
        if (onPath_.count(i)) {
          onPath_.insert(n);
          break;
        }
    for (const Node *x : wrt)
      if (!std::count(ancestors.begin(), ancestors.end(), x))
        throw OpError("grad: the cost does not depend on " + x->describe());
    // The seed is computed after the cost, and every rule reads its adjoint first (or the
    // forward node, which the cost computed): evaluating a gradient raises the cost's error
    // first, wherever it has one, and none of its own. A cost valid for every size (no shape
    // obligation pending) is not a guard, as the language drops such guards (Value::reads).
    give(cost, guarded(cost, g_.constant(1.0, cost->dtype)));
    for (auto it = ancestors.rbegin(); it != ancestors.rend(); ++it) {
      const Node *n = *it;
      auto a = adjoint_.find(n);
      if (a != adjoint_.end()) propagate(n, a->second);
    }
    std::vector<const Node *> out;
    for (const Node *x : wrt) {
      auto a = adjoint_.find(x);
      if (a == adjoint_.end())
        throw OpError("grad: no differentiable path from " + x->describe() +
                      " to the cost (it is read only by ops with no derivative: comparisons, integer casts, argmax, indices)");
      const Node *gx = a->second->dtype == x->dtype ? a->second : g_.astype(a->second, x->dtype);
      if (!(gx->shape == x->shape)) gx = g_.reshape(gx, x->shape); // (equal sizes, other spelling)
      out.push_back(guarded(cost, gx));
    }
    return out;
  }

private:
  Graph &g_;
  BroadcastMode mode_;
  std::unordered_set<const Node *> ownPath_;
  std::unordered_set<const Node *> &onPath_; // the outer pass's, in a branch's pass
  std::unordered_map<const Node *, std::vector<const Node *>> ownReaders_;
  /// The nodes reading each node the cost reads (the outer pass's, in a branch's pass).
  std::unordered_map<const Node *, std::vector<const Node *>> &readers_ = ownReaders_;
  std::vector<const Node *> wrt_;
  std::unordered_map<const Node *, const Node *> adjoint_;

  /// The adjoint `grad` of ifelse `n`'s branch `side` (0: taken where n->cond holds), carried
  /// down to the inputs by a pass of its own, each input's share computed inside an ifelse on
  /// the same condition: lazy, so the backward nodes of the branch not taken never run and
  /// raise none of its errors (the gradient fails exactly where the cost does).
  /// The pass covers the branch's own nodes: those only the branch reads (each of whose readers
  /// is one of them, or the ifelse), inputs aside. What reaches a node past them is given to
  /// it, inside the ifelse, and the outer pass carries it on (once per node: no node is walked
  /// by two passes, so nested ifelses cost what one does).
  void throughBranch(const Node *n, int side, const Node *grad) {
    const Node *branch = n->inputs[std::size_t(side)];
    std::unordered_set<const Node *> own;
    const std::vector<const Node *> below = nodesRead({branch});
    for (auto it = below.rbegin(); it != below.rend(); ++it) {
      const Node *x = *it;
      if (std::count(wrt_.begin(), wrt_.end(), x)) continue;
      auto r = readers_.find(x);
      bool mine = r != readers_.end() && !r->second.empty();
      if (mine)
        for (const Node *reader : r->second) mine = mine && (x == branch ? reader == n : own.count(reader) > 0);
      if (mine) own.insert(x);
    }
    Backward inner(*this, 0);
    inner.adjoint_.emplace(branch, grad);
    for (auto it = below.rbegin(); it != below.rend(); ++it)
      if (own.count(*it))
        if (auto a = inner.adjoint_.find(*it); a != inner.adjoint_.end()) inner.propagate(*it, a->second);
    for (const Node *x : below) { // (in the graph's order: the nodes made do not depend on addresses)
      auto a = inner.adjoint_.find(x);
      if (own.count(x) || a == inner.adjoint_.end()) continue;
      const Node *share = a->second;
      give(x, side == 0 ? g_.ifelse(n->cond, share, zerosLike(x)) : g_.ifelse(n->cond, zerosLike(x), share));
    }
  }

  const Node *lit(double v) { return g_.literal(v, DType::Float64); }
  /// x computed after the cost where the cost has shape obligations pending.
  const Node *guarded(const Node *cost, const Node *x) { return cost->pending ? g_.after({cost}, x) : x; }
  const Node *add(const Node *a, const Node *b) { return g_.binary("add", a, b, mode_); }
  const Node *sub(const Node *a, const Node *b) { return g_.binary("subtract", a, b, mode_); }
  const Node *mul(const Node *a, const Node *b) { return g_.binary("multiply", a, b, mode_); }
  const Node *div(const Node *a, const Node *b) { return g_.binary("true_divide", a, b, mode_); }
  const Node *neg(const Node *a) { return g_.unary("negative", a); }
  const Node *fn(const char *op, const Node *a) { return g_.unary(op, a); }
  const Node *zerosLike(const Node *x) { return g_.full(x->shape, lit(0.0), x->dtype); }
  /// g reduced to x's shape over the axes broadcasting stretched (at run time).
  const Node *to(const Node *grad, const Node *x) {
    if (grad->shape == x->shape) return grad;
    return g_.sumTo(grad, x->shape);
  }
  /// g spread back over reduced axes (kept as 1 when the reduction dropped them) to x's shape.
  const Node *spread(const Node *grad, const Node *x, const attr::Reduction &r) {
    if (!r.keepdims && !r.axes.empty()) grad = g_.expandDims(grad, r.axes);
    return g_.broadcastTo(grad, x->shape);
  }
  static std::vector<int64_t> inverse(const std::vector<int64_t> &perm) {
    std::vector<int64_t> inv(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) inv[std::size_t(perm[i])] = int64_t(i);
    return inv;
  }
  const Node *matmul(const Node *x, const Node *y) { return g_.blockwise("matmul", {x, y}, mode_); }
  /// F_ij = 1 / (v_j - v_i) off the diagonal of the last two axes and 0 on it, for values v
  /// along the last axis (eigenvalues, squared singular values): infinite where two are equal.
  const Node *inverseGaps(const Node *v) {
    const int64_t r = int64_t(v->rank());
    const Expr k = v->shape.back();
    const Node *eye = ops::eye(g_, k, k, 0, DType::Bool, mode_);
    return g_.where(eye, lit(0.0), div(lit(1.0), sub(g_.expandDims(v, {r - 1}), g_.expandDims(v, {r}))), mode_);
  }
  /// The adjoint of a symmetric matrix read from one triangle (its mirror image read too), from
  /// S, the adjoint of the whole matrix: an entry off the diagonal gets S_ij + S_ji.
  const Node *readFromTriangle(const Node *s, bool upper) {
    const Expr m = s->shape.back();
    const Node *both = add(s, mT(s));
    return sub(upper ? triu(g_, both, Expr(0), mode_) : tril(g_, both, Expr(0), mode_),
               mul(s, ops::eye(g_, m, m, 0, s->dtype, mode_)));
  }
  /// The last two axes swapped (a matrix transpose over a stack).
  const Node *mT(const Node *x) {
    std::vector<int64_t> perm(x->rank());
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    return g_.transpose(x, perm);
  }
  const Node *flip(const Node *x, int64_t axis) {
    std::vector<IndexEntry> entries(x->rank());
    entries[std::size_t(axis)].step = -1;
    return g_.index(x, entries);
  }
  [[noreturn]] static void noAdjoint(const Node *n, const std::string &why = "") {
    throw OpError("grad: " + n->describe() + " has no adjoint in shapelab yet" + (why.empty() ? "" : " (" + why + ")"));
  }

  void propagate(const Node *n, const Node *grad);
  void unaryRule(const Node *n, const Node *grad);
  void binaryRule(const Node *n, const Node *grad);
  void blockwiseRule(const Node *n, const Node *grad);
  void einsumRule(const Node *n, const Node *grad);
};

void Backward::unaryRule(const Node *n, const Node *grad) {
  const Node *x = n->inputs[0];
  const std::string &op = n->op;
  const Node *d = nullptr; // the derivative, elementwise
  if (op == "negative") return give(x, neg(grad));
  if (op == "positive") return give(x, grad);
  if (op == "exp") d = n;
  else if (op == "expm1") d = add(n, lit(1.0));
  else if (op == "exp2") d = mul(n, lit(std::log(2.0)));
  else if (op == "log") d = div(lit(1.0), x);
  else if (op == "log1p") d = div(lit(1.0), add(x, lit(1.0)));
  else if (op == "log2") d = div(lit(1.0 / std::log(2.0)), x);
  else if (op == "log10") d = div(lit(1.0 / std::log(10.0)), x);
  else if (op == "sin") d = fn("cos", x);
  else if (op == "cos") d = neg(fn("sin", x));
  else if (op == "tan") d = add(lit(1.0), mul(n, n));
  else if (op == "tanh") d = sub(lit(1.0), mul(n, n));
  else if (op == "sinh") d = fn("cosh", x);
  else if (op == "cosh") d = fn("sinh", x);
  else if (op == "arcsin") d = div(lit(1.0), fn("sqrt", sub(lit(1.0), mul(x, x))));
  else if (op == "arccos") d = neg(div(lit(1.0), fn("sqrt", sub(lit(1.0), mul(x, x)))));
  else if (op == "arctan") d = div(lit(1.0), add(lit(1.0), mul(x, x)));
  else if (op == "arcsinh") d = div(lit(1.0), fn("sqrt", add(mul(x, x), lit(1.0))));
  else if (op == "arccosh") d = div(lit(1.0), fn("sqrt", sub(mul(x, x), lit(1.0))));
  else if (op == "arctanh") d = div(lit(1.0), sub(lit(1.0), mul(x, x)));
  else if (op == "sqrt") d = div(lit(0.5), n);
  else if (op == "cbrt") d = div(lit(1.0 / 3.0), mul(n, n));
  else if (op == "square") d = mul(lit(2.0), x);
  else if (op == "abs" || op == "fabs") d = fn("sign", x);
  else if (op == "sign" || op == "floor" || op == "ceil" || op == "trunc" || op == "rint") return; // zero almost everywhere
  else if (isUnaryTest(op) || op == "invert") return;                                             // bool results
  else noAdjoint(n);
  give(x, mul(grad, d));
}

void Backward::binaryRule(const Node *n, const Node *grad) {
  const Node *a = n->inputs[0], *b = n->inputs[1];
  const std::string &op = n->op;
  const UfuncInfo *u = ufunc(op);
  if (u && (u->rule == UfuncRule::Compare || u->rule == UfuncRule::Logical)) return;
  if (op == "bitwise_and" || op == "bitwise_or" || op == "bitwise_xor" || op == "floor_divide") return;
  const bool wantA = onPath_.count(a) > 0, wantB = onPath_.count(b) > 0;
  auto both = [&](const Node *ga, const Node *gb) {
    if (wantA && ga) give(a, to(ga, a));
    if (wantB && gb) give(b, to(gb, b));
  };
  // Each rule builds only what a wanted operand needs.
  if (op == "add") return both(grad, grad);
  if (op == "subtract") return both(grad, wantB ? neg(grad) : nullptr);
  if (op == "multiply") return both(wantA ? mul(grad, b) : nullptr, wantB ? mul(grad, a) : nullptr);
  if (op == "true_divide") return both(wantA ? div(grad, b) : nullptr, wantB ? neg(div(mul(grad, n), b)) : nullptr);
  if (op == "power") {
    // A literal exponent c: c * a ** (c - 1) without a power where c is 1 or 2 (x ** 2 is common).
    const Node *da = nullptr;
    if (wantA) {
      // (a Python int is a size node: its value is its constant expression)
      const std::optional<Integer> size =
          b->kind == OpKind::Scalar && !b->exprs.empty() ? b->exprs[0].constantValue() : std::nullopt;
      const bool literal = b->kind == OpKind::Scalar && (b->exprs.empty() || size);
      const double c = !literal ? 0 : size ? (*size == Integer(2) ? 2.0 : *size == Integer(1) ? 1.0 : 0.0) : b->attr<attr::Constant>().value;
      da = literal && c == 2 ? mul(grad, mul(a, lit(2.0)))
           : literal && c == 1 ? grad
                               : mul(grad, mul(b, g_.binary("power", a, sub(b, lit(1.0)), mode_)));
    }
    return both(da, wantB ? mul(grad, mul(n, fn("log", a))) : nullptr);
  }
  if (op == "maximum" || op == "minimum" || op == "fmax" || op == "fmin") {
    // Ties go to a: where the result is a (a >= b for maximum, a <= b for minimum; fmax's a
    // where b is NaN). Read from the result, which the cost computed: no broadcast of its own.
    const Node *toA = g_.binary("equal", n, a, mode_);
    const Node *zero = lit(0.0);
    return both(wantA ? g_.where(toA, grad, zero, mode_) : nullptr, wantB ? g_.where(toA, zero, grad, mode_) : nullptr);
  }
  if (op == "arctan2") {
    const Node *r2 = add(mul(a, a), mul(b, b));
    return both(wantA ? div(mul(grad, b), r2) : nullptr, wantB ? neg(div(mul(grad, a), r2)) : nullptr);
  }
  if (op == "hypot") return both(wantA ? mul(grad, div(a, n)) : nullptr, wantB ? mul(grad, div(b, n)) : nullptr);
  if (op == "logaddexp")
    return both(wantA ? mul(grad, fn("exp", sub(a, n))) : nullptr, wantB ? mul(grad, fn("exp", sub(b, n))) : nullptr);
  if (op == "logaddexp2")
    return both(wantA ? mul(grad, fn("exp2", sub(a, n))) : nullptr, wantB ? mul(grad, fn("exp2", sub(b, n))) : nullptr);
  if (op == "remainder" || op == "fmod")
    return both(grad, wantB ? neg(mul(grad, fn(op == "remainder" ? "floor" : "trunc", div(a, b)))) : nullptr);
  noAdjoint(n);
}

void Backward::blockwiseRule(const Node *n, const Node *grad) {
  const std::string &op = n->op;
  if (op == "matmul") {
    const Node *a = n->inputs[0], *b = n->inputs[1];
    // Vectors as matrices: a (k) as (1, k), b (k) as (k, 1), and g with those axes back.
    const bool aVec = a->rank() == 1, bVec = b->rank() == 1;
    const Node *A = aVec ? g_.expandDims(a, {0}) : a, *B = bVec ? g_.expandDims(b, {1}) : b;
    const Node *G = grad;
    if (aVec && bVec) G = g_.expandDims(G, {0, 1});
    else if (aVec) G = g_.expandDims(G, {int64_t(G->rank()) - 1});
    else if (bVec) G = g_.expandDims(G, {int64_t(G->rank())});
    if (onPath_.count(a)) {
      const Node *gA = g_.blockwise("matmul", {G, mT(B)}, mode_);
      gA = g_.sumTo(gA, A->shape);
      give(a, aVec ? g_.reshape(gA, a->shape) : gA);
    }
    if (onPath_.count(b)) {
      const Node *gB = g_.blockwise("matmul", {mT(A), G}, mode_);
      gB = g_.sumTo(gB, B->shape);
      give(b, bVec ? g_.reshape(gB, b->shape) : gB);
    }
    return;
  }
  if (op == "outer") {
    const Node *a = n->inputs[0], *b = n->inputs[1];
    if (onPath_.count(a)) give(a, g_.blockwise("matmul", {grad, b}, mode_));
    if (onPath_.count(b)) give(b, g_.blockwise("matmul", {a, grad}, mode_));
    return;
  }
  if (op == "inv") { // d(A^-1) = -A^-1 dA A^-1: the adjoint is -(A^-T g A^-T)
    const Node *t = mT(n);
    give(n->inputs[0], neg(g_.blockwise("matmul", {g_.blockwise("matmul", {t, grad}, mode_), t}, mode_)));
    return;
  }
  if (op == "det") { // d det(A) = det(A) tr(A^-1 dA): the adjoint is g det(A) A^-T
    const Node *a = n->inputs[0];
    const Node *scale = g_.expandDims(mul(grad, n), {int64_t(n->rank()), int64_t(n->rank()) + 1});
    give(a, mul(scale, mT(g_.blockwise("inv", {a}, mode_))));
    return;
  }
  if (op == "cholesky") {
    // L = cholesky(A) reads A's lower triangle (Murray 2016, "Differentiation of the Cholesky
    // decomposition"): with P = Phi(L^T gL) (the lower triangle, its diagonal halved) and
    // S = L^-T P L^-1, the adjoint of the symmetric matrix is (S + S^T) / 2, and of the lower
    // triangle read it is tril(S + S^T) - diag(S).
    const Node *a = n->inputs[0];
    const Expr m = a->shape.back();
    const Node *eye = ops::eye(g_, m, m, 0, n->dtype, mode_);
    const Node *lt = mT(n);
    const Node *m0 = g_.blockwise("matmul", {lt, grad}, mode_);
    const Node *phi = sub(tril(g_, m0, Expr(0), mode_), mul(mul(m0, eye), lit(0.5)));
    const Node *x = g_.blockwise("solve", {lt, phi}, mode_);     // L^-T P
    const Node *s = mT(g_.blockwise("solve", {lt, mT(x)}, mode_)); // (L^-T (L^-T P)^T)^T = L^-T P L^-1
    give(a, readFromTriangle(s, false));
    return;
  }
  if (op == "eigh_w" || op == "eigh_v" || op == "eigh_w_upper" || op == "eigh_v_upper") {
    // A = V diag(w) V^T of the symmetric matrix eigh reads from one triangle (Giles 2008,
    // "An extended collection of matrix derivative results"): w's adjoint is V diag(gw) V^T,
    // V's is V (F * (V^T gV)) V^T with F_ij = 1 / (w_j - w_i) off the diagonal and 0 on it
    // (infinite where two eigenvalues are equal, as every autodiff library's). The matrix read
    // is its triangle mirrored: the adjoint of an entry off the diagonal is S_ij + S_ji.
    const Node *a = n->inputs[0];
    const bool upper = op.ends_with("_upper");
    const std::string suffix = upper ? "_upper" : "";
    // (Built as linalg's composites build them, so that a program's own eigh is the same node.)
    const Node *w = op.starts_with("eigh_w") ? n : g_.blockwise("eigh_w" + suffix, {a}, BroadcastMode::Numpy);
    const Node *v = op.starts_with("eigh_v") ? n : g_.blockwise("eigh_v" + suffix, {a}, BroadcastMode::Numpy);
    const Node *inner = op.starts_with("eigh_w") ? mul(v, g_.expandDims(grad, {int64_t(w->rank()) - 1})) // V diag(gw)
                                                 : matmul(v, mul(inverseGaps(w), matmul(mT(v), grad)));
    give(a, to(readFromTriangle(matmul(inner, mT(v)), upper), a));
    return;
  }
  if (op == "svd_s") { // A = U diag(s) V^T: the singular values' adjoint is U diag(gs) V^T (reduced U, V)
    const Node *a = n->inputs[0];
    const Node *u = g_.blockwise("svd_u", {a}, BroadcastMode::Numpy), *vh = g_.blockwise("svd_vh", {a}, BroadcastMode::Numpy);
    const Node *scaled = g_.binary("multiply", u, g_.expandDims(grad, {int64_t(grad->rank()) - 1}), mode_);
    give(a, to(g_.blockwise("matmul", {scaled, vh}, mode_), a));
    return;
  }
  if (op == "svd_u" || op == "svd_vh") {
    // Reduced A = U diag(s) V^T, k = min(m, n) (Townsend 2016, "Differentiating the singular
    // value decomposition"): with F_ij = 1 / (s_j^2 - s_i^2) off the diagonal and 0 on it,
    //   U's adjoint: U (F * (U^T gU - gU^T U)) S V^T + (I - U U^T) gU S^-1 V^T,
    //   V's adjoint: U S (F * (V^T gV - gV^T V)) V^T + U S^-1 gV^T (I - V V^T).
    // Infinite where singular values repeat or one is 0, as every autodiff library's.
    const Node *a = n->inputs[0];
    const Node *s = g_.blockwise("svd_s", {a}, BroadcastMode::Numpy);
    const Node *u = g_.blockwise("svd_u", {a}, BroadcastMode::Numpy), *vh = g_.blockwise("svd_vh", {a}, BroadcastMode::Numpy);
    const int64_t r = int64_t(s->rank());
    const Node *f = inverseGaps(mul(s, s));
    const Node *inv = div(lit(1.0), s);
    const Node *back;
    if (op == "svd_u") {
      const Node *utg = matmul(mT(u), grad);
      const Node *j = mul(f, sub(utg, mT(utg)));
      const Node *rotation = matmul(matmul(u, mul(j, g_.expandDims(s, {r - 1}))), vh);
      const Node *outside = matmul(mul(sub(grad, matmul(u, utg)), g_.expandDims(inv, {r - 1})), vh);
      back = add(rotation, outside);
    } else {
      const Node *v = mT(vh), *gv = mT(grad);
      const Node *vtg = matmul(vh, gv);
      const Node *kk = mul(f, sub(vtg, mT(vtg)));
      const Node *rotation = matmul(matmul(u, mul(g_.expandDims(s, {r}), kk)), vh);
      const Node *outside = matmul(mul(u, g_.expandDims(inv, {r - 1})), mT(sub(gv, matmul(v, vtg))));
      back = add(rotation, outside);
    }
    give(a, to(back, a));
    return;
  }
  if (op == "qr_q" || op == "qr_r") {
    // A = QR reduced, k = min(m, n); R = [R1 R2] with R1 k x k, and A = [X Y] alike (Y empty
    // where m >= n). Differentiating X = Q R1 (Q^T dQ antisymmetric, dR1 R1^-1 upper
    // triangular) and R2 = Q^T Y: with gQ' = gQ + Y gR2^T and M = gR1 R1^T - Q^T gQ',
    //   gX = (gQ' + Q (triu(M) + triu(M, 1)^T)) R1^-T,   gY = Q gR2,   gA = [gX gY].
    const Node *a = n->inputs[0];
    const Node *q = g_.blockwise("qr_q", {a}, BroadcastMode::Numpy), *r = g_.blockwise("qr_r", {a}, BroadcastMode::Numpy);
    const std::size_t last = a->rank() - 1;
    const Expr k = q->shape.back();
    auto columns = [&](const Node *x, std::optional<Expr> begin, std::optional<Expr> end) {
      std::vector<IndexEntry> e(x->rank());
      e[last].start = begin;
      e[last].stop = end;
      return g_.index(x, std::move(e));
    };
    const Node *r1 = columns(r, std::nullopt, k), *y = columns(a, k, std::nullopt);
    const Node *gq = op == "qr_q" ? grad : nullptr, *gr = op == "qr_r" ? grad : nullptr;
    const Node *gqPrime = gq ? gq : g_.full(q->shape, lit(0.0), q->dtype);
    if (gr) gqPrime = add(gqPrime, matmul(y, mT(columns(gr, k, std::nullopt))));
    const Node *m = neg(matmul(mT(q), gqPrime));
    if (gr) m = add(m, matmul(columns(gr, std::nullopt, k), mT(r1)));
    const Node *nsym = add(triu(g_, m, Expr(0), mode_), mT(triu(g_, m, Expr(1), mode_)));
    const Node *b = add(gqPrime, matmul(q, nsym));
    const Node *gx = mT(g_.blockwise("solve", {r1, mT(b)}, mode_)); // b R1^-T
    const Node *gy = gr ? matmul(q, columns(gr, k, std::nullopt)) : g_.full(y->shape, lit(0.0), gx->dtype);
    give(a, to(g_.concatenate({gx, gy}, int64_t(last)), a));
    return;
  }
  if (op == "qr_q_complete" || op == "qr_r_complete")
    noAdjoint(n, "mode='complete': Q's columns past min(m, n) are any basis of a complement; mode='reduced' has one");
  if (op == "svd_u_full" || op == "svd_vh_full")
    noAdjoint(n, "full_matrices=True: the columns past min(m, n) are any basis of a complement; full_matrices=False has one");
  if (op == "solve") { // x = A^-1 b: gb = A^-T g, gA = -gb x^T
    const Node *a = n->inputs[0], *b = n->inputs[1];
    const bool vec = b->rank() == a->rank() - 1;
    const Node *gb = g_.blockwise("solve", {mT(a), grad}, mode_);
    if (onPath_.count(b)) give(b, to(gb, b));
    if (onPath_.count(a)) {
      const Node *G = vec ? g_.expandDims(gb, {int64_t(gb->rank())}) : gb;
      const Node *X = vec ? g_.expandDims(n, {int64_t(n->rank())}) : n;
      give(a, to(neg(g_.blockwise("matmul", {G, mT(X)}, mode_)), a));
    }
    return;
  }
  noAdjoint(n);
}

void Backward::einsumRule(const Node *n, const Node *grad) {
  const EinsumSpec &spec = n->attr<EinsumSpec>();
  std::set<int64_t> used(spec.output.begin(), spec.output.end());
  for (const std::vector<int64_t> &o : spec.operands) used.insert(o.begin(), o.end());
  for (std::size_t i = 0; i < n->inputs.size(); ++i) {
    const Node *x = n->inputs[i];
    if (!onPath_.count(x)) continue;
    const std::vector<int64_t> &labels = spec.operands[i];
    // Operand i's adjoint is one einsum: g with the other operands, into i's labels. A label
    // summed within i alone (read neither by the output nor by another operand) comes from a
    // vector of ones (each element gets all of g); each repeat of a label (a diagonal) gets a
    // fresh letter tied to the first by an identity matrix (only the diagonal gets anything).
    EinsumSpec back;
    std::vector<const Node *> xs{grad};
    back.operands.push_back(spec.output);
    for (std::size_t j = 0; j < spec.operands.size(); ++j)
      if (j != i) back.operands.push_back(spec.operands[j]), xs.push_back(n->inputs[j]);
    std::set<int64_t> fresh = used;
    auto freshLabel = [&]() -> int64_t {
      for (const char *letters : {"abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"})
        for (const char *c = letters; *c; ++c)
          if (fresh.insert(int64_t(*c)).second) return int64_t(*c);
      noAdjoint(n, "no letters left for the diagonal of operand " + std::to_string(i));
    };
    for (std::size_t k = 0; k < labels.size(); ++k) {
      const int64_t label = labels[k];
      const std::size_t first = std::size_t(std::find(labels.begin(), labels.end(), label) - labels.begin());
      if (first != k) {
        const int64_t copy = freshLabel();
        back.output.push_back(copy);
        back.operands.push_back({label, copy});
        xs.push_back(ops::eye(g_, x->shape[first], x->shape[first], 0, grad->dtype, mode_));
        continue;
      }
      back.output.push_back(label);
      const bool repeated = std::count(labels.begin(), labels.end(), label) > 1;
      bool elsewhere = std::count(spec.output.begin(), spec.output.end(), label) > 0;
      for (std::size_t j = 0; j < spec.operands.size() && !elsewhere; ++j)
        elsewhere = j != i && std::count(spec.operands[j].begin(), spec.operands[j].end(), label) > 0;
      if (!elsewhere && !repeated) {
        back.operands.push_back({label});
        xs.push_back(g_.full({x->shape[k]}, lit(1.0), grad->dtype));
      }
    }
    give(x, to(g_.einsum(back, xs, mode_), x));
  }
}

void Backward::propagate(const Node *n, const Node *grad) {
  auto in = [&](std::size_t i) { return n->inputs[i]; };
  // An op that fails for every size never runs, nor does anything after it (the gradient is
  // computed after the cost, which reads it): its operands get zeros of their own shapes (its
  // shape may be a placeholder, as static mode gives a broadcast that cannot hold).
  if (n->validity.status() == Status::Error) {
    for (const Node *i : n->inputs)
      if (onPath_.count(i) && isFloat(i->dtype)) give(i, zerosLike(i));
    return;
  }
  switch (n->kind) {
  case OpKind::Input:
  case OpKind::Scalar:
  case OpKind::Arange:
  case OpKind::PadIndex:
  case OpKind::RepeatIndex:
  case OpKind::SearchSorted:
  case OpKind::Random: return; // leaves, index makers, and draws (no derivative in their parameters)
  case OpKind::Unary: return unaryRule(n, grad);
  case OpKind::Binary: return binaryRule(n, grad);
  case OpKind::Where: {
    const Node *zero = lit(0.0);
    if (onPath_.count(in(1))) give(in(1), to(g_.where(in(0), grad, zero, mode_), in(1)));
    if (onPath_.count(in(2))) give(in(2), to(g_.where(in(0), zero, grad, mode_), in(2)));
    return;
  }
  case OpKind::Cast:
    if (isFloat(in(0)->dtype)) give(in(0), g_.astype(grad, in(0)->dtype));
    return;
  case OpKind::Transpose: return give(in(0), g_.transpose(grad, inverse(n->attr<attr::Permutation>().axes)));
  case OpKind::Reshape:
  case OpKind::ExpandDims:
  case OpKind::Squeeze: return give(in(0), g_.reshape(grad, in(0)->shape));
  case OpKind::BroadcastTo: return give(in(0), to(grad, in(0)));
  case OpKind::SumTo: return give(in(0), g_.broadcastTo(grad, in(0)->shape));
  case OpKind::Alloc: return give(in(0), to(grad, in(0)));
  case OpKind::Reduce: {
    const Node *x = in(0);
    const attr::Reduction &r = n->attr<attr::Reduction>();
    const std::string &op = n->op;
    if (op == "sum") return give(x, spread(grad, x, r));
    if (op == "mean") {
      Expr count(1);
      for (int64_t a : r.axes) count = count * x->shape[std::size_t(a)];
      return give(x, div(spread(grad, x, r), g_.size(count)));
    }
    if (op == "max" || op == "min") { // every element equal to the result gets the adjoint
      const Node *hit = g_.binary("equal", x, spread(n, x, r), mode_);
      return give(x, g_.where(hit, spread(grad, x, r), lit(0.0), mode_));
    }
    if (op == "prod") return give(x, div(spread(mul(grad, n), x, r), x)); // (x with zeros: nan, as g * prod / x)
    return; // all, any, argmax, argmin
  }
  case OpKind::Index:
  case OpKind::Split: {
    // The adjoint lands where the index read: zeros with g added at the region (add.at, so an
    // index array's repeats add up).
    const Node *x = in(0);
    std::vector<const Node *> ins = n->inputs;
    ins[0] = zerosLike(x);
    return give(x, g_.setSubtensor(g_.rebuild(n, ins), grad, "add.at", mode_));
  }
  case OpKind::SetSubtensor: {
    const Node *x = in(0), *value = in(1), *region = n->inputs.back();
    std::vector<const Node *> ins = region->inputs;
    ins[0] = grad;
    const Node *onG = g_.rebuild(region, ins); // g read at the region
    if (onPath_.count(value)) {
      const Node *gv = n->op == "set_subtensor" || n->op == "inc_subtensor" || n->op == "add.at" ? onG : nullptr;
      if (!gv) noAdjoint(n, n->op);
      give(value, to(gv, value));
    }
    if (onPath_.count(x)) {
      if (n->op == "set_subtensor") give(x, g_.setSubtensor(onG, lit(0.0), "set_subtensor", mode_));
      else if (n->op == "inc_subtensor" || n->op == "add.at") give(x, grad);
      else noAdjoint(n, n->op);
    }
    return;
  }
  case OpKind::Concatenate: {
    const int64_t axis = n->attr<attr::Axis>().axis;
    Expr offset(0);
    for (const Node *x : n->inputs) {
      const Expr length = x->shape[std::size_t(axis)];
      std::vector<IndexEntry> entries(n->rank());
      entries[std::size_t(axis)].start = offset;
      entries[std::size_t(axis)].stop = offset + length;
      if (onPath_.count(x)) give(x, g_.index(grad, entries));
      offset = offset + length;
    }
    return;
  }
  case OpKind::Stack: {
    const int64_t axis = n->attr<attr::Axis>().axis;
    for (std::size_t i = 0; i < n->inputs.size(); ++i) {
      if (!onPath_.count(in(i))) continue;
      std::vector<IndexEntry> entries(n->rank());
      entries[std::size_t(axis)].kind = IndexEntry::Integer;
      entries[std::size_t(axis)].start = Expr(int64_t(i));
      give(in(i), g_.index(grad, entries));
    }
    return;
  }
  case OpKind::Blockwise: return blockwiseRule(n, grad);
  case OpKind::Einsum: return einsumRule(n, grad);
  case OpKind::Cumsum: { // the adjoint sums from the end
    const int64_t axis = n->attr<attr::Axis>().axis;
    const Node *back = flip(g_.cumulative("cumsum", flip(grad, axis), axis), axis);
    return give(in(0), back->dtype == in(0)->dtype ? back : g_.astype(back, in(0)->dtype));
  }
  case OpKind::Diff: { // the adjoint of one difference along the axis: [0, g] - [g, 0]
    const attr::Difference &d = n->attr<attr::Difference>();
    const std::size_t axis = std::size_t(d.axis);
    // The j-th difference has length max(0, L - j). Where L < n the later ones are all empty,
    // and [0, g] of an empty g is one too long: each step is cut to its operand's length. Where
    // the result's length is L - n (L >= n, as the shape rule proved), no cut is needed.
    const Expr &L = in(0)->shape[axis];
    const bool longEnough = n->shape[axis] == L - Expr(d.n);
    const Node *back = grad;
    for (int64_t k = 0; k < d.n; ++k) {
      Shape one = back->shape;
      one[axis] = Expr(1);
      const Node *zero = g_.full(one, lit(0.0), back->dtype);
      back = sub(g_.concatenate({zero, back}, d.axis), g_.concatenate({back, zero}, d.axis));
      if (!longEnough) {
        std::vector<IndexEntry> cut(back->rank());
        cut[axis].stop = max(Expr(0), L - Expr(d.n - 1 - k));
        back = g_.index(back, std::move(cut));
      }
    }
    return give(in(0), back);
  }
  case OpKind::SpecifyShape:
  case OpKind::Check: return give(in(0), grad);
  case OpKind::After: return give(n->inputs.back(), grad);
  case OpKind::Sort: { // the adjoint goes back to where each sorted element came from
    if (n->op != "sort") return; // argsort: int64
    const Node *x = in(0);
    const int64_t axis = n->attr<attr::Axis>().axis;
    const Node *zeros = zerosLike(x);
    const Subscript from = alongAxis(g_, zeros, g_.sort("argsort", x, axis), axis);
    return give(x, scatter(g_, zeros, from, grad, "inc_subtensor", mode_));
  }
  case OpKind::Convolve: { // full convolution: each operand's adjoint correlates g with the other
    if (onPath_.count(in(0))) give(in(0), convolveMode(g_, grad, in(1), "valid", true));
    if (onPath_.count(in(1))) give(in(1), convolveMode(g_, grad, in(0), "valid", true));
    return;
  }
  case OpKind::Cumprod: { // y_j = x_0 ... x_j: x_i's adjoint is the sum over j >= i of g_j y_j, over x_i
    const int64_t axis = n->attr<attr::Axis>().axis;
    const Node *back = div(flip(g_.cumulative("cumsum", flip(mul(grad, n), axis), axis), axis), in(0));
    return give(in(0), back); // (an element 0: nan, as prod's)
  }
  case OpKind::IfElse: {
    // The branch taken gets the adjoint, the other zeros (each of its own shape), each through
    // a pass of its own (throughBranch). On data, the condition is the forward node's data size
    // (1 where the 0-d condition held), known once it ran.
    if (onPath_.count(in(0))) throughBranch(n, 0, g_.ifelse(n->cond, grad, zerosLike(in(0))));
    if (onPath_.count(in(1))) throughBranch(n, 1, g_.ifelse(n->cond, zerosLike(in(1)), grad));
    return;
  }
  case OpKind::Map: noAdjoint(n, "vectorize's wrapper: take the gradient before vectorizing");
  }
  noAdjoint(n);
}

} // namespace

std::vector<const Node *> gradients(Graph &graph, const Node *cost, const std::vector<const Node *> &wrt, BroadcastMode mode) {
  return Backward(graph, mode).run(cost, wrt);
}

} // namespace shapelab::ops
