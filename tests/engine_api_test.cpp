// client/engine + client/api: each API's stream from a foreign loopback server that speaks it as
// its engine does (Anthropic's Messages, SGLang's /generate, OpenAI's Responses), cut or failed
// streams included, on both transports.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "client/engine.hpp"
#include "support/canned_server.hpp"
#include "support/engine_harness.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/scripted_server.hpp"

namespace tokbench::client {
namespace {

using namespace net;  // set-up calls: http_get, TlsSettings

TOKBENCH_ENGINE_ON_BOTH_TRANSPORTS();

// Anthropic's Messages stream as its servers write it, not as our simulator does: `event:` lines,
// CRLF line ends, a ping, and message_stop as the end (no [DONE]). The key goes as x-api-key with
// anthropic-version, and no Bearer header.
TEST_P(EngineOn, AnthropicStreamFromAForeignServer) {
  const std::string sse =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nConnection: "
      "close\r\n\r\n"
      "event: message_start\r\ndata: "
      "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01\",\"type\":\"message\","
      "\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":{\"input_tokens\":12,"
      "\"output_tokens\":1}}}\r\n\r\n"
      "event: content_block_start\r\ndata: "
      "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":"
      "\"\"}}\r\n\r\n"
      "event: ping\r\ndata: {\"type\": \"ping\"}\r\n\r\n"
      "event: content_block_delta\r\ndata: "
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
      "\"Hel\"}}\r\n\r\n"
      "event: content_block_delta\r\ndata: "
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
      "\"lo\"}}\r\n\r\n"
      "event: content_block_stop\r\ndata: {\"type\":\"content_block_stop\",\"index\":0}\r\n\r\n"
      "event: message_delta\r\ndata: "
      "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_"
      "tokens\":3}}\r\n\r\n"
      "event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n";
  testing::CannedServer srv([&](const std::string&) { return sse; });
  EngineSettings es = settings();
  es.url = srv.url("/v1/messages");
  es.api = find_api("messages");
  es.api_key = "sk-ant-test";
  es.keep_text = true;
  const auto rs = run(
      es,
      {R"({"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"stream":true})"});
  ASSERT_EQ(rs.size(), 1u);
  const RequestRecord& r = rs[0];
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.request_id, "msg_01");
  EXPECT_EQ(r.prompt_tokens, 12);
  EXPECT_EQ(r.completion_tokens, 3);
  EXPECT_EQ(r.finish_reason, "end_turn");
  EXPECT_EQ(r.output_text, "Hello");
  EXPECT_EQ(
      std::count_if(r.chunks.begin(), r.chunks.end(), [](const auto& c) { return c.has_text(); }),
      2);
  EXPECT_NE(r.first_token_ns, record::kNone);
  const std::string head = srv.requests().at(0);
  EXPECT_NE(head.find("x-api-key: sk-ant-test"), std::string::npos) << head;
  EXPECT_NE(head.find("anthropic-version: 2023-06-01"), std::string::npos) << head;
  EXPECT_EQ(head.find("Authorization"), std::string::npos) << head;
}

// An Anthropic stream cut before message_stop fails, naming what was missing; a [DONE] line means
// nothing on this API.
TEST_P(EngineOn, AnthropicStreamWithoutMessageStopIsCut) {
  const std::string sse =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
      "event: content_block_delta\ndata: "
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
      "\"a\"}}\n\n"
      "data: [DONE]\n\n";
  testing::CannedServer srv([&](const std::string&) { return sse; });
  EngineSettings es = settings();
  es.url = srv.url("/v1/messages");
  es.api = find_api("messages");
  const auto rs = run(es, {R"({"model":"m","max_tokens":8,"messages":[],"stream":true})"});
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].outcome, Outcome::StreamProtocol);
  EXPECT_NE(rs[0].error.find("without a message_stop event"), std::string::npos) << rs[0].error;
}

// SGLang's /generate, from a server that is not our simulator: cumulative text, cumulative
// meta_info counts (two tokens in the second event), a finish object, then [DONE].
TEST_P(EngineOn, SglangGenerateStreamFromAForeignServer) {
  const std::string sse =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
      "data: {\"text\":\" "
      "one\",\"meta_info\":{\"id\":\"abc\",\"finish_reason\":null,\"prompt_tokens\":6,\"completion_"
      "tokens\":1,\"cached_tokens\":0}}\n\n"
      "data: {\"text\":\" one two "
      "three\",\"meta_info\":{\"id\":\"abc\",\"finish_reason\":null,\"prompt_tokens\":6,"
      "\"completion_tokens\":3,\"cached_tokens\":0}}\n\n"
      "data: {\"text\":\" one two three "
      "four\",\"meta_info\":{\"id\":\"abc\",\"finish_reason\":{\"type\":\"length\",\"length\":4},"
      "\"prompt_tokens\":6,\"completion_tokens\":4,\"cached_tokens\":0}}\n\n"
      "data: [DONE]\n\n";
  testing::CannedServer srv([&](const std::string&) { return sse; });
  EngineSettings es = settings();
  es.url = srv.url("/generate");
  es.api = find_api("generate");
  es.keep_text = true;
  const auto rs =
      run(es, {R"({"text":"hi","sampling_params":{"max_new_tokens":4},"stream":true})"});
  ASSERT_EQ(rs.size(), 1u);
  const RequestRecord& r = rs[0];
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.output_text,
            " one two three four");  // each piece once, not the answer three times over
  EXPECT_EQ(r.output_chars, 19);
  EXPECT_EQ(r.completion_tokens, 4);
  EXPECT_EQ(r.finish_reason, "length");
  ASSERT_EQ(r.chunks.size(), 3u);
  EXPECT_EQ(r.chunks[1].cum_tokens, 3);  // exact per-chunk counts: no estimate needed
  EXPECT_EQ(srv.requests().at(0).find("anthropic-version"), std::string::npos);
}

// OpenAI's Responses stream as OpenAI writes it, not as our simulator does: `event:` lines, a
// created event, output item and part events, deltas, the .done events that repeat the text, and
// response.completed with the usage as the end (no [DONE]); a [DONE] a proxy adds after it is
// ignored. The key goes as a Bearer header.
TEST_P(EngineOn, ResponsesStreamFromAForeignServer) {
  const std::string sse =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nConnection: "
      "close\r\n\r\n"
      "event: response.created\ndata: "
      "{\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_abc\","
      "\"object\":\"response\",\"status\":\"in_progress\",\"output\":[],\"usage\":null}}\n\n"
      "event: response.in_progress\ndata: "
      "{\"type\":\"response.in_progress\",\"sequence_number\":1,\"response\":{\"id\":\"resp_abc\","
      "\"status\":\"in_progress\"}}\n\n"
      "event: response.output_item.added\ndata: "
      "{\"type\":\"response.output_item.added\",\"sequence_number\":2,\"output_index\":0,"
      "\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"in_progress\",\"role\":"
      "\"assistant\",\"content\":[]}}\n\n"
      "event: response.content_part.added\ndata: "
      "{\"type\":\"response.content_part.added\",\"sequence_number\":3,\"item_id\":\"msg_1\","
      "\"output_index\":0,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\","
      "\"annotations\":[]}}\n\n"
      "event: response.output_text.delta\ndata: "
      "{\"type\":\"response.output_text.delta\",\"sequence_number\":4,\"item_id\":\"msg_1\","
      "\"output_index\":0,\"content_index\":0,\"delta\":\"Hel\"}\n\n"
      "event: response.output_text.delta\ndata: "
      "{\"type\":\"response.output_text.delta\",\"sequence_number\":5,\"item_id\":\"msg_1\","
      "\"output_index\":0,\"content_index\":0,\"delta\":\"lo\"}\n\n"
      "event: response.output_text.done\ndata: "
      "{\"type\":\"response.output_text.done\",\"sequence_number\":6,\"item_id\":\"msg_1\","
      "\"output_index\":0,\"content_index\":0,\"text\":\"Hello\"}\n\n"
      "event: response.completed\ndata: "
      "{\"type\":\"response.completed\",\"sequence_number\":7,\"response\":{\"id\":\"resp_abc\","
      "\"status\":\"completed\",\"incomplete_details\":null,\"output\":[{\"type\":\"message\","
      "\"content\":[{\"type\":\"output_text\","
      "\"text\":\"Hello\"}]}],\"usage\":{\"input_tokens\":12,\"input_tokens_details\":{\"cached_"
      "tokens\":0},\"output_tokens\":2,"
      "\"total_tokens\":14}}}\n\n"
      "data: [DONE]\n\n";
  testing::CannedServer srv([&](const std::string&) { return sse; });
  EngineSettings es = settings();
  es.url = srv.url("/v1/responses");
  es.api = find_api("responses");
  es.api_key = "sk-test";
  es.keep_text = true;
  const auto rs = run(es, {R"({"model":"m","input":"hi","max_output_tokens":8,"stream":true})"});
  ASSERT_EQ(rs.size(), 1u);
  const RequestRecord& r = rs[0];
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.request_id, "resp_abc");
  EXPECT_EQ(r.prompt_tokens, 12);
  EXPECT_EQ(r.cached_tokens, 0);
  EXPECT_EQ(r.completion_tokens, 2);
  EXPECT_EQ(r.finish_reason, "completed");
  EXPECT_EQ(r.output_text, "Hello");  // once: the .done event and the final response repeat it
  EXPECT_EQ(r.output_chars, 5);
  EXPECT_EQ(
      std::count_if(r.chunks.begin(), r.chunks.end(), [](const auto& c) { return c.has_text(); }),
      2);
  EXPECT_NE(r.done_ns, record::kNone);
  const std::string head = srv.requests().at(0);
  EXPECT_NE(head.find("Authorization: Bearer sk-test"), std::string::npos) << head;
  EXPECT_EQ(head.find("anthropic-version"), std::string::npos) << head;
}

// A Responses stream that fails says why (response.failed's error); one cut before its terminal
// event fails naming what was missing, even when a proxy's [DONE] came.
TEST_P(EngineOn, ResponsesStreamFailedOrCut) {
  const std::string head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
  const std::string delta =
      "event: response.output_text.delta\ndata: "
      "{\"type\":\"response.output_text.delta\",\"delta\":\"a\"}\n\n";
  testing::CannedServer failed([&](const std::string&) {
    return head + delta +
           "event: response.failed\ndata: "
           "{\"type\":\"response.failed\",\"response\":{\"id\":\"resp_x\",\"status\":\"failed\","
           "\"error\":{\"code\":\"server_error\",\"message\":\"the model crashed\"}}}\n\n";
  });
  EngineSettings es = settings();
  es.url = failed.url("/v1/responses");
  es.api = find_api("responses");
  auto rs = run(es, {R"({"model":"m","input":"hi","stream":true})"});
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_FALSE(rs[0].ok());
  EXPECT_NE(rs[0].error.find("the model crashed"), std::string::npos) << rs[0].error;
  testing::CannedServer cut([&](const std::string&) { return head + delta + "data: [DONE]\n\n"; });
  es.url = cut.url("/v1/responses");
  rs = run(es, {R"({"model":"m","input":"hi","stream":true})"});
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].outcome, Outcome::StreamProtocol);
  EXPECT_NE(rs[0].error.find("without a response.completed event"), std::string::npos)
      << rs[0].error;
}

// /v1/rerank from llama.cpp's server, not our simulator: usage with prompt_tokens (vLLM's has only
// total_tokens), results without the documents' text, no id. An answer with no results ranked
// nothing: it fails, naming why, and is not counted as a success.
TEST_P(EngineOn, RerankAnswersFromAForeignServer) {
  const std::string answer =
      R"({"model":"bge-reranker","object":"list","usage":{"prompt_tokens":46,"total_tokens":46},)"
      R"("results":[{"index":1,"relevance_score":0.97},{"index":0,"relevance_score":0.01}]})";
  testing::CannedServer srv([&](const std::string&) {
    return testing::CannedServer::http(200, "application/json", answer);
  });
  EngineSettings es = settings();
  es.url = srv.url("/v1/rerank");
  es.api = find_api("rerank");
  es.stream = false;
  const std::string body = R"({"model":"m","query":"q","documents":["a","b"]})";
  auto rs = run(es, {body});
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_TRUE(rs[0].ok()) << rs[0].error;
  EXPECT_EQ(rs[0].prompt_tokens, 46);
  EXPECT_EQ(rs[0].completion_tokens, record::kNone);
  EXPECT_NE(rs[0].done_ns, record::kNone);
  EXPECT_NE(srv.requests().at(0).find(body), std::string::npos);
  testing::CannedServer empty([&](const std::string&) {
    return testing::CannedServer::http(200, "application/json", R"({"usage":{"total_tokens":4}})");
  });
  es.url = empty.url("/v1/rerank");
  rs = run(es, {body});
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_FALSE(rs[0].ok());
  EXPECT_NE(rs[0].error.find("without a \"results\" list"), std::string::npos) << rs[0].error;
}

}  // namespace
}  // namespace tokbench::client
