#pragma once
// metrics/verdict: VALID or INVALID, with reasons that each name a fix (docs/METRICS.md, "The
// verdict"). Fed one record at a time (a pass over the details file) plus the facts of the run
// folder, so `run` and `report` reach the same verdict from the same folder.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "metrics/metrics.hpp"
#include "record/client_health.hpp"
#include "record/record.hpp"

namespace tokbench::metrics {

/// A run's verdict: VALID unless a reason says why not.
struct Verdict {
  bool valid = true;
  std::vector<std::string> reasons;   ///< why INVALID, each with a suggestion
  std::vector<std::string> warnings;  ///< worth knowing, but the run stands
  std::vector<std::string>
      notes;  ///< facts the verdict rests on (a multi-host run's health per rank)
  /// --stop-on-saturation stopped the point past saturation: not a measurement of the asked load
  /// but an answer about it (a sweep or search goes on; status SATURATED, not INVALID).
  bool saturated = false;
  /// --class SLOs the run missed, each by name ("class chat: ttft.p99 412.3 ms > 300 ms"): the
  /// measurement stands (VALID), the service did not (exit 3).
  std::vector<std::string> slo_missed;
};

/// What the verdict needs from the records, gathered in one pass.
/// The verdict's word: VALID, INVALID, or SATURATED (--stop-on-saturation stopped the point).
inline const char* verdict_status(const Verdict& v) {
  return v.valid ? "VALID" : v.saturated ? "SATURATED" : "INVALID";
}

struct VerdictTally {
  int64_t measured = 0, failed = 0, warmup = 0;
  int64_t cut =
      0;  ///< in flight when a --duration-s run's grace ended: cancelled, not measured, not failed
  /// --cancel-rate: measured-phase requests the client cancelled on purpose (counted apart, like
  /// `cut`), and those drawn to be cancelled (some finish before their cancel point).
  int64_t client_cancelled = 0, cancel_planned = 0;
  int64_t short_outputs = 0;  ///< ignore_eos sent, and a different number of tokens came back
  /// usage.completion_tokens above what max_tokens allows (× the choices): a server whose counts
  /// cannot be true, so every token figure is wrong. `usage_over_text`: no cap was sent, and usage
  /// claims more than 4 tokens a byte of the text received (+1,024): a warning (hidden reasoning
  /// tokens could explain it).
  int64_t usage_over_cap = 0, usage_over_text = 0;
  int64_t resent =
      0;  ///< requests sent a second time after a kept-alive connection closed under them
  std::string usage_example;  ///< the first such request's id, its claim and its cap or text
  int64_t malformed_requests = 0, malformed_lines = 0;  ///< streams with lines that were not SSE
  std::map<std::string, int64_t> failures;              ///< by outcome name
  std::map<int64_t, int64_t> http_statuses;  ///< failed requests by the HTTP status they got
  /// The first failed request's cause, for the reason: its HTTP status and what the server said
  /// (the error's first 200 characters), so a run where everything failed says why on screen.
  std::string first_failure;
  int64_t first_sent_ns = INT64_MAX;  ///< among measured records with a send and an end
  int64_t last_done_ns = INT64_MIN;   ///< the same records' last end
  /// Set before the pass: when the server's /metrics window began (the first scrape). Warm-up
  /// requests sent after it (a --ramp-up-s ramp's) are in the server's counters, so the token
  /// cross-check counts their tokens too.
  int64_t window_start_ns = INT64_MAX;
  double warmup_tokens_in_window = 0;
  /// A multi-host run: each rank's measured requests and send lag (exact mean and max, in
  /// bounded memory; the SendLag row's percentiles are over every rank).
  struct Rank {
    int64_t requests = 0, lagged = 0;
    double lag_sum_ns = 0, lag_max_ns = 0;
  };
  std::map<int64_t, Rank> ranks;
  /// Measured lines the details file holds twice (the same id, from the same rank): read once,
  /// the copy left out of every figure and said in the verdict. The first such id.
  int64_t duplicated = 0, duplicated_example = record::kNone;
  /// False for a measured record whose id was already read (the caller leaves it out); ids past
  /// kMaxCheckedIds are not checked (one bit an id: 16 MiB at most).
  bool first_of_its_id(const record::RequestRecord& r);
  void add(const record::RequestRecord& r);

 private:
  static constexpr int64_t kMaxCheckedIds = int64_t{1} << 27;
  std::map<std::pair<int64_t, std::string>, std::vector<bool>> seen_;  ///< per rank and class
};

/// Facts of the run folder that are not in the records.
struct VerdictFacts {
  bool interrupted = false;
  bool saturated = false;   ///< --stop-on-saturation stopped it (end.json's stop_reason says so)
  double request_rate = 0;  ///< +inf: all due at once (no schedule to keep)
  bool open_loop = false;   ///< a schedule paced the requests (a rate or a trace): in-flight is the
                            ///< server's doing
  bool trace = false;       ///< the schedule is a trace's timestamps (--trace-speed paces it)
  bool in_flight_capped = true;  ///< --concurrency capped the schedule's in-flight count
  double duration_s = 0, grace_s = 0;
  double cancel_rate = 0;       ///< --cancel-rate (0: none)
  std::string cancel_after;     ///< --cancel-after, as the run parsed it
  record::ClientHealth client;  ///< the client's own cost (< 0: unknown)
  bool server_disagrees = false;
  bool server_disagrees_on_ttft_only = false;  ///< every failed cross-check is TTFT's
  double ttft_client_ms = 0,
         ttft_server_ms = 0;              ///< the TTFT cross-check's two sides (when it ran)
  std::string incomplete;                 ///< why the folder is not a finished run ("" = it is)
  std::string details_warning;            ///< a torn last line that was skipped ("" = none)
  bool insecure_tls = false;              ///< --insecure: certificates were not verified
  std::vector<record::RankHealth> ranks;  ///< a multi-host run's ranks (empty on a single host)
  int rank_count = 1;  ///< the run's ranks (more than `ranks` holds when one was lost)
};

Verdict judge(const MetricSet& m, const VerdictTally& t, const VerdictFacts& f);

}  // namespace tokbench::metrics
