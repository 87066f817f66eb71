// cli/doctor_command: `tokbench doctor` — the load host's limits (host/limits), the client's cost
// per SSE event measured by a short closed-loop run against a loopback server (the built-in
// simulator unless --url names one), and what that lets this host drive (host/capacity).
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>

#include "cli/commands.hpp"
#include "host/doctor.hpp"
#include "runfolder/run_folder.hpp"
#include "runner/runner.hpp"

namespace tokbench::cli {

namespace {

struct DoctorOptions {
  std::string url;
  int streams = 512;
  int64_t requests = 0;  ///< 0: twice the streams
  int64_t max_tokens = 128;
  std::vector<double> token_rates{20, 50, 100};
  std::vector<double> hosts_needed;  ///< STREAMS TOKENS_PER_S
  bool no_measure = false;
  bool json = false;
};

double peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024;
}

// A short closed loop at --streams on one worker thread; its end.json holds the workers' CPU time
// and the events they parsed. The run folder goes in a temporary folder, removed after.
host::EventCost measure(const DoctorOptions& o) {
  namespace fs = std::filesystem;
  const fs::path tmp = fs::temp_directory_path() /
                       fmt::format("tokbench-doctor-{}-{}", getpid(), std::random_device{}());
  struct Remove {
    fs::path p;
    ~Remove() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } remove{tmp};
  runner::RunConfig cfg;
  cfg.target.url = o.url;
  cfg.load.concurrency = o.streams;
  cfg.load.num_prompts = o.requests > 0 ? o.requests : 2 * int64_t{o.streams};
  cfg.load.workers = 1;
  cfg.request.max_tokens = o.max_tokens;
  cfg.request.ignore_eos = true;
  cfg.output.output_dir = tmp.string();
  cfg.output.quiet = true;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> sink(std::fopen("/dev/null", "w"), &std::fclose);
  std::atomic<int> stop{0};
  const double rss_before = peak_rss_bytes();
  const runner::RunOutcome out = runner::run_benchmark(cfg, stop, sink.get());
  const double rss_after = peak_rss_bytes();
  const runfolder::RunFolder folder = runfolder::load_run_folder(out.run_dir);
  if (!folder.end || folder.end->client.events <= 0 || folder.end->client.cpu_s <= 0)
    throw std::runtime_error(fmt::format(
        "doctor: the measurement run parsed no events (exit {}{}); check that {} streams tokens "
        "(or measure against the built-in simulator: leave out --url)",
        out.exit_code, out.verdict.reasons.empty() ? "" : ": " + out.verdict.reasons.front(),
        o.url.empty() ? "the simulator" : o.url));
  host::EventCost cost;
  cost.events = folder.end->client.events;
  cost.cpu_s = folder.end->client.cpu_s;
  cost.streams = o.streams;
  if (rss_after > rss_before) cost.peak_rss_bytes = rss_after - rss_before;
  return cost;
}

}  // namespace

void add_doctor(CLI::App& app, std::function<int()>& action) {
  auto o = std::make_shared<DoctorOptions>();
  auto* cmd = app.add_subcommand("doctor",
                                 "this load host's limits, the client's measured cost per event, "
                                 "and the streams it can drive");
  cmd->add_option("--url", o->url,
                  "measure against this server instead of the built-in simulator: a fast one on "
                  "another core or host (TPOT 10 ms or less), so the client reads at a rate "
                  "worth measuring");
  cmd->add_option("--streams", o->streams, "concurrent streams of the measurement")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--requests", o->requests, "requests of the measurement (0 = twice --streams)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--max-tokens", o->max_tokens,
                  "tokens each answer streams (sent with ignore_eos)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}))
      ->capture_default_str();
  cmd->add_option("--tokens-per-s", o->token_rates,
                  "per-stream token rates to estimate streams at (1000 / TPOT ms)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--hosts-needed", o->hosts_needed,
                  "STREAMS TOKENS_PER_S: the load hosts like this one that a target load needs")
      ->expected(2)
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--no-measure", o->no_measure, "print the limits only (no measurement run)");
  cmd->add_flag("--json", o->json, "print JSON instead of text");
  cmd->callback([&action, o] {
    action = [o] {
      host::DoctorReport r;
      r.limits = host::read_host_limits();
      r.token_rates = o->token_rates;
      r.in_process_server = o->url.empty();
      r.measured_against = o->url.empty() ? "the built-in simulator in this process" : o->url;
      if (o->hosts_needed.size() == 2) {
        r.target_streams = static_cast<int64_t>(o->hosts_needed[0]);
        r.target_tokens_per_s = o->hosts_needed[1];
      }
      if (!o->no_measure) {
        // The simulator in this process holds the other end of each stream: the measurement
        // stays within the open files (a container's 1,024 would otherwise fail it).
        DoctorOptions m = *o;
        const int64_t hard = r.limits.nofile_hard;
        if (r.in_process_server && hard > 0 && hard != INT64_MAX)
          m.streams = static_cast<int>(
              std::clamp<int64_t>((hard - host::kSpareDescriptors) / 2, 1, m.streams));
        r.cost = measure(m);
      }
      fmt::print("{}", o->json ? host::doctor_json(r) : host::doctor_text(r));
      return 0;
    };
  });
}

}  // namespace tokbench::cli
