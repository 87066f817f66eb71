#include "runner/runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <ctime>

#include "client/engine.hpp"
#include "common/clock.hpp"
#include "common/json_writer.hpp"
#include "common/redact.hpp"
#include "runner/execute.hpp"
#include "runner/outputs.hpp"
#include "runner/plan.hpp"
#include "runner/run_folder.hpp"
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
  m.requested_json = plan.requested.to_json();
  m.info.config_json = plan.cfg.to_json();
  m.info.started_at = now_iso(wall);
  m.info.dataset = plan.cfg.dataset;
  m.info.tokenizer = plan.cfg.tokenizer;
  m.facts = {plan.cfg.concurrency, plan.cfg.stream};
  m.definitions = plan.cfg.compat;
  m.request_rate = plan.cfg.request_rate;
  m.planned_requests = plan.cfg.num_prompts;
  m.warmup_requests = plan.cfg.warmup;
  m.insecure_tls = plan.cfg.insecure;
  return m;
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
  info.origin_steady_ns = -1;
  m.planned_requests = plan.cfg.num_prompts;
  m.target_ready = true;
  for (const auto& f : client::audit_body(body, plan.cfg.endpoint == "chat")) info.audit.emplace_back(f.level, f.text);
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
  fmt::print(console, "target {}  model {}  dataset {}  requests {}  concurrency {}{}\n", info.target_url, t.model, t.data.abbr,
             plan.cfg.num_prompts, plan.cfg.concurrency,
             plan.cfg.request_rate > 0 ? fmt::format("  rate {} req/s (Poisson)", plan.cfg.request_rate) : "");
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
  e.client_events = p.client_events;
  e.server_process_json = server_process_json;
  e.profile_json = p.profile_json;
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

}  // namespace

RunOutcome run_benchmark(const RunConfig& requested, std::atomic<int>& stop, std::FILE* console) {
  RunPlan plan = make_plan(requested, std::getenv("OPENAI_API_KEY"));
  const std::time_t wall = std::time(nullptr);
  RunOutcome out;
  out.run_dir = report::make_run_dir(plan.cfg.output_dir, wall);
  auto log = make_logger(out.run_dir);
  RunManifest manifest = asked(plan, wall);
  write_manifest(out.run_dir, manifest);

  std::optional<Target> opened;
  try {
    opened.emplace(open_target(plan, out.run_dir, *log, console));
  } catch (const std::exception& e) {
    log->error("the target could not be opened: {}", e.what());  // the folder says where the run stopped
    throw;
  }
  Target& target = *opened;
  out.perf_dir = out.run_dir / "performances" / plan.cfg.model_abbr;
  fs::create_directories(out.perf_dir);
  const int64_t origin = steady_now_ns();
  learned(manifest, plan, target, out.run_dir, *log, console);
  manifest.info.origin_steady_ns = origin;
  write_manifest(out.run_dir, manifest);

  const LoadPoint point{plan.cfg.num_prompts, plan.cfg.warmup, plan.cfg.concurrency, plan.cfg.request_rate, plan.cfg.seed};
  PointResult result;
  try {
    result = execute(target, plan, point, out.perf_dir, origin, stop, *log, console);
  } catch (const std::exception& e) {
    // The folder says why it stopped (every warm-up request failed, ...), not "killed?".
    RunEnd failed;
    failed.stop_reason = e.what();
    write_end(out.run_dir, failed);
    log->error("the run stopped: {}", e.what());
    throw;
  }
  const std::string server_process = target.close(out.run_dir, *log, console);
  if (result.interrupted) log->warn("interrupted: stopped sending; in-flight requests drained or cancelled");
  write_end(out.run_dir, ended(result, server_process));

  const Written w = write_outputs(load_run_folder(out.run_dir), plan.definitions, out.run_dir, true);
  out.metrics = w.metrics;
  out.verdict = w.verdict;
  out.interrupted = result.interrupted;
  log->info("verdict: {} {}", out.verdict.valid ? "VALID" : "INVALID", fmt::join(out.verdict.reasons, "; "));
  print_outputs(w, console);
  print_paths(w, console);
  const auto* ok = out.metrics.common_metric("success_requests");
  // 4: the reports are written, but the verdict says the numbers must not be quoted (CI can tell).
  out.exit_code = out.interrupted ? 130 : !(ok && ok->value > 0) ? 1 : out.verdict.valid ? 0 : 4;
  return out;
}

}  // namespace tokbench::runner
