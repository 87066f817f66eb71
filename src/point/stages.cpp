#include "point/stages.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>

#include "client/engine.hpp"
#include "cluster/cluster.hpp"
#include "common/abbreviate.hpp"
#include "common/clock.hpp"
#include "common/json_writer.hpp"
#include "common/redact.hpp"
#include "history/commands.hpp"
#include "metrics/slo.hpp"
#include "point/outputs.hpp"
#include "point/target.hpp"
#include "runfolder/files.hpp"
#include "tokbench/version.hpp"

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

// What the target stage learned: the model, the dataset, the exact first body and its audit.
void learned(runfolder::RunManifest& m, const RunPlan& plan, const Target& t,
             const fs::path& run_dir, spdlog::logger& log, std::FILE* console) {
  runfolder::RunInfo& info = m.info;
  info.target_url = redact_url(t.url);  // what is saved and shown; the engine keeps the real one
  info.embedded_simulator = t.sim != nullptr;
  info.model = t.model;
  info.model_abbr = plan.cfg.output.model_abbr;
  info.dataset_abbr = t.data.abbr;
  // Audited whole; shown and saved capped (a 50 MB prompt is not echoed to stdout and four files).
  const std::string body = t.first_body();
  constexpr size_t kBodyShown = 16 * 1024;
  info.body_example = body.size() <= kBodyShown
                          ? body
                          : fmt::format("{}… (first {} of {} bytes)", body.substr(0, kBodyShown),
                                        kBodyShown, body.size());
  info.config_json = plan.cfg.to_json();
  info.synthetic = t.synthetic;
  info.trace = t.trace;
  info.origin_steady_ns = -1;
  if (!t.data.schedule_ns.empty()) {  // a trace paces itself: an open loop at its mean rate
    const double span_s = static_cast<double>(t.data.schedule_ns.back()) / 1e9;
    m.request_rate = span_s > 0 ? static_cast<double>(t.data.schedule_ns.size() - 1) / span_s
                                : std::numeric_limits<double>::infinity();
    m.load.arrivals = "trace";
    m.facts.open_loop = true;
    m.facts.implied_cache_hit = t.data.implied_cache_hit;
  }
  m.planned_requests =
      planned_requests(plan.cfg.load, plan.cfg.workload, plan.requested.load.num_prompts);
  m.target_ready = true;
  info.transport = transport_text(t, plan);
  for (const auto& f : client::audit_body(body, t.body.adapter()))
    info.audit.emplace_back(f.level, f.text);
  JsonWriter w;
  w.begin_object()
      .field_raw("requested", m.requested_json)
      .field_raw("effective", info.config_json);
  w.field("target_url", info.target_url).field("embedded_simulator", info.embedded_simulator);
  w.field("dataset_abbr", t.data.abbr).field("started_at", info.started_at).end_object();
  runfolder::write_file(run_dir / "configs" / "run_config.json", w.take());

  log.info("tokbench {} ({}{})", kVersion, kGitHash, kGitDirty ? ", dirty" : "");
  log.info("requested config: {}", m.requested_json);
  log.info("effective config: {}", info.config_json);
  log.info("target {}{}; model {}; dataset {} ({} items)", info.target_url,
           t.sim ? " (built-in simulator)" : "", t.model, plan.cfg.workload.dataset.text(),
           t.data.items.size());
  log.info("request body of the first request: {}", info.body_example);
  log.info("transport: {}", info.transport);
  // How many requests: a count, a duration, or sessions whose turns are not known ahead.
  const std::string requests =
      m.planned_requests >= 0 ? fmt::format("requests {}", m.planned_requests)
      : plan.cfg.load.duration_s > 0
          ? fmt::format("requests until the {} s duration ends", plan.cfg.load.duration_s)
          : fmt::format("sessions {} ({})", plan.cfg.load.num_prompts,
                        plan.cfg.workload.multi_turn
                            ? "each conversation's turns"
                            : fmt::format("{} turns each", plan.cfg.workload.turns));
  fmt::print(console, "target {}  model {}  dataset {}  {}  {}\n", info.target_url, t.model,
             t.data.abbr, requests, plan.load.text(plan.cfg.warms_connections()));
  if (!plan.requested.target.url.empty() &&
      plan.requested.target.url != plan.cfg.target.url)  // a base URL, completed: said, not silent
    fmt::print(console,
               "note: --url {} names the server, not an API: requests go to {} (the {} API; "
               "--endpoint picks "
               "another)\n",
               redact_url(plan.requested.target.url), info.target_url, plan.cfg.target.endpoint);
  // Long prompts shortened from the whole body (the capped example would cut the JSON short), at
  // most three lines of 120 columns; the whole body is configs/request_body.json.
  runfolder::write_file(run_dir / "configs" / "request_body.json", body);
  fmt::print(console, "request body: {}\n",
             wrap_lines(abbreviate_json_strings(body, 60), 14, 120, 3));
  std::string audit = fmt::format(
      "request body sent (template: the first request; --compat {}; whole in "
      "request_body.json):\n{}\n\n",
      metrics::definitions_name(plan.cfg.request.compat), info.body_example);
  for (const auto& [level, text] : info.audit) {
    if (plan.cfg.output.verbose)
      fmt::print(console, "  {}: {}\n", level, text);  // by default the warnings join the verdict
    audit += fmt::format("{}: {}\n", level, text);
    log.info("audit {}: {}", level, text);
  }
  runfolder::write_file(run_dir / "configs" / "request_audit.txt", audit);
  std::fflush(console);
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

runfolder::RunManifest asked(const RunPlan& plan, std::time_t wall) {
  runfolder::RunManifest m;
  const RunConfig& c = plan.cfg;
  m.requested_json = plan.requested.to_json();
  m.info.config_json = c.to_json();
  m.info.started_at = now_iso(wall);
  m.info.dataset = c.workload.dataset.text();
  m.info.tokenizer = c.workload.tokenizer;
  const LoadShape& load = plan.load;
  m.facts.max_concurrency = load.max_in_flight();
  m.facts.stream = c.request.stream;
  m.facts.one_shot = !api_of(c.target.endpoint).caps().generates;
  m.facts.per_token_counts = api_of(c.target.endpoint).caps().per_token_counts;
  m.facts.continuous_usage = c.request.continuous_usage;
  m.facts.finish_reasons = api_of(c.target.endpoint).caps().finish_reasons;
  m.facts.cap_reason = api_of(c.target.endpoint).caps().cap_reason;
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
  learned(manifest, whole ? *whole : plan, target, dir, log,
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

// --history (or $TOKBENCH_HISTORY): the finished folder goes into the results store. A store that
// cannot take it (locked, damaged, newer) is said, with the command that adds the folder later;
// the folder and the run's exit code stay as they are.
void record_in_history(const RunPlan& plan, const fs::path& dir, spdlog::logger& log) {
  std::string store = plan.cfg.output.history;
  if (const char* env = std::getenv("TOKBENCH_HISTORY"); store.empty() && env) store = env;
  if (store.empty() || !fs::exists(dir / "result.json")) return;
  try {
    history::record_run(store, dir);
    log.info("recorded in the results store {}", store);
  } catch (const std::exception& e) {
    const std::string msg = fmt::format(
        "history: the run was not recorded: {}; the run folder is intact: add it later with "
        "`tokbench history add {} --history {}`",
        e.what(), dir.string(), store);
    log.error("{}", msg);
    fmt::print(stderr, "tokbench: {}\n", msg);
  }
}

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
  record_in_history(plan, dir, log);
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
  return !(ok && ok->value > 0) ? kExitFailed : v.valid ? kExitValid : kExitInvalid;
}

Target open_logged(RunPlan& plan, const fs::path& dir, spdlog::logger& log, std::FILE* console) {
  try {
    return open_target(plan, dir, log, console);
  } catch (const std::exception& e) {
    log.error("the target could not be opened: {}",
              e.what());  // the folder says where the run stopped
    throw;
  }
}

}  // namespace tokbench::runner
