#include "metrics/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace tokbench::metrics {

namespace {
constexpr double kPeakStretchSaturated =
    0.95;                               // a worker's share of its busiest 100 ms without a wait
constexpr double kMaxSendLagMs = 50;    // an open loop's send lag p99 past this missed its schedule
constexpr double kSendLagGoalMs = 0.1;  // what a schedule is held to (wrk2, LoadGen): p99
// A client whose own measured delay (ClientDelay) is at most this share of mean TTFT has not
// moved TTFT by more than the accuracy tokbench holds itself to; over it, it has, busy or not
// (bench/saturation_truth.py calibrated it against the simulator's kernel-receive truth: the
// CPU shares did not predict the error, ClientDelay did; docs/METRICS.md has the rates).
constexpr double kClientDelayShare = 0.02;
// Under this mean, a ClientDelay over the share is a short TTFT's grain, not a busy client: one
// wake-up of a client sharing its cores (this VM's wake-up floor: p99 1.9-2.8 ms, PERFORMANCE.md).
constexpr double kClientDelayFloorMs = 1.0;
// ClientDelay speaks for the run only when most TTFTs carry it (the kernel's stamping starts a
// moment after the first socket asks; libcurl and older run folders carry none).
constexpr double kClientDelayCoverage = 0.9;

// The client's own measured part of mean TTFT (ClientDelay over TTFT); nullopt when unmeasured.
struct OwnDelay {
  double mean_ms = 0, p99_ms = 0, share = 0;
};
std::optional<OwnDelay> own_delay(const MetricSet& m) {
  const Row* delay = m.row("ClientDelay");
  const Row* ttft = m.row("TTFT");
  if (!delay || !delay->stats || !ttft || !ttft->stats || ttft->stats->mean <= 0) return {};
  if (static_cast<double>(delay->stats->n) <
      kClientDelayCoverage * static_cast<double>(ttft->stats->n))
    return {};
  return OwnDelay{delay->stats->mean, delay->stats->p99, delay->stats->mean / ttft->stats->mean};
}
}  // namespace

bool VerdictTally::first_of_its_id(const record::RequestRecord& r) {
  if (r.warmup || r.index < 0 || r.index >= kMaxCheckedIds) return true;  // warm-up: own ids
  std::vector<bool>& seen = seen_[{r.rank, r.traffic_class}];
  const auto i = static_cast<size_t>(r.index);
  if (seen.size() <= i)
    seen.resize(std::min(std::max(i + 1, seen.size() * 2), static_cast<size_t>(kMaxCheckedIds)));
  if (!seen[i]) {
    seen[i] = true;
    return true;
  }
  if (duplicated++ == 0) duplicated_example = r.index;
  return false;
}

void VerdictTally::add(const record::RequestRecord& r) {
  if (r.warmup) {
    ++warmup;
    if (r.ok() && r.sent_ns >= window_start_ns)
      warmup_tokens_in_window += static_cast<double>(output_tokens(r));
    return;
  }
  if (r.outcome == record::Outcome::Cut) {
    ++cut;
    return;
  }
  if (r.cancel_planned) ++cancel_planned;
  if (r.outcome == record::Outcome::ClientCancelled) {
    ++client_cancelled;
    return;
  }
  ++measured;
  resent += r.resent;
  if (r.rank != record::kNone) {
    Rank& k = ranks[r.rank];
    ++k.requests;
    if (r.scheduled_ns != record::kNone && r.sent_ns != record::kNone) {
      const double lag = static_cast<double>(std::max<int64_t>(0, r.sent_ns - r.scheduled_ns));
      ++k.lagged;
      k.lag_sum_ns += lag;
      k.lag_max_ns = std::max(k.lag_max_ns, lag);
    }
  }
  if (r.malformed_sse_lines > 0) {
    ++malformed_requests;
    malformed_lines += r.malformed_sse_lines;
  }
  if (r.sent_ns != record::kNone && r.done_ns != record::kNone) {
    first_sent_ns = std::min(first_sent_ns, r.sent_ns);
    last_done_ns = std::max(last_done_ns, r.done_ns);
  }
  if (!r.ok()) {
    ++failed;
    ++failures[std::string(record::outcome_name(r.outcome))];
    if (r.http_status > 0 && r.outcome == record::Outcome::HttpStatus && http_statuses.size() < 64)
      ++http_statuses[r.http_status];
    if (first_failure.empty() && r.outcome != record::Outcome::Cancelled) {
      std::string said = r.error.substr(0, 200);
      for (char& c : said)
        if (c == '\n' || c == '\r') c = ' ';
      // The client's error already names the status ("HTTP 500: {...}"): said once.
      const std::string status = fmt::format("HTTP {}", r.http_status);
      first_failure = r.http_status > 0 && !said.starts_with(status)
                          ? fmt::format("{}: {}", status, said)
                          : said;
      if (r.error.size() > 200) first_failure += "…";
    }
    return;
  }
  // Usage a server could not have produced: more than the cap allows, or far more than the text.
  if (r.completion_tokens != record::kNone) {
    const __int128 claimed = r.completion_tokens;
    if (r.requested_max_tokens != record::kNone && r.requested_max_tokens > 0 &&
        claimed > static_cast<__int128>(r.requested_max_tokens) * std::max<int64_t>(1, r.choices)) {
      if (usage_over_cap++ == 0)
        usage_example =
            fmt::format("{}: {} completion tokens with max_tokens {} and {} choice(s)",
                        r.request_id, r.completion_tokens, r.requested_max_tokens, r.choices);
    } else if (r.requested_max_tokens == record::kNone &&
               claimed > static_cast<__int128>(r.output_chars) * 4 + 1024) {
      if (usage_over_text++ == 0 && usage_over_cap == 0)
        usage_example = fmt::format("{}: {} completion tokens for {} bytes of text", r.request_id,
                                    r.completion_tokens, r.output_chars);
    }
  }
  // ignore_eos promises max_tokens tokens per choice; a server that ignores it makes TPOT
  // incomparable.
  if (r.ignore_eos_sent && r.requested_max_tokens != record::kNone &&
      static_cast<__int128>(output_tokens(r)) !=
          static_cast<__int128>(r.requested_max_tokens) * r.choices)
    ++short_outputs;
}

namespace {

// " [503 ×3, 429 ×1]": the most frequent statuses of the failed requests, three at most.
std::string top_statuses(const std::map<int64_t, int64_t>& statuses) {
  if (statuses.empty()) return "";
  std::vector<std::pair<int64_t, int64_t>> by_count(statuses.begin(), statuses.end());
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (size_t i = 0; i < by_count.size() && i < 3; ++i)
    out += fmt::format("{}{} ×{}", i ? ", " : " [", by_count[i].first, by_count[i].second);
  return out + (by_count.size() > 3 ? ", …]" : "]");
}

// What was measured at all: an incomplete or interrupted run, failures, too few requests for the
// percentiles, a server that ignores ignore_eos.
void judge_counts(Verdict& v, const VerdictTally& t, const VerdictFacts& f) {
  if (!f.incomplete.empty()) v.reasons.push_back(f.incomplete);
  if (f.interrupted) {
    v.reasons.push_back(
        "interrupted: statistics cover only the requests that finished; rerun to completion");
  }
  // A point stopped past saturation cancels what is in flight on purpose: those are tokbench's
  // doing, said as such, not the server's failures.
  const auto cancelled = t.failures.find("cancelled");
  const int64_t stopped =
      f.saturated && cancelled != t.failures.end() ? cancelled->second : int64_t{0};
  if (stopped > 0)
    v.notes.push_back(fmt::format(
        "{} request(s) in flight when the point was stopped past saturation were cancelled by "
        "tokbench (--stop-on-saturation): not failures of the server",
        stopped));
  if (t.failed - stopped > 0) {
    std::string parts;
    for (const auto& [k, n] : t.failures)
      if (n > 0 && !(stopped > 0 && k == "cancelled"))
        parts += fmt::format("{}{} {}{}", parts.empty() ? "" : ", ", n, k,
                             k == "http_status" ? top_statuses(t.http_statuses) : "");
    v.reasons.push_back(fmt::format(
        "{} of {} requests failed ({}{}): see the _failed.jsonl file and the server log",
        t.failed - stopped, t.measured, parts,
        t.first_failure.empty() ? "" : "; the first: " + t.first_failure));
  }
  if (t.measured == 0 && t.warmup > 0) {
    v.reasons.push_back(fmt::format(
        "no request was measured: all {} recorded requests were warm-up (--warmup, or sent "
        "during the --ramp-up-s ramp); raise --num-prompts, or pass --ramp-up-measured",
        t.warmup));
  } else if (t.measured == 0) {
    v.reasons.push_back("no request was measured: raise --num-prompts");
  }
  // Percentiles need samples: below 10 even P90 is the maximum; below 100, P99 interpolates the
  // top two. Few samples make the tail percentiles estimates, not wrong measurements: a warning
  // (a CI smoke test of a few requests stands), said where the numbers are read.
  const int64_t ok = t.measured - t.failed;
  if (ok > 0 && ok < 10) {
    v.warnings.push_back(fmt::format(
        "only {} successful request(s): P90 and P99 are the slowest request, not tail "
        "percentiles; the means and counts stand; raise --num-prompts to 100 or more for a "
        "stable tail",
        ok));
  } else if (ok >= 10 && ok < 100) {
    v.warnings.push_back(fmt::format(
        "{} successful requests: P99 interpolates between the two slowest; use 100 or more "
        "for a stable P99",
        ok));
  }
  if (t.duplicated > 0)
    v.warnings.push_back(fmt::format(
        "the details file holds {} measured line(s) twice (the first: id {}): each was read once "
        "and its copy left out of every figure; the file was written twice or edited (compare it "
        "with the run's log)",
        t.duplicated, t.duplicated_example));
  if (f.client.server_closed > 0)
    v.notes.push_back(fmt::format(
        "the server closed {} kept-alive connection(s) after their response (llama.cpp's server "
        "does after every stream, though it answers Keep-Alive): each was replaced before reuse, "
        "and once seen, no connection was kept after a response, so the requests after it were "
        "not sent on warm connections and their TTFT includes a new connection's set-up "
        "(\"connects\" in the details; TTFT_FromRequestStart leaves it out)",
        f.client.server_closed));
  if (t.resent > 0) {
    v.notes.push_back(fmt::format(
        "{} request(s) were sent a second time on a new connection after a kept-alive one closed "
        "under them (\"resent\" in the details): the server may have read the first copy too "
        "(RFC 9110 §9.2.2); its counters may count them twice",
        t.resent));
  }
  if (t.usage_over_cap > 0) {
    v.reasons.push_back(fmt::format(
        "{} request(s) report more completion tokens in usage than max_tokens allows (first: "
        "{}): the server's token counts cannot be true, so no token figure can be; check the "
        "server or proxy that writes usage",
        t.usage_over_cap, t.usage_example));
  } else if (t.usage_over_text > 0) {
    v.warnings.push_back(fmt::format(
        "{} request(s) report over 4 completion tokens per byte of text received (first: {}): "
        "implausible unless the server counts reasoning tokens it does not stream; token "
        "figures rest on that usage",
        t.usage_over_text, t.usage_example));
  }
  if (t.short_outputs > 0) {
    v.reasons.push_back(fmt::format(
        "{} request(s) with ignore_eos returned a different number of tokens than max_tokens: "
        "the server does not honour ignore_eos (check the model's generation config or drop "
        "--ignore-eos)",
        t.short_outputs));
  }
}

// The client's own health. Where the transport measured the client's own delay in TTFT
// (ClientDelay), that decides, busy or not: over kClientDelayShare of mean TTFT (and over
// kClientDelayFloorMs) INVALID, below it a saturated client is a warning. Unmeasured (libcurl, an
// older folder), a client saturated all run long or starved of CPU is INVALID. Behind in a burst
// is a warning either way. Says whether the client's delay may be in the figures, which the
// server cross-check needs.
bool judge_client(Verdict& v, const MetricSet& m, const VerdictFacts& f) {
  // A saturated client: all run long, or in its busiest 100 ms (a warning: the requests of that
  // moment carry the client's own delay, TTFT most; a whole-run average hides it). Busy without
  // the CPU time to show for it: the thread waited for a CPU (a core shared with other work, a
  // CPU quota), and its streams waited with it.
  const bool starved = f.client.cpu_share <= 0.9 && f.client.busy_share > 0.9;
  const bool saturated = f.client.cpu_share > 0.9 || starved;
  const bool burst_saturated = !saturated && f.client.peak_busy >= kPeakStretchSaturated;
  const std::optional<OwnDelay> own = own_delay(m);
  const bool over = own && own->share > kClientDelayShare;
  const bool over_floor = over && own->mean_ms >= kClientDelayFloorMs;
  const std::string busy =
      starved ? fmt::format(
                    "the client's busiest worker thread went without waiting for the network "
                    "{:.0f}% of the time but ran on a CPU only {:.0f}%: it waited for a CPU (a "
                    "core shared with other work, a CPU quota)",
                    100 * f.client.busy_share, 100 * std::max(0.0, f.client.cpu_share))
      : saturated ? fmt::format("the client's busiest worker thread was busy {:.0f}% of the time",
                                100 * f.client.cpu_share)
                  : fmt::format(
                        "the client's busiest worker thread was on a CPU only {:.0f}% of the "
                        "time: it waited to be woken (other work on its cores delays each "
                        "wake-up)",
                        100 * std::max(0.0, f.client.cpu_share));
  const char* fix = saturated && !starved
                        ? "raise --workers or run the client on a bigger machine"
                        : "give the client cores of its own (taskset, --workers), quiet the "
                          "machine or lift its CPU quota";
  const std::string delay =
      own ? fmt::format(
                "its own delay in TTFT (ClientDelay: sending, and the first token waiting in "
                "the kernel) was {:.3f} ms mean, {:.2f}% of mean TTFT (p99 {:.3f} ms)",
                own->mean_ms, 100 * own->share, own->p99_ms)
          : std::string();
  if (over_floor) {
    v.reasons.push_back(
        fmt::format("{}: past the {:.0f}% tokbench holds TTFT to, and TTFT "
                    "carries it; {}; {}",
                    delay, 100 * kClientDelayShare, busy, fix));
  } else if (over) {
    v.warnings.push_back(fmt::format(
        "{}: under {:.1f} ms, a shared host's wake-up; TTFT is measured to that grain{}", delay,
        kClientDelayFloorMs,
        saturated ? fmt::format("; {}; for headroom {}", busy, fix) : std::string()));
  } else if (saturated && own) {
    v.warnings.push_back(
        fmt::format("{}, but {}: within the {:.0f}% the verdict allows, so the "
                    "figures hold; ITL's tail may carry more of it; for "
                    "headroom {}",
                    busy, delay, 100 * kClientDelayShare, fix));
  } else if (saturated) {
    v.reasons.push_back(fmt::format("{}: its own delays are in the timings; {}", busy, fix));
  }
  if (burst_saturated) {
    v.warnings.push_back(fmt::format(
        "the client fell behind for a while: a worker thread never waited for the network "
        "for {:.0f}% of the 100 ms from {:.1f} s (working, or waiting for a CPU), and the "
        "requests of that moment carry its own delay (TTFT most{}); raise --workers, give the "
        "client more cores, or spread the load (a closed loop's waves start all at once)",
        100 * f.client.peak_busy, f.client.peak_busy_at_s,
        own ? fmt::format("; measured over the run, ClientDelay was {:.2f}% of mean TTFT",
                          100 * own->share)
            : std::string()));
  }
  // Measured, the client's delay is what a disagreement with the server may be made of only when
  // it was over the allowance; unmeasured, whenever the client was busy.
  return own ? over_floor : saturated || burst_saturated;
}

// What can help a schedule the client did not keep. Under a --concurrency cap, the cap held the
// sends back; with none, nothing did, so raising it cannot help: the client itself was late.
std::string send_lag_fix(const VerdictFacts& f) {
  const char* slower =
      f.trace ? "replay the trace slower (--trace-speed below 1)" : "lower --request-rate";
  if (f.in_flight_capped) return fmt::format("raise --concurrency or {}", slower);
  return fmt::format(
      "no in-flight cap held the sends back, so the client itself was late (see its busiest "
      "thread's share in end.json): give it more cores or ranks (--workers, mpirun), or {}",
      slower);
}

// Send lag beside this machine's wake-up floor (measured before the phase, end.json): a schedule
// missed by more than kMaxSendLagMs is INVALID, and when the machine itself woke a bare thread
// at least half as late, its timer jitter is named as the cause, not the client.
void judge_send_lag(Verdict& v, const Summary& lag, const VerdictFacts& f) {
  const double floor = f.client.wakeup_floor_p99_ms;
  if (lag.p99 > kMaxSendLagMs && 2 * floor >= lag.p99) {
    v.reasons.push_back(fmt::format(
        "send lag p99 was {:.1f} ms, and this machine itself woke a bare thread up to {:.1f} ms "
        "late (its wake-up floor, p99 of 200 deadlines just before the phase): the machine's timer "
        "jitter, not the client, missed the arrival schedule; run on a quieter machine (a VM's "
        "steal time shows in /proc/stat) or {}",
        lag.p99, floor,
        f.trace ? "replay the trace slower (--trace-speed below 1)" : "lower --request-rate"));
  } else if (lag.p99 > kMaxSendLagMs) {
    v.reasons.push_back(fmt::format(
        "send lag p99 was {:.1f} ms{}: the client could not keep the arrival schedule; {}", lag.p99,
        floor >= 0 ? fmt::format(" (this machine's wake-up floor p99: {:.3f} ms)", floor) : "",
        send_lag_fix(f)));
  } else if (floor >= 0) {
    // In µs: both are usually far under a millisecond. The goal a schedule is held to is 100 µs
    // at p99; past it, the floor says whose the rest is.
    const char* whose = lag.p99 <= kSendLagGoalMs ? "within the 0.1 ms goal"
                        : lag.p99 <= 2 * floor
                            ? "the schedule was kept as closely as this machine wakes a thread"
                            : "past the 0.1 ms goal: the client added the rest";
    v.notes.push_back(
        fmt::format("send lag p99 {:.1f} µs beside this machine's wake-up floor p99 {:.1f} µs (a "
                    "bare thread sleeping to 200 deadlines before the phase): {}",
                    1e3 * lag.p99, 1e3 * floor, whose));
  }
}

// --cancel-rate: what the client let go on purpose, said as such (never a failure). The share is
// judged against the binomial: a client that cancelled far fewer than it drew did not do as asked
// (answers that ended before their cancel point are named as the cause).
void judge_cancels(Verdict& v, const VerdictTally& t, const VerdictFacts& f) {
  const int64_t n = t.measured + t.client_cancelled;
  if (n == 0) return;
  const double share = static_cast<double>(t.client_cancelled) / static_cast<double>(n);
  const int64_t finished_first = t.cancel_planned - t.client_cancelled;
  v.notes.push_back(fmt::format(
      "{} of {} requests ({:.1f}%) were cancelled by the client as asked (--cancel-rate {} "
      "--cancel-after {}): client_cancelled in the details, in no statistic, not failures{}",
      t.client_cancelled, n, 100 * share, f.cancel_rate, f.cancel_after,
      finished_first > 0
          ? fmt::format("; {} more drawn to be cancelled finished first", finished_first)
          : ""));
  // Three standard deviations of the binomial below the asked share.
  const double sd = std::sqrt(f.cancel_rate * (1 - f.cancel_rate) / static_cast<double>(n));
  if (share < f.cancel_rate - 3 * sd - 0.5 / static_cast<double>(n) && finished_first > 0)
    v.warnings.push_back(fmt::format(
        "only {:.1f}% of the requests were cancelled where --cancel-rate asked {:.1f}%: {} "
        "answers ended before their cancel point (--cancel-after {}); give an earlier one",
        100 * share, 100 * f.cancel_rate, finished_first, f.cancel_after));
}

// The load as it went: cut requests, the arrival schedule kept, the server's view agreeing, the
// asked concurrency reached, token counts that are chunks, SSE that is not clean.
void judge_load(Verdict& v, const MetricSet& m, const VerdictTally& t, const VerdictFacts& f,
                bool client_behind) {
  if (t.cut > 0) {
    v.warnings.push_back(fmt::format(
        "{} request(s) still in flight {} s after --duration-s {} ended were cut (cut_at_end in "
        "the details): not counted, neither as successes nor as failures; raise --grace-s to "
        "let them finish",
        t.cut, f.grace_s, f.duration_s));
  }
  if (f.cancel_rate > 0) judge_cancels(v, t, f);
  if (f.request_rate > 0 &&
      std::isfinite(f.request_rate)) {  // inf: everything is due at once, waiting is the point
    if (const auto* lag = m.row("SendLag"); lag && lag->stats) judge_send_lag(v, *lag->stats, f);
  }
  if (f.server_disagrees && client_behind) {
    v.reasons.push_back(
        "the client and the server's /metrics disagree (see the Cross-check table, server.json: "
        "cross_check) and the client was "
        "saturated (above): its own delay is the likely cause; raise --workers or lower the load");
  } else if (f.server_disagrees && f.server_disagrees_on_ttft_only &&
             f.ttft_client_ms >= f.ttft_server_ms) {
    // The client kept up, so the time went after the request left it: the server's TTFT starts
    // when it has read the request and cannot see the wait before that.
    v.warnings.push_back(
        fmt::format("the client's TTFT ({:.1f} ms) is above the server's /metrics TTFT ({:.1f} ms; "
                    "see the Cross-check table, server.json: cross_check) and the "
                    "client kept up: the time passed after the request left the client and before "
                    "the server read it (a server "
                    "front end, its HTTP/accept loop, behind a burst; or the network or a proxy); "
                    "the client's TTFT is what a user "
                    "waits, the server's does not see that wait",
                    f.ttft_client_ms, f.ttft_server_ms));
  } else if (f.server_disagrees && f.server_disagrees_on_ttft_only) {
    // Below the server's: the server timed first tokens the client did not.
    const auto timeouts = t.failures.find("timeout");
    const int64_t timed_out = timeouts == t.failures.end() ? 0 : timeouts->second;
    v.warnings.push_back(
        fmt::format("the client's TTFT ({:.1f} ms) is below the server's /metrics TTFT ({:.1f} ms; "
                    "see the Cross-check table, server.json: cross_check): the "
                    "server's histogram holds first tokens the client did not time — {} request(s) "
                    "timed out on the client (failed, "
                    "so not in its TTFT){}, other traffic on the server, or requests of another "
                    "run inside the scrape window",
                    f.ttft_client_ms, f.ttft_server_ms, timed_out,
                    timed_out > 0 ? "; raise --timeout-s to time them" : ""));
  } else if (f.server_disagrees) {
    v.reasons.push_back(
        "the client and the server's /metrics disagree (see the Cross-check table, server.json: "
        "cross_check): other traffic on "
        "the server, or a proxy in between");
  }
  // The load asked for was never reached: "Max Concurrency" alone would read as if it had been.
  if (const auto* cap = m.common_metric("max_concurrency");
      cap && f.request_rate <= 0 && !f.open_loop &&
      t.measured >= 2 * static_cast<int64_t>(cap->value) &&
      static_cast<double>(m.observed_max_concurrency) < 0.9 * cap->value) {
    v.warnings.push_back(fmt::format(
        "at most {} request(s) were in flight at once against --concurrency {}: the asked "
        "load was not reached (a client limit such as --workers or open files, or the "
        "server refusing connections)",
        m.observed_max_concurrency, cap->value));
  }
  if (m.output_tokens_from_chunks > 0) {
    v.warnings.push_back(
        fmt::format("{} request(s) came with no usage and no --tokenizer: their output \"tokens\" "
                    "are SSE chunks, so TPOT, ITL "
                    "and token throughputs are per chunk, not per token; pass --tokenizer PATH (or "
                    "ask the server for usage)",
                    m.output_tokens_from_chunks));
  }
  if (t.malformed_requests > 0) {
    v.warnings.push_back(fmt::format(
        "{} request(s) carried {} line(s) that are not SSE (no known field, not a comment): "
        "skipped; the server's stream is not clean SSE (see malformed_sse_lines in the "
        "details)",
        t.malformed_requests, t.malformed_lines));
  }
}

// A multi-host run's ranks, each named when slow or saturated; unverified TLS.
void judge_ranks_and_tls(Verdict& v, const VerdictTally& t, const VerdictFacts& f) {
  if (!f.details_warning.empty()) v.warnings.push_back(f.details_warning);
  // A multi-host run: each rank's client, so a slow or saturated load host is named.
  for (const auto& h : f.ranks) {
    const auto it = t.ranks.find(h.rank);
    const VerdictTally::Rank k = it == t.ranks.end() ? VerdictTally::Rank{} : it->second;
    std::string lag = "no schedule";
    if (k.lagged > 0 && f.request_rate > 0)
      lag = fmt::format("send lag mean {:.3f} ms, max {:.3f} ms{}",
                        k.lag_sum_ns / static_cast<double>(k.lagged) / 1e6, k.lag_max_ns / 1e6,
                        h.client.wakeup_floor_p99_ms >= 0
                            ? fmt::format(" (its wake-up floor p99 {:.1f} µs)",
                                          1e3 * h.client.wakeup_floor_p99_ms)
                            : "");
    v.notes.push_back(fmt::format(
        "rank {} of {}: {} measured request(s), client CPU {:.2f} s (busiest thread {:.0f}%), "
        "{:.0f} "
        "events/s, {}; clock offset to rank 0 {:+.1f} µs (± {:.1f} µs)",
        h.rank, std::max<size_t>(f.ranks.size(), static_cast<size_t>(f.rank_count)), k.requests,
        h.client.cpu_s, 100 * std::max(0.0, h.client.cpu_share),
        h.client.measured_wall_s > 0
            ? static_cast<double>(h.client.events) / h.client.measured_wall_s
            : 0.0,
        lag, static_cast<double>(h.clock_offset_ns) / 1e3,
        static_cast<double>(h.clock_residual_ns) / 1e3));
    if (h.client.cpu_share > 0.9) {
      v.reasons.push_back(fmt::format(
          "rank {}'s busiest worker thread was busy {:.0f}% of the time: its own delays are in "
          "the timings; add ranks or hosts, or raise --workers",
          h.rank, 100 * h.client.cpu_share));
    }
    if (h.clock_residual_ns > 1'000'000) {
      v.warnings.push_back(fmt::format(
          "rank {}'s clock is known to rank 0's only within ± {:.1f} ms (the shortest MPI "
          "round trip): cross-rank times (Duration, throughputs) carry that error",
          h.rank, static_cast<double>(h.clock_residual_ns) / 1e6));
    }
  }
  if (f.insecure_tls) {
    v.warnings.push_back(
        "TLS certificates were not verified (--insecure): the numbers are the server's only if "
        "nothing "
        "was in between; pass --ca-bundle FILE instead");
  }
}

}  // namespace

// What came back (metrics/quality): INVALID only where the numbers themselves are wrong — every
// output empty measures no generation at all; the other counts are warnings.
void judge_outputs(Verdict& v, const Quality& q) {
  if (q.all_empty())
    v.reasons.push_back(fmt::format(
        "every one of the {} successful output(s) was empty (no generated text): the token and "
        "latency figures measure no generation; check the model, its chat template and the "
        "server log",
        q.integrity.outputs));
  for (auto& w : q.warnings()) v.warnings.push_back(std::move(w));
}

namespace {

// A warm server measured as if cold (issue 39, F5): re-running a seed against llama.cpp served
// 10,520 of 10,560 prompt tokens from its cache and halved TTFT, and nothing said so. A workload
// built to hit the cache (multi-turn, a trace's hash_ids) says so in its own notes instead.
void judge_prefix_cache(Verdict& v, const MetricSet& m) {
  constexpr double kLargeShare = 0.5;
  if (!m.prefix_cache || m.prefix_cache->intended || m.prefix_cache->share() < kLargeShare) return;
  const PrefixCache& c = *m.prefix_cache;
  v.notes.push_back(fmt::format(
      "{:.1f}% of the prompt tokens ({:.0f} of {:.0f}) were served from the server's prefix "
      "cache: TTFT and the prefill figures measure a warm server, not a cold one (the same "
      "prompts were sent before); for a cold measurement reset its cache (--reset-prefix-cache) "
      "or send new prompts (another --seed)",
      100 * c.share(), c.cached_tokens, c.prompt_tokens));
}

// A cold start measured as if warm: Ollama loads a model on its first request (and reloads it
// when a request's options differ, num_ctx most often), and that request's TTFT and E2EL carry
// seconds of load that no other request has: its P99 is the load, not the serving. Said as a
// warning, not INVALID: a cold start may be what is meant to be measured.
void judge_server_load(Verdict& v, const MetricSet& m) {
  if (!m.server_load || m.server_load->waited == 0) return;
  const ServerLoad& l = *m.server_load;
  v.warnings.push_back(fmt::format(
      "{} of {} request(s) waited for the server to load the model: {:.2f} s in all, {:.2f} s "
      "at most (its answers' load_duration; ServerLoadTime), which is in their TTFT and E2EL: "
      "the figures include a cold start; send warm-up requests first (--warmup 1), send the "
      "same options each time (a changed num_ctx reloads the model) and keep it loaded "
      "(OLLAMA_KEEP_ALIVE)",
      l.waited, l.requests, l.waited_ms / 1e3, l.most_ms / 1e3));
}

}  // namespace

Verdict judge(const MetricSet& m, const VerdictTally& t, const VerdictFacts& f) {
  Verdict v;
  judge_counts(v, t, f);
  const bool client_behind = judge_client(v, m, f);
  judge_load(v, m, t, f, client_behind);
  judge_ranks_and_tls(v, t, f);
  judge_outputs(v, m.quality);
  judge_prefix_cache(v, m);
  judge_server_load(v, m);
  v.valid = v.reasons.empty();
  v.saturated = f.saturated && !v.valid;
  return v;
}

}  // namespace tokbench::metrics
