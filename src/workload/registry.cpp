// workload/registry: the one list of workloads, by their --dataset source.
#include "workload/registry.hpp"

#include <stdexcept>
#include <string>

namespace tokbench::runner {

const std::vector<const Workload*>& all_workloads() {
  static const std::vector<const Workload*> all{
      &builtin_workload(), &synthetic_workload(), &qa_workload(),
      &gsm8k_workload(),   &lines_workload(),     &sharegpt_workload(),
      &trace_workload(),   &agent_workload(),     &agent_trace_workload()};
  return all;
}

const Workload& workload_of(dataset::Source s) {
  for (const Workload* w : all_workloads())
    if (w->source() == s) return *w;
  throw std::logic_error(
      "no workload for --dataset " +
      std::string(dataset::kSources.name(s)));  // the table and the list disagree
}

}  // namespace tokbench::runner
