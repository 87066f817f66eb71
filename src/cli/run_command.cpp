// cli/run_command: `tokbench run` — its options in the sections --help, docs/CLI.md and the shell
// completions show (kRunGroups: each option is declared once, under its section), bound to
// runner::RunConfig; --config / --print-config through the options' own callbacks.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <set>

#include "cli/commands.hpp"
#include "cli/yaml_config.hpp"
#include "client/api.hpp"
#include "client/engine.hpp"
#include "common/choice.hpp"
#include "common/console.hpp"
#include "core/engines.hpp"
#include "dataset/spec.hpp"
#include "history/entry.hpp"
#include "metrics/saturation.hpp"
#include "plan/plan.hpp"
#include "runner/runner.hpp"

namespace tokbench::cli {

namespace {

// Ctrl-C during a run: the first stops sending and drains, the second cancels in-flight
// requests. A signal handler can only reach process-wide state, hence this one static.
std::atomic<int> g_stop{client::kRunning};

extern "C" void on_stop_signal(int) {
  const int level = g_stop.load() + 1;
  g_stop.store(level > client::kCancelNow ? client::kCancelNow : level);
  constexpr char kMsg[] =
      "\ntokbench: stopping: no new requests; waiting for in-flight ones (Ctrl-C again cancels "
      "them)\n";
  if (level == client::kDrain) (void)!write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
}

// "1,4,16" -> {1, 4, 16}; each value parsed by `one`, which returns nullopt when it is bad.
template <class T, class F>
std::vector<T> parse_list(const std::string& flag, const std::string& text, F one,
                          const char* expected) {
  std::vector<T> out;
  size_t i = 0;
  while (i <= text.size()) {
    const size_t j = std::min(text.find(',', i), text.size());
    const std::string part = text.substr(i, j - i);
    const std::optional<T> v = one(part);
    if (!v)
      throw CLI::ValidationError(
          flag,
          fmt::format("bad value '{}' (expected {}; a comma list is a sweep)", part, expected));
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

std::optional<double> parse_rate(const std::string& s) {
  if (s == "inf" || s == "INF" || s == "Inf") return std::numeric_limits<double>::infinity();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size() && std::isfinite(v) ? std::optional<double>(v)
                                                                       : std::nullopt;
}

// A flag with a fixed set of words: parsed with its table, listed from it in --help and errors.
template <class E, size_t N>
CLI::Option* add_choice(CLI::App* run, const std::string& flag, E& field,
                        const Choices<E, N>& table, const std::string& help) {
  return run
      ->add_option_function<std::string>(
          flag,
          [&field, &table, flag](const std::string& v) {
            const std::optional<E> parsed = table.parse(v);
            if (!parsed)
              throw CLI::ValidationError(
                  flag, fmt::format("bad value '{}' (expected {})", v, table.alternatives()));
            field = *parsed;
          },
          fmt::format("{}: {}", table.bars(), help))
      ->default_str(std::string(table.name(field)));
}

// Target: where requests go, as whom, and the server tokbench may start.
void add_target(CLI::App* run, runner::TargetSettings& c) {
  run->option_defaults()->group(kRunGroups[0]);
  run->add_option("--url", c.url,
                  "full endpoint URL, e.g. http://127.0.0.1:8000/v1/chat/completions (default: "
                  "start the built-in simulator)");
  run->add_option("--host", c.host, "server host (with --port and --endpoint) instead of --url");
  run->add_option("--port", c.port, "server port")->capture_default_str();
  run->add_option("--endpoint", c.endpoint,
                  fmt::format("the API: {} (default: what the --url path names, else chat)",
                              client::api_names_described()));
  run->add_option("--model", c.model, "model name; empty = first id from GET /v1/models");
  run->add_flag("--skip-model-check", c.skip_model_check,
                "send --model even when GET /v1/models does not list it (a gateway that aliases "
                "model names)");
  run->add_option(
      "--api-key", c.api_key,
      "the API's credential (Bearer token; Anthropic: x-api-key); default $OPENAI_API_KEY");
  run->add_option("--header", c.headers, "extra 'Key: Value' header (repeatable)");
  run->add_option("--request-id-header", c.request_id_header,
                  "header that carries each request's id, <run id>-<index> (in the details; vLLM "
                  "and the simulator's "
                  "--trace use it as the request id): a header name, or none")
      ->capture_default_str();
  run->add_option("--ca-bundle", c.ca_bundle,
                  "PEM file of CAs to trust for an https target (default: the system's)");
  run->add_option("--cert", c.tls_cert, "client certificate (PEM) for mutual TLS");
  run->add_option("--key", c.tls_key, "client key (PEM) for --cert");
  run->add_flag("--insecure", c.insecure,
                "skip TLS certificate verification (the verdict says so)");
  add_choice(run, "--transport", c.transport, client::kTransportChoices,
             "HTTP/1.1 on plain sockets (the least client CPU per event) or libcurl (TLS, "
             "proxies); auto: sockets for an "
             "http:// URL with no proxy set");
  run->add_option("--engine", c.engine,
                  fmt::format("the serving engine behind the URL, whose /tokenize, /metrics and "
                              "prefix-cache reset are spoken: auto (learnt from its answers) or "
                              "one of {} (docs/COMPATIBILITY.md)",
                              core::engine_names()))
      ->capture_default_str();
  run->add_option("--server-cmd", c.server_cmd,
                  "start the server with this shell command (output in logs/server.log), wait "
                  "until it answers, stop it "
                  "after; {port} is the target's port, {name} the grid point's name, {KEY} a "
                  "--server-grid value");
  run->add_option(
      "--server-grid", c.server_grid,
      "server configurations to start in turn, e.g. 'max_num_seqs=64,128;batched=2048,8192' (every "
      "combination): each is started from --server-cmd's {KEY} placeholders (--deploy-sh: as "
      "environment "
      "variables MAX_NUM_SEQS, ...), measured with the load sweep, --search or --repeats, and "
      "stopped; "
      "grid/ compares them and recommends one");
  run->add_option("--server-devices", c.server_devices,
                  "--server-grid: accelerators one server uses (its output tokens/s per device)")
      ->capture_default_str();
  run->add_option("--deploy-sh", c.deploy_sh,
                  "AtomGit convention: run this deploy.sh with MODEL_PATH=--model-path; server on "
                  "port 8000, model name = the path");
  run->add_option("--model-path", c.model_path, "MODEL_PATH for --deploy-sh");
  run->add_option("--server-ready-timeout-s", c.server_ready_timeout_s,
                  "how long the started server may take to answer")
      ->capture_default_str();
  run->add_option("--server-stop-grace-s", c.server_stop_grace_s,
                  "after SIGTERM, seconds before SIGKILL")
      ->capture_default_str();
}

// Request: what each request's body says, and the limits on its answer.
void add_request(CLI::App* run, runner::RequestSettings& c) {
  run->option_defaults()->group(kRunGroups[1]);
  run->add_flag("--stream,!--no-stream", c.stream, "stream with SSE (default) or not")
      ->capture_default_str();
  run->add_option("--max-tokens", c.max_tokens, "output cap of each request; 0 = not sent")
      ->capture_default_str();
  run->add_flag("--ignore-eos", c.ignore_eos, "send ignore_eos: true (always produce max_tokens)");
  run->add_option_function<int64_t>(
      "--min-tokens", [&c](const int64_t& v) { c.min_tokens = v; },
      "send min_tokens (only when given)");
  run->add_option_function<double>(
      "--temperature", [&c](const double& v) { c.temperature = v; },
      "send temperature (only when given; else the server default)");
  run->add_option("--extra-body", c.extra_body,
                  "JSON object merged into every body at the top level");
  run->add_flag("--continuous-usage", c.continuous_usage,
                "ask for stream_options.continuous_usage_stats (exact per-token ITL with "
                "multi-token chunks)");
  add_choice(run, "--compat", c.compat, metrics::kDefinitionChoices,
             "that tool's metric definitions AND request body");
  run->add_option("--timeout-s", c.timeout_s, "per-request timeout; 0 = none")
      ->capture_default_str();
  run->add_option("--retries", c.retries, "retries after a connection error")
      ->capture_default_str();
  run->add_option("--max-event-bytes", c.max_event_bytes,
                  "largest SSE line or event; a larger one fails its request as too_large")
      ->capture_default_str();
  run->add_option(
         "--max-body-bytes", c.max_body_bytes,
         "largest non-streaming body, /metrics or /v1/models response; a larger one is refused")
      ->capture_default_str();
}

// Load: how many requests, how fast, in what shape.
void add_load(CLI::App* run, runner::LoadSettings& c) {
  run->option_defaults()->group(kRunGroups[2]);
  run->add_option_function<std::string>(
         "--concurrency",
         [&c](const std::string& v) {
           c.concurrency_sweep.clear();
           if (v == "auto") {  // the default, as --print-config writes it
             c.concurrency = 0;
             return;
           }
           auto list = parse_list<int64_t>("--concurrency", v, parse_int, "a positive integer");
           if (list.size() == 1 && list.front() == 0)  // 0 is not "auto" in disguise: say so
             throw CLI::ValidationError("--concurrency",
                                        "bad value 0 (expected a positive integer, or auto)");
           c.concurrency =
               static_cast<int>(std::clamp<int64_t>(list.front(), INT32_MIN, INT32_MAX));
           if (list.size() > 1)
             for (auto x : list)
               c.concurrency_sweep.push_back(
                   static_cast<int>(std::clamp<int64_t>(x, INT32_MIN, INT32_MAX)));
         },
         "max requests in flight; a list such as 1,4,16 is a sweep; auto: 1 for a closed loop, no "
         "cap for --request-rate "
         "or a trace (vLLM's default; a safety ceiling of 1024)")
      ->default_str("auto");
  run->add_option_function<std::string>(
         "--num-prompts",
         [&c](const std::string& v) {
           auto list = parse_list<int64_t>("--num-prompts", v, parse_int, "an integer >= 0");
           c.num_prompts = list.front();
           c.num_prompts_sweep = list.size() > 1 ? list : std::vector<int64_t>{};
         },
         "requests to send; 0 = one pass over the dataset; a list pairs with a "
         "--concurrency/--request-rate list")
      ->default_str("0");
  run->add_option_function<std::string>(
         "--request-rate",
         [&c](const std::string& v) {
           auto list =
               parse_list<double>("--request-rate", v, parse_rate, "a rate in req/s, or inf");
           c.request_rate = list.front();
           c.request_rate_sweep = list.size() > 1 ? list : std::vector<double>{};
         },
         "open-loop arrivals, req/s (inf = all at once); 0 = as fast as concurrency allows; a list "
         "is a sweep")
      ->default_str("0");
  add_choice(run, "--arrivals", c.arrivals, core::kArrivalKinds, "the open loop's arrival process");
  run->add_option("--burstiness", c.burstiness,
                  "gamma arrivals' shape (vLLM's): 1 = Poisson, < 1 burstier, > 1 steadier")
      ->capture_default_str();
  run->add_option("--duration-s", c.duration_s,
                  "run this many seconds instead of a count (the dataset cycles); requests still "
                  "in flight get --grace-s, then "
                  "are cut (recorded as cut_at_end, not counted)")
      ->capture_default_str();
  run->add_option("--grace-s", c.grace_s,
                  "--duration-s: seconds requests in flight at the end may still finish")
      ->capture_default_str();
  run->add_option("--ramp-up-s", c.ramp_up_s,
                  "ramp the load over S seconds: concurrency 1..C (closed loop) or the rate (open "
                  "loop); excluded from the "
                  "statistics unless --ramp-up-measured")
      ->capture_default_str();
  add_choice(run, "--ramp-up-strategy", c.ramp_up_strategy, runner::kRampCurves,
             "how a rate ramp rises");
  run->add_option("--ramp-up-start-rps", c.ramp_up_start_rps,
                  "rate ramps: the starting rate (exponential: default 1)")
      ->capture_default_str();
  run->add_flag("--ramp-up-measured", c.ramp_up_measured,
                "count the ramp's requests in the statistics");
  run->add_flag("--pressure", c.pressure,
                "AISBench's pressure mode: --concurrency clients, added at --request-rate per "
                "second (default: all at "
                "once), each sending back to back for --duration-s");
  run->add_option("--warmup", c.warmup, "warm-up requests, excluded from statistics")
      ->capture_default_str();
  add_choice(run, "--warm-connections", c.warm_connections, runner::kToggles,
             "open one kept-alive connection per slot before the measured phase (auto: on for a "
             "plain closed loop), so "
             "set-up is not in the first requests' TTFT");
  run->add_option("--seed", c.seed, "seed of the arrival schedule")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  run->add_option("--workers", c.workers,
                  "client threads; 0 = automatic (one per 256 streams, at most the CPUs this "
                  "process may use)")
      ->capture_default_str();
  run->add_option("--drain-s", c.drain_s, "after Ctrl-C, seconds in-flight requests may finish")
      ->capture_default_str();
}

// Workload: what the requests ask (prompts, lengths, conversations, images, traces, adapters).
void add_workload(CLI::App* run, runner::WorkloadSettings& c) {
  run->option_defaults()->group(kRunGroups[3]);
  run->add_option_function<std::string>(
         "--dataset",
         [&c](const std::string& v) {
           try {
             c.dataset = dataset::parse_spec(v);
           } catch (const std::invalid_argument& e) {
             throw CLI::ValidationError(e.what());
           }
         },
         dataset::spec_forms())
      ->default_str(c.dataset.text());
  run->add_option("--tokenizer", c.tokenizer,
                  "model folder or tokenizer.json: count tokens locally when the server sends no "
                  "usage, build synthetic prompts");
  run->add_option("--input-len", c.input_len,
                  "synthetic: prompt tokens N (as the server counts them)");
  run->add_option("--output-len", c.output_len,
                  "synthetic: output tokens M (max_tokens with ignore_eos)");
  run->add_option("--input-len-range", c.input_len_range,
                  "synthetic: spread ratio R, N_i uniform in [N(1-R), N(1+R)]");
  run->add_option("--prefix-len", c.prefix_len,
                  "synthetic: shared random prefix of P tokens (prefix-cache tests)");
  run->add_option("--output-len-range", c.output_len_range,
                  "synthetic: spread ratio R, M_i uniform in [M(1-R), M(1+R)]");
  run->add_option("--sharegpt-output-len", c.sharegpt_output_len,
                  "sharegpt: every request's max_tokens instead of the reference answer's length "
                  "(vLLM's flag)");
  run->add_option("--turns", c.turns,
                  "multi-turn sessions of N turns (conversation APIs): each turn carries the real "
                  "previous answers; "
                  "--concurrency sessions at once, --num-prompts sessions in all");
  run->add_flag("--multi-turn", c.multi_turn,
                "sharegpt: whole conversations as sessions, each exchange a turn (--turns N caps "
                "their turns)");
  run->add_option("--think-time-ms", c.think_time_ms,
                  "sessions: pause after an answer before the next turn");
  run->add_option("--image", c.image,
                  "WIDTHxHEIGHT: synthetic PNG images (seeded) with each request of a conversation "
                  "API, as base64 data "
                  "URLs; their tokens come from usage");
  run->add_option("--images-per-request", c.images_per_request, "--image: images per request")
      ->capture_default_str();
  run->add_option("--documents", c.documents,
                  "rerank: documents per query when the dataset's lines carry none (each prompt "
                  "ranks the prompts after it)")
      ->capture_default_str();
  run->add_option("--trace-block-size", c.trace_block_size,
                  "trace: prompt tokens per hash id (Mooncake: 512)")
      ->capture_default_str();
  run->add_option("--trace-speed", c.trace_speed,
                  "trace: replay speed; 2 sends at half the timestamps")
      ->capture_default_str();
  run->add_option("--lora", c.lora,
                  "model names (LoRA adapters), one drawn per request by --seed: NAME[,NAME...]")
      ->delimiter(',');
}

// Experiment: series of load points (searches, repeats), the in-run controller, goodput's SLOs.
void add_experiment(CLI::App* run, runner::ExperimentSettings& c) {
  run->option_defaults()->group(kRunGroups[4]);
  add_choice(run, "--search", c.search, runner::kSearchAxes,
             "the highest load meeting every --slo (bracket, then bisect; a probe per run folder)");
  run->add_option(
      "--slo", c.slo,
      "what a --search or --adaptive-window-s must meet, e.g. 'ttft.p99<=500ms,tpot.p90<=50ms'");
  run->add_option("--search-min", c.search_min, "the first probe (default 1)");
  run->add_option("--search-max", c.search_max, "the highest load probed (default 1024)");
  run->add_option(
      "--search-resolution", c.search_resolution,
      "stop when high - low <= this (default 1 for concurrency, 5% of the answer for rate)");
  run->add_option("--search-margin", c.search_margin,
                  "a probe this close to an SLO bound (share) is run twice")
      ->capture_default_str();
  run->add_option("--repeats", c.repeats,
                  "run the same point N times: every metric as mean ± a confidence interval")
      ->capture_default_str();
  run->add_option("--confidence", c.confidence, "--repeats: the confidence level (Student's t)")
      ->capture_default_str();
  run->add_option("--adaptive-window-s", c.adaptive_window_s,
                  "in-run controller: every S seconds judge --slo and raise concurrency while it "
                  "holds, bisect after the "
                  "first break, then hold (needs --duration-s; starts at --concurrency)")
      ->capture_default_str();
  run->add_option("--adaptive-max", c.adaptive_max, "the controller's highest concurrency")
      ->capture_default_str();
  run->add_option("--resume", c.resume,
                  "finish the interrupted sweep, search, repeats or --server-grid in this root "
                  "folder, with the same "
                  "flags: points that completed VALID are read back, the others run again (an "
                  "unfinished folder is kept "
                  "as NAME.interrupted)");
  run->add_flag("--reset-prefix-cache", c.reset_prefix_cache,
                "before each load point, empty the server's prefix cache (vLLM "
                "/reset_prefix_cache, which needs VLLM_SERVER_DEV_MODE=1; SGLang /flush_cache; "
                "llama.cpp: erase every slot of /slots); says so when the server has none");
  run->add_flag("--stop-on-saturation", c.stop_on_saturation,
                fmt::format("stop a point early once the server is past saturation, marked "
                            "SATURATED rather than INVALID "
                            "(a sweep or search goes on): {}",
                            metrics::kSaturationRule));
  run->add_option("--saturation-window-s", c.saturation_window_s,
                  "--stop-on-saturation: the window its rule reads")
      ->capture_default_str();
  run->add_option("--goodput", c.goodput,
                  "per-request SLOs in ms, e.g. 'ttft:500 tpot:50 e2el:20000': goodput = requests "
                  "meeting all, per second");
}

// Observe: what tokbench watches beside its own records.
void add_observe(CLI::App* run, runner::ObserveSettings& c) {
  run->option_defaults()->group(kRunGroups[5]);
  run->add_option("--server-metrics", c.server_metrics,
                  "Prometheus URL to scrape before, during and after the run; default: the "
                  "target's /metrics when it "
                  "answers; off = never");
  run->add_option("--scrape-interval-ms", c.scrape_interval_ms, "scrape period")
      ->capture_default_str();
  run->add_flag("--server-metrics-auth", c.server_metrics_auth,
                "send --api-key and credential headers to a --server-metrics URL on another host "
                "(not sent unless asked)");
  run->add_option("--profile-window", c.profile_window,
                  "START_S:DURATION_S: POST /start_profile START_S into the measured phase, "
                  "/stop_profile DURATION_S later");
  run->add_option("--slice-s", c.slice_s,
                  "also report the metrics per time slice of S seconds (result.json, CSV, HTML)")
      ->capture_default_str();
  run->add_option("--telemetry", c.telemetry,
                  "accelerator and host exporters to scrape beside the run (repeatable, or "
                  "comma-separated): Prometheus "
                  "URLs of dcgm-exporter, npu-exporter, AMD's device-metrics-exporter, "
                  "node-exporter; or nvml (this "
                  "host's NVIDIA GPUs): power, energy, utilisation, memory per device")
      ->delimiter(',');
  run->add_option("--telemetry-interval-ms", c.telemetry_interval_ms,
                  "--telemetry's scrape period, on the run's clock")
      ->capture_default_str();
  run->add_option("--telemetry-idle-s", c.telemetry_idle_s,
                  "watch the devices this long before any request: their idle power, and the "
                  "energy above it")
      ->capture_default_str();
  run->add_option("--price-per-device-hour", c.price_per_device_hour,
                  "$ per accelerator-hour: the cost per million tokens at the measured load (the "
                  "devices --telemetry read, else --server-devices)");
  run->add_option("--price-per-kwh", c.price_per_kwh,
                  "$ per kWh of the measured energy (with --telemetry)");
  run->add_flag(
      "--check-answers", c.check_answers,
      "score each output against its dataset line's reference (gsm8k: the final number; qa: "
      "\"choices\" and a "
      "letter, \"answer\", or \"answer_regex\"): accuracy with its 95% Wilson interval, and every "
      "output "
      "checked for runaway repetition and invalid UTF-8 (docs/METRICS.md, \"Answer checking\")");
  run->add_option("--keep-outputs", c.keep_outputs,
                  "write the first N measured requests' prompt, output and answer to "
                  "<dataset>_outputs.jsonl, to read")
      ->capture_default_str();
  run->add_option("--determinism-probe", c.determinism_probe,
                  "send K identical requests (the dataset's first prompt) spread over the run and "
                  "count how many "
                  "different outputs come back (needs --temperature 0)")
      ->capture_default_str();
}

// Output: where the run folder goes and what the console shows.
void add_output(CLI::App* run, runner::OutputSettings& c) {
  run->option_defaults()->group(kRunGroups[6]);
  run->add_option("--output-dir", c.output_dir, "where run folders go")->capture_default_str();
  run->add_option("--model-abbr", c.model_abbr,
                  "folder name under performances/; default: the model name");
  run->add_flag("--verbose", c.verbose,
                "print every table (AISBench's, the stable stage's, the definitions side by side, "
                "the server's), not the "
                "one-screen summary; the files hold them either way");
  run->add_flag("--quiet", c.quiet,
                "no progress line; in a sweep, search or repeats, one line a point instead of its "
                "tables (the summary stays)");
  run->add_option("--progress-interval-s", c.progress_interval_s,
                  "progress every S seconds; 0 = every second on a terminal, every 10 s otherwise")
      ->capture_default_str();
  run->add_option("--history", c.history,
                  "record the run (each point of a sweep, search or series) in this results store, "
                  "an SQLite file made on "
                  "first use; default: $TOKBENCH_HISTORY (tokbench history)");
  run->add_option("--label", c.labels,
                  "key=value to tag the run with in result.json and the results store, e.g. "
                  "hardware=h200 (repeatable)")
      ->check(CLI::Validator(
          [](std::string& text) {
            try {
              history::parse_label(text, "--label");
              return std::string();
            } catch (const std::exception& e) {
              return std::string(e.what());
            }
          },
          "KEY=VALUE"));
}

// --config FILE: each setting in the file reaches its option's own callback and checks, unless the
// command line gave that option (the command line wins). Unknown names are usage errors.
void apply_config_file(CLI::App& run, const std::string& path, const YamlConfig& yaml) {
  std::ifstream in(path);
  if (!in)
    throw CLI::ValidationError(
        "--config",
        fmt::format("cannot read '{}' (expected a YAML file; see --print-config)", path));
  for (const CLI::ConfigItem& item : yaml.from_config(in)) {
    CLI::Option* opt = run.get_option_no_throw("--" + item.name);
    if (!opt || !opt->get_configurable()) {
      const std::string near = closest_option(run, item.name);
      throw CLI::ValidationError(
          "--config", fmt::format("{}: unknown setting '{}' ({}keys are the long flag names of "
                                  "`tokbench run`, e.g. concurrency; see --print-config)",
                                  path, item.name,
                                  near.empty() ? "" : fmt::format("did you mean '{}'? ", near)));
    }
    if (opt->count() > 0) continue;  // given on the command line: it wins
    opt->add_result(item.inputs);
    opt->run_callback();
  }
}

}  // namespace

void add_run(CLI::App& app, std::function<int()>& action) {
  auto cfg = std::make_shared<runner::RunConfig>();
  auto* run = app.add_subcommand(
      "run", "benchmark an OpenAI-compatible endpoint (default: the built-in simulator)");
  auto& c = *cfg;
  add_target(run, c.target);
  add_request(run, c.request);
  add_load(run, c.load);
  add_workload(run, c.workload);
  add_experiment(run, c.experiment);
  add_observe(run, c.observe);
  add_output(run, c.output);
  run->option_defaults()->group("Options");
  auto yaml = std::make_shared<YamlConfig>(
      std::set<std::string>{"concurrency", "request-rate", "num-prompts"});
  run->config_formatter(yaml);  // --print-config writes through it
  auto config_path = std::make_shared<std::string>();
  run->add_option("--config", *config_path,
                  "YAML file of run settings: long flag names as keys, e.g. 'concurrency: [1, 4, "
                  "16]'; flags on the "
                  "command line win")
      ->configurable(false);
  auto print_config = std::make_shared<bool>(false);
  run->add_flag(
         "--print-config", *print_config,
         "print the effective settings (file and flags) as YAML that --config reads back, and exit")
      ->configurable(false);
  run->callback([&action, cfg, print_config, config_path, yaml, run] {
    if (!config_path->empty()) apply_config_file(*run, *config_path, *yaml);
    if (*print_config) {
      action = [run, cfg] {
        runner::make_plan(
            *cfg, nullptr);  // a printed config is one that runs: the same usage errors first
        fmt::print("{}", run->config_to_str(true, false));
        return 0;
      };
      return;
    }
    action = [cfg] {
      struct sigaction sa {};
      sa.sa_handler = on_stop_signal;
      sigemptyset(&sa.sa_mask);
      sigaction(SIGINT, &sa, nullptr);
      sigaction(SIGTERM, &sa, nullptr);
      const Console console = fitted_console(stdout);  // one screen wide, wherever it prints
      return runner::run_benchmark(*cfg, g_stop, console ? console.get() : stdout).exit_code;
    };
  });
}

}  // namespace tokbench::cli
