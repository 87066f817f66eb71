// mock/: the simulator's timing model and its wire format, checked over loopback against the
// OpenAI/vLLM conventions: role chunk first, usage chunk with choices [] only when asked,
// data: [DONE] last.
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

#include "mock/mock_server.hpp"
#include "mockapi/mock_response.hpp"
#include "net/http_get.hpp"
#include "support/http_post.hpp"
#include "support/sim_process.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::mock {
namespace {

using testing::http_post;

using testing::sse_data;

TEST(MockPlan, IgnoreEosProducesMaxTokens) {
  MockSettings s;
  CompletionRequest r;
  r.max_tokens = 5;
  r.ignore_eos = true;
  const auto p = make_plan(r, s, 1);
  EXPECT_EQ(p.tokens, 5);
  EXPECT_EQ(p.finish_reason, "length");
}

TEST(MockPlan, EosStopsEarlySeededAndMinTokensHolds) {
  MockSettings s;
  s.eos_min_tokens = 5;
  s.eos_max_tokens = 10;
  CompletionRequest r;
  r.max_tokens = 100;
  const auto a = make_plan(r, s, 3);
  EXPECT_GE(a.tokens, 5);
  EXPECT_LE(a.tokens, 10);
  EXPECT_EQ(a.finish_reason, "stop");
  EXPECT_EQ(make_plan(r, s, 3).tokens, a.tokens);  // deterministic
  r.min_tokens = 50;
  EXPECT_EQ(make_plan(r, s, 3).tokens, 50);
}

TEST(StepModelTest, PlainStepsAreOneTokenPerTpot) {
  MockSettings s;
  s.tpot_ms = 10;
  s.ttft_ms = 50;
  StepModel m(s, 1);
  EXPECT_DOUBLE_EQ(m.ttft_ms(), 50);
  const Step st = m.next({1, 0});
  EXPECT_DOUBLE_EQ(st.ms, 10);
  EXPECT_EQ(st.tokens, 1);
  EXPECT_EQ(st.drafted, 0);
  // min_tokens costs nothing without speculative decoding.
  EXPECT_DOUBLE_EQ(m.next({4, 4}).ms, 10);
}

TEST(StepModelTest, BatchSlowdownGrowsWithRunningRequests) {
  MockSettings s;
  s.tpot_ms = 10;
  s.batch_slowdown_ms = 0.5;
  StepModel m(s, 1);
  EXPECT_DOUBLE_EQ(m.next({1, 0}).ms, 10);
  EXPECT_DOUBLE_EQ(m.next({9, 0}).ms, 14);
}

TEST(StepModelTest, SpeculativeDecodingAcceptanceAndMinTokensPenalty) {
  MockSettings s;
  s.tpot_ms = 10;
  s.spec_tokens = 3;
  s.spec_acceptance = 0.7;
  StepModel m(s, 7);
  double tokens = 0, accepted = 0;
  const int steps = 20000;
  for (int i = 0; i < steps; ++i) {
    const Step st = m.next({1, 0});
    EXPECT_EQ(st.tokens, 1 + st.accepted);
    EXPECT_EQ(st.drafted, 3);
    tokens += st.tokens;
    accepted += st.accepted;
  }
  // E[tokens per step] = 1 + p + p^2 + p^3 = 2.533 for p = 0.7
  EXPECT_NEAR(tokens / steps, 2.533, 0.03);
  EXPECT_NEAR(accepted / (3.0 * steps), 1.533 / 3, 0.01);
  // A running request with min_tokens slows every step of the batch (default: + tpot).
  EXPECT_DOUBLE_EQ(m.next({2, 1}).ms, 20);
  s.min_tokens_step_penalty_ms = 4;
  EXPECT_DOUBLE_EQ(StepModel(s, 1).next({2, 1}).ms, 14);
}

TEST(StepModelTest, JitterIsSeededAndBounded) {
  MockSettings s;
  s.jitter_ms = 2;
  StepModel a(s, 9), b(s, 9);
  for (int i = 0; i < 100; ++i) {
    const double x = a.next({1, 0}).ms;
    EXPECT_DOUBLE_EQ(x, b.next({1, 0}).ms);
    EXPECT_GE(x, 8);
    EXPECT_LE(x, 12);
  }
}

TEST(MockRequest, ListContentUnknownFieldsAndMaxCompletionTokens) {
  std::string why;
  auto r = parse_request(
      R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"abcdefgh"}]}],)"
      R"("max_tokens":9,"max_completion_tokens":7,"foo":{"bar":1},"stream":true})",
      true, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->max_tokens, 7);
  EXPECT_EQ(r->prompt_tokens, 2 + 1);  // ceil(8 / 4) + 1 per message
  EXPECT_TRUE(r->stream);
  EXPECT_FALSE(parse_request(R"({"model":"m"})", true, &why));
  EXPECT_NE(why.find("messages"), std::string::npos);
  EXPECT_FALSE(parse_request("nope", false, &why));
  // As vLLM's SamplingParams (issue 41): a min_tokens above max_tokens is a 400, not served.
  EXPECT_FALSE(
      parse_request(R"({"model":"m","prompt":"a","max_tokens":8,"min_tokens":9})", false, &why));
  EXPECT_EQ(why, "min_tokens must be less than or equal to max_tokens=8, got 9");
  EXPECT_FALSE(parse_request(R"({"model":"m","prompt":"a","min_tokens":-5})", false, &why));
  EXPECT_EQ(why, "min_tokens must be greater than or equal to 0, got -5");
  EXPECT_TRUE(
      parse_request(R"({"model":"m","prompt":"a","max_tokens":8,"min_tokens":8})", false, &why))
      << why;
}

class MockServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MockSettings s;
    s.ttft_ms = 5;
    s.tpot_ms = 1;
    s.port = 0;
    server_ = std::make_unique<MockServer>(s);
    base_ = "http://127.0.0.1:" + std::to_string(server_->start());
  }
  std::unique_ptr<MockServer> server_;
  std::string base_;
};

TEST_F(MockServerTest, ChatStreamIsShapedLikeVllm) {
  const auto res = http_post(
      base_ + "/v1/chat/completions",
      R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"max_tokens":3,)"
      R"("ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}})");
  ASSERT_EQ(res.status, 200);
  const auto ev = sse_data(res.body);
  ASSERT_EQ(ev.size(), 1 + 3 + 1 + 1u);  // role, 3 content, usage, [DONE]
  EXPECT_NE(ev[0].find(R"("delta":{"role":"assistant","content":""})"), std::string::npos);
  EXPECT_NE(ev[1].find(R"("finish_reason":null)"), std::string::npos);
  EXPECT_NE(ev[3].find(R"("finish_reason":"length")"), std::string::npos);
  EXPECT_NE(
      ev[4].find(
          R"("choices":[],"usage":{"prompt_tokens":2,"total_tokens":5,"completion_tokens":3})"),
      std::string::npos);
  EXPECT_EQ(ev[5], "[DONE]");
}

TEST_F(MockServerTest, NoUsageChunkUnlessAsked) {
  const auto res = http_post(
      base_ + "/v1/completions",
      R"({"model":"tokbench-mock","prompt":"hi","max_tokens":2,"ignore_eos":true,"stream":true})");
  const auto ev = sse_data(res.body);
  ASSERT_EQ(ev.size(), 2 + 1u);  // no role chunk for completions, no usage chunk
  EXPECT_NE(ev[0].find(R"("object":"text_completion")"), std::string::npos);
  EXPECT_EQ(res.body.find("usage"), std::string::npos);
  EXPECT_EQ(ev.back(), "[DONE]");
}

TEST_F(MockServerTest, ContinuousUsageIsCumulative) {
  const auto res = http_post(
      base_ + "/v1/chat/completions",
      R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"max_tokens":4,)"
      R"("ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}})");
  const auto ev = sse_data(res.body);
  ASSERT_EQ(ev.size(), 1 + 4 + 1 + 1u);
  EXPECT_NE(ev[0].find(R"("completion_tokens":0)"), std::string::npos);
  EXPECT_NE(ev[2].find(R"("completion_tokens":2)"), std::string::npos);
  EXPECT_NE(ev[4].find(R"("completion_tokens":4)"), std::string::npos);
}

TEST_F(MockServerTest, NonStreamingBodyHasUsage) {
  const auto res = http_post(
      base_ + "/v1/chat/completions",
      R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"max_tokens":4,"ignore_eos":true})");
  ASSERT_EQ(res.status, 200);
  simdjson::dom::parser p;
  auto doc = p.parse(res.body);
  EXPECT_EQ(doc["usage"]["completion_tokens"].get_int64().value(), 4);
  EXPECT_EQ(std::string(doc["choices"].at(0)["message"]["content"].get_string().value()),
            std::string(" the model streams tokens"));
}

// n > 1, as vLLM: each choice streams its own events (its index) and usage sums the choices; a
// body lists every choice; n outside 1..16 is refused.
TEST_F(MockServerTest, SeveralChoicesStreamApartAndUsageSumsThem) {
  const auto res = http_post(
      base_ + "/v1/chat/completions",
      R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"max_tokens":3,"n":2,)"
      R"("ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}})");
  ASSERT_EQ(res.status, 200);
  simdjson::dom::parser p;
  int per_choice[2] = {0, 0};
  int64_t usage = -1;
  for (const auto& data : sse_data(res.body)) {
    if (data == "[DONE]") continue;
    auto doc = p.parse(data);
    simdjson::dom::array choices = doc["choices"].get_array();
    if (choices.size() == 0) {
      usage = doc["usage"]["completion_tokens"].get_int64();
      continue;
    }
    const int64_t index = choices.at(0)["index"].get_int64();
    ASSERT_TRUE(index == 0 || index == 1);
    std::string_view content;
    if (!choices.at(0)["delta"]["content"].get_string().get(content) && !content.empty())
      ++per_choice[index];
  }
  EXPECT_EQ(per_choice[0], 3);
  EXPECT_EQ(per_choice[1], 3);
  EXPECT_EQ(usage, 6);
  const auto body = http_post(base_ + "/v1/completions",
                              R"({"model":"tokbench-mock","prompt":"x","max_tokens":2,"n":3})");
  ASSERT_EQ(body.status, 200);
  auto doc = p.parse(body.body);
  EXPECT_EQ(doc["choices"].get_array().size(), 3u);
  EXPECT_EQ(doc["usage"]["completion_tokens"].get_int64().value(), 3 * 2);
  EXPECT_EQ(http_post(base_ + "/v1/completions", R"({"model":"tokbench-mock","prompt":"x","n":0})")
                .status,
            400);
}

// Tools with tool_choice "required" or a named function: the answer is a call, streamed as vLLM
// does (a first delta with id, type and name, then argument text), finish_reason tool_calls; a
// body carries message.tool_calls; "auto" answers with text; tool_choice without tools is a 400.
TEST_F(MockServerTest, ToolCallsStreamLikeVllm) {
  const std::string tools =
      R"("tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}},)"
      R"({"type":"function","function":{"name":"get_time"}}])";
  const auto res = http_post(
      base_ + "/v1/chat/completions",
      R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"max_tokens":3,)"
      R"("ignore_eos":true,"stream":true,"tool_choice":"required",)" +
          tools + "}");
  ASSERT_EQ(res.status, 200);
  const auto ev = sse_data(res.body);
  ASSERT_EQ(ev.size(), 5u) << res.body;  // role, 3 tool-call deltas, [DONE]
  simdjson::dom::parser p;
  auto first = p.parse(ev[1])["choices"].at(0)["delta"]["tool_calls"].at(0);
  EXPECT_EQ(std::string_view(first["function"]["name"].get_string().value()), "get_weather");
  EXPECT_EQ(std::string_view(first["type"].get_string().value()), "function");
  EXPECT_FALSE(first["function"]["arguments"].get_string().value().empty());
  auto later = p.parse(ev[2])["choices"].at(0)["delta"]["tool_calls"].at(0);
  EXPECT_TRUE(later["function"]["name"].error());  // the name comes once
  // Cut by max_tokens: "length", as vLLM says of any answer; one that ends by itself: "tool_calls".
  EXPECT_EQ(std::string_view(p.parse(ev[3])["choices"].at(0)["finish_reason"].get_string().value()),
            "length");
  const auto ended = http_post(
      base_ + "/v1/chat/completions",
      R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"max_tokens":4096,)"
      R"("tool_choice":"required",)" +
          tools + "}");
  ASSERT_EQ(ended.status, 200);
  EXPECT_EQ(
      std::string_view(p.parse(ended.body)["choices"].at(0)["finish_reason"].get_string().value()),
      "tool_calls");
  const auto named = http_post(
      base_ + "/v1/chat/completions",
      R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"max_tokens":2,"ignore_eos":true,)"
      R"("tool_choice":{"type":"function","function":{"name":"get_time"}},)" +
          tools + "}");
  ASSERT_EQ(named.status, 200);
  auto call = p.parse(named.body)["choices"].at(0)["message"]["tool_calls"].at(0);
  EXPECT_EQ(std::string_view(call["function"]["name"].get_string().value()), "get_time");
  const auto text = http_post(
      base_ + "/v1/chat/completions",
      R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"max_tokens":2,"tool_choice":"auto",)" +
          tools + "}");
  ASSERT_EQ(text.status, 200);
  EXPECT_EQ(text.body.find("tool_calls"), std::string::npos);
  EXPECT_EQ(
      http_post(
          base_ + "/v1/chat/completions",
          R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"tool_choice":"required"})")
          .status,
      400);
  EXPECT_EQ(
      http_post(
          base_ + "/v1/chat/completions",
          R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"function","function":{"name":"nope"}},)" +
              tools + "}")
          .status,
      400);
}

// /v1/embeddings in OpenAI's shape: one vector per input (string, strings, token ids, lists of
// ids), usage.prompt_tokens, 400 for a missing or malformed input, 404 for an unknown model.
TEST_F(MockServerTest, EmbeddingsAnswerEveryInputForm) {
  simdjson::dom::parser p;
  const auto one =
      http_post(base_ + "/v1/embeddings", R"({"model":"tokbench-mock","input":"hello world"})");
  ASSERT_EQ(one.status, 200) << one.body;
  auto doc = p.parse(one.body);
  EXPECT_EQ(std::string_view(doc["object"].get_string().value()), "list");
  EXPECT_EQ(doc["data"].get_array().size(), 1u);
  EXPECT_EQ(doc["data"].at(0)["embedding"].get_array().size(), 16u);
  EXPECT_EQ(doc["usage"]["prompt_tokens"].get_int64().value(), count_prompt_tokens("hello world"));
  auto count = [&](const char* body) {
    const auto r = http_post(base_ + "/v1/embeddings", body);
    EXPECT_EQ(r.status, 200) << r.body;
    auto d = p.parse(r.body);
    return std::make_pair(d["data"].get_array().size(),
                          d["usage"]["prompt_tokens"].get_int64().value());
  };
  EXPECT_EQ(count(R"({"model":"tokbench-mock","input":["a b","c"]})").first, 2u);
  EXPECT_EQ(count(R"({"model":"tokbench-mock","input":[1,2,3]})"),
            std::make_pair(size_t{1}, int64_t{3}));
  EXPECT_EQ(count(R"({"model":"tokbench-mock","input":[[1,2],[3]]})"),
            std::make_pair(size_t{2}, int64_t{3}));
  EXPECT_EQ(http_post(base_ + "/v1/embeddings", R"({"model":"tokbench-mock"})").status, 400);
  EXPECT_EQ(http_post(base_ + "/v1/embeddings", R"({"model":"tokbench-mock","input":[]})").status,
            400);
  EXPECT_EQ(http_post(base_ + "/v1/embeddings", R"({"model":"tokbench-mock","input":5})").status,
            400);
  EXPECT_EQ(http_post(base_ + "/v1/embeddings", R"({"model":"nope","input":"x"})").status, 404);
}

// /v1/rerank in vLLM's shape: every document scored, best first (the share of the query's words it
// holds), usage.total_tokens over every (query, document) pair; top_n keeps the best N,
// return_documents adds their text, Jina's {"text"} documents read too; 400 for a missing query
// or documents, 404 for an unknown model.
TEST_F(MockServerTest, RerankScoresEveryDocumentBestFirst) {
  simdjson::dom::parser p;
  const auto res = http_post(
      base_ + "/v1/rerank",
      R"({"model":"tokbench-mock","query":"red apples","documents":["blue sky","red apples here","apples"]})");
  ASSERT_EQ(res.status, 200) << res.body;
  auto doc = p.parse(res.body);
  EXPECT_TRUE(std::string_view(doc["id"].get_string().value()).starts_with("rerank-"));
  simdjson::dom::array results = doc["results"].get_array();
  ASSERT_EQ(results.size(), 3u);
  std::vector<int64_t> order;
  double last = 2;
  for (auto r : results) {
    order.push_back(r["index"].get_int64().value());
    const double score = r["relevance_score"].get_double().value();
    EXPECT_LE(score, last);
    EXPECT_GT(score, 0);
    EXPECT_LT(score, 1);
    last = score;
    EXPECT_TRUE(r["document"].error()) << "only with return_documents";
  }
  EXPECT_EQ(order, (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(doc["usage"]["total_tokens"].get_int64().value(),
            count_prompt_tokens("red apples\nblue sky") +
                count_prompt_tokens("red apples\nred apples here") +
                count_prompt_tokens("red apples\napples"));
  const auto top = http_post(
      base_ + "/v1/rerank",
      R"({"model":"tokbench-mock","query":"red","documents":[{"text":"red"},"green"],"top_n":1,"return_documents":true})");
  ASSERT_EQ(top.status, 200) << top.body;
  auto t = p.parse(top.body);
  ASSERT_EQ(t["results"].get_array().size(), 1u);
  EXPECT_EQ(std::string_view(t["results"].at(0)["document"]["text"].get_string().value()), "red");
  for (const char* bad : {R"({"model":"tokbench-mock","documents":["a"]})",
                          R"({"model":"tokbench-mock","query":"q"})",
                          R"({"model":"tokbench-mock","query":"q","documents":[]})",
                          R"({"model":"tokbench-mock","query":"q","documents":[5]})", "[]"})
    EXPECT_EQ(http_post(base_ + "/v1/rerank", bad).status, 400) << bad;
  EXPECT_EQ(
      http_post(base_ + "/v1/rerank", R"({"model":"nope","query":"q","documents":["a"]})").status,
      404);
  EXPECT_EQ(net::http_get(base_ + "/v1/rerank", {}, "", 5000).status, 405);
}

// image_url parts: each adds --image-tokens (default 256) to usage.prompt_tokens; a URL that is
// not a base64 image is a 400, as vLLM refuses an image it cannot decode.
TEST_F(MockServerTest, ImagePartsAddTheirTokensToUsage) {
  simdjson::dom::parser p;
  auto prompt_tokens = [&](const std::string& content) -> int64_t {
    const auto r = http_post(
        base_ + "/v1/chat/completions",
        R"({"model":"tokbench-mock","max_tokens":1,"messages":[{"role":"user","content":)" +
            content + "}]}");
    if (r.status != 200) return -r.status;
    return p.parse(r.body)["usage"]["prompt_tokens"].get_int64().value();
  };
  const int64_t text = prompt_tokens(R"([{"type":"text","text":"what is this"}])");
  const std::string img =
      R"({"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}})";
  EXPECT_EQ(prompt_tokens(R"([{"type":"text","text":"what is this"},)" + img + "]"), text + 256);
  EXPECT_EQ(prompt_tokens(R"([{"type":"text","text":"what is this"},)" + img + "," + img + "]"),
            text + 512);
  EXPECT_EQ(
      prompt_tokens(R"([{"type":"image_url","image_url":{"url":"https://example.com/cat.png"}}])"),
      -400);
  EXPECT_EQ(
      prompt_tokens(R"([{"type":"image_url","image_url":{"url":"data:image/png;base64,@@@@"}}])"),
      -400);
}

// Anthropic's Messages API: its event sequence (each named by an `event:` line), the prompt
// count as input_tokens, the output count in message_delta, message_stop at the end; a body
// without max_tokens is refused as Anthropic refuses it, in its error shape.
TEST_F(MockServerTest, MessagesStreamIsShapedLikeAnthropic) {
  const auto res =
      http_post(base_ + "/v1/messages",
                R"({"model":"tokbench-mock","max_tokens":3,"ignore_eos":true,"stream":true,)"
                R"("system":"be brief","messages":[{"role":"user","content":"hi"}]})");
  ASSERT_EQ(res.status, 200);
  const auto ev = sse_data(res.body);
  ASSERT_EQ(
      ev.size(),
      2 + 3 + 3u);  // message_start, block start, 3 deltas, block stop, message_delta, message_stop
  EXPECT_NE(ev[0].find(R"("type":"message_start")"), std::string::npos) << ev[0];
  EXPECT_NE(ev[0].find(R"("input_tokens":5,"output_tokens":1)"), std::string::npos)
      << ev[0];  // "hi" 1 + 1, system 2 + 1
  EXPECT_NE(ev[1].find(R"("type":"content_block_start")"), std::string::npos);
  EXPECT_NE(ev[2].find(R"("delta":{"type":"text_delta","text":)"), std::string::npos) << ev[2];
  EXPECT_NE(ev[5].find(R"("type":"content_block_stop")"), std::string::npos);
  EXPECT_NE(ev[6].find(R"("stop_reason":"max_tokens")"), std::string::npos) << ev[6];
  EXPECT_NE(ev[6].find(R"("usage":{"output_tokens":3})"), std::string::npos) << ev[6];
  EXPECT_EQ(ev[7], R"({"type":"message_stop"})");
  EXPECT_NE(res.body.find("event: message_start\ndata: "), std::string::npos);
  EXPECT_EQ(res.body.find("[DONE]"), std::string::npos);
  const auto body = http_post(
      base_ + "/v1/messages",
      R"({"model":"tokbench-mock","max_tokens":2,"ignore_eos":true,"messages":[{"role":"user","content":"hi"}]})");
  ASSERT_EQ(body.status, 200);
  EXPECT_NE(body.body.find(R"("type":"message")"), std::string::npos) << body.body;
  EXPECT_NE(body.body.find(R"("stop_reason":"max_tokens")"), std::string::npos) << body.body;
  EXPECT_NE(body.body.find(R"("output_tokens":2)"), std::string::npos) << body.body;
  const auto refused =
      http_post(base_ + "/v1/messages",
                R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}]})");
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body.find(
                R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens)"),
            std::string::npos)
      << refused.body;
  const std::string img =
      R"({"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}})";
  auto prompt = [&](const std::string& content) -> std::string {
    const auto r = http_post(
        base_ + "/v1/messages",
        R"({"model":"tokbench-mock","max_tokens":1,"messages":[{"role":"user","content":)" +
            content + "}]}");
    return std::to_string(r.status) + " " + r.body;
  };
  EXPECT_NE(prompt("[" + img + "]").find(R"("input_tokens":257)"),
            std::string::npos);  // 256 per image + the message
  EXPECT_EQ(
      prompt(R"([{"type":"image","source":{"type":"url","url":"https://example.com/x.png"}}])")
          .substr(0, 3),
      "400");
}

// SGLang's /generate: every event carries the whole text so far and meta_info's cumulative
// completion_tokens; the finish is an object; [DONE] ends the stream. No model field: lora_path
// names an adapter.
TEST_F(MockServerTest, GenerateStreamIsShapedLikeSglang) {
  const auto res = http_post(
      base_ + "/generate",
      R"({"text":"hello there","sampling_params":{"max_new_tokens":3,"ignore_eos":true},"stream":true})");
  ASSERT_EQ(res.status, 200);
  const auto ev = sse_data(res.body);
  ASSERT_EQ(ev.size(), 3 + 1u);
  simdjson::dom::parser p;
  std::string before;
  for (int i = 0; i < 3; ++i) {
    simdjson::dom::element e = p.parse(ev[static_cast<size_t>(i)]);
    const std::string text(e["text"].get_string().value());
    EXPECT_TRUE(text.starts_with(before) && text.size() > before.size()) << text;  // cumulative
    before = text;
    EXPECT_EQ(e["meta_info"]["completion_tokens"].get_int64().value(), i + 1);
    EXPECT_EQ(e["meta_info"]["prompt_tokens"].get_int64().value(), 3);
    EXPECT_EQ(e["meta_info"]["finish_reason"].is_null(), i < 2);
  }
  EXPECT_NE(ev[2].find(R"("finish_reason":{"type":"length","length":3})"), std::string::npos)
      << ev[2];
  EXPECT_EQ(ev[3], "[DONE]");
  const auto body =
      http_post(base_ + "/generate",
                R"({"text":"x","sampling_params":{"max_new_tokens":2,"ignore_eos":true,"n":2}})");
  ASSERT_EQ(body.status, 200);
  simdjson::dom::element list = p.parse(body.body);
  ASSERT_TRUE(list.is_array());
  EXPECT_EQ(list.get_array().size(), 2u);
  EXPECT_EQ(http_post(base_ + "/generate", R"({"sampling_params":{}})").status, 400);
  EXPECT_EQ(http_post(base_ + "/generate", R"({"text":"x","lora_path":"nope"})").status, 404);
  // SGLang's default max_new_tokens is 128.
  const auto deflt =
      http_post(base_ + "/generate", R"({"text":"x","sampling_params":{"ignore_eos":true}})");
  EXPECT_NE(deflt.body.find(R"("completion_tokens":128)"), std::string::npos) << deflt.body;
}

TEST_F(MockServerTest, ModelsHealthAndErrors) {
  auto models = net::http_get(base_ + "/v1/models", {}, "", 5000);
  ASSERT_EQ(models.status, 200);
  EXPECT_EQ(net::parse_model_ids(models.body), std::vector<std::string>{"tokbench-mock"});
  EXPECT_EQ(net::http_get(base_ + "/health", {}, "", 5000).status, 200);
  auto wrong = http_post(base_ + "/v1/chat/completions",
                         R"({"model":"nope","messages":[{"role":"user","content":"x"}]})");
  EXPECT_EQ(wrong.status, 404);
  EXPECT_NE(wrong.body.find("The model `nope` does not exist."), std::string::npos);
  EXPECT_EQ(http_post(base_ + "/v1/chat/completions", "{").status, 400);
  EXPECT_EQ(net::http_get(base_ + "/nowhere", {}, "", 5000).status, 404);
}

TEST_F(MockServerTest, RequestIdIsEchoedAndProfilingRecorded) {
  const auto res = http_post(
      base_ + "/v1/chat/completions",
      R"({"model":"tokbench-mock","messages":[{"role":"user","content":"x"}],"max_tokens":1})",
      "x-request-id: my-req-7");
  EXPECT_NE(res.body.find(R"("id":"chatcmpl-my-req-7")"), std::string::npos)
      << res.body;  // vLLM's naming
  EXPECT_EQ(http_post(base_ + "/start_profile", "{}").status, 200);
  EXPECT_EQ(http_post(base_ + "/stop_profile", "{}").status, 200);
  const auto ev = server_->profile_events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].first, "start");
  EXPECT_EQ(ev[1].first, "stop");
  EXPECT_LE(ev[0].second, ev[1].second);
}

// Validated as vLLM validates: the simulator refuses what a real server refuses.
TEST_F(MockServerTest, RefusesWhatVllmRefuses) {
  const std::string url = base_ + "/v1/chat/completions";
  const std::string msgs = R"("messages":[{"role":"user","content":"hi"}])";
  for (const std::string& body :
       {R"({"model":"tokbench-mock",)" + msgs + R"(,"max_tokens":0})",
        R"({"model":"tokbench-mock",)" + msgs + R"(,"max_tokens":"12"})",
        R"({"model":"tokbench-mock",)" + msgs + R"(,"max_completion_tokens":-3})",
        R"({"model":"tokbench-mock",)" + msgs + R"(,"stream_options":{"include_usage":true}})",
        std::string(R"({"model":"tokbench-mock","messages":[{"content":"no role"}]})")}) {
    const auto res = http_post(url, body);
    EXPECT_EQ(res.status, 400) << body << " -> " << res.body;
  }
  const auto ok = http_post(url, R"({"model":"tokbench-mock",)" + msgs + R"(,"max_tokens":2})");
  EXPECT_EQ(ok.status, 200);
  EXPECT_NE(ok.body.find("\"stop_reason\":null"), std::string::npos)
      << ok.body;  // as vLLM sends it
}

}  // namespace
}  // namespace tokbench::mock
