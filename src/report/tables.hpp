#pragma once
// report/tables: AISBench-style presentations of a MetricSet — the two box-drawn console
// tables, the <ds>.csv statistics table and the <ds>.json common metrics. Formats only; every
// number comes from metrics/.
#include <string>

#include "common/format.hpp"
#include "metrics/metrics.hpp"
#include "record/server_view.hpp"

namespace tokbench::metrics {
struct Waterfall;
}

namespace tokbench::report {

/// The Performance Parameters and Common Metric tables, box-drawn like AISBench's
/// tabulate "fancy_grid", followed by notes; `stage` ("total", "stable") titles them. Units sit
/// in the row names and numbers are short (format_short), so they fit 120 columns.
std::string console_tables(const metrics::MetricSet& m, const std::string& stage = "total");

/// The default console's one table: TTFT, TPOT, ITL and E2EL (those the run has) as mean, P50,
/// P90, P99, max and N, without rules between rows.
std::string summary_table(const metrics::MetricSet& m);

using ::tokbench::format_short;  // common/format: the console's numbers

/// The server's prefix-cache hits as its answers told them, one line: "prefix cache: 10520 of
/// 10560 prompt tokens (99.6%) came from the server's cache, 263.0 per request (40 of 40 requests
/// hit; ...)"; "" when no answer said.
std::string prefix_cache_line(const metrics::MetricSet& m);

/// <ds>.csv: Performance Parameters,Stage,Average,Min,Max,Median,P75,P90,P99,N.
std::string performance_csv(const metrics::MetricSet& m, const std::string& stage = "total");

/// <ds>.json: {"Benchmark Duration": {"total": "123.4 ms"}, "Total Requests": {"total": 8}, ...}.
std::string common_json(const metrics::MetricSet& m, const std::string& stage = "total");

/// The same records under every tool's definitions: rows TTFT/TPOT/ITL (mean, P99), E2EL mean and
/// output token throughput; one column per definition set.
std::string definitions_table(const std::vector<metrics::DefinitionColumn>& columns);

/// The server's own view (from /metrics) and the client-vs-server cross-check, box-drawn.
std::string server_tables(const record::ServerSummary& s,
                          const std::vector<record::CrossCheck>& checks);

/// The same as JSON: {"url", "duration_s", "ttft_ms": {mean,p50,p90,p99,n}, ..., "cross_check":
/// [...]}.
std::string server_json(const record::ServerSummary& s,
                        const std::vector<record::CrossCheck>& checks);

struct TelemetryView;
/// --telemetry: one row per device over the measured phase (power, utilisation, memory,
/// temperature, energy and its method), box-drawn.
std::string telemetry_table(const TelemetryView& v);

/// --otlp-receive: each phase's mean (ms) per E2EL bucket, box-drawn (metrics/waterfall).
std::string waterfall_table(const metrics::Waterfall& w);

/// A statistic with its unit as AISBench prints it: "50.332 ms", "287.375", "41.6 token/s".
std::string format_value(double v, metrics::Unit u);

}  // namespace tokbench::report
