#pragma once
// runfolder/series: a repeat series' folder read back (run --repeats writes repeats/summary.json
// beside its run-1 .. run-N folders): every run's value per headline metric, which `compare`
// tests two series by.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tokbench::runfolder {

/// A series read back from repeats/summary.json: per metric key, every run's value.
struct RepeatSeries {
  std::filesystem::path root;
  double level = 0.95;
  std::vector<std::string> keys;  ///< in the file's order
  std::map<std::string, std::vector<double>> values;
};
/// Reads DIR/repeats/summary.json; nullopt when DIR is not a repeat series.
std::optional<RepeatSeries> load_repeat_series(const std::filesystem::path& dir);

}  // namespace tokbench::runfolder
