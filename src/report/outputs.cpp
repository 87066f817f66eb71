#include "report/outputs.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/json_writer.hpp"
#include "report/quality_view.hpp"
#include "tokbench/version.hpp"

namespace tokbench::report {

namespace fs = std::filesystem;

namespace {

void summary_object(JsonWriter& w, const metrics::Row& r) {
  w.begin_object();
  const auto* s = r.stats ? &*r.stats : nullptr;
  auto num = [&](const char* k, double metrics::Summary::*f) {
    w.key(k);
    if (s)
      w.value(s->*f);
    else
      w.null();
  };
  num("mean", &metrics::Summary::mean);
  num("min", &metrics::Summary::min);
  num("max", &metrics::Summary::max);
  num("median", &metrics::Summary::median);
  num("p75", &metrics::Summary::p75);
  num("p90", &metrics::Summary::p90);
  num("p99", &metrics::Summary::p99);
  w.field("n", s ? s->n : int64_t{0});
  if (!s) w.field("na", r.na_reason);
  if (!r.note.empty()) w.field("note", r.note);
  w.end_object();
}

}  // namespace

void metric_set_fields(JsonWriter& w, const metrics::MetricSet& m) {
  w.key("metrics").begin_object();
  for (const auto& r : m.rows) {
    w.key(r.name);
    summary_object(w, r);
  }
  w.end_object();
  w.key("extra_metrics").begin_object();
  for (const auto& r : m.extra_rows) {
    w.key(r.name);
    summary_object(w, r);
  }
  w.end_object();
  if (!m.turns.empty()) {  // multi-turn: means per turn index
    auto opt = [&](const char* k, const std::optional<double>& v) {
      w.key(k);
      if (v)
        w.value(*v);
      else
        w.null();
    };
    w.key("turns").begin_array();
    for (const auto& t : m.turns) {
      w.begin_object().field("turn", t.turn).field("requests", t.requests);
      opt("ttft_ms", t.ttft_ms);
      opt("e2el_ms", t.e2el_ms);
      opt("input_tokens", t.input_tokens);
      opt("cached_tokens", t.cached_tokens);
      w.end_object();
    }
    w.end_array();
  }
  w.key("prefix_cache");  // null: no answer said how many prompt tokens were cached
  if (const auto& pc = m.prefix_cache) {
    w.begin_object()
        .field("requests", pc->requests)
        .field("hit_requests", pc->hit_requests)
        .field("cached_prompt_tokens", pc->cached_tokens)
        .field("prompt_tokens", pc->prompt_tokens)
        .field("share", pc->share())
        .field("cached_per_request", pc->cached_tokens / static_cast<double>(pc->requests))
        .field("intended", pc->intended)
        .end_object();
  } else {
    w.null();
  }
  w.key("common").begin_object();
  for (const auto& c : m.common) {
    if (c.known) {
      w.field(c.key, c.value);
    } else {
      w.key(c.key).null();  // unknown, not 0
    }
  }
  w.field("observed_max_concurrency", m.observed_max_concurrency);
  w.end_object();
}

namespace {

// result.json's "engine": which engine answered and how that is known (null: nothing named one).
void write_engine(JsonWriter& w, const RunInfo& info) {
  w.key("engine").begin_object().key("name");
  if (info.engine.empty())
    w.null();
  else
    w.value(info.engine);
  w.field("how", info.engine.empty() ? "nothing the run saw names one (--engine names it)"
                                     : info.engine_how);
  w.end_object();
}

// result.json's "run": the target, model, dataset, body, the client's own figures.
void write_run(JsonWriter& w, const RunInfo& info) {
  w.key("run").begin_object();
  w.field("started_at", info.started_at)
      .field("run_id", info.run_id)
      .field("target_url", info.target_url);
  w.field("embedded_simulator", info.embedded_simulator).field("model", info.model);
  w.field("model_abbr", info.model_abbr).field("dataset", info.dataset);
  w.field("dataset_abbr", info.dataset_abbr).field("request_body_example", info.body_example);
  w.key("origin_steady_ns");
  if (info.origin_steady_ns >= 0)
    w.value(info.origin_steady_ns);
  else
    w.null();
  // The client's own figures, null where not measured (-1: a closed loop, an older folder).
  const auto known = [&](const char* key, auto v) {
    w.key(key);
    if (v >= 0)
      w.value(v);
    else
      w.null();
  };
  known("client_sse_events", info.client.events);
  known("client_cpu_s", info.client.cpu_s);
  known("client_process_cpu_s", info.client.process_cpu_s);
  known("wakeup_floor_p50_ms", info.client.wakeup_floor_p50_ms);
  known("wakeup_floor_p99_ms", info.client.wakeup_floor_p99_ms);
  w.field("tokenizer", info.tokenizer);
  if (!info.transport.empty()) w.field("transport", info.transport);
  if (info.synthetic) record::write_optional(w, "synthetic", info.synthetic);
  if (info.trace) record::write_optional(w, "trace", info.trace);
  w.end_object();
}

}  // namespace

std::string result_json(const metrics::MetricSet& m, const RunInfo& info, const Verdict& v,
                        const std::vector<metrics::DefinitionColumn>& side_by_side) {
  JsonWriter w;
  w.begin_object();
  w.key("tool").begin_object().field("name", "tokbench").field("version", kVersion);
  w.field("git_hash", kGitHash)
      .field("git_dirty", kGitDirty)
      .field("build_type", kBuildType)
      .field("compiler", kCompiler);
  w.end_object();
  w.key("verdict").begin_object().field("status", metrics::verdict_status(v));
  w.key("reasons").begin_array();
  for (const auto& r : v.reasons) w.value(r);
  w.end_array();
  w.key("warnings").begin_array();
  for (const auto& r : v.warnings) w.value(r);
  w.end_array();
  if (!v.slo_missed.empty()) {
    w.key("slo_missed").begin_array();
    for (const auto& r : v.slo_missed) w.value(r);
    w.end_array();
  }
  if (!v.notes.empty()) {
    w.key("notes").begin_array();
    for (const auto& r : v.notes) w.value(r);
    w.end_array();
  }
  w.end_object();
  w.field("interrupted", info.interrupted);
  if (!info.view_of.empty()) {
    w.key("view").begin_object().field("definitions", metrics::definitions_name(m.definitions));
    w.field("run_definitions", info.view_of);
    w.field("note", "recomputed by `tokbench report --compat`; config.compat is what the run used")
        .end_object();
  }
  w.key("units")
      .begin_object()
      .field("latency", "ms")
      .field("throughput", "token/s or req/s")
      .end_object();
  metric_set_fields(w, m);
  write_quality_json(w, m.quality);
  w.key("definitions").begin_object();
  for (const auto& [k, text] : metrics::definition_texts(m.definitions)) w.field(k, text);
  w.end_object();
  w.key("definitions_side_by_side").begin_object();
  for (const auto& c : side_by_side) {
    w.key(metrics::definitions_name(c.definitions)).begin_object();
    auto stat = [&](const char* name, const std::optional<metrics::Summary>& s) {
      w.key(name).begin_object();
      w.key("mean");
      if (s)
        w.value(s->mean);
      else
        w.null();
      w.key("p99");
      if (s)
        w.value(s->p99);
      else
        w.null();
      w.end_object();
    };
    stat("TTFT", c.ttft);
    stat("TPOT", c.tpot);
    stat("ITL", c.itl);
    stat("E2EL", c.e2el);
    w.field("output_token_throughput", c.output_token_throughput);
    w.end_object();
  }
  w.end_object();
  if (!info.stable_json.empty()) w.field_raw("stable", info.stable_json);
  if (!info.slices_json.empty()) w.field_raw("slices", info.slices_json);
  if (!info.classes_json.empty()) w.field_raw("classes", info.classes_json);
  if (!info.fairness_json.empty()) w.field_raw("fairness", info.fairness_json);
  if (!info.telemetry_json.empty()) w.field_raw("telemetry", info.telemetry_json);
  if (!info.waterfall_json.empty()) w.field_raw("waterfall", info.waterfall_json);
  if (info.adaptive) record::write_optional(w, "adaptive", info.adaptive);
  if (!info.server_json.empty()) {
    w.field_raw("server", info.server_json);
  } else {
    w.key("server").null();
  }
  write_engine(w, info);
  if (info.server_process) record::write_optional(w, "server_process", info.server_process);
  if (info.profile) record::write_optional(w, "profile", info.profile);
  w.key("audit").begin_array();
  for (const auto& [level, text] : info.audit)
    w.begin_object().field("level", level).field("text", text).end_object();
  w.end_array();
  w.key("notes").begin_array();
  for (const auto& n : m.notes) w.value(n);
  for (const auto& n : m.detail_notes) w.value(n);
  w.end_array();
  write_run(w, info);
  if (!info.config_json.empty()) w.field_raw("config", info.config_json);
  w.end_object();
  return w.take();
}

}  // namespace tokbench::report
