// client/chunk_parser: classification of vLLM/OpenAI payloads.
#include "client/chunk_parser.hpp"

#include <gtest/gtest.h>

#include "client/api.hpp"

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
  auto i = parse(
      R"({"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})");
  EXPECT_EQ(i.kind, ChunkKind::Role);
  EXPECT_EQ(i.id, "c1");
}

TEST(ChunkParser, ContentReasoningFinishUsage) {
  EXPECT_EQ(parse(R"({"choices":[{"delta":{"content":" hi"}}]})").kind, ChunkKind::Content);
  EXPECT_EQ(parse(R"({"choices":[{"delta":{"reasoning_content":"hmm"}}]})").kind,
            ChunkKind::Reasoning);
  EXPECT_EQ(parse(R"({"choices":[{"delta":{"reasoning":"hmm","content":null}}]})").kind,
            ChunkKind::Reasoning);
  auto f = parse(R"({"choices":[{"delta":{},"finish_reason":"stop"}]})");
  EXPECT_EQ(f.kind, ChunkKind::Finish);
  EXPECT_EQ(f.finish_reason, "stop");
  auto u = parse(
      R"({"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":9,"prompt_tokens_details":{"cached_tokens":3}}})");
  EXPECT_EQ(u.kind, ChunkKind::Usage);
  EXPECT_EQ(u.prompt_tokens, 7);
  EXPECT_EQ(u.completion_tokens, 9);
  EXPECT_EQ(u.cached_tokens, 3);
}

TEST(ChunkParser, CompletionsTextAndContinuousUsage) {
  auto i = parse(
      R"({"choices":[{"text":" a b","finish_reason":"length"}],"usage":{"prompt_tokens":2,"completion_tokens":5}})");
  EXPECT_EQ(i.kind, ChunkKind::Content);
  EXPECT_EQ(i.text_bytes, 4);
  EXPECT_EQ(i.completion_tokens, 5);
  EXPECT_EQ(i.finish_reason, "length");
}

TEST(ChunkParser, NonStreamingBody) {
  auto i = parse(
      R"({"choices":[{"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}})");
  EXPECT_EQ(i.kind, ChunkKind::Content);
  EXPECT_EQ(i.completion_tokens, 2);
}

// A tool call is generated output: its first delta (the name) is the first token; arguments count
// as text; a body's message.tool_calls likewise.
TEST(ChunkParser, ToolCallDeltasAreOutput) {
  auto first = parse(
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"get_weather","arguments":""}}]}}]})");
  EXPECT_EQ(first.kind, ChunkKind::ToolCall);
  EXPECT_EQ(first.text_bytes, 11);
  auto args = parse(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\""}}]}}]})");
  EXPECT_EQ(args.kind, ChunkKind::ToolCall);
  EXPECT_EQ(args.tool_args, "{\"city\"");
  EXPECT_TRUE(record::ChunkEvent{.kind = ChunkKind::ToolCall}.has_text());
  EXPECT_EQ(
      parse(R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}]}}]})")
          .kind,
      ChunkKind::Empty);
  EXPECT_EQ(
      parse(
          R"({"choices":[{"delta":{"content":"x","tool_calls":[{"function":{"arguments":"y"}}]}}]})")
          .kind,
      ChunkKind::Content);
  auto body = parse(
      R"({"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]})");
  EXPECT_EQ(body.kind, ChunkKind::ToolCall);
  EXPECT_EQ(body.text_bytes, 3);
}

// n > 1: a stream event names its choice by `index`; a body lists every choice.
TEST(ChunkParser, ChoicesFromIndexAndBody) {
  EXPECT_EQ(parse(R"({"choices":[{"index":0,"delta":{"content":"a"}}]})").choices, 1);
  EXPECT_EQ(parse(R"({"choices":[{"index":2,"delta":{"content":"a"}}]})").choices, 3);
  EXPECT_EQ(
      parse(R"({"choices":[{"message":{"content":"a"}},{"message":{"content":"b"}}]})").choices, 2);
  EXPECT_EQ(parse(R"({"choices":[],"usage":{"completion_tokens":2}})").choices,
            0);  // a usage chunk speaks for none
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

ChunkInfo parse_with(ChunkParser& p, std::string_view json) {
  ChunkInfo info;
  std::string why;
  EXPECT_TRUE(p.parse(json, info, &why)) << why;
  return info;
}

// Anthropic's Messages stream, as its documentation shows it (the framer has already dropped the
// `event:` lines): only text, thinking and tool deltas are output; message_delta carries the
// stop reason and the output count; message_stop ends the stream.
TEST(ChunkParser, AnthropicStream) {
  ChunkParser p(find_api("messages"));
  auto start = parse_with(
      p, R"({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",)"
         R"("content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":20,)"
         R"("cache_read_input_tokens":80,"cache_creation_input_tokens":0,"output_tokens":1}}})");
  EXPECT_EQ(start.kind, ChunkKind::Role);
  EXPECT_EQ(start.id, "msg_1");
  EXPECT_EQ(start.prompt_tokens, 100);  // input_tokens leaves out what was read from the cache
  EXPECT_EQ(start.cached_tokens, 80);
  EXPECT_EQ(start.completion_tokens, -1);  // message_start's output_tokens is a placeholder
  EXPECT_EQ(
      parse_with(
          p,
          R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})")
          .kind,
      ChunkKind::Empty);
  EXPECT_EQ(parse_with(p, R"({"type": "ping"})").kind, ChunkKind::Empty);
  auto text = parse_with(
      p,
      R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}})");
  EXPECT_EQ(text.kind, ChunkKind::Content);
  EXPECT_EQ(text.content, "Hello");
  EXPECT_EQ(text.text_bytes, 5);
  EXPECT_EQ(
      parse_with(
          p,
          R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}})")
          .kind,
      ChunkKind::Reasoning);
  EXPECT_EQ(
      parse_with(
          p,
          R"({"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"x"}})")
          .kind,
      ChunkKind::Empty);
  EXPECT_EQ(parse_with(p, R"({"type":"content_block_stop","index":0})").kind, ChunkKind::Empty);
  auto tool = parse_with(
      p,
      R"({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"get_weather","input":{}}})");
  EXPECT_EQ(tool.kind, ChunkKind::ToolCall);
  EXPECT_EQ(tool.text_bytes, 11);
  auto args = parse_with(
      p,
      R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}})");
  EXPECT_EQ(args.kind, ChunkKind::ToolCall);
  EXPECT_EQ(args.tool_args, "{\"a\"");
  auto delta = parse_with(
      p,
      R"({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}})");
  EXPECT_EQ(delta.kind, ChunkKind::Finish);
  EXPECT_EQ(delta.finish_reason, "end_turn");
  EXPECT_EQ(delta.completion_tokens, 15);
  EXPECT_FALSE(delta.end);
  EXPECT_TRUE(parse_with(p, R"({"type":"message_stop"})").end);
  auto err = parse_with(
      p, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  EXPECT_EQ(err.error, "Overloaded");
  EXPECT_EQ(p.api().end_of_stream(), "a message_stop event");
}

TEST(ChunkParser, AnthropicBody) {
  ChunkParser p(find_api("messages"));
  auto body = parse_with(
      p,
      R"({"id":"msg_2","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"ab"},)"
      R"({"type":"text","text":"Hi"},{"type":"text","text":" there"}],"stop_reason":"max_tokens",)"
      R"("usage":{"input_tokens":7,"output_tokens":9}})");
  EXPECT_EQ(body.kind, ChunkKind::Content);
  EXPECT_EQ(body.id, "msg_2");
  EXPECT_EQ(body.content, "Hi");          // the first text block
  EXPECT_EQ(body.text_bytes, 2 + 2 + 6);  // every block counts
  EXPECT_EQ(body.finish_reason, "max_tokens");
  EXPECT_EQ(body.prompt_tokens, 7);
  EXPECT_EQ(body.cached_tokens, -1);
  EXPECT_EQ(body.completion_tokens, 9);
}

// OpenAI's Responses stream, as its reference shows it (the framer has dropped the `event:`
// lines): only text, reasoning and function-call deltas are output; the .done events repeat the
// text and count for nothing; the terminal event carries the usage and how it ended, and ends
// the stream (there is no [DONE]).
TEST(ChunkParser, ResponsesStream) {
  ChunkParser p(find_api("responses"));
  auto created = parse_with(
      p,
      R"({"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response",)"
      R"("status":"in_progress","output":[],"usage":null}})");
  EXPECT_EQ(created.kind, ChunkKind::Role);
  EXPECT_EQ(created.id, "resp_1");
  EXPECT_FALSE(created.end);
  EXPECT_EQ(
      parse_with(
          p,
          R"({"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_1","status":"in_progress"}})")
          .kind,
      ChunkKind::Empty);
  EXPECT_EQ(
      parse_with(
          p,
          R"({"type":"response.output_item.added","output_index":0,"item":{"type":"message","role":"assistant","content":[]}})")
          .kind,
      ChunkKind::Empty);
  auto text = parse_with(
      p,
      R"({"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,)"
      R"("content_index":0,"delta":"Hello"})");
  EXPECT_EQ(text.kind, ChunkKind::Content);
  EXPECT_EQ(text.content, "Hello");
  EXPECT_EQ(text.text_bytes, 5);
  EXPECT_EQ(parse_with(p, R"({"type":"response.reasoning_summary_text.delta","delta":"hm"})").kind,
            ChunkKind::Reasoning);
  auto call = parse_with(
      p,
      R"({"type":"response.output_item.added","item":{"type":"function_call","name":"get_weather","arguments":""}})");
  EXPECT_EQ(call.kind, ChunkKind::ToolCall);
  EXPECT_EQ(call.text_bytes, 11);
  auto args =
      parse_with(p, R"({"type":"response.function_call_arguments.delta","delta":"{\"a\""})");
  EXPECT_EQ(args.kind, ChunkKind::ToolCall);
  EXPECT_EQ(args.tool_args, "{\"a\"");
  auto done = parse_with(p, R"({"type":"response.output_text.done","text":"Hello"})");
  EXPECT_EQ(done.kind, ChunkKind::Empty);  // the whole text again: not new output
  EXPECT_EQ(done.text_bytes, 0);
  auto completed = parse_with(
      p,
      R"({"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","status":"completed",)"
      R"("incomplete_details":null,"error":null,"output":[{"type":"message","content":[{"type":"output_text","text":"Hello"}]}],)"
      R"("usage":{"input_tokens":20,"input_tokens_details":{"cached_tokens":16},"output_tokens":5,"total_tokens":25}}})");
  EXPECT_TRUE(completed.end);
  EXPECT_EQ(completed.content,
            "");  // the output repeated in the final response is not counted again
  EXPECT_EQ(completed.prompt_tokens, 20);
  EXPECT_EQ(completed.cached_tokens, 16);
  EXPECT_EQ(completed.completion_tokens, 5);
  EXPECT_EQ(completed.finish_reason, "completed");
  EXPECT_TRUE(completed.error.empty());
  auto incomplete = parse_with(
      p,
      R"({"type":"response.incomplete","response":{"status":"incomplete",)"
      R"("incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":3,"output_tokens":8}}})");
  EXPECT_TRUE(incomplete.end);
  EXPECT_EQ(incomplete.finish_reason, "max_output_tokens");
  auto failed = parse_with(
      p,
      R"({"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}})");
  EXPECT_TRUE(failed.end);
  EXPECT_EQ(failed.error, "boom");
  EXPECT_EQ(
      parse_with(
          p, R"({"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null})")
          .error,
      "slow down");
  EXPECT_EQ(p.api().end_of_stream(), "a response.completed event");
  EXPECT_FALSE(p.api().done_sentinel());
}

TEST(ChunkParser, ResponsesBody) {
  ChunkParser p(find_api("responses"));
  auto body = parse_with(
      p,
      R"({"id":"resp_2","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},)"
      R"("output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"ab"}]},)"
      R"({"type":"message","content":[{"type":"output_text","text":"Hi"},{"type":"output_text","text":" there"}]},)"
      R"({"type":"function_call","name":"f","arguments":"{}"}],)"
      R"("usage":{"input_tokens":7,"output_tokens":9}})");
  EXPECT_EQ(body.kind, ChunkKind::Content);
  EXPECT_EQ(body.id, "resp_2");
  EXPECT_EQ(body.content, "Hi");  // the first text part
  EXPECT_EQ(body.reasoning, "ab");
  EXPECT_EQ(body.text_bytes,
            2 + 2 + 6 + 3);  // every part counts, and the call's name and arguments
  EXPECT_EQ(body.finish_reason, "max_output_tokens");
  EXPECT_EQ(body.prompt_tokens, 7);
  EXPECT_EQ(body.completion_tokens, 9);
  EXPECT_FALSE(body.end);
}

// SGLang's /generate streams the whole answer so far; the parser hands out only what is new, and
// every event's meta_info.completion_tokens is the exact count so far.
TEST(ChunkParser, SglangGenerateCumulativeText) {
  ChunkParser p(find_api("generate"));
  auto one = parse_with(
      p,
      R"({"text":" alpha","meta_info":{"id":"r1","finish_reason":null,"prompt_tokens":9,"completion_tokens":1,"cached_tokens":4},"index":0})");
  EXPECT_EQ(one.kind, ChunkKind::Content);
  EXPECT_EQ(one.content, " alpha");
  EXPECT_EQ(one.id, "r1");
  EXPECT_EQ(one.prompt_tokens, 9);
  EXPECT_EQ(one.completion_tokens, 1);
  EXPECT_EQ(one.cached_tokens, 4);
  auto two = parse_with(
      p,
      R"({"text":" alpha beta gamma","meta_info":{"finish_reason":null,"completion_tokens":3},"index":0})");
  EXPECT_EQ(two.content, " beta gamma");
  EXPECT_EQ(two.text_bytes, 11);
  // Detokenizer lag: a token that adds no text yet is not a text chunk.
  auto lag = parse_with(
      p,
      R"({"text":" alpha beta gamma","meta_info":{"finish_reason":null,"completion_tokens":4},"index":0})");
  EXPECT_EQ(lag.kind, ChunkKind::Empty);
  EXPECT_EQ(lag.completion_tokens, 4);
  auto last = parse_with(
      p,
      R"({"text":" alpha beta gamma delta","meta_info":{"finish_reason":{"type":"length","length":5},"completion_tokens":5},"index":0})");
  EXPECT_EQ(last.content, " delta");
  EXPECT_EQ(last.finish_reason, "length");
  // The next response starts from nothing.
  p.begin_response();
  EXPECT_EQ(parse_with(p, R"({"text":" x","meta_info":{"completion_tokens":1}})").content, " x");
}

// A server started with --incremental-streaming-output sends only the new text: told apart at
// the second event, whose text does not repeat the first.
TEST(ChunkParser, SglangGenerateIncrementalText) {
  ChunkParser p(find_api("generate"));
  EXPECT_EQ(parse_with(p, R"({"text":"Hello","meta_info":{"completion_tokens":1}})").content,
            "Hello");
  EXPECT_EQ(parse_with(p, R"({"text":" world","meta_info":{"completion_tokens":2}})").content,
            " world");
  EXPECT_EQ(parse_with(p, R"({"text":" and more than before","meta_info":{"completion_tokens":6}})")
                .content,
            " and more than before");
  // Choices keep their own text (n > 1 interleaves them by index).
  ChunkParser q(find_api("generate"));
  EXPECT_EQ(parse_with(q, R"({"text":"a","index":0})").content, "a");
  EXPECT_EQ(parse_with(q, R"({"text":"b","index":1})").content, "b");
  EXPECT_EQ(parse_with(q, R"({"text":"ab","index":0})").content, "b");
  EXPECT_EQ(parse_with(q, R"({"text":"bc","index":1})").choices, 2);
}

TEST(ChunkParser, SglangGenerateBodiesAndAbort) {
  ChunkParser p(find_api("generate"));
  auto list = parse_with(
      p,
      R"([{"text":"ab","meta_info":{"id":"x","prompt_tokens":3,"completion_tokens":2,"finish_reason":{"type":"stop","matched":2}}},)"
      R"({"text":"cde","meta_info":{"id":"x","prompt_tokens":3,"completion_tokens":3}}])");
  EXPECT_EQ(list.choices, 2);
  EXPECT_EQ(list.completion_tokens, 5);
  EXPECT_EQ(list.prompt_tokens, 3);
  EXPECT_EQ(list.text_bytes, 5);
  EXPECT_EQ(list.finish_reason, "stop");
  auto abort = parse_with(
      p, R"({"text":"","meta_info":{"finish_reason":{"type":"abort","message":"out of memory"}}})");
  EXPECT_EQ(abort.error, "out of memory");
  ChunkInfo info;
  std::string why;
  EXPECT_FALSE(ChunkParser().parse("[1]", info, &why));  // only /generate answers a list
}

// TGI's /generate_stream: an event per token whose index is the count so far; a special token
// (the EOS) is no text; the last event carries the whole text and, with details, the exact
// counts and the finish; an error is a plain string on an event of a 200 stream, and ends it.
TEST(ChunkParser, TgiGenerateStream) {
  ChunkParser p(find_api("tgi"));
  auto one = parse_with(
      p,
      R"({"index":1,"token":{"id":318,"text":" Ray","logprob":-0.5,"special":false},"generated_text":null,"details":null})");
  EXPECT_EQ(one.kind, ChunkKind::Content);
  EXPECT_EQ(one.content, " Ray");
  EXPECT_EQ(one.completion_tokens, 1);
  EXPECT_FALSE(one.last);
  auto two = parse_with(
      p,
      R"({"index":2,"token":{"id":2,"text":"</s>","logprob":-0.1,"special":true},"generated_text":" Ray","details":{"finish_reason":"eos_token","generated_tokens":2,"seed":null,"input_length":7}})");
  EXPECT_EQ(two.kind, ChunkKind::Finish);
  EXPECT_TRUE(two.content.empty());
  EXPECT_EQ(two.finish_reason, "eos_token");
  EXPECT_EQ(two.completion_tokens, 2);
  EXPECT_EQ(two.prompt_tokens, 7);
  EXPECT_TRUE(two.last);  // a chunk (the EOS is a generated token), then nothing
  EXPECT_FALSE(two.end);
  // Without details the last event still ends the stream; its index is the count.
  auto bare = parse_with(
      p,
      R"({"index":5,"token":{"id":9,"text":"x","special":false},"generated_text":"abcdx","details":null})");
  EXPECT_EQ(bare.content, "x");
  EXPECT_EQ(bare.completion_tokens, 5);
  EXPECT_EQ(bare.prompt_tokens, -1);
  EXPECT_TRUE(bare.last);
  auto err = parse_with(
      p,
      R"({"error":"Request failed during generation: Server error: CUDA OOM","error_type":"generation"})");
  EXPECT_EQ(err.error, "Request failed during generation: Server error: CUDA OOM");
  EXPECT_TRUE(err.end);
  EXPECT_FALSE(find_api("tgi")->done_sentinel());
}

// Ollama's /api/chat lines: a piece's content (and a thinking model's "thinking"), then a done
// line with the finish, the counts and its own durations (nanoseconds) — the end, not a chunk;
// a body's single object, done with the whole message, is a chunk that also ends; an error line.
TEST(ChunkParser, OllamaChatLines) {
  ChunkParser p(find_api("ollama"));
  auto one = parse_with(
      p,
      R"({"model":"m","created_at":"2026-12-05T13:00:00Z","message":{"role":"assistant","content":"The"},"done":false})");
  EXPECT_EQ(one.kind, ChunkKind::Content);
  EXPECT_EQ(one.content, "The");
  EXPECT_FALSE(one.end || one.last);
  auto think = parse_with(
      p, R"({"message":{"role":"assistant","content":"","thinking":"hmm"},"done":false})");
  EXPECT_EQ(think.kind, ChunkKind::Reasoning);
  auto done = parse_with(
      p,
      R"({"message":{"role":"assistant","content":""},"done":true,"done_reason":"length","total_duration":9,)"
      R"("load_duration":2250000000,"prompt_eval_count":26,"prompt_eval_duration":342546000,"eval_count":282,"eval_duration":4535599000})");
  EXPECT_TRUE(done.end);
  EXPECT_FALSE(done.last);
  EXPECT_EQ(done.finish_reason, "length");
  EXPECT_EQ(done.prompt_tokens, 26);
  EXPECT_EQ(done.completion_tokens, 282);
  EXPECT_DOUBLE_EQ(done.server_prompt_ms, 342.546);
  EXPECT_DOUBLE_EQ(done.server_predicted_ms, 4535.599);
  EXPECT_EQ(done.server_predicted_n, 282);
  EXPECT_DOUBLE_EQ(done.server_load_ms, 2250.0);
  auto body = parse_with(
      p,
      R"({"message":{"role":"assistant","content":"four"},"done":true,"done_reason":"stop","eval_count":1})");
  EXPECT_TRUE(body.last);
  EXPECT_EQ(body.content, "four");
  EXPECT_EQ(parse_with(p, R"({"error":"model 'x' not found"})").error, "model 'x' not found");
  EXPECT_TRUE(find_api("ollama")->caps().ndjson);
}

// MindIE's /infer stream, as its endpoint writes it: an event per step with its token's text and
// the server's time of that step (integer ms: prefill_time for the first, decode_time after,
// summed event by event), then a last event whose token's text is null: its text is the rest of
// generated_text, and details bring the count and the finish. A new response forgets the last.
// A body is {"generated_text", "details"}; an error, {"error", "error_type"}.
TEST(ChunkParser, MindieInferStream) {
  ChunkParser p(find_api("mindie"));
  p.begin_response();
  auto one =
      parse_with(p, R"({"prefill_time":85,"decode_time":null,"token":{"id":1820,"text":"The"}})");
  EXPECT_EQ(one.kind, ChunkKind::Content);
  EXPECT_EQ(one.content, "The");
  EXPECT_DOUBLE_EQ(one.server_prompt_ms, 85);
  EXPECT_EQ(one.server_predicted_n, -1);  // no step time yet
  EXPECT_FALSE(one.last || one.end);
  auto two =
      parse_with(p, R"({"prefill_time":null,"decode_time":21,"token":{"id":3363,"text":" sky"}})");
  EXPECT_EQ(two.content, " sky");
  EXPECT_DOUBLE_EQ(two.server_predicted_ms, 21);
  EXPECT_EQ(two.server_predicted_n, 1);
  auto last = parse_with(
      p,
      R"({"prefill_time":null,"decode_time":23,"generated_text":"The sky is","details":)"
      R"({"finish_reason":"length","generated_tokens":3,"seed":null},"token":{"id":374,"text":null}})");
  EXPECT_EQ(last.content, " is");  // the last token's text: what the events had not brought
  EXPECT_EQ(last.kind, ChunkKind::Content);
  EXPECT_TRUE(last.last);
  EXPECT_EQ(last.finish_reason, "length");
  EXPECT_EQ(last.completion_tokens, 3);
  EXPECT_EQ(last.prompt_tokens, -1);               // MindIE counts no prompt tokens here
  EXPECT_DOUBLE_EQ(last.server_predicted_ms, 44);  // 21 + 23 over two steps
  EXPECT_EQ(last.server_predicted_n, 2);
  // An EOS adds no text: the last event is the finish alone.
  p.begin_response();
  (void)parse_with(p, R"({"prefill_time":9,"token":{"id":5,"text":"ok"}})");
  auto eos = parse_with(
      p,
      R"({"decode_time":4,"generated_text":"ok","details":{"finish_reason":"eos_token","generated_tokens":2},)"
      R"("token":{"id":2,"text":null}})");
  EXPECT_EQ(eos.kind, ChunkKind::Finish);
  EXPECT_TRUE(eos.content.empty());
  EXPECT_EQ(eos.server_predicted_n, 1);  // the first response's steps are forgotten
  EXPECT_TRUE(eos.last);
  // A body: the whole text.
  p.begin_response();
  auto body = parse_with(
      p, R"({"generated_text":"am a French native speaker","details":{"finish_reason":"length",)"
         R"("generated_tokens":5,"generated_token_ids":[1,2,3,4,5],"seed":846930886}})");
  EXPECT_EQ(body.content, "am a French native speaker");
  EXPECT_EQ(body.completion_tokens, 5);
  auto err = parse_with(
      p,
      R"({"error":"Parameter temperature must be in (0.0,2], got 0.","error_type":"validation"})");
  EXPECT_EQ(err.error, "Parameter temperature must be in (0.0,2], got 0.");
  EXPECT_TRUE(err.end);
  EXPECT_FALSE(find_api("mindie")->done_sentinel());
  EXPECT_FALSE(find_api("mindie")->caps().sampling_extensions);
}

// Each object is read in one pass; a name that comes twice counts as its first (what a lookup by
// name found before), wherever the fields stand, and fields of other types are not taken.
TEST(ChunkParser, OnePassKeepsTheFirstOfADuplicatedName) {
  auto i = parse(
      R"({"choices":[{"finish_reason":null,"delta":{"content":"a","role":"assistant","content":"b"},"index":3,)"
      R"("delta":{"content":"c"}},{"index":1}],"id":"x","id":"y","usage":{"completion_tokens":4}})");
  EXPECT_EQ(i.content, "a");
  EXPECT_EQ(i.id, "x");
  EXPECT_EQ(i.choice, 3);
  EXPECT_EQ(i.choices, 4);
  EXPECT_EQ(i.completion_tokens, 4);
  EXPECT_EQ(i.kind, ChunkKind::Content);
  auto t =
      parse(R"({"choices":[{"text":7,"index":"0"}]})");  // text not a string, index not a number
  EXPECT_TRUE(t.content.empty());
  EXPECT_EQ(t.choice, 0);
  EXPECT_EQ(t.kind, ChunkKind::Empty);
  auto both = parse(R"({"choices":[{"message":{"content":"body"},"delta":{"content":"stream"}}]})");
  EXPECT_EQ(both.content, "stream");  // a delta wins over a message, in any order
}

// Parsers sharing one thread's scratch (the engine's slots) each keep their own response state.
TEST(ChunkParser, SharedScratchKeepsEachParsersOwnState) {
  JsonScratch scratch;
  ChunkParser a(find_api("generate")), b(find_api("generate"));
  a.share(&scratch);
  b.share(&scratch);
  EXPECT_EQ(parse_with(a, R"({"text":"Hello"})").content, "Hello");
  EXPECT_EQ(parse_with(b, R"({"text":"Bye"})").content, "Bye");
  EXPECT_EQ(parse_with(a, R"({"text":"Hello world"})").content, " world");
  EXPECT_EQ(parse_with(b, R"({"text":"Bye now"})").content, " now");
}

}  // namespace
}  // namespace tokbench::client
