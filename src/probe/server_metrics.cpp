#include "probe/server_metrics.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "client/http_get.hpp"
#include "common/clock.hpp"

namespace tokbench::probe {

Scraper::Scraper(std::string url, std::vector<std::string> headers, std::string api_key, int64_t interval_ms,
                 int64_t origin_ns)
    : url_(std::move(url)), headers_(std::move(headers)), api_key_(std::move(api_key)), interval_ms_(interval_ms),
      origin_ns_(origin_ns) {}

Scraper::~Scraper() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

bool Scraper::scrape_once() {
  const int64_t t = steady_now_ns() - origin_ns_;
  const auto res = client::http_get(url_, headers_, api_key_, 5000);
  std::lock_guard lock(mu_);
  if (!res.reached || res.status != 200) {
    error_ = res.reached ? fmt::format("HTTP {}", res.status) : res.error;
    return false;
  }
  try {
    snaps_.push_back({t, parse_text(res.body)});
  } catch (const std::exception& e) {
    error_ = e.what();
    return false;
  }
  return true;
}

void Scraper::start() {
  thread_ = std::thread([this] {
    while (!stop_) {
      for (int64_t waited = 0; waited < interval_ms_ && !stop_; waited += 10)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (!stop_) scrape_once();
    }
  });
}

void Scraper::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  scrape_once();
}

std::vector<Snapshot> Scraper::snapshots() const {
  std::lock_guard lock(mu_);
  return snaps_;
}

std::string Scraper::last_error() const {
  std::lock_guard lock(mu_);
  return error_;
}

std::optional<ServerSummary> summarize(const std::vector<Snapshot>& snaps, const std::string& url) {
  if (snaps.size() < 2) return std::nullopt;
  const Snapshot& a = snaps.front();
  const Snapshot& b = snaps.back();
  ServerSummary s;
  s.url = url;
  s.scrapes = static_cast<int64_t>(snaps.size());
  s.duration_s = static_cast<double>(b.t_ns - a.t_ns) / 1e9;
  s.ttft = histogram_delta(a, b, "vllm:time_to_first_token_seconds");
  s.itl = histogram_delta(a, b, "vllm:inter_token_latency_seconds");
  if (!s.itl) s.itl = histogram_delta(a, b, "vllm:time_per_output_token_seconds");  // older vLLM
  s.e2e = histogram_delta(a, b, "vllm:e2e_request_latency_seconds");
  s.queue = histogram_delta(a, b, "vllm:request_queue_time_seconds");
  auto delta = [&](const char* name) { return b.sum(name).value_or(0) - a.sum(name).value_or(0); };
  s.generation_tokens = delta("vllm:generation_tokens_total");
  s.prompt_tokens = delta("vllm:prompt_tokens_total");
  const double drafts = delta("vllm:spec_decode_num_drafts_total");
  const double draft_tokens = delta("vllm:spec_decode_num_draft_tokens_total");
  const double accepted = delta("vllm:spec_decode_num_accepted_tokens_total");
  if (draft_tokens > 0) s.spec_acceptance_rate = accepted / draft_tokens;
  if (drafts > 0) s.spec_mean_acceptance_length = 1 + accepted / drafts;
  for (const auto& snap : snaps) {
    s.running_waiting.emplace_back(snap.t_ns, snap.sum("vllm:num_requests_running").value_or(0),
                                   snap.sum("vllm:num_requests_waiting").value_or(0));
  }
  return s;
}

std::vector<CrossCheck> cross_check(const ServerSummary& s, double client_output_tokens,
                                    std::optional<double> client_tpot_ms, std::optional<double> client_ttft_ms) {
  std::vector<CrossCheck> out;
  auto check = [&](std::string what, double client, double server, double tol, double abs_tol, std::string note) {
    const bool agree = std::abs(client - server) <= std::max(tol * std::abs(server), abs_tol);
    out.push_back({std::move(what), client, server, tol, abs_tol, agree, std::move(note)});
  };
  check("output tokens", client_output_tokens, s.generation_tokens, 0.02, 0,
        "client sum of output tokens vs the delta of vllm:generation_tokens_total (other traffic on the server breaks it)");
  if (client_tpot_ms && s.itl && s.itl->count > 0) {
    const double per_token = s.itl->mean() * 1000 / s.spec_mean_acceptance_length.value_or(1.0);
    check("TPOT (ms)", *client_tpot_ms, per_token, 0.10, 0.5,
          "client TPOT vs server inter-token latency per step divided by the mean acceptance length");
  }
  if (client_ttft_ms && s.ttft && s.ttft->count > 0) {
    check("TTFT (ms)", *client_ttft_ms, s.ttft->mean() * 1000, 0.25, 50,
          "client TTFT includes the network and the client; the server's starts at arrival");
  }
  return out;
}

}  // namespace tokbench::probe
