#pragma once
// measure/observers: a load point's OpenTelemetry side, started before its warm-up and finished
// after its measured phase — --otlp-receive's receiver for the server's spans (probe/server_spans;
// rank 0 only: the server has one exporter), and --otlp-endpoint's export of tokbench's own spans
// and metrics (probe/otlp_export), fed by the recorder's thread.
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
}  // namespace tokbench::probe

namespace tokbench::runner {

struct Target;
struct ObserveSettings;
struct RankShare;
class Recorder;

class PointObservers {
 public:
  /// Starts what `observe` asks for; `sent` counts the measured requests sent so far. Throws
  /// (naming the flag) when a receiver cannot listen or an endpoint is not a URL.
  PointObservers(const Target& target, const ObserveSettings& observe, const std::string& run_id,
                 const RankShare& share, int64_t origin_ns, std::function<int64_t()> sent,
                 Recorder& recorder, spdlog::logger& log, std::FILE* console);
  ~PointObservers();
  /// After the measured phase, once the recorder drained: the export's last spans and final
  /// metrics, then the server's spans still due (none awaited when `stopped`: Ctrl-C) into
  /// `perf_dir`'s server_spans.jsonl.
  void finish(int64_t records, bool stopped, const std::filesystem::path& perf_dir);

 private:
  const ObserveSettings& observe_;
  int64_t origin_ns_;
  spdlog::logger& log_;
  std::FILE* console_;
  std::unique_ptr<probe::SpanSink> spans_;
  /// Shared with the recorder's thread, which may outlive a drain that gave up.
  std::shared_ptr<probe::OtlpExport> otlp_;
};

}  // namespace tokbench::runner
