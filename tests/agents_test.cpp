// Agent tasks' parts (issue 42, item 2): the stub rules (core/agent), the agent file's reader
// (dataset/agent) and its errors, and the loop's decisions (load/agents) — the calls answered by
// their stubs after the slowest one's latency, a task ended by an answer, its turn cap or a
// failed turn, each marked on its last record.
#include "load/agents.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "core/agent.hpp"
#include "dataset/dataset.hpp"

namespace tokbench {
namespace {

TEST(AgentStubs, TemplatesTakeTheCallsArguments) {
  EXPECT_EQ(core::fill_template("{{city}} is {{t}} C, {{missing}}.", R"({"city":"Oslo","t":4.5})"),
            "Oslo is 4.5 C, .");
  EXPECT_EQ(core::fill_template(R"({"x":{{o}}})", R"({"o":{"a":[1,2]}})"), R"({"x":{"a":[1,2]}})");
  EXPECT_EQ(core::fill_template("no places, {{ unclosed", "not json"), "no places, {{ unclosed");
}

TEST(AgentStubs, LatenciesFollowTheirDistribution) {
  core::StubLatency fixed{core::StubLatency::Kind::Fixed, 40, 0};
  EXPECT_EQ(fixed.ns_at(0.9), 40'000'000);
  core::StubLatency uniform{core::StubLatency::Kind::Uniform, 20, 30};
  EXPECT_EQ(uniform.ns_at(0), 20'000'000);
  EXPECT_EQ(uniform.ns_at(0.5), 25'000'000);
  core::StubLatency exponential{core::StubLatency::Kind::Exponential, 10, 0};
  EXPECT_NEAR(static_cast<double>(exponential.ns_at(1 - std::exp(-1.0))), 10e6, 1);
}

TEST(AgentStubs, AToolWithoutAStubIsAnsweredAtOnceWithAnError) {
  core::AgentTask t;
  t.stubs.push_back({"get_weather", {core::StubLatency::Kind::Fixed, 40, 0}, "sunny in {{city}}"});
  const auto ok = core::run_stub(t, {"get_weather", R"({"city":"Rome"})"}, 7, 0, 0, 0);
  EXPECT_EQ(ok.result, "sunny in Rome");
  EXPECT_EQ(ok.latency_ns, 40'000'000);
  const auto bad = core::run_stub(t, {"get_\"time", "{}"}, 7, 0, 0, 0);
  EXPECT_EQ(bad.latency_ns, 0);
  EXPECT_EQ(bad.result, R"({"error":"no tool named 'get_\"time' here"})");
}

constexpr const char* kTool =
    R"([{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}])";

dataset::Dataset parse(const std::string& text) {
  std::istringstream in(text);
  return dataset::parse_agents("tasks.jsonl", in, ".");
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(AgentFile, ReadsTasksAndTheirFirstRequest) {
  const auto d =
      parse(std::string(R"({"id":"a","system":"S","goal":"G","max_turns":3,"tools":)") + kTool +
            R"(,"stubs":{"f":{"latency_ms":{"exponential":5},"result":{"ok":1}}}})");
  ASSERT_EQ(d.agents.size(), 1u);
  const core::AgentTask& t = d.agents[0];
  EXPECT_EQ(t.id, "a");
  EXPECT_EQ(t.max_turns, 3);
  EXPECT_EQ(t.stubs.at(0).result, R"({"ok":1})");  // an object result is its JSON text
  EXPECT_EQ(t.stubs.at(0).latency.kind, core::StubLatency::Kind::Exponential);
  ASSERT_EQ(d.items.size(), 1u);
  ASSERT_TRUE(d.items[0].conversation());
  EXPECT_EQ(d.items[0].conversation()->messages_json,
            R"([{"role":"system","content":"S"},{"role":"user","content":"G"}])");
  EXPECT_EQ(d.items[0].tools, t.tools);
}

TEST(AgentFile, ErrorsNameTheLineAndTheFix) {
  EXPECT_NE(error_of(std::string(R"({"goal":"G","tools":)") + kTool + R"(,"stubs":{}})")
                .find("tasks.jsonl:1: tool \"f\" has no stub: add \"stubs\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"tools":[],"stubs":{}})").find("needs a \"goal\""), std::string::npos);
  EXPECT_NE(error_of(std::string("\n") + R"({"goal":"G","tools":)" + kTool +
                     R"(,"stubs":{"f":{"latency_ms":"slow","result":"x"}}})")
                .find("tasks.jsonl:2: stub \"f\": \"latency_ms\" must be a number"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(R"({"goal":"G","tools":)") + kTool +
                     R"(,"stubs":{"f":{"result_file":"nowhere.txt"}}})")
                .find("cannot read \"result_file\""),
            std::string::npos);
  EXPECT_NE(error_of("").find("has no tasks"), std::string::npos);
}

// The loop's decisions, with the clock in the test's hands.
class AgentSourceTest : public ::testing::Test {
 protected:
  AgentSourceTest() {
    core::AgentTask t;
    t.max_turns = 3;
    t.stubs.push_back({"slow", {core::StubLatency::Kind::Fixed, 50, 0}, "s"});
    t.stubs.push_back({"fast", {core::StubLatency::Kind::Fixed, 10, 0}, "f={{x}}"});
    tasks_.push_back(t);
  }
  load::AgentSource make(int64_t count) {
    return load::AgentSource(tasks_, count, 1, 1, [this](const load::AgentTurn& t) {
      seen_.push_back(t);
      seen_steps_.push_back(*t.steps);
      return core::PlannedRequest{};
    });
  }
  static record::RequestRecord answer(const load::Pull& p, int64_t done_ns,
                                      std::vector<core::ToolCall> calls, bool ok = true) {
    record::RequestRecord r;
    r.index = p.request.index;
    r.done_ns = done_ns;
    r.tool_calls = std::move(calls);
    r.output_text = "thinking{}";  // the text, then the calls' arguments
    r.content_text = "thinking";
    if (!ok) r.outcome = record::Outcome::HttpStatus;
    return r;
  }
  std::vector<core::AgentTask> tasks_;
  std::vector<load::AgentTurn> seen_;
  std::vector<std::vector<core::AgentStep>> seen_steps_;
};

TEST_F(AgentSourceTest, CallsWaitForTheSlowestStubThenAnAnswerEndsTheTask) {
  auto src = make(1);
  load::Pull a = src.next(100);
  ASSERT_EQ(a.kind, load::Pull::Kind::Request);
  EXPECT_EQ(a.request.facts.ready_ns, 100);
  EXPECT_EQ(a.request.facts.tool_ns, 0);
  EXPECT_EQ(src.next(100).kind, load::Pull::Kind::Later);  // its answer is not in
  auto r = answer(a, 1'000, {{"slow", "{}"}, {"fast", R"({"x":2})"}});
  src.completed(r);
  EXPECT_FALSE(r.last_turn);
  const load::Pull wait = src.next(2'000);
  ASSERT_EQ(wait.kind, load::Pull::Kind::Later);
  EXPECT_EQ(wait.retry_at_ns, 1'000 + 50'000'000);  // the slower of the two side-by-side calls
  load::Pull b = src.next(1'000 + 50'000'000);
  ASSERT_EQ(b.kind, load::Pull::Kind::Request);
  EXPECT_EQ(b.request.facts.turn, 1);
  EXPECT_EQ(b.request.facts.tool_ns, 50'000'000);
  EXPECT_EQ(b.request.facts.ready_ns, 1'000 + 50'000'000);
  ASSERT_EQ(seen_steps_.back().size(), 1u);
  const core::AgentStep& step = seen_steps_.back()[0];
  EXPECT_EQ(step.answer, "thinking");
  EXPECT_EQ(step.results, (std::vector<std::string>{"s", "f=2"}));
  auto end = answer(b, 60'000'000, {});
  src.completed(end);
  EXPECT_TRUE(end.last_turn);
  EXPECT_EQ(end.task_end, core::TaskEnd::Answer);
  EXPECT_EQ(src.next(60'000'000).kind, load::Pull::Kind::Done);
}

TEST_F(AgentSourceTest, TheTurnCapAndAFailedTurnEndATask) {
  auto src = make(2);
  int64_t now = 0;
  for (int turn = 0; turn < 3; ++turn) {
    load::Pull p = src.next(now);
    ASSERT_EQ(p.kind, load::Pull::Kind::Request);
    auto r = answer(p, now + 1, {{"fast", "{}"}});
    src.completed(r);
    EXPECT_EQ(r.last_turn, turn == 2);
    if (turn == 2) {
      EXPECT_EQ(r.task_end, core::TaskEnd::TurnCap);
    }
    now += 100'000'000;
  }
  load::Pull p = src.next(now);  // the second task
  ASSERT_EQ(p.kind, load::Pull::Kind::Request);
  EXPECT_EQ(p.request.facts.session, 1);
  auto failed = answer(p, now + 1, {{"fast", "{}"}}, false);
  src.completed(failed);
  EXPECT_TRUE(failed.last_turn);
  EXPECT_EQ(failed.task_end, core::TaskEnd::Failed);
  EXPECT_EQ(src.next(now + 2).kind, load::Pull::Kind::Done);
}

}  // namespace
}  // namespace tokbench

namespace tokbench {
namespace {

dataset::Dataset recorded(const std::string& text) {
  std::istringstream in(text);
  return dataset::parse_agent_trace("log.jsonl", in);
}

// An OpenAI chat log: the messages as written (less their timestamps), a turn per answer.
TEST(AgentTrace, AChatLogReplaysEachAnswerWithItsContextAndPause) {
  const auto d = recorded(
      R"({"id":"s1","tools":[{"type":"function","function":{"name":"ls"}}],"messages":[)"
      R"({"role":"system","content":"S","timestamp":0},)"
      R"({"role":"user","content":"list","timestamp":1000},)"
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",)"
      R"("function":{"name":"ls","arguments":"{}"}}],"timestamp":3000,"usage":{"completion_tokens":12}},)"
      R"({"role":"tool","tool_call_id":"c1","content":"a b","timestamp":3500},)"
      R"({"role":"assistant","content":"two files","timestamp":5000,"usage":{"completion_tokens":20}}]})"
      "\n");
  ASSERT_EQ(d.recorded.size(), 1u);
  const auto& r = d.recorded[0];
  EXPECT_EQ(r.id, "s1");
  ASSERT_TRUE(r.tools);
  ASSERT_EQ(r.turns.size(), 2u);
  EXPECT_EQ(r.turns[0].context, 2u);
  EXPECT_EQ(r.turns[0].think_ns, 0);
  EXPECT_EQ(r.turns[0].max_tokens, 12);
  EXPECT_EQ(r.turns[1].context, 4u);
  EXPECT_EQ(r.turns[1].think_ns, 500'000'000);  // the tool answered 500 ms after the call
  EXPECT_EQ(r.turns[1].max_tokens, 20);
  EXPECT_EQ(r.context_json(2),
            R"([{"role":"system","content":"S"},{"role":"user","content":"list"}])");
  EXPECT_EQ(d.conversations, (std::vector<std::pair<int64_t, int64_t>>{{0, 2}}));
  ASSERT_EQ(d.items.size(), 1u);
  EXPECT_EQ(d.items[0].conversation()->messages_json, r.context_json(2));
}

// A Claude Code transcript: events grouped by session, an answer's lines joined, tool_use and
// tool_result as chat's tool calls and tool messages; other events and side chains left out.
TEST(AgentTrace, AClaudeCodeTranscriptBecomesChatMessages) {
  const auto d = recorded(
      R"({"type":"summary","summary":"x","leafUuid":"u0"})"
      "\n"
      R"({"type":"user","sessionId":"A","timestamp":"2026-01-02T10:00:00Z","message":{"role":"user","content":"fix it"}})"
      "\n"
      R"({"type":"assistant","sessionId":"A","timestamp":"2026-01-02T10:00:02.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Looking."}]}})"
      "\n"
      R"({"type":"assistant","sessionId":"A","timestamp":"2026-01-02T10:00:03.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"output_tokens":30}}})"
      "\n"
      R"({"type":"user","sessionId":"A","timestamp":"2026-01-02T10:00:04.500Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a.c"}]}]}})"
      "\n"
      R"({"type":"assistant","sessionId":"A","isSidechain":true,"timestamp":"2026-01-02T10:00:05Z","message":{"id":"s","role":"assistant","content":"sub"}})"
      "\n"
      R"({"type":"assistant","sessionId":"A","timestamp":"2026-01-02T10:00:06+00:00","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Done."}]}})"
      "\n");
  ASSERT_EQ(d.recorded.size(), 1u);
  const auto& r = d.recorded[0];
  EXPECT_EQ(r.id, "A");
  ASSERT_EQ(r.messages.size(), 4u);
  EXPECT_EQ(r.messages[0], R"({"role":"user","content":"fix it"})");
  EXPECT_EQ(
      r.messages[1],
      R"({"role":"assistant","content":"Looking.","tool_calls":[{"id":"t1","type":"function",)"
      R"("function":{"name":"Bash","arguments":"{\"command\":\"ls\"}"}}]})");
  EXPECT_EQ(r.messages[2], R"({"role":"tool","tool_call_id":"t1","content":"a.c"})");
  EXPECT_EQ(r.messages[3], R"({"role":"assistant","content":"Done."})");
  ASSERT_EQ(r.turns.size(), 2u);
  EXPECT_EQ(r.turns[0].context, 1u);
  EXPECT_EQ(r.turns[0].max_tokens, 30);
  EXPECT_EQ(r.turns[1].context, 3u);
  EXPECT_EQ(r.turns[1].think_ns, 1'500'000'000);  // the result 1.5 s after the answer's last line
  EXPECT_NE(d.summary.find("2 other event(s) left out"), std::string::npos) << d.summary;
}

// Lines join into one message only while they continue it: a thinking-only line starts its
// answer without a message, and a tool result between two lines of one id splits them.
TEST(AgentTrace, AnAnswersLinesJoinOnlyWhileTheyContinueIt) {
  auto line = [](const std::string& type, const std::string& id, const std::string& content) {
    return R"({"type":")" + type + R"(","sessionId":"S","message":{)" +
           (id.empty() ? "" : R"("id":")" + id + R"(",)") + R"("content":)" + content + "}}\n";
  };
  const auto d = recorded(
      line("user", "", R"("go")") + line("assistant", "m1", R"([{"type":"text","text":"A"}])") +
      line("assistant", "m2", R"([{"type":"thinking","thinking":"hm"}])") +
      line("assistant", "m2", R"([{"type":"text","text":"B"}])") +
      line("assistant", "m3", R"([{"type":"tool_use","id":"a","name":"f","input":{}}])") +
      line("user", "", R"([{"type":"tool_result","tool_use_id":"a","content":"1"}])") +
      line("assistant", "m3", R"([{"type":"tool_use","id":"b","name":"g","input":{}}])"));
  ASSERT_EQ(d.recorded.size(), 1u);
  const auto& m = d.recorded[0].messages;
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(m[1], R"({"role":"assistant","content":"A"})");
  EXPECT_EQ(m[2], R"({"role":"assistant","content":"B"})");
  EXPECT_NE(m[3].find(R"("id":"a")"), std::string::npos);
  EXPECT_EQ(m[3].find(R"("id":"b")"), std::string::npos);
  EXPECT_EQ(m[4], R"({"role":"tool","tool_call_id":"a","content":"1"})");
  EXPECT_NE(m[5].find(R"("id":"b")"), std::string::npos);
  EXPECT_EQ(m[5].find(R"("id":"a")"), std::string::npos);
}

TEST(AgentTrace, ALineOfNeitherShapeIsNamed) {
  try {
    recorded("{\"messages\":[]}\n{\"hello\":1}\n");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("log.jsonl:2: neither a chat log"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tokbench
