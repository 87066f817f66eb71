#pragma once
// host/doctor: what `tokbench doctor` prints — the host's limits, the client's measured cost per
// event, the streams it can drive at a few token rates, the hosts a target load needs, and advice
// naming the setting to change — as text (one screen) and as JSON. The measurement itself is
// the caller's (cli/doctor_command runs a short benchmark against a loopback server).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/capacity.hpp"
#include "host/limits.hpp"

namespace tokbench::host {

struct DoctorReport {
  HostLimits limits;
  std::optional<EventCost> cost;  ///< nullopt: not measured (--no-measure)
  std::string measured_against;   ///< "the built-in simulator" or the URL
  bool in_process_server = false;
  std::vector<double> token_rates;  ///< tokens/s per stream to estimate streams at
  /// --hosts-needed: streams at a token rate (nullopt: not asked).
  std::optional<int64_t> target_streams;
  double target_tokens_per_s = 0;

  Capacity capacity() const;
};

/// Advice on the limits: what would cap or blur a large run, each naming the setting.
std::vector<std::string> host_advice(const HostLimits& limits);

std::string doctor_text(const DoctorReport& r);
std::string doctor_json(const DoctorReport& r);

}  // namespace tokbench::host
