// support/Slots.h: node slots and the slot allocator: freed memory poisoned until reused, live
// blocks apart, kept blocks not reported as leaks.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/FakeNode.h"
#include "support/InternTable.h"
#include "support/Slots.h"

#if defined(__SANITIZE_ADDRESS__)
#define SHAPELAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHAPELAB_ASAN 1
#endif
#endif
#ifdef SHAPELAB_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/lsan_interface.h>
#endif


using shapelab::testing::FakeNode;

// A freed node's memory is kept by its thread and handed out again (the last freed first), up to
// a bound; while it is free it is poisoned under AddressSanitizer, so a use of a freed node is
// still reported.
TEST(NodeSlots, AFreedSlotIsPoisonedUntilItIsReused) {
  using Slots = shapelab::detail::NodeSlots<FakeNode>;
  FakeNode *a = new (Slots::take()) FakeNode();
  a->key = 7;
  const std::size_t keptBefore = Slots::kept();
  Slots::give(a);
  EXPECT_EQ(Slots::kept(), keptBefore + 1);
#ifdef SHAPELAB_ASAN
  EXPECT_TRUE(__asan_address_is_poisoned(&a->key));
  EXPECT_TRUE(__asan_region_is_poisoned(a, sizeof(FakeNode)) == a);
#endif
  void *b = Slots::take();
  EXPECT_EQ(b, static_cast<void *>(a));
  EXPECT_EQ(Slots::kept(), keptBefore);
#ifdef SHAPELAB_ASAN
  EXPECT_EQ(__asan_region_is_poisoned(b, sizeof(FakeNode)), nullptr);
#endif
  Slots::giveBack(b);
  // Another thread does not see this thread's slots.
  void *other = nullptr;
  std::thread([&] {
    EXPECT_EQ(Slots::kept(), 0u);
    other = Slots::take();
    Slots::giveBack(other);
    EXPECT_EQ(Slots::kept(), 1u);
  }).join();
  EXPECT_NE(other, b);
  // Past the bound, freed memory goes back to the heap.
  std::vector<void *> many;
  for (std::size_t i = 0; i < Slots::kKeep + 100; ++i) many.push_back(Slots::take());
  for (void *p : many) Slots::giveBack(p);
  EXPECT_EQ(Slots::kept(), Slots::kKeep);
}

// SlotAllocator (term lists, monomials and big integers take their buffers from it): blocks live
// at once never overlap and keep what was written into them, whatever the mix of sizes; a freed
// block of a size class is poisoned under AddressSanitizer and is the next one its class hands
// out; a request past the largest class goes to the heap and leaves the classes as they were.
TEST(SlotAllocator, LiveBlocksStayApartAndFreedOnesArePoisonedAndReused) {
  using shapelab::detail::giveBytes;
  using shapelab::detail::kLargestSlotBytes;
  using shapelab::detail::takeBytes;
  bool ok = rc::check("random takes and gives", [] {
    struct Live {
      unsigned char *p;
      std::size_t bytes;
      unsigned char tag;
    };
    std::vector<Live> live;
    const auto steps = *rc::gen::container<std::vector<std::pair<bool, std::size_t>>>(
        rc::gen::pair(rc::gen::arbitrary<bool>(), rc::gen::inRange<std::size_t>(1, 2 * kLargestSlotBytes)));
    unsigned char next = 1;
    auto give = [&](std::size_t i) {
      Live l = live[i];
      for (std::size_t k = 0; k < l.bytes; ++k) RC_ASSERT(l.p[k] == l.tag);
      live.erase(live.begin() + std::ptrdiff_t(i));
      giveBytes(l.p, l.bytes);
#ifdef SHAPELAB_ASAN
      if (l.bytes <= kLargestSlotBytes) RC_ASSERT(__asan_address_is_poisoned(l.p + l.bytes - 1));
#endif
    };
    for (const auto &[take, size] : steps) {
      if (take || live.empty()) {
        auto *p = static_cast<unsigned char *>(takeBytes(size));
        RC_ASSERT(reinterpret_cast<std::uintptr_t>(p) % __STDCPP_DEFAULT_NEW_ALIGNMENT__ == 0u);
        for (const Live &l : live) RC_ASSERT(p + size <= l.p || l.p + l.bytes <= p);
        std::memset(p, next, size);
        live.push_back({p, size, next});
        next = next == 255 ? 1 : next + 1;
      } else {
        give(size % live.size());
      }
    }
    while (!live.empty()) give(live.size() - 1);
  });
  EXPECT_TRUE(ok);
  // The last block freed in a class is the next one handed out, for any size of the class.
  void *a = takeBytes(100);
  giveBytes(a, 100);
  void *b = takeBytes(128);
  EXPECT_EQ(a, b);
  giveBytes(b, 128);
  // Past the largest class: the heap, and no class keeps the block.
  const std::size_t keptBefore = shapelab::detail::BlockSlots<kLargestSlotBytes>::kept();
  void *big = takeBytes(kLargestSlotBytes + 1);
  giveBytes(big, kLargestSlotBytes + 1);
  EXPECT_EQ(shapelab::detail::BlockSlots<kLargestSlotBytes>::kept(), keptBefore);
  // A term list and a monomial past their inline space take blocks from here and give them back.
  std::size_t keptWhileLive = 0;
  {
    shapelab::Terms terms;
    for (int i = 0; i < 3; ++i) terms.push_back({shapelab::Integer(i + 1), {}}); // 3 * 72 bytes
    EXPECT_EQ(terms.size(), 3u);
    keptWhileLive = shapelab::detail::BlockSlots<256>::kept();
  }
  EXPECT_EQ(shapelab::detail::BlockSlots<256>::kept(), keptWhileLive + 1);
}

// Blocks a thread keeps are not leaks: a fuzz target asks LeakSanitizer after an input that
// allocated more than it freed, and kept blocks chained through one another (each poisoned) were
// reported, since LeakSanitizer does not follow pointers stored in poisoned memory.
__attribute__((noinline)) void takeAndKeepBlocks(int count) {
  std::vector<void *> blocks;
  for (int i = 0; i < count; ++i) blocks.push_back(shapelab::detail::takeBytes(200));
  for (void *p : blocks) shapelab::detail::giveBytes(p, 200);
  std::fill(blocks.begin(), blocks.end(), nullptr); // the thread's list is the only way to them
}
TEST(SlotAllocator, KeptBlocksAreNotLeaks) {
  takeAndKeepBlocks(50);
  EXPECT_GE(shapelab::detail::BlockSlots<256>::kept(), 50u);
#ifdef SHAPELAB_ASAN
  EXPECT_EQ(__lsan_do_recoverable_leak_check(), 0);
#endif
}
