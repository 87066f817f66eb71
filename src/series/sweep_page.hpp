#pragma once
// series/sweep_page: what a sweep writes beside its point folders — sweep/summary.csv and
// sweep/summary.json (one row per point: the load, throughputs, TTFT/TPOT/E2EL mean and P99,
// goodput, verdict; the knee and the Pareto front) and sweep/sweep.html (throughput–latency
// curves, the per-user vs total tokens/s Pareto front, the knee marked; ECharts embedded). A run
// of --class traffic classes adds each class's row at every point (sweep/classes.csv, "classes"
// in the JSON, a table on the page).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/json_writer.hpp"
#include "series/load_curve.hpp"

namespace tokbench::report {

std::string sweep_csv(const std::vector<metrics::LoadPoint>& rows);
/// One point's CSV cells and their header (no newline), shared by sweep/ and grid/ summaries.
extern const char* const kLoadPointCsvHeader;
std::string load_point_csv(const metrics::LoadPoint& r);
/// One point's fields, written into an open JSON object (sweep/ and grid/ summaries).
void write_load_point_fields(JsonWriter& w, const metrics::LoadPoint& r);
/// The points with the knee and the front marked; `x_name`: "concurrency" or "request_rate".
std::string sweep_json(const std::vector<metrics::LoadPoint>& rows, const std::string& x_name,
                       const metrics::KneeAnalysis& knee, const std::vector<size_t>& front);
/// One --class's row at one point: its own load and figures.
struct ClassPoint {
  std::string name;
  metrics::LoadPoint row;  ///< label: the point's folder; load: the point's swept value
};
/// sweep/classes.csv: the class column, then a point's cells.
std::string class_points_csv(const std::vector<ClassPoint>& rows);
/// The page, around `json` (sweep_json's), with the classes' table when there are classes.
std::string sweep_page(const std::vector<metrics::LoadPoint>& rows, const std::string& json,
                       const metrics::KneeAnalysis& knee,
                       const std::vector<ClassPoint>& class_rows = {});
/// A value as the summary writes it: 4 decimals, "" for none.
std::string opt_str(const std::optional<double>& v);

}  // namespace tokbench::report
