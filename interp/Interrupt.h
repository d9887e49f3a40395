// Interrupting an evaluation: the REPL's Ctrl-C handler requests it (an atomic store, safe in a
// signal handler) and the interpreters stop at their next check, between nodes, between chunks
// of a fused loop, between the blocks of a batched kernel, by throwing Interrupted. Nothing that
// was evaluated before is touched, so the session that asked goes on.
#pragma once

#include <atomic>
#include <stdexcept>

namespace shapelab::interp {

/// An evaluation stopped at the user's request: not an error of the program.
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

namespace detail {
inline std::atomic<bool> interruptRequested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the flag is set from a signal handler");
} // namespace detail

/// Asks the running evaluation to stop (async-signal-safe).
inline void requestInterrupt() noexcept { detail::interruptRequested.store(true, std::memory_order_relaxed); }
/// Forgets a request (the REPL clears it before each statement).
inline void clearInterrupt() noexcept { detail::interruptRequested.store(false, std::memory_order_relaxed); }
inline bool interruptPending() noexcept { return detail::interruptRequested.load(std::memory_order_relaxed); }
/// Throws Interrupted when a stop was requested.
inline void checkInterrupt() {
  if (interruptPending()) throw Interrupted();
}

} // namespace shapelab::interp
