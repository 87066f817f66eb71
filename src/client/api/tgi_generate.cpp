// client/api/tgi_generate: Text Generation Inference's native /generate_stream, as its router
// defines it (router/src/server.rs generate_stream, router/src/lib.rs GenerateRequest and
// StreamResponse): {"inputs", "parameters": {max_new_tokens, details, temperature, ...}} in (one
// model per server: a LoRA adapter is named by parameters.adapter_id); out, one SSE event per
// generated token — {"index", "token": {"id", "text", "logprob", "special"}, "generated_text":
// null, "details": null} — the last carrying the whole text and, when details was asked, details
// {finish_reason: "length" | "eos_token" | "stop_sequence", generated_tokens, seed,
// input_length}. No [DONE]: the last token's event ends the stream. An error mid-stream is an
// event {"error": "…", "error_type": "…"} on a 200. `index` counts the tokens so far (TGI sends no
// prefill event on a stream), so every event carries the exact output count.
// Sent whole (--no-stream), the same body goes to /generate (server.rs generate_internal), which
// answers {"generated_text", "details": {finish_reason, generated_tokens, seed, prefill, tokens}}
// and says its counts and times in headers: x-prompt-tokens, x-generated-tokens, x-queue-time
// (ms from queued to the batch's start) and x-inference-time (ms from there to the end: prefill
// and decode); /generate_stream sends none of them. A URL ending in /generate is SGLang's native
// API unless --endpoint tgi says it is TGI's.
#include <charconv>

#include "client/api.hpp"
#include "client/api/body_parts.hpp"
#include "client/api/json_read.hpp"
#include "net/http1.hpp"

namespace tokbench::client {

namespace {

using namespace api_detail;
using record::ChunkKind;

class TgiGenerate : public ApiAdapter {
 public:
  std::string_view name() const override { return "tgi"; }
  std::string_view title() const override { return "Text Generation Inference"; }
  std::string_view path() const override { return "/generate_stream"; }
  std::string_view body_path() const override { return "/generate"; }
  ApiCaps caps() const override {
    ApiCaps c;
    c.whole_body = true;  // on /generate
    c.sampling_extensions = false;
    c.per_token_counts = true;
    c.finish_reasons = "length,eos_token,stop_sequence";
    return c;
  }

  // details: true is what makes TGI count: generated_tokens and input_length come only with it
  // (OpenAI's include_usage, in TGI's words). temperature only when asked: greedy is TGI's
  // default, and it refuses 0.
  void write_body(JsonWriter& w, const BodySettings& s,
                  const dataset::RequestSpec& spec) const override {
    if (!s.overridden("inputs")) w.field("inputs", spec.prompt);
    if (!s.overridden("parameters")) {
      w.key("parameters").begin_object();
      const int64_t max_tokens = s.cap_for(spec);
      if (max_tokens > 0) w.field("max_new_tokens", max_tokens);
      w.field("details", true);
      if (s.temperature) w.field("temperature", *s.temperature);
      if (!spec.model.empty() && spec.model != s.model) w.field("adapter_id", spec.model);
      w.end_object();
    }
  }

  void parse(simdjson::dom::element doc, ChunkInfo& out, StreamMemory&) const override {
    take_error(doc, out);  // {"error": "…", "error_type": "…"}
    out.choices = 1;
    simdjson::dom::element token, whole;
    const bool last = !doc["generated_text"].get(whole) && whole.is_string();
    if (doc["token"].get(token)) {  // /generate's body: the whole text, no token
      if (last) out.content = string_or_empty(whole);
    } else if (token.is_object()) {
      bool special = false;
      if (token["special"].get_bool().get(special)) special = false;
      if (!special) out.content = text_of(token, "text");  // EOS and the like are no text
      out.completion_tokens = int_or(doc, "index");
    }
    simdjson::dom::element details;
    if (!doc["details"].get(details) && details.is_object()) {
      out.finish_reason = text_of(details, "finish_reason");
      if (const int64_t n = int_or(details, "generated_tokens"); n >= 0) out.completion_tokens = n;
      out.prompt_tokens = int_or(details, "input_length");
    }
    out.last = last;               // the last token's event: a chunk, and nothing follows
    out.end = !out.error.empty();  // an error event is no chunk, and nothing follows it
    out.kind = kind_of(out, false);
    // Every event counts the tokens so far; a special token's event carries no text.
    if (out.kind == ChunkKind::Usage) out.kind = ChunkKind::Empty;
  }
  bool done_sentinel() const override { return false; }

  // /generate's headers (integers: TGI writes Duration::as_millis and counts). x-inference-time
  // over x-generated-tokens is TGI's own x-time-per-token, untruncated; it includes the prefill.
  bool take_header(std::string_view name, std::string_view value, ChunkInfo& out) const override {
    double v = -1;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || v < 0) return false;
    if (net::iequals(name, "x-queue-time")) {
      out.server_queue_ms = v;
    } else if (net::iequals(name, "x-inference-time")) {
      out.server_predicted_ms = v;
    } else if (net::iequals(name, "x-prompt-tokens")) {
      out.prompt_tokens = static_cast<int64_t>(v);
    } else if (net::iequals(name, "x-generated-tokens")) {
      out.completion_tokens = out.server_predicted_n = static_cast<int64_t>(v);
    } else {
      return false;
    }
    return true;
  }
  std::string_view end_of_stream() const override {
    return "an event whose generated_text is set (the last token's)";
  }

  void audit(simdjson::dom::object top, std::vector<AuditFinding>& out) const override {
    simdjson::dom::object o;
    const bool have_o = !top["parameters"].get_object().get(o);
    auto has = [&](std::string_view k) { return have_o && !o[k].error() && !o[k].is_null(); };
    bool details = false;
    if (!have_o || o["details"].get_bool().get(details)) details = false;
    if (!details)
      out.push_back({"warning",
                     "parameters.details is not true: TGI then says neither how many tokens it "
                     "generated nor how long the prompt was, so counts are the events'"});
    if (double t = 1; have_o && !o["temperature"].get_double().get(t) && t <= 0)
      out.push_back({"warning",
                     "temperature <= 0: TGI refuses it (\"must be strictly positive\"); greedy "
                     "decoding is its default, so leave the temperature out"});
    if (have_o && (has("ignore_eos") || has("min_tokens") || has("min_new_tokens")))
      out.push_back({"warning",
                     "ignore_eos / min_tokens are not TGI parameters: it ignores them, and its "
                     "answers end at EOS"});
    if (!has("max_new_tokens"))
      out.push_back({"note",
                     "no max_new_tokens is sent: TGI's default applies (what the prompt leaves of "
                     "--max-total-tokens, at most 1024)"});
  }
};

}  // namespace

const ApiAdapter& tgi_generate_api() {
  static const TgiGenerate api;
  return api;
}

}  // namespace tokbench::client
