#pragma once
// metrics/slices: `--slice-s S`, the run cut into time slices (AIPerf's timeslices), each with its
// own numbers so drift over a run shows: requests are placed in the slice they were sent in (their
// TTFT, TPOT and E2EL there), output tokens in the slice their chunk arrived in, completions in the
// slice they ended in. Slices start at the first measured send. At most kMaxSlices are kept: a run
// longer than that many slices widens them (by whole multiples, said in the note). Memory is the
// slices' statistics, never the records.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/samples.hpp"
#include "record/record.hpp"

namespace tokbench::metrics {

struct SliceStats {
  double start_s = 0, end_s = 0;  ///< since the first measured send
  int64_t sent = 0, failed = 0, completed = 0;
  double output_tokens = 0;  ///< tokens whose chunk arrived in the slice
  Summary ttft, tpot, e2el;  ///< ms; n = 0 when none
  double request_throughput() const { return static_cast<double>(completed) / (end_s - start_s); }
  double output_token_throughput() const { return output_tokens / (end_s - start_s); }
};

class SliceAccumulator {
 public:
  static constexpr int64_t kMaxSlices = 1000;
  /// `t0_ns`: the first measured send; `span_ns`: to the last measured end (sizes the slices).
  SliceAccumulator(double slice_s, int64_t t0_ns, int64_t span_ns);
  void add(const record::RequestRecord& r);  ///< measured records (warm-up and cut are skipped)
  std::vector<SliceStats> finish();
  double width_s() const { return static_cast<double>(width_ns_) / 1e9; }
  int64_t width_ns() const { return width_ns_; }
  std::string note() const { return note_; }

 private:
  struct Slice {
    int64_t sent = 0, failed = 0, completed = 0;
    double tokens = 0;
    Samples ttft{256}, tpot{256}, e2el{256};
  };
  Slice& at(int64_t t_ns);
  int64_t t0_ns_, width_ns_;
  std::string note_;
  std::map<int64_t, Slice> slices_;
};

}  // namespace tokbench::metrics
