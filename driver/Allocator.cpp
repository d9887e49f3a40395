// Allocator settings of the executables we ship (the shapelab_allocator target in
// CMakeLists.txt: the `shapelab` executable and the benchmarks), compiled into each of them; the
// libraries never see it.
//
// Large OS pages. Building a program of 10^5 statements reaches back to names, nodes and
// expressions anywhere in a heap of about 140 MiB; with 4 KiB pages nearly every such step also
// misses the TLB, and the heap is faulted in 4 KiB at a time. mimalloc then maps its segments
// with 2 MiB pages where the OS allows it (on Linux, transparent huge pages asked for with
// madvise).
//
// Set early, and the first segment too. mimalloc reads its options from the environment when
// the process starts, and the C++ runtime allocates before any initializer of ours runs, so the
// main thread's first segment (32 MiB, where the build's first and hottest blocks go) is
// already mapped with small pages by then. A changed default (mi_option_set_default, as this
// file first did) took effect for the later segments only: about 8,000 page faults for the
// 10^5-node build against about 400 with MIMALLOC_LARGE_OS_PAGES=1 in the environment, and
// 0.81 s against 0.67 s (the fastest of 6 interleaved runs each). So the option is set in the
// first initializer of the executable (priority 101), and the segment holding a fresh block
// (mimalloc 2 aligns segments to their 32 MiB size) is advised for large pages as mimalloc
// advises the ones it maps later: its untouched parts then fault in 2 MiB at a time (0.68 s;
// about 1,200 faults). Advice cannot break anything: if the guess were wrong, it would only ask
// for large pages elsewhere. The environment still decides when it names the option
// (MIMALLOC_LARGE_OS_PAGES, or its older name MIMALLOC_LARGE_PAGES):
// MIMALLOC_LARGE_OS_PAGES=0 turns all of this off.
#include <mimalloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>

namespace {

constexpr std::uintptr_t kSegmentSize = std::uintptr_t(32) << 20; // mimalloc 2's MI_SEGMENT_SIZE

__attribute__((constructor(101))) void useLargePages() {
  if (!std::getenv("MIMALLOC_LARGE_OS_PAGES") && !std::getenv("MIMALLOC_LARGE_PAGES"))
    mi_option_set(mi_option_large_os_pages, 1);
  if (!mi_option_is_enabled(mi_option_large_os_pages)) return;
#ifdef MADV_HUGEPAGE
  void *probe = mi_malloc(16);
  const std::uintptr_t segment = reinterpret_cast<std::uintptr_t>(probe) & ~(kSegmentSize - 1);
  (void)madvise(reinterpret_cast<void *>(segment), kSegmentSize, MADV_HUGEPAGE);
  mi_free(probe);
#endif
}

} // namespace
