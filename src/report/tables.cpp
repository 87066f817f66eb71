#include "report/tables.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/format.hpp"
#include "common/json_writer.hpp"

namespace tokbench::report {

using metrics::Unit;

namespace {

using Table = std::vector<std::vector<std::string>>;

// Display width of a UTF-8 string (every code point counts 1; our cells are ASCII or box art).
size_t width(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string rule(const std::vector<size_t>& w, const char* left, const char* fill, const char* mid,
                 const char* right) {
  std::string out = left;
  for (size_t i = 0; i < w.size(); ++i) {
    for (size_t k = 0; k < w[i] + 2; ++k) out += fill;
    out += i + 1 < w.size() ? mid : right;
  }
  return out + "\n";
}

// tabulate's "fancy_grid": double rules at the top, under the header and at the bottom.
std::string grid(const Table& t) {
  std::vector<size_t> w(t.front().size(), 0);
  for (const auto& row : t)
    for (size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], width(row[i]));
  auto line = [&](const std::vector<std::string>& row) {
    std::string out = "│";
    for (size_t i = 0; i < row.size(); ++i)
      out += " " + row[i] + std::string(w[i] - width(row[i]), ' ') + " │";
    return out + "\n";
  };
  std::string out = rule(w, "╒", "═", "╤", "╕") + line(t[0]) + rule(w, "╞", "═", "╪", "╡");
  for (size_t r = 1; r < t.size(); ++r) {
    out += line(t[r]);
    out += r + 1 < t.size() ? rule(w, "├", "─", "┼", "┤") : rule(w, "╘", "═", "╧", "╛");
  }
  return out;
}

Table performance_table(const metrics::MetricSet& m, const std::string& stage) {
  Table t{{"Performance Parameters", "Stage", "Average", "Min", "Max", "Median", "P75", "P90", "P99", "N"}};
  for (const auto& r : m.rows) {
    if (!r.stats) {
      t.push_back({r.name, stage, "n/a (" + r.na_reason + ")", "-", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    const auto& s = *r.stats;
    t.push_back({r.name, stage, format_value(s.mean, r.unit), format_value(s.min, r.unit),
                 format_value(s.max, r.unit), format_value(s.median, r.unit), format_value(s.p75, r.unit),
                 format_value(s.p90, r.unit), format_value(s.p99, r.unit), std::to_string(s.n)});
  }
  return t;
}

std::string common_value(const metrics::Common& c) {
  switch (c.unit) {
    case Unit::Requests:
    case Unit::Tokens:
      return fmt::format("{}", static_cast<int64_t>(c.value));
    case Unit::None:
      return c.key == "max_concurrency" ? fmt::format("{}", static_cast<int64_t>(c.value)) : format_round4(c.value);
    default:
      return format_value(c.value, c.unit);
  }
}

}  // namespace

std::string format_value(double v, Unit u) {
  const auto suffix = metrics::unit_suffix(u);
  return suffix.empty() ? format_round4(v) : format_round4(v) + " " + std::string(suffix);
}

std::string console_tables(const metrics::MetricSet& m, const std::string& stage) {
  std::string out = grid(performance_table(m, stage));
  Table c{{"Common Metric", "Stage", "Value"}};
  for (const auto& x : m.common) c.push_back({x.name, stage, common_value(x)});
  out += grid(c);
  for (const auto& r : m.rows)
    if (!r.note.empty()) out += fmt::format("note: {}: {}\n", r.name, r.note);
  for (const auto& n : m.notes) out += fmt::format("note: {}\n", n);
  return out;
}

std::string definitions_table(const std::vector<metrics::DefinitionColumn>& columns) {
  Table t{{"Definitions side by side"}};
  for (const auto& c : columns) t[0].push_back(std::string(metrics::definitions_name(c.definitions)));
  using Get = std::optional<metrics::Summary> metrics::DefinitionColumn::*;
  const std::pair<const char*, Get> rows[] = {{"TTFT", &metrics::DefinitionColumn::ttft},
                                              {"TPOT", &metrics::DefinitionColumn::tpot},
                                              {"ITL", &metrics::DefinitionColumn::itl},
                                              {"E2EL", &metrics::DefinitionColumn::e2el}};
  for (const auto& [name, member] : rows) {
    for (const char* stat : {"mean", "P99"}) {
      if (std::string(name) == "E2EL" && std::string(stat) == "P99") continue;
      std::vector<std::string> line{std::string(name) + " " + stat + " (ms)"};
      for (const auto& c : columns) {
        const auto& v = c.*member;
        line.push_back(!v ? "n/a" : format_round4(std::string(stat) == "mean" ? v->mean : v->p99));
      }
      t.push_back(std::move(line));
    }
  }
  std::vector<std::string> tput{"Output Token Throughput (token/s)"};
  for (const auto& c : columns) tput.push_back(format_round4(c.output_token_throughput));
  t.push_back(std::move(tput));
  return grid(t);
}

std::string performance_csv(const metrics::MetricSet& m, const std::string& stage) {
  std::string out;
  for (const auto& row : performance_table(m, stage)) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) out += ',';
      out += row[i];  // no cell contains a comma or quote
    }
    out += '\n';
  }
  return out;
}

std::string common_json(const metrics::MetricSet& m, const std::string& stage) {
  JsonWriter w;
  w.begin_object();
  for (const auto& c : m.common) {
    w.key(c.name).begin_object().key(stage);
    if (c.unit == Unit::Requests || c.unit == Unit::Tokens || c.key == "max_concurrency") {
      w.value(static_cast<int64_t>(c.value));
    } else if (c.unit == Unit::None) {
      w.value(round_to(c.value, 4));
    } else {
      w.value(format_value(c.value, c.unit));
    }
    w.end_object();
  }
  w.end_object();
  return w.take();
}

}  // namespace tokbench::report
