// `shapelab run FILE` and `shapelab repl`: programs in the shapelab language (driver/Language.h).
// The REPL edits lines and keeps history with libedit when standard input is a terminal, and
// reads plain lines otherwise (so scripts and tests can pipe into it).
#include <editline/readline.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "driver/Command.h"
#include "driver/Language.h"
#include "symbolic/Errors.h"

namespace shapelab::driver {

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
  return s;
}

int runFile(const ProgramOptions &o) {
  std::ifstream in(o.file, std::ios::binary);
  if (!in || std::filesystem::is_directory(o.file)) {
    std::cerr << "shapelab run: cannot read '" << o.file << "'\n";
    return kExitBadInput;
  }
  std::ostringstream text;
  text << in.rdbuf();
  Solver solver(o.common.solverOptions());
  SessionOptions s = sessionOptions(o);
  s.baseDirectory = std::filesystem::path(o.file).parent_path().string();
  int failures = runScript(solver, text.str(), s, std::cout, o.file);
  std::cout.flush();
  return failures ? kExitShapeError : kExitOk;
}

} // namespace

int runRepl(uint64_t seed, const std::string &mode, bool json, const SolverOptions &solverOptions) {
  Solver solver(solverOptions);
  SessionOptions s;
  s.mode = parseBroadcastMode(mode);
  s.json = json;
  s.seed = seed;
  Session session(solver, s);
  bool terminal = isatty(0) && isatty(1);
  if (terminal && !json) std::cout << "shapelab " SHAPELAB_VERSION " — :help for help, :quit to leave\n";
  int number = 0;
  while (true) {
    std::string line;
    if (terminal) {
      char *raw = readline(">>> ");
      if (!raw) {
        std::cout << "\n";
        break;
      }
      line = raw;
      std::free(raw);
      if (!line.empty()) add_history(line.c_str());
    } else if (!std::getline(std::cin, line)) {
      break;
    }
    Reply r = session.execute(line, ++number);
    for (const std::string &l : r.lines) std::cout << l << "\n";
    std::cout.flush();
    if (r.quit) break;
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
  cmd->callback([run] { exitCode() = reportErrors("run", [&] { return runFile(*run); }); });

  auto repl = std::make_shared<ProgramOptions>();
  CLI::App *r = app.add_subcommand("repl", "an interactive session (line editing and history on a terminal)");
  r->add_option("--seed", repl->seed, "seed of the generated inputs and random draws")->capture_default_str();
  addCommonOptions(r, repl->common, kJson | kMode);
  r->callback([repl] {
    exitCode() = reportErrors("repl", [&] {
      return runRepl(repl->seed, repl->common.mode, repl->common.json, repl->common.solverOptions());
    });
  });
}

} // namespace shapelab::driver
