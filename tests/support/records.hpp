#pragma once
// Test helper: hand-built RequestRecords in milliseconds, for definition tests.
#include <algorithm>
#include <initializer_list>
#include <utility>

#include "record/record.hpp"

namespace tokbench::testing {

inline int64_t ms(double v) { return static_cast<int64_t>(v * 1e6); }

struct ChunkSpec {
  double t_ms;
  record::ChunkKind kind;
  int cum = -1;
  int choice = 0;  ///< n > 1: the choice's index
};

/// A successful streaming record: sent at `sent_ms`, the given chunks, [DONE] at `done_ms`.
inline record::RequestRecord stream_record(double sent_ms, std::initializer_list<ChunkSpec> chunks,
                                           double done_ms, int64_t completion, int64_t prompt) {
  record::RequestRecord r;
  r.sent_ns = r.scheduled_ns = ms(sent_ms);
  r.first_byte_ns = ms(sent_ms + 1);
  for (const auto& c : chunks) {
    record::ChunkEvent e;
    e.t_ns = ms(c.t_ms);
    e.kind = c.kind;
    e.cum_tokens = c.cum;
    e.choice = static_cast<int16_t>(c.choice);
    if (c.choice > 0) r.choices = std::max<int64_t>(r.choices, c.choice + 1);
    e.bytes = 100;
    r.chunks.push_back(e);
    if (r.first_event_ns == record::kNone) r.first_event_ns = e.t_ns;
    r.last_event_ns = e.t_ns;
    if (e.has_text()) {
      if (r.first_token_ns == record::kNone) r.first_token_ns = e.t_ns;
      r.last_token_ns = e.t_ns;
    }
  }
  r.done_ns = ms(done_ms);
  r.completion_tokens = completion;
  r.prompt_tokens = prompt;
  r.http_status = 200;
  return r;
}

}  // namespace tokbench::testing
