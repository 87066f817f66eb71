// Agent loops end to end (issue 42, item 2): against the simulator as an agent's model
// (--tool-rounds), each task's turns carry the calls and the stubs' results back as chat messages,
// wait for the stubs, and end with the text answer; a task's latency is its model, tool and client
// time within 1%, and the server's cached tokens grow turn by turn as the context does.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "plan/plan.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench {
namespace {

namespace fs = std::filesystem;
using record::kNone;

// Two tools: a fixed 40 ms stub whose result quotes the call's city, and a 20-30 ms one.
fs::path agent_file(const fs::path& dir, int tasks) {
  std::string text;
  for (int t = 0; t < tasks; ++t)
    text += R"({"id":"trip-)" + std::to_string(t) +
            R"(","system":"You plan trips. Use the tools, then answer in one line.",)"
            R"("goal":"Plan a day in city number )" +
            std::to_string(t) +
            R"( with the weather and a museum.","tools":[)"
            R"({"type":"function","function":{"name":"get_weather","parameters":{"type":"object",)"
            R"("properties":{"city":{"type":"string"}},"required":["city"]}}},)"
            R"({"type":"function","function":{"name":"find_museum","parameters":{"type":"object",)"
            R"("properties":{"city":{"type":"string"}},"required":["city"]}}}],)"
            R"("stubs":{"get_weather":{"latency_ms":40,"result":"{\"city\":\"{{city}}\",\"sky\":)"
            R"(\"clear\",\"high_c\":21}"},"find_museum":{"latency_ms":{"uniform":[20,30]},)"
            R"("result":"The city museum of {{city}} opens at 10:00 and closes at 18:00."}}})"
            "\n";
  const fs::path p = dir / "agents.jsonl";
  std::ofstream(p) << text;
  return p;
}

class AgentLoopTest : public testing::RunTest {};

TEST_F(AgentLoopTest, TaskLatencyIsModelPlusToolsPlusClientAndTheCacheGrows) {
  testing::Sim sim({"--tool-rounds", "2", "--ttft-ms", "5", "--tpot-ms", "1",
                    "--enable-prefix-caching", "--block-size", "4"});
  const fs::path file = agent_file(dir_, 6);
  const runner::RunOutcome out = run(testing::RunSettings()
                                         .url(sim.url("/v1/chat/completions"))
                                         .dataset("agent:" + file.string())
                                         .concurrency(2)
                                         .max_tokens(48));
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));

  // Each task: two rounds of calls (get_weather, then find_museum), then the answer.
  std::map<int64_t, std::vector<record::RequestRecord>> tasks;
  for (auto& r : records(out)) tasks[r.session].push_back(r);
  ASSERT_EQ(tasks.size(), 6u);
  for (auto& [id, turns] : tasks) {
    SCOPED_TRACE("task " + std::to_string(id));
    std::sort(turns.begin(), turns.end(), [](auto& a, auto& b) { return a.turn < b.turn; });
    ASSERT_EQ(turns.size(), 3u);
    for (const auto& r : turns) ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_EQ(turns[0].tool_calls.size(), 1u);
    EXPECT_EQ(turns[0].tool_calls[0].name, "get_weather");
    EXPECT_EQ(turns[1].tool_calls[0].name, "find_museum");
    EXPECT_TRUE(turns[2].tool_calls.empty());
    EXPECT_EQ(turns[2].task_end, core::TaskEnd::Answer);
    EXPECT_TRUE(turns[2].last_turn);
    EXPECT_FALSE(turns[0].last_turn);
    // The stubs' latency, waited for: a turn is ready when the last answer's tools are done.
    EXPECT_EQ(turns[0].tool_ns, 0);
    EXPECT_EQ(turns[1].tool_ns, 40'000'000);
    EXPECT_GE(turns[2].tool_ns, 20'000'000);
    EXPECT_LE(turns[2].tool_ns, 30'000'000);
    EXPECT_EQ(turns[0].ready_ns, turns[0].session_start_ns);
    double model = 0, tool = 0, client = 0;
    for (size_t k = 0; k < turns.size(); ++k) {
      if (k > 0) {
        EXPECT_EQ(turns[k].ready_ns, turns[k - 1].done_ns + turns[k].tool_ns);
      }
      EXPECT_GE(turns[k].sent_ns, turns[k].ready_ns);  // never before its tools answered
      model += static_cast<double>(turns[k].done_ns - turns[k].sent_ns);
      tool += static_cast<double>(turns[k].tool_ns);
      client += static_cast<double>(turns[k].sent_ns - turns[k].ready_ns);
    }
    const double latency = static_cast<double>(turns[2].done_ns - turns[0].session_start_ns);
    EXPECT_NEAR(model + tool + client, latency, 0.01 * latency);
    EXPECT_GE(tool, 0.99 * 60e6);  // 40 ms + at least 20 ms of the stubs, inside the latency
  }

  // The rows: per task, and the same split.
  const metrics::Row* turns = out.metrics.row("TaskTurns");
  ASSERT_TRUE(turns && turns->stats);
  EXPECT_DOUBLE_EQ(turns->stats->mean, 3);
  EXPECT_EQ(turns->stats->n, 6);
  auto mean = [&](const char* name) {
    const metrics::Row* r = out.metrics.row(name);
    EXPECT_TRUE(r && r->stats) << name;
    return r && r->stats ? r->stats->mean : 0.0;
  };
  const double latency = mean("TaskLatency");
  EXPECT_NEAR(mean("TaskModelTime") + mean("TaskToolTime") + mean("TaskClientTime"), latency,
              0.01 * latency);
  EXPECT_GE(mean("TaskToolTime"), 60);
  EXPECT_LE(mean("TaskToolTime"), 70);
  const auto* tasks_done = out.metrics.common_metric("agent_tasks");
  ASSERT_TRUE(tasks_done);
  EXPECT_EQ(tasks_done->value, 6);

  // The context grows by each round's calls and results; the server's cache holds what came before.
  ASSERT_EQ(out.metrics.turns.size(), 3u);
  double last_cached = -1, last_in = 0;
  for (const auto& t : out.metrics.turns) {
    SCOPED_TRACE("turn " + std::to_string(t.turn));
    ASSERT_TRUE(t.cached_tokens && t.input_tokens);
    EXPECT_GT(*t.input_tokens, last_in);
    EXPECT_GT(*t.cached_tokens, last_cached);
    last_in = *t.input_tokens;
    last_cached = *t.cached_tokens;
  }
  EXPECT_GT(last_cached, 0.5 * last_in);  // the third turn finds most of its context cached
}

// Where the model keeps calling, the turn cap ends the task, said on its last record.
TEST_F(AgentLoopTest, TheTurnCapEndsATaskThatKeepsCalling) {
  testing::Sim sim({"--tool-rounds", "5", "--ttft-ms", "2", "--tpot-ms", "1"});
  std::string line =
      R"({"goal":"Check the weather.","max_turns":2,"tools":[{"type":"function","function":)"
      R"({"name":"get_weather","parameters":{"type":"object","properties":{"city":)"
      R"({"type":"string"}},"required":["city"]}}}],"stubs":{"get_weather":{"latency_ms":5,)"
      R"("result":"sunny"}}})";
  const fs::path file = dir_ / "capped.jsonl";
  std::ofstream(file) << line << "\n" << line << "\n";
  const runner::RunOutcome out = run(testing::RunSettings()
                                         .url(sim.url("/v1/chat/completions"))
                                         .dataset("agent:" + file.string())
                                         .max_tokens(32));
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  const auto rs = records(out);
  ASSERT_EQ(rs.size(), 4u);
  int capped = 0;
  for (const auto& r : rs)
    if (r.last_turn) {
      EXPECT_EQ(r.turn, 1);
      EXPECT_EQ(r.task_end, core::TaskEnd::TurnCap);
      EXPECT_FALSE(r.tool_calls.empty());
      ++capped;
    }
  EXPECT_EQ(capped, 2);
}

// The README's agent run: the shipped example tasks against the simulator as an agent's model.
TEST_F(AgentLoopTest, TheReadmesExampleTasksAllAnswer) {
  testing::Sim sim(
      {"--tool-rounds", "2", "--enable-prefix-caching", "--ttft-ms", "5", "--tpot-ms", "1"});
  const runner::RunOutcome out =
      run(testing::RunSettings()
              .url(sim.url("/v1/chat/completions"))
              .dataset("agent:" +
                       (fs::path(TOKBENCH_SOURCE_DIR) / "docs/examples/agents.jsonl").string())
              .concurrency(3));
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  const auto* tasks = out.metrics.common_metric("agent_tasks");
  ASSERT_TRUE(tasks);
  EXPECT_EQ(tasks->value, 6);
  const metrics::Row* turns = out.metrics.row("TaskTurns");
  ASSERT_TRUE(turns && turns->stats);
  EXPECT_DOUBLE_EQ(turns->stats->mean, 3);
  int answered = 0;
  for (const auto& r : records(out)) answered += r.task_end == core::TaskEnd::Answer;
  EXPECT_EQ(answered, 6);
}

// Recorded sessions replayed (agent-trace:PATH): each answer's recorded context is sent as
// recorded, after the recorded pause scaled by --trace-speed, capped at its recorded length.
TEST_F(AgentLoopTest, RecordedSessionsReplayTheirContextAndPauses) {
  testing::Sim sim({"--ttft-ms", "2", "--tpot-ms", "1", "--enable-prefix-caching"});
  std::string log;
  for (int s = 0; s < 2; ++s) {
    const std::string n = std::to_string(s);
    log += R"({"id":"rec)" + n + R"(","messages":[{"role":"user","content":"Count the files in )" +
           n +
           R"(.","timestamp":0},)"
           R"({"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function",)"
           R"("function":{"name":"ls","arguments":"{\"dir\":\"/srv\"}"}}],"timestamp":1000,)"
           R"("usage":{"completion_tokens":6}},)"
           R"({"role":"tool","tool_call_id":"a","content":"x y z","timestamp":1400},)"
           R"({"role":"assistant","content":null,"tool_calls":[{"id":"b","type":"function",)"
           R"("function":{"name":"wc","arguments":"{}"}}],"timestamp":2000,)"
           R"("usage":{"completion_tokens":5}},)"
           R"({"role":"tool","tool_call_id":"b","content":"3","timestamp":2200},)"
           R"({"role":"assistant","content":"Three files.","timestamp":2600,)"
           R"("usage":{"completion_tokens":4}}]})"
           "\n";
  }
  const fs::path file = dir_ / "recorded.jsonl";
  std::ofstream(file) << log;
  const runner::RunOutcome out =
      run(testing::RunSettings()
              .url(sim.url("/v1/chat/completions"))
              .dataset("agent-trace:" + file.string())
              .concurrency(2)
              .with([](runner::RunConfig& c) { c.workload.trace_speed = 4; }));
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  std::map<int64_t, std::vector<record::RequestRecord>> sessions;
  for (auto& r : records(out)) sessions[r.session].push_back(r);
  ASSERT_EQ(sessions.size(), 2u);
  const int64_t pause_ns[] = {0, 400'000'000 / 4, 200'000'000 / 4};  // recorded, 4x as fast
  const int64_t cap[] = {6, 5, 4};
  for (auto& [id, turns] : sessions) {
    std::sort(turns.begin(), turns.end(), [](auto& a, auto& b) { return a.turn < b.turn; });
    ASSERT_EQ(turns.size(), 3u);
    double last_in = 0;
    for (size_t k = 0; k < 3; ++k) {
      SCOPED_TRACE("session " + std::to_string(id) + " turn " + std::to_string(k));
      const auto& r = turns[k];
      ASSERT_TRUE(r.ok()) << r.error;
      EXPECT_EQ(r.requested_max_tokens, cap[k]);
      EXPECT_EQ(r.tool_ns, pause_ns[k]);
      if (k > 0) {
        EXPECT_EQ(r.ready_ns, turns[k - 1].done_ns + pause_ns[k]);
      }
      EXPECT_GE(r.sent_ns, r.ready_ns);
      EXPECT_GT(static_cast<double>(r.prompt_tokens), last_in);  // the context grows as recorded
      last_in = static_cast<double>(r.prompt_tokens);
    }
    EXPECT_TRUE(turns[2].last_turn);
  }
  const metrics::Row* tool = out.metrics.row("TaskToolTime");
  ASSERT_TRUE(tool && tool->stats);
  EXPECT_NEAR(tool->stats->mean, 150, 1e-6);  // 100 + 50 ms per session
}

// Agent loops write tool messages in OpenAI chat's shape: another endpoint is refused up front.
TEST_F(AgentLoopTest, AnEndpointWithoutToolMessagesIsRefused) {
  const fs::path file = agent_file(dir_, 1);
  runner::RunConfig c = testing::RunSettings()
                            .url("http://127.0.0.1:1/v1/messages")
                            .dataset("agent:" + file.string());
  const std::vector<std::string> errors = runner::validate(c);
  bool named = false;
  for (const auto& e : errors) named |= e.find("agent:PATH") != std::string::npos;
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace tokbench
