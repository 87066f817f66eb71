#include "record/server_view.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>
#include <stdexcept>

#include "common/json_fields.hpp"
#include "common/json_writer.hpp"

namespace tokbench::record {

std::optional<double> HistogramDelta::quantile(double q) const {
  if (count <= 0 || buckets.empty()) return std::nullopt;
  const double rank = q * count;
  double prev_le = 0, prev_count = 0;
  for (const auto& [le, c] : buckets) {
    if (c >= rank) {
      if (std::isinf(le))
        return prev_le;  // beyond the last finite bound: Prometheus answers with it
      const double in_bucket = c - prev_count;
      return in_bucket > 0 ? prev_le + (le - prev_le) * (rank - prev_count) / in_bucket : le;
    }
    prev_le = le;
    prev_count = c;
  }
  return prev_le;
}

std::optional<std::pair<double, double>> HistogramDelta::quantile_bucket(double q) const {
  if (count <= 0 || buckets.empty()) return std::nullopt;
  const double rank = q * count;
  double prev_le = 0;
  for (const auto& [le, c] : buckets) {
    if (c >= rank) return std::pair{prev_le, le};
    prev_le = le;
  }
  return std::pair{prev_le, INFINITY};
}

}  // namespace tokbench::record

namespace tokbench::record {

namespace {

void hist_to_json(JsonWriter& w, const char* key, const std::optional<HistogramDelta>& h) {
  w.key(key);
  if (!h) {
    w.null();
    return;
  }
  w.begin_object().field("sum", h->sum).field("count", h->count).key("buckets").begin_array();
  for (const auto& [le, c] : h->buckets)
    w.begin_array().value(std::isinf(le) ? -1.0 : le).value(c).end_array();
  w.end_array().end_object();
}

using json::number_of;

std::optional<HistogramDelta> hist_from_json(simdjson::dom::element o, const char* key) {
  simdjson::dom::element h;
  if (o[key].get(h) || h.is_null()) return std::nullopt;
  HistogramDelta d;
  d.sum = number_of(h["sum"].value());
  d.count = number_of(h["count"].value());
  const simdjson::dom::array buckets =
      h["buckets"].get_array().value();  // a named value: no dangling temporary
  for (auto b : buckets) {
    const simdjson::dom::array pair = b.get_array().value();
    const double le = number_of(pair.at(0).value());
    d.buckets.emplace_back(le < 0 ? INFINITY : le, number_of(pair.at(1).value()));
  }
  return d;
}

}  // namespace

std::string summary_to_json(const ServerSummary& s) {
  JsonWriter w;
  w.begin_object()
      .field("url", s.url)
      .field("dialect", s.dialect)
      .field("duration_s", s.duration_s);
  w.field("scrapes", s.scrapes);
  hist_to_json(w, "ttft", s.ttft);
  hist_to_json(w, "itl", s.itl);
  hist_to_json(w, "e2e", s.e2e);
  hist_to_json(w, "queue", s.queue);
  w.key("generation_tokens").value(s.generation_tokens);
  w.key("prompt_tokens").value(s.prompt_tokens);
  w.key("spec_acceptance_rate").value(s.spec_acceptance_rate);
  w.key("spec_mean_acceptance_length").value(s.spec_mean_acceptance_length);
  w.key("spec_acceptance_per_position").begin_array();
  for (double v : s.spec_acceptance_per_position) w.value(v);
  w.end_array();
  hist_to_json(w, "prefill", s.prefill);
  hist_to_json(w, "decode", s.decode);
  hist_to_json(w, "inference", s.inference);
  w.key("prefix_cache_hit_rate").value(s.prefix_cache_hit_rate);
  w.key("preemptions").value(s.preemptions);
  w.key("aborted").value(s.aborted);
  w.key("kv_transfer").begin_array();
  for (const auto& [name, v] : s.kv_transfer) w.begin_array().value(name).value(v).end_array();
  w.end_array();
  w.key("running_waiting").begin_array();
  for (const auto& [t, r, q] : s.running_waiting)
    w.begin_array().value(t).value(r).value(q).end_array();
  w.end_array();
  w.key("kv_usage").begin_array();
  for (const auto& [t, v] : s.kv_usage) w.begin_array().value(t).value(v).end_array();
  w.end_array().end_object();
  return w.take();
}

ServerSummary summary_from_json(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element o;
  if (parser.parse(json.data(), json.size()).get(o) || !o.is_object())
    throw std::runtime_error("the saved server summary is not a JSON object");
  try {
    ServerSummary s;
    std::string_view url;
    if (!o["url"].get_string().get(url)) s.url = std::string(url);
    std::string_view dialect;
    if (!o["dialect"].get_string().get(dialect)) s.dialect = std::string(dialect);
    s.duration_s = number_of(o["duration_s"].value());
    s.scrapes = static_cast<int64_t>(number_of(o["scrapes"].value()));
    s.ttft = hist_from_json(o, "ttft");
    s.itl = hist_from_json(o, "itl");
    s.e2e = hist_from_json(o, "e2e");
    s.queue = hist_from_json(o, "queue");
    s.generation_tokens = json::strict_number(o, "generation_tokens");
    s.prompt_tokens = json::strict_number(o, "prompt_tokens");
    s.spec_acceptance_rate = json::strict_number(o, "spec_acceptance_rate");
    s.spec_mean_acceptance_length = json::strict_number(o, "spec_mean_acceptance_length");
    const simdjson::dom::array series = o["running_waiting"].get_array().value();
    for (auto p : series) {
      const simdjson::dom::array a = p.get_array().value();
      s.running_waiting.emplace_back(static_cast<int64_t>(number_of(a.at(0).value())),
                                     number_of(a.at(1).value()), number_of(a.at(2).value()));
    }
    // Since the telemetry issue; an older folder has none of these.
    simdjson::dom::array arr;
    if (!o["spec_acceptance_per_position"].get_array().get(arr))
      for (auto v : arr) s.spec_acceptance_per_position.push_back(number_of(v));
    s.prefill = hist_from_json(o, "prefill");
    s.decode = hist_from_json(o, "decode");
    s.inference = hist_from_json(o, "inference");
    s.prefix_cache_hit_rate = json::strict_number(o, "prefix_cache_hit_rate");
    s.preemptions = json::strict_number(o, "preemptions");
    s.aborted = json::strict_number(o, "aborted");
    if (!o["kv_transfer"].get_array().get(arr))
      for (auto p : arr) {
        const simdjson::dom::array a = p.get_array().value();
        s.kv_transfer.emplace_back(std::string(a.at(0).get_string().value()),
                                   number_of(a.at(1).value()));
      }
    if (!o["kv_usage"].get_array().get(arr))
      for (auto p : arr) {
        const simdjson::dom::array a = p.get_array().value();
        s.kv_usage.emplace_back(static_cast<int64_t>(number_of(a.at(0).value())),
                                number_of(a.at(1).value()));
      }
    return s;
  } catch (const simdjson::simdjson_error& e) {
    throw std::runtime_error(fmt::format("the saved server summary is malformed ({})", e.what()));
  }
}

}  // namespace tokbench::record
