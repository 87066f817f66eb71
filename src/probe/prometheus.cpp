#include "probe/prometheus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace tokbench::probe {

namespace {

bool name_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':' ||
         (!first && std::isdigit(static_cast<unsigned char>(c)));
}

double parse_value(std::string_view v, size_t line) {
  if (v == "+Inf" || v == "Inf") return INFINITY;
  if (v == "-Inf") return -INFINITY;
  if (v == "NaN") return NAN;
  std::string s(v);
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size())
    throw std::runtime_error(fmt::format("line {}: bad value '{}'", line, v));
  return d;
}

}  // namespace

std::vector<Sample> parse_text(std::string_view body) {
  std::vector<Sample> out;
  size_t line_no = 0;
  for (size_t pos = 0; pos < body.size();) {
    size_t end = body.find('\n', pos);
    if (end == std::string_view::npos) end = body.size();
    std::string_view line = body.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    Sample s;
    size_t i = 0;
    while (i < line.size() && name_char(line[i], i == 0)) ++i;
    if (i == 0) throw std::runtime_error(fmt::format("line {}: expected a metric name", line_no));
    s.name = std::string(line.substr(0, i));
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (true) {
        while (i < line.size() && (line[i] == ' ' || line[i] == ',')) ++i;
        if (i < line.size() && line[i] == '}') {
          ++i;
          break;
        }
        const size_t k0 = i;
        while (i < line.size() && name_char(line[i], i == k0)) ++i;
        if (i == k0 || i >= line.size() || line[i] != '=')
          throw std::runtime_error(fmt::format("line {}: expected label=\"value\"", line_no));
        const std::string key(line.substr(k0, i - k0));
        ++i;
        if (i >= line.size() || line[i] != '"')
          throw std::runtime_error(fmt::format("line {}: label value must be quoted", line_no));
        ++i;
        std::string value;
        while (i < line.size() && line[i] != '"') {
          if (line[i] == '\\' && i + 1 < line.size()) {
            const char e = line[++i];
            value.push_back(e == 'n' ? '\n' : e);  // \\ \" \n
          } else {
            value.push_back(line[i]);
          }
          ++i;
        }
        if (i >= line.size())
          throw std::runtime_error(fmt::format("line {}: unterminated label value", line_no));
        ++i;
        s.labels[key] = std::move(value);
      }
    }
    while (i < line.size() && line[i] == ' ') ++i;
    const size_t v0 = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (v0 == i) throw std::runtime_error(fmt::format("line {}: missing value", line_no));
    s.value = parse_value(line.substr(v0, i - v0), line_no);  // an optional timestamp may follow
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<double> Snapshot::sum(std::string_view name) const {
  std::optional<double> total;
  for (const auto& s : samples)
    if (s.name == name) total = total.value_or(0) + s.value;
  return total;
}

std::optional<HistogramDelta> histogram_delta(const Snapshot& before, const Snapshot& after,
                                              const std::string& name) {
  auto buckets_of = [&](const Snapshot& s) {
    std::map<double, double> b;  // le -> cumulative count, summed over label sets
    for (const auto& x : s.samples) {
      if (x.name != name + "_bucket") continue;
      auto it = x.labels.find("le");
      if (it == x.labels.end()) continue;
      // A bound that is not a number (a hostile or broken exposition) is skipped, never thrown
      // from: the fuzzer found std::stod's exception escaping the summary after a whole run.
      double le = INFINITY;
      if (it->second != "+Inf") {
        char* end = nullptr;
        le = std::strtod(it->second.c_str(), &end);
        if (it->second.empty() || *end != '\0' || std::isnan(le)) continue;
      }
      b[le] += x.value;
    }
    return b;
  };
  const auto a = buckets_of(after);
  if (a.empty()) return std::nullopt;
  const auto b = buckets_of(before);
  HistogramDelta d;
  for (const auto& [le, c] : a) {
    auto it = b.find(le);
    d.buckets.emplace_back(le, c - (it == b.end() ? 0 : it->second));
  }
  d.sum = after.sum(name + "_sum").value_or(0) - before.sum(name + "_sum").value_or(0);
  d.count = after.sum(name + "_count").value_or(0) - before.sum(name + "_count").value_or(0);
  return d;
}

}  // namespace tokbench::probe
