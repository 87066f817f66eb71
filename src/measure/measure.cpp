// measure/measure: the opaque target point/ holds, and what the target stage learned.
#include "measure/measure.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <limits>

#include "client/request_body.hpp"
#include "common/abbreviate.hpp"
#include "common/json_writer.hpp"
#include "common/redact.hpp"
#include "measure/execute.hpp"
#include "measure/target.hpp"
#include "probe/cache_reset.hpp"
#include "runfolder/files.hpp"
#include "runfolder/run_folder.hpp"
#include "tokbench/version.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

void TargetDeleter::operator()(Target* t) const { delete t; }

OpenTarget open_logged(RunPlan& plan, const fs::path& dir, spdlog::logger& log,
                       std::FILE* console) {
  try {
    return OpenTarget(new Target(open_target(plan, dir, log, console)));
  } catch (const std::exception& e) {
    log.error("the target could not be opened: {}", e.what());
    throw;
  }
}

std::optional<record::ServerProcessFacts> close_target(Target& target, const fs::path& run_dir,
                                                       spdlog::logger& log, std::FILE* console) {
  return target.close(run_dir, log, console);
}

const std::string& target_url(const Target& target) { return target.url; }

std::string reset_prefix_cache(const Target& target, const RunPlan& point, spdlog::logger& log) {
  const probe::CacheReset r =
      probe::reset_prefix_cache(target.url, point.cfg.target.headers, point.cfg.target.api_key,
                                point.tls, point.cfg.target.engine);
  if (r.done) {
    log.info("prefix cache reset ({})", r.how);
    return {};
  }
  log.warn("--reset-prefix-cache: {}", r.how);
  return r.how;
}
const std::string& dataset_abbr(const Target& target) { return target.data.abbr; }

void describe_target(runfolder::RunManifest& m, const RunPlan& plan, const Target& t,
                     const fs::path& run_dir, spdlog::logger& log, std::FILE* console) {
  runfolder::RunInfo& info = m.info;
  info.target_url = redact_url(t.url);  // what is saved and shown; the engine keeps the real one
  info.embedded_simulator = t.sim != nullptr;
  info.model = t.model;
  info.model_abbr = plan.cfg.output.model_abbr;
  info.dataset_abbr = t.data.abbr;
  // Audited whole; shown and saved capped (a 50 MB prompt is not echoed to stdout and four files).
  const std::string body = t.first_body(plan);
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
  m.planned_requests = planned_requests(plan);
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
      : !t.data.agents.empty()
          ? fmt::format("agent tasks {}", plan.cfg.load.num_prompts)
          : fmt::format("sessions {} ({})", plan.cfg.load.num_prompts,
                        plan.cfg.workload.multi_turn
                            ? "each conversation's turns"
                            : fmt::format("{} turns each", plan.cfg.workload.turns));
  std::string names;  // --class: the classes say their loads on their own lines, at the end
  for (const auto& k : plan.parsed.classes) names += (names.empty() ? "" : ", ") + k.name;
  fmt::print(console, "target {}  model {}  dataset {}  {}  {}\n", info.target_url, t.model,
             t.data.abbr, requests,
             names.empty() ? plan.load.text(plan.cfg.warms_connections()) : "classes " + names);
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

}  // namespace tokbench::runner
