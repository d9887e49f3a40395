// Solver: an assumption and a predicate (separated by 0x00). Witnesses are re-checked by exact
// evaluation; a Depends condition must hold at the satisfying point and fail at the violating one;
// a proof (decide's or provesQuickly's) must hold at every point of a small box in the context,
// and provesQuickly must never prove what decide refutes.
#include "tests/fuzz/FuzzCommon.h"
#include "symbolic/Parser.h"
#include "symbolic/Solver.h"

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
    if (d.answer == Answer::Refuted) {
      if (!d.violating || !inContext(*d.violating) || holds(p, *d.violating))
        fuzz::finding("refutation witness is wrong");
    }
    if (d.answer == Answer::Depends) {
      if (!d.satisfying || !d.violating) fuzz::finding("depends without witnesses");
      if (!inContext(*d.satisfying) || !holds(p, *d.satisfying)) fuzz::finding("satisfying witness is wrong");
      if (!inContext(*d.violating) || holds(p, *d.violating)) fuzz::finding("violating witness is wrong");
      if (!holds(d.condition(), *d.satisfying) || holds(d.condition(), *d.violating))
        fuzz::finding("condition disagrees with its witnesses: " + d.condition().toString());
      for (Expr x : parametersOf(p))
        if (!d.satisfying->find(x.node()->name) || !d.violating->find(x.node()->name))
          fuzz::finding("witness leaves out " + x.node()->name);
    }
  } catch (const UserError &) {
  }
  fuzz::forget();
  return 0;
}
