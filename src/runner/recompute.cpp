// runner/recompute: `tokbench report DIR` — every output of a finished run, recomputed from its
// details file and saved config alone, without touching the server (record once, analyze many).
#include <fmt/format.h>
#include <simdjson.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "record/record_io.hpp"
#include "report/tables.hpp"
#include "runner/runner.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

std::string str(simdjson::dom::element e, std::string_view k) {
  std::string_view s;
  return e[k].get_string().get(s) ? std::string() : std::string(s);
}

template <class T>
T value_or(simdjson::simdjson_result<T> r, T fallback) {
  T v{};
  return std::move(r).get(v) ? fallback : v;
}

}  // namespace

RunOutcome recompute(const fs::path& run_dir, const std::optional<std::string>& compat, std::FILE* console) {
  const fs::path cfg_path = run_dir / "configs" / "run_config.json";
  if (!fs::exists(cfg_path)) {
    throw std::runtime_error(fmt::format("'{}' is not a tokbench run folder (no configs/run_config.json): pass the "
                                         "folder that `tokbench run` printed, e.g. outputs/20260101_120000",
                                         run_dir.string()));
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root, eff;
  if (parser.load(cfg_path.string()).get(root) || root["effective"].get(eff)) {
    throw std::runtime_error(fmt::format("{}: not a valid run config", cfg_path.string()));
  }
  report::RunInfo info;
  info.model = str(eff, "model");
  info.model_abbr = str(eff, "model_abbr");
  info.dataset = str(eff, "dataset");
  info.dataset_abbr = str(root, "dataset_abbr");
  info.target_url = str(root, "target_url");
  info.started_at = str(root, "started_at");
  info.embedded_simulator = value_or(root["embedded_simulator"].get_bool(), false);
  info.config_json = simdjson::minify(eff);
  metrics::RunFacts facts;
  facts.max_concurrency = static_cast<int>(value_or(eff["concurrency"].get_int64(), int64_t{1}));
  facts.stream = value_or(eff["stream"].get_bool(), true);
  const double rate = value_or(eff["request_rate"].get_double(), 0.0);
  const std::string defs_name = compat.value_or(str(eff, "compat"));
  const auto defs = metrics::definitions_from_name(defs_name);
  if (!defs) throw std::runtime_error(fmt::format("--compat: bad value '{}' (expected tokbench, aisbench, evalscope, vllm or sglang)", defs_name));

  RunOutcome out;
  out.run_dir = run_dir;
  out.perf_dir = run_dir / "performances" / info.model_abbr;
  const auto records = record::read_details((out.perf_dir / (info.dataset_abbr + "_details.jsonl")).string());
  // The interruption is a fact of the original run, kept in its result.json.
  simdjson::dom::parser p2;
  simdjson::dom::element prev;
  if (!p2.load((run_dir / "result.json").string()).get(prev)) {
    info.interrupted = value_or(prev["interrupted"].get_bool(), false);
    simdjson::dom::element run;
    if (!prev["run"].get(run)) {
      info.body_example = str(run, "request_body_example");
      info.origin_steady_ns = value_or(run["origin_steady_ns"].get_int64(), int64_t{-1});
    }
  }
  if (std::ifstream server(run_dir / "server.json"); server) {  // the server's view is a fact of the run
    std::stringstream ss;
    ss << server.rdbuf();
    info.server_json = ss.str();
  }
  {
    std::string failed;
    for (const auto& r : records)
      if (!r.ok()) failed += record::to_json_line(r, info.dataset_abbr) + "\n";
    const fs::path failed_path = out.perf_dir / (info.dataset_abbr + "_failed.jsonl");
    if (!failed.empty()) {
      report::write_file(failed_path, failed);
    } else {
      fs::remove(failed_path);
    }
  }
  auto written = write_reports(out.run_dir, out.perf_dir, records, info, facts, *defs, rate);
  out.metrics = written.metrics;
  out.verdict = written.verdict;
  out.interrupted = info.interrupted;
  fmt::print(console, "{}", report::console_tables(out.metrics));
  if (!written.side_by_side.empty()) fmt::print(console, "{}", report::definitions_table(written.side_by_side));
  fmt::print(console, "verdict: {}\n", out.verdict.valid ? "VALID" : "INVALID");
  for (const auto& r : out.verdict.reasons) fmt::print(console, "  - {}\n", r);
  for (const auto& r : out.verdict.warnings) fmt::print(console, "  warning: {}\n", r);
  fmt::print(console, "rewrote {} and {}\n", (out.perf_dir / (info.dataset_abbr + ".csv")).string(),
             (run_dir / "result.json").string());
  return out;
}

}  // namespace tokbench::runner
