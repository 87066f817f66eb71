#pragma once
// report/html: <ds>_plot.html — one self-contained page (the chart library embedded, no network)
// with the summary tables and the request-body audit, the request timeline (TTFT red, decode
// blue, failures grey) over the concurrency step chart, latency distributions with P50/P90/P99,
// output tokens per second, send lag for rate-driven runs, and the server's series when scraped.
// Formats only: every number comes from the records and metrics/.
#include <string>
#include <vector>

#include "metrics/metrics.hpp"
#include "record/record.hpp"
#include "report/outputs.hpp"

namespace tokbench::report {

struct HtmlInputs {
  const std::vector<record::RequestRecord>& records;
  const metrics::MetricSet& metrics;
  const RunInfo& info;
  const Verdict& verdict;
  const std::vector<metrics::DefinitionColumn>& side_by_side;
  bool stream = true;
  bool rate_driven = false;
};

std::string html_report(const HtmlInputs& in);

}  // namespace tokbench::report
