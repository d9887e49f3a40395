// InternTable — the set of live interned nodes behind Expr and Pred (private to symbolic/).
//
// A node type provides `structuralHash` (fixed before interning), `refs.count` (an atomic
// reference count) and an equality `Equal` on contents. Example: intern(candidate) returns the
// stored node equal to candidate with one more reference, or stores candidate as a new node.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <new>
#include <vector>

#include "support/Slots.h"

namespace shapelab::detail {

/// Interned nodes, each in memory of its own from NodeSlots (where its owner returns it with
/// NodeSlots::give); a node leaves the table when its last handle goes.
/// Invariant: a node in the table has a positive count, except while a thread holding the lock
/// drops its last reference — so a lookup (under the lock) never revives a dying node.
/// Open addressing with linear probing: a slot holds the node and its hash, so a probe reads the
/// node only when the hashes agree, and inserting allocates nothing but the node (a node-based
/// set allocated a list node per entry, as many allocations again as there are nodes). Deletion
/// shifts the following entries of the run back, so no tombstones build up.
template <class Node, class Equal> class InternTable {
public:
  /// The interned node equal to `candidate`, with one reference for the caller.
  const Node *intern(Node &&candidate) {
    return intern(std::move(candidate), [](Node &) {});
  }
  /// The same, where `complete(node)` fills in what a new node derives and no lookup reads: it
  /// runs only when `candidate` is stored (a node found already has it).
  template <class Complete> const Node *intern(Node &&candidate, Complete complete) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t h = candidate.structuralHash;
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    std::size_t i = home(h);
    for (; slots_[i].node; i = (i + 1) & mask_)
      if (slots_[i].hash == h && Equal()(*slots_[i].node, candidate)) {
        slots_[i].node->refs.count.fetch_add(1, std::memory_order_relaxed);
        return slots_[i].node;
      }
    void *slot = NodeSlots<Node>::take();
    Node *stored;
    try {
      stored = new (slot) Node(std::move(candidate));
    } catch (...) {
      NodeSlots<Node>::giveBack(slot);
      throw;
    }
    try {
      complete(*stored);
    } catch (...) {
      NodeSlots<Node>::give(stored);
      throw;
    }
    stored->refs.count.store(1, std::memory_order_relaxed);
    slots_[i] = {h, stored};
    ++size_;
    return stored;
  }
  /// Drops one reference; true when it was the last (the node is then out of the table).
  bool releaseLast(const Node *n) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (n->refs.count.fetch_sub(1, std::memory_order_acq_rel) != 1) return false;
    erase(n);
    return true;
  }
  std::size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return size_;
  }

private:
  struct Slot {
    std::size_t hash = 0;
    const Node *node = nullptr; // null: empty
  };

  /// The slot of an entry: where its probe starts.
  std::size_t home(std::size_t hash) const { return hash & mask_; }

  void grow() {
    std::vector<Slot> old(slots_.empty() ? 64 : slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot &s : old) {
      if (!s.node) continue;
      std::size_t i = home(s.hash);
      while (slots_[i].node) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  void erase(const Node *n) {
    std::size_t i = home(n->structuralHash);
    while (slots_[i].node != n) i = (i + 1) & mask_; // present: the caller held a reference
    // Backward-shift deletion: move each later entry of the run whose probe would pass the hole.
    for (std::size_t j = (i + 1) & mask_; slots_[j].node; j = (j + 1) & mask_) {
      std::size_t k = home(slots_[j].hash);
      // The entry at j may fill the hole at i unless its home lies cyclically in (i, j].
      bool homeInRange = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (!homeInRange) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = {};
    --size_;
  }

  std::mutex mutex_;
  std::vector<Slot> slots_;
  std::size_t mask_ = 0, size_ = 0;
};

} // namespace shapelab::detail
