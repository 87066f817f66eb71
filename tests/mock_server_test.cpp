// mock/: the simulator under load and in trouble, over loopback — chunks that carry several
// tokens, --max-num-seqs admission and what an abandoned request frees, oversized requests and the
// context length, the prefix cache, injected faults, the --trace ground truth, its settings'
// checks, the truth of its /metrics histograms, and its limits (descriptors, large prompts).
#include "mock/mock_server.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <simdjson.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <thread>

#include "mockapi/mock_response.hpp"
#include "net/http_get.hpp"
#include "support/http_post.hpp"
#include "support/sim_process.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::mock {
namespace {

using testing::http_post;

// A plain TCP connection to the simulator on loopback; -1 when it failed.
int connect_loopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

using testing::sse_data;

TEST(MockServerBatching, TokensPerChunkGroupsAfterTheFirstToken) {
  MockSettings s;
  s.port = 0;
  s.ttft_ms = 1;
  s.tpot_ms = 1;
  s.tokens_per_chunk = 3;
  MockServer server(s);
  const std::string url = "http://127.0.0.1:" + std::to_string(server.start()) + "/v1/completions";
  const auto ev = sse_data(
      http_post(
          url,
          R"({"model":"tokbench-mock","prompt":"x","max_tokens":8,"ignore_eos":true,"stream":true,)"
          R"("stream_options":{"include_usage":true,"continuous_usage_stats":true}})")
          .body);
  // 1 + 3 + 3 + 1 tokens, then usage and [DONE].
  ASSERT_EQ(ev.size(), 4 + 2u);
  for (auto [i, cum] : {std::pair{0, 1}, {1, 4}, {2, 7}, {3, 8}})
    EXPECT_NE(ev[static_cast<size_t>(i)].find("\"completion_tokens\":" + std::to_string(cum) + "}"),
              std::string::npos)
        << ev[static_cast<size_t>(i)];
}

TEST(MockServerBatching, SpeculativeChunksCarrySeveralTokens) {
  MockSettings s;
  s.port = 0;
  s.ttft_ms = 1;
  s.tpot_ms = 1;
  s.spec_tokens = 3;
  s.spec_acceptance = 1.0;  // every draft accepted: 4 tokens per step
  MockServer server(s);
  const std::string url = "http://127.0.0.1:" + std::to_string(server.start()) + "/v1/completions";
  const auto ev = sse_data(
      http_post(
          url,
          R"({"model":"tokbench-mock","prompt":"x","max_tokens":9,"ignore_eos":true,"stream":true})")
          .body);
  ASSERT_EQ(ev.size(), 3 + 1u);  // tokens 1 | 4 | 4, then [DONE]
  auto metrics = net::http_get(url.substr(0, url.find("/v1")) + "/metrics", {}, "", 5000);
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("vllm:spec_decode_num_drafts_total{model_name=\"tokbench-mock\"} 2"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find(
                "vllm:spec_decode_num_accepted_tokens_total{model_name=\"tokbench-mock\"} 6"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("vllm:generation_tokens_total{model_name=\"tokbench-mock\"} 9"),
            std::string::npos);
  EXPECT_NE(
      metrics.body.find("vllm:time_to_first_token_seconds_count{model_name=\"tokbench-mock\"} 1"),
      std::string::npos);
  EXPECT_NE(
      metrics.body.find(
          "vllm:e2e_request_latency_seconds_bucket{model_name=\"tokbench-mock\",le=\"+Inf\"} 1"),
      std::string::npos);
  EXPECT_NE(metrics.body.find("# TYPE vllm:inter_token_latency_seconds histogram"),
            std::string::npos);
}

TEST(MockServerBatching, MaxNumSeqsQueuesTheRest) {
  MockSettings s;
  s.port = 0;
  s.ttft_ms = 100;
  s.tpot_ms = 1;
  s.max_num_seqs = 1;
  MockServer server(s);
  const std::string url = "http://127.0.0.1:" + std::to_string(server.start()) + "/v1/completions";
  const std::string body =
      R"({"model":"tokbench-mock","prompt":"x","max_tokens":2,"ignore_eos":true})";
  const auto t0 = std::chrono::steady_clock::now();
  std::thread other([&] { http_post(url, body); });
  // Until the first is admitted (20 ms were not always enough under the sanitizers on a busy
  // machine); its 100 ms prefill keeps it running meanwhile.
  std::string metrics;
  for (int i = 0; i < 100; ++i) {
    metrics = net::http_get(url.substr(0, url.find("/v1")) + "/metrics", {}, "", 5000).body;
    if (metrics.find("vllm:num_requests_running{model_name=\"tokbench-mock\"} 1") !=
        std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  http_post(url, body);  // waits for the first to finish, then its own 100 ms prefill
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  other.join();
  EXPECT_GE(ms, 200);
  EXPECT_NE(metrics.find("vllm:num_requests_running{model_name=\"tokbench-mock\"} 1"),
            std::string::npos)
      << metrics;
  metrics = net::http_get(url.substr(0, url.find("/v1")) + "/metrics", {}, "", 5000).body;
  EXPECT_NE(metrics.find("vllm:request_queue_time_seconds_count{model_name=\"tokbench-mock\"} 2"),
            std::string::npos);
  EXPECT_NE(metrics.find("vllm:num_requests_running{model_name=\"tokbench-mock\"} 0"),
            std::string::npos);
}

// A client that leaves a non-streamed request: the simulator aborts it, as vLLM does, and its place
// in a full batch goes to the next request (it used to generate on, blocking everyone behind it).
TEST(MockServerBatching, AbandonedRequestIsAbortedAndFreesItsPlace) {
  MockSettings s;
  s.port = 0;
  s.ttft_ms = 1;
  s.tpot_ms = 1;
  s.max_num_seqs = 1;
  MockServer server(s);
  const int port = server.start();
  const std::string body =
      R"({"model":"tokbench-mock","prompt":"x","max_tokens":100000,"ignore_eos":true})";
  const std::string request =
      "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  const int fd = connect_loopback(port);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // admitted, decoding its 100 s
  close(fd);                                                    // and the client gives up
  const auto t0 = std::chrono::steady_clock::now();
  const auto next = http_post("http://127.0.0.1:" + std::to_string(port) + "/v1/completions",
                              R"({"model":"tokbench-mock","prompt":"x","max_tokens":2})");
  EXPECT_EQ(next.status, 200) << next.body;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3.0);
}

// Too large is answered, as vLLM's server answers it: 413 for a body past the limit (said at its
// Content-Length, before the body is read), 400 for a head past 64 KiB; not a reset.
TEST(MockServerBatching, OversizedRequestsAreAnsweredNotReset) {
  MockSettings s;
  s.port = 0;
  MockServer server(s);
  const int port = server.start();
  auto exchange = [&](const std::string& request) {
    const int fd = connect_loopback(port);
    EXPECT_GE(fd, 0);
    (void)!write(fd, request.data(), request.size());
    std::string answer;
    char buf[4096];
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);  // bounded
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
      answer.append(buf, static_cast<size_t>(n));
    close(fd);
    return answer;
  };
  const std::string big_body = exchange(
      "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 300000000\r\n\r\n{\"model\":");
  EXPECT_EQ(big_body.rfind("HTTP/1.1 413", 0), 0u) << big_body.substr(0, 200);
  EXPECT_NE(big_body.find("Request body too large"), std::string::npos);
  const std::string big_head = exchange(
      "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(100'000, 'a') + "\r\n\r\n");
  EXPECT_EQ(big_head.rfind("HTTP/1.1 400", 0), 0u) << big_head.substr(0, 200);
  EXPECT_NE(big_head.find("Request header fields too large"), std::string::npos);
}

// A request past the context length (prompt + max_tokens > --max-model-len) gets vLLM's 400.
TEST(MockServerBatching, ContextLengthIsEnforcedAsVllmDoes) {
  MockSettings s;
  s.port = 0;
  s.max_model_len = 100;
  MockServer server(s);
  const std::string url = "http://127.0.0.1:" + std::to_string(server.start()) + "/v1/completions";
  const auto res =
      http_post(url, R"({"model":"tokbench-mock","prompt":"x","max_tokens":1000000000})");
  EXPECT_EQ(res.status, 400);
  EXPECT_NE(
      res.body.find("This model's maximum context length is 100 tokens. However, you requested"),
      std::string::npos)
      << res.body;
  EXPECT_EQ(http_post(url, R"({"model":"tokbench-mock","prompt":"x","max_tokens":50})").status,
            200);
}

TEST(MockServerBatching, PrefixCacheReportsCachedTokensAndSkipsPrefill) {
  MockSettings s;
  s.port = 0;
  s.ttft_ms = 200;
  s.prefix_caching = true;
  s.block_size = 4;
  MockServer server(s);
  const std::string base = "http://127.0.0.1:" + std::to_string(server.start());
  const std::string body =
      R"({"model":"tokbench-mock","prompt":")" + std::string(160, 'a') + R"(","max_tokens":1})";
  auto timed = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = http_post(base + "/v1/completions", body);
    return std::pair{
        r,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()};
  };
  const auto [first, first_ms] = timed();
  const auto [second, second_ms] = timed();
  EXPECT_NE(first.body.find(R"("prompt_tokens_details":{"cached_tokens":0})"), std::string::npos)
      << first.body;
  EXPECT_NE(second.body.find(R"("prompt_tokens_details":{"cached_tokens":40})"), std::string::npos)
      << second.body;
  EXPECT_GE(first_ms, 190);
  EXPECT_LT(second_ms, 120);  // 40 of 40 prompt units cached: one unit of prefill left
  const auto metrics = net::http_get(base + "/metrics", {}, "", 5000).body;
  EXPECT_NE(metrics.find("vllm:prefix_cache_hits_total{model_name=\"tokbench-mock\"} 40"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("vllm:prefix_cache_queries_total{model_name=\"tokbench-mock\"} 80"),
            std::string::npos);
}

TEST(MockServerFaults, FailEveryAnswers500) {
  MockSettings s;
  s.ttft_ms = 1;
  s.fail_every = 2;
  s.port = 0;
  MockServer server(s);
  const std::string url = "http://127.0.0.1:" + std::to_string(server.start()) + "/v1/completions";
  const std::string body = R"({"model":"tokbench-mock","prompt":"x","max_tokens":1})";
  EXPECT_EQ(http_post(url, body).status, 200);
  auto second = http_post(url, body);
  EXPECT_EQ(second.status, 500);
  EXPECT_NE(second.body.find("injected failure"), std::string::npos);
}

// The trace is the ground truth of TTFT: when each request arrived, was admitted to the batch,
// got its first token, and when each byte went out, streaming or not, with its connection.
TEST(MockServerTrace, ArrivalAdmissionFirstTokenAndWritesPerRequest) {
  const auto path = testing::test_dir() / "trace.jsonl";
  MockSettings s;
  s.port = 0;
  s.ttft_ms = 100;
  s.tpot_ms = 2;
  s.max_num_seqs = 1;  // the second request waits for the first: admission later than arrival
  s.trace_path = path.string();
  MockServer server(s);
  const std::string base = "http://127.0.0.1:" + std::to_string(server.start());
  const std::string url = base + "/v1/completions";
  std::thread first([&] {
    http_post(
        url,
        R"({"model":"tokbench-mock","prompt":"x","max_tokens":3,"ignore_eos":true,"stream":true})",
        "x-request-id: streamed");
  });
  // The second is sent once the first holds the only place in the batch (a sleep here raced on a
  // loaded machine); /metrics is answered outside the batch and its running gauge rises at
  // admission.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool admitted = false;
  while (!admitted && std::chrono::steady_clock::now() < deadline) {
    admitted = net::http_get(base + "/metrics", {}, "", 5000)
                   .body.find("vllm:num_requests_running{model_name=\"tokbench-mock\"} 1") !=
               std::string::npos;
    if (!admitted) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!admitted) first.join();
  ASSERT_TRUE(admitted) << "the first request was never admitted";
  http_post(url, R"({"model":"tokbench-mock","prompt":"x","max_tokens":4,"ignore_eos":true})",
            "x-request-id: queued");
  first.join();
  // Two requests on one kept-alive connection.
  CURL* e = curl_easy_init();
  curl_slist* h = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS,
                   R"({"model":"tokbench-mock","prompt":"x","max_tokens":1})");
  curl_easy_setopt(
      e, CURLOPT_WRITEFUNCTION, +[](char*, size_t sz, size_t n, void*) { return sz * n; });
  ASSERT_EQ(curl_easy_perform(e), CURLE_OK);
  ASSERT_EQ(curl_easy_perform(e), CURLE_OK);
  curl_slist_free_all(h);
  curl_easy_cleanup(e);
  server.stop();

  std::map<std::string, simdjson::dom::element> by_id;
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u);
  std::vector<simdjson::dom::parser> parsers(lines.size());
  std::vector<int64_t> kept_alive_conns, kept_alive_requests;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto t = parsers[i].parse(lines[i]).value();
    const int64_t arrival = t["arrival_ns"].get_int64(), admitted = t["admitted_ns"].get_int64();
    const int64_t first_token = t["first_token_ns"].get_int64();
    const auto writes = t["t_ns"].get_array().value();
    ASSERT_GT(writes.size(), 0u);
    EXPECT_LE(t["conn_accepted_ns"].get_int64().value(), arrival);
    // The kernel's receive time: before this process read the request, and not long before.
    int64_t received = 0;
    ASSERT_EQ(t["received_ns"].get(received), simdjson::SUCCESS)
        << "no kernel receive time: " << lines[i];
    EXPECT_LE(received, arrival);
    EXPECT_GT(received, arrival - 1'000'000'000);
    EXPECT_LE(arrival, admitted);
    EXPECT_GE(first_token - admitted, 100'000'000) << "a timer never fires early";
    EXPECT_LE(first_token, (*writes.begin()).get_int64().value());
    std::string id(t["id"].get_string().value());
    if (id == "cmpl-streamed" ||
        id == "cmpl-queued") {  // vLLM's naming: the API's prefix, the client's id
      id.erase(0, 5);
      by_id.emplace(id, t);
    } else {
      kept_alive_conns.push_back(t["conn_accepted_ns"].get_int64());
      kept_alive_requests.push_back(t["conn_request"].get_int64());
    }
  }
  ASSERT_EQ(by_id.size(), 2u);
  const auto streamed = by_id.at("streamed"), queued = by_id.at("queued");
  EXPECT_TRUE(streamed["stream"].get_bool().value());
  EXPECT_EQ(std::string(streamed["kinds"].get_string().value()), "CCCD");
  EXPECT_FALSE(queued["stream"].get_bool().value());
  EXPECT_EQ(std::string(queued["kinds"].get_string().value()),
            "B");  // the whole body, with its tokens
  EXPECT_EQ((*queued["tokens"].get_array().begin()).get_int64().value(), 4);
  // Queued behind the first request: admitted only when it ended, well after arriving.
  int64_t streamed_end = 0;
  for (auto w : streamed["t_ns"].get_array()) streamed_end = w.get_int64();
  EXPECT_GE(queued["admitted_ns"].get_int64().value(), streamed_end);
  EXPECT_LT(queued["arrival_ns"].get_int64().value(), streamed_end)
      << "it arrived while the first ran";
  ASSERT_EQ(kept_alive_conns.size(), 2u);
  EXPECT_EQ(kept_alive_conns[0], kept_alive_conns[1]);
  std::sort(kept_alive_requests.begin(), kept_alive_requests.end());
  EXPECT_EQ(kept_alive_requests, (std::vector<int64_t>{1, 2}));
  std::filesystem::remove(path);
}

TEST(MockSettingsTest, ValidateNamesEveryBadFlag) {
  MockSettings s;
  s.tpot_ms = -1;
  s.tokens_per_chunk = 0;
  s.eos_min_tokens = 10;
  s.eos_max_tokens = 5;
  const auto errs = s.validate();
  ASSERT_EQ(errs.size(), 3u);
  EXPECT_NE(errs[0].find("--tpot-ms"), std::string::npos);
  EXPECT_NE(errs[1].find("--tokens-per-chunk"), std::string::npos);
  EXPECT_NE(errs[2].find("--eos-min-tokens"), std::string::npos);
}

TEST(MockFaults, SeededShareAndKinds) {
  MockSettings s;
  s.fault_rate = 0.3;
  int faults = 0;
  for (uint64_t n = 1; n <= 2000; ++n) {
    const Fault f = choose_fault(s, n);
    faults += f != Fault::None;
    EXPECT_EQ(choose_fault(s, n), f);  // repeatable
  }
  EXPECT_NEAR(faults / 2000.0, 0.3, 0.05);
  s.fault_kinds = "stall";
  s.fault_rate = 1;
  EXPECT_EQ(choose_fault(s, 7), Fault::Stall);
  EXPECT_THROW(parse_fault_kinds("500,bogus"), std::invalid_argument);
  s.fault_kinds = "bogus";
  EXPECT_FALSE(s.validate().empty());
}

// /metrics observes when the simulator's steps really happened, not their plan: a simulator
// that runs late (here: stopped for 400 ms mid-answer) shows it in its own histograms, as a real
// server's would. Planned, the 30 steps of 10 ms would sum to 0.3 s whatever happened; really,
// the answer ends ~480 ms after it began (stopped from 80 ms to 480 ms, the rest overdue).
TEST(MockMetricsTruth, HistogramsObserveRealNotPlannedTimes) {
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "10"});
  std::thread request([&] {
    const auto r = http_post(
        sim.url(), R"({"model":"tokbench-mock","stream":true,"max_tokens":31,"ignore_eos":true,)"
                   R"("messages":[{"role":"user","content":"hi"}]})");
    EXPECT_EQ(r.status, 200);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  sim.signal(SIGSTOP);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  sim.signal(SIGCONT);
  request.join();
  const auto metrics = net::http_get(sim.url("/metrics"), {}, "", 5000);
  ASSERT_EQ(metrics.status, 200);
  auto value = [&](const std::string& name) {
    const size_t at = metrics.body.find("\n" + name + "{");
    if (at == std::string::npos) return -1.0;
    return std::stod(metrics.body.substr(metrics.body.find("} ", at) + 2));
  };
  EXPECT_DOUBLE_EQ(value("vllm:time_per_output_token_seconds_count"), 30);
  EXPECT_GE(value("vllm:time_per_output_token_seconds_sum"), 0.4) << metrics.body;  // planned: 0.3
  EXPECT_GE(value("vllm:e2e_request_latency_seconds_sum"), 0.4);
}

// Out of descriptors, the simulator keeps its listener: 1,500 connections against `ulimit -n
// 1024` (accept fails with EMFILE past it), then every one closed, and /health answers. It used
// to stop accepting for good at the first error while the process lived on.
TEST(MockServerLimits, KeepsAcceptingAfterRunningOutOfDescriptors) {
  rlimit lim{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);
  ASSERT_GE(lim.rlim_max, 1600u) << "this test opens 1,500 connections: raise the hard `ulimit -n`";
  lim.rlim_cur = lim.rlim_max;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lim), 0);
  testing::Child sim({"/bin/sh", "-c",
                      std::string("ulimit -n 1024 && exec ") + TOKBENCH_BINARY +
                          " serve-mock --port 0 --ttft-ms 1 --tpot-ms 1"});
  std::smatch m;
  const std::string out = sim.read_until("\n", std::chrono::seconds(10));
  ASSERT_TRUE(std::regex_search(out, m, std::regex("listening on http://127\\.0\\.0\\.1:(\\d+)")))
      << out;
  const int port = std::stoi(m[1]);
  // One answered request and one connection closed unused first. Out of descriptors,
  // UndefinedBehaviorSanitizer cannot check a dynamic type it has not seen (its memory probe
  // needs a pipe) and ends the process at the first end-of-stream error; a real out-of-descriptors
  // server has seen one long before. Without sanitizers this changes nothing.
  ASSERT_EQ(
      net::http_get("http://127.0.0.1:" + std::to_string(port) + "/health", {}, "", 10000).status,
      200);
  close(connect_loopback(port));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::vector<int> fds;
  for (int i = 0; i < 1500; ++i) {
    const int fd = connect_loopback(port);
    ASSERT_GE(fd, 0) << i;  // the kernel's backlog takes it
    fds.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (int fd : fds) close(fd);
  const auto health =
      net::http_get("http://127.0.0.1:" + std::to_string(port) + "/health", {}, "", 10000);
  EXPECT_EQ(health.status, 200) << health.error;
  EXPECT_NE(sim.read_until("retrying every 10 ms", std::chrono::seconds(2))
                .find("cannot accept a connection"),
            std::string::npos);
}

// A 64 MB prompt (with the prefix cache on) costs the simulator about three times its size: the
// body, its parse, the rendered prompt. It used to cost seven (a padded copy for the parser, the
// turns, the rendering's temporaries, an array of cache units twice the prompt's size).
TEST(MockServerLimits, LargePromptCostsAboutThreeTimesItsSize) {
  testing::Child sim({TOKBENCH_BINARY, "serve-mock", "--port", "0", "--ttft-ms", "1", "--tpot-ms",
                      "1", "--enable-prefix-caching", "--max-model-len", "1000000000"});
  std::smatch m;
  const std::string out = sim.read_until("\n", std::chrono::seconds(10));
  ASSERT_TRUE(std::regex_search(out, m, std::regex("listening on http://127\\.0\\.0\\.1:(\\d+)")))
      << out;
  auto hwm_mib = [&] {
    std::ifstream status("/proc/" + std::to_string(sim.pid()) + "/status");
    for (std::string l; std::getline(status, l);)
      if (l.rfind("VmHWM:", 0) == 0) return std::stod(l.substr(6)) / 1024;
    return -1.0;
  };
  const double before = hwm_mib();
  constexpr size_t kPrompt = 64u << 20;
  const std::string body =
      R"({"model":"tokbench-mock","max_tokens":2,"messages":[{"role":"user","content":")" +
      std::string(kPrompt, 'x') + "\"}]}";
  const auto r = net::http_post("http://127.0.0.1:" + std::string(m[1]) + "/v1/chat/completions",
                                body, {}, "", 60000);
  ASSERT_EQ(r.status, 200) << r.error << r.body.substr(0, 300);
  EXPECT_NE(r.body.find("\"prompt_tokens\":16777"), std::string::npos)
      << r.body.substr(0, 400);  // 64 MiB / 4 + template
  const double grown = hwm_mib() - before;
#if defined(__SANITIZE_ADDRESS__)
  constexpr double kTimes = 5.0;  // AddressSanitizer's shadow and quarantine on top
#else
  constexpr double kTimes = 4.0;
#endif
  EXPECT_LT(grown, kTimes * 64) << "peak resident MiB grown for a 64 MiB prompt";
}

}  // namespace
}  // namespace tokbench::mock
