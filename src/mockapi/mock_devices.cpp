#include "mockapi/mock_devices.hpp"

#include <fmt/format.h>

#include "common/clock.hpp"

namespace tokbench::mock {

MockDevices::MockDevices(DeviceModel m) : model_(std::move(m)), last_ns_(steady_now_ns()) {}

void MockDevices::advance(int64_t now_ns) {
  if (now_ns <= last_ns_) return;
  const double w =
      model_.devices * model_.idle_w + model_.w_per_request * static_cast<double>(running_);
  joules_ += w * static_cast<double>(now_ns - last_ns_) / 1e9;
  last_ns_ = now_ns;
}

void MockDevices::running_changed(int64_t running) {
  if (!enabled()) return;
  std::lock_guard lock(mu_);
  advance(steady_now_ns());
  running_ = running;
}

void MockDevices::tokens(int64_t n) {
  if (!enabled()) return;
  std::lock_guard lock(mu_);
  advance(steady_now_ns());
  joules_ += model_.j_per_token * static_cast<double>(n);
}

double MockDevices::joules() {
  std::lock_guard lock(mu_);
  advance(steady_now_ns());
  return joules_;
}

std::string MockDevices::render() {
  std::lock_guard lock(mu_);
  advance(steady_now_ns());
  const int n = model_.devices;
  const int64_t now = last_ns_;
  // The mean power since the previous scrape; on the first, or within a millisecond of one, the
  // power now (a token's joules are an instant that a window this short cannot average).
  const double window_s = static_cast<double>(now - scraped_ns_) / 1e9;
  const double each_w =
      scraped_ns_ > 0 && window_s >= 1e-3
          ? (joules_ - scraped_j_) / window_s / n
          : model_.idle_w + model_.w_per_request * static_cast<double>(running_) / n;
  scraped_ns_ = now;
  scraped_j_ = joules_;
  const double each_j = joules_ / n;
  const double util = running_ > 0 ? 100.0 : 0.0;
  std::string out;
  if (model_.dialect == "npu") {
    out += "# HELP npu_chip_info_power the npu power\n# TYPE npu_chip_info_power gauge\n";
    for (int i = 0; i < n; ++i)
      out += fmt::format("npu_chip_info_power{{id=\"{}\"}} {}\n", i, each_w);
    for (int i = 0; i < n; ++i) {
      out += fmt::format("npu_chip_info_utilization{{id=\"{}\"}} {}\n", i, util);
      out += fmt::format("npu_chip_info_hbm_used_memory{{id=\"{}\"}} {}\n", i,
                         16384 + 1024 * running_);
      out += fmt::format("npu_chip_info_hbm_total_memory{{id=\"{}\"}} 65536\n", i);
      out += fmt::format("npu_chip_info_temperature{{id=\"{}\"}} {}\n", i, 40 + each_w / 20);
      out += fmt::format("npu_chip_info_health_status{{id=\"{}\"}} 1\n", i);
    }
    return out;
  }
  for (int i = 0; i < n; ++i) {
    const std::string labels =
        fmt::format("gpu=\"{}\",UUID=\"GPU-tokbench-mock-{}\",Hostname=\"tokbench-mock\"", i, i);
    out += fmt::format("DCGM_FI_DEV_POWER_USAGE{{{}}} {}\n", labels, each_w);
    out += fmt::format("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{{{}}} {}\n", labels, each_j * 1000);
    out += fmt::format("DCGM_FI_DEV_GPU_UTIL{{{}}} {}\n", labels, util);
    out += fmt::format("DCGM_FI_DEV_FB_USED{{{}}} {}\n", labels, 16384 + 1024 * running_);
    out += fmt::format("DCGM_FI_DEV_FB_FREE{{{}}} {}\n", labels, 81920 - 16384 - 1024 * running_);
    out += fmt::format("DCGM_FI_DEV_GPU_TEMP{{{}}} {}\n", labels, 40 + each_w / 20);
  }
  return out;
}

}  // namespace tokbench::mock
