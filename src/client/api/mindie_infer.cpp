// client/api/mindie_infer: MindIE Service's native /infer, as its endpoint writes it
// (MindIE-LLM src/server/endpoint/single_req_infer_interface/single_req_self_develop_infer_
// interface.cpp, utils/infer_param.cpp): {"inputs", "stream", "parameters": {max_new_tokens
// (default 20), details, temperature (> 0), ...}} in, no ignore_eos or min_tokens there. A stream
// is SSE with no end marker: an event per step — {"prefill_time" | "decode_time": ms, "token":
// {"id", "text"}} — and a last event that holds the whole text in "generated_text" with its own
// token's text null (that token is known only as the rest of the whole text), and, when details
// was asked, details {finish_reason: "length" | "eos_token" | "stop_sequence", generated_tokens,
// seed}. The times are the server's (integer ms): prefill_time from the request's arrival to its
// first token (queueing included), decode_time per step. A body (stream false) is
// {"generated_text", "details"}. Errors are {"error", "error_type"} with an HTTP error status.
// MindIE counts no prompt tokens here.
#include "client/api.hpp"
#include "client/api/body_parts.hpp"
#include "client/api/json_read.hpp"

namespace tokbench::client {

namespace {

using namespace api_detail;
using record::ChunkKind;

class MindieInfer : public ApiAdapter {
 public:
  std::string_view name() const override { return "mindie"; }
  std::string_view title() const override { return "MindIE native /infer"; }
  std::string_view path() const override { return "/infer"; }
  ApiCaps caps() const override {
    ApiCaps c;
    c.sampling_extensions = false;
    c.finish_reasons = "length,eos_token,stop_sequence";
    return c;
  }

  // details: true is what makes MindIE count (generated_tokens) and say why it stopped.
  // temperature only when asked: MindIE refuses 0.
  void write_body(JsonWriter& w, const BodySettings& s,
                  const dataset::RequestSpec& spec) const override {
    if (!s.overridden("inputs")) w.field("inputs", spec.prompt);
    if (!s.overridden("stream")) w.field("stream", s.stream);
    if (!s.overridden("parameters")) {
      w.key("parameters").begin_object();
      if (const int64_t cap = s.cap_for(spec); cap > 0) w.field("max_new_tokens", cap);
      w.field("details", true);
      if (s.temperature) w.field("temperature", *s.temperature);
      w.end_object();
    }
  }

  void parse(simdjson::dom::element doc, ChunkInfo& out, StreamMemory& mem) const override {
    take_error(doc, out);  // {"error": "…", "error_type": "…"}
    if (!out.error.empty()) {
      out.end = true;
      return;
    }
    out.choices = 1;
    if (const int64_t ms = int_or(doc, "prefill_time"); ms >= 0)
      out.server_prompt_ms = static_cast<double>(ms);
    if (const int64_t ms = int_or(doc, "decode_time"); ms >= 0) {
      mem.server_ms += static_cast<double>(ms);
      ++mem.server_n;
    }
    if (mem.server_n > 0) {  // the steps' times so far, summed
      out.server_predicted_ms = mem.server_ms;
      out.server_predicted_n = mem.server_n;
    }
    if (mem.seen.empty()) mem.seen.resize(1);
    int64_t& seen = mem.seen[0].bytes;  // text bytes the events brought so far
    simdjson::dom::element whole;
    const bool last = !doc["generated_text"].get(whole) && whole.is_string();
    if (last) {  // the whole text: what the events have not brought is the last token's
      const std::string_view all = string_or_empty(whole);
      const auto before = static_cast<size_t>(seen);
      out.content = all.size() > before ? all.substr(before) : std::string_view();
    } else if (simdjson::dom::element token; !doc["token"].get(token) && token.is_object()) {
      out.content = text_of(token, "text");
    }
    seen += static_cast<int64_t>(out.content.size());
    simdjson::dom::element details;
    if (!doc["details"].get(details) && details.is_object()) {
      out.finish_reason = text_of(details, "finish_reason");
      out.completion_tokens = int_or(details, "generated_tokens");
    }
    out.last = last;  // the last token's event: a chunk, and nothing follows
    out.kind = kind_of(out, false);
    if (out.kind == ChunkKind::Usage) out.kind = ChunkKind::Empty;
  }
  bool done_sentinel() const override { return false; }
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
                     "parameters.details is not true: MindIE then says neither how many tokens "
                     "it generated nor why it stopped, so counts are the events'"});
    if (double t = 1; have_o && !o["temperature"].get_double().get(t) && t <= 0)
      out.push_back({"warning",
                     "temperature <= 0: MindIE refuses it (\"must be in (0.0, ...]\"); leave "
                     "the temperature out for its default"});
    if (have_o && (has("ignore_eos") || has("min_tokens") || has("min_new_tokens")))
      out.push_back({"warning",
                     "ignore_eos / min_tokens are not parameters of MindIE's /infer: its "
                     "answers end at EOS (its OpenAI route /v1/chat/completions takes "
                     "ignore_eos)"});
    if (!has("max_new_tokens"))
      out.push_back({"note", "no max_new_tokens is sent: MindIE's default is 20 tokens"});
  }
};

}  // namespace

const ApiAdapter& mindie_infer_api() {
  static const MindieInfer api;
  return api;
}

}  // namespace tokbench::client
