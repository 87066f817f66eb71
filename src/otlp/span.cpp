#include "otlp/span.hpp"

#include <algorithm>

namespace tokbench::otlp {

std::optional<double> Span::number(std::string_view key) const {
  for (const auto& a : attributes) {
    if (a.key != key) continue;
    if (const auto* i = std::get_if<int64_t>(&a.value)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&a.value)) return *d;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> Span::text(std::string_view key) const {
  for (const auto& a : attributes)
    if (a.key == key)
      if (const auto* s = std::get_if<std::string>(&a.value)) return *s;
  return std::nullopt;
}

namespace {
bool lower_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}
bool all_zero(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == '0'; });
}
}  // namespace

std::optional<TraceParent> parse_traceparent(std::string_view h) {
  // version(2) - trace id(32) - parent id(16) - flags(2): 55 characters (W3C Trace Context §3.2).
  if (h.size() < 55 || h[2] != '-' || h[35] != '-' || h[52] != '-') return std::nullopt;
  const std::string_view trace = h.substr(3, 32), span = h.substr(36, 16);
  if (!lower_hex(h.substr(0, 2)) || !lower_hex(trace) || !lower_hex(span) ||
      !lower_hex(h.substr(53, 2)) || all_zero(trace) || all_zero(span))
    return std::nullopt;
  return TraceParent{std::string(trace), std::string(span)};
}

}  // namespace tokbench::otlp
