#pragma once
// report/page_rows: which requests the run page's timeline draws, so that the page stays light at
// any run length. Every request up to kDrawAll; past that a bounded, seeded sample that always
// keeps the tail a person looks for: every failure (up to kFailuresKept, then a uniform sample of
// the failures), the kSlowest slowest successes by E2EL, and a uniform sample of kSample of the
// other successes (reservoir sampling, Algorithm R, from a fixed seed: the same folder gives the
// same page). Memory is bounded by the caps, never by the run: below kDrawAll the rows wait in a
// temporary file, not in memory, so a 40k-request page costs what a 10k one does. The exact
// statistics are not made here: the tables and histograms see every request.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

namespace tokbench::report {

/// One request as the page draws it: times in ms from the page's time 0, NaN where absent.
struct PageRow {
  double start = 0, first = 0, end = 0, ttft = 0, tpot = 0, e2el = 0, scheduled = 0;
  int64_t out_tokens = 0;
  int64_t index = 0;  ///< the request's index in the details file (its id: "<run id>-<index>")
  bool ok = false;
  bool apart = false;          ///< counted apart (cancelled by the client, cut at a duration's end)
  int32_t traffic_class = -1;  ///< --class: its class's position in the run's list (-1: none)
};

class RowSampler {
 public:
  static constexpr std::size_t kDrawAll = 50'000;
  static constexpr std::size_t kSample = 40'000;
  static constexpr std::size_t kSlowest = 1'000;
  static constexpr std::size_t kFailuresKept = 10'000;
  static constexpr uint64_t kSeed = 20261202;

  void add(const PageRow& row);

  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  using Spill = std::unique_ptr<std::FILE, Closer>;

  struct Drawn {
    bool sampled = false;
    int64_t total = 0, failed = 0;  ///< every request offered, and the failures among them
    int64_t drawn = 0;              ///< the rows for_each gives
    int64_t failed_drawn = 0, slowest_drawn = 0;  ///< kept whole (sampled: counts by kind)
    int64_t sampled_drawn = 0;                    ///< the uniform sample of the other successes
    /// Each drawn row once, in no particular order (the page sorts by start): read back from the
    /// temporary file below the limit, from the kept samples past it. Throws std::runtime_error
    /// when the file cannot be read back.
    void for_each(const std::function<void(const PageRow&)>& fn);

    std::vector<PageRow> kept;  ///< sampled: the rows kept
    Spill spill;                ///< not sampled: every row, in the order offered
  };
  /// What to draw; the sampler is spent after it.
  Drawn take();

 private:
  // Algorithm R over what is offered: each of `seen` items is kept with probability cap/seen.
  struct Reservoir {
    explicit Reservoir(std::size_t c) : cap(c) {}
    std::size_t cap;
    int64_t seen = 0;
    std::vector<PageRow> kept;
    void offer(const PageRow& r, uint64_t draw);
  };
  void feed(const PageRow& row);
  uint64_t next_random();

  Spill spill_;  // every row until kDrawAll is passed (a temporary file)
  int64_t spilled_ = 0;
  bool sampling_ = false;
  int64_t total_ = 0, failed_ = 0;
  std::vector<PageRow> slowest_;  // a min-heap on E2EL (then index): the kSlowest slowest so far
  Reservoir failures_{kFailuresKept}, rest_{kSample};
  uint64_t state_ = kSeed;
};

}  // namespace tokbench::report
