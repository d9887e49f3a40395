// Slots — memory blocks kept per thread once freed and handed out again (a generic container
// of support/; installed because symbolic/Expr.h names SlotAllocator in its small vectors' types).
//
// A parse makes and frees tens of expression nodes, and as many term lists and monomials that
// outgrow their inline space; each was an allocation and a free of the heap. The heap is fast
// natively, but under AddressSanitizer every allocation records its stack and every free goes
// through a quarantine of freed memory, so late in a fuzzing campaign an allocation costs more
// than the parsing around it. A freed block is poisoned under AddressSanitizer, so a use of it
// is still reported (until the block is handed out again).
// Example: `std::vector<int, SlotAllocator<int>>` takes its buffers of up to 1 KiB from here.
#pragma once

#include <cstddef>
#include <new>

// A free block is poisoned through AddressSanitizer's interface where its runtime is in the
// process (weak references, null otherwise), not by a compile-time test: this header is compiled
// into the library and into programs using it, which may be built with the sanitizer or without,
// and a block that one side poisons when it keeps it the other side must unpoison when it hands
// it out.
extern "C" {
void __asan_poison_memory_region(void const volatile *addr, std::size_t size) __attribute__((weak));
void __asan_unpoison_memory_region(void const volatile *addr, std::size_t size) __attribute__((weak));
}

namespace shapelab::detail {

inline void poisonKept(void *p, std::size_t bytes) {
  if (&__asan_poison_memory_region != nullptr) __asan_poison_memory_region(p, bytes);
}
inline void unpoisonKept(void *p, std::size_t bytes) {
  if (&__asan_unpoison_memory_region != nullptr) __asan_unpoison_memory_region(p, bytes);
}

/// Blocks of `Bytes` bytes from the heap (::operator new), kept by the thread that frees them
/// and handed out again, the last freed first. At most kKeep blocks are kept per thread and
/// size; the rest go back to the heap, as do all of a thread's blocks when it ends. A block may
/// be freed by another thread than the one that took it.
/// The kept blocks are listed in an array of their own, not chained through the blocks: a kept
/// block is poisoned, and LeakSanitizer does not follow pointers stored in poisoned memory, so
/// blocks reached only through another kept block were reported as leaks (a fuzz target checks
/// for leaks after an input that allocated more than it freed).
template <std::size_t Bytes> class BlockSlots {
public:
  static void *take() {
    if (gone_) return ::operator new(Bytes);
    BlockSlots &s = mine();
    if (s.count_ == 0) return ::operator new(Bytes);
    void *p = s.kept_[--s.count_];
    unpoisonKept(p, Bytes);
    return p;
  }
  /// Keeps a block from take() (of this size) that holds no object.
  static void giveBack(void *p) {
    if (gone_) return ::operator delete(p);
    BlockSlots &s = mine();
    if (s.count_ >= kKeep) return ::operator delete(p);
    if (s.kept_ == nullptr && (s.kept_ = static_cast<void **>(::operator new(kKeep * sizeof(void *), std::nothrow))) == nullptr)
      return ::operator delete(p); // giving back never throws: with no list, the block goes back
    poisonKept(p, Bytes);
    s.kept_[s.count_++] = p;
  }
  /// How many free blocks this thread keeps.
  static std::size_t kept() { return gone_ ? 0 : mine().count_; }
  static constexpr std::size_t kKeep = 4096;

  ~BlockSlots() {
    while (count_ > 0) {
      void *p = kept_[--count_];
      unpoisonKept(p, Bytes);
      ::operator delete(p);
    }
    ::operator delete(kept_);
    gone_ = true;
  }

private:
  static BlockSlots &mine() {
    static thread_local BlockSlots slots;
    return slots;
  }
  static inline thread_local bool gone_ = false; // this thread's blocks were destroyed
  void **kept_ = nullptr; // the kept blocks, the last kept last
  std::size_t count_ = 0;
};

/// Memory for nodes of one type (a block of the node's size).
template <class Node> class NodeSlots : public BlockSlots<sizeof(Node)> {
  static_assert(alignof(Node) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

public:
  /// Destroys `n`, a node made in memory from take(), and keeps its memory.
  static void give(const Node *n) {
    n->~Node();
    BlockSlots<sizeof(Node)>::giveBack(const_cast<Node *>(n));
  }
};

/// The size classes of SlotAllocator: a request takes a block of the least class that holds
/// it (powers of two, so a block wastes less than half of itself); past the largest, the heap.
inline constexpr std::size_t kLargestSlotBytes = 1024;

inline void *takeBytes(std::size_t bytes) {
  if (bytes <= 32) return BlockSlots<32>::take();
  if (bytes <= 64) return BlockSlots<64>::take();
  if (bytes <= 128) return BlockSlots<128>::take();
  if (bytes <= 256) return BlockSlots<256>::take();
  if (bytes <= 512) return BlockSlots<512>::take();
  if (bytes <= kLargestSlotBytes) return BlockSlots<kLargestSlotBytes>::take();
  return ::operator new(bytes);
}

/// Gives back memory from takeBytes(bytes), the same `bytes`.
inline void giveBytes(void *p, std::size_t bytes) {
  if (bytes <= 32) return BlockSlots<32>::giveBack(p);
  if (bytes <= 64) return BlockSlots<64>::giveBack(p);
  if (bytes <= 128) return BlockSlots<128>::giveBack(p);
  if (bytes <= 256) return BlockSlots<256>::giveBack(p);
  if (bytes <= 512) return BlockSlots<512>::giveBack(p);
  if (bytes <= kLargestSlotBytes) return BlockSlots<kLargestSlotBytes>::giveBack(p);
  ::operator delete(p);
}

/// A standard allocator over takeBytes/giveBytes (stateless: any instance frees what another
/// took). For types aligned no more than ::operator new aligns.
template <class T> struct SlotAllocator {
  using value_type = T;
  SlotAllocator() noexcept = default;
  template <class U> SlotAllocator(const SlotAllocator<U> &) noexcept {}
  T *allocate(std::size_t n) {
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T *>(takeBytes(n * sizeof(T)));
  }
  void deallocate(T *p, std::size_t n) noexcept { giveBytes(p, n * sizeof(T)); }
  template <class U> bool operator==(const SlotAllocator<U> &) const noexcept { return true; }
};

} // namespace shapelab::detail
