#include "otlp/metric.hpp"

#include "otlp/wire.hpp"

namespace tokbench::otlp {

using namespace wire;  // NOLINT: the wire helpers are this file's vocabulary

std::string DataPoint::text(std::string_view key) const {
  for (const auto& a : attributes)
    if (a.key == key)
      if (const auto* s = std::get_if<std::string>(&a.value)) return *s;
  return "";
}

// ---- writing --------------------------------------------------------------------------------

namespace {

constexpr uint64_t kCumulative = 2;  // AggregationTemporality

// NumberDataPoint { start 2; time 3; as_double 4; as_int 6 (sfixed64); attributes 7 }.
std::string number_point(const DataPoint& p) {
  std::string o;
  fixed64_field(o, 2, p.start_unix_ns);
  fixed64_field(o, 3, p.time_unix_ns);
  if (p.integer)
    fixed64_field(o, 6, static_cast<uint64_t>(static_cast<int64_t>(p.value)));
  else
    double_field(o, 4, p.value);
  for (const auto& a : p.attributes) bytes_field(o, 7, key_value(a));
  return o;
}

// HistogramDataPoint { start 2; time 3; count 4; sum 5; bucket_counts 6 (packed fixed64);
// explicit_bounds 7 (packed double); attributes 9 }.
std::string histogram_point(const DataPoint& p) {
  std::string o;
  fixed64_field(o, 2, p.start_unix_ns);
  fixed64_field(o, 3, p.time_unix_ns);
  fixed64_field(o, 4, p.count);
  double_field(o, 5, p.sum);
  std::string packed;
  for (uint64_t c : p.bucket_counts)
    for (int i = 0; i < 8; ++i) packed.push_back(static_cast<char>((c >> (8 * i)) & 0xFF));
  bytes_field(o, 6, packed);
  packed.clear();
  for (double b : p.bounds) {
    std::string one;
    double_field(one, 1, b);
    packed.append(one, 1, 8);  // the 8 bytes after the one-byte tag
  }
  bytes_field(o, 7, packed);
  for (const auto& a : p.attributes) bytes_field(o, 9, key_value(a));
  return o;
}

// Metric { name 1; description 2; unit 3; gauge 5 { points 1 }; sum 7 { points 1; temporality 2;
// is_monotonic 3 }; histogram 9 { points 1; temporality 2 } }.
std::string metric_message(const Metric& m) {
  std::string o;
  bytes_field(o, 1, m.name);
  if (!m.description.empty()) bytes_field(o, 2, m.description);
  if (!m.unit.empty()) bytes_field(o, 3, m.unit);
  std::string data;
  for (const auto& p : m.points)
    bytes_field(data, 1, m.kind == MetricKind::Histogram ? histogram_point(p) : number_point(p));
  if (m.kind != MetricKind::Gauge) varint_field(data, 2, kCumulative);
  if (m.kind == MetricKind::Sum) varint_field(data, 3, 1);
  bytes_field(o, m.kind == MetricKind::Gauge ? 5 : m.kind == MetricKind::Sum ? 7 : 9, data);
  return o;
}

}  // namespace

std::string encode_metrics(const std::vector<Metric>& metrics, std::string_view scope,
                           std::string_view service) {
  std::string resource;  // Resource { attributes 1 }
  if (!service.empty()) bytes_field(resource, 1, key_value({"service.name", std::string(service)}));
  std::string scoped;  // ScopeMetrics { scope 1 { name 1 }; metrics 2 }
  std::string scope_message;
  bytes_field(scope_message, 1, scope);
  bytes_field(scoped, 1, scope_message);
  for (const auto& m : metrics) bytes_field(scoped, 2, metric_message(m));
  std::string resource_metrics;  // ResourceMetrics { resource 1; scope_metrics 2 }
  bytes_field(resource_metrics, 1, resource);
  bytes_field(resource_metrics, 2, scoped);
  std::string request;  // ExportMetricsServiceRequest { resource_metrics 1 }
  bytes_field(request, 1, resource_metrics);
  return request;
}

// ---- reading --------------------------------------------------------------------------------

namespace {

double as_double(uint64_t bits) {
  double d = 0;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// A repeated fixed64 (or double) field, packed or not, appended to `out`: at most kMaxBounds + 1
// entries (a histogram's counts), checked before any is held.
bool take_fixed64s(Reader& r, int wire, std::vector<uint64_t>& out) {
  auto too_many = [&](size_t more) {  // true (the reader failed, with why) past the cap
    if (out.size() + more <= kMaxBounds + 1) return false;
    r.fail("a histogram of over " + std::to_string(kMaxBounds) + " bounds");
    return true;
  };
  if (wire == kFixed64) {
    uint64_t v = 0;
    if (too_many(1) || !r.take_fixed64(v)) return false;
    out.push_back(v);
    return true;
  }
  if (wire != kLen) return r.skip(wire);
  std::string_view packed;
  if (!r.take_bytes(packed)) return false;
  if (packed.size() % 8 != 0)
    return r.fail("a packed 64-bit field of " + std::to_string(packed.size()) + " bytes");
  if (too_many(packed.size() / 8)) return false;
  Reader inner(packed);
  for (size_t i = 0; i < packed.size(); i += 8) {
    uint64_t v = 0;
    inner.take_fixed64(v);
    out.push_back(v);
  }
  return true;
}

bool read_point(std::string_view b, MetricKind kind, DataPoint& p, std::string* why) {
  Reader r(b);
  int field = 0, wire = 0;
  const int attributes_field = kind == MetricKind::Histogram ? 9 : 7;
  std::vector<uint64_t> bounds;
  while (!r.done() && r.next(field, wire)) {
    uint64_t v = 0;
    std::string_view m;
    if (field == attributes_field && wire == kLen && r.take_bytes(m)) {
      if (!read_key_value(m, p.attributes, why)) return false;
    } else if ((field == 2 || field == 3) && wire == kFixed64 && r.take_fixed64(v)) {
      (field == 2 ? p.start_unix_ns : p.time_unix_ns) = v;
    } else if (kind != MetricKind::Histogram && (field == 4 || field == 6) && wire == kFixed64 &&
               r.take_fixed64(v)) {
      p.integer = field == 6;
      p.value = field == 6 ? static_cast<double>(static_cast<int64_t>(v)) : as_double(v);
    } else if (kind == MetricKind::Histogram && field == 4 && wire == kFixed64 &&
               r.take_fixed64(v)) {
      p.count = v;
    } else if (kind == MetricKind::Histogram && field == 5 && wire == kFixed64 &&
               r.take_fixed64(v)) {
      p.sum = as_double(v);
    } else if (kind == MetricKind::Histogram && (field == 6 || field == 7)) {
      take_fixed64s(r, wire, field == 6 ? p.bucket_counts : bounds);
    } else if (r.error().empty()) {
      r.skip(wire);
    }
  }
  for (uint64_t bits : bounds) p.bounds.push_back(as_double(bits));
  if (!r.error().empty() && why && why->empty()) *why = r.error();
  return r.error().empty();
}

bool read_metric(std::string_view b, Metric& m, size_t max_points, size_t& points, size_t* dropped,
                 std::string* why) {
  Reader r(b);
  int field = 0, wire = 0;
  while (!r.done() && r.next(field, wire)) {
    std::string_view s;
    if (wire != kLen || !(field <= 3 || field == 5 || field == 7 || field == 9)) {
      r.skip(wire);
      continue;
    }
    if (!r.take_bytes(s)) break;
    if (field == 1) m.name = std::string(s);
    if (field == 2) m.description = std::string(s);
    if (field == 3) m.unit = std::string(s);
    if (field < 5) continue;
    m.kind = field == 5 ? MetricKind::Gauge : field == 7 ? MetricKind::Sum : MetricKind::Histogram;
    if (!each_message(s, 1, why, [&](std::string_view point) {
          if (points >= max_points) {
            if (dropped) ++*dropped;
            return true;
          }
          ++points;
          return read_point(point, m.kind, m.points.emplace_back(), why);
        }))
      return false;
  }
  if (!r.error().empty() && why && why->empty()) *why = r.error();
  return r.error().empty();
}

}  // namespace

bool decode_metrics(std::string_view body, std::vector<Metric>& out, size_t max_points,
                    size_t* dropped, std::string* why) {
  size_t points = 0;
  for (const auto& m : out) points += m.points.size();
  return each_message(body, 1, why, [&](std::string_view resource_metrics) {
    std::string service;
    if (!read_resource_service(resource_metrics, service, why)) return false;
    return each_message(resource_metrics, 2, why, [&](std::string_view scope_metrics) {
      return each_message(scope_metrics, 2, why, [&](std::string_view m) {
        Metric metric;
        if (!read_metric(m, metric, max_points, points, dropped, why)) return false;
        metric.service = service;
        out.push_back(std::move(metric));
        return true;
      });
    });
  });
}

}  // namespace tokbench::otlp
