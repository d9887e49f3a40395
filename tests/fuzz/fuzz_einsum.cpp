// einsum subscripts with operand shapes: the subscripts and up to three shapes (separated by
// 0x00) are resolved in both modes; only UserError may escape. In NumPy mode the symbolic verdict
// must agree with the concrete call at a few points (its shape too), and the subscripts it
// spells out must read back as the same spec.
#include "tests/fuzz/FuzzCommon.h"
#include "shape/Einsum.h"
#include "symbolic/Evaluate.h"

using namespace shapelab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
  if (size > 2048) return 0;
  Solver *solver = &fuzz::solverForInput();
  auto texts = fuzz::pieces(data, size, 4);
  try {
    std::vector<Shape> shapes;
    std::vector<std::size_t> ranks;
    for (std::size_t i = 1; i < texts.size(); ++i) {
      shapes.push_back(parseShape(texts[i]));
      ranks.push_back(shapes.back().size());
    }
    EinsumSpec spec = parseEinsum(texts[0], ranks);
    if (einsumOperandsError(spec, ranks)) { // refused whatever the sizes
      fuzz::forget();
      return 0;
    }
    EinsumSpec again = parseEinsum(spec.text(), ranks);
    if (again.operands != spec.operands || again.output != spec.output)
      fuzz::finding("subscripts spelled " + spec.text() + " read back as " + again.text());
    Context c = solver->makeContext({});
    for (BroadcastMode mode : {BroadcastMode::Numpy, BroadcastMode::Static}) {
      EinsumResult r = resolveEinsum(*solver, c, spec, shapes, mode);
      (void)r.validity.checks();
      if (mode != BroadcastMode::Numpy || r.status() == Status::Unknown) continue;
      for (const Assignment &a : fuzz::comparisonPoints(fuzz::parameterNames(shapes))) {
        std::vector<Shape> concrete;
        bool defined = true;
        for (const Shape &s : shapes) {
          auto c = fuzz::concreteAt(s, a);
          defined = defined && c;
          concrete.push_back(c.value_or(Shape{}));
        }
        if (!defined) {
          if (fuzz::symbolicHolds(r, a)) fuzz::finding("einsum valid where an operand size is undefined, at " + a.toString());
          continue;
        }
        EinsumResult k = resolveEinsum(*solver, c, spec, concrete, mode);
        if (k.status() == Status::Unknown) continue;
        if ((k.status() == Status::Valid) != fuzz::symbolicHolds(r, a))
          fuzz::finding("einsum verdict differs from the concrete one at " + a.toString());
        if (k.status() == Status::Valid)
          for (std::size_t i = 0; i < r.shape.size(); ++i)
            if (evaluate(r.shape[i], a) != k.shape[i].constantValue())
              fuzz::finding("einsum shape differs from the concrete one at " + a.toString());
      }
    }
  } catch (const UserError &) {
  }
  fuzz::forget();
  return 0;
}
