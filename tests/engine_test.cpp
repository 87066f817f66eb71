// client/engine: the real engine against the real simulator over loopback — records, HTTP
// phases, warm connections, the concurrency cap, errors, timeouts, schedules, cancellation and
// its caps on lines and bodies — on both transports (plain sockets and libcurl), which must
// agree on all of it, and what each transport sends.
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
#include "common/receive_time.hpp"
#include "mock/mock_server.hpp"
#include "support/canned_server.hpp"
#include "support/engine_harness.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/scripted_server.hpp"

namespace tokbench::client {
namespace {

using namespace net;  // set-up calls: http_get, TlsSettings

TOKBENCH_ENGINE_ON_BOTH_TRANSPORTS();

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

// The client's own part of TTFT (metrics: ClientDelay): the socket transport stamps when the
// whole request was taken by the kernel and when the bytes of the first token's read reached the
// host, in order around the stamps it had; libcurl can tell neither, and leaves both unknown.
TEST_P(EngineOn, TheSocketTransportMeasuresItsOwnPartOfTtft) {
  ASSERT_TRUE(wait_for_receive_stamps());  // as a run's first moments may not be stamped yet
  Harness h(fast());
  EngineSettings es = settings();
  es.url = h.url();
  es.concurrency = 2;
  const auto rs = run(es, bodies(6, true, true));
  ASSERT_EQ(rs.size(), 6u);
  for (const auto& r : rs) {
    ASSERT_TRUE(r.ok()) << r.error;
    if (GetParam() == TransportKind::Curl) {
      EXPECT_EQ(r.request_sent_ns, record::kNone);
      EXPECT_EQ(r.first_token_host_ns, record::kNone);
      continue;
    }
    ASSERT_NE(r.request_sent_ns, record::kNone);
    ASSERT_NE(r.first_token_host_ns, record::kNone);
    EXPECT_LE(r.request_start_ns, r.request_sent_ns);
    EXPECT_LE(r.request_sent_ns, r.first_byte_ns);
    // The first token's read began to come after the request was sent, and was read after it
    // came; the clocks are moved from CLOCK_REALTIME: allow a millisecond for it.
    EXPECT_GE(r.first_token_host_ns, r.request_sent_ns - 1'000'000);
    EXPECT_LE(r.first_token_host_ns, r.first_token_ns + 1'000'000);
  }
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
