#include "interp/Timing.h"

#include <chrono>
#include <memory>
#include <unordered_set>

#include "interp/Optimized.h"

namespace shapelab::interp {

std::vector<double> timeEvaluation(const ops::Graph &graph, const ops::Node *node, const Assignment &point,
                                   std::map<std::string, Array> inputs, const Backend &backend, int repeat, int inner) {
  addSeededInputs(graph, point, 0, inputs);
  // The program inputs `node` reads.
  std::vector<const ops::Node *> programInputs, stack{node};
  std::unordered_set<const ops::Node *> seen{node};
  while (!stack.empty()) {
    const ops::Node *n = stack.back();
    stack.pop_back();
    if (n->kind == ops::OpKind::Input) programInputs.push_back(n);
    for (const ops::Node *i : n->inputs)
      if (seen.insert(i).second) stack.push_back(i);
  }
  InterpreterOptions options;
  options.debugChecks = false;
  std::vector<double> figures;
  for (int r = 0; r < repeat; ++r) {
    // The interpreters of this figure, their inputs already read.
    std::vector<std::unique_ptr<Interpreter>> refs;
    std::vector<std::unique_ptr<OptimizedInterpreter>> opts;
    for (int k = 0; k < inner; ++k) {
      if (backend.optimized) {
        auto o = std::make_unique<OptimizedInterpreter>(graph, point, inputs, options);
        o->setFusion(backend.fusion);
        o->setScalarCode(backend.scalarCode);
        o->setViews(backend.views);
        o->setLibmMath(backend.libm);
        o->setThreads(backend.threads);
        o->setLoopGeometry({backend.block, 64, backend.threads > 1 ? int64_t(1) << 16 : INT64_MAX});
        for (const ops::Node *i : programInputs) o->evaluate(i);
        opts.push_back(std::move(o));
      } else {
        auto i = std::make_unique<Interpreter>(graph, point, inputs, options);
        for (const ops::Node *p : programInputs) i->evaluate(p);
        refs.push_back(std::move(i));
      }
    }
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < inner; ++k) {
      if (backend.optimized) opts[std::size_t(k)]->evaluate(node);
      else refs[std::size_t(k)]->evaluate(node);
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    figures.push_back(took.count() / inner);
  }
  return figures;
}

} // namespace shapelab::interp
