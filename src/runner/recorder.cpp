#include "runner/recorder.hpp"

#include "tokenizer/tokenizer.hpp"

namespace tokbench::runner {

using record::RequestRecord;

Recorder::Recorder(const std::filesystem::path& perf_dir, const std::string& abbr, const tokenizer::Tokenizer* tok,
                   std::function<const dataset::RequestSpec&(const RequestRecord&)> spec_of,
                   int64_t default_max_tokens, bool ignore_eos)
    : abbr_(abbr), details_((perf_dir / (abbr + "_details.jsonl")).string()),
      failed_path_(perf_dir / (abbr + "_failed.jsonl")), tok_(tok), spec_of_(std::move(spec_of)),
      default_max_tokens_(default_max_tokens), ignore_eos_(ignore_eos),
      thread_([this] { loop(); }) {}

Recorder::~Recorder() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Recorder::add(RequestRecord&& r) {
  if (!r.warmup) {
    ++measured_done_;
    if (!r.ok()) ++failed_count_;
    if (r.completion_tokens > 0) output_tokens_ += r.completion_tokens;
  }
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(r));
  }
  cv_.notify_one();
}

void Recorder::process(RequestRecord& r) {
  const dataset::RequestSpec& spec = spec_of_(r);
  if (spec.expected_input_tokens >= 0) r.expected_prompt_tokens = spec.expected_input_tokens;
  const int64_t cap = spec.max_tokens > 0 ? spec.max_tokens : default_max_tokens_;
  if (cap > 0) r.requested_max_tokens = cap;
  r.ignore_eos_sent = ignore_eos_;
  if (tok_) {
    r.prompt_tokens_local = static_cast<int64_t>(tok_->count(spec.prompt, false));
    if (!r.output_text.empty() || r.ok()) r.completion_tokens_local = static_cast<int64_t>(tok_->count(r.output_text, false));
  }
  r.output_text.clear();
  r.output_text.shrink_to_fit();
  const std::string line = record::to_json_line(r, abbr_);
  details_.append(line);
  if (!r.ok()) {
    if (!failed_) failed_ = std::make_unique<record::LineAppender>(failed_path_.string());
    failed_->append(line);
  }
}

void Recorder::loop() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty() && stop_) return;
    std::deque<RequestRecord> batch;
    batch.swap(queue_);
    busy_ = true;
    lock.unlock();
    for (auto& r : batch) process(r);
    lock.lock();
    for (auto& r : batch) done_.push_back(std::move(r));
    busy_ = false;
    idle_cv_.notify_all();
  }
}

void Recorder::drain() {
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [&] { return queue_.empty() && !busy_; });
}

std::vector<RequestRecord> Recorder::take() {
  drain();
  std::lock_guard lock(mu_);
  return std::move(done_);
}

std::vector<RequestRecord> Recorder::warmup_records() {
  drain();
  std::lock_guard lock(mu_);
  std::vector<RequestRecord> out;
  for (const auto& r : done_)
    if (r.warmup) out.push_back(r);
  return out;
}

}  // namespace tokbench::runner
