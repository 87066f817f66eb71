#include "point/stages.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <ctime>

#include "cluster/cluster.hpp"
#include "common/clock.hpp"
#include "measure/measure.hpp"
#include "metrics/slo.hpp"
#include "point/outputs.hpp"
#include "runfolder/files.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

std::string now_iso(std::time_t t) {
  char buf[40];
  std::tm tm{};
  localtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &tm);
  return buf;
}

}  // namespace

std::shared_ptr<spdlog::logger> make_logger(const fs::path& run_dir, bool append) {
  auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(
      (run_dir / "logs" / "run.log").string(), !append);
  auto log = std::make_shared<spdlog::logger>("run", sink);
  log->set_pattern("%Y-%m-%d %H:%M:%S.%e %l %v");
  log->flush_on(spdlog::level::info);
  return log;
}

// What was asked, before anything is contacted: a folder killed from here on still says what it
// was.
fs::path scratch_dir(const std::string& what) {
  const fs::path dir = fs::temp_directory_path() /
                       fmt::format("tokbench-rank{}-{}-{}", cluster::world().rank, getpid(), what);
  fs::remove_all(dir);
  for (const char* sub : {"configs", "logs", "performances"}) fs::create_directories(dir / sub);
  return dir;
}

// --class: each class's facts, and the run's load as the classes' together (their in-flight caps
// and requests summed; a rate only when every class is paced).
void add_classes(runfolder::RunManifest& m, const RunPlan& plan) {
  m.facts.max_concurrency = 0;
  m.planned_requests = planned_requests(plan);
  m.request_rate = 0;
  m.facts.open_loop = false;
  bool all_paced = true;
  std::string arrivals;
  for (size_t i = 0; i < plan.parsed.classes.size(); ++i) {
    const RunPlan cp = class_plan(plan, i);
    const TrafficClass& k = *cp.traffic_class;
    runfolder::ClassFacts& f = m.classes.emplace_back();
    f.name = k.name;
    f.weight = k.weight;
    for (const auto& slo : k.slos) f.slo += (f.slo.empty() ? "" : ",") + slo.text();
    f.load = k.request_rate
                 ? fmt::format("request-rate {} ({})", *k.request_rate, cp.load.arrivals())
                 : fmt::format("concurrency {}", cp.load.max_in_flight());
    if (k.turns) f.load += fmt::format(", sessions of {} turns", *k.turns);
    if (k.request_rate && k.concurrency)
      f.load += fmt::format(" (at most {} in flight)", *k.concurrency);
    if (k.priority) f.load += fmt::format(", priority {}", *k.priority);
    if (!k.model.empty()) f.load += ", model " + k.model;
    if (!k.dataset.empty()) f.load += ", dataset " + k.dataset;
    m.facts.max_concurrency = static_cast<int>(
        std::min<int64_t>(int64_t{m.facts.max_concurrency} + cp.load.max_in_flight(), INT32_MAX));
    m.facts.open_loop = m.facts.open_loop || cp.load.open_loop();
    all_paced = all_paced && cp.load.open_loop();
    if (i == 0) arrivals = cp.load.arrivals();
    if (cp.load.open_loop() && cp.load.arrivals() != arrivals) arrivals = "mixed";
    m.request_rate += cp.load.paced_rate();
  }
  if (!all_paced) m.request_rate = 0;
  // Closed and open classes together hold no one level (no stable stage) and keep no one pace.
  m.load.arrivals = all_paced || !m.facts.open_loop ? arrivals : "mixed";
}

runfolder::RunManifest asked(const RunPlan& plan, std::time_t wall) {
  runfolder::RunManifest m;
  const RunConfig& c = plan.cfg;
  m.requested_json = plan.requested.to_json();
  m.info.config_json = c.to_json();
  m.info.started_at = now_iso(wall);
  m.info.dataset = c.workload.dataset.text();
  m.info.tokenizer = c.workload.tokenizer;
  m.info.engine_named = c.target.engine;
  m.info.api = c.target.endpoint;
  const LoadShape& load = plan.load;
  m.facts.max_concurrency = load.max_in_flight();
  m.facts.stream = c.request.stream;
  const core::ApiCaps caps = caps_of(c.target.endpoint);
  m.facts.one_shot = !caps.generates;
  m.facts.per_token_counts = caps.per_token_counts;
  m.facts.continuous_usage = c.request.continuous_usage;
  m.facts.finish_reasons = caps.finish_reasons;
  m.facts.cap_reason = caps.cap_reason;
  m.facts.goodput = plan.parsed.goodput;
  m.definitions = metrics::definitions_name(c.request.compat);
  m.request_rate = load.paced_rate();  // pressure: the rate adds clients, it does not pace requests
  m.facts.open_loop = load.open_loop();
  m.load.arrivals = load.arrivals();
  m.load.burstiness = c.load.burstiness;
  m.load.duration_s = load.duration_s;
  m.load.grace_s = load.grace_s;
  m.load.ramp_up_s = load.ramp.seconds;
  m.load.ramp_up_strategy = kRampCurves.name(c.load.ramp_up_strategy);
  m.load.ramp_up_measured = c.load.ramp_up_measured;
  m.load.slice_s = c.observe.slice_s;
  m.load.warm_connections = c.warms_connections();
  m.load.in_flight_capped = load.in_flight_capped();
  if (plan.parsed.cancel_after) {
    m.load.cancel_rate = c.load.cancel_rate;
    m.load.cancel_after = core::cancel_after_text(*plan.parsed.cancel_after);
  }
  if (!c.observe.telemetry.empty()) {
    m.telemetry.interval_ms = c.observe.telemetry_interval_ms;
    m.telemetry.idle_s = c.observe.telemetry_idle_s;
    m.telemetry.price_per_kwh = c.observe.price_per_kwh;
  }
  // A device-hour price needs only the device count: --server-devices where no exporter reads it.
  m.telemetry.price_per_device_hour = c.observe.price_per_device_hour;
  m.telemetry.devices = c.target.server_devices;
  m.planned_requests = planned_requests(c.load, c.workload, plan.requested.load.num_prompts);
  m.warmup_requests = c.load.warmup;
  m.insecure_tls = c.target.insecure;
  m.ranks = cluster::world().size;
  if (!plan.parsed.classes.empty()) add_classes(m, plan);
  return m;
}

runfolder::RunEnd ended(const PointResult& p,
                        const std::optional<record::ServerProcessFacts>& server_process) {
  runfolder::RunEnd e;
  e.interrupted = p.interrupted;
  e.stop_reason = !p.write_error.empty() ? std::string(kDiskStopReason) + p.write_error
                  : !p.saturated.empty() ? std::string(kSaturatedStopReason) + p.saturated
                                         : "";
  e.records_written = p.records_written;
  e.client = p.client;
  e.server_process = server_process;
  e.profile = p.profile;
  e.adaptive = p.adaptive;
  e.server = p.server;
  return e;
}

static void print_paths(const Written& w, std::FILE* console, bool verbose) {
  const std::string& ds = w.info.dataset_abbr;
  fmt::print(
      console,
      "results: {}\n  report:  {}\n  tables:  {}\n  details: {}\n  summary: {}\n  log:     {}\n",
      w.out_dir.string(), (w.perf_dir / (ds + "_plot.html")).string(),
      (w.perf_dir / (ds + ".csv")).string(), (w.perf_dir / (ds + "_details.jsonl")).string(),
      (w.out_dir / "result.json").string(), (w.out_dir / "logs" / "run.log").string());
  if (!verbose)
    fmt::print(console, "  every table on the console: tokbench report {} --verbose\n",
               w.out_dir.string());
  std::fflush(console);
}

// One load point in `dir` (already holding its manifest): the measured phase. On a failure the
// folder gets its end marker saying why; otherwise the caller writes it (after stopping a server).
PointResult measure(const RunPlan& plan, const Target& target, runfolder::RunManifest& manifest,
                    const fs::path& dir, spdlog::logger& log, std::atomic<int>& stop,
                    std::FILE* console, int64_t origin, const RankShare& share,
                    const RunPlan* whole) {
  fs::create_directories(dir / "performances" / plan.cfg.output.model_abbr);
  if (origin == kNoOrigin) origin = steady_now_ns();
  describe_target(manifest, whole ? *whole : plan, target, dir, log,
                  console);  // a rank's plan is a share of the whole
  manifest.info.origin_steady_ns = origin;
  runfolder::write_manifest(dir, manifest);
  try {
    return execute(target, plan, dir / "performances" / plan.cfg.output.model_abbr,
                   manifest.info.run_id, origin, stop, log, console, share);
  } catch (const std::exception& e) {
    // The folder says why it stopped (every warm-up request failed, ...), not "killed?".
    runfolder::RunEnd failed;
    failed.stop_reason = e.what();
    runfolder::write_end(dir, failed);
    log.error("the run stopped: {}", e.what());
    throw;
  }
}

namespace {
FolderKeeper& folder_keeper() {
  static FolderKeeper keeper;
  return keeper;
}
}  // namespace

void keep_folders_with(FolderKeeper keeper) { folder_keeper() = std::move(keeper); }

// The outputs of a finished point folder, printed; the exit code its verdict means. A run the
// disk stopped exits 5, whatever else could be written (the reports may not fit either).
RunOutcome conclude(const RunPlan& plan, const fs::path& dir, const PointResult& result,
                    spdlog::logger& log, std::FILE* console) {
  RunOutcome out;
  out.run_dir = dir;
  out.perf_dir = dir / "performances" / plan.cfg.output.model_abbr;
  out.interrupted = result.interrupted;
  const bool disk = !result.write_error.empty();
  try {
    const Written w = write_outputs(runfolder::load_run_folder(dir), plan.definitions, dir, true);
    out.metrics = w.metrics;
    out.class_metrics = w.class_metrics;
    out.verdict = w.verdict;
    out.j_per_output_token = w.j_per_output_token;
    out.usd_per_m_output_tokens = w.usd_per_m_output_tokens;
    log.info("verdict: {} {}", metrics::verdict_status(out.verdict),
             fmt::join(out.verdict.reasons, "; "));
    print_outputs(w, console, plan.cfg.output.verbose);
    print_paths(w, console, plan.cfg.output.verbose);
  } catch (const std::exception& e) {
    if (!disk) throw;
    out.verdict.valid = false;
    out.verdict.reasons.push_back(
        fmt::format("the reports could not be written either ({}): free space, then run "
                    "`tokbench report {}`",
                    e.what(), dir.string()));
    log.error("{}", out.verdict.reasons.back());
  }
  if (folder_keeper() && fs::exists(dir / "result.json"))
    folder_keeper()(plan.cfg.output.history, dir, log);
  if (disk) {
    fmt::print(
        console,
        "stopped: the disk refused a record ({}); the load stopped there and the run is INVALID; "
        "free space and rerun (results: {})\n",
        result.write_error, dir.string());
    std::fflush(console);
    out.exit_code = kExitDiskStopped;
    return out;
  }
  out.exit_code = out.interrupted ? kExitInterrupted : verdict_exit_code(out.metrics, out.verdict);
  return out;
}

int verdict_exit_code(const metrics::MetricSet& m, const metrics::Verdict& v) {
  const auto* ok = m.common_metric("success_requests");
  // 4: the reports are written, but the verdict says the numbers must not be quoted (CI can tell).
  return !(ok && ok->value > 0) ? kExitFailed
         : !v.valid             ? kExitInvalid
         : v.slo_missed.empty() ? kExitValid
                                : kExitThreshold;
}

}  // namespace tokbench::runner
