// The `shapelab` command-line driver: `shapelab COMMAND [ARGS]`, `shapelab --help`.
#include <cctype>
#include <cstdio>
#include <optional>
#include <iostream>

#include "driver/Command.h"
#include "symbolic/Errors.h"
#include "symbolic/Parser.h"

namespace shapelab::driver {

namespace {
bool looksLikeShortOption(const std::string &a) {
  if (a.size() < 2 || a[0] != '-') return false;
  for (std::size_t i = 1; i < a.size(); ++i)
    if (!std::isalpha((unsigned char)a[i])) return false;
  return true;
}
} // namespace

Arguments scanArguments(const std::vector<std::string> &args, const std::vector<std::string> &allowed) {
  Arguments out;
  auto accepts = [&](const std::string &o) {
    for (auto &a : allowed)
      if (a == o) return true;
    return false;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&](const std::string &name) -> std::string {
      if (i + 1 >= args.size()) throw UsageError{"option " + name + " needs a value"};
      return args[++i];
    };
    auto limit = [&](const std::string &name, const std::string &text) -> uint64_t {
      std::optional<Integer> v = Integer::tryParse(text);
      if (!v || v->sign() < 0 || !v->fitsInt64())
        throw UsageError{"option " + name + " needs a non-negative integer, not '" + text + "'"};
      return uint64_t(*v->tryToInt64());
    };
    if (a == "--help" || a == "-h") {
      out.help = true;
    } else if (a == "--time-limit" || a.rfind("--time-limit=", 0) == 0) {
      out.solver.timeLimitMs = limit("--time-limit", a.size() > 12 ? a.substr(13) : value(a));
    } else if (a == "--memory-limit" || a.rfind("--memory-limit=", 0) == 0) {
      uint64_t mb = limit("--memory-limit", a.size() > 14 ? a.substr(15) : value(a));
      if (mb > (uint64_t(1) << 40)) throw UsageError{"option --memory-limit is in MiB; " + std::to_string(mb) + " is too large"};
      out.solver.memoryLimitBytes = mb << 20;
    } else if (a == "--json" && accepts(a)) {
      out.json = true;
    } else if (a == "--assume" && accepts(a)) {
      out.assumptions.push_back(value(a));
    } else if (a.rfind("--assume=", 0) == 0 && accepts("--assume")) {
      out.assumptions.push_back(a.substr(9));
    } else if (a == "--mode" && accepts(a)) {
      out.mode = value(a);
    } else if (a.rfind("--mode=", 0) == 0 && accepts("--mode")) {
      out.mode = a.substr(7);
    } else if (a == "--size" && accepts(a)) {
      out.size = value(a);
      out.hasSize = true;
    } else if (a.rfind("--size=", 0) == 0 && accepts("--size")) {
      out.size = a.substr(7);
      out.hasSize = true;
    } else if (a == "--") {
      for (++i; i < args.size(); ++i) out.positional.push_back(args[i]);
    } else if (a.size() > 1 && a[0] == '-' && a[1] == '-') {
      throw UsageError{"unknown option '" + a + "'"};
    } else if (looksLikeShortOption(a)) {
      // "-x" is an option nobody defined; "-n + 5 >= 0" is a predicate and passes.
      throw UsageError{"unknown option '" + a + "'"};
    } else {
      out.positional.push_back(a);
    }
  }
  if (out.mode != "numpy" && out.mode != "static")
    throw UsageError{"--mode must be 'numpy' or 'static', not '" + out.mode + "'"};
  return out;
}

Context contextOf(Solver &solver, const Arguments &arguments, SizeDomain domain) {
  std::vector<Pred> assumptions;
  for (const std::string &text : arguments.assumptions) assumptions.push_back(parsePred(text));
  return solver.makeContext(assumptions, domain);
}

int reportErrors(const std::string &command, const std::function<int()> &body) {
  try {
    return body();
  } catch (const UsageError &e) {
    std::cerr << "shapelab " << command << ": " << e.message << "\n"
              << "run 'shapelab " << command << " --help' for usage\n";
  } catch (const SyntaxError &e) {
    std::cerr << "shapelab " << command << ": syntax error: " << e.render() << "\n";
  } catch (const InconsistentAssumptions &e) {
    std::cerr << "shapelab " << command << ": inconsistent assumptions: " << e.what() << "\n";
  } catch (const UserError &e) {
    std::cerr << "shapelab " << command << ": error: " << e.what() << "\n";
  }
  return kExitBadInput;
}

} // namespace shapelab::driver

using namespace shapelab::driver;

static void printHelp() {
  std::cout << "shapelab — exact tensor shape and broadcasting semantics\n\n"
               "usage: shapelab COMMAND [ARGS...]    (each command has --help)\n\n"
               "commands:\n";
  for (const CommandInfo &c : commands()) std::printf("  %-13s %s\n", c.name.c_str(), c.summary.c_str());
  std::cout << "\nexit codes: 0 answered, 1 shape error, 2 bad input\n";
}

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    printHelp();
    return args.empty() ? kExitBadInput : kExitOk;
  }
  for (const CommandInfo &c : commands())
    if (c.name == args[0]) {
      try {
        return c.run(std::vector<std::string>(args.begin() + 1, args.end()));
      } catch (const std::exception &e) {
        std::cerr << "shapelab " << c.name << ": internal error: " << e.what() << "\n";
        return 3;
      }
    }
  std::cerr << "shapelab: unknown command '" << args[0] << "'; run 'shapelab --help'\n";
  return kExitBadInput;
}
