#pragma once
// settings/traffic_class: one traffic class of a shared-server run (issue 43, item 1), as
// `--class` spells it: 'name=chat,concurrency=8,priority=0,slo=ttft.p99<=300ms'. Keys and values
// are separated by commas; a comma starts a new key only when a key's spelling (lower-case
// letters, digits, '-') and '=' follow it, so a value may hold commas of its own (an SLO list, a
// JSON object) — and a list of loads: concurrency=1,2,4 or request-rate=1,2,4 makes the run a
// sweep over that class's load (the others held). Parsed once into its typed form,
// every problem naming the key and the fix. The --class flag (settings/fields) holds the texts;
// plan/ parses them once into ParsedFlags::classes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/run_control.hpp"
#include "metrics/slo.hpp"

namespace tokbench::runner {

struct TrafficClass {
  std::string name;                    ///< [A-Za-z0-9_.-], 1 to 32 characters
  std::optional<int> concurrency;      ///< its requests in flight at most (a closed loop alone)
  std::optional<double> request_rate;  ///< its open-loop arrivals, req/s
  std::optional<core::ArrivalKind> arrivals;  ///< its open loop's process (else --arrivals)
  std::optional<double> burstiness;           ///< its gamma shape (else --burstiness)
  /// A list in concurrency= or request-rate= (a sweep over this class's load, point by point;
  /// two lists are zipped and have one length); the scalars above hold the first point.
  std::vector<int> concurrency_sweep;
  std::vector<double> request_rate_sweep;
  std::optional<int64_t> num_prompts;  ///< its measured requests
  std::string dataset;                 ///< its own --dataset text ("" = the run's)
  std::optional<int64_t> priority;     ///< sent as the body's "priority" (vLLM's; lower first)
  std::string model;                   ///< sent as the body's "model" (a LoRA adapter)
  std::string extra_body;              ///< a JSON object merged into its bodies
  std::vector<std::string> headers;    ///< "Name: value", each sent with its requests
  std::vector<metrics::RunSlo> slos;   ///< its SLOs (its attainment, its goodput)
  double weight = 1;                   ///< its share of the server relative to the others (> 0)
  /// Multi-turn sessions of this many turns (--turns for this class: concurrency= sessions at
  /// once, num-prompts= sessions in all).
  std::optional<int64_t> turns;
  /// Its place in the run's --class list (plan/ sets it): its arrivals are seeded by --seed +
  /// this, so it draws the same schedule when run alone (--interference) as beside the others.
  size_t position = 0;
  /// With dataset= and no num-prompts=: one pass over its dataset, which the target settles
  /// (measure/target) as the run's count is settled from --dataset (0: not settled).
  int64_t settled_prompts = 0;

  /// Whether it sends sessions: turns=, or agent tasks or recorded agent sessions as its dataset.
  bool sessions() const {
    return turns.has_value() || dataset.starts_with("agent:") ||
           dataset.starts_with("agent-trace:");
  }
  /// How many load points its lists make (1: none).
  size_t sweep_points() const {
    return std::max({concurrency_sweep.size(), request_rate_sweep.size(), size_t{1}});
  }
  /// Its load at sweep point i (the lists consumed; a key with no list keeps its value).
  TrafficClass at_sweep_point(size_t i) const;
  /// "batch-c4", "batch-r2.5": the folder name of its sweep point i.
  std::string sweep_label(size_t i) const;
};

/// The class `text` describes; throws std::invalid_argument naming the key and the fix.
TrafficClass parse_traffic_class(std::string_view text);

/// `text` with `key`'s value replaced by `value` (a point of a class's sweep, as its run folder's
/// settings say it); every other key as written.
std::string with_class_key(std::string_view text, std::string_view key, std::string_view value);

/// Of --class texts, the sweep points the one class with a list makes (1: none has one); texts
/// that do not parse count as none (plan/ names their problems).
size_t class_sweep_points(const std::vector<std::string>& texts);

/// The keys a class takes, in the order --help lists them.
const std::vector<std::string_view>& traffic_class_keys();

}  // namespace tokbench::runner
