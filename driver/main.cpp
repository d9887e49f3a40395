// The `shapelab` command-line driver: `shapelab COMMAND [ARGS]`, `shapelab --help`,
// `shapelab --version`. Command lines are parsed by CLI11; a bad one is reported in one line
// with exit 2.
#include <cctype>
#include <iostream>
#include <set>
#include <unistd.h>

#include "driver/Command.h"
#include "lang/Json.h"
#include "symbolic/Errors.h"
#include "symbolic/Parser.h"

#ifndef SHAPELAB_VERSION
#define SHAPELAB_VERSION "unknown"
#endif

namespace shapelab::driver {

void addCommonOptions(CLI::App *cmd, CommonOptions &o, unsigned flags) {
  // The limits are unsigned: refuse a sign before a conversion could wrap it around.
  CLI::Validator nonNegative(
      [](std::string &s) { return s.find('-') == std::string::npos ? std::string() : "must be a non-negative integer, not " + s; },
      "", "non-negative");
  if (flags & kAssume)
    cmd->add_option("--assume", o.assumptions, "add an assumption (a predicate; repeatable)")
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->type_name("C");
  if (flags & kMode)
    cmd->add_option("--mode", o.mode, "broadcasting mode: numpy (sizes equal or 1) or static (only sizes provably 1 broadcast)")
        ->check(CLI::IsMember({"numpy", "static"}))
        ->capture_default_str();
  if (flags & kJson) cmd->add_flag("--json", o.json, "print one JSON object");
  cmd->add_flag("--strict-limits", o.strictLimits,
                "count NumPy's array-size limits of results as runtime checks (by default they are reported apart, as limits)");
  cmd->add_option("--time-limit", o.solver.timeLimitMs, "milliseconds of solving for the whole command (for each question in programs; 0: unbounded); past it the answer is unknown")
      ->type_name("MS")
      ->check(nonNegative)
      ->capture_default_str();
  // The range is said in the text: a validator's description would be printed inside the type.
  cmd->add_option("--memory-limit", o.memoryLimitMb,
                  "MiB of resident-memory growth one question may cause (0: unbounded; at most 2**40)")
      ->type_name("MB")
      ->check(nonNegative)
      ->check(CLI::Range(uint64_t(0), uint64_t(1) << 40).description(""))
      ->capture_default_str();
}

Context contextOf(Solver &solver, const CommonOptions &o, SizeDomain domain) {
  std::vector<Pred> assumptions;
  for (const std::string &text : o.assumptions) assumptions.push_back(parsePred(text));
  return solver.makeContext(assumptions, domain);
}

int badInput(const std::string &command, const std::string &kind, const std::string &message, bool json,
             std::optional<std::size_t> position) {
  std::cerr << "shapelab " << command << ": " << (kind.empty() ? "" : kind + ": ") << message << "\n";
  if (json) {
    lang::Json j;
    j["command"] = command;
    j["error"] = message;
    j["kind"] = kind.empty() ? "input" : kind;
    if (position) j["position"] = *position;
    std::cout << lang::dumpJson(j) << "\n";
  }
  return kExitBadInput;
}

int reportErrors(const std::string &command, const std::function<int()> &body, bool json) {
  try {
    return body();
  } catch (const SyntaxError &e) {
    return badInput(command, e.tooLarge() ? "input too large" : "syntax error", e.render(), json, e.position());
  } catch (const InconsistentAssumptions &e) {
    return badInput(command, "inconsistent assumptions", e.what(), json);
  } catch (const UserError &e) {
    return badInput(command, "error", e.what(), json);
  }
}

int &exitCode() {
  static int code = kExitOk;
  return code;
}

namespace {

/// An argument such as `-n + 5 >= 0` or `-(n)` is a predicate or a shape, not an option: CLI11
/// would read `-n + 5 >= 0` as option `-n` with a value. Such arguments reach CLI11 with a
/// marker in front (so it sees a positional or an option's value) and lose it as CLI11 stores
/// them (unmarkValues).
/// Arguments shaped like options (`-x`, `--name`, `--name=value`) are left to CLI11, which
/// reports the unknown ones.
constexpr char kMarker = '\x1e';

bool optionShaped(const std::string &a) {
  if (a.size() < 2 || a[0] != '-') return false;
  if (a == "--") return true;
  std::size_t i = a[1] == '-' ? 2 : 1;
  if (i == 2) {
    std::size_t end = a.find('=');
    if (end == std::string::npos) end = a.size();
    for (std::size_t k = 2; k < end; ++k)
      if (!std::isalnum((unsigned char)a[k]) && a[k] != '-' && a[k] != '_') return false;
    return end > 2;
  }
  for (std::size_t k = 1; k < a.size(); ++k)
    if (!std::isalpha((unsigned char)a[k])) return false;
  return true;
}

std::vector<std::string> markExpressions(int argc, char **argv, std::set<std::string> &marked) {
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) { // CLI11 takes the arguments in reverse order
    std::string a = argv[i];
    if (a.size() > 1 && a[0] == '-' && !optionShaped(a)) {
      marked.insert(a);
      a = kMarker + a;
    }
    args.push_back(std::move(a));
  }
  return args;
}

std::set<std::string> &markedArguments() {
  static std::set<std::string> marked;
  return marked;
}

/// The text the user typed for a value CLI11 received marked.
std::string unmarked(std::string received) {
  if (!received.empty() && received[0] == kMarker && markedArguments().count(received.substr(1)))
    received.erase(0, 1);
  return received;
}

/// Every value-taking option and positional of every command loses the marker as CLI11 reads
/// it, so that commands see exactly what was typed.
void unmarkValues(CLI::App &app) {
  for (CLI::App *cmd : app.get_subcommands([](CLI::App *) { return true; }))
    for (CLI::Option *opt : cmd->get_options())
      if (opt->get_type_size() > 0) opt->transform(unmarked, "");
}

} // namespace

} // namespace shapelab::driver

using namespace shapelab::driver;

int main(int argc, char **argv) {
  CLI::App app{"shapelab — exact tensor shape and broadcasting semantics.\n"
               "Each command has --help. Exit codes: 0 answered, 1 shape error, 2 bad input.",
               "shapelab"};
  app.set_version_flag("--version", std::string("shapelab ") + SHAPELAB_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);
  addDecideCommand(app);
  addShapeCommands(app);
  addProgramCommands(app);
  addRewriteCommands(app);
  unmarkValues(app);
  if (argc == 1) {
    if (isatty(0) && isatty(1)) return runRepl(0, "numpy", false, shapelab::SolverOptions());
    std::cout << app.help();
    return kExitBadInput;
  }
  std::vector<std::string> args = markExpressions(argc, argv, markedArguments());
  try {
    app.parse(args);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::string what = e.what();
    if (app.get_subcommands().empty() && argv[1][0] != '-')
      what = "unknown command '" + std::string(argv[1]) + "'";
    for (char &c : what)
      if (c == kMarker) c = ' ';
    std::string name = "shapelab";
    for (CLI::App *sub : app.get_subcommands()) name += " " + sub->get_name();
    std::cerr << name << ": " << what << " (see '" << name << " --help')\n";
    return kExitBadInput;
  } catch (const std::exception &e) {
    std::cerr << "shapelab: internal error: " << e.what() << "\n";
    return 3;
  }
  return exitCode();
}
