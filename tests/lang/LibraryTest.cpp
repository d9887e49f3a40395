// The library (lang/Library.cpp) against the op list (ops/Functions.def): every name the list
// says is callable is bound, as np.f(...) and, where it says so, as x.f(...); no other name is.
#include <gtest/gtest.h>

#include "lang/Session.h"
#include "ops/OpList.h"
#include "symbolic/Solver.h"

using namespace shapelab;

namespace {
/// The reply of one line after `x = input((3, 4), float64)`.
lang::Reply run(const std::string &line) {
  static Solver solver;
  lang::Session s(solver, {});
  EXPECT_FALSE(s.execute("x = input((3, 4), float64)", 1).failed);
  return s.execute(line, 2);
}
std::string text(const lang::Reply &r) {
  std::string out;
  for (const std::string &l : r.lines()) out += l + "\n";
  return out;
}
} // namespace

TEST(Library, EveryFunctionOfTheListIsBound) {
  for (const ops::FunctionInfo &f : ops::functions()) {
    const std::string name(f.name);
    if (f.has(ops::fn::Function)) {
      // Called with no arguments, a bound function refuses them (or, for input, where it is
      // written); an unbound one would say it is not a function shapelab knows.
      lang::Reply r = run("np." + name + "()");
      EXPECT_EQ(text(r).find("is not a function shapelab knows"), std::string::npos) << name << ": " << text(r);
      EXPECT_EQ(text(r).find("no function"), std::string::npos) << name << ": " << text(r);
    } else if (name.find('.') == std::string::npos) {
      EXPECT_TRUE(run("np." + name).failed) << name << " is not in NumPy's namespace";
    }
    if (f.has(ops::fn::Method)) {
      lang::Reply r = run("x." + name);
      EXPECT_FALSE(r.failed) << name << ": " << text(r);
    } else if (name.find('.') == std::string::npos && name != "shape" && name != "ndim" && name != "size") {
      // (x.shape, x.ndim and x.size are attributes, as in NumPy, not methods.)
      lang::Reply r = run("x." + name);
      EXPECT_TRUE(r.failed && text(r).find("has no attribute") != std::string::npos) << name << ": " << text(r);
    }
  }
}

TEST(Library, UfuncsAreFunctionsAndOperatorsBuildThem) {
  for (const ops::UfuncInfo &u : ops::ufuncs()) {
    lang::Reply r = run("np." + u.name + "()");
    EXPECT_EQ(text(r).find("is not a function shapelab knows"), std::string::npos) << u.name;
  }
  EXPECT_FALSE(run("x ** 2 // x").failed);
}

// Argument checking comes from each row's binding: one positional argument too many, and a
// keyword it does not name, are refused with NumPy's words, for every function of the list.
TEST(Library, EveryFunctionChecksItsArgumentsByItsBinding) {
  for (const ops::FunctionInfo &f : ops::functions()) {
    if (!f.has(ops::fn::Function)) continue;
    const ops::Binding *b = ops::binding(f.name);
    ASSERT_NE(b, nullptr) << f.name;
    const std::string name(f.name);
    if (!b->variadic) {
      std::string args;
      for (std::size_t i = 0; i <= b->positional; ++i) args += (i ? ", " : "") + std::string("x");
      const std::string want = name + "() takes at most " + std::to_string(b->positional) + " positional arguments (" +
                               std::to_string(b->positional + 1) + " given)";
      EXPECT_NE(text(run("np." + name + "(" + args + ")")).find(want), std::string::npos) << name << ": " << text(run("np." + name + "(" + args + ")"));
    }
    const lang::Reply r = run("np." + name + "(x, no_such_keyword=1)");
    EXPECT_NE(text(r).find(name + "() got an unexpected keyword argument 'no_such_keyword'"), std::string::npos) << name << ": " << text(r);
  }
  // A binding's parameters in order, keyword-only ones after `*`.
  const ops::Binding *var = ops::binding("var");
  EXPECT_EQ(var->names, (std::vector<std::string>{"a", "axis", "dtype", "out", "ddof", "keepdims"}));
  EXPECT_EQ(var->positional, 5u);
  EXPECT_EQ(ops::binding("add")->names, (std::vector<std::string>{"x1", "x2"}));
  EXPECT_TRUE(ops::binding("einsum")->variadic);
  EXPECT_EQ(ops::binding("index"), nullptr); // syntax, not a call
}

// np.array and np.asarray stack nested lists on new leading axes with NumPy's result type (a
// Python number counts as int64, float64 or bool: np.array does not treat it as weak); a dtype
// called is np.array(value, dtype=it). Ragged lists are refused as NumPy refuses them.
TEST(Library, ArrayLiteralsStackTheirElementsWithNumPysDtype) {
  Solver solver;
  lang::Session s(solver, {});
  ASSERT_FALSE(s.execute("param n, m", 1).failed);
  ASSERT_FALSE(s.execute("a = input((n,), float32)", 2).failed);
  auto reply = [&](const std::string &line) { return text(s.execute(line, 3)); };
  EXPECT_EQ(reply("c = np.array([[1, 2], [3, 4]])"), "c: (2, 2) int64, valid\n");
  EXPECT_EQ(reply("c = np.array([1, 2.5, True])"), "c: (3,) float64, valid\n");
  EXPECT_EQ(reply("c = np.array([a, a])"), "c: (2, n) float32, valid\n  limits: n <= 4611686018427387903\n");
  EXPECT_EQ(reply("c = np.array([n, m + 1])"), "c: (2,) int64, valid\n  limits: m <= 9223372036854775806\n");
  EXPECT_EQ(reply("c = np.array([], dtype=np.int32)"), "c: (0,) int32, valid\n");
  EXPECT_EQ(reply("c = np.asarray(a, dtype=np.float64)"), "c: (n,) float64, valid\n");
  EXPECT_EQ(reply("c = a * np.float32(2.0)"), "c: (n,) float32, valid\n");
  EXPECT_EQ(reply("c = a * np.float64(2.0)"), "c: (n,) float64, valid\n"); // a NumPy scalar is not weak
  EXPECT_EQ(reply(":eval np.array([n, 2 * m]) with n=3, m=4"), "np.array([n, 2 * m]) = [3, 8]  (int64, shape (2,))\n");
  EXPECT_NE(reply("c = np.array([a, 1.0])").find("setting an array element with a sequence"), std::string::npos);
  EXPECT_NE(reply("c = np.array(['x'])").find("array() takes numbers, sizes, arrays and lists of them"), std::string::npos);
}

// Every function called with its binding's parameters all given by keyword (and with one or two
// given by position, the rest by keyword) answers or refuses: a binder that reads an argument
// by position where the caller gave it by keyword would read past the positional list.
TEST(Library, EveryFunctionTakesItsParametersByKeyword) {
  for (const ops::FunctionInfo &f : ops::functions()) {
    if (!f.has(ops::fn::Function)) continue;
    const ops::Binding *b = ops::binding(f.name);
    ASSERT_NE(b, nullptr) << f.name;
    // Values that fit most parameters: an axis 0, integer indices, an array otherwise.
    auto value = [](const std::string &name) -> std::string {
      if (name.find("axis") != std::string::npos || name == "k" || name == "offset" || name == "decimals") return "0";
      if (name.find("ind") != std::string::npos || name == "repeats" || name == "shift") return "i";
      return "x";
    };
    for (std::size_t positional = 0; positional <= std::min<std::size_t>(2, b->names.size()); ++positional) {
      std::string args;
      for (std::size_t i = 0; i < b->names.size(); ++i)
        args += (i ? ", " : "") + (i < positional ? value(b->names[i]) : b->names[i] + "=" + value(b->names[i]));
      static Solver solver;
      lang::Session s(solver, {});
      ASSERT_FALSE(s.execute("x = input((3, 4), float64)", 1).failed);
      ASSERT_FALSE(s.execute("i = input((3, 4), int64)", 2).failed);
      const lang::Reply r = s.execute("np." + std::string(f.name) + "(" + args + ")", 3);
      EXPECT_FALSE(r.lines().empty()) << f.name << "(" << args << ")";
    }
  }
}
