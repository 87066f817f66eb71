#include "metrics/cross_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/metrics_dialect.hpp"

namespace tokbench::metrics {

using core::Dialect;
using core::dialect_named;

std::vector<CrossCheck> cross_check(const ServerSummary& s, double client_output_tokens,
                                    std::optional<double> client_tpot_ms,
                                    std::optional<double> client_ttft_ms, int64_t client_failed,
                                    bool ttft_from_request_start) {
  std::vector<CrossCheck> out;
  auto check = [&](std::string what, double client, double server, double tol, double abs_tol,
                   std::string note) {
    const bool agree = std::abs(client - server) <= std::max(tol * std::abs(server), abs_tol);
    out.push_back({std::move(what), client, server, tol, abs_tol, agree, std::move(note)});
  };
  if (s.generation_tokens && client_failed > 0) {
    // Cut or failed requests: the server counted tokens the client never received. Shown, not
    // judged.
    out.push_back({"output tokens", client_output_tokens, *s.generation_tokens, 0.02, 0, true,
                   fmt::format("not judged: {} request(s) failed, were cut or were cancelled, "
                               "and the server counted tokens the client's sum leaves out",
                               client_failed)});
  } else if (s.generation_tokens) {
    const Dialect* d = dialect_named(s.dialect);
    check("output tokens", client_output_tokens, *s.generation_tokens, 0.02, 0,
          fmt::format("client sum of output tokens vs the delta of {} (other traffic on the "
                      "server breaks it)",
                      d ? d->generation_tokens : "its generated-token counter"));
  }
  if (client_tpot_ms && s.itl && s.itl->count > 0) {
    const double per_token = s.itl->mean() * 1000 / s.spec_mean_acceptance_length.value_or(1.0);
    check(
        "TPOT (ms)", *client_tpot_ms, per_token, 0.10, 0.5,
        "client TPOT vs server inter-token latency per step divided by the mean acceptance length");
  }
  if (client_ttft_ms && s.ttft && s.ttft->count > 0) {
    check("TTFT (ms)", *client_ttft_ms, s.ttft->mean() * 1000, 0.25, 50,
          ttft_from_request_start ? "like with like: the client's TTFT from the request's start on "
                                    "the wire (connection set-up excluded) vs "
                                    "the server's from its arrival; the network and the server's "
                                    "accept remain in the client's"
                                  : "client TTFT includes the connection set-up, the network and "
                                    "the client; the server's starts at arrival");
  }
  return out;
}

std::optional<CrossCheck> in_flight_check(const ServerSummary& s, int64_t client_peak) {
  if (s.running_waiting.empty() || client_peak <= 0) return std::nullopt;
  double peak = 0;
  for (const auto& [t, running, waiting] : s.running_waiting)
    peak = std::max(peak, running + waiting);
  const Dialect* d = dialect_named(s.dialect);
  // A request whose last byte the client has read may still count on the server for a moment,
  // while the request sent in its place already does: a scrape in that instant sees a few more
  // than the client ever had. Other traffic is judged beyond that hand-over allowance.
  const double allowance = 1 + std::floor(static_cast<double>(client_peak) / 4);
  CrossCheck c{"requests in flight (peak)",
               static_cast<double>(client_peak),
               peak,
               0,
               0,
               peak <= static_cast<double>(client_peak) + allowance,
               fmt::format("the server's running + waiting ({} + {}) at its busiest of {} "
                           "scrape(s) vs the client's most in flight; one-sided: a scrape may "
                           "miss the peak, and up to {:.0f} more (a finished request not yet "
                           "retired beside the one sent in its place) are allowed; beyond that "
                           "it is traffic not of this run",
                           d ? d->running : "running", d ? d->waiting : "waiting",
                           s.running_waiting.size(), allowance)};
  return c;
}

std::optional<CrossCheck> abort_check(const ServerSummary& s, int64_t client_let_go) {
  if (!s.aborted) return std::nullopt;
  const double client = static_cast<double>(client_let_go);
  const double allowed = std::max(1.0, 0.02 * client);
  return CrossCheck{"requests aborted",
                    client,
                    *s.aborted,
                    0.02,
                    1,
                    std::abs(*s.aborted - client) <= allowed,
                    "the server's aborted requests (vLLM: request_success_total{finished_reason="
                    "\"abort\"}) vs those the client let go in flight (--cancel-rate's "
                    "client_cancelled, and any cancelled by a stop)"};
}

std::optional<CrossCheck> prompt_check(const ServerSummary& s, double client_prompt_tokens,
                                       double client_cached) {
  if (!s.prompt_tokens || client_prompt_tokens <= 0) return std::nullopt;
  const Dialect* d = dialect_named(s.dialect);
  const char* name = d ? d->prompt_tokens : "its prompt-token counter";
  // Where the counter holds every prompt token (vLLM's), prefills of warm-ups and of requests the
  // client gave up on make it differ for reasons this check cannot see: only the cache's
  // evidence is checked.
  if (!d || !d->prompt_excludes_cache) return std::nullopt;
  // llama.cpp counts only the prompt tokens it evaluated: the rest came from its cache.
  const double from_cache = client_prompt_tokens - *s.prompt_tokens;
  std::string note = fmt::format(
      "{} counts only the prompt tokens it evaluated: {:.0f} of the {:.0f} usage reported "
      "({:.1f}%) came from its prefix cache",
      name, std::max(0.0, from_cache), client_prompt_tokens,
      100 * std::max(0.0, from_cache) / client_prompt_tokens);
  if (client_cached < 0)
    return CrossCheck{"prompt tokens evaluated",
                      client_prompt_tokens,
                      *s.prompt_tokens,
                      0,
                      0,
                      from_cache >= 0,
                      note};
  // The answers said how many were cached: evaluated = prompt - cached, within 2%.
  const double expected = client_prompt_tokens - client_cached;
  return CrossCheck{"prompt tokens evaluated",
                    expected,
                    *s.prompt_tokens,
                    0.02,
                    0,
                    std::abs(expected - *s.prompt_tokens) <= 0.02 * std::abs(*s.prompt_tokens),
                    note + fmt::format("; the client's side is usage's prompt tokens less its "
                                       "{:.0f} cached ones",
                                       client_cached)};
}

}  // namespace tokbench::metrics
