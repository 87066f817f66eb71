// client/api/openai: OpenAI's chat completions, completions and embeddings, as vLLM, SGLang,
// MindIE and gateways serve them — the bodies each peer tool sends (--compat), their answers
// (choices with deltas, messages or text; usage when asked with stream_options) and data: [DONE].
#include <algorithm>
#include <optional>

#include "client/api.hpp"
#include "client/api/body_parts.hpp"
#include "client/api/json_read.hpp"

namespace tokbench::client {

namespace {

using namespace api_detail;
using record::ChunkKind;

// One choice: its index, finish reason and text. Chat streams carry `delta`, chat bodies
// `message` (a delta wins when both come), completions `text`.
void read_choice(simdjson::dom::element choice, ChunkInfo& out, std::string_view& role) {
  enum { kDelta, kIndex, kFinish, kMessage, kText };
  const FirstFields<5> f(choice, [](std::string_view k) {
    return k == "delta"           ? kDelta
           : k == "index"         ? kIndex
           : k == "finish_reason" ? kFinish
           : k == "message"       ? kMessage
           : k == "text"          ? kText
                                  : -1;
  });
  out.finish_reason = f.text(kFinish);
  int64_t i = 0;
  if (f.has(kIndex) && !f.get(kIndex).get_int64().get(i) && i >= 0 && i < (int64_t{1} << 20)) {
    out.choices = std::max(out.choices, i + 1);
    out.choice = i;
  }
  if (!f.has(kDelta) && !f.has(kMessage)) {
    out.content = f.text(kText);
    return;
  }
  enum { kContent, kRole, kReasoningContent, kReasoning, kToolCalls };
  const FirstFields<5> m(f.get(f.has(kDelta) ? kDelta : kMessage), [](std::string_view k) {
    return k == "content"             ? kContent
           : k == "role"              ? kRole
           : k == "reasoning_content" ? kReasoningContent
           : k == "reasoning"         ? kReasoning
           : k == "tool_calls"        ? kToolCalls
                                      : -1;
  });
  out.content = m.text(kContent);
  role = m.text(kRole);
  const std::string_view reasoning_content = m.text(kReasoningContent),
                         reasoning = m.text(kReasoning);
  out.reasoning = reasoning_content.empty() ? reasoning : reasoning_content;
  // Tool calls: a name on a call's first delta, then argument text; both are generated output.
  simdjson::dom::array calls;
  if (m.has(kToolCalls) && !m.get(kToolCalls).get_array().get(calls)) {
    bool first_call = true;
    int64_t position = 0;
    for (auto call : calls) {
      simdjson::dom::element fn;
      const int64_t at = position++;
      if (call["function"].get(fn) || !fn.is_object()) continue;
      const std::string_view args = text_of(fn, "arguments"), name = text_of(fn, "name");
      out.tool_bytes += static_cast<int64_t>(name.size() + args.size());
      if (first_call) out.tool_args = args;
      first_call = false;
      // A stream's delta names its call by `index`; a body lists whole calls in order.
      int64_t index = at;
      if (!call["index"].get_int64().get(index) && (index < 0 || index >= (int64_t{1} << 20)))
        index = at;
      add_tool_delta(out, {index, name, args});
    }
  }
}

// The tools a chat request offers, in OpenAI's shape, and the choice among them when given.
void write_tools(JsonWriter& w, const BodySettings& s, const dataset::RequestSpec& spec) {
  const core::ToolSet* tools = s.tools_for(spec);
  if (tools && !s.overridden("tools")) {
    w.key("tools").begin_array();
    for (const core::Tool& t : tools->tools) {
      w.begin_object().field("type", "function").key("function").begin_object();
      w.field("name", t.name);
      if (!t.description.empty()) w.field("description", t.description);
      if (!t.parameters.empty()) w.field_raw("parameters", t.parameters);
      w.end_object().end_object();
    }
    w.end_array();
  }
  const std::string& c = s.tool_choice;
  if (c.empty() || s.overridden("tool_choice")) return;
  if (c == "auto" || c == "required" || c == "none") {
    w.field("tool_choice", c);
    return;
  }
  w.key("tool_choice").begin_object().field("type", "function");
  w.key("function").begin_object().field("name", c).end_object().end_object();
}

// llama.cpp's own times of an answer, beside its usage (tools/server: `timings` in a body or in
// a stream's last chunk): prompt_ms (its prompt processing), predicted_ms and predicted_n (its
// generation). Other servers send none.
void read_timings(simdjson::dom::element t, ChunkInfo& out) {
  double v = 0;
  if (!t["prompt_ms"].get_double().get(v) && v >= 0 && v < 1e9) out.server_prompt_ms = v;
  if (!t["predicted_ms"].get_double().get(v) && v >= 0 && v < 1e9) out.server_predicted_ms = v;
  out.server_predicted_n = int_or(t, "predicted_n");
}

// What the three endpoints share: the answer's shape, the credential, the compat flavors.
class OpenAiFamily : public ApiAdapter {
 public:
  bool takes_flavor(Flavor) const override { return true; }

  void parse(simdjson::dom::element doc, ChunkInfo& out, StreamMemory&) const override {
    enum { kChoices, kId, kUsage, kError, kTimings };
    const FirstFields<5> top(doc, [](std::string_view k) {
      return k == "choices"   ? kChoices
             : k == "id"      ? kId
             : k == "usage"   ? kUsage
             : k == "error"   ? kError
             : k == "timings" ? kTimings
                              : -1;
    });
    if (top.has(kTimings)) read_timings(top.get(kTimings), out);
    out.id = top.text(kId);
    if (top.has(kError)) take_error_value(top.get(kError), out);
    if (const auto usage = top.get(kUsage); top.has(kUsage) && usage.is_object()) {
      out.prompt_tokens = int_or(usage, "prompt_tokens");
      out.completion_tokens = int_or(usage, "completion_tokens");
      simdjson::dom::object details;
      if (!usage["prompt_tokens_details"].get_object().get(details))
        out.cached_tokens = int_or(details, "cached_tokens");
    }
    simdjson::dom::array choices;
    if (!top.has(kChoices) || top.get(kChoices).get_array().get(choices) || choices.size() == 0) {
      if (out.completion_tokens >= 0) out.kind = ChunkKind::Usage;
      return;
    }
    // n > 1: a stream interleaves one event per choice (its `index`); a body lists them all. The
    // first listed is the one read; the others only say how many choices there are.
    bool first = true;
    std::string_view role;
    for (auto c : choices) {
      if (first) {
        read_choice(c, out, role);
        first = false;
        continue;
      }
      int64_t index = 0;
      if (!c["index"].get_int64().get(index) && index >= 0 && index < (int64_t{1} << 20))
        out.choices = std::max(out.choices, index + 1);
    }
    out.choices = std::max<int64_t>(out.choices, static_cast<int64_t>(choices.size()));
    out.kind = kind_of(out, !role.empty());
    if (out.kind == ChunkKind::Usage)
      out.kind = ChunkKind::Empty;  // a choice without text or finish: not a usage chunk
  }
};

// Chat completions and completions: the generating endpoints, whose sampling fields the peer
// tools send differently.
class OpenAiGenerating : public OpenAiFamily {
 public:
  explicit OpenAiGenerating(bool chat) : chat_(chat) {}
  std::string_view name() const override { return chat_ ? "chat" : "completions"; }
  std::string_view title() const override {
    return chat_ ? "OpenAI chat completions" : "OpenAI completions";
  }
  std::string_view path() const override {
    return chat_ ? "/v1/chat/completions" : "/v1/completions";
  }
  std::string_view path_tail() const override {
    return chat_ ? "/chat/completions" : "/completions";
  }
  ApiCaps caps() const override {
    ApiCaps c;
    c.conversation = c.images = c.tools = c.json_schema = c.tool_messages = chat_;
    c.stream_options = true;
    return c;
  }
  bool sends_ignore_eos(const BodySettings& s) const override {
    return s.ignore_eos || s.flavor == Flavor::Sglang;
  }

  void write_body(JsonWriter& w, const BodySettings& s,
                  const dataset::RequestSpec& spec) const override {
    if (!s.overridden("model")) w.field("model", spec.model.empty() ? s.model : spec.model);
    if (chat_) {
      write_conversation(w, "messages", s, spec, "text",
                         [](JsonWriter& iw, const std::string& url) {
                           iw.begin_object()
                               .field("type", "image_url")
                               .key("image_url")
                               .begin_object()
                               .field("url", url)
                               .end_object()
                               .end_object();
                         });
      write_tools(w, s, spec);
      if (s.json_schema && !s.overridden("response_format")) {
        w.key("response_format").begin_object().field("type", "json_schema");
        w.key("json_schema").begin_object().field("name", "tokbench");
        w.field_raw("schema", *s.json_schema).field("strict", true).end_object().end_object();
      }
    } else if (!s.overridden("prompt")) {
      w.field("prompt", spec.prompt);
    }
    const int64_t max_tokens = s.cap_for(spec);
    const char* max_key = chat_ && (s.flavor == Flavor::Vllm || s.flavor == Flavor::Sglang)
                              ? "max_completion_tokens"
                              : "max_tokens";
    if (max_tokens > 0 && !s.overridden(max_key)) w.field(max_key, max_tokens);
    if (s.flavor == Flavor::Vllm && !chat_ && !s.overridden("repetition_penalty"))
      w.field("repetition_penalty", 1.0);
    if (s.flavor == Flavor::Sglang && !chat_ && !s.overridden("best_of")) w.field("best_of", 1);
    if (s.min_tokens && !s.overridden("min_tokens")) w.field("min_tokens", *s.min_tokens);
    if (sends_ignore_eos(s) && !s.overridden("ignore_eos")) w.field("ignore_eos", true);
    std::optional<double> temperature = s.temperature;
    if (!temperature && (s.flavor == Flavor::Evalscope || s.flavor == Flavor::Sglang))
      temperature = 0.0;
    if (temperature && !s.overridden("temperature")) w.field("temperature", *temperature);
    if (!s.overridden("stream")) w.field("stream", s.stream);
    if (s.stream && s.flavor != Flavor::Sglang && !s.overridden("stream_options")) {
      w.key("stream_options").begin_object().field("include_usage", true);
      if (s.continuous_usage) w.field("continuous_usage_stats", true);
      w.end_object();
    }
  }

  void audit(simdjson::dom::object o, std::vector<AuditFinding>& out) const override {
    audit_sampling(o, {.other_cap = "max_completion_tokens"}, out);
    auto has = [&](std::string_view k) { return !o[k].error() && !o[k].is_null(); };
    if (chat_ && has("max_tokens") && !has("max_completion_tokens"))
      out.push_back({"note",
                     "chat request caps output with max_tokens (OpenAI deprecated it for "
                     "max_completion_tokens; vLLM honours both)"});
    bool stream = false, include_usage = false;
    if (o["stream"].get_bool().get(stream)) stream = false;
    if (o["stream_options"]["include_usage"].get_bool().get(include_usage)) include_usage = false;
    if (stream && !include_usage) {
      out.push_back(
          {"warning",
           "streaming without stream_options.include_usage: the server reports no token counts, so "
           "output tokens come from --tokenizer or from counting chunks"});
    }
  }

 private:
  bool chat_;
};

// /v1/embeddings: the text in, vectors out; nothing is generated or streamed.
class OpenAiEmbeddings : public OpenAiFamily {
 public:
  std::string_view name() const override { return "embeddings"; }
  std::string_view title() const override { return "OpenAI embeddings"; }
  std::string_view path() const override { return "/v1/embeddings"; }
  std::string_view path_tail() const override { return "/embeddings"; }
  ApiCaps caps() const override {
    ApiCaps c;
    c.generates = c.streams = false;
    c.finish_reasons = c.cap_reason = "";
    return c;
  }
  void write_body(JsonWriter& w, const BodySettings& s,
                  const dataset::RequestSpec& spec) const override {
    if (!s.overridden("model")) w.field("model", spec.model.empty() ? s.model : spec.model);
    if (!s.overridden("input")) w.field("input", spec.prompt);
  }
  void audit(simdjson::dom::object, std::vector<AuditFinding>&) const override {}
};

}  // namespace

const ApiAdapter& openai_chat_api() {
  static const OpenAiGenerating api(true);
  return api;
}
const ApiAdapter& openai_completions_api() {
  static const OpenAiGenerating api(false);
  return api;
}
const ApiAdapter& openai_embeddings_api() {
  static const OpenAiEmbeddings api;
  return api;
}

}  // namespace tokbench::client
