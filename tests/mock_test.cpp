// mock/: the simulator's timing model and its wire format, checked over loopback against the
// OpenAI/vLLM conventions: role chunk first, usage chunk with choices [] only when asked,
// data: [DONE] last.
#include <gtest/gtest.h>
#include <simdjson.h>

#include "client/http_get.hpp"
#include "http_post.hpp"
#include "mock/mock_response.hpp"
#include "mock/mock_server.hpp"

namespace tokbench::mock {
namespace {

using testing::http_post;
using testing::sse_data;

TEST(MockPlan, IgnoreEosProducesMaxTokensOnSchedule) {
  MockSettings s;
  s.ttft_ms = 50;
  s.tpot_ms = 10;
  CompletionRequest r;
  r.max_tokens = 5;
  r.ignore_eos = true;
  const auto p = make_plan(r, s, 1);
  EXPECT_EQ(p.tokens, 5);
  EXPECT_EQ(p.finish_reason, "length");
  EXPECT_EQ(p.chunk_at_ns, (std::vector<int64_t>{50'000'000, 60'000'000, 70'000'000, 80'000'000, 90'000'000}));
}

TEST(MockPlan, TokensPerChunkGroupsAfterTheFirstToken) {
  MockSettings s;
  s.tokens_per_chunk = 3;
  CompletionRequest r;
  r.max_tokens = 8;
  r.ignore_eos = true;
  const auto p = make_plan(r, s, 1);
  EXPECT_EQ(p.chunk_tokens, (std::vector<int>{1, 3, 3, 1}));
  // Each chunk is written when its last token exists: tokens 0, 3, 6, 7.
  EXPECT_EQ(p.chunk_at_ns[1], 80'000'000);
  EXPECT_EQ(p.chunk_at_ns[3], 120'000'000);
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

TEST(MockPlan, JitterIsSeededAndBounded) {
  MockSettings s;
  s.jitter_ms = 2;
  CompletionRequest r;
  r.max_tokens = 50;
  r.ignore_eos = true;
  const auto a = make_plan(r, s, 9);
  EXPECT_EQ(make_plan(r, s, 9).chunk_at_ns, a.chunk_at_ns);
  for (size_t i = 1; i < a.chunk_at_ns.size(); ++i) {
    const auto gap = a.chunk_at_ns[i] - a.chunk_at_ns[i - 1];
    EXPECT_GE(gap, 8'000'000 - 1);
    EXPECT_LE(gap, 12'000'000 + 1);
  }
}

TEST(MockRequest, ListContentUnknownFieldsAndMaxCompletionTokens) {
  std::string why;
  auto r = parse_request(R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"abcdefgh"}]}],)"
                         R"("max_tokens":9,"max_completion_tokens":7,"foo":{"bar":1},"stream":true})",
                         true, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->max_tokens, 7);
  EXPECT_EQ(r->prompt_tokens, 2 + 1);  // ceil(8 / 4) + 1 per message
  EXPECT_TRUE(r->stream);
  EXPECT_FALSE(parse_request(R"({"model":"m"})", true, &why));
  EXPECT_NE(why.find("messages"), std::string::npos);
  EXPECT_FALSE(parse_request("nope", false, &why));
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
  const auto res = http_post(base_ + "/v1/chat/completions",
                             R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"max_tokens":3,)"
                             R"("ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}})");
  ASSERT_EQ(res.status, 200);
  const auto ev = sse_data(res.body);
  ASSERT_EQ(ev.size(), 1 + 3 + 1 + 1u);  // role, 3 content, usage, [DONE]
  EXPECT_NE(ev[0].find(R"("delta":{"role":"assistant","content":""})"), std::string::npos);
  EXPECT_NE(ev[1].find(R"("finish_reason":null)"), std::string::npos);
  EXPECT_NE(ev[3].find(R"("finish_reason":"length")"), std::string::npos);
  EXPECT_NE(ev[4].find(R"("choices":[],"usage":{"prompt_tokens":2,"total_tokens":5,"completion_tokens":3})"),
            std::string::npos);
  EXPECT_EQ(ev[5], "[DONE]");
}

TEST_F(MockServerTest, NoUsageChunkUnlessAsked) {
  const auto res = http_post(base_ + "/v1/completions",
                             R"({"model":"tokbench-mock","prompt":"hi","max_tokens":2,"ignore_eos":true,"stream":true})");
  const auto ev = sse_data(res.body);
  ASSERT_EQ(ev.size(), 2 + 1u);  // no role chunk for completions, no usage chunk
  EXPECT_NE(ev[0].find(R"("object":"text_completion")"), std::string::npos);
  EXPECT_EQ(res.body.find("usage"), std::string::npos);
  EXPECT_EQ(ev.back(), "[DONE]");
}

TEST_F(MockServerTest, ContinuousUsageIsCumulative) {
  const auto res = http_post(base_ + "/v1/chat/completions",
                             R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"max_tokens":4,)"
                             R"("ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}})");
  const auto ev = sse_data(res.body);
  ASSERT_EQ(ev.size(), 1 + 4 + 1 + 1u);
  EXPECT_NE(ev[0].find(R"("completion_tokens":0)"), std::string::npos);
  EXPECT_NE(ev[2].find(R"("completion_tokens":2)"), std::string::npos);
  EXPECT_NE(ev[4].find(R"("completion_tokens":4)"), std::string::npos);
}

TEST_F(MockServerTest, NonStreamingBodyHasUsage) {
  const auto res = http_post(base_ + "/v1/chat/completions",
                             R"({"model":"tokbench-mock","messages":[{"role":"user","content":"hi"}],"max_tokens":4,"ignore_eos":true})");
  ASSERT_EQ(res.status, 200);
  simdjson::dom::parser p;
  auto doc = p.parse(res.body);
  EXPECT_EQ(doc["usage"]["completion_tokens"].get_int64().value(), 4);
  EXPECT_EQ(std::string(doc["choices"].at(0)["message"]["content"].get_string().value()),
            std::string(" the model streams tokens"));
}

TEST_F(MockServerTest, ModelsHealthAndErrors) {
  auto models = client::http_get(base_ + "/v1/models", {}, "", 5000);
  ASSERT_EQ(models.status, 200);
  EXPECT_EQ(client::parse_model_ids(models.body), std::vector<std::string>{"tokbench-mock"});
  EXPECT_EQ(client::http_get(base_ + "/health", {}, "", 5000).status, 200);
  auto wrong = http_post(base_ + "/v1/chat/completions", R"({"model":"nope","messages":[{"role":"user","content":"x"}]})");
  EXPECT_EQ(wrong.status, 404);
  EXPECT_NE(wrong.body.find("The model `nope` does not exist."), std::string::npos);
  EXPECT_EQ(http_post(base_ + "/v1/chat/completions", "{").status, 400);
  EXPECT_EQ(client::http_get(base_ + "/nowhere", {}, "", 5000).status, 404);
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

}  // namespace
}  // namespace tokbench::mock
