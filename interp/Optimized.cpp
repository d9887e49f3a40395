#include "interp/Optimized.h"
#include "interp/Interrupt.h"
#include "interp/Threads.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <span>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "interp/FusedLoop.h"
#include "interp/Kernels.h"
#include "interp/simd/VectorMath.h"

namespace shapelab::interp {

using ops::Node;
using ops::OpKind;
using Dims = std::vector<int64_t>;

using namespace fused;

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
  std::vector<std::pair<const Node *, bool>> order; // (node, is a member)
};

OptimizedInterpreter::OptimizedInterpreter(const ops::Graph &graph, Assignment params,
                                           std::map<std::string, Array> inputs, InterpreterOptions options)
    : graph_(graph), ref_(graph, std::move(params), std::move(inputs), [&] {
        options.debugChecks = false;
        return options;
      }()),
      threads_([] {
        // Read once per process: the C library reads the online cores from /sys at each call.
        static const unsigned cores = [] {
          if (const char *t = std::getenv("SHAPELAB_THREADS")) return unsigned(std::max(1, std::atoi(t)));
          return std::max(1u, std::thread::hardware_concurrency());
        }();
        return cores;
      }()) {}

Array OptimizedInterpreter::runCluster(const Cluster &c, const Node *requested, const Dims &outShape) {
  int64_t total = checkedCount(outShape);
  // Registers: leaves, then members.
  std::unordered_map<const Node *, int> reg;
  reg.reserve(c.leaves.size() + c.members.size());
  int registers = 0;
  for (const Node *l : c.leaves) reg[l] = registers++;
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
  ++stats_.fusedLoops;
  stats_.fusedNodes += c.members.size();
  if (scalarCode_ && total == 1) {
    // Scalar code: each leaf's one element, the instructions on one register each.
    ++stats_.scalarLoops;
    double small[64];
    std::vector<double> large;
    double *r = registers <= 64 ? small : (large.resize(std::size_t(registers)), large.data());
    for (std::size_t i = 0; i < c.leaves.size(); ++i) {
      const Array &v = *ref_.find(c.leaves[i]);
      r[i] = v.dtype() == DType::Float64 ? v.base<double>()[v.offset()] : v.astype(DType::Float64).at<double>(0);
    }
    for (const Instr &in : program) {
      if (in.code == Code::SinCos) runSinCos(r + in.a, r + in.dst, r + in.dst2, 1, libmMath_);
      else execute(in, r + in.a, r + in.b, r + in.dst, 1, libmMath_);
    }
    Array out = Array::uninitialized(DType::Float64, outShape);
    out.base<double>()[0] = r[program.back().dst];
    return out;
  }
  // The output: an operand's buffer when it is dead after this loop and owned by nobody else
  // (chosen before the leaves' copies below share its buffer).
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
  // The leaves as float64 arrays broadcast to the output.
  std::vector<Array> leafArrays;
  for (const Node *l : c.leaves) {
    const Array &v = *ref_.find(l);
    leafArrays.push_back((v.dtype() == DType::Float64 ? v : v.astype(DType::Float64)).broadcastTo(outShape));
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
  // Registers hold a block, or the whole loop when it is shorter (a small array's loop does not
  // allocate and clear 256 elements per register); their contents are written before being read.
  const int64_t width = std::max<int64_t>(1, std::min(block, total));
  auto worker = [&] {
    std::unique_ptr<double[]> buffers(new double[std::size_t(registers * width)]);
    std::vector<const double *> ptr(static_cast<std::size_t>(registers));
    // A broadcast scalar fills its register once.
    for (std::size_t i = 0; i < leafArrays.size(); ++i)
      if (constant[i] && !direct[i]) {
        const Array &a = leafArrays[i];
        std::fill(&buffers[i * width], &buffers[i * width] + width, a.base<double>()[a.offset()]);
        ptr[i] = &buffers[i * width];
      }
    for (int64_t claimed = nextChunk++; claimed < chunks; claimed = nextChunk++) {
      checkInterrupt();
      for (int64_t s = claimed * chunk, to = std::min(total, s + chunk); s < to; s += block) {
        int64_t n = std::min(block, to - s);
        for (std::size_t i = 0; i < leafArrays.size(); ++i) {
          const Array &a = leafArrays[i];
          if (constant[i] && !direct[i]) continue;
          if (direct[i]) {
            ptr[i] = a.base<double>() + a.offset() + s;
          } else {
            gather(a.base<double>(), a.offset(), a.shape(), a.strides(), s, n, &buffers[i * width]);
            ptr[i] = &buffers[i * width];
          }
        }
        for (std::size_t k = 0; k < program.size(); ++k) {
          const Instr &in = program[k];
          if (in.code == Code::SinCos) {
            double *ds = &buffers[std::size_t(in.dst) * width], *dc = &buffers[std::size_t(in.dst2) * width];
            runSinCos(ptr[std::size_t(in.a)], ds, dc, n, libmMath_);
            ptr[std::size_t(in.dst)] = ds, ptr[std::size_t(in.dst2)] = dc;
            continue;
          }
          double *d = k + 1 == program.size() ? dst + s : &buffers[std::size_t(in.dst) * width];
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
    // A node is expanded when first met (entered in uses_), unless its value exists.
    std::vector<const Node *> stack{node}, scratch;
    uses_.try_emplace(node, 0);
    while (!stack.empty()) {
      const Node *n = stack.back();
      stack.pop_back();
      if (ref_.find(n)) continue;
      for (const Node *i : graph_.readsBefore(n, scratch)) {
        auto [it, first] = uses_.try_emplace(i, 0);
        ++it->second;
        if (first) stack.push_back(i);
      }
    }
  }
  // Fused nodes read by exactly one fused op (not the requested node) live inside its loop.
  auto absorbed = [&](const Node *n) { return fusion_ && n != node && fusable(n) && uses_[n] == 1 && !ref_.find(n); };
  auto clusterOf = [&](const Node *root) {
    // Post-order from the left, as the reference evaluates: leaves in the order it reads them.
    Cluster c;
    c.root = root;
    struct Item {
      const Node *n;
      bool leaf, expanded;
    };
    // Every member but the root is read once (absorbed), so none is met twice.
    std::vector<Item> stack{{root, false, false}};
    while (!stack.empty()) {
      Item it = stack.back();
      stack.pop_back();
      if (it.leaf) {
        if (std::find(c.leaves.begin(), c.leaves.end(), it.n) == c.leaves.end())
          c.leaves.push_back(it.n), c.order.push_back({it.n, false});
        continue;
      }
      if (it.expanded) {
        c.members.push_back(it.n);
        c.order.push_back({it.n, true});
        continue;
      }
      stack.push_back({it.n, false, true});
      for (auto in = it.n->inputs.rbegin(); in != it.n->inputs.rend(); ++in)
        stack.push_back({*in, !(absorbed(*in) && fusable(it.n)), false});
    }
    return c;
  };
  std::unordered_map<const Node *, Cluster> clusters;
  // What n reads: a cluster's leaves, or the node's reads (made in `scratch` where they are not
  // its operands).
  auto children = [&](const Node *n, std::vector<const Node *> &scratch) -> std::span<const Node *const> {
    if (fusable(n)) {
      auto it = clusters.find(n);
      if (it == clusters.end()) it = clusters.emplace(n, clusterOf(n)).first;
      return it->second.leaves;
    }
    return graph_.readsBefore(n, scratch);
  };
  std::vector<const Node *> expandScratch, readScratch;
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
        children(n, expandScratch);
        const Cluster &c = clusters.at(n);
        for (auto it = c.order.rbegin(); it != c.order.rend(); ++it) {
          if (it->second) stack.push_back({it->first, false, true});
          else if (!ref_.find(it->first)) stack.push_back({it->first, false});
        }
        continue;
      }
      std::span<const Node *const> cs = children(n, expandScratch);
      for (auto it = cs.rbegin(); it != cs.rend(); ++it)
        if (!ref_.find(*it)) stack.push_back({*it, false});
      continue;
    }
    stack.pop_back();
    std::span<const Node *const> read = children(n, readScratch);
    if (fusable(n)) {
      Array v = runCluster(clusters.at(n), node, memberShapes.at(n));
      ref_.provide(n, std::move(v));
      fusedOrFresh_.insert(n);
    } else if (std::optional<Array> v = viewsOn_ ? view(n) : std::nullopt) {
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
      // With views off, a view kind's copy is fresh when it shares no operand's buffer (a
      // reshape of a contiguous array may hand back its operand's).
      const Array &made = *ref_.find(n);
      const bool copied = !viewsOn_ && ops::hasTrait(n->kind, ops::trait::View) &&
                          std::none_of(n->inputs.begin(), n->inputs.end(), [&](const Node *i) {
                            const Array *v = ref_.find(i);
                            return v && made.sharesBuffer(*v);
                          });
      if (copied || ops::hasTrait(n->kind, ops::trait::FreshResult)) fusedOrFresh_.insert(n);
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
