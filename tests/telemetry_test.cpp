// probe/telemetry: exporters' scrapes read per device by known names, units converted; what no
// dialect names is listed, never guessed.
#include "probe/telemetry.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>

namespace tokbench::probe {
namespace {

TEST(Telemetry, DcgmPerGpuWithEnergyInJoules) {
  const auto s = read_telemetry(parse_text(
      "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-aa\",Hostname=\"h1\",modelName=\"NVIDIA "
      "H200\"} 512.5\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-bb\",Hostname=\"h1\"} 98\n"
      "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\",UUID=\"GPU-aa\",Hostname=\"h1\"} 123456789\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-aa\",Hostname=\"h1\"} 87\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-aa\",Hostname=\"h1\"} 120000\n"
      "DCGM_FI_DEV_FB_FREE{gpu=\"0\",UUID=\"GPU-aa\",Hostname=\"h1\"} 23000\n"
      "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-aa\",Hostname=\"h1\"} 61\n"
      "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-aa\",Hostname=\"h1\"} 1980\n"
      "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\",UUID=\"GPU-aa\",Hostname=\"h1\"} 0.42\n"
      "DCGM_FI_PROF_NVLINK_TX_BYTES{gpu=\"0\",UUID=\"GPU-aa\",Hostname=\"h1\"} 1000\n"
      "go_goroutines 12\n"
      "my_vendor_power_watts{card=\"0\"} 300\n"));
  ASSERT_EQ(s.dialects, std::vector<ExporterDialect>{ExporterDialect::Dcgm});
  ASSERT_EQ(s.devices.size(), 2u);
  const DeviceReading& g0 = s.devices[0];
  EXPECT_EQ(g0.device, "gpu 0 (GPU-aa, h1)");
  EXPECT_EQ(*g0.power_w, 512.5);
  EXPECT_DOUBLE_EQ(*g0.energy_j, 123456.789);  // mJ to J
  EXPECT_EQ(*g0.util_pct, 87);
  EXPECT_EQ(*g0.mem_total_mib, 143000);  // used + free
  EXPECT_EQ(*g0.temperature_c, 61);
  EXPECT_EQ(*g0.sm_clock_mhz, 1980);
  EXPECT_DOUBLE_EQ(*g0.tensor_active_pct, 42);  // a ratio, as %
  EXPECT_FALSE(g0.sm_active_pct.has_value());   // not exposed: absent
  EXPECT_FALSE(s.devices[1].energy_j.has_value());
  EXPECT_EQ(s.not_recognised, std::vector<std::string>{"my_vendor_power_watts"})
      << "listed, never guessed";
}

// Issue 41: a series given twice for one device kept the last value (9,999 W) silently; it is
// counted and named now. An exporter of many devices is read in time linear in its size, and past
// kMaxDevicesRead devices the rest are counted, not read.
TEST(Telemetry, DuplicatedSeriesAreNamedAndManyDevicesAreBounded) {
  const auto dup = read_telemetry(
      parse_text("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-aa\",Hostname=\"h1\"} 512\n"
                 "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-aa\",Hostname=\"h1\"} 9999\n"
                 "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-aa\",Hostname=\"h1\"} 50\n"));
  ASSERT_EQ(dup.devices.size(), 1u);
  EXPECT_EQ(dup.duplicated, 1);
  EXPECT_EQ(dup.duplicated_example, "DCGM_FI_DEV_POWER_USAGE of gpu 0 (GPU-aa, h1)");
  std::string many;
  constexpr int kDevices = 20'000;
  for (int i = 0; i < kDevices; ++i)
    for (const char* m : {"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_UTIL"})
      many += fmt::format("{}{{gpu=\"{}\",UUID=\"GPU-{}\",Hostname=\"h\"}} 1\n", m, i, i);
  const auto t0 = std::chrono::steady_clock::now();
  const auto s = read_telemetry(parse_text(many));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(s.devices.size(), kMaxDevicesRead);
  EXPECT_EQ(s.devices_past_cap, 2 * (kDevices - static_cast<int64_t>(kMaxDevicesRead)));
  EXPECT_EQ(s.duplicated, 0);
  EXPECT_LT(took, 5.0) << "a scan per sample made 200,000 devices take minutes";
}

TEST(Telemetry, AscendNpuExporterPerChip) {
  const auto s =
      read_telemetry(parse_text("npu_chip_info_power{id=\"0\",model_name=\"Ascend910B\"} 305.2\n"
                                "npu_chip_info_utilization{id=\"0\"} 92\n"
                                "npu_chip_info_hbm_used_memory{id=\"0\"} 50000\n"
                                "npu_chip_info_hbm_total_memory{id=\"0\"} 65536\n"
                                "npu_chip_info_temperature{id=\"0\"} 55\n"
                                "npu_chip_info_health_status{id=\"0\"} 1\n"
                                "npu_chip_info_power{id=\"1\"} 80\n"
                                "npu_chip_info_health_status{id=\"1\"} 0\n"));
  ASSERT_EQ(s.dialects, std::vector<ExporterDialect>{ExporterDialect::NpuExporter});
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].device, "npu 0");
  EXPECT_EQ(*s.devices[0].power_w, 305.2);
  EXPECT_EQ(*s.devices[0].mem_total_mib, 65536);
  EXPECT_TRUE(*s.devices[0].healthy);
  EXPECT_FALSE(*s.devices[1].healthy);
  EXPECT_TRUE(s.not_recognised.empty());
}

TEST(Telemetry, AmdAndNodeExporters) {
  const auto s =
      read_telemetry(parse_text("gpu_package_power{gpu_id=\"2\"} 640\n"
                                "gpu_gfx_activity{gpu_id=\"2\"} 75\n"
                                "gpu_used_vram{gpu_id=\"2\"} 1000\n"
                                "node_memory_MemTotal_bytes 68719476736\n"
                                "node_memory_MemAvailable_bytes 34359738368\n"
                                "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 1000\n"
                                "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 300\n"
                                "node_cpu_seconds_total{cpu=\"1\",mode=\"idle\"} 900\n"
                                "node_network_receive_bytes_total{device=\"eth0\"} 5000\n"
                                "node_network_receive_bytes_total{device=\"lo\"} 99999\n"
                                "node_network_transmit_bytes_total{device=\"eth0\"} 7000\n"));
  EXPECT_EQ(s.dialects, (std::vector<ExporterDialect>{ExporterDialect::AmdExporter,
                                                      ExporterDialect::NodeExporter}));
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].device, "gpu 2");
  EXPECT_EQ(*s.devices[0].power_w, 640);
  EXPECT_EQ(s.devices[1].device, "host");
  EXPECT_EQ(*s.devices[1].mem_total_mib, 65536);
  EXPECT_EQ(*s.devices[1].mem_used_mib, 32768);
  EXPECT_EQ(*s.devices[1].cpu_idle_s, 1900);    // over every CPU
  EXPECT_EQ(*s.devices[1].cpu_total_s, 2200);   // every mode
  EXPECT_EQ(*s.devices[1].net_rx_bytes, 5000);  // loopback left out
  EXPECT_EQ(*s.devices[1].net_tx_bytes, 7000);
  EXPECT_EQ(s.not_recognised, std::vector<std::string>{"gpu_used_vram"})
      << "an AMD series whose unit is not stated";
  EXPECT_STREQ(dialect_name(ExporterDialect::NpuExporter), "npu-exporter");
}

}  // namespace
}  // namespace tokbench::probe
