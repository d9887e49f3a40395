// Signatures with operand shapes: a signature and up to three arguments (separated by 0x00)
// are resolved in both modes; only UserError may escape. In NumPy mode the symbolic verdict must
// agree with the concrete call at a few points.
#include "tests/fuzz/FuzzCommon.h"
#include "shape/Gufunc.h"
#include "symbolic/Evaluate.h"

using namespace shapelab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
  if (size > 2048) return 0;
  Solver *solver = &fuzz::solverForInput();
  auto texts = fuzz::pieces(data, size, 4);
  try {
    Signature sig = parseSignature(texts[0]);
    std::vector<GufuncArgument> args;
    for (std::size_t i = 1; i < texts.size(); ++i) args.push_back(parseGufuncArgument(texts[i]));
    Context c = solver->makeContext({});
    for (BroadcastMode mode : {BroadcastMode::Numpy, BroadcastMode::Static}) {
      GufuncResult r = resolveGufunc(*solver, c, sig, args, mode);
      (void)r.validity.checks();
      if (mode != BroadcastMode::Numpy || r.status() == Status::Unknown) continue;
      std::vector<Shape> shapes;
      for (const GufuncArgument &g : args) shapes.push_back(g.shape);
      for (const Assignment &a : fuzz::comparisonPoints(fuzz::parameterNames(shapes))) {
        std::vector<GufuncArgument> concrete;
        bool defined = true;
        for (const GufuncArgument &g : args) {
          auto c = fuzz::concreteAt(g.shape, a);
          defined = defined && c;
          concrete.push_back({c.value_or(Shape{}), g.shapeOnly});
        }
        if (!defined) {
          if (fuzz::symbolicHolds(r, a)) fuzz::finding("gufunc valid where an operand size is undefined, at " + a.toString());
          continue;
        }
        GufuncResult k = resolveGufunc(*solver, c, sig, concrete, mode);
        if (k.status() == Status::Unknown) continue;
        if ((k.status() == Status::Valid) != fuzz::symbolicHolds(r, a))
          fuzz::finding("gufunc verdict differs from the concrete one at " + a.toString());
      }
    }
  } catch (const UserError &) {
  }
  fuzz::forget();
  return 0;
}
