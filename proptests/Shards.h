// Shards — a property run split by case index, so that many processes (a cluster's workers, or
// the threads of one) check one run and report what one process would (DESIGN §3.6).
//
// Model: case k (0 <= k < cases) checks the random program of seed `seed + k`; shard K of N holds
// the cases with k % N == K and checks them in index order, on `jobs` threads, up to its first
// failure (a thread takes the next case not yet taken; after a failure no later case is taken,
// the earlier ones still run). The counts are kept per case, so that the totals of a run are
// those of the cases up to its first failure (or all), whatever ran past it on other threads
// or shards: merging shards (shapelab.campaign) gives one process's answer exactly.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "proptests/Differential.h"

namespace shapelab::proptests {

struct ShardOptions {
  int64_t cases = 200;
  uint64_t seed = 1;
  int64_t shard = 0, shards = 1; // this shard holds the cases k with k % shards == shard
  unsigned jobs = 1;
  DifferentialOptions check;     // with jobs == 1, its solver (if any) checks every case, its memo
                                 // warm from earlier shards; otherwise each thread makes its own
  SolverOptions solverOptions;
  bool perCase = false;          // keep each case's counts in the result (else only totals)
};

/// The counts of each case run (in index order), when asked for.
struct CaseCounts {
  std::vector<int64_t> indices;
  std::vector<uint32_t> evaluations, errorsAgreed, rewritten;
  std::vector<std::map<std::string, uint32_t>> fired; // each rule's applications
};

struct ShardResult {
  std::optional<DifferentialFailure> failure;
  int64_t failedAt = -1; // the failing case's index (global), or -1
  int64_t casesRun = 0;  // this shard's cases up to its failure (or all of them)
  DifferentialStats totals; // of those cases
  CaseCounts perCase;
};

/// Throws UserError for a shard outside [0, shards) or no shard at all.
ShardResult runShard(const ShardOptions &options);

} // namespace shapelab::proptests
