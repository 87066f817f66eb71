#pragma once
// metrics/cross_check: the client's figures against the server's own (record::ServerSummary, the
// deltas probe/server_metrics scraped): output tokens, TPOT and TTFT, the requests in flight, and
// the prompt tokens a caching engine evaluated. Pure: each comparison states its tolerance and
// why the two may differ; the verdict judges the disagreements.
#include <cstdint>
#include <optional>
#include <vector>

#include "record/server_view.hpp"

namespace tokbench::metrics {

using record::CrossCheck;
using record::ServerSummary;

/// Client output tokens vs server generation tokens; client per-token TPOT vs server ITL per step
/// divided by the mean acceptance length (1 without speculative decoding); client TTFT vs server
/// TTFT (`ttft_from_request_start`: the client's TTFT was measured from the request's start on the
/// wire, connection set-up excluded, like the server's from arrival). Only what the server exposes
/// is compared.
/// `client_failed`: measured requests that failed; their tokens reached the server's counters
/// but not the client's sum, so the token check is shown but not judged.
std::vector<CrossCheck> cross_check(const ServerSummary& s, double client_output_tokens,
                                    std::optional<double> client_tpot_ms,
                                    std::optional<double> client_ttft_ms, int64_t client_failed = 0,
                                    bool ttft_from_request_start = false);

/// The server's requests in flight (running + waiting) at its busiest scrape against the client's
/// most in flight: more on the server, beyond a hand-over allowance of 1 + a quarter of the
/// client's peak (a finished request not yet retired beside the one sent in its place), means
/// traffic that was not the run's. One-sided (a scrape may miss the peak); nullopt without a
/// running/waiting series.
std::optional<CrossCheck> in_flight_check(const ServerSummary& s, int64_t client_peak);

/// For an engine whose prompt-token counter leaves out prefix-cache hits (llama.cpp's): the
/// prompt tokens it evaluated against those the client's usage reported — the difference is
/// what its cache served, compared with usage's cached tokens when the answers told them
/// (`client_cached` < 0: they did not). nullopt for other engines, or without counts.
std::optional<CrossCheck> prompt_check(const ServerSummary& s, double client_prompt_tokens,
                                       double client_cached);

/// The requests the server aborted (ServerSummary::aborted) against those the client let go in
/// flight: cancelled on purpose (--cancel-rate) or by a stop. One either side is allowed, and 2%
/// (a request let go in the last instant may be counted after the last scrape). nullopt when
/// the server does not count aborts.
std::optional<CrossCheck> abort_check(const ServerSummary& s, int64_t client_let_go);

}  // namespace tokbench::metrics
