// client/engine: the real engine against the real simulator and foreign servers over loopback —
// records, every outcome category, retries, schedules and cancellation — on both transports
// (plain sockets and libcurl), which must agree on all of it.
#include "client/engine.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include "client/request_body.hpp"
#include "common/clock.hpp"
#include "mock/mock_server.hpp"
#include "support/canned_server.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/scripted_server.hpp"

namespace tokbench::client {
namespace {

using namespace net;  // set-up calls: http_get, TlsSettings
using record::Outcome;
using record::RequestRecord;

struct Harness {
  explicit Harness(mock::MockSettings s = {}) : server(on_free_port(std::move(s))) {
    port = server.start();
  }
  static mock::MockSettings on_free_port(mock::MockSettings s) {
    s.port = 0;
    return s;
  }
  std::string url(bool chat = true) const {
    return "http://127.0.0.1:" + std::to_string(port) +
           (chat ? "/v1/chat/completions" : "/v1/completions");
  }
  mock::MockServer server;
  uint16_t port = 0;
};

mock::MockSettings fast() {
  mock::MockSettings s;
  s.ttft_ms = 5;
  s.tpot_ms = 1;
  return s;
}

std::vector<std::string> bodies(int n, bool chat, bool stream, int max_tokens = 8) {
  BodySettings b;
  b.model = "tokbench-mock";
  b.api = find_api(chat ? "chat" : "completions");
  b.stream = stream;
  b.max_tokens = max_tokens;
  b.ignore_eos = true;
  return std::vector<std::string>(static_cast<size_t>(n), build_body(b, {"hello there", -1}));
}

// Every behaviour test runs once per transport: the plain-socket reader and libcurl.
class EngineOn : public ::testing::TestWithParam<TransportKind> {
 protected:
  static EngineSettings settings() {
    EngineSettings es;
    es.transport = GetParam();
    return es;
  }
};

INSTANTIATE_TEST_SUITE_P(Transports, EngineOn,
                         ::testing::Values(TransportKind::Sockets, TransportKind::Curl),
                         [](const auto& info) { return std::string(transport_name(info.param)); });

std::vector<RequestRecord> run(EngineSettings es, const std::vector<std::string>& bs,
                               const std::vector<int64_t>& schedule = {},
                               std::atomic<int>* stop_in = nullptr) {
  std::atomic<int> local{kRunning};
  std::atomic<int>& stop = stop_in ? *stop_in : local;
  std::mutex mu;
  std::vector<RequestRecord> out;
  Engine engine(std::move(es));
  // The given schedule as arrivals (empty: closed loop); bodies cycle as a dataset does.
  struct Offsets final : load::Arrivals {
    explicit Offsets(const std::vector<int64_t>& s) : s(s) {}
    int64_t next_offset_ns() override { return s.empty() ? core::kNotSet : s[i++]; }
    const std::vector<int64_t>& s;
    size_t i = 0;
  };
  load::CountedSource source(static_cast<int64_t>(bs.size()), false,
                             std::make_unique<Offsets>(schedule), [&](int64_t i) {
                               core::PlannedRequest p;
                               p.body = bs[static_cast<size_t>(i)];
                               return p;
                             });
  engine.run(
      source, steady_now_ns(),
      [&](RequestRecord&& r) {
        std::lock_guard l(mu);
        out.push_back(std::move(r));
      },
      stop);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  return out;
}

TEST_P(EngineOn, StreamingChatRecordsEveryChunk) {
  Harness h(fast());
  EngineSettings es = settings();
  es.url = h.url();
  es.concurrency = 4;
  const auto rs = run(es, bodies(12, true, true));
  ASSERT_EQ(rs.size(), 12u);
  for (const auto& r : rs) {
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.http_status, 200);
    EXPECT_EQ(r.completion_tokens, 8);
    EXPECT_GT(r.prompt_tokens, 0);
    std::string kinds;
    for (const auto& c : r.chunks) kinds.push_back(static_cast<char>(c.kind));
    EXPECT_EQ(kinds, "RCCCCCCCCU");
    EXPECT_LE(r.sent_ns, r.first_byte_ns);
    EXPECT_LE(r.first_event_ns, r.first_token_ns);
    EXPECT_LT(r.first_token_ns, r.last_token_ns);
    EXPECT_LE(r.last_event_ns, r.done_ns);
    EXPECT_EQ(r.finish_reason, "length");
    EXPECT_FALSE(r.request_id.empty());
    // The simulator schedules token j at arrival + 5 ms + j ms, so nothing comes earlier than that
    // (later is load; the absolute schedule means a late first token does not delay the rest).
    EXPECT_GE(r.first_token_ns - r.sent_ns, 5'000'000);
    EXPECT_GE(r.last_token_ns - r.sent_ns, 12'000'000);
  }
}

// HTTP phases, per request (libcurl's timings, or the socket transport's own stamps): a new
// connection has its set-up in order before the request's start on the wire; a request on a
// kept-alive connection opened none and set up nothing.
TEST_P(EngineOn, HttpPhasesAreRecordedInOrderAndReuseIsSeen) {
  Harness h(fast());
  EngineSettings es = settings();
  es.url = h.url();
  es.concurrency = 2;
  const auto rs = run(es, bodies(6, true, true));
  ASSERT_EQ(rs.size(), 6u);
  int64_t opened = 0;
  for (const auto& r : rs) {
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_NE(r.connects, record::kNone);
    ASSERT_NE(r.request_start_ns, record::kNone);
    EXPECT_LE(r.sent_ns, r.dns_done_ns);
    EXPECT_LE(r.dns_done_ns, r.connect_done_ns);
    EXPECT_LE(r.connect_done_ns, r.request_start_ns);
    EXPECT_LE(r.request_start_ns, r.first_byte_ns);
    EXPECT_EQ(r.tls_done_ns, record::kNone);  // plain http
    if (r.connects == 0) {
      EXPECT_EQ(r.connect_done_ns, r.sent_ns);  // reused: no set-up of its own
    }
    opened += r.connects;
  }
  EXPECT_EQ(opened, 2);  // two slots, two connections, kept alive for the other four requests
}

// --warm-connections: one connection per slot is open before the first request, so no measured
// request opens one (and its TTFT has no set-up in it).
TEST_P(EngineOn, WarmConnectionsLeaveNoSetUpInTheRequests) {
  Harness h(fast());
  EngineSettings es = settings();
  es.url = h.url();
  es.concurrency = 3;
  es.warm_url = "http://127.0.0.1:" + std::to_string(h.port) + "/v1/models";
  const auto rs = run(es, bodies(9, true, true));
  ASSERT_EQ(rs.size(), 9u);
  for (const auto& r : rs) {
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.connects, 0) << "request " << r.index << " opened a connection";
  }
}

TEST_P(EngineOn, NonStreamingCompletions) {
  Harness h(fast());
  EngineSettings es = settings();
  es.url = h.url(false);
  es.stream = false;
  es.concurrency = 2;
  const auto rs = run(es, bodies(4, false, false));
  ASSERT_EQ(rs.size(), 4u);
  for (const auto& r : rs) {
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.completion_tokens, 8);
    EXPECT_TRUE(r.chunks.empty());
    EXPECT_EQ(r.first_token_ns, record::kNone);
    EXPECT_GT(r.done_ns, r.sent_ns);
  }
}

TEST_P(EngineOn, ConcurrencyCapIsHonoured) {
  auto s = fast();
  s.ttft_ms = 30;
  Harness h(s);
  EngineSettings es = settings();
  es.url = h.url();
  es.concurrency = 3;
  es.workers = 2;
  const auto rs = run(es, bodies(12, true, true));
  std::vector<std::pair<int64_t, int>> ev;
  for (const auto& r : rs) {
    ev.emplace_back(r.sent_ns, 1);
    ev.emplace_back(r.done_ns, -1);
  }
  std::sort(ev.begin(), ev.end());
  int cur = 0, peak = 0;
  for (auto [t, d] : ev) peak = std::max(peak, cur += d);
  EXPECT_EQ(peak, 3);
}

TEST_P(EngineOn, HttpErrorKeepsStatusAndBody) {
  auto s = fast();
  s.fail_every = 3;
  Harness h(s);
  EngineSettings es = settings();
  es.url = h.url();
  const auto rs = run(es, bodies(6, true, true));
  int failed = 0;
  for (const auto& r : rs) {
    if (r.ok()) continue;
    ++failed;
    EXPECT_EQ(r.outcome, Outcome::HttpStatus);
    EXPECT_EQ(r.http_status, 500);
    EXPECT_NE(r.error.find("injected failure"), std::string::npos) << r.error;
  }
  EXPECT_EQ(failed, 2);
}

TEST_P(EngineOn, StreamCutMidwayIsStreamProtocol) {
  auto s = fast();
  s.drop_every = 2;
  Harness h(s);
  EngineSettings es = settings();
  es.url = h.url();
  const auto rs = run(es, bodies(4, true, true));
  int cut = 0;
  for (const auto& r : rs) {
    if (r.ok()) continue;
    ++cut;
    EXPECT_EQ(r.outcome, Outcome::StreamProtocol) << r.error;
    EXPECT_FALSE(r.chunks.empty());  // what arrived before the cut is kept
  }
  EXPECT_EQ(cut, 2);
}

TEST_P(EngineOn, UnreachableServerIsConnectErrorAndRetried) {
  EngineSettings es = settings();
  es.url = "http://127.0.0.1:" + std::to_string(testing::unused_loopback_port()) +
           "/v1/chat/completions";
  es.retries = 2;
  const auto rs = run(es, bodies(2, true, true));
  ASSERT_EQ(rs.size(), 2u);
  for (const auto& r : rs) {
    EXPECT_EQ(r.outcome, Outcome::ConnectError);
    EXPECT_EQ(r.attempts, 3);
  }
}

TEST_P(EngineOn, SlowServerTimesOut) {
  auto s = fast();
  s.ttft_ms = 3000;
  Harness h(s);
  EngineSettings es = settings();
  es.url = h.url();
  es.timeout_ms = 200;
  const auto rs = run(es, bodies(1, true, true));
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].outcome, Outcome::Timeout);
  EXPECT_LT(rs[0].done_ns - rs[0].sent_ns, 2'000'000'000);
}

TEST_P(EngineOn, OpenLoopKeepsTheSchedule) {
  Harness h(fast());
  EngineSettings es = settings();
  es.url = h.url();
  es.concurrency = 8;
  const std::vector<int64_t> schedule{0, 50'000'000, 100'000'000, 150'000'000, 200'000'000};
  const auto rs = run(es, bodies(5, true, true, 2), schedule);
  ASSERT_EQ(rs.size(), 5u);
  const int64_t base = rs[0].scheduled_ns;
  for (size_t i = 0; i < rs.size(); ++i) {
    EXPECT_EQ(rs[i].scheduled_ns - base, schedule[i]);
    const int64_t lag = rs[i].sent_ns - rs[i].scheduled_ns;
    EXPECT_GE(lag, 0);
    EXPECT_LT(lag, 20'000'000) << "request " << i;
  }
}

TEST_P(EngineOn, CancelStopsInFlightAndSendsNothingNew) {
  auto s = fast();
  s.tpot_ms = 20;
  Harness h(s);
  EngineSettings es = settings();
  es.url = h.url();
  es.concurrency = 2;
  es.drain_timeout_ms = 0;
  std::atomic<int> stop{kRunning};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = kDrain;
  });
  const auto rs = run(es, bodies(50, true, true, 100), {}, &stop);
  stopper.join();
  ASSERT_EQ(rs.size(), 2u);  // only the two in flight: nothing new was sent
  for (const auto& r : rs) {
    EXPECT_EQ(r.outcome, Outcome::Cancelled);
    EXPECT_FALSE(r.chunks.empty());
  }
}

// A server that sends one SSE line larger than the cap: only that request fails, as too_large,
// and the client never holds more than the cap.
TEST_P(EngineOn, OversizedSseLineFailsAsTooLarge) {
  const std::string sse =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"" +
      std::string(3 << 20, 'x') + "\"}}]}\n\n";
  testing::CannedServer srv([&](const std::string&) { return sse; });
  EngineSettings es = settings();
  es.url = srv.url("/v1/chat/completions");
  es.max_event_bytes = 1 << 20;
  const auto rs = run(es, bodies(2, true, true));
  ASSERT_EQ(rs.size(), 2u);
  for (const auto& r : rs) {
    EXPECT_EQ(r.outcome, Outcome::TooLarge) << r.error;
    EXPECT_NE(r.error.find("--max-event-bytes"), std::string::npos) << r.error;
    EXPECT_TRUE(r.chunks.empty());
  }
}

TEST_P(EngineOn, OversizedNonStreamingBodyFailsAsTooLarge) {
  const std::string body =
      "{\"choices\":[{\"message\":{\"content\":\"" + std::string(2 << 20, 'y') + "\"}}]}";
  testing::CannedServer srv([&](const std::string&) {
    return testing::CannedServer::http(200, "application/json", body);
  });
  EngineSettings es = settings();
  es.url = srv.url("/v1/chat/completions");
  es.stream = false;
  es.max_body_bytes = 1 << 20;
  const auto rs = run(es, bodies(1, true, false));
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].outcome, Outcome::TooLarge) << rs[0].error;
  EXPECT_NE(rs[0].error.find("--max-body-bytes"), std::string::npos) << rs[0].error;
}

// A usage bomb: the server claims 500 million tokens in a 3-chunk answer. The record keeps the
// claim; nothing is sized by it (metrics_test checks the statistics over it).
TEST_P(EngineOn, UsageBombIsRecordedNotAllocated) {
  const std::string sse =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"c\"},\"finish_reason\":\"length\"}]}\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":500000000}}\n\n"
      "data: [DONE]\n\n";
  testing::CannedServer srv([&](const std::string&) { return sse; });
  EngineSettings es = settings();
  es.url = srv.url("/v1/chat/completions");
  const auto rs = run(es, bodies(1, true, true));
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_TRUE(rs[0].ok()) << rs[0].error;
  EXPECT_EQ(rs[0].completion_tokens, 500'000'000);
  EXPECT_EQ(rs[0].chunks.size(), 4u);
}

// Anthropic's Messages stream as its servers write it, not as our simulator does: `event:` lines,
// CRLF line ends, a ping, and message_stop as the end (no [DONE]). The key goes as x-api-key with
// anthropic-version, and no Bearer header.
TEST_P(EngineOn, AnthropicStreamFromAForeignServer) {
  const std::string sse =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nConnection: "
      "close\r\n\r\n"
      "event: message_start\r\ndata: "
      "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01\",\"type\":\"message\","
      "\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":{\"input_tokens\":12,"
      "\"output_tokens\":1}}}\r\n\r\n"
      "event: content_block_start\r\ndata: "
      "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":"
      "\"\"}}\r\n\r\n"
      "event: ping\r\ndata: {\"type\": \"ping\"}\r\n\r\n"
      "event: content_block_delta\r\ndata: "
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
      "\"Hel\"}}\r\n\r\n"
      "event: content_block_delta\r\ndata: "
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
      "\"lo\"}}\r\n\r\n"
      "event: content_block_stop\r\ndata: {\"type\":\"content_block_stop\",\"index\":0}\r\n\r\n"
      "event: message_delta\r\ndata: "
      "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_"
      "tokens\":3}}\r\n\r\n"
      "event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n";
  testing::CannedServer srv([&](const std::string&) { return sse; });
  EngineSettings es = settings();
  es.url = srv.url("/v1/messages");
  es.api = find_api("messages");
  es.api_key = "sk-ant-test";
  es.keep_text = true;
  const auto rs = run(
      es,
      {R"({"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"stream":true})"});
  ASSERT_EQ(rs.size(), 1u);
  const RequestRecord& r = rs[0];
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.request_id, "msg_01");
  EXPECT_EQ(r.prompt_tokens, 12);
  EXPECT_EQ(r.completion_tokens, 3);
  EXPECT_EQ(r.finish_reason, "end_turn");
  EXPECT_EQ(r.output_text, "Hello");
  EXPECT_EQ(
      std::count_if(r.chunks.begin(), r.chunks.end(), [](const auto& c) { return c.has_text(); }),
      2);
  EXPECT_NE(r.first_token_ns, record::kNone);
  const std::string head = srv.requests().at(0);
  EXPECT_NE(head.find("x-api-key: sk-ant-test"), std::string::npos) << head;
  EXPECT_NE(head.find("anthropic-version: 2023-06-01"), std::string::npos) << head;
  EXPECT_EQ(head.find("Authorization"), std::string::npos) << head;
}

// An Anthropic stream cut before message_stop fails, naming what was missing; a [DONE] line means
// nothing on this API.
TEST_P(EngineOn, AnthropicStreamWithoutMessageStopIsCut) {
  const std::string sse =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
      "event: content_block_delta\ndata: "
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
      "\"a\"}}\n\n"
      "data: [DONE]\n\n";
  testing::CannedServer srv([&](const std::string&) { return sse; });
  EngineSettings es = settings();
  es.url = srv.url("/v1/messages");
  es.api = find_api("messages");
  const auto rs = run(es, {R"({"model":"m","max_tokens":8,"messages":[],"stream":true})"});
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].outcome, Outcome::StreamProtocol);
  EXPECT_NE(rs[0].error.find("without a message_stop event"), std::string::npos) << rs[0].error;
}

// SGLang's /generate, from a server that is not our simulator: cumulative text, cumulative
// meta_info counts (two tokens in the second event), a finish object, then [DONE].
TEST_P(EngineOn, SglangGenerateStreamFromAForeignServer) {
  const std::string sse =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
      "data: {\"text\":\" "
      "one\",\"meta_info\":{\"id\":\"abc\",\"finish_reason\":null,\"prompt_tokens\":6,\"completion_"
      "tokens\":1,\"cached_tokens\":0}}\n\n"
      "data: {\"text\":\" one two "
      "three\",\"meta_info\":{\"id\":\"abc\",\"finish_reason\":null,\"prompt_tokens\":6,"
      "\"completion_tokens\":3,\"cached_tokens\":0}}\n\n"
      "data: {\"text\":\" one two three "
      "four\",\"meta_info\":{\"id\":\"abc\",\"finish_reason\":{\"type\":\"length\",\"length\":4},"
      "\"prompt_tokens\":6,\"completion_tokens\":4,\"cached_tokens\":0}}\n\n"
      "data: [DONE]\n\n";
  testing::CannedServer srv([&](const std::string&) { return sse; });
  EngineSettings es = settings();
  es.url = srv.url("/generate");
  es.api = find_api("generate");
  es.keep_text = true;
  const auto rs =
      run(es, {R"({"text":"hi","sampling_params":{"max_new_tokens":4},"stream":true})"});
  ASSERT_EQ(rs.size(), 1u);
  const RequestRecord& r = rs[0];
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.output_text,
            " one two three four");  // each piece once, not the answer three times over
  EXPECT_EQ(r.output_chars, 19);
  EXPECT_EQ(r.completion_tokens, 4);
  EXPECT_EQ(r.finish_reason, "length");
  ASSERT_EQ(r.chunks.size(), 3u);
  EXPECT_EQ(r.chunks[1].cum_tokens, 3);  // exact per-chunk counts: no estimate needed
  EXPECT_EQ(srv.requests().at(0).find("anthropic-version"), std::string::npos);
}

// OpenAI's Responses stream as OpenAI writes it, not as our simulator does: `event:` lines, a
// created event, output item and part events, deltas, the .done events that repeat the text, and
// response.completed with the usage as the end (no [DONE]); a [DONE] a proxy adds after it is
// ignored. The key goes as a Bearer header.
TEST_P(EngineOn, ResponsesStreamFromAForeignServer) {
  const std::string sse =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nConnection: "
      "close\r\n\r\n"
      "event: response.created\ndata: "
      "{\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_abc\","
      "\"object\":\"response\",\"status\":\"in_progress\",\"output\":[],\"usage\":null}}\n\n"
      "event: response.in_progress\ndata: "
      "{\"type\":\"response.in_progress\",\"sequence_number\":1,\"response\":{\"id\":\"resp_abc\","
      "\"status\":\"in_progress\"}}\n\n"
      "event: response.output_item.added\ndata: "
      "{\"type\":\"response.output_item.added\",\"sequence_number\":2,\"output_index\":0,"
      "\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"in_progress\",\"role\":"
      "\"assistant\",\"content\":[]}}\n\n"
      "event: response.content_part.added\ndata: "
      "{\"type\":\"response.content_part.added\",\"sequence_number\":3,\"item_id\":\"msg_1\","
      "\"output_index\":0,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\","
      "\"annotations\":[]}}\n\n"
      "event: response.output_text.delta\ndata: "
      "{\"type\":\"response.output_text.delta\",\"sequence_number\":4,\"item_id\":\"msg_1\","
      "\"output_index\":0,\"content_index\":0,\"delta\":\"Hel\"}\n\n"
      "event: response.output_text.delta\ndata: "
      "{\"type\":\"response.output_text.delta\",\"sequence_number\":5,\"item_id\":\"msg_1\","
      "\"output_index\":0,\"content_index\":0,\"delta\":\"lo\"}\n\n"
      "event: response.output_text.done\ndata: "
      "{\"type\":\"response.output_text.done\",\"sequence_number\":6,\"item_id\":\"msg_1\","
      "\"output_index\":0,\"content_index\":0,\"text\":\"Hello\"}\n\n"
      "event: response.completed\ndata: "
      "{\"type\":\"response.completed\",\"sequence_number\":7,\"response\":{\"id\":\"resp_abc\","
      "\"status\":\"completed\",\"incomplete_details\":null,\"output\":[{\"type\":\"message\","
      "\"content\":[{\"type\":\"output_text\","
      "\"text\":\"Hello\"}]}],\"usage\":{\"input_tokens\":12,\"input_tokens_details\":{\"cached_"
      "tokens\":0},\"output_tokens\":2,"
      "\"total_tokens\":14}}}\n\n"
      "data: [DONE]\n\n";
  testing::CannedServer srv([&](const std::string&) { return sse; });
  EngineSettings es = settings();
  es.url = srv.url("/v1/responses");
  es.api = find_api("responses");
  es.api_key = "sk-test";
  es.keep_text = true;
  const auto rs = run(es, {R"({"model":"m","input":"hi","max_output_tokens":8,"stream":true})"});
  ASSERT_EQ(rs.size(), 1u);
  const RequestRecord& r = rs[0];
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.request_id, "resp_abc");
  EXPECT_EQ(r.prompt_tokens, 12);
  EXPECT_EQ(r.cached_tokens, 0);
  EXPECT_EQ(r.completion_tokens, 2);
  EXPECT_EQ(r.finish_reason, "completed");
  EXPECT_EQ(r.output_text, "Hello");  // once: the .done event and the final response repeat it
  EXPECT_EQ(r.output_chars, 5);
  EXPECT_EQ(
      std::count_if(r.chunks.begin(), r.chunks.end(), [](const auto& c) { return c.has_text(); }),
      2);
  EXPECT_NE(r.done_ns, record::kNone);
  const std::string head = srv.requests().at(0);
  EXPECT_NE(head.find("Authorization: Bearer sk-test"), std::string::npos) << head;
  EXPECT_EQ(head.find("anthropic-version"), std::string::npos) << head;
}

// A Responses stream that fails says why (response.failed's error); one cut before its terminal
// event fails naming what was missing, even when a proxy's [DONE] came.
TEST_P(EngineOn, ResponsesStreamFailedOrCut) {
  const std::string head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
  const std::string delta =
      "event: response.output_text.delta\ndata: "
      "{\"type\":\"response.output_text.delta\",\"delta\":\"a\"}\n\n";
  testing::CannedServer failed([&](const std::string&) {
    return head + delta +
           "event: response.failed\ndata: "
           "{\"type\":\"response.failed\",\"response\":{\"id\":\"resp_x\",\"status\":\"failed\","
           "\"error\":{\"code\":\"server_error\",\"message\":\"the model crashed\"}}}\n\n";
  });
  EngineSettings es = settings();
  es.url = failed.url("/v1/responses");
  es.api = find_api("responses");
  auto rs = run(es, {R"({"model":"m","input":"hi","stream":true})"});
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_FALSE(rs[0].ok());
  EXPECT_NE(rs[0].error.find("the model crashed"), std::string::npos) << rs[0].error;
  testing::CannedServer cut([&](const std::string&) { return head + delta + "data: [DONE]\n\n"; });
  es.url = cut.url("/v1/responses");
  rs = run(es, {R"({"model":"m","input":"hi","stream":true})"});
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].outcome, Outcome::StreamProtocol);
  EXPECT_NE(rs[0].error.find("without a response.completed event"), std::string::npos)
      << rs[0].error;
}

// A proxy's HTML page with 200 where a stream was asked for: said as such, with what came.
TEST_P(EngineOn, HtmlAnswerIsNamedNotCalledACutStream) {
  testing::CannedServer srv([&](const std::string&) {
    return testing::CannedServer::http(200, "text/html; charset=utf-8",
                                       "<html><body>Login required</body></html>");
  });
  EngineSettings es = settings();
  es.url = srv.url("/v1/chat/completions");
  const auto rs = run(es, bodies(1, true, true));
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].outcome, Outcome::StreamProtocol);
  EXPECT_NE(rs[0].error.find("Content-Type 'text/html; charset=utf-8'"), std::string::npos)
      << rs[0].error;
  EXPECT_NE(rs[0].error.find("Login required"), std::string::npos) << rs[0].error;
}

// A reset after the request was sent is not a connect error, and is not retried blindly.
TEST_P(EngineOn, ResetBeforeAnyResponseByteIsNotAConnectError) {
  std::atomic<int> served{0};
  testing::CannedServer srv([&](const std::string&) {
    ++served;
    return std::string();  // read the request, close without a byte
  });
  EngineSettings es = settings();
  es.url = srv.url("/v1/chat/completions");
  es.retries = 2;
  const auto rs = run(es, bodies(1, true, true));
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].outcome, Outcome::StreamProtocol) << rs[0].error;
  EXPECT_NE(rs[0].error.find("the request was sent"), std::string::npos) << rs[0].error;
  EXPECT_EQ(rs[0].attempts, 1);
}

// A source can answer "later": here each request is made only once the previous one has
// finished (what a multi-turn session needs: the next body carries the last answer). The engine
// asks again after completions, so the requests go strictly one after another even with room
// for four.
// An arrival schedule starts when the engine can send: the slots (and each transport's state per
// slot, a libcurl handle each) are made first. Made after, 8,000 of them (~50 ms) made a large open
// loop's first requests that late.
TEST_P(EngineOn, PhaseStartsOnceTheSlotsExist) {
  struct Probe final : load::RequestSource {
    void start(int64_t) override { started_at = steady_now_ns(); }
    load::Pull next(int64_t) override {
      if (first_next == 0) first_next = steady_now_ns();
      return load::Pull::done();
    }
    void completed(const RequestRecord&) override {}
    int64_t planned() const override { return -1; }  // unbounded: every slot is made
    std::atomic<int64_t> started_at{0}, first_next{0};
  } probe;
  EngineSettings es = settings();
  es.url = "http://127.0.0.1:9/v1/chat/completions";  // nothing is sent
  es.concurrency = 8000;
  std::atomic<int> stop{kRunning};
  Engine(es).run(
      probe, steady_now_ns(), [](RequestRecord&&) {}, stop);
  ASSERT_GT(probe.started_at.load(), 0);
  ASSERT_GT(probe.first_next.load(), 0);
  EXPECT_LT(probe.first_next.load() - probe.started_at.load(), 15'000'000);
}

// Warm connections come before the phase: a schedule (a trace, a rate) starts once they are
// open, so warming is not counted as its first requests' lateness. Here warming takes ~300 ms
// (a server that answers each warm-up GET after 150 ms, one connection at a time).
TEST_P(EngineOn, PhaseStartsAfterTheConnectionsAreWarm) {
  testing::CannedServer slow([](const std::string&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    return testing::CannedServer::http(200, "application/json", R"({"data":[]})");
  });
  struct Probe final : load::RequestSource {
    void start(int64_t) override { started_at = steady_now_ns(); }
    load::Pull next(int64_t) override {
      if (first_next == 0) first_next = steady_now_ns();
      return load::Pull::done();
    }
    void completed(const RequestRecord&) override {}
    int64_t planned() const override { return -1; }
    std::atomic<int64_t> started_at{0}, first_next{0};
  } probe;
  EngineSettings es = settings();
  es.url = slow.url("/v1/chat/completions");
  es.warm_url = slow.url("/v1/models");
  es.concurrency = 2;
  es.workers = 1;
  std::atomic<int> stop{kRunning};
  const int64_t begin = steady_now_ns();
  Engine(es).run(
      probe, begin, [](RequestRecord&&) {}, stop);
  ASSERT_GT(probe.first_next.load(), 0);
  EXPECT_GE(probe.started_at.load() - begin, 250'000'000);  // the warming came first
  EXPECT_LT(probe.first_next.load() - probe.started_at.load(), 50'000'000);
}

TEST_P(EngineOn, SourceThatAnswersLaterGetsAskedAgainAfterCompletions) {
  Harness h(fast());
  struct Chain final : load::RequestSource {
    explicit Chain(std::string body) : body(std::move(body)) {}
    void start(int64_t) override {}
    load::Pull next(int64_t) override {
      std::lock_guard l(mu);
      if (made == 5) return load::Pull::done();
      if (made > finished) return load::Pull::later();
      core::PlannedRequest p;
      p.index = made++;
      p.body = body;
      return load::Pull::of(std::move(p));
    }
    void completed(const RequestRecord&) override {
      std::lock_guard l(mu);
      ++finished;
    }
    int64_t planned() const override { return -1; }
    std::string body;
    std::mutex mu;
    int made = 0, finished = 0;
  } chain(bodies(1, true, true, 4).front());
  EngineSettings es = settings();
  es.url = h.url();
  es.concurrency = 4;
  std::atomic<int> stop{kRunning};
  std::vector<RequestRecord> out;
  std::mutex mu;
  Engine(es).run(
      chain, steady_now_ns(),
      [&](RequestRecord&& r) {
        std::lock_guard l(mu);
        out.push_back(std::move(r));
      },
      stop);
  ASSERT_EQ(out.size(), 5u);
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_TRUE(out[i].ok()) << out[i].error;
    EXPECT_EQ(out[i].index, static_cast<int64_t>(i));
    if (i > 0) {
      EXPECT_GE(out[i].sent_ns, out[i - 1].done_ns);  // made after the last answer was in
    }
  }
}

// TLS against a real TLS server on loopback (openssl s_server, a self-signed certificate made
// here): the failure names its cause; --ca-bundle or --insecure gets through the handshake.
TEST(Engine, TlsErrorsNameTheCauseAndCaBundleOrInsecureGetThrough) {
  const std::string dir = ::testing::TempDir() + "tokbench_tls_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string make_cert =
      "openssl req -x509 -newkey rsa:2048 -nodes -keyout " + dir + "/k.pem -out " + dir +
      "/c.pem -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1";
  ASSERT_EQ(std::system(make_cert.c_str()), 0)
      << "needs the openssl command (Debian's openssl package)";
  const uint16_t port = testing::unused_loopback_port();
  testing::Child server({"/usr/bin/openssl", "s_server", "-accept",
                         "127.0.0.1:" + std::to_string(port), "-cert", dir + "/c.pem", "-key",
                         dir + "/k.pem", "-www", "-quiet"});
  for (int i = 0; i < 100; ++i) {  // until it listens (bounded)
    if (!http_get("http://127.0.0.1:" + std::to_string(port) + "/", {}, "", 200).error.empty() &&
        http_get("https://127.0.0.1:" + std::to_string(port) + "/", {}, "", 500,
                 kDefaultMaxResponseBytes, TlsSettings{"", "", "", true})
            .reached)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EngineSettings es;
  es.url = "https://127.0.0.1:" + std::to_string(port) + "/v1/chat/completions";
  es.timeout_ms = 5000;
  auto rs = run(es, bodies(1, true, true));
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].outcome, Outcome::ConnectError) << rs[0].error;
  EXPECT_NE(rs[0].error.find("self-signed certificate"), std::string::npos) << rs[0].error;
  const auto got = http_get(es.url, {}, "", 5000);
  EXPECT_TRUE(got.tls_error);
  EXPECT_NE(got.error.find("self-signed certificate"), std::string::npos) << got.error;
  // The set-up client: with the server's CA, or without verification, the page comes back.
  for (const TlsSettings& tls :
       {TlsSettings{dir + "/c.pem", "", "", false}, TlsSettings{"", "", "", true}}) {
    const auto ok = http_get("https://127.0.0.1:" + std::to_string(port) + "/", {}, "", 5000,
                             kDefaultMaxResponseBytes, tls);
    EXPECT_TRUE(ok.reached) << ok.error;
    EXPECT_EQ(ok.status, 200);
  }
  // The engine: past the handshake (s_server -www does not answer a POST, so it times out).
  es.tls = TlsSettings{dir + "/c.pem", "", "", false};
  es.timeout_ms = 800;
  rs = run(es, bodies(1, true, true));
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].outcome, Outcome::Timeout) << rs[0].error;
  std::filesystem::remove_all(dir);
}

// The simulator's fault injection against the real client: every kind lands in its own outcome
// category with a cause that names it (a user testing their pipeline sees the same).
TEST_P(EngineOn, InjectedFaultsAreEachCategorizedAndNamed) {
  struct Case {
    const char* kind;
    Outcome outcome;
    const char* says;
  };
  for (const Case& c :
       {Case{"500", Outcome::HttpStatus, "HTTP 500"}, Case{"429", Outcome::HttpStatus, "HTTP 429"},
        Case{"reset-before-headers", Outcome::StreamProtocol, "the request was sent"},
        Case{"reset-mid-stream", Outcome::StreamProtocol, "closed"},  // both transports' words
        Case{"stall", Outcome::Timeout, "(raise --timeout-s)"},
        Case{"malformed-sse", Outcome::StreamProtocol, "invalid JSON in SSE event"},
        Case{"no-done", Outcome::StreamProtocol, "without data: [DONE]"}}) {
    mock::MockSettings s = fast();
    s.fault_rate = 1;
    s.fault_kinds = c.kind;
    s.fault_stall_ms = 3000;
    Harness h(s);
    EngineSettings es = settings();
    es.url = h.url();
    es.timeout_ms = 500;
    const auto rs = run(es, bodies(2, true, true, 8));
    ASSERT_EQ(rs.size(), 2u) << c.kind;
    for (const auto& r : rs) {
      EXPECT_EQ(r.outcome, c.outcome) << c.kind << ": " << r.error;
      EXPECT_NE(r.error.find(c.says), std::string::npos) << c.kind << ": " << r.error;
    }
  }
}

// A server that says "later" (429 with Retry-After: 1) is retried after that long, not at once;
// the record keeps its intended time, so the wait shows in its latency from schedule.
TEST_P(EngineOn, RetriesHonourRetryAfter) {
  mock::MockSettings s = fast();
  s.fault_rate = 1;
  s.fault_kinds = "429";
  Harness h(s);
  EngineSettings es = settings();
  es.url = h.url();
  es.retries = 2;
  const auto rs = run(es, bodies(1, true, true));
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].http_status, 429);
  EXPECT_EQ(rs[0].attempts, 3);
  EXPECT_GE(rs[0].sent_ns - rs[0].scheduled_ns, 1'900'000'000);  // two waits of Retry-After: 1 s
}

// After a stop nothing new is sent: a request waiting out its backoff ends as its last attempt did.
TEST_P(EngineOn, StopGivesUpWaitingRetries) {
  mock::MockSettings s = fast();
  s.fault_rate = 1;
  s.fault_kinds = "429";
  Harness h(s);
  EngineSettings es = settings();
  es.url = h.url();
  es.retries = 5;
  std::atomic<int> stop{kRunning};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = kDrain;
  });
  const auto t0 = std::chrono::steady_clock::now();
  const auto rs = run(es, bodies(1, true, true), {}, &stop);
  stopper.join();
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].http_status, 429);
  EXPECT_EQ(rs[0].attempts, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - t0,
            std::chrono::seconds(1));  // not five Retry-After waits
}

// The busy share: the part of the phase a worker went without waiting for the network. A worker
// held up elsewhere (here in the source's completed(), as a thread waiting for a CPU would be)
// is busy without the CPU time to show for it; one waiting on a slow server is not busy; a phase
// under a second has no share (its figure would be the scheduler's noise).
TEST_P(EngineOn, BusyShareCountsTimeNotWaitingForTheNetwork) {
  auto share = [&](mock::MockSettings ms, int64_t hold_ms, int requests) {
    Harness h(ms);
    struct Held final : load::RequestSource {
      Held(std::string body, int64_t hold_ms, int n)
          : body(std::move(body)), hold_ms(hold_ms), n(n) {}
      void start(int64_t) override {}
      load::Pull next(int64_t) override {
        if (made == n) return load::Pull::done();
        core::PlannedRequest p;
        p.index = made++;
        p.body = body;
        return load::Pull::of(std::move(p));
      }
      void completed(const RequestRecord&) override {
        std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
      }
      int64_t planned() const override { return n; }
      std::string body;
      int64_t hold_ms;
      int n;
      int made = 0;
    } source(bodies(1, true, true, 2).front(), hold_ms, requests);
    EngineSettings es = settings();
    es.url = h.url();
    es.concurrency = 1;
    std::atomic<int> stop{kRunning};
    const EngineCounters c = Engine(es).run(
        source, steady_now_ns(), [](RequestRecord&&) {}, stop);
    EXPECT_LT(static_cast<double>(c.cpu_ns) / 1e9, 0.2);  // little CPU either way: held, or waiting
    return c.busy_share;
  };
  mock::MockSettings slow = fast();
  slow.ttft_ms = 80;
  const double waiting = share(slow, 0, 16);  // ~16 × 82 ms waiting for the server
  EXPECT_GE(waiting, 0);
  EXPECT_LT(waiting, 0.3);
  EXPECT_GT(share(fast(), 80, 16), 0.7);  // ~16 × 80 ms held, ~16 × 7 ms waiting
  EXPECT_EQ(share(fast(), 80, 2), -1);    // ~0.2 s: no share
}

// A server may close a kept-alive connection at any time (an idle timeout, a restart). The request
// that finds it closed before any response byte is sent again once on a new connection, as
// libcurl does: not an attempt of its own, but marked `resent` (the server may have read it).
TEST_P(EngineOn, KeptAliveConnectionDroppedByTheServerIsReplacedOnce) {
  const std::string sse =
      "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\n";
  const std::string ok = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " +
                         std::to_string(sse.size()) + "\r\n\r\n" + sse;
  testing::ScriptedServer srv([&](int conn, int nth, const std::string&) {
    if (conn == 0 && nth == 1)
      return testing::ScriptedServer::Reply{"", true};  // read it, then drop
    return testing::ScriptedServer::Reply{ok, false};
  });
  EngineSettings es = settings();
  es.url = srv.url("/v1/chat/completions");
  es.concurrency = 1;
  es.retries = 0;
  const auto rs = run(es, bodies(3, true, true));
  ASSERT_EQ(rs.size(), 3u);
  for (const auto& r : rs) {
    EXPECT_TRUE(r.ok()) << r.index << ": " << r.error;
    EXPECT_EQ(r.attempts, 1);
    EXPECT_EQ(r.chunks.size(), 1u);
  }
  EXPECT_EQ(rs[1].connects, 1);  // its answer came on the new connection
  EXPECT_EQ(rs[2].connects, 0);  // which was kept for the next request
  // The server read the first copy before it dropped the connection: the record says it was sent
  // twice (RFC 9110 §9.2.2). libcurl repeats it too but does not tell.
  if (GetParam() == TransportKind::Sockets) {
    EXPECT_TRUE(rs[1].resent);
  }
  EXPECT_FALSE(rs[0].resent);
  EXPECT_FALSE(rs[2].resent);
  const auto seen = srv.seen();
  ASSERT_EQ(seen.size(),
            4u);  // 0 on the first connection, 1 there and dropped, 1 again and 2 on the second
  EXPECT_EQ(seen[1].connection, 0);
  EXPECT_EQ(seen[2].connection, 1);
  EXPECT_EQ(seen[2].request, seen[1].request);  // the same request, byte for byte
  EXPECT_EQ(seen[3].connection, 1);
}

// A server that writes an answer nobody asked for onto an idle kept-alive connection (a late
// reply to a request it had already answered, a broken proxy): the next request must not take it
// for its own. Both transports leave that connection and send the request on a new one.
TEST_P(EngineOn, StrayAnswerOnAnIdleConnectionIsNotTheNextRequests) {
  auto answer = [](const std::string& text) {
    const std::string sse =
        "data: {\"choices\":[{\"delta\":{\"content\":\"" + text + "\"}}]}\n\ndata: [DONE]\n\n";
    return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " +
           std::to_string(sse.size()) + "\r\n\r\n" + sse;
  };
  testing::ScriptedServer srv([&](int conn, int nth, const std::string&) {
    testing::ScriptedServer::Reply r{answer("bb"), false};
    if (conn == 0 && nth == 0) {  // the stray answer comes 30 ms later, while the client is idle
      r.late = answer("zzzzz");
      r.late_ms = 30;
    }
    return r;
  });
  EngineSettings es = settings();
  es.url = srv.url("/v1/chat/completions");
  es.concurrency = 1;
  es.retries = 0;
  const auto rs = run(es, bodies(2, true, true), {0, 300'000'000});  // the second 300 ms later
  ASSERT_EQ(rs.size(), 2u);
  for (const auto& r : rs) {
    EXPECT_TRUE(r.ok()) << r.index << ": " << r.error;
    EXPECT_EQ(r.output_chars, 2) << r.index << ": took the stray answer";
  }
  EXPECT_EQ(rs[1].connects, 1);  // on a new connection
  const auto seen = srv.seen();
  ASSERT_EQ(seen.size(), 2u);  // each request sent once
  EXPECT_EQ(seen[1].connection, 1);
}

// A server that refuses a request before reading its body (413 on a large image request): the
// answer is read while the body is still being sent, and named; the client does not hang.
TEST_P(EngineOn, AnswerBeforeTheWholeBodyIsRead) {
  testing::ScriptedServer srv(
      [](int, int, const std::string&) {
        return testing::ScriptedServer::Reply{
            testing::CannedServer::http(413, "application/json",
                                        R"({"error":{"message":"request too large"}})"),
            false};
      },
      /*read_bodies=*/false);
  EngineSettings es = settings();
  es.url = srv.url("/v1/chat/completions");
  es.timeout_ms = 10'000;
  const std::vector<std::string> big{
      std::string(R"({"model":"m","messages":[{"role":"user","content":")") +
      std::string(32 << 20, 'x') + "\"}],\"stream\":true}"};
  const auto t0 = steady_now_ns();
  const auto rs = run(es, big);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].outcome, Outcome::HttpStatus) << rs[0].error;
  EXPECT_EQ(rs[0].http_status, 413);
  EXPECT_NE(rs[0].error.find("request too large"), std::string::npos) << rs[0].error;
  EXPECT_LT(steady_now_ns() - t0, 8'000'000'000);
}

// A server that answers 413 the moment it accepts and closes (nginx's client_max_body_size, a
// gateway): the client's send then fails with the answer already in its socket. That answer is
// the request's outcome, every time, on both transports, and no POST is sent twice.
TEST_P(EngineOn, AnswerThenCloseBeforeTheBodyIsRead) {
  uint16_t port = 0;
  const int lfd = testing::bound_loopback_socket(port);
  ASSERT_EQ(listen(lfd, 64), 0);
  std::atomic<int> accepted{0};
  std::atomic<bool> done{false};
  std::thread server([&] {
    const std::string reply = testing::CannedServer::http(
        413, "application/json", R"({"error":{"message":"request too large"}})");
    for (int n = 0; n < 12 && !done;) {  // bounded: at most 12 connections, until the run is over
      pollfd p{lfd, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      ++n;
      const int fd = accept(lfd, nullptr, nullptr);
      if (fd < 0) return;
      ++accepted;
      (void)!write(fd, reply.data(), reply.size());
      close(fd);
    }
  });
  EngineSettings es = settings();
  es.url = "http://127.0.0.1:" + std::to_string(port) + "/v1/chat/completions";
  es.timeout_ms = 10'000;
  const std::string big = std::string(R"({"model":"m","messages":[{"role":"user","content":")") +
                          std::string(16 << 20, 'x') + "\"}],\"stream\":true}";
  const auto rs = run(es, std::vector<std::string>(6, big));
  done = true;
  server.join();
  close(lfd);
  ASSERT_EQ(rs.size(), 6u);
  for (const auto& r : rs) {
    if (GetParam() == TransportKind::Curl && r.outcome == Outcome::StreamProtocol) {
      // libcurl (7.88) does not read an answer once its send failed: a known limit of that
      // transport, named as what it is (`--transport auto` uses plain sockets for http://).
      EXPECT_NE(r.error.find("Send failure"), std::string::npos) << r.error;
      continue;
    }
    EXPECT_EQ(r.outcome, Outcome::HttpStatus) << r.error;
    EXPECT_EQ(r.http_status, 413) << r.error;
  }
  EXPECT_LE(accepted.load(), 6);  // a connection per request, none sent again (12 would be)
}

// Both transports put the same request on the wire: the same request line, the same headers
// (libcurl's defaults and its rules for --header), the same body.
TEST(Engine, BothTransportsSendTheSameRequest) {
  testing::CannedServer srv([](const std::string&) {
    return testing::CannedServer::http(200, "application/json",
                                       R"({"choices":[{"message":{"content":"a"}}]})");
  });
  for (TransportKind kind : {TransportKind::Sockets, TransportKind::Curl}) {
    EngineSettings es;
    es.transport = kind;
    es.url = srv.url("/v1/chat/completions?x=1");
    es.stream = false;
    es.api_key = "sk-test";
    es.headers = {"X-Tenant: blue", "User-Agent: my-bench/2", "X-Empty;"};
    const auto rs = run(es, bodies(1, true, false));
    ASSERT_EQ(rs.size(), 1u);
    EXPECT_TRUE(rs[0].ok()) << transport_name(kind) << ": " << rs[0].error;
  }
  const std::vector<std::string> heads = srv.requests();
  ASSERT_EQ(heads.size(), 2u);
  // Compared as sorted lines: HTTP does not order headers, and the two place Content-Length apart.
  auto lines = [](const std::string& req) {
    std::vector<std::string> v;
    for (size_t at = 0, nl; (nl = req.find("\r\n", at)) != std::string::npos; at = nl + 2)
      v.push_back(req.substr(at, nl - at));
    v.push_back(req.substr(req.rfind("\r\n") + 2));  // the body
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(lines(heads[0]), lines(heads[1])) << heads[0] << "\n----\n" << heads[1];
  EXPECT_NE(heads[0].find("POST /v1/chat/completions?x=1 HTTP/1.1\r\n"), std::string::npos)
      << heads[0];
  EXPECT_NE(heads[0].find("Authorization: Bearer sk-test\r\n"), std::string::npos) << heads[0];
  EXPECT_NE(heads[0].find("User-Agent: my-bench/2\r\n"), std::string::npos) << heads[0];
  EXPECT_EQ(heads[0].find("User-Agent: tokbench"), std::string::npos) << heads[0];
}

// auto picks plain sockets only where they can do the whole job: a plain http:// URL without a
// proxy in the environment; https and proxies go to libcurl, and the reason is said.
TEST(Engine, AutoTransportIsSocketsOnlyForPlainHttpWithoutAProxy) {
  EngineSettings es;
  std::string why;
  es.url = "http://127.0.0.1:8000/v1/chat/completions";
  EXPECT_EQ(chosen_transport(es, &why), TransportKind::Sockets);
  EXPECT_EQ(why, "a plain http:// URL with no proxy");
  es.url = "https://api.example.test/v1/chat/completions";
  EXPECT_EQ(chosen_transport(es, &why), TransportKind::Curl);
  EXPECT_EQ(why, "the URL is not plain http://");
  es.url = "http://user:pw@127.0.0.1:8000/v1/chat/completions";
  EXPECT_EQ(chosen_transport(es), TransportKind::Curl);
  es.url = "http://127.0.0.1:8000/v1/chat/completions";
  ::setenv("http_proxy", "http://127.0.0.1:3128", 1);
  EXPECT_EQ(chosen_transport(es, &why), TransportKind::Curl);
  EXPECT_NE(why.find("proxy"), std::string::npos) << why;
  ::unsetenv("http_proxy");
  es.transport = TransportKind::Curl;
  EXPECT_EQ(chosen_transport(es, &why), TransportKind::Curl);
  EXPECT_EQ(why, "asked for (--transport libcurl)");
}

}  // namespace
}  // namespace tokbench::client
