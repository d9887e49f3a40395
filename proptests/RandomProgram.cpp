#include "proptests/RandomProgram.h"

#include "lang/Session.h"
#include "ops/Graph.h"

namespace shapelab::proptests {

namespace {
struct Var {
  std::string name;
  std::size_t rank;
  ops::DType dtype;
};
} // namespace

GeneratedProgram generateProgram(lang::Session &session, std::mt19937_64 &rng, int count, ProgramOptions options) {
  GeneratedProgram out;
  std::vector<Var> vars;
  int line = 0;
  auto run = [&](const std::string &text) {
    lang::Reply r = session.execute(text, ++line);
    if (r.failed) return false;
    out.lines.push_back(text);
    return true;
  };
  auto pick = [&](std::size_t n) { return std::size_t(rng() % n); };
  // Names stay fresh when the session already holds a program (a second call extends it).
  const std::string prefix = session.nodeCount() ? "g" + std::to_string(session.nodeCount()) + "_" : "";
  if (!session.nodeCount()) run("param n, m");
  const char *inputs[][2] = {{"(n, m)", "float64"}, {"(m,)", "float64"}, {"(n, 1)", "float64"},
                             {"(1, m)", "int32"},   {"(3,)", "int64"},    {"(n,)", "float32"}};
  for (int i = 0; i < 6; ++i) {
    std::string name = prefix + "in" + std::to_string(i);
    std::string shape = inputs[i][0];
    if (options.independentSizes) {
      // n and m of this input renamed to sizes of its own: (n, m) is (in0_n, in0_m).
      std::string own;
      std::vector<std::string> params;
      for (char c : shape) {
        if (c == 'n' || c == 'm') {
          params.push_back(name + "_" + c);
          own += params.back();
        } else {
          own += c;
        }
      }
      if (!params.empty()) {
        std::string declare = "param ";
        for (std::size_t k = 0; k < params.size(); ++k) declare += (k ? ", " : "") + params[k];
        run(declare);
      }
      shape = own;
    }
    if (run(name + " = input(" + shape + ", " + inputs[i][1] + ")")) {
      const ops::Node *node = session.lookup(name);
      vars.push_back({name, node->rank(), node->dtype});
      out.names.push_back(name);
    }
  }
  static const char *unary[] = {"exp", "abs", "negative", "sqrt", "floor", "tanh"};
  static const char *binary[] = {"+", "-", "*", "/", "//", "%", "maximum", "minimum", "<", "=="};
  static const char *reductions[] = {"sum", "max", "min", "mean", "prod", "any"};
  static const char *bounds[] = {"", "1", "-1", "n", "m", "n - 1", "2", "-n"};
  for (int attempt = 0; !vars.empty() && int(out.names.size()) - 6 < count && attempt < count * 20; ++attempt) {
    // Operands uniformly among the names so far: a random DAG whose depth grows like log(count)
    // (a chain would nest every shape rule in the last one's).
    const Var &a = vars[pick(vars.size())];
    // Without partial ops, the second operand is one that broadcasts with `a` for every size
    // (its dims equal a's or 1, position by position): no piecewise result shapes.
    std::size_t bi = pick(vars.size());
    if (!options.partialOps) {
      auto compatible = [&](const Var &x, const Var &y) {
        const Shape &s = session.lookup(x.name)->shape, &t = session.lookup(y.name)->shape;
        for (std::size_t i = 1; i <= std::min(s.size(), t.size()); ++i) {
          const Expr &p = s[s.size() - i], &q = t[t.size() - i];
          if (p != q && p != Expr(1) && q != Expr(1)) return false;
        }
        return true;
      };
      std::size_t tries = 0;
      while (!compatible(a, vars[bi]) && ++tries < 16) bi = pick(vars.size());
      if (!compatible(a, vars[bi])) bi = std::size_t(&a - vars.data());
    }
    const Var &b = vars[bi];
    std::string e;
    static const int basic[] = {0, 1, 2, 3, 4, 5, 6, 8}, layout[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10};
    int kind = options.basicOnly ? (options.layoutOps ? layout[pick(10)] : basic[pick(8)]) : int(pick(35));
    if (!options.basicOnly && options.practitioner && pick(9) == 0) kind = 35;
    if (!options.dataDependent && (kind == 14 || kind == 15)) continue; // masks, ifelse
    switch (kind) {
    case 0: case 1: e = std::string(unary[pick(6)]) + "(" + a.name + ")"; break;
    case 2: case 3: case 4: {
      std::string op = binary[pick(10)];
      e = op[0] >= 'a' ? op + "(" + a.name + ", " + b.name + ")" : a.name + " " + op + " " + b.name;
      break;
    }
    case 5:
      e = std::string(reductions[pick(6)]) + "(" + a.name + (a.rank && pick(3) ? ", axis=" + std::to_string(int(pick(a.rank)) - int(pick(2) * a.rank)) : "") +
          (pick(2) ? ", keepdims=True" : "") + ")";
      break;
    case 6: {
      // A written -1, or entries computed from sizes that may be negative (NumPy infers any
      // negative entry): the shape is then piecewise, and two negative entries are an error.
      static const char *targets[] = {"(-1,)", "(-1,)", "(n - m,)", "(2, m - n)", "(-n, 1)", "(m - 2, -n)", "(-2,)"};
      // (The basic mix, the benchmarks' programs, keeps the written -1 alone.)
      e = "reshape(" + a.name + ", " + (options.basicOnly ? "(-1,)" : targets[pick(7)]) + ")";
      break;
    }
    case 7: e = "transpose(" + a.name + ")"; break;
    case 8: {
      if (!a.rank) continue;
      std::string s = std::string(bounds[pick(8)]) + ":" + bounds[pick(8)];
      if (pick(3) == 0) s += pick(2) ? ":2" : ":-1";
      e = a.name + "[" + s + "]";
      break;
    }
    case 9: e = a.rank ? a.name + "[" + std::string(pick(2) ? "0" : "-1") + "]" : a.name + "[None]"; break;
    case 10: e = "expand_dims(" + a.name + ", 0)"; break;
    case 11: e = a.rank ? "concatenate([" + a.name + ", " + a.name + "], axis=" + std::to_string(pick(a.rank)) + ")" : "stack([" + a.name + ", " + b.name + "])"; break;
    case 12:
      if (a.rank == 2 && b.rank >= 1) e = a.name + " @ " + (pick(2) ? b.name : "transpose(" + a.name + ")");
      else if (a.rank) e = pick(2) ? "cumsum(" + a.name + ", axis=0)" : "diff(" + a.name + ", axis=0)";
      else continue;
      break;
    case 13: e = "where(" + a.name + " > 0, " + a.name + ", " + b.name + ")"; break;
    case 14:
      // A mask of the array itself, or of another one, whose shape must then match the axes it
      // indexes (or the op is refused: a mask of higher rank).
      e = a.rank ? a.name + "[" + (b.rank && pick(3) == 0 ? b.name : a.name) + " > 0]" : a.name;
      break;
    case 15: e = "ifelse(n > m, " + a.name + ", " + a.name + " * 2)"; break;
    case 16: e = a.rank ? "split(" + a.name + ", " + std::string(pick(2) ? "2" : "[1, n]") + ", axis=" + std::to_string(pick(a.rank)) + ")[" + std::to_string(pick(2)) + "]" : a.name; break;
    case 17: e = a.rank ? std::string(pick(2) ? "set" : "inc") + "_subtensor(" + a.name + "[" + (pick(2) ? "0" : "1:") + "], " + b.name + ")" : a.name; break;
    case 18: e = "broadcast_to(" + a.name + ", " + (a.rank <= 1 ? "(n, m)" : "(2, n, m)") + ")"; break;
    case 19: e = "squeeze(expand_dims(" + a.name + ", 0), axis=0)"; break;
    case 20: e = a.rank ? "specify_shape(" + a.name + ", (" + std::string(pick(2) ? "n" : "None") + (a.rank == 1 ? ",))" : ", " + std::string(a.rank > 2 ? "None, " : "") + "None))") : a.name; break;
    case 21: {
      // Every dtype, the narrow integers and float16 among them (their kernels, their casts).
      static const char *dtypes[] = {"int32", "float32", "int8", "int16", "uint8", "uint16", "uint32", "uint64", "float16", "bool"};
      e = "astype(" + a.name + ", " + dtypes[pick(10)] + ")";
      break;
    }
    case 22: e = a.rank == 1 && b.rank == 1 ? (pick(2) ? "convolve(" : "outer(") + a.name + ", " + b.name + ")" : "stack([" + a.name + ", " + a.name + "], axis=-1)"; break;
    case 23: e = "random.normal(" + a.name + ", 1.0" + (pick(2) ? "" : std::string(", size=") + (a.rank <= 1 ? "(n, m)" : "(2, n, m)")) + ")"; break;
    case 24: e = a.rank == 2 ? "linalg.inv(" + a.name + " @ transpose(" + a.name + ") + 1.0)" : "diff(" + a.name + ", n=2, axis=-1)"; break;
    case 25: {
      // Any function on any operand, whatever its rank: most are refused when built (a rank or
      // axis error), which must be a clean refusal, never a crash.
      static const char *any[] = {"linalg.det(A)", "linalg.inv(A)", "linalg.solve(A, B)", "A @ B", "diff(A)",
                                  "convolve(A, B)", "split(A, 2)[0]", "squeeze(A)", "transpose(A, (1, 0))",
                                  "cumsum(A, axis=1)", "sum(A, axis=2)", "A[0, 0, 0]", "outer(A, B)",
                                  "concatenate([A, B])", "stack([A, B])", "reshape(A, (2, -1))",
                                  "random.dirichlet(A)", "random.multivariate_normal(A, B)", "expand_dims(A, 3)",
                                  "argmax(A, axis=-1)", "argmin(A)"};
      e = any[pick(sizeof any / sizeof *any)];
      for (std::size_t at; (at = e.find('A')) != std::string::npos;) e.replace(at, 1, a.name);
      for (std::size_t at; (at = e.find('B')) != std::string::npos;) e.replace(at, 1, b.name);
      break;
    }
    case 26: case 27: {
      // A size of another array (a mask's data-dependent one, often) read by an attribute, not
      // through an operand: that array must run first.
      if (!b.rank) continue;
      std::string d = b.name + ".shape[" + std::to_string(pick(b.rank)) + "]";
      // Mostly a data-dependent size: a mask's, made here when drawn (an array no name holds);
      // or a size that exists only for some sizes (a reshape's -1: an exact division); or the
      // size of a broadcast no name holds, which exists only where its operands broadcast.
      switch (pick(5)) {
      case 1: case 2:
        if (options.dataDependent) d = b.name + "[" + b.name + " > 0].shape[0]";
        break;
      case 3: d = "reshape(" + b.name + ", (2, -1)).shape[1]"; break;
      case 4: d = "(" + a.name + " + " + b.name + ").shape[-1]"; break;
      default: break;
      }
      switch (pick(5)) {
      case 0: e = "full((" + d + ",), 1.0)"; break;
      case 1: e = a.rank ? a.name + "[:" + d + "]" : "full((" + d + ", 2), 0.5)"; break;
      case 2: e = "broadcast_to(" + a.name + ", (" + d + ", " + (a.rank ? a.name + ".shape[-1]" : "1") + "))"; break;
      case 3:
        if (!options.dataDependent) continue;
        e = "ifelse(" + d + " > 1, " + a.name + ", " + a.name + " * 2)";
        break;
      default: e = "random.normal(0.0, 1.0, size=(" + d + ",))"; break;
      }
      break;
    }
    case 28: case 29: {
      // Integer-array indexing: indices from another array's data, mostly brought into range
      // (`% a.shape[k]`; an empty axis leaves them out of range), sometimes as they come
      // (negative, or past the end: an IndexError); alone, after a slice, or next to an integer;
      // read, or written by set/inc_subtensor (repeated indices accumulate).
      if (!a.rank) continue;
      std::size_t axis = a.rank >= 2 && pick(2) ? 1 : 0;
      std::string idx = b.dtype == ops::DType::Int64 && pick(2) ? b.name : "astype(" + b.name + ", int64)";
      if (pick(4)) idx = idx + " % " + a.name + ".shape[" + std::to_string(axis) + "]";
      std::string region = axis ? (pick(2) ? ":, " : "-1, ") + idx : idx;
      if (kind == 28) e = a.name + "[" + region + "]";
      else e = std::string(pick(2) ? "set" : "inc") + "_subtensor(" + a.name + "[" + region + "], " + (pick(2) ? "1.5" : b.name) + ")";
      break;
    }
    case 30: {
      // The rest of the elementwise catalogue: unary math, powers, comparisons, logic on bools.
      static const char *more[] = {"log", "log1p", "expm1", "sin", "cos", "tan", "sign", "ceil", "exp2", "log2",
                                   "log10", "sinh", "cosh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
                                   "arctanh", "cbrt", "trunc", "rint", "fabs", "square", "positive", "isnan",
                                   "isfinite", "signbit", "logical_not"};
      static const char *binary[] = {"fmax", "fmin", "fmod", "arctan2", "hypot", "copysign", "logical_and",
                                     "logical_xor"};
      constexpr std::size_t kMore = sizeof(more) / sizeof(more[0]), kBinary = sizeof(binary) / sizeof(binary[0]);
      switch (pick(5)) {
      case 0: e = std::string(more[pick(kMore)]) + "(" + a.name + ")"; break;
      case 4: e = std::string(binary[pick(kBinary)]) + "(" + a.name + ", " + b.name + ")"; break;
      case 1: e = a.name + " ** " + (pick(2) ? b.name : "2"); break;
      case 2: e = "(" + a.name + " > 0) " + (pick(2) ? "&" : "|") + " ~(" + b.name + " != " + a.name + ")"; break;
      default: e = a.name + " " + (pick(2) ? "<=" : ">=") + " " + b.name; break;
      }
      break;
    }
    case 34: {
      if (pick(3) == 0) {
        // pad: one width for every axis, a (before, after) pair, or one pair per axis.
        static const char *widths[] = {"1", "(0, 2)", "n", "(m, 1)"};
        std::string pw = widths[pick(4)];
        if (pick(2) && a.rank) {
          pw = "(";
          for (std::size_t i = 0; i < a.rank; ++i) pw += std::string(i ? ", " : "") + (pick(2) ? "(1, n)" : "(0, 0)");
          pw += a.rank == 1 ? ",)" : ")";
        }
        e = "np.pad(" + a.name + ", " + pw + (pick(2) ? ", constant_values=2.5" : "") + ")";
        break;
      }
      // einsum: labels shared between the operands (their sizes broadcast), repeated within
      // one (a diagonal), '...' before the letters, implicit or explicit outputs.
      const bool ellipsis = pick(4) == 0;
      auto labels = [&](std::size_t rank) {
        std::string s = ellipsis ? "..." : "";
        for (std::size_t i = ellipsis && rank ? 1 : 0; i < rank; ++i) s += "ijk"[pick(3)];
        return s;
      };
      const bool two = pick(4) != 0;
      std::string sa = labels(a.rank), spec = sa + (two ? "," + labels(b.rank) : "");
      if (pick(2)) {
        std::string out = ellipsis ? "..." : "";
        for (char c : sa)
          if (c != '.' && out.find(c) == std::string::npos && pick(3)) out += c;
        spec += "->" + out;
      }
      e = "np.einsum('" + spec + "', " + a.name + (two ? ", " + b.name : "") + ")";
      break;
    }
    case 31: {
      // Random variables of other signatures (a permutation whose length is a value), and
      // layout spelled other ways.
      switch (pick(6)) {
      case 5:
        if (!options.dataDependent) continue; // its length is a data-dependent size
        e = "random.permutation(sum(" + a.name + " > 0))";
        break;
      case 0: e = "random.poisson(abs(" + a.name + "))"; break;
      case 1: e = "random.uniform(" + a.name + ", 2.0, size=" + (a.rank <= 1 ? "(n, m)" : "(2, n, m)") + ")"; break;
      case 2:
        if (!a.rank) continue;
        e = "random.categorical(exp(" + a.name + ") / sum(exp(" + a.name + "), axis=-1, keepdims=True))";
        break;
      case 3: e = a.rank == 2 ? a.name + ".T" : "all(" + a.name + " > 0" + (a.rank ? ", axis=0" : "") + ")"; break;
      default: e = a.rank >= 2 ? "reshape(" + a.name + ", (" + a.name + ".shape[1], -1))" : "expand_dims(" + a.name + ", -1)"; break;
      }
      break;
    }
    case 32: {
      // Spellings with tuples and sizes: reductions over several axes, expand_dims of several,
      // two different arrays joined, allocations sized by .size and .ndim, scalar branches.
      switch (pick(10)) {
      case 8:
        // Layout spelled as NumPy's helpers: views built from indexing, transposes, reshapes.
        switch (pick(7)) {
        case 4: e = "np.repeat(" + a.name + ", " + (pick(2) ? "2" : "m") + (a.rank && pick(2) ? ", axis=-1" : "") + ")"; break;
        case 5: e = "np.tile(" + a.name + ", " + (pick(2) ? "(2, 1)" : "n") + ")"; break;
        case 6: e = pick(2) ? "np.linalg.norm(" + a.name + (a.rank && pick(2) ? ", axis=0" : "") + ")" : "np.dot(" + a.name + ", " + b.name + ")"; break;
        case 0: e = "np.flip(" + a.name + (a.rank && pick(2) ? ", -1" : "") + ")"; break;
        case 1: e = a.rank >= 2 ? "np.swapaxes(" + a.name + ", 0, -1)" : "np.atleast_2d(" + a.name + ")"; break;
        case 2: e = a.rank >= 1 ? "np.moveaxis(" + a.name + ", 0, -1)" : "np.atleast_3d(" + a.name + ")"; break;
        default: e = std::string(pick(2) ? "np.vstack" : "np.hstack") + "([" + a.name + ", " + b.name + "])"; break;
        }
        break;
      case 9:
        switch (pick(5)) {
        case 0: e = "np.ptp(" + a.name + (a.rank ? ", axis=0" : "") + ")"; break;
        case 1: e = std::string(pick(2) ? "np.var(" : "np.std(") + a.name + (a.rank ? ", axis=0" : "") + ")"; break;
        case 2: e = "np.cumprod(" + a.name + (a.rank && pick(2) ? ", axis=-1" : "") + ")"; break;
        default: e = std::string(pick(2) ? "np.argmax(" : "np.argmin(") + a.name + (a.rank && pick(2) ? ", axis=0" : "") + ")"; break;
        }
        break;
      case 6: {
        // arange over sizes (a negative step too), sized by an array: NumPy computes the array.
        static const char *starts[] = {"0", "2", "n", "m - 1"}, *steps[] = {"1", "2", "-1", "-3"};
        e = std::string("arange(") + starts[pick(4)] + ", " + (pick(2) ? a.name + ".size" : std::string("n + 1")) + ", " +
            steps[pick(4)] + ")";
        break;
      }
      case 7: e = "eye(n, " + (a.rank ? a.name + ".shape[0]" : std::string("m")) + ", k=" + std::to_string(int(pick(3)) - 1) + ")"; break;
      case 0:
        if (a.rank < 2) continue;
        e = std::string(reductions[pick(6)]) + "(" + a.name + ", axis=(0, -1)" + (pick(2) ? ", keepdims=True" : "") + ")";
        break;
      case 1: e = "expand_dims(" + a.name + ", (0, -1))"; break;
      case 2:
        if (!a.rank || a.rank != b.rank) continue;
        e = "concatenate([" + a.name + ", " + b.name + "], axis=" + std::to_string(int(pick(a.rank)) - int(pick(2) * a.rank)) + ")";
        break;
      case 3: e = std::string(pick(2) ? "zeros" : "ones") + "((" + a.name + ".size, " + a.name + ".ndim))"; break;
      case 4: e = "where(" + a.name + " > 0, " + a.name + ", " + (pick(2) ? "0.0" : "-1") + ")"; break;
      default:
        if (a.rank < 2) continue;
        e = "linalg.det(" + a.name + " @ transpose(" + a.name + "))";
        break;
      }
      break;
    }
    case 35: {
      // The NumPy practitioners write: rebinding statements work on a copy, `v = np.copy(a)`.
      const std::string v = prefix + "v" + std::to_string(out.names.size());
      auto index = [&](std::size_t axis) { return "abs(" + vars[4].name + ") % " + a.name + ".shape[" + std::to_string(axis) + "]"; };
      std::string rebind;
      const int practitionerCase = int(pick(27));
      // unique, the nonzero family and the triangle indices make data-dependent sizes.
      if (!options.dataDependent && (practitionerCase == 17 || practitionerCase == 18 || practitionerCase == 23)) continue;
      switch (practitionerCase) {
      case 0: if (a.rank) rebind = v + "[" + index(0) + "] = " + (pick(2) ? "1.5" : b.name + "[..., :1]"); break;
      case 1: if (a.rank) rebind = v + "[:" + std::string(pick(2) ? "" : ":2") + "] += " + (pick(2) ? "2" : b.name); break;
      case 2: if (a.rank) rebind = "np.add.at(" + v + ", " + index(0) + ", 1)"; break;
      case 3: rebind = v + std::string(pick(2) ? " *= " : " -= ") + (pick(2) ? "3" : b.name); break;
      case 4: if (a.rank >= 2) e = a.name + "[" + index(0) + ", " + index(1) + "]"; break;
      case 5: if (a.rank >= 2) e = a.name + "[" + index(0) + ", :, None][..., " + index(1) + "]"; break;
      case 6: if (a.rank) e = a.name + "[[0, -1]]"; break;
      case 7: if (a.rank) e = "np.take(" + a.name + ", " + index(a.rank - 1) + ", axis=-1)"; break;
      case 8: if (a.rank >= 2) e = pick(2) ? "np.diagonal(" + a.name + ", " + std::to_string(int(pick(3)) - 1) + ")" : "np.rot90(" + a.name + ")"; break;
      case 9: e = "np.kron(" + a.name + ", " + b.name + ")"; break;
      case 10: e = std::string(pick(2) ? "np.isclose(" : "np.allclose(") + a.name + ", " + b.name + ")"; break;
      case 11: e = pick(2) ? "np.nan_to_num(" + a.name + " / " + b.name + ")" : "np.round(" + a.name + ", 1)"; break;
      case 13: e = pick(2) ? "np.sort(" + a.name + (a.rank && pick(2) ? ", axis=0" : "") + ")" : "np.argsort(" + a.name + (pick(2) ? ", axis=None" : "") + ")"; break;
      case 12: e = "np.linspace(0.0, 1.0, " + (a.rank ? a.name + ".shape[0]" : std::string("n")) + ")"; break;
      case 15: {
        static const char *modes[] = {"edge", "wrap", "symmetric", "reflect"};
        if (a.rank) e = "np.pad(" + a.name + ", " + (pick(2) ? "(1, n)" : "3") + ", mode='" + modes[pick(4)] + "')";
        break;
      }
      case 16: if (a.rank) e = "np.lib.stride_tricks.sliding_window_view(" + a.name + ", " + (pick(2) ? "2" : "n") + ", axis=-1)"; break;
      case 17: e = pick(2) ? "np.unique(" + a.name + ")" : "np.unique(" + a.name + ", return_counts=True, return_inverse=True)[" + std::to_string(1 + pick(2)) + "]"; break;
      case 18: {
        const std::string positive = "(" + a.name + " > 0)";
        switch (pick(4)) {
        case 0: e = "np.flatnonzero(" + positive + ")"; break;
        case 1: e = "np.argwhere(" + a.name + ")"; break;
        case 2: e = "np.where(" + positive + ")[0]"; break;
        default: e = "np.compress(" + positive + ".ravel(), " + a.name + ")"; break;
        }
        break;
      }
      case 19: e = "np.searchsorted(np.sort(" + a.name + ".ravel()), " + b.name + (pick(2) ? ", side='right'" : "") + ")"; break;
      case 20: if (a.rank) e = std::string(pick(2) ? "np.partition(" : "np.argpartition(") + a.name + ", " + (pick(2) ? "0" : "-1") + ")"; break;
      case 21: e = "np.vander(" + a.name + ".ravel(), " + (pick(2) ? "3" : "n") + (pick(2) ? ", increasing=True" : "") + ")"; break;
      case 22: e = pick(2) ? "np.broadcast_arrays(" + a.name + ", " + b.name + ")[" + std::to_string(pick(2)) + "]" : "np.indices(" + a.name + ".shape)"; break;
      case 23: e = pick(2) ? "np.logspace(0.0, 1.0, n)" : "np.triu_indices(n, " + std::to_string(int(pick(3)) - 1) + ")[" + std::to_string(pick(2)) + "]"; break;
      case 25: {
        // Linear algebra of a positive definite stack made from a.
        if (a.rank < 2) break;
        const std::string spd = "(" + a.name + " @ np.swapaxes(" + a.name + ", -1, -2) + 2.0 * np.eye(" + a.name + ".shape[-2]))";
        switch (pick(4)) {
        case 0: e = "np.linalg.cholesky(" + spd + ")"; break;
        case 1: e = "np.linalg.matrix_power(" + spd + ", " + std::to_string(int(pick(4)) - 1) + ")"; break;
        case 2: e = "np.linalg.slogdet(" + spd + ")[1]"; break;
        default: e = "np.linalg.norm(" + a.name + ", " + (pick(2) ? "np.inf" : "1") + ", axis=(-2, -1))"; break;
        }
        break;
      }
      case 24: {
        // Sizes from sizes (Graph::dividedSize): a quotient and a remainder of sizes.
        // A numerator that may be negative reads one defined size per sign.
        static const char *forms[] = {"np.zeros((n // m, n % m))", "np.ones(((n + 2) // (m + 1), 2))",
                                      "np.zeros(((n - m) // (m + 1) + 1, (m - n) % (n + 1)))"};
        e = pick(3) ? forms[pick(3)] : a.name + ".reshape(" + a.name + ".size // (m + 1), -1)";
        break;
      }
      case 26: {
        // repeat with counts (an array's make a data-dependent length) and np.linalg's
        // factorizations and what is built on them.
        const std::string k = std::to_string(pick(2));
        switch (pick(8)) {
        case 0: if (options.dataDependent) e = "np.repeat(" + a.name + ", np.arange(" + a.name + ".size) % 3)"; break;
        case 1: if (a.rank) e = "np.repeat(" + a.name + ", [1, 2], axis=0)"; break;
        case 2: if (a.rank >= 2) e = "np.linalg.qr(" + a.name + (pick(2) ? ", mode='complete'" : "") + ")[" + k + "]"; break;
        case 3: if (a.rank >= 2) e = pick(2) ? "np.linalg.svd(" + a.name + ", compute_uv=False)" : "np.linalg.svd(" + a.name + ", full_matrices=" + (pick(2) ? "True" : "False") + ")[" + std::to_string(pick(3)) + "]"; break;
        case 4: if (a.rank >= 2) e = pick(2) ? "np.linalg.eigvalsh(" + a.name + ")" : "np.linalg.eigh(" + a.name + ")[" + k + "]"; break;
        case 5: if (a.rank >= 2) e = "np.linalg.pinv(" + a.name + ")"; break;
        case 6: if (a.rank == 2 && options.dataDependent) e = "np.linalg.lstsq(" + a.name + ", " + a.name + "[:, 0], rcond=None)[" + std::to_string(pick(4)) + "]"; break;
        default: if (a.rank >= 2) e = pick(2) ? "np.linalg.matrix_rank(" + a.name + ")" : "np.linalg.norm(" + a.name + ", " + (pick(2) ? "2" : "'nuc'") + ", axis=(-2, -1))"; break;
        }
        break;
      }
      default: if (a.rank && b.rank) e = "np.tensordot(" + a.name + ", " + b.name + ", axes=" + (pick(2) ? "0" : "([-1], [0])") + ")"; break;
      }
      if (!rebind.empty()) {
        if (!run(v + " = np.copy(" + a.name + ")")) continue;
        vars.push_back({v, a.rank, a.dtype});
        out.names.push_back(v);
        run(rebind); // refused (a dtype NumPy will not cast in place): v stays the copy
        continue;
      }
      if (e.empty()) continue;
      break;
    }
    default: e = "prod(" + a.name + ")"; break;
    }
    std::string name = prefix + "v" + std::to_string(out.names.size());
    if (run(name + " = " + e)) {
      const ops::Node *node = session.lookup(name);
      if (!node) continue;
      vars.push_back({name, node->rank(), node->dtype});
      out.names.push_back(name);
    }
  }
  return out;
}

} // namespace shapelab::proptests
