#include "settings/run_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "client/http1.hpp"
#include "client/request_body.hpp"
#include "common/abbreviate.hpp"
#include "common/json_writer.hpp"
#include "common/redact.hpp"
#include "core/engines.hpp"
#include "dataset/dataset.hpp"
#include "dataset/images.hpp"
#include "settings/load_shape.hpp"
#include "settings/server_grid.hpp"

namespace tokbench::runner {

namespace {

// "http://h:p/v1/chat/completions?x" -> "/v1/chat/completions"; "" when the URL has no path.
std::string url_path(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (slash == std::string::npos) return "";
  return url.substr(slash, url.find_first_of("?#", slash) - slash);
}

// A path that names the server, not an API: none, "/", or OpenAI's base URL ".../v1" (what an
// OpenAI client's base_url holds); --endpoint (default chat) completes it.
bool base_path(const std::string& path) {
  return path.empty() || path == "/" || path == "/v1" || path == "/v1/";
}

// The API a URL's path names: its name, "" (a base path: --endpoint decides) or "?" (a path of
// something else).
std::string endpoint_of_path(const std::string& path) {
  if (base_path(path)) return "";
  const client::ApiAdapter* api = client::api_of_path(path);
  return api ? std::string(api->name()) : "?";
}

// Collects every problem of a config at once, each naming the flag and the fix.
struct Check {
  std::vector<std::string>& e;
  void operator()(bool ok, std::string msg) const {
    if (!ok) e.push_back(std::move(msg));
  }
};

}  // namespace

const client::ApiAdapter& api_of(const std::string& endpoint) {
  const client::ApiAdapter* api = client::find_api(endpoint);
  return api ? *api : client::default_api();
}

std::string endpoint_path(const std::string& endpoint) {
  return std::string(api_of(endpoint).path());
}

// Where requests go and as whom; the server tokbench may start.
void RunConfig::validate_target(std::vector<std::string>& e) const {
  const Check check{e};
  check(engine == "auto" || core::engine_named(engine),
        fmt::format("--engine: unknown engine '{}' (expected auto or one of {})", engine,
                    core::engine_names()));
  check(endpoint.empty() || client::find_api(endpoint),
        fmt::format("--endpoint: bad value '{}' (expected one of: {})", endpoint,
                    client::api_names_described()));
  for (const auto& [flag, path] :
       {std::pair{"--ca-bundle", ca_bundle}, {"--cert", tls_cert}, {"--key", tls_key}}) {
    check(path.empty() || std::ifstream(path).good(),
          fmt::format("{}: cannot read '{}' (expected a PEM file)", flag, path));
  }
  check(tls_key.empty() || !tls_cert.empty(),
        "--key needs --cert (the client certificate it belongs to)");
  check(url.empty() || host.empty(),
        fmt::format("--url and --host: give one (--url {} already names the host, port and path)",
                    url));
  // A control character or space in the URL would reach the request line (CR/LF: a header of the
  // URL's making); no valid URL holds one.
  const size_t bad =
      std::find_if(url.begin(), url.end(),
                   [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; }) -
      url.begin();
  check(bad == url.size(),
        fmt::format("--url: a space or control character at position {} (a URL holds none: "
                    "percent-encode it, e.g. %20 for a space)",
                    bad + 1));
  if (!url.empty() && (url.starts_with("http://") || url.starts_with("https://"))) {
    // The URL's path decides the endpoint; a body for one endpoint posted to another fails every
    // request.
    const std::string named = endpoint_of_path(url_path(url));
    check(named != "?",
          fmt::format(
              "--url: the path '{}' names no endpoint tokbench speaks (expected a path ending in "
              "one of {}, or a base URL such as http://host:8000/v1)",
              url_path(url), client::api_paths()));
    check(endpoint.empty() || named.empty() || named == "?" || named == endpoint,
          fmt::format("--endpoint {} conflicts with --url {} (its path is the {} endpoint): drop "
                      "--endpoint, or fix the URL",
                      endpoint, url, named));
  }
  check(url.empty() || url.starts_with("http://") || url.starts_with("https://"),
        fmt::format("--url: bad value '{}' (expected a full URL, e.g. "
                    "http://127.0.0.1:8000/v1/chat/completions)",
                    url));
  check(port > 0 && port < 65536, fmt::format("--port: bad value {} (expected 1..65535)", port));
  check(server_cmd.empty() || deploy_sh.empty(),
        "--server-cmd and --deploy-sh: give one, not both");
  check(server_cmd.empty() || !url.empty() || !host.empty(),
        "--server-cmd needs the server's address: pass --url (or --host and --port) too");
  check(deploy_sh.empty() || !model_path.empty(),
        "--deploy-sh needs --model-path (exported as MODEL_PATH)");
  std::vector<GridAxis> axes;
  if (!server_grid.empty()) {
    check(!server_cmd.empty() || !deploy_sh.empty(),
          "--server-grid starts a server per configuration: give --server-cmd with {KEY} "
          "placeholders (or --deploy-sh, "
          "which gets the values as environment variables)");
    try {
      axes = parse_server_grid(server_grid);
    } catch (const std::invalid_argument& bad) {
      e.push_back(bad.what());
    }
  }
  if (!server_cmd.empty() && (axes.size() > 0 || server_grid.empty()))
    for (auto& problem : template_problems(server_cmd, axes)) e.push_back(std::move(problem));
  check(server_devices >= 1,
        fmt::format(
            "--server-devices: bad value {} (expected the accelerators one server uses, >= 1)",
            server_devices));
  check(
      server_ready_timeout_s > 0,
      fmt::format("--server-ready-timeout-s: bad value {} (expected > 0)", server_ready_timeout_s));
  check(server_stop_grace_s >= 0,
        fmt::format("--server-stop-grace-s: bad value {} (expected >= 0)", server_stop_grace_s));
  // A control character in a header would be a header of its own on the wire (CR/LF), or a
  // request the server cannot read: refused from every source (a flag, a YAML config, the
  // environment's key in make_plan).
  const auto has_control = [](std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) {
      const auto u = static_cast<unsigned char>(c);
      return (u < 0x20 && c != '\t') || u == 0x7F;
    });
  };
  for (const auto& h : headers) {
    check(h.find(':') != std::string::npos && h.find(':') > 0,
          fmt::format("--header: bad value '{}' (expected 'Key: Value')", printable(h)));
    check(!has_control(h),
          fmt::format("--header: '{}' holds a control character (CR/LF would start a header of "
                      "its own): give one 'Key: Value' per --header",
                      redact_header(printable(h))));
  }
  check(!has_control(api_key),
        "--api-key: the key holds a control character (a CR/LF would start a header of its own): "
        "check how it was pasted");
  check(!request_id_header.empty() &&
            request_id_header.find_first_of(": \t\r\n") == std::string::npos,
        fmt::format("--request-id-header: bad value '{}' (expected a header name such as "
                    "X-Request-Id, or none)",
                    request_id_header));
}

// What each request sends and what the API at the target takes.
void RunConfig::validate_request(std::vector<std::string>& e) const {
  const Check check{e};
  check(timeout_s == 0 || timeout_s >= 0.001,
        fmt::format("--timeout-s: bad value {} (expected 0 for no timeout, or at least 0.001: "
                    "libcurl counts whole ms)",
                    timeout_s));
  check(retries >= 0, fmt::format("--retries: bad value {} (expected >= 0)", retries));
  check(warmup >= 0, fmt::format("--warmup: bad value {} (expected >= 0)", warmup));
  check(workers >= 0,
        fmt::format("--workers: bad value {} (expected >= 0; 0 = automatic)", workers));
  check(max_tokens >= 0,
        fmt::format("--max-tokens: bad value {} (expected >= 0; 0 = not sent)", max_tokens));
  check(!min_tokens || *min_tokens >= 0,
        fmt::format("--min-tokens: bad value {} (expected >= 0)", min_tokens.value_or(0)));
  check(drain_s >= 0, fmt::format("--drain-s: bad value {} (expected >= 0)", drain_s));
  if (const client::ApiAdapter* api =
          client::find_api(resolved_endpoint())) {  // what this API takes
    const client::ApiCaps caps = api->caps();
    check(!caps.requires_cap || max_tokens > 0,
          fmt::format("--max-tokens 0: {} requires max_tokens (an output cap) in every request; "
                      "give --max-tokens N (or "
                      "per-line max_tokens)",
                      api->title()));
    const auto flavor = client::flavor_named(metrics::definitions_name(compat));
    check(!flavor || api->takes_flavor(*flavor),
          fmt::format("--compat {}: reproduces that tool's OpenAI request bodies; {} is not what "
                      "it sends (use "
                      "--compat tokbench; --compat sglang reproduces bench_serving's native "
                      "/generate payload)",
                      metrics::definitions_name(compat), api->path()));
    check(caps.stream_options || !continuous_usage,
          fmt::format("--continuous-usage: an OpenAI chat/completions stream option; {} ({}) "
                      "reports usage its own way: "
                      "drop it",
                      api->title(), api->path()));
  }
  check(max_event_bytes >= 1024,
        fmt::format("--max-event-bytes: bad value {} (expected >= 1024)", max_event_bytes));
  check(max_body_bytes >= 1024,
        fmt::format("--max-body-bytes: bad value {} (expected >= 1024)", max_body_bytes));
}

// The dataset, the prompts made from it, sessions, images, traces and adapters.
void RunConfig::validate_workload(std::vector<std::string>& e) const {
  const Check check{e};
  using dataset::Source;
  check(turns >= 0 && turns <= 10'000,
        fmt::format("--turns: bad value {} (expected 0 to 10000; 0 = single requests)", turns));
  check(think_time_ms >= 0 && std::isfinite(think_time_ms),
        fmt::format("--think-time-ms: bad value {} (expected >= 0)", think_time_ms));
  check(think_time_ms == 0 || sessions(),
        "--think-time-ms: only with --turns N or --multi-turn (multi-turn sessions)");
  if (sessions()) {  // a session's next turn goes when its answer is in: nothing else paces it
    check(request_rate == 0 && request_rate_sweep.empty() && !pressure && adaptive_window_s == 0 &&
              duration_s == 0 && !searching() && ramp_up_s == 0 && !dataset.is(Source::Trace),
          "--turns: sessions send each turn when the last answer is in (and --think-time-ms has "
          "passed), with "
          "--concurrency sessions at once; drop --request-rate, --pressure, --duration-s, "
          "--ramp-up-s, "
          "--adaptive-window-s, --search and trace datasets");
    check(api_of(resolved_endpoint()).caps().conversation,
          fmt::format("--turns: sessions are conversations; use an endpoint that takes them ({})",
                      client::api_paths(&client::ApiCaps::conversation)));
  }
  if (!image.empty()) {
    check(api_of(resolved_endpoint()).caps().images,
          fmt::format("--image: images go in chat messages; use an endpoint that takes them ({})",
                      client::api_paths(&client::ApiCaps::images)));
  }
  check(images_per_request >= 1 && images_per_request <= 16,
        fmt::format("--images-per-request: bad value {} (expected 1 to 16)", images_per_request));
  check(images_per_request == 1 || !image.empty(), "--images-per-request: only with --image WxH");
  check(documents >= 1 && documents <= 1000,
        fmt::format("--documents: bad value {} (expected 1 to 1000)", documents));
  check(documents == 4 || api_of(resolved_endpoint()).caps().documents,
        fmt::format("--documents: only with an API that ranks documents ({})",
                    client::api_paths(&client::ApiCaps::documents)));
  for (const auto& name : lora)
    check(!name.empty(),
          "--lora: an empty name (expected served model or adapter names, e.g. --lora "
          "sql-lora,chat-lora)");
}

// What is watched beside the records: /metrics, the profile window.
void RunConfig::validate_observe(std::vector<std::string>& e) const {
  const Check check{e};
  check(scrape_interval_ms >= 50,
        fmt::format("--scrape-interval-ms: bad value {} (expected >= 50)", scrape_interval_ms));
  check(server_metrics.empty() || server_metrics == "off" ||
            server_metrics.starts_with("http://") || server_metrics.starts_with("https://"),
        fmt::format("--server-metrics: bad value '{}' (expected a URL such as "
                    "http://host:8000/metrics, or off)",
                    server_metrics));
  check(keep_outputs >= 0,
        fmt::format("--keep-outputs: bad value {} (expected >= 0 requests)", keep_outputs));
  check(determinism_probe == 0 || (determinism_probe >= 2 && determinism_probe <= 1000),
        fmt::format("--determinism-probe: bad value {} (expected 2 to 1000 identical requests)",
                    determinism_probe));
  check(determinism_probe == 0 || (temperature && *temperature == 0),
        "--determinism-probe compares outputs that greedy decoding makes identical: add "
        "--temperature 0 (sampled outputs "
        "differ by design)");
  check(determinism_probe == 0 || (!sessions() && adaptive_window_s == 0),
        "--determinism-probe spreads its probes over a counted or timed run: it does not combine "
        "with --turns, "
        "--multi-turn or --adaptive-window-s");
}

void RunConfig::validate_load(std::vector<std::string>& e) const {
  const Check check{e};
  check(concurrency >= 0,
        fmt::format("--concurrency: bad value {} (expected a positive integer, or auto)",
                    concurrency));
  check(num_prompts >= 0,
        fmt::format("--num-prompts: bad value {} (expected >= 0; 0 = one pass over the dataset)",
                    num_prompts));
  check(
      request_rate >= 0,
      fmt::format("--request-rate: bad value {} (expected a number >= 0, e.g. 12.5; 0 = no pacing; "
                  "inf = all at once)",
                  request_rate));
  const bool open_loop = request_rate > 0 || !request_rate_sweep.empty();
  using Arrivals = core::ArrivalKind;
  const auto arrivals_name = core::kArrivalKinds.name(arrivals);
  check(burstiness > 0,
        fmt::format(
            "--burstiness: bad value {} (expected > 0: 1 = Poisson, < 1 burstier, > 1 steadier)",
            burstiness));
  check(burstiness == 1 || arrivals == Arrivals::Gamma,
        fmt::format(
            "--burstiness {} shapes gamma arrivals: add --arrivals gamma (or drop --burstiness)",
            burstiness));
  check(arrivals == Arrivals::Poisson || open_loop || pressure,
        fmt::format("--arrivals {} needs --request-rate R (arrivals shape an open loop)",
                    arrivals_name));
  check(duration_s >= 0,
        fmt::format("--duration-s: bad value {} (expected seconds > 0; 0 = run by count)",
                    duration_s));
  check(grace_s >= 0, fmt::format("--grace-s: bad value {} (expected >= 0)", grace_s));
  check(ramp_up_s >= 0, fmt::format("--ramp-up-s: bad value {} (expected >= 0)", ramp_up_s));
  check(ramp_up_start_rps >= 0,
        fmt::format("--ramp-up-start-rps: bad value {} (expected >= 0)", ramp_up_start_rps));
  check(ramp_up_s == 0 || !std::isinf(request_rate),
        "--ramp-up-s with --request-rate inf: there is no rate to ramp; give a number");
  check(ramp_up_strategy == RampCurve::Linear || open_loop,
        "--ramp-up-strategy exponential ramps a rate: add --request-rate R (concurrency ramps are "
        "linear)");
  check(ramp_up_s > 0 ||
            (ramp_up_strategy == RampCurve::Linear && ramp_up_start_rps == 0 && !ramp_up_measured),
        "--ramp-up-strategy/--ramp-up-start-rps/--ramp-up-measured: only with --ramp-up-s S");
  check(!pressure || duration_s > 0,
        "--pressure needs --duration-s S (how long each client loops; AISBench's --pressure-time)");
  check(!pressure || ramp_up_s == 0,
        "--pressure adds clients at --request-rate per second: drop --ramp-up-s");
  check(!pressure || concurrency_sweep.size() <= 1,
        "--pressure: give one --concurrency (the number of clients)");
  check(!pressure || arrivals == Arrivals::Poisson,
        "--pressure: clients loop back to back; drop --arrivals");
  for (const int c : concurrency_sweep)
    check(c >= 1,
          fmt::format("--concurrency: bad value {} in the list (expected positive integers)", c));
  for (const double r : request_rate_sweep)
    check(r > 0,
          fmt::format("--request-rate: bad value {} in the list (expected rates > 0, or inf)", r));
  for (const int64_t n : num_prompts_sweep)
    check(n >= 1, fmt::format("--num-prompts: bad value {} in the list (expected >= 1)", n));
  check(concurrency_sweep.empty() || request_rate_sweep.empty() ||
            concurrency_sweep.size() == request_rate_sweep.size(),
        fmt::format("--concurrency has {} values and --request-rate {}: lists are zipped point by "
                    "point; give them the same "
                    "length (or one of them a single value)",
                    concurrency_sweep.size(), request_rate_sweep.size()));
  const size_t load_points = std::max(concurrency_sweep.size(), request_rate_sweep.size());
  check(num_prompts_sweep.empty() || num_prompts_sweep.size() == load_points,
        fmt::format("--num-prompts has {} values for {} load point(s): a --num-prompts list pairs "
                    "with a --concurrency or "
                    "--request-rate list of the same length (EvalScope's --parallel/--number)",
                    num_prompts_sweep.size(), load_points));
  check(!searching() || !slo.empty(),
        "--search needs --slo, e.g. --slo 'ttft.p99<=500ms,tpot.p90<=50ms'");
  check(slo.empty() || searching() || adaptive_window_s > 0 || !server_grid.empty(),
        "--slo is what a --search, a --server-grid's points (or the --adaptive-window-s "
        "controller) must meet: add "
        "--search max-concurrency");
  check(adaptive_window_s >= 0,
        fmt::format("--adaptive-window-s: bad value {} (expected seconds > 0)", adaptive_window_s));
  if (adaptive_window_s > 0) {
    check(!slo.empty(),
          "--adaptive-window-s needs --slo (what each window must hold), e.g. --slo "
          "'ttft.p99<=500ms'");
    check(duration_s > 0,
          "--adaptive-window-s needs --duration-s (the controller runs for that long)");
    check(request_rate == 0 && !pressure && ramp_up_s == 0 && !searching() && sweep_points() == 1 &&
              repeats == 1,
          "--adaptive-window-s controls a closed loop's concurrency by itself: drop "
          "--request-rate, --pressure, "
          "--ramp-up-s, --search, lists and --repeats");
    check(adaptive_max >= std::max(concurrency, 1),
          fmt::format("--adaptive-max {} is below the starting --concurrency {}", adaptive_max,
                      concurrency));
  }
  check(!searching() || sweep_points() == 1,
        "--search chooses the load itself: give single values, not lists");
  check(search != SearchAxis::MaxRate || concurrency != 1,
        "--search max-rate: give --concurrency as the in-flight cap (e.g. 256); 1 would cap the "
        "rate, not the server");
  check(search != SearchAxis::MaxConcurrency || request_rate == 0,
        "--search max-concurrency is closed loop: drop --request-rate (or search max-rate)");
  check(search_min >= 0 && search_max >= 0 && search_resolution >= 0,
        "--search-min/--search-max/--search-resolution: expected numbers >= 0");
  check(search_max == 0 || search_min <= search_max,
        fmt::format("--search-min {} is above --search-max {}", search_min, search_max));
  check(search_margin >= 0 && search_margin < 1,
        fmt::format("--search-margin: bad value {} (expected a share in [0, 1), e.g. 0.05)",
                    search_margin));
  check(searching() || (search_min == 0 && search_max == 0 && search_resolution == 0),
        "--search-min/--search-max/--search-resolution: only with --search");
  check(!pressure || !searching(), "--pressure and --search: pick one");
  check(slice_s == 0 || slice_s >= 0.01,
        fmt::format("--slice-s: bad value {} (expected 0 for none, or at least 0.01 s)", slice_s));
  for (const auto& t : telemetry)
    check(t == "nvml" || t.starts_with("http://") || t.starts_with("https://"),
          fmt::format("--telemetry: bad value '{}' (expected an exporter's URL such as "
                      "http://gpu-host:9400/metrics, or nvml)",
                      t));
  check(telemetry_interval_ms >= 100 && telemetry_interval_ms <= 60000,
        fmt::format("--telemetry-interval-ms: bad value {} (expected 100 to 60000)",
                    telemetry_interval_ms));
  check(telemetry_idle_s >= 0 && telemetry_idle_s <= 600,
        fmt::format("--telemetry-idle-s: bad value {} (expected 0 to 600)", telemetry_idle_s));
  check(price_per_device_hour >= 0 && price_per_kwh >= 0,
        "--price-per-device-hour, --price-per-kwh: a price cannot be negative");
  check(!telemetry.empty() || (telemetry_idle_s == 0 && price_per_kwh == 0),
        "--telemetry-idle-s and --price-per-kwh need --telemetry (the devices' power and energy "
        "come from it); --price-per-device-hour alone does not (it counts --server-devices)");
  if (transport == core::TransportKind::Sockets && !embedded_target()) {
    std::string
        why;  // parsed before the message is made: an argument's order of evaluation is unspecified
    const bool plain = client::parse_http_url(target_url(), &why).has_value();
    check(plain, fmt::format("--transport sockets reads plain http:// only, and {} cannot be read "
                             "that way ({}): use "
                             "--transport auto or libcurl",
                             redact_url(target_url()), why));
  }
  check(repeats >= 1, fmt::format("--repeats: bad value {} (expected >= 1)", repeats));
  check(repeats == 1 || (!searching() && sweep_points() == 1),
        "--repeats repeats one load point: drop the list or --search (repeat each point as its own "
        "invocation)");
  check(confidence > 0 && confidence < 1,
        fmt::format("--confidence: bad value {} (expected a level in (0, 1), e.g. 0.95)",
                    confidence));
  check(saturation_window_s >= 0.1 && saturation_window_s <= 600,
        fmt::format("--saturation-window-s: bad value {} (expected 0.1 to 600 seconds)",
                    saturation_window_s));
  check(resume.empty() || searching() || repeats > 1 || sweep_points() > 1 || !server_grid.empty(),
        "--resume finishes a sweep, search, repeats or --server-grid: a single run has nothing to "
        "resume (run it again)");
  check(resume.empty() || std::filesystem::is_directory(resume),
        fmt::format(
            "--resume: '{}' is not a folder (give the root folder the interrupted run printed)",
            resume));
}

size_t RunConfig::sweep_points() const {
  return std::max(
      {concurrency_sweep.size(), request_rate_sweep.size(), num_prompts_sweep.size(), size_t{1}});
}

RunConfig RunConfig::sweep_point(size_t i) const {
  RunConfig c = *this;
  if (i < concurrency_sweep.size()) c.concurrency = concurrency_sweep[i];
  if (i < request_rate_sweep.size()) c.request_rate = request_rate_sweep[i];
  if (i < num_prompts_sweep.size()) c.num_prompts = num_prompts_sweep[i];
  c.concurrency_sweep.clear();
  c.request_rate_sweep.clear();
  c.num_prompts_sweep.clear();
  return c;
}

std::string RunConfig::sweep_label(size_t i) const {
  std::string out;
  auto add = [&](char tag, const std::string& v) {
    out += fmt::format("{}{}{}", out.empty() ? "" : "-", tag, v);
  };
  if (i < concurrency_sweep.size()) add('c', std::to_string(concurrency_sweep[i]));
  if (i < request_rate_sweep.size())
    add('r', std::isinf(request_rate_sweep[i]) ? std::string("inf")
                                               : fmt::format("{}", request_rate_sweep[i]));
  if (i < num_prompts_sweep.size()) add('n', std::to_string(num_prompts_sweep[i]));
  if (!out.empty()) return out;
  // No list: the point's own load names it (a one-point --server-grid's point read "p1").
  const LoadShape shape = load_shape(*this);
  if (!shape.open_loop()) return fmt::format("c{}", shape.max_in_flight());
  if (request_rate > 0)
    return std::isinf(request_rate) ? std::string("rinf") : fmt::format("r{}", request_rate);
  return fmt::format("p{}", i + 1);
}

std::string RunConfig::resolved_endpoint() const {
  if (!endpoint.empty()) return endpoint;
  if (!url.empty()) {
    const std::string named = endpoint_of_path(url_path(url));
    if (!named.empty() && named != "?") return named;
  }
  return std::string(client::default_api().name());
}

std::string RunConfig::target_url() const {
  const std::string endpoint = resolved_endpoint();
  if (!url.empty()) {
    const std::string path = url_path(url);
    if (!base_path(path)) return url;
    const std::string root = url.substr(0, url.size() - path.size());  // http://host:port
    return fmt::format("{}{}", root, endpoint_path(endpoint));
  }
  if (host.empty() && !deploy_sh.empty())  // AtomGit: deploy.sh serves on port 8000
    return fmt::format("http://127.0.0.1:8000{}", endpoint_path(endpoint));
  if (host.empty()) return {};
  const bool v6 = host.find(':') != std::string::npos && host.front() != '[';
  return fmt::format("http://{}{}{}:{}{}", v6 ? "[" : "", host, v6 ? "]" : "", port,
                     endpoint_path(endpoint));
}

std::string RunConfig::to_json() const {
  JsonWriter w;
  w.begin_object();
  w.field("url", redact_url(url))
      .field("host", host)
      .field("port", port)
      .field("endpoint", endpoint);
  w.field("skip_model_check", skip_model_check);
  w.field("ca_bundle", ca_bundle)
      .field("tls_cert", tls_cert)
      .field("tls_key", tls_key.empty() ? "" : std::string(kRedacted));
  w.field("insecure", insecure).field("transport", core::kTransportChoices.name(transport));
  w.field("engine", engine);
  w.field("model", model).field("api_key", api_key.empty() ? "" : "***redacted***");
  w.key("headers").begin_array();
  for (const auto& h : headers) w.value(redact_header(h));
  w.end_array();
  w.field("request_id_header", request_id_header);
  w.field("server_cmd", redact_command(server_cmd))
      .field("deploy_sh", deploy_sh)
      .field("model_path", model_path);
  w.field("server_ready_timeout_s", server_ready_timeout_s)
      .field("server_stop_grace_s", server_stop_grace_s);
  w.field("server_grid", server_grid).field("server_devices", server_devices);
  w.field("resume", resume).field("reset_prefix_cache", reset_prefix_cache);
  w.field("stop_on_saturation", stop_on_saturation)
      .field("saturation_window_s", saturation_window_s);
  w.field("stream", stream).field("max_tokens", max_tokens).field("ignore_eos", ignore_eos);
  w.key("min_tokens");
  if (min_tokens)
    w.value(*min_tokens);
  else
    w.null();
  w.key("temperature");
  if (temperature)
    w.value(*temperature);
  else
    w.null();
  w.field("extra_body", extra_body).field("continuous_usage", continuous_usage);
  w.field("concurrency", concurrency).field("num_prompts", num_prompts);
  if (std::isinf(request_rate))
    w.field("request_rate", "inf");
  else
    w.field("request_rate", request_rate);
  w.key("concurrency_sweep").begin_array();
  for (const int c : concurrency_sweep) w.value(c);
  w.end_array().key("request_rate_sweep").begin_array();
  for (const double r : request_rate_sweep) {
    if (std::isinf(r))
      w.value("inf");
    else
      w.value(r);
  }
  w.end_array().key("num_prompts_sweep").begin_array();
  for (const int64_t n : num_prompts_sweep) w.value(n);
  w.end_array();
  w.field("arrivals", core::kArrivalKinds.name(arrivals))
      .field("burstiness", burstiness)
      .field("duration_s", duration_s)
      .field("grace_s", grace_s);
  w.field("ramp_up_s", ramp_up_s)
      .field("ramp_up_strategy", kRampCurves.name(ramp_up_strategy))
      .field("ramp_up_start_rps", ramp_up_start_rps);
  w.field("ramp_up_measured", ramp_up_measured)
      .field("pressure", pressure)
      .field("goodput", goodput);
  w.field("search", kSearchAxes.name(search))
      .field("slo", slo)
      .field("search_min", search_min)
      .field("search_max", search_max);
  w.field("search_resolution", search_resolution).field("search_margin", search_margin);
  w.field("repeats", repeats).field("confidence", confidence).field("slice_s", slice_s);
  w.field("warm_connections", kToggles.name(warm_connections));
  w.field("adaptive_window_s", adaptive_window_s).field("adaptive_max", adaptive_max);
  w.field("timeout_s", timeout_s).field("retries", retries);
  w.field("max_event_bytes", max_event_bytes).field("max_body_bytes", max_body_bytes);
  w.field("warmup", warmup).field("workers", workers).field("seed", seed).field("drain_s", drain_s);
  w.field("dataset", dataset.text()).field("tokenizer", tokenizer).field("input_len", input_len);
  w.field("output_len", output_len)
      .field("input_len_range", input_len_range)
      .field("prefix_len", prefix_len);
  w.field("output_len_range", output_len_range).field("sharegpt_output_len", sharegpt_output_len);
  w.field("trace_block_size", trace_block_size).field("trace_speed", trace_speed);
  w.field("turns", turns).field("think_time_ms", think_time_ms).field("multi_turn", multi_turn);
  w.field("image", image).field("images_per_request", images_per_request);
  w.field("documents", documents);
  w.key("lora").begin_array();
  for (const auto& name : lora) w.value(name);
  w.end_array();
  w.field("output_dir", output_dir).field("model_abbr", model_abbr).field("history", history);
  w.key("labels").begin_array();
  for (const auto& l : labels) w.value(l);
  w.end_array();
  w.field("profile_window", profile_window);
  w.field("compat", metrics::definitions_name(compat))
      .field("server_metrics", redact_url(server_metrics))
      .field("scrape_interval_ms", scrape_interval_ms);
  w.field("server_metrics_auth", server_metrics_auth);
  w.key("telemetry").begin_array();
  for (const auto& t : telemetry) w.value(redact_url(t));
  w.end_array()
      .field("telemetry_interval_ms", telemetry_interval_ms)
      .field("telemetry_idle_s", telemetry_idle_s);
  w.field("price_per_device_hour", price_per_device_hour).field("price_per_kwh", price_per_kwh);
  w.field("check_answers", check_answers)
      .field("keep_outputs", keep_outputs)
      .field("determinism_probe", determinism_probe);
  w.end_object();
  return w.take();
}

}  // namespace tokbench::runner
