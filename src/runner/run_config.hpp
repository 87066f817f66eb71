#pragma once
// runner/run_config: every setting of `tokbench run` in one struct — the single truth that the
// CLI binds flags to, that validate() checks, and that is saved (API key redacted) in configs/.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/request_body.hpp"
#include "metrics/slo.hpp"
#include "probe/profile_window.hpp"

namespace tokbench::runner {

/// The API adapter of an endpoint name (a validated one; an unknown name is chat's).
const client::ApiAdapter& api_of(const std::string& endpoint);
/// The URL path of an endpoint name: "/v1/chat/completions", ..., "/v1/messages", "/generate".
std::string endpoint_path(const std::string& endpoint);

/// The settings that are small languages, each parsed once (by RunConfig::validate) into its
/// typed value; what runs reads these, never the text.
struct ParsedFlags {
  std::vector<metrics::RunSlo> slos;                ///< --slo
  metrics::GoodputSpec goodput;                     ///< --goodput (empty: none)
  std::optional<probe::WindowSpec> profile_window;  ///< --profile-window
  std::optional<std::pair<int, int>> image;         ///< --image WxH
};

struct RunConfig {
  // Target. No --url and no --host: start the built-in simulator on a free loopback port.
  std::string url;                ///< full endpoint URL; wins over host/port/endpoint
  std::string host;               ///< with port: http://host:port/v1/<endpoint>
  int port = 8000;
  std::string endpoint;           ///< an API's name (client/api/registry.cpp: chat, completions, ...); "" = the --url path's, else chat
  std::string model;              ///< "" = first id from GET /v1/models
  bool skip_model_check = false;  ///< send --model even when /v1/models does not list it (gateways that alias names)
  std::string api_key;            ///< "" = $OPENAI_API_KEY if set
  std::vector<std::string> headers;  ///< extra "Key: Value" headers
  std::string ca_bundle;             ///< PEM CAs to trust for https ("" = the system's)
  std::string tls_cert, tls_key;     ///< client certificate and key for mutual TLS
  bool insecure = false;             ///< skip TLS verification (named in the verdict)

  // Server lifecycle (optional): tokbench starts the server, waits for it, and stops it.
  std::string server_cmd;            ///< shell command that starts the server (needs --url or --host)
  std::string deploy_sh;             ///< AtomGit convention: bash DEPLOY_SH with MODEL_PATH, port 8000
  std::string model_path;            ///< MODEL_PATH for --deploy-sh; also the served model name
  double server_ready_timeout_s = 600;
  double server_stop_grace_s = 10;

  // Request body. Optional fields are sent only when given.
  bool stream = true;
  int64_t max_tokens = 256;  ///< 0 = not sent
  bool ignore_eos = false;
  std::optional<int64_t> min_tokens;
  std::optional<double> temperature;
  std::string extra_body;    ///< JSON object merged at the top level
  bool continuous_usage = false;  ///< ask for per-chunk cumulative usage (exact per-token ITL)

  // Load (docs/METRICS.md, "Load shapes"). A list in --concurrency, --request-rate or
  // --num-prompts is a sweep: one run folder per point (the lists below; the scalars hold the
  // first point, and each point's own values when a sweep runs it).
  int concurrency = 1;       ///< max requests in flight (also caps an open loop, like vLLM's --max-concurrency)
  int64_t num_prompts = 0;   ///< 0 = one pass over the dataset (with --duration-s: no count bound)
  double request_rate = 0;   ///< req/s; 0 = as fast as concurrency allows; +inf = all due at once
  std::vector<int> concurrency_sweep;     ///< --concurrency 1,4,16: one point each
  std::vector<double> request_rate_sweep; ///< --request-rate 1,2,4
  std::vector<int64_t> num_prompts_sweep; ///< zipped with the other list (EvalScope's --parallel/--number)
  std::string arrivals = "poisson";  ///< open loop: poisson | gamma | constant
  double burstiness = 1;     ///< gamma shape (vLLM's --burstiness): 1 = Poisson, < 1 burstier, > 1 steadier
  double duration_s = 0;     ///< run this long instead of a count (the dataset cycles); 0 = by count
  double grace_s = 30;       ///< --duration-s: how long requests in flight at the end may finish before they are cut
  double ramp_up_s = 0;      ///< concurrency rises linearly (closed loop) or the rate rises (open loop) over this long
  std::string ramp_up_strategy = "linear";  ///< rate ramps: linear | exponential
  double ramp_up_start_rps = 0;  ///< rate ramps: the starting rate (exponential needs > 0; default 1 req/s there)
  bool ramp_up_measured = false; ///< count the ramp's requests in the statistics (default: excluded, like warm-up)
  bool pressure = false;     ///< AISBench's pressure mode: --request-rate clients/s added up to --concurrency, each looping for --duration-s
  std::string goodput;       ///< per-request SLOs in ms, e.g. "ttft:500 tpot:50 e2el:20000" (vLLM's --goodput)
  /// Open one kept-alive connection per slot before the measured phase (GET /v1/models, all at
  /// once), so connection set-up is not in the first requests' TTFT: auto = on for a plain closed loop.
  std::string warm_connections = "auto";
  /// How requests reach the server: auto (plain sockets for an http:// URL without a proxy,
  /// else libcurl) | sockets | libcurl.
  std::string transport = "auto";
  bool warms_connections() const {
    return warm_connections == "on" ||
           (warm_connections == "auto" && request_rate == 0 && request_rate_sweep.empty() && !pressure && ramp_up_s == 0 &&
            adaptive_window_s == 0);
  }

  // Search (runner/search): the highest load meeting every --slo, probe by probe.
  std::string search;        ///< "" | max-concurrency | max-rate
  std::string slo;           ///< run-level SLOs, e.g. "ttft.p99<=500ms,tpot.p90<=50ms"
  double search_min = 0;     ///< the first probe (0 = 1 for concurrency, 1 req/s for rate)
  double search_max = 0;     ///< the highest load probed (0 = 1024 for concurrency, 1024 req/s for rate)
  double search_resolution = 0;  ///< stop bisecting when high - low <= this (0 = 1 for concurrency, 5% of low for rate)
  double search_margin = 0.05;   ///< a probe whose SLO value is within this share of its bound is repeated once
  double slice_s = 0;        ///< metrics per time slice of this many seconds (0 = none)
  double adaptive_window_s = 0;  ///< in-run controller (runner/adaptive): judge --slo every this many seconds (0 = off)
  int adaptive_max = 1024;       ///< the controller's ceiling (it starts at --concurrency)
  int repeats = 1;           ///< run the point this many times: each metric as mean ± a confidence interval
  double confidence = 0.95;  ///< the interval's level
  double timeout_s = 600;    ///< per request; 0 = none
  int retries = 0;           ///< extra attempts after a connect_error
  int64_t warmup = 0;        ///< requests sent first and excluded from statistics
  int workers = 0;           ///< client threads; 0 = one per 256 of concurrency, at most the CPUs
  uint64_t seed = 0;         ///< arrival-time seed
  double drain_s = 5;        ///< after Ctrl-C, how long in-flight requests may finish
  int64_t max_event_bytes = 1 << 20;  ///< one SSE line or event above this fails its request (too_large)
  int64_t max_body_bytes = 64 << 20;  ///< a non-streaming body, /metrics or /v1/models above this is refused

  // Data and results.
  std::string dataset = "builtin";  ///< builtin | synthetic | qa:PATH | gsm8k:PATH | lines:PATH | sharegpt:PATH
  std::string tokenizer;            ///< model folder or tokenizer.json: local token counts, synthetic prompts
  int64_t input_len = 0;            ///< synthetic: N tokens per prompt, as the server counts them
  int64_t output_len = 0;           ///< synthetic: max_tokens M (sent with ignore_eos)
  double input_len_range = 0;       ///< synthetic: N_i uniform in [N(1-R), N(1+R)] (vLLM's range ratio)
  int64_t prefix_len = 0;           ///< synthetic: one shared random prefix of P tokens
  double output_len_range = 0;      ///< synthetic: M_i uniform in [M(1-R), M(1+R)]
  int64_t sharegpt_output_len = 0;  ///< sharegpt: every request's max_tokens (vLLM's --sharegpt-output-len); 0 = the answer's
  std::vector<std::string> lora;    ///< model names (LoRA adapters) drawn per request by the seed; empty = --model only
  int64_t turns = 0;                ///< multi-turn sessions of this many turns (--num-prompts counts sessions); 0 = single requests
  double think_time_ms = 0;         ///< sessions: pause after an answer before the next turn
  bool multi_turn = false;          ///< sharegpt: whole conversations as sessions (--turns caps their turns)
  bool sessions() const { return turns > 0 || multi_turn; }  ///< a multi-turn run
  std::string image;                ///< "WxH": synthetic PNG images with each chat request ("" = none)
  int images_per_request = 1;       ///< --image: how many per request
  int64_t trace_block_size = 512;   ///< trace: prompt tokens per hash id (Mooncake's block)
  double trace_speed = 1;           ///< trace: replay speed (2 = timestamps halved)
  std::string output_dir = "outputs";
  std::string model_abbr;           ///< "" = the model name, made file-safe
  std::string compat = "tokbench";  ///< definitions + request body: tokbench | aisbench | evalscope | vllm | sglang
  std::string server_metrics;       ///< Prometheus URL; "" = the target's /metrics when it answers; "off"
  int64_t scrape_interval_ms = 1000;
  bool server_metrics_auth = false; ///< send --api-key and credential headers to a --server-metrics URL on another host
  std::string profile_window;       ///< "START_S:DURATION_S": POST /start_profile and /stop_profile then
  bool quiet = false;               ///< no progress line
  double progress_interval_s = 0;   ///< 0 = every second on a terminal, every 10 s otherwise

  /// Every problem at once, each naming the flag and the fix.
  /// With `parsed`, also hands over the small languages parsed (ParsedFlags).
  std::vector<std::string> validate(ParsedFlags* parsed = nullptr) const;
  ParsedFlags parse_flags(std::vector<std::string>& errors) const;
  // The parts of validate(), each adding its problems to `errors`.
  void validate_target(std::vector<std::string>& errors) const;
  void validate_request(std::vector<std::string>& errors) const;
  void validate_load(std::vector<std::string>& errors) const;  ///< the load shape, sweeps and experiments
  void validate_workload(std::vector<std::string>& errors) const;
  void validate_observe(std::vector<std::string>& errors) const;
  /// The endpoint URL this config targets ("" when the built-in simulator will be started). A
  /// --url with no path gets /v1/<endpoint>.
  std::string target_url() const;
  /// --endpoint, else what the --url path names, else chat.
  std::string resolved_endpoint() const;
  bool embedded_target() const { return url.empty() && host.empty() && deploy_sh.empty(); }
  /// The settings as a JSON object; the API key and Authorization headers are redacted.
  std::string to_json() const;
  /// How many load points the sweep lists make (1 = a single run).
  size_t sweep_points() const;
  /// The config of point i of the sweep (lists cleared, that point's values set).
  RunConfig sweep_point(size_t i) const;
  /// "c4", "r2.5", "c4-n40": the folder name of point i, from the values that vary.
  std::string sweep_label(size_t i) const;
};

}  // namespace tokbench::runner
