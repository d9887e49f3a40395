// support/InternTable.h: the intern table against a model, under hashes that collide.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/FakeNode.h"
#include "support/InternTable.h"

using shapelab::testing::FakeNode;
using shapelab::testing::SameKey;

// The table itself, with hashes chosen to make long probe runs that wrap around the end of the
// slot array (where deletion must shift entries back across the wrap), against a model.
TEST(InternTable, AgreesWithAModelUnderCollidingHashes) {
  bool ok = rc::check("intern/release agree with a map of counts", [] {
    shapelab::detail::InternTable<FakeNode, SameKey> table;
    std::map<int, std::pair<const FakeNode *, int>> model; // key -> (node, references)
    // Keys hash into the last slots of the first table (64 slots), or anywhere.
    const int keys = *rc::gen::inRange(1, 120);
    std::vector<std::size_t> hashOf(keys);
    for (auto &h : hashOf) h = *rc::gen::oneOf(rc::gen::inRange<std::size_t>(60, 64), rc::gen::arbitrary<std::size_t>());
    const auto steps = *rc::gen::container<std::vector<std::pair<bool, int>>>(
        rc::gen::pair(rc::gen::weightedOneOf<bool>({{3, rc::gen::just(true)}, {2, rc::gen::just(false)}}),
                      rc::gen::inRange(0, keys)));
    for (const auto &[build, k] : steps) {
      auto it = model.find(k);
      if (build) {
        FakeNode candidate;
        candidate.key = k;
        candidate.structuralHash = hashOf[k];
        const FakeNode *n = table.intern(std::move(candidate));
        RC_ASSERT(n->key == k);
        if (it == model.end()) model[k] = {n, 1};
        else {
          RC_ASSERT(n == it->second.first);
          ++it->second.second;
        }
      } else if (it != model.end()) {
        bool last = table.releaseLast(it->second.first);
        RC_ASSERT(last == (it->second.second == 1));
        if (last) {
          shapelab::detail::NodeSlots<FakeNode>::give(it->second.first);
          model.erase(it);
        } else {
          --it->second.second;
        }
      }
      RC_ASSERT(table.size() == model.size());
    }
    for (auto &[k, entry] : model) {
      FakeNode probe;
      probe.key = k;
      probe.structuralHash = hashOf[k];
      RC_ASSERT(table.intern(std::move(probe)) == entry.first);
      for (int r = 0; r <= entry.second; ++r) (void)table.releaseLast(entry.first);
      shapelab::detail::NodeSlots<FakeNode>::give(entry.first);
    }
    RC_ASSERT(table.size() == 0u);
  });
  EXPECT_TRUE(ok);
}
