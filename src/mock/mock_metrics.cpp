#include "mock/mock_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tokbench::mock {

namespace {
// vLLM's bucket boundaries (vllm/v1/metrics/loggers.py), in seconds.
const std::vector<double> kTtftBuckets{0.001, 0.005, 0.01, 0.02,  0.04,  0.06,  0.08, 0.1,
                                       0.25,  0.5,   0.75, 1.0,   2.5,   5.0,   7.5,  10.0,
                                       20.0,  40.0,  80.0, 160.0, 640.0, 2560.0};
const std::vector<double> kItlBuckets{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,  0.3,  0.4, 0.5,
                                      0.75, 1.0,   2.5,  5.0,   7.5, 10.0, 20.0, 40.0, 80.0};
const std::vector<double> kLatencyBuckets{0.3,  0.5,   0.8,   1.0,   1.5,   2.0,    2.5,
                                          5.0,  10.0,  15.0,  20.0,  30.0,  40.0,   50.0,
                                          60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};

void counter(std::string& out, const std::string& name, const std::string& labels, uint64_t v,
             const std::string& help) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} counter\n{}{{{}}} {}\n", name,
                 help, name, name, labels, v);
}
template <class T>
void gauge(std::string& out, const std::string& name, const std::string& labels, T v,
           const std::string& help) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} gauge\n{}{{{}}} {}\n", name,
                 help, name, name, labels, v);
}
}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double v) {
  const auto i =
      static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
  ++counts_[i];
  sum_ += v;
  ++count_;
}

void Histogram::render(std::string& out, const std::string& name, const std::string& labels,
                       const std::string& help) const {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} histogram\n", name, help, name);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    fmt::format_to(std::back_inserter(out), "{}_bucket{{{},le=\"{}\"}} {}\n", name, labels,
                   bounds_[i], cumulative);
  }
  cumulative += counts_.back();
  fmt::format_to(std::back_inserter(out),
                 "{}_bucket{{{},le=\"+Inf\"}} {}\n{}_sum{{{}}} {}\n{}_count{{{}}} {}\n", name,
                 labels, cumulative, name, labels, sum_, name, labels, count_);
}

MockMetrics::MockMetrics(std::string model_name)
    : labels_(fmt::format("model_name=\"{}\"", model_name)),
      ttft_(kTtftBuckets),
      itl_(kItlBuckets),
      tpot_(kItlBuckets),
      e2e_(kLatencyBuckets),
      queue_(kLatencyBuckets) {}

void MockMetrics::request_queued() {
  std::lock_guard l(mu_);
  ++waiting_;
}

void MockMetrics::request_started(double queue_s) {
  std::lock_guard l(mu_);
  --waiting_;
  ++running_;
  queue_.observe(queue_s);
  if (devices_) devices_->running_changed(running_);
}

void MockMetrics::first_token(double ttft_s, int tokens) {
  std::lock_guard l(mu_);
  ttft_.observe(ttft_s);
  generation_tokens_ += static_cast<uint64_t>(tokens);
  if (devices_) devices_->tokens(tokens);
}

void MockMetrics::step(double itl_s, int tokens, int drafted, int accepted) {
  std::lock_guard l(mu_);
  itl_.observe(itl_s);
  tpot_.observe(itl_s);
  generation_tokens_ += static_cast<uint64_t>(tokens);
  if (devices_) devices_->tokens(tokens);
  if (drafted > 0) {
    ++drafts_;
    draft_tokens_ += static_cast<uint64_t>(drafted);
    accepted_tokens_ += static_cast<uint64_t>(accepted);
    if (accepted_at_.size() < static_cast<size_t>(drafted))
      accepted_at_.resize(static_cast<size_t>(drafted), 0);
    for (int k = 0; k < accepted; ++k) ++accepted_at_[static_cast<size_t>(k)];
  }
}

void MockMetrics::request_aborted() {
  std::lock_guard l(mu_);
  --running_;
  ++aborted_;
  if (devices_) devices_->running_changed(running_);
}

void MockMetrics::request_preempted() {
  std::lock_guard l(mu_);
  --running_;
  ++waiting_;
  ++preempted_;
  if (devices_) devices_->running_changed(running_);
}

void MockMetrics::request_resumed() {
  std::lock_guard l(mu_);
  --waiting_;
  ++running_;
  if (devices_) devices_->running_changed(running_);
}

void MockMetrics::request_finished(double e2e_s, int64_t prompt_tokens, bool prefix_cache_enabled,
                                   int64_t cached_tokens) {
  std::lock_guard l(mu_);
  --running_;
  ++requests_;
  if (devices_) devices_->running_changed(running_);
  e2e_.observe(e2e_s);
  prompt_tokens_ += static_cast<uint64_t>(std::max<int64_t>(0, prompt_tokens));
  if (prefix_cache_enabled) {
    prefix_queries_ += static_cast<uint64_t>(std::max<int64_t>(0, prompt_tokens));
    prefix_hits_ += static_cast<uint64_t>(std::max<int64_t>(0, cached_tokens));
  }
}

MockMetrics::Counters MockMetrics::counters() const {
  std::lock_guard l(mu_);
  return {prompt_tokens_,   generation_tokens_, drafts_,  draft_tokens_,
          accepted_tokens_, running_,           waiting_, accepted_at_};
}

std::string MockMetrics::log_lines(const Counters& a, const Counters& b, double seconds) {
  const double s = seconds > 0 ? seconds : 1;
  std::string out = fmt::format(
      "INFO [loggers.py] Engine 000: Avg prompt throughput: {:.1f} tokens/s, Avg generation "
      "throughput: {:.1f} tokens/s, "
      "Running: {} reqs, Waiting: {} reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%\n",
      static_cast<double>(b.prompt_tokens - a.prompt_tokens) / s,
      static_cast<double>(b.generation_tokens - a.generation_tokens) / s, b.running, b.waiting);
  const uint64_t drafts = b.drafts - a.drafts;
  if (drafts > 0) {
    const uint64_t accepted = b.accepted_tokens - a.accepted_tokens,
                   drafted = b.draft_tokens - a.draft_tokens;
    std::string per_position;
    for (size_t k = 0; k < b.accepted_at.size(); ++k) {
      const uint64_t before = k < a.accepted_at.size() ? a.accepted_at[k] : 0;
      per_position +=
          fmt::format("{}{:.3f}", k ? ", " : "",
                      static_cast<double>(b.accepted_at[k] - before) / static_cast<double>(drafts));
    }
    out += fmt::format(
        "INFO [metrics.py] SpecDecoding metrics: Mean acceptance length: {:.2f}, Accepted "
        "throughput: {:.2f} tokens/s, "
        "Drafted throughput: {:.2f} tokens/s, Accepted: {} tokens, Drafted: {} tokens, "
        "Per-position acceptance rate: {}, "
        "Avg Draft acceptance rate: {:.1f}%\n",
        1 + static_cast<double>(accepted) / static_cast<double>(drafts),
        static_cast<double>(accepted) / s, static_cast<double>(drafted) / s, accepted, drafted,
        per_position,
        drafted ? 100.0 * static_cast<double>(accepted) / static_cast<double>(drafted) : 0.0);
  }
  return out;
}

std::string MockMetrics::render() const {
  std::lock_guard l(mu_);
  std::string out;
  gauge(out, "vllm:num_requests_running", labels_, running_,
        "Number of requests in model execution batches.");
  gauge(out, "vllm:num_requests_waiting", labels_, waiting_,
        "Number of requests waiting to be processed.");
  counter(out, "vllm:prompt_tokens_total", labels_, prompt_tokens_,
          "Number of prefill tokens processed.");
  counter(out, "vllm:generation_tokens_total", labels_, generation_tokens_,
          "Number of generation tokens processed.");
  counter(out, "vllm:request_success_total", labels_ + ",finished_reason=\"length\"", requests_,
          "Count of successfully processed requests.");
  fmt::format_to(std::back_inserter(out),
                 "vllm:request_success_total{{{},finished_reason=\"abort\"}} {}\n", labels_,
                 aborted_);  // the family's second sample
  counter(out, "vllm:spec_decode_num_drafts_total", labels_, drafts_,
          "Number of spec decoding drafts.");
  counter(out, "vllm:spec_decode_num_draft_tokens_total", labels_, draft_tokens_,
          "Number of draft tokens.");
  counter(out, "vllm:spec_decode_num_accepted_tokens_total", labels_, accepted_tokens_,
          "Number of accepted tokens.");
  if (!accepted_at_.empty()) {  // one family, a sample per draft position (vLLM's spelling of it)
    out +=
        "# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft "
        "position.\n"
        "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n";
    for (size_t k = 0; k < accepted_at_.size(); ++k)
      fmt::format_to(
          std::back_inserter(out),
          "vllm:spec_decode_num_accepted_tokens_per_pos_total{{{},position=\"{}\"}} {}\n", labels_,
          k, accepted_at_[k]);
  }
  // The KV cache as a stated model: each running request holds 1/256 of it (a 256-sequence cache).
  gauge(out, "vllm:kv_cache_usage_perc", labels_,
        std::min<double>(1.0, static_cast<double>(running_) / 256),
        "KV-cache usage. 1 means 100 percent usage.");
  counter(out, "vllm:num_preemptions_total", labels_, preempted_,
          "Cumulative number of preemption from the engine.");
  counter(out, "vllm:prefix_cache_queries_total", labels_, prefix_queries_,
          "Prefix cache queries, in tokens.");
  counter(out, "vllm:prefix_cache_hits_total", labels_, prefix_hits_,
          "Prefix cache hits, in tokens.");
  ttft_.render(out, "vllm:time_to_first_token_seconds", labels_,
               "Histogram of time to first token in seconds.");
  itl_.render(out, "vllm:inter_token_latency_seconds", labels_,
              "Histogram of inter-token latency in seconds.");
  tpot_.render(
      out, "vllm:time_per_output_token_seconds", labels_,
      "Histogram of time per output token in seconds (deprecated name of inter_token_latency).");
  e2e_.render(out, "vllm:e2e_request_latency_seconds", labels_,
              "Histogram of end to end request latency in seconds.");
  queue_.render(out, "vllm:request_queue_time_seconds", labels_,
                "Histogram of time spent in WAITING phase for request.");
  return out;
}

}  // namespace tokbench::mock
