// report/telemetry_view + report/telemetry_outputs: a telemetry.jsonl written here by hand read
// back as per-device statistics, energy, idle power, notes, page bins, CSV, and the energy and
// cost figures.
#include "report/telemetry_view.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/json_writer.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::report {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kMs = 1'000'000;

class TelemetryViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::test_dir() / "telemetry.jsonl";
    out_.open(path_);
    out_ << R"({"kind":"start","interval_ms":100,"sources":["http://gpu-host:9400/metrics"]})"
         << "\n";
    out_
        << R"({"kind":"source","source":0,"name":"http://gpu-host:9400/metrics","dialects":["dcgm-exporter"],)"
        << R"("not_recognised":["my_custom_gauge"],"not_recognised_total":1})"
        << "\n";
  }
  void TearDown() override { fs::remove(path_); }

  // Two GPUs at `watts` each from t = 0 every 100 ms up to `until_ms`, with an energy counter.
  void scrapes(int64_t until_ms, double watts, int64_t from_ms = 0) {
    for (int64_t t = from_ms; t <= until_ms; t += 100) {
      JsonWriter w;
      w.begin_object()
          .field("kind", "scrape")
          .field("source", 0)
          .field("t_ns", t * kMs)
          .key("devices")
          .begin_array();
      for (int gpu = 0; gpu < 2; ++gpu) {
        w.begin_object()
            .field("device", "gpu " + std::to_string(gpu))
            .field("dialect", "dcgm-exporter");
        w.field("power_w", watts)
            .field("energy_j", 5000 + watts * static_cast<double>(t) / 1000)
            .field("util_pct", 50.0 + gpu * 10);
        w.end_object();
      }
      out_ << w.end_array().end_object().take() << "\n";
    }
  }

  TelemetryView read(Window phase) {
    out_.close();
    auto v = read_telemetry_view(path_, phase, std::nullopt, phase.start_ns,
                                 phase.end_ns - phase.start_ns);
    EXPECT_TRUE(v.has_value());
    return v ? *v : TelemetryView{};
  }

  fs::path path_;
  std::ofstream out_;
};

TEST_F(TelemetryViewTest, DevicesStatisticsAndEnergyOverThePhase) {
  out_ << R"({"kind":"idle","start_ns":0,"end_ns":200000000})"
       << "\n";
  scrapes(2000, 300);
  const TelemetryView v = read({250 * kMs, 1750 * kMs});
  ASSERT_EQ(v.devices.size(), 2u);
  EXPECT_EQ(v.interval_ms, 100);
  ASSERT_EQ(v.sources.size(), 1u);
  EXPECT_EQ(v.sources[0].dialects, std::vector<std::string>{"dcgm-exporter"});
  EXPECT_EQ(v.sources[0].not_recognised, std::vector<std::string>{"my_custom_gauge"});
  EXPECT_EQ(v.sources[0].scrapes, 21);
  const DeviceTelemetry& g1 = v.devices[1];
  EXPECT_EQ(g1.device, "gpu 1");
  ASSERT_TRUE(g1.series[0]);
  EXPECT_DOUBLE_EQ(g1.series[0]->mean, 300);
  EXPECT_EQ(g1.series[0]->n, 15);  // the samples inside [0.25, 1.75] s: 0.3 ... 1.7
  ASSERT_TRUE(g1.series[1]);
  EXPECT_DOUBLE_EQ(g1.series[1]->mean, 60);
  ASSERT_TRUE(g1.energy.known) << g1.energy.why;
  EXPECT_EQ(g1.energy.method, metrics::kEnergyFromCounter);
  EXPECT_NEAR(g1.energy.joules, 450, 1e-6);  // 300 W × 1.5 s, the edges interpolated
  ASSERT_TRUE(g1.idle_w);
  EXPECT_NEAR(*g1.idle_w, 300, 1e-6);
  EXPECT_TRUE(v.notes.empty()) << v.notes.front();

  const EnergyFigures e = energy_figures(v, 1.5, 900, 300, 10, 5.0);
  ASSERT_TRUE(e.known) << e.why;
  EXPECT_EQ(e.devices, 2);
  EXPECT_NEAR(e.joules, 900, 1e-6);
  EXPECT_NEAR(e.mean_power_w, 600, 1e-6);
  EXPECT_NEAR(*e.j_per_output_token, 1, 1e-9);
  EXPECT_NEAR(*e.output_tokens_per_j, 1, 1e-9);
  EXPECT_NEAR(*e.j_per_request, 90, 1e-9);
  EXPECT_NEAR(*e.goodput_per_w, 5.0 / 600, 1e-12);
  EXPECT_NEAR(*e.idle_w, 600, 1e-6);
  EXPECT_NEAR(*e.joules_above_idle, 0, 1e-6);

  // 2 devices × 1.5 s at $3.6/device-hour = $0.003; 900 J = 0.00025 kWh at $0.4/kWh = $0.0001.
  const Cost c = cost_of(e, Pricing{3.6, 0.4}, 300, 900);
  ASSERT_TRUE(c.known) << c.why;
  EXPECT_NEAR(c.dollars, 0.0031, 1e-12);
  EXPECT_NEAR(*c.per_m_output, 0.0031 / 900 * 1e6, 1e-9);
  EXPECT_NEAR(*c.per_m_input, 0.0031 / 300 * 1e6, 1e-9);
  EXPECT_NE(c.assumptions.find("device-hour"), std::string::npos);

  const std::string csv = telemetry_csv(v);
  EXPECT_NE(
      csv.find(
          "\"gpu 1\",dcgm-exporter,phase,power_w,W,300.0,300.0,300.0,300.0,300.0,15,450.0,\"energy "
          "counter\""),
      std::string::npos)
      << csv;
  const std::string json = telemetry_json(v, e, c);
  EXPECT_NE(json.find(R"("j_per_output_token":1)"), std::string::npos) << json;
  const auto lines = telemetry_lines(v, e, c);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_NE(lines[1].find("900.0 J over 1.50 s (energy counter"), std::string::npos) << lines[1];
}

// A scrape that held a series twice (issue 41: the last value, 9,999 W, was kept silently): said,
// with the first one.
TEST_F(TelemetryViewTest, ASeriesGivenTwiceIsNamed) {
  scrapes(1800, 300);
  out_ << R"({"kind":"scrape","source":0,"t_ns":1790000000,"devices":[],"duplicated":2,)"
       << R"("duplicated_example":"DCGM_FI_DEV_POWER_USAGE of gpu 0"})"
       << "\n";
  const TelemetryView v = read({250 * kMs, 1750 * kMs});
  std::string notes;
  for (const auto& n : v.notes) notes += n + "\n";
  EXPECT_NE(notes.find("gave a series twice for one device in a scrape (2 time(s), the first "
                       "DCGM_FI_DEV_POWER_USAGE of gpu 0): the last value was kept"),
            std::string::npos)
      << notes;
}

TEST_F(TelemetryViewTest, AnExporterThatStopsLeavesEnergyUnknownAndSaysWhy) {
  scrapes(800, 300);
  out_ << R"({"kind":"error","source":0,"t_ns":900000000,"error":"Connection refused"})"
       << "\n";
  out_ << R"({"kind":"error","source":0,"t_ns":1000000000,"error":"Connection refused"})"
       << "\n";
  out_ << R"({"kind":"scrape","source":0,"t_ns":11)";  // torn by a kill
  const TelemetryView v = read({250 * kMs, 1750 * kMs});
  ASSERT_EQ(v.devices.size(), 2u);
  EXPECT_FALSE(v.devices[0].energy.known);
  EXPECT_NE(v.devices[0].energy.why.find("before the phase ended"), std::string::npos)
      << v.devices[0].energy.why;
  std::string notes;
  for (const auto& n : v.notes) notes += n + "\n";
  EXPECT_NE(notes.find("stopped answering 0.6 s into the run"), std::string::npos) << notes;
  EXPECT_NE(notes.find("2 of 11 scrapes failed, the first 0.7 s into the run: Connection refused"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("1 line(s) could not be read"), std::string::npos) << notes;
  const EnergyFigures e = energy_figures(v, 1.5, 900, 300, 10, std::nullopt);
  EXPECT_FALSE(e.known);
  EXPECT_NE(e.why.find("gpu 0: the last sample came"), std::string::npos) << e.why;
  const Cost c = cost_of(e, Pricing{0, 0.4}, 300, 900);
  EXPECT_FALSE(c.known);
  EXPECT_NE(c.why.find("--price-per-kwh needs the energy"), std::string::npos) << c.why;
  // The device-hour price needs only the count.
  EXPECT_TRUE(cost_of(e, Pricing{3.6, 0}, 300, 900).known);
}

// --slice-s: each slice's mean power and its own energy, on the client's slices' grid; the
// slices' energy adds up to the phase's.
TEST_F(TelemetryViewTest, SlicesCarryEachDevicesPowerAndEnergy) {
  scrapes(2000, 300);
  out_.close();
  const auto v = read_telemetry_view(path_, {0, 1900 * kMs}, std::nullopt, 0, 1900 * kMs,
                                     SliceGrid{0, 500 * kMs, 4});
  ASSERT_TRUE(v.has_value());
  const DeviceTelemetry& g = v->devices[0];
  ASSERT_EQ(g.slices.size(), 4u);
  double sum = 0;
  for (const auto& s : g.slices) {
    ASSERT_TRUE(s.energy.known) << s.energy.why;
    EXPECT_DOUBLE_EQ(*s.power_w, 300);
    sum += s.energy.joules;
  }
  EXPECT_NEAR(g.slices[0].energy.joules, 150, 1e-6);  // 0.5 s at 300 W
  EXPECT_NEAR(g.slices[3].energy.joules, 120, 1e-6);  // the last slice ends with the phase: 0.4 s
  EXPECT_EQ(g.slices[0].samples, 5);                  // 0, 0.1, ..., 0.4 s
  EXPECT_NEAR(sum, g.energy.joules, 1e-6);
  EXPECT_NE(telemetry_json(*v, {}, std::nullopt)
                .find(R"("slices":[{"start_s":0,"end_s":0.5,"power_w":300,)"),
            std::string::npos);
}

// node-exporter's counters become the host's CPU use and traffic, as rates between scrapes.
TEST_F(TelemetryViewTest, TheHostsCpuAndNetworkAreRatesBetweenScrapes) {
  for (int64_t k = 0; k <= 10;
       ++k)  // every 100 ms: 2 CPUs, one busy half the time; 1 MB in, 2 MB out a second
    out_ << R"({"kind":"scrape","source":0,"t_ns":)" << k * 100 * kMs
         << R"(,"devices":[{"device":"host","dialect":"node-exporter",)"
         << R"("cpu_idle_s":)" << 0.15 * static_cast<double>(k) << R"(,"cpu_total_s":)"
         << 0.2 * static_cast<double>(k) << R"(,"net_rx_bytes":)" << 100000 * k
         << R"(,"net_tx_bytes":)" << 200000 * k << "}]}\n";
  const TelemetryView v = read({0, 1000 * kMs});
  ASSERT_EQ(v.devices.size(), 1u);
  const DeviceTelemetry& h = v.devices[0];
  EXPECT_FALSE(h.accelerator());
  ASSERT_TRUE(h.series[kFirstRateSeries]);
  EXPECT_NEAR(h.series[kFirstRateSeries]->mean, 25, 1e-9);  // 1 - 0.15/0.2 of all CPU time
  EXPECT_EQ(h.series[kFirstRateSeries]->n, 10);             // a rate needs two scrapes
  EXPECT_NEAR(h.series[kFirstRateSeries + 1]->mean, 1, 1e-9);
  EXPECT_NEAR(h.series[kFirstRateSeries + 2]->mean, 2, 1e-9);
  EXPECT_FALSE(
      energy_figures(v, 1, 100, 100, 1, std::nullopt).known);  // the host is not an accelerator
}

TEST_F(TelemetryViewTest, ThePageSeriesIsBinnedWhateverTheRunsLength) {
  scrapes(100LL * 60 * 1000, 250);  // 100 minutes every 100 ms: 60,001 scrapes
  const TelemetryView v = read({0, 100LL * 60 * 1000 * kMs});
  ASSERT_EQ(v.page.size(), 2u);
  EXPECT_LE(v.page[0].points.size(), kPageBins + 1);
  EXPECT_GE(v.page[0].points.size(), kPageBins / 2);
  EXPECT_DOUBLE_EQ(*std::get<1>(v.page[0].points[10]), 250);
  EXPECT_EQ(v.devices[0].series[0]->n, 60001);
}

TEST_F(TelemetryViewTest, PowerOnlyDevicesIntegrateByTrapezoids) {
  for (int64_t t = 0; t <= 1000; t += 100)
    out_ << R"({"kind":"scrape","source":0,"t_ns":)" << t * kMs
         << R"(,"devices":[{"device":"npu 0","dialect":"npu-exporter","power_w":)"
         << (t < 500 ? 100 : 300) << "}]}\n";
  const TelemetryView v = read({0, 1000 * kMs});
  ASSERT_EQ(v.devices.size(), 1u);
  ASSERT_TRUE(v.devices[0].energy.known);
  EXPECT_EQ(v.devices[0].energy.method, metrics::kEnergyFromPower);
  // 0.4 s at 100 W, a 0.1 s ramp from 100 to 300 W, 0.5 s at 300 W.
  EXPECT_NEAR(v.devices[0].energy.joules, 40 + 20 + 150, 1e-9);
}

}  // namespace
}  // namespace tokbench::report
