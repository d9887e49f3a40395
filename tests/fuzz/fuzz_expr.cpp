// Expression/predicate parser: parse, print, re-parse must give the same node (hash-consing
// makes that a pointer comparison), and the value must not change at a few points.
#include "tests/fuzz/FuzzCommon.h"
#include "symbolic/Evaluate.h"
#include "symbolic/Parser.h"

using namespace shapelab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
  if (size > 4096) return 0;
  std::string text(reinterpret_cast<const char *>(data), size);
  Pred p;
  try {
    p = parsePred(text);
  } catch (const UserError &) {
    try {
      Expr e = parseExpr(text);
      if (fuzz::tooLongToReread(e.toString())) return 0;
      Expr again = parseExpr(e.toString());
      if (again != e) fuzz::finding("expression round trip: " + e.toString() + " -> " + again.toString());
    } catch (const UserError &) {
    }
    return 0;
  }
  if (fuzz::tooLongToReread(p.toString())) return 0;
  Pred again;
  try {
    again = parsePred(p.toString());
  } catch (const UserError &err) {
    fuzz::finding("printed predicate does not parse: " + p.toString() + ": " + err.what());
  }
  if (again != p) fuzz::finding("predicate round trip: " + p.toString() + " -> " + again.toString());
  for (int64_t v : {0, 1, 2, 3, 7}) {
    Assignment a;
    for (Expr x : parametersOf(p)) a.set(x.node()->name, v);
    (void)evaluate(p, a);
  }
  return 0;
}
