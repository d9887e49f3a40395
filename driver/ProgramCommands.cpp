// `shapelab run FILE` and `shapelab repl`: programs in the shapelab language (lang/Session.h).
// The REPL edits lines and keeps history with libedit when standard input is a terminal, and
// reads plain lines otherwise (so scripts and tests can pipe into it).
#include <editline/readline.h>
#include <unistd.h>

#include <csignal>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "driver/Command.h"
#include "interp/Interrupt.h"
#include "lang/Json.h"
#include "lang/Session.h"
#include "symbolic/Errors.h"

namespace shapelab::driver {

using namespace lang; // the session, its replies and their JSON

namespace {

struct ProgramOptions {
  CommonOptions common;
  uint64_t seed = 0;
  std::string file;
};

SessionOptions sessionOptions(const ProgramOptions &o) {
  SessionOptions s;
  s.mode = parseBroadcastMode(o.common.mode);
  s.json = o.common.json;
  s.seed = o.seed;
  s.strictLimits = o.common.strictLimits;
  return s;
}

/// A program's text is at most this many bytes: reading stops there (a device such as /dev/zero
/// never ends) and the file is refused.
constexpr std::size_t kMaxProgramBytes = std::size_t(16) << 20;

int runFile(const ProgramOptions &o) {
  const bool standardInput = o.file == "-";
  std::ifstream file;
  if (!standardInput) file.open(o.file, std::ios::binary);
  std::istream &in = standardInput ? std::cin : file;
  if (!in || (!standardInput && std::filesystem::is_directory(o.file))) {
    return badInput("run", "", "cannot read '" + o.file + "'", o.common.json);
  }
  // Read in bounded pieces: no more than the limit (and one byte to know it was passed).
  std::string content;
  char buffer[65536];
  while (content.size() <= kMaxProgramBytes && in.read(buffer, sizeof buffer).gcount() > 0)
    content.append(buffer, std::size_t(in.gcount()));
  if (content.size() > kMaxProgramBytes) {
    return badInput("run", "", "'" + o.file + "' is longer than " + std::to_string(kMaxProgramBytes >> 20) + " MiB; not a program",
                    o.common.json);
  }
  if (std::string why = notText(content); !why.empty()) {
    return badInput("run", "", "'" + o.file + "' is not a program: " + why, o.common.json);
  }
  std::ostringstream text;
  text << content;
  Solver solver(o.common.solverOptions());
  SessionOptions s = sessionOptions(o);
  if (!standardInput) s.baseDirectory = std::filesystem::path(o.file).parent_path().string();
  int failures = runScript(solver, text.str(), s, std::cout, o.file);
  std::cout.flush();
  return failures ? kExitShapeError : kExitOk;
}

} // namespace

namespace {
// Tab completion (libedit's readline hooks): the session the prompt serves, and the matches of
// the word being completed, handed out one by one.
const Session *completing = nullptr;
std::vector<std::string> matches;

char *nextMatch(const char *, int state) {
  if (std::size_t(state) >= matches.size()) return nullptr;
  return strdup(matches[std::size_t(state)].c_str());
}

/// The session says where the word being completed starts (a file name keeps its '/'s); libedit
/// replaces from its own word start, so each match is cut or extended to begin there.
char **complete(const char *text, int start, int end) {
  rl_attempted_completion_over = 1; // no file names in place of ours
  matches.clear();
  if (completing && start >= 0 && end >= start) {
    const std::string before(rl_line_buffer, std::size_t(end));
    const Session::Completion c = completing->complete(before);
    const std::size_t from = std::size_t(start);
    for (const std::string &w : c.words)
      matches.push_back(from >= c.start ? w.substr(std::min(w.size(), from - c.start)) : before.substr(from, c.start - from) + w);
    rl_completion_append_character = c.fileName ? '\0' : ' ';
  }
  return rl_completion_matches(text, nextMatch);
}

// Ctrl-C at the prompt: the handler only records the request (interp/Interrupt.h). Installed
// without SA_RESTART, it makes the line editor's read fail, so readline() returns at once: the
// line being typed is dropped. During a statement, the interpreter stops at its next check.
void onInterrupt(int) { interp::requestInterrupt(); }

/// The line (or the statement's continuation) being typed was cancelled with Ctrl-C.
struct LineCancelled {};
} // namespace

int runRepl(uint64_t seed, const std::string &mode, bool json, const SolverOptions &solverOptions, bool strictLimits) {
  Solver solver(solverOptions);
  SessionOptions s;
  s.mode = parseBroadcastMode(mode);
  s.json = json;
  s.seed = seed;
  s.strictLimits = strictLimits;
  Session session(solver, s);
  bool terminal = isatty(0) && isatty(1);
  if (terminal) {
    completing = &session;
    rl_attempted_completion_function = complete;
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0; // no SA_RESTART: a read in progress returns
    sigaction(SIGINT, &action, nullptr);
    rl_basic_word_break_characters = " \t\n\"\\'`@$><=;|&{(,[+-*/%~"; // '.' and ':' stay in a word
  }
  if (terminal && !json) std::cout << "shapelab " SHAPELAB_VERSION " — :help for help, :quit to leave\n";
  // History kept across sessions on a terminal: $SHAPELAB_HISTORY, else ~/.shapelab_history
  // (the last 1,000 lines; written after each line, so a killed session keeps it).
  std::string historyFile;
  if (terminal) {
    if (const char *h = std::getenv("SHAPELAB_HISTORY")) historyFile = h;
    else if (const char *home = std::getenv("HOME")) historyFile = std::string(home) + "/.shapelab_history";
    if (!historyFile.empty()) {
      stifle_history(1000);
      read_history(historyFile.c_str()); // absent the first time
    }
  }
  int number = 0;
  // One line at the prompt (">>> ", or "... " while a statement continues); nullopt at the end.
  auto read = [&](const char *prompt) -> std::optional<std::string> {
    std::string line;
    if (terminal) {
      // A Ctrl-C pressed while the last statement's reply was printed: Python's prompt reports
      // it before reading on.
      if (interp::interruptPending()) throw LineCancelled{};
      char *raw = readline(prompt);
      if (!raw && interp::interruptPending()) throw LineCancelled{};
      if (!raw) return std::nullopt;
      line = raw;
      std::free(raw);
    } else if (!std::getline(std::cin, line)) {
      return std::nullopt;
    }
    return line;
  };
  while (true) {
    std::string line;
    try {
      std::optional<std::string> first = read(">>> ");
      if (!first) {
        if (terminal) std::cout << "\n";
        break;
      }
      // A statement continues while a bracket is open or a line ends with `\`.
      line = lang::readStatement(*first, [&] { return read("... "); });
    } catch (const LineCancelled &) {
      interp::clearInterrupt();
      std::cout << "\nKeyboardInterrupt" << std::endl; // as Python's prompt: the statement is dropped
      continue;
    }
    if (terminal && !line.empty()) {
      add_history(line.c_str());
      if (!historyFile.empty()) write_history(historyFile.c_str()); // a failure to write loses only history
    }
    try {
      // (A Ctrl-C pressed once the line was read stops the statement, as in Python.)
      Reply r = session.execute(line, ++number);
      for (const std::string &l : r.lines()) std::cout << l << "\n";
      std::cout.flush();
      if (r.quit) break;
    } catch (const interp::Interrupted &) {
      interp::clearInterrupt();
      // The evaluation stopped between two steps; the names bound before it are all kept.
      if (json) {
        Json j;
        j["line"] = number;
        j["error"] = "interrupted (Ctrl-C)";
        j["interrupted"] = true;
        std::cout << dumpJson(j) << std::endl;
      }
      else std::cout << "KeyboardInterrupt: the statement was stopped; the session is kept" << std::endl;
    }
  }
  return kExitOk;
}

void addProgramCommands(CLI::App &app) {
  auto run = std::make_shared<ProgramOptions>();
  CLI::App *cmd = app.add_subcommand("run", "run a program in the shapelab language (see 'shapelab repl', :help)");
  cmd->add_option("FILE", run->file, "the script")->required();
  cmd->add_option("--seed", run->seed, "seed of the generated inputs and random draws")->capture_default_str();
  addCommonOptions(cmd, run->common, kJson | kMode);
  cmd->footer("One statement per line; each error is reported with its line and the run goes on.\n"
              "Exit codes: 0 every statement ran, 1 some statement failed, 2 the file cannot be read.");
  cmd->callback([run] { exitCode() = reportErrors("run", [&] { return runFile(*run); }, run->common.json); });

  auto repl = std::make_shared<ProgramOptions>();
  CLI::App *r = app.add_subcommand("repl", "an interactive session (line editing and history on a terminal)");
  r->add_option("--seed", repl->seed, "seed of the generated inputs and random draws")->capture_default_str();
  addCommonOptions(r, repl->common, kJson | kMode);
  r->callback([repl] {
    exitCode() = reportErrors("repl", [&] {
      return runRepl(repl->seed, repl->common.mode, repl->common.json, repl->common.solverOptions(), repl->common.strictLimits);
    }, repl->common.json);
  });
}

} // namespace shapelab::driver
