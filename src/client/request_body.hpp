#pragma once
// client/request_body: the request each dataset item becomes — its exact JSON body (the API
// adapter's fields, then --extra-body's, which win) and the facts of what was sent — and the
// audit of a body. Fields the user did not ask for are never sent (the seed incident: a hidden
// min_tokens doubled TPOT), so every optional field is sent only when given. What differs
// between APIs is each adapter's (client/api.hpp); this is what they share.
#include <string>
#include <utility>
#include <vector>

#include "client/api.hpp"
#include "core/request.hpp"
#include "dataset/dataset.hpp"

namespace tokbench::client {

/// Parses a --extra-body value: it must be a JSON object. Throws naming the problem.
std::vector<std::pair<std::string, std::string>> parse_extra_body(const std::string& json);

/// The exact body for one request.
std::string build_body(const BodySettings& s, const dataset::RequestSpec& spec);

/// The text a local tokenizer counts for `spec`: its prompt; for a ranking, the query beside each
/// document (a cross-encoder reads every pair), so the count is close to the server's usage.
std::string counted_text(const dataset::RequestSpec& spec);

/// The request made from one dataset item: its exact body and the facts of what was sent (the
/// output cap, ignore_eos, the input length the prompt was built to have; the prompt text itself
/// only when `keep_prompt`, for a local tokenizer to count). Thread-safe: a pure function.
core::PlannedRequest plan_request(const BodySettings& s, const dataset::RequestSpec& spec,
                                  bool keep_prompt);

/// Known traps in a request body of `api`: min_tokens with ignore_eos (the seed incident), a
/// fixed seed, no temperature, max_tokens vs max_completion_tokens, streaming without usage, no
/// output cap (each API's names for them).
std::vector<AuditFinding> audit_body(const std::string& body, const ApiAdapter& api);

}  // namespace tokbench::client
