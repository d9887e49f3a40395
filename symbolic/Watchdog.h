// Watchdog — a per-solver thread that stops a question that runs too long or grows too big.
//
// Model: the owner marks the start and end of each question (two atomic stores, no system
// call, so a 25 µs question pays nothing measurable). A background thread polls every few
// milliseconds while a question is running; when the question has run longer than the time
// limit, or the process's resident memory has grown by more than the memory limit since the
// question started, it calls the `expire` callback once (the solver's callback asks isl to
// abort, isl_ctx_abort, which isl honours at its next counted operation) and records why.
// Example: Watchdog w(1000ms, 256 MiB, [&] { isl_ctx_abort(ctx); }); w.start(); ...; w.stop();
// Invariant: `expire` runs at most once per question, and never between questions.
// Cost: one idle thread per solver; resident memory is read from /proc/self/statm only while a
// question runs (Linux; elsewhere only the time limit applies).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace shapelab {

class Watchdog {
public:
  enum class Expired : uint8_t { No, Time, Memory };

  /// A limit of 0 disables that check; with both 0 no thread is started.
  Watchdog(std::chrono::milliseconds timeLimit, uint64_t memoryLimitBytes, std::function<void()> expire);
  ~Watchdog();
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

  /// Marks a question as running; returns immediately.
  void start();
  /// Marks the question as finished; returns what, if anything, expired it.
  Expired stop();
  /// True once the running question has been expired (for loops outside isl to poll).
  bool expired() const { return expired_.load(std::memory_order_relaxed) != Expired::No; }
  /// True when the running question has passed its time limit or the shared deadline (checked
  /// by the caller's own loops, which isl's abort does not reach).
  bool pastDeadline() const;
  /// A bound on every question from now on, together: a question still running at `until`
  /// stops, and one started after it stops at its first poll. Clock's epoch removes the bound.
  void setSharedDeadline(std::chrono::steady_clock::time_point until);
  /// True once the shared deadline has passed.
  bool pastSharedDeadline() const;

  std::chrono::milliseconds timeLimit() const { return timeLimit_; }
  uint64_t memoryLimitBytes() const { return memoryLimit_; }

private:
  void run();
  std::chrono::milliseconds timeLimit_;
  uint64_t memoryLimit_;
  std::function<void()> expire_;
  std::atomic<uint64_t> question_{0};           // odd while a question runs
  std::atomic<int64_t> startedAt_{0};           // steady_clock ticks of the running question
  std::atomic<int64_t> sharedDeadline_{0};      // steady_clock ticks; 0: none
  std::atomic<Expired> expired_{Expired::No};
  std::mutex mutex_;                            // guards the callback against stop()
  std::condition_variable wake_;
  bool quit_ = false;
  std::thread thread_;
};

} // namespace shapelab
