#pragma once
// measure/observers: what watches a load point from beside it, started before its warm-up and
// finished after its measured phase — --otlp-receive's receiver for the server's spans
// (probe/server_spans; rank 0 only: the server has one exporter), --otlp-endpoint's export of
// tokbench's own spans and metrics (probe/otlp_export), and --live's page and /metrics
// (probe/live_server); the last two read one metrics/live_tally, fed by the recorder's thread.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace spdlog {
class logger;
}
namespace tokbench::probe {
class SpanSink;
class OtlpExport;
class LiveServer;
}  // namespace tokbench::probe
namespace tokbench::metrics {
class LiveTally;
}

namespace tokbench::runner {

struct Target;
struct ObserveSettings;
struct RankShare;
class Recorder;

class PointObservers {
 public:
  /// Starts what `observe` asks for; `point` names the load point (its folder); `sent` counts
  /// the measured requests sent so far. Throws (naming the flag) when a listener cannot listen or
  /// an endpoint is not a URL.
  PointObservers(const Target& target, const ObserveSettings& observe, const std::string& run_id,
                 const std::string& point, const RankShare& share, int64_t origin_ns,
                 std::function<int64_t()> sent, Recorder& recorder, spdlog::logger& log,
                 std::FILE* console);
  ~PointObservers();
  /// After the measured phase, once the recorder drained: the export's last spans and final
  /// metrics, the live view's final state (a scraper's last scrape awaited), then the server's
  /// spans still due into `perf_dir`'s server_spans.jsonl (nothing awaited when `stopped`: Ctrl-C).
  void finish(int64_t records, bool stopped, const std::filesystem::path& perf_dir);

 private:
  const ObserveSettings& observe_;
  int64_t origin_ns_;
  spdlog::logger& log_;
  std::FILE* console_;
  std::unique_ptr<probe::SpanSink> spans_;
  // Shared with the recorder's thread, which may outlive a drain that gave up.
  std::shared_ptr<metrics::LiveTally> tally_;
  std::shared_ptr<probe::OtlpExport> otlp_;
  std::unique_ptr<probe::LiveServer> live_;
};

}  // namespace tokbench::runner
