// settings/checks: RunConfig's checks of itself (plan/plan's validate() calls them with each
// workload's): every problem at once, each naming the flag and the fix. What one part alone
// decides and what spans parts (a trace or sessions pace themselves; --transport sockets needs a
// plain URL) are checked here, where every part is in view.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "client/api.hpp"
#include "client/request_body.hpp"
#include "common/abbreviate.hpp"
#include "common/listen_address.hpp"
#include "common/redact.hpp"
#include "core/engines.hpp"
#include "dataset/dataset.hpp"
#include "dataset/images.hpp"
#include "net/http1.hpp"
#include "settings/fields.hpp"
#include "settings/load_shape.hpp"
#include "settings/run_config.hpp"
#include "settings/server_grid.hpp"
#include "settings/traffic_class.hpp"

namespace tokbench::runner {

namespace {

// Collects every problem of a config at once, each naming the flag and the fix.
struct Check {
  std::vector<std::string>& e;
  void operator()(bool ok, std::string msg) const {
    if (!ok) e.push_back(std::move(msg));
  }
};

// The server tokbench starts (--server-cmd, --deploy-sh, --server-grid): the target part alone.
void check_server(const TargetSettings& target, std::vector<std::string>& e) {
  const Check check{e};
  check(target.server_cmd.empty() || target.deploy_sh.empty(),
        "--server-cmd and --deploy-sh: give one, not both");
  check(target.server_cmd.empty() || !target.url.empty() || !target.host.empty(),
        "--server-cmd needs the server's address: pass --url (or --host and --port) too");
  check(target.deploy_sh.empty() || !target.model_path.empty(),
        "--deploy-sh needs --model-path (exported as MODEL_PATH)");
  std::vector<GridAxis> axes;
  if (!target.server_grid.empty()) {
    check(!target.server_cmd.empty() || !target.deploy_sh.empty(),
          "--server-grid starts a server per configuration: give --server-cmd with {KEY} "
          "placeholders (or --deploy-sh, "
          "which gets the values as environment variables)");
    try {
      axes = parse_server_grid(target.server_grid);
    } catch (const std::invalid_argument& bad) {
      e.push_back(bad.what());
    }
  }
  if (!target.server_cmd.empty() && (axes.size() > 0 || target.server_grid.empty()))
    for (auto& problem : template_problems(target.server_cmd, axes))
      e.push_back(std::move(problem));
}

// The URL's path against the endpoint and the streaming mode (a path answers one way).
void check_url_path(const RunConfig& c, std::vector<std::string>& e) {
  const Check check{e};
  if (c.target.url.empty() ||
      !(c.target.url.starts_with("http://") || c.target.url.starts_with("https://")))
    return;
  // The URL's path decides the endpoint; a body for one endpoint posted to another fails every
  // request.
  const std::string named = endpoint_of_path(url_path(c.target.url));
  check(named != "?",
        fmt::format(
            "--url: the path '{}' names no endpoint tokbench speaks (expected a path ending in "
            "one of {}, or a base URL such as http://host:8000/v1)",
            url_path(c.target.url), client::api_paths()));
  // An API's whole-body path may be another API's too (/generate: SGLang's native API, and
  // TGI's answers sent whole): --endpoint says which.
  const std::string path = url_path(c.target.url);
  const client::ApiAdapter* asked = client::find_api(c.target.endpoint);
  const bool body_path_of_asked =
      asked && asked->body_path() != asked->path() && path.ends_with(asked->body_path());
  check(c.target.endpoint.empty() || named.empty() || named == "?" || named == c.target.endpoint ||
            body_path_of_asked,
        fmt::format("--endpoint {} conflicts with --url {} (its path is the {} endpoint): drop "
                    "--endpoint, or fix the URL",
                    c.target.endpoint, c.target.url, named));
  const client::ApiAdapter& api = api_of(c.resolved_endpoint());
  if (api.body_path() != api.path() && !named.empty()) {  // one path per way of answering
    const bool at_body = path.ends_with(api.body_path());
    check(at_body != c.request.stream,
          at_body
              ? fmt::format("--url {}: {} answers there with one body; add --no-stream, or "
                            "stream from {} (or give the base URL)",
                            c.target.url, api.title(), api.path())
              : fmt::format("--no-stream: {} streams at {}; its answers come whole at {} "
                            "(--url …{} --endpoint {}, or give the base URL: the mode "
                            "picks the path)",
                            api.title(), api.path(), api.body_path(), api.body_path(), api.name()));
  }
}

}  // namespace

// Where requests go and as whom; the server tokbench may start.
void RunConfig::validate_target(std::vector<std::string>& e) const {
  const Check check{e};
  check_ranges(target, target_fields(), e);  // each field in its range (settings/fields)
  check(target.engine == "auto" || core::engine_named(target.engine),
        fmt::format("--engine: unknown engine '{}' (expected auto or one of {})", target.engine,
                    core::engine_names()));
  check(target.endpoint.empty() || client::find_api(target.endpoint),
        fmt::format("--endpoint: bad value '{}' (expected one of: {})", target.endpoint,
                    client::api_names_described()));
  for (const auto& [flag, path] : {std::pair{"--ca-bundle", target.ca_bundle},
                                   {"--cert", target.tls_cert},
                                   {"--key", target.tls_key}}) {
    check(path.empty() || std::ifstream(path).good(),
          fmt::format("{}: cannot read '{}' (expected a PEM file)", flag, path));
  }
  check(target.tls_key.empty() || !target.tls_cert.empty(),
        "--key needs --cert (the client certificate it belongs to)");
  check(target.url.empty() || target.host.empty(),
        fmt::format("--url and --host: give one (--url {} already names the host, port and path)",
                    target.url));
  // A control character or space in the URL would reach the request line (CR/LF: a header of the
  // URL's making); no valid URL holds one.
  const size_t bad =
      std::find_if(target.url.begin(), target.url.end(),
                   [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; }) -
      target.url.begin();
  check(bad == target.url.size(),
        fmt::format("--url: a space or control character at position {} (a URL holds none: "
                    "percent-encode it, e.g. %20 for a space)",
                    bad + 1));
  check_url_path(*this, e);
  check(
      target.url.empty() || target.url.starts_with("http://") || target.url.starts_with("https://"),
      fmt::format("--url: bad value '{}' (expected a full URL, e.g. "
                  "http://127.0.0.1:8000/v1/chat/completions)",
                  target.url));
  check_server(target, e);
  // A control character in a header would be a header of its own on the wire (CR/LF), or a
  // request the server cannot read: refused from every source (a flag, a YAML config, the
  // environment's key in make_plan).
  const auto has_control = [](std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) {
      const auto u = static_cast<unsigned char>(c);
      return (u < 0x20 && c != '\t') || u == 0x7F;
    });
  };
  for (const auto& h : target.headers) {
    check(h.find(':') != std::string::npos && h.find(':') > 0,
          fmt::format("--header: bad value '{}' (expected 'Key: Value')", printable(h)));
    check(!has_control(h),
          fmt::format("--header: '{}' holds a control character (CR/LF would start a header of "
                      "its own): give one 'Key: Value' per --header",
                      redact_header(printable(h))));
  }
  check(!has_control(target.api_key),
        "--api-key: the key holds a control character (a CR/LF would start a header of its own): "
        "check how it was pasted");
  check(!target.request_id_header.empty() &&
            target.request_id_header.find_first_of(": \t\r\n") == std::string::npos,
        fmt::format("--request-id-header: bad value '{}' (expected a header name such as "
                    "X-Request-Id, or none)",
                    target.request_id_header));
  if (target.transport == core::TransportKind::Sockets && !embedded_target()) {
    std::string
        why;  // parsed before the message is made: an argument's order of evaluation is unspecified
    const bool plain = net::parse_http_url(target_url(), &why).has_value();
    check(plain, fmt::format("--transport sockets reads plain http:// only, and {} cannot be read "
                             "that way ({}): use "
                             "--transport auto or libcurl",
                             redact_url(target_url()), why));
  }
}

// What each request sends and what the API at the target takes.
void RunConfig::validate_request(std::vector<std::string>& e) const {
  const Check check{e};
  check_ranges(request, request_fields(), e);  // each field in its range (settings/fields)
  check(request.timeout_s == 0 || request.timeout_s >= 0.001,
        fmt::format("--timeout-s: bad value {} (expected 0 for no timeout, or at least 0.001: "
                    "libcurl counts whole ms)",
                    request.timeout_s));
  if (const client::ApiAdapter* api =
          client::find_api(resolved_endpoint())) {  // what this API takes
    const client::ApiCaps caps = api->caps();
    check(!caps.requires_cap || request.max_tokens > 0,
          fmt::format("--max-tokens 0: {} requires max_tokens (an output cap) in every request; "
                      "give --max-tokens N (or "
                      "per-line max_tokens)",
                      api->title()));
    const auto flavor = client::flavor_named(metrics::definitions_name(request.compat));
    check(!flavor || api->takes_flavor(*flavor),
          fmt::format("--compat {}: reproduces that tool's OpenAI request bodies; {} is not what "
                      "it sends (use "
                      "--compat tokbench; --compat sglang reproduces bench_serving's native "
                      "/generate payload)",
                      metrics::definitions_name(request.compat), api->path()));
    check(caps.whole_body || request.stream,
          fmt::format("--no-stream: {} ({}) answers only as a stream; drop --no-stream, or ask "
                      "the server's OpenAI route for one body per answer (--endpoint chat)",
                      api->title(), api->path()));
    check(caps.sampling_extensions || (!request.ignore_eos && !request.min_tokens),
          fmt::format("--ignore-eos / --min-tokens: {} has no such parameter (its answers end at "
                      "EOS); drop them — tokbench counts the tokens that came",
                      api->title()));
    check(caps.tools || (request.tools.empty() && request.tool_choice.empty()),
          fmt::format("--tools / --tool-choice: {} ({}) takes no tools; tools go to OpenAI's "
                      "chat completions, the Responses API or Anthropic's Messages",
                      api->title(), api->path()));
    check(caps.json_schema || request.json_schema.empty(),
          fmt::format("--json-schema: {} ({}) takes no response format in tokbench; use OpenAI's "
                      "chat completions or the Responses API",
                      api->title(), api->path()));
    check(caps.stream_options || !request.continuous_usage,
          fmt::format("--continuous-usage: an OpenAI chat/completions stream option; {} ({}) "
                      "reports usage its own way: "
                      "drop it",
                      api->title(), api->path()));
  }
}

// The dataset, the prompts made from it, sessions, images, traces and adapters.
void RunConfig::validate_workload(std::vector<std::string>& e) const {
  const Check check{e};
  check_ranges(workload, workload_fields(), e);  // each field in its range (settings/fields)
  using dataset::Source;
  const bool class_sessions =
      std::any_of(load.classes.begin(), load.classes.end(), [](const std::string& text) {
        try {
          return parse_traffic_class(text).sessions();
        } catch (const std::invalid_argument&) {  // said by plan/
          return false;
        }
      });
  check(workload.think_time_ms == 0 || workload.sessions() || class_sessions,
        "--think-time-ms: only with --turns N or --multi-turn (multi-turn sessions), or a "
        "--class with turns=N");
  // Sessions and traces pace themselves: nothing else may set when requests go.
  const bool other_pacing = load.request_rate != 0 || !load.request_rate_sweep.empty() ||
                            load.pressure || experiment.adaptive_window_s != 0 ||
                            load.duration_s != 0 || experiment.searching() || load.ramp_up_s != 0;
  if (workload.sessions()) {  // a session's next turn goes when its answer is in
    check(!other_pacing && !workload.dataset.is(Source::Trace),
          "--turns, --multi-turn and agent:PATH: sessions send each turn when the last answer "
          "is in (and --think-time-ms has passed), with "
          "--concurrency sessions at once; drop --request-rate, --pressure, --duration-s, "
          "--ramp-up-s, "
          "--adaptive-window-s, --search and trace datasets");
    check(api_of(resolved_endpoint()).caps().conversation,
          fmt::format("--turns: sessions are conversations; use an endpoint that takes them ({})",
                      client::api_paths(&client::ApiCaps::conversation)));
  }
  // A cancelled turn would end its session with a hole in its history.
  check(load.cancel_rate == 0 || !workload.sessions(),
        "--cancel-rate cancels single requests; sessions (--turns, --multi-turn, agent datasets) "
        "are not cancelled turn by turn yet: drop --cancel-rate or the sessions");
  if (workload.dataset.is(Source::Agent)) {  // the model's calls decide each task's turns
    check(workload.turns == 0 && !workload.multi_turn,
          "--dataset agent:PATH: a task's turns end when the model answers without a tool call "
          "(or at its \"max_turns\"): drop --turns and --multi-turn");
    check(api_of(resolved_endpoint()).caps().tool_messages,
          fmt::format("--dataset agent:PATH: the loop sends tool calls and their results back as "
                      "chat messages; use an endpoint that takes them ({})",
                      client::api_paths(&client::ApiCaps::tool_messages)));
  }
  if (workload.dataset.is(Source::AgentTrace)) {  // the log decides the turns and the pauses
    check(workload.turns == 0 && !workload.multi_turn && workload.think_time_ms == 0,
          "--dataset agent-trace:PATH: each session replays its recorded turns and pauses: drop "
          "--turns, --multi-turn and --think-time-ms (--trace-speed scales the pauses)");
    check(api_of(resolved_endpoint()).caps().tool_messages,
          fmt::format("--dataset agent-trace:PATH: the recorded context carries tool calls and "
                      "results as chat messages; use an endpoint that takes them ({})",
                      client::api_paths(&client::ApiCaps::tool_messages)));
  }

  check(!workload.dataset.is(Source::Trace) || (!other_pacing && load.warmup == 0),
        "--dataset trace:PATH sends each request at its timestamp: drop --request-rate, "
        "--pressure, --duration-s, --ramp-up-s, --adaptive-window-s, --search and --warmup "
        "(warm-up requests would fill the prefix cache before the replay; use --trace-speed to "
        "replay faster or slower)");
  if (!workload.image.empty()) {
    check(api_of(resolved_endpoint()).caps().images,
          fmt::format("--image: images go in chat messages; use an endpoint that takes them ({})",
                      client::api_paths(&client::ApiCaps::images)));
  }
  check(workload.images_per_request == 1 || !workload.image.empty(),
        "--images-per-request: only with --image WxH");
  check(workload.documents == 4 || api_of(resolved_endpoint()).caps().documents,
        fmt::format("--documents: only with an API that ranks documents ({})",
                    client::api_paths(&client::ApiCaps::documents)));
  for (const auto& name : workload.lora)
    check(!name.empty(),
          "--lora: an empty name (expected served model or adapter names, e.g. --lora "
          "sql-lora,chat-lora)");
}

// What is watched beside the records: /metrics, the profile window.
void RunConfig::validate_observe(std::vector<std::string>& e) const {
  const Check check{e};
  check_ranges(observe, observe_fields(), e);  // each field in its range (settings/fields)
  check(observe.server_metrics.empty() || observe.server_metrics == "off" ||
            observe.server_metrics.starts_with("http://") ||
            observe.server_metrics.starts_with("https://"),
        fmt::format("--server-metrics: bad value '{}' (expected a URL such as "
                    "http://host:8000/metrics, or off)",
                    observe.server_metrics));
  check(observe.determinism_probe == 0 ||
            (observe.determinism_probe >= 2 && observe.determinism_probe <= 1000),
        fmt::format("--determinism-probe: bad value {} (expected 2 to 1000 identical requests)",
                    observe.determinism_probe));
  check(observe.determinism_probe == 0 || (request.temperature && *request.temperature == 0),
        "--determinism-probe compares outputs that greedy decoding makes identical: add "
        "--temperature 0 (sampled outputs "
        "differ by design)");
  check(
      observe.determinism_probe == 0 || (!workload.sessions() && experiment.adaptive_window_s == 0),
      "--determinism-probe spreads its probes over a counted or timed run: it does not combine "
      "with --turns, "
      "--multi-turn or --adaptive-window-s");
  check(observe.slice_s == 0 || observe.slice_s >= 0.01,
        fmt::format("--slice-s: bad value {} (expected 0 for none, or at least 0.01 s)",
                    observe.slice_s));
  for (const auto& t : observe.telemetry)
    check(t == "nvml" || t.starts_with("http://") || t.starts_with("https://"),
          fmt::format("--telemetry: bad value '{}' (expected an exporter's URL such as "
                      "http://gpu-host:9400/metrics, or nvml)",
                      t));
  check(observe.price_per_device_hour >= 0 && observe.price_per_kwh >= 0,
        "--price-per-device-hour, --price-per-kwh: a price cannot be negative");
  check(!observe.telemetry.empty() || (observe.telemetry_idle_s == 0 && observe.price_per_kwh == 0),
        "--telemetry-idle-s and --price-per-kwh need --telemetry (the devices' power and energy "
        "come from it); --price-per-device-hour alone does not (it counts --server-devices)");
  check(!observe.otlp_receive.empty() ||
            (observe.otlp_wait_s == ObserveSettings{}.otlp_wait_s &&
             observe.client_share_budget == ObserveSettings{}.client_share_budget),
        "--otlp-wait-s and --client-share-budget need --otlp-receive (they shape the waterfall of "
        "the server's spans it receives)");
  if (!observe.otlp_receive.empty()) {
    std::string why;
    check(parse_listen_address(observe.otlp_receive, &why).has_value(),
          fmt::format("--otlp-receive: bad value '{}' ({})", observe.otlp_receive, why));
  }
  if (!observe.live.empty()) {
    std::string why;
    check(parse_listen_address(observe.live, &why).has_value(),
          fmt::format("--live: bad value '{}' ({}; e.g. --live 9464 or --live 127.0.0.1:9464)",
                      observe.live, why));
    check(observe.live != observe.otlp_receive,
          "--live and --otlp-receive name the same address: give each its own port");
  }
  const std::string& otlp = observe.otlp_endpoint;
  check(otlp.empty() || (otlp.starts_with("http://") && otlp.size() > 7 && otlp[7] != '/'),
        fmt::format("--otlp-endpoint: bad value '{}' (expected a collector's OTLP/HTTP address "
                    "such as http://127.0.0.1:4318; https is not spoken: run a local collector "
                    "that forwards)",
                    otlp));
}

void RunConfig::validate_load(std::vector<std::string>& e) const {
  const Check check{e};
  check_ranges(load, load_fields(), e);  // each field in its range (settings/fields)
  check(load.concurrency >= 0,
        fmt::format("--concurrency: bad value {} (expected a positive integer, or auto)",
                    load.concurrency));
  check(load.num_prompts >= 0,
        fmt::format("--num-prompts: bad value {} (expected >= 0; 0 = one pass over the dataset)",
                    load.num_prompts));
  check(
      load.request_rate >= 0,
      fmt::format("--request-rate: bad value {} (expected a number >= 0, e.g. 12.5; 0 = no pacing; "
                  "inf = all at once)",
                  load.request_rate));
  const bool open_loop = load.request_rate > 0 || !load.request_rate_sweep.empty();
  using Arrivals = core::ArrivalKind;
  const auto arrivals_name = core::kArrivalKinds.name(load.arrivals);
  check(load.burstiness == 1 || load.arrivals == Arrivals::Gamma,
        fmt::format(
            "--burstiness {} shapes gamma arrivals: add --arrivals gamma (or drop --burstiness)",
            load.burstiness));
  check(load.arrivals == Arrivals::Poisson || open_loop || load.pressure,
        fmt::format("--arrivals {} needs --request-rate R (arrivals shape an open loop)",
                    arrivals_name));
  check(load.ramp_up_s == 0 || !std::isinf(load.request_rate),
        "--ramp-up-s with --request-rate inf: there is no rate to ramp; give a number");
  check(load.ramp_up_strategy == RampCurve::Linear || open_loop,
        "--ramp-up-strategy exponential ramps a rate: add --request-rate R (concurrency ramps are "
        "linear)");
  check(load.ramp_up_s > 0 || (load.ramp_up_strategy == RampCurve::Linear &&
                               load.ramp_up_start_rps == 0 && !load.ramp_up_measured),
        "--ramp-up-strategy/--ramp-up-start-rps/--ramp-up-measured: only with --ramp-up-s S");
  if (load.burst_on_s != 0 || load.burst_off_s != 0) {  // --bursts shapes a paced open loop
    check(load.burst_on_s > 0 && load.burst_off_s >= 0,
          fmt::format("--bursts: bad value {}:{} (expected ON_S > 0 and OFF_S >= 0, e.g. 5:10)",
                      load.burst_on_s, load.burst_off_s));
    check(open_loop && !std::isinf(load.request_rate) && !load.pressure && load.ramp_up_s == 0,
          "--bursts turns a paced open loop on and off: give --request-rate R (a number, not "
          "inf), without --pressure or --ramp-up-s");
  }
  check(!load.pressure || load.duration_s > 0,
        "--pressure needs --duration-s S (how long each client loops; AISBench's --pressure-time)");
  check(!load.pressure || load.ramp_up_s == 0,
        "--pressure adds clients at --request-rate per second: drop --ramp-up-s");
  check(!load.pressure || load.concurrency_sweep.size() <= 1,
        "--pressure: give one --concurrency (the number of clients)");
  check(!load.pressure || load.arrivals == Arrivals::Poisson,
        "--pressure: clients loop back to back; drop --arrivals");
  for (const int c : load.concurrency_sweep)
    check(c >= 1,
          fmt::format("--concurrency: bad value {} in the list (expected positive integers)", c));
  for (const double r : load.request_rate_sweep)
    check(r > 0,
          fmt::format("--request-rate: bad value {} in the list (expected rates > 0, or inf)", r));
  for (const int64_t n : load.num_prompts_sweep)
    check(n >= 1, fmt::format("--num-prompts: bad value {} in the list (expected >= 1)", n));
  check(load.concurrency_sweep.empty() || load.request_rate_sweep.empty() ||
            load.concurrency_sweep.size() == load.request_rate_sweep.size(),
        fmt::format("--concurrency has {} values and --request-rate {}: lists are zipped point by "
                    "point; give them the same "
                    "length (or one of them a single value)",
                    load.concurrency_sweep.size(), load.request_rate_sweep.size()));
  const size_t load_points =
      std::max(load.concurrency_sweep.size(), load.request_rate_sweep.size());
  check(load.num_prompts_sweep.empty() || load.num_prompts_sweep.size() == load_points,
        fmt::format("--num-prompts has {} values for {} load point(s): a --num-prompts list pairs "
                    "with a --concurrency or "
                    "--request-rate list of the same length (EvalScope's --parallel/--number)",
                    load.num_prompts_sweep.size(), load_points));
}

// Series of load points, the in-run controller, SLOs, resume.
void RunConfig::validate_experiment(std::vector<std::string>& e) const {
  const Check check{e};
  check_ranges(experiment, experiment_fields(), e);  // each field in its range (settings/fields)
  check(!experiment.searching() || !experiment.slo.empty(),
        "--search needs --slo, e.g. --slo 'ttft.p99<=500ms,tpot.p90<=50ms'");
  check(experiment.slo.empty() || experiment.searching() || experiment.adaptive_window_s > 0 ||
            !target.server_grid.empty(),
        "--slo is what a --search, a --server-grid's points (or the --adaptive-window-s "
        "controller) must meet: add "
        "--search max-concurrency");
  if (experiment.adaptive_window_s > 0) {
    check(!experiment.slo.empty(),
          "--adaptive-window-s needs --slo (what each window must hold), e.g. --slo "
          "'ttft.p99<=500ms'");
    check(load.duration_s > 0,
          "--adaptive-window-s needs --duration-s (the controller runs for that long)");
    check(load.request_rate == 0 && !load.pressure && load.ramp_up_s == 0 &&
              !experiment.searching() && sweep_points() == 1 && experiment.repeats == 1,
          "--adaptive-window-s controls a closed loop's concurrency by itself: drop "
          "--request-rate, --pressure, "
          "--ramp-up-s, --search, lists and --repeats");
    check(experiment.adaptive_max >= std::max(load.concurrency, 1),
          fmt::format("--adaptive-max {} is below the starting --concurrency {}",
                      experiment.adaptive_max, load.concurrency));
  }
  check(!experiment.searching() || sweep_points() == 1,
        "--search chooses the load itself: give single values, not lists");
  check(experiment.search != SearchAxis::MaxRate || load.concurrency != 1,
        "--search max-rate: give --concurrency as the in-flight cap (e.g. 256); 1 would cap the "
        "rate, not the server");
  check(experiment.search != SearchAxis::MaxConcurrency || load.request_rate == 0,
        "--search max-concurrency is closed loop: drop --request-rate (or search max-rate)");
  check(
      experiment.search_min >= 0 && experiment.search_max >= 0 && experiment.search_resolution >= 0,
      "--search-min/--search-max/--search-resolution: expected numbers >= 0");
  check(experiment.search_max == 0 || experiment.search_min <= experiment.search_max,
        fmt::format("--search-min {} is above --search-max {}", experiment.search_min,
                    experiment.search_max));
  check(experiment.search_margin >= 0 && experiment.search_margin < 1,
        fmt::format("--search-margin: bad value {} (expected a share in [0, 1), e.g. 0.05)",
                    experiment.search_margin));
  check(experiment.searching() || (experiment.search_min == 0 && experiment.search_max == 0 &&
                                   experiment.search_resolution == 0),
        "--search-min/--search-max/--search-resolution: only with --search");
  check(!load.pressure || !experiment.searching(), "--pressure and --search: pick one");
  check(experiment.repeats == 1 || (!experiment.searching() && sweep_points() == 1),
        "--repeats repeats one load point: drop the list or --search (repeat each point as its own "
        "invocation)");
  check(experiment.confidence > 0 && experiment.confidence < 1,
        fmt::format("--confidence: bad value {} (expected a level in (0, 1), e.g. 0.95)",
                    experiment.confidence));
  if (experiment.schema_paired) {
    check(!request.json_schema.empty(),
          "--schema-paired measures what --json-schema costs: add --json-schema FILE");
    check(!experiment.searching() && sweep_points() == 1 && experiment.repeats == 1 &&
              experiment.adaptive_window_s == 0,
          "--schema-paired runs one load point twice: drop the list, --search, --repeats or "
          "--adaptive-window-s (pair each point as its own invocation)");
    check(!workload.sessions(),
          "--schema-paired pairs single requests prompt by prompt: drop --turns or the agent "
          "dataset (a session's turns depend on its earlier answers)");
  }
  if (experiment.interference) {
    check(load.classes.size() >= 2,
          "--interference measures how classes slow each other: give two --class or more, e.g. "
          "--class 'name=chat,concurrency=2' --class 'name=batch,concurrency=8'");
    check(!experiment.searching() && !experiment.schema_paired,
          "--interference runs its own series (each class alone, then together): drop --search "
          "or --schema-paired");
  }
  check(experiment.resume.empty() || experiment.searching() || experiment.repeats > 1 ||
            sweep_points() > 1 || !target.server_grid.empty() || experiment.schema_paired ||
            experiment.interference,
        "--resume finishes a sweep, search, repeats, --interference, --schema-paired pair or "
        "--server-grid: a single run has nothing to resume (run it again)");
  check(experiment.resume.empty() || std::filesystem::is_directory(experiment.resume),
        fmt::format(
            "--resume: '{}' is not a folder (give the root folder the interrupted run printed)",
            experiment.resume));
}

// Under mpirun: every rank runs these settings with a share of the load.
std::vector<std::string> RunConfig::multi_host_problems(int size) const {
  std::vector<std::string> e;
  auto check = [&](bool ok, std::string msg) {
    if (!ok) e.push_back(fmt::format("mpirun -np {}: {}", size, msg));
  };
  check(!embedded_target() && target.server_cmd.empty() && target.deploy_sh.empty(),
        "every rank needs the server's address, and the server must already be up: pass --url (or "
        "--host and --port); "
        "the built-in simulator, --server-cmd and --deploy-sh are single-host only (start tokbench "
        "serve-mock or your "
        "server first)");
  check(experiment.adaptive_window_s == 0,
        "--adaptive-window-s is single-host: its controller moves one in-flight level as its "
        "windows close");
  check(!load.pressure, "--pressure is single-host: its clients join one at a time on one clock");
  check(experiment.resume.empty(),
        "--resume is single-host: run the series again on one host, or resume it without mpirun");
  check(observe.live.empty(),
        "--live is single-host: each rank would show only its own requests (--otlp-endpoint "
        "exports every rank's to one collector)");
  const bool open_loop = load.request_rate > 0 || !load.request_rate_sweep.empty() ||
                         workload.dataset.is(dataset::Source::Trace);
  std::vector<int> levels =
      load.concurrency_sweep;  // a concurrency search sets its own levels (--search-min)
  if (levels.empty() && experiment.search != SearchAxis::MaxConcurrency)
    levels.push_back(std::max(load.concurrency, 1));  // auto: 1
  for (const int c : levels) {
    check(open_loop || !load.classes.empty() || c >= size,
          fmt::format("--concurrency {} is split across the ranks (a closed loop): give at least "
                      "one per rank ({})",
                      c, size));
  }
  for (const std::string& text : load.classes) {  // each closed class is split the same way
    try {
      const TrafficClass k = parse_traffic_class(text);
      for (size_t i = 0; i < k.sweep_points(); ++i) {  // each point of a list in it too
        const TrafficClass at = k.at_sweep_point(i);
        check(at.request_rate || at.concurrency.value_or(size) >= size,
              fmt::format("--class name={}: concurrency={} is split across the ranks (a closed "
                          "loop): give at least one per rank ({})",
                          k.name, at.concurrency.value_or(0), size));
      }
    } catch (const std::invalid_argument&) {  // said by validate()
    }
  }
  check(experiment.search != SearchAxis::MaxConcurrency || experiment.search_min >= size,
        fmt::format("--search max-concurrency is split across the ranks: give --search-min {} or "
                    "more (one stream per rank)",
                    size));
  return e;
}

}  // namespace tokbench::runner
