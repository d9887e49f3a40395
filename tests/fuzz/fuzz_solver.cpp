// Solver: an assumption and a predicate (separated by 0x00). Witnesses are re-checked by exact
// evaluation; a Depends condition must hold at the satisfying point and fail at the violating one.
#include "tests/fuzz/FuzzCommon.h"
#include "symbolic/Parser.h"
#include "symbolic/Solver.h"

using namespace shapelab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
  if (size > 1024) return 0;
  Solver *solver = &fuzz::solver();
  auto texts = fuzz::pieces(data, size, 2);
  try {
    std::vector<Pred> assumptions;
    if (texts.size() == 2 && !texts[0].empty()) assumptions.push_back(parsePred(texts[0]));
    Pred p = parsePred(texts.back());
    Context c = solver->makeContext(assumptions, SizeDomain::Integers);
    Decision d = solver->decide(c, p);
    auto inContext = [&](const Assignment &a) { return holds(c.assumptions(), a); };
    if (d.answer == Answer::Refuted) {
      if (!d.violating || !inContext(*d.violating) || holds(p, *d.violating))
        fuzz::finding("refutation witness is wrong");
    }
    if (d.answer == Answer::Depends) {
      if (!d.satisfying || !d.violating) fuzz::finding("depends without witnesses");
      if (!inContext(*d.satisfying) || !holds(p, *d.satisfying)) fuzz::finding("satisfying witness is wrong");
      if (!inContext(*d.violating) || holds(p, *d.violating)) fuzz::finding("violating witness is wrong");
      if (!holds(d.condition, *d.satisfying) || holds(d.condition, *d.violating))
        fuzz::finding("condition disagrees with its witnesses: " + d.condition.toString());
      for (Expr x : parametersOf(p))
        if (!d.satisfying->find(x.node()->name) || !d.violating->find(x.node()->name))
          fuzz::finding("witness leaves out " + x.node()->name);
    }
  } catch (const UserError &) {
  }
  solver->clearMemo();
  return 0;
}
