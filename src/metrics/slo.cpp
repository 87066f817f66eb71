#include "metrics/slo.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <stdexcept>

#include "common/stats.hpp"

namespace tokbench::metrics {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "500", "500ms", "0.5s" -> ms; nullopt if it is not a positive number of ms or s.
std::optional<double> parse_ms(std::string_view v) {
  double scale = 1;
  if (v.ends_with("ms")) {
    v.remove_suffix(2);
  } else if (v.ends_with("s")) {
    v.remove_suffix(1);
    scale = 1000;
  }
  double x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || end != v.data() + v.size() || !(x > 0)) return std::nullopt;
  return x * scale;
}

std::vector<std::string_view> split_any(std::string_view text, std::string_view seps) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t j = text.find_first_of(seps, i);
    const std::string_view part =
        text.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i);
    if (!part.empty()) out.push_back(part);
    if (j == std::string_view::npos) break;
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string GoodputSpec::to_string() const {
  std::string out;
  auto add = [&](const char* name, const std::optional<double>& v) {
    if (v) out += fmt::format("{}{}:{}", out.empty() ? "" : " ", name, *v);
  };
  add("ttft", ttft_ms);
  add("tpot", tpot_ms);
  add("e2el", e2el_ms);
  return out;
}

GoodputSpec parse_goodput(std::string_view text) {
  GoodputSpec spec;
  for (std::string_view part : split_any(text, " ,")) {
    const size_t colon = part.find(':');
    const std::string name = lower(part.substr(0, colon));
    const auto ms =
        colon == std::string_view::npos ? std::nullopt : parse_ms(part.substr(colon + 1));
    std::optional<double>* slot = name == "ttft"   ? &spec.ttft_ms
                                  : name == "tpot" ? &spec.tpot_ms
                                  : name == "e2el" ? &spec.e2el_ms
                                                   : nullptr;
    if (!slot || !ms) {
      throw std::invalid_argument(
          fmt::format("--goodput: bad part '{}' (expected NAME:MS with NAME ttft, tpot or e2el, "
                      "e.g. 'ttft:500 tpot:50 e2el:20000')",
                      part));
    }
    *slot = *ms;
  }
  if (spec.empty())
    throw std::invalid_argument(
        "--goodput: no SLO given (expected e.g. 'ttft:500 tpot:50 e2el:20000', in ms)");
  return spec;
}

SloResult judge_slo(const record::RequestRecord& r, const GoodputSpec& spec) {
  SloResult out;
  const bool ok = r.ok();
  auto met = [&](const std::optional<double>& bound, std::optional<double> value,
                 bool absent_meets) -> std::optional<bool> {
    if (!bound) return std::nullopt;
    if (!ok) return false;
    return value ? *value <= *bound : absent_meets;
  };
  const record::RequestRecord* rr = &r;  // request_value() answers for measured requests only
  const bool has_text = r.stream && r.first_token_ns != record::kNone;
  out.ttft = met(spec.ttft_ms, request_value(*rr, "TTFT"), false);
  // TPOT needs two tokens; a 1-token answer meets it (vLLM's goodput), no text at all does not.
  out.tpot = met(spec.tpot_ms, request_value(*rr, "TPOT"), has_text);
  out.e2el = met(spec.e2el_ms, request_value(*rr, "E2EL"), false);
  out.good = ok && out.ttft.value_or(true) && out.tpot.value_or(true) && out.e2el.value_or(true);
  return out;
}

std::string RunSlo::name() const { return fmt::format("{}.{}", lower(metric), stat); }

std::string RunSlo::text() const { return fmt::format("{}<={}ms", name(), bound_ms); }

std::optional<double> RunSlo::value(const MetricSet& m) const {
  return row_statistic(m, metric, stat);
}

std::vector<RunSlo> parse_run_slos(std::string_view text) {
  std::vector<RunSlo> out;
  for (std::string_view part : split_any(text, ", ")) {
    const size_t dot = part.find('.'), le = part.find("<=");
    auto bad = [&] {
      return std::invalid_argument(
          fmt::format("--slo: bad part '{}' (expected METRIC.STAT<=BOUND with METRIC ttft, tpot, "
                      "itl or e2el, STAT mean, p50, p75, "
                      "p90, p99 or max, BOUND in ms or s, e.g. 'ttft.p99<=500ms,tpot.p90<=50ms')",
                      part));
    };
    if (dot == std::string_view::npos || le == std::string_view::npos || dot > le) throw bad();
    const std::string metric = lower(part.substr(0, dot));
    const std::string stat = lower(part.substr(dot + 1, le - dot - 1));
    const auto bound = parse_ms(part.substr(le + 2));
    const bool metric_ok =
        metric == "ttft" || metric == "tpot" || metric == "itl" || metric == "e2el";
    const bool stat_ok = stat == "mean" || stat == "p50" || stat == "p75" || stat == "p90" ||
                         stat == "p99" || stat == "max";
    if (!metric_ok || !stat_ok || !bound) throw bad();
    const std::string_view bound_text = part.substr(le + 2);
    if (!bound_text.ends_with("s")) {  // a bare number is not silently taken as ms
      throw std::invalid_argument(
          fmt::format("--slo: '{}' gives no unit: write {}ms (or {}s for seconds)", part,
                      bound_text, bound_text));
    }
    std::string row = metric == "e2el"   ? "E2EL"
                      : metric == "ttft" ? "TTFT"
                      : metric == "tpot" ? "TPOT"
                                         : "ITL";
    out.push_back({row, stat, *bound});
  }
  if (out.empty())
    throw std::invalid_argument(
        "--slo: no SLO given (expected e.g. 'ttft.p99<=500ms,tpot.p90<=50ms')");
  return out;
}

namespace {

// A failed request, or one without the metric, holds this value: above any bound; a statistic
// pulled past 1e299 by such values is shown as none.
constexpr double kBroken = 1e300;

class SloWindowJudge final : public record::WindowJudge {
 public:
  explicit SloWindowJudge(std::vector<RunSlo> slos)
      : slos_(std::move(slos)), values_(slos_.size()) {}

  void add(const record::RequestRecord& r) override {
    for (size_t i = 0; i < slos_.size(); ++i) {
      const auto v = request_value(r, slos_[i].metric);
      values_[i].push_back(r.ok() && v ? *v : kBroken);
    }
  }

  record::WindowJudgement close() override {
    record::WindowJudgement out;
    out.pass = true;
    for (size_t i = 0; i < slos_.size(); ++i) {
      // parse_run_slos admits only statistics that statistic() knows.
      const double v = statistic(summarize(std::move(values_[i])), slos_[i].stat).value_or(0);
      values_[i].clear();
      out.values.push_back(v >= 1e299 ? std::nullopt : std::optional<double>(v));
      out.pass = out.pass && v <= slos_[i].bound_ms;
    }
    return out;
  }

  std::vector<std::string> names() const override {
    std::vector<std::string> out;
    for (const auto& s : slos_) out.push_back(s.text());
    return out;
  }

 private:
  std::vector<RunSlo> slos_;
  std::vector<std::vector<double>> values_;  // per SLO: this window's values
};

}  // namespace

std::unique_ptr<record::WindowJudge> slo_window_judge(std::vector<RunSlo> slos) {
  return std::make_unique<SloWindowJudge>(std::move(slos));
}

}  // namespace tokbench::metrics
