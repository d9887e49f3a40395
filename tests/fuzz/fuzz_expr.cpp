// Expression/predicate parser: parse, print, re-parse must give the same node (hash-consing
// makes that a pointer comparison), and the value must not change at a few points.
#include "tests/fuzz/FuzzCommon.h"
#include "symbolic/Evaluate.h"
#include "symbolic/Parser.h"

using namespace shapelab;

namespace {

template <class T> T reparse(const std::string &printed);
template <> Expr reparse<Expr>(const std::string &printed) { return parseExpr(printed); }
template <> Pred reparse<Pred>(const std::string &printed) { return parsePred(printed); }

template <class T> void roundTrip(const T &x) {
  std::string printed = x.toString();
  if (fuzz::tooLongToReread(printed)) return;
  T again;
  try {
    again = reparse<T>(printed);
  } catch (const UserError &err) {
    fuzz::finding("printed form does not parse: " + printed + ": " + err.what());
  }
  if (again != x) fuzz::finding("round trip: " + printed + " -> " + again.toString());
  for (int64_t v : {0, 1, 2, 3, 7}) {
    Assignment a;
    for (Expr p : parametersOf(x)) a.set(p->name, v);
    (void)evaluate(x, a);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
  if (size > 4096) return 0;
  std::string text(reinterpret_cast<const char *>(data), size);
  std::variant<Expr, Pred> parsed;
  try {
    parsed = parseExprOrPred(text);
  } catch (const UserError &) {
    return 0;
  }
  if (auto *e = std::get_if<Expr>(&parsed)) roundTrip(*e);
  else roundTrip(std::get<Pred>(parsed));
  return 0;
}
