// Programs in the shapelab language: up to 16 lines run in one session (statements, :shape,
// :explain, :errors, :eval with small sizes and with --opt, :optimize, :graph). Every failure must come back as a reply;
// an exception escaping Session::execute (an InternalError from the interpreter's debug check,
// a crash, a sanitizer report) is a finding, and so is a reply that is not well-formed UTF-8.
// :save and load() are filtered out (no file I/O), and numbers are kept to three digits, and
// powers out of programs that evaluate, so evaluations stay small.
#include "tests/fuzz/FuzzCommon.h"
#include "lang/Session.h"

#include <cctype>
#include <sstream>

using namespace shapelab;

namespace {
/// The fuzz solver's limits (FuzzCommon.h), and a witness search of 256 points instead of 20,000
/// for a question over products of sizes (`(n*m,)` with `(m,)`): in a campaign of 4.1 million
/// executions the corpus filled with such programs, each search 0.1-0.2 s in a release build and
/// about ten times that under ASan, and the rate fell from ~1900 to ~200 executions per second.
/// The search is the same code at either budget; fewer points only make Unknown more frequent.
/// Likewise 50 ms a question and 150 ms an input instead of 200 and 500: at 8.1 million
/// executions, 1,500 corpus inputs took 25 ms each under ASan, the slowest 100 of them 86% of
/// that (products of sizes under masks and reshapes, each statement's questions larger than the
/// last), and with these limits 17 ms. The solver's own targets keep the larger budget; here a
/// question cut short is an Unknown status, which programs must handle as well as any other.
Solver &programSolver() {
  static Solver *s = [] {
    SolverOptions o = fuzz::solverOptions();
    o.witnessSearchPoints = 256;
    o.timeLimitMs = 50;
    return new Solver(o);
  }();
  return fuzz::forInput(*s, 150);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
  if (size > 2048) return 0;
  std::string text(reinterpret_cast<const char *>(data), size);
  // No file I/O (:save, load), and no :time (it repeats evaluations to measure them).
  if (text.find(":save") != std::string::npos || text.find("load") != std::string::npos ||
      text.find(":time") != std::string::npos)
    return 0;
  std::size_t digits = 0;
  for (char c : text) {
    digits = std::isdigit(static_cast<unsigned char>(c)) ? digits + 1 : 0;
    if (digits > 3) return 0;
  }
  // A power of a size makes a large array from small numbers: `input((n, m ** 9))` evaluated at
  // m = 7 has 80 million elements, seconds of work under ASan (a libFuzzer timeout, not a defect).
  if (text.find("**") != std::string::npos && text.find(":eval") != std::string::npos) return 0;
  Solver *solver = &programSolver();
  {
    lang::Session session(*solver, {});
    std::istringstream in(text);
    std::string line;
    int number = 0;
    while (std::getline(in, line) && number < 16) {
      lang::Reply r = session.execute(line, ++number);
      // Whatever bytes the line held, a reply is well-formed UTF-8 (an error echoes the line).
      for (const std::string &l : r.lines())
        if (!testutil::wellFormedUtf8(l)) fuzz::finding("a reply that is not well-formed UTF-8: " + printable(l));
      if (r.quit) break;
    }
  }
  fuzz::forget(*solver);
  return 0;
}
