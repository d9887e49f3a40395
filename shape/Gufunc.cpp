#include "shape/Gufunc.h"

#include <algorithm>
#include <map>
#include <set>

#include "shape/ArraySize.h"
#include "symbolic/Errors.h"

namespace shapelab {

namespace {

std::string compact(const Shape &s) {
  std::string t = toString(s);
  t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
  return t;
}

/// Names of signature dims used by a signature expression (over scoped parameters).
std::vector<std::string> namesIn(Expr e) {
  std::vector<std::string> out;
  for (Expr p : parametersOf(e))
    if (p.node()->reserved) out.push_back(unscopedName(p.node()->name));
  return out;
}

/// The bindings of signature dims, keyed by their scoped parameter names.
std::map<std::string, Expr> scopedBindings(const std::map<std::string, Expr> &bound) {
  std::map<std::string, Expr> out;
  for (auto &[name, value] : bound) out.emplace(scopedName(name), value);
  return out;
}

/// If `e` is k*u + rest with u only in that linear term (k constant), returns k and rest.
std::optional<std::pair<Integer, Expr>> linearIn(Expr e, const std::string &u) {
  auto [terms, constant] = asPolynomial(e);
  std::optional<Integer> k;
  std::vector<Term> rest;
  for (const Term &t : terms) {
    bool isU = t.monomial.size() == 1 && t.monomial[0].second == 1 &&
               t.monomial[0].first->kind == ExprKind::Param &&
               t.monomial[0].first->name == scopedName(u);
    if (isU) {
      k = t.coefficient;
      continue;
    }
    rest.push_back(t);
  }
  if (!k) return std::nullopt;
  Expr r = fromPolynomial(rest, constant);
  for (const std::string &n : namesIn(r))
    if (n == u) return std::nullopt;
  return std::make_pair(*k, r);
}

} // namespace

GufuncArgument parseGufuncArgument(const std::string &text) {
  std::size_t p = 0;
  while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
  if (p < text.size() && text[p] == '<') {
    GufuncArgument g{parseShapeAt(text, p, true), true};
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    if (p != text.size()) throw SyntaxError("unexpected text after the shape-only value", text, p);
    return g;
  }
  return {parseShape(text), false};
}

GufuncResult resolveGufunc(Solver &solver, const Context &context, const Signature &sig,
                           const std::vector<GufuncArgument> &args, BroadcastMode mode,
                           bool broadcastLoops, OperandsExist operandsExist) {
  GufuncResult r{{}, {}, {}, {}, {}, Validity(solver, context), ""};
  for (const GufuncArgument &a : args)
    if (!a.shapeOnly && !ranksFit(r.validity, {a.shape})) {
      r.message = r.validity.message();
      return r;
    }
  for (const GufuncArgument &a : args) r.validity.mention(a.shape);
  const std::size_t nin = sig.inputs.size();
  if (args.size() != nin)
    throw UserError("the signature " + sig.text + " takes " + std::to_string(nin) +
                    " input(s), but " + std::to_string(args.size()) + " were given");
  for (std::size_t i = 0; i < nin; ++i) {
    if (sig.inputs[i].shapeOnly && !args[i].shapeOnly)
      throw UserError("input " + std::to_string(i) + " is a shape-only parameter: give its value as <...>");
    if (!sig.inputs[i].shapeOnly && args[i].shapeOnly)
      throw UserError("input " + std::to_string(i) + " is an array: give its shape as (...), not <...>");
  }

  // 1. Drop `?` dims, in NumPy's order.
  std::set<std::string> missing;
  auto needed = [&](const CoreArgument &a) {
    std::size_t n = 0;
    for (const CoreDim &d : a.dims)
      if (!(d.kind == CoreDim::Kind::Name && missing.count(d.name))) ++n;
    return n;
  };
  for (std::size_t i = 0; i < nin; ++i) {
    const CoreArgument &a = sig.inputs[i];
    std::size_t rank = args[i].shape.size();
    if (rank < needed(a))
      for (const CoreDim &d : a.dims) {
        if (rank >= needed(a)) break;
        if (d.optional && d.kind == CoreDim::Kind::Name) missing.insert(d.name);
      }
    if (rank < needed(a)) {
      r.validity.fail("Input operand " + std::to_string(i) + " does not have enough dimensions (has " +
                      std::to_string(rank) + ", gufunc core with signature " + sig.text +
                      " requires " + std::to_string(needed(a)) + ")");
      r.message = r.validity.message();
      return r;
    }
  }

  // 2. Core sizes.
  std::map<std::string, Expr> bound;
  std::map<std::string, std::vector<Expr>> broadcastable; // |1 names -> sizes seen
  struct Pending {
    Expr expression;
    Expr size;
    std::size_t operand;
    std::string text;
  };
  std::vector<Pending> pending;
  auto mismatch = [&](std::size_t i, int index, const Integer &size, const Integer &expected) {
    r.validity.fail("Input operand " + std::to_string(i) + " has a mismatch in its core dimension " +
                    std::to_string(index) + ", with gufunc signature " + sig.text + " (size " +
                    size.toString() + " is different from " + expected.toString() + ")");
  };
  // NumPy names the dim by its index among the operand's core dims.
  int localIndex = 0;
  auto requireEqual = [&](std::size_t i, const CoreDim &d, Expr size, Expr expected) {
    auto a = size.constantValue(), b = expected.constantValue();
    if (a && b) {
      if (*a != *b) mismatch(i, localIndex, *a, *b);
      return;
    }
    r.validity.require(eq(size, expected), "core dimension '" + d.text + "' of input " +
                                                std::to_string(i) + " (" + size.toString() +
                                                ") equals " + expected.toString());
  };
  std::vector<Expr> coreSizes; // every operand core dim: each must be an array size
  for (std::size_t i = 0; i < nin; ++i) {
    const CoreArgument &a = sig.inputs[i];
    const Shape &shape = args[i].shape;
    std::size_t k = needed(a), next = shape.size() - k;
    for (std::size_t di = 0; di < a.dims.size(); ++di) {
      const CoreDim &d = a.dims[di];
      bool isMissing = d.kind == CoreDim::Kind::Name && missing.count(d.name);
      if (isMissing) continue;
      localIndex = int(di);
      Expr size = shape[next++];
      coreSizes.push_back(size);
      switch (d.kind) {
      case CoreDim::Kind::Name:
        if (d.broadcastable) {
          broadcastable[d.name].push_back(size);
        } else if (auto it = bound.find(d.name); it == bound.end()) {
          bound.emplace(d.name, size);
        } else {
          requireEqual(i, d, size, it->second);
        }
        break;
      case CoreDim::Kind::Fixed:
        requireEqual(i, d, size, Expr(d.size));
        break;
      case CoreDim::Kind::Expression:
        pending.push_back({d.expression, size, i, d.text});
        break;
      }
    }
  }
  if (!constantDimensionsFit(r.validity, coreSizes, "a core dimension of the operands")) {
    r.message = r.validity.message();
    return r;
  }
  ArraySizeObligations coreAreSizes = arraySizeObligations(context, coreSizes);
  if (!coreAreSizes.sizes.isTrue()) r.validity.require(coreAreSizes.sizes, "every core dimension of the operands is a size");
  // The operands are given: their dimensions' limits are assumed.
  if (!coreAreSizes.limits.isTrue())
    r.validity.require(coreAreSizes.limits, "every core dimension of the operands is at most 2**63 - 1", ObligationKind::Existence);
  // Each array operand must exist: a core size that no output keeps is bounded by nothing else
  // ((i)->() on (2**40, 2**40) has a small output and an operand NumPy cannot make).
  if (operandsExist == OperandsExist::Require)
    for (std::size_t i = 0; i < nin; ++i)
      if (!args[i].shapeOnly) {
        requireElementCountFits(r.validity, args[i].shape, "input operand " + std::to_string(i), ObligationKind::Existence);
        if (r.validity.failsEverywhere()) { // nothing later can make it valid
          r.message = r.validity.message();
          return r;
        }
      }
  for (const std::string &m : missing)
    if (!bound.count(m)) bound.emplace(m, Expr(1));
  // |1 names: equal or 1 among the inputs; the result is the size other than 1.
  for (auto &[name, sizes] : broadcastable) {
    std::vector<Expr> distinct;
    for (Expr s : sizes)
      if (std::find(distinct.begin(), distinct.end(), s) == distinct.end()) distinct.push_back(s);
    std::vector<Pred> pairs;
    for (std::size_t a = 0; a < distinct.size(); ++a)
      for (std::size_t b = a + 1; b < distinct.size(); ++b)
        pairs.push_back(eq(distinct[a], Expr(1)) || eq(distinct[b], Expr(1)) || eq(distinct[a], distinct[b]));
    Pred ok = Pred::conjunction(pairs);
    if (!ok.isTrue()) r.validity.require(ok, "the broadcastable core dimension '" + name + "|1' broadcasts");
    Expr result = distinct.back();
    for (std::size_t a = distinct.size() - 1; a-- > 0;) result = select(eq(distinct[a], Expr(1)), result, distinct[a]);
    bound.emplace(name, result);
  }
  // Input expressions: check them, or solve for their one unknown name.
  bool progress = true;
  while (!pending.empty() && progress) {
    progress = false;
    for (std::size_t j = 0; j < pending.size(); ++j) {
      Pending &p = pending[j];
      std::vector<std::string> unknown;
      for (const std::string &n : namesIn(p.expression))
        if (!bound.count(n)) unknown.push_back(n);
      Expr e = substitute(p.expression, scopedBindings(bound));
      if (unknown.empty()) {
        auto a = e.constantValue(), b = p.size.constantValue();
        if (a && b && *a != *b)
          r.validity.fail("Input operand " + std::to_string(p.operand) + " has a mismatch in its core dimension '" +
                          p.text + "', with gufunc signature " + sig.text + " (size " + b->toString() +
                          " is different from " + a->toString() + ")");
        else
          r.validity.require(eq(p.size, e), "core dimension '" + p.text + "' of input " +
                                                std::to_string(p.operand) + " equals " + p.size.toString());
      } else if (unknown.size() == 1) {
        auto lin = linearIn(e, unknown[0]);
        if (!lin) continue;
        auto [k, rest] = *lin;
        // k*u + rest == size  =>  u = (size - rest) / k, defined where it divides.
        Expr u = k.sign() > 0 ? exactDiv(p.size - rest, k) : exactDiv(rest - p.size, -k);
        bound.emplace(unknown[0], u);
        r.validity.require(ge(u, Expr(0)),
                           "core dimension '" + unknown[0] + "' solved from '" + p.text + "' of input " +
                               std::to_string(p.operand) + " is a size",
                           ObligationKind::Shape,
                           "Input operand " + std::to_string(p.operand) + " has a mismatch in its core dimension '" +
                               p.text + "', with gufunc signature " + sig.text + " (no size " + unknown[0] +
                               " makes " + p.text + " equal to " + p.size.toString() + ")");
      } else {
        continue;
      }
      pending.erase(pending.begin() + j);
      progress = true;
      break;
    }
  }
  if (!pending.empty())
    throw UserError("cannot solve the core dimension '" + pending.front().text + "' of input " +
                    std::to_string(pending.front().operand) + ": its names must be bound by other dimensions, "
                    "or appear only once and linearly");

  // 3. Output core dims.
  std::set<std::string> seen;
  for (const CoreArgument &a : sig.outputs) {
    std::vector<std::optional<Expr>> core;
    for (const CoreDim &d : a.dims) {
      if (d.kind == CoreDim::Kind::Name && missing.count(d.name)) continue;
      if (d.kind == CoreDim::Kind::Fixed) {
        core.push_back(Expr(d.size));
      } else if (d.kind == CoreDim::Kind::Name) {
        auto it = bound.find(d.name);
        if (it == bound.end()) {
          core.push_back(std::nullopt);
          if (seen.insert(d.text).second) r.undetermined.push_back(d.name);
        } else {
          core.push_back(it->second);
        }
      } else {
        bool ready = true;
        for (const std::string &n : namesIn(d.expression)) ready = ready && bound.count(n);
        if (!ready) {
          core.push_back(std::nullopt);
          if (seen.insert(d.text).second) r.undetermined.push_back(d.text);
          continue;
        }
        Expr e = substitute(d.expression, scopedBindings(bound));
        if (auto v = e.constantValue(); v && v->sign() < 0)
          r.validity.fail("output core dimension '" + d.text + "' is " + v->toString() + ", not a size");
        else if (!(e.isConstant() && e.isTotal()))
          r.validity.require(ge(e, Expr(0)), "output core dimension '" + d.text + "' = " + e.toString() + " is a size");
        core.push_back(e);
      }
    }
    r.outShapes.push_back(core);
  }
  for (const std::string &id : sig.dimIds) {
    if (id[0] == '#') continue;
    auto it = bound.find(id);
    r.coreDims.push_back({id, it == bound.end() ? std::nullopt : std::optional<Expr>(it->second)});
  }

  // 4. Loop dims.
  std::vector<Shape> &loops = r.loopShapes;
  for (std::size_t i = 0; i < nin; ++i)
    loops.push_back(Shape(args[i].shape.begin(), args[i].shape.end() - needed(sig.inputs[i])));
  if (!broadcastLoops) {
    r.message = r.validity.message();
    return r;
  }
  // The loop shapes are the operands' batch parts: they exist where the operands do, and the
  // broadcast requires only the batch shape's count.
  BroadcastResult b = broadcast(solver, context, loops, mode);
  if (b.status() == Status::Error && b.validity.obligations().empty()) {
    // A concrete loop mismatch, in NumPy's words.
    // NumPy's words: each operand remapped onto the iterator's axes (the broadcast loop rank,
    // then one axis per output core dim), and the iterator's requested shape (loop axes
    // unknown, then the output core sizes). Axes an operand lacks print as newaxis, and leading
    // ones are left out (NumPy's convert_shape_to_string).
    std::size_t rank = 0;
    for (const Shape &l : loops) rank = std::max(rank, l.size());
    std::vector<std::optional<std::string>> outCore;
    for (const auto &o : r.outShapes)
      for (const auto &d : o) outCore.push_back(d ? d->toString() : "?");
    auto axes = [&](const std::vector<std::optional<std::string>> &v) {
      std::size_t i = 0;
      while (i < v.size() && !v[i]) ++i;
      if (i == v.size()) return std::string("()");
      std::string t = *v[i++];
      for (; i < v.size(); ++i) t += "," + (v[i] ? *v[i] : std::string("newaxis"));
      return v.size() == 1 ? "(" + t + ",)" : "(" + t + ")";
    };
    std::string ops;
    for (std::size_t i = 0; i < nin; ++i) {
      std::vector<std::optional<std::string>> v(rank - loops[i].size());
      for (Expr d : loops[i]) v.push_back(d.toString());
      v.resize(rank + outCore.size());
      ops += (i ? " " : "") + compact(args[i].shape) + "->" + axes(v);
    }
    std::vector<std::optional<std::string>> requested(rank);
    requested.insert(requested.end(), outCore.begin(), outCore.end());
    r.validity.fail("operands could not be broadcast together with remapped shapes "
                    "[original->remapped]: " + ops + "  and requested shape " + axes(requested));
  } else {
    r.validity.absorb(b.validity);
  }
  r.batchShape = b.shape;
  for (std::size_t k = 0; k < r.outShapes.size(); ++k) {
    auto &out = r.outShapes[k];
    std::vector<std::optional<Expr>> full(r.batchShape.begin(), r.batchShape.end());
    full.insert(full.end(), out.begin(), out.end());
    out = full;
    Shape determined;
    for (auto &d : out)
      if (d) determined.push_back(*d);
    if (b.status() != Status::Error && determined.size() == out.size())
      requireElementCountFits(r.validity, determined, "output " + std::to_string(k));
  }
  r.message = r.validity.message();
  return r;
}

} // namespace shapelab
