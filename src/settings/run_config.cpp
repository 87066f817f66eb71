#include "settings/run_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "client/api.hpp"
#include "common/json_writer.hpp"
#include "common/redact.hpp"
#include "settings/load_shape.hpp"

namespace tokbench::runner {

// "http://h:p/v1/chat/completions?x" -> "/v1/chat/completions"; "" when the URL has no path.
std::string url_path(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (slash == std::string::npos) return "";
  return url.substr(slash, url.find_first_of("?#", slash) - slash);
}

// A path that names the server, not an API: none, "/", or OpenAI's base URL ".../v1" (what an
// OpenAI client's base_url holds); --endpoint (default chat) completes it.
static bool base_path(const std::string& path) {
  return path.empty() || path == "/" || path == "/v1" || path == "/v1/";
}

// The API a URL's path names: its name, "" (a base path: --endpoint decides) or "?" (a path of
// something else).
std::string endpoint_of_path(const std::string& path) {
  if (base_path(path)) return "";
  const client::ApiAdapter* api = client::api_of_path(path);
  return api ? std::string(api->name()) : "?";
}

const client::ApiAdapter& api_of(const std::string& endpoint) {
  const client::ApiAdapter* api = client::find_api(endpoint);
  return api ? *api : client::default_api();
}

std::string endpoint_path(const std::string& endpoint) {
  return std::string(api_of(endpoint).path());
}

size_t RunConfig::sweep_points() const {
  return std::max({load.concurrency_sweep.size(), load.request_rate_sweep.size(),
                   load.num_prompts_sweep.size(), size_t{1}});
}

RunConfig RunConfig::sweep_point(size_t i) const {
  RunConfig c = *this;
  if (i < load.concurrency_sweep.size()) c.load.concurrency = load.concurrency_sweep[i];
  if (i < load.request_rate_sweep.size()) c.load.request_rate = load.request_rate_sweep[i];
  if (i < load.num_prompts_sweep.size()) c.load.num_prompts = load.num_prompts_sweep[i];
  c.load.concurrency_sweep.clear();
  c.load.request_rate_sweep.clear();
  c.load.num_prompts_sweep.clear();
  return c;
}

std::string RunConfig::sweep_label(size_t i) const {
  std::string out;
  auto add = [&](char tag, const std::string& v) {
    out += fmt::format("{}{}{}", out.empty() ? "" : "-", tag, v);
  };
  if (i < load.concurrency_sweep.size()) add('c', std::to_string(load.concurrency_sweep[i]));
  if (i < load.request_rate_sweep.size())
    add('r', std::isinf(load.request_rate_sweep[i])
                 ? std::string("inf")
                 : fmt::format("{}", load.request_rate_sweep[i]));
  if (i < load.num_prompts_sweep.size()) add('n', std::to_string(load.num_prompts_sweep[i]));
  if (!out.empty()) return out;
  // No list: the point's own load names it (a one-point --server-grid's point read "p1").
  const LoadShape shape = load_shape(*this);
  if (!shape.open_loop()) return fmt::format("c{}", shape.max_in_flight());
  if (load.request_rate > 0)
    return std::isinf(load.request_rate) ? std::string("rinf")
                                         : fmt::format("r{}", load.request_rate);
  return fmt::format("p{}", i + 1);
}

std::string RunConfig::resolved_endpoint() const {
  if (!target.endpoint.empty()) return target.endpoint;
  if (!target.url.empty()) {
    const std::string named = endpoint_of_path(url_path(target.url));
    if (!named.empty() && named != "?") return named;
  }
  return std::string(client::default_api().name());
}

std::string RunConfig::target_url() const {
  const std::string endpoint = resolved_endpoint();
  if (!target.url.empty()) {
    const std::string path = url_path(target.url);
    if (!base_path(path)) return target.url;
    const std::string root =
        target.url.substr(0, target.url.size() - path.size());  // http://host:port
    return fmt::format("{}{}", root, endpoint_path(endpoint));
  }
  if (target.host.empty() && !target.deploy_sh.empty())  // AtomGit: deploy.sh serves on port 8000
    return fmt::format("http://127.0.0.1:8000{}", endpoint_path(endpoint));
  if (target.host.empty()) return {};
  const bool v6 = target.host.find(':') != std::string::npos && target.host.front() != '[';
  return fmt::format("http://{}{}{}:{}{}", v6 ? "[" : "", target.host, v6 ? "]" : "", target.port,
                     endpoint_path(endpoint));
}

namespace {

// Each part's fields in the settings' one flat JSON object (its keys are the flags' names with
// underscores; resume compares them key by key, so the order is free). Secrets are redacted.
void write_part(JsonWriter& w, const TargetSettings& t) {
  w.field("url", redact_url(t.url)).field("host", t.host).field("port", t.port);
  w.field("endpoint", t.endpoint).field("model", t.model);
  w.field("skip_model_check", t.skip_model_check);
  w.field("api_key", t.api_key.empty() ? "" : std::string(kRedacted));
  w.key("headers").begin_array();
  for (const auto& h : t.headers) w.value(redact_header(h));
  w.end_array();
  w.field("request_id_header", t.request_id_header);
  w.field("ca_bundle", t.ca_bundle).field("tls_cert", t.tls_cert);
  w.field("tls_key", t.tls_key.empty() ? "" : std::string(kRedacted));
  w.field("insecure", t.insecure).field("transport", core::kTransportChoices.name(t.transport));
  w.field("engine", t.engine);
  w.field("server_cmd", redact_command(t.server_cmd)).field("deploy_sh", t.deploy_sh);
  w.field("model_path", t.model_path);
  w.field("server_ready_timeout_s", t.server_ready_timeout_s);
  w.field("server_stop_grace_s", t.server_stop_grace_s);
  w.field("server_grid", t.server_grid).field("server_devices", t.server_devices);
}

void write_optional(JsonWriter& w, std::string_view key, const auto& v) {
  w.key(key);
  if (v)
    w.value(*v);
  else
    w.null();
}

void write_part(JsonWriter& w, const RequestSettings& r) {
  w.field("stream", r.stream).field("max_tokens", r.max_tokens).field("ignore_eos", r.ignore_eos);
  write_optional(w, "min_tokens", r.min_tokens);
  write_optional(w, "temperature", r.temperature);
  w.field("extra_body", r.extra_body).field("continuous_usage", r.continuous_usage);
  w.field("compat", metrics::definitions_name(r.compat));
  w.field("timeout_s", r.timeout_s).field("retries", r.retries);
  w.field("max_event_bytes", r.max_event_bytes).field("max_body_bytes", r.max_body_bytes);
}

// A rate: a number, or "inf" (all due at once), which JSON has no number for.
void write_rate(JsonWriter& w, double rate) {
  if (std::isinf(rate))
    w.value("inf");
  else
    w.value(rate);
}

void write_part(JsonWriter& w, const LoadSettings& l) {
  w.field("concurrency", l.concurrency).field("num_prompts", l.num_prompts);
  w.key("request_rate");
  write_rate(w, l.request_rate);
  w.key("concurrency_sweep").begin_array();
  for (const int c : l.concurrency_sweep) w.value(c);
  w.end_array().key("request_rate_sweep").begin_array();
  for (const double r : l.request_rate_sweep) write_rate(w, r);
  w.end_array().key("num_prompts_sweep").begin_array();
  for (const int64_t n : l.num_prompts_sweep) w.value(n);
  w.end_array();
  w.field("arrivals", core::kArrivalKinds.name(l.arrivals)).field("burstiness", l.burstiness);
  w.field("duration_s", l.duration_s).field("grace_s", l.grace_s);
  w.field("ramp_up_s", l.ramp_up_s);
  w.field("ramp_up_strategy", kRampCurves.name(l.ramp_up_strategy));
  w.field("ramp_up_start_rps", l.ramp_up_start_rps).field("ramp_up_measured", l.ramp_up_measured);
  w.field("pressure", l.pressure).field("warmup", l.warmup);
  w.field("warm_connections", kToggles.name(l.warm_connections));
  w.field("seed", l.seed).field("workers", l.workers).field("drain_s", l.drain_s);
}

void write_part(JsonWriter& w, const WorkloadSettings& d) {
  w.field("dataset", d.dataset.text()).field("tokenizer", d.tokenizer);
  w.field("input_len", d.input_len).field("output_len", d.output_len);
  w.field("input_len_range", d.input_len_range).field("prefix_len", d.prefix_len);
  w.field("output_len_range", d.output_len_range);
  w.field("sharegpt_output_len", d.sharegpt_output_len);
  w.key("lora").begin_array();
  for (const auto& name : d.lora) w.value(name);
  w.end_array();
  w.field("turns", d.turns).field("think_time_ms", d.think_time_ms);
  w.field("multi_turn", d.multi_turn);
  w.field("image", d.image).field("images_per_request", d.images_per_request);
  w.field("documents", d.documents);
  w.field("trace_block_size", d.trace_block_size).field("trace_speed", d.trace_speed);
}

void write_part(JsonWriter& w, const ExperimentSettings& x) {
  w.field("search", kSearchAxes.name(x.search)).field("slo", x.slo);
  w.field("search_min", x.search_min).field("search_max", x.search_max);
  w.field("search_resolution", x.search_resolution).field("search_margin", x.search_margin);
  w.field("repeats", x.repeats).field("confidence", x.confidence);
  w.field("adaptive_window_s", x.adaptive_window_s).field("adaptive_max", x.adaptive_max);
  w.field("goodput", x.goodput).field("resume", x.resume);
  w.field("reset_prefix_cache", x.reset_prefix_cache);
  w.field("stop_on_saturation", x.stop_on_saturation);
  w.field("saturation_window_s", x.saturation_window_s);
}

void write_part(JsonWriter& w, const ObserveSettings& o) {
  w.field("server_metrics", redact_url(o.server_metrics));
  w.field("scrape_interval_ms", o.scrape_interval_ms);
  w.field("server_metrics_auth", o.server_metrics_auth);
  w.field("profile_window", o.profile_window).field("slice_s", o.slice_s);
  w.key("telemetry").begin_array();
  for (const auto& t : o.telemetry) w.value(redact_url(t));
  w.end_array();
  w.field("telemetry_interval_ms", o.telemetry_interval_ms);
  w.field("telemetry_idle_s", o.telemetry_idle_s);
  w.field("price_per_device_hour", o.price_per_device_hour);
  w.field("price_per_kwh", o.price_per_kwh);
  w.field("check_answers", o.check_answers).field("keep_outputs", o.keep_outputs);
  w.field("determinism_probe", o.determinism_probe);
}

void write_part(JsonWriter& w, const OutputSettings& o) {
  w.field("output_dir", o.output_dir).field("model_abbr", o.model_abbr);
  w.field("history", o.history);
  w.key("labels").begin_array();
  for (const auto& l : o.labels) w.value(l);
  w.end_array();
}

}  // namespace

std::string RunConfig::to_json() const {
  JsonWriter w;
  w.begin_object();
  write_part(w, target);
  write_part(w, request);
  write_part(w, load);
  write_part(w, workload);
  write_part(w, experiment);
  write_part(w, observe);
  write_part(w, output);
  w.end_object();
  return w.take();
}

}  // namespace tokbench::runner
