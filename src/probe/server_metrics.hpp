#pragma once
// probe/server_metrics: the server's own view of a run. A scraper reads /metrics before, during
// (every interval) and after the measured phase; the summary turns the first and last scrape into
// server-side latencies (histogram deltas), token rates, speculative-decoding acceptance, and the
// running/waiting series; cross_check compares it with what the client measured.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "net/http_get.hpp"
#include "probe/prometheus.hpp"
#include "record/server_view.hpp"

namespace tokbench::probe {

using record::CrossCheck;
using record::ServerSummary;
using record::summary_from_json;
using record::summary_to_json;

/// Keeps only what the reports use, so memory does not grow with the run: the first and the
/// latest snapshot, and the running/waiting series (24 bytes a scrape).
class Scraper {
 public:
  /// `engine`: --engine's name, whose dialect alone is read ("" or "auto": matched on the names).
  Scraper(std::string url, std::vector<std::string> headers, std::string api_key,
          int64_t interval_ms, int64_t origin_ns, size_t max_bytes = 64u << 20,
          net::TlsSettings tls = {}, std::string_view engine = "");
  ~Scraper();
  bool scrape_once();  ///< false (and last_error()) when /metrics did not answer with valid text
  void start();        ///< periodic scrapes on a thread
  void stop();         ///< joins, then one last scrape
  /// The summary between the first and the latest scrape; nullopt with fewer than two.
  std::optional<ServerSummary> summary() const;
  std::string last_error() const;
  const std::string& url() const { return url_; }

 private:
  std::string url_;
  std::vector<std::string> headers_;
  std::string api_key_;
  int64_t interval_ms_, origin_ns_;
  size_t max_bytes_;
  net::TlsSettings tls_;
  std::string engine_;
  mutable std::mutex mu_;
  std::optional<Snapshot> first_, last_;
  int64_t scrapes_ = 0;
  std::vector<std::tuple<int64_t, double, double>> running_waiting_;
  std::vector<std::pair<int64_t, double>> kv_usage_;
  std::string error_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// The metric names of one serving engine's /metrics exposition ("" = that engine does not
/// expose it). Histograms are named without _bucket/_sum/_count; a token counter may be a
/// histogram's _sum (TGI counts tokens per request).
struct Dialect {
  const char* name;  ///< the engine's name in core/engines: "vllm", "llamacpp", ...
  const char* mark;  ///< a name prefix ("vllm:"), or a whole metric name only it has (MindIE's)
  const char* ttft;
  const char* itl;
  const char* itl_older;  ///< the ITL histogram's name in older versions
  const char* e2e;
  const char* queue;
  const char* generation_tokens;
  const char* prompt_tokens;
  const char* running;
  const char* waiting;
  const char* kv_usage;        ///< share of the KV cache in use, 0..1 (a gauge)
  const char* kv_usage_older;  ///< its name in older versions ("" = none)
  const char* preemptions;     ///< a counter ("" = not exposed by this engine)
  bool prompt_excludes_cache;  ///< its prompt-token counter leaves out prefix-cache hits
};

/// The dialects tokbench reads, one per engine that has a Prometheus /metrics.
std::span<const Dialect> all_dialects();
/// The dialect of the engine of that name (core/engines), or null when it has none.
const Dialect* dialect_named(std::string_view engine);

/// The dialect an exposition speaks, matched on its names; nullptr when none (a gateway, another
/// engine): such a server is "not scraped", never "disagrees".
const Dialect* dialect_of(const Snapshot& s);

/// Summarizes the metrics between the first and last snapshot, in `forced`'s dialect when given
/// (--engine), else the one the last speaks; nullopt with < 2 snapshots or no known dialect.
std::optional<ServerSummary> summarize(const std::vector<Snapshot>& snaps, const std::string& url,
                                       const Dialect* forced = nullptr);

/// Client output tokens vs server generation tokens; client per-token TPOT vs server ITL per step
/// divided by the mean acceptance length (1 without speculative decoding); client TTFT vs server
/// TTFT (`ttft_from_request_start`: the client's TTFT was measured from the request's start on the
/// wire, connection set-up excluded, like the server's from arrival). Only what the server exposes
/// is compared.
/// `client_failed`: measured requests that failed; their tokens reached the server's counters
/// but not the client's sum, so the token check is shown but not judged.
std::vector<CrossCheck> cross_check(const ServerSummary& s, double client_output_tokens,
                                    std::optional<double> client_tpot_ms,
                                    std::optional<double> client_ttft_ms, int64_t client_failed = 0,
                                    bool ttft_from_request_start = false);

/// The server's requests in flight (running + waiting) at its busiest scrape against the client's
/// most in flight: more on the server, beyond a hand-over allowance of 1 + a quarter of the
/// client's peak (a finished request not yet retired beside the one sent in its place), means
/// traffic that was not the run's. One-sided (a scrape may miss the peak); nullopt without a
/// running/waiting series.
std::optional<CrossCheck> in_flight_check(const ServerSummary& s, int64_t client_peak);

/// For an engine whose prompt-token counter leaves out prefix-cache hits (llama.cpp's): the
/// prompt tokens it evaluated against those the client's usage reported — the difference is
/// what its cache served, compared with usage's cached tokens when the answers told them
/// (`client_cached` < 0: they did not). nullopt for other engines, or without counts.
std::optional<CrossCheck> prompt_check(const ServerSummary& s, double client_prompt_tokens,
                                       double client_cached);

}  // namespace tokbench::probe
