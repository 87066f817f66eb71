// report/telemetry_outputs: what the telemetry view (report/telemetry_view) makes with the
// client's counts — the energy figures and the cost — and its views: result.json's object, the
// CSV and the console's lines. Declared in report/telemetry_view.hpp.
#include <fmt/format.h>

#include <set>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "report/telemetry_view.hpp"

namespace tokbench::report {

namespace {

bool measured(const DeviceTelemetry& d) {
  return d.accelerator() && (d.series[0] || !d.energy.method.empty());
}

void summary_object(JsonWriter& w, const metrics::Summary& s, const char* unit) {
  w.begin_object()
      .field("unit", unit)
      .field("mean", s.mean)
      .field("min", s.min)
      .field("max", s.max);
  w.field("p50", s.median).field("p99", s.p99).field("n", s.n).end_object();
}

void series_object(JsonWriter& w, const char* key,
                   const std::optional<metrics::Summary> (&series)[kSeriesCount]) {
  w.key(key).begin_object();
  for (size_t i = 0; i < kSeriesCount; ++i)
    if (series[i]) {
      w.key(kSeries[i].key);
      summary_object(w, *series[i], kSeries[i].unit);
    }
  w.end_object();
}

void energy_object(JsonWriter& w, const metrics::Energy& e) {
  w.begin_object().field("known", e.known);
  if (e.known) w.field("joules", e.joules);
  w.field("method", e.method)
      .field("why", e.why)
      .field("samples", e.samples)
      .field("max_gap_s", e.max_gap_s);
  w.field("resets", e.resets).end_object();
}

std::string short_number(double v) { return format_round4(v); }

}  // namespace

EnergyFigures energy_figures(const TelemetryView& v, double seconds, double output_tokens,
                             double input_tokens, int64_t requests,
                             std::optional<double> goodput_rps) {
  (void)input_tokens;
  EnergyFigures e;
  e.seconds = seconds;
  std::set<std::string> methods;
  bool all_idle = true;
  double idle_w = 0;
  for (const auto& d : v.devices) {
    if (!measured(d)) continue;
    ++e.devices;
    if (!d.energy.known && e.why.empty()) e.why = fmt::format("{}: {}", d.device, d.energy.why);
    if (d.energy.known) e.joules += d.energy.joules;
    methods.insert(d.energy.method);
    if (d.idle_w)
      idle_w += *d.idle_w;
    else
      all_idle = false;
  }
  if (e.devices == 0) {
    e.why = v.devices.empty() ? "no device was read" : "no accelerator's power or energy was read";
    return e;
  }
  e.method = methods.size() == 1 ? *methods.begin() : "mixed: each device by its own method";
  if (!e.why.empty()) {
    e.joules = 0;
    return e;
  }
  if (seconds <= 0) {
    e.why = "the measured phase has no length";
    return e;
  }
  e.known = true;
  e.mean_power_w = e.joules / seconds;
  if (output_tokens > 0) {
    e.j_per_output_token = e.joules / output_tokens;
    if (e.joules > 0) e.output_tokens_per_j = output_tokens / e.joules;
  }
  if (requests > 0) e.j_per_request = e.joules / static_cast<double>(requests);
  if (goodput_rps && e.mean_power_w > 0) e.goodput_per_w = *goodput_rps / e.mean_power_w;
  if (all_idle && v.idle) {
    e.idle_w = idle_w;
    e.joules_above_idle = e.joules - idle_w * seconds;
  }
  return e;
}

Cost cost_of(const EnergyFigures& e, const Pricing& p, double input_tokens, double output_tokens) {
  Cost c;
  std::vector<std::string> parts;
  if (p.per_device_hour > 0) {
    if (e.devices == 0) {
      c.why =
          "--price-per-device-hour needs the devices' count: no accelerator was read (give "
          "--telemetry)";
      return c;
    }
    c.dollars += static_cast<double>(e.devices) * e.seconds / 3600 * p.per_device_hour;
    parts.push_back(fmt::format("{} device(s){} × {:.3f} s × ${}/device-hour", e.devices,
                                e.devices_from.empty() ? "" : " (" + e.devices_from + ")",
                                e.seconds, short_number(p.per_device_hour)));
  }
  if (p.per_kwh > 0) {
    if (!e.known) {
      c.why = "--price-per-kwh needs the energy, which is not known: " + e.why;
      return c;
    }
    c.dollars += e.joules / 3.6e6 * p.per_kwh;
    parts.push_back(fmt::format("{:.6f} kWh × ${}/kWh", e.joules / 3.6e6, short_number(p.per_kwh)));
  }
  c.known = true;
  if (input_tokens > 0) c.per_m_input = c.dollars / input_tokens * 1e6;
  if (output_tokens > 0) c.per_m_output = c.dollars / output_tokens * 1e6;
  if (input_tokens + output_tokens > 0)
    c.per_m_total = c.dollars / (input_tokens + output_tokens) * 1e6;
  std::string joined;
  for (const auto& s : parts) joined += (joined.empty() ? "" : " + ") + s;
  c.basis = joined;
  c.assumptions = fmt::format(
      "the measured phase's whole cost ({}), at this load, charged in full to the input tokens, "
      "in full to the output tokens, and to both together; idle time between runs is not counted",
      joined);
  return c;
}

std::string telemetry_json(const TelemetryView& v, const EnergyFigures& e,
                           const std::optional<Cost>& cost) {
  JsonWriter w;
  w.begin_object().field("interval_ms", v.interval_ms);
  w.key("sources").begin_array();
  for (const auto& s : v.sources) {
    w.begin_object()
        .field("name", s.name)
        .field("dialects", s.dialects)
        .field("not_recognised", s.not_recognised);
    w.field("not_recognised_total", s.not_recognised_total)
        .field("scrapes", s.scrapes)
        .field("errors", s.errors)
        .field("devices_dropped", s.devices_dropped);
    w.field("first_error", s.first_error).field("last_answer_s", s.last_answer_s).end_object();
  }
  w.end_array().key("devices").begin_array();
  for (const auto& d : v.devices) {
    w.begin_object()
        .field("source", d.source)
        .field("device", d.device)
        .field("dialect", d.dialect);
    series_object(w, "series", d.series);
    series_object(w, "stable_series", d.stable_series);
    w.key("energy");
    energy_object(w, d.energy);
    if (d.stable_energy) {
      w.key("stable_energy");
      energy_object(w, *d.stable_energy);
    }
    w.field("idle_w", d.idle_w);
    w.field("unhealthy_scrapes", d.unhealthy);
    if (!d.slices.empty()) {  // --slice-s: the client's slices, on the same grid
      w.key("slices").begin_array();
      for (const auto& s : d.slices) {
        w.begin_object().field("start_s", s.start_s).field("end_s", s.end_s);
        w.field("power_w", s.power_w);
        w.field("util_pct", s.util_pct);
        w.field("samples", s.samples);
        w.key("energy_j");
        if (s.energy.known)
          w.value(s.energy.joules);
        else
          w.null();
        if (!s.energy.known) w.field("energy_why", s.energy.why);
        w.end_object();
      }
      w.end_array();
    }
    w.end_object();
  }
  w.end_array();
  w.key("energy")
      .begin_object()
      .field("known", e.known)
      .field("why", e.why)
      .field("method", e.method);
  w.field("devices", e.devices).field("seconds", e.seconds);
  if (e.known) w.field("joules", e.joules).field("mean_power_w", e.mean_power_w);
  w.field("j_per_output_token", e.j_per_output_token);
  w.field("output_tokens_per_j", e.output_tokens_per_j);
  w.field("j_per_request", e.j_per_request);
  w.field("goodput_per_w", e.goodput_per_w);
  w.field("idle_w", e.idle_w);
  w.field("joules_above_idle", e.joules_above_idle);
  w.end_object();
  w.key("cost");
  if (!cost) {
    w.null();
  } else {
    w.begin_object().field("known", cost->known).field("why", cost->why);
    if (cost->known) w.field("dollars", cost->dollars);
    w.field("usd_per_m_input_tokens", cost->per_m_input);
    w.field("usd_per_m_output_tokens", cost->per_m_output);
    w.field("usd_per_m_tokens", cost->per_m_total);
    w.field("assumptions", cost->assumptions).end_object();
  }
  w.field("notes", v.notes);
  w.key("page").begin_array();
  for (const auto& p : v.page) {
    w.begin_object().field("label", p.label).key("points").begin_array();
    for (const auto& [t, power, util] : p.points) {
      w.begin_array().value(t);
      if (power)
        w.value(*power);
      else
        w.null();
      if (util)
        w.value(*util);
      else
        w.null();
      w.end_array();
    }
    w.end_array().end_object();
  }
  w.end_array();
  return w.end_object().take();
}

std::string telemetry_csv(const TelemetryView& v) {
  std::string csv =
      "source,device,dialect,window,series,unit,mean,min,max,p50,p99,n,energy_j,energy_method,"
      "energy_why\n";
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (const auto& d : v.devices) {
    for (const auto& [window, series, energy] :
         {std::tuple{"phase", &d.series, std::optional<metrics::Energy>(d.energy)},
          {"stable", &d.stable_series, d.stable_energy}}) {
      for (size_t i = 0; i < kSeriesCount; ++i) {
        const auto& s = (*series)[i];
        if (!s) continue;
        const bool power = i == 0 && energy;
        csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", quoted(d.source),
                           quoted(d.device), d.dialect, window, kSeries[i].key, kSeries[i].unit,
                           format_round4(s->mean), format_round4(s->min), format_round4(s->max),
                           format_round4(s->median), format_round4(s->p99), s->n,
                           power && energy->known ? format_round4(energy->joules) : std::string(),
                           power ? quoted(energy->method) : std::string(),
                           power ? quoted(energy->why) : std::string());
      }
    }
  }
  return csv;
}

std::vector<std::string> telemetry_lines(const TelemetryView& v, const EnergyFigures& e,
                                         const std::optional<Cost>& cost) {
  std::vector<std::string> out;
  std::set<std::string> dialects;
  int64_t accelerators = 0;
  double power = 0, util = 0;
  int64_t with_power = 0, with_util = 0;
  for (const auto& d : v.devices) {
    if (!d.accelerator()) continue;
    ++accelerators;
    dialects.insert(d.dialect);
    if (d.series[0]) power += d.series[0]->mean, ++with_power;
    if (d.series[1]) util += d.series[1]->mean, ++with_util;
  }
  std::string names;
  for (const auto& d : dialects) names += (names.empty() ? "" : ", ") + d;
  if (accelerators > 0) {
    std::string line = fmt::format("devices: {} accelerator(s) ({})", accelerators, names);
    if (with_power)
      line += fmt::format(", power {:.1f} W in all (the devices' means summed)", power);
    if (with_util)
      line += fmt::format(", utilisation {:.1f} % (mean of the devices)",
                          util / static_cast<double>(with_util));
    out.push_back(line);
  } else {
    out.push_back(v.devices.empty() ? "devices: none read from --telemetry"
                                    : "devices: no accelerator among the devices read");
  }
  for (const auto& d :
       v.devices) {  // node-exporter's host: its CPU use and traffic beside the devices
    const auto& cpu = d.series[kFirstRateSeries];
    if (d.accelerator() || !cpu) continue;
    std::string line =
        fmt::format("{}: CPU {:.1f} % mean (max {:.1f} %)", d.device, cpu->mean, cpu->max);
    if (const auto& rx = d.series[kFirstRateSeries + 1])
      line += fmt::format(", network in {:.3g} MB/s", rx->mean);
    if (const auto& tx = d.series[kFirstRateSeries + 2])
      line += fmt::format(", out {:.3g} MB/s", tx->mean);
    out.push_back(line + " (node-exporter, " + d.source + ")");
  }
  if (e.known) {
    std::string line = fmt::format("energy: {:.1f} J over {:.2f} s ({}, mean {:.1f} W)", e.joules,
                                   e.seconds, e.method, e.mean_power_w);
    if (e.j_per_output_token)
      line += fmt::format(" = {:.4g} J/output token, {:.4g} output tokens/J", *e.j_per_output_token,
                          *e.output_tokens_per_j);
    if (e.j_per_request) line += fmt::format(", {:.4g} J/request", *e.j_per_request);
    if (e.goodput_per_w) line += fmt::format(", goodput {:.4g} req/s per W", *e.goodput_per_w);
    if (e.idle_w)
      line += fmt::format("; idle {:.1f} W, {:.1f} J above idle", *e.idle_w, *e.joules_above_idle);
    out.push_back(line);
  } else if (accelerators > 0) {
    out.push_back("energy: not known: " + e.why);
  }
  if (cost) out.push_back(cost_line(*cost));
  return out;
}

std::string cost_line(const Cost& cost) {
  if (!cost.known) return "cost: not known: " + cost.why;
  std::string line = fmt::format("cost: ${:.6f} for the phase", cost.dollars);
  if (cost.per_m_output) line += fmt::format(" = ${:.4f}/M output tokens", *cost.per_m_output);
  if (cost.per_m_input) line += fmt::format(", ${:.4f}/M input tokens", *cost.per_m_input);
  return line + " (" + cost.basis + "; each charges the whole phase to those tokens)";
}

}  // namespace tokbench::report
