// Tool calls and structured output end to end (issue 42, items 1 and 5): against the simulator, the
// valid and matched shares are its seeded rates exactly, with their Wilson intervals, in
// result.json, the CSV and the console; against a foreign loopback server (vLLM's stream shape, not
// the simulator's), calls split over many chunks — inside an escape, two calls interleaved — are
// reassembled byte for byte, streamed and whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "metrics/answers.hpp"
#include "plan/plan.hpp"
#include "support/canned_server.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTools =
    R"([{"type":"function","function":{"name":"get_weather","parameters":{"type":"object",)"
    R"("properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["c","f"]}},)"
    R"("required":["city"]}}},)"
    R"({"type":"function","function":{"name":"add","parameters":{"type":"object","properties":)"
    R"({"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],)"
    R"("additionalProperties":false}}}])";

class ToolCallsTest : public testing::RunTest {
 protected:
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  // 40 questions, each with its reference call: weather on even lines, a sum on odd ones.
  fs::path questions() {
    std::string text;
    for (int q = 0; q < 40; ++q)
      text += q % 2 == 0 ? R"({"question":"Weather in town )" + std::to_string(q) +
                               R"(?","tool_call":{"name":"get_weather","arguments":{"city":"Town)" +
                               std::to_string(q) + R"(","unit":"c"}}})" + "\n"
                         : R"({"question":"Add )" + std::to_string(q) +
                               R"( and 3","tool_call":{"name":"add","arguments":{"a":)" +
                               std::to_string(q) + R"(,"b":3}}})" + "\n";
    return write("questions.jsonl", text);
  }
};

// Every API the simulator answers with calls, streamed and whole: the same exact shares.
TEST_F(ToolCallsTest, SharesAgainstTheSimulatorAreItsSeededRates) {
  const fs::path qa = questions();
  testing::Sim sim({"--answers", "tools:" + qa.string(), "--tool-invalid-rate", "0.25",
                    "--wrong-rate", "0.125", "--ttft-ms", "5", "--tpot-ms", "2"});
  const fs::path tools = write("tools.json", kTools);
  const std::pair<std::string, std::string> apis[] = {{"/v1/chat/completions", "tool_calls"},
                                                      {"/v1/responses", "completed"},
                                                      {"/v1/messages", "tool_use"}};
  for (const auto& [path, finish] : apis)
    for (const bool stream : {true, false}) {
      SCOPED_TRACE(path + (stream ? " stream" : " whole body"));
      auto c = testing::RunSettings()
                   .url(sim.url(path))
                   .dataset("qa:" + qa.string())
                   .stream(stream)
                   .concurrency(4)
                   .prompts(40)
                   .build();
      c.request.tools = tools.string();
      const runner::RunOutcome out = run(c);
      EXPECT_TRUE(testing::IsValidUnlessBusy(out));
      // ceil(0.25·40) = 10 invalid; ceil(0.375·40) - 10 = 5 wrong; 25 right.
      const metrics::ToolTally& t = out.metrics.quality.tools;
      EXPECT_EQ(t.offered, 40);
      EXPECT_EQ(t.calls, 40);
      EXPECT_EQ(t.valid, 30);
      EXPECT_EQ(t.bad_json + t.invalid, 10);
      EXPECT_GT(t.bad_json, 0);
      EXPECT_GT(t.invalid, 0);
      EXPECT_EQ(t.matched, 25);
      EXPECT_EQ(t.mismatched, 15);
      EXPECT_EQ(t.first_call_n, stream ? 40 : 0);  // a whole body has no first token to time
      const metrics::WilsonInterval v = metrics::wilson_interval(30, 40);
      auto shares = result(out)["quality"]["tools"];
      EXPECT_DOUBLE_EQ(shares["valid"]["share"].get_double().value(), 0.75);
      EXPECT_DOUBLE_EQ(shares["valid"]["interval"].at(0).get_double().value(), v.low);
      EXPECT_DOUBLE_EQ(shares["valid"]["interval"].at(1).get_double().value(), v.high);
      EXPECT_DOUBLE_EQ(shares["matched"]["share"].get_double().value(), 0.625);
      EXPECT_EQ(shares["matched"]["of"].get_int64().value(), 40);
      // Each record says what it was found worth.
      int right = 0;
      for (const auto& r : records(out)) {
        ASSERT_TRUE(r.tools_offered);
        ASSERT_EQ(r.tool_calls.size(), 1u);
        EXPECT_EQ(r.finish_reason, finish);
        right += r.tool_match == record::AnswerMark::Right;
        if (r.tool_check != core::ToolCheck::Valid) {
          EXPECT_FALSE(r.tool_why.empty());
        }
      }
      EXPECT_EQ(right, 25);
      // Argument tokens: the simulator streams a call's arguments 4 bytes a token, the name with
      // the first piece in chat completions (one event a token: counted exactly, said estimated).
      if (stream && path == "/v1/chat/completions") {
        int64_t pieces = 0;
        for (const auto& r : records(out))
          pieces += (static_cast<int64_t>(r.tool_calls[0].arguments.size()) + 3) / 4;
        EXPECT_EQ(t.argument_answers, 40);
        EXPECT_EQ(t.argument_tokens, pieces);
        EXPECT_EQ(t.argument_tokens_estimated, 40);
      }
      EXPECT_EQ(t.argument_answers, stream ? 40 : 0);
      EXPECT_NE(out.metrics.quality.tools_text().find("valid 0.750"), std::string::npos)
          << out.metrics.quality.tools_text();
    }
}

// vLLM's tool-call stream: a first delta with the id, type and name and empty arguments, then
// argument text in pieces, one ending inside an escape (\\ then "); a second call
// (index 1) interleaved with the first; finish_reason tool_calls; usage; [DONE].
std::string vllm_tool_stream() {
  auto ev = [](const std::string& delta, const std::string& finish = "null") {
    return R"(data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":)" +
           delta + R"(,"finish_reason":)" + finish + "}]}\n\n";
  };
  auto args = [](int i, const std::string& piece) {
    return R"({"tool_calls":[{"index":)" + std::to_string(i) + R"(,"function":{"arguments":)" +
           piece + "}}]}";
  };
  std::string body = ev(R"({"role":"assistant","content":null})");
  body += ev(
      R"({"tool_calls":[{"index":0,"id":"call_0","type":"function","function":{"name":"get_weather","arguments":""}}]})");
  body += ev(args(0, R"("{\"city\": \"Caf")"));
  body += ev(
      R"({"tool_calls":[{"index":1,"id":"call_1","type":"function","function":{"name":"add","arguments":"{\"a\""}}]})");
  body += ev(args(0, "\"\xc3\xa9 \\\\\""));  // "é \": the piece ends inside an escape
  body += ev(args(1, R"(": 1, \"b\": 2}")"));
  body += ev(args(0, R"("\"x\\")"));
  body += ev(args(0, R"("\"\"}")"));
  body += ev("{}", R"("tool_calls")");
  body +=
      R"(data: {"id":"c","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":9,"total_tokens":14}})"
      "\n\ndata: [DONE]\n\n";
  return body;
}

// The same two calls as each API streams them (its own shape, not the simulator's): pieces that
// end inside an escape, a text block or item before them (Anthropic, Responses), the second call
// opened before the first is done; and whole, as each API's body carries them.
std::string responses_tool_stream() {
  auto ev = [](const std::string& json) { return "data: " + json + "\n\n"; };
  auto delta = [&](int i, const std::string& piece) {
    return ev(R"({"type":"response.function_call_arguments.delta","output_index":)" +
              std::to_string(i) + R"(,"delta":)" + piece + "}");
  };
  std::string b =
      ev(R"({"type":"response.created","response":{"id":"r1","status":"in_progress"}})");
  b += ev(R"({"type":"response.output_item.added","output_index":0,"item":{"type":"message"}})");
  b += ev(R"({"type":"response.output_text.delta","output_index":0,"delta":"Checking."})");
  b += ev(
      R"({"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","call_id":"c1","name":"get_weather","arguments":""}})");
  b += delta(1, R"("{\"city\": \"Caf")");
  b += ev(
      R"({"type":"response.output_item.added","output_index":2,"item":{"type":"function_call","call_id":"c2","name":"add","arguments":""}})");
  b += delta(1, "\"\xc3\xa9 \\\\\"");
  b += delta(2, R"("{\"a\": 1, \"b\": 2}")");
  b += delta(1, R"("\"x\\")");
  b += delta(1, R"("\"\"}")");
  b += ev(
      R"({"type":"response.completed","response":{"id":"r1","status":"completed","usage":{"input_tokens":5,"output_tokens":9}}})");
  return b;
}

std::string anthropic_tool_stream() {
  auto ev = [](const std::string& name, const std::string& json) {
    return "event: " + name + "\ndata: " + json + "\n\n";
  };
  auto delta = [&](int i, const std::string& piece) {
    return ev("content_block_delta",
              R"({"type":"content_block_delta","index":)" + std::to_string(i) +
                  R"(,"delta":{"type":"input_json_delta","partial_json":)" + piece + "}}");
  };
  std::string b = ev(
      "message_start",
      R"({"type":"message_start","message":{"id":"m1","usage":{"input_tokens":5,"output_tokens":1}}})");
  b += ev("content_block_start",
          R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})");
  b += ev(
      "content_block_delta",
      R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking."}})");
  b += ev(
      "content_block_start",
      R"({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"get_weather","input":{}}})");
  b += delta(1, R"("{\"city\": \"Caf")");
  b += delta(1, "\"\xc3\xa9 \\\\\"");
  b += delta(1, R"("\"x\\")");
  b += delta(1, R"("\"\"}")");
  b += ev(
      "content_block_start",
      R"({"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t2","name":"add","input":{}}})");
  b += delta(2, R"("{\"a\": 1, \"b\": 2}")");
  b += ev(
      "message_delta",
      R"({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}})");
  b += ev("message_stop", R"({"type":"message_stop"})");
  return b;
}

struct ForeignTools {
  std::string path, stream, whole;
  std::string first_whole, second_whole;  ///< the calls as the body carries them
  std::string sent_tools;                 ///< how the tools are written in this API's body
};

TEST_F(ToolCallsTest, AForeignStreamIsReassembledByteForByte) {
  const std::string first = "{\"city\": \"Caf\xc3\xa9 \\\"x\\\"\"}", second = R"({"a": 1, "b": 2})";
  const ForeignTools apis[] = {
      {"/v1/chat/completions", vllm_tool_stream(),
       R"({"id":"c","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls",)"
       R"("message":{"role":"assistant","content":null,"tool_calls":[)"
       R"({"id":"call_0","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Caf\u00e9 \\\"x\\\"\"}"}},)"
       R"({"id":"call_1","type":"function","function":{"name":"add","arguments":"{\"a\": 1, \"b\": 2}"}}]}}],)"
       R"("usage":{"prompt_tokens":5,"completion_tokens":9,"total_tokens":14}})",
       first, second, R"("tools":[{"type":"function","function":{"name":"get_weather")"},
      {"/v1/responses", responses_tool_stream(),
       R"({"id":"r1","status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"Checking."}]},)"
       R"({"type":"function_call","name":"get_weather","arguments":"{\"city\": \"Caf\u00e9 \\\"x\\\"\"}"},)"
       R"({"type":"function_call","name":"add","arguments":"{\"a\": 1, \"b\": 2}"}],)"
       R"("usage":{"input_tokens":5,"output_tokens":9}})",
       first, second, R"("tools":[{"type":"function","name":"get_weather")"},
      {"/v1/messages", anthropic_tool_stream(),
       "{\"type\":\"message\",\"id\":\"m1\",\"stop_reason\":\"tool_use\",\"content\":[{\"type\":"
       "\"text\",\"text\":\"Checking.\"},{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":"
       "\"get_weather\",\"input\":{\"city\": \"Caf\xc3\xa9 \\\"x\\\"\"}},{\"type\":\"tool_use\","
       "\"id\":\"t2\",\"name\":\"add\",\"input\":{\"a\": 1, \"b\": 2}}],\"usage\":{"
       "\"input_tokens\":5,\"output_tokens\":9}}",
       "{\"city\":\"Caf\xc3\xa9 \\\"x\\\"\"}", R"({"a":1,"b":2})",
       R"("tools":[{"name":"get_weather")"},
  };
  const fs::path qa = write(
      "one.jsonl",
      R"({"question":"Weather?","tool_call":{"name":"get_weather","arguments":{"city":"Café \"x\""}}})"
      "\n");
  const fs::path tools = write("tools.json", kTools);
  for (const ForeignTools& api : apis)
    for (const bool stream : {true, false}) {
      SCOPED_TRACE(api.path + (stream ? " stream" : " whole body"));
      testing::CannedServer server([&](const std::string& path) {
        if (path == "/v1/models")
          return testing::CannedServer::http(200, "application/json", R"({"data":[{"id":"m"}]})");
        return stream ? testing::CannedServer::http(200, "text/event-stream", api.stream)
                      : testing::CannedServer::http(200, "application/json", api.whole);
      });
      auto c = testing::RunSettings()
                   .url(server.url(api.path))
                   .dataset("qa:" + qa.string())
                   .stream(stream)
                   .prompts(3)
                   .build();
      c.request.tools = tools.string();
      c.request.tool_choice = "required";
      const runner::RunOutcome out = run(c);
      ASSERT_EQ(out.metrics.quality.tools.offered, 3);
      for (const auto& r : records(out)) {
        ASSERT_EQ(r.tool_calls.size(), 2u);
        EXPECT_EQ(r.tool_calls[0].name, "get_weather");
        EXPECT_EQ(r.tool_calls[0].arguments, stream ? first : api.first_whole);
        EXPECT_EQ(r.tool_calls[1].name, "add");
        EXPECT_EQ(r.tool_calls[1].arguments, stream ? second : api.second_whole);
        EXPECT_EQ(r.tool_check, core::ToolCheck::Valid) << r.tool_why;
        EXPECT_EQ(r.tool_match, record::AnswerMark::Wrong);  // two calls where one was asked
      }
      // What was sent: the tools in the API's own shape.
      const std::string sent = server.requests().back();
      EXPECT_NE(sent.find(api.sent_tools), std::string::npos) << sent;
    }
}

// Structured output (issue 42, item 5): answers held to --json-schema are read against it; the
// simulator breaks floor(0.2·K) of the first K, so 4 of 20 are not JSON, on both APIs that take a
// response format; the body asks for it in each one's words.
TEST_F(ToolCallsTest, StructuredAnswersAreCheckedAgainstTheirSchema) {
  testing::Sim sim({"--json-invalid-rate", "0.2", "--ttft-ms", "5", "--tpot-ms", "1"});
  const fs::path schema =
      write("schema.json",
            R"({"type":"object","properties":{"city":{"type":"string"},"n":{"type":"integer",)"
            R"("minimum":2}},"required":["city","n"],"additionalProperties":false})");
  for (const std::string path : {"/v1/chat/completions", "/v1/responses"}) {
    SCOPED_TRACE(path);
    auto c = testing::RunSettings().url(sim.url(path)).concurrency(2).prompts(20).build();
    c.request.json_schema = schema.string();
    const runner::RunOutcome out = run(c);
    EXPECT_TRUE(testing::IsValidUnlessBusy(out));
    const metrics::StructuredTally& st = out.metrics.quality.structured;
    EXPECT_EQ(st.valid, 16);
    EXPECT_EQ(st.bad_json, 4);
    EXPECT_EQ(st.invalid, 0);
    auto shares = result(out)["quality"]["structured"];
    EXPECT_DOUBLE_EQ(shares["valid"]["share"].get_double().value(), 0.8);
    for (const auto& r : records(out))
      EXPECT_TRUE(r.schema_check == core::ToolCheck::Valid ||
                  r.schema_check == core::ToolCheck::BadJson);
  }
  // The refusal: a file that holds no schema object.
  auto c = testing::RunSettings().prompts(1).build();
  c.request.json_schema = write("bad.json", "[1]").string();
  EXPECT_THROW(runner::make_plan(c, nullptr), std::invalid_argument);
}

// A --tools file that is not one names itself and the fix; --tool-choice names a tool it has.
TEST_F(ToolCallsTest, BadToolsAreRefusedByName) {
  auto c = testing::RunSettings().prompts(1).build();
  c.request.tools = write("bad.json", R"({"name":"x"})").string();
  try {
    runner::make_plan(c, nullptr);
    ADD_FAILURE() << "accepted a tools file that is not an array";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--tools " + c.request.tools), std::string::npos)
        << e.what();
  }
  c.request.tools = write("tools.json", kTools).string();
  c.request.tool_choice = "nope";
  EXPECT_THROW(runner::make_plan(c, nullptr), std::invalid_argument);
  c.request.tool_choice = "add";
  EXPECT_NO_THROW(runner::make_plan(c, nullptr));
}

}  // namespace
}  // namespace tokbench
