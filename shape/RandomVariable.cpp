#include "shape/RandomVariable.h"

#include "shape/ArraySize.h"

#include "symbolic/Errors.h"

namespace shapelab {

const char *spelling(CoreShapeSource s) {
  switch (s) {
  case CoreShapeSource::Scalar: return "scalar";
  case CoreShapeSource::ParameterShapes: return "from-shapes";
  case CoreShapeSource::ParameterValues: return "needs-value";
  }
  return "?";
}

const std::vector<RandomVariableInfo> &randomVariableCatalogue() {
  using S = CoreShapeSource;
  // Names, parameters, signatures and dtypes as PyTensor ships them
  // (shared/reference/pytensor-rv-catalogue.tsv).
  static const std::vector<RandomVariableInfo> list = {
      {"uniform", "UniformRV", {"low", "high"}, "(),()->()", "floatX", S::Scalar, "", {"0.0", "1.0"}},
      {"triangular", "TriangularRV", {"left", "mode", "right"}, "(),(),()->()", "floatX", S::Scalar, "", {}},
      {"beta", "BetaRV", {"alpha", "beta"}, "(),()->()", "floatX", S::Scalar, "", {}},
      {"normal", "NormalRV", {"loc", "scale"}, "(),()->()", "floatX", S::Scalar, "", {"0.0", "1.0"}},
      {"halfnormal", "HalfNormalRV", {"loc", "scale"}, "(),()->()", "floatX", S::Scalar, "", {"0.0", "1.0"}},
      {"lognormal", "LogNormalRV", {"mean", "sigma"}, "(),()->()", "floatX", S::Scalar, "", {"0.0", "1.0"}},
      {"gamma", "GammaRV", {"shape", "scale"}, "(),()->()", "floatX", S::Scalar, "", {}},
      {"pareto", "ParetoRV", {"b", "scale"}, "(),()->()", "floatX", S::Scalar, "", {"", "1.0"}},
      {"gumbel", "GumbelRV", {"loc", "scale"}, "(),()->()", "floatX", S::Scalar, "", {"", "1.0"}},
      {"exponential", "ExponentialRV", {"scale"}, "()->()", "floatX", S::Scalar, "", {"1.0"}},
      {"weibull", "WeibullRV", {"shape"}, "()->()", "floatX", S::Scalar, "", {}},
      {"logistic", "LogisticRV", {"loc", "scale"}, "(),()->()", "floatX", S::Scalar, "", {"0.0", "1.0"}},
      {"vonmises", "VonMisesRV", {"mu", "kappa"}, "(),()->()", "floatX", S::Scalar, "", {}},
      {"multivariate_normal", "MvNormalRV", {"mean", "cov"}, "(n),(n,n)->(n)", "floatX",
       S::ParameterShapes, "n is read from mean.shape[-1]; shapelab also requires cov to be (n, n)", {},
       "np.random.multivariate_normal(x, a)"},
      {"dirichlet", "DirichletRV", {"alphas"}, "(a)->(a)", "floatX", S::ParameterShapes, "", {}, "np.random.dirichlet(x)"},
      {"poisson", "PoissonRV", {"lam"}, "()->()", "int64", S::Scalar, "", {"1.0"}},
      {"geometric", "GeometricRV", {"p"}, "()->()", "int64", S::Scalar, "", {}},
      {"hypergeometric", "HyperGeometricRV", {"ngood", "nbad", "nsample"}, "(),(),()->()", "int64", S::Scalar, "", {}},
      {"cauchy", "CauchyRV", {"loc", "scale"}, "(),()->()", "floatX", S::Scalar, "", {"0.0", "1.0"}},
      {"halfcauchy", "HalfCauchyRV", {"loc", "scale"}, "(),()->()", "floatX", S::Scalar, "", {"0.0", "1.0"}},
      {"invgamma", "InvGammaRV", {"shape", "scale"}, "(),()->()", "floatX", S::Scalar, "", {}},
      {"wald", "WaldRV", {"mean", "scale"}, "(),()->()", "floatX", S::Scalar, "", {"1.0", "1.0"}},
      {"truncexpon", "TruncExponentialRV", {"b", "loc", "scale"}, "(),(),()->()", "floatX", S::Scalar, "", {"", "0.0", "1.0"}},
      {"t", "StudentTRV", {"df", "loc", "scale"}, "(),(),()->()", "floatX", S::Scalar, "", {"", "0.0", "1.0"}},
      {"bernoulli", "BernoulliRV", {"p"}, "()->()", "int64", S::Scalar, "", {}},
      {"laplace", "LaplaceRV", {"loc", "scale"}, "(),()->()", "floatX", S::Scalar, "", {"0.0", "1.0"}},
      {"binomial", "BinomialRV", {"n", "p"}, "(),()->()", "int64", S::Scalar, "", {}},
      {"negative_binomial", "NegBinomialRV", {"n", "p"}, "(),()->()", "int64", S::Scalar, "", {}},
      {"beta_binomial", "BetaBinomialRV", {"n", "a", "b"}, "(),(),()->()", "int64", S::Scalar, "", {}},
      {"gengamma", "GenGammaRV", {"alpha", "p", "lambd"}, "(),(),()->()", "floatX", S::Scalar, "", {"1.0", "1.0", "1.0"}},
      {"multinomial", "MultinomialRV", {"n", "p"}, "(),(p)->(p)", "int64", S::ParameterShapes,
       "the core dim is p.shape[-1]", {}, "np.random.multinomial(5, x)"},
      {"categorical", "CategoricalRV", {"p"}, "(p)->()", "int64", S::Scalar, "the core dim p is consumed", {}, "np.random.categorical(x)"},
      {"integers", "IntegersRV", {"low", "high"}, "(),()->()", "int64", S::Scalar, "", {"", "None"}},
      {"choice_without_replacement", "ChoiceWithoutReplacement", {"a", "p", "core_shape"}, "", "a's dtype",
       S::ParameterValues,
       "built per call: (a0,..,a{n-1}),[(a0),]<s0,..>->(s0,..,a1,..,a{n-1}); p is optional; the "
       "output's leading core dims are the VALUES of core_shape (give them as <2,3>)", {},
       "np.random.choice_without_replacement(x, core_shape=(2,))"},
      {"permutation", "PermutationRV", {"x"}, "", "x's dtype", S::ParameterValues,
       "built per call: an integer x (given as <5>) permutes arange(x): ()->(x) by value; an "
       "array x of rank r: (x0,..,x{r-1})->(x0,..,x{r-1})", {}, "np.random.permutation(x)"},
  };
  return list;
}

std::optional<std::optional<double>> RandomVariableInfo::defaultValue(std::size_t i) const {
  const std::string d = defaultOf(i);
  if (d.empty()) return std::nullopt;
  if (d == "None") return std::optional<double>();
  return std::optional<double>(std::stod(d)); // the catalogue's own decimal text
}

std::string RandomVariableInfo::parameterList() const {
  std::string out;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    out += (i ? ", " : "") + parameters[i];
    if (!defaultOf(i).empty()) out += "=" + defaultOf(i);
  }
  return out;
}

const RandomVariableInfo *findRandomVariable(const std::string &name) {
  for (const RandomVariableInfo &i : randomVariableCatalogue())
    if (i.name == name) return &i;
  return nullptr;
}

namespace {

std::string names(const std::string &prefix, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) out += (out.empty() ? "" : ",") + prefix + std::to_string(i);
  return out;
}

/// The signature PyTensor would build for this call of a value-dependent RV.
std::string dynamicSignature(const RandomVariableInfo &info, const std::vector<GufuncArgument> &ps) {
  if (info.name == "permutation") {
    if (ps.size() != 1) throw UserError("permutation takes 1 parameter (x), got " + std::to_string(ps.size()));
    if (ps[0].shapeOnly) return "<x>->(x)";
    std::size_t r = ps[0].shape.size();
    if (r == 0) return "()->(x)"; // x's value sets the core shape: not known from its shape
    return "(" + names("x", 0, r) + ")->(" + names("x", 0, r) + ")";
  }
  // choice_without_replacement(a, [p], core_shape)
  if (ps.size() != 2 && ps.size() != 3)
    throw UserError("choice_without_replacement takes (a, core_shape) or (a, p, core_shape), got " +
                    std::to_string(ps.size()) + " parameters");
  if (ps[0].shapeOnly) throw UserError("parameter a of choice_without_replacement is an array: give its shape");
  std::size_t n = ps[0].shape.size();
  std::string a = n == 0 ? "()" : "(" + names("a", 0, n) + ")";
  std::string p = ps.size() == 3 ? (n == 0 ? ",(a)" : ",(a0)") : "";
  const GufuncArgument &cs = ps.back();
  std::size_t k;
  std::string shapeArg;
  if (cs.shapeOnly) {
    k = cs.shape.size();
    shapeArg = "<" + names("s", 0, k) + ">";
  } else {
    if (cs.shape.size() != 1 || !cs.shape[0].isConstant())
      throw UserError("core_shape of choice_without_replacement is an integer vector of known "
                      "length: give its values as <2,3>, or its shape as (k,)");
    k = size_t(cs.shape[0].constantValue()->toInt64Checked("core_shape length"));
    shapeArg = "(" + std::to_string(k) + ")";
    if (k == 0) shapeArg = "()";
  }
  std::string out = names("s", 0, k);
  std::string rest = n > 1 ? names("a", 1, n) : "";
  std::string core = out + (!out.empty() && !rest.empty() ? "," : "") + rest;
  return a + p + "," + shapeArg + "->(" + core + ")";
}

} // namespace

RandomVariableResult inferRandomVariable(Solver &solver, const Context &context,
                                         const std::string &name,
                                         const std::vector<GufuncArgument> &given,
                                         const std::optional<Shape> &size, BroadcastMode mode,
                                         OperandsExist operandsExist) {
  const RandomVariableInfo *info = findRandomVariable(name);
  if (!info) throw UserError("unknown random variable '" + name + "'; see 'shapelab rv --list'");
  RandomVariableResult r{"", {}, {}, {}, info->coreShape, Validity(solver, context), ""};
  // Trailing parameters left out take their defaults, which are scalars: normal with no
  // parameters is normal((), ()).
  std::vector<GufuncArgument> params = given;
  while (params.size() < info->parameters.size() && !info->defaultOf(params.size()).empty())
    params.push_back({Shape{}, false});
  for (const GufuncArgument &p : params) r.validity.mention(p.shape);
  if (size) r.validity.mention(*size);
  r.signature = info->signature.empty() ? dynamicSignature(*info, params) : info->signature;
  Signature sig = parseSignature(r.signature);
  if (params.size() != sig.inputs.size()) {
    std::string list;
    for (auto &p : info->parameters) list += (list.empty() ? "" : ", ") + p;
    throw UserError(name + " takes " + std::to_string(sig.inputs.size()) + " parameter(s) (" + list +
                    "), got " + std::to_string(params.size()));
  }
  GufuncResult g = resolveGufunc(solver, context, sig, params, mode, /*broadcastLoops=*/!size, operandsExist);
  r.validity.absorb(g.validity);
  r.undetermined = g.undetermined;
  std::vector<std::optional<Expr>> core;
  if (!g.outShapes.empty()) {
    const auto &out = g.outShapes[0];
    std::size_t coreRank = out.size() - (size ? 0 : g.batchShape.size());
    core.assign(out.end() - coreRank, out.end());
  }
  if (!size) {
    r.batchShape = g.batchShape;
  } else if (r.validity.status() != Status::Error) {
    // Each parameter's batch shape must broadcast *to* size; size never broadcasts.
    r.batchShape = *size;
    for (Expr s : *size)
      if (!s.isConstant()) r.validity.require(ge(s, Expr(0)), "size dimension " + s.toString() + " is a size");
    const std::vector<Shape> &loops = g.loopShapes;
    for (std::size_t i = 0; i < loops.size(); ++i) {
      const Shape &batch = loops[i];
      std::string pname = i < info->parameters.size() ? info->parameters[i] : std::to_string(i);
      if (batch.size() > size->size()) {
        r.validity.fail("Size length is incompatible with batched dimensions of parameter " +
                        std::to_string(i) + " (" + pname + "): len(size) = " + std::to_string(size->size()) +
                        ", len(batched dims) = " + std::to_string(batch.size()) +
                        ". Size must be None or have length >= " + std::to_string(batch.size()));
        continue;
      }
      for (std::size_t j = 0; j < batch.size(); ++j) {
        Expr p = batch[j], s = (*size)[size->size() - batch.size() + j];
        auto pv = p.constantValue(), sv = s.constantValue();
        if (pv && sv) {
          if (!(pv->isOne() || *pv == *sv))
            r.validity.fail("parameter " + std::to_string(i) + " (" + pname + ") with batch shape " +
                            toString(batch) + " cannot broadcast to size " + toString(*size));
          continue;
        }
        if (pv && pv->isOne()) continue;
        if (p == s) continue; // the size itself: nothing broadcasts
        // In both modes: with a size nothing is checked against the parameters when the graph
        // is built, and the sampler broadcasts each to size by NumPy's rule when it runs.
        Pred ok = eq(p, s) || eq(p, Expr(1));
        r.validity.require(ok, "batch dimension " + p.toString() + " of parameter " + std::to_string(i) +
                                   " (" + pname + ") broadcasts to size dimension " + s.toString());
      }
    }
  }
  if (info->name == "choice_without_replacement" && !params[0].shape.empty() && core.size() + 1 >= params[0].shape.size() &&
      r.validity.status() != Status::Error) {
    // The sample (core_shape's dims, first in the core) is drawn from a's first axis without
    // replacement: it is no larger than it (NumPy: "Cannot take a larger sample than population
    // when replace is False"; an empty population gives an empty sample only).
    const std::size_t k = core.size() - (params[0].shape.size() - 1);
    Expr sample(1);
    bool known = true;
    for (std::size_t i = 0; i < k; ++i) {
      if (!core[i]) known = false;
      else sample = sample * *core[i];
    }
    if (known)
      r.validity.require(le(sample, params[0].shape[0]),
                         "the sample " + sample.toString() + " is no larger than the population " +
                             params[0].shape[0].toString() + " (a sample without replacement)");
  }
  r.shape.assign(r.batchShape.begin(), r.batchShape.end());
  r.shape.insert(r.shape.end(), core.begin(), core.end());
  if (size && constantDimensionsFit(r.validity, *size, "size")) {
    ArraySizeObligations sizes = arraySizeObligations(context, *size);
    if (!sizes.sizes.isTrue()) r.validity.require(sizes.sizes, "every dimension of size is an array size");
    if (!sizes.limits.isTrue())
      r.validity.require(sizes.limits, "every dimension of size is at most 2**63 - 1", ObligationKind::Limit);
  }
  Shape determined;
  for (auto &d : r.shape)
    if (d) determined.push_back(*d);
  if (determined.size() == r.shape.size() && r.validity.status() != Status::Error)
    requireElementCountFits(r.validity, determined, "the draw");
  r.message = r.validity.message();
  return r;
}

} // namespace shapelab
