// cli/ + runner/: the real binaries over loopback — `serve-mock` in one process, `run` in
// another — checking files, failures, Ctrl-C, `report`, and the errors users see (the client's
// timing against the simulator's trace: accuracy_test; the README's runs: readme_test).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <simdjson.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>

#include "net/http_get.hpp"
#include "support/canned_server.hpp"
#include "support/cli_fixture.hpp"
#include "support/gsm8k_fixture.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/sim_process.hpp"

namespace tokbench::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class CliTest : public CliFixture {};

TEST_F(CliTest, NonStreamingCompletionsShowsNoFakeTtft) {
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "1"});
  const auto rd = run({"--host", "127.0.0.1", "--port", sim.port, "--endpoint", "completions",
                       "--no-stream", "--num-prompts", "6", "--max-tokens", "16", "--ignore-eos"},
                      0);
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  for (const char* row : {"TTFT", "TPOT", "ITL", "PrefillTokenThroughput"}) {
    EXPECT_TRUE(r["metrics"][row]["mean"].is_null()) << row;
    EXPECT_EQ(std::string(r["metrics"][row]["na"].get_string().value()), "non-streaming");
  }
  EXPECT_GT(metric(r, "E2EL", "mean"), 20);
  // The simulator speaks vLLM's /metrics: the server line names that, and no engine line repeats
  // it.
  EXPECT_EQ(r["engine"]["name"].get_string().value(), "vllm");
  EXPECT_NE(last_.output.find("\nserver (vllm /metrics): "), std::string::npos) << last_.output;
  EXPECT_EQ(last_.output.find("\nengine: "), std::string::npos) << last_.output;
  EXPECT_NE(
      slurp(rd / "performances/tokbench-mock/builtin.csv").find("TTFT,total,n/a (non-streaming)"),
      std::string::npos);
  EXPECT_NE(last_.output.find("n/a (non-streaming)"), std::string::npos);
  // The server's own TTFT is the only one without streaming: on the console, its mean exact and
  // its P99 as the histogram bucket it is known to.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      last_.output, m,
      std::regex(R"(its TTFT \(the only one without streaming\) mean ([0-9.]+) ms over 6, P99 )"
                 R"(in its [0-9.]+–[0-9.]+ ms bucket)")))
      << last_.output;
  EXPECT_GE(std::stod(m[1].str()), 4.9) << "the simulator holds each first token 5 ms";
  EXPECT_LT(std::stod(m[1].str()), 1000);
}

TEST_F(CliTest, Gsm8kDatasetAndAisbenchLayout) {
  const fs::path gsm = write_gsm8k_fixture(dir_ / "test.jsonl");
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "1"});
  const auto rd =
      run({"--url", sim.url(), "--dataset", "gsm8k:" + gsm.string(), "--num-prompts", "20",
           "--concurrency", "5", "--max-tokens", "8", "--model-abbr", "vllm-api-stream-chat"});
  ASSERT_FALSE(rd.empty());
  const auto perf = rd / "performances/vllm-api-stream-chat";
  for (const char* f : {"gsm8k.csv", "gsm8k.json", "gsm8k_details.jsonl"})
    EXPECT_TRUE(fs::exists(perf / f)) << f;
  EXPECT_FALSE(fs::exists(perf / "gsm8k_failed.jsonl"));
  EXPECT_TRUE(fs::exists(rd / "configs/run_config.json"));
  EXPECT_TRUE(fs::exists(rd / "logs/run.log"));
  EXPECT_EQ(count_lines(perf / "gsm8k_details.jsonl"), 20u);
  auto csv = slurp(perf / "gsm8k.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "Performance Parameters,Stage,Average,Min,Max,Median,P75,P90,P99,N");
  auto common_json = parser_.load((perf / "gsm8k.json").string());
  EXPECT_EQ(common_json["Total Requests"]["total"].get_int64().value(), 20);
  // Janet's ducks, first GSM8K question, went out as the first request body.
  auto r = result(rd);
  EXPECT_NE(std::string(r["run"]["request_body_example"].get_string().value()).find("Janet"),
            std::string::npos);
  EXPECT_GT(metric(r, "InputTokens", "mean"), 10);
}

TEST_F(CliTest, FailingServerCountsEveryRequest) {
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "1", "--fail-every", "4", "--drop-every", "5"});
  const auto rd = run({"--url", sim.url(), "--num-prompts", "20", "--concurrency", "2",
                       "--max-tokens", "8", "--ignore-eos"},
                      4);
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  const double total = common(r, "total_requests"), ok = common(r, "success_requests"),
               failed = common(r, "failed_requests");
  EXPECT_EQ(total, 20);
  EXPECT_EQ(ok + failed, total);
  EXPECT_GE(failed, 5);
  const auto failed_file = rd / "performances/tokbench-mock/builtin_failed.jsonl";
  EXPECT_EQ(count_lines(failed_file), static_cast<size_t>(failed));
  const auto text = slurp(failed_file);
  EXPECT_NE(text.find("\"outcome\":\"http_status\""), std::string::npos);
  EXPECT_NE(text.find("injected failure"), std::string::npos);
  EXPECT_NE(text.find("\"outcome\":\"stream_protocol\""), std::string::npos);
  EXPECT_EQ(std::string(r["verdict"]["status"].get_string().value()), "INVALID");
}

TEST_F(CliTest, WhenEveryRequestFailsTheConsoleSaysWhyAndNothingThatNeedsASuccess) {
  Sim sim({"--fault-rate", "1", "--fault-kinds", "500"});
  run({"--url", sim.url(), "--num-prompts", "4", "--concurrency", "2", "--max-tokens", "8"},
      kExitFailed);
  const std::string& out = last_.output;
  EXPECT_NE(out.find("requests: 0 of 4 succeeded"), std::string::npos) << out;
  // The status counted, and what the server said, once.
  EXPECT_NE(out.find("4 of 4 requests failed (4 http_status [500 ×4]; the first: HTTP 500: "
                     "{\"error\":{\"message\":\"injected fault (--fault-rate): 500\""),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("HTTP 500: HTTP 500"), std::string::npos) << out;
  for (const char* needs_a_success : {"stable stage:", "server (", "definitions:"})
    EXPECT_EQ(out.find(needs_a_success), std::string::npos) << needs_a_success << "\n" << out;
}

TEST_F(CliTest, CtrlCKeepsFinishedRequestsAndMarksTheRun) {
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "5"});
  Child c({TOKBENCH_BINARY, "run", "--url", sim.url(), "--num-prompts", "100000", "--concurrency",
           "2", "--max-tokens", "20", "--ignore-eos", "--output-dir", (dir_ / "outputs").string(),
           "--quiet"});
  c.read_until("request body:", 10s);
  std::this_thread::sleep_for(1500ms);
  c.signal(SIGINT);
  EXPECT_EQ(c.wait(30s), 130) << c.output();
  std::smatch m;
  const std::string out = c.output();
  ASSERT_TRUE(std::regex_search(out, m, std::regex("results: (\\S+)"))) << out;
  auto r = result(fs::path(m[1].str()));
  EXPECT_TRUE(r["interrupted"].get_bool().value());
  EXPECT_EQ(std::string(r["verdict"]["status"].get_string().value()), "INVALID");
  const double ok = common(r, "success_requests");
  EXPECT_GE(ok, 4);  // ~110 ms per request, 2 at a time, for 1.5 s
  EXPECT_LT(ok, 1000);
  EXPECT_EQ(count_lines(fs::path(m[1].str()) / "performances/tokbench-mock/builtin_details.jsonl"),
            static_cast<size_t>(common(r, "total_requests")));
}

TEST_F(CliTest, ReportRecomputesEveryOutput) {
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "2"});
  const auto rd = run({"--url", sim.url(), "--num-prompts", "10", "--concurrency", "3",
                       "--max-tokens", "12", "--ignore-eos", "--warmup", "2"});
  ASSERT_FALSE(rd.empty());
  const auto perf = rd / "performances/tokbench-mock";
  EXPECT_EQ(count_lines(perf / "builtin_details.jsonl"), 12u);  // 2 warm-up + 10 measured
  const std::string csv_before = slurp(perf / "builtin.csv");
  auto r = result(rd);
  EXPECT_EQ(common(r, "total_requests"), 10);
  const double tpot = metric(r, "TPOT", "mean");
  fs::remove(rd / "result.json");
  fs::remove(perf / "builtin.csv");
  fs::remove(perf / "builtin.json");
  auto rep = run_tokbench({"report", rd.string()});
  EXPECT_TRUE(RanValidUnlessBusy(rep, dir_));
  EXPECT_EQ(slurp(perf / "builtin.csv"), csv_before);
  EXPECT_TRUE(fs::exists(perf / "builtin.json"));
  auto again = result(rd);
  EXPECT_DOUBLE_EQ(metric(again, "TPOT", "mean"), tpot);
  EXPECT_EQ(common(again, "total_requests"), 10);
  // vllm_result.json carries every key vLLM writes: the peak of chunks per second (at least one
  // chunk, at most every generated token) and a null goodput without --goodput.
  {
    simdjson::dom::parser p;
    const auto v = p.load((rd / "vllm_result.json").string()).value();
    const double peak = v["max_output_tokens_per_s"].get_double().value();
    EXPECT_GE(peak, 1);
    EXPECT_LE(peak, common(again, "total_generated_tokens") +
                        10);  // chunks, as vLLM counts: a role chunk each
    EXPECT_TRUE(v["request_goodput"].is_null());
  }
  // The same records under AISBench's definitions: a view beside the run's own outputs, which
  // stay as they were.
  const std::string own = slurp(rd / "result.json");
  rep = run_tokbench({"report", rd.string(), "--compat", "aisbench"});
  EXPECT_TRUE(RanValidUnlessBusy(rep, dir_));
  auto ais = result(rd / "views/aisbench");
  EXPECT_EQ(std::string(ais["definitions"]["set"].get_string().value()).substr(0, 8), "aisbench");
  EXPECT_EQ(std::string_view(ais["view"]["run_definitions"]), "tokbench");
  EXPECT_TRUE(fs::exists(rd / "views/aisbench/builtin.csv"));
  EXPECT_TRUE(fs::exists(rd / "views/aisbench/builtin_plot.html"));
  EXPECT_EQ(slurp(rd / "result.json"), own);
  EXPECT_EQ(slurp(perf / "builtin.csv"), csv_before);
}

// A scheme that does not match the port: https:// to a plain-HTTP server is not a CA problem,
// http:// to a TLS server is not a server that is down; each error says which it is.
TEST_F(CliTest, SchemeMismatchIsNamed) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  auto r = run_tokbench({"run", "--url", "https" + sim.url().substr(4), "--quiet", "--output-dir",
                         (dir_ / "a").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("the server speaks plain HTTP there, not TLS; use an http:// URL"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("--ca-bundle"), std::string::npos) << r.output;
  const std::string dir = (dir_ / "tls").string();
  fs::create_directories(dir);
  const std::string make_cert = "openssl req -x509 -newkey rsa:2048 -nodes -keyout " + dir +
                                "/k.pem -out " + dir +
                                "/c.pem -days 1 -subj /CN=127.0.0.1 >/dev/null 2>&1";
  ASSERT_EQ(std::system(make_cert.c_str()), 0)
      << "needs the openssl command (Debian's openssl package)";
  const std::string port = std::to_string(unused_loopback_port());
  Child tls({"/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:" + port, "-cert",
             dir + "/c.pem", "-key", dir + "/k.pem", "-www", "-quiet"});
  for (int i = 0; i < 100 && !net::http_get("https://127.0.0.1:" + port + "/", {}, "", 500, 1 << 20,
                                            net::TlsSettings{"", "", "", true})
                                  .reached;
       ++i)
    std::this_thread::sleep_for(50ms);  // until it listens (bounded)
  r = run_tokbench({"run", "--url", "http://127.0.0.1:" + port + "/v1/chat/completions", "--quiet",
                    "--output-dir", (dir_ / "b").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("the server speaks TLS there: use an https:// URL"), std::string::npos)
      << r.output;
  tls.signal(SIGTERM);
  tls.wait();
}

// A server that requires a client certificate (mutual TLS) is named as such: not "is it running?",
// not --ca-bundle or --insecure.
TEST_F(CliTest, MutualTlsRefusalIsNamed) {
  const std::string dir = (dir_ / "tls").string();
  fs::create_directories(dir);
  const std::string make_cert =
      "openssl req -x509 -newkey rsa:2048 -nodes -keyout " + dir + "/k.pem -out " + dir +
      "/c.pem -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1";
  ASSERT_EQ(std::system(make_cert.c_str()), 0)
      << "needs the openssl command (Debian's openssl package)";
  const std::string port = std::to_string(unused_loopback_port());
  Child tls({"/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:" + port, "-cert",
             dir + "/c.pem", "-key", dir + "/k.pem", "-www", "-quiet", "-Verify", "1", "-CAfile",
             dir + "/c.pem"});
  // Until it listens (bounded): a TCP connect, since every handshake without a certificate fails.
  for (int i = 0;
       i < 100 &&
       std::system(("bash -c '</dev/tcp/127.0.0.1/" + port + "' 2>/dev/null").c_str()) != 0;
       ++i)
    std::this_thread::sleep_for(50ms);
  const auto r = run_tokbench({"run", "--url", "https://127.0.0.1:" + port + "/v1/chat/completions",
                               "--ca-bundle", dir + "/c.pem", "--quiet", "--output-dir",
                               (dir_ / "o").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(
      r.output.find(
          "the server asks for a client certificate (mutual TLS): pass --cert FILE and --key FILE"),
      std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("is it running?"), std::string::npos) << r.output;
  tls.signal(SIGTERM);
  tls.wait();
}

// An OpenAI client's base URL (…/v1) is taken as the server, completed with the chat API, and
// the console says so.
TEST_F(CliTest, BaseUrlIsCompletedAndSaid) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  const std::string base = sim.url().substr(0, sim.url().find("/v1")) + "/v1";
  const auto rd = run({"--url", base, "--num-prompts", "4", "--max-tokens", "2"}, 0);
  ASSERT_FALSE(rd.empty());
  EXPECT_NE(
      last_.output.find("note: --url " + base + " names the server, not an API: requests go to " +
                        sim.url() + " (the chat API"),
      std::string::npos)
      << last_.output;
  EXPECT_EQ(common(result(rd), "success_requests"), 4);
}

// `report` on a sweep's root recomputes every point and rebuilds sweep/ from them: the same summary
// and exit code as the sweep itself.
TEST_F(CliTest, ReportRebuildsASweepRoot) {
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  const fs::path out = dir_ / "sweep_out";
  auto r = run_tokbench({"run", "--url", sim.url(), "--concurrency", "1,2", "--num-prompts", "6",
                         "--max-tokens", "4", "--quiet", "--output-dir", out.string()});
  ASSERT_TRUE(RanValidUnlessBusy(r, dir_));
  // --quiet in a series (as by default): one line a point, with its figures, and the summary,
  // not each point's tables.
  EXPECT_TRUE(
      std::regex_search(r.output, std::regex("c1: [A-Z]+  6 of 6 ok, [0-9.]+ req/s, output "
                                             "[0-9.]+ token/s, TTFT P99 [0-9.]+ ms, TPOT "
                                             "P99 [0-9.]+ ms[^\n]*\nc2: [A-Z]+  6 of 6 ok")))
      << r.output;
  EXPECT_NE(r.output.find("sweep over concurrency (2 point(s))"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Performance Parameters"), std::string::npos) << r.output;
  EXPECT_LT(std::count(r.output.begin(), r.output.end(), '\n'), 20) << r.output;
  const fs::path root = fs::directory_iterator(out)->path();
  const std::string csv = slurp(root / "sweep/summary.csv");
  ASSERT_FALSE(csv.empty());
  fs::remove(root / "sweep/summary.csv");
  fs::remove(root / "sweep/sweep.html");
  fs::remove(root / "c2/result.json");
  r = run_tokbench({"report", root.string()});
  EXPECT_TRUE(RanValidUnlessBusy(r, dir_));
  EXPECT_EQ(slurp(root / "sweep/summary.csv"), csv);
  EXPECT_TRUE(fs::exists(root / "sweep/sweep.html"));
  EXPECT_TRUE(fs::exists(root / "c2/result.json"));  // each point recomputed too
  r = run_tokbench({"report", root.string(), "--compat", "vllm"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("give one point's folder"), std::string::npos) << r.output;
}

// `report` on a search's root replays the search over its recomputed probes and rewrites search/
// exactly; on a repeats' root it rebuilds the intervals from the recomputed runs. A replay that
// needs a probe that never ran says so and gives no answer.
TEST_F(CliTest, ReportRebuildsASearchAndARepeatsRoot) {
  // 10 ms a token: at 1 ms a busy machine bunched the chunks (client TPOT 0.47 ms against the
  // server's 0.99), the /metrics cross-check failed probe c4 and the answer read 3.
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "10"});
  const fs::path out = dir_ / "search_out";
  auto r = run_tokbench({"run", "--url", sim.url(), "--search", "max-concurrency", "--slo",
                         "e2el.p99<=10s", "--search-max", "4", "--num-prompts", "6", "--max-tokens",
                         "4", "--quiet", "--output-dir", out.string()});
  ASSERT_TRUE(RanValidUnlessBusy(r, dir_));
  // A line a probe, its pass or fail and SLO value in place of the P99s, and no table repeating
  // them (a search of ~18 probes stays one screen).
  for (const char* probe : {"c1", "c2", "c4"})
    EXPECT_TRUE(std::regex_search(
        r.output, std::regex(std::string("(^|\n)") + probe +
                             ": (VALID  pass|INVALID  fail)  6 of 6 ok, [^\n]*, e2el\\.p99 "
                             "[0-9.]+ ms[;\n]")))
        << r.output;
  EXPECT_EQ(r.output.find("TTFT P99"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" (3 probe(s))\n"), std::string::npos) << r.output;
  EXPECT_FALSE(std::regex_search(r.output, std::regex("\n  c4 +(pass|fail)"))) << r.output;
  const fs::path root = fs::directory_iterator(out)->path();
  const std::string json = slurp(root / "search/search.json");
  ASSERT_NE(json.find("\"answer\":4"), std::string::npos) << json;
  fs::remove(root / "search/search.html");
  fs::remove(root / "c2/result.json");
  r = run_tokbench({"report", root.string()});
  EXPECT_TRUE(RanValidUnlessBusy(r, dir_));
  // `report` prints no probe lines: the table says each probe.
  EXPECT_TRUE(std::regex_search(r.output, std::regex("\n  c4 +pass +e2el\\.p99<=10000ms: ")))
      << r.output;
  EXPECT_EQ(slurp(root / "search/search.json"), json);
  EXPECT_TRUE(fs::exists(root / "search/search.html"));
  EXPECT_TRUE(fs::exists(root / "c2/result.json"));  // each probe recomputed
  // A history whose probe at 4 is gone: the replay would need it.
  std::string edited = json;
  const size_t at = edited.find("\"load\":4,");
  ASSERT_NE(at, std::string::npos) << json;
  edited.replace(at, 9, "\"load\":5,");
  { std::ofstream(root / "search/search.json") << edited; }
  r = run_tokbench({"report", root.string()});
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("lead the search to concurrency 4, which never ran"), std::string::npos)
      << r.output;
  EXPECT_NE(slurp(root / "search/search.json").find("\"answer\":null"), std::string::npos);

  const fs::path rep_out = dir_ / "repeats_out";
  r = run_tokbench({"run", "--url", sim.url(), "--repeats", "3", "--num-prompts", "6",
                    "--max-tokens", "4", "--quiet", "--output-dir", rep_out.string()});
  ASSERT_TRUE(RanValidUnlessBusy(r, dir_));
  const fs::path rep_root = fs::directory_iterator(rep_out)->path();
  const std::string summary = slurp(rep_root / "repeats/summary.json"),
                    csv = slurp(rep_root / "repeats/summary.csv");
  fs::remove(rep_root / "repeats/summary.csv");
  r = run_tokbench({"report", rep_root.string()});
  EXPECT_TRUE(RanValidUnlessBusy(r, dir_));
  EXPECT_EQ(slurp(rep_root / "repeats/summary.csv"), csv);
  EXPECT_EQ(slurp(rep_root / "repeats/summary.json"), summary);
  EXPECT_EQ(run_tokbench({"report", rep_root.string(), "--compat", "vllm"}).code, 2);
}

TEST_F(CliTest, EmbeddedSimulatorIsTheDefaultTarget) {
  const auto rd = run({"--num-prompts", "4", "--max-tokens", "8", "--api-key", "s3cret-key",
                       "--header", "Authorization: Bearer other-secret"},
                      0);
  ASSERT_FALSE(rd.empty());
  EXPECT_NE(last_.output.find("started the built-in simulator"), std::string::npos);
  EXPECT_NE(last_.output.find("│ TTFT (ms) │"), std::string::npos) << last_.output;
  EXPECT_NE(last_.output.find("requests: 4 of 4 succeeded"), std::string::npos) << last_.output;
  auto r = result(rd);
  EXPECT_TRUE(r["run"]["embedded_simulator"].get_bool().value());
  const auto cfg = slurp(rd / "configs/run_config.json");
  EXPECT_EQ(cfg.find("s3cret-key"), std::string::npos);
  EXPECT_EQ(cfg.find("other-secret"), std::string::npos);
  EXPECT_EQ(slurp(rd / "result.json").find("s3cret-key"), std::string::npos);
}

// The transport is chosen from the URL (plain sockets for http:// without a proxy), said in the
// log and result.json, and can be forced; sockets for an https:// URL are refused with the fix.
// The default console is one screen: the latency table, a line each for throughput, the stable
// stage, the server and the peers, the verdict last; --verbose prints every table; no table is
// wider than 120 columns either way.
TEST_F(CliTest, ConsoleIsOneScreenUnlessVerbose) {
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "2"});
  auto width = [](const std::string& line) {
    return std::count_if(line.begin(), line.end(),
                         [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
  };
  auto check_tables = [&](const std::string& out) {
    std::istringstream in(out);
    int table_lines = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("│", 0) != 0 && line.rfind("╒", 0) != 0) continue;
      ++table_lines;
      EXPECT_LE(width(line), 120) << line;
    }
    return table_lines;
  };
  const std::vector<std::string> args{"--url",         sim.url(), "--num-prompts", "20",
                                      "--concurrency", "4",       "--max-tokens",  "16"};
  const auto rd = run(args);
  ASSERT_FALSE(rd.empty());
  const std::string& out = last_.output;
  EXPECT_LE(std::count(out.begin(), out.end(), '\n'), 30) << out;
  EXPECT_GT(check_tables(out), 4);
  for (const char* line :
       {"│ TTFT (ms) │", "│ TPOT (ms) │", "│ E2EL (ms) │", "requests: 20 of 20 succeeded",
        "stable stage: ", "server (vllm /metrics): agrees with the client on output tokens",
        "definitions: ", "every table on the console: tokbench report"})
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n" << out;
  EXPECT_EQ(out.find("Common Metric"), std::string::npos) << out;
  // The verdict and its warnings come after every figure.
  const size_t verdict = out.find("verdict: VALID\n");
  ASSERT_NE(verdict, std::string::npos) << out;
  EXPECT_LT(out.find("definitions: "), verdict);
  EXPECT_GT(out.find("warning: 20 successful requests"), verdict);

  auto verbose = args;
  verbose.push_back("--verbose");
  run(verbose);
  const std::string& full = last_.output;
  for (const char* table : {"│ Performance Parameters ", "│ Performance Parameters (stable) ",
                            "│ Common Metric ", "│ Definitions side by side ", "│ Server-side ",
                            "│ Cross-check ", "note: no temperature is sent"})
    EXPECT_NE(full.find(table), std::string::npos) << table << "\n" << full;
  EXPECT_GT(check_tables(full), 60);
  // `report` prints the same summary from the folder, and every table with --verbose.
  const auto rep = run_tokbench({"report", rd.string()});
  EXPECT_NE(rep.output.find("│ TTFT (ms) │"), std::string::npos) << rep.output;
  EXPECT_EQ(rep.output.find("│ Common Metric "), std::string::npos) << rep.output;
  EXPECT_NE(run_tokbench({"report", rd.string(), "--verbose"}).output.find("│ Common Metric "),
            std::string::npos);
}

// tokbench raises its soft descriptor limit to the hard one: 100 streams under a soft limit of 64
// (each stream one socket, beside the run's files) run VALID, on both transports.
TEST_F(CliTest, ManyStreamsUnderALowSoftDescriptorLimit) {
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "5"});
  for (const char* transport : {"auto", "libcurl"}) {
    const Result r = run_cmd({"/bin/sh", "-c",
                              std::string("ulimit -S -n 64 && exec ") + TOKBENCH_BINARY +
                                  " run --url " + sim.url() +
                                  " --concurrency 100 --num-prompts 100 --max-tokens 8 --quiet "
                                  "--transport " +
                                  transport + " --output-dir " + (dir_ / "out").string()});
    EXPECT_TRUE(RanValidUnlessBusy(r, dir_)) << transport;  // what the limit must not break
  }
}

// A disk that refuses the details file (here a 64 KiB file-size limit: EFBIG, as ENOSPC would be)
// stops the load at once, says which file and why, leaves whole lines only, writes its end
// marker, and exits 5; `report` agrees. tokbench ignores SIGXFSZ itself (issue 41: the limit's
// signal killed it, rc 153, a torn line and no end marker).
TEST_F(CliTest, AFullDiskStopsTheLoadAndSaysWhy) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  const fs::path out = dir_ / "out";
  Child run({"/bin/bash", "-c",
             std::string("ulimit -f 64 && exec ") + TOKBENCH_BINARY + " run --url " + sim.url() +
                 " --concurrency 16 --num-prompts 3000 --max-tokens 16 --ignore-eos --quiet "
                 "--output-dir " +
                 out.string()});
  run.read_until("stopping the load now", std::chrono::seconds(30));
  const auto refused = std::chrono::steady_clock::now();
  const int code = run.wait(std::chrono::seconds(30));
  // Stopped and finished within a second of the refusal (3,000 requests of 16 ms at 16 in
  // flight would run 3 s and more); its reports cannot be written under the limit either.
#if defined(__SANITIZE_ADDRESS__)
  constexpr double kStopS = 3.0;  // the sanitizer's slower report pass
#else
  constexpr double kStopS = 1.0;
#endif
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - refused).count(),
            kStopS);
  const Result r{code, run.output()};
  EXPECT_EQ(r.code, 5) << r.output;
  EXPECT_NE(r.output.find("_details.jsonl': File too large: stopping the load now"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("stopped: the disk refused a record"), std::string::npos) << r.output;
  const fs::path rd = fs::directory_iterator(out)->path();
  simdjson::dom::parser p;
  std::ifstream in(rd / "performances/tokbench-mock/builtin_details.jsonl");
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines)
    EXPECT_FALSE(p.parse(line).error()) << "torn line " << lines;
  EXPECT_GT(lines, 0);
  EXPECT_LT(lines, 3000);
  const std::string end = slurp(rd / "end.json");
  EXPECT_NE(end.find("\"stop_reason\":\"the details file could not be written: cannot append to"),
            std::string::npos)
      << end;
  EXPECT_FALSE(fs::exists(rd / ".end.json.reserve"));
  const Result rep = run_tokbench({"report", rd.string()});
  EXPECT_EQ(rep.code, 5) << rep.output;
  EXPECT_NE(rep.output.find("verdict: INVALID"), std::string::npos) << rep.output;
  // The pages and files the limit refused left no half-written temporary file behind.
  for (const auto& e : fs::recursive_directory_iterator(rd))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

// Issue 41: a line the details file holds twice was read back twice (21 of 20 planned, by `report`
// and by a --resume that reads a finished point): it is read once, and the verdict says so.
TEST_F(CliTest, ADuplicatedDetailsLineIsReadOnceAndSaid) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  const fs::path rd = run({"--url", sim.url(), "--num-prompts", "20", "--max-tokens", "4"});
  ASSERT_FALSE(rd.empty());
  const fs::path details = rd / "performances/tokbench-mock/builtin_details.jsonl";
  std::string fifth;
  {
    std::ifstream in(details);
    for (int i = 0; i < 5; ++i) std::getline(in, fifth);
  }
  std::ofstream(details, std::ios::app) << fifth << "\n";
  const Result rep = run_tokbench({"report", rd.string()});
  EXPECT_NE(rep.output.find("requests: 20 of 20 succeeded"), std::string::npos) << rep.output;
  EXPECT_NE(rep.output.find("the details file holds 1 measured line(s) twice (the first: id 4)"),
            std::string::npos)
      << rep.output;
}

// Issue 39, F6: Benchmark Duration spans the successful requests only (AISBench's rule), so when
// some fail the line says whose span its rates are over (1 of 20 read "72 token/s" for a run
// that made 23).
TEST_F(CliTest, RatesOverTheSuccessfulOnesSpanSaySo) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1", "--fail-every", "2"});
  const Result r = run_tokbench({"run", "--url", sim.url(), "--num-prompts", "8", "--max-tokens",
                                 "4", "--quiet", "--output-dir", (dir_ / "out").string()});
  EXPECT_NE(r.output.find("requests: 4 of 8 succeeded in "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" s (the successful ones' span; failed ones excluded): "),
            std::string::npos)
      << r.output;
}

// With less than the end marker's 1 MiB reserve free (a disk that answers fallocate with ENOSPC,
// through tests/fake_enospc.cpp), the run is refused before any request, naming the reserve and
// the fix; it used to run and end "cannot write end.json". The 64 KiB file-size limit above
// (EFBIG) is not that case: each file is bounded, and the end marker still fits.
TEST_F(CliTest, NoRoomForTheEndMarkerRefusesTheRunAtItsStart) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  const Result r = run_cmd(
      {"/bin/bash", "-c",
       std::string("LD_PRELOAD=") + FAKE_ENOSPC_LIBRARY +
           " ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 exec " +
           TOKBENCH_BINARY + " run --url " + sim.url() +
           " --num-prompts 4 --max-tokens 4 --quiet --output-dir " + (dir_ / "out").string()},
      std::chrono::seconds(60));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot reserve 1 MiB in "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("for the run's end marker: No space left on device (free space on that "
                          "disk, or give --output-dir on another disk)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("request body"), std::string::npos) << "requests were sent";
}

// In a sweep, the point the disk stops ends the series with the same exit code (5, not Ctrl-C's
// 130), no later point runs, and `report` on the sweep's root says 5 too.
TEST_F(CliTest, AFullDiskStopsASweepWithItsOwnExitCode) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  const fs::path out = dir_ / "out";
  const Result r =
      run_cmd({"/bin/bash", "-c",
               std::string("ulimit -f 64 && exec ") + TOKBENCH_BINARY + " run --url " + sim.url() +
                   " --concurrency 16,32 --num-prompts 3000 "
                   "--max-tokens 16 --ignore-eos --quiet --output-dir " +
                   out.string()},
              std::chrono::seconds(60));
  EXPECT_EQ(r.code, 5) << r.output;
  EXPECT_NE(r.output.find("stopped: the disk refused a record"), std::string::npos) << r.output;
  const fs::path root = fs::directory_iterator(out)->path();
  EXPECT_TRUE(fs::exists(root / "c16" / "end.json"));
  EXPECT_FALSE(fs::exists(root / "c32")) << "a point ran after the disk stopped the series";
  const Result rep = run_tokbench({"report", root.string()});
  EXPECT_EQ(rep.code, 5) << rep.output;
}

// Every request carries X-Request-Id "<run id>-<index>" (a warm-up "<run id>-w<index>"), on both
// transports: the details record it, and the simulator's --trace (which takes it as the
// request's id, as vLLM does) has exactly the same ids. `none` sends none; a --header of that
// name is the user's own and wins.
TEST_F(CliTest, RequestIdsJoinTheDetailsToTheServersTrace) {
  simdjson::dom::parser p;
  auto ids_in = [&](const fs::path& file, const char* key) {
    std::vector<std::string> out;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      std::string_view v;
      if (!p.parse(line)[key].get_string().get(v)) out.emplace_back(v);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  for (const std::string transport : {"sockets", "libcurl"}) {
    const fs::path trace = dir_ / ("trace-" + transport + ".jsonl");
    {
      Sim sim({"--ttft-ms", "1", "--tpot-ms", "1", "--trace", trace.string()});
      const fs::path rd =
          run({"--url", sim.url(), "--num-prompts", "12", "--warmup", "2", "--concurrency", "4",
               "--max-tokens", "4", "--transport", transport});
      ASSERT_FALSE(rd.empty());
      const std::string run_id(result(rd)["run"]["run_id"].get_string().value());
      EXPECT_TRUE(std::regex_match(run_id, std::regex(R"(\d{8}_\d{6}-[0-9a-f]{4})"))) << run_id;
      const auto sent =
          ids_in(rd / "performances/tokbench-mock/builtin_details.jsonl", "client_request_id");
      ASSERT_EQ(sent.size(), 14u) << transport;
      std::ifstream in(rd / "performances/tokbench-mock/builtin_details.jsonl");
      for (std::string line; std::getline(in, line);) {
        auto doc = p.parse(line);
        const bool warmup = doc["warmup"].get_bool().value();
        const int64_t index = doc["id"].get_int64().value();
        EXPECT_EQ(std::string_view(doc["client_request_id"].get_string().value()),
                  fmt::format("{}-{}{}", run_id, warmup ? "w" : "", index));
      }
      const fs::path page = rd / "performances/tokbench-mock/builtin_plot.html";
      EXPECT_NE(slurp(page).find("\"run_id\":\"" + run_id + "\""), std::string::npos)
          << "the page's hover needs it";
    }  // the simulator stops: its trace is whole
    // The server names each request as vLLM does: the API's prefix and the client's id.
    auto expected = ids_in(fs::directory_iterator(dir_ / "outputs")->path() /
                               "performances/tokbench-mock/builtin_details.jsonl",
                           "client_request_id");
    for (auto& id : expected) id = "chatcmpl-" + id;
    EXPECT_EQ(ids_in(trace, "id"), expected) << transport;
    fs::remove_all(dir_ / "outputs");
  }
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  fs::path rd = run({"--url", sim.url(), "--num-prompts", "3", "--max-tokens", "2",
                     "--request-id-header", "none"});
  const std::string none = slurp(rd / "performances/tokbench-mock/builtin_details.jsonl");
  EXPECT_EQ(none.find("client_request_id"), std::string::npos);
  EXPECT_NE(none.find("\"request_id\":\"chatcmpl-"), std::string::npos)
      << none;  // the simulator's own ids
  rd = run({"--url", sim.url(), "--num-prompts", "3", "--max-tokens", "2", "--header",
            "X-Request-Id: mine"});
  const std::string mine = slurp(rd / "performances/tokbench-mock/builtin_details.jsonl");
  EXPECT_EQ(mine.find("client_request_id"), std::string::npos);
  EXPECT_NE(mine.find("\"request_id\":\"chatcmpl-mine\""), std::string::npos) << mine;
  run({"--url", sim.url(), "--num-prompts", "1", "--request-id-header", "X Bad"}, 2);
  EXPECT_NE(last_.output.find("--request-id-header: bad value 'X Bad'"), std::string::npos)
      << last_.output;
}

// libcurl (with the ~25 libraries it pulls in), Open MPI and SQLite stay off the start-up path: the
// binary does not link them, a command that makes no request never loads them, nor does a plain
// http:// run (issue 47), and a run loads libcurl when it needs it (client/curl_loader; Open MPI's
// plug-in only under mpirun: cluster_test).
TEST_F(CliTest, StartsWithoutLibcurlOrOpenMpi) {
  const Result ldd = run_cmd({"/usr/bin/ldd", TOKBENCH_BINARY});
  ASSERT_EQ(ldd.code, 0) << ldd.output;
  EXPECT_EQ(ldd.output.find("libcurl"), std::string::npos) << ldd.output;
  EXPECT_EQ(ldd.output.find("libmpi"), std::string::npos) << ldd.output;
  EXPECT_EQ(ldd.output.find("libsqlite3"), std::string::npos)
      << ldd.output;  // history/sqlite loads it for the store
  const Result idle = run_cmd({"/usr/bin/env", "LD_DEBUG=files", TOKBENCH_BINARY, "man", "--list"});
  ASSERT_EQ(idle.code, 0) << idle.output;
  EXPECT_EQ(idle.output.find("libcurl"), std::string::npos)
      << "loaded for a command that sends nothing";
  EXPECT_EQ(idle.output.find("libmpi"), std::string::npos);
  EXPECT_EQ(idle.output.find("libsqlite3"), std::string::npos);
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  // A plain http:// run on the socket transport makes its set-up calls (GET /v1/models, the
  // /metrics scrapes) on plain sockets too: libcurl and the TLS libraries are never mapped.
  const Result plain = run_cmd({"/usr/bin/env", "LD_DEBUG=files", TOKBENCH_BINARY, "run", "--url",
                                sim.url(), "--num-prompts", "2", "--max-tokens", "2", "--quiet",
                                "--output-dir", (dir_ / "plain").string()});
  EXPECT_TRUE(plain.code == 0 || plain.code == 4) << plain.output;  // 4: INVALID on a busy machine
  EXPECT_NE(plain.output.find("file=libstdc++"), std::string::npos) << "LD_DEBUG said nothing";
  for (const char* lib : {"libcurl", "libssl", "libgnutls", "libgssapi", "libldap", "libssh"})
    EXPECT_EQ(plain.output.find(lib), std::string::npos) << lib << " loaded by a plain http:// run";
  const Result run = run_cmd({"/usr/bin/env", "LD_DEBUG=files", TOKBENCH_BINARY, "run", "--url",
                              sim.url(), "--num-prompts", "2", "--max-tokens", "2", "--transport",
                              "libcurl", "--quiet", "--output-dir", (dir_ / "out").string()});
  EXPECT_TRUE(run.code == 0 || run.code == 4)  // 4: INVALID where the machine was busy
      << run.output.substr(run.output.size() > 4000 ? run.output.size() - 4000 : 0);
  EXPECT_NE(run.output.find("file=libcurl.so.4"), std::string::npos)
      << "a run loads libcurl when it needs it";
  EXPECT_EQ(run.output.find("libmpi"), std::string::npos);
  EXPECT_EQ(run.output.find("libsqlite3"), std::string::npos)
      << "a run without --history never opens a store";
}

TEST_F(CliTest, TransportIsChosenRecordedAndCanBeForced) {
  auto rd = run({"--num-prompts", "2", "--max-tokens", "4"}, 0);
  ASSERT_FALSE(rd.empty());
  EXPECT_EQ(std::string(result(rd)["run"]["transport"].get_string().value()),
            "sockets (a plain http:// URL with no proxy)");
  EXPECT_NE(slurp(rd / "logs/run.log").find("transport: sockets"), std::string::npos);
  rd = run({"--num-prompts", "2", "--max-tokens", "4", "--transport", "libcurl"}, 0);
  ASSERT_FALSE(rd.empty());
  EXPECT_EQ(std::string(result(rd)["run"]["transport"].get_string().value()),
            "libcurl (asked for (--transport libcurl))");
  EXPECT_EQ(common(result(rd), "success_requests"), 2);
  const auto r = run_tokbench(
      {"run", "--url", "https://127.0.0.1:9/v1/chat/completions", "--transport", "sockets"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--transport sockets reads plain http:// only"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("use --transport auto or libcurl"), std::string::npos) << r.output;
}

TEST_F(CliTest, OpenLoopRateRecordsSendLag) {
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "1"});
  const auto rd = run({"--url", sim.url(), "--num-prompts", "20", "--request-rate", "40",
                       "--concurrency", "20", "--max-tokens", "4", "--seed", "3"});
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  EXPECT_EQ(r["extra_metrics"]["SendLag"]["n"].get_int64().value(), 20);
  EXPECT_LT(r["extra_metrics"]["SendLag"]["p99"].get_double().value(), 50);
  // 20 Poisson arrivals at 40 req/s span about half a second.
  EXPECT_GT(common(r, "benchmark_duration"), 100);
  // The machine's wake-up floor, measured before the phase, stands beside the send lag: in
  // end.json, and again after `report` reads the folder back.
  simdjson::dom::parser p;
  const auto end = p.load((rd / "end.json").string()).value();
  const double floor = end["wakeup_floor_p99_ms"].get_double().value();
  EXPECT_GE(floor, 0.0);
  EXPECT_LE(end["wakeup_floor_p50_ms"].get_double().value(), floor);
  EXPECT_EQ(r["run"]["wakeup_floor_p99_ms"].get_double().value(), floor);
  auto has_floor_note = [](simdjson::dom::element result) {
    simdjson::dom::array notes;
    if (result["verdict"]["notes"].get_array().get(notes)) return false;
    for (auto n : notes)
      if (std::string(n.get_string().value()).find("wake-up floor") != std::string::npos)
        return true;
    return false;
  };
  // (A busy machine may miss the schedule: then the floor is named in the reason instead.)
  const std::string status(r["verdict"]["status"].get_string().value());
  if (status == "VALID") {
    EXPECT_TRUE(has_floor_note(r));
    ASSERT_EQ(run_tokbench({"report", rd.string()}).code, 0);
    EXPECT_TRUE(has_floor_note(result(rd)));
  }
}

// A closed loop has no schedule: no calibration, nothing in end.json.
TEST_F(CliTest, ClosedLoopMeasuresNoWakeupFloor) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  const auto rd = run({"--url", sim.url(), "--num-prompts", "4", "--max-tokens", "2"});
  ASSERT_FALSE(rd.empty());
  simdjson::dom::parser p;
  EXPECT_EQ(p.load((rd / "end.json").string()).value()["wakeup_floor_p99_ms"].get_double().value(),
            -1.0);
}

}  // namespace
}  // namespace tokbench::testing
