#include "measure/execute.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "client/engine.hpp"
#include "common/clock.hpp"
#include "common/redact.hpp"
#include "common/wakeup_floor.hpp"
#include "load/adaptive.hpp"
#include "load/agents.hpp"
#include "load/sessions.hpp"
#include "load/source.hpp"
#include "measure/observers.hpp"
#include "measure/progress.hpp"
#include "measure/recorder.hpp"
#include "measure/saturation_watch.hpp"
#include "measure/target.hpp"
#include "net/http_get.hpp"
#include "probe/profile_window.hpp"
#include "probe/server_metrics.hpp"
#include "probe/telemetry_scraper.hpp"
#include "runfolder/run_folder.hpp"

namespace tokbench::runner {

namespace {

constexpr int kFloorDeadlines = 200;  // the wake-up floor's calibration: 0.2 s, 1 ms apart

double process_cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// The tls settings of the target's part: the trust, the client certificate and key.
net::TlsSettings tls_of(const TargetSettings& target) {
  return {target.ca_bundle, target.tls_cert, target.tls_key, target.insecure};
}

client::EngineSettings engine_settings(const Target& t, const RunPlan& plan) {
  const RunConfig& cfg = plan.cfg;
  client::EngineSettings es;
  es.url = t.url;
  es.headers = cfg.target.headers;
  // A --header of the same name is the user's own id: it is sent as given, and none of ours.
  if (cfg.target.request_id_header != "none" &&
      !net::has_header(cfg.target.headers, cfg.target.request_id_header))
    es.request_id_header = cfg.target.request_id_header;
  es.trace_context =
      cfg.target.trace_context && !net::has_header(cfg.target.headers, "traceparent");
  es.api_key = cfg.target.api_key;
  es.api = t.body.api;
  es.stream = cfg.request.stream;
  es.concurrency = plan.load.max_in_flight();
  es.workers = cfg.load.workers;
  es.timeout_ms = static_cast<int64_t>(cfg.request.timeout_s * 1000);
  es.retries = cfg.request.retries;
  es.drain_timeout_ms = static_cast<int64_t>(cfg.load.drain_s * 1000);
  es.reserve_chunks = static_cast<size_t>(
      std::clamp<int64_t>(std::max(cfg.request.max_tokens, cfg.workload.output_len) + 8, 16, 8192));
  // --json-schema: every answer is read against its schema.
  es.keep_text = t.tok.has_value() || cfg.observe.reads_outputs() || plan.json_schema;
  es.max_event_bytes = static_cast<size_t>(cfg.request.max_event_bytes);
  es.max_body_bytes = static_cast<size_t>(cfg.request.max_body_bytes);
  es.tls = tls_of(cfg.target);
  es.transport = cfg.target.transport;
  return es;
}

// The server's own view: /metrics before, during and after the measured phase.
std::unique_ptr<probe::Scraper> start_scraper(const Target& t, const ObserveSettings& observe,
                                              const TargetSettings& target, size_t max_body_bytes,
                                              int64_t origin_ns, spdlog::logger& log,
                                              std::FILE* console) {
  if (observe.server_metrics == "off") return nullptr;
  const std::string url = observe.server_metrics.empty() ? net::root_url_for(t.url) + "/metrics"
                                                         : observe.server_metrics;
  // Credentials go only to the target's own host, unless asked (--server-metrics-auth).
  const bool same_host = net::root_url_for(url) == net::root_url_for(t.url);
  std::vector<std::string> headers;
  for (const auto& h : target.headers)
    if (same_host || observe.server_metrics_auth || redact_header(h) == h) headers.push_back(h);
  auto scraper = std::make_unique<probe::Scraper>(
      url, headers, same_host || observe.server_metrics_auth ? target.api_key : "",
      observe.scrape_interval_ms, origin_ns, max_body_bytes, tls_of(target), target.engine);
  if (!scraper->scrape_once()) {
    if (!observe.server_metrics.empty())
      fmt::print(console, "warning: cannot scrape --server-metrics {}: {}\n", redact_url(url),
                 scraper->last_error());
    log.info("no server metrics at {}: {}", redact_url(url), scraper->last_error());
    return nullptr;
  }
  scraper->start();
  log.info("scraping {} every {} ms", redact_url(url), observe.scrape_interval_ms);
  return scraper;
}

// The devices (--telemetry): scraped from before the warm-up (after --telemetry-idle-s with no
// load) to after the measured phase, into the run folder's telemetry.jsonl.
std::unique_ptr<probe::TelemetryScraper> start_telemetry(
    const ObserveSettings& observe, const net::TlsSettings& tls, size_t max_body_bytes,
    const std::filesystem::path& perf_dir, int64_t origin_ns, const std::atomic<int>& stop,
    spdlog::logger& log, std::FILE* console) {
  if (observe.telemetry.empty()) return nullptr;
  auto scraper = std::make_unique<probe::TelemetryScraper>(
      probe::telemetry_readers(observe.telemetry, max_body_bytes, tls),
      observe.telemetry_interval_ms, origin_ns, perf_dir / runfolder::kTelemetryFile);
  for (const auto& e : scraper->scrape_now()) {
    fmt::print(console, "warning: --telemetry {} (the run goes on; the verdict notes the gap)\n",
               e);
    log.warn("telemetry: {}", e);
  }
  if (observe.telemetry_idle_s > 0) {
    const int64_t from = steady_now_ns() - origin_ns,
                  idle_ns = static_cast<int64_t>(observe.telemetry_idle_s * 1e9);
    scraper->mark_idle(from, from + idle_ns);
    scraper->start();
    log.info("telemetry: {} s with no load (idle power)", observe.telemetry_idle_s);
    while (steady_now_ns() - origin_ns < from + idle_ns && stop.load() == client::kRunning)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    scraper->scrape_now();  // the idle window's end is covered
  } else {
    scraper->start();
  }
  log.info("telemetry: {} source(s) every {} ms", observe.telemetry.size(),
           observe.telemetry_interval_ms);
  return scraper;
}

void warm_up(client::Engine& engine, const Target& t, const RunPlan& plan, Recorder& recorder,
             int64_t origin_ns, std::atomic<int>& stop, const std::filesystem::path& perf_dir,
             spdlog::logger& log) {
  const int64_t warmup = plan.cfg.load.warmup;
  if (warmup <= 0) return;
  log.info("warm-up: {} request(s)", warmup);
  load::CountedSource source(warmup, true, load::closed_loop(), t.maker(plan));
  engine.run(
      source, origin_ns, [&](record::RequestRecord&& r) { recorder.add(std::move(r)); }, stop);
  recorder.drain();
  const WarmupTally w = recorder.warmup();
  if (w.total > 0 && w.ok == 0) {
    throw std::runtime_error(
        fmt::format("all {} warm-up request(s) failed, first: {} (check --url and --model; "
                    "details in {})",
                    w.total, w.first_failure, perf_dir.string()));
  }
}

// The in-run controller's windows, on the console and in the log.
record::AdaptiveLog adaptive_log(const load::AdaptiveSource& controller, spdlog::logger& log,
                                 std::FILE* console) {
  for (const auto& w : controller.windows()) {
    fmt::print(console, "  window {:>3} {:>7.1f}-{:<7.1f}s  concurrency {:<5} {:<5} {}\n", w.index,
               w.start_s, w.end_s, w.concurrency, w.pass ? "pass" : "fail", w.action);
  }
  fmt::print(console, "adaptive: {}\n", controller.summary());
  record::AdaptiveLog out = controller.log();
  log.info("adaptive: {}", record::to_json(out));
  return out;
}

// --determinism-probe K: every (N/K)-th request of the N planned (a timed run: of one pass over
// the dataset) asks the first item; --keep-outputs N: the first N keep their prompts.
OutputPlan output_plan(const ObserveSettings& observe, int64_t count, const Target& target) {
  OutputPlan out;
  out.keep_prompts = observe.keep_outputs;
  if (observe.determinism_probe > 0) {
    const int64_t n =
        count > 0 ? count : std::max<int64_t>(1, static_cast<int64_t>(target.data.items.size()));
    out.probes = observe.determinism_probe;
    out.probe_every = std::max<int64_t>(1, n / out.probes);
  }
  return out;
}

// A --duration-s phase: what is still in flight `after_ns` past the phase start is cut.
void cut_at(client::EngineSettings& es, const LoadSettings& settings, int64_t after_ns) {
  es.cut_after_ns = after_ns;
  es.cut_reason = fmt::format("still in flight {} s after --duration-s {} ended: cut",
                              settings.grace_s, settings.duration_s);
}

// The measured phase's source (and the engine's cut deadline) for a counted load shape.
std::unique_ptr<load::CountedSource> measured_source(
    const LoadSettings& settings, const LoadShape& load, int64_t count, core::RequestMaker make,
    client::EngineSettings& es, const std::vector<int64_t>& schedule_ns, const RankShare& share) {
  load::PhaseLimits limits{count};
  limits.shard_rank = share.rank;
  limits.shard_size = share.size;
  if (std::holds_alternative<TraceReplay>(
          load.shape))  // each request at its own time, the cap only as a ceiling
    return std::make_unique<load::CountedSource>(limits, false, load::fixed(schedule_ns),
                                                 std::move(make));
  const int64_t ramp_ns = static_cast<int64_t>(load.ramp.seconds * 1e9);
  limits.measured_from_ns =
      load.ramp.measured ? 0 : ramp_ns;  // an excluded ramp is recorded as warm-up
  if (load.duration_s > 0) {
    // An excluded ramp comes before the measured --duration-s; a measured one is part of it.
    limits.duration_ns = limits.measured_from_ns + static_cast<int64_t>(load.duration_s * 1e9);
    cut_at(es, settings, limits.duration_ns + static_cast<int64_t>(load.grace_s * 1e9));
  }
  if (const auto* p = std::get_if<Pressure>(&load.shape)) {
    return std::make_unique<load::CountedSource>(
        load::pressure_ramp(limits, p->clients, p->clients_per_s), false, load::closed_loop(),
        std::move(make));
  }
  if (const auto* open = std::get_if<OpenLoop>(&load.shape)) {
    load::ArrivalShape shape;
    shape.rate_rps = open->rate_rps;
    shape.kind = open->process;
    shape.burstiness = open->burstiness;
    shape.burst_on_s = open->burst_on_s;
    shape.burst_off_s = open->burst_off_s;
    shape.ramp_s = load.ramp.seconds;
    shape.exponential_ramp = load.ramp.exponential;
    shape.ramp_start_rps = shape.exponential_ramp && load.ramp.start_rps <= 0
                               ? std::min(1.0, open->rate_rps)
                               : load.ramp.start_rps;
    return std::make_unique<load::CountedSource>(
        limits, false, load::open_loop(shape, settings.seed), std::move(make));
  }
  return std::make_unique<load::CountedSource>(
      load::linear_concurrency_ramp(limits, load.max_in_flight(), ramp_ns), false,
      load::closed_loop(), std::move(make));
}

// The measured phase's requests, by the kind of load: the in-run controller (its pool is its
// ceiling; it decides how much is used), sessions (--num-prompts conversations, each answer in
// its session's next body), or a counted shape (closed, open, pressure, a trace's schedule).
std::unique_ptr<load::RequestSource> phase_source(const Target& target, const RunPlan& plan,
                                                  int64_t count, client::EngineSettings& es,
                                                  const RankShare& share,
                                                  load::AdaptiveSource** controller) {
  const LoadShape& load = plan.load;
  if (const auto* a = std::get_if<Adaptive>(&load.shape)) {
    es.concurrency = a->max;
    cut_at(es, plan.cfg.load, static_cast<int64_t>((load.duration_s + load.grace_s) * 1e9));
    auto controlled = std::make_unique<load::AdaptiveSource>(
        a->start, a->max, static_cast<int64_t>(a->window_s * 1e9),
        static_cast<int64_t>(load.duration_s * 1e9), metrics::slo_window_judge(plan.parsed.slos),
        target.maker(plan));
    *controller = controlled.get();
    return controlled;
  }
  // Sessions draw the point's prompts (a --class's own) and send its body.
  const dataset::Dataset& data = target.data_at(plan);
  if (const auto* s = std::get_if<Sessions>(&load.shape); s && !data.agents.empty()) {
    es.keep_content = true;  // each answer's content goes back in its task's next turn
    return std::make_unique<load::AgentSource>(
        data.agents, plan.cfg.load.num_prompts, s->active, plan.cfg.load.seed,
        [&target, body = target.body_at(plan)](const load::AgentTurn& t) {
          return target.make_agent_turn(body, t);
        },
        share.rank, share.size);
  }
  if (const auto* s = std::get_if<Sessions>(&load.shape)) {
    es.keep_text = true;
    std::vector<int64_t> turns_of(static_cast<size_t>(plan.cfg.load.num_prompts), s->turns);
    // A file's conversations have their own lengths.
    const auto& conversations = data.conversations;  // cycled, as make_turn cycles them
    for (size_t c = 0; c < turns_of.size() && !conversations.empty(); ++c)
      turns_of[c] = conversations[c % conversations.size()].second;
    auto sessions = std::make_unique<load::SessionSource>(
        std::move(turns_of), s->active, static_cast<int64_t>(s->think_time_ms * 1e6),
        [&target, at = target.turns_at(plan)](int64_t c, const load::TurnContext& ctx) {
          return target.make_turn(at, c, ctx);
        },
        share.rank, share.size);
    if (!data.recorded.empty())  // recorded sessions pause as they were recorded
      sessions->recorded_pauses(
          [&data, speed = plan.cfg.workload.trace_speed](int64_t c, int64_t turn) {
            const auto& r = data.recorded[static_cast<size_t>(c) % data.recorded.size()];
            const size_t t = std::min(static_cast<size_t>(turn), r.turns.size() - 1);
            return static_cast<int64_t>(static_cast<double>(r.turns[t].think_ns) / speed);
          });
    return sessions;
  }
  return measured_source(plan.cfg.load, load, count,
                         target.maker(plan, output_plan(plan.cfg.observe, count, target)), es,
                         target.data_at(plan).schedule_ns, share);
}

}  // namespace

int rank_share(int total, int rank, int size) {
  return total / size + (rank < total % size ? 1 : 0);
}

namespace {

// One load of the measured phase on its own engine: the run's, or one --class's (its records
// carry its name; its request ids "<run id>-<class>-<index>").
struct Lane {
  std::string name;  ///< "" = the run's one lane
  RunPlan plan;
  client::EngineSettings es;
  std::unique_ptr<load::RequestSource> source;
};

std::vector<Lane> measured_lanes(const Target& target, const RunPlan& plan,
                                 const client::EngineSettings& es, int64_t count,
                                 const RankShare& share, load::AdaptiveSource** controller) {
  std::vector<Lane> lanes;
  if (plan.parsed.classes.empty()) {
    Lane& l = lanes.emplace_back(Lane{"", plan, es, nullptr});
    l.source = phase_source(target, plan, count, l.es, share, controller);
    return lanes;
  }
  for (size_t i = 0; i < plan.parsed.classes.size(); ++i) {
    RunPlan cp = class_plan(plan, i);
    // mpirun: each rank its share of a closed class's in-flight cap (an open class's arrivals are
    // drawn whole and dealt by index, as a single load's are; so is every class's count).
    if (share.size > 1 && cp.cfg.load.concurrency > 0) {
      cp.cfg.load.concurrency =
          std::max(1, rank_share(cp.cfg.load.concurrency, share.rank, share.size));
      cp.load = cp.cfg.load_shape();
    }
    Lane& l = lanes.emplace_back(Lane{cp.traffic_class->name, cp, engine_settings(target, cp), {}});
    l.es.run_id = es.run_id + "-" + l.name;
    l.es.started = es.started;
    // Its own slots warmed, as its own run would (a closed class; an open one has none to warm).
    if (cp.cfg.warms_connections()) l.es.warm_url = net::root_url_for(target.url) + "/v1/models";
    for (const auto& h : cp.traffic_class->headers) l.es.headers.push_back(h);
    l.source = phase_source(target, l.plan, count_bound(cp.cfg.load, cp.requested.load.num_prompts),
                            l.es, share, controller);
  }
  return lanes;
}

// Runs every lane's engine at once, on the run's one clock, each record tagged with its lane.
client::EngineCounters run_lanes(std::vector<Lane>& lanes, int64_t origin_ns,
                                 std::atomic<int>& stop,
                                 const std::function<void(record::RequestRecord&&)>& on_done) {
  if (lanes.size() == 1 && lanes[0].name.empty())
    return client::Engine(lanes[0].es).run(*lanes[0].source, origin_ns, on_done, stop);
  std::vector<client::EngineCounters> each(lanes.size());
  std::vector<std::exception_ptr> errors(lanes.size());
  {
    std::vector<std::jthread> threads;
    for (size_t i = 0; i < lanes.size(); ++i)
      threads.emplace_back([&, i] {
        try {
          client::Engine engine(lanes[i].es);
          each[i] = engine.run(
              *lanes[i].source, origin_ns,
              [&, i](record::RequestRecord&& r) {
                r.traffic_class = lanes[i].name;
                on_done(std::move(r));
              },
              stop);
        } catch (...) {
          errors[i] = std::current_exception();
          stop.store(client::kCancelNow);  // the other lanes stop too: the run is broken
        }
      });
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  client::EngineCounters all;
  for (const auto& c : each) all.add(c);  // one client's cost: the busiest worker of any lane
  return all;
}

}  // namespace

std::string transport_text(const Target& target, const RunPlan& plan) {
  std::string why;
  const client::TransportKind k = client::chosen_transport(engine_settings(target, plan), &why);
  return fmt::format("{} ({})", client::transport_name(k), why);
}

int64_t planned_requests(const RunPlan& plan) {
  if (plan.parsed.classes.empty())
    return planned_requests(plan.cfg.load, plan.cfg.workload, plan.requested.load.num_prompts);
  int64_t sum = 0;
  for (size_t i = 0; i < plan.parsed.classes.size() && sum >= 0; ++i) {
    const RunPlan cp = class_plan(plan, i);
    const int64_t n = planned_requests(cp.cfg.load, cp.cfg.workload, cp.requested.load.num_prompts);
    sum = n < 0 ? -1 : sum + n;
  }
  return sum;
}

int64_t count_bound(const LoadSettings& load, int64_t requested_num_prompts) {
  return load.duration_s > 0 && requested_num_prompts == 0 ? -1 : load.num_prompts;
}

int64_t planned_requests(const LoadSettings& load, const WorkloadSettings& workload,
                         int64_t requested_num_prompts) {
  // Sessions: a failed turn ends its conversation, so how many turns go out is not known ahead.
  return load.duration_s > 0 || workload.sessions() ? -1 : count_bound(load, requested_num_prompts);
}

// A full disk: the load stops at once (nothing later could be recorded), saying which file and why.
static void stop_on_write_error(Recorder& recorder, std::atomic<int>& stop, spdlog::logger& log) {
  recorder.on_write_error([&stop, &log](const std::string& error) {
    fmt::print(stderr,
               "tokbench: {}: stopping the load now; what was recorded stays (the run ends "
               "stopped, exit 5)\n",
               error);
    std::fflush(stderr);
    log.error("{}: the load stops", error);
    stop.store(client::kCancelNow);
  });
}

// The client's own cost over the measured phase (its wall time already in `c`).
static void add_client_costs(record::ClientHealth& c, const client::EngineCounters& counters,
                             double process_cpu_s) {
  c.events = counters.events;
  c.server_closed = counters.server_closed;
  c.cpu_s = static_cast<double>(counters.cpu_ns) / 1e9;
  c.process_cpu_s = process_cpu_s;
  // The busiest worker, not the average: one saturated thread delays every stream it owns even
  // when the others idle (4.18 s of CPU in 4.2 s read as 50 % over two workers).
  if (c.measured_wall_s > 0)
    c.cpu_share = static_cast<double>(counters.busiest_cpu_ns) / 1e9 / c.measured_wall_s;
  c.busy_share = counters.busy_share;
  if (counters.peak_busy_at_ns >= 0) {
    c.peak_busy = counters.peak_busy;
    c.peak_busy_at_s = static_cast<double>(counters.peak_busy_at_ns) / 1e9;
  }
}

// The machine's wake-up floor beside the client's cost (end.json), when one was measured.
static void add_wakeup_floor(record::ClientHealth& c, const WakeupFloor& floor,
                             spdlog::logger& log) {
  if (floor.deadlines == 0) return;
  c.wakeup_floor_p50_ms = floor.p50_ms;
  c.wakeup_floor_p99_ms = floor.p99_ms;
  log.info("wake-up floor: {} deadlines 1 ms apart, late p50 {:.3f} ms, p99 {:.3f} ms",
           floor.deadlines, floor.p50_ms, floor.p99_ms);
}

PointResult execute(const Target& target, const RunPlan& plan,
                    const std::filesystem::path& perf_dir, const std::string& run_id,
                    int64_t origin_ns, std::atomic<int>& stop, spdlog::logger& log,
                    std::FILE* console, const RankShare& share) {
  const RunConfig& cfg = plan.cfg;
  const int64_t count = count_bound(cfg.load, plan.requested.load.num_prompts);
  std::atomic<int64_t> started{0};  // requests sent in the measured phase (progress: in flight)
  client::EngineSettings es = engine_settings(target, plan);
  es.run_id = run_id;
  const LoadShape& load = plan.load;
  client::Engine engine(es);
  Recorder recorder(perf_dir, target.data.abbr, target.tok ? &*target.tok : nullptr,
                    plan.parsed.goodput,
                    OutputChecks{cfg.observe.check_answers, cfg.observe.keep_outputs});
  if (share.size > 1) recorder.stamp_rank(share.rank);
  stop_on_write_error(recorder, stop, log);
  auto telemetry = start_telemetry(cfg.observe, tls_of(cfg.target), es.max_body_bytes, perf_dir,
                                   origin_ns, stop, log, console);
  PointObservers observers(
      target, cfg.observe, run_id, perf_dir.parent_path().parent_path().filename().string(), share,
      origin_ns, [&] { return started.load(); }, recorder, log, console);
  warm_up(engine, target, plan, recorder, origin_ns, stop, perf_dir, log);

  es.started = &started;
  es.phase_start_at = share.phase_start_at;
  if (cfg.warms_connections()) es.warm_url = net::root_url_for(target.url) + "/v1/models";
  load::AdaptiveSource* controller = nullptr;
  std::vector<Lane> lanes = measured_lanes(target, plan, es, count, share, &controller);
  const int64_t planned = planned_requests(plan);
  double mean_rate = 0;
  for (const Lane& l : lanes) mean_rate += l.plan.load.mean_rate();
  std::optional<Progress> progress;
  if (!cfg.output.quiet) {
    progress.emplace(
        ProgressCounters{[&] { return recorder.measured_done(); },
                         [&] { return recorder.failed(); },
                         [&] { return recorder.output_tokens(); }, [&] { return started.load(); }},
        planned, mean_rate, cfg.output.progress_interval_s);
  }
  auto scraper =
      start_scraper(target, cfg.observe, cfg.target, es.max_body_bytes, origin_ns, log, console);
  std::optional<probe::ProfileWindow> profiler;
  if (plan.parsed.profile_window)
    profiler.emplace(*plan.parsed.profile_window, net::root_url_for(target.url), cfg.target.headers,
                     cfg.target.api_key);

  log.info("measured phase: {}, {} worker thread(s)",
           cfg.load.duration_s > 0
               ? fmt::format("{} s (grace {} s)", cfg.load.duration_s, cfg.load.grace_s)
               : fmt::format("{} request(s)", count),
           cfg.load.workers);
  // An arrival schedule: how late this machine wakes a thread, measured the way the engine
  // waits for a send (0.2 s), so the verdict can tell the machine's jitter from a late client.
  const WakeupFloor floor =
      load.open_loop() ? measure_wakeup_floor(kFloorDeadlines) : WakeupFloor{};
  // A sample right before the phase: energy is never guessed across its edge.
  if (telemetry) telemetry->scrape_now();
  const int64_t measured_start = steady_now_ns();
  const double process_cpu_start = process_cpu_s();
  // --stop-on-saturation: the point runs on a stop level of its own, which the watch raises (the
  // series goes on) and to which it relays the series' (Ctrl-C, a full disk).
  std::atomic<int> point_stop{stop.load()};
  std::optional<SaturationWatch> watch;
  if (cfg.experiment.stop_on_saturation)
    watch.emplace(
        cfg.experiment.saturation_window_s,
        SaturationCounters{[&] { return started.load(); }, [&] { return recorder.measured_done(); },
                           [&] { return recorder.output_tokens(); }},
        stop, point_stop, log, console);
  const client::EngineCounters counters =
      run_lanes(lanes, origin_ns, watch ? point_stop : stop, [&](record::RequestRecord&& r) {
        if (watch) watch->add(r);
        recorder.add(std::move(r));
      });
  PointResult out;
  if (watch) out.saturated = watch->finish().value_or("");
  out.client.measured_wall_s = static_cast<double>(steady_now_ns() - measured_start) / 1e9;
  recorder.drain(&stop);  // bounded: Ctrl-C or the deadline lets the rest go unread
  if (share.all_measured)
    share.all_measured();  // the other ranks' last requests are in the server's counters too
  if (telemetry) telemetry->stop();  // and one right after it
  observers.finish(recorder.written(), stop.load() != client::kRunning, perf_dir);
  if (scraper) {
    scraper->stop();
    out.server = scraper->summary();
    if (out.server) out.server->url = redact_url(out.server->url);
  }
  if (profiler) {
    out.profile = profiler->finish();
    log.info("profile window: {}", record::to_json(*out.profile));
  }
  progress.reset();
  if (controller) out.adaptive = adaptive_log(*controller, log, console);
  out.interrupted = stop.load() != client::kRunning;
  out.records_written = recorder.written();
  out.write_error = recorder.write_error();
  add_client_costs(out.client, counters, process_cpu_s() - process_cpu_start);
  add_wakeup_floor(out.client, floor, log);
  return out;
}

}  // namespace tokbench::runner
