#pragma once
// metrics/agents (internal to metrics/): agent tasks (--dataset agent:FILE; docs/METRICS.md,
// "Agent loops"). From the records of each task's turns (load/agents marks the last one with how
// the task ended):
//  - TaskLatency: the task's first turn handed out -> its last answer's end;
//  - TaskModelTime: its turns' E2EL summed (sent -> done); TaskToolTime: the stubs' waits summed
//    (each turn's slowest call); TaskClientTime: each turn's ready -> sent summed (building the
//    body, waiting for a connection, the engine's wake-up). The three are measured apart, and
//    add up to TaskLatency: the note says by how much they miss it;
//  - TaskTurns, TaskInputTokens, TaskOutputTokens: per task, summed over its turns;
//  - tasks per second over the span of the tasks, and with --goodput the tasks that answered
//    with every turn inside the SLOs, per second (task goodput).
// Failed tasks (a turn failed) are counted apart and left out of the rows. Memory: the sums of
// the tasks in flight only.
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/samples.hpp"
#include "metrics/metrics.hpp"
#include "record/record.hpp"

namespace tokbench::metrics::detail {

class AgentTasks {
 public:
  explicit AgentTasks(GoodputSpec goodput) : goodput_(std::move(goodput)) {}
  /// Every measured record, failed or not (only an agent task's turns count).
  void add(const record::RequestRecord& r);
  void columns(std::vector<std::pair<Samples*, PercentileMethod>>& out);
  /// The rows (n/a without agent tasks) and a note.
  void finish(MetricSet& m);
  /// The tasks' Common rows (after the table's own are made): Agent Tasks, Task Throughput,
  /// Task Goodput with --goodput; none without agent tasks.
  void add_common(MetricSet& m) const;

 private:
  struct Sums {
    int64_t turns = 0, start_ns = 0;
    double in = 0, out = 0, model_ns = 0, tool_ns = 0, client_ns = 0;
    bool good = true;
  };
  GoodputSpec goodput_;
  std::unordered_map<int64_t, Sums> open_;  // tasks whose last turn has not come
  Samples latency_, model_, tool_, client_, turns_, in_, out_;
  int64_t answered_ = 0, capped_ = 0, failed_ = 0, good_ = 0;
  int64_t first_start_ns_ = -1, last_done_ns_ = -1;
  double most_gap_ = 0;  // the largest |latency - (model + tool + client)| / latency
};

}  // namespace tokbench::metrics::detail
