// mockapi/routes/sglang_generate: SGLang's native /generate — {text, sampling_params} in (no model
// field: lora_path names an adapter), and events whose text is the whole answer so far (SGLang's
// default), meta_info with cumulative completion_tokens, finish_reason null until the end, then
// data: [DONE]; a body with n > 1 is a list, one object per choice.
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>

#include "common/json_writer.hpp"
#include "mockapi/route.hpp"

namespace tokbench::mock {

namespace {

// Parses a /generate body: text (or input_ids), sampling_params (max_new_tokens, default 128;
// min_new_tokens; ignore_eos; n), stream, lora_path (the model the answer names). Rendered as a
// completions prompt.
std::optional<CompletionRequest> parse_generate_request(const std::string& body,
                                                        std::string_view base_model,
                                                        std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (!body_object(parser, body, o, error)) return std::nullopt;
  CompletionRequest r;
  r.chat = false;
  r.include_usage = true;  // meta_info in every event
  r.stream = bool_field(o, "stream");
  std::string_view lora;
  r.model = !o["lora_path"].get_string().get(lora) && !lora.empty() ? std::string(lora)
                                                                    : std::string(base_model);
  simdjson::dom::element text;
  simdjson::dom::array ids;
  if (!o["text"].get(text) && text.is_string()) {
    if (!count_content(text, r.prompt_tokens, r.rendered)) return std::nullopt;
  } else if (!o["input_ids"].get_array().get(ids) && ids.size() > 0) {
    r.prompt_tokens = static_cast<int64_t>(ids.size());
    for (auto id : ids)
      r.rendered += fmt::format("<{}>", id.is_int64() ? id.get_int64().value_unsafe() : 0);
  } else {
    *error = "Either text or input_ids should be provided.";
    return std::nullopt;
  }
  simdjson::dom::object sp;
  r.max_tokens = 128;  // SGLang's default max_new_tokens
  if (!o["sampling_params"].get_object().get(sp)) {
    r.max_tokens = int_field(sp, "max_new_tokens", 128);
    r.min_tokens = int_field(sp, "min_new_tokens", -1);
    r.ignore_eos = bool_field(sp, "ignore_eos");
    r.n = int_field(sp, "n", 1);
    if (r.max_tokens < 0 || r.n < 1 || r.n > kMaxChoices) {
      *error = fmt::format("sampling_params: max_new_tokens must be >= 0 and n from 1 to {}",
                           kMaxChoices);
      return std::nullopt;
    }
  }
  return r;
}

// One /generate event or body: the whole text so far, meta_info with cumulative
// completion_tokens, and finish_reason null until the end, then {"type": "length", "length": N}
// or {"type": "stop", "matched": ...}.
struct GenerateState {
  std::string_view id;
  std::string_view text;  // the answer so far
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t cached_tokens = 0;
  std::string_view finish;  // "" (not finished), "length" or "stop"
  int64_t index = 0;        // the choice (sampling_params.n > 1)
};

std::string generate_chunk(const GenerateState& st) {
  JsonWriter w;
  w.begin_object().field("text", st.text).key("meta_info").begin_object().field("id", st.id);
  w.key("finish_reason");
  if (st.finish.empty()) {
    w.null();
  } else if (st.finish == "length") {
    w.begin_object().field("type", "length").field("length", st.completion_tokens).end_object();
  } else {
    w.begin_object().field("type", "stop").field("matched", 2).end_object();
  }
  w.field("prompt_tokens", st.prompt_tokens).field("completion_tokens", st.completion_tokens);
  w.field("cached_tokens", st.cached_tokens).end_object();
  w.field("index", st.index).end_object();
  return w.take();
}

class SglangGenerateRoute : public MockRoute {
 public:
  std::string_view path() const override { return "/generate"; }
  std::optional<CompletionRequest> parse(const std::string& body, std::string_view base_model,
                                         std::string* why) const override {
    return parse_generate_request(body, base_model, why);
  }
  std::string_view id_prefix() const override { return ""; }
  bool keeps_text() const override { return true; }  // every event carries the whole text

  void piece(const Answer& a, std::string_view piece, int tokens, bool done,
             Events& ev) const override {
    if (piece.empty() && !done) return;
    for (int64_t c = 0; c < a.cr.n; ++c)
      ev.add(generate_chunk(state(a, done ? a.finish : std::string_view(), c)),
             piece.empty() ? 'F' : 'C', tokens);
  }
  void end(const Answer&, bool end_marker, Events& ev) const override {
    if (end_marker) ev.done();
  }
  std::string body(const Answer& a) const override {  // several choices: a list, one object each
    std::string body;
    for (int64_t c = 0; c < a.cr.n; ++c) {
      if (c > 0) body += ',';
      body += generate_chunk(state(a, a.finish, c));
    }
    return a.cr.n > 1 ? "[" + body + "]" : body;
  }

 private:
  static GenerateState state(const Answer& a, std::string_view finish, int64_t index) {
    return GenerateState{
        a.id,   a.text, a.cr.prompt_tokens, a.produced, std::max<int64_t>(0, a.cached),
        finish, index};
  }
};

}  // namespace

const MockRoute& sglang_generate_route() {
  static const SglangGenerateRoute route;
  return route;
}

}  // namespace tokbench::mock
