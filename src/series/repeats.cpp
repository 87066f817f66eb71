#include "series/repeats.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "point/points.hpp"
#include "report/outputs.hpp"
#include "runfolder/files.hpp"
#include "series/summary_file.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

std::vector<std::pair<std::string, std::optional<double>>> headline_metrics(
    const metrics::MetricSet& m) {
  auto stat = [&](const char* row, bool p99) {
    return metrics::row_statistic(m, row, p99 ? "p99" : "mean");
  };
  auto common = [&](const char* key) -> std::optional<double> {
    const auto* c = m.common_metric(key);
    return c && c->known ? std::optional<double>(c->value) : std::nullopt;
  };
  std::vector<std::pair<std::string, std::optional<double>>> out{
      {"ttft_mean_ms", stat("TTFT", false)},
      {"ttft_p99_ms", stat("TTFT", true)},
      {"tpot_mean_ms", stat("TPOT", false)},
      {"tpot_p99_ms", stat("TPOT", true)},
      {"itl_mean_ms", stat("ITL", false)},
      {"e2el_mean_ms", stat("E2EL", false)},
      {"e2el_p99_ms", stat("E2EL", true)},
      {"request_throughput", common("request_throughput")},
      {"output_token_throughput", common("output_token_throughput")},
      {"total_token_throughput", common("total_token_throughput")}};
  if (m.common_metric("request_goodput"))
    out.emplace_back("request_goodput", common("request_goodput"));
  if (m.quality.answers.scored() > 0)
    out.emplace_back("accuracy", m.quality.answers.interval().p);  // --check-answers
  return out;
}

void RepeatsSummary::add(const RunOutcome& o) {
  labels_.push_back(o.label);
  if (o.resumed) resumed_.push_back(o.label);
  verdicts_.push_back(o.exit_code == kExitInterrupted ? "INTERRUPTED"
                                                      : metrics::verdict_status(o.verdict));
  if (o.exit_code != 0 && code_ == 0) code_ = o.exit_code;
  disk_stopped_ |= o.exit_code == kExitDiskStopped;
  for (const auto& [key, v] : headline_metrics(o.metrics)) {
    if (std::find(keys_.begin(), keys_.end(), key) == keys_.end()) keys_.push_back(key);
    if (v) values_[key].push_back(*v);
  }
}

RunOutcome RepeatsSummary::finish(const std::optional<record::ServerProcessFacts>& server_process,
                                  bool interrupted, std::FILE* console) {
  JsonWriter w;
  w.begin_object()
      .field("format", "tokbench-repeats/1")
      .field("runs", static_cast<int64_t>(labels_.size()));
  w.field("confidence", level_)
      .field("method", "mean over runs ± t(1 − (1 − level)/2, N − 1) × s/√N; s with ddof 1");
  w.key("folders").begin_array();
  for (const auto& l : labels_) w.value(l);
  w.end_array().key("resumed").begin_array();
  for (const auto& l : resumed_) w.value(l);
  w.end_array().key("verdicts").begin_array();
  for (const auto& v : verdicts_) w.value(v);
  w.end_array().key("metrics").begin_object();
  std::string csv = "metric,runs,mean,ci_low,ci_high,half_width,stdev,cv,confidence\n";
  fmt::print(console, "\n{} repeats, {:.0f}% confidence (Student's t):\n", labels_.size(),
             level_ * 100);
  for (const auto& key : keys_) {
    const auto& v = values_[key];
    const auto ci = metrics::confidence_interval(v, level_);
    w.key(key).begin_object().field("n", ci.n).field("mean", ci.mean);
    for (const auto& [k, x] :
         {std::pair{"ci_low", ci.low}, {"ci_high", ci.high}, {"half_width", ci.half_width}}) {
      w.key(k);
      if (std::isnan(x))
        w.null();
      else
        w.value(x);
    }
    w.field("stdev", ci.stdev)
        .field("std_error", ci.std_error)
        .field("cv", ci.cv)
        .key("values")
        .begin_array();
    for (double x : v) w.value(x);
    w.end_array().end_object();
    const bool has = !std::isnan(ci.half_width);
    csv += fmt::format("{},{},{},{},{},{},{},{},{}\n", key, ci.n, format_round4(ci.mean),
                       has ? format_round4(ci.low) : "", has ? format_round4(ci.high) : "",
                       has ? format_round4(ci.half_width) : "", format_round4(ci.stdev),
                       format_round4(ci.cv), level_);
    fmt::print(console, "  {:<26} {:>12} ± {:<10} (CV {:.1f}%, {} runs)\n", key,
               format_round4(ci.mean), has ? format_round4(ci.half_width) : std::string("n/a"),
               100 * ci.cv, ci.n);
  }
  w.end_object();
  const fs::path summary = write_summary(root_, "repeats", w, csv, server_process);
  fmt::print(console, "repeats: {}\n  summary: {}\n", root_.string(), summary.string());
  std::fflush(console);
  RunOutcome out;
  out.run_dir = root_;
  out.interrupted = interrupted;
  out.verdict.valid = code_ == 0;
  out.exit_code = series_exit_code(disk_stopped_, out.interrupted, code_);
  return out;
}

RunOutcome run_repeats(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                       const SeriesOptions& options) {
  const int n = plan.cfg.experiment.repeats;
  PointSession session(plan, stop, console, fmt::format("{} repeats of one load point", n),
                       options);
  RepeatsSummary summary(session.root(), plan.cfg.experiment.confidence);
  for (int i = 1; i <= n && !session.stopped(); ++i) {
    PointSpec run = spec_of(plan, fmt::format("run-{}", i));
    run.seed =
        plan.cfg.load.seed + static_cast<uint64_t>(i - 1);  // independent draws, reproducible
    fmt::print(session.point_console(), "\n== repeat {}/{} ==\n", i, n);
    try {
      summary.add(session.run(run));
    } catch (const std::exception& e) {
      fmt::print(console, "repeat {} stopped: {}\n", i, e.what());
      summary.stopped();
      break;
    }
  }
  const auto server_process = session.close();
  return session.finish([&] { return summary.finish(server_process, session.stopped(), console); });
}

}  // namespace tokbench::runner
