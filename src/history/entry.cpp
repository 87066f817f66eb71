#include "history/entry.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include "common/json_fields.hpp"
#include "runfolder/files.hpp"

namespace tokbench::history {

namespace fs = std::filesystem;

std::string Entry::label(const std::string& key) const {
  for (const auto& [k, v] : labels)
    if (k == key) return v;
  return {};
}

std::string metric_name(std::string_view row, std::string_view stat) {
  std::string out;  // CamelCase to snake_case: OutputTokenThroughput -> output_token_throughput
  for (size_t i = 0; i < row.size(); ++i) {
    const char c = row[i];
    if (std::isupper(static_cast<unsigned char>(c)) && i > 0 &&
        std::islower(static_cast<unsigned char>(row[i - 1])))
      out += '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out + "." + std::string(stat == "median" ? "p50" : stat);
}

std::pair<std::string, std::string> parse_label(const std::string& text, const std::string& flag) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument(
        fmt::format("{} '{}': expected key=value (e.g. hardware=h200)", flag, text));
  std::string key = text.substr(0, eq);
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      throw std::invalid_argument(
          fmt::format("{} '{}': a key is letters, digits, '_', '-' or '.'", flag, text));
  }
  return {key, text.substr(eq + 1)};
}

void set_labels(Entry& e, const std::vector<std::pair<std::string, std::string>>& labels) {
  for (const auto& [k, v] : labels) {
    auto it =
        std::find_if(e.labels.begin(), e.labels.end(), [&](const auto& l) { return l.first == k; });
    if (it == e.labels.end())
      e.labels.emplace_back(k, v);
    else
      it->second = v;
  }
  std::sort(e.labels.begin(), e.labels.end());
}

std::string scenario(const Entry& e, const std::vector<std::string>& label_keys) {
  std::string s = fmt::format(
      "model={} api={} dataset={} input_len={} output_len={} max_tokens={} stream={} ", e.model,
      e.api, e.dataset, e.input_len, e.output_len, e.max_tokens, e.stream ? "on" : "off");
  s += e.request_rate > 0 ? fmt::format("request_rate={}", e.request_rate)
                          : fmt::format("concurrency={}", e.concurrency);
  for (const auto& k : label_keys) s += fmt::format(" {}={}", k, e.label(k));
  return s;
}

namespace {

// The series root a point folder sits in (its logs/run.log beside the points), or "".
std::string parent_of(const fs::path& dir) {
  const fs::path root = dir.parent_path();
  if (fs::exists(root / "logs" / "run.log") && !fs::exists(root / "manifest.json"))
    return root.string();
  return {};
}

}  // namespace

Entry read_entry(const fs::path& given) {
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(fs::absolute(given), ec);
  const fs::path result = dir / "result.json";
  if (!fs::exists(result)) {
    if (fs::exists(dir / "manifest.json"))
      throw std::runtime_error(
          fmt::format("{}: the run has no result.json (it did not finish): write it with "
                      "`tokbench report {}`, then add it",
                      dir.string(), dir.string()));
    throw std::runtime_error(
        fmt::format("{}: not a tokbench run folder (no result.json); a sweep's, search's or repeat "
                    "series' root holds its points in sub-folders: add those",
                    dir.string()));
  }
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  const std::string text = runfolder::read_file(result);
  if (p.parse(text).get(doc) || !doc.is_object())
    throw std::runtime_error(
        fmt::format("{}: result.json is not valid JSON: rewrite it with `tokbench report {}`",
                    dir.string(), dir.string()));
  Entry e;
  e.folder = dir.string();
  e.parent = parent_of(dir);
  simdjson::dom::element run, config, tool, verdict, metrics, common;
  if (doc["run"].get(run) || doc["config"].get(config) || doc["verdict"].get(verdict) ||
      doc["metrics"].get(metrics))
    throw std::runtime_error(fmt::format(
        "{}: result.json lacks run, config, verdict or metrics: rewrite it with `tokbench "
        "report {}`",
        dir.string(), dir.string()));
  e.run_id = json::string_or(run, "run_id");
  if (e.run_id.empty()) e.run_id = dir.filename().string();
  e.started_at = json::string_or(run, "started_at");
  e.target = json::string_or(run, "target_url");
  e.model = json::string_or(run, "model");
  e.dataset = json::string_or(run, "dataset");
  if (!doc["tool"].get(tool))
    e.tokbench_version = json::string_or(tool, "version") + "+" + json::string_or(tool, "git_hash");
  e.api = json::string_or(config, "endpoint");
  e.input_len = json::int_or(config, "input_len", 0);
  e.output_len = json::int_or(config, "output_len", 0);
  e.max_tokens = json::int_or(config, "max_tokens", 0);
  e.stream = json::bool_or(config, "stream", true);
  e.concurrency = json::int_or(config, "concurrency", 0);
  e.request_rate = json::number_or(config, "request_rate", 0);
  if (std::isinf(e.request_rate) || e.request_rate < 0) e.request_rate = 0;
  std::vector<std::pair<std::string, std::string>> labels;
  for (const auto& l : json::strings_or_empty(config, "labels"))
    labels.push_back(parse_label(l, "labels"));
  set_labels(e, labels);
  e.verdict = json::bool_or(doc, "interrupted", false)
                  ? "INTERRUPTED"
                  : json::string_or(verdict, "status", "INVALID");
  simdjson::dom::object rows;
  if (!metrics.get_object().get(rows)) {
    for (auto row : rows) {
      simdjson::dom::object stats;
      if (row.value.get_object().get(stats)) continue;  // null: not applicable to this run
      for (auto stat : stats) {
        if (stat.key == "n" || !stat.value.is_number()) continue;
        e.metrics.emplace_back(metric_name(row.key, stat.key), json::number_of(stat.value));
      }
    }
  }
  simdjson::dom::object commons;
  if (!doc["common"].get(common) && !common.get_object().get(commons)) {
    for (auto c : commons)
      if (c.value.is_number()) e.metrics.emplace_back(std::string(c.key), json::number_of(c.value));
  }
  // --check-answers: the accuracy (and how many it rests on), when answers were scored.
  simdjson::dom::element answers;
  if (!doc["quality"]["answers"].get(answers) && answers.is_object()) {
    if (const auto acc = json::optional_number(answers, "accuracy")) {
      e.metrics.emplace_back("accuracy", *acc);
      e.metrics.emplace_back("right_answers", json::number_or(answers, "right", 0));
      e.metrics.emplace_back("wrong_answers", json::number_or(answers, "wrong", 0));
    }
  }
  // --telemetry: the energy and cost figures, as energy.<figure> and cost.<figure>, when known.
  simdjson::dom::element telemetry;
  if (!doc["telemetry"].get(telemetry) && telemetry.is_object()) {
    for (const char* part : {"energy", "cost"}) {
      simdjson::dom::object figures;
      if (telemetry[part].get_object().get(figures)) continue;
      for (auto f : figures)
        if (f.value.is_number() && f.key != "devices" && f.key != "seconds")
          e.metrics.emplace_back(std::string(part) + "." + std::string(f.key),
                                 json::number_of(f.value));
    }
  }
  return e;
}

}  // namespace tokbench::history
