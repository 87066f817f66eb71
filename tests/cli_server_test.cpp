// cli/ + runner/: the server beside the run, through the real binaries over loopback — its
// /metrics read (vLLM's and SGLang's names) and cross-checked, foreign expositions left alone,
// usage it cannot have sent, a server tokbench starts, waits for, stops and reads the log of
// (--server-cmd, --deploy-sh), and the profile window.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "net/http_get.hpp"
#include "support/canned_server.hpp"
#include "support/cli_fixture.hpp"
#include "support/process.hpp"
#include "support/sim_process.hpp"

namespace tokbench::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class CliTest : public CliFixture {};
// An SGLang-shaped server: three tokens a request, and /metrics counting `counted` per request
// served (3: the truth; more: a server whose counters disagree with what it sent).
std::function<std::string(const std::string&)> sglang_like(std::atomic<int>& served, int counted) {
  return [&served, counted](const std::string& path) {
    if (path == "/v1/models")
      return CannedServer::http(200, "application/json", R"({"data":[{"id":"sg"}]})");
    if (path == "/metrics") {
      return CannedServer::http(
          200, "text/plain",
          "# TYPE sglang:generation_tokens_total counter\n"
          "sglang:generation_tokens_total{model_name=\"sg\"} " +
              std::to_string(counted * served.load()) +
              "\nsglang:num_running_reqs{model_name=\"sg\"} 0\nsglang:num_queue_reqs 0\n");
    }
    ++served;
    std::string sse =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
    for (const char* t : {"a", "b", "c"})
      sse += std::string("data: {\"choices\":[{\"delta\":{\"content\":\"") + t + "\"}}]}\n\n";
    sse +=
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":3}}\n\ndata: "
        "[DONE]\n\n";
    return sse;
  };
}

// An SGLang-shaped server (sglang:* metric names): its counters are read with SGLang's names and
// agree with the client; wave 1 read only vLLM's names and called every such run INVALID
// ("output tokens client 36 vs server 0").
TEST_F(CliTest, SglangMetricsAreReadAndAgree) {
  std::atomic<int> served{0};
  CannedServer srv(sglang_like(served, 3), 200);
  const auto rd = run({"--url", srv.url("/v1/chat/completions"), "--num-prompts", "12",
                       "--max-tokens", "3", "--scrape-interval-ms", "100"});
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  EXPECT_EQ(std::string_view(r["server"]["dialect"]), "sglang");
  EXPECT_EQ(r["server"]["generation_tokens"].get_double().value(), 36);
  std::set<std::string>
      checked;  // a loop over no cross-check at all would pass: name the ones that must run
  for (auto c : simdjson::dom::array(r["server"]["cross_check"])) {
    checked.insert(std::string(std::string_view(c["what"])));
    EXPECT_TRUE(c["agree"].get_bool().value()) << std::string_view(c["what"]);
  }
  EXPECT_TRUE(checked.count("output tokens")) << slurp(rd / "server.json");
  EXPECT_EQ(std::string_view(r["verdict"]["status"]), "VALID")
      << slurp(rd / "result.json").substr(0, 600);
}

// Issue 41: error bodies that are not UTF-8 — a Latin-1 502 page, a MindIE-style Chinese JSON
// error over 1 KiB (its excerpt cut inside a character), random bytes — leave a readable run
// folder: every details line parses, result.json is written, and `report` reads it, on both
// transports. (One such byte lost the whole run: the details reader refused its own file.)
TEST_F(CliTest, ErrorBodiesThatAreNotUtf8LoseNothing) {
  std::atomic<int> n{0};
  std::string cjk = "{\"error\":\"";
  while (cjk.size() < 1100)
    cjk += "\xe6\xa8\xa1\xe5\x9e\x8b\xe5\x8a\xa0\xe8\xbd\xbd\xe4\xb8\xad";  // 模型加载中
  cjk += "\"}";
  std::string noise(300, '\0');
  for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>((i * 151 + 7) & 0xFF);
  CannedServer srv(
      [&](const std::string& path) {
        if (path == "/v1/models")
          return CannedServer::http(200, "application/json", R"({"data":[{"id":"m"}]})");
        if (path == "/metrics") return CannedServer::http(404, "text/plain", "none");
        switch (n++ % 3) {
          case 0:
            return CannedServer::http(502, "text/html; charset=iso-8859-1",
                                      "<html>Passerelle erron\xe9"
                                      "e</html>");
          case 1:
            return CannedServer::http(503, "application/json", cjk);
          default:
            return CannedServer::http(500, "application/octet-stream", noise);
        }
      },
      200);
  for (const char* transport : {"sockets", "libcurl"}) {
    const fs::path rd = run({"--url", srv.url("/v1/chat/completions"), "--num-prompts", "6",
                             "--concurrency", "1", "--max-tokens", "4", "--transport", transport},
                            kExitFailed);
    ASSERT_FALSE(rd.empty()) << transport << "\n" << last_.output;
    auto r = result(rd);  // written, and valid JSON
    EXPECT_EQ(common(r, "failed_requests"), 6) << transport;
    const fs::path failed = rd / "performances/m/builtin_failed.jsonl";
    EXPECT_EQ(count_lines(failed), 6u) << transport;
    simdjson::dom::parser p;
    std::ifstream in(failed);
    for (std::string line; std::getline(in, line);) {
      simdjson::dom::element doc;
      ASSERT_FALSE(p.parse(line).get(doc)) << transport << ": " << line;
    }
    EXPECT_NE(slurp(failed).find("Passerelle erron\xef\xbf\xbd"
                                 "e"),
              std::string::npos)
        << "the Latin-1 byte as U+FFFD";
    const Result again = run_tokbench({"report", rd.string()});
    EXPECT_EQ(again.code, kExitFailed) << again.output;
    EXPECT_NE(again.output.find("6 of 6 requests failed"), std::string::npos) << again.output;
  }
}

// A server whose counters disagree with the client (it counts twice the tokens): the summary's
// server line says DISAGREES with both numbers, and the verdict says why it is INVALID.
TEST_F(CliTest, ServerDisagreementIsNamedOnTheSummary) {
  std::atomic<int> served{0};
  CannedServer srv(sglang_like(served, 6), 200);  // it counts 6 tokens where it sent 3
  run({"--url", srv.url("/v1/chat/completions"), "--num-prompts", "12", "--max-tokens", "3",
       "--scrape-interval-ms", "100"},
      4);
  EXPECT_NE(
      last_.output.find(
          "server (sglang /metrics): DISAGREES on output tokens client 36.000 vs server 72.000"),
      std::string::npos)
      << last_.output;
  EXPECT_NE(last_.output.find("verdict: INVALID"), std::string::npos) << last_.output;
}

// A server that claims 4,294,967,295 completion tokens over 3 chunks with max_tokens 256: INVALID,
// named, never 4.9e12 tokens/s called VALID.
TEST_F(CliTest, ImplausibleUsageIsInvalid) {
  CannedServer srv(
      [&](const std::string& path) {
        if (path == "/v1/models")
          return CannedServer::http(200, "application/json", R"({"data":[{"id":"m"}]})");
        if (path == "/metrics") return CannedServer::http(404, "text/plain", "no");
        std::string sse =
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
        for (const char* t : {"a", "b", "c"})
          sse += std::string("data: {\"choices\":[{\"delta\":{\"content\":\"") + t + "\"}}]}\n\n";
        sse +=
            "data: "
            "{\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":4294967295}}"
            "\n\ndata: [DONE]\n\n";
        return sse;
      },
      200);
  const auto rd = run(
      {"--url", srv.url("/v1/chat/completions"), "--num-prompts", "12", "--max-tokens", "256"}, 4);
  ASSERT_FALSE(rd.empty());
  const std::string reasons = slurp(rd / "result.json");
  EXPECT_NE(
      reasons.find("12 request(s) report more completion tokens in usage than max_tokens allows"),
      std::string::npos)
      << reasons.substr(0, 2000);
}

// A gateway whose /metrics is neither vLLM's nor SGLang's: "not scraped", never "disagrees".
TEST_F(CliTest, ForeignMetricsAreNotScrapedNotMisjudged) {
  CannedServer srv(
      [&](const std::string& path) {
        if (path == "/v1/models")
          return CannedServer::http(200, "application/json", R"({"data":[{"id":"gw"}]})");
        if (path == "/metrics")
          return CannedServer::http(200, "text/plain", "gateway_requests_total 7\n");
        return CannedServer::http(
            200, "text/event-stream",
            "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n"
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1}}\n\n"
            "data: [DONE]\n\n");
      },
      200);
  const auto rd =
      run({"--url", srv.url("/v1/chat/completions"), "--num-prompts", "12", "--max-tokens", "1"});
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  EXPECT_TRUE(r["server"].is_null());
  EXPECT_TRUE(FolderValidUnlessBusy(rd)) << slurp(rd / "result.json").substr(0, 600);
  EXPECT_NE(slurp(rd / "logs/run.log").find("none of the metric names tokbench reads (vllm:*"),
            std::string::npos);
}

TEST_F(CliTest, ServerMetricsAreScrapedAndCrossChecked) {
  Sim sim({"--ttft-ms", "20", "--tpot-ms", "5", "--spec-tokens", "3", "--spec-acceptance", "0.7",
           "--max-num-seqs", "2"});
  const auto rd = run({"--url", sim.url(), "--num-prompts", "8", "--concurrency", "4",
                       "--max-tokens", "64", "--ignore-eos", "--scrape-interval-ms", "100"},
                      0);
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  auto s = r["server"];
  ASSERT_TRUE(s.is_object()) << slurp(rd / "result.json").substr(0, 500);
  EXPECT_EQ(s["ttft_ms"]["n"].get_int64().value(), 8);
  EXPECT_GT(s["queue_ms"]["mean"].get_double().value(), 10);  // 4 in flight, 2 admitted at a time
  EXPECT_EQ(s["generation_tokens"].get_double().value(), 8 * 64);
  EXPECT_NEAR(s["spec_mean_acceptance_length"].get_double().value(), 2.5, 0.4);
  // Per draft position: each needs the ones before it, so acceptance falls (0.7, 0.49, 0.34).
  const simdjson::dom::array per = s["spec_acceptance_per_position"].get_array();
  ASSERT_EQ(per.size(), 3u);
  EXPECT_NEAR(per.at(0).get_double().value(), 0.7, 0.15);
  EXPECT_GT(per.at(0).get_double().value(), per.at(2).get_double().value());
  // The simulator's KV cache: 1/256 a running request, at most 2 running.
  EXPECT_LE(s["kv_cache_usage"]["max"].get_double().value(), 2.0 / 256 + 1e-12);
  EXPECT_GT(s["kv_cache_usage"]["max"].get_double().value(), 0);
  EXPECT_EQ(s["preemptions"].get_double().value(), 0);
  EXPECT_GE(s["scrapes"].get_int64().value(), 3);
  std::set<std::string> checked;
  for (auto c : simdjson::dom::array(s["cross_check"])) {
    checked.insert(std::string(std::string_view(c["what"])));
    EXPECT_TRUE(c["agree"].get_bool().value()) << std::string_view(c["what"]);
  }
  EXPECT_EQ(checked, (std::set<std::string>{"output tokens", "TPOT (ms)", "TTFT (ms)",
                                            "requests in flight (peak)"}));  // every check ran
  EXPECT_TRUE(fs::exists(rd / "server.json"));
  EXPECT_NE(last_.output.find("speculative decoding: mean acceptance length 2."), std::string::npos)
      << last_.output;
  EXPECT_NE(last_.output.find("; KV cache up to 0.78"), std::string::npos) << last_.output;
  // Scraped only before and after a short run: the cache was never seen in use, and the line
  // says so rather than "up to 0.000%".
  run({"--url", sim.url(), "--num-prompts", "1", "--max-tokens", "4", "--scrape-interval-ms",
       "60000"});
  EXPECT_EQ(last_.output.find("KV cache up to"), std::string::npos) << last_.output;
  EXPECT_NE(last_.output.find("KV cache not seen under load (none of its 2 scrape(s) fell while "
                              "requests ran: lower --scrape-interval-ms or run longer)"),
            std::string::npos)
      << last_.output;
  // --server-metrics off: nothing scraped.
  const auto off = run(
      {"--url", sim.url(), "--num-prompts", "1", "--max-tokens", "4", "--server-metrics", "off"},
      0);
  EXPECT_TRUE(result(off)["server"].is_null());
  // A bad explicit URL warns and the run goes on.
  run({"--url", sim.url(), "--num-prompts", "1", "--max-tokens", "4", "--server-metrics",
       "http://127.0.0.1:1/metrics"},
      0);
  EXPECT_NE(last_.output.find("warning: cannot scrape --server-metrics"), std::string::npos);
}

TEST_F(CliTest, ServerLifecycleStartsWaitsStopsAndReadsTheLog) {
  const std::string port = std::to_string(unused_loopback_port());
  const std::string url = "http://127.0.0.1:" + port + "/v1/chat/completions";
  // The server echoes its secret flag (as vLLM prints its non-default arguments), and the key
  // tokbench sends: both are hidden in the log tokbench keeps.
  const std::string cmd =
      "echo 'non-default args: --api-key srv-secret-42 key sk-client-7'; " +
      std::string(TOKBENCH_BINARY) + " serve-mock --port " + port +
      " --ttft-ms 5 --tpot-ms 2 --spec-tokens 3 --log-interval-s 0.1 # --api-key srv-secret-42";
  // ~0.6 s of decoding: several 0.1 s log intervals with speculative steps in them.
  const auto rd = run({"--server-cmd", cmd, "--url", url, "--num-prompts", "8", "--concurrency",
                       "4", "--max-tokens", "400", "--ignore-eos", "--api-key", "sk-client-7"},
                      0);
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  EXPECT_EQ(std::string(r["server_process"]["stopped"].get_string().value())
                .rfind("stopped by SIGTERM (the process group ended ", 0),
            0u);
  EXPECT_GT(r["server_process"]["log_summary"]["throughput_lines"].get_int64().value(), 0);
  EXPECT_GT(r["server_process"]["log_summary"]["spec_lines"].get_int64().value(), 0);
  const std::string server_log = slurp(rd / "logs/server.log");
  EXPECT_NE(server_log.find("listening on"), std::string::npos);
  EXPECT_EQ(server_log.find("srv-secret-42"), std::string::npos) << server_log.substr(0, 300);
  EXPECT_EQ(server_log.find("sk-client-7"), std::string::npos) << server_log.substr(0, 300);
  EXPECT_NE(server_log.find("--api-key ***redacted*** key ***redacted***"), std::string::npos)
      << server_log.substr(0, 300);
  // The server is gone: nothing answers there any more.
  EXPECT_EQ(run_tokbench({"run", "--url", url, "--quiet"}).code, 1);
}

// Issue 41: /bin/sh forks the command and dies on SIGTERM at once; a server still draining under it
// (here a process that takes 1.5 s after SIGTERM) gets --server-stop-grace-s, because the stop
// waits for the process group, not its leader; and the run says how long it took.
TEST_F(CliTest, AServerDrainingOnSigtermGetsItsGrace) {
  const std::string port = std::to_string(unused_loopback_port());
  const fs::path mark = dir_ / "drained";
  const std::string cmd = "sh -c 'trap \"sleep 1.5; echo drained > " + mark.string() +
                          "; exit 0\" TERM; while :; do sleep 0.1; done' & " +
                          std::string(TOKBENCH_BINARY) + " serve-mock --port " + port +
                          " --ttft-ms 1 --tpot-ms 1";
  const auto rd =
      run({"--server-cmd", cmd, "--url", "http://127.0.0.1:" + port + "/v1/chat/completions",
           "--num-prompts", "2", "--max-tokens", "4"});
  ASSERT_FALSE(rd.empty());
  EXPECT_EQ(slurp(mark), "drained\n") << "the draining process was killed before it finished";
  const std::string how(result(rd)["server_process"]["stopped"].get_string().value());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(how, m,
                                std::regex("^stopped by SIGTERM \\(the process group "
                                           "ended ([0-9.]+) s after it\\)$")))
      << how;
  EXPECT_GE(std::stod(m[1].str()), 1.4) << how;
}

// kill -9 of tokbench in the middle of a --server-cmd run: its supervisor stops the server, so
// no orphan holds the port (the next run, or a grid's --resume, would find it answering), and
// neither the supervisor nor the server outlives the run. A group kill (SIGTERM to the test's
// process group, as a CI timeout sends) is the same: the server's own group escapes it.
TEST_F(CliTest, AKilledRunTakesItsServerWithIt) {
  for (const int sig : {SIGKILL, SIGTERM}) {
    const std::string port = std::to_string(unused_loopback_port());
    const std::string url = "http://127.0.0.1:" + port + "/v1/chat/completions";
    testing::Child run(
        {TOKBENCH_BINARY, "run", "--url", url, "--server-cmd",
         std::string(TOKBENCH_BINARY) + " serve-mock --port " + port + " --ttft-ms 5 --tpot-ms 5",
         "--num-prompts", "100000", "--max-tokens", "16", "--output-dir", (dir_ / "o").string()});
    const std::string said = run.read_until("request body", 30s);  // ready, and running
    ASSERT_NE(said.find("request body"), std::string::npos) << said;
    ASSERT_TRUE(net::http_get("http://127.0.0.1:" + port + "/health", {}, "", 2000).reached);
    run.signal(sig);
    run.wait(30s);
    bool gone = false;
    for (int i = 0; i < 150 && !gone; ++i) {  // the grace is 10 s; serve-mock stops on SIGTERM
      gone = !net::http_get("http://127.0.0.1:" + port + "/health", {}, "", 500).reached;
      if (!gone) std::this_thread::sleep_for(100ms);
    }
    EXPECT_TRUE(gone) << "signal " << sig << ": the server still answers on " << port;
  }
}

// --print-config prints no credential: a URL with userinfo or ?api_key=, a server command with a
// secret flag are left out whole and named, like --api-key.
TEST_F(CliTest, PrintConfigLeavesOutEveryCredential) {
  const auto r = run_tokbench(
      {"run", "--print-config", "--url",
       "http://user:pw-5678@127.0.0.1:1/v1/chat/completions?api_key=qk-1234", "--server-cmd",
       "HF_TOKEN=hf-abcd vllm serve m --api-key sv-9876", "--concurrency", "3"});
  EXPECT_TRUE(RanValidUnlessBusy(r, dir_));
  for (const char* secret : {"pw-5678", "qk-1234", "hf-abcd", "sv-9876"})
    EXPECT_EQ(r.output.find(secret), std::string::npos) << secret << "\n" << r.output;
  EXPECT_NE(r.output.find("# not printed (a secret): url (it carries a credential"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("# not printed (a secret): server-cmd (it carries a credential"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("concurrency: 3"), std::string::npos) << r.output;
}

TEST_F(CliTest, ServerLifecycleFailuresShowTheLog) {
  const std::string url =
      "http://127.0.0.1:" + std::to_string(unused_loopback_port()) + "/v1/chat/completions";
  auto r = run_tokbench({"run", "--url", url, "--server-cmd", "echo cuda out of memory; exit 3",
                         "--output-dir", (dir_ / "o").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("exited (status 3) before it was ready"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| cuda out of memory"), std::string::npos) << r.output;
  const auto t0 = std::chrono::steady_clock::now();
  r = run_tokbench({"run", "--url", url, "--server-cmd", "echo loading; sleep 30",
                    "--server-ready-timeout-s", "1", "--output-dir", (dir_ / "o").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("not ready after 1 s"), std::string::npos) << r.output;
  EXPECT_LT(std::chrono::steady_clock::now() - t0,
            20s);  // the sleeping server was stopped, not waited for
  // A server that ignores SIGTERM is killed after the grace period.
  const std::string port = std::to_string(unused_loopback_port());
  const auto rd =
      run({"--url", "http://127.0.0.1:" + port + "/v1/chat/completions", "--server-cmd",
           "trap '' TERM; " + std::string(TOKBENCH_BINARY) + " serve-mock --ttft-ms 1 --port " +
               port + " & while true; do sleep 0.1; done",
           "--server-stop-grace-s", "0.5", "--num-prompts", "2", "--max-tokens", "4"},
          0);
  ASSERT_FALSE(rd.empty());
  EXPECT_EQ(std::string(result(rd)["server_process"]["stopped"].get_string().value())
                .rfind("killed with SIGKILL", 0),
            0u);
}

TEST_F(CliTest, DeployShConvention) {
  // AtomGit: deploy.sh serves $MODEL_PATH on port 8000 under the path as its model name.
  const auto sh = dir_ / "deploy.sh";
  std::ofstream(sh)
      << "exec " << TOKBENCH_BINARY
      << " serve-mock --port 8000 --ttft-ms 2 --tpot-ms 1 --model-name \"$MODEL_PATH\"\n";
  const auto rd = run({"--deploy-sh", sh.string(), "--model-path", "/weights/Demo-7B",
                       "--num-prompts", "3", "--max-tokens", "4"},
                      0);
  ASSERT_FALSE(rd.empty()) << last_.output;
  auto r = result(rd);
  EXPECT_EQ(std::string(r["run"]["model"].get_string().value()), "/weights/Demo-7B");
  EXPECT_EQ(std::string(r["run"]["target_url"].get_string().value()),
            "http://127.0.0.1:8000/v1/chat/completions");
  EXPECT_EQ(common(r, "success_requests"), 3);
  // Port 8000 already taken: the error names --deploy-sh (the flag given), not --server-cmd.
  testing::Child busy({TOKBENCH_BINARY, "serve-mock", "--port", "8000"});
  ASSERT_NE(busy.read_until("listening", std::chrono::seconds(10)).find("listening"),
            std::string::npos)
      << busy.output();
  const auto refused =
      run_tokbench({"run", "--deploy-sh", sh.string(), "--model-path", "/weights/Demo-7B",
                    "--quiet", "--output-dir", (dir_ / "busy").string()});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.output.find("before --deploy-sh started one"), std::string::npos)
      << refused.output;
  EXPECT_EQ(refused.output.find("--server-cmd"), std::string::npos) << refused.output;
  busy.signal(SIGTERM);
  busy.wait();
}

TEST_F(CliTest, ProfileWindowCallsTheServer) {
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "5"});
  const auto rd = run({"--url", sim.url(), "--num-prompts", "8", "--concurrency", "2",
                       "--max-tokens", "40", "--ignore-eos", "--profile-window", "0.1:0.3"},
                      0);
  ASSERT_FALSE(rd.empty());
  auto p = result(rd)["profile"];
  EXPECT_EQ(p["start_status"].get_int64().value(), 200);
  EXPECT_EQ(p["stop_status"].get_int64().value(), 200);
  EXPECT_NEAR(p["stopped_at_s"].get_double().value() - p["started_at_s"].get_double().value(), 0.3,
              0.15);
  EXPECT_EQ(run_tokbench({"run", "--profile-window", "soon"}).code, 2);
}

}  // namespace
}  // namespace tokbench::testing
