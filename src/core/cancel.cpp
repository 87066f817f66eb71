#include "core/cancel.hpp"

#include <charconv>
#include <cmath>

#include "core/draw.hpp"

namespace tokbench::core {

namespace {

// One end of a range: a number and its unit.
std::optional<std::pair<double, CancelAfter::Unit>> parse_end(std::string_view s,
                                                              std::string* why) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  const std::string_view unit(end, static_cast<size_t>(s.data() + s.size() - end));
  if (ec != std::errc{} || end == s.data() || !std::isfinite(v) || v < 0) {
    *why = "'" + std::string(s) + "' does not start with a number of 0 or more";
    return std::nullopt;
  }
  if (unit == "ms") return std::pair{v, CancelAfter::Unit::Ms};
  if (unit == "s") return std::pair{v * 1000, CancelAfter::Unit::Ms};
  if (unit == "tok" || unit == "tokens") return std::pair{v, CancelAfter::Unit::Tokens};
  *why = "'" + std::string(s) + "' has no unit: write ms, s or tok (500ms, 2s, 16tok)";
  return std::nullopt;
}

// In [0, 1); the seed is salted, so the draw is independent of the request's other draws.
double unit_draw(uint64_t seed, int64_t index, uint64_t k) {
  return static_cast<double>(seeded_draw(seed ^ 0xC4E1A7C0FFEE5EEDULL, index, k) >> 11) * 0x1.0p-53;
}

}  // namespace

std::optional<CancelAfter> parse_cancel_after(std::string_view text, std::string* why) {
  std::string scratch;
  if (!why) why = &scratch;
  const size_t dots = text.find("..");
  const auto lo = parse_end(text.substr(0, dots), why);
  if (!lo) return std::nullopt;
  if (lo->second == CancelAfter::Unit::Tokens && lo->first < 1) {
    *why = "a token count is 1 or more (0ms cancels as soon as the request is sent)";
    return std::nullopt;
  }
  auto hi = lo;
  if (dots != std::string_view::npos) {
    hi = parse_end(text.substr(dots + 2), why);
    if (!hi) return std::nullopt;
    if (hi->second != lo->second) {
      *why = "a range's two ends are both times or both token counts (200ms..2s, 8tok..64tok)";
      return std::nullopt;
    }
    if (hi->first < lo->first) {
      *why = "a range goes from the smaller to the larger (200ms..2s)";
      return std::nullopt;
    }
  }
  return CancelAfter{lo->second, lo->first, hi->first};
}

std::string cancel_after_text(const CancelAfter& c) {
  const char* unit = c.unit == CancelAfter::Unit::Ms ? "ms" : "tok";
  auto num = [](double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
  };
  std::string out = num(c.lo) + unit;
  if (c.hi != c.lo) out += ".." + num(c.hi) + unit;
  return out;
}

CancelPoint cancel_point(uint64_t seed, int64_t index, double rate, const CancelAfter& after) {
  CancelPoint p;
  if (rate <= 0 || unit_draw(seed, index, 0) >= rate) return p;
  const double v = after.lo + (after.hi - after.lo) * unit_draw(seed, index, 1);
  if (after.unit == CancelAfter::Unit::Ms)
    p.after_ns = static_cast<int64_t>(std::llround(v * 1e6));
  else
    p.after_tokens = static_cast<int64_t>(std::llround(v));
  return p;
}

}  // namespace tokbench::core
