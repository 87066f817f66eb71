#include "measure/observers.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>

#include "common/abbreviate.hpp"
#include "common/clock.hpp"
#include "common/redact.hpp"
#include "measure/execute.hpp"
#include "measure/recorder.hpp"
#include "measure/target.hpp"
#include "metrics/live_tally.hpp"
#include "probe/live_server.hpp"
#include "probe/otlp_export.hpp"
#include "probe/server_spans.hpp"
#include "runfolder/run_folder.hpp"

namespace tokbench::runner {

namespace {

// The run's time 0 (steady clock `origin_ns`) on this host's wall clock: where spans cross hosts.
int64_t origin_unix_ns(int64_t origin_ns) {
  const int64_t unix_now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  return origin_ns + (unix_now - steady_now_ns());
}

}  // namespace

PointObservers::PointObservers(const Target& target, const ObserveSettings& observe,
                               const std::string& run_id, const std::string& point,
                               const RankShare& share, int64_t origin_ns,
                               std::function<int64_t()> sent, Recorder& recorder,
                               spdlog::logger& log, std::FILE* console)
    : observe_(observe), origin_ns_(origin_ns), log_(log), console_(console) {
  // --otlp-receive: the server's spans come in from before the warm-up (rank 0's receiver takes
  // every rank's: the server has one exporter).
  if (!observe.otlp_receive.empty() && share.rank == 0) {
    spans_ = std::make_unique<probe::SpanSink>(observe.otlp_receive);
    fmt::print(console, "  server spans: OTLP receiver on {} (POST /v1/traces, http/protobuf)\n",
               spans_->where());
    log.info("OTLP receiver on {}", spans_->where());
  }
  if (observe.otlp_endpoint.empty() && observe.live.empty()) return;
  tally_ = std::make_shared<metrics::LiveTally>();
  // --otlp-endpoint: this point's spans and metrics go to the collector as records are written.
  if (!observe.otlp_endpoint.empty()) {
    probe::OtlpFacts facts{observe.otlp_endpoint,
                           target.body.api ? std::string(target.body.api->name()) : "chat",
                           target.model,
                           run_id,
                           share.size > 1 ? share.rank : -1,
                           origin_unix_ns(origin_ns)};
    otlp_ = std::make_shared<probe::OtlpExport>(std::move(facts), tally_, sent);
    fmt::print(console, "  OTLP export: a span per request and the run's metrics to {}\n",
               redact_url(otlp_->traces_url()));
    log.info("OTLP export to {}", redact_url(otlp_->traces_url()));
  }
  // --live: the point as it runs, for a browser and a scraper.
  if (!observe.live.empty()) {
    live_ = std::make_unique<probe::LiveServer>(observe.live, tally_, sent,
                                                probe::PointLabels{run_id, point, target.model});
    fmt::print(console, "  live: {} (the page; {}metrics for Prometheus)\n", live_->url(),
               live_->url());
    log.info("live view on {}", live_->url());
  }
  recorder.on_written([tally = tally_, otlp = otlp_](const record::RequestRecord& r) {
    tally->add(r);
    if (otlp) otlp->add(r);
  });
}

PointObservers::~PointObservers() = default;

void PointObservers::finish(int64_t records, bool stopped, const std::filesystem::path& perf_dir) {
  if (otlp_) {  // the last spans and the final metrics; a collector that took nothing is said
    const probe::OtlpExportStats s = otlp_->finish();
    log_.info(
        "OTLP export: {} span(s) taken, {} failed, {} dropped; {} metric export(s), {} failed{}",
        s.spans, s.spans_failed, s.spans_dropped, s.metric_exports, s.metric_failures,
        s.last_error.empty() ? "" : ": " + s.last_error);
    if (s.spans_failed + s.spans_dropped + s.metric_failures > 0)
      fmt::print(console_,
                 "warning: --otlp-endpoint {}: {} span(s) and {} metric export(s) not taken\n"
                 "  {}; the run's own results are whole\n",
                 redact_url(otlp_->traces_url()), s.spans_failed + s.spans_dropped,
                 s.metric_failures,
                 headline(s.last_error.empty() ? "no reason given" : s.last_error, 80));
  }
  if (live_) {  // the final state; a scraper that came gets its last scrape of it
    const int64_t scrapes = live_->finish(stopped);
    log_.info("live view: {} /metrics scrape(s) served", scrapes);
  }
  if (!spans_) return;
  // The server's spans still due (bounded by --otlp-wait-s; none awaited after a Ctrl-C) into
  // server_spans.jsonl, with the client's clock on the wall so the join can place a send on the
  // server's clock.
  const double wait_s = stopped ? 0.0 : observe_.otlp_wait_s;
  const record::ServerSpansHeader h =
      spans_->finish(records, wait_s, origin_unix_ns(origin_ns_), observe_.client_share_budget,
                     perf_dir / runfolder::kServerSpansFile);
  log_.info("server spans: {} from {} export(s); {} refused{}", h.spans, h.exports, h.refused,
            h.last_error.empty() ? "" : ": " + h.last_error);
  if (h.spans == 0)
    fmt::print(console_,
               "warning: --otlp-receive {}: no span came in {} s{} (start the server with "
               "--otlp-traces-endpoint http://<this host>:<port>/v1/traces and "
               "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf)\n",
               h.listen, wait_s, h.last_error.empty() ? "" : ": " + h.last_error);
}

}  // namespace tokbench::runner
