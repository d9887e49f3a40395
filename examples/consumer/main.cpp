// Decides a symbolic broadcast through the shapelab library: (n, 1) with (3, m) under n >= 2
// (valid where n == 3, since n cannot be 1; the result is (3, m), the second operand's shape, so
// its element count fits as that operand's does).
#include <iostream>

#include "shape/Broadcast.h"
#include "symbolic/Parser.h"
#include "symbolic/Solver.h"

int main() {
  using namespace shapelab;
  Solver solver;
  Context context = solver.makeContext({parsePred("n >= 2")});
  BroadcastResult r = broadcast(solver, context, {parseShape("(n, 1)"), parseShape("(3, m)")});
  std::cout << "status: " << spelling(r.status()) << "\n";
  std::cout << "shape: (";
  for (std::size_t i = 0; i < r.shape.size(); ++i) std::cout << (i ? ", " : "") << r.shape[i].toString();
  std::cout << ")\n";
  for (const Pred &check : r.validity.checks()) std::cout << "check: " << check.toString() << "\n";
  for (const Pred &limit : r.validity.limits()) std::cout << "limit: " << limit.toString() << "\n";
  return r.status() == Status::Error ? 1 : 0;
}
