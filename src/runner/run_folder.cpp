#include "runner/run_folder.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "record/record_io.hpp"

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

RunFolder load_run_folder(const fs::path& dir) {
  const fs::path cfg_path = dir / "configs" / "run_config.json";
  if (!fs::exists(cfg_path)) {
    throw std::runtime_error(fmt::format("'{}' is not a tokbench run folder (no configs/run_config.json): pass the "
                                         "folder that `tokbench run` printed, e.g. outputs/20260101_120000",
                                         dir.string()));
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root, eff;
  if (parser.load(cfg_path.string()).get(root) || root["effective"].get(eff)) {
    throw std::runtime_error(fmt::format("{}: not a valid run config", cfg_path.string()));
  }
  RunFolder f;
  f.dir = dir;
  report::RunInfo& info = f.info;
  info.model = str(eff, "model");
  info.model_abbr = str(eff, "model_abbr");
  info.dataset = str(eff, "dataset");
  info.dataset_abbr = str(root, "dataset_abbr");
  info.target_url = str(root, "target_url");
  info.started_at = str(root, "started_at");
  info.embedded_simulator = value_or(root["embedded_simulator"].get_bool(), false);
  info.config_json = simdjson::minify(eff);
  f.facts.max_concurrency = static_cast<int>(value_or(eff["concurrency"].get_int64(), int64_t{1}));
  f.facts.stream = value_or(eff["stream"].get_bool(), true);
  f.request_rate = value_or(eff["request_rate"].get_double(), 0.0);
  f.compat = str(eff, "compat");
  f.perf_dir = dir / "performances" / info.model_abbr;
  f.records = record::read_details((f.perf_dir / (info.dataset_abbr + "_details.jsonl")).string());

  // Facts of the original run that the records do not hold: kept in result.json and server.json.
  simdjson::dom::element prev;
  if (!parser.load((dir / "result.json").string()).get(prev)) {
    info.interrupted = value_or(prev["interrupted"].get_bool(), false);
    simdjson::dom::element run;
    if (!prev["run"].get(run)) {
      info.body_example = str(run, "request_body_example");
      info.origin_steady_ns = value_or(run["origin_steady_ns"].get_int64(), int64_t{-1});
    }
  }
  if (std::ifstream server(dir / "server.json"); server) {
    std::stringstream ss;
    ss << server.rdbuf();
    info.server_json = ss.str();
    simdjson::dom::element s;
    simdjson::dom::array checks;
    if (!parser.parse(info.server_json).get(s) && !s["cross_check"].get_array().get(checks)) {
      for (auto c : checks) info.server_disagrees |= !value_or(c["agree"].get_bool(), true);
    }
  }
  return f;
}

}  // namespace tokbench::runner
