#pragma once
// measure/recorder: takes finished RequestRecords from the client's worker threads and, on its
// own thread, counts tokens locally (--tokenizer), appends each record to <ds>_details.jsonl
// (and failures to <ds>_failed.jsonl) with one write() each, and then lets it go: it keeps
// counters, never records, so memory does not grow with the run. Off the workers, so
// formatting, tokenizing and disk writes never delay the timestamps of other streams.
// With --check-answers it also reads each output there (metrics/answers: the answer and whether
// it is right, repetition, UTF-8), hashes the --determinism-probe outputs, and writes the first
// --keep-outputs N outputs for a person to read; then the text goes with its record.
// Checking is bounded, so a slow check (200 KB outputs, a backtracking answer_regex) can neither
// grow memory nor hold the run's end: at most kMaxCheckBacklogBytes of text wait to be read (an
// output past that is let go unread), and drain() waits at most kCheckDrainDeadline, or until a
// stop signal, before the rest is let go unread; each such output says "not_checked": "backlog"
// in the details, and the verdict counts them.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "metrics/metrics.hpp"
#include "record/record_io.hpp"

namespace tokbench::tokenizer {
class Tokenizer;
}

namespace tokbench::runner {

inline constexpr size_t kMaxCheckBacklogBytes = size_t{64} << 20;
inline constexpr std::chrono::seconds kCheckDrainDeadline{30};

/// What the recorder reads from each output's text before letting it go.
struct OutputChecks {
  bool answers =
      false;  ///< --check-answers: score against the line's reference; repetition and UTF-8
  int64_t keep_outputs =
      0;  ///< --keep-outputs N: measured requests 0..N-1 written to <ds>_outputs.jsonl
  bool reads_text() const { return answers || keep_outputs > 0; }
};

/// What the warm-up phase produced, for the "every warm-up request failed" check.
struct WarmupTally {
  int64_t total = 0, ok = 0;
  std::string first_failure;  ///< "<outcome> <error>" of the first failed warm-up request
};

class Recorder {
 public:
  /// `goodput` (empty = none): each measured line also says which --goodput SLOs it met ("slo").
  Recorder(const std::filesystem::path& perf_dir, const std::string& abbr,
           const tokenizer::Tokenizer* tok, const metrics::GoodputSpec& goodput = {},
           const OutputChecks& checks = {});
  ~Recorder();

  void add(record::RequestRecord&& r);  ///< any thread
  /// A multi-host run: every record this recorder writes names the rank that sent it.
  void stamp_rank(int64_t rank) { rank_ = rank; }
  /// Returns once every added record is on disk. Past `deadline`, or once `stop` is raised
  /// (any stop level), the outputs still waiting are written unread ("not_checked": "backlog").
  void drain(const std::atomic<int>* stop = nullptr,
             std::chrono::milliseconds deadline = kCheckDrainDeadline);
  /// Bytes of text waiting for the checks (at most kMaxCheckBacklogBytes).
  size_t text_waiting() const;
  /// Measured outputs let go unread because the checks fell behind.
  int64_t unchecked() const { return unchecked_.load(); }

  int64_t measured_done() const { return measured_done_.load(); }
  int64_t failed() const { return failed_count_.load(); }
  int64_t output_tokens() const { return output_tokens_.load(); }
  int64_t written() const { return written_.load(); }  ///< lines in the details file
  /// Records handed over but not yet on disk: the only ones the recorder ever holds.
  int64_t held() const;
  WarmupTally warmup() const;
  /// The first error the disk gave (a full disk): the run stops, and says so. "" = none.
  std::string write_error() const;
  /// Called once, on the recorder's thread, when the disk first refuses a record: the run stops
  /// its load there (nothing later could be recorded). Set before the first add().
  void on_write_error(std::function<void(const std::string&)> f) { on_write_error_ = std::move(f); }
  /// Called on the recorder's thread with each record once it is written (warm-up ones too):
  /// --otlp-endpoint's spans and tally. Set before the first add().
  void on_written(std::function<void(const record::RequestRecord&)> f) {
    on_written_ = std::move(f);
  }

 private:
  void loop();
  void process(record::RequestRecord& r);
  void check(record::RequestRecord& r);
  void let_go_unread(record::RequestRecord& r);

  std::string abbr_;
  record::LineAppender details_;
  std::filesystem::path failed_path_;
  std::unique_ptr<record::LineAppender> failed_;
  const tokenizer::Tokenizer* tok_;
  int64_t rank_ = record::kNone;
  metrics::GoodputSpec goodput_;
  OutputChecks checks_;
  std::filesystem::path outputs_path_;
  std::unique_ptr<record::LineAppender> outputs_;
  mutable std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<record::RequestRecord> queue_;
  size_t in_process_ = 0;
  size_t queued_text_ = 0;          ///< bytes of text waiting to be read (kMaxCheckBacklogBytes)
  std::atomic<bool> hurry_{false};  ///< drain() gave up waiting: the rest goes unread
  std::atomic<int64_t> unchecked_{0};
  bool stop_ = false;
  WarmupTally warmup_;
  std::string write_error_;
  std::function<void(const std::string&)> on_write_error_;
  std::function<void(const record::RequestRecord&)> on_written_;
  std::atomic<int64_t> measured_done_{0};
  std::atomic<int64_t> failed_count_{0};
  std::atomic<int64_t> output_tokens_{0};
  std::atomic<int64_t> written_{0};
  std::thread thread_;
};

}  // namespace tokbench::runner
