// Context — the assumptions a question is asked under.
//
// Model: a conjunction of predicates over size parameters, each parameter implicitly >= 0
// (DESIGN §3.1). As a set it is an isl parameter set; the solver builds that set when asked.
// Example: Context built from {"n >= 1", "n % 2 == 0", "m == n + 1"}.
// Invariant: a Context is only made by Solver::makeContext, which refuses it only when it is
// proven unsatisfiable. Usually it also finds a real point of it (`samplePoint`), so no question
// is answered vacuously; when products of parameters or the work bound keep it from finding one,
// `consistencyProven()` is false and answers under it say so (DESIGN §3.3: never guessed).
// Identity: two contexts with the same assumptions (same hash-consed predicate) are the same
// key for the solver's memo.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "symbolic/Evaluate.h"
#include "symbolic/Expr.h"

namespace shapelab {

namespace detail {
struct RangeMemo;
}

/// What a size parameter ranges over. Array sizes are what the shape layer reasons about: NumPy
/// (npy_intp) cannot hold a dimension above 2**63 - 1, so neither can a parameter that stands
/// for one. Plain integers are for pure arithmetic questions (`shapelab decide`), where values
/// beyond 64 bits are meaningful.
enum class SizeDomain : uint8_t {
  ArraySizes, // 0 <= p <= 2**63 - 1
  Integers,   // 0 <= p
};

/// The largest array dimension and element count, 2**63 - 1.
const Integer &maxArraySize();

class Context {
public:
  /// No assumptions beyond parameters being >= 0.
  Context();

  const Pred &assumptions() const { return data_->assumptions; }
  const std::vector<Pred> &parts() const { return data_->parts; }
  /// The parameters the assumptions mention, sorted by name.
  const std::vector<Expr> &parameters() const { return data_->parameters; }
  /// A point where the assumptions hold (parameters not mentioned are 0); empty when none was
  /// found (see consistencyProven()).
  const Assignment &samplePoint() const { return data_->sample; }
  /// True when a real point of the assumptions is known.
  bool consistencyProven() const { return data_->consistent; }
  SizeDomain domain() const { return data_->domain; }
  /// Simple interval bounds per parameter, from assumptions such as `n >= 1` or `n == 3`.
  /// A relaxation of the context: every point of it lies in the box.
  struct Interval {
    Integer low = 0;
    std::optional<Integer> high; // nullopt: unbounded
  };
  Interval boundsOf(const std::string &name) const;
  /// True when the assumptions say nothing beyond these bounds (each is a comparison of one
  /// parameter with a constant, `!=` excepted): the context is then exactly the box, and an
  /// affine form over parameters takes its interval's two ends inside it.
  bool isBox() const { return data_->box; }
  std::string toString() const;
  /// rangeOf's answers under this context (Range.h); null for none kept.
  detail::RangeMemo *rangeMemo() const { return data_->ranges.get(); }

private:
  friend class Solver;
  struct Data {
    Pred assumptions;
    std::vector<Pred> parts;
    std::vector<Expr> parameters;
    Assignment sample;
    bool consistent = true;
    bool box = true;
    SizeDomain domain = SizeDomain::ArraySizes;
    std::map<std::string, Interval> bounds;
    std::shared_ptr<detail::RangeMemo> ranges;
  };
  explicit Context(std::shared_ptr<const Data> d) : data_(std::move(d)) {}
  std::shared_ptr<const Data> data_;
};

} // namespace shapelab
