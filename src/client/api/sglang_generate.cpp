// client/api/sglang_generate: SGLang's native /generate — {text, sampling_params} in (no model
// field: a LoRA adapter is named by lora_path), and answers whose text is the whole answer so far
// (unless the server runs --incremental-streaming-output) with cumulative meta_info counts.
#include <algorithm>
#include <optional>

#include "client/api.hpp"
#include "client/api/body_parts.hpp"
#include "client/api/json_read.hpp"

namespace tokbench::client {

namespace {

using namespace api_detail;
using record::ChunkKind;

constexpr size_t kTailBytes = 16;           // enough to tell SGLang's cumulative text from deltas
constexpr int64_t kMaxTrackedChoices = 64;  // choices beyond this share the last one's state

// The part of `text` that is new for `choice`: after the second event it is known whether the
// server repeats the whole answer (cumulative) or sends only what is new.
std::string_view new_text(StreamMemory& mem, int64_t choice, std::string_view text) {
  using Seen = StreamMemory::Seen;
  const size_t i = static_cast<size_t>(std::min(choice, kMaxTrackedChoices - 1));
  if (mem.seen.size() <= i) mem.seen.resize(i + 1);
  Seen& s = mem.seen[i];
  if (s.mode == Seen::Unknown && s.bytes > 0) {  // the second text: does it repeat the first?
    const size_t n = s.tail.size(), at = static_cast<size_t>(s.bytes) - n;
    s.mode = text.size() >= static_cast<size_t>(s.bytes) && text.substr(at, n) == s.tail
                 ? Seen::Cumulative
                 : Seen::Incremental;
  }
  std::string_view fresh = text;
  if (s.mode == Seen::Cumulative)
    fresh = text.size() > static_cast<size_t>(s.bytes) ? text.substr(static_cast<size_t>(s.bytes))
                                                       : std::string_view();
  if (s.mode != Seen::Incremental)
    s.bytes = std::max<int64_t>(s.bytes, static_cast<int64_t>(text.size()));
  else
    s.bytes += static_cast<int64_t>(text.size());
  if (s.mode != Seen::Incremental && !text.empty())
    s.tail = text.substr(text.size() - std::min(text.size(), kTailBytes));
  return fresh;
}

class SglangGenerate : public ApiAdapter {
 public:
  std::string_view name() const override { return "generate"; }
  std::string_view title() const override { return "SGLang native /generate"; }
  std::string_view path() const override { return "/generate"; }
  ApiCaps caps() const override {
    ApiCaps c;
    c.per_token_counts = true;
    c.finish_reasons = "stop,length,abort";  // meta_info.finish_reason.type
    return c;
  }
  // --compat sglang reproduces bench_serving's native payload: temperature 0.0 and ignore_eos.
  bool takes_flavor(Flavor f) const override {
    return f == Flavor::Tokbench || f == Flavor::Sglang;
  }
  bool sends_ignore_eos(const BodySettings& s) const override {
    return s.ignore_eos || s.flavor == Flavor::Sglang;
  }

  // The text and sampling_params (max_new_tokens, min_new_tokens, ignore_eos, temperature).
  void write_body(JsonWriter& w, const BodySettings& s,
                  const dataset::RequestSpec& spec) const override {
    if (!s.overridden("text")) w.field("text", spec.prompt);
    if (!s.overridden("sampling_params")) {
      w.key("sampling_params").begin_object();
      const int64_t max_tokens = s.cap_for(spec);
      if (max_tokens > 0) w.field("max_new_tokens", max_tokens);
      if (s.min_tokens) w.field("min_new_tokens", *s.min_tokens);
      if (sends_ignore_eos(s)) w.field("ignore_eos", true);
      std::optional<double> temperature = s.temperature;
      if (!temperature && s.flavor == Flavor::Sglang) temperature = 0.0;
      if (temperature) w.field("temperature", *temperature);
      w.end_object();
    }
    if (!s.overridden("stream")) w.field("stream", s.stream);
    if (!spec.model.empty() && spec.model != s.model && !s.overridden("lora_path"))
      w.field("lora_path", spec.model);
  }

  // {"text", "meta_info": {"id", "prompt_tokens", "completion_tokens", "cached_tokens",
  // "finish_reason": null | {"type": "length" | "stop" | "abort", ...}}, "index"}.
  // completion_tokens is cumulative in every event, so each chunk's token count is exact.
  void parse(simdjson::dom::element doc, ChunkInfo& out, StreamMemory& mem) const override {
    if (doc.is_array()) {  // a non-streaming answer with n > 1: one object per choice
      simdjson::dom::array all = doc.get_array().value_unsafe();
      int64_t prompt = -1, completion = 0, bytes = 0;
      for (auto one : all) {
        if (!one.is_object()) continue;
        ChunkInfo each;
        mem.seen.clear();
        parse(one, each, mem);
        if (out.id.empty()) out = each;
        if (prompt < 0) prompt = each.prompt_tokens;
        completion += std::max<int64_t>(0, each.completion_tokens);
        bytes += static_cast<int64_t>(each.content.size());
      }
      out.choices = static_cast<int64_t>(all.size());
      out.prompt_tokens = prompt;
      out.completion_tokens = completion;
      out.text_bytes =
          bytes - static_cast<int64_t>(out.content.size());  // every choice's text counts
      return;
    }
    take_error(doc, out);
    int64_t index = 0;
    if (doc["index"].get_int64().get(index) || index < 0 || index >= (int64_t{1} << 20)) index = 0;
    out.choice = index;
    out.choices = index + 1;
    simdjson::dom::element meta;
    if (!doc["meta_info"].get(meta) && meta.is_object()) {
      out.id = text_of(meta, "id");
      out.prompt_tokens = int_or(meta, "prompt_tokens");
      out.completion_tokens = int_or(meta, "completion_tokens");
      out.cached_tokens = int_or(meta, "cached_tokens");
      simdjson::dom::element finish;
      if (!meta["finish_reason"].get(finish)) {
        if (finish.is_object()) {
          out.finish_reason = text_of(finish, "type");
          if (out.finish_reason == "abort" && out.error.empty()) {
            out.error = text_of(finish, "message");
            if (out.error.empty()) out.error = "the server aborted the request";
          }
        } else if (finish.is_string()) {
          out.finish_reason = finish.get_string().value_unsafe();
        }
      }
    }
    std::string_view text;
    if (!doc["text"].get_string().get(text)) out.content = new_text(mem, index, text);
    out.kind = kind_of(out, false);
    // Every event carries cumulative usage; one with neither new text nor a finish is still a
    // chunk of this answer (detokenizer lag), not a usage-only event.
    if (out.kind == ChunkKind::Usage) out.kind = ChunkKind::Empty;
  }
  // SGLang's non-streaming /generate answers a list when it made several (n > 1).
  bool accepts(simdjson::dom::element doc) const override {
    return doc.is_object() || doc.is_array();
  }

  // SGLang's names for the same traps, inside sampling_params.
  void audit(simdjson::dom::object top, std::vector<AuditFinding>& out) const override {
    simdjson::dom::object o;
    const bool have_o = !top["sampling_params"].get_object().get(o);
    auto has = [&](std::string_view k) { return have_o && !o[k].error() && !o[k].is_null(); };
    bool ignore_eos = false;
    if (!have_o || o["ignore_eos"].get_bool().get(ignore_eos)) ignore_eos = false;
    if (has("min_new_tokens") && ignore_eos) {
      out.push_back(
          {"warning",
           "min_new_tokens together with ignore_eos: redundant (ignore_eos already produces "
           "max_new_tokens) and a per-step logits processor on the server"});
    }
    if (!has("temperature"))
      out.push_back(
          {"note", "no temperature is sent: the server's default (its generation_config) applies"});
    if (!has("max_new_tokens"))
      out.push_back({"note", "no max_new_tokens is sent: SGLang's default of 128 applies"});
  }
};

}  // namespace

const ApiAdapter& sglang_generate_api() {
  static const SglangGenerate api;
  return api;
}

}  // namespace tokbench::client
