#include "runner/runner.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "client/engine.hpp"
#include "client/http_get.hpp"
#include "client/request_body.hpp"
#include "client/server_tokenizer.hpp"
#include "common/clock.hpp"
#include "common/json_writer.hpp"
#include "dataset/dataset.hpp"
#include "load/schedule.hpp"
#include "mock/mock_server.hpp"
#include "probe/server_metrics.hpp"
#include "probe/server_process.hpp"
#include "record/record_io.hpp"
#include "report/html.hpp"
#include "report/tables.hpp"
#include "runner/recorder.hpp"
#include "tokbench/version.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;
using record::RequestRecord;

namespace {

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? std::string(sep) : "") + v[i];
  return out;
}

// Resolves the model: GET /v1/models answers whether the server is there at all, and which
// model it serves; a wrong --model is caught here instead of failing every request.
std::string resolve_model(const RunConfig& cfg, const std::string& url, const std::string& api_key) {
  const std::string models_url = client::models_url_for(url);
  const auto res = client::http_get(models_url, cfg.headers, api_key, 10'000);
  if (!res.reached) {
    throw std::runtime_error(fmt::format(
        "cannot reach the server at {}: {} (is it running? check --url, or --host/--port)", models_url, res.error));
  }
  if (res.status == 401 || res.status == 403) {
    throw std::runtime_error(fmt::format("the server refused GET {} with HTTP {}: pass --api-key or set OPENAI_API_KEY",
                                         models_url, res.status));
  }
  std::vector<std::string> ids;
  if (res.status == 200) {
    try {
      ids = client::parse_model_ids(res.body);
    } catch (const std::exception&) {
      ids.clear();
    }
  }
  if (cfg.model.empty()) {
    if (ids.empty()) {
      throw std::runtime_error(fmt::format("could not learn the model from GET {} (HTTP {}): pass --model NAME",
                                           models_url, res.status));
    }
    return ids.front();
  }
  if (!ids.empty() && std::find(ids.begin(), ids.end(), cfg.model) == ids.end()) {
    throw std::runtime_error(fmt::format("model '{}' is not served at {} (it serves: {}): pass --model with one of those",
                                         cfg.model, models_url, join(ids, ", ")));
  }
  return cfg.model;
}

// Builds the synthetic dataset: with the local tokenizer, or with the server's /tokenize; the
// tokens the server adds around a prompt (chat template, BOS) are measured once with /tokenize
// and subtracted, so that usage.prompt_tokens equals --input-len. Returns how, as JSON.
std::string build_synthetic(const RunConfig& cfg, const std::string& url, const tokenizer::Tokenizer* tok,
                            dataset::Dataset& data, std::FILE* console) {
  const client::ServerTokenizer st{client::root_url_for(url), cfg.model, cfg.headers, cfg.api_key};
  const bool server_has = client::has_tokenize(st);
  std::unique_ptr<dataset::TokenCodec> codec;
  if (tok) {
    codec = dataset::local_codec(*tok);
  } else if (server_has) {
    codec = client::server_codec(st);
  } else {
    throw std::invalid_argument(fmt::format(
        "--dataset synthetic needs the model's tokenizer to build prompts of an exact length, and {} has no "
        "/tokenize: pass --tokenizer PATH (the model folder holding tokenizer.json)", st.root));
  }
  constexpr const char* kProbe = "The quick brown fox jumps over the lazy dog.";
  const auto local = static_cast<int64_t>(codec->encode(kProbe).size());
  int64_t overhead = 0;
  std::string how;
  if (auto server = server_has ? client::server_count(st, kProbe, cfg.endpoint == "chat") : std::nullopt) {
    overhead = *server - local;
    how = fmt::format("measured with {}/tokenize and subtracted", st.root);
  } else {
    how = "unknown: the server has no /tokenize, so usage.prompt_tokens also counts its chat template and BOS";
  }
  dataset::SyntheticOptions o;
  o.count = cfg.num_prompts;
  o.input_len = cfg.input_len;
  o.output_len = cfg.output_len;
  o.input_len_range = cfg.input_len_range;
  o.prefix_len = cfg.prefix_len;
  o.seed = cfg.seed;
  o.overhead = overhead;
  data = dataset::synthetic(o, *codec);
  fmt::print(console, "synthetic: {} prompts of {} tokens{} (+{} shared prefix), {} output tokens; built with {}; "
             "server-added tokens: {} ({})\n", o.count, o.input_len,
             o.input_len_range > 0 ? fmt::format(" ±{}%", o.input_len_range * 100) : "", o.prefix_len, o.output_len,
             codec->name(), overhead, how);
  JsonWriter w;
  w.begin_object().field("input_len", o.input_len).field("output_len", o.output_len);
  w.field("input_len_range", o.input_len_range).field("prefix_len", o.prefix_len).field("seed", o.seed);
  w.field("built_with", codec->name()).field("server_added_tokens", overhead).field("server_added_tokens_how", how);
  w.end_object();
  return w.take();
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int auto_workers(int concurrency) {
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::clamp((concurrency + 255) / 256, 1, cpus);
}

std::string now_iso(std::time_t t) {
  char buf[40];
  std::tm tm{};
  localtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &tm);
  return buf;
}

std::shared_ptr<spdlog::logger> make_logger(const fs::path& run_dir) {
  auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>((run_dir / "logs" / "run.log").string(), true);
  auto log = std::make_shared<spdlog::logger>("run", sink);
  log->set_pattern("%Y-%m-%d %H:%M:%S.%e %l %v");
  log->flush_on(spdlog::level::info);
  return log;
}

}  // namespace

report::Verdict judge(const metrics::MetricSet& m, const std::vector<RequestRecord>& records,
                      bool interrupted, double request_rate, double client_cpu_share) {
  report::Verdict v;
  if (interrupted) {
    v.reasons.push_back("interrupted: statistics cover only the requests that finished; rerun to completion");
  }
  std::map<std::string, int64_t> failures;
  int64_t measured = 0, failed = 0;
  for (const auto& r : records) {
    if (r.warmup) continue;
    ++measured;
    if (!r.ok()) {
      ++failed;
      ++failures[std::string(record::outcome_name(r.outcome))];
    }
  }
  if (failed > 0) {
    std::vector<std::string> parts;
    for (const auto& [k, n] : failures) parts.push_back(fmt::format("{} {}", n, k));
    v.reasons.push_back(fmt::format("{} of {} requests failed ({}): see the _failed.jsonl file and the server log",
                                    failed, measured, join(parts, ", ")));
  }
  if (measured == 0) v.reasons.push_back("no request was measured: raise --num-prompts");
  // Percentiles need samples: below 10 even P90 is the maximum; below 100, P99 interpolates the top two.
  const int64_t ok = measured - failed;
  if (ok > 0 && ok < 10) {
    v.reasons.push_back(fmt::format("only {} successful request(s): too few for P90/P99; raise --num-prompts to 100 or more", ok));
  } else if (ok >= 10 && ok < 100) {
    v.warnings.push_back(fmt::format("{} successful requests: P99 interpolates between the two slowest; use 100 or more "
                                     "for a stable P99", ok));
  }
  // ignore_eos promises max_tokens tokens; a server that ignores it makes TPOT incomparable.
  int64_t short_outputs = 0;
  for (const auto& r : records) {
    if (r.warmup || !r.ok() || !r.ignore_eos_sent || r.requested_max_tokens == record::kNone) continue;
    if (metrics::output_tokens(r) != r.requested_max_tokens) ++short_outputs;
  }
  if (short_outputs > 0) {
    v.reasons.push_back(fmt::format("{} request(s) with ignore_eos returned a different number of tokens than max_tokens: "
                                    "the server does not honour ignore_eos (check the model's generation config or drop "
                                    "--ignore-eos)", short_outputs));
  }
  if (client_cpu_share > 0.9) {
    v.reasons.push_back(fmt::format("the client's worker threads were busy {:.0f}% of the time: its own delays are in the "
                                    "timings; raise --workers or run the client on a bigger machine",
                                    100 * client_cpu_share));
  }
  if (request_rate > 0) {
    if (const auto* lag = m.row("SendLag"); lag && lag->stats && lag->stats->p99 > 50.0) {
      v.reasons.push_back(fmt::format(
          "send lag p99 was {:.1f} ms: the client could not keep the arrival schedule; raise --concurrency "
          "or lower --request-rate", lag->stats->p99));
    }
  }
  v.valid = v.reasons.empty();
  return v;
}

Written write_reports(const fs::path& run_dir, const fs::path& perf_dir, const std::vector<RequestRecord>& records,
                      const report::RunInfo& info, const metrics::RunFacts& facts, metrics::Definitions defs,
                      double request_rate, double client_cpu_share) {
  Written w{metrics::compute(records, facts, defs), {}, {}};
  w.verdict = judge(w.metrics, records, info.interrupted, request_rate, client_cpu_share);
  if (info.server_disagrees) {
    w.verdict.valid = false;
    w.verdict.reasons.push_back("the client and the server's /metrics disagree (see server.cross_check): other traffic on "
                                "the server, a proxy in between, or a client problem");
  }
  if (facts.stream) w.side_by_side = metrics::definitions_side_by_side(records, facts);
  const std::string& ds = info.dataset_abbr;
  report::write_file(perf_dir / (ds + ".csv"), report::performance_csv(w.metrics));
  report::write_file(perf_dir / (ds + ".json"), report::common_json(w.metrics));
  report::write_file(run_dir / "result.json", report::result_json(w.metrics, info, w.verdict, w.side_by_side));
  report::write_file(perf_dir / (ds + "_plot.html"),
                     report::html_report({records, w.metrics, info, w.verdict, w.side_by_side, facts.stream, request_rate > 0}));
  return w;
}

RunOutcome run_benchmark(const RunConfig& requested, std::atomic<int>& stop, std::FILE* console) {
  if (auto errs = requested.validate(); !errs.empty()) throw std::invalid_argument(join(errs, "\n"));
  RunConfig cfg = requested;
  if (cfg.api_key.empty()) {
    if (const char* k = std::getenv("OPENAI_API_KEY")) cfg.api_key = k;
  }
  std::vector<std::pair<std::string, std::string>> extra;
  if (!cfg.extra_body.empty()) {
    try {
      extra = client::parse_extra_body(cfg.extra_body);
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(e.what());  // a usage error: exit 2
    }
  }
  std::optional<tokenizer::Tokenizer> tok;
  if (!cfg.tokenizer.empty()) tok = tokenizer::Tokenizer::load(cfg.tokenizer);
  const bool synthetic = cfg.dataset == "synthetic";
  dataset::Dataset data;
  if (!synthetic) data = dataset::load(cfg.dataset);
  if (cfg.num_prompts == 0) cfg.num_prompts = synthetic ? 100 : static_cast<int64_t>(data.items.size());

  const std::time_t wall = std::time(nullptr);
  RunOutcome out;
  out.run_dir = report::make_run_dir(cfg.output_dir, wall);
  auto log = make_logger(out.run_dir);

  // A server tokbench starts itself (--server-cmd, --deploy-sh): up before anything is asked of it.
  std::unique_ptr<probe::ServerProcess> server_proc;
  std::string url = cfg.target_url();
  if (!cfg.server_cmd.empty() || !cfg.deploy_sh.empty()) {
    probe::ServerProcessSettings ps;
    ps.command = cfg.server_cmd.empty() ? "bash " + cfg.deploy_sh : cfg.server_cmd;
    if (!cfg.deploy_sh.empty()) {
      ps.env["MODEL_PATH"] = cfg.model_path;
      if (cfg.model.empty()) cfg.model = cfg.model_path;  // served model name = the model path
    }
    ps.log_path = out.run_dir / "logs" / "server.log";
    ps.ready_urls = {client::root_url_for(url) + "/health", client::models_url_for(url)};
    ps.ready_timeout_s = cfg.server_ready_timeout_s;
    ps.stop_grace_s = cfg.server_stop_grace_s;
    fmt::print(console, "starting the server: {} (log: {})\n", ps.command, ps.log_path.string());
    std::fflush(console);
    log->info("starting the server: {}", ps.command);
    server_proc = std::make_unique<probe::ServerProcess>(ps);
    server_proc->start_and_wait();
    log->info("server ready (pid {})", server_proc->pid());
  }

  // Target: the user's server, or the built-in simulator on a free loopback port.
  std::unique_ptr<mock::MockServer> sim;
  if (cfg.embedded_target()) {
    mock::MockSettings ms;
    ms.port = 0;
    ms.tokenizer_path = cfg.tokenizer;  // exact prompt counts and /tokenize when a tokenizer is given
    sim = std::make_unique<mock::MockServer>(ms);
    const uint16_t port = sim->start();
    url = fmt::format("http://127.0.0.1:{}/v1/{}", port, cfg.endpoint == "chat" ? "chat/completions" : "completions");
    fmt::print(console, "no --url or --host given: started the built-in simulator (tokbench serve-mock defaults) at {}\n", url);
  }
  cfg.model = resolve_model(cfg, url, cfg.api_key);
  if (cfg.model_abbr.empty()) cfg.model_abbr = report::file_safe(cfg.model);
  if (cfg.workers == 0) cfg.workers = auto_workers(cfg.concurrency);
  const auto defs = *metrics::definitions_from_name(cfg.compat);
  std::string synthetic_json;
  if (synthetic) synthetic_json = build_synthetic(cfg, url, tok ? &*tok : nullptr, data, console);

  client::BodySettings bs;
  bs.endpoint = cfg.endpoint == "chat" ? client::Endpoint::Chat : client::Endpoint::Completions;
  bs.model = cfg.model;
  bs.stream = cfg.stream;
  bs.max_tokens = cfg.max_tokens;
  bs.ignore_eos = cfg.ignore_eos || synthetic;  // synthetic requests always produce M tokens
  bs.min_tokens = cfg.min_tokens;
  bs.temperature = cfg.temperature;
  bs.continuous_usage = cfg.continuous_usage;
  bs.flavor = cfg.compat == "evalscope" ? client::Flavor::Evalscope
              : cfg.compat == "vllm"    ? client::Flavor::Vllm
              : cfg.compat == "sglang"  ? client::Flavor::Sglang
                                        : client::Flavor::Tokbench;
  bs.extra = extra;
  std::vector<std::string> warm_bodies, bodies;
  for (int64_t i = 0; i < cfg.warmup; ++i) warm_bodies.push_back(client::build_body(bs, dataset::cycle(data, static_cast<size_t>(i))));
  for (int64_t i = 0; i < cfg.num_prompts; ++i) bodies.push_back(client::build_body(bs, dataset::cycle(data, static_cast<size_t>(i))));

  out.perf_dir = out.run_dir / "performances" / cfg.model_abbr;
  fs::create_directories(out.perf_dir);

  report::RunInfo info;
  info.started_at = now_iso(wall);
  info.target_url = url;
  info.embedded_simulator = sim != nullptr;
  info.model = cfg.model;
  info.model_abbr = cfg.model_abbr;
  info.dataset = cfg.dataset;
  info.dataset_abbr = data.abbr;
  info.body_example = bodies.empty() ? "" : bodies.front();
  info.config_json = cfg.to_json();
  info.tokenizer = cfg.tokenizer;
  info.synthetic_json = synthetic_json;
  for (const auto& f : client::audit_body(info.body_example, cfg.endpoint == "chat")) info.audit.emplace_back(f.level, f.text);
  {
    JsonWriter w;
    w.begin_object().field_raw("requested", requested.to_json()).field_raw("effective", info.config_json);
    w.field("target_url", url).field("embedded_simulator", info.embedded_simulator);
    w.field("dataset_abbr", data.abbr).field("started_at", info.started_at).end_object();
    report::write_file(out.run_dir / "configs" / "run_config.json", w.take());
  }
  log->info("tokbench {} ({}{})", kVersion, kGitHash, kGitDirty ? ", dirty" : "");
  log->info("requested config: {}", requested.to_json());
  log->info("effective config: {}", info.config_json);
  log->info("target {}{}; model {}; dataset {} ({} items)", url, sim ? " (built-in simulator)" : "", cfg.model,
            cfg.dataset, data.items.size());
  log->info("request body of the first request: {}", info.body_example);
  fmt::print(console, "target {}  model {}  dataset {}  requests {}  concurrency {}{}\n", url, cfg.model, data.abbr,
             cfg.num_prompts, cfg.concurrency,
             cfg.request_rate > 0 ? fmt::format("  rate {} req/s (Poisson)", cfg.request_rate) : "");
  fmt::print(console, "request body: {}\n", info.body_example);
  {
    std::string audit = fmt::format("request body sent (template: the first request; --compat {}):\n{}\n\n", cfg.compat,
                                    info.body_example);
    for (const auto& [level, text] : info.audit) {
      fmt::print(console, "  {}: {}\n", level, text);
      audit += fmt::format("{}: {}\n", level, text);
      log->info("audit {}: {}", level, text);
    }
    report::write_file(out.run_dir / "configs" / "request_audit.txt", audit);
  }
  std::fflush(console);

  client::EngineSettings es;
  es.url = url;
  es.headers = cfg.headers;
  es.api_key = cfg.api_key;
  es.stream = cfg.stream;
  es.concurrency = cfg.concurrency;
  es.workers = cfg.workers;
  es.timeout_ms = static_cast<int64_t>(cfg.timeout_s * 1000);
  es.retries = cfg.retries;
  es.drain_timeout_ms = static_cast<int64_t>(cfg.drain_s * 1000);
  es.reserve_chunks = static_cast<size_t>(std::clamp<int64_t>(std::max(cfg.max_tokens, cfg.output_len) + 8, 16, 8192));
  es.keep_text = tok.has_value();
  std::atomic<int64_t> started{0};  // requests sent in the measured phase (progress: in flight)
  es.started = &started;
  client::Engine engine(es);
  Recorder recorder(out.perf_dir, data.abbr, tok ? &*tok : nullptr,
                    [&data](const RequestRecord& r) -> const dataset::RequestSpec& {
                      return dataset::cycle(data, static_cast<size_t>(r.index));
                    },
                    cfg.max_tokens, bs.ignore_eos || bs.flavor == client::Flavor::Sglang);
  const int64_t origin = steady_now_ns();
  auto on_done = [&](RequestRecord&& r) { recorder.add(std::move(r)); };

  if (!warm_bodies.empty()) {
    log->info("warm-up: {} request(s)", warm_bodies.size());
    engine.run(warm_bodies, {}, origin, true, 0, on_done, stop);
    const auto warm = recorder.warmup_records();
    if (!warm.empty() && std::none_of(warm.begin(), warm.end(), [](const auto& r) { return r.ok(); })) {
      throw std::runtime_error(fmt::format("all {} warm-up request(s) failed, first: {} {} (check --url and --model; "
                                           "details in {})",
                                           warm.size(), record::outcome_name(warm.front().outcome),
                                           warm.front().error, out.perf_dir.string()));
    }
  }

  // Progress on stderr while the measured phase runs: one rewritten line on a terminal, plain
  // periodic lines otherwise (logs, CI).
  std::atomic<bool> finished{false};
  started = 0;  // warm-up requests are not part of the measured phase
  std::thread progress;
  if (!cfg.quiet) {
    const bool tty = isatty(fileno(stderr));
    const double every_s = cfg.progress_interval_s > 0 ? cfg.progress_interval_s : tty ? 1.0 : 10.0;
    progress = std::thread([&, tty, every_s] {
      const int64_t t0 = steady_now_ns();
      int64_t next = t0 + static_cast<int64_t>(every_s * 1e9);
      while (!finished.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (steady_now_ns() < next) continue;
        next += static_cast<int64_t>(every_s * 1e9);
        const double el = static_cast<double>(steady_now_ns() - t0) / 1e9;
        const int64_t done = recorder.measured_done();
        const double rps = el > 0 ? static_cast<double>(done) / el : 0;
        const std::string eta = rps > 0 && cfg.request_rate <= 0
                                    ? fmt::format("{:.0f}s", static_cast<double>(cfg.num_prompts - done) / rps)
                                    : cfg.request_rate > 0 ? fmt::format("{:.0f}s", std::max(0.0, static_cast<double>(cfg.num_prompts) / cfg.request_rate - el))
                                                           : "?";
        const std::string line = fmt::format(
            "{}/{} done, {} in flight, {:.1f} req/s, {:.0f} output tok/s, {} failed, ETA {}", done, cfg.num_prompts,
            started.load() - done, rps, el > 0 ? static_cast<double>(recorder.output_tokens()) / el : 0.0,
            recorder.failed(), eta);
        if (tty) {
          fmt::print(stderr, "\r\033[K{}", line);
        } else {
          fmt::print(stderr, "progress: {}\n", line);
        }
        std::fflush(stderr);
      }
      if (tty) fmt::print(stderr, "\r\033[K");
    });
  }
  // The server's own view: /metrics before, during and after the measured phase.
  std::unique_ptr<probe::Scraper> scraper;
  if (cfg.server_metrics != "off") {
    const std::string murl = cfg.server_metrics.empty() ? client::root_url_for(url) + "/metrics" : cfg.server_metrics;
    scraper = std::make_unique<probe::Scraper>(murl, cfg.headers, cfg.api_key, cfg.scrape_interval_ms, origin);
    if (scraper->scrape_once()) {
      scraper->start();
      log->info("scraping {} every {} ms", murl, cfg.scrape_interval_ms);
    } else {
      if (!cfg.server_metrics.empty())
        fmt::print(console, "warning: cannot scrape --server-metrics {}: {}\n", murl, scraper->last_error());
      log->info("no server metrics at {}: {}", murl, scraper->last_error());
      scraper.reset();
    }
  }
  // --profile-window: the server's profiler on for a slice of the measured phase.
  std::thread profiler;
  std::string profile_json;
  std::atomic<bool> measured_done{false};
  if (!cfg.profile_window.empty()) {
    double start_s = 0, duration_s = 0;
    std::sscanf(cfg.profile_window.c_str(), "%lf:%lf", &start_s, &duration_s);
    profiler = std::thread([&, start_s, duration_s] {
      const std::string root = client::root_url_for(url);
      const int64_t t0 = steady_now_ns();
      auto sleep_until = [&](double s) {
        while (!measured_done && steady_now_ns() - t0 < static_cast<int64_t>(s * 1e9))
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
      };
      sleep_until(start_s);
      if (measured_done) {
        profile_json = fmt::format("{{\"window\":\"{}\",\"started\":false,\"note\":\"the run ended before the window\"}}",
                                   cfg.profile_window);
        return;
      }
      const auto started = client::http_post(root + "/start_profile", "{}", cfg.headers, cfg.api_key, 30'000);
      const double started_at = static_cast<double>(steady_now_ns() - t0) / 1e9;
      sleep_until(start_s + duration_s);
      const auto stopped = client::http_post(root + "/stop_profile", "{}", cfg.headers, cfg.api_key, 60'000);
      const double stopped_at = static_cast<double>(steady_now_ns() - t0) / 1e9;
      JsonWriter w;
      w.begin_object().field("window", cfg.profile_window).field("started", true);
      w.field("start_status", started.status).field("started_at_s", started_at);
      w.field("stop_status", stopped.status).field("stopped_at_s", stopped_at);
      w.field("cut_short", stopped_at < start_s + duration_s - 0.05).end_object();
      profile_json = w.take();
      log->info("profile window: /start_profile HTTP {} at {:.3f} s, /stop_profile HTTP {} at {:.3f} s", started.status,
                started_at, stopped.status, stopped_at);
    });
  }
  const auto schedule = load::poisson_schedule(cfg.num_prompts, cfg.request_rate, cfg.seed);
  log->info("measured phase: {} request(s), {} worker thread(s)", bodies.size(), cfg.workers);
  const int64_t measured_start = steady_now_ns();
  const auto counters = engine.run(bodies, schedule, origin, false, 0, on_done, stop);
  const double measured_wall_s = static_cast<double>(steady_now_ns() - measured_start) / 1e9;
  recorder.drain();
  if (scraper) scraper->stop();
  measured_done = true;
  if (profiler.joinable()) profiler.join();
  info.profile_json = profile_json;
  if (server_proc) {
    const std::string how = server_proc->stop();
    log->info("server {}", how);
    const auto sl = probe::parse_vllm_log(read_text(out.run_dir / "logs" / "server.log"));
    JsonWriter w;
    w.begin_object().field("command", cfg.server_cmd.empty() ? "bash " + cfg.deploy_sh : cfg.server_cmd);
    w.field("stopped", how).field("log", (out.run_dir / "logs" / "server.log").string());
    w.key("log_summary").begin_object().field("throughput_lines", sl.throughput_lines);
    w.field("mean_generation_throughput", sl.mean_generation_throughput).field("mean_prompt_throughput", sl.mean_prompt_throughput);
    w.field("max_running", sl.max_running).field("max_waiting", sl.max_waiting).field("spec_lines", sl.spec_lines);
    w.field("last_mean_acceptance_length", sl.last_mean_acceptance_length);
    w.field("accepted_tokens", sl.accepted_tokens).field("drafted_tokens", sl.drafted_tokens);
    w.key("per_position_acceptance").begin_array();
    for (double p : sl.per_position_acceptance) w.value(p);
    w.end_array().end_object().end_object();
    info.server_process_json = w.take();
    if (sl.throughput_lines > 0 || sl.spec_lines > 0) {
      fmt::print(console, "server log: mean generation throughput {:.1f} tokens/s over {} line(s){}\n",
                 sl.mean_generation_throughput, sl.throughput_lines,
                 sl.spec_lines ? fmt::format(", mean acceptance length {:.2f} (last SpecDecoding line)", sl.last_mean_acceptance_length) : "");
    }
  }
  finished = true;
  if (progress.joinable()) progress.join();
  out.interrupted = stop.load() != client::kRunning;
  if (out.interrupted) log->warn("interrupted: stopped sending; in-flight requests drained or cancelled");
  sim.reset();

  info.interrupted = out.interrupted;
  info.origin_steady_ns = origin;
  info.client_events = counters.events;
  info.client_cpu_s = static_cast<double>(counters.cpu_ns) / 1e9;
  const auto records = recorder.take();
  std::optional<probe::ServerSummary> server;
  std::vector<probe::CrossCheck> checks;
  if (scraper) {
    server = probe::summarize(scraper->snapshots(), scraper->url());
    if (server) {
      const auto client_view = metrics::compute(records, {cfg.concurrency, cfg.stream}, metrics::Definitions::Tokbench);
      auto mean_of = [&](const char* row) -> std::optional<double> {
        const auto* r = client_view.row(row);
        return r && r->stats ? std::optional<double>(r->stats->mean) : std::nullopt;
      };
      checks = probe::cross_check(*server, client_view.common_metric("total_generated_tokens")->value, mean_of("TPOT"),
                                  mean_of("TTFT"));
      info.server_json = report::server_json(*server, checks);
      info.server_disagrees = std::any_of(checks.begin(), checks.end(), [](const auto& c) { return !c.agree; });
      report::write_file(out.run_dir / "server.json", info.server_json);
    }
  }
  const double cpu_share = measured_wall_s > 0 ? static_cast<double>(counters.cpu_ns) / 1e9 / (measured_wall_s * cfg.workers) : -1;
  auto written = write_reports(out.run_dir, out.perf_dir, records, info, {cfg.concurrency, cfg.stream}, defs,
                               cfg.request_rate, cpu_share);
  out.metrics = written.metrics;
  out.verdict = written.verdict;
  log->info("verdict: {} {}", out.verdict.valid ? "VALID" : "INVALID", join(out.verdict.reasons, "; "));

  fmt::print(console, "\n{}", report::console_tables(out.metrics));
  if (!written.side_by_side.empty()) fmt::print(console, "{}", report::definitions_table(written.side_by_side));
  if (server) fmt::print(console, "{}", report::server_tables(*server, checks));
  fmt::print(console, "verdict: {}\n", out.verdict.valid ? "VALID" : "INVALID");
  for (const auto& r : out.verdict.reasons) fmt::print(console, "  - {}\n", r);
  for (const auto& r : out.verdict.warnings) fmt::print(console, "  warning: {}\n", r);
  fmt::print(console, "results: {}\n  report:  {}\n  tables:  {}\n  details: {}\n  summary: {}\n  log:     {}\n",
             out.run_dir.string(), (out.perf_dir / (data.abbr + "_plot.html")).string(),
             (out.perf_dir / (data.abbr + ".csv")).string(),
             (out.perf_dir / (data.abbr + "_details.jsonl")).string(), (out.run_dir / "result.json").string(),
             (out.run_dir / "logs" / "run.log").string());
  std::fflush(console);
  const auto* ok = out.metrics.common_metric("success_requests");
  out.exit_code = out.interrupted ? 130 : (ok && ok->value > 0 ? 0 : 1);
  return out;
}

}  // namespace tokbench::runner
