// client/engine + client/api: each API's answers from a foreign loopback server that speaks it as
// its engine does — vLLM's OpenAI streams and bodies, Anthropic's Messages, SGLang's /generate,
// OpenAI's Responses, llama.cpp's rerank — cut or failed answers included, on both transports. One
// table of cases, one TEST_P over it: a new API adds its rows, and a test fails until every API
// the registry lists has at least one.
#include <fmt/format.h>
#include <gtest/gtest.h>

// A case names only what it shows; the fields it leaves out keep their defaults on purpose.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <functional>
#include <optional>
#include <set>

#include "client/engine.hpp"
#include "support/canned_server.hpp"
#include "support/engine_harness.hpp"

namespace tokbench::client {
namespace {

TOKBENCH_ENGINE_ON_BOTH_TRANSPORTS();

const char* const kSseHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";

std::string json_answer(const std::string& body) {
  return testing::CannedServer::http(200, "application/json", body);
}

// One foreign server's answer to one request, and what the record must say of it.
struct ForeignCase {
  std::string name;  ///< the case, for the failure message
  std::string api;   ///< --endpoint name
  std::string path;
  std::string response;  ///< the whole HTTP response the server writes
  std::string body;      ///< the request sent
  bool stream = true;
  std::string api_key;
  bool ok = true;
  std::optional<Outcome> outcome;  ///< when not ok and it matters which
  std::string error;               ///< when not ok: a part of the error that names the cause
  std::string request_id;
  int64_t prompt_tokens = record::kNone, completion_tokens = record::kNone,
          cached_tokens = record::kNone;
  std::string finish_reason, output_text;
  int64_t text_chunks = -1;  ///< chunks carrying text; -1 = not checked
  std::vector<std::string> sent_headers, unsent_headers;  ///< in (not in) the request's head
  std::function<void(const RequestRecord&)> also;         ///< what only this case shows
};

std::vector<ForeignCase> foreign_cases() {
  std::vector<ForeignCase> c;
  // vLLM's chat stream: a role chunk, content deltas, a finish chunk, the usage chunk, [DONE].
  c.push_back(
      {.name = "vLLM chat stream",
       .api = "chat",
       .path = "/v1/chat/completions",
       .response =
           std::string(kSseHead) +
           R"(data: {"id":"chatcmpl-1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})"
           "\n\n"
           R"(data: {"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]})"
           "\n\n"
           R"(data: {"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":" there"},"finish_reason":"stop"}]})"
           "\n\n"
           R"(data: {"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":4}}})"
           "\n\ndata: [DONE]\n\n",
       .body = R"({"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true})",
       .api_key = "sk-test",
       .request_id = "chatcmpl-1",
       .prompt_tokens = 9,
       .completion_tokens = 2,
       .cached_tokens = 4,
       .finish_reason = "stop",
       .output_text = "Hi there",
       .text_chunks = 2,
       .sent_headers = {"Authorization: Bearer sk-test"}});
  // vLLM's completions body, not streamed: the text and usage in one answer.
  c.push_back(
      {.name = "vLLM completions body",
       .api = "completions",
       .path = "/v1/completions",
       .response = json_answer(
           R"({"id":"cmpl-2","object":"text_completion","choices":[{"index":0,"text":"four","finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}})"),
       .body = R"({"model":"m","prompt":"2+2=","max_tokens":1,"stream":false})",
       .stream = false,
       .request_id = "cmpl-2",
       .prompt_tokens = 5,
       .completion_tokens = 1,
       .finish_reason = "length",
       .output_text = "four"});
  // vLLM's embeddings: vectors and usage, nothing generated.
  c.push_back(
      {.name = "vLLM embeddings",
       .api = "embeddings",
       .path = "/v1/embeddings",
       .response = json_answer(
           R"({"id":"embd-3","object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,-0.2]}],"model":"m","usage":{"prompt_tokens":3,"total_tokens":3}})"),
       .body = R"({"model":"m","input":"hello"})",
       .stream = false,
       .request_id = "embd-3",
       .prompt_tokens = 3});
  // Anthropic's Messages stream as its servers write it: `event:` lines, CRLF line ends, a ping,
  // and message_stop as the end (no [DONE]). The key goes as x-api-key with anthropic-version.
  c.push_back(
      {.name = "Anthropic stream",
       .api = "messages",
       .path = "/v1/messages",
       .response =
           "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nConnection: "
           "close\r\n\r\n"
           "event: message_start\r\ndata: "
           "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01\",\"type\":\"message\","
           "\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":{\"input_tokens\":12,"
           "\"output_tokens\":1}}}\r\n\r\n"
           "event: content_block_start\r\ndata: "
           "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\","
           "\"text\":"
           "\"\"}}\r\n\r\n"
           "event: ping\r\ndata: {\"type\": \"ping\"}\r\n\r\n"
           "event: content_block_delta\r\ndata: "
           "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
           "\"text\":"
           "\"Hel\"}}\r\n\r\n"
           "event: content_block_delta\r\ndata: "
           "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
           "\"text\":"
           "\"lo\"}}\r\n\r\n"
           "event: content_block_stop\r\ndata: "
           "{\"type\":\"content_block_stop\",\"index\":0}\r\n\r\n"
           "event: message_delta\r\ndata: "
           "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{"
           "\"output_"
           "tokens\":3}}\r\n\r\n"
           "event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n",
       .body =
           R"({"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"stream":true})",
       .api_key = "sk-ant-test",
       .request_id = "msg_01",
       .prompt_tokens = 12,
       .completion_tokens = 3,
       .finish_reason = "end_turn",
       .output_text = "Hello",
       .text_chunks = 2,
       .sent_headers = {"x-api-key: sk-ant-test", "anthropic-version: 2023-06-01"},
       .unsent_headers = {"Authorization"}});
  // An Anthropic stream cut before message_stop fails, naming what was missing; [DONE] means
  // nothing there.
  c.push_back({.name = "Anthropic stream without message_stop",
               .api = "messages",
               .path = "/v1/messages",
               .response =
                   "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                   "event: content_block_delta\ndata: "
                   "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_"
                   "delta\",\"text\":"
                   "\"a\"}}\n\n"
                   "data: [DONE]\n\n",
               .body = R"({"model":"m","max_tokens":8,"messages":[],"stream":true})",
               .ok = false,
               .outcome = Outcome::StreamProtocol,
               .error = "without a message_stop event"});
  // SGLang's /generate: cumulative text, cumulative meta_info counts (two tokens in the second
  // event), a finish object, then [DONE]. Each piece counts once, with its exact count.
  c.push_back(
      {.name = "SGLang /generate stream",
       .api = "generate",
       .path = "/generate",
       .response =
           "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
           "data: {\"text\":\" "
           "one\",\"meta_info\":{\"id\":\"abc\",\"finish_reason\":null,\"prompt_tokens\":6,"
           "\"completion_"
           "tokens\":1,\"cached_tokens\":0}}\n\n"
           "data: {\"text\":\" one two "
           "three\",\"meta_info\":{\"id\":\"abc\",\"finish_reason\":null,\"prompt_tokens\":6,"
           "\"completion_tokens\":3,\"cached_tokens\":0}}\n\n"
           "data: {\"text\":\" one two three "
           "four\",\"meta_info\":{\"id\":\"abc\",\"finish_reason\":{\"type\":\"length\",\"length\":"
           "4},"
           "\"prompt_tokens\":6,\"completion_tokens\":4,\"cached_tokens\":0}}\n\n"
           "data: [DONE]\n\n",
       .body = R"({"text":"hi","sampling_params":{"max_new_tokens":4},"stream":true})",
       .request_id = "abc",
       .prompt_tokens = 6,
       .completion_tokens = 4,
       .cached_tokens = 0,
       .finish_reason = "length",
       .output_text = " one two three four",
       .unsent_headers = {"anthropic-version"},
       .also = [](const RequestRecord& r) {
         EXPECT_EQ(r.output_chars, 19);
         ASSERT_EQ(r.chunks.size(), 3u);
         EXPECT_EQ(r.chunks[1].cum_tokens, 3);  // exact per-chunk counts
       }});
  // OpenAI's Responses stream as OpenAI writes it: `event:` lines, a created event, output item and
  // part events, deltas, the .done events that repeat the text, response.completed with the usage
  // as the end; a [DONE] a proxy adds after it is ignored. The key goes as a Bearer header.
  c.push_back(
      {.name = "Responses stream",
       .api = "responses",
       .path = "/v1/responses",
       .response =
           "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nConnection: "
           "close\r\n\r\n"
           "event: response.created\ndata: "
           "{\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_abc\","
           "\"object\":\"response\",\"status\":\"in_progress\",\"output\":[],\"usage\":null}}\n\n"
           "event: response.in_progress\ndata: "
           "{\"type\":\"response.in_progress\",\"sequence_number\":1,\"response\":{\"id\":\"resp_"
           "abc\","
           "\"status\":\"in_progress\"}}\n\n"
           "event: response.output_item.added\ndata: "
           "{\"type\":\"response.output_item.added\",\"sequence_number\":2,\"output_index\":0,"
           "\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"in_progress\",\"role\":"
           "\"assistant\",\"content\":[]}}\n\n"
           "event: response.content_part.added\ndata: "
           "{\"type\":\"response.content_part.added\",\"sequence_number\":3,\"item_id\":\"msg_1\","
           "\"output_index\":0,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":"
           "\"\","
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
           "{\"type\":\"response.completed\",\"sequence_number\":7,\"response\":{\"id\":\"resp_"
           "abc\","
           "\"status\":\"completed\",\"incomplete_details\":null,\"output\":[{\"type\":\"message\","
           "\"content\":[{\"type\":\"output_text\","
           "\"text\":\"Hello\"}]}],\"usage\":{\"input_tokens\":12,\"input_tokens_details\":{"
           "\"cached_"
           "tokens\":0},\"output_tokens\":2,"
           "\"total_tokens\":14}}}\n\n"
           "data: [DONE]\n\n",
       .body = R"({"model":"m","input":"hi","max_output_tokens":8,"stream":true})",
       .api_key = "sk-test",
       .request_id = "resp_abc",
       .prompt_tokens = 12,
       .completion_tokens = 2,
       .cached_tokens = 0,
       .finish_reason = "completed",
       .output_text = "Hello",  // once: the .done event and the response repeat it
       .text_chunks = 2,
       .sent_headers = {"Authorization: Bearer sk-test"},
       .unsent_headers = {"anthropic-version"}});
  // A Responses stream that fails says why (response.failed's error); one cut before its terminal
  // event fails naming what was missing, even when a proxy's [DONE] came.
  const std::string delta =
      "event: response.output_text.delta\ndata: "
      "{\"type\":\"response.output_text.delta\",\"delta\":\"a\"}\n\n";
  c.push_back(
      {.name = "Responses stream failed",
       .api = "responses",
       .path = "/v1/responses",
       .response = std::string(kSseHead) + delta +
                   "event: response.failed\ndata: "
                   "{\"type\":\"response.failed\",\"response\":{\"id\":\"resp_x\",\"status\":"
                   "\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"the model "
                   "crashed\"}}}\n\n",
       .body = R"({"model":"m","input":"hi","stream":true})",
       .ok = false,
       .error = "the model crashed"});
  c.push_back({.name = "Responses stream cut",
               .api = "responses",
               .path = "/v1/responses",
               .response = std::string(kSseHead) + delta + "data: [DONE]\n\n",
               .body = R"({"model":"m","input":"hi","stream":true})",
               .ok = false,
               .outcome = Outcome::StreamProtocol,
               .error = "without a response.completed event"});
  // llama.cpp's /v1/rerank: usage with prompt_tokens (vLLM's has only total_tokens), results
  // without the documents' text, no id. An answer with no results ranked nothing: it fails.
  const std::string ranking = R"({"model":"m","query":"q","documents":["a","b"]})";
  c.push_back(
      {.name = "llama.cpp rerank",
       .api = "rerank",
       .path = "/v1/rerank",
       .response = json_answer(
           R"({"model":"bge-reranker","object":"list","usage":{"prompt_tokens":46,"total_tokens":46},)"
           R"("results":[{"index":1,"relevance_score":0.97},{"index":0,"relevance_score":0.01}]})"),
       .body = ranking,
       .stream = false,
       .prompt_tokens = 46});
  c.push_back({.name = "rerank without results",
               .api = "rerank",
               .path = "/v1/rerank",
               .response = json_answer(R"({"usage":{"total_tokens":4}})"),
               .body = ranking,
               .stream = false,
               .ok = false,
               .error = "without a \"results\" list"});
  // vLLM's pooling family (entrypoints/pooling): /score answers one `data` item per pair, with
  // usage's prompt_tokens; /classify a label and probabilities per input; /pooling the pooled
  // states. An answer without its `data` list did nothing: it fails.
  c.push_back(
      {.name = "vLLM score",
       .api = "score",
       .path = "/score",
       .response = json_answer(
           R"({"id":"score-1","object":"list","created":1,"model":"bge-reranker","data":[)"
           R"({"index":0,"object":"score","score":0.2},{"index":1,"object":"score","score":0.9}],)"
           R"("usage":{"prompt_tokens":21,"total_tokens":21,"completion_tokens":0}})"),
       .body = R"({"model":"m","text_1":"q","text_2":["a","b"]})",
       .stream = false,
       .request_id = "score-1",
       .prompt_tokens = 21});
  c.push_back({.name = "score without data",
               .api = "score",
               .path = "/score",
               .response = json_answer(R"({"usage":{"prompt_tokens":4}})"),
               .body = R"({"model":"m","text_1":"q","text_2":["a"]})",
               .stream = false,
               .ok = false,
               .error = "without a \"data\" list"});
  c.push_back(
      {.name = "vLLM classify",
       .api = "classify",
       .path = "/classify",
       .response = json_answer(
           R"({"id":"classify-1","object":"list","created":1,"model":"m","data":[{"index":0,)"
           R"("label":"positive","probs":[0.1,0.9],"num_classes":2}],)"
           R"("usage":{"prompt_tokens":7,"total_tokens":7,"completion_tokens":0}})"),
       .body = R"({"model":"m","input":"hi"})",
       .stream = false,
       .request_id = "classify-1",
       .prompt_tokens = 7});
  c.push_back({.name = "vLLM pooling",
               .api = "pooling",
               .path = "/pooling",
               .response = json_answer(
                   R"({"id":"pool-1","object":"list","created":1,"model":"m","data":[{"index":0,)"
                   R"("object":"pooling","data":[[0.1,0.2],[0.3,0.4]]}],)"
                   R"("usage":{"prompt_tokens":5,"total_tokens":5,"completion_tokens":0}})"),
               .body = R"({"model":"m","input":"hi"})",
               .stream = false,
               .request_id = "pool-1",
               .prompt_tokens = 5});
  // TGI's /generate_stream as its router writes it: `data:` with no space, an event per token
  // (index = the count so far), the EOS a special token with no text, the last event with the
  // whole text and details, no [DONE]: the body ends after it. An error mid-stream is an event of
  // a 200: it fails the request.
  const std::string tgi_head =
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
      "x-compute-type: 1-nvidia-a10g\r\ntransfer-encoding: chunked\r\n\r\n";
  auto chunked = [](const std::string& data) {
    return fmt::format("{:x}\r\n{}\r\n", data.size(), data);
  };
  const std::string tgi_first = chunked(
      R"(data:{"index":1,"token":{"id":5,"text":"Hel","logprob":-0.1,"special":false},"generated_text":null,"details":null})"
      "\n\n");
  const std::string tgi_body =
      R"({"inputs":"hi","parameters":{"max_new_tokens":8,"details":true}})";
  c.push_back(
      {.name = "TGI /generate_stream",
       .api = "tgi",
       .path = "/generate_stream",
       .response =
           tgi_head + tgi_first +
           chunked(
               R"(data:{"index":2,"token":{"id":6,"text":"lo","logprob":-0.2,"special":false},"generated_text":null,"details":null})"
               "\n\n") +
           chunked(
               R"(data:{"index":3,"token":{"id":2,"text":"</s>","logprob":-0.3,"special":true},"generated_text":"Hello","details":{"finish_reason":"eos_token","generated_tokens":3,"seed":null,"input_length":4}})"
               "\n\n") +
           "0\r\n\r\n",
       .body = tgi_body,
       .prompt_tokens = 4,
       .completion_tokens = 3,
       .finish_reason = "eos_token",
       .output_text = "Hello",
       .text_chunks = 2,
       .unsent_headers = {"anthropic-version"},
       .also = [](const RequestRecord& r) {
         ASSERT_EQ(r.chunks.size(), 3u);  // the EOS is a chunk: a generated token
         EXPECT_EQ(r.chunks[1].cum_tokens, 2);
         EXPECT_EQ(r.done_ns, r.chunks[2].t_ns);  // its event ended the answer
       }});
  // TGI's /generate: one body (no prompt length in it) and its counts and times in headers, as
  // generate_internal writes them — whole ms and counts; on both transports.
  c.push_back(
      {.name = "TGI /generate body",
       .api = "tgi",
       .path = "/generate",
       .response =
           "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-compute-type: "
           "1-nvidia-a10g\r\nx-total-time: 31\r\nx-validation-time: 1\r\nx-queue-time: "
           "12\r\nx-inference-time: 18\r\nx-time-per-token: 6\r\nx-prompt-tokens: 4\r\n"
           "X-Generated-Tokens: 3\r\nConnection: close\r\n\r\n"
           R"({"generated_text":"Hello","details":{"finish_reason":"eos_token","generated_tokens":3,"seed":null,"prefill":[],"tokens":[{"id":5,"text":"Hel","logprob":-0.1,"special":false},{"id":6,"text":"lo","logprob":-0.2,"special":false},{"id":2,"text":"</s>","logprob":-0.3,"special":true}]}})",
       .body = tgi_body,
       .stream = false,
       .prompt_tokens = 4,
       .completion_tokens = 3,
       .finish_reason = "eos_token",
       .output_text = "Hello",
       .also = [](const RequestRecord& r) {
         EXPECT_EQ(r.server_queue_us, 12'000);
         EXPECT_EQ(r.server_predicted_us, 18'000);  // x-inference-time, prefill included
         EXPECT_EQ(r.server_predicted_n, 3);        // over x-generated-tokens (any case)
         EXPECT_EQ(r.server_prompt_us, record::kNone);
       }});
  c.push_back(
      {.name = "TGI error event",
       .api = "tgi",
       .path = "/generate_stream",
       .response =
           tgi_head + tgi_first +
           chunked(
               R"(data:{"error":"Request failed during generation: Server error: CUDA out of memory","error_type":"generation"})"
               "\n\n") +
           "0\r\n\r\n",
       .body = tgi_body,
       .ok = false,
       .error = "CUDA out of memory"});
  // Ollama's /api/chat as its server writes it: application/x-ndjson, a JSON object per line (no
  // SSE), then a done line with empty content, the finish, the counts and its own durations in
  // nanoseconds; no [DONE]. A body (stream false) is one such object with the whole message; an
  // error is a line {"error"}.
  const std::string ollama_body =
      R"({"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true})";
  auto line = [](const std::string& content) {
    return R"({"model":"m","created_at":"2026-12-05T13:00:00.1Z","message":{"role":"assistant","content":")" +
           content + R"("},"done":false})" + "\n";
  };
  c.push_back(
      {.name = "Ollama /api/chat stream",
       .api = "ollama",
       .path = "/api/chat",
       .response =
           "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nConnection: close\r\n\r\n" +
           line("Hel") + line("lo") +
           R"({"model":"m","created_at":"2026-12-05T13:00:00.3Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop",)"
           R"("total_duration":90000000,"load_duration":1000000,"prompt_eval_count":11,"prompt_eval_duration":4000000,"eval_count":2,"eval_duration":6000000})"
           "\n",
       .body = ollama_body,
       .prompt_tokens = 11,
       .completion_tokens = 2,
       .finish_reason = "stop",
       .output_text = "Hello",
       .text_chunks = 2,
       .sent_headers = {"Accept: application/x-ndjson"},
       .also = [](const RequestRecord& r) {
         EXPECT_EQ(r.chunks.size(), 2u);  // the done line is the end, not a chunk
         EXPECT_EQ(r.server_prompt_us, 4000);
         EXPECT_EQ(r.server_load_us, 1000);
         EXPECT_EQ(r.server_predicted_us, 6000);
         EXPECT_EQ(r.server_predicted_n, 2);
         EXPECT_NE(r.done_ns, record::kNone);
       }});
  c.push_back(
      {.name = "Ollama /api/chat body",
       .api = "ollama",
       .path = "/api/chat",
       .response =
           "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n"
           "Connection: close\r\n\r\n"
           R"({"model":"m","created_at":"2026-12-05T13:00:00Z","message":{"role":"assistant","content":"four"},)"
           R"("done":true,"done_reason":"length","prompt_eval_count":5,"eval_count":1})",
       .body = R"({"model":"m","messages":[{"role":"user","content":"2+2="}],"stream":false})",
       .stream = false,
       .prompt_tokens = 5,
       .completion_tokens = 1,
       .finish_reason = "length",
       .output_text = "four"});
  // Its /api/generate (routes.go GenerateHandler): the same lines with the text a top-level
  // "response"; the done line also carries "context", the token ids of prompt and answer.
  auto generated = [](const std::string& response) {
    return R"({"model":"m","created_at":"2026-12-05T13:00:00.1Z","response":")" + response +
           R"(","done":false})" + "\n";
  };
  c.push_back(
      {.name = "Ollama /api/generate stream",
       .api = "ollama-generate",
       .path = "/api/generate",
       .response =
           "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nConnection: close\r\n\r\n" +
           generated("Hel") + generated("lo") +
           R"({"model":"m","created_at":"2026-12-05T13:00:00.3Z","response":"","done":true,"done_reason":"stop","context":[1,2,3],)"
           R"("total_duration":90000000,"load_duration":2500000000,"prompt_eval_count":7,"prompt_eval_duration":4000000,"eval_count":2,"eval_duration":6000000})"
           "\n",
       .body = R"({"model":"m","prompt":"hi","stream":true})",
       .prompt_tokens = 7,
       .completion_tokens = 2,
       .finish_reason = "stop",
       .output_text = "Hello",
       .text_chunks = 2,
       .sent_headers = {"Accept: application/x-ndjson"},
       .also = [](const RequestRecord& r) {
         EXPECT_EQ(r.chunks.size(), 2u);
         EXPECT_EQ(r.server_load_us, 2'500'000);  // a cold load: 2.5 s
         EXPECT_EQ(r.server_predicted_n, 2);
       }});
  c.push_back(
      {.name = "Ollama error line",
       .api = "ollama",
       .path = "/api/chat",
       .response =
           "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nConnection: close\r\n\r\n" +
           line("Hel") + R"({"error":"an error was encountered while running the model"})" + "\n",
       .body = ollama_body,
       .ok = false,
       .error = "an error was encountered while running the model"});
  // MindIE's /infer as its endpoint writes it (cpp-httplib, chunked text/event-stream): an event
  // per step with the server's own time of it (integer ms), the last holding the whole text and
  // details with its own token's text null, no [DONE]. A body is {"generated_text", "details"}.
  const std::string mindie_head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nKeep-Alive: timeout=5, "
      "max=5\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string mindie_body =
      R"({"inputs":"hi","stream":true,"parameters":{"max_new_tokens":8,"details":true}})";
  c.push_back(
      {.name = "MindIE /infer stream",
       .api = "mindie",
       .path = "/infer",
       .response =
           mindie_head +
           chunked(R"(data: {"prefill_time":31,"decode_time":null,"token":{"id":5,"text":"Hel"}})"
                   "\n\n") +
           chunked(R"(data: {"prefill_time":null,"decode_time":7,"token":{"id":6,"text":"l"}})"
                   "\n\n") +
           chunked(
               R"(data: {"prefill_time":null,"decode_time":9,"generated_text":"Hello","details":)"
               R"({"finish_reason":"length","generated_tokens":3,"seed":null},"token":{"id":7,"text":null}})"
               "\n\n") +
           "0\r\n\r\n",
       .body = mindie_body,
       .completion_tokens = 3,
       .finish_reason = "length",
       .output_text = "Hello",
       .text_chunks = 3,
       .also = [](const RequestRecord& r) {
         ASSERT_EQ(r.chunks.size(), 3u);  // the last event is the last token
         EXPECT_EQ(r.done_ns, r.chunks[2].t_ns);
         EXPECT_EQ(r.server_prompt_us, 31000);
         EXPECT_EQ(r.server_predicted_us, 16000);  // 7 + 9 ms over two steps
         EXPECT_EQ(r.server_predicted_n, 2);
       }});
  c.push_back(
      {.name = "MindIE /infer body",
       .api = "mindie",
       .path = "/infer",
       .response = json_answer(
           R"({"generated_text":"four","details":{"finish_reason":"eos_token","generated_tokens":2,)"
           R"("generated_token_ids":[3,2],"seed":null}})"),
       .body = R"({"inputs":"2+2=","stream":false,"parameters":{"details":true}})",
       .stream = false,
       .completion_tokens = 2,
       .finish_reason = "eos_token",
       .output_text = "four"});
  c.push_back(
      {.name = "MindIE refusal",
       .api = "mindie",
       .path = "/infer",
       .response = testing::CannedServer::http(
           422, "application/json",
           R"({"error":"Parameter temperature must be in (0.0,2], got 0.","error_type":"validation"})"),
       .body = mindie_body,
       .ok = false,
       .error = "Parameter temperature must be in (0.0,2], got 0."});
  return c;
}

TEST_P(EngineOn, ForeignServersSpeakEachApiAsItsEngineDoes) {
  std::set<std::string> covered;
  for (const ForeignCase& fc : foreign_cases()) {
    SCOPED_TRACE(fc.name);
    covered.insert(fc.api);
    testing::CannedServer srv([&](const std::string&) { return fc.response; });
    EngineSettings es = settings();
    es.url = srv.url(fc.path);
    es.api = find_api(fc.api);
    ASSERT_NE(es.api, nullptr) << fc.api;
    es.stream = fc.stream;
    es.api_key = fc.api_key;
    es.keep_text = true;
    const auto rs = run(es, {fc.body});
    ASSERT_EQ(rs.size(), 1u);
    const RequestRecord& r = rs[0];
    const std::string head = srv.requests().at(0);
    EXPECT_NE(head.find(fc.body), std::string::npos) << head;  // the body as given
    for (const auto& h : fc.sent_headers) EXPECT_NE(head.find(h), std::string::npos) << head;
    for (const auto& h : fc.unsent_headers) EXPECT_EQ(head.find(h), std::string::npos) << head;
    if (!fc.ok) {
      EXPECT_FALSE(r.ok());
      if (fc.outcome) {
        EXPECT_EQ(r.outcome, *fc.outcome) << r.error;
      }
      EXPECT_NE(r.error.find(fc.error), std::string::npos) << r.error;
      continue;
    }
    EXPECT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.request_id, fc.request_id);
    EXPECT_EQ(r.prompt_tokens, fc.prompt_tokens);
    EXPECT_EQ(r.completion_tokens, fc.completion_tokens);
    EXPECT_EQ(r.cached_tokens, fc.cached_tokens);
    EXPECT_EQ(r.finish_reason, fc.finish_reason);
    EXPECT_EQ(r.output_text, fc.output_text);
    if (fc.text_chunks >= 0) {
      EXPECT_EQ(std::count_if(r.chunks.begin(), r.chunks.end(),
                              [](const auto& ch) { return ch.has_text(); }),
                fc.text_chunks);
    }
    EXPECT_NE(r.done_ns, record::kNone);
    if (fc.stream) {
      EXPECT_NE(r.first_token_ns, record::kNone);
    }
    if (fc.also) fc.also(r);
  }
  for (const ApiAdapter* a : all_apis())
    EXPECT_TRUE(covered.count(std::string(a->name())))
        << a->name() << ": add its foreign server's answers to foreign_cases()";
}

}  // namespace
}  // namespace tokbench::client
