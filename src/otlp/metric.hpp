#pragma once
// otlp/metric: OTLP metric data (opentelemetry-proto's metrics.v1), the kinds tokbench sends — a
// cumulative monotonic Sum, a Gauge and an explicit-bucket Histogram — and their binary encoding
// (collector.metrics.v1.ExportMetricsServiceRequest, POST /v1/metrics, http/protobuf), written and
// read by hand over protobuf's wire format for the reason otlp/protobuf gives. The reader is for
// otlp/receiver (a collector stand-in in tests); kinds it does not read are skipped.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "otlp/span.hpp"

namespace tokbench::otlp {

enum class MetricKind { Sum, Gauge, Histogram };

struct DataPoint {
  std::vector<Attribute> attributes;
  uint64_t start_unix_ns = 0;  ///< where a cumulative series starts
  uint64_t time_unix_ns = 0;
  // Sum and Gauge: the value, sent as an int (as_int) when `integer`, else as a double.
  double value = 0;
  bool integer = false;
  // Histogram: `bounds` are the upper edges (inclusive); bucket_counts has one more entry.
  uint64_t count = 0;
  double sum = 0;
  std::vector<double> bounds;
  std::vector<uint64_t> bucket_counts;

  /// The attribute `key` as a string, or "" (points are told apart by string attributes).
  std::string text(std::string_view key) const;
};

struct Metric {
  std::string name, description, unit;
  MetricKind kind = MetricKind::Sum;
  std::vector<DataPoint> points;
  std::string service;  ///< the resource's service.name (read back by decode_metrics)
};

/// The most bounds read of one histogram point (the rest make the body refused).
inline constexpr size_t kMaxBounds = 512;

/// One ExportMetricsServiceRequest: one resource (service.name `service`) and scope `scope`
/// holding `metrics`; Sums and Histograms are cumulative, Sums monotonic.
std::string encode_metrics(const std::vector<Metric>& metrics, std::string_view scope,
                           std::string_view service);

/// Appends the metrics of an ExportMetricsServiceRequest body to `out`, at most `max_points` data
/// points in all (the rest counted in `*dropped`). False, with why, when the body is not one.
bool decode_metrics(std::string_view body, std::vector<Metric>& out, size_t max_points,
                    size_t* dropped, std::string* why);

}  // namespace tokbench::otlp
