// Composites — NumPy functions built from the graph's ops the way NumPy itself defines them
// (np.tril is `where(tri(N, M, k), m, zeros(1, m.dtype))`). They have no node kind, kernel or
// rewrite rule of their own: their shapes, validity and values are those of the ops they are
// made of, so both interpreters, the checked rewrites and the error domain cover them as they
// cover any program. Each is a row of the op list (ops/Functions.def, kind Composite), and the
// language binds it (lang/Library.cpp), reading its arguments (with their positions for errors).
// Example: tril(g, m, 0, mode) of an input (n, n) is a Where node of shape (n, n), valid.
// Errors: what NumPy refuses when the call is made (a rank, an axis) is an OpError.
// Cost: a handful of nodes per call (each one hash lookup when it exists).
#pragma once

#include <optional>
#include <vector>

#include "ops/Graph.h"

namespace shapelab::ops {

// Triangles and rolls.

/// np.tril(m, k): the elements on and below diagonal k of the last two axes (a 1-d m is read as
/// the rows of an (N, N) matrix, as NumPy does), the others 0 in m's dtype.
const Node *tril(Graph &g, const Node *m, const Expr &k, BroadcastMode mode);
/// np.triu(m, k): the elements on and above diagonal k.
const Node *triu(Graph &g, const Node *m, const Expr &k, BroadcastMode mode);
/// np.roll(a, shift, axis): the elements shifted along each axis, those past the end coming
/// back at the start. `shifts` and `axes` pair up (one of them may have one entry, used for
/// each of the other's); a shift is any size, negative too; shifts on one axis add. No axes:
/// the flattened array rolls and takes a's shape again.
const Node *roll(Graph &g, const Node *a, const std::vector<Expr> &shifts, const std::optional<std::vector<int64_t>> &axes,
                 BroadcastMode mode);

// Layout.

/// np.flip(m, axis): m[::-1] along each of `axes` (distinct; every axis when nullopt).
const Node *flip(Graph &g, const Node *m, const std::optional<std::vector<int64_t>> &axes);
/// np.swapaxes(a, axis1, axis2): a transpose exchanging the two axes.
const Node *swapaxes(Graph &g, const Node *a, int64_t axis1, int64_t axis2);
/// np.moveaxis(a, source, destination) for one axis: a transpose taking axis `source` to
/// position `destination`, the others in order.
const Node *moveaxis(Graph &g, const Node *a, int64_t source, int64_t destination);
/// np.atleast_1d / 2d / 3d (rank 1, 2, 3): a view with dimensions of 1 added as NumPy adds
/// them (a 1-d array (n,) is (1, n) at least 2-d and (1, n, 1) at least 3-d; a 2-d one gains a
/// last axis).
const Node *atleast(Graph &g, const Node *x, std::size_t rank);
/// np.vstack(xs): the arrays at least 2-d, joined along axis 0.
const Node *vstack(Graph &g, std::vector<const Node *> xs);
/// np.hstack(xs): the arrays at least 1-d, joined along axis 1 (axis 0 when the first is 1-d).
const Node *hstack(Graph &g, std::vector<const Node *> xs);
/// np.repeat(a, repeats, axis): each element repeated `count` times along the axis (a
/// flattened when nullopt). The count must be a size.
const Node *repeat(Graph &g, const Node *a, const Expr &count, std::optional<int64_t> axis);
/// np.repeat(a, repeats, axis) with an array of counts (0-d, or one per element along the axis,
/// or one for all): a gathered along the axis at Graph::repeatIndex's positions, whose length is
/// a data-dependent size (the counts' sum).
const Node *repeat(Graph &g, const Node *a, const Node *counts, std::optional<int64_t> axis);
/// np.repeat(a, [c0, c1, ...], axis) with a list of counts that are sizes: one per element along
/// the axis (its length must be the list's), so the length is their sum; each must be >= 0.
const Node *repeat(Graph &g, const Node *a, const std::vector<Expr> &counts, std::optional<int64_t> axis);
/// np.tile(A, reps): A repeated reps[i] times along each axis (the shorter of A's shape and
/// reps padded in front with 1s). Each count must be a size.
const Node *tile(Graph &g, const Node *a, const std::vector<Expr> &reps);

// Indexing.

/// An index as written between brackets: basic entries (an ellipsis is a Slice of step 0) and
/// index arrays, each Array entry taking the next of `arrays` (integer or bool arrays).
struct Subscript {
  std::vector<IndexEntry> entries;
  std::vector<const Node *> arrays;
};
/// x[s] as NumPy indexes (its advanced indexing): any number of integer index arrays, broadcast
/// together, with the integers of the index counted among them. Their dimensions replace the
/// indexed axes where the first of those was when the array and integer entries stand next to
/// each other in the index as written, and go first otherwise (a slice, None or `...` between
/// them, even a `...` that stands for no axis). With at most one array and its integers next to
/// it this is Graph::index; otherwise the indexed axes are moved together and merged into one,
/// and the index is the flat one, each index array normalised by indexing arange(L) with it
/// (so its own bounds are checked, as NumPy checks each index array).
const Node *gather(Graph &g, const Node *x, const Subscript &s);
/// x with the elements x[s] selects written: `x[s] = v` (write "set_subtensor"),
/// np.add.at(x, s, v) ("inc_subtensor") or np.UFUNC.at ("UFUNC.at"); see Graph::setSubtensor.
/// v broadcasts to x[s]'s shape (a set also takes extra leading dimensions of 1, as NumPy does).
const Node *scatter(Graph &g, const Node *x, const Subscript &s, const Node *value, const std::string &write,
                    BroadcastMode mode);
/// The value `x op= v` leaves in x (NumPy's in-place operators): ufunc(x, v) with x's shape
/// (v must broadcast to it) and x's dtype (the ufunc's result must cast to it under
/// 'same_kind': an int64 array cannot take `/= 2`).
const Node *inPlace(Graph &g, const std::string &ufunc, const Node *x, const Node *v, BroadcastMode mode);
/// np.take_along_axis(arr, indices, axis) as a Subscript of arr: `indices` along `axis`
/// (same rank as arr), arange along each other axis, all broadcast together.
Subscript alongAxis(Graph &g, const Node *arr, const Node *indices, int64_t axis);

/// np.pad(x, widths, mode) for the modes that copy x's own elements: "edge", "wrap",
/// "symmetric", "reflect" (reflect_type 'even'). Each padded axis is a gather of x at the
/// positions NumPy 1.24 copies (Graph::padIndex: a pad wider than the axis is filled in rounds,
/// as NumPy fills it). An empty axis with a width is NumPy's "can't extend empty axis" error; a
/// negative width "index can't contain negative values".
const Node *padCopying(Graph &g, const Node *x, const std::vector<std::pair<Expr, Expr>> &widths, const std::string &mode);
/// np.lib.stride_tricks.sliding_window_view(x, window_shape, axis): for each window w on axis
/// ax, in order, that axis trimmed to L - w + 1 and a window axis of w appended. Each window
/// must be a size no longer than what is left of its axis (NumPy's messages).
const Node *slidingWindowView(Graph &g, const Node *x, const std::vector<Expr> &windows, const std::vector<int64_t> &axes);
/// np.indices(dimensions, dtype, sparse): dense, the (len(dimensions), *dimensions) grid of
/// each axis' coordinate; sparse, each coordinate as arange along its own axis.
std::vector<const Node *> indices(Graph &g, const Shape &dimensions, DType dtype, bool sparse);
/// np.broadcast_arrays(*xs): each x broadcast to the shape of all (each result requires that
/// they broadcast together).
std::vector<const Node *> broadcastArrays(Graph &g, const std::vector<const Node *> &xs, BroadcastMode mode);

// Selection (ops/SelectionComposites.cpp). A data-dependent length is one fresh size per call.

/// np.nonzero(a): the coordinates of a's non-zero elements, one int64 array per axis (a 0-d a
/// read as 1-d, as NumPy does).
std::vector<const Node *> nonzero(Graph &g, const Node *a);
/// np.flatnonzero(a): the flat positions of a's non-zero elements.
const Node *flatnonzero(Graph &g, const Node *a);
/// np.argwhere(a): nonzero's coordinates as the columns of a (k, a.ndim) array.
const Node *argwhere(Graph &g, const Node *a);
/// np.compress(condition, a, axis): a's elements (a flattened when axis is nullopt) at the
/// positions where the 1-d condition is true (a true entry past the axis is an index error).
const Node *compress(Graph &g, const Node *condition, const Node *a, std::optional<int64_t> axis);
/// np.unique(ar, return_index, return_inverse, return_counts) of the flattened ar (NumPy 1.24:
/// NaNs equal): the sorted distinct values, the first position of each, each element's place
/// among them (flat), and how many each has.
struct Unique {
  const Node *values, *index, *inverse, *counts;
};
Unique unique(Graph &g, const Node *ar);
/// np.searchsorted(a, v, side, sorter): for each v, how many of the 1-d sorted a come before
/// it (right: before or equal), in NumPy's order (NaN last); `sorter` sorts a first.
const Node *searchsorted(Graph &g, const Node *a, const Node *v, bool right, const Node *sorter);
/// np.partition / np.argpartition (op) of a along axis (flattened when nullopt): each kth must
/// lie in [-L, L) unless a is empty (NumPy's "kth(=k) out of bounds (L)"). The result is sorted along the axis,
/// which is a partition for every kth; NumPy's own arrangement of the other elements differs.
const Node *partition(Graph &g, const std::string &op, const Node *a, const std::vector<Expr> &kth,
                      std::optional<int64_t> axis);
/// np.tril_indices(n, k, m) / np.triu_indices (upper): the row and column coordinates of the
/// triangle (NumPy's nonzero of tri: their count is a data-dependent size).
std::vector<const Node *> triangleIndices(Graph &g, const Expr &n, const Expr &k, const Expr &m, bool upper);

// Matrices (ops/MatrixComposites.cpp).

/// np.diagonal(a, offset, axis1, axis2): the diagonal `offset` of the two axes, as a last axis of
/// length max(0, min(rows, cols - offset)) (offset > 0; min(rows + offset, cols) below; min(rows,
/// cols) for 0), the
/// other axes in order before it (a gather with two index arrays).
const Node *diagonal(Graph &g, const Node *a, int64_t offset, int64_t axis1, int64_t axis2);
/// np.trace(a, offset, axis1, axis2): the sum of that diagonal (integers sum to int64).
const Node *trace(Graph &g, const Node *a, int64_t offset, int64_t axis1, int64_t axis2);
/// np.diag(v, k): a 1-d v on diagonal k of a square (n + |k|) matrix of zeros; a 2-d v's diagonal k.
const Node *diag(Graph &g, const Node *v, int64_t k, BroadcastMode mode);
/// np.kron(a, b): the block product; the shorter shape padded with leading 1s, each axis
/// a_i*b_i long (the outer product with the axes interleaved, merged).
const Node *kron(Graph &g, const Node *a, const Node *b, BroadcastMode mode);
/// np.rot90(m, k, axes): m turned k quarter turns from axes[0] towards axes[1] (k modulo 4).
const Node *rot90(Graph &g, const Node *m, int64_t k, int64_t axis0, int64_t axis1);
/// np.tensordot(a, b, (axesA, axesB)) as NumPy computes it: the summed axes of a last and of b
/// first, both reshaped to matrices and multiplied. Each summed pair must be of one length
/// ("shape-mismatch for sum"), not just their products.
const Node *tensordot(Graph &g, const Node *a, const Node *b, const std::vector<int64_t> &axesA,
                      const std::vector<int64_t> &axesB, BroadcastMode mode);

/// np.vander(x, N, increasing): the columns x**(N-1) ... x**0 (increasing: x**0 first) of the
/// 1-d x, as NumPy computes them: a running product, in x's dtype promoted with int64.
const Node *vander(Graph &g, const Node *x, const Expr &columns, bool increasing, BroadcastMode mode);

// Numbers (ops/NumericComposites.cpp).

/// np.linspace(start, stop, num, endpoint, dtype) for 0-d start and stop, NumPy's arithmetic:
/// i * step + start with step = (stop - start) / div (div = num - 1, or num without the
/// endpoint; i * (stop - start) where div is 0), the last value stop itself with the endpoint
/// (num > 1). An integer dtype takes the floor.
const Node *linspace(Graph &g, const Node *start, const Node *stop, const Expr &num, bool endpoint, DType dtype,
                     BroadcastMode mode);
/// np.logspace(start, stop, num, endpoint, base, dtype): base ** linspace(start, stop, num,
/// endpoint), cast to dtype when given.
const Node *logspace(Graph &g, const Node *start, const Node *stop, const Expr &num, bool endpoint, const Node *base,
                     std::optional<DType> dtype, BroadcastMode mode);
/// np.meshgrid(*xs, indexing): each x flattened, along its own axis, broadcast to the grid
/// (xy: the first two axes swapped, as NumPy's Cartesian indexing).
std::vector<const Node *> meshgrid(Graph &g, const std::vector<const Node *> &xs, bool cartesian);
/// np.isclose(a, b, rtol, atol, equal_nan): |a - b| <= atol + rtol*|b| where both are finite,
/// a == b where either is not (and both NaN where equal_nan); b in at least float's type.
const Node *isclose(Graph &g, const Node *a, const Node *b, double rtol, double atol, bool equalNan, BroadcastMode mode);
/// np.round(a, decimals) as NumPy rounds floats: rint(a * 10**d) / 10**d (d < 0: rint(a / 10**-d)
/// * 10**-d), halves to even; integers as they are for d >= 0 (OpError below: not supported);
/// bools refused (NumPy gives float16).
const Node *round(Graph &g, const Node *a, int64_t decimals, BroadcastMode mode);
/// np.nan_to_num(x, nan, posinf, neginf): NaN and the infinities of a float x replaced (the
/// infinities by the dtype's largest and lowest finite values by default); other dtypes as they are.
const Node *nanToNum(Graph &g, const Node *x, double nan, std::optional<double> posinf, std::optional<double> neginf,
                     BroadcastMode mode);
/// np.convolve(a, v, mode) and np.correlate(a, v, mode) (correlate is convolve with v
/// reversed): mode "full" (n + m - 1), "same" (max(n, m), centred as NumPy centres it) or
/// "valid" (max(n, m) - min(n, m) + 1): parts of the full convolution.
const Node *convolveMode(Graph &g, const Node *a, const Node *v, const std::string &mode, bool correlate);

// Sources.

/// np.eye(N, M, k, dtype): ones on diagonal k of an (N, M) matrix, zeros elsewhere.
const Node *eye(Graph &g, const Expr &rows, const Expr &cols, int64_t k, DType dtype, BroadcastMode mode);

// Reductions.

/// np.var(a, axis, ddof=ddof, keepdims=keepdims): mean((a - mean(a))**2) with the count of the
/// reduced elements less ddof as the divisor (0 when ddof exceeds it).
const Node *variance(Graph &g, const Node *a, const std::optional<std::vector<int64_t>> &axes, bool keepdims,
                     const Expr &ddof, BroadcastMode mode);
/// np.std: the square root of variance().
const Node *standardDeviation(Graph &g, const Node *a, const std::optional<std::vector<int64_t>> &axes, bool keepdims,
                              const Expr &ddof, BroadcastMode mode);
/// np.ptp(a, axis, keepdims): max - min.
const Node *ptp(Graph &g, const Node *a, const std::optional<std::vector<int64_t>> &axes, bool keepdims,
                BroadcastMode mode);
/// sum, prod, max, min, all, any or mean (op) of x with NumPy's where= (a bool array that
/// broadcasts to x: only its true elements are reduced) and initial= (a 0-d value cast to the
/// result's dtype, and the result where nothing is reduced: max and min of an empty selection
/// need it). Either may be null. The plain reduction where both are.
const Node *reduceWhere(Graph &g, const std::string &op, const Node *x, const std::optional<std::vector<int64_t>> &axes,
                        bool keepdims, const Node *where, const Node *initial, BroadcastMode mode);
/// np.linalg.norm(x, ord=None, axis, keepdims): sqrt(sum(x * x)) over the axes (all when
/// nullopt; at most two), integers and bools as float64 first.
const Node *norm(Graph &g, const Node *x, const std::optional<std::vector<int64_t>> &axes, bool keepdims,
                 BroadcastMode mode);
// ---- np.linalg's factorizations and what is built on them (ops/LinalgComposites.cpp) --------

/// What is wrong with qr's mode (NumPy's message; 'raw' is not supported), or UPLO; nullopt
/// when nothing is (a binder's caret goes on the argument).
std::optional<std::string> qrModeProblem(const std::string &mode);
std::optional<std::string> uploProblem(const std::string &uplo);
/// np.linalg.qr(a, mode): {q, r} for 'reduced' and 'complete', {r} for 'r' (Graph::blockwise's
/// qr_q, qr_r). 'raw' is refused; any other mode is NumPy's "Unrecognized mode".
std::vector<const Node *> qr(Graph &g, const Node *a, const std::string &mode);
/// np.linalg.eigh(a, UPLO): {w, v} (ascending eigenvalues, eigenvectors as columns), or {w}
/// without `vectors` (eigvalsh). One triangle of a is read (UPLO 'L' or 'U').
std::vector<const Node *> eigh(Graph &g, const Node *a, const std::string &uplo, bool vectors);
/// np.linalg.svd(a, full_matrices, compute_uv, hermitian): {u, s, vh}, or {s} without
/// compute_uv; hermitian builds them from eigh as NumPy does.
std::vector<const Node *> svd(Graph &g, const Node *a, bool full, bool computeUv, bool hermitian, BroadcastMode mode);
/// np.linalg.pinv(a, rcond, hermitian): from svd, singular values above rcond * max inverted.
/// `rcond` broadcasts against a's batch.
const Node *pinv(Graph &g, const Node *a, const Node *rcond, bool hermitian, BroadcastMode mode);
/// np.linalg.lstsq(a, b, rcond): {x, residuals, rank, s}. a is 2-d, b 1-d or 2-d with a's rows
/// (else "Incompatible dimensions"); rcond nullopt is NumPy's None (eps * max(m, n)), negative
/// the dtype's eps. The residuals exist where the rank is n and m > n: a data-dependent length.
std::vector<const Node *> lstsq(Graph &g, const Node *a, const Node *b, std::optional<double> rcond, BroadcastMode mode);
/// np.linalg.matrix_rank(A, tol, hermitian): the singular values above tol (by default
/// max(s) * max(M, N) * eps) counted; int(not all(A == 0)) for fewer than 2 dimensions.
const Node *matrixRank(Graph &g, const Node *a, const Node *tol, bool hermitian, BroadcastMode mode);
/// np.linalg.norm's orders 2, -2 and 'nuc' over the axes (row, col), normalised: max, min or
/// sum (op) of the singular values, the two axes dropped.
const Node *singularValueNorm(Graph &g, const Node *x, int64_t row, int64_t col, const std::string &op);

/// np.dot(a, b): a product when either is 0-d, else matmul where NumPy's dot is one (at most
/// two dimensions each, or b 1-d); a stack times a stack is refused.
const Node *dot(Graph &g, const Node *a, const Node *b, BroadcastMode mode);

} // namespace shapelab::ops
