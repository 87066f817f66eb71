#pragma once
// client/api/body_parts (internal to the API adapters): the pieces of a request body and of its
// audit that several APIs share — the user's turn with its images, the sampling checks — written
// once here (client/request_body.cpp) and called by each adapter with its own field names.
#include <simdjson.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "client/api.hpp"

namespace tokbench::client::api_detail {

/// Writes `key`: the conversation of one request — a dataset's own messages as written, else one
/// user turn: the prompt as a string, or (with images) a list of parts: `text_type` with the
/// prompt, then `image(w, url)` for each image. Nothing when --extra-body sets `key`.
void write_conversation(JsonWriter& w, std::string_view key, const BodySettings& s,
                        const dataset::RequestSpec& spec, std::string_view text_type,
                        const std::function<void(JsonWriter&, const std::string&)>& image);

/// The sampling fields as they are sent: where they stand (the body, or SGLang's
/// sampling_params) and their names there.
struct SamplingNames {
  std::string_view min_tokens = "min_tokens";
  std::string_view cap = "max_tokens";  ///< the output cap this API reads
  std::string_view other_cap;           ///< a second name for it ("" = none)
  std::string_view missing_cap_note = "no output cap is sent: the server's default length applies";
};

/// The checks every generating API shares: min_tokens with ignore_eos (the seed incident), a
/// fixed seed, no temperature, no output cap or two of them. `o` holds the sampling fields.
void audit_sampling(simdjson::dom::object o, const SamplingNames& names,
                    std::vector<AuditFinding>& out);

}  // namespace tokbench::client::api_detail
