// Allocator settings of the executables we ship (the shapelab_allocator target in
// CMakeLists.txt: the `shapelab` executable and the benchmarks), compiled into each of them; the
// libraries never see it.
//
// Large OS pages. Building a program of 10^5 statements reaches back to names, nodes and
// expressions anywhere in a heap of about 100 MiB; with 4 KiB pages nearly every such step also
// misses the TLB. mimalloc then maps its segments with 2 MiB pages where the OS allows it (on
// Linux, transparent huge pages asked for with madvise), which took a tenth off the 10^5-node
// build (bench_programs, BM_ParseBuildInfer). Only the default changes: MIMALLOC_LARGE_OS_PAGES=0
// in the environment still turns it off.
#include <mimalloc.h>

namespace {

const bool largePagesByDefault = (mi_option_set_default(mi_option_large_os_pages, 1), true);

} // namespace
