#include "runner/run_config.hpp"

#include "common/redact.hpp"

#include <fstream>

#include <fmt/format.h>

#include <cstdio>

#include "common/json_writer.hpp"

namespace tokbench::runner {

namespace {

// "http://h:p/v1/chat/completions?x" -> "/v1/chat/completions"; "" when the URL has no path.
std::string url_path(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (slash == std::string::npos) return "";
  return url.substr(slash, url.find_first_of("?#", slash) - slash);
}

// "chat", "completions", "" (no path: --endpoint decides) or "?" (a path of something else).
std::string endpoint_of_path(const std::string& path) {
  if (path.empty() || path == "/") return "";
  if (path.ends_with("/chat/completions") || path.ends_with("/chat/completions/")) return "chat";
  if (path.ends_with("/completions") || path.ends_with("/completions/")) return "completions";
  return "?";
}

}  // namespace

std::vector<std::string> RunConfig::validate() const {
  std::vector<std::string> e;
  auto check = [&](bool ok, std::string msg) {
    if (!ok) e.push_back(std::move(msg));
  };
  check(endpoint.empty() || endpoint == "chat" || endpoint == "completions",
        fmt::format("--endpoint: bad value '{}' (expected chat or completions)", endpoint));
  for (const auto& [flag, path] : {std::pair{"--ca-bundle", ca_bundle}, {"--cert", tls_cert}, {"--key", tls_key}}) {
    check(path.empty() || std::ifstream(path).good(),
          fmt::format("{}: cannot read '{}' (expected a PEM file)", flag, path));
  }
  check(tls_key.empty() || !tls_cert.empty(), "--key needs --cert (the client certificate it belongs to)");
  check(url.empty() || host.empty(),
        fmt::format("--url and --host: give one (--url {} already names the host, port and path)", url));
  if (!url.empty() && (url.starts_with("http://") || url.starts_with("https://"))) {
    // The URL's path decides the endpoint; a body for one endpoint posted to another fails every request.
    const std::string named = endpoint_of_path(url_path(url));
    check(named != "?", fmt::format("--url: the path '{}' names no endpoint tokbench speaks (expected .../v1/chat/completions "
                                    "or .../v1/completions, or no path at all)", url_path(url)));
    check(endpoint.empty() || named.empty() || named == "?" || named == endpoint,
          fmt::format("--endpoint {} conflicts with --url {} (its path is the {} endpoint): drop --endpoint, or fix the URL",
                      endpoint, url, named));
  }
  check(url.empty() || url.starts_with("http://") || url.starts_with("https://"),
        fmt::format("--url: bad value '{}' (expected a full URL, e.g. http://127.0.0.1:8000/v1/chat/completions)", url));
  check(port > 0 && port < 65536, fmt::format("--port: bad value {} (expected 1..65535)", port));
  check(concurrency >= 1, fmt::format("--concurrency: bad value {} (expected a positive integer)", concurrency));
  check(num_prompts >= 0, fmt::format("--num-prompts: bad value {} (expected >= 0; 0 = one pass over the dataset)", num_prompts));
  check(request_rate >= 0, fmt::format("--request-rate: bad value {} (expected a number >= 0, e.g. 12.5; 0 = no pacing)", request_rate));
  check(timeout_s == 0 || timeout_s >= 0.001,
        fmt::format("--timeout-s: bad value {} (expected 0 for no timeout, or at least 0.001: libcurl counts whole ms)",
                    timeout_s));
  check(retries >= 0, fmt::format("--retries: bad value {} (expected >= 0)", retries));
  check(warmup >= 0, fmt::format("--warmup: bad value {} (expected >= 0)", warmup));
  check(workers >= 0, fmt::format("--workers: bad value {} (expected >= 0; 0 = automatic)", workers));
  check(max_tokens >= 0, fmt::format("--max-tokens: bad value {} (expected >= 0; 0 = not sent)", max_tokens));
  check(!min_tokens || *min_tokens >= 0, fmt::format("--min-tokens: bad value {} (expected >= 0)", min_tokens.value_or(0)));
  check(drain_s >= 0, fmt::format("--drain-s: bad value {} (expected >= 0)", drain_s));
  check(compat == "tokbench" || compat == "aisbench" || compat == "evalscope" || compat == "vllm" || compat == "sglang",
        fmt::format("--compat: bad value '{}' (expected tokbench, aisbench, evalscope, vllm or sglang)", compat));
  check(server_cmd.empty() || deploy_sh.empty(), "--server-cmd and --deploy-sh: give one, not both");
  check(server_cmd.empty() || !url.empty() || !host.empty(),
        "--server-cmd needs the server's address: pass --url (or --host and --port) too");
  check(deploy_sh.empty() || !model_path.empty(), "--deploy-sh needs --model-path (exported as MODEL_PATH)");
  check(server_ready_timeout_s > 0, fmt::format("--server-ready-timeout-s: bad value {} (expected > 0)", server_ready_timeout_s));
  check(server_stop_grace_s >= 0, fmt::format("--server-stop-grace-s: bad value {} (expected >= 0)", server_stop_grace_s));
  if (!profile_window.empty()) {
    double a = -1, b = -1;
    char extra = 0;
    check(std::sscanf(profile_window.c_str(), "%lf:%lf%c", &a, &b, &extra) == 2 && a >= 0 && b > 0,
          fmt::format("--profile-window: bad value '{}' (expected START_S:DURATION_S, e.g. 10:5)", profile_window));
  }
  check(dataset != "synthetic" || num_prompts <= 1'000'000,
        fmt::format("--num-prompts: {} synthetic prompts would all be built before the run; use at most 1000000 with "
                    "--dataset synthetic, or a file dataset (it cycles) for longer soak runs", num_prompts));
  {
    const bool file_kind = (dataset.rfind("qa:", 0) == 0 || dataset.rfind("gsm8k:", 0) == 0) &&
                           dataset.size() > dataset.find(':') + 1;
    check(dataset == "builtin" || dataset == "synthetic" || file_kind,
          fmt::format("--dataset: bad value '{}' (expected qa:PATH, gsm8k:PATH, synthetic or builtin)", dataset));
  }
  check(max_event_bytes >= 1024, fmt::format("--max-event-bytes: bad value {} (expected >= 1024)", max_event_bytes));
  check(max_body_bytes >= 1024, fmt::format("--max-body-bytes: bad value {} (expected >= 1024)", max_body_bytes));
  check(scrape_interval_ms >= 50, fmt::format("--scrape-interval-ms: bad value {} (expected >= 50)", scrape_interval_ms));
  check(server_metrics.empty() || server_metrics == "off" || server_metrics.starts_with("http://") ||
            server_metrics.starts_with("https://"),
        fmt::format("--server-metrics: bad value '{}' (expected a URL such as http://host:8000/metrics, or off)", server_metrics));
  const bool synthetic = dataset == "synthetic";
  check(!synthetic || input_len > 0, "--dataset synthetic needs --input-len N (tokens per prompt)");
  check(!synthetic || output_len > 0, "--dataset synthetic needs --output-len M (tokens per answer)");
  check(synthetic || (input_len == 0 && output_len == 0 && prefix_len == 0 && input_len_range == 0),
        "--input-len/--output-len/--input-len-range/--prefix-len: only with --dataset synthetic");
  check(input_len_range >= 0 && input_len_range < 1,
        fmt::format("--input-len-range: bad value {} (expected a ratio in [0, 1), e.g. 0.1)", input_len_range));
  check(prefix_len >= 0, fmt::format("--prefix-len: bad value {} (expected >= 0)", prefix_len));
  for (const auto& h : headers) {
    check(h.find(':') != std::string::npos && h.find(':') > 0,
          fmt::format("--header: bad value '{}' (expected 'Key: Value')", h));
  }
  return e;
}

std::string RunConfig::resolved_endpoint() const {
  if (!endpoint.empty()) return endpoint;
  if (!url.empty()) {
    const std::string named = endpoint_of_path(url_path(url));
    if (named == "chat" || named == "completions") return named;
  }
  return "chat";
}

std::string RunConfig::target_url() const {
  const std::string endpoint = resolved_endpoint();
  if (!url.empty()) {
    const std::string path = url_path(url);
    if (!path.empty() && path != "/") return url;
    const std::string root = path == "/" ? url.substr(0, url.size() - 1) : url;
    return fmt::format("{}/v1/{}", root, endpoint == "chat" ? "chat/completions" : "completions");
  }
  if (host.empty() && !deploy_sh.empty())  // AtomGit: deploy.sh serves on port 8000
    return fmt::format("http://127.0.0.1:8000/v1/{}", endpoint == "chat" ? "chat/completions" : "completions");
  if (host.empty()) return {};
  const bool v6 = host.find(':') != std::string::npos && host.front() != '[';
  return fmt::format("http://{}{}{}:{}/v1/{}", v6 ? "[" : "", host, v6 ? "]" : "", port,
                     endpoint == "chat" ? "chat/completions" : "completions");
}

std::string RunConfig::to_json() const {
  JsonWriter w;
  w.begin_object();
  w.field("url", redact_url(url)).field("host", host).field("port", port).field("endpoint", endpoint);
  w.field("skip_model_check", skip_model_check);
  w.field("ca_bundle", ca_bundle).field("tls_cert", tls_cert).field("tls_key", tls_key.empty() ? "" : std::string(kRedacted));
  w.field("insecure", insecure);
  w.field("model", model).field("api_key", api_key.empty() ? "" : "***redacted***");
  w.key("headers").begin_array();
  for (const auto& h : headers) w.value(redact_header(h));
  w.end_array();
  w.field("server_cmd", redact_command(server_cmd)).field("deploy_sh", deploy_sh).field("model_path", model_path);
  w.field("server_ready_timeout_s", server_ready_timeout_s).field("server_stop_grace_s", server_stop_grace_s);
  w.field("stream", stream).field("max_tokens", max_tokens).field("ignore_eos", ignore_eos);
  w.key("min_tokens");
  if (min_tokens) w.value(*min_tokens); else w.null();
  w.key("temperature");
  if (temperature) w.value(*temperature); else w.null();
  w.field("extra_body", extra_body).field("continuous_usage", continuous_usage);
  w.field("concurrency", concurrency).field("num_prompts", num_prompts);
  w.field("request_rate", request_rate).field("timeout_s", timeout_s).field("retries", retries);
  w.field("max_event_bytes", max_event_bytes).field("max_body_bytes", max_body_bytes);
  w.field("warmup", warmup).field("workers", workers).field("seed", seed).field("drain_s", drain_s);
  w.field("dataset", dataset).field("tokenizer", tokenizer).field("input_len", input_len);
  w.field("output_len", output_len).field("input_len_range", input_len_range).field("prefix_len", prefix_len);
  w.field("output_dir", output_dir).field("model_abbr", model_abbr);
  w.field("profile_window", profile_window);
  w.field("compat", compat).field("server_metrics", redact_url(server_metrics)).field("scrape_interval_ms", scrape_interval_ms);
  w.field("server_metrics_auth", server_metrics_auth);
  w.end_object();
  return w.take();
}

}  // namespace tokbench::runner
