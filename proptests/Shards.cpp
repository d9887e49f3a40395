// Shards: a property run split by case index (Shards.h).
#include "proptests/Shards.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "interp/Threads.h"
#include "rewrite/Rules.h"
#include "symbolic/Errors.h"

namespace shapelab::proptests {

namespace {
/// One case's counts (a program's evaluations stay far below 2**32).
struct Counts {
  uint32_t evaluations = 0, errorsAgreed = 0, rewritten = 0, programs = 0;
  std::vector<std::pair<uint16_t, uint32_t>> fired; // (shipped rule's index, applications)
};

/// Counts by local case index, in chunks made as cases reach them (memory grows with the cases
/// run, not with the cases asked for).
class CountTable {
public:
  static constexpr int64_t kChunk = 1 << 16;
  void set(int64_t i, const Counts &c) {
    std::lock_guard<std::mutex> guard(lock_);
    const auto chunk = std::size_t(i / kChunk);
    if (chunks_.size() <= chunk) chunks_.resize(chunk + 1);
    if (!chunks_[chunk]) chunks_[chunk] = std::make_unique<Counts[]>(kChunk);
    chunks_[chunk][std::size_t(i % kChunk)] = c;
  }
  Counts get(int64_t i) const { return chunks_[std::size_t(i / kChunk)][std::size_t(i % kChunk)]; }

private:
  std::mutex lock_;
  std::vector<std::unique_ptr<Counts[]>> chunks_;
};
} // namespace

ShardResult runShard(const ShardOptions &o) {
  if (o.shards < 1 || o.shard < 0 || o.shard >= o.shards)
    throw UserError("shard " + std::to_string(o.shard) + "/" + std::to_string(o.shards) +
                    " does not exist: a shard K/N has 0 <= K < N");
  // This shard's cases: local index i is the case shard + i*shards.
  const int64_t local = o.cases > o.shard ? (o.cases - o.shard + o.shards - 1) / o.shards : 0;
  ShardResult out;
  CountTable counts;
  const std::vector<rewrite::Rule> &rules = rewrite::defaultRules();
  std::map<std::string, uint16_t> ruleIndex;
  for (std::size_t k = 0; k < rules.size(); ++k) ruleIndex.emplace(rules[k].name, uint16_t(k));
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> firstFailure{local}; // no local case at or past it is taken
  std::mutex lock;                           // guards out.failure
  int64_t failedLocal = -1;
  const unsigned jobs = unsigned(std::max<int64_t>(1, std::min<int64_t>(o.jobs ? o.jobs : 1, std::max<int64_t>(local, 1))));
  auto worker = [&] {
    // One solver per thread: the cases ask much the same questions of n and m. Its memo is
    // cleared now and then so that memory stays bounded on long runs.
    std::optional<Solver> own;
    DifferentialOptions d = o.check;
    if (!d.solver || jobs > 1) d.solver = &own.emplace(o.solverOptions);
    Solver &solver = *d.solver;
    int done = 0;
    for (int64_t i; (i = next.fetch_add(1)) < firstFailure.load();) {
      if (++done % 1024 == 0) solver.clearMemo();
      DifferentialStats stats;
      std::optional<DifferentialFailure> f = checkRandomProgram(o.seed + uint64_t(o.shard + i * o.shards), d, &stats);
      Counts c{uint32_t(stats.evaluations), uint32_t(stats.errorsAgreed), uint32_t(stats.rewritten), uint32_t(stats.programs), {}};
      for (const auto &[rule, k] : stats.fired) c.fired.push_back({ruleIndex.at(rule), uint32_t(k)});
      counts.set(i, c);
      if (!f) continue;
      std::lock_guard<std::mutex> guard(lock);
      if (failedLocal < 0 || i < failedLocal) {
        failedLocal = i;
        out.failure = std::move(f);
        firstFailure.store(i);
      }
    }
  };
  // A worker's exception (bad solver options, no memory) stops the others before their next case
  // and reaches the caller.
  interp::runOnThreads(jobs, worker, [&] { firstFailure.store(-1); });
  out.casesRun = failedLocal >= 0 ? failedLocal + 1 : local;
  out.failedAt = failedLocal >= 0 ? o.shard + failedLocal * o.shards : -1;
  for (int64_t i = 0; i < out.casesRun; ++i) {
    const Counts c = counts.get(i);
    out.totals.programs += c.programs;
    out.totals.evaluations += c.evaluations;
    out.totals.errorsAgreed += c.errorsAgreed;
    out.totals.rewritten += c.rewritten;
    std::map<std::string, uint32_t> fired;
    for (const auto &[rule, k] : c.fired) {
      out.totals.fired[rules[rule].name] += k;
      fired[rules[rule].name] = k;
    }
    if (o.perCase) {
      out.perCase.indices.push_back(o.shard + i * o.shards);
      out.perCase.evaluations.push_back(c.evaluations);
      out.perCase.errorsAgreed.push_back(c.errorsAgreed);
      out.perCase.rewritten.push_back(c.rewritten);
      out.perCase.fired.push_back(std::move(fired));
    }
  }
  return out;
}

} // namespace shapelab::proptests
