// Signatures with operand shapes: a signature and up to three arguments (separated by 0x00)
// are resolved in both modes; only UserError may escape.
#include "tests/fuzz/FuzzCommon.h"
#include "shape/Gufunc.h"

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
      (void)r.status();
      (void)r.validity.checks();
    }
  } catch (const UserError &) {
  }
  fuzz::forget();
  return 0;
}
