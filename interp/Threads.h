// One piece of work run on several threads at once, its first exception rethrown to the caller:
// the optimized interpreter's fused loops (chunks of one loop) and `shapelab proptest --jobs`
// (cases of one run) share it.
#pragma once

#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace shapelab::interp {

/// Runs `work()` on `threads` threads, this one among them, and returns once every one has
/// returned. The first exception any of them throws calls `stop()` (under a lock: it should make
/// the others' `work` return at its next step) and is rethrown here after all have joined. A
/// thread that cannot be started leaves its share to the others, so `work` takes its share from
/// a common counter, never by its thread's number.
template <class Work, class Stop> void runOnThreads(unsigned threads, Work &&work, Stop &&stop) {
  std::exception_ptr failure;
  std::mutex lock;
  auto guarded = [&] {
    try {
      work();
    } catch (...) {
      std::lock_guard<std::mutex> guard(lock);
      if (!failure) failure = std::current_exception();
      stop();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads > 1 ? threads - 1 : 0);
  for (unsigned t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(guarded);
    } catch (const std::system_error &) {
      break;
    }
  }
  guarded();
  for (std::thread &t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

} // namespace shapelab::interp
