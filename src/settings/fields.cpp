// settings/fields: the rows of `tokbench run`'s seven settings tables, one per flag, in the order
// of `run --help`'s sections. A row's help is what --help and docs/CLI.md print; its range is what
// validate() enforces; its key is config.json's.
#include "settings/fields.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "client/api.hpp"
#include "core/dataset_spec.hpp"
#include "core/engines.hpp"
#include "metrics/saturation.hpp"
#include "settings/traffic_class.hpp"

namespace tokbench::runner {

namespace {

// "1,4,16" -> {1, 4, 16}; each value parsed by `one`, which returns nullopt when it is bad.
template <class T, class F>
std::vector<T> parse_list(std::string_view flag, const std::string& text, F one,
                          const char* expected) {
  std::vector<T> out;
  size_t i = 0;
  while (i <= text.size()) {
    const size_t j = std::min(text.find(',', i), text.size());
    const std::string part = text.substr(i, j - i);
    const std::optional<T> v = one(part);
    if (!v)
      throw std::invalid_argument(fmt::format(
          "{}: bad value '{}' (expected {}; a comma list is a sweep)", flag, part, expected));
    out.push_back(*v);
    i = j + 1;
  }
  return out;
}

std::optional<int64_t> parse_int(const std::string& s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() ? std::optional<int64_t>(v) : std::nullopt;
}

// A finite number and nothing else ("", "2x", "nan" and "inf" are not).
std::optional<double> parse_number(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size() && std::isfinite(v) ? std::optional<double>(v)
                                                                       : std::nullopt;
}

std::optional<double> parse_rate(const std::string& s) {
  if (s == "inf" || s == "INF" || s == "Inf") return std::numeric_limits<double>::infinity();
  return parse_number(s);
}

int clamp_int(int64_t v) { return static_cast<int>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX)); }

std::string rate_text(double rate) {
  return std::isinf(rate) ? std::string("inf") : fmt::format("{}", rate);
}

// A number as config.json holds it: a count as itself, a rate with "inf" spelt out.
void write_one(JsonWriter& w, int64_t n) { w.value(n); }
void write_one(JsonWriter& w, double r) { w.rate(r); }

// A value and its sweep list: the list's text when there is one, else the value's.
template <class T, class F>
std::string list_text(const std::vector<T>& list, const T& value, F text) {
  if (list.empty()) return text(value);
  std::string out;
  for (const T& x : list) out += (out.empty() ? "" : ",") + text(x);
  return out;
}

// --concurrency N|auto|LIST: the first point in `concurrency`, a list in `concurrency_sweep`.
CustomField<LoadSettings> concurrency_field() {
  return {[](LoadSettings& c, const std::string& v) {
            c.concurrency_sweep.clear();
            if (v == "auto") {  // the default, as --print-config writes it
              c.concurrency = 0;
              return;
            }
            const auto list =
                parse_list<int64_t>("--concurrency", v, parse_int, "a positive integer");
            if (list.size() == 1 && list.front() == 0)  // 0 is not "auto" in disguise: say so
              throw std::invalid_argument(
                  "--concurrency: bad value 0 (expected a positive integer, or auto)");
            c.concurrency = clamp_int(list.front());
            if (list.size() > 1)
              for (const int64_t x : list) c.concurrency_sweep.push_back(clamp_int(x));
          },
          [](const LoadSettings& c) {
            if (c.concurrency_sweep.empty() && c.concurrency == 0) return std::string("auto");
            return list_text(c.concurrency_sweep, c.concurrency,
                             [](int x) { return std::to_string(x); });
          },
          [](JsonWriter& w, const LoadSettings& c) {
            w.field("concurrency", c.concurrency).key("concurrency_sweep").begin_array();
            for (const int x : c.concurrency_sweep) w.value(x);
            w.end_array();
          }};
}

// A load flag whose comma list is a sweep: its first value in `value`, the whole list in `list`
// when it has more than one (--num-prompts, --request-rate); config.json writes both keys.
template <class T, class Parse, class Text>
CustomField<LoadSettings> sweep_field(std::string_view flag, T LoadSettings::*value,
                                      std::vector<T> LoadSettings::*list, Parse parse,
                                      const char* expected, Text text) {
  const std::string key = flag_key(flag);
  return {[=](LoadSettings& c, const std::string& v) {
            auto values = parse_list<T>(flag, v, parse, expected);
            c.*value = values.front();
            c.*list = values.size() > 1 ? values : std::vector<T>{};
          },
          [=](const LoadSettings& c) { return list_text(c.*list, c.*value, text); },
          [=](JsonWriter& w, const LoadSettings& c) {
            w.key(key);
            write_one(w, c.*value);
            w.key(key + "_sweep").begin_array();
            for (const T& x : c.*list) write_one(w, x);
            w.end_array();
          }};
}

// --bursts ON_S:OFF_S: two durations, each a plain number of seconds; "" or "0:0" = none.
std::string bursts_text(const LoadSettings& c) {
  return c.burst_on_s == 0 && c.burst_off_s == 0
             ? std::string()
             : fmt::format("{}:{}", c.burst_on_s, c.burst_off_s);
}

CustomField<LoadSettings> bursts_field() {
  return {[](LoadSettings& c, const std::string& v) {
            const size_t colon = v.find(':');
            const std::optional<double> on = parse_number(v.substr(0, colon));
            const std::optional<double> off =
                colon == std::string::npos ? std::nullopt : parse_number(v.substr(colon + 1));
            if (!on || !off)
              throw std::invalid_argument(
                  fmt::format("--bursts: bad value '{}' (expected ON_S:OFF_S, e.g. 5:10 for 5 s of "
                              "arrivals, then 10 s of none)",
                              v));
            c.burst_on_s = *on;
            c.burst_off_s = *off;
          },
          bursts_text,
          // Written only when given: a series saved before the flag existed resumes as it was.
          [](JsonWriter& w, const LoadSettings& c) {
            if (const std::string text = bursts_text(c); !text.empty()) w.field("bursts", text);
          }};
}

// A text flag added after series were saved: written only when given, so a series saved before
// it resumes as it was (--resume compares the settings' keys one by one).
template <class Part>
CustomField<Part> text_when_given(std::string Part::*member, std::string key) {
  return {[member](Part& c, const std::string& v) { c.*member = v; },
          [member](const Part& c) { return c.*member; },
          [member, key](JsonWriter& w, const Part& c) {
            if (!(c.*member).empty()) w.field(key, c.*member);
          }};
}

CustomField<WorkloadSettings> dataset_field() {
  return {
      [](WorkloadSettings& c, const std::string& v) { c.dataset = core::parse_dataset_spec(v); },
      [](const WorkloadSettings& c) { return c.dataset.text(); },
      [](JsonWriter& w, const WorkloadSettings& c) { w.field("dataset", c.dataset.text()); }};
}

constexpr Range kNonNegative{.min = 0, .expected = "expected >= 0"};

}  // namespace

// Target: where requests go, as whom, and the server tokbench may start.
const std::vector<Field<TargetSettings>>& target_fields() {
  using T = TargetSettings;
  static const std::vector<Field<T>> fields{
      {"--url",
       &T::url,
       "full endpoint URL, e.g. http://127.0.0.1:8000/v1/chat/completions (default: start the "
       "built-in simulator)",
       false,
       {},
       Redact::Url},
      {"--host", &T::host, "server host (with --port and --endpoint) instead of --url"},
      {"--port", &T::port, "server port", true, {1, 65535, false, "expected 1..65535"}},
      {"--endpoint", &T::endpoint,
       fmt::format("the API: {} (default: what the --url path names, else chat)",
                   client::api_names_described())},
      {"--model", &T::model, "model name; empty = first id from GET /v1/models"},
      {"--skip-model-check", &T::skip_model_check,
       "send --model even when GET /v1/models does not list it (a gateway that aliases model "
       "names)"},
      {"--api-key",
       &T::api_key,
       "the API's credential (Bearer token; Anthropic: x-api-key); default $OPENAI_API_KEY",
       false,
       {},
       Redact::Secret},
      {"--header",
       &T::headers,
       "extra 'Key: Value' header (repeatable)",
       false,
       {},
       Redact::Header,
       "headers"},
      {"--request-id-header", &T::request_id_header,
       "header that carries each request's id, <run id>-<index> (in the details; vLLM and the "
       "simulator's --trace use it as the request id): a header name, or none",
       true},
      {"--trace-context,!--no-trace-context", &T::trace_context,
       "send each request a W3C traceparent (its own trace, a span per attempt; in the details) "
       "and a tracestate tokbench=<request id>; a server exporting spans (vLLM's "
       "--otlp-traces-endpoint) parents its own to them",
       true},
      {"--ca-bundle", &T::ca_bundle,
       "PEM file of CAs to trust for an https target (default: the system's)"},
      {"--cert",
       &T::tls_cert,
       "client certificate (PEM) for mutual TLS",
       false,
       {},
       Redact::None,
       "tls_cert"},
      {"--key", &T::tls_key, "client key (PEM) for --cert", false, {}, Redact::Secret, "tls_key"},
      {"--insecure", &T::insecure, "skip TLS certificate verification (the verdict says so)"},
      {"--transport", choice(&T::transport, core::kTransportChoices),
       "HTTP/1.1 on plain sockets (the least client CPU per event) or libcurl (TLS, proxies); "
       "auto: sockets for an http:// URL with no proxy set"},
      {"--engine", &T::engine,
       fmt::format("the serving engine behind the URL, whose /tokenize, /metrics and "
                   "prefix-cache reset are spoken: auto (learnt from its answers) or one of {} "
                   "(docs/COMPATIBILITY.md)",
                   core::engine_names()),
       true},
      {"--server-cmd",
       &T::server_cmd,
       "start the server with this shell command (output in logs/server.log), wait until it "
       "answers, stop it after; {port} is the target's port, {name} the grid point's name, {KEY} "
       "a --server-grid value",
       false,
       {},
       Redact::Command},
      {"--server-grid", &T::server_grid,
       "server configurations to start in turn, e.g. 'max_num_seqs=64,128;batched=2048,8192' "
       "(every combination): each is started from --server-cmd's {KEY} placeholders "
       "(--deploy-sh: as environment variables MAX_NUM_SEQS, ...), measured with the load sweep, "
       "--search or --repeats, and stopped; grid/ compares them and recommends one"},
      {"--server-devices",
       &T::server_devices,
       "--server-grid: accelerators one server uses (its output tokens/s per device)",
       true,
       {.min = 1, .expected = "expected the accelerators one server uses, >= 1"}},
      {"--deploy-sh", &T::deploy_sh,
       "AtomGit convention: run this deploy.sh with MODEL_PATH=--model-path; server on port "
       "8000, model name = the path"},
      {"--model-path", &T::model_path, "MODEL_PATH for --deploy-sh"},
      {"--server-ready-timeout-s",
       &T::server_ready_timeout_s,
       "how long the started server may take to answer",
       true,
       {.min = 0, .above = true, .expected = "expected > 0"}},
      {"--server-stop-grace-s", &T::server_stop_grace_s, "after SIGTERM, seconds before SIGKILL",
       true, kNonNegative},
  };
  return fields;
}

// Request: what each request's body says, and the limits on its answer.
const std::vector<Field<RequestSettings>>& request_fields() {
  using R = RequestSettings;
  static const std::vector<Field<R>> fields{
      {"--stream,!--no-stream", &R::stream, "stream with SSE (default) or not", true},
      {"--max-tokens",
       &R::max_tokens,
       "output cap of each request; 0 = not sent",
       true,
       {.min = 0, .expected = "expected >= 0; 0 = not sent"}},
      {"--ignore-eos", &R::ignore_eos, "send ignore_eos: true (always produce max_tokens)"},
      {"--min-tokens", &R::min_tokens, "send min_tokens (only when given)", false, kNonNegative},
      {"--temperature", &R::temperature,
       "send temperature (only when given; else the server default)"},
      {"--extra-body", &R::extra_body, "JSON object merged into every body at the top level"},
      {"--tools", text_when_given(&R::tools, "tools"),
       "FILE: a JSON array of tool definitions offered by every request (a dataset line's own "
       "\"tools\" win); each call is assembled, timed and checked against its tool's schema"},
      {"--json-schema", text_when_given(&R::json_schema, "json_schema"),
       "FILE: a JSON Schema every answer is asked to follow (response_format json_schema); the "
       "share of answers valid against it is measured"},
      {"--tool-choice", text_when_given(&R::tool_choice, "tool_choice"),
       "send tool_choice: auto, required, none or a tool's name (only when given)"},
      {"--continuous-usage", &R::continuous_usage,
       "ask for stream_options.continuous_usage_stats (exact per-token ITL with multi-token "
       "chunks)"},
      {"--compat", choice(&R::compat, metrics::kDefinitionChoices),
       "that tool's metric definitions AND request body"},
      {"--timeout-s", &R::timeout_s, "per-request timeout; 0 = none", true},
      {"--retries", &R::retries, "retries after a connection error", true, kNonNegative},
      {"--max-event-bytes",
       &R::max_event_bytes,
       "largest SSE line or event; a larger one fails its request as too_large",
       true,
       {.min = 1024, .expected = "expected >= 1024"}},
      {"--max-body-bytes",
       &R::max_body_bytes,
       "largest non-streaming body, /metrics or /v1/models response; a larger one is refused",
       true,
       {.min = 1024, .expected = "expected >= 1024"}},
  };
  return fields;
}

// Load: how many requests, how fast, in what shape.
const std::vector<Field<LoadSettings>>& load_fields() {
  using L = LoadSettings;
  static const std::vector<Field<L>> fields{
      {"--concurrency", concurrency_field(),
       "max requests in flight; a list such as 1,4,16 is a sweep; auto: 1 for a closed loop, no "
       "cap for --request-rate or a trace (vLLM's default; a safety ceiling of 1024)",
       true},
      {"--num-prompts",
       sweep_field("--num-prompts", &L::num_prompts, &L::num_prompts_sweep, parse_int,
                   "an integer >= 0", [](int64_t x) { return std::to_string(x); }),
       "requests to send; 0 = one pass over the dataset; a list pairs with a "
       "--concurrency/--request-rate list",
       true},
      {"--request-rate",
       sweep_field("--request-rate", &L::request_rate, &L::request_rate_sweep, parse_rate,
                   "a rate in req/s, or inf", rate_text),
       "open-loop arrivals, req/s (inf = all at once); 0 = as fast as concurrency allows; a list "
       "is a sweep",
       true},
      {"--arrivals", choice(&L::arrivals, core::kArrivalKinds), "the open loop's arrival process"},
      {"--burstiness",
       &L::burstiness,
       "gamma arrivals' shape (vLLM's): 1 = Poisson, < 1 burstier, > 1 steadier",
       true,
       {.min = 0,
        .above = true,
        .expected = "expected > 0: 1 = Poisson, < 1 burstier, > 1 steadier"}},
      {"--duration-s",
       &L::duration_s,
       "run this many seconds instead of a count (the dataset cycles); requests still in flight "
       "get --grace-s, then are cut (recorded as cut_at_end, not counted)",
       true,
       {.min = 0, .expected = "expected seconds > 0; 0 = run by count"}},
      {"--grace-s", &L::grace_s,
       "--duration-s: seconds requests in flight at the end may still finish", true, kNonNegative},
      {"--ramp-up-s", &L::ramp_up_s,
       "ramp the load over S seconds: concurrency 1..C (closed loop) or the rate (open loop); "
       "excluded from the statistics unless --ramp-up-measured",
       true, kNonNegative},
      {"--ramp-up-strategy", choice(&L::ramp_up_strategy, kRampCurves), "how a rate ramp rises"},
      {"--ramp-up-start-rps", &L::ramp_up_start_rps,
       "rate ramps: the starting rate (exponential: default 1)", true, kNonNegative},
      {"--ramp-up-measured", &L::ramp_up_measured, "count the ramp's requests in the statistics"},
      {"--bursts", bursts_field(),
       "ON_S:OFF_S: an open loop in on/off bursts, --request-rate for ON seconds, then nothing "
       "for OFF seconds, in turn (the mean rate is R·ON/(ON+OFF)); how a server drains a burst "
       "and recovers"},
      {"--pressure", &L::pressure,
       "AISBench's pressure mode: --concurrency clients, added at --request-rate per second "
       "(default: all at once), each sending back to back for --duration-s"},
      {"--warmup", &L::warmup, "warm-up requests, excluded from statistics", true, kNonNegative},
      {"--warm-connections", choice(&L::warm_connections, kToggles),
       "open one kept-alive connection per slot before the measured phase (auto: on for a plain "
       "closed loop), so set-up is not in the first requests' TTFT"},
      {"--seed", &L::seed, "seed of the arrival schedule", true},
      {"--workers",
       &L::workers,
       "client threads; 0 = automatic (one per 256 streams, at most the CPUs this process may "
       "use)",
       true,
       {.min = 0, .expected = "expected >= 0; 0 = automatic"}},
      {"--drain-s", &L::drain_s, "after Ctrl-C, seconds in-flight requests may finish", true,
       kNonNegative},
      {"--cancel-rate",
       &L::cancel_rate,
       "cancel this share of the measured requests (drawn by --seed) by closing their connection "
       "--cancel-after into the answer, as a client that gives up; counted apart, neither "
       "successes nor failures",
       true,
       {.min = 0, .max = 1, .expected = "expected a share from 0 to 1 (0.2 = 20%)"}},
      {"--cancel-after", &L::cancel_after,
       "when a cancelled request is let go: a time after it was sent (500ms, 2s), a count of "
       "answer tokens received (16tok), or a range drawn uniformly (200ms..2s, 8tok..64tok)",
       true},
      {"--class,--classes",
       &L::classes,
       fmt::format("a traffic class of the run (repeatable): 'name=chat,concurrency=8,priority=0,"
                   "slo=ttft.p99<=300ms'; each class sends its own load beside the others, with "
                   "its body overrides, headers and SLOs; results per class and overall, with "
                   "their fairness; a list in one class's load (concurrency=1,2,4) sweeps it. "
                   "Keys: {}",
                   fmt::join(traffic_class_keys(), ", ")),
       false,
       {},
       Redact::None,
       "classes"},
  };
  return fields;
}

// Workload: what the requests ask (prompts, lengths, conversations, images, traces, adapters).
const std::vector<Field<WorkloadSettings>>& workload_fields() {
  using W = WorkloadSettings;
  static const std::vector<Field<W>> fields{
      {"--dataset", dataset_field(), core::dataset_forms(), true},
      {"--tokenizer", &W::tokenizer,
       "model folder or tokenizer.json: count tokens locally when the server sends no usage, "
       "build synthetic prompts"},
      {"--input-len", &W::input_len, "synthetic: prompt tokens N (as the server counts them)"},
      {"--output-len", &W::output_len, "synthetic: output tokens M (max_tokens with ignore_eos)"},
      {"--input-len-range", &W::input_len_range,
       "synthetic: spread ratio R, N_i uniform in [N(1-R), N(1+R)]"},
      {"--prefix-len", &W::prefix_len,
       "synthetic: shared random prefix of P tokens (prefix-cache tests)"},
      {"--output-len-range", &W::output_len_range,
       "synthetic: spread ratio R, M_i uniform in [M(1-R), M(1+R)]"},
      {"--sharegpt-output-len", &W::sharegpt_output_len,
       "sharegpt: every request's max_tokens instead of the reference answer's length (vLLM's "
       "flag)"},
      {"--turns",
       &W::turns,
       "multi-turn sessions of N turns (conversation APIs): each turn carries the real previous "
       "answers; --concurrency sessions at once, --num-prompts sessions in all",
       false,
       {0, 10'000, false, "expected 0 to 10000; 0 = single requests"}},
      {"--multi-turn", &W::multi_turn,
       "sharegpt: whole conversations as sessions, each exchange a turn (--turns N caps their "
       "turns)"},
      {"--think-time-ms", &W::think_time_ms, "sessions: pause after an answer before the next turn",
       false, kNonNegative},
      {"--image", &W::image,
       "WIDTHxHEIGHT: synthetic PNG images (seeded) with each request of a conversation API, as "
       "base64 data URLs; their tokens come from usage"},
      {"--images-per-request",
       &W::images_per_request,
       "--image: images per request",
       true,
       {1, 16, false, "expected 1 to 16"}},
      {"--documents",
       &W::documents,
       "rerank: documents per query when the dataset's lines carry none (each prompt ranks the "
       "prompts after it)",
       true,
       {1, 1000, false, "expected 1 to 1000"}},
      {"--trace-block-size", &W::trace_block_size,
       "trace: prompt tokens per hash id (Mooncake: 512)", true},
      {"--trace-speed", &W::trace_speed,
       "trace, agent-trace: replay speed; 2 sends at half the timestamps (and pauses)", true},
      {"--lora",
       &W::lora,
       "model names (LoRA adapters), one drawn per request by --seed: NAME[,NAME...]",
       false,
       {},
       Redact::None,
       {},
       ','},
  };
  return fields;
}

// Experiment: series of load points (searches, repeats), the in-run controller, goodput's SLOs.
const std::vector<Field<ExperimentSettings>>& experiment_fields() {
  using X = ExperimentSettings;
  static const std::vector<Field<X>> fields{
      {"--search", choice(&X::search, kSearchAxes),
       "the highest load meeting every --slo (bracket, then bisect; a probe per run folder)"},
      {"--slo", &X::slo,
       "what a --search or --adaptive-window-s must meet, e.g. "
       "'ttft.p99<=500ms,tpot.p90<=50ms'"},
      {"--search-min", &X::search_min, "the first probe (default 1)"},
      {"--search-max", &X::search_max, "the highest load probed (default 1024)"},
      {"--search-resolution", &X::search_resolution,
       "stop when high - low <= this (default 1 for concurrency, 5% of the answer for rate)"},
      {"--search-margin", &X::search_margin,
       "a probe this close to an SLO bound (share) is run twice", true},
      {"--repeats",
       &X::repeats,
       "run the same point N times: every metric as mean ± a confidence interval",
       true,
       {.min = 1, .expected = "expected >= 1"}},
      {"--confidence", &X::confidence,
       "--repeats, --schema-paired: the confidence level (Student's t)", true},
      {"--adaptive-window-s",
       &X::adaptive_window_s,
       "in-run controller: every S seconds judge --slo and raise concurrency while it holds, "
       "bisect after the first break, then hold (needs --duration-s; starts at --concurrency)",
       true,
       {.min = 0, .expected = "expected seconds > 0"}},
      {"--adaptive-max", &X::adaptive_max, "the controller's highest concurrency", true},
      {"--resume", &X::resume,
       "finish the interrupted sweep, search, repeats, --interference or --server-grid in this "
       "root "
       "folder, with "
       "the same flags: points that completed VALID are read back, the others run again (an "
       "unfinished folder is kept as NAME.interrupted)"},
      {"--reset-prefix-cache", &X::reset_prefix_cache,
       "before each load point, empty the server's prefix cache (vLLM /reset_prefix_cache, "
       "which needs VLLM_SERVER_DEV_MODE=1; SGLang /flush_cache; llama.cpp: erase every slot of "
       "/slots); says so when the server has none"},
      {"--schema-paired", &X::schema_paired,
       "with --json-schema: send the same prompts twice, unconstrained and then held to the "
       "schema (folders unconstrained/ and constrained/), and report what the schema costs per "
       "request: TTFT, TPOT and E2EL paired prompt by prompt, with intervals"},
      {"--interference", &X::interference,
       "with two --class or more: run each class alone, then all together (folders "
       "alone-<class>-run-K, together-run-K; --repeats rounds), and report each class's slowdown "
       "beside the others (TTFT P99, TPOT and E2EL means, its output tokens/s) with intervals"},
      {"--stop-on-saturation", &X::stop_on_saturation,
       fmt::format("stop a point early once the server is past saturation, marked SATURATED "
                   "rather than INVALID (a sweep or search goes on): {}",
                   metrics::kSaturationRule)},
      {"--saturation-window-s",
       &X::saturation_window_s,
       "--stop-on-saturation: the window its rule reads",
       true,
       {0.1, 600, false, "expected 0.1 to 600 seconds"}},
      {"--goodput", &X::goodput,
       "per-request SLOs in ms, e.g. 'ttft:500 tpot:50 e2el:20000': goodput = requests meeting "
       "all, per second"},
  };
  return fields;
}

// Observe: what tokbench watches beside its own records.
const std::vector<Field<ObserveSettings>>& observe_fields() {
  using O = ObserveSettings;
  static const std::vector<Field<O>> fields{
      {"--server-metrics",
       &O::server_metrics,
       "Prometheus URL to scrape before, during and after the run; default: the target's "
       "/metrics when it answers; off = never",
       false,
       {},
       Redact::Url},
      {"--scrape-interval-ms",
       &O::scrape_interval_ms,
       "scrape period",
       true,
       {.min = 50, .expected = "expected >= 50"}},
      {"--server-metrics-auth", &O::server_metrics_auth,
       "send --api-key and credential headers to a --server-metrics URL on another host (not "
       "sent unless asked)"},
      {"--profile-window", &O::profile_window,
       "START_S:DURATION_S: POST /start_profile START_S into the measured phase, /stop_profile "
       "DURATION_S later"},
      {"--slice-s", &O::slice_s,
       "also report the metrics per time slice of S seconds (result.json, CSV, HTML)", true},
      {"--telemetry",
       &O::telemetry,
       "accelerator and host exporters to scrape beside the run (repeatable, or "
       "comma-separated): Prometheus URLs of dcgm-exporter, npu-exporter, AMD's "
       "device-metrics-exporter, node-exporter; or nvml (this host's NVIDIA GPUs): power, "
       "energy, utilisation, memory per device",
       false,
       {},
       Redact::Url,
       {},
       ','},
      {"--telemetry-interval-ms",
       &O::telemetry_interval_ms,
       "--telemetry's scrape period, on the run's clock",
       true,
       {100, 60000, false, "expected 100 to 60000"}},
      {"--telemetry-idle-s",
       &O::telemetry_idle_s,
       "watch the devices this long before any request: their idle power, and the energy above "
       "it",
       true,
       {0, 600, false, "expected 0 to 600"}},
      {"--price-per-device-hour", &O::price_per_device_hour,
       "$ per accelerator-hour: the cost per million tokens at the measured load (the devices "
       "--telemetry read, else --server-devices)"},
      {"--price-per-kwh", &O::price_per_kwh, "$ per kWh of the measured energy (with --telemetry)"},
      {"--otlp-receive", &O::otlp_receive,
       "PORT or HOST:PORT (a bare port listens on every address): receive the server's OTLP "
       "spans (http/protobuf POST /v1/traces; vLLM: --otlp-traces-endpoint) and join them to "
       "the requests by their traceparent: each request's waterfall (schedule lag, to the "
       "server, queue, prefill, decode, delivery) and where the time goes per E2EL bucket"},
      {"--otlp-wait-s",
       &O::otlp_wait_s,
       "after the measured phase, wait at most this long for the spans still due (an SDK "
       "exports every 5 s)",
       true,
       {0, 600, false, "expected 0 to 600"}},
      {"--client-share-budget",
       &O::client_share_budget,
       "% of a request's time spent outside the server (schedule lag, network, delivery) past "
       "which the waterfall names it",
       true,
       {0, 100, false, "expected 0 to 100"}},
      {"--otlp-endpoint", &O::otlp_endpoint,
       "an OpenTelemetry collector's OTLP/HTTP address (http://host:4318; http/protobuf): a "
       "CLIENT span per measured request (GenAI names, its traceparent's ids, its phases as "
       "events) to /v1/traces, and the run's metrics (requests by outcome, in flight, latency "
       "and token histograms) to /v1/metrics every OTEL_METRIC_EXPORT_INTERVAL ms (10000) and "
       "at each point's end"},
      {"--live", &O::live,
       "PORT or HOST:PORT (a bare port listens on every address): serve the load point as it "
       "runs — a page redrawn every second (requests, in flight, tokens/s, TTFT and E2EL "
       "histograms) and /metrics in Prometheus' format (sent, finished by outcome, in flight, "
       "TTFT, TPOT and E2EL histograms)"},
      {"--check-answers", &O::check_answers,
       "score each output against its dataset line's reference (gsm8k: the final number; qa: "
       "\"choices\" and a letter, \"answer\", or \"answer_regex\"): accuracy with its 95% Wilson "
       "interval, and every output checked for runaway repetition and invalid UTF-8 "
       "(docs/METRICS.md, \"Answer checking\")"},
      {"--keep-outputs",
       &O::keep_outputs,
       "write the first N measured requests' prompt, output and answer to "
       "<dataset>_outputs.jsonl, to read",
       true,
       {.min = 0, .expected = "expected >= 0 requests"}},
      {"--determinism-probe", &O::determinism_probe,
       "send K identical requests (the dataset's first prompt) spread over the run and count how "
       "many different outputs come back (needs --temperature 0)",
       true},
  };
  return fields;
}

// Output: where the run folder goes and what the console shows.
const std::vector<Field<OutputSettings>>& output_fields() {
  using P = OutputSettings;
  static const std::vector<Field<P>> fields{
      {"--output-dir", &P::output_dir, "where run folders go", true},
      {"--model-abbr", &P::model_abbr, "folder name under performances/; default: the model name"},
      {"--verbose", &P::verbose,
       "print every table (AISBench's, the stable stage's, the definitions side by side, the "
       "server's), not the one-screen summary; the files hold them either way"},
      {"--quiet", &P::quiet,
       "no progress line; in a sweep, search or repeats, one line a point instead of its tables "
       "(the summary stays)"},
      {"--progress-interval-s", &P::progress_interval_s,
       "progress every S seconds; 0 = every second on a terminal, every 10 s otherwise", true},
      {"--history", &P::history,
       "record the run (each point of a sweep, search or series) in this results store, an "
       "SQLite file made on first use; default: $TOKBENCH_HISTORY (tokbench history)"},
      {"--label",
       &P::labels,
       "key=value to tag the run with in result.json and the results store, e.g. "
       "hardware=h200 (repeatable)",
       false,
       {},
       Redact::None,
       "labels"},
  };
  return fields;
}

}  // namespace tokbench::runner
