#pragma once
// client/api: the seam between tokbench and one HTTP API it benchmarks. An ApiAdapter says
// everything that differs between APIs — its path, its credential headers, the exact request
// body, how its answers read (stream events and bodies), how its stream ends, what its audit
// looks for and what it can do (capabilities) — and nothing else in tokbench tests which API it
// is. One file per API under client/api/, listed once in client/api/registry.cpp; the simulator
// mirrors it with one route file per API (mockapi/routes/). Adding an API: docs/ARCHITECTURE.md.
#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/chunk_parser.hpp"
#include "common/json_writer.hpp"
#include "core/api_caps.hpp"
#include "dataset/dataset.hpp"

namespace tokbench::client {

/// Whose request body to reproduce (--compat): the fields each tool sends by itself
/// (reference/evalscope_vllm_sglang.md sections 1.2, 2.2, 3.2).
enum class Flavor {
  Tokbench,   ///< only what was asked for (also AISBench's: generation_kwargs pass through)
  Evalscope,  ///< temperature always (default 0.0); top-level min_tokens when given
  Vllm,       ///< chat: max_completion_tokens; completions: repetition_penalty 1.0
  Sglang,  ///< max_completion_tokens (chat), temperature 0.0, ignore_eos true, no stream_options;
           ///< /generate: bench_serving's native payload (temperature 0.0, ignore_eos in
           ///< sampling_params)
};

/// The flavor a --compat name asks for ("aisbench" sends what tokbench sends); nullopt: unknown.
std::optional<Flavor> flavor_named(std::string_view compat);

class ApiAdapter;

struct BodySettings {
  const ApiAdapter* api = nullptr;  ///< null: OpenAI's chat completions
  Flavor flavor = Flavor::Tokbench;
  std::string model;
  bool stream = true;
  int64_t max_tokens = 256;           ///< 0 = not sent (the server's default applies)
  bool ignore_eos = false;            ///< sent only when true
  std::optional<int64_t> min_tokens;  ///< sent only when given
  std::optional<double> temperature;  ///< sent only when given
  bool continuous_usage = false;      ///< stream_options.continuous_usage_stats (vLLM, SGLang)
  /// Top-level fields from --extra-body, already validated: (key, raw JSON value). They override
  /// any field of the same name that tokbench would send.
  std::vector<std::pair<std::string, std::string>> extra;
  core::SharedTools tools;  ///< --tools: offered by every request whose line has none of its own
  std::string tool_choice;  ///< sent when given: auto, required, none, or a tool's name
  std::shared_ptr<const std::string> json_schema;  ///< --json-schema: the answer's format

  const ApiAdapter& adapter() const;
  /// The tools one request offers: its line's own, else --tools (null: none).
  const core::ToolSet* tools_for(const dataset::RequestSpec& spec) const {
    return spec.tools ? spec.tools.get() : tools.get();
  }
  /// The output cap one request asks for: its own (a dataset line's max_tokens), else --max-tokens.
  int64_t cap_for(const dataset::RequestSpec& spec) const {
    return spec.max_tokens > 0 ? spec.max_tokens : max_tokens;
  }
  /// True when --extra-body sets `key` (tokbench then leaves that field to it).
  bool overridden(std::string_view key) const;
};

/// A finding of the request-body audit.
struct AuditFinding {
  std::string level;  ///< "warning" or "note"
  std::string text;
};

/// What an API can do (core/api_caps: a noun the settings and the plan ask too).
using core::ApiCaps;

class ApiAdapter {
 public:
  virtual ~ApiAdapter() = default;

  /// The --endpoint value, e.g. "chat"; also what manifest.json and result.json call it.
  virtual std::string_view name() const = 0;
  /// For people: "OpenAI chat completions", "Anthropic Messages", ...
  virtual std::string_view title() const = 0;
  /// The path a URL with no path gets, e.g. "/v1/chat/completions".
  virtual std::string_view path() const = 0;
  /// The tail a URL's path ends with when it is this API (a gateway may put a prefix before it).
  virtual std::string_view path_tail() const { return path(); }
  /// The path of its answers sent whole (--no-stream), where that is another path (TGI's
  /// /generate beside /generate_stream); a URL with no path gets it.
  virtual std::string_view body_path() const { return path(); }
  virtual ApiCaps caps() const = 0;

  /// The headers that carry `key` (and any the API requires), unless `given` (--header) already
  /// has them: OpenAI-style APIs take "Authorization: Bearer KEY".
  virtual std::vector<std::string> credential_headers(const std::vector<std::string>& given,
                                                      const std::string& key) const;

  /// Whether this API has a body for --compat's flavor (the peers reproduce OpenAI bodies).
  virtual bool takes_flavor(Flavor f) const { return f == Flavor::Tokbench; }
  /// The exact body of one request. Fields the user did not ask for are never sent; --extra-body
  /// fields (s.extra) are appended by the caller and win over any field this writes.
  virtual void write_body(JsonWriter& w, const BodySettings& s,
                          const dataset::RequestSpec& spec) const = 0;
  /// Whether the server is told to ignore EOS (SGLang's flavor sends it unasked).
  virtual bool sends_ignore_eos(const BodySettings& s) const { return s.ignore_eos; }

  /// Reads one payload (an SSE event's data or a whole body) into `out`. `doc` has passed
  /// accepts(). `mem` is this response's memory (begin_response() clears it).
  virtual void parse(simdjson::dom::element doc, ChunkInfo& out, StreamMemory& mem) const = 0;
  /// Which JSON documents are payloads of this API at all (an object, unless said otherwise).
  virtual bool accepts(simdjson::dom::element doc) const { return doc.is_object(); }
  /// Whether `data: [DONE]` ends this API's stream (OpenAI's); else its own end event does, and a
  /// [DONE] that a proxy adds is ignored.
  virtual bool done_sentinel() const { return true; }
  /// A response header this API says something in (counts, the server's times); true when it
  /// put something in `out`. Most APIs say nothing there.
  virtual bool take_header(std::string_view name, std::string_view value, ChunkInfo& out) const {
    return false;
  }
  /// How a stream of this API says it is complete, for errors that name what was missing.
  virtual std::string_view end_of_stream() const { return "data: [DONE]"; }

  /// Known traps in a body of this API (`top` is the body, already parsed).
  virtual void audit(simdjson::dom::object top, std::vector<AuditFinding>& out) const = 0;
};

/// Every API tokbench speaks, in the order a URL's path is matched (a longer tail first).
std::span<const ApiAdapter* const> all_apis();
/// The API of that --endpoint name, or null.
const ApiAdapter* find_api(std::string_view name);
/// The API of that --endpoint name; throws naming the names there are.
const ApiAdapter& api_named(std::string_view name);
/// The API a URL path names ("/v1/chat/completions", "/openai/v1/responses/"), or null.
const ApiAdapter* api_of_path(std::string_view path);
/// OpenAI's chat completions: what a run speaks when nothing names an API.
const ApiAdapter& default_api();
/// "chat, completions, ..." with each title, for help texts and errors.
std::string api_names_described();
/// The paths of the APIs that have `cap` (every API's when null), ", "-joined, for errors that
/// name where to go instead.
std::string api_paths(bool ApiCaps::*cap = nullptr);

}  // namespace tokbench::client
