#pragma once
// runner/recorder: takes finished RequestRecords from the client's worker threads and, on its
// own thread, counts tokens locally (--tokenizer), appends each record to <ds>_details.jsonl
// (and failures to <ds>_failed.jsonl) at once, and keeps them for the metrics. Off the workers,
// so formatting, tokenizing and disk writes never delay the timestamps of other streams.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "dataset/dataset.hpp"
#include "record/record_io.hpp"

namespace tokbench::tokenizer {
class Tokenizer;
}

namespace tokbench::runner {

class Recorder {
 public:
  /// `spec_of(record)` gives the RequestSpec a record was sent from (prompt, expected length).
  Recorder(const std::filesystem::path& perf_dir, const std::string& abbr, const tokenizer::Tokenizer* tok,
           std::function<const dataset::RequestSpec&(const record::RequestRecord&)> spec_of,
           int64_t default_max_tokens = 0, bool ignore_eos = false);
  int64_t failed() const { return failed_count_.load(); }
  int64_t output_tokens() const { return output_tokens_.load(); }
  ~Recorder();

  void add(record::RequestRecord&& r);  ///< any thread
  void drain();                         ///< returns once every added record is on disk
  std::vector<record::RequestRecord> take();  ///< drains, then hands over every record
  std::vector<record::RequestRecord> warmup_records();
  int64_t measured_done() const { return measured_done_.load(); }

 private:
  void loop();
  void process(record::RequestRecord& r);

  std::string abbr_;
  record::LineAppender details_;
  std::filesystem::path failed_path_;
  std::unique_ptr<record::LineAppender> failed_;
  const tokenizer::Tokenizer* tok_;
  std::function<const dataset::RequestSpec&(const record::RequestRecord&)> spec_of_;
  std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<record::RequestRecord> queue_;
  std::vector<record::RequestRecord> done_;
  bool busy_ = false, stop_ = false;
  std::atomic<int64_t> measured_done_{0};
  std::atomic<int64_t> failed_count_{0};
  std::atomic<int64_t> output_tokens_{0};
  int64_t default_max_tokens_ = 0;
  bool ignore_eos_ = false;
  std::thread thread_;
};

}  // namespace tokbench::runner
