#pragma once
// probe/server_metrics: the server's own view of a run. A scraper reads /metrics before, during
// (every interval) and after the measured phase; the summary turns the first and last scrape into
// server-side latencies (histogram deltas), token rates, speculative-decoding acceptance, and the
// running/waiting series; metrics/cross_check compares it with what the client measured.
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

#include "core/metrics_dialect.hpp"
#include "net/http_get.hpp"
#include "probe/prometheus.hpp"
#include "record/server_view.hpp"

namespace tokbench::probe {

using core::all_dialects;
using core::Dialect;
using core::dialect_named;
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

/// The dialect an exposition speaks, matched on its names; nullptr when none (a gateway, another
/// engine): such a server is "not scraped", never "disagrees".
const Dialect* dialect_of(const Snapshot& s);

/// Summarizes the metrics between the first and last snapshot, in `forced`'s dialect when given
/// (--engine), else the one the last speaks; nullopt with < 2 snapshots or no known dialect.
std::optional<ServerSummary> summarize(const std::vector<Snapshot>& snaps, const std::string& url,
                                       const Dialect* forced = nullptr);

}  // namespace tokbench::probe
