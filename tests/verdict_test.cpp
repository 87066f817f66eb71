// metrics/verdict: VALID or INVALID from a tally of the records and the folder's facts, each
// reason naming its fix.
#include "metrics/verdict.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/records.hpp"

namespace tokbench::metrics {
namespace {

TEST(Verdict, IncompleteAndSaturatedRunsAreInvalid) {
  VerdictTally t;
  for (int i = 0; i < 200; ++i)
    t.add(testing::stream_record(0, {{10, record::ChunkKind::Content}}, 11, 1, 1));
  const metrics::MetricSet m;
  VerdictFacts f;
  EXPECT_TRUE(judge(m, t, f).valid);
  f.incomplete = "incomplete: 200 of 2000 requests recorded; the run did not finish (killed?)";
  auto v = judge(m, t, f);
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.reasons.front(), f.incomplete);
  // 200 requests never more than 3 in flight against a cap of 64: said, not hidden behind "Max
  // Concurrency".
  metrics::MetricSet capped;
  capped.common.push_back({"Max Concurrency", "max_concurrency", 64, metrics::Unit::None});
  capped.observed_max_concurrency = 3;
  v = judge(capped, t, {});
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(
      v.warnings[0].find("at most 3 request(s) were in flight at once against --concurrency 64"),
      std::string::npos);
  // A schedule paced the requests (a trace: no paced rate in the facts): what was in flight is the
  // server's doing, and the uncapped ceiling is no asked load.
  VerdictFacts traced;
  traced.open_loop = true;
  EXPECT_TRUE(judge(capped, t, traced).warnings.empty());
  VerdictTally noisy = t;
  auto odd = testing::stream_record(0, {{10, record::ChunkKind::Content}}, 11, 1, 1);
  odd.malformed_sse_lines = 4;
  noisy.add(odd);
  v = judge(m, noisy, {});
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(v.warnings[0].find("1 request(s) carried 4 line(s) that are not SSE"),
            std::string::npos)
      << v.warnings[0];
  VerdictFacts insecure;
  insecure.insecure_tls = true;
  v = judge(m, t, insecure);
  EXPECT_TRUE(v.valid);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(v.warnings[0].find("--insecure"), std::string::npos);
  metrics::MetricSet chunks;
  chunks.output_tokens_from_chunks = 3;
  v = judge(chunks, t, {});
  EXPECT_TRUE(v.valid);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(v.warnings[0].find("per chunk, not per token"), std::string::npos);
  f = {};
  f.client.cpu_share = 0.95;
  v = judge(m, t, f);
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reasons.front().find("busy 95%"), std::string::npos);
  // Never waiting for the network, yet on a CPU only 30% of the time: it waited for a CPU (a
  // quota, a shared core), which its CPU time alone does not show.
  f = {};
  f.client.cpu_share = 0.30;
  f.client.busy_share = 0.96;
  v = judge(m, t, f);
  EXPECT_FALSE(v.valid);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_NE(v.reasons[0].find(
                "without waiting for the network 96% of the time but ran on a CPU only 30%"),
            std::string::npos)
      << v.reasons[0];
  f.client.busy_share = 0.60;  // busy, but waiting for the network 40% of the time: keeping up
  EXPECT_TRUE(judge(m, t, f).valid);
}

// A saturated client whose own delay in TTFT was measured (ClientDelay) and stayed within 2% of
// mean TTFT: its figures hold (bench/saturation_truth.py), a warning not INVALID. Past 2% (and
// 1 ms), INVALID busy or not: a client sharing its cores waits to be woken without showing it in
// its CPU share. Measured for too few requests to speak for the run, the CPU shares decide.
TEST(Verdict, AClientIsJudgedByItsMeasuredDelay) {
  VerdictTally t;
  for (int i = 0; i < 200; ++i)
    t.add(testing::stream_record(0, {{10, record::ChunkKind::Content}}, 11, 1, 1));
  auto with_delay = [](double delay_ms, int64_t measured, double ttft_ms = 50) {
    MetricSet m;
    Summary ttft, delay;
    ttft.mean = ttft_ms;
    ttft.n = 200;
    delay.mean = delay_ms;
    delay.p99 = 3 * delay_ms;
    delay.n = measured;
    m.rows.push_back({"TTFT", Unit::Ms, ttft, "", ""});
    m.extra_rows.push_back({"ClientDelay", Unit::Ms, delay, "", ""});
    return m;
  };
  VerdictFacts busy;
  busy.client.cpu_share = 0.97;
  auto v = judge(with_delay(0.6, 200), t, busy);  // 1.2% of 50 ms
  EXPECT_TRUE(v.valid);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(v.warnings[0].find("busy 97% of the time, but its own delay in TTFT (ClientDelay"),
            std::string::npos)
      << v.warnings[0];
  EXPECT_NE(v.warnings[0].find("0.600 ms mean, 1.20% of mean TTFT (p99 1.800 ms)"),
            std::string::npos)
      << v.warnings[0];
  v = judge(with_delay(1.5, 200), t, busy);  // 3%
  EXPECT_FALSE(v.valid);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_NE(v.reasons[0].find("1.500 ms mean, 3.00% of mean TTFT (p99 4.500 ms): past "
                              "the 2% tokbench holds TTFT to"),
            std::string::npos)
      << v.reasons[0];
  EXPECT_NE(v.reasons[0].find("busy 97% of the time; raise --workers"), std::string::npos)
      << v.reasons[0];
  v = judge(with_delay(0.6, 150), t, busy);  // 75% of the TTFTs measured: the CPU rule decides
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reasons[0].find("busy 97% of the time: its own delays are in the timings"),
            std::string::npos)
      << v.reasons[0];
  VerdictFacts starved;  // waited for a CPU: the same measure decides
  starved.client.cpu_share = 0.4;
  starved.client.busy_share = 0.95;
  v = judge(with_delay(0.6, 200), t, starved);
  EXPECT_TRUE(v.valid);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(v.warnings[0].find("waited for a CPU"), std::string::npos) << v.warnings[0];
  EXPECT_TRUE(judge(with_delay(0.6, 200), t, {}).warnings.empty());  // not busy: nothing said
  VerdictFacts idle;  // on a CPU 15%: woken late, each time, by other work on its cores
  idle.client.cpu_share = 0.15;
  v = judge(with_delay(1.5, 200), t, idle);
  EXPECT_FALSE(v.valid);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_NE(v.reasons[0].find("on a CPU only 15% of the time: it waited to be woken"),
            std::string::npos)
      << v.reasons[0];
  EXPECT_NE(v.reasons[0].find("give the client cores of its own"), std::string::npos)
      << v.reasons[0];
  v = judge(with_delay(0.3, 200, 10), t, idle);  // 3% of a 10 ms TTFT, but 0.3 ms: its grain
  EXPECT_TRUE(v.valid);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(v.warnings[0].find("3.00% of mean TTFT (p99 0.900 ms): under 1.0 ms, a shared "
                               "host's wake-up"),
            std::string::npos)
      << v.warnings[0];
  v = judge(with_delay(0.3, 200, 10), t, busy);  // the same, busy: both said, still VALID
  EXPECT_TRUE(v.valid);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(v.warnings[0].find("TTFT is measured to that grain; the client's busiest worker "
                               "thread was busy 97% of the time"),
            std::string::npos)
      << v.warnings[0];
}

// Saturated in a burst: a whole-run CPU share of 40% hides a second the client never waited in
// for 98% of it; the verdict says so, and a
// cross-check disagreement is then put on the client. A client that kept up and a TTFT above the
// server's is the server's front end (or the network), a warning that names it, not INVALID.
// Usage no server could have produced: more than max_tokens × choices is INVALID, named with the
// request; no cap and over 4 tokens a byte of text is a warning (hidden reasoning tokens could be
// it); exactly the cap across two choices is fine.
// A schedule the client did not keep: the advice is what can help. Under a --concurrency cap the
// cap held the sends back; with none (an uncapped trace or rate), raising it cannot help, and a
// trace is slowed with --trace-speed, not --request-rate.
TEST(Verdict, SendLagAdviceFitsTheLoad) {
  VerdictTally t;
  for (int i = 0; i < 200; ++i)
    t.add(testing::stream_record(0, {{10, record::ChunkKind::Content}}, 11, 1, 1));
  metrics::MetricSet m;
  Summary lag;
  lag.p99 = 80;
  lag.n = 200;
  m.extra_rows.push_back({"SendLag", Unit::Ms, lag, "", ""});
  auto reason = [&](double rate, bool trace, bool capped) {
    VerdictFacts f;
    f.open_loop = true;
    f.request_rate = rate;
    f.trace = trace;
    f.in_flight_capped = capped;
    const auto v = judge(m, t, f);
    EXPECT_EQ(v.reasons.size(), 1u);
    return v.reasons.empty() ? std::string() : v.reasons.front();
  };
  EXPECT_EQ(reason(10, false, true),
            "send lag p99 was 80.0 ms: the client could not keep the arrival schedule; raise "
            "--concurrency or lower --request-rate");
  const std::string uncapped = reason(10, false, false);
  EXPECT_EQ(uncapped.find("raise --concurrency"), std::string::npos) << uncapped;
  EXPECT_NE(uncapped.find("no in-flight cap held the sends back"), std::string::npos) << uncapped;
  EXPECT_NE(uncapped.find("lower --request-rate"), std::string::npos) << uncapped;
  const std::string trace = reason(10, true, false);
  EXPECT_EQ(trace.find("--request-rate"), std::string::npos) << trace;
  EXPECT_NE(trace.find("--trace-speed below 1"), std::string::npos) << trace;
  EXPECT_NE(reason(10, true, true).find("raise --concurrency or replay the trace slower"),
            std::string::npos);
}

// Send lag beside the wake-up floor the run measured before its phase: a machine that wakes a
// bare thread nearly as late as the requests went out is named as the cause, not the client;
// under the bound the two stand side by side in a note.
TEST(Verdict, SendLagIsJudgedBesideTheMachinesWakeupFloor) {
  VerdictTally t;
  for (int i = 0; i < 200; ++i)
    t.add(testing::stream_record(0, {{10, record::ChunkKind::Content}}, 11, 1, 1));
  auto verdict = [&](double lag_p99, double floor_p99) {
    metrics::MetricSet m;
    Summary lag;
    lag.p99 = lag_p99;
    lag.n = 200;
    m.extra_rows.push_back({"SendLag", Unit::Ms, lag, "", ""});
    VerdictFacts f;
    f.open_loop = true;
    f.request_rate = 10;
    f.client.wakeup_floor_p99_ms = floor_p99;
    return judge(m, t, f);
  };
  auto note_on_floor = [](const Verdict& v) {
    for (const auto& n : v.notes)
      if (n.find("wake-up floor") != std::string::npos) return n;
    return std::string();
  };
  auto v = verdict(80, 50);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_NE(v.reasons[0].find("up to 50.0 ms late"), std::string::npos) << v.reasons[0];
  EXPECT_NE(v.reasons[0].find("the machine's timer jitter, not the client"), std::string::npos);
  EXPECT_EQ(v.reasons[0].find("the client could not keep"), std::string::npos);
  v = verdict(80, 2);  // the machine wakes in time: the client was late
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_NE(v.reasons[0].find("the client could not keep the arrival schedule"), std::string::npos);
  EXPECT_NE(v.reasons[0].find("(this machine's wake-up floor p99: 2.000 ms)"), std::string::npos)
      << v.reasons[0];
  v = verdict(0.6, 0.4);
  EXPECT_TRUE(v.reasons.empty());
  EXPECT_NE(note_on_floor(v).find(
                "send lag p99 600.0 µs beside this machine's wake-up floor p99 400.0 µs"),
            std::string::npos)
      << note_on_floor(v);
  EXPECT_NE(note_on_floor(v).find("as closely as this machine wakes a thread"), std::string::npos);
  EXPECT_NE(note_on_floor(verdict(3, 0.4)).find("the client added the rest"), std::string::npos);
  EXPECT_NE(note_on_floor(verdict(0.08, 0)).find("within the 0.1 ms goal"), std::string::npos);
  EXPECT_EQ(note_on_floor(verdict(0.6, -1)), "");  // not measured (a closed loop, an old folder)
}

// A point stopped past saturation: the requests tokbench cancelled on purpose are a note, not
// "144 of 200 requests failed (144 cancelled)"; a failure of the server's own stays a reason.
TEST(Verdict, CancelsAtASaturationStopAreNotFailures) {
  VerdictTally t;
  for (int i = 0; i < 20; ++i)
    t.add(testing::stream_record(0, {{10, record::ChunkKind::Content}}, 11, 1, 1));
  for (int i = 0; i < 5; ++i) {
    auto r = testing::stream_record(0, {}, 11, 0, 1);
    r.outcome = record::Outcome::Cancelled;
    t.add(r);
  }
  VerdictFacts f;
  f.saturated = true;
  f.incomplete = "the run stopped: saturated: past saturation at 3 s";
  auto v = judge(metrics::MetricSet{}, t, f);
  EXPECT_EQ(metrics::verdict_status(v), std::string("SATURATED"));
  for (const auto& r : v.reasons) EXPECT_EQ(r.find("requests failed"), std::string::npos) << r;
  ASSERT_FALSE(v.notes.empty());
  EXPECT_NE(v.notes.front().find("5 request(s) in flight when the point was stopped past "
                                 "saturation were cancelled by tokbench"),
            std::string::npos)
      << v.notes.front();
  auto refused = testing::stream_record(0, {}, 11, 0, 1);
  refused.outcome = record::Outcome::HttpStatus;
  refused.http_status = 503;
  refused.error = "{\"error\": {\"message\": \"model is loading\"}}";
  t.add(refused);
  v = judge(metrics::MetricSet{}, t, f);
  bool named = false;  // with what the server said, so a run where all failed says why on screen
  for (const auto& r : v.reasons)
    named |= r.find(
                 "1 of 26 requests failed (1 http_status [503 ×1]; the first: HTTP 503: "
                 "{\"error\": {\"message\": \"model is loading\"}})") == 0;
  EXPECT_TRUE(named) << v.reasons.front();
  // The client's own error already names the status: said once. The statuses are counted,
  // the most frequent first.
  VerdictTally all_failed;
  for (int status : {500, 429, 500}) {
    auto r = testing::stream_record(0, {}, 11, 0, 1);
    r.outcome = record::Outcome::HttpStatus;
    r.http_status = status;
    r.error = fmt::format("HTTP {}: {{\"error\": \"injected\"}}", status);
    all_failed.add(r);
  }
  EXPECT_EQ(all_failed.first_failure, "HTTP 500: {\"error\": \"injected\"}");
  v = judge(metrics::MetricSet{}, all_failed, metrics::VerdictFacts{});
  named = false;
  for (const auto& r : v.reasons)
    named |= r.find(
                 "3 of 3 requests failed (3 http_status [500 ×2, 429 ×1]; the first: HTTP "
                 "500: {\"error\": \"injected\"})") == 0;
  EXPECT_TRUE(named) << v.reasons.front();
}

TEST(Verdict, ImplausibleUsageIsNamed) {
  VerdictTally base;
  for (int i = 0; i < 200; ++i)
    base.add(testing::stream_record(0, {{10, record::ChunkKind::Content}}, 11, 1, 1));
  const metrics::MetricSet m;
  auto claim = [](int64_t tokens, int64_t cap, int64_t chars, int64_t choices) {
    auto r = testing::stream_record(0, {{10, record::ChunkKind::Content}}, 11, 1, 1);
    r.request_id = "chatcmpl-x";
    r.completion_tokens = tokens;
    r.requested_max_tokens = cap;
    r.output_chars = chars;
    r.choices = choices;
    return r;
  };
  VerdictTally t = base;
  t.add(claim(4'294'967'295, 256, 3, 1));
  auto v = judge(m, t, {});
  EXPECT_FALSE(v.valid);
  ASSERT_FALSE(v.reasons.empty());
  EXPECT_NE(
      v.reasons.back().find(
          "1 request(s) report more completion tokens in usage than max_tokens allows (first: "
          "chatcmpl-x: 4294967295 completion tokens with max_tokens 256 and 1 choice(s))"),
      std::string::npos)
      << v.reasons.back();
  t = base;
  auto twice = testing::stream_record(0, {{10, record::ChunkKind::Content}}, 11, 1, 1);
  twice.resent = true;
  t.add(twice);
  v = judge(m, t, {});
  EXPECT_TRUE(v.valid);
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_NE(v.notes[0].find("1 request(s) were sent a second time on a new connection"),
            std::string::npos)
      << v.notes[0];
  VerdictFacts closing;  // a server that closes after each stream: said, never a warning
  closing.client.server_closed = 3;
  v = judge(m, base, closing);
  EXPECT_TRUE(v.valid);
  EXPECT_TRUE(v.warnings.empty());
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_NE(v.notes[0].find("the server closed 3 kept-alive connection(s) after their response"),
            std::string::npos)
      << v.notes[0];
  // "connections warmed" held only until the first close: the note says what followed.
  EXPECT_NE(v.notes[0].find("not sent on warm connections and their TTFT includes a new "
                            "connection's set-up"),
            std::string::npos)
      << v.notes[0];
  t = base;
  t.add(claim(512, 256, 2000, 2));  // n = 2: the cap is per choice
  EXPECT_TRUE(judge(m, t, {}).valid);
  t = base;
  t.add(claim(100'000, record::kNone, 3, 1));
  v = judge(m, t, {});
  EXPECT_TRUE(v.valid);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(v.warnings[0].find("over 4 completion tokens per byte of text received (first: "
                               "chatcmpl-x: 100000 completion "
                               "tokens for 3 bytes of text)"),
            std::string::npos)
      << v.warnings[0];
}

TEST(Verdict, SaturatedSecondAndWhereTtftDisagreementComesFrom) {
  VerdictTally t;
  for (int i = 0; i < 200; ++i)
    t.add(testing::stream_record(0, {{10, record::ChunkKind::Content}}, 11, 1, 1));
  const metrics::MetricSet m;
  VerdictFacts f;
  f.client.cpu_share = 0.4;
  f.client.peak_busy = 0.98;
  f.client.peak_busy_at_s = 3.25;
  auto v = judge(m, t, f);
  EXPECT_TRUE(v.valid);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(v.warnings[0].find("for 98% of the 100 ms from 3.2 s"), std::string::npos)
      << v.warnings[0];
  f.server_disagrees = f.server_disagrees_on_ttft_only = true;
  v = judge(m, t, f);
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reasons.front().find("the client was saturated"), std::string::npos)
      << v.reasons.front();
  // Its own delay measured (ClientDelay) at 0.8% of mean TTFT: the burst is not what the
  // disagreement is made of, and the server's front end is named instead.
  metrics::MetricSet measured;
  Summary ttft, delay;
  ttft.mean = 50;
  ttft.n = delay.n = 200;
  delay.mean = 0.4;
  measured.rows.push_back({"TTFT", Unit::Ms, ttft, "", ""});
  measured.extra_rows.push_back({"ClientDelay", Unit::Ms, delay, "", ""});
  f.ttft_client_ms = 52;
  f.ttft_server_ms = 45;
  v = judge(measured, t, f);
  EXPECT_TRUE(v.valid) << v.reasons.front();
  ASSERT_EQ(v.warnings.size(), 2u);
  EXPECT_NE(v.warnings[0].find("ClientDelay was 0.80% of mean TTFT"), std::string::npos)
      << v.warnings[0];
  EXPECT_NE(v.warnings[1].find("is above the server's /metrics TTFT"), std::string::npos)
      << v.warnings[1];
  f.client.peak_busy = 0.5;  // the client kept up
  f.ttft_client_ms = 138;
  f.ttft_server_ms = 20;
  v = judge(m, t, f);
  EXPECT_TRUE(v.valid);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(v.warnings[0].find(
                "the client's TTFT (138.0 ms) is above the server's /metrics TTFT (20.0 ms"),
            std::string::npos)
      << v.warnings[0];
  EXPECT_NE(v.warnings[0].find("before the server read it"), std::string::npos) << v.warnings[0];
  // The other sign: worded by it, never "above"; the client's timed-out requests are counted.
  f.ttft_client_ms = 20;
  f.ttft_server_ms = 138;
  VerdictTally with_timeouts = t;
  auto late = testing::stream_record(0, {}, 30000, 0, 1);
  late.outcome = record::Outcome::Timeout;
  for (int i = 0; i < 3; ++i) with_timeouts.add(late);
  v = judge(m, with_timeouts, f);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_NE(v.warnings[0].find(
                "the client's TTFT (20.0 ms) is below the server's /metrics TTFT (138.0 ms"),
            std::string::npos)
      << v.warnings[0];
  EXPECT_NE(v.warnings[0].find("3 request(s) timed out on the client"), std::string::npos)
      << v.warnings[0];
  EXPECT_EQ(v.warnings[0].find("above"), std::string::npos) << v.warnings[0];
  f.server_disagrees_on_ttft_only = false;  // tokens or TPOT disagree: not the front end
  v = judge(m, t, f);
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reasons.front().find("other traffic on the server"), std::string::npos);
}

}  // namespace
}  // namespace tokbench::metrics
