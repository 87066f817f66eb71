#pragma once
// settings/run_config: every setting of `tokbench run` — its parts (settings/settings) in one
// struct, the single truth that the CLI binds flags to, that plan/'s validate() checks, and that
// is saved (API key redacted) in configs/ and the manifest.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "settings/settings.hpp"

namespace tokbench::client {
class ApiAdapter;  // client/api.hpp
}

namespace tokbench::runner {

/// The API adapter of an endpoint name (a validated one; an unknown name is chat's).
const client::ApiAdapter& api_of(const std::string& endpoint);
/// The URL path of an endpoint name: "/v1/chat/completions", ..., "/v1/messages", "/generate".
std::string endpoint_path(const std::string& endpoint);

/// Every setting of `tokbench run`: its seven parts (settings/settings), and what needs more
/// than one of them.
struct RunConfig : TargetSettings,
                   RequestSettings,
                   LoadSettings,
                   WorkloadSettings,
                   ExperimentSettings,
                   ObserveSettings,
                   OutputSettings {
  /// Whether one kept-alive connection per slot is opened before the measured phase
  /// (--warm-connections auto: for a plain closed loop).
  bool warms_connections() const {
    return warm_connections == Toggle::On ||
           (warm_connections == Toggle::Auto && request_rate == 0 && request_rate_sweep.empty() &&
            !pressure && ramp_up_s == 0 && adaptive_window_s == 0);
  }

  // The parts of plan/plan's validate() that need nothing but the settings, each adding its
  // problems to `errors`, each naming the flag and the fix.
  void validate_target(std::vector<std::string>& errors) const;
  void validate_request(std::vector<std::string>& errors) const;
  void validate_load(
      std::vector<std::string>& errors) const;  ///< the load shape, sweeps and experiments
  void validate_workload(std::vector<std::string>& errors) const;
  void validate_observe(std::vector<std::string>& errors) const;
  /// The endpoint URL this config targets ("" when the built-in simulator will be started). A
  /// --url with no path gets /v1/<endpoint>.
  std::string target_url() const;
  /// --endpoint, else what the --url path names, else chat.
  std::string resolved_endpoint() const;
  bool embedded_target() const { return url.empty() && host.empty() && deploy_sh.empty(); }
  /// The settings as a JSON object; the API key and Authorization headers are redacted.
  std::string to_json() const;
  /// How many load points the sweep lists make (1 = a single run).
  size_t sweep_points() const;
  /// The config of point i of the sweep (lists cleared, that point's values set).
  RunConfig sweep_point(size_t i) const;
  /// "c4", "r2.5", "c4-n40": the folder name of point i, from the values that vary.
  std::string sweep_label(size_t i) const;
};

}  // namespace tokbench::runner
