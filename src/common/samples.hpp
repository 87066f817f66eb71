#pragma once
// common/samples: one column of values (a metric over every request, or every token gap) with
// exact statistics in bounded memory. Values are buffered up to a cap, then spilled as sorted
// runs to an unlinked temporary file; statistics merge the runs in ascending order, so the mean
// (summed in ascending order) and every percentile are bit-identical to sorting the whole column
// in memory (common/stats summarize()). Nothing here is sized by a value: a run of equal values
// (a chunk of k tokens is k equal gaps) is one (value, count) entry.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "common/stats.hpp"

namespace tokbench::metrics {

class Samples {
 public:
  /// Entries (value, count) kept in memory before a sorted run is spilled (16 bytes each): 256 KiB
  /// a column, so that a pass over a run with dozens of columns stays a few MB at any length.
  /// The cap never grows: each time kRunsPerLevel runs of one level stand at the end of the file,
  /// they are merged on disk into one run a level up (and their old bytes given back to the file
  /// system), so a merge stays at most kRunsPerLevel runs a level wide (each read in 4 KiB
  /// blocks) even over billions of values, and memory is flat in the column's length.
  static constexpr size_t kDefaultMemoryEntries = 1 << 14;
  static constexpr size_t kRunsPerLevel = 32;

  explicit Samples(size_t memory_entries = kDefaultMemoryEntries);
  Samples(Samples&&) noexcept;
  Samples& operator=(Samples&&) noexcept;
  ~Samples();

  /// Adds `count` copies of `v` (count <= 0 adds nothing). Throws std::runtime_error when a
  /// spill cannot be written (disk full), naming the temporary directory.
  void push(double v, int64_t count = 1);
  int64_t size() const { return total_; }
  bool empty() const { return total_ == 0; }
  bool spilled() const { return !runs_.empty(); }
  /// The sorted runs on disk now (at most kRunsPerLevel - 1 a level between pushes).
  size_t runs() const { return runs_.size(); }
  /// Entries the in-memory buffer has room for: the cap, whatever the column's length.
  size_t buffer_capacity() const { return buf_.capacity(); }

  /// Mean, min, max and percentiles, exactly as summarize(vector) computes them. The result is
  /// kept: a second call with the same method (after precompute()) costs nothing.
  Summary summarize(PercentileMethod method = PercentileMethod::Linear);
  /// summarize() ahead of time, so that many columns can be merged on several threads (each
  /// column has its own file: columns are independent). Not thread-safe on one column.
  void precompute(PercentileMethod method) { summarize(method); }

  /// Every (value, count) entry in ascending order of value (equal values may come as several
  /// entries).
  void for_each_sorted(const std::function<void(double value, int64_t count)>& fn);

  struct Entry {
    double v;
    int64_t n;
  };
  /// Pulls the entries in ascending order (a k-way merge of the spilled runs and the buffer), so
  /// two columns can be walked side by side. The Samples must outlive it and not change meanwhile.
  class Reader {
   public:
    explicit Reader(Samples& s);
    bool next(Entry& out);

   private:
    friend class Samples;
    // The runs [first, last) and, when asked, the in-memory buffer.
    Reader(Samples& s, size_t first, size_t last, bool with_buffer);
    struct Cursor {
      int64_t next = 0, end = 0;  // file positions in entries (spilled runs)
      std::vector<Entry> block;
      size_t at = 0;
      bool memory = false;
    };
    bool refill(Cursor& c);
    const Entry& head(const Cursor& c) const { return c.memory ? s_.buf_[c.at] : c.block[c.at]; }
    Samples& s_;
    std::vector<Cursor> cur_;
    std::vector<std::pair<double, size_t>> heap_;  // min-heap on value
  };

 private:
  struct Run {
    int64_t offset;  // in entries
    int64_t count;
    int level;  // 0: a spilled buffer; k + 1: kRunsPerLevel runs of level k merged
  };
  void spill();
  void compact();
  void write_entries(const std::vector<Entry>& entries);

  size_t cap_;
  std::optional<std::pair<PercentileMethod, Summary>> summary_;  // kept until the next push
  std::vector<Entry> buf_;
  bool buf_sorted_ = true;
  std::vector<Run> runs_;
  std::FILE* file_ = nullptr;  // tmpfile(): removed by the system when closed
  int64_t file_entries_ = 0;
  int64_t total_ = 0;
};

}  // namespace tokbench::metrics
