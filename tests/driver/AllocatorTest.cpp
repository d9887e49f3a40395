// The allocator settings of the executables we ship (driver/Allocator.cpp) take effect: mimalloc
// maps with large OS pages unless the environment says otherwise, the main thread's first
// segment (mapped before any initializer of ours runs) included. ctest runs this twice, once
// with MIMALLOC_LARGE_OS_PAGES=0 in the environment, which must win.
#include <gtest/gtest.h>
#include <mimalloc.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool expectLargePages() {
  const char *named = std::getenv("MIMALLOC_LARGE_OS_PAGES");
  return named == nullptr || std::string(named) == "1";
}

/// The VmFlags line of the mapping of /proc/self/smaps that holds `p` ("" if none does).
std::string vmFlagsOf(const void *p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t low = 0, high = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> low >> dash >> high && dash == '-') inside = low <= at && at < high;
    else if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

TEST(Allocator, LargeOsPagesUnlessTheEnvironmentSaysOtherwise) {
  EXPECT_EQ(mi_option_is_enabled(mi_option_large_os_pages), expectLargePages());
}

TEST(Allocator, TheFirstSegmentIsAdvisedForLargePagesToo) {
  // A small block in a fresh process lies in the main thread's first segment.
  void *block = mi_malloc(16);
  const std::string flags = vmFlagsOf(block);
  mi_free(block);
  if (flags.empty()) GTEST_SKIP() << "no VmFlags in /proc/self/smaps";
  if (expectLargePages() && !std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"))
    GTEST_SKIP() << "the kernel has no transparent huge pages to advise";
  // "hg": advised with MADV_HUGEPAGE.
  EXPECT_EQ(flags.find(" hg") != std::string::npos, expectLargePages()) << flags;
}

TEST(Allocator, ServesAllocationsLargerThanALargePage) {
  std::vector<char> block(5u << 20);
  for (std::size_t i = 0; i < block.size(); i += 4096) block[i] = char(i >> 12);
  for (std::size_t i = 0; i < block.size(); i += 4096) ASSERT_EQ(block[i], char(i >> 12));
  EXPECT_TRUE(mi_is_in_heap_region(block.data()));
}

} // namespace
