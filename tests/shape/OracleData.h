// Reads the tab-separated oracle files that scripts/make_numpy_oracle.py writes.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "shape/Shape.h"
#include "symbolic/Evaluate.h"

namespace oracle {

inline std::string dataPath(const std::string &name) {
  const char *root = std::getenv("SHAPELAB_SOURCE_DIR");
  return std::string(root ? root : ".") + "/tests/data/" + name;
}

/// The rows of tests/data/`name`. A file that cannot be read throws (the test fails naming it),
/// so a test never passes over no rows.
inline std::vector<std::vector<std::string>> readRows(const std::string &name) {
  std::ifstream in(dataPath(name));
  if (!in)
    throw std::runtime_error("cannot read oracle file " + dataPath(name) +
                             " (tests find tests/data/ under $SHAPELAB_SOURCE_DIR, which ctest sets)");
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, '\t')) cols.push_back(c);
    if (!line.empty() && line.back() == '\t') cols.push_back("");
    rows.push_back(cols);
  }
  return rows;
}

inline std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  std::stringstream ss(s);
  std::string c;
  while (std::getline(ss, c, sep)) out.push_back(c);
  return out;
}

inline std::vector<shapelab::Shape> parseShapes(const std::string &joined) {
  std::vector<shapelab::Shape> out;
  for (auto &s : split(joined, '|')) out.push_back(shapelab::parseShape(s));
  return out;
}

/// A concrete `shape` with its dims at `positions` made parameters p<next>, p<next + 1>, ..., whose values go into `at`: the symbolic question whose
/// answer at `at` must be the concrete one.
inline shapelab::Shape withParameters(const shapelab::Shape &shape, const std::vector<std::size_t> &positions,
                                      shapelab::Assignment &at, std::size_t &next) {
  shapelab::Shape out = shape;
  for (std::size_t i : positions) {
    std::string name = "p" + std::to_string(next++);
    at.set(name, *shape[i].constantValue());
    out[i] = shapelab::Expr::param(name);
  }
  return out;
}

/// Every position of `shape`.
inline std::vector<std::size_t> allPositions(const shapelab::Shape &shape) {
  std::vector<std::size_t> v(shape.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

} // namespace oracle
