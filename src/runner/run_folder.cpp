#include "runner/run_folder.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/json_writer.hpp"
#include "metrics/slo.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

std::string str(simdjson::dom::element e, std::string_view k) {
  std::string_view s;
  return e[k].get_string().get(s) ? std::string() : std::string(s);
}

template <class T>
T value_or(simdjson::simdjson_result<T> r, T fallback) {
  T v{};
  return std::move(r).get(v) ? fallback : v;
}

double number_or(simdjson::dom::element e, std::string_view k, double fallback) {
  simdjson::dom::element v;
  if (e[k].get(v) || v.is_null()) return fallback;
  if (v.is_int64()) return static_cast<double>(v.get_int64().value_unsafe());
  return value_or(v.get_double(), fallback);
}

std::string raw_or_empty(simdjson::dom::element e, std::string_view k) {
  simdjson::dom::element v;
  if (e[k].get(v) || v.is_null()) return {};
  return simdjson::minify(v);
}

void raw_or_null(JsonWriter& w, std::string_view k, const std::string& raw) {
  if (raw.empty()) {
    w.key(k).null();
  } else {
    w.field_raw(k, raw);
  }
}

RunManifest manifest_from(simdjson::dom::element root) {
  RunManifest m;
  report::RunInfo& info = m.info;
  m.requested_json = raw_or_empty(root, "requested");
  info.config_json = raw_or_empty(root, "effective");
  info.started_at = str(root, "started_at");
  info.target_url = str(root, "target_url");
  info.embedded_simulator = value_or(root["embedded_simulator"].get_bool(), false);
  info.model = str(root, "model");
  info.model_abbr = str(root, "model_abbr");
  info.dataset = str(root, "dataset");
  info.dataset_abbr = str(root, "dataset_abbr");
  info.body_example = str(root, "request_body_example");
  info.tokenizer = str(root, "tokenizer");
  info.synthetic_json = raw_or_empty(root, "synthetic");
  info.trace_json = raw_or_empty(root, "trace");
  info.origin_steady_ns = value_or(root["origin_steady_ns"].get_int64(), int64_t{-1});
  simdjson::dom::array audit;
  if (!root["audit"].get_array().get(audit)) {
    for (auto a : audit) info.audit.emplace_back(str(a, "level"), str(a, "text"));
  }
  simdjson::dom::element plan;
  if (root["plan"].get(plan) || !plan.is_object()) throw std::runtime_error("no \"plan\" object");
  m.facts.max_concurrency = static_cast<int>(value_or(plan["concurrency"].get_int64(), int64_t{1}));
  m.facts.stream = value_or(plan["stream"].get_bool(), true);
  m.facts.embeddings = value_or(plan["embeddings"].get_bool(), false);
  m.facts.native_generate = value_or(plan["native_generate"].get_bool(), false);
  m.facts.implied_cache_hit = number_or(plan, "implied_cache_hit", -1);
  m.definitions = str(plan, "definitions");
  m.request_rate = str(plan, "request_rate") == "inf" ? std::numeric_limits<double>::infinity() : number_or(plan, "request_rate", 0);
  m.facts.open_loop = m.request_rate > 0;
  if (std::string goodput = str(plan, "goodput"); !goodput.empty()) m.facts.goodput = metrics::parse_goodput(goodput);
  LoadFacts& l = m.load;
  if (std::string a = str(plan, "arrivals"); !a.empty()) l.arrivals = a;
  l.burstiness = number_or(plan, "burstiness", 1);
  l.duration_s = number_or(plan, "duration_s", 0);
  l.grace_s = number_or(plan, "grace_s", 0);
  l.ramp_up_s = number_or(plan, "ramp_up_s", 0);
  if (std::string s = str(plan, "ramp_up_strategy"); !s.empty()) l.ramp_up_strategy = s;
  l.ramp_up_measured = value_or(plan["ramp_up_measured"].get_bool(), false);
  l.slice_s = number_or(plan, "slice_s", 0);
  l.warm_connections = value_or(plan["warm_connections"].get_bool(), false);
  m.planned_requests = value_or(plan["requests"].get_int64(), int64_t{0});
  m.warmup_requests = value_or(plan["warmup"].get_int64(), int64_t{0});
  m.insecure_tls = value_or(plan["insecure_tls"].get_bool(), false);
  m.ranks = static_cast<int>(value_or(plan["ranks"].get_int64(), int64_t{1}));
  m.info.transport = str(plan, "transport");
  m.target_ready = value_or(root["target_ready"].get_bool(), false);
  return m;
}

RunEnd end_from(simdjson::dom::element root) {
  RunEnd e;
  e.interrupted = value_or(root["interrupted"].get_bool(), false);
  e.stop_reason = str(root, "stop_reason");
  e.records_written = value_or(root["records_written"].get_int64(), int64_t{0});
  e.measured_wall_s = number_or(root, "measured_wall_s", 0);
  e.client_cpu_s = number_or(root, "client_cpu_s", -1);
  e.client_process_cpu_s = number_or(root, "client_process_cpu_s", -1);
  e.client_cpu_share = number_or(root, "client_cpu_share", -1);
  e.client_busy_share = number_or(root, "client_busy_share", -1);
  e.client_peak_busy = number_or(root, "client_peak_busy", -1);
  e.client_peak_busy_at_s = number_or(root, "client_peak_busy_at_s", -1);
  e.client_events = value_or(root["client_sse_events"].get_int64(), int64_t{-1});
  e.server_process_json = raw_or_empty(root, "server_process");
  e.profile_json = raw_or_empty(root, "profile");
  e.adaptive_json = raw_or_empty(root, "adaptive");
  if (const std::string server = raw_or_empty(root, "server_summary"); !server.empty())
    e.server = probe::summary_from_json(server);
  simdjson::dom::array ranks;
  if (!root["ranks"].get_array().get(ranks)) {
    for (auto k : ranks) {
      RankHealth h;
      h.rank = value_or(k["rank"].get_int64(), int64_t{0});
      h.cpu_s = number_or(k, "client_cpu_s", -1);
      h.cpu_share = number_or(k, "client_cpu_share", -1);
      h.wall_s = number_or(k, "measured_wall_s", 0);
      h.peak_busy = number_or(k, "client_peak_busy", -1);
      h.events = value_or(k["client_sse_events"].get_int64(), int64_t{0});
      h.clock_offset_ns = value_or(k["clock_offset_ns"].get_int64(), int64_t{0});
      h.clock_residual_ns = value_or(k["clock_residual_ns"].get_int64(), int64_t{0});
      e.ranks.push_back(h);
    }
  }
  return e;
}

// Parses a JSON file with `from`; any problem names the file and what it should have been.
template <class F>
auto parse_file(const fs::path& path, std::string_view what, F from) {
  try {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (auto err = parser.parse(report::read_file(path)).get(root)) throw std::runtime_error(simdjson::error_message(err));
    return from(root);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: not a valid {} ({})", path.string(), what, e.what()));
  }
}

}  // namespace

void write_manifest(const fs::path& dir, const RunManifest& m) {
  const report::RunInfo& info = m.info;
  JsonWriter w;
  w.begin_object().field("format", "tokbench-run-manifest/1").field("target_ready", m.target_ready);
  raw_or_null(w, "requested", m.requested_json);
  raw_or_null(w, "effective", info.config_json);
  w.key("plan").begin_object().field("requests", m.planned_requests).field("warmup", m.warmup_requests);
  w.field("concurrency", m.facts.max_concurrency);
  if (std::isinf(m.request_rate)) w.field("request_rate", "inf"); else w.field("request_rate", m.request_rate);
  const LoadFacts& l = m.load;
  w.field("arrivals", l.arrivals).field("burstiness", l.burstiness).field("duration_s", l.duration_s);
  w.field("grace_s", l.grace_s).field("ramp_up_s", l.ramp_up_s).field("ramp_up_strategy", l.ramp_up_strategy);
  w.field("ramp_up_measured", l.ramp_up_measured).field("slice_s", l.slice_s).field("warm_connections", l.warm_connections).field("goodput", m.facts.goodput.to_string());
  if (m.facts.implied_cache_hit >= 0) w.field("implied_cache_hit", m.facts.implied_cache_hit);
  w.field("stream", m.facts.stream).field("embeddings", m.facts.embeddings).field("native_generate", m.facts.native_generate).field("definitions", m.definitions).field("insecure_tls", m.insecure_tls).field("ranks", static_cast<int64_t>(m.ranks)).field("transport", info.transport).end_object();
  w.field("started_at", info.started_at).field("target_url", info.target_url);
  w.field("embedded_simulator", info.embedded_simulator).field("model", info.model);
  w.field("model_abbr", info.model_abbr).field("dataset", info.dataset).field("dataset_abbr", info.dataset_abbr);
  w.field("request_body_example", info.body_example).field("tokenizer", info.tokenizer);
  raw_or_null(w, "synthetic", info.synthetic_json);
  raw_or_null(w, "trace", info.trace_json);
  w.key("origin_steady_ns").value(info.origin_steady_ns);
  w.key("audit").begin_array();
  for (const auto& [level, text] : info.audit) w.begin_object().field("level", level).field("text", text).end_object();
  w.end_array().end_object();
  report::write_file(dir / kManifestFile, w.take());
}

void write_end(const fs::path& dir, const RunEnd& e) {
  JsonWriter w;
  w.begin_object().field("format", "tokbench-run-end/1").field("interrupted", e.interrupted);
  w.field("stop_reason", e.stop_reason).field("records_written", e.records_written);
  w.field("measured_wall_s", e.measured_wall_s).field("client_cpu_s", e.client_cpu_s);
  w.field("client_process_cpu_s", e.client_process_cpu_s);
  w.field("client_cpu_share", e.client_cpu_share).field("client_busy_share", e.client_busy_share).field("client_sse_events", e.client_events);
  w.field("client_peak_busy", e.client_peak_busy).field("client_peak_busy_at_s", e.client_peak_busy_at_s);
  raw_or_null(w, "server_process", e.server_process_json);
  raw_or_null(w, "profile", e.profile_json);
  raw_or_null(w, "adaptive", e.adaptive_json);
  raw_or_null(w, "server_summary", e.server ? probe::summary_to_json(*e.server) : std::string());
  if (!e.ranks.empty()) {
    w.key("ranks").begin_array();
    for (const auto& h : e.ranks) {
      w.begin_object().field("rank", h.rank).field("client_cpu_s", h.cpu_s).field("client_cpu_share", h.cpu_share);
      w.field("measured_wall_s", h.wall_s).field("client_peak_busy", h.peak_busy).field("client_sse_events", h.events);
      w.field("clock_offset_ns", h.clock_offset_ns).field("clock_residual_ns", h.clock_residual_ns).end_object();
    }
    w.end_array();
  }
  w.end_object();
  report::write_file(dir / kEndFile, w.take());
}

RunFolder load_run_folder(const fs::path& dir) {
  const fs::path manifest_path = dir / kManifestFile;
  if (!fs::exists(manifest_path)) {
    throw std::runtime_error(fmt::format("'{}' is not a tokbench run folder (no {}): pass the folder that `tokbench run` "
                                         "printed, e.g. outputs/20260101_120000",
                                         dir.string(), kManifestFile));
  }
  RunFolder f;
  f.dir = dir;
  f.manifest = parse_file(manifest_path, "run manifest", manifest_from);
  f.perf_dir = dir / "performances" / f.manifest.info.model_abbr;
  f.details = f.perf_dir / (f.manifest.info.dataset_abbr + "_details.jsonl");
  if (const fs::path end_path = dir / kEndFile; fs::exists(end_path)) f.end = parse_file(end_path, "end marker", end_from);
  return f;
}

}  // namespace tokbench::runner
