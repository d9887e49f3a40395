// The attribute structs' defaults per kind (from ops/OpKinds.def) and their hash.
#include "ops/Attrs.h"

#include <algorithm>
#include <functional>

namespace shapelab::ops {

namespace {
using namespace attr;
std::size_t mixIn(std::size_t h, std::size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }
std::size_t mixIn(std::size_t h, const std::vector<int64_t> &v) {
  for (int64_t x : v) h = mixIn(h, std::size_t(x));
  return mixIn(h, v.size());
}

struct Hasher {
  std::size_t operator()(const None &) const { return 0; }
  std::size_t operator()(const Constant &c) const {
    return mixIn(std::bit_cast<uint64_t>(c.value), std::size_t(c.dtype));
  }
  std::size_t operator()(const Permutation &a) const { return mixIn(1, a.axes); }
  std::size_t operator()(const NewAxes &a) const { return mixIn(2, a.axes); }
  std::size_t operator()(const Dropped &a) const { return mixIn(3, a.axes); }
  std::size_t operator()(const Fill &a) const { return a.dtype ? 5 + std::size_t(*a.dtype) : 4; }
  std::size_t operator()(const Axis &a) const { return mixIn(6, std::size_t(a.axis)); }
  std::size_t operator()(const Sections &a) const { return mixIn(mixIn(7, std::size_t(a.sections)), std::size_t(a.axis)); }
  std::size_t operator()(const Reduction &a) const { return mixIn(a.keepdims ? 9 : 8, a.axes); }
  std::size_t operator()(const Difference &a) const { return mixIn(mixIn(10, std::size_t(a.n)), std::size_t(a.axis)); }
  std::size_t operator()(const Draw &a) const {
    std::size_t h = mixIn(11, std::size_t(a.draw));
    for (const auto &r : a.shapeRanks) h = mixIn(h, r ? std::size_t(*r) : ~std::size_t(0));
    return mixIn(h, a.sizeRank ? std::size_t(*a.sizeRank) : ~std::size_t(0));
  }
  std::size_t operator()(const GivenDims &a) const {
    std::size_t h = 12;
    for (bool g : a.given) h = mixIn(h, g ? 2 : 1);
    return h;
  }
  std::size_t operator()(const Requirement &a) const { return mixIn(std::hash<std::string>{}(a.fails), 15); }
  std::size_t operator()(const Steps &a) const { return mixIn(mixIn(13, std::size_t(a.step)), std::size_t(a.dtype)); }
  std::size_t operator()(const Core &a) const { return mixIn(mixIn(16, std::hash<const void *>{}(a.core)), std::size_t(a.batchRank)); }
  std::size_t operator()(const EinsumSpec &a) const {
    std::size_t h = 14;
    for (const auto &o : a.operands) h = mixIn(h, o);
    return mixIn(h, a.output);
  }
};
} // namespace

Attrs defaultAttrs(OpKind kind) {
  switch (kind) {
#define SHAPELAB_OP(kind, attrs, traits)                                                                               \
  case OpKind::kind: return attrs{};
#include "ops/OpKinds.def"
#undef SHAPELAB_OP
  }
  return None{};
}

std::string attr::requirementText(const std::string &text, const std::vector<std::string> &shown) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::size_t close = text[i] == '{' ? text.find('}', i) : std::string::npos;
    if (close != std::string::npos) {
      const std::string digits = text.substr(i + 1, close - i - 1);
      if (!digits.empty() && digits.size() < 3 && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        const std::size_t k = std::size_t(std::stoi(digits));
        if (k < shown.size()) {
          out += shown[k];
          i = close;
          continue;
        }
      }
    }
    out += text[i];
  }
  return out;
}

std::size_t hashAttrsOf(const Attrs &a) { return std::visit(Hasher{}, a); }

} // namespace shapelab::ops
