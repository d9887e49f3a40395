// The graph IR (ops/Graph.h): interning, the operand table, remembered slice lengths and broadcasts, contexts of data-dependent sizes, rebuilding.

#include "tests/lang/ProgramFixtures.h"

#include <set>
#include <unordered_map>

using namespace shapelab;
using namespace shapelab::fixtures;

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
  lang::Session session(solver, {});
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

// Found by the kernels-vs-shape-rules property in the sanitizer build: the bound of a mask's
// data-dependent size (at most its operand's element count, 2*(_k1 / 2) after reshape(v, (2, -1)))
// was partial, so the context left out the odd _k1 where the reshape fails, and the mask of the
// reshaped array read as valid.
TEST(Graph, MaskOfAReshapeKeepsTheReshapesRequirement) {
  Solver solver;
  lang::Session session(solver, {});
  int line = 0;
  for (const char *l : {"param m", "x = input((1, m), int32)", "v = x[x > 0]", "r = reshape(v, (2, -1))", "w = r[r > 0]"})
    ASSERT_FALSE(session.execute(l, ++line).failed) << l;
  Validity w = ops::validityOf(session.graph(), session.lookup("w"));
  EXPECT_EQ(w.status(), Status::RuntimeCheck);
  EXPECT_FALSE(holds(w.domain(), Assignment{{"_k1", 1}, {"_k2", 0}, {"m", 1}})) << w.domain().toString();
  EXPECT_TRUE(holds(w.domain(), Assignment{{"_k1", 2}, {"_k2", 0}, {"m", 2}})) << w.domain().toString();
}

// A clipped slice bound whose two cases agree at every size is one expression: x[-n:] of a
// length-n axis is the whole axis, (n,), not n - (0 if -n < 0 else -n) (the choice would nest
// in every shape built on it, and every later question would carry it).
TEST(Graph, SliceBoundsWhoseCasesAgreeAreOneExpression) {
  Solver solver;
  ops::Graph g(solver);
  Expr n = g.param("n"), m = g.param("m");
  const ops::Node *x = g.input("x", ops::DType::Float64, shapeOf({n}));
  const ops::Node *tail = g.index(x, {{ops::IndexEntry::Slice, -n, std::nullopt, 1}});
  EXPECT_EQ(tail->shape[0], n);
  const ops::Node *strided = g.index(x, {{ops::IndexEntry::Slice, -n, m, 2}});
  EXPECT_EQ(strided->shape[0].toString(), "(min(m, n) + 1) // 2");
  // A choice whose branches differ but are each one constant where taken is that constant:
  // on an axis of length 1, -n clips to max(0, 1 - n) for n >= 1 and is -n = 0 at n = 0 —
  // the start is 0, and x[:, -n:] of an (n, 1) array is (n, 1).
  const ops::Node *column = g.input("column", ops::DType::Float64, shapeOf({n, Expr(1)}));
  const ops::Node *all = g.index(column, {{ops::IndexEntry::Slice, std::nullopt, std::nullopt, 1},
                                          {ops::IndexEntry::Slice, -n, std::nullopt, 1}});
  EXPECT_EQ(all->shape[1], Expr(1)) << all->shape[1].toString();
  // Cases that differ stay a choice: x[1 - n:] starts at 1 for n = 0 (empty), at 0 for n = 1
  // (the whole axis), and at -(n - 1) after that (the last n - 1 elements).
  const ops::Node *most = g.index(x, {{ops::IndexEntry::Slice, 1 - n, std::nullopt, 1}});
  const int64_t expected[][2] = {{0, 0}, {1, 1}, {2, 1}, {5, 4}};
  for (const auto &[v, length] : expected)
    EXPECT_EQ(evaluate(most->shape[0], Assignment{{"n", v}}), std::optional<Integer>(length)) << v;
}

// A slice's length is remembered per (assumptions, axis length, bounds, step), so that a program
// slicing one axis the same way again asks the solver nothing. A length built while the clock
// had cut a solver answer short is not remembered: once there is time, the same slice of another
// array gets the length the solver proves, and that one is then kept.
TEST(Graph, SliceLengthsAreRememberedOnlyWhenNoAnswerWasCutShort) {
  auto sliceFrom = [](ops::Graph &g, const char *name, const Expr &start) {
    const ops::Node *x = g.input(name, ops::DType::Float64, shapeOf({Expr::param("n")}));
    return g.index(x, {{ops::IndexEntry::Slice, start, std::nullopt, 1}})->shape[0];
  };
  // 0 at every size, which only isl proves: the start's sign is open to intervals.
  const Expr start = parseExpr("(a + b) % 2 - (a % 2 + b % 2) % 2");
  auto declare = [](ops::Graph &g) {
    for (const char *p : {"n", "a", "b"}) g.param(p);
  };
  Solver reference;
  ops::Graph fresh(reference);
  declare(fresh);
  const Expr proven = sliceFrom(fresh, "x", start);

  Solver solver; // 1 s per question
  ops::Graph g(solver);
  declare(g);
  solver.limitTotalTime(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const Expr cutShort = sliceFrom(g, "x", start);
  EXPECT_GE(solver.stats().unkept, 1u);
  EXPECT_NE(cutShort, proven) << "the clock did not change the length: the test shows nothing";
  solver.limitTotalTime(0);
  EXPECT_EQ(sliceFrom(g, "y", start), proven);
  // Now kept: past the clock again, a third array's slice still gets it, with no answer cut short.
  solver.limitTotalTime(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const uint64_t unkept = solver.stats().unkept;
  const std::size_t remembered = g.stats().sliceLengthsRemembered;
  EXPECT_EQ(sliceFrom(g, "z", start), proven);
  EXPECT_EQ(g.stats().sliceLengthsRemembered, remembered + 1);
  EXPECT_EQ(solver.stats().unkept, unkept);
  solver.limitTotalTime(0);
}

// Broadcasts of operand shapes are remembered per graph (an elementwise op over shapes met
// before repeats the first one's shape, obligations and decisions), but not one the clock cut
// short. Property: over random pairs of shapes, an op whose broadcast was remembered has the
// shape and obligations of the same op built in a fresh graph.
TEST(Graph, BroadcastsAreRememberedOnlyWhenNoAnswerWasCutShort) {
  auto declare = [](ops::Graph &g) {
    for (const char *p : {"n", "a", "b"}) g.param(p);
  };
  const std::vector<std::string> dims = {"n", "1", "a", "a + 1", "(a + b) % 2 - (a % 2 + b % 2) % 2 + 1", "n - a", "2"};
  Solver solver;
  ops::Graph g(solver);
  declare(g);
  std::mt19937_64 rng(43);
  int made = 0;
  for (int k = 0; k < 200; ++k) {
    Shape s1, s2;
    for (int i = int(rng() % 3); i-- > 0;) s1.push_back(parseExpr(dims[rng() % dims.size()]));
    for (int i = int(rng() % 3); i-- > 0;) s2.push_back(parseExpr(dims[rng() % dims.size()]));
    const ops::Node *x = g.input("x" + std::to_string(made), ops::DType::Float64, s1);
    const ops::Node *y = g.input("y" + std::to_string(made++), ops::DType::Float64, s2);
    const std::size_t before = g.stats().broadcastsRemembered;
    const ops::Node *z = g.binary("add", x, y, BroadcastMode::Numpy);
    if (g.stats().broadcastsRemembered == before) continue; // computed here: nothing to compare
    Solver other;
    ops::Graph h(other);
    declare(h);
    const ops::Node *w = h.binary("add", h.input("x", ops::DType::Float64, s1),
                                  h.input("y", ops::DType::Float64, s2), BroadcastMode::Numpy);
    EXPECT_EQ(z->shape, w->shape) << toString(s1) << " + " << toString(s2);
    std::vector<std::pair<Pred, Answer>> zo, wo;
    for (const Obligation &o : z->validity.obligations()) zo.push_back({o.predicate, o.decision.answer});
    for (const Obligation &o : w->validity.obligations()) wo.push_back({o.predicate, o.decision.answer});
    EXPECT_EQ(zo, wo) << toString(s1) << " + " << toString(s2);
  }
  EXPECT_GE(g.stats().broadcastsRemembered, 40u);

  // Past the clock, the 0-at-every-size dim is left undecided and the broadcast is not kept:
  // once there is time, the same shapes get the decided answer.
  const Shape hard = {parseExpr("(a + b) % 2 - (a % 2 + b % 2) % 2 + 1")}, byN = {Expr::param("n")};
  Solver clocked;
  ops::Graph c(clocked);
  declare(c);
  clocked.limitTotalTime(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const ops::Node *cut = c.binary("add", c.input("p", ops::DType::Float64, hard),
                                  c.input("q", ops::DType::Float64, byN), BroadcastMode::Numpy);
  EXPECT_GE(clocked.stats().unkept, 1u) << "the clock cut nothing short: the test shows nothing";
  clocked.limitTotalTime(0);
  const std::size_t remembered = c.stats().broadcastsRemembered;
  const ops::Node *later = c.binary("add", c.input("r", ops::DType::Float64, hard),
                                    c.input("s", ops::DType::Float64, byN), BroadcastMode::Numpy);
  EXPECT_EQ(c.stats().broadcastsRemembered, remembered) << "a broadcast the clock cut short was kept";
  EXPECT_EQ(toString(later->shape), "(n,)");
  EXPECT_NE(cut->shape, later->shape) << toString(cut->shape);
}

// The context of a data-dependent size (its bound joins the assumptions) is remembered per
// set of sizes, but not one whose point the clock kept from being found: asked again once
// there is time, it has one. The mask's size k is at most x's size n - 5, which the graph's own
// point (n = 0, k = 0) does not satisfy, so that isl is asked for a point.
TEST(Graph, AContextTheClockCutShortIsNotRemembered) {
  Solver solver;
  lang::Session session(solver, {});
  Expr k(0);
  maskPastTheClock(solver, session, "(n - 5,)", k);
  if (HasFatalFailure()) return;
  const Context early = session.graph().contextFor({k});
  EXPECT_FALSE(early.consistencyProven()) << "the clock did not cut the search short: the test shows nothing";
  EXPECT_GE(solver.stats().unkept, 1u);
  solver.limitTotalTime(0);
  EXPECT_TRUE(session.graph().contextFor({k}).consistencyProven());
}

// A mask's size k over x of size n has the bound k <= n, which the graph's own point (n = 0) with
// k = 0 satisfies: that point is the context's, found without isl, so that even with the clock
// run out the context is proven consistent (before, isl was asked for a point for every mask:
// 8% of the property harness's time).
TEST(Graph, AMasksContextTakesTheGraphsPointWhenItFits) {
  Solver solver;
  lang::Session session(solver, {});
  Expr k(0);
  maskPastTheClock(solver, session, "(n,)", k);
  if (HasFatalFailure()) return;
  const Context c = session.graph().contextFor({k});
  EXPECT_TRUE(c.consistencyProven());
  EXPECT_EQ(c.samplePoint(), (Assignment{{k->name, 0}, {"n", 0}}));
  solver.limitTotalTime(0);
}

// Graph::rebuild passes a node's attributes back to its factory. argmax over every axis keeps
// them as a list of every axis, which argmax refuses (one axis or none): the rebuild of
// argmax(x) over an operand of another shape threw, and the rewriter kept the old node over its
// old operands. Over alike operands the node is copied; with rebuild checks on, the factory
// runs as well and must make the copy.
TEST(Graph, ArgmaxOverEveryAxisIsRebuiltOverNewOperands) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param n, m", "x = input((n, m), float64)", "y = input((m, n + 1), float64)",
                                    "z = input((n, m), float64)", "a = argmax(x)", "b = argmin(x, axis=1)"}));
  ops::Graph &g = session.mutableGraph();
  const ops::Node *a = session.lookup("a"), *b = session.lookup("b"), *y = session.lookup("y"), *z = session.lookup("z");
  for (bool check : {false, true}) {
    g.setCheckRebuilds(check);
    const ops::Node *overY = g.rebuild(a, {y}); // another shape: through the factory
    EXPECT_EQ(overY->op, "argmax");
    EXPECT_EQ(overY->inputs, std::vector<const ops::Node *>{y});
    EXPECT_EQ(overY->rank(), 0u);
    EXPECT_EQ(overY->attrs, a->attrs);
    const ops::Node *overZ = g.rebuild(a, {z}); // alike: copied
    EXPECT_EQ(overZ->inputs, std::vector<const ops::Node *>{z});
    EXPECT_EQ(overZ->attrs, a->attrs);
    EXPECT_EQ(overZ->shape, a->shape);
    EXPECT_EQ(g.rebuild(b, {y})->shape, (Shape{Expr::param("m")}));
    EXPECT_EQ(g.rebuild(b, {z})->shape, (Shape{Expr::param("n")}));
  }
  g.setCheckRebuilds(false);
}

// A rewrite's sweeps (readers counted, nodes visited in id order, operands looked up) read the
// graph's operand table, not the nodes: it must list every node's operands' ids, in order, for the
// nodes a program built and for those its rewriting made (replacements, readers rebuilt).
RC_GTEST_PROP(Graph, OperandTableListsEveryNodesOperandsInOrder, ()) {
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  Solver solver;
  lang::Session session(solver, {});
  std::mt19937_64 rng(seed);
  proptests::GeneratedProgram p = proptests::generateProgram(session, rng, *rc::gen::inRange(1, 40));
  std::vector<const ops::Node *> outputs;
  for (const std::string &n : p.names)
    if (const ops::Node *node = session.lookup(n)) outputs.push_back(node);
  const std::size_t built = session.nodeCount();
  rewrite::Engine engine(session.mutableGraph(), rewrite::defaultRules());
  engine.run(outputs);
  const std::deque<ops::Node> &nodes = session.mutableGraph().nodes();
  RC_TAG(nodes.size() > built ? "rewriting made nodes" : "rewriting made none");
  for (const ops::Node &n : nodes) {
    std::span<const uint32_t> ids = session.mutableGraph().operandIds(n.id);
    RC_ASSERT(ids.size() == n.inputs.size());
    for (std::size_t k = 0; k < ids.size(); ++k) RC_ASSERT(ids[k] == n.inputs[k]->id);
  }
}

// Every kind's attributes go back through its factory unchanged. A program with a node of each
// kind is rebuilt over alike operands (other inputs of the same shapes), with rebuild checks
// on: each node is remade through its factory from its attributes (and, where its rule reads
// only shapes, also copied, the two compared), and must come back of the same kind, op,
// attributes, dtype and shape. A factory that reads an attribute otherwise than it was
// written (an axis list for flags, a keepdims from another field) fails here.
TEST(Graph, EveryKindRebuildsFromItsAttributes) {
  using ops::DType;
  using ops::IndexEntry;
  using ops::OpKind;
  Solver solver;
  ops::Graph g(solver, {ge(Expr::param("n"), 1)});
  const Expr n = g.param("n"), m = g.param("m");
  const ops::Node *x = g.input("x", DType::Float64, shapeOf({n, m})), *x2 = g.input("x2", DType::Float64, shapeOf({n, m}));
  const ops::Node *v = g.input("v", DType::Float64, shapeOf({n})), *v2 = g.input("v2", DType::Float64, shapeOf({n}));
  const ops::Node *one = g.literal(1.0, DType::Float64);
  const auto numpy = BroadcastMode::Numpy;
  IndexEntry first;
  first.kind = IndexEntry::Integer, first.start = Expr(0);
  const ops::Node *row = g.index(x, {first, IndexEntry{}});
  std::vector<const ops::Node *> made{
      g.unary("exp", x),
      g.where(g.binary("less", x, one, numpy), x, one, numpy),
      g.astype(x, DType::Float32),
      g.transpose(x, std::vector<int64_t>{1, 0}),
      g.reshape(x, {m, n}),
      g.squeeze(g.expandDims(x, {0, -1}), std::vector<int64_t>{0}),
      g.broadcastTo(v, shapeOf({m, n})),
      g.full(shapeOf({m, n}), v, DType::Float32),
      g.concatenate({x, x}, 0),
      g.stack({x, x}, 1),
      g.setSubtensor(row, one, "inc_subtensor", numpy),
      g.reduce("sum", x, std::vector<int64_t>{1}, true),
      g.reduce("argmax", x, std::nullopt, false),
      g.blockwise("matmul", {x, g.transpose(x, std::nullopt)}, numpy),
      g.convolve(v, v),
      g.repeatIndex(g.astype(v, DType::Int64), n),
      g.searchSorted(v, x, true),
      g.diff(x, 2, 0),
      g.cumulative("cumsum", x, 0),
      g.cumulative("cumprod", x, std::nullopt),
      g.sort("sort", x, 0),
      g.sort("argsort", x, std::nullopt),
      g.random("normal", {v, one}, std::nullopt, numpy),
      g.random("normal", {v, one}, shapeOf({m, n}), numpy),
      g.specifyShape(x, {n, std::nullopt}),
      g.ifelse(gt(n, m), x, g.binary("add", x, one, numpy)),
      g.after({v}, x),
      g.check(x, ge(m, 2), "m is at least {0}", "m is below {0}", {Expr(2)}),
      g.einsum(parseEinsum("ij,i->j", {2, 1}), {x, v}, numpy)};
  for (const ops::Node *part : g.split(x, Expr(2), 1)) made.push_back(part);
  std::unordered_map<const ops::Node *, const ops::Node *> over{{x, x2}, {v, v2}};
  std::set<OpKind> seen;
  g.setCheckRebuilds(true);
  std::vector<const ops::Node *> original;
  for (const ops::Node &node : g.nodes()) original.push_back(&node);
  for (const ops::Node *node : original) {
    if (node->inputs.empty() || node == x2 || node == v2) continue;
    std::vector<const ops::Node *> in;
    for (const ops::Node *i : node->inputs) in.push_back(over.count(i) ? over.at(i) : i);
    if (in == node->inputs) continue;
    const ops::Node *r = g.rebuild(node, in);
    over[node] = r;
    seen.insert(node->kind);
    EXPECT_NE(r, node) << node->describe();
    EXPECT_EQ(r->kind, node->kind) << node->describe();
    EXPECT_EQ(r->op, node->op) << node->describe();
    EXPECT_TRUE(r->attrs == node->attrs) << node->describe();
    EXPECT_EQ(r->dtype, node->dtype) << node->describe();
    EXPECT_EQ(r->shape, node->shape) << node->describe();
    EXPECT_EQ(ops::hashAttrs(r->attrs), ops::hashAttrs(node->attrs)) << node->describe();
  }
  // Every kind with operands is among them (Arange, PadIndex and the leaves have none).
  for (unsigned k = 0; k <= unsigned(OpKind::Einsum); ++k) {
    const OpKind kind = OpKind(k);
    if (ops::hasTrait(kind, ops::trait::Leaf) || kind == OpKind::Arange || kind == OpKind::PadIndex) continue;
    EXPECT_TRUE(seen.count(kind)) << ops::kindName(kind);
  }
}

// A node's attributes are of its kind's struct; equal structs hash alike, and constants
// compare by their bits.
TEST(Graph, AttributesAreOfTheirKind) {
  using namespace ops;
  for (unsigned k = 0; k <= unsigned(OpKind::Einsum); ++k) {
    EXPECT_TRUE(attrsFit(OpKind(k), defaultAttrs(OpKind(k)))) << kindName(OpKind(k));
    EXPECT_EQ(hashAttrs(defaultAttrs(OpKind(k))), hashAttrs(defaultAttrs(OpKind(k))));
  }
  EXPECT_FALSE(attrsFit(OpKind::Diff, attr::Axis{0}));
  EXPECT_FALSE(attrsFit(OpKind::Cumsum, attr::Difference{1, 0}));
  EXPECT_TRUE(attrsFit(OpKind::Cumprod, attr::Axis{0}));
  EXPECT_FALSE(Attrs(attr::Constant{0.0, DType::Float64}) == Attrs(attr::Constant{-0.0, DType::Float64}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(Attrs(attr::Constant{nan, DType::Float64}) == Attrs(attr::Constant{nan, DType::Float64}));
  EXPECT_FALSE(Attrs(attr::NewAxes{{0}}) == Attrs(attr::Dropped{{0}}));
  EXPECT_NE(hashAttrs(attr::Reduction{{0}, true}), hashAttrs(attr::Reduction{{0}, false}));

  Solver solver;
  Graph g(solver);
  const Expr n = g.param("n");
  const Node *x = g.input("x", DType::Float64, shapeOf({n, 1}));
  const Node *e = g.expandDims(x, {0});
  EXPECT_EQ(e->kind, OpKind::ExpandDims);
  EXPECT_EQ(e->attr<attr::NewAxes>().axes, (std::vector<int64_t>{0}));
  const Node *s = g.squeeze(x, std::vector<int64_t>{-1});
  EXPECT_EQ(s->kind, OpKind::Squeeze);
  EXPECT_EQ(s->attr<attr::Dropped>().axes, (std::vector<int64_t>{1}));
  EXPECT_EQ(g.cumulative("cumprod", x, 0)->kind, OpKind::Cumprod);
  EXPECT_EQ(g.cumulative("cumsum", x, 0)->kind, OpKind::Cumsum);
  EXPECT_EQ(g.blockwise("convolve", {g.reshape(x, {Expr(-1)}), g.reshape(x, {Expr(-1)})}, BroadcastMode::Numpy)->kind,
            OpKind::Convolve);
  const std::vector<const Node *> parts = g.split(x, Expr(1), 0);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0]->kind, OpKind::Split);
  EXPECT_EQ(parts[0]->attr<attr::Sections>(), (attr::Sections{1, 0}));
  // set/inc_subtensor takes a split part as its region, as it did when parts were Index nodes.
  EXPECT_EQ(g.setSubtensor(parts[0], g.literal(0.0, DType::Float64), "set_subtensor", BroadcastMode::Numpy)->kind,
            OpKind::SetSubtensor);
}
