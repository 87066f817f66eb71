#pragma once
// client/api/json_read (internal to the API adapters): the small simdjson readers every dialect's
// parser uses — a field or a default, a payload's kind from what it carries, an `error` member,
// and FirstFields, which reads the first of each wanted field in one pass over an object.
#include <simdjson.h>

#include <array>
#include <cstdint>
#include <string_view>

#include "client/chunk_parser.hpp"
#include "record/record.hpp"

namespace tokbench::client::api_detail {

template <class Obj>
int64_t int_or(Obj obj, std::string_view key) {
  int64_t v = -1;
  if (obj[key].get_int64().get(v)) return -1;
  return v;
}

inline std::string_view text_of(simdjson::dom::element obj, std::string_view key) {
  std::string_view s;
  if (obj[key].get_string().get(s)) return {};
  return s;
}

inline std::string_view string_or_empty(simdjson::dom::element v) {
  std::string_view s;
  if (v.get_string().get(s)) return {};
  return s;
}

/// The kind of a payload from what it carries, most telling first.
inline record::ChunkKind kind_of(const ChunkInfo& i, bool role) {
  using record::ChunkKind;
  if (!i.content.empty()) return ChunkKind::Content;
  if (!i.reasoning.empty()) return ChunkKind::Reasoning;
  if (i.tool_bytes > 0) return ChunkKind::ToolCall;
  if (!i.finish_reason.empty()) return ChunkKind::Finish;
  if (role) return ChunkKind::Role;
  if (i.completion_tokens >= 0) return ChunkKind::Usage;
  return ChunkKind::Empty;
}

/// One tool call's piece, kept while there is room (the rest are said to be dropped).
inline void add_tool_delta(ChunkInfo& out, const ToolDelta& d) {
  if (out.tool_delta_count < kMaxToolDeltas)
    out.tool_deltas[out.tool_delta_count++] = d;
  else
    out.tool_deltas_dropped = true;
}

/// An `error` member that is not null: an object's message, or the text itself (TGI's and
/// Ollama's errors are strings), or "error" when it says nothing.
inline void take_error_value(simdjson::dom::element err, ChunkInfo& out) {
  if (err.is_null()) return;
  out.error = err.is_object() ? text_of(err, "message") : string_or_empty(err);
  if (out.error.empty()) out.error = "error";
}

inline void take_error(simdjson::dom::element doc, ChunkInfo& out) {
  simdjson::dom::element err;
  if (!doc["error"].get(err)) take_error_value(err, out);
}

/// A one-shot answer (rerank, score, classify, pooling): its error, id and prompt tokens (usage's
/// prompt_tokens, else its total_tokens: vLLM's rerank usage has only the total, all of it input),
/// and a failure saying `missing` when the list `list` that carries its results is absent.
inline void take_one_shot(simdjson::dom::element doc, ChunkInfo& out, std::string_view list,
                          std::string_view missing) {
  take_error(doc, out);
  if (!out.error.empty()) return;
  out.id = text_of(doc, "id");
  simdjson::dom::element usage;
  if (!doc["usage"].get(usage) && usage.is_object()) {
    out.prompt_tokens = int_or(usage, "prompt_tokens");
    if (out.prompt_tokens < 0) out.prompt_tokens = int_or(usage, "total_tokens");
  }
  simdjson::dom::array results;
  if (doc[list].get_array().get(results)) out.error = missing;
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
  std::string_view text(size_t i) const {
    return found_[i] ? string_or_empty(value_[i]) : std::string_view{};
  }

 private:
  std::array<simdjson::dom::element, N> value_{};
  std::array<bool, N> found_{};
};

}  // namespace tokbench::client::api_detail
