// After Solver::clearMemo and clearElementCountMemo, questions leave nothing allocated: every
// malloc made while answering them has its free. A library user who clears the memo between
// requests gets the memory back, and a fuzz target's input frees what it allocates (libFuzzer
// re-runs an input that does not, and scans the whole heap for leaks).
//
// Found by replaying fuzz_einsum's and fuzz_program's corpora with counted mallocs: one input in
// five (einsum) and one in eight (programs) ended with more mallocs than frees, because isl keeps
// freed blocks, with their integers' limbs, in its context for reuse. clearMemo now starts a new
// isl context.
//
// This executable counts the C allocator's calls itself (glibc's __libc_* entry points), so it is
// built only where those exist and no sanitizer owns malloc.
#include <gtest/gtest.h>

#include <cstdlib>

#include "shape/ArraySize.h"
#include "shape/Broadcast.h"
#include "shape/Einsum.h"
#include "shape/Gufunc.h"
#include "shape/Signature.h"
#include "symbolic/Parser.h"
#include "symbolic/Solver.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHAPELAB_ASAN 1
#endif
#endif
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(SHAPELAB_ASAN)
#define SHAPELAB_COUNTS_MALLOC 1
extern "C" {
void *__libc_malloc(std::size_t);
void __libc_free(void *);
void *__libc_calloc(std::size_t, std::size_t);
void *__libc_realloc(void *, std::size_t);
}
namespace {
// Plain counters: the counted section runs on this thread alone (the solver is made without a
// watchdog thread).
long mallocs = 0, frees = 0;
bool counting = false;
} // namespace
extern "C" void *malloc(std::size_t n) {
  if (counting) ++mallocs;
  return __libc_malloc(n);
}
extern "C" void free(void *p) {
  if (counting && p) ++frees;
  __libc_free(p);
}
extern "C" void *calloc(std::size_t a, std::size_t b) {
  if (counting) ++mallocs;
  return __libc_calloc(a, b);
}
extern "C" void *realloc(void *p, std::size_t n) {
  if (counting && !p) ++mallocs;
  if (counting && p && n == 0) ++frees;
  return __libc_realloc(p, n);
}
#endif

using namespace shapelab;

namespace {
/// One request: einsum, broadcast and gufunc questions from the inputs that were unbalanced.
[[maybe_unused]] void ask(Solver &solver) {
  Context c = solver.makeContext({});
  struct Case {
    const char *subscripts;
    std::vector<const char *> shapes;
  };
  const std::vector<Case> cases = {
      {"Ba,bA", {"(n - 2, n - h)", "(m, n/3)"}},
      {"z", {"(e/ 22*abe/ 22*ab*hij/39*mij/39,)"}},
      {"k", {"(- 5-n*i7*2*m,)"}},
      {"ik,jk->ik", {"(f, -mm /+ 3)", "(m, -p)"}},
      {"z", {"(222*b*ma //19*mz /2*22*b*m/18*mz9*2**40*22*b*m/18*mz*40/40/09,)"}},
  };
  for (const Case &k : cases) {
    std::vector<Shape> shapes;
    std::vector<std::size_t> ranks;
    for (const char *s : k.shapes) {
      shapes.push_back(parseShape(s));
      ranks.push_back(shapes.back().size());
    }
    EinsumSpec spec = parseEinsum(k.subscripts, ranks);
    for (BroadcastMode mode : {BroadcastMode::Numpy, BroadcastMode::Static}) {
      EinsumResult r = resolveEinsum(solver, c, spec, shapes, mode);
      (void)r.validity.checks();
      (void)r.validity.violating();
      BroadcastResult b = broadcast(solver, c, shapes, mode);
      (void)b.validity.checks();
    }
  }
  Signature sig = parseSignature("(i,j),(j,k)->(i,k)");
  std::vector<GufuncArgument> args = {{parseShape("(n*m, 3, k)"), false}, {parseShape("(k, m // 2)"), false}};
  GufuncResult g = resolveGufunc(solver, c, sig, args, BroadcastMode::Numpy);
  (void)g.validity.checks();
}
} // namespace

namespace {
/// Questions whose answers isl computes in full: conditions with integer divisions, which isl's
/// AST generator writes out (the first is the solver fuzz corpus input that showed it unsafe to
/// stop, with its names shortened), and a context with a product.
[[maybe_unused]] void decideSome(Solver &solver) {
  const std::vector<std::pair<const char *, const char *>> questions = {
      {"", "n == a - b - c - d // 11 - e - f // 11 - e - g // 11 - e - h"},
      {"", "n % 3 == 1 and m >= n // 2 or m % 5 == 2"},
      {"n*m >= 2", "n + m > 3 and (n - m) % 4 == 0"},
  };
  for (const auto &[assumption, predicate] : questions) {
    std::vector<Pred> assumptions;
    if (*assumption) assumptions.push_back(parsePred(assumption));
    Context c = solver.makeContext(assumptions, SizeDomain::Integers);
    Pred p = parsePred(predicate);
    (void)solver.provesQuickly(c, p);
    Decision d = solver.decide(c, p);
    if (d.answer == Answer::Depends) (void)d.condition().toString();
  }
}
} // namespace

TEST(MemoryBalance, QuestionsStoppedAtAnyOperationLeaveNothingAllocated) {
#ifndef SHAPELAB_COUNTS_MALLOC
  GTEST_SKIP() << "the C allocator is not counted in this build";
#else
  // isl stopped by its operation bound after 1, 2, ... operations, then at bounds 25% apart up
  // to the default: every place a question can be stopped at, in these questions, is met.
  SolverOptions quiet;
  quiet.timeLimitMs = 0;
  quiet.memoryLimitBytes = 0;
  Solver solver(quiet);
  int stoppedEarly = 0;
  for (unsigned long bound = 1; bound <= quiet.maxOperations; bound = bound < 64 ? bound + 1 : bound * 5 / 4) {
    solver.limitOperations(bound);
    for (int round = 0; round < 2; ++round) { // the first warms the tables that outlive a request
      const uint64_t quotaHits = solver.stats().quotaHits;
      mallocs = frees = 0;
      counting = round == 1;
      decideSome(solver);
      ask(solver);
      solver.clearMemo();
      clearElementCountMemo();
      counting = false;
      if (round == 1) {
        stoppedEarly += solver.stats().quotaHits > quotaHits;
        EXPECT_EQ(mallocs, frees) << "stopped after " << bound << " operations: " << (mallocs - frees) << " allocations kept";
      }
    }
  }
  EXPECT_GT(stoppedEarly, 50) << "the bounds stopped questions";
#endif
}

TEST(MemoryBalance, ClearedSolverHoldsNothingFromItsQuestions) {
#ifndef SHAPELAB_COUNTS_MALLOC
  GTEST_SKIP() << "the C allocator is not counted in this build";
#else
  SolverOptions quiet; // no watchdog thread: only this thread allocates while counting
  quiet.timeLimitMs = 0;
  quiet.memoryLimitBytes = 0;
  Solver solver(quiet);
  // Warm: the interned tables and the caches that outlive a request grow to their size once.
  for (int round = 0; round < 2; ++round) {
    ask(solver);
    solver.clearMemo();
    clearElementCountMemo();
  }
  for (int round = 0; round < 3; ++round) {
    mallocs = frees = 0;
    counting = true;
    ask(solver);
    solver.clearMemo();
    clearElementCountMemo();
    counting = false;
    EXPECT_GT(mallocs, 1000) << "the questions were asked";
    EXPECT_EQ(mallocs, frees) << "round " << round << ": " << (mallocs - frees) << " allocations kept";
  }
#endif
}
