#include "metrics/saturation.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/format.hpp"

namespace tokbench::metrics {

std::optional<std::string> SaturationDetector::add(const SaturationWindow& w) {
  if (seen_++ == 0) return std::nullopt;  // the fill
  last_.push_back(w);
  if (last_.size() > static_cast<size_t>(kSaturationWindows)) last_.pop_front();
  if (last_.size() < static_cast<size_t>(kSaturationWindows)) return std::nullopt;
  for (size_t i = 1; i < last_.size(); ++i) {
    if (last_[i].in_flight <= last_[i - 1].in_flight) return std::nullopt;
    if (!last_[i].ttft_ms || !last_[i - 1].ttft_ms || *last_[i].ttft_ms <= *last_[i - 1].ttft_ms)
      return std::nullopt;
  }
  const SaturationWindow& first = last_.front();
  const SaturationWindow& now = last_.back();
  if (now.in_flight < 1.5 * static_cast<double>(first.in_flight) ||
      now.in_flight < first.in_flight + 4)
    return std::nullopt;
  if (*now.ttft_ms < 1.5 * *first.ttft_ms) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(
      last_.begin(), last_.end(),
      [](const auto& a, const auto& b) { return a.output_tokens_per_s < b.output_tokens_per_s; });
  if (lo->output_tokens_per_s <= 0 || hi->output_tokens_per_s > 1.25 * lo->output_tokens_per_s)
    return std::nullopt;
  return fmt::format(
      "past saturation at {} s: in flight {} -> {}, mean TTFT {} -> {} ms, while output stayed at "
      "{}-{} "
      "tokens/s",
      format_round4(now.end_s), first.in_flight, now.in_flight, format_round4(*first.ttft_ms),
      format_round4(*now.ttft_ms), format_round4(lo->output_tokens_per_s),
      format_round4(hi->output_tokens_per_s));
}

}  // namespace tokbench::metrics
