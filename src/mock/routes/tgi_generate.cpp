// mock/routes/tgi_generate: Text Generation Inference's /generate_stream, as its router writes it
// (router/src/server.rs, router/src/lib.rs): {"inputs", "parameters": {max_new_tokens, details,
// temperature, adapter_id}} in; an event per write — {"index": tokens so far, "token": {"id",
// "text", "logprob", "special"}, "generated_text": null, "details": null} — the last with the
// whole text and, with details, {finish_reason, generated_tokens, seed, input_length}; no end
// marker. It always streams, ignores what TGI does not know (ignore_eos, min_tokens) and refuses
// what TGI refuses (a temperature <= 0, max_new_tokens 0) with TGI's {"error", "error_type"}.
// The simulator's EOS ends an answer with finish_reason "eos_token" on its last word (TGI's own
// last token is the EOS, special and without text).
#include <fmt/format.h>
#include <simdjson.h>

#include "common/json_writer.hpp"
#include "mock/route.hpp"

namespace tokbench::mock {

namespace {

constexpr int64_t kDefaultMaxNewTokens = 1024;  // TGI's DEFAULT_GENERATION_LENGTH

std::optional<CompletionRequest> parse_tgi_request(const std::string& body,
                                                   std::string_view base_model,
                                                   std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (!body_object(parser, body, o, error)) return std::nullopt;
  CompletionRequest r;
  r.chat = false;
  r.stream = true;  // /generate_stream streams whatever the body says
  r.model = std::string(base_model);
  simdjson::dom::element inputs;
  if (o["inputs"].get(inputs) || !inputs.is_string()) {
    *error = "Failed to deserialize the JSON body into the target type: missing field `inputs`";
    return std::nullopt;
  }
  if (!count_content(inputs, r.prompt_tokens, r.rendered)) return std::nullopt;
  r.max_tokens = kDefaultMaxNewTokens;
  simdjson::dom::object p;
  if (!o["parameters"].get_object().get(p)) {
    r.max_tokens = int_field(p, "max_new_tokens", kDefaultMaxNewTokens);
    r.include_usage = bool_field(p, "details");
    if (double t = 1; !p["temperature"].get_double().get(t) && t <= 0) {
      *error = "Input validation error: `temperature` must be strictly positive";
      return std::nullopt;
    }
    std::string_view adapter;
    if (!p["adapter_id"].get_string().get(adapter) && !adapter.empty())
      r.model = std::string(adapter);
  }
  if (r.max_tokens <= 0) {
    *error = "Input validation error: `max_new_tokens` must be strictly positive";
    return std::nullopt;
  }
  return r;
}

class TgiGenerateRoute : public MockRoute {
 public:
  std::string_view path() const override { return "/generate_stream"; }
  std::optional<CompletionRequest> parse(const std::string& body, std::string_view base_model,
                                         std::string* why) const override {
    return parse_tgi_request(body, base_model, why);
  }
  std::string refusal(const std::string& why) const override {
    JsonWriter w;
    w.begin_object().field("error", why).field("error_type", "validation").end_object();
    return w.take();
  }
  std::string_view id_prefix() const override { return ""; }
  bool keeps_text() const override { return true; }  // the last event repeats the whole text

  void piece(const Answer& a, std::string_view piece, int tokens, bool done,
             Events& ev) const override {
    JsonWriter w;
    w.begin_object().field("index", a.produced).key("token").begin_object();
    w.field("id", a.produced).field("text", piece).field("logprob", -0.25);
    w.field("special", piece.empty()).end_object();
    w.key("generated_text");
    if (done)
      w.value(a.text);
    else
      w.null();
    w.key("details");
    if (done && a.cr.include_usage) {
      w.begin_object().field("finish_reason", a.finish == "stop" ? "eos_token" : "length");
      w.field("generated_tokens", a.produced).key("seed").null();
      w.field("input_length", a.cr.prompt_tokens).end_object();
    } else {
      w.null();
    }
    w.end_object();
    ev.add(w.take(), piece.empty() ? 'F' : 'C', tokens);
  }
  void end(const Answer&, bool, Events&) const override {}  // the last token's event ends it
  std::string body(const Answer& a) const override {        // /generate's shape, for completeness
    JsonWriter w;
    w.begin_object().field("generated_text", a.text).key("details").begin_object();
    w.field("finish_reason", a.finish == "stop" ? "eos_token" : "length");
    w.field("generated_tokens", a.produced).end_object().end_object();
    return w.take();
  }
};

}  // namespace

const MockRoute& tgi_generate_route() {
  static const TgiGenerateRoute route;
  return route;
}

}  // namespace tokbench::mock
