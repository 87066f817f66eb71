#include "client/chunk_parser.hpp"

#include <algorithm>
#include <array>

namespace tokbench::client {

using record::ChunkKind;

namespace {

constexpr size_t kTailBytes = 16;        // enough to tell SGLang's cumulative text from deltas
constexpr int64_t kMaxTrackedChoices = 64;  // choices beyond this share the last one's state

template <class Obj>
int64_t int_or(Obj obj, std::string_view key) {
  int64_t v = -1;
  if (obj[key].get_int64().get(v)) return -1;
  return v;
}

std::string_view text_of(simdjson::dom::element obj, std::string_view key) {
  std::string_view s;
  if (obj[key].get_string().get(s)) return {};
  return s;
}

// The kind of a payload from what it carries, most telling first.
ChunkKind kind_of(const ChunkInfo& i, bool role) {
  if (!i.content.empty()) return ChunkKind::Content;
  if (!i.reasoning.empty()) return ChunkKind::Reasoning;
  if (i.tool_bytes > 0) return ChunkKind::ToolCall;
  if (!i.finish_reason.empty()) return ChunkKind::Finish;
  if (role) return ChunkKind::Role;
  if (i.completion_tokens >= 0) return ChunkKind::Usage;
  return ChunkKind::Empty;
}

// An `error` member that is not null: its message, or "error" when it has none.
void take_error_value(simdjson::dom::element err, ChunkInfo& out) {
  if (err.is_null()) return;
  out.error = err.is_object() ? text_of(err, "message") : std::string_view("error");
  if (out.error.empty()) out.error = "error";
}

void take_error(simdjson::dom::element doc, ChunkInfo& out) {
  simdjson::dom::element err;
  if (!doc["error"].get(err)) take_error_value(err, out);
}

std::string_view string_or_empty(simdjson::dom::element v) {
  std::string_view s;
  if (v.get_string().get(s)) return {};
  return s;
}

// The first field of each wanted name in one pass over an object, as simdjson's at_key would find
// it (at_key scans the fields anew for every name asked, present or not: an OpenAI event asked
// for about fifteen, more than simdjson's own parse cost; docs/PERFORMANCE.md). Not an object:
// nothing is found.
// `slot_of` maps a name to its slot (-1: not wanted), comparing with literals the compiler
// inlines (a loop over a table of names cost ~700 more instructions an event).
template <size_t N>
class FirstFields {
 public:
  template <class SlotOf>
  FirstFields(simdjson::dom::element e, SlotOf&& slot_of) {
    simdjson::dom::object o;
    if (e.get_object().get(o)) return;
    for (auto field : o) {
      const int i = slot_of(field.key);
      if (i < 0 || found_[static_cast<size_t>(i)]) continue;
      value_[static_cast<size_t>(i)] = field.value;
      found_[static_cast<size_t>(i)] = true;
    }
  }
  bool has(size_t i) const { return found_[i]; }
  simdjson::dom::element get(size_t i) const { return value_[i]; }
  std::string_view text(size_t i) const { return found_[i] ? string_or_empty(value_[i]) : std::string_view{}; }

 private:
  std::array<simdjson::dom::element, N> value_{};
  std::array<bool, N> found_{};
};

}  // namespace

const char* end_of_stream_name(Wire wire) {
  return wire == Wire::Anthropic ? "a message_stop event" : "data: [DONE]";
}

ChunkParser::ChunkParser(Wire wire) : wire_(wire) {}

JsonScratch& ChunkParser::scratch() {
  if (shared_) return *shared_;
  if (!own_) {
    own_ = std::make_unique<JsonScratch>();
    own_->padded.reserve(4096);
  }
  return *own_;
}

bool ChunkParser::parse(std::string_view json, ChunkInfo& out, std::string* why) {
  out = ChunkInfo{};
  JsonScratch& js = scratch();
  js.padded.assign(json);
  js.padded.resize(json.size() + simdjson::SIMDJSON_PADDING, '\0');
  simdjson::dom::element doc;
  if (auto err = js.parser.parse(js.padded.data(), json.size(), false).get(doc)) {
    if (why) *why = simdjson::error_message(err);
    return false;
  }
  // SGLang's non-streaming /generate answers a list when it made several (n > 1).
  if (!doc.is_object() && !(wire_ == Wire::SglangGenerate && doc.is_array())) {
    if (why) *why = "expected a JSON object";
    return false;
  }
  switch (wire_) {
    case Wire::OpenAI: openai(doc, out); break;
    case Wire::Anthropic: anthropic(doc, out); break;
    case Wire::SglangGenerate: sglang(doc, out); break;
  }
  // A dialect may have preset text_bytes with text beyond the views it keeps (more blocks or choices).
  out.text_bytes += static_cast<int64_t>(out.content.size() + out.reasoning.size()) + out.tool_bytes;
  return true;
}

void ChunkParser::openai(simdjson::dom::element doc, ChunkInfo& out) {
  enum { kChoices, kId, kUsage, kError };
  const FirstFields<4> top(doc, [](std::string_view k) {
    return k == "choices" ? kChoices : k == "id" ? kId : k == "usage" ? kUsage : k == "error" ? kError : -1;
  });
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
      openai_choice(c, out, role);
      first = false;
      continue;
    }
    int64_t index = 0;
    if (!c["index"].get_int64().get(index) && index >= 0 && index < (int64_t{1} << 20))
      out.choices = std::max(out.choices, index + 1);
  }
  out.choices = std::max<int64_t>(out.choices, static_cast<int64_t>(choices.size()));
  out.kind = kind_of(out, !role.empty());
  if (out.kind == ChunkKind::Usage) out.kind = ChunkKind::Empty;  // a choice without text or finish: not a usage chunk
}

// One choice: its index, finish reason and text. Chat streams carry `delta`, chat bodies
// `message` (a delta wins when both come), completions `text`.
void ChunkParser::openai_choice(simdjson::dom::element choice, ChunkInfo& out, std::string_view& role) {
  enum { kDelta, kIndex, kFinish, kMessage, kText };
  const FirstFields<5> f(choice, [](std::string_view k) {
    return k == "delta" ? kDelta : k == "index" ? kIndex : k == "finish_reason" ? kFinish : k == "message" ? kMessage
                                                                                  : k == "text"    ? kText : -1;
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
    return k == "content" ? kContent : k == "role" ? kRole : k == "reasoning_content" ? kReasoningContent
                                                           : k == "reasoning"         ? kReasoning
                                                           : k == "tool_calls"        ? kToolCalls : -1;
  });
  out.content = m.text(kContent);
  role = m.text(kRole);
  const std::string_view reasoning_content = m.text(kReasoningContent), reasoning = m.text(kReasoning);
  out.reasoning = reasoning_content.empty() ? reasoning : reasoning_content;
  // Tool calls: a name on a call's first delta, then argument text; both are generated output.
  simdjson::dom::array calls;
  if (m.has(kToolCalls) && !m.get(kToolCalls).get_array().get(calls)) {
    bool first_call = true;
    for (auto call : calls) {
      simdjson::dom::element fn;
      if (call["function"].get(fn) || !fn.is_object()) continue;
      const std::string_view args = text_of(fn, "arguments");
      out.tool_bytes += static_cast<int64_t>(text_of(fn, "name").size() + args.size());
      if (first_call) out.tool_args = args;
      first_call = false;
    }
  }
}

// Anthropic's Messages API. A stream is typed events: message_start (id, input usage),
// content_block_start / _delta / _stop (text_delta, thinking_delta, input_json_delta for a
// tool_use block), message_delta (stop_reason and the output token count so far), message_stop
// (the end), ping and error. A non-streaming body is one "message" with its content blocks.
// Input tokens: Anthropic counts cached and cache-written tokens apart from input_tokens, so the
// prompt is their sum.
void ChunkParser::anthropic(simdjson::dom::element doc, ChunkInfo& out) {
  take_error(doc, out);
  const std::string_view type = text_of(doc, "type");
  auto take_usage = [&](simdjson::dom::element msg, bool output) {
    simdjson::dom::object usage;
    if (msg["usage"].get_object().get(usage)) return;
    const int64_t input = int_or(usage, "input_tokens");
    const int64_t read = int_or(usage, "cache_read_input_tokens");
    const int64_t written = int_or(usage, "cache_creation_input_tokens");
    if (input >= 0) out.prompt_tokens = input + std::max<int64_t>(0, read) + std::max<int64_t>(0, written);
    if (read >= 0) out.cached_tokens = read;
    if (output) out.completion_tokens = int_or(usage, "output_tokens");
  };
  auto take_block = [&](simdjson::dom::element block) {
    const std::string_view kind = text_of(block, "type");
    if (kind == "text" || kind == "text_delta") {
      out.content = text_of(block, "text");
    } else if (kind == "thinking" || kind == "thinking_delta") {
      out.reasoning = text_of(block, "thinking");
    } else if (kind == "tool_use") {
      out.tool_bytes += static_cast<int64_t>(text_of(block, "name").size());
    } else if (kind == "input_json_delta") {
      out.tool_args = text_of(block, "partial_json");
      out.tool_bytes += static_cast<int64_t>(out.tool_args.size());
    }
  };
  out.choices = 1;
  if (type == "message_start") {
    simdjson::dom::element msg;
    if (!doc["message"].get(msg) && msg.is_object()) {
      out.id = text_of(msg, "id");
      take_usage(msg, false);  // its output_tokens is a placeholder (1), not a count of text sent
    }
    out.kind = ChunkKind::Role;
    return;
  }
  if (type == "content_block_start" || type == "content_block_delta") {
    simdjson::dom::element block;
    if (!doc[type == "content_block_start" ? "content_block" : "delta"].get(block) && block.is_object()) take_block(block);
  } else if (type == "message_delta") {
    simdjson::dom::element delta;
    if (!doc["delta"].get(delta) && delta.is_object()) out.finish_reason = text_of(delta, "stop_reason");
    take_usage(doc, true);  // output_tokens here is cumulative: the answer's count so far
  } else if (type == "message_stop") {
    out.end = true;
  } else if (type == "message") {  // a non-streaming body
    out.id = text_of(doc, "id");
    out.finish_reason = text_of(doc, "stop_reason");
    take_usage(doc, true);
    simdjson::dom::array blocks;
    if (!doc["content"].get_array().get(blocks)) {
      int64_t bytes = 0;
      for (auto block : blocks) {  // every block's text counts; the first text and thinking are kept
        const std::string_view content = out.content, reasoning = out.reasoning;
        out.content = out.reasoning = {};
        take_block(block);
        bytes += static_cast<int64_t>(out.content.size() + out.reasoning.size());
        if (!content.empty()) out.content = content;
        if (!reasoning.empty()) out.reasoning = reasoning;
      }
      out.text_bytes = bytes - static_cast<int64_t>(out.content.size() + out.reasoning.size());
    }
  }
  out.kind = kind_of(out, false);
}

// SGLang's /generate: {"text", "meta_info": {"id", "prompt_tokens", "completion_tokens",
// "cached_tokens", "finish_reason": null | {"type": "length" | "stop" | "abort", ...}}, "index"}.
// completion_tokens is cumulative in every event, so each chunk's token count is exact.
void ChunkParser::sglang(simdjson::dom::element doc, ChunkInfo& out) {
  if (doc.is_array()) {  // a non-streaming answer with n > 1: one object per choice
    simdjson::dom::array all = doc.get_array().value_unsafe();
    int64_t prompt = -1, completion = 0, bytes = 0;
    for (auto one : all) {
      if (!one.is_object()) continue;
      ChunkInfo each;
      begin_response();
      sglang(one, each);
      if (out.id.empty()) out = each;
      if (prompt < 0) prompt = each.prompt_tokens;
      completion += std::max<int64_t>(0, each.completion_tokens);
      bytes += static_cast<int64_t>(each.content.size());
    }
    out.choices = static_cast<int64_t>(all.size());
    out.prompt_tokens = prompt;
    out.completion_tokens = completion;
    out.text_bytes = bytes - static_cast<int64_t>(out.content.size());  // every choice's text counts
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
  if (!doc["text"].get_string().get(text)) out.content = new_text(index, text);
  out.kind = kind_of(out, false);
  // Every event carries cumulative usage; one with neither new text nor a finish is still a
  // chunk of this answer (detokenizer lag), not a usage-only event.
  if (out.kind == ChunkKind::Usage) out.kind = ChunkKind::Empty;
}

std::string_view ChunkParser::new_text(int64_t choice, std::string_view text) {
  const size_t i = static_cast<size_t>(std::min(choice, kMaxTrackedChoices - 1));
  if (seen_.size() <= i) seen_.resize(i + 1);
  Seen& s = seen_[i];
  if (s.mode == Seen::Unknown && s.bytes > 0) {  // the second text: does it repeat the first?
    const size_t n = s.tail.size(), at = static_cast<size_t>(s.bytes) - n;
    s.mode = text.size() >= static_cast<size_t>(s.bytes) && text.substr(at, n) == s.tail ? Seen::Cumulative : Seen::Incremental;
  }
  std::string_view fresh = text;
  if (s.mode == Seen::Cumulative) fresh = text.size() > static_cast<size_t>(s.bytes) ? text.substr(static_cast<size_t>(s.bytes)) : std::string_view();
  if (s.mode != Seen::Incremental) s.bytes = std::max<int64_t>(s.bytes, static_cast<int64_t>(text.size()));
  else s.bytes += static_cast<int64_t>(text.size());
  if (s.mode != Seen::Incremental && !text.empty()) s.tail = text.substr(text.size() - std::min(text.size(), kTailBytes));
  return fresh;
}

}  // namespace tokbench::client
