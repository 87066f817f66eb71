// --class as a user runs it (issue 43, items 1-3): traffic classes share one target, one clock
// and one record stream; each record names its class; result.json, <ds>_classes.csv and the
// console give every class its own figures; the fairness figures equal a hand computation from
// the details; a class whose SLO is missed is named and the run exits 3. Against the simulator
// with vLLM's priority scheduling and a full batch, the interactive class keeps its solo TTFT
// while the batch class slows (preempted, and left fewer places).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "metrics/metrics.hpp"
#include "net/http_get.hpp"
#include "plan/plan.hpp"
#include "runfolder/files.hpp"
#include "support/cli_fixture.hpp"
#include "support/machine_noise.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench {
namespace {

class ClassesRunTest : public testing::RunTest {
 protected:
  runner::RunOutcome run_classes(const std::string& url, std::vector<std::string> classes) {
    return run(testing::RunSettings()
                   .url(url)
                   .max_tokens(24)
                   .ignore_eos()
                   .with([&](runner::RunConfig& r) { r.load.classes = classes; })
                   .build());
  }
  // A class's statistic of a row, from result.json's classes.
  double class_stat(const runner::RunOutcome& o, const char* name, const char* row,
                    const char* stat) {
    return result(o)["classes"][name]["metrics"][row][stat].get_double().value();
  }
  std::string console_of(const runner::RunOutcome& o) {
    char* text = nullptr;
    size_t size = 0;
    std::FILE* console = open_memstream(&text, &size);
    runner::recompute(o.run_dir, std::nullopt, console);
    std::fclose(console);
    std::string said(text, size);
    std::free(text);
    return said;
  }
};

constexpr const char* kChat = "name=chat,concurrency=2,num-prompts=30,priority=0";
constexpr const char* kBatch = "name=batch,concurrency=8,num-prompts=80,priority=10";

TEST_F(ClassesRunTest, PriorityKeepsTheChatClassAtItsSoloTtftWhileTheBatchClassSlows) {
  testing::Sim sim({"--scheduling-policy", "priority", "--max-num-seqs", "4", "--ttft-ms", "50",
                    "--tpot-ms", "2"});
  const runner::RunOutcome chat_alone = run_classes(sim.url(), {kChat});
  const runner::RunOutcome batch_alone = run_classes(sim.url(), {kBatch});
  const runner::RunOutcome both = run_classes(sim.url(), {kChat, kBatch});
  EXPECT_TRUE(testing::IsValidUnlessBusy(both));
  EXPECT_EQ(both.exit_code == 0 || both.exit_code == 4, true) << both.exit_code;
  // Every record names its class; each class sent its own count.
  std::map<std::string, int64_t> sent;
  for (const auto& r : records(both))
    if (!r.warmup) ++sent[r.traffic_class];
  EXPECT_EQ(sent, (std::map<std::string, int64_t>{{"batch", 80}, {"chat", 30}}));
  // The chat class's TTFT P99 within 10% of its solo value (past it only by what this machine's
  // scheduler takes from a thread).
  const double solo = class_stat(chat_alone, "chat", "TTFT", "p99");
  const double shared = class_stat(both, "chat", "TTFT", "p99");
  EXPECT_GT(solo, 49.0);
  EXPECT_TRUE(testing::WithinTimingBoundHere(std::abs(shared - solo), 0.1 * solo))
      << "chat TTFT p99 alone " << solo << " ms, beside the batch " << shared << " ms";
  // Served first: the batch class waits for places the chat class never waits for.
  EXPECT_LT(shared, class_stat(both, "batch", "TTFT", "p99"));
  // The batch class slows: its requests wait for fewer places and are preempted.
  const double batch_solo = class_stat(batch_alone, "batch", "E2EL", "mean");
  const double batch_shared = class_stat(both, "batch", "E2EL", "mean");
  EXPECT_GT(batch_shared, 1.2 * batch_solo) << batch_solo << " ms alone, " << batch_shared;
  const std::string server = net::http_get(sim.url("/metrics"), {}, "", 2000).body;
  std::smatch preempted;
  ASSERT_TRUE(std::regex_search(server, preempted,
                                std::regex(R"(vllm:num_preemptions_total(\{[^}]*\})? (\d+))")));
  EXPECT_GT(std::stoll(preempted[2]), 0);
  // Per class in result.json, the CSV and on the console.
  auto doc = result(both);
  EXPECT_EQ(doc["classes"]["chat"]["requests"].get_int64().value(), 30);
  EXPECT_EQ(doc["classes"]["batch"]["load"].get_string().value(), "concurrency 8, priority 10");
  const std::string csv = runfolder::read_file(both.perf_dir / "builtin_classes.csv");
  EXPECT_NE(csv.find("\nchat,1,30,0,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nbatch,1,80,0,"), std::string::npos) << csv;
  const std::string said = console_of(both);
  EXPECT_NE(said.find("class chat (concurrency 2, priority 0): 30 req, TTFT p99 "),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("class batch (concurrency 8, priority 10): 80 req"), std::string::npos);
  EXPECT_NE(said.find("fairness: Jain's index "), std::string::npos);
}

TEST_F(ClassesRunTest, FairnessEqualsAHandComputationFromTheDetails) {
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "1"});
  const runner::RunOutcome out =
      run_classes(sim.url(), {"name=a,concurrency=1,num-prompts=12,weight=1",
                              "name=b,concurrency=4,num-prompts=40,weight=3",
                              "name=c,request-rate=40,num-prompts=20,weight=0.5"});
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  std::map<std::string, double> tokens;
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const auto& r : records(out)) {
    if (r.warmup) continue;
    first = std::min(first, r.sent_ns);
    last = std::max(last, r.done_ns);
    if (r.ok()) tokens[r.traffic_class] += static_cast<double>(metrics::output_tokens(r));
  }
  const double span = static_cast<double>(last - first) / 1e9;
  const std::map<std::string, double> weight{{"a", 1}, {"b", 3}, {"c", 0.5}};
  double sum = 0, sum_sq = 0, all_tokens = 0;
  for (const auto& [name, t] : tokens) {
    const double x = t / span / weight.at(name);
    sum += x;
    sum_sq += x * x;
    all_tokens += t;
  }
  const double jain = sum * sum / (3 * sum_sq);
  auto doc = result(out);
  EXPECT_NEAR(doc["fairness"]["jain_throughput"].get_double().value(), jain, 1e-9 * jain);
  for (auto c : doc["fairness"]["classes"].get_array()) {
    const std::string name(c["name"].get_string().value());
    EXPECT_NEAR(c["token_share"].get_double().value(), tokens[name] / all_tokens, 1e-12) << name;
    EXPECT_NEAR(c["weight_share"].get_double().value(), weight.at(name) / 4.5, 1e-12) << name;
    EXPECT_NEAR(c["token_throughput"].get_double().value(), tokens[name] / span,
                1e-9 * tokens[name] / span);
  }
  EXPECT_EQ(doc["classes"]["c"]["load"].get_string().value(), "request-rate 40 (poisson)");
}

// A class's own arrival process: constant arrivals every 1/rate exactly, beside a Poisson class.
TEST_F(ClassesRunTest, AClassDrawsItsOwnArrivals) {
  testing::Sim sim({"--ttft-ms", "2", "--tpot-ms", "1"});
  const runner::RunOutcome out =
      run_classes(sim.url(), {"name=even,request-rate=50,arrivals=constant,num-prompts=12",
                              "name=burst,request-rate=50,arrivals=gamma,burstiness=0.3,"
                              "num-prompts=12"});
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  std::map<std::string, std::vector<int64_t>> scheduled;
  for (const auto& r : records(out))
    if (!r.warmup) scheduled[r.traffic_class].push_back(r.scheduled_ns);
  for (auto& [cls, at] : scheduled) std::sort(at.begin(), at.end());
  ASSERT_EQ(scheduled["even"].size(), 12u);
  ASSERT_EQ(scheduled["burst"].size(), 12u);
  int64_t least = INT64_MAX, most = 0;
  for (size_t i = 1; i < 12; ++i) {
    EXPECT_NEAR(scheduled["even"][i] - scheduled["even"][i - 1], 20'000'000, 1'000);
    const int64_t gap = scheduled["burst"][i] - scheduled["burst"][i - 1];
    least = std::min(least, gap);
    most = std::max(most, gap);
  }
  EXPECT_GT(most - least, 5'000'000);  // gamma gaps of shape 0.3 spread far (not a fixed pace)
  auto doc = result(out);
  EXPECT_EQ(doc["classes"]["even"]["load"].get_string().value(), "request-rate 50 (constant)");
  EXPECT_EQ(doc["classes"]["burst"]["load"].get_string().value(), "request-rate 50 (gamma)");
}

TEST_F(ClassesRunTest, AMissedClassSloIsNamedAndTheRunExitsThree) {
  testing::Sim sim({"--ttft-ms", "20", "--tpot-ms", "1"});
  const runner::RunOutcome out =
      run_classes(sim.url(), {"name=chat,concurrency=2,num-prompts=20,slo=ttft.p99<=5ms",
                              "name=batch,concurrency=2,num-prompts=20,slo=e2el.p99<=60000ms"});
  ASSERT_EQ(out.verdict.slo_missed.size(), 1u);
  EXPECT_NE(out.verdict.slo_missed[0].find("class chat: ttft.p99 "), std::string::npos)
      << out.verdict.slo_missed[0];
  if (out.verdict.valid) {
    EXPECT_EQ(out.exit_code, 3);
  }
  auto doc = result(out);
  EXPECT_FALSE(doc["classes"]["chat"]["slo"].at(0)["met"].get_bool().value());
  EXPECT_TRUE(doc["classes"]["batch"]["slo"].at(0)["met"].get_bool().value());
  EXPECT_EQ(doc["classes"]["chat"]["good_requests"].get_int64().value(), 0);
  EXPECT_EQ(doc["verdict"]["slo_missed"].at(0).get_string().value(), out.verdict.slo_missed[0]);
  // `report` reads the same miss from the folder alone, and exits alike.
  const std::string said = console_of(out);
  EXPECT_NE(said.find("SLO missed: class chat: ttft.p99 "), std::string::npos) << said;
  EXPECT_NE(said.find("ttft.p99<=5ms MISSED"), std::string::npos) << said;
}

// dataset=: a class draws its own prompts (one pass over its file when it names no count), the
// other the run's; each class's figures are its own prompts', and its load says which dataset.
TEST_F(ClassesRunTest, AClassDrawsItsOwnDataset) {
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "1"});
  const std::filesystem::path short_file = dir_ / "short.jsonl", long_file = dir_ / "long.jsonl";
  {
    std::ofstream s(short_file), l(long_file);
    for (const char* q : {"Hi", "Hello", "Hey there"}) s << "{\"question\": \"" << q << "\"}\n";
    std::string words;  // lines of 300, 340, ... words: each its own prompt length
    for (int i = 0; i < 460; ++i) {
      words += "word" + std::to_string(i) + " ";
      if (i >= 299 && (i - 299) % 40 == 0) l << "{\"question\": \"" << words << "\"}\n";
    }
  }
  const runner::RunOutcome out = run_classes(
      sim.url(), {"name=chat,concurrency=2,dataset=qa:" + short_file.string(),
                  "name=batch,concurrency=2,num-prompts=8,dataset=qa:" + long_file.string(),
                  "name=plain,concurrency=1,num-prompts=4"});
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  std::map<std::string, int64_t> sent;
  std::map<std::string, std::set<int64_t>> input;
  for (const auto& r : records(out)) {
    if (r.warmup) continue;
    ++sent[r.traffic_class];
    input[r.traffic_class].insert(r.prompt_tokens);
  }
  EXPECT_EQ(sent, (std::map<std::string, int64_t>{{"batch", 8}, {"chat", 3}, {"plain", 4}}));
  EXPECT_EQ(input["chat"].size(), 3u);   // its three lines, once each
  EXPECT_EQ(input["batch"].size(), 5u);  // its five lines, cycled
  EXPECT_GT(*input["batch"].begin(), 10 * *input["chat"].rbegin());
  auto doc = result(out);
  EXPECT_EQ(doc["classes"]["chat"]["load"].get_string().value(),
            "concurrency 2, dataset qa:" + short_file.string());
  EXPECT_EQ(doc["classes"]["chat"]["requests"].get_int64().value(), 3);
}

// dataset=trace: a class replays its own schedule (each request at its timestamp, its prompt its
// input_length) beside a closed class drawing the run's synthetic prompts (sent with ignore_eos,
// as synthetic prompts are) and one drawing a file of its own (sent as --ignore-eos says: not).
TEST_F(ClassesRunTest, AClassReplaysItsOwnTrace) {
  const std::filesystem::path tok = testing::fixture("qwen3");
  ASSERT_TRUE(std::filesystem::exists(tok)) << "run `npm ci --prefix tests/tokenizer`";
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "1", "--tokenizer", tok.string()});
  const std::filesystem::path trace = dir_ / "trace.jsonl", qa = dir_ / "qa.jsonl";
  std::ofstream(qa) << "{\"question\": \"Hi\"}\n{\"question\": \"Hello\"}\n";
  {
    std::ofstream out(trace);
    for (int i = 0; i < 12; ++i)
      out << R"({"timestamp": )" << i * 25 << R"(, "input_length": 48, "output_length": 4, )"
          << R"("hash_ids": [)" << i * 3 + 1 << ", " << i * 3 + 2 << ", " << i * 3 + 3 << "]}\n";
  }
  const runner::RunOutcome out =
      run(testing::RunSettings()
              .url(sim.url())
              .max_tokens(4)
              .with([&](runner::RunConfig& r) {
                r.workload.tokenizer = tok.string();
                r.workload.trace_block_size = 16;
                r.workload.dataset = dataset::parse_spec("synthetic");
                r.workload.input_len = 32;
                r.workload.output_len = 4;
                r.load.classes = {"name=replay,dataset=trace:" + trace.string(),
                                  "name=chat,concurrency=1,num-prompts=5",
                                  "name=file,concurrency=1,dataset=qa:" + qa.string()};
              })
              .build());
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  std::vector<int64_t> scheduled;
  int64_t chat = 0, file = 0;
  for (const auto& r : records(out)) {
    if (r.warmup) continue;
    if (r.traffic_class == "chat") {
      ++chat;
      EXPECT_TRUE(r.ignore_eos_sent);
      EXPECT_EQ(r.prompt_tokens, 32);
      continue;
    }
    if (r.traffic_class == "file") {
      ++file;
      EXPECT_FALSE(r.ignore_eos_sent);
      continue;
    }
    ASSERT_EQ(r.traffic_class, "replay");
    EXPECT_EQ(r.prompt_tokens, 48) << r.index;
    scheduled.push_back(r.scheduled_ns);
  }
  EXPECT_EQ(chat, 5);
  EXPECT_EQ(file, 2);  // one pass over its two lines
  ASSERT_EQ(scheduled.size(), 12u);
  std::sort(scheduled.begin(), scheduled.end());
  for (size_t i = 0; i < scheduled.size(); ++i)  // its own timestamps, to the nanosecond
    EXPECT_EQ(scheduled[i] - scheduled[0], static_cast<int64_t>(i) * 25'000'000) << i;
  EXPECT_EQ(result(out)["classes"]["replay"]["requests"].get_int64().value(), 12);
}

class ClassesCliTest : public testing::CliFixture {};

// As a user writes them: a `classes:` list in --config, and a missed class SLO's exit status.
TEST_F(ClassesCliTest, AConfigListsTheClassesAndAMissedSloExitsThree) {
  testing::Sim sim({"--ttft-ms", "20", "--tpot-ms", "1"});
  const std::filesystem::path config = dir_ / "classes.yaml";
  {
    std::ofstream out(config);
    out << "max-tokens: 8\nnum-prompts: 6\nclasses:\n  - name=fast,concurrency=2\n"
           "  - name=strict,concurrency=1,slo=ttft.p99<=1ms\n";
  }
  last_ = testing::run_tokbench({"run", "--url", sim.url(), "--config", config.string(),
                                 "--output-dir", (dir_ / "outputs").string(), "--quiet"});
  std::smatch m;
  ASSERT_TRUE(std::regex_search(last_.output, m, std::regex("results: (\\S+)"))) << last_.output;
  const std::filesystem::path folder = m[1].str();
  // 3: VALID, a class SLO missed (4 only where this machine was too busy to measure it).
  EXPECT_TRUE(last_.code == kExitThreshold ||
              (last_.code == kExitInvalid && testing::RanValidUnlessBusy(last_, folder)))
      << last_.code << "\n"
      << last_.output;
  EXPECT_NE(last_.output.find("SLO missed: class strict: ttft.p99 "), std::string::npos)
      << last_.output;
  auto doc = result(folder);
  EXPECT_EQ(doc["classes"]["fast"]["requests"].get_int64().value(), 6);
  EXPECT_EQ(doc["classes"]["strict"]["requests"].get_int64().value(), 6);
}

TEST(ClassFlags, WhatClassesCannotDoIsRefusedNamingTheFix) {
  auto problems = [](auto edit) {
    runner::RunConfig c;
    c.load.classes = {"name=a,concurrency=1", "name=b,request-rate=2"};
    edit(c);
    std::string all;
    for (const auto& e : runner::validate(c)) all += e + "\n";
    return all;
  };
  EXPECT_EQ(problems([](auto&) {}), "");
  EXPECT_EQ(problems([](auto& c) { c.load.ramp_up_s = 1; }), "");  // each class ramps its own
  EXPECT_NE(problems([](auto& c) {
              c.load.classes.push_back("name=a,concurrency=2");
            }).find("--class name=a is given twice"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) { c.load.classes.push_back("name=x"); }).find("give its load"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) { c.load.concurrency = 4; }).find("each class's own"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) {
              c.load.concurrency_sweep = {1, 2};
            }).find("--class does not go with a list of --concurrency"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) {
              c.load.classes.push_back("name=d,concurrency=1,extra-body={\"a\":}");
            }).find("--class name=d: extra-body"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) {
              c.request.stream = false;
              c.load.classes.push_back("name=s,concurrency=1,slo=ttft.p99<=9ms");
            }).find("slo=ttft.p99<=9ms needs a stream"),
            std::string::npos);
  // dataset=: a file that is there; the synthetic flags go with a class's.
  EXPECT_NE(problems([](auto& c) {
              c.load.classes.push_back("name=t,concurrency=1,dataset=agent:x.jsonl");
            }).find("--class name=t: dataset=agent:x.jsonl: no such file 'x.jsonl'"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) {
              c.load.classes.push_back("name=r,request-rate=3,dataset=trace:x.jsonl");
            }).find("--class name=r: dataset=trace:x.jsonl replays its own schedule"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) {
              c.workload.dataset = dataset::parse_spec("trace:x.jsonl");
            }).find("give it to the class that replays it, dataset=trace:PATH"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) {
              c.load.classes.push_back("name=q,concurrency=1,dataset=qa:/nonexistent/q.jsonl");
            }).find("no such file '/nonexistent/q.jsonl'"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) {
              c.load.classes.push_back("name=w,concurrency=1,dataset=wiki");
            }).find("--class name=w: dataset=: --dataset: bad value 'wiki'"),
            std::string::npos);
  // A search and the in-run controller move one load: a class's sweep is named instead.
  EXPECT_NE(problems([](auto& c) {
              c.experiment.search = runner::SearchAxis::MaxConcurrency;
            }).find("--class does not go with --search: it moves one load"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) { c.experiment.adaptive_window_s = 5; })
                .find("--adaptive-window-s: it moves one load, and each class carries its own; "
                      "sweep the class"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) { c.load.pressure = true; }).find("--ramp-up-s S --duration-s S"),
            std::string::npos);
  const std::string grid = problems([](auto& c) {  // a grid runs the classes at each server
    c.target.server_grid = "max_num_seqs=1,2";
    c.target.server_cmd = "serve --port {port} --max-num-seqs {max_num_seqs}";
  });
  EXPECT_EQ(grid.find("--class"), std::string::npos) << grid;
  auto lengths = [](runner::RunConfig& c) {
    c.workload.input_len = 300;
    c.workload.output_len = 20;
  };
  EXPECT_NE(problems(lengths).find("only with --dataset synthetic"), std::string::npos);
  EXPECT_EQ(problems([&](auto& c) {
              lengths(c);
              c.load.classes.push_back("name=s,concurrency=1,dataset=synthetic");
            }),
            "");
}

TEST(ClassPlan, AClassSendsItsLoadItsPriorityAndItsBodyOverTheRuns) {
  runner::RunConfig c;
  c.request.extra_body = R"({"top_p":0.5,"priority":3})";
  c.load.classes = {"name=a,concurrency=3,priority=7,extra-body={\"top_k\":4}",
                    "name=b,request-rate=5,model=lora-1"};
  const runner::RunPlan plan = runner::make_plan(c, nullptr);
  const runner::RunPlan a = runner::class_plan(plan, 0), b = runner::class_plan(plan, 1);
  EXPECT_EQ(a.load.max_in_flight(), 3);
  EXPECT_FALSE(a.load.open_loop());
  EXPECT_TRUE(b.load.open_loop());
  EXPECT_EQ(b.cfg.load.seed, plan.cfg.load.seed + 1);  // its own draws, the same alone or not
  const std::vector<std::pair<std::string, std::string>> want{
      {"top_p", "0.5"}, {"top_k", "4"}, {"priority", "7"}};
  EXPECT_EQ(a.extra_body, want);
  EXPECT_EQ(b.extra_body, plan.extra_body);
  EXPECT_EQ(b.traffic_class->model, "lora-1");
}

}  // namespace
}  // namespace tokbench
