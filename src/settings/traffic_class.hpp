#pragma once
// settings/traffic_class: one traffic class of a shared-server run (issue 43, item 1), as
// `--class` spells it: 'name=chat,concurrency=8,priority=0,slo=ttft.p99<=300ms'. Keys and values
// are separated by commas; a comma starts a new key only when a key's spelling (lower-case
// letters, digits, '-') and '=' follow it, so a value may hold commas of its own (an SLO list, a
// JSON object). Parsed once into its typed form,
// every problem naming the key and the fix. The --class flag (settings/fields) holds the texts;
// plan/ parses them once into ParsedFlags::classes.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/slo.hpp"

namespace tokbench::runner {

struct TrafficClass {
  std::string name;                    ///< [A-Za-z0-9_.-], 1 to 32 characters
  std::optional<int> concurrency;      ///< its requests in flight at most (a closed loop alone)
  std::optional<double> request_rate;  ///< its open-loop arrivals, req/s
  std::optional<int64_t> num_prompts;  ///< its measured requests
  std::string dataset;                 ///< its own --dataset text ("" = the run's)
  std::optional<int64_t> priority;     ///< sent as the body's "priority" (vLLM's; lower first)
  std::string model;                   ///< sent as the body's "model" (a LoRA adapter)
  std::string extra_body;              ///< a JSON object merged into its bodies
  std::vector<std::string> headers;    ///< "Name: value", each sent with its requests
  std::vector<metrics::RunSlo> slos;   ///< its SLOs (its attainment, its goodput)
  double weight = 1;                   ///< its share of the server relative to the others (> 0)
  /// Its place in the run's --class list (plan/ sets it): its arrivals are seeded by --seed +
  /// this, so it draws the same schedule when run alone (--interference) as beside the others.
  size_t position = 0;
  /// With dataset= and no num-prompts=: one pass over its dataset, which the target settles
  /// (measure/target) as the run's count is settled from --dataset (0: not settled).
  int64_t settled_prompts = 0;
};

/// The class `text` describes; throws std::invalid_argument naming the key and the fix.
TrafficClass parse_traffic_class(std::string_view text);

/// The keys a class takes, in the order --help lists them.
const std::vector<std::string_view>& traffic_class_keys();

}  // namespace tokbench::runner
