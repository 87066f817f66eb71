#include "runfolder/series.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <stdexcept>

#include "runfolder/files.hpp"

namespace tokbench::runfolder {

namespace fs = std::filesystem;

std::optional<RepeatSeries> load_repeat_series(const fs::path& dir) {
  const fs::path path = dir / "repeats" / "summary.json";
  if (!fs::exists(path)) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(read_file(path)).get(root))
    throw std::runtime_error(
        fmt::format("{}: not a valid repeat summary (rerun with --repeats)", path.string()));
  RepeatSeries s;
  s.root = dir;
  s.level = root["confidence"].get_double().value_unsafe();
  simdjson::dom::object metrics;
  if (root["metrics"].get_object().get(metrics))
    throw std::runtime_error(fmt::format("{}: no \"metrics\"", path.string()));
  for (auto kv : metrics) {
    const std::string key(kv.key);
    s.keys.push_back(key);
    simdjson::dom::array values;
    if (kv.value["values"].get_array().get(values)) continue;
    for (auto v : values) {
      double x = 0;
      if (!v.get_double().get(x)) s.values[key].push_back(x);
    }
  }
  return s;
}

}  // namespace tokbench::runfolder
