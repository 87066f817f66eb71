#include "runner/runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <cmath>
#include <limits>
#include <cstdlib>
#include <ctime>

#include "client/engine.hpp"
#include "common/clock.hpp"
#include "common/json_writer.hpp"
#include "common/redact.hpp"
#include "metrics/slo.hpp"
#include "cluster/cluster.hpp"
#include "runner/cluster_run.hpp"
#include "runner/execute.hpp"
#include "runner/outputs.hpp"
#include "runner/plan.hpp"
#include "runner/run_folder.hpp"
#include "runner/points.hpp"
#include "runner/repeats.hpp"
#include "runner/search.hpp"
#include "runner/sweep.hpp"
#include "runner/target.hpp"
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

std::shared_ptr<spdlog::logger> make_logger(const fs::path& run_dir) {
  auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>((run_dir / "logs" / "run.log").string(), true);
  auto log = std::make_shared<spdlog::logger>("run", sink);
  log->set_pattern("%Y-%m-%d %H:%M:%S.%e %l %v");
  log->flush_on(spdlog::level::info);
  return log;
}

// What was asked, before anything is contacted: a folder killed from here on still says what it was.
RunManifest asked(const RunPlan& plan, std::time_t wall) {
  RunManifest m;
  const RunConfig& c = plan.cfg;
  m.requested_json = plan.requested.to_json();
  m.info.config_json = c.to_json();
  m.info.started_at = now_iso(wall);
  m.info.dataset = c.dataset;
  m.info.tokenizer = c.tokenizer;
  m.facts.max_concurrency = c.adaptive_window_s > 0 ? c.adaptive_max : c.concurrency;
  m.facts.stream = c.stream;
  m.facts.embeddings = !api_of(c.endpoint).caps().generates;
  m.facts.native_generate = api_of(c.endpoint).caps().per_token_counts;
  if (!c.goodput.empty()) m.facts.goodput = metrics::parse_goodput(c.goodput);
  m.definitions = c.compat;
  m.request_rate = c.pressure ? 0 : c.request_rate;  // pressure: the rate adds clients, it does not pace requests
  m.facts.open_loop = m.request_rate > 0;
  m.load.arrivals = c.adaptive_window_s > 0  ? "adaptive"
                    : c.pressure               ? "pressure"
                    : std::isinf(c.request_rate) ? "all-at-once"
                    : c.request_rate > 0         ? c.arrivals
                                                 : "closed";
  m.load.burstiness = c.burstiness;
  m.load.duration_s = c.duration_s;
  m.load.grace_s = c.duration_s > 0 ? c.grace_s : 0;
  m.load.ramp_up_s = c.ramp_up_s;
  m.load.ramp_up_strategy = c.ramp_up_strategy;
  m.load.ramp_up_measured = c.ramp_up_measured;
  m.load.slice_s = c.slice_s;
  m.load.warm_connections = c.warms_connections();
  m.planned_requests = planned_requests(c, plan.requested.num_prompts);
  m.warmup_requests = c.warmup;
  m.insecure_tls = c.insecure;
  return m;
}

std::string load_text(const RunConfig& c) {
  std::string out = fmt::format("concurrency {}", c.concurrency);
  if (c.pressure) {
    out += fmt::format("  pressure: clients added {}", c.request_rate > 0 && !std::isinf(c.request_rate)
                                                            ? fmt::format("at {}/s", c.request_rate) : "at once");
  } else if (std::isinf(c.request_rate)) {
    out += "  rate inf (all due at once)";
  } else if (c.request_rate > 0) {
    out += fmt::format("  rate {} req/s ({}{})", c.request_rate, c.arrivals,
                       c.arrivals == "gamma" ? fmt::format(", burstiness {}", c.burstiness) : "");
  }
  if (c.ramp_up_s > 0) out += fmt::format("  ramp-up {} s{}", c.ramp_up_s, c.ramp_up_measured ? " (measured)" : "");
  if (c.duration_s > 0) out += fmt::format("  duration {} s (grace {} s)", c.duration_s, c.grace_s);
  if (c.warms_connections()) out += "  connections warmed";
  return out;
}

// What the target stage learned: the model, the dataset, the exact first body and its audit.
void learned(RunManifest& m, const RunPlan& plan, const Target& t, const fs::path& run_dir, spdlog::logger& log,
             std::FILE* console) {
  report::RunInfo& info = m.info;
  info.target_url = redact_url(t.url);  // what is saved and shown; the engine keeps the real one
  info.embedded_simulator = t.sim != nullptr;
  info.model = t.model;
  info.model_abbr = plan.cfg.model_abbr;
  info.dataset_abbr = t.data.abbr;
  // Audited whole; shown and saved capped (a 50 MB prompt is not echoed to stdout and four files).
  const std::string body = t.first_body();
  constexpr size_t kBodyShown = 16 * 1024;
  info.body_example = body.size() <= kBodyShown
                          ? body
                          : fmt::format("{}… (first {} of {} bytes)", body.substr(0, kBodyShown), kBodyShown, body.size());
  info.config_json = plan.cfg.to_json();
  info.synthetic_json = t.synthetic_json;
  info.trace_json = t.trace_json;
  info.origin_steady_ns = -1;
  if (!t.data.schedule_ns.empty()) {  // a trace paces itself: an open loop at its mean rate
    const double span_s = static_cast<double>(t.data.schedule_ns.back()) / 1e9;
    m.request_rate = span_s > 0 ? static_cast<double>(t.data.schedule_ns.size() - 1) / span_s
                                : std::numeric_limits<double>::infinity();
    m.load.arrivals = "trace";
    m.facts.open_loop = true;
    m.facts.implied_cache_hit = t.data.implied_cache_hit;
  }
  m.planned_requests = planned_requests(plan.cfg, plan.requested.num_prompts);
  m.target_ready = true;
  info.transport = transport_text(t, plan.cfg);
  for (const auto& f : client::audit_body(body, t.body.adapter())) info.audit.emplace_back(f.level, f.text);
  JsonWriter w;
  w.begin_object().field_raw("requested", m.requested_json).field_raw("effective", info.config_json);
  w.field("target_url", info.target_url).field("embedded_simulator", info.embedded_simulator);
  w.field("dataset_abbr", t.data.abbr).field("started_at", info.started_at).end_object();
  report::write_file(run_dir / "configs" / "run_config.json", w.take());

  log.info("tokbench {} ({}{})", kVersion, kGitHash, kGitDirty ? ", dirty" : "");
  log.info("requested config: {}", m.requested_json);
  log.info("effective config: {}", info.config_json);
  log.info("target {}{}; model {}; dataset {} ({} items)", info.target_url, t.sim ? " (built-in simulator)" : "", t.model,
           plan.cfg.dataset, t.data.items.size());
  log.info("request body of the first request: {}", info.body_example);
  log.info("transport: {}", info.transport);
  fmt::print(console, "target {}  model {}  dataset {}  requests {}  {}\n", info.target_url, t.model, t.data.abbr,
             m.planned_requests >= 0 ? std::to_string(m.planned_requests) : std::string("until the duration ends"),
             load_text(plan.cfg));
  fmt::print(console, "request body: {}\n", info.body_example);
  std::string audit = fmt::format("request body sent (template: the first request; --compat {}):\n{}\n\n", plan.cfg.compat,
                                  info.body_example);
  for (const auto& [level, text] : info.audit) {
    fmt::print(console, "  {}: {}\n", level, text);
    audit += fmt::format("{}: {}\n", level, text);
    log.info("audit {}: {}", level, text);
  }
  report::write_file(run_dir / "configs" / "request_audit.txt", audit);
  std::fflush(console);
}

RunEnd ended(const PointResult& p, const std::string& server_process_json) {
  RunEnd e;
  e.interrupted = p.interrupted;
  e.stop_reason = p.write_error.empty() ? "" : "the details file could not be written: " + p.write_error;
  e.records_written = p.records_written;
  e.measured_wall_s = p.measured_wall_s;
  e.client_cpu_s = p.client_cpu_s;
  e.client_process_cpu_s = p.client_process_cpu_s;
  e.client_cpu_share = p.client_cpu_share;
  e.client_busy_share = p.client_busy_share;
  e.client_peak_busy = p.client_peak_busy;
  e.client_peak_busy_at_s = p.client_peak_busy_at_s;
  e.client_events = p.client_events;
  e.server_process_json = server_process_json;
  e.profile_json = p.profile_json;
  e.adaptive_json = p.adaptive_json;
  e.server = p.server;
  return e;
}

void print_paths(const Written& w, std::FILE* console) {
  const std::string& ds = w.info.dataset_abbr;
  fmt::print(console, "results: {}\n  report:  {}\n  tables:  {}\n  details: {}\n  summary: {}\n  log:     {}\n",
             w.out_dir.string(), (w.perf_dir / (ds + "_plot.html")).string(), (w.perf_dir / (ds + ".csv")).string(),
             (w.perf_dir / (ds + "_details.jsonl")).string(), (w.out_dir / "result.json").string(),
             (w.out_dir / "logs" / "run.log").string());
  std::fflush(console);
}

constexpr int64_t kNoOrigin = INT64_MIN;

// One load point in `dir` (already holding its manifest): the measured phase. On a failure the
// folder gets its end marker saying why; otherwise the caller writes it (after stopping a server).
PointResult measure(const RunPlan& plan, const Target& target, RunManifest& manifest, const fs::path& dir,
                    spdlog::logger& log, std::atomic<int>& stop, std::FILE* console, int64_t origin = kNoOrigin,
                    const RankShare& share = {}, const RunPlan* whole = nullptr) {
  fs::create_directories(dir / "performances" / plan.cfg.model_abbr);
  if (origin == kNoOrigin) origin = steady_now_ns();
  learned(manifest, whole ? *whole : plan, target, dir, log, console);  // a rank's plan is a share of the whole
  manifest.info.origin_steady_ns = origin;
  write_manifest(dir, manifest);
  try {
    return execute(target, plan, dir / "performances" / plan.cfg.model_abbr, origin, stop, log, console, share);
  } catch (const std::exception& e) {
    // The folder says why it stopped (every warm-up request failed, ...), not "killed?".
    RunEnd failed;
    failed.stop_reason = e.what();
    write_end(dir, failed);
    log.error("the run stopped: {}", e.what());
    throw;
  }
}

// The outputs of a finished point folder, printed; the exit code its verdict means.
RunOutcome conclude(const RunPlan& plan, const fs::path& dir, bool interrupted, spdlog::logger& log, std::FILE* console) {
  RunOutcome out;
  out.run_dir = dir;
  out.perf_dir = dir / "performances" / plan.cfg.model_abbr;
  const Written w = write_outputs(load_run_folder(dir), plan.definitions, dir, true);
  out.metrics = w.metrics;
  out.verdict = w.verdict;
  out.interrupted = interrupted;
  log.info("verdict: {} {}", out.verdict.valid ? "VALID" : "INVALID", fmt::join(out.verdict.reasons, "; "));
  print_outputs(w, console);
  print_paths(w, console);
  const auto* ok = out.metrics.common_metric("success_requests");
  // 4: the reports are written, but the verdict says the numbers must not be quoted (CI can tell).
  out.exit_code = out.interrupted ? 130 : !(ok && ok->value > 0) ? 1 : out.verdict.valid ? 0 : 4;
  return out;
}

Target open_logged(RunPlan& plan, const fs::path& dir, spdlog::logger& log, std::FILE* console) {
  try {
    return open_target(plan, dir, log, console);
  } catch (const std::exception& e) {
    log.error("the target could not be opened: {}", e.what());  // the folder says where the run stopped
    throw;
  }
}

// A list in a load flag: one run folder per point under one root, the target opened once.
RunOutcome run_sweep(RunPlan& plan, std::atomic<int>& stop, std::FILE* console) {
  PointSession session(plan, stop, console, fmt::format("sweep of {} load points", plan.cfg.sweep_points()));
  SweepSummary summary(session.root(), plan.cfg);
  for (size_t i = 0; i < plan.cfg.sweep_points() && !session.stopped(); ++i) {
    RunPlan point = plan;
    point.cfg = plan.cfg.sweep_point(i);
    point.requested = plan.requested.sweep_point(i);
    fmt::print(console, "\n== sweep point {}/{}: {} ==\n", i + 1, plan.cfg.sweep_points(), plan.cfg.sweep_label(i));
    try {
      summary.add(plan.cfg.sweep_label(i), point.cfg, session.run(point, plan.cfg.sweep_label(i)));
    } catch (const std::exception& e) {
      summary.add_failed(plan.cfg.sweep_label(i), point.cfg, e.what());
      fmt::print(console, "sweep point {} stopped: {}\n", plan.cfg.sweep_label(i), e.what());
      break;  // the target is not usable: later points would fail the same way
    }
  }
  const std::string server_process = session.close();
  RunOutcome out = summary.finish(server_process, session.stopped(), console);
  out.run_dir = session.root();
  return out;
}

}  // namespace

PointSession::PointSession(RunPlan& plan, std::atomic<int>& stop, std::FILE* console, const std::string& what)
    : stop_(stop), console_(console), wall_(std::time(nullptr)) {
  root_ = report::make_run_dir(plan.cfg.output_dir, wall_);
  log_ = make_logger(root_);
  log_->info("{}: {}", what, plan.requested.to_json());
  target_ = std::make_unique<Target>(open_logged(plan, root_, *log_, console));
}

PointSession::~PointSession() = default;

bool PointSession::stopped() const { return stop_.load() != client::kRunning; }

RunOutcome PointSession::run(const RunPlan& point, const std::string& label) {
  std::string name = label;
  for (int k = 2; used_.count(name); ++k) name = fmt::format("{}-{}", label, k);  // a repeated value: its own folder
  used_.insert(name);
  const fs::path dir = root_ / name;
  for (const char* sub : {"configs", "logs", "performances"}) fs::create_directories(dir / sub);
  auto log = make_logger(dir);
  RunManifest manifest = asked(point, wall_);
  write_manifest(dir, manifest);
  const PointResult r = measure(point, *target_, manifest, dir, *log, stop_, console_);
  write_end(dir, ended(r, ""));
  log_->info("point {} done", name);
  RunOutcome out = conclude(point, dir, r.interrupted, *log, console_);
  out.label = name;
  return out;
}

std::string PointSession::close() {
  if (!target_) return "";
  const std::string server_process = target_->close(root_, *log_, console_);
  target_.reset();
  for (const char* sub : {"configs", "performances"}) {  // the points hold these; the root keeps logs/ and its summary
    std::error_code ec;
    if (fs::is_empty(root_ / sub, ec)) fs::remove(root_ / sub, ec);
  }
  return server_process;
}

// mpirun -np N (runner/cluster_run.hpp): every rank runs this with the same flags. Rank 0 writes
// the run folder; the others work in a scratch folder of their own, removed at the end, and say
// nothing. The collectives (clock sync, origin, phase start, records, exit code) are reached by
// every rank in the same order; a rank that throws ends them all (main: cluster::abort).
RunOutcome run_cluster(RunPlan& plan, std::atomic<int>& stop, std::FILE* console) {
  const cluster::World& world = cluster::world();
  if (const auto problems = cluster_problems(plan.cfg, world.size); !problems.empty())
    throw std::invalid_argument(fmt::format("{}", fmt::join(problems, "\n")));
  const bool root = world.rank == 0;
  const cluster::ClockSync clock = cluster::sync_clocks();
  const std::time_t wall = static_cast<std::time_t>(cluster::broadcast(static_cast<int64_t>(std::time(nullptr))));
  std::FILE* quiet = root ? nullptr : std::fopen("/dev/null", "w");
  std::FILE* out = root ? console : quiet;
  fs::path dir;
  if (root) {
    dir = report::make_run_dir(plan.cfg.output_dir, wall);
  } else {
    dir = fs::temp_directory_path() / fmt::format("tokbench-rank{}-{}", world.rank, getpid());
    fs::remove_all(dir);
    for (const char* sub : {"configs", "logs", "performances"}) fs::create_directories(dir / sub);
  }
  auto log = make_logger(dir);
  log->info("rank {} of {}; clock offset to rank 0 {} ns (± {} ns)", world.rank, world.size, clock.offset_ns, clock.residual_ns);
  RunManifest manifest = asked(plan, wall);
  manifest.ranks = world.size;
  write_manifest(dir, manifest);
  Target target = open_logged(plan, dir, *log, out);
  RunPlan mine = plan;  // this rank's share of the in-flight cap; the manifest keeps the whole
  mine.cfg.concurrency = rank_share(plan.cfg.concurrency, world.rank, world.size);
  if (mine.cfg.concurrency < 1) mine.cfg.concurrency = 1;
  if (!root) {
    mine.cfg.quiet = true;
    mine.cfg.server_metrics = "off";  // rank 0 watches the server
    mine.cfg.profile_window.clear();
  }
  const int64_t origin = cluster::broadcast(root ? steady_now_ns() + clock.offset_ns : 0) - clock.offset_ns;
  RankShare share{world.rank, world.size, [&clock] {
                    return cluster::common_moment(steady_now_ns(), clock, 20'000'000);  // 20 ms for the slowest rank
                  }};
  PointResult result = measure(mine, target, manifest, dir, *log, stop, out, origin, share, &plan);
  const std::string server_process = target.close(dir, *log, out);
  const auto healths = cluster::gather(rank_health_json(result, world.rank, clock));
  const std::string details = (dir / "performances" / plan.cfg.model_abbr / (target.data.abbr + "_details.jsonl")).string();
  const std::string failed = (dir / "performances" / plan.cfg.model_abbr / (target.data.abbr + "_failed.jsonl")).string();
  cluster::append_to_root(details);
  cluster::append_to_root(failed);
  RunOutcome outcome;
  if (root) {
    std::vector<RankHealth> ranks;
    int64_t records = 0;
    for (const auto& h : healths) {
      int64_t written = 0;
      bool interrupted = false;
      ranks.push_back(rank_health_from_json(h, &written, &interrupted));
      records += written;
      result.interrupted = result.interrupted || interrupted;
    }
    write_end(dir, combine_ends(ended(result, server_process), ranks, records));
    outcome = conclude(plan, dir, result.interrupted, *log, console);
  } else {
    std::fclose(quiet);
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  outcome.exit_code = static_cast<int>(cluster::broadcast(static_cast<int64_t>(outcome.exit_code)));
  return outcome;
}

RunOutcome run_benchmark(const RunConfig& requested, std::atomic<int>& stop, std::FILE* console) {
  RunPlan plan = make_plan(requested, std::getenv("OPENAI_API_KEY"));
  if (cluster::world().size > 1) return run_cluster(plan, stop, console);
  if (!plan.cfg.search.empty()) return run_search(plan, stop, console);
  if (plan.cfg.repeats > 1) return run_repeats(plan, stop, console);
  if (plan.cfg.sweep_points() > 1) return run_sweep(plan, stop, console);
  const std::time_t wall = std::time(nullptr);
  const fs::path dir = report::make_run_dir(plan.cfg.output_dir, wall);
  auto log = make_logger(dir);
  RunManifest manifest = asked(plan, wall);
  write_manifest(dir, manifest);
  Target target = open_logged(plan, dir, *log, console);
  const PointResult result = measure(plan, target, manifest, dir, *log, stop, console);
  const std::string server_process = target.close(dir, *log, console);
  if (result.interrupted) log->warn("interrupted: stopped sending; in-flight requests drained or cancelled");
  write_end(dir, ended(result, server_process));
  return conclude(plan, dir, result.interrupted, *log, console);
}

}  // namespace tokbench::runner
