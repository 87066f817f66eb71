#pragma once
// probe/telemetry_scraper: the accelerator and host exporters (--telemetry) scraped on the run's
// clock, beside the server's /metrics: every source at origin + k·interval, plus once on demand
// at the measured phase's edges, so energy never has to be guessed across an edge. Each scrape is
// one line of telemetry.jsonl in the run folder, written as it comes (a kill keeps what was
// scraped) and nothing is kept in memory: the report reads the file (report/telemetry_file).
// An exporter that is down, slow or gone is a line saying so, never a failed run. No exporter can
// hold a run: a read is at most a 2 s fetch of at most --max-body-bytes, parsed in time linear in
// its size (devices indexed, kMaxDevicesRead read), so stop() waits at most for the read in flight
// and the closing one (telemetry_run_test: 200,000 devices, and SIGTERM mid-run).
//
// The file: a "start" line (interval, sources), a "source" line at each source's first answer
// (the dialects recognised, the metric families not recognised), then "scrape" lines (t_ns, the
// devices' readings) or "error" lines (t_ns, why), and "idle" (--telemetry-idle-s's window).
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "net/http_get.hpp"
#include "probe/telemetry.hpp"

namespace tokbench::record {
class LineAppender;
}

namespace tokbench::probe {

/// Devices read from one scrape, and metric families listed as not recognised, at most.
inline constexpr size_t kMaxDevicesPerScrape = 256;
inline constexpr size_t kMaxNotRecognised = 100;

/// One telemetry source: a Prometheus URL, or a local reader (NVML).
class TelemetryReader {
 public:
  virtual ~TelemetryReader() = default;
  virtual std::string name() const = 0;  ///< the URL (secrets removed) or "nvml"
  /// One reading; throws std::runtime_error naming why there is none.
  virtual TelemetryScrape read() = 0;
};

/// A Prometheus exporter at `url`.
std::unique_ptr<TelemetryReader> prometheus_reader(std::string url, size_t max_bytes,
                                                   net::TlsSettings tls);

/// The readers of --telemetry's values (URLs; "nvml" for local NVIDIA GPUs).
std::vector<std::unique_ptr<TelemetryReader>> telemetry_readers(
    const std::vector<std::string>& sources, size_t max_bytes, const net::TlsSettings& tls);

/// Each source has its own thread on the run's clock, so a slow exporter (up to its 2 s timeout)
/// never delays another's samples.
class TelemetryScraper {
 public:
  /// Opens `file` (truncating it) and writes the start line. Throws when it cannot be written.
  TelemetryScraper(std::vector<std::unique_ptr<TelemetryReader>> readers, int64_t interval_ms,
                   int64_t origin_ns, const std::filesystem::path& file);
  ~TelemetryScraper();
  /// Every source now, recorded; returns the errors of this round ("source: why"), for a first
  /// warning.
  std::vector<std::string> scrape_now();
  void start();  ///< scrapes on the run's clock, a thread per source
  void stop();   ///< joins, then one last scrape
  /// Records the window --telemetry-idle-s watched (no load), on the run's clock.
  void mark_idle(int64_t start_ns, int64_t end_ns);

 private:
  struct Source {
    std::unique_ptr<TelemetryReader> reader;
    std::mutex mu;            // one read at a time (its thread's and scrape_now's)
    bool introduced = false;  // its "source" line was written
  };
  /// One read of source i, recorded; "" or why it failed.
  std::string scrape(size_t i);
  void write(const std::string& line);
  std::vector<std::unique_ptr<Source>> sources_;
  int64_t interval_ms_, origin_ns_;
  std::unique_ptr<record::LineAppender> out_;
  std::atomic<bool> write_failed_{false};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace tokbench::probe
