// client/chunk_parser: classification of vLLM/OpenAI payloads.
#include "client/chunk_parser.hpp"

#include <gtest/gtest.h>

namespace tokbench::client {
namespace {

using record::ChunkKind;

ChunkInfo parse(std::string_view json) {
  static ChunkParser p;
  ChunkInfo info;
  std::string why;
  EXPECT_TRUE(p.parse(json, info, &why)) << why;
  return info;
}

TEST(ChunkParser, RoleOnlyChunkIsNotAToken) {
  auto i = parse(R"({"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})");
  EXPECT_EQ(i.kind, ChunkKind::Role);
  EXPECT_EQ(i.id, "c1");
}

TEST(ChunkParser, ContentReasoningFinishUsage) {
  EXPECT_EQ(parse(R"({"choices":[{"delta":{"content":" hi"}}]})").kind, ChunkKind::Content);
  EXPECT_EQ(parse(R"({"choices":[{"delta":{"reasoning_content":"hmm"}}]})").kind, ChunkKind::Reasoning);
  EXPECT_EQ(parse(R"({"choices":[{"delta":{"reasoning":"hmm","content":null}}]})").kind, ChunkKind::Reasoning);
  auto f = parse(R"({"choices":[{"delta":{},"finish_reason":"stop"}]})");
  EXPECT_EQ(f.kind, ChunkKind::Finish);
  EXPECT_EQ(f.finish_reason, "stop");
  auto u = parse(R"({"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":9,"prompt_tokens_details":{"cached_tokens":3}}})");
  EXPECT_EQ(u.kind, ChunkKind::Usage);
  EXPECT_EQ(u.prompt_tokens, 7);
  EXPECT_EQ(u.completion_tokens, 9);
  EXPECT_EQ(u.cached_tokens, 3);
}

TEST(ChunkParser, CompletionsTextAndContinuousUsage) {
  auto i = parse(R"({"choices":[{"text":" a b","finish_reason":"length"}],"usage":{"prompt_tokens":2,"completion_tokens":5}})");
  EXPECT_EQ(i.kind, ChunkKind::Content);
  EXPECT_EQ(i.text_bytes, 4);
  EXPECT_EQ(i.completion_tokens, 5);
  EXPECT_EQ(i.finish_reason, "length");
}

TEST(ChunkParser, NonStreamingBody) {
  auto i = parse(R"({"choices":[{"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}})");
  EXPECT_EQ(i.kind, ChunkKind::Content);
  EXPECT_EQ(i.completion_tokens, 2);
}

// A tool call is generated output: its first delta (the name) is the first token; arguments count
// as text; a body's message.tool_calls likewise.
TEST(ChunkParser, ToolCallDeltasAreOutput) {
  auto first = parse(R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"get_weather","arguments":""}}]}}]})");
  EXPECT_EQ(first.kind, ChunkKind::ToolCall);
  EXPECT_EQ(first.text_bytes, 11);
  auto args = parse(R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\""}}]}}]})");
  EXPECT_EQ(args.kind, ChunkKind::ToolCall);
  EXPECT_EQ(args.tool_args, "{\"city\"");
  EXPECT_TRUE(record::ChunkEvent{.kind = ChunkKind::ToolCall}.has_text());
  EXPECT_EQ(parse(R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}]}}]})").kind, ChunkKind::Empty);
  EXPECT_EQ(parse(R"({"choices":[{"delta":{"content":"x","tool_calls":[{"function":{"arguments":"y"}}]}}]})").kind, ChunkKind::Content);
  auto body = parse(R"({"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]})");
  EXPECT_EQ(body.kind, ChunkKind::ToolCall);
  EXPECT_EQ(body.text_bytes, 3);
}

// n > 1: a stream event names its choice by `index`; a body lists every choice.
TEST(ChunkParser, ChoicesFromIndexAndBody) {
  EXPECT_EQ(parse(R"({"choices":[{"index":0,"delta":{"content":"a"}}]})").choices, 1);
  EXPECT_EQ(parse(R"({"choices":[{"index":2,"delta":{"content":"a"}}]})").choices, 3);
  EXPECT_EQ(parse(R"({"choices":[{"message":{"content":"a"}},{"message":{"content":"b"}}]})").choices, 2);
  EXPECT_EQ(parse(R"({"choices":[],"usage":{"completion_tokens":2}})").choices, 0);  // a usage chunk speaks for none
  // Which choice the event's text is of: the first listed choice's index (0 when absent).
  EXPECT_EQ(parse(R"({"choices":[{"index":2,"delta":{"content":"a"}}]})").choice, 2);
  EXPECT_EQ(parse(R"({"choices":[{"delta":{"content":"a"}}]})").choice, 0);
  EXPECT_EQ(parse(R"({"choices":[{"index":1,"text":"a"},{"index":0,"text":"b"}]})").choice, 1);
}

TEST(ChunkParser, ErrorObjectAndInvalidJson) {
  auto e = parse(R"({"error":{"message":"boom","code":500}})");
  EXPECT_EQ(e.error, "boom");
  ChunkParser p;
  ChunkInfo info;
  std::string why;
  EXPECT_FALSE(p.parse("{\"choices\": [", info, &why));
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(p.parse("[1,2]", info, &why));
}

}  // namespace
}  // namespace tokbench::client
