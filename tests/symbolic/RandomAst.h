// A tiny expression language for tests, independent of shapelab's Expr: its own tree, its own
// printer to shapelab's text syntax, and its own int64 evaluator. It is the oracle the
// library's canonical forms, parser and solver are checked against.
#pragma once

#include <rapidcheck.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace oracle {

struct E;
struct P;
using EP = std::shared_ptr<const E>;
using PP = std::shared_ptr<const P>;

struct E {
  enum Kind { Const, Var, Add, Sub, MulConst, Mul, FloorDiv, Mod, ExactDiv, Min, Max, Select } kind;
  long value = 0; // Const; MulConst factor; divisor
  int var = 0;
  EP a, b;
  PP cond;
};

struct P {
  enum Kind { Cmp, And, Or, Not } kind;
  int op = 0; // 0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >=
  EP l, r;
  PP x, y;
};

inline const char *kNames[] = {"a", "b", "c", "n"};
inline const char *kOps[] = {"==", "!=", "<", "<=", ">", ">="};

inline std::string show(const EP &e);
inline std::string show(const PP &p) {
  switch (p->kind) {
  case P::Cmp: return "(" + show(p->l) + " " + kOps[p->op] + " " + show(p->r) + ")";
  case P::And: return "(" + show(p->x) + " and " + show(p->y) + ")";
  case P::Or: return "(" + show(p->x) + " or " + show(p->y) + ")";
  case P::Not: return "(not " + show(p->x) + ")";
  }
  return "";
}
inline std::string show(const EP &e) {
  switch (e->kind) {
  case E::Const: return e->value < 0 ? "(" + std::to_string(e->value) + ")" : std::to_string(e->value);
  case E::Var: return kNames[e->var];
  case E::Add: return "(" + show(e->a) + " + " + show(e->b) + ")";
  case E::Sub: return "(" + show(e->a) + " - " + show(e->b) + ")";
  case E::MulConst: return "(" + std::to_string(e->value) + " * " + show(e->a) + ")";
  case E::Mul: return "(" + show(e->a) + " * " + show(e->b) + ")";
  case E::FloorDiv: return "(" + show(e->a) + " // " + std::to_string(e->value) + ")";
  case E::Mod: return "(" + show(e->a) + " % " + std::to_string(e->value) + ")";
  case E::ExactDiv: return "(" + show(e->a) + " / " + std::to_string(e->value) + ")";
  case E::Min: return "min(" + show(e->a) + ", " + show(e->b) + ")";
  case E::Max: return "max(" + show(e->a) + ", " + show(e->b) + ")";
  case E::Select: return "(" + show(e->a) + " if " + show(e->cond) + " else " + show(e->b) + ")";
  }
  return "";
}

inline long floorDiv(long a, long c) { long q = a / c; if ((a % c != 0) && ((a < 0) != (c < 0))) --q; return q; }
inline long floorMod(long a, long c) { return a - c * floorDiv(a, c); }

inline std::optional<bool> eval(const PP &p, const std::vector<long> &v);
inline std::optional<long> eval(const EP &e, const std::vector<long> &v) {
  auto both = [&](auto f) -> std::optional<long> {
    auto x = eval(e->a, v), y = eval(e->b, v);
    if (!x || !y) return std::nullopt;
    return f(*x, *y);
  };
  switch (e->kind) {
  case E::Const: return e->value;
  case E::Var: return v[e->var];
  case E::Add: return both([](long x, long y) { return x + y; });
  case E::Sub: return both([](long x, long y) { return x - y; });
  case E::Mul: return both([](long x, long y) { return x * y; });
  case E::MulConst: { auto x = eval(e->a, v); if (!x) return std::nullopt; return e->value * *x; }
  case E::FloorDiv: { auto x = eval(e->a, v); if (!x) return std::nullopt; return floorDiv(*x, e->value); }
  case E::Mod: { auto x = eval(e->a, v); if (!x) return std::nullopt; return floorMod(*x, e->value); }
  case E::ExactDiv: {
    auto x = eval(e->a, v);
    if (!x || floorMod(*x, e->value) != 0) return std::nullopt;
    return *x / e->value;
  }
  case E::Min: return both([](long x, long y) { return std::min(x, y); });
  case E::Max: return both([](long x, long y) { return std::max(x, y); });
  case E::Select: {
    auto c = eval(e->cond, v);
    if (!c) return std::nullopt;
    return eval(*c ? e->a : e->b, v);
  }
  }
  return std::nullopt;
}
inline std::optional<bool> eval(const PP &p, const std::vector<long> &v) {
  if (p->kind == P::Cmp) {
    auto l = eval(p->l, v), r = eval(p->r, v);
    if (!l || !r) return std::nullopt;
    switch (p->op) {
    case 0: return *l == *r;
    case 1: return *l != *r;
    case 2: return *l < *r;
    case 3: return *l <= *r;
    case 4: return *l > *r;
    default: return *l >= *r;
    }
  }
  auto x = eval(p->x, v);
  if (p->kind == P::Not) return x ? std::optional<bool>(!*x) : std::nullopt;
  auto y = eval(p->y, v);
  if (!x || !y) return std::nullopt;
  return p->kind == P::And ? (*x && *y) : (*x || *y);
}

struct GenOptions {
  int variables = 3;
  bool products = false;   // allow var*var (leaves the quasi-affine core)
  bool exactDivision = true;
};

inline rc::Gen<PP> genPred(int depth, GenOptions o);

inline rc::Gen<EP> genExpr(int depth, GenOptions o) {
  auto leaf = rc::gen::oneOf(
      rc::gen::map(rc::gen::inRange<long>(-3, 6), [](long c) { auto e = std::make_shared<E>(); e->kind = E::Const; e->value = c; return EP(e); }),
      rc::gen::map(rc::gen::inRange(0, o.variables), [](int i) { auto e = std::make_shared<E>(); e->kind = E::Var; e->var = i; return EP(e); }));
  if (depth <= 0) return leaf;
  return rc::gen::withSize([=](int) {
    return rc::gen::mapcat(rc::gen::inRange(0, 14), [=](int choice) -> rc::Gen<EP> {
      auto sub = genExpr(depth - 1, o);
      auto mk = [](E::Kind k, long value, EP a, EP b, PP c) {
        auto e = std::make_shared<E>();
        e->kind = k; e->value = value; e->a = a; e->b = b; e->cond = c;
        return EP(e);
      };
      switch (choice) {
      case 0: case 1: case 2: return leaf;
      case 3: return rc::gen::apply([=](EP a, EP b) { return mk(E::Add, 0, a, b, nullptr); }, sub, sub);
      case 4: return rc::gen::apply([=](EP a, EP b) { return mk(E::Sub, 0, a, b, nullptr); }, sub, sub);
      case 5: return rc::gen::apply([=](long k, EP a) { return mk(E::MulConst, k, a, nullptr, nullptr); }, rc::gen::inRange<long>(-3, 4), sub);
      case 6: return rc::gen::apply([=](long k, EP a) { return mk(E::FloorDiv, k, a, nullptr, nullptr); }, rc::gen::inRange<long>(1, 5), sub);
      case 7: return rc::gen::apply([=](long k, EP a) { return mk(E::Mod, k, a, nullptr, nullptr); }, rc::gen::inRange<long>(1, 5), sub);
      case 8: return rc::gen::apply([=](EP a, EP b) { return mk(E::Min, 0, a, b, nullptr); }, sub, sub);
      case 9: return rc::gen::apply([=](EP a, EP b) { return mk(E::Max, 0, a, b, nullptr); }, sub, sub);
      case 10: return rc::gen::apply([=](EP a, EP b, PP c) { return mk(E::Select, 0, a, b, c); }, sub, sub, genPred(depth - 1, o));
      case 11:
        if (!o.exactDivision) return leaf;
        return rc::gen::apply([=](long k, EP a) { return mk(E::ExactDiv, k, a, nullptr, nullptr); }, rc::gen::inRange<long>(1, 4), sub);
      default:
        if (!o.products) return rc::gen::apply([=](EP a, EP b) { return mk(E::Add, 0, a, b, nullptr); }, sub, sub);
        return rc::gen::apply([=](EP a, EP b) { return mk(E::Mul, 0, a, b, nullptr); }, sub, sub);
      }
    });
  });
}

inline rc::Gen<PP> genPred(int depth, GenOptions o) {
  auto cmp = rc::gen::apply([](int op, EP l, EP r) { auto p = std::make_shared<P>(); p->kind = P::Cmp; p->op = op; p->l = l; p->r = r; return PP(p); },
                            rc::gen::inRange(0, 6), genExpr(depth, o), genExpr(depth, o));
  if (depth <= 0) return cmp;
  return rc::gen::mapcat(rc::gen::inRange(0, 6), [=](int choice) -> rc::Gen<PP> {
    auto sub = genPred(depth - 1, o);
    auto mk = [](P::Kind k, PP x, PP y) { auto p = std::make_shared<P>(); p->kind = k; p->x = x; p->y = y; return PP(p); };
    switch (choice) {
    case 0: return rc::gen::apply([=](PP x, PP y) { return mk(P::And, x, y); }, sub, sub);
    case 1: return rc::gen::apply([=](PP x, PP y) { return mk(P::Or, x, y); }, sub, sub);
    case 2: return rc::gen::map(sub, [=](PP x) { return mk(P::Not, x, nullptr); });
    default: return cmp;
    }
  });
}

} // namespace oracle
