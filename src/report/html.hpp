#pragma once
// report/html: <ds>_plot.html — one self-contained page (the chart library embedded, no network)
// with headline cards, every table the console's --verbose shows (the stable stage's and the
// server's included) and the request-body audit, the request timeline (TTFT red, decode
// blue, failures grey) over the concurrency step chart, latency distributions with P50/P90/P99,
// output tokens per second, send lag for rate-driven runs, and the server's series when scraped.
// Formats only: every number comes from the records and metrics/. The page is bounded at any run
// length: histograms and series are binned here, and past report/page_rows' limit the timeline
// draws a stated sample (every failure and the slowest kept) while the tables stay exact.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "metrics/metrics.hpp"
#include "record/record.hpp"
#include "report/outputs.hpp"

namespace tokbench::report {

struct HtmlInputs {
  const metrics::MetricSet& metrics;
  const RunInfo& info;
  const Verdict& verdict;
  const std::vector<metrics::DefinitionColumn>& side_by_side;
  bool stream = true;
  bool rate_driven = false;
  int64_t t0_ns = 0;  ///< the first send among the measured requests (time 0 of the page)
  std::optional<metrics::Summary> itl_ms =
      {};               ///< tokbench's per-token ITL (its range spans the histogram)
  int64_t span_ns = 0;  ///< first measured send to last end: sizes the throughput bins
  std::string server_tables =
      {};  ///< report::server_tables' text ("" when /metrics was not scraped)
  std::string telemetry_tables = {};  ///< report::telemetry_table's text ("" without --telemetry)
  std::string waterfall = {};  ///< --otlp-receive: the join's lines and bucket table ("" = none)
  /// Called once every record has streamed through, like late_slices_json: the stable stage's
  /// tables (console_tables(stable, "stable")), found on the same pass; "" for none.
  std::function<std::string()> late_stable_tables = {};
  bool one_shot =
      false;  ///< nothing generated (embeddings, rerank): no output-throughput card or panel
  /// Called once every record has streamed through: more data for the page ("slices": a JSON
  /// object, or "" for none), made on the same pass.
  std::function<std::string()> late_slices_json = {};
  /// --class: the classes' names in the run's order (the timeline colours each), and their
  /// lines (a line per class, then the fairness) for the page's Classes section.
  std::vector<std::string> classes = {};
  std::vector<std::string> class_lines = {};
};

/// Calls its argument once per record, in file order (a pass over the details file).
using RecordStream = std::function<void(const std::function<void(const record::RequestRecord&)>&)>;

/// Writes the page to `path` (atomically) from one pass over `records`; memory is bounded by
/// report/page_rows' caps, not by the number of requests; the browser sorts the rows by start.
/// Text for HTML (& < > " escaped).
std::string escape_html(std::string_view s);
/// JSON inside <script type="application/json">: "</" escaped, the only way it could end early.
std::string script_safe(std::string json);

void write_html_report(const std::filesystem::path& path, const HtmlInputs& in,
                       const RecordStream& records);

}  // namespace tokbench::report
