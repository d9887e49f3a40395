// Command — what every `shapelab` sub-command shares: its options (CLI11) and error reporting.
//
// Exit codes (the driver's contract): 0 when the question was answered, 1 when the answer is
// a shape error (shape commands), 2 for bad input — a bad command line, syntax, reserved
// names, unknown names, unsatisfiable assumptions — with a message on stderr.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "symbolic/Solver.h"

namespace shapelab::driver {

constexpr int kExitOk = 0;
constexpr int kExitShapeError = 1;
constexpr int kExitBadInput = 2;

/// Options several commands share. Which of them a command has is chosen when it is added.
struct CommonOptions {
  std::vector<std::string> assumptions; // --assume (repeatable)
  bool json = false;                    // --json
  std::string mode = "numpy";           // --mode numpy|static
  SolverOptions solver;                 // --time-limit MS, --memory-limit MB (every command)
  uint64_t memoryLimitMb = SolverOptions().memoryLimitBytes >> 20;
  /// --strict-limits: the limits of results count as runtime checks in the status (arrays
  /// given still exist); by default they are reported apart, in `limits`.
  bool strictLimits = false;
  /// The solver's options with the limits given on the command line.
  SolverOptions solverOptions() const {
    SolverOptions s = solver;
    s.memoryLimitBytes = memoryLimitMb << 20;
    return s;
  }
};

enum CommonFlags : unsigned { kAssume = 1, kJson = 2, kMode = 4 };

/// Adds the shared options (`flags`) and the solver limits to `cmd`, bound to `o`.
void addCommonOptions(CLI::App *cmd, CommonOptions &o, unsigned flags);

/// The --assume context (throws for bad text or inconsistent assumptions); shape commands
/// reason about array sizes, `decide` about integers.
Context contextOf(Solver &solver, const CommonOptions &o, SizeDomain domain);

/// Runs `body`, turning user errors into a one-line stderr message and exit code 2.
/// Runs a command's body; bad input (a syntax error, inconsistent assumptions, any UserError)
/// is reported on stderr and, with --json, as {"command", "error" (the message), "kind"[, "position"]} on
/// stdout, with exit code 2.
int reportErrors(const std::string &command, const std::function<int()> &body, bool json = false);
/// Reports one failure as reportErrors does (`kind` empty: the message alone on stderr, JSON kind
/// "input"); returns kExitBadInput.
int badInput(const std::string &command, const std::string &kind, const std::string &message, bool json,
             std::optional<std::size_t> position = std::nullopt);

/// Where a command's callback leaves its exit code.
int &exitCode();

void addDecideCommand(CLI::App &app);
void addShapeCommands(CLI::App &app); // broadcast, broadcast-to, gufunc, rv
void addProgramCommands(CLI::App &app); // run, repl
void addRewriteCommands(CLI::App &app); // rules
/// The interactive session `shapelab repl` opens (also `shapelab` alone on a terminal).
int runRepl(uint64_t seed, const std::string &mode, bool json, const SolverOptions &solverOptions, bool strictLimits = false);

} // namespace shapelab::driver
