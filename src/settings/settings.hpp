#pragma once
// settings/settings: the settings of `tokbench run` in the seven parts a reader holds one at a
// time, the same sections as `run --help` and docs/CLI.md: where requests go, what they say, the
// load, the workload, the experiment, what is watched, where results go. RunConfig
// (settings/run_config) has all seven as members; a CLI section binds exactly its part
// (cli/run_command), and a stage takes the parts it reads (workload/ its own, the load's count).
// A flag with a fixed set of words is an enum with one table of spellings (common/choice).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/choice.hpp"
#include "core/dataset_spec.hpp"
#include "core/run_control.hpp"
#include "metrics/metrics.hpp"

namespace tokbench::runner {

/// A setting that is on, off, or decided by the run (--warm-connections).
enum class Toggle { Auto, On, Off };
inline constexpr Choices<Toggle, 3> kToggles{
    {{{Toggle::Auto, "auto"}, {Toggle::On, "on"}, {Toggle::Off, "off"}}}};

/// How a ramped rate rises (--ramp-up-strategy).
enum class RampCurve { Linear, Exponential };
inline constexpr Choices<RampCurve, 2> kRampCurves{
    {{{RampCurve::Linear, "linear"}, {RampCurve::Exponential, "exponential"}}}};

/// What an SLO search moves (--search); None: no search.
enum class SearchAxis { None, MaxConcurrency, MaxRate };
inline constexpr Choices<SearchAxis, 2> kSearchAxes{
    {{{SearchAxis::MaxConcurrency, "max-concurrency"}, {SearchAxis::MaxRate, "max-rate"}}}};

/// Target. No --url and no --host: start the built-in simulator on a free loopback port.
struct TargetSettings {
  std::string url;   ///< full endpoint URL; wins over host/port/endpoint
  std::string host;  ///< with port: http://host:port/v1/<endpoint>
  int port = 8000;
  std::string endpoint;  ///< an API's name (client/api/registry.cpp: chat, completions, ...); "" =
                         ///< the --url path's, else chat
  std::string model;     ///< "" = first id from GET /v1/models
  bool skip_model_check =
      false;  ///< send --model even when /v1/models does not list it (gateways that alias names)
  std::string api_key;               ///< "" = $OPENAI_API_KEY if set
  std::vector<std::string> headers;  ///< extra "Key: Value" headers
  /// The header carrying each request's id, "<run id>-<index>" (details: client_request_id; the
  /// simulator's --trace and vLLM take it as the request's id); "none" = not sent. A --header of
  /// the same name wins.
  std::string request_id_header = "X-Request-Id";
  /// Each request carries a W3C `traceparent` (details: traceparent); a --header traceparent
  /// wins (the user's own trace, sent as given).
  bool trace_context = true;
  std::string ca_bundle;          ///< PEM CAs to trust for https ("" = the system's)
  std::string tls_cert, tls_key;  ///< client certificate and key for mutual TLS
  bool insecure = false;          ///< skip TLS verification (named in the verdict)
  /// How requests reach the server: auto (plain sockets for an http:// URL without a proxy,
  /// else libcurl) | sockets | libcurl.
  core::TransportKind transport = core::TransportKind::Auto;
  /// The serving engine behind the URL (core/engines: vllm, llamacpp, ...), whose dialect the
  /// side channels speak (/tokenize, /metrics, the prefix-cache reset); "auto" = learnt from its
  /// answers.
  std::string engine = "auto";

  // Server lifecycle (optional): tokbench starts the server, waits for it, and stops it.
  std::string server_cmd;  ///< shell command that starts the server (needs --url or --host)
  std::string deploy_sh;   ///< AtomGit convention: bash DEPLOY_SH with MODEL_PATH, port 8000
  std::string model_path;  ///< MODEL_PATH for --deploy-sh; also the served model name
  double server_ready_timeout_s = 600;
  double server_stop_grace_s = 10;
  /// The server configurations started in turn, 'KEY=V1,V2;KEY2=V3' (series/grid): each fills
  /// --server-cmd's {KEY} placeholders and --deploy-sh's environment; "" = one server as given.
  std::string server_grid;
  int server_devices = 1;  ///< accelerators one server uses: a grid's output tokens/s per device
};

/// Request: what each body says (optional fields are sent only when given) and the limits on
/// its answer.
struct RequestSettings {
  bool stream = true;
  int64_t max_tokens = 256;  ///< 0 = not sent
  bool ignore_eos = false;
  std::optional<int64_t> min_tokens;
  std::optional<double> temperature;
  std::string extra_body;  ///< JSON object merged at the top level
  std::string tools;  ///< --tools FILE: a JSON array of tool definitions offered by every request
  std::string tool_choice;        ///< "" (not sent), auto, required, none, or a tool's name
  std::string json_schema;        ///< --json-schema FILE: the answer's response format
  bool continuous_usage = false;  ///< ask for per-chunk cumulative usage (exact per-token ITL)
  metrics::Definitions compat =
      metrics::Definitions::Tokbench;  ///< definitions + request body (--compat)
  double timeout_s = 600;              ///< per request; 0 = none
  int retries = 0;                     ///< extra attempts after a connect_error
  int64_t max_event_bytes =
      1 << 20;  ///< one SSE line or event above this fails its request (too_large)
  int64_t max_body_bytes =
      64 << 20;  ///< a non-streaming body, /metrics or /v1/models above this is refused
};

/// Load (docs/METRICS.md, "Load shapes"). A list in --concurrency, --request-rate or
/// --num-prompts is a sweep: one run folder per point (the lists below; the scalars hold the
/// first point, and each point's own values when a sweep runs it). settings/load_shape turns
/// these into one LoadShape.
struct LoadSettings {
  /// Max requests in flight (also caps an open loop, like vLLM's --max-concurrency). 0: not given —
  /// 1 where the client sets the pace, no cap but kOpenLoopCeiling where a schedule does
  /// (settings/load_shape decides).
  int concurrency = 0;
  int64_t num_prompts = 0;  ///< 0 = one pass over the dataset (with --duration-s: no count bound)
  double request_rate = 0;  ///< req/s; 0 = as fast as concurrency allows; +inf = all due at once
  std::vector<int> concurrency_sweep;      ///< --concurrency 1,4,16: one point each
  std::vector<double> request_rate_sweep;  ///< --request-rate 1,2,4
  std::vector<int64_t>
      num_prompts_sweep;  ///< zipped with the other list (EvalScope's --parallel/--number)
  core::ArrivalKind arrivals = core::ArrivalKind::Poisson;  ///< open loop's process
  double burstiness =
      1;  ///< gamma shape (vLLM's --burstiness): 1 = Poisson, < 1 burstier, > 1 steadier
  double duration_s = 0;  ///< run this long instead of a count (the dataset cycles); 0 = by count
  double grace_s =
      30;  ///< --duration-s: how long requests in flight at the end may finish before they are cut
  double ramp_up_s =
      0;  ///< concurrency rises linearly (closed loop) or the rate rises (open loop) over this long
  RampCurve ramp_up_strategy = RampCurve::Linear;  ///< rate ramps only
  double ramp_up_start_rps =
      0;  ///< rate ramps: the starting rate (exponential needs > 0; default 1 req/s there)
  bool ramp_up_measured =
      false;  ///< count the ramp's requests in the statistics (default: excluded, like warm-up)
  /// On/off bursts of an open loop (--bursts ON_S:OFF_S): requests arrive at --request-rate for
  /// ON seconds, then none for OFF seconds, in turn (0 = no bursts; load/source's Bursts).
  double burst_on_s = 0, burst_off_s = 0;
  bool pressure = false;  ///< AISBench's pressure mode: --request-rate clients/s added up to
                          ///< --concurrency, each looping for --duration-s
  int64_t warmup = 0;     ///< requests sent first and excluded from statistics
  /// Open one kept-alive connection per slot before the measured phase (GET /v1/models, all at
  /// once), so connection set-up is not in the first requests' TTFT: auto = on for a plain closed
  /// loop.
  Toggle warm_connections = Toggle::Auto;
  uint64_t seed = 0;   ///< arrival-time seed
  int workers = 0;     ///< client threads; 0 = one per 256 of concurrency, at most the CPUs
  double drain_s = 5;  ///< after Ctrl-C, how long in-flight requests may finish
  /// A client that gives up (core/cancel): this share of the measured requests, drawn by the
  /// seed, is cancelled --cancel-after into its answer (the connection is closed, as a browser's
  /// stop button does); counted apart, neither successes nor failures.
  double cancel_rate = 0;
  std::string cancel_after = "16tok";  ///< "500ms", "2s", "16tok", or a range "200ms..2s"
  /// --class: the run's traffic classes, each with its own load, body and SLOs, sharing the
  /// target and the clock (settings/traffic_class spells one; plan parses them once).
  std::vector<std::string> classes;
};

/// Workload: what the requests ask — prompts, lengths, conversations, images, traces, adapters.
struct WorkloadSettings {
  core::DatasetSpec dataset;  ///< builtin | synthetic | qa:PATH | gsm8k:PATH | lines:PATH |
                              ///< sharegpt:PATH | trace:PATH
  std::string tokenizer;  ///< model folder or tokenizer.json: local token counts, synthetic prompts
  int64_t input_len = 0;  ///< synthetic: N tokens per prompt, as the server counts them
  int64_t output_len = 0;       ///< synthetic: max_tokens M (sent with ignore_eos)
  double input_len_range = 0;   ///< synthetic: N_i uniform in [N(1-R), N(1+R)] (vLLM's range ratio)
  int64_t prefix_len = 0;       ///< synthetic: one shared random prefix of P tokens
  double output_len_range = 0;  ///< synthetic: M_i uniform in [M(1-R), M(1+R)]
  int64_t sharegpt_output_len =
      0;  ///< sharegpt: every request's max_tokens (vLLM's --sharegpt-output-len); 0 = the answer's
  std::vector<std::string>
      lora;  ///< model names (LoRA adapters) drawn per request by the seed; empty = --model only
  int64_t turns = 0;  ///< multi-turn sessions of this many turns (--num-prompts counts sessions); 0
                      ///< = single requests
  double think_time_ms = 0;  ///< sessions: pause after an answer before the next turn
  bool multi_turn =
      false;  ///< sharegpt: whole conversations as sessions (--turns caps their turns)
  /// A multi-turn run: --turns, --multi-turn, agent tasks (each a session whose turns the
  /// model's tool calls decide) or recorded agent sessions.
  bool sessions() const {
    return turns > 0 || multi_turn || dataset.is(core::DatasetSource::Agent) ||
           dataset.is(core::DatasetSource::AgentTrace);
  }
  std::string image;           ///< "WxH": synthetic PNG images with each chat request ("" = none)
  int images_per_request = 1;  ///< --image: how many per request
  int64_t documents = 4;  ///< rerank: each query's documents when the dataset's lines carry none
  int64_t trace_block_size = 512;  ///< trace: prompt tokens per hash id (Mooncake's block)
  double trace_speed = 1;          ///< trace: replay speed (2 = timestamps halved)
};

/// Experiment: series of load points (search, repeats), the in-run controller, goodput's SLOs.
struct ExperimentSettings {
  SearchAxis search =
      SearchAxis::None;   ///< the highest load meeting every --slo, probe by probe (series/search)
  std::string slo;        ///< run-level SLOs, e.g. "ttft.p99<=500ms,tpot.p90<=50ms"
  double search_min = 0;  ///< the first probe (0 = 1 for concurrency, 1 req/s for rate)
  double search_max =
      0;  ///< the highest load probed (0 = 1024 for concurrency, 1024 req/s for rate)
  double search_resolution =
      0;  ///< stop bisecting when high - low <= this (0 = 1 for concurrency, 5% of low for rate)
  double search_margin =
      0.05;         ///< a probe whose SLO value is within this share of its bound is repeated once
  int repeats = 1;  ///< run the point this many times: each metric as mean ± a confidence interval
  double confidence = 0.95;  ///< the interval's level
  double adaptive_window_s =
      0;  ///< in-run controller (load/adaptive): judge --slo every this many seconds (0 = off)
  int adaptive_max = 1024;  ///< the controller's ceiling (it starts at --concurrency)
  std::string
      goodput;  ///< per-request SLOs in ms, e.g. "ttft:500 tpot:50 e2el:20000" (vLLM's --goodput)
  std::string resume;  ///< finish this interrupted sweep, search, repeats, interference or grid
                       ///< folder (its VALID points kept)
  bool reset_prefix_cache = false;  ///< POST the server's prefix-cache reset before each point
  /// --schema-paired: the same prompts unconstrained, then held to --json-schema
  /// (series/schema_pair)
  bool schema_paired = false;
  /// --interference: each --class alone, then all together, round by round (--repeats rounds):
  /// each class's slowdown beside the others (series/interference)
  bool interference = false;
  bool stop_on_saturation =
      false;  ///< stop a point past saturation early, marked SATURATED (metrics/saturation)
  double saturation_window_s = 5;  ///< --stop-on-saturation: the window its rule reads
  bool searching() const { return search != SearchAxis::None; }
};

/// Observe: what is watched beside the client's records.
struct ObserveSettings {
  std::string
      server_metrics;  ///< Prometheus URL; "" = the target's /metrics when it answers; "off"
  int64_t scrape_interval_ms = 1000;
  bool server_metrics_auth =
      false;  ///< send --api-key and credential headers to a --server-metrics URL on another host
  std::string profile_window;  ///< "START_S:DURATION_S": POST /start_profile and /stop_profile then
  double slice_s = 0;          ///< metrics per time slice of this many seconds (0 = none)
  std::vector<std::string>
      telemetry;  ///< --telemetry: accelerator and host exporters' URLs, or "nvml"
  int64_t telemetry_interval_ms = 1000;
  double telemetry_idle_s =
      0;  ///< watch the devices this long with no load first: their idle power
  double price_per_device_hour = 0;  ///< $ per accelerator-hour: cost per million tokens (0 = none)
  double price_per_kwh = 0;          ///< $ per kWh of the measured energy (0 = none)
  /// --otlp-receive: "PORT" or "HOST:PORT" of an OTLP/HTTP receiver for the server's spans,
  /// joined to the requests by trace id (the waterfall); "" = none
  std::string otlp_receive;
  double otlp_wait_s = 6;  ///< after the phase, wait this long at most for the spans still due
  double client_share_budget =
      10;  ///< % of a request's time outside the server past which the waterfall names it
  /// --otlp-endpoint: an OpenTelemetry collector's OTLP/HTTP address (http://host:4318) that gets
  /// a span per measured request and the run's metrics (probe/otlp_export); "" = none
  std::string otlp_endpoint;
  /// --live: "PORT" or "HOST:PORT" where a page of the point as it runs and its /metrics (for
  /// Prometheus) are served during the run (probe/live_server); "" = none
  std::string live;
  // What came back (metrics/quality): read on the recorder's thread, each output then let go.
  bool check_answers =
      false;  ///< score outputs against the dataset's references; repetition and UTF-8 checks
  int64_t keep_outputs =
      0;  ///< write measured requests 0..N-1 (prompt, output, answer) to <ds>_outputs.jsonl
  int64_t determinism_probe =
      0;  ///< K identical greedy requests spread over the run; their outputs compared (0 = none)
  bool reads_outputs() const { return check_answers || keep_outputs > 0 || determinism_probe > 0; }
  bool scrapes() const { return server_metrics != "off"; }
};

/// Output: where the run folder goes and what the console shows.
struct OutputSettings {
  std::string output_dir = "outputs";
  std::string model_abbr;          ///< "" = the model name, made file-safe
  bool quiet = false;              ///< no progress line
  bool verbose = false;            ///< every full table on the console, not the one-screen summary
  double progress_interval_s = 0;  ///< 0 = every second on a terminal, every 10 s otherwise
  std::string history;             ///< record each finished run folder in this results store ("" =
                                   ///< $TOKBENCH_HISTORY, or none)
  std::vector<std::string>
      labels;  ///< --label key=value: result.json's config.labels, the store's labels
};

}  // namespace tokbench::runner
