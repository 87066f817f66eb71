// --telemetry end to end: `tokbench run` beside exporters the tests start on loopback (a
// dcgm-exporter and an npu-exporter of known constant power, one that dies mid-run), the
// simulator's own power model (serve-mock --devices), and NVML through a fake library.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <regex>
#include <string>
#include <thread>

#include "common/clock.hpp"
#include "common/format.hpp"
#include "net/http_get.hpp"
#include "probe/prometheus.hpp"
#include "runfolder/run_folder.hpp"
#include "support/canned_server.hpp"
#include "support/cli_fixture.hpp"
#include "support/process.hpp"
#include "support/sim_process.hpp"

namespace tokbench::testing {
namespace {

class TelemetryRun : public CliFixture {};

double seconds_since(int64_t t0) { return static_cast<double>(steady_now_ns() - t0) / 1e9; }

// A dcgm-exporter with two GPUs at `watts` each and an energy counter that grows at exactly that
// rate, plus a series of its own that no dialect names. `until_s` > 0: it dies then (closes every
// connection without an answer).
std::function<std::string(const std::string&)> dcgm(double watts, double until_s = 0) {
  const int64_t t0 = steady_now_ns();
  return [=](const std::string&) -> std::string {
    const double s = seconds_since(t0);
    if (until_s > 0 && s > until_s) return "";
    std::string body = "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n";
    for (int g = 0; g < 2; ++g) {
      const std::string labels =
          "gpu=\"" + std::to_string(g) + "\",UUID=\"GPU-" + std::to_string(g) + "\",Hostname=\"h\"";
      body += "DCGM_FI_DEV_POWER_USAGE{" + labels + "} " + std::to_string(watts) + "\n";
      body += "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{" + labels + "} " +
              std::to_string(1e9 + watts * s * 1000) + "\n";
      body += "DCGM_FI_DEV_GPU_UTIL{" + labels + "} 90\n";
    }
    body += "site_rack_temperature 21\n";
    return CannedServer::http(200, "text/plain", body);
  };
}

// Ascend's npu-exporter: one chip at `watts`, power only (no energy counter).
std::function<std::string(const std::string&)> npu(double watts) {
  return [=](const std::string&) {
    return CannedServer::http(200, "text/plain",
                              "npu_chip_info_power{id=\"0\"} " + std::to_string(watts) +
                                  "\nnpu_chip_info_utilization{id=\"0\"} 80\n"
                                  "npu_chip_info_health_status{id=\"0\"} 1\n");
  };
}

simdjson::dom::element device(simdjson::dom::element t, std::string_view name) {
  for (auto d : t["devices"].get_array()) {
    if (std::string_view(d["device"].get_string().value()) == name) return d;
  }
  ADD_FAILURE() << "no device " << name;
  return t;
}

// A run long enough (~2 s) that 1% of its energy is far above a sample's timing.
std::vector<std::string> load(const Sim& sim) {
  return {"--url",
          sim.url(),
          "--num-prompts",
          "16",
          "--concurrency",
          "2",
          "--max-tokens",
          "40",
          "--ignore-eos",
          "--warmup",
          "0",
          "--telemetry-interval-ms",
          "100"};
}

TEST_F(TelemetryRun, ConstantPowerExportersGiveEnergyWithinOnePercent) {
  Sim sim({"--ttft-ms", "20", "--tpot-ms", "5"});
  CannedServer gpu(dcgm(300), 1000), chip(npu(200), 1000);
  auto args = load(sim);
  args.insert(args.end(), {"--telemetry", gpu.url("/metrics") + "," + chip.url("/metrics"),
                           "--slice-s", "0.5"});
  const auto rd = run(args, 0);
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  simdjson::dom::element t = r["telemetry"];
  ASSERT_TRUE(t.is_object()) << last_.output;
  const double seconds = t["energy"]["seconds"].get_double();
  ASSERT_GT(seconds, 1.0);
  // Each dialect by its own method, each within 1% of watts × the phase.
  for (const char* g : {"gpu 0 (GPU-0, h)", "gpu 1 (GPU-1, h)"}) {
    auto d = device(t, g);
    EXPECT_EQ(std::string_view(d["dialect"].get_string().value()), "dcgm-exporter");
    EXPECT_EQ(std::string_view(d["energy"]["method"].get_string().value()), "energy counter");
    EXPECT_NEAR(d["energy"]["joules"].get_double().value(), 300 * seconds, 0.01 * 300 * seconds);
    EXPECT_DOUBLE_EQ(d["series"]["power_w"]["mean"].get_double().value(), 300);
    EXPECT_DOUBLE_EQ(d["series"]["util_pct"]["p99"].get_double().value(), 90);
  }
  // --slice-s: each device per slice, on the client's grid; the slices' energy adds up.
  double sliced = 0;
  for (auto sl : device(t, "gpu 0 (GPU-0, h)")["slices"].get_array()) {
    EXPECT_DOUBLE_EQ(sl["power_w"].get_double().value(), 300);
    sliced += sl["energy_j"].get_double().value();
  }
  EXPECT_NEAR(sliced, device(t, "gpu 0 (GPU-0, h)")["energy"]["joules"].get_double().value(),
              1e-6 * sliced);
  auto n = device(t, "npu 0");
  EXPECT_EQ(std::string_view(n["energy"]["method"].get_string().value()),
            "power integrated over the samples (trapezoids)");
  EXPECT_NEAR(n["energy"]["joules"].get_double().value(), 200 * seconds, 0.01 * 200 * seconds);
  // The figures: 800 W over the phase, and per token from the client's own count.
  const double joules = t["energy"]["joules"].get_double();
  EXPECT_NEAR(joules, 800 * seconds, 0.01 * 800 * seconds);
  EXPECT_NEAR(t["energy"]["j_per_output_token"].get_double().value(), joules / (16 * 40),
              1e-9 * joules);
  EXPECT_NEAR(t["energy"]["j_per_request"].get_double().value(), joules / 16, 1e-9 * joules);
  // What was recognised, and what was not.
  auto sources = t["sources"].get_array();
  EXPECT_EQ(std::string_view(sources.at(0)["dialects"].at(0).get_string().value()),
            "dcgm-exporter");
  EXPECT_EQ(std::string_view(sources.at(0)["not_recognised"].at(0).get_string().value()),
            "site_rack_temperature");
  EXPECT_EQ(std::string_view(sources.at(1)["dialects"].at(0).get_string().value()), "npu-exporter");
  EXPECT_TRUE(FolderValidUnlessBusy(rd));
  EXPECT_NE(last_.output.find("devices: 3 accelerator(s) (dcgm-exporter, npu-exporter)"),
            std::string::npos)
      << last_.output;
  EXPECT_NE(last_.output.find("J/output token"), std::string::npos) << last_.output;
  // The CSV and the page carry it; `report` on the folder gives the same energy.
  EXPECT_NE(slurp(rd / "performances/tokbench-mock/builtin_telemetry.csv")
                .find("\"npu 0\",npu-exporter,phase,power_w,W,200.0"),
            std::string::npos);
  const std::string page = slurp(rd / "performances/tokbench-mock/builtin_plot.html");
  EXPECT_NE(page.find("\"telemetry\":{\"interval_ms\":100"), std::string::npos);
  EXPECT_NE(page.find("Device (phase)"),
            std::string::npos);  // the per-device table, as --verbose prints it
  const std::string before = slurp(rd / "result.json");
  ASSERT_TRUE(RanValidUnlessBusy(run_tokbench({"report", rd.string()}), dir_));
  simdjson::dom::parser p;
  EXPECT_DOUBLE_EQ(
      p.load((rd / "result.json").string())["telemetry"]["energy"]["joules"].get_double().value(),
      joules);
}

TEST_F(TelemetryRun, AnExporterKilledMidRunLeavesAValidRunWithANote) {
  Sim sim({"--ttft-ms", "20", "--tpot-ms", "5"});
  CannedServer gpu(dcgm(300, 0.8), 1000);
  auto args = load(sim);
  args.insert(args.end(), {"--telemetry", gpu.url("/metrics")});
  const auto rd = run(args, 0);
  ASSERT_FALSE(rd.empty());
  auto r = result(rd);
  EXPECT_TRUE(FolderValidUnlessBusy(rd));
  simdjson::dom::element t = r["telemetry"];
  EXPECT_FALSE(t["energy"]["known"].get_bool().value());
  EXPECT_NE(std::string(t["energy"]["why"].get_string().value()).find("before the phase ended"),
            std::string::npos);
  EXPECT_NE(last_.output.find("stopped answering"), std::string::npos) << last_.output;
  EXPECT_NE(last_.output.find("energy: not known"), std::string::npos) << last_.output;
  EXPECT_GT(t["sources"].at(0)["errors"].get_int64().value(), 0);
  // What it did say before it died is kept.
  EXPECT_DOUBLE_EQ(device(t, "gpu 0 (GPU-0, h)")["series"]["power_w"]["mean"].get_double().value(),
                   300);
}

// A slow exporter (1.5 s an answer) beside a prompt one: each source has its own clock, so the
// prompt one's samples stay 100 ms apart and its energy is known; the slow one's is refused.
TEST_F(TelemetryRun, ASlowExporterDoesNotStarveTheOthers) {
  Sim sim({"--ttft-ms", "20", "--tpot-ms", "5"});
  CannedServer gpu(dcgm(300), 1000);
  CannedServer slow(
      [](const std::string&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        return CannedServer::http(200, "text/plain", "npu_chip_info_power{id=\"0\"} 200\n");
      },
      1000);
  auto args = load(sim);
  args.insert(args.end(),
              {"--telemetry", gpu.url("/metrics"), "--telemetry", slow.url("/metrics")});
  const auto rd = run(args, 0);
  ASSERT_FALSE(rd.empty());
  simdjson::dom::element t = result(rd)["telemetry"];
  auto g = device(t, "gpu 0 (GPU-0, h)");
  ASSERT_TRUE(g["energy"]["known"].get_bool().value()) << simdjson::to_string(g["energy"]);
  EXPECT_LE(g["energy"]["max_gap_s"].get_double().value(), 0.3);
  auto n = device(t, "npu 0");
  EXPECT_FALSE(n["energy"]["known"].get_bool().value());
  EXPECT_FALSE(t["energy"]["known"].get_bool().value());  // the run's needs every accelerator's
}

// Issue 41: an exporter of 200,000 devices × 4 series (about 60 MB a scrape) once kept a finished
// run busy for 15 minutes, deaf to SIGTERM. A scrape is now bounded (the devices indexed, 4,096
// read, the fetch 2 s, the body --max-body-bytes), so the end waits at most for the read in flight
// and the closing one; and a SIGTERM mid-run ends the run with its end marker.
std::shared_ptr<const std::string> many_devices_body() {
  std::string body;
  body.reserve(size_t{64} << 20);
  for (int i = 0; i < 200'000; ++i) {
    const std::string labels = fmt::format("{{gpu=\"{}\",UUID=\"GPU-{}\",Hostname=\"h\"}}", i, i);
    for (const char* m : {"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED",
                          "DCGM_FI_DEV_GPU_TEMP"})
      body += fmt::format("{}{} 1\n", m, labels);
  }
  return std::make_shared<const std::string>(CannedServer::http(200, "text/plain", body));
}

TEST_F(TelemetryRun, AnExporterOfManyDevicesNeitherHoldsTheEndNorDeafensSignals) {
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "2"});
  const auto body = many_devices_body();
  ASSERT_GT(body->size(), size_t{40} << 20);
  CannedServer gpu([body](const std::string&) { return *body; }, 1000);
  const int64_t t0 = steady_now_ns();
  const auto rd = run({"--url", sim.url(), "--num-prompts", "8", "--max-tokens", "8", "--warmup",
                       "0", "--telemetry", gpu.url("/metrics"), "--telemetry-interval-ms", "200"},
                      0);
  ASSERT_FALSE(rd.empty());
  // Generous for a busy or sanitized build; the quadratic lookup took minutes for a tenth of this.
  EXPECT_LT(seconds_since(t0), 60.0);
  const auto t = result(rd)["telemetry"];
  EXPECT_GT(t["sources"].at(0)["devices_dropped"].get_int64().value(), 0)
      << simdjson::to_string(t["sources"].at(0));

  Child longer({TOKBENCH_BINARY, "run", "--url", sim.url(), "--duration-s", "600", "--concurrency",
                "2", "--max-tokens", "8", "--warmup", "0", "--telemetry", gpu.url("/metrics"),
                "--telemetry-interval-ms", "200", "--output-dir", (dir_ / "long").string()});
  ASSERT_NE(longer.read_until("request body", std::chrono::seconds(60)).find("request body"),
            std::string::npos)
      << longer.output();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // scrapes under way
  const int64_t asked = steady_now_ns();
  longer.signal(SIGTERM);
  longer.wait(std::chrono::seconds(90));
  EXPECT_LT(seconds_since(asked), 45.0) << longer.output();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(longer.output(), m, std::regex("results: (\\S+)")))
      << longer.output();
  EXPECT_TRUE(fs::exists(fs::path(m[1].str()) / runfolder::kEndFile)) << longer.output();
}

// The simulator's devices: its energy counter is the truth between two reads by this test; the
// idle stretches outside the phase are known exactly (N × idle W), so the phase's own energy is.
double simulator_joules(const Sim& sim) {
  const auto res = net::http_get(sim.url("/device-metrics"), {}, "", 5000);
  double j = 0;
  for (const auto& s : probe::parse_text(res.body))
    if (s.name == "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION") j += s.value / 1000;
  return j;
}

TEST_F(TelemetryRun, TheSimulatorsPowerModelRoundTrips) {
  Sim sim({"--ttft-ms", "20", "--tpot-ms", "5", "--devices", "2", "--device-idle-w", "100",
           "--device-w-per-request", "40", "--device-j-per-token", "0.5"});
  auto args = load(sim);
  const std::string store = (dir_ / "history.db").string();
  args.insert(args.end(),
              {"--telemetry", sim.url("/device-metrics"), "--telemetry-idle-s", "0.5",
               "--price-per-device-hour", "3.6", "--price-per-kwh", "0.36", "--history", store});
  const int64_t t0 = steady_now_ns();
  const double before = simulator_joules(sim);
  const auto rd = run(args, 0);
  const double after = simulator_joules(sim), wall = seconds_since(t0);
  ASSERT_FALSE(rd.empty());
  simdjson::dom::element t = result(rd)["telemetry"];
  const double seconds = t["energy"]["seconds"].get_double(),
               joules = t["energy"]["joules"].get_double();
  const double truth = (after - before) - 2 * 100 * (wall - seconds);
  EXPECT_NEAR(joules, truth, 0.01 * truth) << "wall " << wall << " s, phase " << seconds << " s";
  // Above the idle 200 W: 40 W a running request (2 at a time) and 0.5 J a token.
  EXPECT_GT(joules, 200 * seconds + 0.5 * 16 * 40);
  EXPECT_NEAR(t["energy"]["idle_w"].get_double().value(), 200, 2);
  // $3.6/device-hour × 2 devices, $0.36/kWh of the energy.
  const double dollars = 2 * seconds / 3600 * 3.6 + joules / 3.6e6 * 0.36;
  EXPECT_NEAR(t["cost"]["dollars"].get_double().value(), dollars, 1e-9);
  EXPECT_NEAR(t["cost"]["usd_per_m_output_tokens"].get_double().value(), dollars / (16 * 40) * 1e6,
              1e-6);
  // The results store carries the energy like any metric: its trend has this run.
  const Result trend =
      run_tokbench({"history", "trend", "energy.j_per_output_token", "--history", store});
  EXPECT_EQ(trend.code, 0) << trend.output;
  EXPECT_EQ(
      run_tokbench({"history", "trend", "cost.usd_per_m_output_tokens", "--history", store}).code,
      0);
}

TEST_F(TelemetryRun, TheSimulatorsNpuDialectIntegratesPower) {
  Sim sim({"--ttft-ms", "20", "--tpot-ms", "5", "--devices", "4", "--device-idle-w", "150",
           "--device-w-per-request", "0", "--device-j-per-token", "0", "--telemetry-dialect",
           "npu"});
  auto args = load(sim);
  args.insert(args.end(), {"--telemetry", sim.url("/device-metrics")});
  const auto rd = run(args, 0);
  ASSERT_FALSE(rd.empty());
  simdjson::dom::element t = result(rd)["telemetry"];
  const double seconds = t["energy"]["seconds"].get_double();
  EXPECT_EQ(std::string_view(t["energy"]["method"].get_string().value()),
            "power integrated over the samples (trapezoids)");
  EXPECT_NEAR(t["energy"]["joules"].get_double().value(), 4 * 150 * seconds,
              0.01 * 4 * 150 * seconds);
  EXPECT_EQ(t["devices"].get_array().size(), 4u);
}

TEST_F(TelemetryRun, NvmlThroughAFakeLibrary) {
  Sim sim({"--ttft-ms", "20", "--tpot-ms", "5"});
  auto args = load(sim);
  args.insert(args.end(), {"--telemetry", "nvml"});
  setenv("TOKBENCH_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1);
  EXPECT_NE(run_tokbench({"--version"}).output.find("telemetry: NVML found"), std::string::npos);
  const auto rd = run(args, 0);
  ASSERT_FALSE(rd.empty());
  simdjson::dom::element t = result(rd)["telemetry"];
  const double seconds = t["energy"]["seconds"].get_double();
  auto g = device(t, "gpu 1 (GPU-fake-1)");
  EXPECT_EQ(std::string_view(g["dialect"].get_string().value()), "nvml");
  EXPECT_NEAR(g["energy"]["joules"].get_double().value(), 250 * seconds, 0.01 * 250 * seconds);
  EXPECT_DOUBLE_EQ(g["series"]["util_pct"]["mean"].get_double().value(), 25);
  EXPECT_DOUBLE_EQ(g["series"]["mem_total_mib"]["mean"].get_double().value(), 80 * 1024);
  EXPECT_DOUBLE_EQ(g["series"]["sm_clock_mhz"]["mean"].get_double().value(), 1980);
  // No GPU, and no library: said with the fix, before any request is sent.
  setenv("FAKE_NVML_GPUS", "0", 1);
  run(args, 1);
  EXPECT_NE(last_.output.find("NVML sees no GPU on this host"), std::string::npos) << last_.output;
  unsetenv("FAKE_NVML_GPUS");
  setenv("TOKBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  run(args, 1);
  EXPECT_NE(last_.output.find("cannot load /nonexistent/libnvidia-ml.so.1"), std::string::npos)
      << last_.output;
  EXPECT_NE(last_.output.find("point --telemetry at an exporter's URL instead"), std::string::npos)
      << last_.output;
  EXPECT_NE(run_tokbench({"--version"}).output.find("telemetry: no NVML library on this host"),
            std::string::npos);
  unsetenv("TOKBENCH_NVML_LIBRARY");
}

// NVML is opened only for --telemetry nvml: a run without it, and a command's --help, never load
// the library (each load of the fake one leaves a line in a file), while --version and a run
// with --telemetry nvml do, so the check can fail.
TEST_F(TelemetryRun, NvmlIsLoadedOnlyWhenAsked) {
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "1"});
  const std::string marker = (dir_ / "nvml_loaded.txt").string();
  setenv("TOKBENCH_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1);
  setenv("FAKE_NVML_LOADED", marker.c_str(), 1);
  auto args = load(sim);
  run(args, 0);
  EXPECT_EQ(run_tokbench({"run", "--help"}).code, 0);
  EXPECT_FALSE(fs::exists(marker)) << "a run without --telemetry nvml loaded NVML";
  EXPECT_EQ(run_tokbench({"--version"}).code, 0);
  EXPECT_TRUE(fs::exists(marker)) << "--version says whether NVML is there: it must load it";
  fs::remove(marker);
  args.insert(args.end(), {"--telemetry", "nvml"});
  run(args, 0);
  EXPECT_TRUE(fs::exists(marker)) << "--telemetry nvml did not load the library";
  unsetenv("FAKE_NVML_LOADED");
  unsetenv("TOKBENCH_NVML_LIBRARY");
}

// A sweep: each point's energy per token and cost per million output tokens in its summary, and
// the cost against per-user speed on its page.
TEST_F(TelemetryRun, SweepPointsCarryEnergyAndCost) {
  Sim sim({"--ttft-ms", "20", "--tpot-ms", "5", "--devices", "1", "--device-idle-w", "100",
           "--device-w-per-request", "40"});
  run({"--url", sim.url(), "--concurrency", "1,4", "--num-prompts", "8", "--max-tokens", "20",
       "--ignore-eos", "--warmup", "0", "--telemetry", sim.url("/device-metrics"),
       "--telemetry-interval-ms", "100", "--price-per-device-hour", "3.6"},
      0);
  const auto roots =
      std::vector<fs::path>(fs::directory_iterator(dir_ / "outputs"), fs::directory_iterator());
  ASSERT_EQ(roots.size(), 1u);
  simdjson::dom::parser p;
  const simdjson::dom::array points =
      p.load((roots[0] / "sweep/summary.json").string())["sweep"]["points"].get_array();
  ASSERT_EQ(points.size(), 2u);
  double cost_c1 = 0, cost_c4 = 0;
  for (auto pt : points) {
    const double j = pt["j_per_output_token"].get_double(),
                 usd = pt["usd_per_m_output_tokens"].get_double();
    EXPECT_GT(j, 0);
    (pt["concurrency"].get_int64().value() == 1 ? cost_c1 : cost_c4) = usd;
  }
  // A device-hour buys four times the tokens at concurrency 4: a million costs less there.
  EXPECT_LT(cost_c4, cost_c1);
  EXPECT_NE(
      slurp(roots[0] / "sweep/summary.csv").find(",j_per_output_token,usd_per_m_output_tokens"),
      std::string::npos);
  const std::string page = slurp(roots[0] / "sweep/sweep.html");
  EXPECT_NE(page.find("id=\"cost\""), std::string::npos);
  // The page's table carries what its CSV has (issue 40): each point's J/token and $/M tokens.
  EXPECT_NE(page.find("<th>J / output token</th><th>$ / M output tokens</th>"), std::string::npos);
  EXPECT_NE(page.find(format_round4(cost_c4)), std::string::npos) << page;
}

// Issue 40: a device-hour price needs only the device count; a user with no exporter gets the
// cost per million tokens from --server-devices, said as such, and `report` rebuilds the same.
TEST_F(TelemetryRun, ADeviceHourPriceNeedsNoExporter) {
  Sim sim({"--ttft-ms", "5", "--tpot-ms", "2"});
  const fs::path rd =
      run({"--url", sim.url(), "--num-prompts", "8", "--concurrency", "2", "--max-tokens", "10",
           "--ignore-eos", "--price-per-device-hour", "7.2", "--server-devices", "4"});
  ASSERT_FALSE(rd.empty());
  EXPECT_NE(last_.output.find("/M output tokens"), std::string::npos) << last_.output;
  EXPECT_NE(last_.output.find("4 device(s) (--server-devices) × "), std::string::npos)
      << last_.output;
  auto r = result(rd);
  const double seconds = common(r, "benchmark_duration") / 1000,
               out = common(r, "total_generated_tokens");
  const double dollars = 4 * 7.2 / 3600 * seconds;  // 4 devices × $7.2/h
  const auto cost = r["telemetry"]["cost"];
  EXPECT_TRUE(cost["known"].get_bool().value());
  EXPECT_NEAR(cost["dollars"].get_double().value(), dollars, 0.01 * dollars);
  EXPECT_NEAR(cost["usd_per_m_output_tokens"].get_double().value(), dollars / out * 1e6,
              0.01 * dollars / out * 1e6);
  EXPECT_FALSE(r["telemetry"]["energy"]["known"].get_bool().value()) << "no energy was read";
  const std::string line = last_.output.substr(last_.output.find("cost: $"), 40);
  const Result again = run_tokbench({"report", rd.string()});
  EXPECT_NE(again.output.find(line), std::string::npos) << line << "\n" << again.output;
}

TEST_F(TelemetryRun, BadTelemetryFlagsAreRefusedWithTheFix) {
  Sim sim({"--ttft-ms", "1", "--tpot-ms", "1"});
  run({"--url", sim.url(), "--num-prompts", "1", "--telemetry", "gpu-host:9400"}, 2);
  EXPECT_NE(last_.output.find("--telemetry: bad value 'gpu-host:9400' (expected an exporter's URL"),
            std::string::npos)
      << last_.output;
  run({"--url", sim.url(), "--num-prompts", "1", "--price-per-kwh", "0.2"}, 2);
  EXPECT_NE(last_.output.find("need --telemetry"), std::string::npos) << last_.output;
  run({"--url", sim.url(), "--num-prompts", "1", "--telemetry", "nvml", "--telemetry-interval-ms",
       "10"},
      2);
  EXPECT_NE(last_.output.find("--telemetry-interval-ms: bad value 10 (expected 100 to 60000)"),
            std::string::npos)
      << last_.output;
}

}  // namespace
}  // namespace tokbench::testing
