// The session (lang/Session.h): replies, status memo, columns and carets, UTF-8.

#include <filesystem>
#include <fstream>

#include "ops/OpList.h"

#include "tests/lang/ProgramFixtures.h"

using namespace shapelab;
using namespace shapelab::fixtures;

// A reply's status is remembered per pending list, but not one some solver answer of which the
// clock cut short. Each of x and y has sizes somewhere, and only isl proves that no point gives
// both (the joint question, asked for z). Asked past the clock, z's status is unknown; the same
// array named again once there is time is an error, as a fresh session says at once.
// An update repeated, as a loop body writes it: `x = x * y` reads the same shape and check every
// time, as NumPy computes the same array shape every time (it nested one level deeper per
// statement, and gained a check per statement).
TEST(Session, ARepeatedBroadcastingUpdateKeepsItsShapeAndCheck) {
  Solver solver;
  lang::Session session(solver, {});
  session.execute("param n, m", 1);
  session.execute("x = input((n, 1), float64)", 2);
  session.execute("y = input((m, 1), float64)", 3);
  session.execute("b = input((1, m), float64)", 4);
  session.execute("x0 = x", 4);
  const std::string expected = "x: (n if m == 1 else m, m) float64, runtime-check: n == 1 or m == 1 or n == m";
  const std::string limits = "  limits: m*(n if m == 1 else m) <= 9223372036854775807";
  for (int k = 0; k < 12; ++k) {
    // Both operands again, in either order, and the result beside the operand it came from.
    lang::Reply r = session.execute(k % 3 == 2 ? "x = (y * x + b) * x0" : k % 2 ? "x = y * x + b" : "x = x * y + b", 5 + k);
    ASSERT_EQ(r.lines().size(), 2u);
    EXPECT_EQ(r.lines()[0], expected) << "statement " << k + 1;
    EXPECT_EQ(r.lines()[1], limits) << "statement " << k + 1;
  }
}

// Every name the language gives a meaning (constants, modules, functions, dtypes, keywords, the
// reserved '_' names) and a plain one: `NAME = 7` is either refused, or `y = NAME` then reads 7.
// A binding that is accepted and never read ('True = 1', where True reads as the constant) is
// a silently wrong program.
TEST(Session, AnAcceptedAssignmentReadsBack) {
  lang::SessionOptions so;
  so.json = true;
  int refused = 0;
  for (const char *name : {"True", "False", "None", "np", "numpy", "random", "linalg", "sum", "input", "where",
                           "float32", "int64", "bool", "param", "assume", "mode", "_k1", "_", "plain"}) {
    Solver solver;
    lang::Session session(solver, so);
    if (session.execute(std::string(name) + " = 7", 1).failed) {
      ++refused;
      continue;
    }
    lang::Reply r = session.execute(std::string("y = ") + name, 2);
    ASSERT_FALSE(r.failed) << name;
    const nlohmann::json j = nlohmann::json::parse(r.lines().at(0));
    EXPECT_EQ(j.value("value", nlohmann::json()), "7") << name << " = 7 was accepted, and then y = " << name << " read " << r.lines().at(0);
  }
  // True, False, None, the three keywords and the two '_' names.
  EXPECT_EQ(refused, 8);
}

// A statement that is an expression alone replied "names starting with '_' are reserved" for
// every value (it was assigned to the reserved name `_`). It now shows its value as `_`, binds
// no name, and its arrays belong to the program (an error among them is in the error domain).
TEST(Session, ABareExpressionShowsItsValue) {
  Solver solver;
  lang::Session session(solver, {});
  for (const char *line : {"param n", "x = input((n,), float64)", "w = input((3,), float64)", "s = \"abc\""})
    ASSERT_FALSE(session.execute(line, 1).failed) << line;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"x", "_: (n,) float64, valid"}, {"x + 1", "_: (n,) float64, valid"}, {"1 + 2", "_: 3"},
      {"n", "_: n"},                    {"(1, 2)", "_: (1, 2)"},           {"s", "_: a string"},
      {"float32", "_: a dtype"},        {"np", "_: a module"},             {"np.linalg", "_: a module"},
      {"np.random", "_: a module"},     {"np.sum", "_: a function"},       {"np.random.normal", "_: a function"}};
  int k = 2;
  for (const auto &[line, expected] : cases) {
    lang::Reply r = session.execute(line, ++k);
    ASSERT_FALSE(r.failed) << line << ": " << (r.lines().empty() ? "" : r.lines()[0]);
    ASSERT_EQ(r.lines().size(), 1u) << line;
    EXPECT_EQ(r.lines()[0], expected) << line;
  }
  // Nothing is bound to `_`, and `x` keeps its name in the graph.
  EXPECT_TRUE(session.execute("y = _", ++k).failed);
  EXPECT_EQ(session.lookup("_"), nullptr);
  const ops::Node *x = session.lookup("x");
  ASSERT_NE(x, nullptr);
  lang::Reply graph = session.execute(":graph x", ++k);
  ASSERT_FALSE(graph.failed);
  std::string shown;
  for (const std::string &l : graph.lines()) shown += l + "\n";
  EXPECT_NE(shown.find("x"), std::string::npos) << shown;
  // A bare expression that cannot always be computed is part of the program: its sizes are in
  // the error domain.
  const std::string none = session.execute(":errors", ++k).lines().at(0);
  EXPECT_NE(none.find("empty"), std::string::npos) << none;
  // A module is named as one in messages too.
  lang::Reply subscript = session.execute("z = np[0]", ++k);
  ASSERT_TRUE(subscript.failed);
  EXPECT_NE(subscript.lines().at(0).find("a module is not subscriptable"), std::string::npos) << subscript.lines().at(0);
  lang::Reply bad = session.execute("x + w", ++k);
  ASSERT_FALSE(bad.failed);
  EXPECT_EQ(bad.lines().at(0).rfind("_: ", 0), 0u) << bad.lines().at(0);
  EXPECT_NE(bad.lines().at(0).find("runtime-check: n == 3 or n == 1"), std::string::npos) << bad.lines().at(0);
  const std::string some = session.execute(":errors", ++k).lines().at(0);
  EXPECT_EQ(some.find("empty"), std::string::npos) << some;
}

// `x, y = 1, 2` was a syntax error (unexpected ','): a tuple needed its parentheses. Values
// separated by commas are a tuple, as in Python, on the right of an assignment and alone.
TEST(Session, ATupleNeedsNoParentheses) {
  Solver solver;
  lang::Session session(solver, {});
  int k = 0;
  auto says = [&](const std::string &line) {
    lang::Reply r = session.execute(line, ++k);
    std::string out;
    for (const std::string &l : r.lines()) out += (out.empty() ? "" : "\n") + l;
    return (r.failed ? "failed: " : "") + out;
  };
  ASSERT_EQ(says("param n, m"), "");
  EXPECT_EQ(says("x, y = 1, 2"), "x: 1\ny: 2");
  EXPECT_EQ(says("t = n, m"), "t: (n, m)");
  EXPECT_EQ(says("t2 = (n, m)"), "t2: (n, m)");
  EXPECT_EQ(says("u = n,"), "u: (n,)");
  EXPECT_EQ(says("n, m"), "_: (n, m)");
  ASSERT_EQ(says("q = input((n,), float64)"), "q: (n,) float64, valid");
  EXPECT_EQ(says("q2, q3 = q, q + 1"), "q2: (n,) float64, valid\nq3: (n,) float64, valid");
  EXPECT_EQ(session.lookup("q2"), session.lookup("q"));
  EXPECT_EQ(says("c, d = 1, 2, 3").rfind("failed: error: expected 2 values to unpack, got 3", 0), 0u);
  EXPECT_EQ(says("e = 1,,").rfind("failed: error: expected an expression, found ','", 0), 0u);
  // input(...) must still be the whole right-hand side.
  EXPECT_EQ(says("z = input((n,), float64), 1").rfind("failed: error: input(...) must be the whole right-hand side", 0), 0u);
}

// An error at a character outside ASCII named its first byte alone (`unexpected character
// '\xc3'`, half of `é`, raw), and the caret was placed by bytes, so it stood one column right of
// its place for every `é` before it. Whole characters are now named, stray bytes escaped, and
// the caret counts columns.
TEST(Session, ErrorsNameWholeCharactersAndTheCaretCountsColumns) {
  Solver solver;
  lang::Session session(solver, {});
  auto reply = [&](const std::string &line) {
    lang::Reply r = session.execute(line, 1);
    EXPECT_TRUE(r.failed) << line;
    return r.lines().at(0);
  };
  EXPECT_EQ(reply("v = \xc3\xa9"), "error: unexpected character '\xc3\xa9' at column 5\n  v = \xc3\xa9\n      ^");
  EXPECT_EQ(reply("w = 1 +\xe9"), "error: unexpected character '\\xe9' at column 8\n  w = 1 +\\xe9\n         ^");
  EXPECT_EQ(reply("x = \"\xc3\xa9\" + $"), "error: unexpected character '$' at column 12\n  x = \"\xc3\xa9\" + $\n            ^");
  // Wide characters take two columns.
  EXPECT_EQ(reply("y = \"\xe6\x97\xa5\xe6\x9c\xac\" ` 1"),
            "error: unexpected character '`' at column 14\n  y = \"\xe6\x97\xa5\xe6\x9c\xac\" ` 1\n             ^");
  lang::SessionOptions so;
  so.json = true;
  lang::Session json(solver, so);
  EXPECT_EQ(json.execute("w = 1 +\xe9", 1).lines().at(0), "{\"line\": 1, \"error\": \"unexpected character '\\\\xe9'\", \"column\": 8}");
}

// The class: whatever bytes a line holds, every reply is well-formed UTF-8 (valid JSON with
// --json), and a failure ends with its text and caret lines.
TEST(Session, EveryReplyIsWellFormedUtf8) {
  Solver solver;
  const std::vector<std::string> pieces = {"x", " = ", "input((n,), float64)", "\"", "\xc3\xa9", "\xe6\x97\xa5",
                                           "\xe9",  "\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "\x01",
                                           "\t", "+", "(", "$", ":shape ", "\xf0\x9f\x98\x80", "1"};
  const bool ok = rc::check("replies are well-formed UTF-8", [&] {
    const auto parts = *rc::gen::container<std::vector<std::size_t>>(rc::gen::inRange<std::size_t>(0, pieces.size()));
    std::string line;
    for (std::size_t p : parts) line += pieces[p];
    for (bool asJson : {false, true}) {
      lang::SessionOptions so;
      so.json = asJson;
      lang::Session session(solver, so);
      session.execute("param n", 1);
      session.execute("x = input((n,), float64)", 2);
      lang::Reply r = session.execute(line, 3);
      for (const std::string &l : r.lines()) {
        RC_ASSERT(shapelab::testutil::wellFormedUtf8(l));
        if (asJson) RC_ASSERT(nlohmann::json::parse(l).is_object());
      }
      if (r.failed && !asJson) {
        const std::string &l = r.lines().at(0);
        const std::size_t caretLine = l.rfind('\n');
        RC_ASSERT(caretLine != std::string::npos && caretLine > 0 && l.rfind('\n', caretLine - 1) != std::string::npos);
        RC_ASSERT(l.find_first_not_of(' ', caretLine + 1) == l.size() - 1 && l.back() == '^');
      }
    }
  });
  EXPECT_TRUE(ok);
}

TEST(Session, AStatusTheClockCutShortIsNotRemembered) {
  const std::vector<std::string> before = {"param n, m", "x = input(((n + m) % 2 - 1,))",
                                           "y = input((n % 2 - m % 2, m % 2 - n % 2))"};
  const std::string joint = "z = sum(x) + sum(y)";
  auto status = [](const lang::Reply &r) { return nlohmann::json::parse(r.lines().at(0)).at("status").get<std::string>(); };
  lang::SessionOptions so;
  so.json = true;
  {
    Solver fresh;
    lang::Session s(fresh, so);
    for (const std::string &line : before) s.execute(line, 1);
    EXPECT_EQ(status(s.execute(joint, 2)), "error");
  }
  Solver solver;
  lang::Session session(solver, so);
  for (const std::string &line : before) session.execute(line, 1);
  solver.limitTotalTime(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(status(session.execute(joint, 2)), "unknown") << "the clock did not cut the question short: the test shows nothing";
  EXPECT_GE(solver.stats().unkept, 1u);
  solver.limitTotalTime(0);
  EXPECT_EQ(status(session.execute("w = z", 3)), "error");
}

// `;` separates statements on one line (not inside brackets, strings or a comment), each with
// the line's columns.
TEST(Session, SemicolonsSeparateStatements) {
  Solver solver;
  lang::Session session(solver, {});
  const lang::Reply r = session.execute("param n; x = input((n,), float64); y = x[0:2]  # a; b", 1);
  ASSERT_FALSE(r.failed) << r.lines().front();
  ASSERT_NE(session.lookup("y"), nullptr);
  EXPECT_EQ(toString(session.lookup("y")->shape), "(min(2, n),)");
  const lang::Reply bad = session.execute("z = x + 1; w = x +", 2);
  EXPECT_TRUE(bad.failed);
  EXPECT_NE(session.lookup("z"), nullptr); // the first statement ran
  ASSERT_GE(bad.lines().size(), 2u);
  EXPECT_NE(bad.lines()[1].find("at column 19"), std::string::npos) << bad.lines()[1];
}

// :help NAME (a command or an op, by any name its signature gives), :ops PATTERN, and options
// a command lacks.
TEST(Session, HelpOfOneNameOpsByPatternAndUnknownOptions) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param n", "x = input((n,), float64)", "y = x + 1"}));
  lang::Reply h = session.execute(":help argsort", 4);
  ASSERT_FALSE(h.failed);
  EXPECT_EQ(h.lines().at(0).rfind("sort: sort(a, axis=-1) / argsort(", 0), 0u) << h.lines().at(0);
  EXPECT_NE(session.execute(":help :errors", 5).lines().at(0).find("error domain"), std::string::npos);
  EXPECT_TRUE(refusedWith(session, ":help frobnicate", "no command or op named 'frobnicate'"));
  lang::Reply o = session.execute(":ops FLIP", 6);
  ASSERT_EQ(o.lines().size(), 1u);
  EXPECT_NE(o.lines()[0].find("flip(m, axis=None)"), std::string::npos);
  EXPECT_TRUE(refusedWith(session, ":ops zzz", "no op's name or signature holds 'zzz'"));
  EXPECT_TRUE(refusedWith(session, ":optimize y --bogus", "unknown option '--bogus'"));
  EXPECT_TRUE(refusedWith(session, ":errors --limit", "unknown option '--limit'"));
  EXPECT_TRUE(refusedWith(session, ":eval y with n=1, n=2", "'n' is given twice"));
}

// :load runs a script's statements in the session (continuation lines joined, errors reported
// with the file's line and the rest run); :save-session writes the statements that ran as a
// script that a fresh session replays to the same names and shapes.
TEST(Session, LoadAndSaveSession) {
  const std::string dir = ::testing::TempDir();
  const std::string script = dir + "/load_me.shl", saved = dir + "/saved.shl";
  {
    std::ofstream f(script);
    f << "param n\nx = input((n,\n           2), float64)\ny = x.sum(axis=0)\nz = x +\nw = y * 2  # after an error\n";
  }
  Solver solver;
  lang::Session session(solver, {});
  const lang::Reply r = session.execute(":load " + script, 1);
  ASSERT_FALSE(r.lines().empty());
  EXPECT_NE(r.lines().back().find("5 statements, 1 failed"), std::string::npos) << r.lines().back();
  bool located = false;
  for (const std::string &l : r.lines()) located |= l.find("load_me.shl:5: error") != std::string::npos;
  EXPECT_TRUE(located);
  ASSERT_NE(session.lookup("w"), nullptr);
  ASSERT_FALSE(session.execute("v = w + x[0]; :save-session " + saved, 2).failed);
  lang::Session fresh(solver, {});
  std::ifstream in(saved);
  int k = 0;
  for (std::string l; std::getline(in, l);) ASSERT_FALSE(fresh.execute(l, ++k).failed) << l;
  EXPECT_EQ(k, 5); // param, x, y, w, v: not the failed statement, not the commands
  for (const char *name : {"x", "y", "w", "v"})
    EXPECT_EQ(toString(fresh.lookup(name)->shape), toString(session.lookup(name)->shape)) << name;
  EXPECT_TRUE(refusedWith(session, ":load /nonexistent/x.shl", "cannot read '/nonexistent/x.shl'"));
}

// Completion candidates by context: commands after ':', the op list after `np.`, else the
// session's names, keywords and ops.
TEST(Session, CompletionsByContext) {
  Solver solver;
  lang::Session session(solver, {});
  ASSERT_TRUE(executesAll(session, {"param n", "xs = input((n,), float64)", "xt = xs + 1"}));
  EXPECT_EQ(session.completions(":exp"), std::vector<std::string>{":explain"});
  EXPECT_EQ(session.completions(":save"), (std::vector<std::string>{":save", ":save-session"}));
  EXPECT_EQ(session.completions("np.linalg.sv"), std::vector<std::string>{"np.linalg.svd"});
  EXPECT_EQ(session.completions("x"), (std::vector<std::string>{"xs", "xt"}));
  const std::vector<std::string> p = session.completions("pa");
  EXPECT_NE(std::find(p.begin(), p.end(), "param"), p.end());
  EXPECT_NE(std::find(p.begin(), p.end(), "pad"), p.end());
  EXPECT_TRUE(session.completions("np.zzz").empty());
}

// Every op of the catalogue has an example, and `:help` runs it: no example is refused, each
// gives an array (a "gives" line), and the JSON reply carries the same call with its result.
// A few results are known by hand: the example shows the op's validity conditions.
TEST(Session, HelpRunsEveryOpsExample) {
  Solver solver;
  lang::Session session(solver, {});
  lang::SessionOptions jsonOptions;
  jsonOptions.json = true;
  lang::Session json(solver, jsonOptions);
  int k = 0;
  for (const ops::OpInfo &o : ops::opCatalogue()) {
    ASSERT_FALSE(o.example.empty()) << o.name << " has no example";
    const lang::Reply r = session.execute(":help np." + o.name, ++k); // (np.shape: not the command)
    ASSERT_FALSE(r.failed) << o.name;
    const std::string text = r.lines().at(0);
    EXPECT_NE(text.find("\n  example: " + o.example), std::string::npos) << text;
    EXPECT_NE(text.find(o.name == "shape" ? "\n    gives k*n, valid" : "\n    gives ("), std::string::npos) << o.name << ":\n" << text;
    const lang::Json j = lang::Json::parse(json.execute(":help np." + o.name, k).lines().at(0));
    EXPECT_EQ(j["example"]["call"], o.example);
    EXPECT_FALSE(j["example"]["result"].contains("error")) << j.dump();
    EXPECT_TRUE(j["example"]["result"].contains(o.name == "shape" ? "value" : "shape")) << j.dump();
  }
  auto help = [&](const std::string &name) { return session.execute(":help " + name, ++k).lines().at(0); };
  EXPECT_NE(help("reshape").find("example: np.reshape(x, (m, -1))  (x: (n, m) float64)\n    gives (m, n) float64, runtime-check: m >= 1"),
            std::string::npos) << help("reshape");
  EXPECT_NE(help("linalg.inv").find("gives (n, n) float64, runtime-check: n == m"), std::string::npos) << help("linalg.inv");
  EXPECT_NE(help("add").find("example: x + w  (x: (n, m) float64, w: (k,) float64)"), std::string::npos) << help("add");
  EXPECT_NE(help("add").find("\n  call: np.add(x1, x2)\n"), std::string::npos) << help("add");
  EXPECT_NE(help("sort").find("\n  call: np.sort(a, axis=-1, kind=None, order=None)\n"), std::string::npos) << help("sort");
  EXPECT_NE(help("einsum").find("(x: (n, m) float64, y: (m, k) float64)\n"), std::string::npos) << help("einsum");
}

// Completion of a whole line: a file name in the string of `load("` and after :load (from the
// session's directory, '/' after a directory, hidden files only when asked), else a name.
TEST(Session, CompletionOfFileNames) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "completion";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "data");
  for (const char *f : {"data/a.npy", "data/b.npy", "script.shl", ".hidden"}) std::ofstream(dir / f) << "";
  Solver solver;
  lang::SessionOptions options;
  options.baseDirectory = dir.string();
  lang::Session session(solver, options);
  ASSERT_TRUE(executesAll(session, {"param n", "xs = input((n,), float64)"}));
  using Words = std::vector<std::string>;
  lang::Session::Completion c = session.complete("y = np.load(\"da");
  EXPECT_EQ(c.start, 13u);
  EXPECT_TRUE(c.fileName);
  EXPECT_EQ(c.words, Words{"data/"});
  EXPECT_EQ(session.complete("y = load('data/").words, (Words{"data/a.npy", "data/b.npy"}));
  EXPECT_EQ(session.complete(":load s").words, Words{"script.shl"});
  EXPECT_EQ(session.complete(":load .h").words, Words{".hidden"});
  EXPECT_EQ(session.complete(":save-session ").words, (Words{"data/", "script.shl"}));
  // Not a file name: a closed string, a string of another call, a name, an op after an operator.
  EXPECT_FALSE(session.complete("y = load(\"data/a.npy\") + x").fileName);
  EXPECT_FALSE(session.complete("y = reload(\"d").fileName);
  c = session.complete("z = xs+np.linalg.sv");
  EXPECT_EQ(c.start, 7u);
  EXPECT_EQ(c.words, Words{"np.linalg.svd"});
  EXPECT_EQ(session.complete("z = (x").words, Words{"xs"});
}
