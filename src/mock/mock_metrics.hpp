#pragma once
// mock/mock_metrics: the simulator's Prometheus /metrics, with vLLM's metric names, semantics and
// histogram buckets, so the client's scraper and users' dashboards see what a vLLM server shows.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "mockapi/mock_devices.hpp"
#include "mockapi/mock_response.hpp"

namespace tokbench::mock {

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double v);  ///< not thread-safe: MockMetrics holds the lock
  void render(std::string& out, const std::string& name, const std::string& labels,
              const std::string& help) const;

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // per bucket, not cumulative
  double sum_ = 0;
  uint64_t count_ = 0;
};

/// Every counter, gauge and histogram the simulator exports. Thread-safe.
class MockMetrics {
 public:
  explicit MockMetrics(std::string model_name);
  /// The devices (serve-mock --devices) learn of every change of the batch and every token here.
  void attach(MockDevices* devices) { devices_ = devices; }
  void request_queued();
  void request_started(double queue_s);
  void first_token(double ttft_s, int tokens = 1);  // tokens: one per choice (n > 1)
  void step(double itl_s, int tokens, int drafted, int accepted);
  void request_finished(double e2e_s, int64_t prompt_tokens, bool prefix_cache_enabled,
                        int64_t cached_tokens);
  /// A running request whose client left before its end: vLLM aborts it, and counts it under
  /// vllm:request_success_total{finished_reason="abort"}.
  void request_aborted();
  /// The scheduler took a running request's place for a better one (vllm:num_preemptions_total),
  /// and gave it back later.
  void request_preempted();
  void request_resumed();
  std::string render() const;

  struct Counters {
    uint64_t prompt_tokens = 0, generation_tokens = 0, drafts = 0, draft_tokens = 0,
             accepted_tokens = 0;
    int64_t running = 0, waiting = 0;
    std::vector<uint64_t>
        accepted_at;  ///< per draft position: steps whose draft there was accepted
  };
  Counters counters() const;

  /// vLLM's two periodic log lines for the interval since `before` (`seconds` long).
  static std::string log_lines(const Counters& before, const Counters& now, double seconds);

 private:
  mutable std::mutex mu_;
  MockDevices* devices_ = nullptr;
  std::string labels_;
  int64_t running_ = 0, waiting_ = 0;
  uint64_t prompt_tokens_ = 0, generation_tokens_ = 0, requests_ = 0, aborted_ = 0, preempted_ = 0;
  uint64_t drafts_ = 0, draft_tokens_ = 0, accepted_tokens_ = 0;
  uint64_t prefix_queries_ = 0, prefix_hits_ = 0;
  std::vector<uint64_t> accepted_at_;
  Histogram ttft_, itl_, tpot_, e2e_, queue_;
};

// Decode steps since the last wake, observed in /metrics once their real time is known: under
// load the simulator itself runs late, and its histograms must say so, as a real server's do.
struct StepObserver {
  struct Planned {
    Step st;
    int64_t tokens;
  };
  MockMetrics& metrics;
  int64_t choices;
  std::chrono::steady_clock::time_point last_wake;
  std::vector<Planned> planned;
  void observe() {
    const auto now = std::chrono::steady_clock::now();
    double planned_ms = 0;
    for (const auto& p : planned) planned_ms += p.st.ms;
    const double actual_ms = std::chrono::duration<double, std::milli>(now - last_wake).count();
    const double scale = planned_ms > 0 ? actual_ms / planned_ms : 1.0;
    for (const auto& p : planned)  // every choice's tokens
      metrics.step(p.st.ms * scale / 1000, static_cast<int>(p.tokens * choices), p.st.drafted,
                   p.st.accepted);
    planned.clear();
    last_wake = now;
  }
};

}  // namespace tokbench::mock
