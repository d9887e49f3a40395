// The library's np.random functions: a random variable's parameters (arrays, or a shape alone
// where the variable reads only its size: permutation(n), choice's population) and its size,
// bound by the variable's signature in shape/RandomVariable.h.
#include "lang/SessionImpl.h"

namespace shapelab::lang {

auto Session::Impl::randomCall(const std::string &name, Args &a, std::size_t p) -> Value {
  const RandomVariableInfo *info = findRandomVariable(name);
  if (!info) failAt("unknown random variable '" + name + "' (see :ops)", p);
  std::vector<const Node *> params;
  std::vector<std::optional<Shape>> shapeOnly;
  std::optional<Shape> size;
  const std::size_t count = info->parameters.size();
  if (a.positional.size() > count)
    failAt("random." + name + "() takes " + std::to_string(count) + " parameters (" + info->parameterList() + ")", p);
  std::vector<std::optional<Value>> given(a.positional.begin(), a.positional.end());
  given.resize(count);
  for (const auto &[k, v] : a.keywords) {
    if (is(k, "size")) {
      if (v.kind != Value::None) size = shapeOf(v, "size");
      continue;
    }
    auto it = std::find(info->parameters.begin(), info->parameters.end(), k);
    if (it == info->parameters.end()) failAt("random." + name + "() got an unexpected keyword argument '" + k + "'", v.pos);
    std::size_t i = std::size_t(it - info->parameters.begin());
    if (given[i]) failAt("random." + name + "() got multiple values for '" + k + "'", v.pos);
    given[i] = v;
  }
  // Parameters left out take the catalogue's defaults: normal(size=3) is normal(0.0, 1.0,
  // size=3), and integers(k) is integers(0, k).
  for (std::size_t i = 0; i < count; ++i) {
    if (given[i]) continue;
    const std::optional<std::optional<double>> d = info->defaultValue(i);
    if (d && !*d && is(name, "integers") && given[0]) {
      given[1] = given[0];
      given[0] = Value::ofSize(Expr(0), p);
    } else if (d && *d) {
      given[i] = Value::ofFloat(**d, p);
    } else if (is(name, "choice_without_replacement") && i == 1) {
      given[i] = Value(); // p=None
    } else {
      failAt("random." + name + "() is missing parameter '" + info->parameters[i] + "' (" + info->parameterList() + ")", p);
    }
  }
  bool byValue = is(name, "permutation") || is(name, "choice_without_replacement");
  for (std::size_t i = 0; i < count; ++i) {
    const Value &v = *given[i];
    // Value-shaped parameters: permutation's integer x, choice's core_shape.
    bool valueShaped = byValue && ((is(name, "permutation") && v.kind == Value::Size) ||
                                   (is(name, "choice_without_replacement") && i == info->parameters.size() - 1));
    if (valueShaped) {
      Shape s = v.kind == Value::Tuple ? shapeOf(v) : Shape{sizeOf(v, "the value")};
      shapeOnly.push_back(s);
      params.push_back(graph->size(0));
    } else if (is(name, "choice_without_replacement") && i == 1 && v.kind == Value::None) {
      continue; // p=None
    } else {
      shapeOnly.push_back(std::nullopt);
      params.push_back(array(v));
    }
  }
  return Value::ofNode(graph->random(name, params, size, mode, shapeOnly), p);
}

} // namespace shapelab::lang
