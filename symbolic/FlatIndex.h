// FlatIndex — finds entries that live elsewhere (a deque, a vector of nodes) by their hash, and
// EntryTable, a map built on it whose entries stay in the order they were added.
//
// Why not a node-based hash map: in one, a lookup reads the bucket, the node before the
// bucket's first, and each candidate's link and cached hash — the hash sits at the node's end,
// past the value, so a large value puts it on another cache line. A program of 10^5 statements
// keeps tables of 10^5 entries, far larger than the cache: such a lookup costs five or more
// misses (a tenth of the build's time went to finding the session's names). Here a slot holds an
// entry's hash and position: a lookup reads a slot and, only when the hashes agree, the entry;
// growing rehashes a flat array; adding an entry allocates nothing but the entry.
// Example: `EntryTable<std::string, int, NameHash> t; t["n"] = 3; t.find("n")` gives a pointer
// to 3. Entries are never removed one by one (clear() drops them all).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace shapelab {

/// Positions of entries by hash: open addressing with linear probing, load at most one half.
class FlatIndex {
public:
  static constexpr std::size_t npos = SIZE_MAX;

  /// The position recorded under `hash` that `same(position)` accepts, or npos.
  template <class Same> std::size_t find(std::size_t hash, Same &&same) const {
    if (slots_.empty()) return npos;
    for (std::size_t i = hash & mask_; slots_[i].entry; i = (i + 1) & mask_)
      if (slots_[i].hash == hash && same(slots_[i].entry - 1)) return slots_[i].entry - 1;
    return npos;
  }
  /// Records `position` under `hash`; the caller has made sure no equal entry is recorded.
  void insert(std::size_t hash, std::size_t position) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    place({hash, position + 1});
    ++size_;
  }
  void clear() {
    slots_.clear();
    mask_ = size_ = 0;
  }
  std::size_t size() const { return size_; }

private:
  struct Slot {
    std::size_t hash = 0;
    std::size_t entry = 0; // position plus one; 0: empty
  };
  void place(Slot s) {
    std::size_t i = s.hash & mask_;
    while (slots_[i].entry) i = (i + 1) & mask_;
    slots_[i] = s;
  }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 64 : slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot &s : old)
      if (s.entry) place(s);
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0, size_ = 0;
};

/// Strings hashed as their views, so that a table of std::string keys is searched by a view.
struct NameHash {
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

/// A map whose entries sit in a deque in the order they were added (references stay valid until
/// clear()). `find` takes any key `Hash` hashes as the stored key equal to it.
template <class K, class V, class Hash = std::hash<K>> class EntryTable {
public:
  template <class Q> V *find(const Q &key) {
    std::size_t at = index_.find(Hash()(key), [&](std::size_t i) { return entries_[i].first == key; });
    return at == FlatIndex::npos ? nullptr : &entries_[at].second;
  }
  template <class Q> const V *find(const Q &key) const { return const_cast<EntryTable *>(this)->find(key); }
  /// The value held under `key`, a default one when the key is new.
  V &operator[](const K &key) {
    if (V *v = find(key)) return *v;
    return add(K(key), V());
  }
  /// Adds `value` under `key`, which the table does not hold.
  V &add(K key, V value) {
    const std::size_t h = Hash()(key);
    entries_.emplace_back(std::move(key), std::move(value));
    index_.insert(h, entries_.size() - 1);
    return entries_.back().second;
  }
  void clear() {
    entries_.clear();
    index_.clear();
  }
  std::size_t size() const { return entries_.size(); }

private:
  std::deque<std::pair<K, V>> entries_;
  FlatIndex index_;
};

} // namespace shapelab
