#include "symbolic/Watchdog.h"

#include <cstdio>
#include <unistd.h>

namespace shapelab {

namespace {

using Clock = std::chrono::steady_clock;

int64_t nowTicks() { return Clock::now().time_since_epoch().count(); }

/// Resident set size in bytes, or 0 when it cannot be read.
uint64_t residentBytes() {
  std::FILE *f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  int read = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  if (read != 2) return 0;
  return uint64_t(resident) * uint64_t(sysconf(_SC_PAGESIZE));
}

constexpr std::chrono::milliseconds kPoll{2};
constexpr std::chrono::milliseconds kIdlePoll{50};

} // namespace

Watchdog::Watchdog(std::chrono::milliseconds timeLimit, uint64_t memoryLimitBytes,
                   std::function<void()> expire)
    : timeLimit_(timeLimit), memoryLimit_(memoryLimitBytes), expire_(std::move(expire)) {
  if (timeLimit_.count() > 0 || memoryLimit_ > 0) thread_ = std::thread([this] { run(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::start() {
  expired_.store(Expired::No, std::memory_order_relaxed);
  startedAt_.store(nowTicks(), std::memory_order_relaxed);
  question_.fetch_add(1, std::memory_order_release); // now odd: running
}

Watchdog::Expired Watchdog::stop() {
  // Taking the lock waits out a callback in flight, so none can land after this returns.
  std::lock_guard<std::mutex> lock(mutex_);
  question_.fetch_add(1, std::memory_order_release); // now even: idle
  return expired_.load(std::memory_order_relaxed);
}

void Watchdog::setSharedDeadline(std::chrono::steady_clock::time_point until) {
  sharedDeadline_.store(until.time_since_epoch().count(), std::memory_order_relaxed);
}

bool Watchdog::pastSharedDeadline() const {
  int64_t d = sharedDeadline_.load(std::memory_order_relaxed);
  return d != 0 && nowTicks() > d;
}

bool Watchdog::pastDeadline() const {
  if (pastSharedDeadline()) return true;
  if (timeLimit_.count() <= 0) return false;
  auto elapsed = Clock::duration(nowTicks() - startedAt_.load(std::memory_order_relaxed));
  return elapsed > timeLimit_;
}

void Watchdog::run() {
  uint64_t watched = 0; // the question whose memory baseline we hold
  uint64_t baseline = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!quit_) {
    uint64_t q = question_.load(std::memory_order_acquire);
    bool running = q % 2 == 1;
    wake_.wait_for(lock, running ? kPoll : kIdlePoll, [this] { return quit_; });
    if (quit_) break;
    // Re-read under the lock: stop() cannot slip in between this check and the callback.
    q = question_.load(std::memory_order_acquire);
    if (q % 2 == 0 || expired_.load(std::memory_order_relaxed) != Expired::No) continue;
    if (q != watched) {
      watched = q;
      baseline = memoryLimit_ > 0 ? residentBytes() : 0;
    }
    Expired why = Expired::No;
    if (pastDeadline()) why = Expired::Time;
    else if (memoryLimit_ > 0 && baseline > 0 && residentBytes() > baseline + memoryLimit_)
      why = Expired::Memory;
    if (why != Expired::No) {
      expired_.store(why, std::memory_order_relaxed);
      expire_();
    }
  }
}

} // namespace shapelab
