#pragma once
// report/outputs: the run folder (AISBench's layout) and result.json, the machine-readable
// summary scripts rely on: metrics.<Row>.{mean,min,max,median,p75,p90,p99,n} (ms or tokens,
// null when not applicable), common.<snake_case>, definitions, tool, verdict, interrupted.
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "common/json_writer.hpp"
#include "metrics/metrics.hpp"
#include "metrics/verdict.hpp"
#include "record/client_health.hpp"
#include "record/run_parts.hpp"
#include "runfolder/run_info.hpp"

namespace tokbench::report {

using metrics::Verdict;  // metrics/verdict decides it; the outputs show it

using runfolder::RunInfo;  // the facts the run folder keeps; the outputs show them

/// The "metrics", "extra_metrics" and "common" fields of a MetricSet, as result.json has them.
void metric_set_fields(JsonWriter& w, const metrics::MetricSet& m);

std::string result_json(const metrics::MetricSet& m, const RunInfo& info, const Verdict& v,
                        const std::vector<metrics::DefinitionColumn>& side_by_side = {});

}  // namespace tokbench::report
