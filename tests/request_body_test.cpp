// client/request_body: optional fields are sent only when given; --extra-body merges and wins.
#include "client/request_body.hpp"

#include <gtest/gtest.h>

namespace tokbench::client {
namespace {

const dataset::RequestSpec kSpec{"What is 2+2?", -1};

TEST(RequestBody, ChatStreamingDefaultsAskForUsageAndNothingHidden) {
  BodySettings s;
  s.model = "m";
  EXPECT_EQ(
      build_body(s, kSpec),
      R"({"model":"m","messages":[{"role":"user","content":"What is 2+2?"}],"max_tokens":256,)"
      R"("stream":true,"stream_options":{"include_usage":true}})");
}

TEST(RequestBody, OptionalFieldsOnlyWhenGiven) {
  BodySettings s;
  s.model = "m";
  s.api = find_api("completions");
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

// A dataset's whole conversation goes as written; a per-request model (LoRA) replaces the run's
// and is a fact of the record; --extra-body still wins over both.
TEST(RequestBody, DatasetMessagesAndModelPerRequest) {
  BodySettings s;
  s.model = "base";
  dataset::RequestSpec spec("Be brief.\nHi\n");
  spec.as_conversation().messages_json =
      R"([{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}])";
  spec.model = "sql-lora";
  const auto body = build_body(s, spec);
  EXPECT_EQ(
      body.find(
          R"({"model":"sql-lora","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}],)"),
      0u)
      << body;
  EXPECT_EQ(plan_request(s, spec, false).facts.model, "sql-lora");
  spec.model = "base";  // the run's model named again: not a per-request model
  EXPECT_EQ(plan_request(s, spec, false).facts.model, "");
  s.extra = parse_extra_body(R"({"messages":[{"role":"user","content":"x"}]})");
  EXPECT_NE(build_body(s, spec).find(R"("messages":[{"role":"user","content":"x"}])"),
            std::string::npos);
}

// /v1/embeddings: the text as `input`, nothing about generation (no cap, no stream, no ignore_eos).
TEST(RequestBody, EmbeddingsSendOnlyTheInput) {
  BodySettings s;
  s.model = "m";
  s.api = find_api("embeddings");
  s.ignore_eos = true;
  EXPECT_EQ(build_body(s, kSpec), R"({"model":"m","input":"What is 2+2?"})");
  const auto p = plan_request(s, kSpec, false);
  EXPECT_EQ(p.facts.requested_max_tokens, core::kNotSet);
  EXPECT_FALSE(p.facts.ignore_eos_sent);
  s.extra = parse_extra_body(R"({"encoding_format":"float"})");
  EXPECT_EQ(build_body(s, kSpec),
            R"({"model":"m","input":"What is 2+2?","encoding_format":"float"})");
}

// /v1/rerank: the query and its documents, nothing about generation; the documents are a fact of
// the record, and a local tokenizer counts the query beside each document (as the model reads).
TEST(RequestBody, RerankSendsTheQueryAndItsDocuments) {
  BodySettings s;
  s.model = "m";
  s.api = find_api("rerank");
  s.ignore_eos = true;
  dataset::RequestSpec spec("best fruit?");
  spec.payload = core::Ranking{{"apples", "pe\"ars"}};
  EXPECT_EQ(build_body(s, spec),
            R"({"model":"m","query":"best fruit?","documents":["apples","pe\"ars"]})");
  const auto p = plan_request(s, spec, true);
  EXPECT_EQ(p.facts.documents, 2);
  EXPECT_EQ(p.facts.requested_max_tokens, core::kNotSet);
  EXPECT_FALSE(p.facts.ignore_eos_sent);
  EXPECT_EQ(p.facts.prompt_text, "best fruit?\napples\nbest fruit?\npe\"ars\n");
  EXPECT_EQ(plan_request(s, kSpec, false).facts.documents, 0);  // a prompt alone ranks nothing
  s.extra = parse_extra_body(R"({"top_n":1})");
  EXPECT_EQ(build_body(s, spec),
            R"({"model":"m","query":"best fruit?","documents":["apples","pe\"ars"],"top_n":1})");
  // Another API given a ranking sends its query as a prompt and counts no documents.
  s.api = find_api("completions");
  s.extra.clear();
  EXPECT_EQ(plan_request(s, spec, false).facts.documents, 0);
}

// Images: OpenAI's content parts, the text first, then one image_url part per image.
TEST(RequestBody, ImagesAreImageUrlContentParts) {
  BodySettings s;
  s.model = "m";
  dataset::RequestSpec spec("Describe it");
  spec.as_conversation().image_urls = {"data:image/png;base64,AAAA", "data:image/png;base64,BBBB"};
  EXPECT_EQ(
      build_body(s, spec).find(
          R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"Describe it"},)"
          R"({"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},)"
          R"({"type":"image_url","image_url":{"url":"data:image/png;base64,BBBB"}}]}],)"),
      0u)
      << build_body(s, spec);
  EXPECT_EQ(plan_request(s, spec, false).facts.images, 2);
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
  s.extra = parse_extra_body(
      R"({"top_p": 0.9, "max_tokens": 5, "chat_template_kwargs": {"enable_thinking": false}})");
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

TEST(RequestBody, PeerPresetsSendWhatEachToolSends) {
  BodySettings s;
  s.model = "m";
  s.flavor = Flavor::Vllm;
  auto b = build_body(s, kSpec);
  EXPECT_NE(b.find(R"("max_completion_tokens":256)"), std::string::npos) << b;
  EXPECT_EQ(b.find(R"("max_tokens")"), std::string::npos);
  EXPECT_EQ(b.find("temperature"), std::string::npos);  // vLLM bench sends none
  s.api = find_api("completions");
  EXPECT_NE(build_body(s, kSpec).find(R"("repetition_penalty":1)"), std::string::npos);
  s.api = find_api("chat");
  s.flavor = Flavor::Evalscope;
  s.min_tokens = 256;
  b = build_body(s, kSpec);
  EXPECT_NE(b.find(R"("temperature":0)"), std::string::npos) << b;
  EXPECT_NE(b.find(R"("min_tokens":256)"), std::string::npos);
  EXPECT_NE(b.find(R"("include_usage":true)"), std::string::npos);
  s.flavor = Flavor::Sglang;
  s.min_tokens.reset();
  b = build_body(s, kSpec);
  EXPECT_NE(b.find(R"("ignore_eos":true)"), std::string::npos) << b;
  EXPECT_EQ(b.find("stream_options"), std::string::npos);  // bench_serving does not ask for usage
}

TEST(RequestAudit, NamesTheKnownTraps) {
  auto levels = [](const std::vector<AuditFinding>& fs, const std::string& needle) {
    for (const auto& f : fs)
      if (f.text.find(needle) != std::string::npos) return f.level;
    return std::string("absent");
  };
  const auto seed_incident = audit_body(
      R"({"model":"m","messages":[],"max_tokens":512,"min_tokens":512,"ignore_eos":true,"temperature":0,"seed":0,"stream":true,"stream_options":{"include_usage":true}})",
      api_named("chat"));
  EXPECT_EQ(levels(seed_incident, "min_tokens together with ignore_eos"), "warning");
  EXPECT_EQ(levels(seed_incident, "fixed seed"), "note");
  EXPECT_EQ(levels(seed_incident, "no temperature"), "absent");
  const auto bare =
      audit_body(R"({"model":"m","prompt":"x","stream":true})", api_named("completions"));
  EXPECT_EQ(levels(bare, "no temperature"), "note");
  EXPECT_EQ(levels(bare, "without stream_options.include_usage"), "warning");
  EXPECT_EQ(levels(bare, "no output cap"), "note");
  const auto both = audit_body(R"({"max_tokens":1,"max_completion_tokens":2,"temperature":1})",
                               api_named("chat"));
  EXPECT_EQ(levels(both, "both max_tokens and max_completion_tokens"), "warning");
  // Anthropic's streams always carry usage: no include_usage warning there.
  const auto messages = audit_body(R"({"model":"m","messages":[],"max_tokens":5,"stream":true})",
                                   api_named("messages"));
  EXPECT_EQ(levels(messages, "include_usage"), "absent");
  // /generate's fields live in sampling_params, under SGLang's names.
  const auto generate = audit_body(
      R"({"text":"x","sampling_params":{"max_new_tokens":8,"min_new_tokens":8,"ignore_eos":true},"stream":true})",
      api_named("generate"));
  EXPECT_EQ(levels(generate, "min_new_tokens together with ignore_eos"), "warning");
  EXPECT_EQ(levels(generate, "no temperature"), "note");
  EXPECT_EQ(levels(generate, "no max_new_tokens"), "absent");
  EXPECT_EQ(levels(generate, "include_usage"), "absent");
  EXPECT_EQ(levels(audit_body(R"({"text":"x","stream":false})", api_named("generate")),
                   "no max_new_tokens"),
            "note");
}

// Anthropic's Messages API: the prompt as a user message, max_tokens (required there), no
// stream_options (its streams carry usage anyway); images as base64 image blocks.
TEST(RequestBody, AnthropicMessages) {
  BodySettings s;
  s.api = find_api("messages");
  s.model = "claude-like";
  s.max_tokens = 64;
  dataset::RequestSpec spec;
  spec.prompt = "hi";
  EXPECT_EQ(
      build_body(s, spec),
      R"({"model":"claude-like","messages":[{"role":"user","content":"hi"}],"max_tokens":64,"stream":true})");
  s.ignore_eos = true;
  s.temperature = 0.5;
  spec.as_conversation().image_urls = {"data:image/png;base64,QUJD"};
  EXPECT_EQ(
      build_body(s, spec),
      R"({"model":"claude-like","messages":[{"role":"user","content":[{"type":"text","text":"hi"},)"
      R"({"type":"image","source":{"type":"base64","media_type":"image/png","data":"QUJD"}}]}],"max_tokens":64,)"
      R"("ignore_eos":true,"temperature":0.5,"stream":true})");
  EXPECT_EQ(plan_request(s, spec, false).facts.images, 1);
}

// SGLang's native /generate: text and sampling_params, no model (a LoRA adapter is lora_path);
// --compat sglang adds what bench_serving's native backend sends (temperature 0, ignore_eos).
TEST(RequestBody, SglangGenerate) {
  BodySettings s;
  s.api = find_api("generate");
  s.model = "base";
  s.max_tokens = 32;
  dataset::RequestSpec spec;
  spec.prompt = "hi";
  EXPECT_EQ(build_body(s, spec),
            R"({"text":"hi","sampling_params":{"max_new_tokens":32},"stream":true})");
  s.flavor = Flavor::Sglang;
  s.min_tokens = 4;
  spec.model = "adapter-a";
  EXPECT_EQ(
      build_body(s, spec),
      R"({"text":"hi","sampling_params":{"max_new_tokens":32,"min_new_tokens":4,"ignore_eos":true,"temperature":0},)"
      R"("stream":true,"lora_path":"adapter-a"})");
  EXPECT_TRUE(plan_request(s, spec, false).facts.ignore_eos_sent);
  s.extra = parse_extra_body(
      R"({"sampling_params":{"max_new_tokens":1},"rid":"x"})");  // the user's object wins whole
  EXPECT_EQ(
      build_body(s, spec),
      R"({"text":"hi","stream":true,"lora_path":"adapter-a","sampling_params":{"max_new_tokens":1},"rid":"x"})");
}

// OpenAI's Responses API: the prompt as `input` (a plain string), max_output_tokens, no
// stream_options (its terminal event carries usage); a conversation and images go as messages
// with input_text and input_image parts; the audit reads its own cap's name.
TEST(RequestBody, OpenAiResponses) {
  BodySettings s;
  s.api = find_api("responses");
  s.model = "gpt-like";
  s.max_tokens = 64;
  dataset::RequestSpec spec;
  spec.prompt = "hi";
  const std::string plain = build_body(s, spec);
  EXPECT_EQ(plain, R"({"model":"gpt-like","input":"hi","max_output_tokens":64,"stream":true})");
  spec.as_conversation().image_urls = {"data:image/png;base64,QUJD"};
  s.temperature = 0.5;
  EXPECT_EQ(
      build_body(s, spec),
      R"({"model":"gpt-like","input":[{"role":"user","content":[{"type":"input_text","text":"hi"},)"
      R"({"type":"input_image","image_url":"data:image/png;base64,QUJD"}]}],"max_output_tokens":64,"temperature":0.5,"stream":true})");
  EXPECT_EQ(plan_request(s, spec, false).facts.images, 1);
  spec.as_conversation().image_urls.clear();
  spec.as_conversation().messages_json =
      R"([{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}])";
  EXPECT_NE(
      build_body(s, spec).find(
          R"("input":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}])"),
      std::string::npos);
  auto levels = [](const std::vector<AuditFinding>& fs, const std::string& needle) {
    for (const auto& f : fs)
      if (f.text.find(needle) != std::string::npos) return f.level;
    return std::string("absent");
  };
  const auto audit = audit_body(plain, api_named("responses"));
  EXPECT_EQ(levels(audit, "no temperature"), "note");
  EXPECT_EQ(levels(audit, "no output cap"), "absent");  // max_output_tokens is its cap
  EXPECT_EQ(levels(audit, "include_usage"), "absent");  // usage always comes
  EXPECT_EQ(
      levels(audit_body(R"({"input":"x","stream":true})", api_named("responses")), "no output cap"),
      "note");
  EXPECT_EQ(
      levels(audit_body(R"({"input":"x","min_tokens":4,"ignore_eos":true,"max_output_tokens":8})",
                        api_named("responses")),
             "min_tokens together with ignore_eos"),
      "warning");
}

// TGI's, Ollama's and MindIE's native bodies: what a synthetic run asks of every API (ignore_eos,
// so outputs are exactly the cap) is not theirs to take — nothing is sent, and the request's facts
// do not promise the cap (the verdict would otherwise call each EOS a server ignoring it).
TEST(RequestBody, TgiOllamaAndMindieNativeBodiesSendNoIgnoreEos) {
  dataset::RequestSpec spec;
  spec.prompt = "hi";
  BodySettings s;
  s.model = "m";
  s.max_tokens = 32;
  s.ignore_eos = true;
  s.api = &api_named("tgi");
  EXPECT_EQ(build_body(s, spec),
            R"({"inputs":"hi","parameters":{"max_new_tokens":32,"details":true}})");
  EXPECT_FALSE(plan_request(s, spec, false).facts.ignore_eos_sent);
  EXPECT_EQ(plan_request(s, spec, false).facts.requested_max_tokens, 32);
  s.api = &api_named("ollama");
  s.temperature = 0.5;
  EXPECT_EQ(build_body(s, spec),
            R"({"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,)"
            R"("options":{"num_predict":32,"temperature":0.5}})");
  EXPECT_FALSE(plan_request(s, spec, false).facts.ignore_eos_sent);
  s.api = &api_named("mindie");
  s.stream = false;
  EXPECT_EQ(build_body(s, spec),
            R"({"inputs":"hi","stream":false,"parameters":{"max_new_tokens":32,"details":true,)"
            R"("temperature":0.5}})");
  EXPECT_FALSE(plan_request(s, spec, false).facts.ignore_eos_sent);
}

}  // namespace
}  // namespace tokbench::client
