#include "point/class_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "metrics/slo.hpp"
#include "report/outputs.hpp"

namespace tokbench::runner {

namespace {

// Per request, a class's SLOs as bounds (TTFT, TPOT, E2EL; the tightest of each): its goodput
// counts the requests within every one. An ITL SLO has no per-request bound.
metrics::GoodputSpec bounds_of(const std::vector<metrics::RunSlo>& slos) {
  metrics::GoodputSpec g;
  auto tighten = [](std::optional<double>& b, double v) { b = b ? std::min(*b, v) : v; };
  for (const auto& s : slos) {
    if (s.metric == "TTFT") tighten(g.ttft_ms, s.bound_ms);
    if (s.metric == "TPOT") tighten(g.tpot_ms, s.bound_ms);
    if (s.metric == "E2EL") tighten(g.e2el_ms, s.bound_ms);
  }
  return g;
}

double common(const metrics::MetricSet& m, const char* key) {
  const auto* c = m.common_metric(key);
  return c && c->known ? c->value : 0.0;
}

std::optional<double> stat(const metrics::MetricSet& m, const char* row, const char* s) {
  return metrics::row_statistic(m, row, s);
}

std::string ms(std::optional<double> v) { return v ? format_short(*v) + " ms" : "n/a"; }

// The longest a class waited for its answer to start: its slowest TTFT (its slowest whole answer
// where nothing streamed).
double longest_wait_ms(const metrics::MetricSet& m) {
  if (const auto t = stat(m, "TTFT", "max")) return *t;
  return stat(m, "E2EL", "max").value_or(0);
}

double starved_wait(const metrics::Fairness& f) {
  for (const auto& c : f.classes)
    if (c.name == f.most_starved) return c.longest_wait_ms;
  return 0;
}

std::string class_json(const ClassResult& c, const metrics::ClassFairness* f) {
  JsonWriter w;
  w.begin_object().field("weight", c.facts.weight).field("load", c.facts.load);
  w.field("requests", c.requests).field("failed", c.failed);
  if (c.apart > 0) w.field("apart", c.apart);
  w.key("slo").begin_array();
  for (const auto& s : c.slos) {
    w.begin_object().field("slo", s.text);
    if (s.value)
      w.field("value", *s.value);
    else
      w.key("value").null();
    w.field("met", s.met).end_object();
  }
  w.end_array();
  if (c.good >= 0) {
    w.field("good_requests", c.good);
    w.field("attainment", c.requests > 0 ? static_cast<double>(c.good) / c.requests : 0.0);
  }
  if (f) w.field("token_share", f->token_share).field("weight_share", f->weight_share);
  report::metric_set_fields(w, c.metrics);
  return w.end_object().take();
}

std::string fairness_json(const metrics::Fairness& f) {
  JsonWriter w;
  w.begin_object();
  auto opt = [&w](const char* key, const std::optional<double>& v) {
    if (v)
      w.field(key, *v);
    else
      w.key(key).null();
  };
  opt("jain_throughput", f.jain_throughput);
  opt("jain_goodput", f.jain_goodput);
  w.field("largest_share_gap", f.largest_share_gap).field("most_starved", f.most_starved);
  w.field("rule",
          "each class's output tokens/s (and goodput) over the run's span, divided by its weight; "
          "Jain's index (sum x)^2 / (n sum x^2) over them; token share against weight share");
  w.key("classes").begin_array();
  for (const auto& c : f.classes) {
    w.begin_object().field("name", c.name).field("weight", c.weight);
    w.field("token_throughput", c.token_throughput)
        .field("weighted_throughput", c.weighted_throughput);
    opt("goodput", c.goodput);
    opt("weighted_goodput", c.weighted_goodput);
    w.field("token_share", c.token_share).field("weight_share", c.weight_share);
    w.field("longest_wait_ms", c.longest_wait_ms).end_object();
  }
  return w.end_array().end_object().take();
}

std::string csv_of(const ClassResults& r) {
  std::string csv =
      "class,weight,requests,failed,ttft_mean_ms,ttft_p99_ms,tpot_mean_ms,tpot_p99_ms,"
      "e2el_mean_ms,e2el_p99_ms,output_token_throughput,token_share,weight_share,good_requests,"
      "slo_met\n";
  auto v = [](std::optional<double> x) { return x ? format_round4(*x) : std::string(); };
  for (size_t i = 0; i < r.classes.size(); ++i) {
    const ClassResult& c = r.classes[i];
    const metrics::ClassFairness* f = r.fairness ? &r.fairness->classes[i] : nullptr;
    const bool met = std::all_of(c.slos.begin(), c.slos.end(), [](auto& s) { return s.met; });
    csv += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", c.facts.name, c.facts.weight, c.requests,
        c.failed, v(stat(c.metrics, "TTFT", "mean")), v(stat(c.metrics, "TTFT", "p99")),
        v(stat(c.metrics, "TPOT", "mean")), v(stat(c.metrics, "TPOT", "p99")),
        v(stat(c.metrics, "E2EL", "mean")), v(stat(c.metrics, "E2EL", "p99")),
        format_round4(common(c.metrics, "output_token_throughput")),
        f ? format_round4(f->token_share) : "", f ? format_round4(f->weight_share) : "",
        c.good >= 0 ? std::to_string(c.good) : "",
        c.slos.empty() ? ""
        : met          ? "true"
                       : "false");
  }
  return csv;
}

// A class's console line; its SLOs on a line of their own when they would pass 120 columns.
std::vector<std::string> console_lines(const ClassResult& c) {
  constexpr size_t kColumns = 120;
  std::string line = fmt::format(
      "class {} ({}): {} req{}, TTFT p99 {}, TPOT mean {}, {} tok/s", c.facts.name, c.facts.load,
      c.requests, c.failed > 0 ? fmt::format(" ({} failed)", c.failed) : "",
      ms(stat(c.metrics, "TTFT", "p99")), ms(stat(c.metrics, "TPOT", "mean")),
      format_short(common(c.metrics, "output_token_throughput")));
  std::string slos;
  for (const auto& s : c.slos)
    slos += fmt::format("{}{} {}", slos.empty() ? "" : "; ", s.text, s.met ? "met" : "MISSED");
  if (slos.empty()) return {line};
  if (line.size() + 2 + slos.size() <= kColumns) return {line + "; " + slos};
  return {line, "  " + slos};
}

}  // namespace

struct ClassesPass::Lane {
  metrics::MetricsPass pass;
  metrics::GoodputSpec bounds;
  std::vector<metrics::RunSlo> slos;
  int64_t requests = 0, failed = 0, apart = 0, good = 0;
};

ClassesPass::ClassesPass(const runfolder::RunManifest& m, metrics::Definitions defs)
    : classes_(m.classes) {
  for (const auto& k : classes_) {
    auto lane = std::make_unique<Lane>(Lane{metrics::MetricsPass(m.facts, {defs}), {}, {}});
    if (!k.slo.empty()) lane->slos = metrics::parse_run_slos(k.slo);
    lane->bounds = bounds_of(lane->slos);
    lanes_.push_back(std::move(lane));
  }
}

ClassesPass::~ClassesPass() = default;

void ClassesPass::add(const record::RequestRecord& r) {
  if (r.warmup || lanes_.empty()) return;
  const auto at = std::find_if(classes_.begin(), classes_.end(),
                               [&r](const auto& k) { return k.name == r.traffic_class; });
  if (at == classes_.end()) {
    if (unknown_++ == 0) unknown_example_ = r.traffic_class;
    return;
  }
  Lane& lane = *lanes_[static_cast<size_t>(at - classes_.begin())];
  lane.pass.add(r);
  if (r.apart()) {
    ++lane.apart;
    return;
  }
  ++lane.requests;
  if (!r.ok()) ++lane.failed;
  if (!lane.bounds.empty() && metrics::judge_slo(r, lane.bounds).good) ++lane.good;
}

ClassResults ClassesPass::finish(double span_s) {
  ClassResults out;
  if (lanes_.empty()) return out;
  std::vector<metrics::ClassService> service;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    Lane& lane = *lanes_[i];
    ClassResult& c = out.classes.emplace_back();
    c.facts = classes_[i];
    c.metrics = std::move(lane.pass.finish().front());
    c.requests = lane.requests;
    c.failed = lane.failed;
    c.apart = lane.apart;
    if (!lane.bounds.empty()) c.good = lane.good;
    for (const auto& slo : lane.slos) {
      ClassSlo& s = c.slos.emplace_back();
      s.text = slo.text();
      s.value = slo.value(c.metrics);
      s.met = s.value && *s.value <= slo.bound_ms;
      if (!s.met)
        out.missed.push_back(s.value
                                 ? fmt::format("class {}: {} {:.1f} ms > {} ms", c.facts.name,
                                               slo.name(), *s.value, format_short(slo.bound_ms))
                                 : fmt::format("class {}: {} n/a (no successful request told it)",
                                               c.facts.name, slo.name()));
    }
    service.push_back({c.facts.name, c.facts.weight,
                       static_cast<int64_t>(common(c.metrics, "total_generated_tokens")), c.good,
                       longest_wait_ms(c.metrics)});
  }
  if (span_s > 0) out.fairness = metrics::fairness(service, span_s);
  JsonWriter w;
  w.begin_object();
  for (size_t i = 0; i < out.classes.size(); ++i)
    w.field_raw(out.classes[i].facts.name,
                class_json(out.classes[i], out.fairness ? &out.fairness->classes[i] : nullptr));
  out.classes_json = w.end_object().take();
  if (out.fairness) out.fairness_json = fairness_json(*out.fairness);
  out.csv = csv_of(out);
  for (const auto& c : out.classes)
    for (auto& line : console_lines(c)) out.console_lines.push_back(std::move(line));
  if (out.fairness && out.fairness->jain_throughput) {
    out.console_lines.push_back(fmt::format(
        "fairness: Jain's index {:.3f} over tokens/s per weight{}; largest share gap {:.1f} points",
        *out.fairness->jain_throughput,
        out.fairness->jain_goodput
            ? fmt::format(", {:.3f} over goodput", *out.fairness->jain_goodput)
            : "",
        out.fairness->largest_share_gap * 100));
    out.console_lines.push_back(fmt::format("  longest wait for an answer to start: {} ({})",
                                            out.fairness->most_starved,
                                            ms(starved_wait(*out.fairness))));
  }
  if (unknown_ > 0)
    out.records_without_class.push_back(fmt::format(
        "{} measured record(s) name no class of the manifest (first: \"{}\"): left out of every "
        "class's figures, counted in the run's",
        unknown_, unknown_example_));
  return out;
}

}  // namespace tokbench::runner
