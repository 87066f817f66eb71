#pragma once
// core/cancel: a client that gives up on a request (--cancel-rate, --cancel-after), as a browser's
// stop button or an agent's timeout does: which requests, and when. The draw is a pure function
// of the seed and the request's index, so every rank, repeat and resume cancels the same
// requests. The client acts on it (client/engine closes the connection); metrics count such
// requests apart (neither successes nor failures). Knows no clock and no HTTP.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tokbench::core {

/// When a chosen request is cancelled: a time after it was sent, or a count of answer tokens
/// received (text-carrying stream events), fixed (lo == hi) or drawn uniformly in [lo, hi].
struct CancelAfter {
  enum class Unit : uint8_t { Ms, Tokens };
  Unit unit = Unit::Tokens;
  double lo = 16, hi = 16;
};

/// The point of one request (kNotSet in both: it is not cancelled).
struct CancelPoint {
  int64_t after_ns = -1;
  int64_t after_tokens = -1;
  bool planned() const { return after_ns >= 0 || after_tokens >= 0; }
};

/// Parses --cancel-after: "500ms", "2s", "16tok" (or "16tokens"), or a range "200ms..2s",
/// "8tok..64tok" drawn uniformly; nullopt with `why` naming what is wrong.
std::optional<CancelAfter> parse_cancel_after(std::string_view text, std::string* why);
/// The canonical spelling ("16tok", "200ms..2000ms").
std::string cancel_after_text(const CancelAfter& c);

/// Request `index`'s cancellation under `rate` (a share, 0..1) and `after`, drawn from `seed`.
CancelPoint cancel_point(uint64_t seed, int64_t index, double rate, const CancelAfter& after);

}  // namespace tokbench::core
