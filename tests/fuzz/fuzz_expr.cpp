// Expression/predicate parser: parse, print, re-parse must give the same node (hash-consing
// makes that a pointer comparison), and the value must not change at a few points. A text whose
// read took a repeated group's value instead of reading it is also read with every group read in
// full, which must give the same value or error.
#include "tests/fuzz/FuzzCommon.h"
#include "symbolic/Evaluate.h"
#include "symbolic/Parser.h"

#include <functional>
#include <optional>

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
  // Every parameter at a few values (the list kept with the node, found by pointer: a fresh
  // list and assignment per point were a tenth of this target's allocations).
  const std::vector<const ExprNode *> &params = parameterNodes(x);
  std::vector<Integer> values(params.size());
  for (int64_t v : {0, 1, 2, 3, 7}) {
    std::fill(values.begin(), values.end(), Integer(v));
    (void)evaluate(x, NodeValues{params, values});
  }
}

/// What reading a text gives: the value, or the error's position and message.
struct Outcome {
  std::optional<std::variant<Expr, Pred>> value;
  std::string error;
  bool operator==(const Outcome &) const = default;
  std::string describe() const {
    if (!value) return "error at " + error;
    if (auto *e = std::get_if<Expr>(&*value)) return e->toString();
    return std::get<Pred>(*value).toString();
  }
};
Outcome outcome(const std::string &text, bool reuseGroups, std::size_t *groupsReused = nullptr) {
  ParseOptions options;
  options.reuseGroups = reuseGroups;
  options.groupsReused = groupsReused;
  // Read without a throw for a syntax error (9 in 10 of this target's texts have one); the
  // reading that throws is the same reading (Parser.TheGrammarCheckAndTheBuildAgree).
  std::variant<Expr, Pred, SyntaxError> r = tryParseExprOrPred(text, options);
  if (auto *e = std::get_if<Expr>(&r)) return {std::move(*e), ""};
  if (auto *p = std::get_if<Pred>(&r)) return {std::move(*p), ""};
  const SyntaxError &e = std::get<SyntaxError>(r);
  fuzz::checkReported(e, text);
  // The error is compared only where a read that reused groups is read again in full (a few in
  // a thousand): the others do not write it out.
  if (groupsReused && *groupsReused == 0) return {std::nullopt, ""};
  return {std::nullopt, std::to_string(e.position()) + ": " + e.message()};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, std::size_t size) {
  if (size > 4096) return 0;
  std::string text(reinterpret_cast<const char *>(data), size);
  std::size_t reused = 0;
  Outcome read = outcome(text, true, &reused);
  // Reading a repeated group once must change nothing (ParseOptions::reuseGroups). A read that
  // reused no group took the same path as a read in full, as nearly every input does (9 of the
  // 1,281 inputs of a grown corpus reuse one): the others are read in full as well. (A printed
  // form read back reuses groups far more often; the round trip below checks what it gives.)
  if (reused > 0) {
    Outcome full = outcome(text, false);
    if (!(full == read))
      fuzz::finding("reusing groups changed what the text reads as: " + read.describe() +
                    " | read in full: " + full.describe());
  }
  if (!read.value) return 0;
  const std::variant<Expr, Pred> &parsed = *read.value;
  if (auto *e = std::get_if<Expr>(&parsed)) roundTrip(*e);
  else roundTrip(std::get<Pred>(parsed));
  return 0;
}
