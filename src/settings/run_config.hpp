#pragma once
// settings/run_config: every setting of `tokbench run` — its parts (settings/settings) in one
// struct, the single truth that the CLI binds flags to, that plan/'s validate() checks, and that
// is saved (API key redacted) in configs/ and the manifest.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/api_caps.hpp"
#include "settings/load_shape.hpp"
#include "settings/settings.hpp"

namespace tokbench::client {
class ApiAdapter;  // client/api.hpp
}

namespace tokbench::runner {

/// The API adapter of an endpoint name (a validated one; an unknown name is chat's).
const client::ApiAdapter& api_of(const std::string& endpoint);
/// What the API of an endpoint name can do (for what cannot include client/, point/'s manifest).
core::ApiCaps caps_of(const std::string& endpoint);
/// The URL path of an endpoint name: "/v1/chat/completions", ..., "/v1/messages", "/generate";
/// `stream` false: the path of its answers sent whole where that differs (TGI's /generate).
std::string endpoint_path(const std::string& endpoint, bool stream = true);

/// "http://h:p/v1/chat/completions?x" -> "/v1/chat/completions"; "" when the URL has no path.
std::string url_path(const std::string& url);
/// The API a URL's path names: its name, "" (a base path: --endpoint decides) or "?" (a path of
/// something else).
std::string endpoint_of_path(const std::string& path);

/// Every setting of `tokbench run`: its seven parts (settings/settings), each a stage's interface
/// (a stage takes the parts it reads), and what needs more than one of them.
struct RunConfig {
  TargetSettings target;          ///< where requests go, as whom, the server tokbench may start
  RequestSettings request;        ///< what each body says, the limits on its answer
  LoadSettings load;              ///< the load shape, sweep lists, warm-up, seed
  WorkloadSettings workload;      ///< prompts, lengths, sessions, images, documents, traces
  ExperimentSettings experiment;  ///< search, repeats, controller, SLOs, goodput, resume
  ObserveSettings observe;        ///< server metrics, telemetry, answer checks
  OutputSettings output;          ///< the run folder and the console

  /// Whether one kept-alive connection per slot is opened before the measured phase
  /// (--warm-connections auto: for a plain closed loop).
  bool warms_connections() const {
    return load.warm_connections == Toggle::On ||
           (load.warm_connections == Toggle::Auto && load.request_rate == 0 &&
            load.request_rate_sweep.empty() && !load.pressure && load.ramp_up_s == 0 &&
            experiment.adaptive_window_s == 0);
  }

  // The parts of plan/plan's validate() that need nothing but the settings, each adding its
  // problems to `errors`, each naming the flag and the fix (settings/checks.cpp).
  void validate_target(std::vector<std::string>& errors) const;
  void validate_request(std::vector<std::string>& errors) const;
  void validate_load(std::vector<std::string>& errors) const;  ///< the load shape and sweep lists
  void validate_experiment(std::vector<std::string>& errors) const;
  void validate_workload(std::vector<std::string>& errors) const;
  void validate_observe(std::vector<std::string>& errors) const;
  /// The load these settings put on the server, decided once (settings/load_shape).
  LoadShape load_shape() const { return runner::load_shape(load, workload, experiment); }
  /// The endpoint URL this config targets ("" when the built-in simulator will be started). A
  /// --url with no path gets /v1/<endpoint>.
  std::string target_url() const;
  /// --endpoint, else what the --url path names, else chat.
  std::string resolved_endpoint() const;
  bool embedded_target() const {
    return target.url.empty() && target.host.empty() && target.deploy_sh.empty();
  }
  /// What a run of `size` ranks (mpirun -np N) cannot do, each naming the fix (empty: it can).
  std::vector<std::string> multi_host_problems(int size) const;
  /// The settings as a JSON object; the API key and Authorization headers are redacted.
  std::string to_json() const;
  /// Whether the flags ask for more than one point: a search, repeats, a list, --interference.
  bool is_series() const {
    return experiment.searching() || experiment.repeats > 1 || sweep_points() > 1 ||
           experiment.interference;
  }
  /// How many load points the sweep lists make (1 = a single run).
  size_t sweep_points() const;
  /// The config of point i of the sweep (lists cleared, that point's values set).
  RunConfig sweep_point(size_t i) const;
  /// "c4", "r2.5", "c4-n40": the folder name of point i, from the values that vary.
  std::string sweep_label(size_t i) const;
};

}  // namespace tokbench::runner
