// Command — what every `shapelab` sub-command shares: argument scanning and error reporting.
//
// Exit codes (the driver's contract): 0 when the question was answered, 1 when the answer is
// a shape error (shape commands), 2 for bad input — syntax, reserved names, unknown names,
// unsatisfiable assumptions — with a message on stderr.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "symbolic/Solver.h"

namespace shapelab::driver {

constexpr int kExitOk = 0;
constexpr int kExitShapeError = 1;
constexpr int kExitBadInput = 2;

/// Thrown by argument scanning for a malformed command line.
struct UsageError {
  std::string message;
};

struct Arguments {
  std::vector<std::string> positional;
  std::vector<std::string> assumptions; // --assume
  bool json = false;
  bool help = false;
  std::string mode = "numpy";           // --mode
  std::string size;                     // --size
  bool hasSize = false;
  SolverOptions solver;                 // --time-limit MS, --memory-limit MB (every command)
};

/// Scans options shared by the commands; `allowed` lists the options this command accepts.
Arguments scanArguments(const std::vector<std::string> &args, const std::vector<std::string> &allowed);

/// The --assume context (throws for bad text or inconsistent assumptions); shape commands reason about array sizes, `decide` about integers.
Context contextOf(Solver &solver, const Arguments &arguments, SizeDomain domain);

using CommandFunction = std::function<int(const std::vector<std::string> &)>;

struct CommandInfo {
  std::string name;
  std::string summary;
  CommandFunction run;
};

const std::vector<CommandInfo> &commands();

/// Runs `body`, turning user errors into a stderr message and exit code 2.
int reportErrors(const std::string &command, const std::function<int()> &body);

int decideCommand(const std::vector<std::string> &args);
int broadcastCommand(const std::vector<std::string> &args);
int broadcastToCommand(const std::vector<std::string> &args);
int gufuncCommand(const std::vector<std::string> &args);
int rvCommand(const std::vector<std::string> &args);

} // namespace shapelab::driver
