// FlatIndex — finds entries that live elsewhere (a graph's nodes, an EntryTable's chunks) by
// their hash; and EntryTable, a map built on it whose entries stay where, and in the order, they
// were added.
//
// Why not a node-based hash map: in one, a lookup reads the bucket, the node before the
// bucket's first, and each candidate's link and cached hash — the hash sits at the node's end,
// past the value, so a large value puts it on another cache line. A program of 10^5 statements
// keeps tables of 10^5 entries, far larger than the cache: such a lookup costs five or more
// misses (a tenth of the build's time went to finding the session's names). Here a slot holds a
// tag of the entry's hash and its position: a lookup reads a slot and, only when the tags
// agree, the entry; growing rehashes a flat array.
// Example: `EntryTable<std::string, int, NameHash> t; t["n"] = 3; t.find("n")` gives a pointer
// to 3. Entries are never removed one by one (clear() drops them all).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace shapelab {

/// Positions of entries by hash: open addressing with linear probing, load at most one half.
class FlatIndex {
public:
  static constexpr std::size_t npos = SIZE_MAX;
  static constexpr std::size_t kMaxPositions = std::size_t(1) << 31;

  /// The position recorded under `hash` that `same(position)` accepts, or npos.
  template <class Same> std::size_t find(std::size_t hash, Same &&same) const {
    if (slots_.empty()) return npos;
    const uint32_t tag = tagOf(hash);
    for (std::size_t i = home(tag); slots_[i].entry; i = (i + 1) & mask_)
      if (slots_[i].tag == tag && same(std::size_t(slots_[i].entry - 1))) return slots_[i].entry - 1;
    return npos;
  }
  /// Records `position` under `hash`; the caller has made sure no equal entry is recorded.
  /// Throws std::length_error from position 2^31 on (the slots, twice the entries at most, then
  /// number 2^32 at most, which a 32-bit tag's top bits still address).
  void insert(std::size_t hash, std::size_t position) {
    if (position >= kMaxPositions) throw std::length_error("FlatIndex: more than 2^31 entries");
    if ((size_ + 1) * 2 > slots_.size()) grow();
    place({tagOf(hash), uint32_t(position + 1)});
    ++size_;
  }
  void clear() {
    slots_.clear();
    mask_ = size_ = 0;
    shift_ = 0;
  }
  std::size_t size() const { return size_; }

private:
  // Eight bytes a slot, so that the slots of 10^5 entries (256 Ki slots, 2 MiB) mostly stay in
  // the cache: a 32-bit tag folded from the hash, and the position. The home slot comes from
  // the tag's top bits after a multiplicative mix, so growing needs no more than the tag, and
  // entries that share a home still differ in the tag's other bits.
  struct Slot {
    uint32_t tag = 0;
    uint32_t entry = 0; // position plus one; 0: empty
  };
  static uint32_t tagOf(std::size_t hash) { return uint32_t(hash ^ (uint64_t(hash) >> 32)); }
  std::size_t home(uint32_t tag) const { return std::size_t(uint32_t(tag * 2654435769u) >> shift_) & mask_; }
  void place(Slot s) {
    std::size_t i = home(s.tag);
    while (slots_[i].entry) i = (i + 1) & mask_;
    slots_[i] = s;
  }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 64 : slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    shift_ = 32 - unsigned(std::countr_zero(slots_.size()));
    for (const Slot &s : old)
      if (s.entry) place(s);
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0, size_ = 0;
  unsigned shift_ = 0; // 32 - log2(slots)
};

/// Strings hashed as their views, so that a table of std::string keys is searched by a view.
struct NameHash {
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

/// A map whose entries stay where they were added, in that order (references stay valid until
/// clear()). `find` takes any key `Hash` hashes as the stored key equal to it. Entries sit in
/// chunks of 64, found through a short vector (a deque of entries larger than its 512-byte
/// blocks holds one or two a block: its block map then cost a cache miss of its own).
template <class K, class V, class Hash = std::hash<K>> class EntryTable {
public:
  template <class Q> V *find(const Q &key) {
    std::size_t at = index_.find(Hash()(key), [&](std::size_t i) { return entry(i).first == key; });
    return at == FlatIndex::npos ? nullptr : &entry(at).second;
  }
  template <class Q> const V *find(const Q &key) const { return const_cast<EntryTable *>(this)->find(key); }
  /// The value held under `key`, a default one when the key is new.
  V &operator[](const K &key) {
    if (V *v = find(key)) return *v;
    return add(K(key), V());
  }
  /// The value held under `key`; `value` is added under it when the key is new.
  V &emplace(K key, V value) {
    if (V *v = find(key)) return *v;
    return add(std::move(key), std::move(value));
  }
  /// Adds `value` under `key`, which the table does not hold.
  V &add(K key, V value) {
    const std::size_t h = Hash()(key);
    if (size_ % kChunk == 0) {
      chunks_.emplace_back();
      chunks_.back().reserve(kChunk); // never grows past it: entries do not move
    }
    chunks_.back().emplace_back(std::move(key), std::move(value));
    index_.insert(h, size_++);
    return chunks_.back().back().second;
  }
  void clear() {
    chunks_.clear();
    index_.clear();
    size_ = 0;
  }
  std::size_t size() const { return size_; }

private:
  static constexpr std::size_t kChunk = 64;
  std::pair<K, V> &entry(std::size_t i) { return chunks_[i / kChunk][i % kChunk]; }

  std::vector<std::vector<std::pair<K, V>>> chunks_;
  std::size_t size_ = 0;
  FlatIndex index_;
};

} // namespace shapelab
