// measure/execute: each API and workload through one load point against the simulator's truth —
// several choices, Anthropic's Messages, OpenAI's Responses, SGLang's /generate, tool calls,
// embeddings, trace replay, multi-turn sessions and their cached tokens, ShareGPT, images, LoRA
// names and chat-message datasets.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "client/engine.hpp"
#include "dataset/images.hpp"
#include "measure/execute.hpp"
#include "record/record_io.hpp"
#include "runner/runner.hpp"
#include "support/canned_server.hpp"
#include "support/machine_noise.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"
#include "support/sim_trace.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokbench::runner {
namespace {

// How far a TPOT or ITL may sit from what the simulator sent per token (its --trace,
// testing::sim_tpot_ms): 0.2 ms, 2 % of its 10 ms step. The nominal step is not the truth on a busy
// machine, where the simulator writes its first token late and catches up. Under the sanitizers
// the client's own stamps run later still.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kStep = 1.0;
#else
constexpr double kStep = 0.2;
#endif

namespace fs = std::filesystem;
using testing::Sim;

using testing::IsValidUnlessBusy;
using ExecuteTest = testing::RunTest;

// n > 1 against the simulator: each choice is its own token stream, timed apart. Merged, TPOT
// read half the truth (two tokens per step) and the run said VALID; per choice it is the
// simulator's TPOT, one sample per choice, and output tokens are the choices' sum.
TEST_F(ExecuteTest, SeveralChoicesPerRequestAreTimedPerChoice) {
  const fs::path trace = dir_ / "trace.jsonl";
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "10", "--trace", trace.string()});
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(2)
               .prompts(12)
               .max_tokens(8)
               .ignore_eos()
               .with([&](auto& x) { x.request.extra_body = R"({"n":2})"; })
               .build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(out));
  const double sent = testing::sim_tpot_ms(trace, 8, 12);  // what the simulator did: ~10 ms
  for (const auto& r : out.verdict.reasons)                // 16 = 2 x 8 is not a short output
    EXPECT_EQ(r.find("does not honour ignore_eos"), std::string::npos) << r;
  const auto& m = out.metrics;
  ASSERT_TRUE(m.row("TPOT") && m.row("TPOT")->stats);
  EXPECT_EQ(m.row("TTFT")->stats->n, 24);  // one sample per choice
  EXPECT_EQ(m.row("TPOT")->stats->n, 24);
  EXPECT_NEAR(sent, 10.0, 2.5);                          // not 5 or 20: the truth is per token
  EXPECT_NEAR(m.row("TPOT")->stats->mean, sent, kStep);  // merged, it read ~5
  EXPECT_NEAR(m.row("ITL")->stats->mean, sent, kStep);
  EXPECT_DOUBLE_EQ(m.row("OutputTokens")->stats->mean, 16);  // per request: both choices
  EXPECT_EQ(m.itl_estimated_requests, 0);  // one token per chunk: the per-choice split is exact
  std::string notes;
  for (const auto& n : m.notes) notes += n + "\n";
  EXPECT_NE(notes.find("12 request(s) were answered with more than one choice (n > 1, up to 2)"),
            std::string::npos)
      << notes;
  for (const auto& r : records(out)) {
    EXPECT_EQ(r.choices, 2);
    int64_t per_choice[2] = {0, 0};
    for (const auto& ch : r.chunks) per_choice[ch.choice] += ch.has_text();
    EXPECT_EQ(per_choice[0], 8);  // the choice index survives the details file
    EXPECT_EQ(per_choice[1], 8);
  }
  c.request.extra_body.clear();  // the same run with n = 1: one sample per request
  const RunOutcome one = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(one));
  EXPECT_EQ(one.metrics.row("TPOT")->stats->n, 12);
  for (const auto& r : records(one)) EXPECT_EQ(r.choices, 1);
}

// Anthropic's Messages API end to end against the simulator: TTFT and TPOT against its truth,
// output tokens from message_delta's usage, input tokens from message_start's (cached ones
// included), streamed and not.
TEST_F(ExecuteTest, AnthropicMessagesAreTimedAgainstTheTruth) {
  const fs::path trace = dir_ / "trace.jsonl";
  Sim sim({"--ttft-ms", "20", "--tpot-ms", "10", "--enable-prefix-caching", "--block-size", "4",
           "--trace", trace.string()});
  auto c = testing::RunSettings()
               .url(sim.url("/v1/messages"))
               .concurrency(2)
               .prompts(12)
               .max_tokens(8)
               .ignore_eos()
               .build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(out));
  const auto& m = out.metrics;
  ASSERT_TRUE(m.row("TPOT") && m.row("TPOT")->stats && m.row("TTFT")->stats);
  EXPECT_EQ(m.row("TPOT")->stats->n, 12);
  const double sent = testing::sim_tpot_ms(trace, 8, 12);
  EXPECT_NEAR(sent, 10.0, 2.5);  // not 5 or 20: the truth is per token
  EXPECT_NEAR(m.row("TPOT")->stats->mean, sent, kStep);
  EXPECT_GE(m.row("TTFT")->stats->mean,
            1.0);  // prefix-cached prompts skip most of the 20 ms prefill
  EXPECT_LT(m.row("TTFT")->stats->mean, 40.0);
  EXPECT_DOUBLE_EQ(m.row("OutputTokens")->stats->mean, 8);
  int64_t cached = 0;
  for (const auto& r : records(out)) {
    EXPECT_TRUE(r.request_id.starts_with("msg_")) << r.request_id;
    EXPECT_EQ(r.completion_tokens, 8);
    EXPECT_GT(r.prompt_tokens, 0);
    EXPECT_EQ(std::count_if(r.chunks.begin(), r.chunks.end(),
                            [](const auto& ch) { return ch.has_text(); }),
              8);
    cached += std::max<int64_t>(0, r.cached_tokens);
  }
  EXPECT_GT(
      cached,
      0);  // cache_read_input_tokens arrive as cached tokens (the builtin prompts share a template)
  // Conversations over the Messages API: each turn carries the earlier ones and their real
  // answers (taken from text_delta events), so the cached share grows by turn.
  c.workload.turns = 3;
  c.load.num_prompts = 4;
  const RunOutcome sessions = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(sessions));
  const auto& turns = sessions.metrics.turns;
  ASSERT_EQ(turns.size(), 3u);
  ASSERT_TRUE(turns[1].cached_tokens && turns[2].cached_tokens && turns[1].input_tokens &&
              turns[2].input_tokens);
  EXPECT_GT(*turns[2].input_tokens,
            *turns[1].input_tokens + 8);  // the second exchange, answer included, is resent
  EXPECT_GT(*turns[2].cached_tokens, *turns[1].cached_tokens);
  c.workload.turns = 0;
  c.load.num_prompts = 12;
  c.request.stream = false;
  const RunOutcome body = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(body));
  EXPECT_DOUBLE_EQ(body.metrics.row("OutputTokens")->stats->mean, 8);
}

// OpenAI's Responses API end to end: TTFT and TPOT within 1 % of the simulator's truth — its
// trace says when each request reached it and when each content event was written — output
// tokens from response.completed's usage, the cap's end named as Responses names it; not
// streamed too.
TEST_F(ExecuteTest, ResponsesAccuracyAgainstTheSimulatorsTruth) {
  const fs::path trace = dir_ / "sim_trace.jsonl";
  Sim sim({"--ttft-ms", "50", "--tpot-ms", "10", "--trace", trace.string()});
  auto c = testing::RunSettings()
               .url(sim.url("/v1/responses"))
               .concurrency(4)
               .prompts(40)
               .max_tokens(24)
               .ignore_eos()
               .build();
  c.load.warmup = 4;  // the connections are open before the measured requests: TTFT is about
                      // timing, not handshakes
  const RunOutcome out = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(out));
  const auto truth =
      testing::read_sim_trace(trace);  // id -> TTFT, TPOT in ms, as the simulator wrote them
  for (const auto& [id, t] : truth) ASSERT_EQ(t.content_writes, 24u) << id;
  double ttft = 0, tpot = 0;
  int n = 0;
  for (const auto& r : records(out)) {
    if (r.warmup) continue;
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_TRUE(r.request_id.starts_with("resp_")) << r.request_id;
    EXPECT_EQ(r.completion_tokens, 24);
    EXPECT_GT(r.prompt_tokens, 0);
    EXPECT_EQ(r.finish_reason, "max_output_tokens");
    ASSERT_TRUE(truth.contains(r.request_id)) << r.request_id;
    ttft += truth.at(r.request_id).ttft_ms;
    tpot += truth.at(r.request_id).tpot_ms;
    ++n;
  }
  ASSERT_EQ(n, 40);
  const auto& m = out.metrics;
  ASSERT_TRUE(m.row("TTFT") && m.row("TTFT")->stats && m.row("TPOT")->stats);
  EXPECT_NEAR(m.row("TTFT")->stats->mean, ttft / n, 0.01 * ttft / n);
  EXPECT_NEAR(m.row("TPOT")->stats->mean, tpot / n, 0.01 * tpot / n);
  EXPECT_NEAR(m.row("TPOT")->stats->mean, 10.0, 0.1);
  EXPECT_DOUBLE_EQ(m.row("OutputTokens")->stats->mean, 24);
  c.request.stream = false;
  c.load.num_prompts = 8;
  const RunOutcome body = run(c);
  EXPECT_DOUBLE_EQ(body.metrics.row("OutputTokens")->stats->mean, 24);
  for (const auto& r : records(body)) EXPECT_EQ(r.finish_reason, "max_output_tokens");
}

// SGLang's native /generate end to end: its cumulative text is taken apart into the new pieces,
// and meta_info's cumulative completion_tokens makes every chunk's token count exact, so ITL is
// exact even with two tokens per chunk (OpenAI streams without continuous usage need an estimate).
TEST_F(ExecuteTest, SglangGenerateIsTimedExactlyPerChunk) {
  const fs::path trace = dir_ / "trace.jsonl";
  Sim sim(
      {"--ttft-ms", "20", "--tpot-ms", "10", "--tokens-per-chunk", "2", "--trace", trace.string()});
  auto c = testing::RunSettings()
               .url(sim.url("/generate"))
               .concurrency(2)
               .prompts(12)
               .max_tokens(9)
               .ignore_eos()
               .build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(out));
  const auto& m = out.metrics;
  ASSERT_TRUE(m.row("TPOT") && m.row("TPOT")->stats && m.row("ITL")->stats);
  const double sent = testing::sim_tpot_ms(trace, 9, 12);  // per token: 20 ms per 2-token chunk
  EXPECT_NEAR(sent, 10.0, 2.5);                            // not 5 or 20: the truth is per token
  EXPECT_NEAR(m.row("TPOT")->stats->mean, sent, kStep);
  EXPECT_NEAR(m.row("ITL")->stats->mean, sent, kStep);
  EXPECT_EQ(m.itl_estimated_requests, 0);
  EXPECT_DOUBLE_EQ(m.row("OutputTokens")->stats->mean, 9);
  for (const auto& r : records(out)) {
    EXPECT_EQ(r.completion_tokens, 9);
    EXPECT_EQ(r.output_chars, 57);  // " the model streams tokens quickly and every chunk arrives":
                                    // once, not resent per event
  }
  // --compat sglang: bench_serving's native payload (ignore_eos and temperature 0 in
  // sampling_params) and its definitions, which split each chunk gap over its new tokens on
  // /generate: ITL is per token there, where on OpenAI endpoints it is per chunk (20 ms here).
  c.request.ignore_eos = false;
  c.request.compat = metrics::Definitions::Sglang;
  const RunOutcome native = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(native));
  ASSERT_TRUE(native.metrics.row("ITL") && native.metrics.row("ITL")->stats);
  // Against the first run's truth: on a busy machine held to what it can keep (a mean over
  // 96 gaps moved 0.9 ms beside a sanitized build, 2026-12-05).
  EXPECT_TRUE(testing::WithinTimingBoundHere(
      std::abs(native.metrics.row("ITL")->stats->mean - sent), 2 * kStep));
  EXPECT_EQ(native.metrics.row("ITL")->stats->n, 12 * 8);
  for (const auto& r : records(native)) EXPECT_TRUE(r.ignore_eos_sent);
}

// Tool calls end to end: TTFT is measured at the first tool-call delta (it was n/a while the run
// said VALID), TPOT against the simulator's truth, the details name the chunks as tool calls.
TEST_F(ExecuteTest, ToolCallAnswersAreTimedLikeText) {
  const fs::path trace = dir_ / "trace.jsonl";
  Sim sim({"--ttft-ms", "20", "--tpot-ms", "10", "--trace", trace.string()});
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(2)
               .prompts(12)
               .max_tokens(6)
               .ignore_eos()
               .build();
  c.request.extra_body =
      R"({"tools":[{"type":"function","function":{"name":"get_weather"}}],"tool_choice":"required"})";
  const RunOutcome out = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(out));
  const auto& m = out.metrics;
  ASSERT_TRUE(m.row("TTFT")->stats) << m.row("TTFT")->na_reason;
  EXPECT_EQ(m.row("TTFT")->stats->n, 12);
  EXPECT_GE(m.row("TTFT")->stats->mean, 19.0);
  const double sent = testing::sim_tpot_ms(trace, 6, 12);
  EXPECT_NEAR(sent, 10.0, 2.5);  // not 5 or 20: the truth is per token
  EXPECT_NEAR(m.row("TPOT")->stats->mean, sent, kStep);
  std::string notes;
  for (const auto& n : m.notes) notes += n + "\n";
  EXPECT_NE(notes.find("12 request(s) answered with tool calls"), std::string::npos) << notes;
  for (const auto& r : records(out)) {
    int calls = 0;
    for (const auto& ch : r.chunks) calls += ch.kind == record::ChunkKind::ToolCall;
    EXPECT_EQ(calls, 6);
    EXPECT_EQ(r.finish_reason, "length");  // cut at max_tokens, as any answer
  }
}

// /v1/embeddings end to end: latency is the simulator's prefill, inputs per second is the request
// throughput, nothing generated reads n/a (never 0), and `report` knows it from the folder.
TEST_F(ExecuteTest, EmbeddingsRunReportsLatencyAndInputs) {
  Sim sim({"--ttft-ms", "15"});
  auto c = testing::RunSettings().url(sim.url("/v1/embeddings")).concurrency(4).prompts(24).build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(out));
  const auto& m = out.metrics;
  ASSERT_TRUE(m.row("E2EL")->stats);
  EXPECT_GE(m.row("E2EL")->stats->min, 15.0);
  EXPECT_LT(m.row("E2EL")->stats->mean, 100.0);
  EXPECT_TRUE(m.row("InputTokens")->stats.has_value());
  for (const char* row : {"TTFT", "TPOT", "OutputTokens", "OutputTokenThroughput"}) {
    EXPECT_FALSE(m.row(row)->stats.has_value()) << row;
    EXPECT_EQ(m.row(row)->na_reason, "one-shot API: nothing is generated") << row;
  }
  EXPECT_FALSE(m.common_metric("output_token_throughput")->known);
  EXPECT_GT(m.common_metric("request_throughput")->value, 0);
  EXPECT_TRUE(runfolder::load_run_folder(out.run_dir).manifest.facts.one_shot);
  for (const auto& r : records(out)) {
    EXPECT_TRUE(r.ok());
    EXPECT_FALSE(r.stream);
    EXPECT_GT(r.prompt_tokens, 0);
  }
}

// A 200-line Mooncake trace at 100 req/s against the simulator's prefix cache (same tokenizer,
// same block size): each request leaves at its timestamp (send lag p99 under 2 ms), and the
// simulator's cached tokens are the share the trace's hash_ids imply. Four families share two
// leading blocks each; every request then has two blocks of its own. Named Accuracy: a timing
// bound, left out of the sanitizer pass (dataset_test covers the trace's parsing and building).
TEST_F(ExecuteTest, TraceReplayAccuracyAtItsTimestampsWithSharedPrefixes) {
  const fs::path tok = fs::path(TOKBENCH_TOKENIZER_FIXTURES) / "tokenizer-qwen3" / "models";
  ASSERT_TRUE(fs::exists(tok)) << "run `npm ci --prefix tests/tokenizer`";
  const fs::path data = dir_ / "trace.jsonl";
  {
    std::ofstream out(data);
    for (int i = 0; i < 200; ++i) {
      const int family = i % 4;
      out << R"({"timestamp": )" << i * 10
          << R"(, "input_length": 64, "output_length": 4, "hash_ids": [)" << family * 100 + 1
          << ", " << family * 100 + 2 << ", " << 10000 + i * 10 << ", " << 10001 + i * 10 << "]}\n";
    }
  }
  auto settings = [&](const Sim& sim) {
    return testing::RunSettings()
        .url(sim.url("/v1/completions"))
        .concurrency(64)
        .with([&](auto& x) {
          x.workload.dataset = {dataset::Source::Trace, data.string()};
          x.workload.tokenizer = tok.string();
          x.workload.trace_block_size = 16;
        })
        .build();
  };
  // Each replay meets a fresh simulator: its prefix cache starts empty, as the implied share needs.
  auto replay = [&] {
    Sim sim({"--ttft-ms", "5", "--tpot-ms", "2", "--enable-prefix-caching", "--block-size", "16",
             "--tokenizer", tok.string()});
    return run(settings(sim));
  };
  const RunOutcome out = replay();
  EXPECT_TRUE(IsValidUnlessBusy(out));
  const auto& m = out.metrics;
  ASSERT_TRUE(m.row("SendLag") && m.row("SendLag")->stats);
  EXPECT_EQ(m.row("SendLag")->stats->n, 200);
  // PERFORMANCE.md's figures on this serial test's machine: p90 4-5 us, p99 11-102 us. p90 under
  // 0.25 ms breaks on a regression past them (waits rounded to whole milliseconds put p90 near
  // 0.5 ms) without failing on one preempted send; p99 keeps a coarse bound (it was 85 ms when the
  // schedule started before the connections were warm; one preemption on a shared 2-vCPU VM
  // reached 1 ms). p99 of 200 sends is their second latest: two sends held up by a neighbour's
  // burst break it (CI, beside another test: 2.1 ms, the machine quiet again by the time it was
  // gauged), so a replay past a bound is replayed, twice at most, and the last is held to what the
  // machine keeps then (support/machine_noise.hpp). A regression is late in every replay.
  auto lag = *m.row("SendLag")->stats;
  for (int again = 1; !(lag.p90 < 0.25 && lag.p99 < 2.0) && again <= 2; ++again) {
    const RunOutcome more = replay();
    ASSERT_TRUE(more.metrics.row("SendLag") && more.metrics.row("SendLag")->stats);
    std::printf("note: send lag p90 %.3f ms, p99 %.3f ms: replayed\n", lag.p90, lag.p99);
    lag = *more.metrics.row("SendLag")->stats;
  }
  EXPECT_TRUE(testing::WithinTimingBoundHere(lag.p90, 0.25));  // ms
  EXPECT_TRUE(testing::WithinTimingBoundHere(lag.p99, 2.0));
  // Implied: the first request of each family misses; the other 49 hit 32 of 64 tokens: 196 * 32 /
  // (200 * 64).
  const double implied = 196.0 * 32 / (200.0 * 64);
  double cached = 0, prompt = 0;
  std::vector<int64_t> sched;
  for (const auto& r : records(out)) {
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.prompt_tokens, 64);
    cached += static_cast<double>(std::max<int64_t>(0, r.cached_tokens));
    prompt += static_cast<double>(r.prompt_tokens);
    sched.push_back(r.scheduled_ns);
  }
  EXPECT_NEAR(cached / prompt, implied, 0.005);
  std::sort(sched.begin(), sched.end());
  ASSERT_EQ(sched.size(), 200u);
  EXPECT_NEAR(static_cast<double>(sched.back() - sched.front()) / 1e6, 1990.0,
              0.001);  // the trace's span, in ms
  std::string notes;
  for (const auto& n : m.notes) notes += n + "\n";
  EXPECT_NE(notes.find(fmt::format("put {:.1f}% of the prompt tokens", 100 * implied)),
            std::string::npos)
      << notes;
  const auto folder = runfolder::load_run_folder(out.run_dir);
  EXPECT_EQ(folder.manifest.load.arrivals, "trace");
  EXPECT_NEAR(folder.manifest.facts.implied_cache_hit, implied, 1e-9);
  Sim sim({"--ttft-ms", "5"});
  auto c = settings(sim);
  c.load.request_rate = 5;  // a trace is its own schedule
  EXPECT_THROW((void)run(c), std::invalid_argument);
}

// Multi-turn against a server that records what it is sent: turn 2's body carries turn 1's
// question and the real answer the server gave it, as a conversation (user, assistant, user).
TEST_F(ExecuteTest, SessionTurnCarriesTheRealPreviousAnswer) {
  std::atomic<int> answered{0};
  testing::CannedServer server([&](const std::string& path) {
    if (path == "/v1/models")
      return testing::CannedServer::http(200, "application/json", R"({"data":[{"id":"m"}]})");
    const std::string word = "reply" + std::to_string(answered++);
    return testing::CannedServer::http(
        200, "text/event-stream",
        "data: {\"choices\":[{\"delta\":{\"content\":\"" + word +
            "\"}}]}\n\n"
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1}}\n\n"
            "data: [DONE]\n\n");
  });
  const fs::path data = dir_ / "questions.txt";
  std::ofstream(data) << "first question\nsecond question\n";
  auto c = testing::RunSettings()
               .url(server.url("/v1/chat/completions"))
               .turns(2)
               .concurrency(1)
               .with([&](auto& x) {
                 x.workload.dataset = {dataset::Source::Lines, data.string()};
                 x.load.warm_connections = Toggle::Off;
                 x.observe.server_metrics = "off";
               })
               .build();
  const RunOutcome out = run(c);
  std::vector<std::string> bodies;
  for (const auto& req : server.requests())
    if (req.starts_with("POST")) bodies.push_back(req.substr(req.find("\r\n\r\n") + 4));
  ASSERT_EQ(bodies.size(), 2u);  // one session (2 lines / 2 turns) of two turns
  EXPECT_NE(bodies[0].find(R"("messages":[{"role":"user","content":"first question"}])"),
            std::string::npos)
      << bodies[0];
  EXPECT_NE(
      bodies[1].find(
          R"("messages":[{"role":"user","content":"first question"},{"role":"assistant","content":"reply0"},)"
          R"({"role":"user","content":"second question"}])"),
      std::string::npos)
      << bodies[1];
  const auto recs = records(out);
  ASSERT_EQ(recs.size(), 2u);
  for (const auto& r : recs) {
    EXPECT_EQ(r.session, 0);
    EXPECT_EQ(r.last_turn, r.turn == 1);
  }
  ASSERT_EQ(out.metrics.turns.size(), 2u);
  const auto* latency = [&]() -> const metrics::Row* {
    for (const auto& r : out.metrics.extra_rows)
      if (r.name == "SessionLatency") return &r;
    return nullptr;
  }();
  ASSERT_TRUE(latency && latency->stats);
  EXPECT_EQ(latency->stats->n, 1);
}

// Sessions against the simulator's prefix cache: later turns resend the conversation, so they
// report cached tokens and (the simulator charges prefill for uncached tokens only) a lower TTFT.
TEST_F(ExecuteTest, LaterTurnsReportCachedTokens) {
  Sim sim({"--ttft-ms", "40", "--tpot-ms", "1", "--enable-prefix-caching", "--block-size", "16"});
  const fs::path data = dir_ / "questions.txt";
  {
    std::ofstream out(data);
    for (int i = 0; i < 12; ++i)
      out << "Question number " << i << " about a topic that is different every time " << i * 7919
          << "\n";
  }
  auto c = testing::RunSettings()
               .url(sim.url())
               .turns(3)
               .concurrency(2)
               .max_tokens(24)
               .ignore_eos()
               .with([&](auto& x) {
                 x.workload.dataset = {dataset::Source::Lines, data.string()};
               })
               .build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(out));
  const auto& turns = out.metrics.turns;
  ASSERT_EQ(turns.size(), 3u);
  for (const auto& t : turns) EXPECT_EQ(t.requests, 4);  // 12 lines / 3 turns = 4 sessions
  ASSERT_TRUE(turns[0].cached_tokens && turns[1].cached_tokens && turns[2].cached_tokens);
  // The simulator without a tokenizer caches blocks of 16 four-byte units of the rendered chat.
  EXPECT_DOUBLE_EQ(*turns[0].cached_tokens,
                   0);  // a fresh conversation: its question differs in its first block
  EXPECT_GE(*turns[1].cached_tokens, 16);  // turn 1's prompt, resent
  EXPECT_GT(*turns[2].cached_tokens,
            *turns[1].cached_tokens + 16);  // and the first exchange's answer too
  EXPECT_GT(*turns[1].input_tokens,
            *turns[0].input_tokens + 24);  // the whole first exchange is resent
  EXPECT_LT(*turns[2].ttft_ms, *turns[0].ttft_ms);
  std::string notes;
  for (const auto& n : out.metrics.notes) notes += n + "\n";
  EXPECT_NE(notes.find("multi-turn means per turn"), std::string::npos) << notes;
}

// ShareGPT conversations as sessions: each conversation keeps its own number of turns, each
// turn's max_tokens is its recorded answer's length (produced exactly with ignore_eos).
TEST_F(ExecuteTest, ShareGptMultiTurnConversationsAreSessions) {
  const fs::path tok = fs::path(TOKBENCH_TOKENIZER_FIXTURES) / "tokenizer-qwen3" / "models";
  ASSERT_TRUE(fs::exists(tok));
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  const fs::path data = dir_ / "chats.json";
  std::ofstream(data)
      << R"([{"conversations":[{"from":"human","value":"Hello there"},{"from":"gpt","value":"Hi, how can I help you today?"},)"
         R"({"from":"human","value":"Tell me a joke"},{"from":"gpt","value":"Why did the chicken cross the road?"},)"
         R"({"from":"human","value":"Another"},{"from":"gpt","value":"No more jokes"}]},)"
         R"({"conversations":[{"from":"human","value":"One question"},{"from":"gpt","value":"One answer here"}]}])";
  auto c = testing::RunSettings()
               .url(sim.url())
               .ignore_eos()
               .concurrency(2)
               .with([&](auto& x) {
                 x.workload.dataset = {dataset::Source::Sharegpt, data.string()};
                 x.workload.tokenizer = tok.string();
                 x.workload.multi_turn = true;
               })
               .build();
  const RunOutcome out = run(c);
  const auto qwen = tokenizer::Tokenizer::load(tok.string());
  std::map<int64_t, int> turns;
  for (const auto& r : records(out)) {
    ASSERT_TRUE(r.ok());
    ++turns[r.session];
    EXPECT_EQ(r.completion_tokens, r.requested_max_tokens);
    if (r.session == 0 && r.turn == 1) {
      EXPECT_EQ(r.requested_max_tokens,
                static_cast<int64_t>(qwen.count("Why did the chicken cross the road?", false)));
    }
  }
  EXPECT_EQ(turns, (std::map<int64_t, int>{{0, 3}, {1, 1}}));
}

// --image against the simulator: every body carries its PNGs as image_url data URLs, the
// details count them, and usage.prompt_tokens carries the simulator's tokens per image; a
// dataset line's own image file goes too.
TEST_F(ExecuteTest, ImagesAreSentAndTheirTokensCounted) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1", "--image-tokens", "50"});
  auto c = testing::RunSettings().url(sim.url()).prompts(12).max_tokens(2).build();
  const RunOutcome plain = run(c);
  c.workload.image = "32x32";
  c.workload.images_per_request = 2;
  const RunOutcome with = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(with));
  std::map<int64_t, int64_t> text_tokens;
  for (const auto& r : records(plain)) text_tokens[r.index] = r.prompt_tokens;
  for (const auto& r : records(with)) {
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.images, 2);
    EXPECT_EQ(r.prompt_tokens, text_tokens[r.index] + 100);  // 2 images x 50 tokens
  }
  const std::string audit = testing::slurp(with.run_dir / "configs" / "request_audit.txt");
  EXPECT_NE(
      audit.find(R"({"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo)"),
      std::string::npos);
  // A dataset line naming an image file.
  const fs::path png = dir_ / "tiny.png";
  {
    const std::string url = dataset::synthetic_png_url(8, 8, 1);
    const std::string b64 = url.substr(url.find(',') + 1);
    std::ofstream(dir_ / "tiny.b64") << b64;
    ASSERT_EQ(
        std::system(("base64 -d " + (dir_ / "tiny.b64").string() + " > " + png.string()).c_str()),
        0);
  }
  std::ofstream(dir_ / "vision.jsonl")
      << R"({"question":"What colour?","images":[")" << png.string() << R"("]})"
      << "\n";
  c.workload.image.clear();
  c.workload.images_per_request = 1;
  c.workload.dataset = {dataset::Source::Qa, (dir_ / "vision.jsonl").string()};
  c.load.num_prompts = 2;
  const RunOutcome file = run(c);
  for (const auto& r : records(file)) {
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.images, 1);
  }
}

// --lora against a simulator serving two adapters: each request names one, drawn by the seed (so a
// run repeats), the details say which, the simulator's trace agrees; an adapter the server does
// not list is refused before anything is sent.
TEST_F(ExecuteTest, LoraNamesArePickedPerRequestAndChecked) {
  const fs::path trace = dir_ / "sim_trace.jsonl";
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "2", "--lora-modules", "sql-lora,chat-lora", "--trace",
           trace.string()});
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(4)
               .prompts(40)
               .max_tokens(4)
               .with([&](auto& x) {
                 x.workload.lora = {"sql-lora", "chat-lora"};
               })
               .build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(out));
  std::map<std::string, int> per_model, served;
  std::vector<std::string> order;
  for (const auto& r : records(out)) {
    ++per_model[r.model];
    order.push_back(r.model);
  }
  EXPECT_EQ(per_model.size(), 2u);
  EXPECT_GE(per_model["sql-lora"], 8);
  EXPECT_GE(per_model["chat-lora"], 8);
  std::ifstream in(trace);
  simdjson::dom::parser p;
  for (std::string line; std::getline(in, line);)
    ++served[std::string(p.parse(line)["model"].get_string().value())];
  EXPECT_EQ(served, per_model);
  const RunOutcome again = run(c);  // the same seed, the same draw per request index
  std::vector<std::pair<int64_t, std::string>> a, b;
  for (const auto& r : records(out)) a.emplace_back(r.index, r.model);
  for (const auto& r : records(again)) b.emplace_back(r.index, r.model);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  c.workload.lora = {"sql-lora", "missing-lora"};
  try {
    (void)run(c);
    FAIL() << "an adapter the server does not serve was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("model 'missing-lora' (--lora or a dataset line) is not served"),
        std::string::npos)
        << e.what();
  }
}

// A qa file of chat conversations: each line's messages array is the body's, as written, and a
// line's "model" picks the adapter; a completions URL refuses such a file as a usage error.
TEST_F(ExecuteTest, ChatMessagesDatasetIsSentAsWritten) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "2", "--lora-modules", "sql-lora"});
  const fs::path data = dir_ / "chat.jsonl";
  {
    std::ofstream out(data);
    for (int i = 0; i < 12; ++i) {
      out << R"({"messages":[{"role":"system","content":"Answer in SQL."},{"role":"user","content":"Count rows )"
          << i << R"("}])" << (i % 2 ? R"(,"model":"sql-lora")" : "") << "}\n";
    }
  }
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(2)
               .max_tokens(4)
               .with([&](auto& x) {
                 x.workload.dataset = {dataset::Source::Qa, data.string()};
               })
               .build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(out));
  const std::string audit = testing::slurp(out.run_dir / "configs" / "request_audit.txt");
  EXPECT_NE(
      audit.find(
          R"("messages":[{"role":"system","content":"Answer in SQL."},{"role":"user","content":"Count rows 0"}])"),
      std::string::npos)
      << audit;
  int lora = 0, ok = 0;
  for (const auto& r : records(out)) {
    lora += r.model == "sql-lora";
    ok += r.ok();
    EXPECT_EQ(r.model == "sql-lora", r.index % 2 == 1);
  }
  EXPECT_EQ(ok, 12);
  EXPECT_EQ(lora, 6);
  c.target.url = sim.url("/v1/completions");
  EXPECT_THROW((void)run(c), std::invalid_argument);
}

// A rerank dataset (qa lines with a "query" and "documents") end to end: each request sends its own
// line's documents and records how many; the same file on an API that does not rank, or a file
// whose lines mix rankings with questions, is refused before anything is sent, naming the fix.
TEST_F(ExecuteTest, RerankDatasetSendsEachLinesDocuments) {
  Sim sim({"--ttft-ms", "5"});
  const fs::path data = dir_ / "rank.jsonl";
  {
    std::ofstream out(data);
    for (int i = 0; i < 6; ++i) {
      out << R"({"query":"which one )" << i << R"(?","documents":[)";
      for (int k = 0; k <= i; ++k) out << (k ? "," : "") << R"("doc )" << k << '"';
      out << "]}\n";
    }
  }
  auto c = testing::RunSettings()
               .url(sim.url("/v1/rerank"))
               .concurrency(2)
               .with([&](auto& x) {
                 x.workload.dataset = {dataset::Source::Qa, data.string()};
               })
               .build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(out));
  int64_t documents = 0;
  for (const auto& r : records(out)) {
    EXPECT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.documents, r.index + 1);
    documents += r.documents;
  }
  EXPECT_EQ(documents, 21);
  const std::string audit = testing::slurp(out.run_dir / "configs" / "request_audit.txt");
  EXPECT_NE(audit.find(R"("query":"which one 0?","documents":["doc 0"])"), std::string::npos)
      << audit;
  c.target.url = sim.url("/v1/chat/completions");
  try {
    (void)run(c);
    FAIL() << "a ranking dataset on chat completions";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("use an endpoint that ranks (/v1/rerank, /score)"),
              std::string::npos)
        << e.what();
  }
  std::ofstream(data, std::ios::app) << R"({"question":"no documents"})"
                                     << "\n";
  c.target.url = sim.url("/v1/rerank");
  try {
    (void)run(c);
    FAIL() << "a line without documents on rerank";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("some lines carry none"), std::string::npos) << e.what();
  }
}

// ShareGPT end to end: the tokenizer counts each answer, which becomes that request's max_tokens;
// the simulator (with ignore_eos) returns exactly that many tokens per request.
TEST_F(ExecuteTest, ShareGptAnswersSetEachRequestsLength) {
  const fs::path tok = fs::path(TOKBENCH_TOKENIZER_FIXTURES) / "tokenizer-qwen3" / "models";
  ASSERT_TRUE(fs::exists(tok)) << "run `npm ci --prefix tests/tokenizer`";
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  const fs::path data = dir_ / "sharegpt.json";
  {
    std::ofstream out(data);
    out << "[";
    for (int i = 0; i < 15; ++i) {
      std::string answer;
      for (int k = 0; k < 5 + i; ++k) answer += " apple";
      out << (i ? "," : "") << R"({"id":")" << i
          << R"(","conversations":[{"from":"human","value":"Tell me about fruit number )" << i
          << R"( please"},{"from":"gpt","value":")" << answer << R"("}]})";
    }
    out << R"(,{"id":"short","conversations":[{"from":"human","value":"Hi"},{"from":"gpt","value":"Hello there, friend"}]}])";
  }
  auto c = testing::RunSettings()
               .url(sim.url())
               .concurrency(3)
               .ignore_eos()
               .with([&](auto& x) {
                 x.workload.dataset = {dataset::Source::Sharegpt, data.string()};
                 x.workload.tokenizer = tok.string();
               })
               .build();
  const RunOutcome out = run(c);
  EXPECT_TRUE(IsValidUnlessBusy(out));
  const auto qwen = tokenizer::Tokenizer::load(tok.string());
  std::set<int64_t> caps;
  int n = 0;
  for (const auto& r : records(out)) {
    ++n;
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.completion_tokens,
              r.requested_max_tokens);  // the answer's length, produced exactly
    caps.insert(r.requested_max_tokens);
  }
  EXPECT_EQ(n, 15);  // "Hi" is under 4 tokens: skipped, as vLLM does; the 15 others, one pass
  std::set<int64_t> expected;
  for (int i = 0; i < 15; ++i) {
    std::string answer;
    for (int k = 0; k < 5 + i; ++k) answer += " apple";
    expected.insert(static_cast<int64_t>(qwen.count(answer, false)));
  }
  EXPECT_EQ(caps, expected);
}

}  // namespace
}  // namespace tokbench::runner
