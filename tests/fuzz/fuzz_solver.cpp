// Solver: an assumption and a predicate (separated by 0x00). Witnesses are re-checked by exact
// evaluation; a Depends condition must hold at the satisfying point and fail at the violating one;
// a proof (decide's or provesQuickly's) must hold at every point of a small box in the context,
// and provesQuickly must never prove what decide refutes.
#include "tests/fuzz/FuzzCommon.h"
#include "symbolic/Parser.h"
#include "symbolic/Solver.h"

#include <functional>
#include <string_view>

using namespace shapelab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
  if (size > 1024) return 0;
  Solver *solver = &fuzz::solverForInput();
  auto texts = fuzz::pieces(data, size, 2);
  try {
    std::vector<Pred> assumptions;
    if (texts.size() == 2 && !texts[0].empty()) assumptions.push_back(parsePred(texts[0]));
    Pred p = parsePred(texts.back());
    Context c = solver->makeContext(assumptions, SizeDomain::Integers);
    // The quick proof first (the memo is empty: intervals, evaluation or isl answer it).
    const bool quick = solver->provesQuickly(c, p);
    Decision d = solver->decide(c, p);
    auto inContext = [&](const Assignment &a) { return holds(c.assumptions(), a); };
    if (quick && (d.answer == Answer::Refuted || d.answer == Answer::Depends))
      fuzz::finding("provesQuickly proves what decide says " + std::string(spelling(d.answer)));
    // A proof holds wherever the context does: checked on the points of a small box.
    if (quick || d.answer == Answer::Proven) {
      std::vector<Expr> params = parametersOf(c.assumptions());
      collectParameters(p, params);
      if (params.size() <= 3) {
        std::vector<int64_t> v(params.size(), 0);
        while (true) {
          Assignment a;
          for (std::size_t i = 0; i < params.size(); ++i) a.set(params[i].node()->name, v[i]);
          if (inContext(a) && !holds(p, a)) fuzz::finding("proven, but it fails at " + a.toString());
          std::size_t i = 0;
          while (i < v.size() && ++v[i] > 4) v[i++] = 0;
          if (i == v.size()) break;
        }
      }
    }
    // A refutation's and a Depends's witnesses, and a Depends's condition, checked at them.
    auto checkWitnesses = [&](const Decision &x, const std::string &which) {
      if (x.answer == Answer::Refuted) {
        if (!x.violating || !inContext(*x.violating) || holds(p, *x.violating))
          fuzz::finding(which + "refutation witness is wrong");
      }
      if (x.answer == Answer::Depends) {
        if (!x.satisfying || !x.violating) fuzz::finding(which + "depends without witnesses");
        if (!inContext(*x.satisfying) || !holds(p, *x.satisfying)) fuzz::finding(which + "satisfying witness is wrong");
        if (!inContext(*x.violating) || holds(p, *x.violating)) fuzz::finding(which + "violating witness is wrong");
        if (!holds(x.condition(), *x.satisfying) || holds(x.condition(), *x.violating))
          fuzz::finding(which + "condition disagrees with its witnesses: " + x.condition().toString());
        for (Expr e : parametersOf(p))
          if (!x.satisfying->find(e.node()->name) || !x.violating->find(e.node()->name))
            fuzz::finding(which + "witness leaves out " + e.node()->name);
      }
    };
    checkWitnesses(d, "");
    // One input in four is asked again with isl stopped after a few operations (a bound drawn
    // from the input, 1 to 63,937, small ones as often as large): a stopped question answers
    // Unknown, or as the unbounded one does where both answer, with witnesses that hold; and
    // isl stopped anywhere leaves nothing behind (its AST generator did not, see AbortShield in
    // Solver.cpp).
    const std::size_t h = std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char *>(data), size));
    if (h % 4 == 0) {
      const unsigned long bound = 1 + ((h >> 2) % 1000) * (1ul << ((h >> 12) % 7)); // up to 999 * 64
      struct Restore {
        Solver *s;
        ~Restore() { s->limitOperations(fuzz::solverOptions().maxOperations); }
      } restore{solver};
      fuzz::forget();
      solver->limitOperations(bound);
      Context stoppedContext = solver->makeContext(assumptions, SizeDomain::Integers);
      const bool quickStopped = solver->provesQuickly(stoppedContext, p);
      Decision stopped = solver->decide(stoppedContext, p);
      // Two answers that are not Unknown agree. (The first may be Unknown where the stopped one
      // is not: its clock ran out, or a step the bound cut short let a cheaper one answer.)
      if (stopped.answer != Answer::Unknown && d.answer != Answer::Unknown && stopped.answer != d.answer)
        fuzz::finding("stopped after " + std::to_string(bound) + " operations the answer is " +
                      spelling(stopped.answer) + ", unbounded " + spelling(d.answer));
      if (quickStopped && (d.answer == Answer::Refuted || d.answer == Answer::Depends ||
                           stopped.answer == Answer::Refuted || stopped.answer == Answer::Depends))
        fuzz::finding("provesQuickly, stopped, proves what decide says is not so");
      // The condition is read under the bound too (isl gists it and writes it out).
      checkWitnesses(stopped, "stopped: ");
    }
  } catch (const UserError &) {
  }
  fuzz::forget();
  return 0;
}
