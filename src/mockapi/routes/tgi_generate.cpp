// mockapi/routes/tgi_generate: Text Generation Inference's /generate_stream and /generate, as its
// router writes them (router/src/server.rs, router/src/lib.rs): {"inputs", "parameters":
// {max_new_tokens, details, temperature, adapter_id}} in; an event per write — {"index": tokens so
// far, "token": {"id", "text", "logprob", "special"}, "generated_text": null, "details": null} —
// the last with the whole text and, with details, {finish_reason, generated_tokens, seed,
// input_length}; no end marker. /generate_stream always streams; /generate answers one body
// {"generated_text", "details"} with TGI's headers (x-queue-time, x-inference-time,
// x-time-per-token in whole ms, x-prompt-tokens, x-generated-tokens) and claims only bodies with
// `inputs` (SGLang's native /generate takes the rest). Both ignore what TGI does not know
// (ignore_eos, min_tokens) and refuse what TGI refuses (a temperature <= 0, max_new_tokens 0) with
// TGI's {"error", "error_type"}. The simulator's EOS ends an answer with finish_reason "eos_token"
// on its last word (TGI's own last token is the EOS, special and without text).
#include <fmt/format.h>
#include <simdjson.h>

#include "common/json_writer.hpp"
#include "mockapi/route.hpp"

namespace tokbench::mock {

namespace {

constexpr int64_t kDefaultMaxNewTokens = 1024;  // TGI's DEFAULT_GENERATION_LENGTH

std::optional<CompletionRequest> parse_tgi_request(const std::string& body,
                                                   std::string_view base_model, bool stream,
                                                   std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (!body_object(parser, body, o, error)) return std::nullopt;
  CompletionRequest r;
  r.chat = false;
  r.stream = stream;  // the path decides, whatever the body says
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
    return parse_tgi_request(body, base_model, true, why);
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
  std::string body(const Answer& a) const override {        // /generate's (TgiGenerateBodyRoute)
    JsonWriter w;
    w.begin_object().field("generated_text", a.text);
    if (!a.cr.include_usage) {  // details: false — TGI leaves the member out
      w.end_object();
      return w.take();
    }
    w.key("details").begin_object().field("finish_reason",
                                          a.finish == "stop" ? "eos_token" : "length");
    w.field("generated_tokens", a.produced).key("seed").null();
    // TGI lists each token here (and the prompt's with decoder_input_details); nothing reads them.
    w.key("prefill").begin_array().end_array().key("tokens").begin_array().end_array();
    w.end_object().end_object();
    return w.take();
  }
};

class TgiGenerateBodyRoute : public TgiGenerateRoute {
 public:
  std::string_view path() const override { return "/generate"; }
  bool claims(const std::string& body) const override {
    simdjson::dom::parser parser;
    simdjson::dom::object o;
    std::string why;
    return body_object(parser, body, o, &why) && !o["inputs"].error();
  }
  std::optional<CompletionRequest> parse(const std::string& body, std::string_view base_model,
                                         std::string* why) const override {
    return parse_tgi_request(body, base_model, false, why);
  }
  // As generate_internal writes them: Duration::as_millis (whole ms, truncated) and counts.
  void body_headers(const ServedTimes& t,
                    std::vector<std::pair<std::string, std::string>>& out) const override {
    const int64_t queue_ms = t.queue_ns / 1'000'000, inference_ms = t.inference_ns / 1'000'000;
    out.emplace_back("x-compute-type", "gpu+optimized");
    out.emplace_back("x-total-time", std::to_string((t.queue_ns + t.inference_ns) / 1'000'000));
    out.emplace_back("x-validation-time", "0");
    out.emplace_back("x-queue-time", std::to_string(queue_ms));
    out.emplace_back("x-inference-time", std::to_string(inference_ms));
    out.emplace_back(
        "x-time-per-token",
        std::to_string(t.generated_tokens > 0 ? t.inference_ns / t.generated_tokens / 1'000'000
                                              : 0));
    out.emplace_back("x-prompt-tokens", std::to_string(t.prompt_tokens));
    out.emplace_back("x-generated-tokens", std::to_string(t.generated_tokens));
  }
};

}  // namespace

const MockRoute& tgi_generate_route() {
  static const TgiGenerateRoute route;
  return route;
}

const MockRoute& tgi_generate_body_route() {
  static const TgiGenerateBodyRoute route;
  return route;
}

}  // namespace tokbench::mock
