// support/FlatIndex.h: the flat index and EntryTable against std::map, under hashes that collide.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/FlatIndex.h"

// EntryTable (FlatIndex underneath) against std::map, with hashes that collide (equal hashes
// have equal tags and homes: only the entries' equality tells them apart) over several chunks
// of entries; references handed out stay valid as the table grows.
TEST(EntryTable, AgreesWithAMapUnderCollidingHashes) {
  bool ok = rc::check("find/[]/add agree with std::map", [] {
    const int keys = *rc::gen::inRange(1, 300);
    std::vector<std::size_t> hashOf(keys);
    for (auto &h : hashOf) h = *rc::gen::oneOf(rc::gen::inRange<std::size_t>(60, 64), rc::gen::arbitrary<std::size_t>());
    // The hash functor is default-constructed by the table: it reads the table of hashes here.
    static thread_local const std::vector<std::size_t> *current;
    current = &hashOf;
    struct Hash {
      std::size_t operator()(int k) const { return (*current)[std::size_t(k)]; }
    };
    shapelab::EntryTable<int, int, Hash> table;
    std::map<int, int> model;
    std::map<int, int *> handedOut;
    const auto steps = *rc::gen::container<std::vector<std::pair<int, int>>>(
        rc::gen::pair(rc::gen::inRange(0, 3), rc::gen::inRange(0, keys)));
    int next = 1;
    for (const auto &[what, k] : steps) {
      if (what == 0) { // find
        int *v = table.find(k);
        auto it = model.find(k);
        RC_ASSERT((v != nullptr) == (it != model.end()));
        if (v) RC_ASSERT(*v == it->second);
      } else if (what == 1) { // [] then assign
        int &v = table[k];
        RC_ASSERT(v == (model.count(k) ? model[k] : 0));
        v = model[k] = next++;
        handedOut[k] = &v;
      } else if (!model.count(k)) { // add a new key
        handedOut[k] = &table.add(k, next);
        model[k] = next++;
      }
      RC_ASSERT(table.size() == model.size());
    }
    for (auto &[k, v] : model) {
      RC_ASSERT(table.find(k) == handedOut[k]);
      RC_ASSERT(*handedOut[k] == v);
    }
    table.clear();
    RC_ASSERT(table.size() == 0u);
    for (auto &[k, v] : model) RC_ASSERT(table.find(k) == nullptr);
  });
  EXPECT_TRUE(ok);
}

TEST(EntryTable, FindsStringKeysByView) {
  shapelab::EntryTable<std::string, int, shapelab::NameHash> names;
  for (int i = 0; i < 5000; ++i) names["x" + std::to_string(i)] = i;
  const int *first = names.find(std::string_view("x0"));
  ASSERT_NE(first, nullptr);
  for (int i = 0; i < 5000; ++i) {
    const std::string name = "x" + std::to_string(i);
    const int *v = names.find(std::string_view(name));
    ASSERT_NE(v, nullptr) << name;
    EXPECT_EQ(*v, i);
  }
  EXPECT_EQ(names.find(std::string_view("x5000")), nullptr);
  EXPECT_EQ(names.find(std::string_view("x")), nullptr);
  EXPECT_EQ(names.find(std::string_view("x0")), first); // the first entry did not move
}

// Positions past 2^31 would need more slots than a 32-bit tag's top bits address: refused.
TEST(FlatIndex, RefusesPositionsPastItsBound) {
  shapelab::FlatIndex index;
  index.insert(7, shapelab::FlatIndex::kMaxPositions - 1);
  EXPECT_EQ(index.find(7, [](std::size_t) { return true; }), shapelab::FlatIndex::kMaxPositions - 1);
  EXPECT_THROW(index.insert(8, shapelab::FlatIndex::kMaxPositions), std::length_error);
  EXPECT_EQ(index.size(), 1u);
}
