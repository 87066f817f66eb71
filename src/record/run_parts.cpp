#include "record/run_parts.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>

namespace tokbench::record {

std::string WindowSpec::text() const { return fmt::format("{}:{}", start_s, duration_s); }

WindowSpec parse_profile_window(std::string_view text) {
  WindowSpec w{-1, -1};
  char extra = 0;
  const std::string s(text);
  if (std::sscanf(s.c_str(), "%lf:%lf%c", &w.start_s, &w.duration_s, &extra) != 2 ||
      !(w.start_s >= 0) || !(w.duration_s > 0))
    throw std::invalid_argument(fmt::format(
        "--profile-window: bad value '{}' (expected START_S:DURATION_S, e.g. 10:5)", text));
  return w;
}

void write(JsonWriter& w, const SyntheticFacts& v) {
  json::write_object<SyntheticFacts>(w, v, kSyntheticFields);
}
void write(JsonWriter& w, const TraceFacts& v) {
  json::write_object<TraceFacts>(w, v, kTraceFields);
}
void write(JsonWriter& w, const ProfileFacts& v) {
  json::write_object<ProfileFacts>(w, v, kProfileFields);
}

void write(JsonWriter& w, const ServerProcessFacts& v) {
  w.begin_object();
  json::write_fields<ServerProcessFacts>(w, v, kServerProcessFields);
  w.key("log_summary");
  json::write_object<ServerLogSummary>(w, v.log_summary, kServerLogFields);
  w.end_object();
}

// A window's SLO values are an object keyed by the SLO's text, as the page reads them.
void write(JsonWriter& w, const AdaptiveLog& v) {
  w.begin_object();
  json::write_fields<AdaptiveLog>(w, v, kAdaptiveLogFields);
  w.key("windows").begin_array();
  for (const auto& x : v.windows) {
    w.begin_object();
    json::write_fields<AdaptiveWindow>(w, x, kAdaptiveWindowFields);
    w.key("values").begin_object();
    for (size_t i = 0; i < v.slos.size() && i < x.values.size(); ++i)
      w.field(v.slos[i], x.values[i]);
    w.end_object().end_object();
  }
  w.end_array().end_object();
}

void read(simdjson::dom::element o, SyntheticFacts& v) {
  json::read_fields<SyntheticFacts>(o, v, kSyntheticFields);
}
void read(simdjson::dom::element o, TraceFacts& v) {
  json::read_fields<TraceFacts>(o, v, kTraceFields);
}
void read(simdjson::dom::element o, ProfileFacts& v) {
  json::read_fields<ProfileFacts>(o, v, kProfileFields);
}

void read(simdjson::dom::element o, ServerProcessFacts& v) {
  json::read_fields<ServerProcessFacts>(o, v, kServerProcessFields);
  simdjson::dom::element log;
  if (!o["log_summary"].get(log) && log.is_object())
    json::read_fields<ServerLogSummary>(log, v.log_summary, kServerLogFields);
}

void read(simdjson::dom::element o, AdaptiveLog& v) {
  json::read_fields<AdaptiveLog>(o, v, kAdaptiveLogFields);
  simdjson::dom::array windows;
  if (o["windows"].get_array().get(windows)) return;
  for (simdjson::dom::element e : windows) {
    if (!e.is_object()) continue;
    AdaptiveWindow x;
    json::read_fields<AdaptiveWindow>(e, x, kAdaptiveWindowFields);
    simdjson::dom::element values;
    const bool has_values = !e["values"].get(values) && values.is_object();
    for (const auto& slo : v.slos)
      x.values.push_back(has_values ? json::optional_number(values, slo) : std::nullopt);
    v.windows.push_back(std::move(x));
  }
}

}  // namespace tokbench::record
