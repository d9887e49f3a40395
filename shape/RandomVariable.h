// RandomVariable — the catalogue of PyTensor's random variables and their output shapes
// (DESIGN §3.5; shared/reference/pytensor-rv-catalogue.tsv, pytensor-shapes.md §a).
//
// Model: a RandomVariable is a gufunc signature over its parameters plus an optional `size`.
// Without `size` the batch shape is the broadcast of the parameters' batch shapes; with `size`
// every parameter's batch shape must broadcast *to* `size` (size itself never broadcasts) and
// the output is size + core shape. `size=()` is not `size=None`: it forbids batched parameters.
// Example: normal with loc (3, 1) and scale (4,) gives (3, 4); multivariate_normal with mean
// (5, n) and cov (n, n) gives (5, n); with size (2, 5) it gives (2, 5, n).
// Core shapes that depend on a parameter's *value* (permutation of an integer, the sizes of
// choice without replacement) take that value as a shape-only argument `<...>`; without it the
// core dims are reported as needing the value, so the output cannot be allocated in advance.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "shape/Gufunc.h"

namespace shapelab {

/// Where an RV's core shape comes from — i.e. whether its output can be allocated before
/// sampling.
enum class CoreShapeSource { Scalar, ParameterShapes, ParameterValues };
const char *spelling(CoreShapeSource s); // "scalar", "from-shapes", "needs-value"

struct RandomVariableInfo {
  std::string name;
  std::string className;
  std::vector<std::string> parameters;
  std::string signature; // empty when built per call (choice_without_replacement, permutation)
  std::string dtype;
  CoreShapeSource coreShape;
  std::string note;
  /// Per parameter, its default value as the catalogue gives it ("1.0"), or empty where it must
  /// be given; an empty list when every one must. "None" is integers' high: integers(k) draws
  /// from [0, k), as integers(0, k).
  std::vector<std::string> defaults;
  /// A call `:help` runs (ops::OpInfo::example), where the parameters are not all scalars; ""
  /// for the usual one (a vector first parameter, the others 1.0, a size).
  std::string example = "";
  /// "loc=0.0, scale=1.0": the parameters, each with its default where it has one.
  std::string parameterList() const;
  /// The default of parameter i, or empty.
  std::string defaultOf(std::size_t i) const { return i < defaults.size() ? defaults[i] : ""; }
  /// Parameter i's default as a value: absent where the parameter must be given; nullopt inside
  /// for "None" (integers' high); the number otherwise.
  std::optional<std::optional<double>> defaultValue(std::size_t i) const;
};

const std::vector<RandomVariableInfo> &randomVariableCatalogue();
const RandomVariableInfo *findRandomVariable(const std::string &name);

struct RandomVariableResult {
  std::string signature; // the signature used for this call
  Shape batchShape;
  std::vector<std::optional<Expr>> shape; // size/batch + core; nullopt where undetermined
  std::vector<std::string> undetermined;
  CoreShapeSource coreShape = CoreShapeSource::Scalar;
  Validity validity;
  std::string message;
  Status status() const { return validity.status(); }
  bool allocatable() const { return undetermined.empty(); }
};

/// Throws UserError for an unknown name or a wrong number of parameters; trailing parameters
/// left out that have defaults (RandomVariableInfo::defaults) are scalars. Array parameters must
/// be able to exist, as gufunc operands (`operandsExist`, Gufunc.h).
RandomVariableResult inferRandomVariable(Solver &solver, const Context &context,
                                         const std::string &name,
                                         const std::vector<GufuncArgument> &parameters,
                                         const std::optional<Shape> &size,
                                         BroadcastMode mode = BroadcastMode::Numpy,
                                         OperandsExist operandsExist = OperandsExist::Require);

} // namespace shapelab
