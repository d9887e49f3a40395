// A node for support/'s containers in tests: what InternTable and NodeSlots ask of a node (a
// structural hash, a reference count), told apart by `key` alone.
#pragma once

#include <cstddef>

#include "symbolic/Expr.h"

namespace shapelab::testing {
struct FakeNode {
  int key = 0;
  std::size_t structuralHash = 0;
  RefCount refs;
};
struct SameKey {
  bool operator()(const FakeNode &a, const FakeNode &b) const { return a.key == b.key; }
};
} // namespace shapelab::testing
