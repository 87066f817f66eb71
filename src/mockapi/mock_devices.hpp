#pragma once
// mockapi/mock_devices: `serve-mock --devices N` — accelerators behind the simulator, served at
// /device-metrics as NVIDIA's dcgm-exporter (or Ascend's npu-exporter) names them, from a stated
// power model, so tokbench's --telemetry is tested end to end against a known truth:
//
//   total power = N × idle W + W per running request × running + J per generated token × token rate
//
// split equally over the N devices. The energy counter (dcgm's, mJ) integrates it exactly: the
// continuous part between every change of the running count, each token's joules when it is
// made. The power gauge, as a real one averages over its sampling window, is the mean power since
// the previous scrape (the counter's joules over that time), so the gauge and the counter agree as
// a real device's do, and tokbench's check that they agree is met by its own simulator.
#include <cstdint>
#include <mutex>
#include <string>

namespace tokbench::mock {

struct DeviceModel {
  int devices = 0;               ///< 0 = none (no /device-metrics)
  double idle_w = 100;           ///< per device, with nothing running
  double w_per_request = 5;      ///< the whole server's extra W per running request
  double j_per_token = 0.05;     ///< the whole server's J per generated token
  std::string dialect = "dcgm";  ///< dcgm | npu
};

/// The devices' state, fed by the simulator's metrics as requests start, finish and make tokens.
/// Thread-safe.
class MockDevices {
 public:
  explicit MockDevices(DeviceModel m);
  void running_changed(int64_t running);  ///< the batch's new size, now
  void tokens(int64_t n);                 ///< n tokens were generated now
  /// The exposition: per device power (W), energy (mJ, dcgm only), utilisation, memory,
  /// temperature.
  std::string render();
  /// The joules spent since the simulator started (all devices), for tests.
  double joules();
  bool enabled() const { return model_.devices > 0; }

 private:
  void advance(int64_t now_ns);  // integrates the continuous part up to now; holds mu_
  DeviceModel model_;
  std::mutex mu_;
  int64_t last_ns_ = 0, running_ = 0;
  double joules_ = 0;
  int64_t scraped_ns_ = 0;  // the previous render, and the joules then: the gauge's window
  double scraped_j_ = 0;
};

}  // namespace tokbench::mock
