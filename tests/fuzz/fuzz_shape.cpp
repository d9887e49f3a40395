// Shapes and broadcasting: up to four shapes (separated by 0x00) are parsed and broadcast in both
// modes; the symbolic verdict must agree with the concrete one at a few points.
#include "tests/fuzz/FuzzCommon.h"
#include "shape/Broadcast.h"
#include "symbolic/Evaluate.h"

using namespace shapelab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
  if (size > 2048) return 0;
  Solver *solver = &fuzz::solverForInput();
  std::vector<Shape> shapes;
  try {
    for (const std::string &text : fuzz::pieces(data, size, 4)) shapes.push_back(parseShape(text));
  } catch (const UserError &) {
    return 0;
  }
  try {
    Context c = solver->makeContext({});
    for (BroadcastMode mode : {BroadcastMode::Numpy, BroadcastMode::Static}) {
      BroadcastResult r = broadcast(*solver, c, shapes, mode);
      if (mode != BroadcastMode::Numpy || r.status() == Status::Unknown) continue;
      // Pointwise: at each point, the symbolic verdict equals NumPy's concrete algorithm.
      for (const Assignment &a : fuzz::comparisonPoints(fuzz::parameterNames(shapes))) {
        std::vector<std::vector<Integer>> concrete;
        bool defined = true;
        for (const Shape &s : shapes) {
          concrete.emplace_back();
          for (Expr d : s) {
            auto value = evaluate(d, a);
            if (!value) defined = false;
            else concrete.back().push_back(*value);
          }
        }
        std::string message;
        bool concreteOk = defined && broadcastConcrete(concrete, message).has_value();
        if (concreteOk != fuzz::symbolicHolds(r, a))
          fuzz::finding("broadcast verdict differs from the concrete one at " + a.toString());
      }
    }
  } catch (const UserError &) {
  }
  fuzz::forget();
  return 0;
}
