// Programs: hash-consing, the language's contract pieces, and the property that ties the
// reference interpreter to the shape rules — at parameter points inside and outside each
// node's validity (sizes 0 and 1 included), a kernel raises a shape error exactly where the
// node's symbolic validity (its operands' included) fails, and otherwise returns the inferred
// shape and dtype (the interpreter's debug check throws InternalError on any disagreement).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "driver/Language.h"
#include "interp/Interpreter.h"
#include "ops/Graph.h"
#include "proptests/RandomProgram.h"
#include "symbolic/Errors.h"

using namespace shapelab;

namespace {

Shape shapeOf(std::initializer_list<Expr> dims) { return Shape(dims); }

} // namespace

TEST(Graph, EqualNodesAreOneNode) {
  Solver solver;
  ops::Graph g(solver);
  Expr n = g.param("n"), m = g.param("m");
  const ops::Node *x = g.input("x", ops::DType::Float64, shapeOf({n, 1}));
  const ops::Node *y = g.input("y", ops::DType::Float64, shapeOf({1, m}));
  auto build = [&] {
    const ops::Node *s = g.binary("add", x, y, BroadcastMode::Numpy);
    const ops::Node *e = g.unary("exp", s);
    const ops::Node *r = g.reduce("sum", e, std::vector<int64_t>{-1}, false);
    return g.binary("multiply", r, g.literal(2.0, ops::DType::Float64), BroadcastMode::Numpy);
  };
  const ops::Node *first = build();
  std::size_t nodes = g.nodes().size();
  const ops::Node *second = build();
  EXPECT_EQ(first, second);
  EXPECT_EQ(g.nodes().size(), nodes);
  // The mode is part of a node's identity (its validity differs).
  EXPECT_NE(g.binary("add", x, y, BroadcastMode::Static), g.binary("add", x, y, BroadcastMode::Numpy));
  // Random draws are never merged: two draws are two samples.
  const ops::Node *a = g.random("normal", {g.literal(0.0, ops::DType::Float64), g.literal(1.0, ops::DType::Float64)},
                                Shape{Expr(3)}, BroadcastMode::Numpy);
  const ops::Node *b = g.random("normal", {g.literal(0.0, ops::DType::Float64), g.literal(1.0, ops::DType::Float64)},
                                Shape{Expr(3)}, BroadcastMode::Numpy);
  EXPECT_NE(a, b);
}

TEST(Graph, SameProgramTwiceIsTheSameNodeSet) {
  Solver solver;
  driver::Session session(solver, {});
  std::mt19937_64 rng(7);
  proptests::GeneratedProgram p = proptests::generateProgram(session, rng, 200);
  std::size_t nodes = session.nodeCount();
  std::vector<const ops::Node *> before;
  for (const std::string &n : p.names) before.push_back(session.lookup(n));
  // Running the same statements again (rebinding the same names) makes no new node.
  int line = 0;
  for (const std::string &l : p.lines)
    // (inputs and draws are made once: a second draw is a second sample, never merged)
    if (l.find("input(") == std::string::npos && l.find("random.") == std::string::npos && l.rfind("param", 0) != 0)
      session.execute(l, ++line);
  EXPECT_EQ(session.nodeCount(), nodes);
  for (std::size_t i = 0; i < p.names.size(); ++i) EXPECT_EQ(session.lookup(p.names[i]), before[i]) << p.names[i];
}

TEST(Graph, RefusesBadNamesAndArguments) {
  Solver solver;
  ops::Graph g(solver);
  Expr n = g.param("n");
  EXPECT_THROW(g.param("n"), NameError);
  EXPECT_THROW(g.param("_k"), NameError);
  const ops::Node *x = g.input("x", ops::DType::Float64, shapeOf({n}));
  EXPECT_THROW(g.input("x", ops::DType::Float64, shapeOf({n})), NameError);
  EXPECT_THROW(g.reduce("sum", x, std::vector<int64_t>{1}, false), ops::OpError);
  EXPECT_THROW(g.transpose(x, std::vector<int64_t>{0, 0}), ops::OpError);
  EXPECT_THROW(g.unary("negative", g.input("b", ops::DType::Bool, shapeOf({n}))), ops::OpError);
}

TEST(Graph, MaxOfAnEmptyAxisIsAShapeErrorWithNumpysMessage) {
  Solver solver;
  ops::Graph g(solver);
  const ops::Node *x = g.input("x", ops::DType::Float64, shapeOf({0, 3}));
  const ops::Node *r = g.reduce("max", x, std::vector<int64_t>{0}, false);
  Validity v = ops::validityOf(g, r);
  EXPECT_EQ(v.status(), Status::Error);
  EXPECT_EQ(v.message(), "zero-size array to reduction operation maximum which has no identity");
  // Reducing the other axis is fine: the result is empty, nothing is reduced over nothing.
  EXPECT_EQ(ops::validityOf(g, g.reduce("max", x, std::vector<int64_t>{1}, false)).status(), Status::Valid);
}

TEST(Graph, MaskSizesAreBoundedDataDependentSizes) {
  Solver solver;
  ops::Graph g(solver);
  Expr n = g.param("n");
  const ops::Node *x = g.input("x", ops::DType::Float64, shapeOf({n}));
  const ops::Node *mask = g.binary("greater", x, g.literal(0.0, ops::DType::Float64), BroadcastMode::Numpy);
  const ops::Node *picked = g.index(x, {{ops::IndexEntry::Array, std::nullopt, std::nullopt, 1}}, mask);
  ASSERT_TRUE(picked->dataSize);
  EXPECT_EQ(picked->shape[0], *picked->dataSize);
  // picked + x needs _k == n or one of them 1: it depends on the data.
  Validity v = ops::validityOf(g, g.binary("add", picked, x, BroadcastMode::Numpy));
  EXPECT_EQ(v.status(), Status::RuntimeCheck);
  // The bound _k <= n is known: _k <= n + 1 is proven.
  Context c = g.contextFor({*picked->dataSize});
  EXPECT_TRUE(solver.proves(c, le(*picked->dataSize, n + 1)));
}

RC_GTEST_PROP(Programs, ReferenceKernelsAgreeWithShapeRules, ()) {
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  std::mt19937_64 rng(seed);
  Solver solver;
  driver::Session session(solver, {});
  proptests::GeneratedProgram p = proptests::generateProgram(session, rng, 10);
  const ops::Graph &g = session.graph();
  for (int trial = 0; trial < 3; ++trial) {
    // Small sizes, 0 and 1 often: where broadcasting and slicing rules change.
    int64_t n = int64_t(rng() % 5), m = int64_t(rng() % 5);
    interp::InterpreterOptions options;
    options.seed = seed;
    interp::Interpreter in(g, Assignment{{"n", n}, {"m", m}}, {}, options);
    for (const std::string &name : p.names) {
      const ops::Node *node = session.lookup(name);
      bool shapeError = false;
      try {
        in.evaluate(node);
      } catch (const interp::EvalError &e) {
        if (e.kind != interp::EvalError::Shape) continue; // an index value out of range, ...
        shapeError = true;
      }
      Validity v = ops::validityOf(g, node);
      std::optional<bool> valid;
      try {
        valid = evaluate(v.domain(), in.point());
      } catch (const NameError &) {
        continue; // a data-dependent size that was never computed
      }
      // Undefined (an exact division that does not divide) does not hold (DESIGN §3.3).
      const bool holdsHere = valid == true;
      if (shapeError == holdsHere) {
        std::string program;
        for (const std::string &l : p.lines) program += l + "\n";
        RC_FAIL(name + (shapeError ? " raised a shape error where its validity holds" : " ran where its validity fails") +
                " at n = " + std::to_string(n) + ", m = " + std::to_string(m) + "; validity " + v.domain().toString() +
                "\n" + program);
      }
    }
  }
}
