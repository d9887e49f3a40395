// Session — the statements of a shapelab program and the session that runs them (the REPL
// and `shapelab run`). The parts are in lang/: Lexer, Value, Parser and Literals (expressions),
// Library (the NumPy functions), Statements (assignment, guards, status), Commands.
//
// Model: one statement per line, `#` comments. A program reads as NumPy code with four extra
// statements: `param n, m` declares size parameters, `assume <predicate>` adds assumptions,
// `mode numpy|static` picks the broadcasting mode of the ops built after it, and
// `x = input(shape, dtype)` declares an input named after its variable. Expressions follow
// Python's grammar and precedence; function names, argument order and keywords are NumPy's
// (`sum(x, axis=1, keepdims=True)`, `concatenate([a, b], axis=0)`, an optional `np.` prefix).
// Integers are exact symbolic sizes until they meet an array (then a weak int64 scalar, as a
// Python int is); comparisons of sizes are predicates (for `assume` and `ifelse`).
// Commands start with ':' — :shape :explain :errors :eval :save :graph :ops :help :reset :quit.
// Every line produces one reply: text for a person, or (with json) one JSON object on one line
// per command (one per assigned name for a statement), following the contract in README.
// Errors never end a session: each is reported with its column (1-based) and a caret.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/Array.h"
#include "interp/Timing.h"
#include "shape/Broadcast.h"
#include "symbolic/Solver.h"

namespace shapelab::ops {
class Graph;
struct Node;
} // namespace shapelab::ops

namespace shapelab::lang {

struct SessionOptions {
  BroadcastMode mode = BroadcastMode::Numpy;
  bool json = false;
  /// False: an assignment replies nothing (no shape, status or JSON is rendered), for callers
  /// that read only whether a statement failed and its error (the property harness).
  bool replies = true;
  uint64_t seed = 0;
  /// Counts the limits of results as runtime checks (`--strict-limits`); by default they are
  /// reported apart (`limits`), and inputs' limits are assumed either way.
  bool strictLimits = false;
  /// Where load() looks for a relative path it does not find in the working directory (a
  /// script's directory); :save writes relative to the working directory, as Python does.
  std::string baseDirectory;
};

/// What a line replies. Its text is made when first read: a statement's shape simplified under
/// its checks, its checks and its limits cost solver work that a caller reading only `failed`
/// (a benchmark, a caller that builds a program) does not pay. Read it while the session that
/// made it lives.
class Reply {
public:
  bool failed = false; // the line was an error
  bool quit = false;   // :quit
  /// What to print (JSON: one object per line).
  const std::vector<std::string> &lines() const;
  void add(std::string line);
  /// Lines `make` appends when the text is first read, in their place among the others.
  void addLater(std::function<void(std::vector<std::string> &)> make);
  void set(std::vector<std::string> lines);
  /// Appends another reply's lines (and its failure or quit) after these.
  void append(Reply &&other);

private:
  struct Piece {
    std::string line;
    std::function<void(std::vector<std::string> &)> make; // set: made when read
  };
  std::vector<Piece> pieces_;
  mutable std::optional<std::vector<std::string>> lines_;
};

class Session {
public:
  Session(Solver &solver, SessionOptions options);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;
  /// Runs one line (1-based `lineNumber`, used in JSON and messages). `;` outside brackets,
  /// strings and comments separates statements, run in turn (each one's columns are the line's).
  Reply execute(const std::string &line, int lineNumber);
  /// How many graph nodes the session holds now (for tests and memory checks).
  std::size_t nodeCount() const;
  /// The program built so far, and the array a name is bound to (nullptr if none).
  const ops::Graph &graph() const;
  /// The same graph, for rewriting (new nodes only: existing ones never change).
  ops::Graph &mutableGraph();
  const ops::Node *lookup(const std::string &name) const;
  /// Completions of the word before the cursor, sorted: after ':' the commands, after `np.` the
  /// op list's names (`np.linalg.svd`) and NumPy's constants and dtypes, else the session's names,
  /// the statement keywords and the op list's names.
  std::vector<std::string> completions(const std::string &word) const;
  /// Completions at the end of `before` (a line up to the cursor): the completed word starts at
  /// `start` and each of `words` replaces it. Inside the string of `load("` / `np.load('` and
  /// after `:load` and `:save-session`, the word is a file name (a directory's ends in '/', so
  /// `complete` goes on into it; hidden files only when the name starts with '.'); otherwise the
  /// word stops at an operator, a bracket or a space and completes as `completions` does.
  struct Completion {
    std::size_t start = 0;
    std::vector<std::string> words;
    bool fileName = false; // (a finished name takes no space after it)
  };
  Completion complete(const std::string &before) const;
  /// What `name` is bound to, as a JSON object: {"kind": "array", "shape", "dtype"}, {"kind":
  /// "size" | "predicate", "value": text}, {"kind": "float" | "bool", "value"}, {"kind": "tuple",
  /// "items": [...]}, {"kind": "dtype", "value": name}, {"kind": "string", "value"}, {"kind":
  /// "none"}; empty when unbound. For callers that build programs (shapelab.trace).
  std::string describe(const std::string &name) const;
  /// The value of the array bound to `name`, as `:eval NAME [--opt] with ...` computes it: sizes
  /// not given are read from the given inputs' shapes (a dimension `p` or `p + c`), then
  /// completed as :eval completes them; inputs not given are seeded. Throws interp::EvalError
  /// (a shape, value or input error) and NameError (no array of that name). `checked`: the
  /// reference interpreter also checks each kernel's result against its node's shape rule (an
  /// InternalError where they disagree), as :eval does; the check costs about a tenth of a
  /// small program's evaluation.
  interp::Array evaluate(const std::string &name, Assignment point, std::map<std::string, interp::Array> inputs,
                         bool optimized = false, bool checked = true);
  /// Seconds per evaluation of a name on a chosen backend (interp/Timing.h), its sizes
  /// completed as evaluate completes them: the studies' measurements.
  std::vector<double> time(const std::string &name, Assignment point, std::map<std::string, interp::Array> inputs,
                           const interp::Backend &backend, int repeat, int inner);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A statement as Python's prompt reads it: `first`, joined with the lines `next` gives (nullopt:
/// none left) while a bracket is open or a line ends with `\` outside strings and comments (the
/// `\` dropped), at most 1,000 lines. A line that is not text (notText) continues nothing: it is
/// reported alone, and the lines after it are read as statements of their own. The REPL and
/// :load read with it.
std::string readStatement(std::string first, const std::function<std::optional<std::string>()> &next);

/// Why `text` is not a program's text: "it holds a NUL byte at byte K (a binary file?)" or "it
/// is not UTF-8 text (byte K)"; "" for text.
std::string notText(const std::string &text);

/// Runs a script: every line through one Session, replies to `out`. Returns the number of
/// statements that failed.
int runScript(Solver &solver, const std::string &text, SessionOptions options, std::ostream &out,
              const std::string &fileName);

} // namespace shapelab::lang
