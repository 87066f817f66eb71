#pragma once
// probe/live_text: a load point's counts so far (metrics/live_tally) in Prometheus' text
// exposition format (version 0.0.4), what `--live`'s /metrics answers a scraper: counters of
// requests sent and finished by outcome, in flight, tokens, and the TTFT, TPOT and E2EL histograms
// under vLLM's own metric names with tokbench_ in front, so a dashboard built for vLLM's server
// reads the client's side with the prefix changed. Labels: the run, the point, the model, and the
// traffic class where the run has classes.
#include <cstdint>
#include <map>
#include <string>

#include "metrics/live_tally.hpp"

namespace tokbench::probe {

struct PointLabels {
  std::string run_id, point, model;
};

std::string prometheus_text(const std::map<std::string, metrics::ClassTally>& classes, int64_t sent,
                            const PointLabels& labels);

/// A label value as the format escapes it (backslash, double quote, newline).
std::string escape_label(std::string_view value);

}  // namespace tokbench::probe
