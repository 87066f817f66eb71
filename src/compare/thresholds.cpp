#include "compare/thresholds.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace tokbench::metrics {

std::optional<double> stat_of(const MetricSet& m, const std::string& metric,
                              const std::string& stat) {
  if (stat.empty()) {
    if (const auto* c = m.common_metric(metric)) return c->value;
    if (metric == "accuracy" && m.quality.answers.scored() > 0)
      return m.quality.answers.interval().p;  // --check-answers
    return std::nullopt;
  }
  const auto* row = m.row(metric);
  return row && row->stats ? statistic(*row->stats, stat) : std::nullopt;
}

std::string canonical_row(std::string name) {
  static const char* kRows[] = {"E2EL",
                                "TTFT",
                                "TPOT",
                                "ITL",
                                "InputTokens",
                                "OutputTokens",
                                "OutputTokenThroughput",
                                "PrefillTokenThroughput"};
  std::string lower;
  for (char c : name)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (const char* r : kRows) {
    std::string lr;
    for (const char* c = r; *c; ++c)
      lr.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(*c))));
    if (lr == lower) return r;
  }
  return lower;  // a common metric key (snake_case)
}

Threshold parse_threshold(const std::string& text) {
  std::istringstream in(text);
  std::string lhs, op, rhs;
  in >> lhs >> op >> rhs;
  const auto fail = [&](const std::string& why) {
    return std::invalid_argument(
        fmt::format("--fail-if: bad value '{}' ({}; expected e.g. 'tpot.p99 > +5%' or "
                    "'output_token_throughput < -10%')",
                    text, why));
  };
  std::string extra;
  if (lhs.empty() || rhs.empty() || (in >> extra)) throw fail("expected METRIC[.STAT] OP VALUE");
  if (op != ">" && op != "<" && op != ">=" && op != "<=")
    throw fail("the operator must be >, <, >= or <=");
  Threshold t;
  t.text = text;
  t.op = op;
  const size_t dot = lhs.find('.');
  t.metric = canonical_row(lhs.substr(0, dot));
  if (dot != std::string::npos) t.stat = lhs.substr(dot + 1);
  if (!t.stat.empty() && t.stat != "mean" && t.stat != "median" && t.stat != "p50" &&
      t.stat != "p75" && t.stat != "p90" && t.stat != "p99" && t.stat != "min" && t.stat != "max")
    throw fail(fmt::format("unknown statistic '{}'", t.stat));
  t.relative = rhs.back() == '%';
  if (t.relative) rhs.pop_back();
  char* end = nullptr;
  t.value = std::strtod(rhs.c_str(), &end);
  if (rhs.empty() || *end != '\0')
    throw fail("the value must be a number, or a change in percent such as +5%");
  return t;
}

std::optional<double> crossed(const Threshold& t, double base, double value) {
  const double x = t.relative ? (base == 0 ? 0 : 100 * (value - base) / base) : value;
  const bool hit = t.op == ">"    ? x > t.value
                   : t.op == "<"  ? x < t.value
                   : t.op == ">=" ? x >= t.value
                                  : x <= t.value;
  return hit ? std::optional<double>(x) : std::nullopt;
}

}  // namespace tokbench::metrics
