#pragma once
// plan/plan: the first stage — flags to a validated plan, with no I/O beyond what it is handed
// (the environment's API key), so it is unit-tested without a network. What the plan cannot know
// yet (the model, the dataset's size) is settled by the target stage. An experiment's points are
// PointSpecs: the few values that vary between its load points, applied to the plan by at_point()
// (which decides the point's LoadShape once); one function runs one spec (point/points).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/cancel.hpp"
#include "core/run_control.hpp"
#include "metrics/metrics.hpp"
#include "metrics/slo.hpp"
#include "record/run_parts.hpp"
#include "settings/load_shape.hpp"
#include "settings/run_config.hpp"
#include "settings/traffic_class.hpp"

namespace tokbench::runner {

/// The settings that are small languages, each parsed once (by validate) into its typed value;
/// what runs reads these, never the text.
struct ParsedFlags {
  std::vector<metrics::RunSlo> slos;                 ///< --slo
  metrics::GoodputSpec goodput;                      ///< --goodput (empty: none)
  std::optional<record::WindowSpec> profile_window;  ///< --profile-window
  std::optional<std::pair<int, int>> image;          ///< --image WxH
  std::optional<core::CancelAfter> cancel_after;     ///< --cancel-after (with --cancel-rate)
  std::vector<TrafficClass> classes;                 ///< --class, in the order given
};

/// Every problem of `c` at once, each naming the flag and the fix: the settings' own checks
/// (RunConfig::validate_*), each workload's (workload/), and the small languages parsed — handed
/// over in `parsed` when given.
std::vector<std::string> validate(const RunConfig& c, ParsedFlags* parsed = nullptr);

struct RunPlan {
  RunConfig requested;  ///< as given (saved, redacted, beside the effective one)
  RunConfig cfg;        ///< effective: API key from the environment, workers resolved
  std::vector<std::pair<std::string, std::string>> extra_body;  ///< --extra-body, parsed
  core::SharedTools tools;                         ///< --tools, read and parsed (null: none)
  std::shared_ptr<const std::string> json_schema;  ///< --json-schema, read (minified; null: none)
  metrics::Definitions definitions = metrics::Definitions::Tokbench;
  bool synthetic = false;
  core::TlsSettings tls;  ///< from --ca-bundle, --cert, --key, --insecure
  ParsedFlags parsed;     ///< --slo, --goodput, --profile-window, --image: parsed once, here
  /// The load this plan puts on the server, decided once from cfg (make_plan, at_point); a
  /// multi-host rank's share re-decides it from its share of the in-flight cap.
  LoadShape load;
  /// Added to a started server's environment (a grid point's values, series/grid).
  std::map<std::string, std::string> server_env;
  /// A traffic class's own plan (class_plan): its load, and the body fields and model it sends.
  std::optional<TrafficClass> traffic_class;
};

/// Validates `requested` (every problem at once) and resolves what needs no network.
/// `env_api_key` is $OPENAI_API_KEY or nullptr. Throws std::invalid_argument (a usage error).
RunPlan make_plan(const RunConfig& requested, const char* env_api_key);

/// One load point of an experiment: all that varies between a sweep's points, a search's probes
/// and a series' repeats — and all that rank 0 sends the other ranks of a multi-host run for it.
/// Everything else is the plan's.
struct PointSpec {
  std::string label;        ///< the point's folder name ("c4", "r2.5", "run-2")
  int concurrency = 0;      ///< --concurrency at this point (0: auto, as the flag)
  double request_rate = 0;  ///< --request-rate at this point (+inf: all due at once)
  int64_t num_prompts = 0;  ///< the workload's slice: the point's measured requests
  uint64_t seed = 0;        ///< its arrival and draw seed
  /// A --schema-paired pair's first point: the plan's prompts sent without --json-schema.
  bool unconstrained = false;
  /// The --class names run at this point, in the plan's order (--interference: a class alone);
  /// empty: every class the plan has.
  std::vector<std::string> classes = {};
  /// A sweep over one --class's load: that class's name, and `concurrency` and `request_rate`
  /// above are its load at this point (the run's own stays none); "": they are the run's.
  std::string load_class = {};
};

/// The spec of `plan` as it stands (its first point when it holds sweep lists), named `label`.
PointSpec spec_of(const RunPlan& plan, std::string label);
/// The points a sweep's lists make, in order (one when there are no lists).
std::vector<PointSpec> sweep_specs(const RunPlan& plan);
/// `base` at `spec`: the point's values set in cfg and requested, the sweep lists consumed, its
/// LoadShape decided.
RunPlan at_point(const RunPlan& base, const PointSpec& spec);
/// Class `index` of `base` (its --class): the class's load in place of the run's (its concurrency,
/// request rate and count; its arrivals seeded by --seed + index, so a class draws the same
/// schedule alone and beside the others), its priority and extra body over --extra-body, its
/// model; its headers go with its requests (measure/execute).
RunPlan class_plan(const RunPlan& base, size_t index);

/// The spec as text (one value a line: the rate as fmt writes a double, exact, "inf" for all at
/// once; the classes comma-separated, "" for all; the class whose load it sets), and back; throws
/// std::invalid_argument on text spec_text did not write.
std::string spec_text(const PointSpec& spec);
PointSpec spec_from_text(const std::string& text);

}  // namespace tokbench::runner
