#include "interp/Optimized.h"
#include "interp/Threads.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "interp/Kernels.h"
#include "interp/simd/VectorMath.h"

namespace shapelab::interp {

using ops::Node;
using ops::OpKind;
using Dims = std::vector<int64_t>;

namespace {

enum class Code : uint8_t {
  Math,                                                   // simd::MathOp
  Sqrt, Abs, Negative, Floor, Ceil, Sign,                 // unary, exact
  Add, Sub, Mul, Div, Max, Min, Scalar,                   // binary (Scalar: Kernels' rule per element)
  SinCos,                                                 // sin into dst, cos into dst2, of a
  Libm,                                                   // a C library function per element (fn)
};

struct Instr {
  Code code;
  simd::MathOp math = simd::MathOp::Exp;
  double (*fn)(double) = nullptr;
  Bin bin = Bin::Add;
  int dst = 0, a = 0, b = 0, dst2 = -1;
};

/// sin(r) and cos(r) of the same register become one SinCos instruction (one argument
/// reduction for both), placed where the first of them was: its operand is ready there, and
/// registers are written once, so the later one's result is only computed earlier. The last
/// instruction (the loop's output, written to memory) is left alone.
std::size_t fuseSinCos(std::vector<Instr> &program) {
  std::size_t pairs = 0;
  auto isTrig = [](const Instr &in, simd::MathOp op) { return in.code == Code::Math && in.math == op; };
  for (std::size_t k = 0; k + 1 < program.size(); ++k) {
    bool sin = isTrig(program[k], simd::MathOp::Sin);
    if (!sin && !isTrig(program[k], simd::MathOp::Cos)) continue;
    simd::MathOp other = sin ? simd::MathOp::Cos : simd::MathOp::Sin;
    for (std::size_t j = k + 1; j + 1 < program.size(); ++j)
      if (isTrig(program[j], other) && program[j].a == program[k].a) {
        Instr fused = program[k];
        fused.code = Code::SinCos;
        fused.dst = sin ? program[k].dst : program[j].dst;
        fused.dst2 = sin ? program[j].dst : program[k].dst;
        program[k] = fused;
        program.erase(program.begin() + std::ptrdiff_t(j));
        ++pairs;
        break;
      }
  }
  return pairs;
}

// The ufunc list's Vector rows are simd::MathOp's, in its order.
static_assert(int(ops::Un::Tanh) - int(ops::Un::Exp) + 1 == simd::kMathOps);
simd::MathOp mathOp(ops::Un u) { return simd::MathOp(int(u) - int(ops::Un::Exp)); }
ops::Un unaryOf(simd::MathOp m) { return ops::Un(int(ops::Un::Exp) + int(m)); }

Instr instrFor(const Node *n) {
  Instr i{Code::Math};
  if (n->kind == OpKind::Unary) {
    // The loop column of the ufunc list (ops/Ufuncs.def).
    const ops::Un u = ops::unaryCode(n->op);
    switch (ops::loopOf(u)) {
    case ops::UfuncLoop::Vector: i.math = mathOp(u); return i;
    case ops::UfuncLoop::Arith:
      switch (u) {
      case ops::Un::Sqrt: i.code = Code::Sqrt; return i;
      case ops::Un::Abs: i.code = Code::Abs; return i;
      case ops::Un::Negative: i.code = Code::Negative; return i;
      case ops::Un::Floor: i.code = Code::Floor; return i;
      case ops::Un::Ceil: i.code = Code::Ceil; return i;
      default: break;
      }
      break;
    case ops::UfuncLoop::Libm: i.code = Code::Libm, i.fn = libmFunction<double>(u); return i;
    case ops::UfuncLoop::Own:
      if (u == ops::Un::Sign) return i.code = Code::Sign, i;
      if (u == ops::Un::Square) return i.code = Code::Mul, i;
      break;
    case ops::UfuncLoop::Test: break;
    }
    throw InternalError("no fused instruction for the elementwise function " + n->op);
  }
  i.bin = binCode(n->op);
  switch (i.bin) {
  case Bin::Add: i.code = Code::Add; break;
  case Bin::Sub: i.code = Code::Sub; break;
  case Bin::Mul: i.code = Code::Mul; break;
  case Bin::Div: i.code = Code::Div; break;
  case Bin::Max: i.code = Code::Max; break;
  case Bin::Min: i.code = Code::Min; break;
  default: i.code = Code::Scalar; break;
  }
  return i;
}

void execute(const Instr &in, const double *a, const double *b, double *d, int64_t n, bool libm) {
  using simd::Arith;
  switch (in.code) {
  case Code::Math:
    if (libm) {
      const ops::Un u = unaryOf(in.math);
      for (int64_t k = 0; k < n; ++k) d[k] = unaryValue<double>(u, a[k]);
      return;
    }
    simd::apply(in.math, a, d, n);
    return;
  case Code::Sqrt: simd::arith(Arith::Sqrt, a, a, d, n); return;
  case Code::Abs: simd::arith(Arith::Abs, a, a, d, n); return;
  case Code::Negative: simd::arith(Arith::Negative, a, a, d, n); return;
  case Code::Floor: simd::arith(Arith::Floor, a, a, d, n); return;
  case Code::Ceil: simd::arith(Arith::Ceil, a, a, d, n); return;
  case Code::Sign: for (int64_t k = 0; k < n; ++k) d[k] = floatSign(a[k]); return;
  case Code::Add: simd::arith(Arith::Add, a, b, d, n); return;
  case Code::Sub: simd::arith(Arith::Sub, a, b, d, n); return;
  case Code::Mul: simd::arith(a == b ? Arith::Square : Arith::Mul, a, b, d, n); return;
  case Code::Div: simd::arith(Arith::Div, a, b, d, n); return;
  case Code::Max: simd::arith(Arith::Max, a, b, d, n); return;
  case Code::Min: simd::arith(Arith::Min, a, b, d, n); return;
  case Code::Scalar: for (int64_t k = 0; k < n; ++k) d[k] = arithmetic<double>(in.bin, a[k], b[k]); return;
  case Code::Libm: for (int64_t k = 0; k < n; ++k) d[k] = in.fn(a[k]); return;
  case Code::SinCos: break; // two outputs: the loop runs it (runSinCos)
  }
  throw InternalError("a SinCos instruction reached the one-output executor");
}

void runSinCos(const double *a, double *s, double *c, int64_t n, bool libm) {
  if (libm) {
    for (int64_t k = 0; k < n; ++k) s[k] = unaryValue<double>(ops::Un::Sin, a[k]), c[k] = unaryValue<double>(ops::Un::Cos, a[k]);
    return;
  }
  simd::sincos(a, s, c, n);
}

/// Reads elements [start, start + count) (C order over `shape`) of a float64 array viewed with
/// `strides` (0 on broadcast dims) into `out`.
void gather(const double *base, int64_t offset, const Dims &shape, const Dims &strides, int64_t start, int64_t count,
            double *out) {
  std::size_t r = shape.size();
  if (r == 0) {
    std::fill(out, out + count, base[offset]);
    return;
  }
  Dims idx(r);
  int64_t off = offset, rest = start;
  for (std::size_t i = r; i-- > 0;) {
    idx[i] = rest % shape[i];
    rest /= shape[i];
    off += idx[i] * strides[i];
  }
  int64_t last = shape[r - 1], step = strides[r - 1];
  for (int64_t k = 0; k < count;) {
    int64_t run = std::min(count - k, last - idx[r - 1]);
    if (step == 0) std::fill(out + k, out + k + run, base[off]);
    else
      for (int64_t j = 0; j < run; ++j) out[k + j] = base[off + j * step];
    k += run;
    off += run * step;
    idx[r - 1] += run;
    // Carry into the outer dimensions.
    for (std::size_t i = r - 1; i > 0 && idx[i] == shape[i]; --i) {
      off -= idx[i] * strides[i];
      idx[i] = 0;
      ++idx[i - 1];
      off += strides[i - 1];
    }
  }
}

} // namespace

bool fusable(const Node *n) {
  if (n->dtype != DType::Float64) return false;
  if (n->kind == OpKind::Unary) return n->op != "invert";
  if (n->kind != OpKind::Binary) return false;
  Bin b = binCode(n->op);
  return !ops::isComparison(b) && b != Bin::And && b != Bin::Or;
}

struct OptimizedInterpreter::Cluster {
  const Node *root = nullptr;
  std::vector<const Node *> members; // operands before users; root last
  std::vector<const Node *> leaves;  // values read from memory
  /// Leaves and members interleaved in the reference's evaluation order (post-order from the
  /// left): a member's shape is checked right after its last operand exists, as the reference
  /// would raise its shape error before reading the leaves that come after it.
  std::vector<const Node *> order;
};

OptimizedInterpreter::OptimizedInterpreter(const ops::Graph &graph, Assignment params,
                                           std::map<std::string, Array> inputs, InterpreterOptions options)
    : graph_(graph), ref_(graph, std::move(params), std::move(inputs), [&] {
        options.debugChecks = false;
        return options;
      }()),
      threads_(std::max(1u, std::thread::hardware_concurrency())) {
  if (const char *t = std::getenv("SHAPELAB_THREADS")) threads_ = unsigned(std::max(1, std::atoi(t)));
}

std::optional<Array> OptimizedInterpreter::view(const Node *n) {
  if (!ops::hasTrait(n->kind, ops::trait::View)) return std::nullopt; // the op list's view kinds
  auto dim = [&](const Expr &e) {
    std::optional<Integer> v = shapelab::evaluate(e, ref_.point());
    return v && v->fitsInt64() ? std::optional<int64_t>(v->toInt64Checked()) : std::nullopt;
  };
  const Array *xp = ref_.find(n->inputs.empty() ? nullptr : n->inputs[0]);
  if (!xp) return std::nullopt;
  const Array &x = *xp;
  if (x.dtype() != n->dtype) return std::nullopt;
  switch (n->kind) {
  case OpKind::Transpose: return x.transposed(n->attr<ops::attr::Permutation>().axes);
  case OpKind::Index:
  case OpKind::Split: {
    // Basic indexing (integers, slices, None) and split's pieces: a strided view of x. Anything
    // the reference would refuse (an index out of bounds, an unequal split) is left to it.
    if (n->inputs.size() != 1) return std::nullopt;
    if (n->kind == OpKind::Split) {
      const ops::attr::Sections &part = n->attr<ops::attr::Sections>();
      if (x.shape()[std::size_t(part.axis)] % part.sections != 0) return std::nullopt;
    }
    Dims shape, strides;
    int64_t offset = x.offset();
    std::size_t axis = 0;
    for (const ops::IndexEntry &e : n->index) {
      if (e.kind == ops::IndexEntry::NewAxis) {
        shape.push_back(1), strides.push_back(0);
        continue;
      }
      if (e.kind == ops::IndexEntry::Array || axis >= x.rank()) return std::nullopt;
      int64_t L = x.shape()[axis], stride = x.strides()[axis];
      if (e.kind == ops::IndexEntry::Integer) {
        auto i = dim(*e.start);
        if (!i || *i < -L || *i >= L) return std::nullopt;
        offset += (*i < 0 ? *i + L : *i) * stride;
      } else {
        std::optional<int64_t> start, stop;
        if (e.start && !(start = dim(*e.start))) return std::nullopt;
        if (e.stop && !(stop = dim(*e.stop))) return std::nullopt;
        SliceBounds b = sliceBounds(L, start, stop, e.step);
        if (b.length > 0) offset += b.start * stride;
        shape.push_back(b.length), strides.push_back(e.step * stride);
      }
      ++axis;
    }
    if (axis != x.rank()) return std::nullopt;
    return x.view(offset, shape, strides);
  }
  case OpKind::BroadcastTo: {
    if (n->mode == BroadcastMode::Static) return std::nullopt;
    Dims target;
    for (const Expr &e : n->exprs) {
      auto d = dim(e);
      if (!d || *d < 0) return std::nullopt;
      target.push_back(*d);
    }
    if (target.size() < x.rank()) return std::nullopt;
    for (std::size_t i = 0; i < x.rank(); ++i) {
      int64_t s = x.shape()[i], t = target[target.size() - x.rank() + i];
      if (s != t && s != 1) return std::nullopt; // the reference raises the error
    }
    return x.broadcastTo(target);
  }
  case OpKind::Squeeze: {
    const std::vector<int64_t> &dropped = n->attr<ops::attr::Dropped>().axes;
    Dims shape, strides;
    for (std::size_t i = 0; i < x.rank(); ++i) {
      const bool drop = std::find(dropped.begin(), dropped.end(), int64_t(i)) != dropped.end();
      if (drop && x.shape()[i] != 1) return std::nullopt;
      if (!drop) shape.push_back(x.shape()[i]), strides.push_back(x.strides()[i]);
    }
    return x.view(x.offset(), shape, strides);
  }
  case OpKind::ExpandDims: {
    const std::vector<int64_t> &added = n->attr<ops::attr::NewAxes>().axes;
    Dims shape, strides;
    std::size_t j = 0;
    for (std::size_t i = 0; i < x.rank() + added.size(); ++i) {
      if (std::find(added.begin(), added.end(), int64_t(i)) != added.end()) shape.push_back(1), strides.push_back(0);
      else shape.push_back(x.shape()[j]), strides.push_back(x.strides()[j]), ++j;
    }
    return x.view(x.offset(), shape, strides);
  }
  case OpKind::Reshape: {
    if (!x.isContiguous()) return std::nullopt;
    Dims shape;
    int64_t count = 1;
    for (const Expr &e : n->exprs) {
      auto d = dim(e);
      if (!d || *d < 0) return std::nullopt;
      shape.push_back(*d);
      if (__builtin_mul_overflow(count, *d, &count)) return std::nullopt;
    }
    if (count != x.size()) return std::nullopt;
    Dims strides(shape.size());
    int64_t s = 1;
    for (std::size_t i = shape.size(); i-- > 0;) strides[i] = s, s *= std::max<int64_t>(shape[i], 1);
    return x.view(x.offset(), shape, strides);
  }
  default: return std::nullopt;
  }
}

Array OptimizedInterpreter::runCluster(const Cluster &c, const Node *requested, const Dims &outShape) {
  int64_t total = checkedCount(outShape);
  // Registers: leaves, then members; the leaves as float64 arrays broadcast to the output.
  std::unordered_map<const Node *, int> reg;
  std::vector<Array> leafArrays;
  for (const Node *l : c.leaves) {
    reg[l] = int(leafArrays.size());
    const Array &v = *ref_.find(l);
    leafArrays.push_back((v.dtype() == DType::Float64 ? v : v.astype(DType::Float64)).broadcastTo(outShape));
  }
  int registers = int(leafArrays.size());
  std::vector<Instr> program;
  for (const Node *m : c.members) {
    Instr in = instrFor(m);
    in.a = reg.at(m->inputs[0]);
    in.b = m->inputs.size() > 1 ? reg.at(m->inputs[1]) : in.a;
    if (powerIsSquare(m)) in.code = Code::Mul, in.b = in.a;
    in.dst = reg[m] = registers++;
    program.push_back(in);
  }
  stats_.sinCos += fuseSinCos(program);
  // The output: an operand's buffer when it is dead after this loop and owned by nobody else.
  Array out;
  bool inPlace = false;
  for (std::size_t i = 0; i < c.leaves.size() && !inPlace; ++i) {
    const Node *l = c.leaves[i];
    const Array *v = ref_.find(l);
    bool fresh = l->kind != OpKind::Input && l->kind != OpKind::Scalar && l != requested && fusedOrFresh_.count(l);
    if (fresh && uses_[l] == 1 && v->dtype() == DType::Float64 && v->isContiguous() && v->shape() == outShape &&
        v->bufferUses() == 1) {
      out = *v;
      inPlace = true;
    }
  }
  if (!inPlace) out = Array::uninitialized(DType::Float64, outShape);
  else ++stats_.inPlace;
  double *dst = out.base<double>() + out.offset();
  std::vector<bool> direct(leafArrays.size());
  for (std::size_t i = 0; i < leafArrays.size(); ++i)
    direct[i] = leafArrays[i].isContiguous() && leafArrays[i].shape() == outShape;
  std::vector<bool> constant(leafArrays.size());
  for (std::size_t i = 0; i < leafArrays.size(); ++i)
    constant[i] = std::all_of(leafArrays[i].strides().begin(), leafArrays[i].strides().end(), [](int64_t s) { return s == 0; });
  // Work is handed out in chunks from a shared counter, not split in equal halves up front: a
  // core that is slowed (another process, a busy hypervisor) then takes fewer chunks instead of
  // holding up the result. An element's value does not depend on the thread or the block that
  // computes it (every operation is elementwise; the vector functions work lane by lane, a short
  // block's tail padded), so any thread count gives the same bits.
  const int64_t block = geometry_.block, chunk = block * geometry_.blocksPerChunk, chunks = (total + chunk - 1) / chunk;
  std::atomic<int64_t> nextChunk{0};
  auto worker = [&] {
    std::vector<double> buffers(static_cast<std::size_t>(registers * block));
    std::vector<const double *> ptr(static_cast<std::size_t>(registers));
    // A broadcast scalar fills its register once.
    for (std::size_t i = 0; i < leafArrays.size(); ++i)
      if (constant[i] && !direct[i]) {
        const Array &a = leafArrays[i];
        std::fill(&buffers[i * block], &buffers[i * block] + block, a.base<double>()[a.offset()]);
        ptr[i] = &buffers[i * block];
      }
    for (int64_t claimed = nextChunk++; claimed < chunks; claimed = nextChunk++) {
      for (int64_t s = claimed * chunk, to = std::min(total, s + chunk); s < to; s += block) {
        int64_t n = std::min(block, to - s);
        for (std::size_t i = 0; i < leafArrays.size(); ++i) {
          const Array &a = leafArrays[i];
          if (constant[i] && !direct[i]) continue;
          if (direct[i]) {
            ptr[i] = a.base<double>() + a.offset() + s;
          } else {
            gather(a.base<double>(), a.offset(), a.shape(), a.strides(), s, n, &buffers[i * block]);
            ptr[i] = &buffers[i * block];
          }
        }
        for (std::size_t k = 0; k < program.size(); ++k) {
          const Instr &in = program[k];
          if (in.code == Code::SinCos) {
            double *ds = &buffers[std::size_t(in.dst) * block], *dc = &buffers[std::size_t(in.dst2) * block];
            runSinCos(ptr[std::size_t(in.a)], ds, dc, n, libmMath_);
            ptr[std::size_t(in.dst)] = ds, ptr[std::size_t(in.dst2)] = dc;
            continue;
          }
          double *d = k + 1 == program.size() ? dst + s : &buffers[std::size_t(in.dst) * block];
          execute(in, ptr[std::size_t(in.a)], ptr[std::size_t(in.b)], d, n, libmMath_);
          ptr[std::size_t(in.dst)] = d;
        }
      }
    }
  };
  // A thread that fails (no memory for its registers) stops the others at their next claim and
  // its exception reaches the caller; a thread that cannot be started leaves its chunks to the
  // rest.
  unsigned threads = total >= geometry_.parallelFrom ? unsigned(std::min<int64_t>(threads_, chunks)) : 1;
  runOnThreads(threads, worker, [&] { nextChunk = chunks; });
  ++stats_.fusedLoops;
  stats_.fusedNodes += c.members.size();
  return out;
}

Array OptimizedInterpreter::evaluate(const Node *node) {
  std::variant<Array, EvalError> r = attempt(node);
  if (auto *e = std::get_if<EvalError>(&r)) throw *e;
  return std::get<Array>(std::move(r));
}

std::variant<Array, EvalError> OptimizedInterpreter::attempt(const Node *node) {
  // Uses of each node among what `node` needs (what each node reads before it runs, as the
  // reference: an ifelse's branches are the reference's).
  uses_.clear();
  {
    std::vector<const Node *> stack{node};
    std::unordered_set<const Node *> seen;
    while (!stack.empty()) {
      const Node *n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second || ref_.find(n)) continue;
      for (const Node *i : graph_.readsBefore(n)) {
        ++uses_[i];
        stack.push_back(i);
      }
    }
  }
  // Fused nodes read by exactly one fused op (not the requested node) live inside its loop.
  auto absorbed = [&](const Node *n) { return n != node && fusable(n) && uses_[n] == 1 && !ref_.find(n); };
  auto clusterOf = [&](const Node *root) {
    // Post-order from the left, as the reference evaluates: leaves in the order it reads them.
    Cluster c;
    c.root = root;
    struct Item {
      const Node *n;
      bool leaf, expanded;
    };
    std::vector<Item> stack{{root, false, false}};
    std::unordered_set<const Node *> seen;
    while (!stack.empty()) {
      Item it = stack.back();
      stack.pop_back();
      if (it.leaf) {
        if (std::find(c.leaves.begin(), c.leaves.end(), it.n) == c.leaves.end())
          c.leaves.push_back(it.n), c.order.push_back(it.n);
        continue;
      }
      if (it.expanded) {
        c.members.push_back(it.n);
        c.order.push_back(it.n);
        continue;
      }
      if (!seen.insert(it.n).second) continue;
      stack.push_back({it.n, false, true});
      for (auto in = it.n->inputs.rbegin(); in != it.n->inputs.rend(); ++in)
        stack.push_back({*in, !(absorbed(*in) && fusable(it.n)), false});
    }
    return c;
  };
  std::unordered_map<const Node *, Cluster> clusters;
  auto children = [&](const Node *n) -> std::vector<const Node *> {
    if (fusable(n)) {
      auto it = clusters.find(n);
      if (it == clusters.end()) it = clusters.emplace(n, clusterOf(n)).first;
      return it->second.leaves;
    }
    return graph_.readsBefore(n);
  };
  struct Step {
    const Node *n;
    bool expanded;
    bool check = false; // a cluster member's shape check (its operands exist by now): the
                        // reference's rule and error, and the shape the loop then computes
  };
  std::unordered_map<const Node *, Dims> memberShapes;
  auto shapeOf = [&](const Node *i) -> const Dims & {
    auto it = memberShapes.find(i);
    return it != memberShapes.end() ? it->second : ref_.find(i)->shape();
  };
  std::vector<Step> stack{{node, false}};
  while (!stack.empty()) {
    auto [n, expanded, check] = stack.back();
    if (check) {
      stack.pop_back();
      std::vector<Dims> operands;
      for (const Node *i : n->inputs) operands.push_back(shapeOf(i));
      try {
        memberShapes[n] = elementwiseShape(n, operands);
      } catch (const EvalError &e) {
        return EvalError(e.kind, ref_.nameOf(n) + ": " + e.what());
      }
      continue;
    }
    if (ref_.find(n)) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().expanded = true;
      // Operands in the reference's order (the first error raised is the same one); in a
      // cluster, each member's shape is checked where the reference would compute it.
      if (fusable(n)) {
        children(n);
        const Cluster &c = clusters.at(n);
        for (auto it = c.order.rbegin(); it != c.order.rend(); ++it) {
          bool member = std::find(c.members.begin(), c.members.end(), *it) != c.members.end();
          if (member) stack.push_back({*it, false, true});
          else if (!ref_.find(*it)) stack.push_back({*it, false});
        }
        continue;
      }
      std::vector<const Node *> cs = children(n);
      for (auto it = cs.rbegin(); it != cs.rend(); ++it)
        if (!ref_.find(*it)) stack.push_back({*it, false});
      continue;
    }
    stack.pop_back();
    std::vector<const Node *> read = children(n);
    if (fusable(n)) {
      Array v = runCluster(clusters.at(n), node, memberShapes.at(n));
      ref_.provide(n, std::move(v));
      fusedOrFresh_.insert(n);
    } else if (std::optional<Array> v = view(n)) {
      ref_.provide(n, std::move(*v));
      views_.insert(n);
      ++stats_.views;
    } else {
      // The reference kernels read operands they made themselves (C-contiguous): a view is
      // copied into that layout first.
      for (const Node *i : n->inputs)
        if (views_.count(i) && ref_.find(i)) {
          ref_.provide(i, ref_.find(i)->contiguous());
          views_.erase(i);
        }
      if (std::variant<Array, EvalError> r = ref_.attempt(n); std::holds_alternative<EvalError>(r))
        return std::get<EvalError>(std::move(r));
      ++stats_.delegated;
      if (ops::hasTrait(n->kind, ops::trait::FreshResult)) fusedOrFresh_.insert(n);
    }
    // Liveness: a value nobody else reads is dropped (its buffer freed or reused).
    for (const Node *c : read)
      if (--uses_[c] == 0 && c != node) {
        ref_.forget(c);
        views_.erase(c);
        fusedOrFresh_.erase(c);
      }
  }
  return *ref_.find(node);
}

} // namespace shapelab::interp
