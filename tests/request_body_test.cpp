// client/request_body: optional fields are sent only when given; --extra-body merges and wins.
#include "client/request_body.hpp"

#include <gtest/gtest.h>

namespace tokbench::client {
namespace {

const dataset::RequestSpec kSpec{"What is 2+2?", -1};

TEST(RequestBody, ChatStreamingDefaultsAskForUsageAndNothingHidden) {
  BodySettings s;
  s.model = "m";
  EXPECT_EQ(build_body(s, kSpec),
            R"({"model":"m","messages":[{"role":"user","content":"What is 2+2?"}],"max_tokens":256,)"
            R"("stream":true,"stream_options":{"include_usage":true}})");
}

TEST(RequestBody, OptionalFieldsOnlyWhenGiven) {
  BodySettings s;
  s.model = "m";
  s.endpoint = Endpoint::Completions;
  s.stream = false;
  s.max_tokens = 0;
  const auto plain = build_body(s, kSpec);
  EXPECT_EQ(plain, R"({"model":"m","prompt":"What is 2+2?","stream":false})");
  s.ignore_eos = true;
  s.min_tokens = 32;
  s.temperature = 0.5;
  const auto full = build_body(s, kSpec);
  EXPECT_NE(full.find(R"("min_tokens":32)"), std::string::npos);
  EXPECT_NE(full.find(R"("ignore_eos":true)"), std::string::npos);
  EXPECT_NE(full.find(R"("temperature":0.5)"), std::string::npos);
}

TEST(RequestBody, PerItemMaxTokensWins) {
  BodySettings s;
  s.model = "m";
  EXPECT_NE(build_body(s, {"q", 17}).find(R"("max_tokens":17)"), std::string::npos);
}

TEST(RequestBody, ContinuousUsageOnlyWhenAsked) {
  BodySettings s;
  s.model = "m";
  s.continuous_usage = true;
  EXPECT_NE(build_body(s, kSpec).find(R"("continuous_usage_stats":true)"), std::string::npos);
}

TEST(RequestBody, ExtraBodyMergesAtTopLevelAndOverrides) {
  BodySettings s;
  s.model = "m";
  s.extra = parse_extra_body(R"({"top_p": 0.9, "max_tokens": 5, "chat_template_kwargs": {"enable_thinking": false}})");
  const auto b = build_body(s, kSpec);
  EXPECT_NE(b.find(R"("top_p":0.9)"), std::string::npos);
  EXPECT_NE(b.find(R"("max_tokens":5)"), std::string::npos);
  EXPECT_EQ(b.find(R"("max_tokens":256)"), std::string::npos);
  EXPECT_NE(b.find(R"("chat_template_kwargs":{"enable_thinking":false})"), std::string::npos);
}

TEST(RequestBody, ExtraBodyMustBeAnObject) {
  EXPECT_THROW(parse_extra_body("[1]"), std::runtime_error);
  try {
    parse_extra_body("{oops");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--extra-body"), std::string::npos);
  }
}

TEST(RequestBody, PromptIsEscaped) {
  BodySettings s;
  s.model = "m";
  const auto b = build_body(s, {"say \"hi\"\n\ttab \x01", -1});
  EXPECT_NE(b.find(R"(say \"hi\"\n\ttab \u0001)"), std::string::npos);
}

}  // namespace
}  // namespace tokbench::client
