#pragma once
// record/run_parts: the parts of a run folder that other modules learn while the run goes —
// how synthetic prompts or a trace were built, the started server's stop and log, the profile
// window, the in-run controller's windows — typed to their leaves. Each has one field table (or,
// where it nests, one reader and one writer) used by the run folder, result.json and the page,
// so a field is spelled once.
#include <simdjson.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_fields.hpp"

namespace tokbench::record {

/// How synthetic prompts were built (--dataset synthetic).
struct SyntheticFacts {
  int64_t input_len = 0, output_len = 0;
  double input_len_range = 0, output_len_range = 0;
  int64_t prefix_len = 0;
  uint64_t seed = 0;
  std::string built_with;  ///< "tokenizer.json" or "server /tokenize"
  int64_t server_added_tokens =
      0;  ///< the chat template's and BOS tokens, subtracted from each prompt
  std::string server_added_tokens_how;  ///< how they were measured
};

inline constexpr std::array<json::Field<SyntheticFacts>, 9> kSyntheticFields{{
    {"input_len", &SyntheticFacts::input_len},
    {"output_len", &SyntheticFacts::output_len},
    {"input_len_range", &SyntheticFacts::input_len_range},
    {"output_len_range", &SyntheticFacts::output_len_range},
    {"prefix_len", &SyntheticFacts::prefix_len},
    {"seed", &SyntheticFacts::seed},
    {"built_with", &SyntheticFacts::built_with},
    {"server_added_tokens", &SyntheticFacts::server_added_tokens},
    {"server_added_tokens_how", &SyntheticFacts::server_added_tokens_how},
}};

/// How a trace's prompts and schedule were built (--dataset trace:PATH).
struct TraceFacts {
  int64_t block_size = 0;
  double speed = 1;
  int64_t requests = 0;
  double span_s = 0;              ///< the schedule's length at this speed
  double implied_cache_hit = -1;  ///< the prompt share its hash ids put in cache
  std::string built_with;
  int64_t server_added_tokens = 0;
  std::string server_added_tokens_how;
};

inline constexpr std::array<json::Field<TraceFacts>, 8> kTraceFields{{
    {"block_size", &TraceFacts::block_size},
    {"speed", &TraceFacts::speed},
    {"requests", &TraceFacts::requests},
    {"span_s", &TraceFacts::span_s},
    {"implied_cache_hit", &TraceFacts::implied_cache_hit},
    {"built_with", &TraceFacts::built_with},
    {"server_added_tokens", &TraceFacts::server_added_tokens},
    {"server_added_tokens_how", &TraceFacts::server_added_tokens_how},
}};

/// What a vLLM server's log said while it ran (probe/server_process reads it).
struct ServerLogSummary {
  int64_t throughput_lines = 0;
  double mean_generation_throughput = 0;  ///< over lines with running requests, tokens/s
  double mean_prompt_throughput = 0;
  int64_t max_running = 0, max_waiting = 0;
  int64_t spec_lines = 0;
  double last_mean_acceptance_length = 0;
  int64_t accepted_tokens = 0, drafted_tokens = 0;  ///< summed over SpecDecoding lines
  std::vector<double> per_position_acceptance;      ///< from the last SpecDecoding line
};

inline constexpr std::array<json::Field<ServerLogSummary>, 10> kServerLogFields{{
    {"throughput_lines", &ServerLogSummary::throughput_lines},
    {"mean_generation_throughput", &ServerLogSummary::mean_generation_throughput},
    {"mean_prompt_throughput", &ServerLogSummary::mean_prompt_throughput},
    {"max_running", &ServerLogSummary::max_running},
    {"max_waiting", &ServerLogSummary::max_waiting},
    {"spec_lines", &ServerLogSummary::spec_lines},
    {"last_mean_acceptance_length", &ServerLogSummary::last_mean_acceptance_length},
    {"accepted_tokens", &ServerLogSummary::accepted_tokens},
    {"drafted_tokens", &ServerLogSummary::drafted_tokens},
    {"per_position_acceptance", &ServerLogSummary::per_position_acceptance},
}};

/// The server tokbench started (--server-cmd, --deploy-sh): how it stopped, where its log is.
struct ServerProcessFacts {
  std::string command;  ///< secrets redacted
  std::string stopped;  ///< "stopped by SIGTERM", "killed with SIGKILL after ..."
  std::string log;      ///< logs/server.log
  ServerLogSummary log_summary;
};

inline constexpr std::array<json::Field<ServerProcessFacts>, 3> kServerProcessFields{{
    {"command", &ServerProcessFacts::command},
    {"stopped", &ServerProcessFacts::stopped},
    {"log", &ServerProcessFacts::log},
}};

/// --profile-window START_S:DURATION_S, parsed (probe/profile_window acts on it).
struct WindowSpec {
  double start_s = 0;
  double duration_s = 0;
  std::string text() const;  ///< "START_S:DURATION_S", as given
};

/// Parses "START_S:DURATION_S" (start >= 0, duration > 0); throws std::invalid_argument naming
/// the flag and the form.
WindowSpec parse_profile_window(std::string_view text);

/// --profile-window: when /start_profile and /stop_profile were called and what they answered.
struct ProfileFacts {
  std::string window;  ///< "START_S:DURATION_S" as asked
  bool started = false;
  std::string note;                           ///< why it did not start ("" when it did)
  int64_t start_status = 0, stop_status = 0;  ///< HTTP statuses
  double started_at_s = 0, stopped_at_s = 0;  ///< since the measured phase began
  bool cut_short = false;                     ///< the run ended before the window did
};

inline constexpr std::array<json::Field<ProfileFacts>, 8> kProfileFields{{
    {"window", &ProfileFacts::window},
    {"started", &ProfileFacts::started},
    {"note", &ProfileFacts::note},
    {"start_status", &ProfileFacts::start_status},
    {"started_at_s", &ProfileFacts::started_at_s},
    {"stop_status", &ProfileFacts::stop_status},
    {"stopped_at_s", &ProfileFacts::stopped_at_s},
    {"cut_short", &ProfileFacts::cut_short},
}};

/// One window of the in-run controller (--adaptive-window-s).
struct AdaptiveWindow {
  int64_t index = 0;
  double start_s = 0, end_s = 0;  ///< since the phase start
  int64_t concurrency = 0;
  int64_t judged = 0;  ///< requests sent at this level that ended inside the window
  std::vector<std::optional<double>>
      values;  ///< one per SLO, in AdaptiveLog::slos' order (nullopt: not judged)
  bool pass = false;
  std::string action;  ///< "double to 8", "bisect to 6", "hold at 4"
};

inline constexpr std::array<json::Field<AdaptiveWindow>, 7> kAdaptiveWindowFields{{
    {"index", &AdaptiveWindow::index},
    {"start_s", &AdaptiveWindow::start_s},
    {"end_s", &AdaptiveWindow::end_s},
    {"concurrency", &AdaptiveWindow::concurrency},
    {"judged", &AdaptiveWindow::judged},
    {"pass", &AdaptiveWindow::pass},
    {"action", &AdaptiveWindow::action},
}};

/// The in-run controller's record: its rule, its SLOs, every window, the level that held.
struct AdaptiveLog {
  double window_s = 0;
  std::vector<std::string> slos;  ///< as written, e.g. "ttft.p99<=500ms"
  std::string summary;            ///< the highest level that held, in words
  std::optional<int64_t> held;    ///< that level (nullopt: none held)
  std::string rule;
  std::vector<AdaptiveWindow> windows;
};

inline constexpr std::array<json::Field<AdaptiveLog>, 5> kAdaptiveLogFields{{
    {"window_s", &AdaptiveLog::window_s},
    {"slos", &AdaptiveLog::slos},
    {"summary", &AdaptiveLog::summary},
    {"held", &AdaptiveLog::held},
    {"rule", &AdaptiveLog::rule},
}};

// Each part as one JSON object (write) and back (read: absent fields keep their defaults).
void write(JsonWriter& w, const SyntheticFacts& v);
void write(JsonWriter& w, const TraceFacts& v);
void write(JsonWriter& w, const ServerProcessFacts& v);
void write(JsonWriter& w, const ProfileFacts& v);
void write(JsonWriter& w, const AdaptiveLog& v);
void read(simdjson::dom::element o, SyntheticFacts& v);
void read(simdjson::dom::element o, TraceFacts& v);
void read(simdjson::dom::element o, ServerProcessFacts& v);
void read(simdjson::dom::element o, ProfileFacts& v);
void read(simdjson::dom::element o, AdaptiveLog& v);

/// A part as its JSON text.
template <class T>
std::string to_json(const T& v) {
  JsonWriter w;
  write(w, v);
  return w.take();
}

/// Writes the part under `key`, or null when absent.
template <class T>
void write_optional(JsonWriter& w, std::string_view key, const std::optional<T>& v) {
  w.key(key);
  if (v)
    write(w, *v);
  else
    w.null();
}

/// Reads the part under `key` of `o`; nullopt when absent, null or not an object.
template <class T>
std::optional<T> read_optional(simdjson::dom::element o, std::string_view key) {
  simdjson::dom::element e;
  if (o[key].get(e) || !e.is_object()) return std::nullopt;
  T v;
  read(e, v);
  return v;
}

}  // namespace tokbench::record
