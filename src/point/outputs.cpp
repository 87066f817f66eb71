#include "point/outputs.hpp"

#include <fmt/format.h>

#include <cctype>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "common/format.hpp"
#include "core/engines.hpp"
#include "metrics/cross_check.hpp"
#include "metrics/saturation.hpp"
#include "metrics/slices.hpp"
#include "metrics/stable_stage.hpp"
#include "metrics/verdict.hpp"
#include "metrics/waterfall.hpp"
#include "point/class_outputs.hpp"
#include "point/cluster_run.hpp"
#include "record/record_io.hpp"
#include "record/server_span.hpp"
#include "report/html.hpp"
#include "report/quality_view.hpp"
#include "report/tables.hpp"
#include "report/telemetry_view.hpp"
#include "report/vllm_result.hpp"
#include "report/waterfall_view.hpp"
#include "runfolder/files.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

// Why the folder is not a finished run ("" when it is).
std::string incomplete_reason(const runfolder::RunFolder& f, int64_t recorded) {
  const runfolder::RunManifest& m = f.manifest;
  if (f.rank_lost) return lost_rank_reason(*f.rank_lost, recorded);
  if (!m.target_ready) {
    return "incomplete: the run stopped before its target was ready, so no request was sent (see "
           "logs/run.log)";
  }
  if (!f.end) {
    return fmt::format(
        "incomplete: {} of {} requests recorded; the run did not finish (killed?)", recorded,
        m.planned_requests >= 0 ? std::to_string(m.planned_requests) : std::string("?"));
  }
  if (!f.end->stop_reason.empty()) return "incomplete: the run stopped: " + f.end->stop_reason;
  if (!f.end->interrupted && m.planned_requests >= 0 && recorded < m.planned_requests) {
    return fmt::format(
        "incomplete: {} of {} requests recorded, yet the run ended normally: the details file was "
        "cut "
        "short or edited",
        recorded, m.planned_requests);
  }
  return "";
}

// What the folder shows of the engine that answered.
core::EngineEvidence engine_evidence(const runfolder::RunFolder& f) {
  const runfolder::RunInfo& info = f.manifest.info;
  core::EngineEvidence e;
  e.named = info.engine_named;
  e.api = info.api;
  e.simulator = info.embedded_simulator;
  if (f.end && f.end->server) e.metrics_dialect = f.end->server->dialect;
  // Its codec's name (workload/server_tokenizer): prompts built through llama.cpp's /tokenize.
  e.llamacpp_tokenize =
      info.synthetic && info.synthetic->built_with.find("llama.cpp") != std::string::npos;
  return e;
}

runfolder::RunInfo info_of(const runfolder::RunFolder& f) {
  runfolder::RunInfo info = f.manifest.info;
  info.interrupted = !f.end || f.end->interrupted;
  const core::EngineSeen engine = core::identify_engine(engine_evidence(f));
  info.engine = engine.name;
  info.engine_how = engine.how;
  if (f.end) {
    info.client = f.end->client;
    info.server_process = f.end->server_process;
    info.profile = f.end->profile;
  }
  return info;
}

std::optional<double> mean_of(const metrics::MetricSet& m, const char* row) {
  const auto* r = m.row(row);
  return r && r->stats ? std::optional<double>(r->stats->mean) : std::nullopt;
}

// Pass 1 over the details file: every definition set, the verdict's tally and, for the run's own
// outputs, the failed requests' file.
// The most server spans joined: what the receiver holds (otlp/receiver's kDefaultMaxSpans).
constexpr size_t kMaxSpans = size_t{1} << 20;

struct FirstPass {
  std::vector<metrics::Definitions> sets;
  std::vector<metrics::MetricSet> computed;
  metrics::VerdictTally tally;
  std::optional<metrics::StableStageFinder>
      stable;  // closed loop: the in-flight count has a target
  record::DetailsScan scan;
  std::unique_ptr<ClassesPass> classes;               // --class: each class's own figures
  std::unique_ptr<metrics::WaterfallPass> waterfall;  // --otlp-receive: the server's spans
  std::string waterfall_error;  // why its spans file could not be read ("" = read, or none)
  bool has_details = false;
  int64_t vllm_first_token_ns = record::kNone;  // where vllm_result.json's peak buckets begin

  metrics::MetricSet& set(metrics::Definitions d) {
    return computed[static_cast<size_t>(std::find(sets.begin(), sets.end(), d) - sets.begin())];
  }
};

FirstPass first_pass(const runfolder::RunFolder& folder, metrics::Definitions defs, bool own) {
  FirstPass p;
  const metrics::RunFacts& facts = folder.manifest.facts;
  const std::string& ds = folder.manifest.info.dataset_abbr;
  if (facts.stream)
    p.sets.assign(std::begin(metrics::kAllDefinitions), std::end(metrics::kAllDefinitions));
  for (auto d : {defs, metrics::Definitions::Tokbench,
                 metrics::Definitions::Vllm})  // vLLM's: vllm_result.json
    if (std::find(p.sets.begin(), p.sets.end(), d) == p.sets.end()) p.sets.push_back(d);
  std::vector<metrics::Definitions>
      side_only;  // every set but the run's, tokbench's (the cross-check) and vLLM's
  for (auto d : p.sets)
    if (d != defs && d != metrics::Definitions::Tokbench && d != metrics::Definitions::Vllm)
      side_only.push_back(d);
  metrics::MetricsPass pass(facts, p.sets, side_only);
  p.classes = std::make_unique<ClassesPass>(folder.manifest, defs);
  const fs::path failed_path = folder.perf_dir / (ds + "_failed.jsonl");
  std::unique_ptr<record::LineAppender> failed;
  if (own) failed = std::make_unique<record::LineAppender>(failed_path.string() + ".tmp");
  p.has_details = fs::exists(folder.details);
  if (fs::exists(folder.server_spans)) {
    record::ServerSpansHeader header;
    std::unordered_map<std::string, record::ServerSpan> spans;
    if (record::read_server_spans(folder.server_spans.string(), header, spans, kMaxSpans,
                                  &p.waterfall_error))
      p.waterfall = std::make_unique<metrics::WaterfallPass>(std::move(header), std::move(spans));
  }
  // A closed loop holds a level; an open loop or the adaptive controller (which moves it) does not.
  if (folder.manifest.request_rate == 0 && folder.manifest.load.arrivals != "adaptive" &&
      folder.manifest.load.arrivals != "mixed")
    p.stable.emplace(facts.max_concurrency);
  if (folder.end && folder.end->server && !folder.end->server->running_waiting.empty())
    p.tally.window_start_ns = std::get<0>(folder.end->server->running_waiting.front());
  if (p.has_details) {
    p.scan = record::for_each_detail(folder.details.string(), [&](record::RequestRecord&& r) {
      if (!p.tally.first_of_its_id(r)) return;  // a line the file holds twice: read once
      pass.add(r);
      p.tally.add(r);
      if (p.classes->any()) p.classes->add(r);
      if (p.waterfall) p.waterfall->add(r);
      if (p.stable) p.stable->add(r);
      if (failed && !r.ok() && !r.apart()) failed->append(record::to_json_line(r, ds));
      if (own && r.ok() && !r.warmup) {
        const int64_t first = metrics::peer_timing(r, metrics::Definitions::Vllm).first_ns;
        if (first != record::kNone &&
            (p.vllm_first_token_ns == record::kNone || first < p.vllm_first_token_ns))
          p.vllm_first_token_ns = first;
      }
    });
  } else if (folder.end) {
    throw std::runtime_error(fmt::format(
        "the details file {} is missing: the run folder is damaged", folder.details.string()));
  }
  if (failed) {
    failed.reset();
    if (p.tally.failed > 0) {
      fs::rename(failed_path.string() + ".tmp", failed_path);
    } else {
      fs::remove(failed_path.string() + ".tmp");
      fs::remove(failed_path);
    }
  }
  p.computed = pass.finish();
  return p;
}

// The slices as JSON (result.json and the page) and CSV.
std::pair<std::string, std::string> slices_outputs(const std::vector<metrics::SliceStats>& slices,
                                                   double width_s, const std::string& note) {
  JsonWriter w;
  w.begin_object().field("width_s", width_s).field("note", note);
  w.field("rule",
          "requests by their send (TTFT, TPOT, E2EL), output tokens by their chunk's arrival, "
          "completions by their "
          "end; slices start at the first measured send");
  w.key("slices").begin_array();
  std::string csv =
      "start_s,end_s,sent,failed,completed,request_throughput,output_token_throughput,ttft_mean_ms,"
      "ttft_p99_ms,"
      "tpot_mean_ms,tpot_p99_ms,e2el_mean_ms,e2el_p99_ms\n";
  auto opt = [](const metrics::Summary& s, double v) {
    return s.n > 0 ? format_round4(v) : std::string();
  };
  for (const auto& s : slices) {
    w.begin_object()
        .field("start_s", s.start_s)
        .field("end_s", s.end_s)
        .field("sent", s.sent)
        .field("failed", s.failed);
    w.field("completed", s.completed).field("request_throughput", s.request_throughput());
    w.field("output_token_throughput", s.output_token_throughput());
    for (const auto& [name, x] :
         {std::pair{"ttft", &s.ttft}, {"tpot", &s.tpot}, {"e2el", &s.e2el}}) {
      w.key(name).begin_object().field("n", x->n);
      if (x->n > 0) w.field("mean", x->mean).field("p50", x->median).field("p99", x->p99);
      w.end_object();
    }
    w.end_object();
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", s.start_s, s.end_s, s.sent,
                       s.failed, s.completed, format_round4(s.request_throughput()),
                       format_round4(s.output_token_throughput()), opt(s.ttft, s.ttft.mean),
                       opt(s.ttft, s.ttft.p99), opt(s.tpot, s.tpot.mean), opt(s.tpot, s.tpot.p99),
                       opt(s.e2el, s.e2el.mean), opt(s.e2el, s.e2el.p99));
  }
  w.end_array().end_object();
  return {w.take(), csv};
}

// vLLM's own names for what the run was.
report::VllmResultFacts vllm_facts(const runfolder::RunFolder& f) {
  const runfolder::RunInfo& info = f.manifest.info;
  report::VllmResultFacts v;
  // "2026-11-30T22:35:09+0000" -> "20261130-223509", as vLLM's
  // datetime.now().strftime("%Y%m%d-%H%M%S")
  std::string d;
  for (char c : info.started_at.substr(0, 19)) {
    if (c == 'T')
      d += '-';
    else if (std::isdigit(static_cast<unsigned char>(c)))
      d += c;
  }
  v.date = d;
  v.backend =
      info.target_url.find("/chat/completions") != std::string::npos ? "openai-chat" : "openai";
  v.model_id = info.model;
  v.tokenizer_id = info.tokenizer.empty() ? info.model : info.tokenizer;
  v.request_rate = f.manifest.request_rate;
  v.burstiness = f.manifest.load.burstiness;
  v.max_concurrency = f.manifest.facts.max_concurrency;
  return v;
}

// The server's /metrics view beside the client's (tokbench's definitions): the checks, server.json.
void cross_check_server(Written& w, const record::ServerSummary& server,
                        const metrics::MetricSet& tokbench, const metrics::VerdictTally& tally,
                        const fs::path& out_dir) {
  w.server = server;
  // TTFT like with like: from the request's start on the wire when the phases were recorded (the
  // server's clock starts at arrival, after any connection set-up), else the whole TTFT.
  const std::optional<double> wire = mean_of(tokbench, "TTFT_FromRequestStart");
  // Warm-up requests inside the scrape window (a ramp's) are in the server's counters too.
  const double ramp_tokens = tally.warmup_tokens_in_window;
  w.checks = metrics::cross_check(
      *w.server, tokbench.common_metric("total_generated_tokens")->value + ramp_tokens,
      mean_of(tokbench, "TPOT"), wire ? wire : mean_of(tokbench, "TTFT"),
      tally.failed + tally.client_cancelled, wire.has_value());
  // The cache's evidence on the server's side (llama.cpp counts evaluated prompt tokens only),
  // and its requests in flight. Failed requests and warm-ups inside the window reached the
  // server's counters but not the client's figures: shown, not judged, then.
  const bool others_in_window = tally.failed > 0 || tally.client_cancelled > 0 || ramp_tokens > 0;
  auto unjudged = [&](record::CrossCheck c) {
    if (others_in_window && !c.agree) {
      c.agree = true;
      c.note += "; not judged: failed or warm-up requests inside the window reached the server";
    }
    w.checks.push_back(std::move(c));
  };
  const auto* pc = tokbench.prefix_cache ? &*tokbench.prefix_cache : nullptr;
  const metrics::Common* input = tokbench.common_metric("total_input_tokens");
  if (auto c = metrics::prompt_check(
          *w.server, pc ? pc->prompt_tokens : (input && input->known ? input->value : 0),
          pc ? pc->cached_tokens : -1))
    unjudged(std::move(*c));
  if (auto c = metrics::in_flight_check(*w.server, tokbench.observed_max_concurrency))
    unjudged(std::move(*c));
  // Aborts, where the client let requests go: cancelled on purpose or by a stop. A failed stream
  // may have been aborted too (a connection that broke), so failures leave it unjudged.
  const auto found = tally.failures.find("cancelled");
  const int64_t stopped = found == tally.failures.end() ? 0 : found->second;
  if (tally.client_cancelled + stopped > 0)
    if (auto c = metrics::abort_check(*w.server, tally.client_cancelled + stopped)) {
      if (tally.failed > stopped && !c->agree) {
        c->agree = true;
        c->note += "; not judged: failed requests' connections may have been aborted too";
      }
      w.checks.push_back(std::move(*c));
    }
  const auto whole = mean_of(tokbench, "TTFT");
  for (auto& c : w.checks) {
    if (c.what == "output tokens" && ramp_tokens > 0)
      c.note += fmt::format(
          "; the client's side includes {:.0f} tokens of warm-up requests sent inside the server's "
          "window (the ramp), which the server counted",
          ramp_tokens);
    if (c.what == "TTFT (ms)" && wire && whole)
      c.note += fmt::format("; the client's whole TTFT, set-up included, is {:.3f} ms", *whole);
  }
  w.info.server_json = report::server_json(*w.server, w.checks);
  w.info.server_disagrees =
      std::any_of(w.checks.begin(), w.checks.end(), [](const auto& c) { return !c.agree; });
  runfolder::write_file(out_dir / "server.json", w.info.server_json);
}

// What the verdict reads beside the tally: the folder's end marker, the load, the server check.
metrics::VerdictFacts verdict_facts(const runfolder::RunFolder& folder, const Written& w,
                                    const FirstPass& p) {
  metrics::VerdictFacts vf;
  vf.interrupted = folder.end && folder.end->interrupted;
  vf.request_rate = folder.manifest.request_rate;
  vf.open_loop = folder.manifest.facts.open_loop;
  vf.trace = folder.manifest.load.arrivals == "trace";
  vf.in_flight_capped = folder.manifest.load.in_flight_capped;
  vf.duration_s = folder.manifest.load.duration_s;
  vf.grace_s = folder.manifest.load.grace_s;
  vf.cancel_rate = folder.manifest.load.cancel_rate;
  vf.cancel_after = folder.manifest.load.cancel_after;
  if (folder.end) vf.client = folder.end->client;
  vf.server_disagrees = w.info.server_disagrees;
  vf.server_disagrees_on_ttft_only =
      w.info.server_disagrees && std::all_of(w.checks.begin(), w.checks.end(), [](const auto& c) {
        return c.agree || c.what == "TTFT (ms)";
      });
  for (const auto& c : w.checks) {
    if (c.what != "TTFT (ms)") continue;
    vf.ttft_client_ms = c.client;
    vf.ttft_server_ms = c.server;
  }
  // Recorded in the measured phase: measured, cut at the end, and a ramp's warm-ups (not
  // --warmup's).
  vf.saturated = folder.end && folder.end->stop_reason.starts_with(metrics::kSaturatedStopReason);
  vf.incomplete = incomplete_reason(
      folder, p.tally.measured + p.tally.cut + p.tally.client_cancelled +
                  std::max<int64_t>(0, p.tally.warmup - folder.manifest.warmup_requests));
  vf.details_warning = p.scan.warning;
  vf.insecure_tls = folder.manifest.insecure_tls;
  if (folder.end) vf.ranks = folder.end->ranks;
  vf.rank_count = folder.manifest.ranks;
  return vf;
}

// --class: each class's figures, SLOs and fairness (result.json, <ds>_classes.csv, the console);
// a missed SLO is the verdict's, by name.
void class_outputs(Written& w, ClassesPass& classes, const metrics::VerdictTally& tally) {
  const bool any = tally.first_sent_ns != INT64_MAX;
  ClassResults r =
      classes.finish(any ? static_cast<double>(tally.last_done_ns - tally.first_sent_ns) / 1e9 : 0);
  w.info.classes_json = r.classes_json;
  w.info.fairness_json = r.fairness_json;
  w.class_lines = r.console_lines;
  for (ClassResult& c : r.classes) w.class_metrics.emplace_back(c.facts.name, std::move(c.metrics));
  w.verdict.slo_missed = r.missed;
  for (auto& n : r.records_without_class) w.verdict.notes.push_back(std::move(n));
  runfolder::write_file(w.perf_dir / (w.info.dataset_abbr + "_classes.csv"), r.csv);
}

// The stable stage's view (closed loops): its window and metrics in result.json, its rows for the
// CSV (under the total's header); "" when there are none.
std::string stable_outputs(Written& w, const metrics::StableWindow& window,
                           std::optional<metrics::MetricsPass>& stable_pass,
                           const metrics::WindowArrivals& arrived,
                           const metrics::VerdictTally& tally) {
  std::string rows;
  w.stable_text = window.text;
  JsonWriter sj;
  sj.begin_object()
      .field("found", window.found)
      .field("text", window.text)
      .field("concurrency", window.level);
  if (stable_pass) {
    w.stable = std::move(stable_pass->finish().front());
    metrics::restate_over_window(*w.stable, window, arrived);
    const int64_t t0 = tally.first_sent_ns == INT64_MAX ? 0 : tally.first_sent_ns;
    sj.field("start_ms", static_cast<double>(window.start_ns - t0) / 1e6);
    sj.field("end_ms", static_cast<double>(window.end_ns - t0) / 1e6);
    report::metric_set_fields(sj, *w.stable);
    const std::string stable_csv = report::performance_csv(*w.stable, "stable");
    rows = stable_csv.substr(stable_csv.find('\n') + 1);
  }
  w.info.stable_json = sj.end_object().take();
  return rows;
}

// --price-per-device-hour with no --telemetry: the phase's cost from --server-devices alone (a
// device-hour needs only the count); result.json's "telemetry" holds the cost, no devices.
void device_hour_cost(Written& w, const runfolder::TelemetryFacts& facts,
                      const report::Window& phase) {
  if (facts.price_per_device_hour <= 0) return;
  auto common = [&](const char* key) {
    const auto* c = w.metrics.common_metric(key);
    return c && c->known ? c->value : 0.0;
  };
  report::EnergyFigures e;
  e.why = "no --telemetry: the devices' energy was not read";
  e.devices = std::max<int64_t>(1, facts.devices);
  e.devices_from = "--server-devices";
  e.seconds = static_cast<double>(phase.end_ns - phase.start_ns) / 1e9;
  const report::Cost cost =
      report::cost_of(e, report::Pricing{facts.price_per_device_hour, 0},
                      common("total_input_tokens"), common("total_generated_tokens"));
  w.info.telemetry_json = report::telemetry_json(report::TelemetryView{}, e, cost);
  w.telemetry_lines.push_back(report::cost_line(cost));
  if (cost.known) w.usd_per_m_output_tokens = cost.per_m_output;
}

// --telemetry: the devices over the measured phase (and the stable stage), their energy with the
// client's counts, and the cost; result.json's "telemetry", <ds>_telemetry.csv, the console's
// lines; the gaps are the verdict's notes (an exporter that went away never fails a run).
void telemetry_outputs(Written& w, const runfolder::RunFolder& folder, const FirstPass& p,
                       const metrics::StableWindow& window) {
  const bool asked = folder.manifest.telemetry.interval_ms > 0;
  const bool any = p.tally.first_sent_ns != INT64_MAX;
  const report::Window phase{any ? p.tally.first_sent_ns : 0, any ? p.tally.last_done_ns : 0};
  if (!asked && !std::filesystem::exists(folder.telemetry)) {
    device_hour_cost(w, folder.manifest.telemetry, phase);
    return;
  }
  std::optional<report::Window> stable;
  if (window.found) stable = report::Window{window.start_ns, window.end_ns};
  std::optional<report::SliceGrid> grid;  // --slice-s: the client's slices' grid
  if (folder.manifest.load.slice_s > 0 && any) {
    const metrics::SliceAccumulator slicer(folder.manifest.load.slice_s, phase.start_ns,
                                           phase.end_ns - phase.start_ns);
    grid = report::SliceGrid{phase.start_ns, slicer.width_ns(),
                             (phase.end_ns - phase.start_ns) / slicer.width_ns() + 1};
  }
  const auto view = report::read_telemetry_view(folder.telemetry, phase, stable, phase.start_ns,
                                                phase.end_ns - phase.start_ns, grid);
  if (!view) {
    w.verdict.notes.push_back(fmt::format(
        "--telemetry was asked, but {} is missing: no device figures", folder.telemetry.string()));
    return;
  }
  auto common = [&](const char* key) {
    const auto* c = w.metrics.common_metric(key);
    return c && c->known ? c->value : 0.0;
  };
  std::optional<double> goodput;
  if (w.metrics.common_metric("request_goodput")) goodput = common("request_goodput");
  const double seconds = static_cast<double>(phase.end_ns - phase.start_ns) / 1e9;
  const double in = common("total_input_tokens"), out = common("total_generated_tokens");
  const report::EnergyFigures e = report::energy_figures(
      *view, seconds, out, in, static_cast<int64_t>(common("success_requests")), goodput);
  const report::Pricing pricing{folder.manifest.telemetry.price_per_device_hour,
                                folder.manifest.telemetry.price_per_kwh};
  std::optional<report::Cost> cost;
  if (pricing.any()) cost = report::cost_of(e, pricing, in, out);
  w.info.telemetry_json = report::telemetry_json(*view, e, cost);
  w.telemetry_lines = report::telemetry_lines(*view, e, cost);
  w.telemetry_table = report::telemetry_table(*view);
  w.j_per_output_token = e.j_per_output_token;
  if (cost && cost->known) w.usd_per_m_output_tokens = cost->per_m_output;
  for (const auto& n : view->notes) w.verdict.notes.push_back(n);
  if (!e.known && e.devices > 0) w.verdict.notes.push_back("energy not known: " + e.why);
  runfolder::write_file(w.perf_dir / (w.info.dataset_abbr + "_telemetry.csv"),
                        report::telemetry_csv(*view));
}

// --otlp-receive: the server's spans joined per request — result.json's "waterfall", the
// console's lines and bucket table (the page's too), <ds>_waterfall.csv.
void waterfall_outputs(Written& w, FirstPass& p) {
  if (!p.waterfall_error.empty()) w.verdict.notes.push_back("no waterfall: " + p.waterfall_error);
  if (!p.waterfall) return;
  const metrics::Waterfall wf = p.waterfall->finish();
  w.info.waterfall_json = report::waterfall_json(wf);
  for (const auto& line : report::waterfall_lines(wf)) w.waterfall += line + "\n";
  w.waterfall += report::waterfall_table(wf);
  runfolder::write_file(w.perf_dir / (w.info.dataset_abbr + "_waterfall.csv"),
                        report::waterfall_csv(wf));
}

// What the page draws beside its request rows: the run's figures as written, its span, the
// server's and the devices' tables, its classes.
report::HtmlInputs page_inputs(const Written& w, const runfolder::RunFolder& folder,
                               const metrics::VerdictTally& tally,
                               const std::optional<metrics::Summary>& itl_ms) {
  const metrics::RunFacts& facts = folder.manifest.facts;
  const bool any = tally.first_sent_ns != INT64_MAX;
  report::HtmlInputs in{w.metrics,
                        w.info,
                        w.verdict,
                        w.side_by_side,
                        facts.stream,
                        folder.manifest.request_rate > 0,
                        any ? tally.first_sent_ns : 0,
                        itl_ms};
  in.one_shot = facts.one_shot;
  if (any) in.span_ns = tally.last_done_ns - tally.first_sent_ns;
  if (w.server) in.server_tables = report::server_tables(*w.server, w.checks);
  in.telemetry_tables = w.telemetry_table;
  in.waterfall = w.waterfall;
  for (const auto& k : folder.manifest.classes) in.classes.push_back(k.name);
  in.class_lines = w.class_lines;
  return in;
}

}  // namespace

Written write_outputs(const runfolder::RunFolder& folder, metrics::Definitions defs,
                      const fs::path& out_dir, bool own) {
  Written w;
  w.info = info_of(folder);
  if (!own) w.info.view_of = folder.manifest.definitions;
  w.out_dir = out_dir;
  w.perf_dir = own ? folder.perf_dir : out_dir;
  fs::create_directories(w.perf_dir);
  const metrics::RunFacts& facts = folder.manifest.facts;
  const std::string& ds = w.info.dataset_abbr;

  FirstPass p = first_pass(folder, defs, own);
  const metrics::MetricSet& tokbench = p.set(metrics::Definitions::Tokbench);
  if (facts.stream)
    for (auto d : metrics::kAllDefinitions)
      w.side_by_side.push_back(metrics::definition_column(p.set(d)));

  // The server's view, cross-checked against the client's (tokbench's definitions).
  if (folder.end && folder.end->server)
    cross_check_server(w, *folder.end->server, tokbench, p.tally, out_dir);
  std::optional<metrics::Summary> itl_ms;  // the page's ITL axis: tokbench's, whatever `defs`
  if (const auto* row = tokbench.row("ITL"); row && row->stats) itl_ms = row->stats;
  w.metrics = std::move(p.set(defs));

  w.verdict = metrics::judge(w.metrics, p.tally, verdict_facts(folder, w, p));
  if (p.classes->any()) class_outputs(w, *p.classes, p.tally);
  const metrics::StableWindow window = p.stable ? p.stable->finish() : metrics::StableWindow{};
  telemetry_outputs(w, folder, p, window);
  waterfall_outputs(w, p);
  std::optional<metrics::MetricsPass> stable_pass;  // the stable stage's requests, on pass 2
  metrics::WindowArrivals arrived;                  // and what arrived inside its window
  if (window.found) stable_pass.emplace(facts, std::vector<metrics::Definitions>{defs});

  if (folder.end && folder.end->adaptive) w.info.adaptive = folder.end->adaptive;
  // Pass 2: the HTML page, its request rows streamed from the details file into the page.
  report::HtmlInputs in = page_inputs(w, folder, p.tally, itl_ms);
  // The stable stage's tables reach the page as it closes (its requests stream through this pass).
  std::string stable_rows;
  in.late_stable_tables = [&] {
    if (!p.stable) return std::string();
    stable_rows = stable_outputs(w, window, stable_pass, arrived, p.tally);
    return w.stable ? report::console_tables(*w.stable, "stable") : w.stable_text;
  };
  // --slice-s: the slices ride on the same pass, and reach the page as it closes.
  std::optional<metrics::SliceAccumulator> slicer;
  std::string slices_json, slices_csv;
  if (folder.manifest.load.slice_s > 0 && p.tally.first_sent_ns != INT64_MAX)
    slicer.emplace(folder.manifest.load.slice_s, p.tally.first_sent_ns,
                   p.tally.last_done_ns - p.tally.first_sent_ns);
  in.late_slices_json = [&] {
    if (!slicer) return std::string();
    std::tie(slices_json, slices_csv) =
        slices_outputs(slicer->finish(), slicer->width_s(), slicer->note());
    return slices_json;
  };
  // vllm_result.json rides on the same pass (the run's own outputs only: a view changes no file of
  // the run).
  std::optional<report::VllmResultWriter> vllm;
  if (own) {
    report::VllmResultFacts facts = vllm_facts(folder);
    facts.first_token_ns = p.vllm_first_token_ns;
    vllm.emplace(out_dir / "vllm_result.json", facts);
  }
  report::write_html_report(w.perf_dir / (ds + "_plot.html"), in, [&](const auto& add) {
    if (!p.has_details) return;
    record::for_each_detail(folder.details.string(), [&](record::RequestRecord&& r) {
      add(r);
      if (vllm) vllm->add(r);
      if (stable_pass && window.contains(r.sent_ns)) stable_pass->add(r);
      arrived.add(r, window);
      if (slicer) slicer->add(r);
    });
  });
  if (vllm) vllm->finish(p.set(metrics::Definitions::Vllm));
  std::string csv = report::performance_csv(w.metrics);
  csv += stable_rows;  // the stable stage's rows, made as the page closed
  runfolder::write_file(w.perf_dir / (ds + ".csv"), csv);
  if (!slices_json.empty()) {
    w.info.slices_json = slices_json;
    runfolder::write_file(w.perf_dir / (ds + "_slices.csv"), slices_csv);
  }
  runfolder::write_file(w.perf_dir / (ds + ".json"), report::common_json(w.metrics));
  if (report::outputs_read(w.metrics.quality))
    runfolder::write_file(w.perf_dir / (ds + "_quality.csv"),
                          report::quality_csv(w.metrics.quality));
  runfolder::write_file(out_dir / "result.json",
                        report::result_json(w.metrics, w.info, w.verdict, w.side_by_side));
  return w;
}

}  // namespace tokbench::runner
