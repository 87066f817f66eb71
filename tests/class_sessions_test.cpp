// Sessions in a traffic class (issue 43, item 1: each class with its own load shape, sessions
// too), as a user runs them: a class's turns= sends multi-turn conversations beside another
// class's single requests — each turn carrying the earlier turns and the real answers, with the
// class's own body fields — against a server that is not ours (llama.cpp's, which closes the
// connection after every stream); a class's dataset=agent:PATH runs agent tasks beside a class
// of single requests against the simulator as the agents' model; and what sessions in a class
// cannot do is refused by name.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "plan/plan.hpp"
#include "support/engine_like.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench {
namespace {

namespace fs = std::filesystem;
using record::kNone;

class ClassSessionsTest : public testing::RunTest {};

TEST_F(ClassSessionsTest, AClassOfConversationsBesideAClassOfSingleRequests) {
  testing::EngineLike llama(testing::EngineKind::Llamacpp);
  const runner::RunOutcome out =
      run(testing::RunSettings()
              .url(llama.url())
              .max_tokens(6)
              .with([](runner::RunConfig& r) {
                r.workload.think_time_ms = 5;
                r.load.classes = {"name=chat,concurrency=2,num-prompts=3,turns=3,priority=0",
                                  "name=batch,concurrency=2,num-prompts=6,priority=10"};
              })
              .build());
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  // The chat class: three sessions of three turns; the batch class: six single requests.
  std::map<std::string, std::set<std::pair<int64_t, int64_t>>> turns;
  std::map<std::string, int> sent;
  for (const auto& r : records(out)) {
    if (r.warmup) continue;
    ASSERT_TRUE(r.ok()) << r.error;
    ++sent[r.traffic_class];
    turns[r.traffic_class].insert({r.session, r.turn});
  }
  EXPECT_EQ(sent, (std::map<std::string, int>{{"batch", 6}, {"chat", 9}}));
  std::set<std::pair<int64_t, int64_t>> conversations;
  for (int64_t s = 0; s < 3; ++s)
    for (int64_t t = 0; t < 3; ++t) conversations.insert({s, t});
  EXPECT_EQ(turns["chat"], conversations);
  EXPECT_EQ(turns["batch"], (std::set<std::pair<int64_t, int64_t>>{{kNone, kNone}}));
  // What the server read: each chat body with its class's priority and its history (1, 3, then
  // 5 messages: the earlier turns and the answers the server gave), each batch body alone.
  std::map<int64_t, std::map<size_t, int>> bodies;  // priority -> message count -> bodies
  simdjson::dom::parser parser;
  for (const std::string& req : llama.requests()) {
    if (req.find("POST /v1/chat/completions") != 0) continue;
    simdjson::dom::element body = parser.parse(req.substr(req.find("\r\n\r\n") + 4));
    int64_t priority = -1;
    if (body["priority"].get_int64().get(priority)) priority = -1;
    const simdjson::dom::array messages = body["messages"].get_array();
    ++bodies[priority][messages.size()];
    if (messages.size() == 5) {  // the answers it gave, back in the history
      EXPECT_EQ(messages.at(1)["role"].get_string().value(), "assistant");
      EXPECT_FALSE(messages.at(1)["content"].get_string().value().empty());
    }
  }
  EXPECT_EQ(bodies, (std::map<int64_t, std::map<size_t, int>>{{0, {{1, 3}, {3, 3}, {5, 3}}},
                                                              {10, {{1, 6}}}}));
  // Its figures are the class's: the chat class's requests are its turns.
  EXPECT_EQ(result(out)["classes"]["chat"]["requests"].get_int64().value(), 9);
}

TEST_F(ClassSessionsTest, AClassOfAgentTasksBesideAClassOfSingleRequests) {
  testing::Sim sim({"--tool-rounds", "1", "--ttft-ms", "5", "--tpot-ms", "1"});
  const fs::path file = dir_ / "agents.jsonl";
  std::ofstream(file)
      << R"({"id":"a","goal":"What is the weather in Oslo?","tools":[{"type":"function",)"
         R"("function":{"name":"get_weather","parameters":{"type":"object","properties":)"
         R"({"city":{"type":"string"}}}}}],"stubs":{"get_weather":{"latency_ms":10,)"
         R"("result":"sunny in {{city}}"}}})"
         "\n";
  const runner::RunOutcome out = run(
      testing::RunSettings()
          .url(sim.url("/v1/chat/completions"))
          .max_tokens(16)
          .with([&](runner::RunConfig& r) {
            r.load.classes = {fmt::format("name=agent,concurrency=2,num-prompts=4,dataset=agent:{}",
                                          file.string()),
                              "name=batch,concurrency=2,num-prompts=5"};
          })
          .build());
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  std::map<int64_t, std::vector<record::RequestRecord>> tasks;
  int batch = 0;
  for (const auto& r : records(out)) {
    if (r.warmup) continue;
    ASSERT_TRUE(r.ok()) << r.error;
    if (r.traffic_class == "batch") {
      ++batch;
      EXPECT_EQ(r.session, kNone);
      continue;
    }
    EXPECT_EQ(r.traffic_class, "agent");
    tasks[r.session].push_back(r);
  }
  EXPECT_EQ(batch, 5);
  ASSERT_EQ(tasks.size(), 4u);  // four runs of the one task, each a call then the answer
  for (auto& [id, turns] : tasks) {
    SCOPED_TRACE(id);
    std::sort(turns.begin(), turns.end(), [](auto& a, auto& b) { return a.turn < b.turn; });
    ASSERT_EQ(turns.size(), 2u);
    ASSERT_EQ(turns[0].tool_calls.size(), 1u);
    EXPECT_EQ(turns[0].tool_calls[0].name, "get_weather");
    EXPECT_EQ(turns[1].tool_ns, 10'000'000);  // its stub waited for, as a run's agent loop does
    EXPECT_EQ(turns[1].task_end, core::TaskEnd::Answer);
  }
}

TEST(ClassSessions, WhatSessionsInAClassCannotDoIsRefusedNamingTheFix) {
  auto problems = [](std::string session_class, auto edit) {
    runner::RunConfig c;
    c.load.classes = {std::move(session_class), "name=b,concurrency=2"};
    edit(c);
    std::string all;
    for (const auto& e : runner::validate(c)) all += e + "\n";
    return all;
  };
  const auto none = [](runner::RunConfig&) {};
  EXPECT_EQ(problems("name=a,concurrency=2,turns=3", none), "");
  EXPECT_EQ(problems("name=a,concurrency=2,turns=3", [](auto& c) { c.workload.think_time_ms = 9; }),
            "");
  EXPECT_NE(problems("name=a,request-rate=2,turns=3", none)
                .find("--class name=a: sessions send each turn when the last answer is in, "
                      "concurrency= sessions at once: drop its request-rate="),
            std::string::npos);
  EXPECT_NE(problems("name=a,concurrency=2,turns=3", [](auto& c) { c.load.duration_s = 5; })
                .find("drop the run's --duration-s"),
            std::string::npos);
  EXPECT_NE(problems("name=a,concurrency=2,turns=2,dataset=agent:x.jsonl", none)
                .find("dataset=agent:x.jsonl sets its own turns and pace: drop turns="),
            std::string::npos);
  EXPECT_NE(
      problems("name=a,concurrency=2,turns=2", [](auto& c) { c.target.endpoint = "embeddings"; })
          .find("--class name=a: its sessions are conversations; use an endpoint"),
      std::string::npos);
  EXPECT_NE(problems("name=a,concurrency=2", [](auto& c) { c.workload.turns = 3; })
                .find("give them to a class, turns=N or dataset=agent:PATH"),
            std::string::npos);
  EXPECT_NE(problems("name=a,concurrency=2", [](auto& c) { c.workload.think_time_ms = 9; })
                .find("or a --class with turns=N"),
            std::string::npos);
  // A class's sessions with no count: one pass over its prompts, a session per `turns` of them.
  runner::RunConfig c;
  c.load.classes = {"name=a,concurrency=2,turns=4", "name=b,concurrency=2,num-prompts=7"};
  runner::RunPlan plan = runner::make_plan(c, nullptr);
  plan.cfg.load.num_prompts = 20;  // what the target settled for the run's dataset
  EXPECT_EQ(runner::class_plan(plan, 0).cfg.load.num_prompts, 5);
  EXPECT_EQ(runner::class_plan(plan, 0).cfg.workload.turns, 4);
  EXPECT_TRUE(runner::class_plan(plan, 0).cfg.workload.sessions());
  EXPECT_EQ(runner::class_plan(plan, 1).cfg.workload.turns, 0);
}

}  // namespace
}  // namespace tokbench
