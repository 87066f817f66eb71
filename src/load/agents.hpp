#pragma once
// load/agents: agent tasks as a request source (--dataset agent:FILE). Up to `active` tasks run at
// once (--concurrency); each sends its turns one after another. When an answer calls tools, each
// call goes to its stub (core/agent), and the next turn — the history, the calls and their
// results — is due once the slowest stub has answered (the calls of one turn run side by side,
// as a framework runs parallel tool calls); an answer without a call ends the task, and so do
// its turn cap and a failed turn. The source marks each task's last record with how it ended.
// How a turn's body is written is the caller's (measure/): this file knows nothing about HTTP or
// JSON. Memory: the histories of the active tasks only.
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/agent.hpp"
#include "load/source.hpp"

namespace tokbench::load {

/// One turn of a task about to be sent.
struct AgentTurn {
  int64_t index = 0;     ///< the request's sequence index in the phase
  int64_t task = 0;      ///< which task run (0-based, in start order); its task is tasks[task % n]
  int64_t turn = 0;      ///< 0-based
  int64_t start_ns = 0;  ///< when the task's first turn was handed out (steady ns since origin)
  int64_t ready_ns = 0;  ///< when this turn could go: the task's start, or its tools' last answer
  int64_t tool_ns = 0;   ///< how long the stubs before this turn took (0 on turn 0)
  const core::AgentTask* def = nullptr;
  const std::vector<core::AgentStep>* steps = nullptr;  ///< the turns before, with their results
};

using AgentTurnMaker = std::function<core::PlannedRequest(const AgentTurn& turn)>;

class AgentSource final : public RequestSource {
 public:
  /// `count` task runs over `tasks` (cycling), `active` at once; stub latencies drawn from `seed`.
  /// A rank of a multi-host run takes the runs r with r % shard_size == shard_rank.
  AgentSource(const std::vector<core::AgentTask>& tasks, int64_t count, int active, uint64_t seed,
              AgentTurnMaker make, int shard_rank = 0, int shard_size = 1);
  void start(int64_t phase_start_ns) override;
  Pull next(int64_t now_ns) override;
  /// Runs the answer's calls through the stubs, or ends the task (marking the record).
  void completed(record::RequestRecord& r) override;
  int64_t planned() const override { return -1; }  ///< the model decides how many turns

 private:
  struct Run {
    int64_t task = -1;  ///< -1 = a free place
    int64_t turn = 0;
    int64_t start_ns = 0, ready_at_ns = 0, tool_ns = 0;
    bool in_flight = false;
    std::vector<core::AgentStep> steps;
  };
  void end(Run& run, record::RequestRecord& r, core::TaskEnd how);

  const std::vector<core::AgentTask>& tasks_;
  int64_t count_;
  uint64_t seed_;
  AgentTurnMaker make_;
  mutable std::mutex mu_;
  std::vector<Run> places_;
  int64_t next_task_ = 0, next_index_ = 0;
  int shard_rank_ = 0, shard_size_ = 1;
  std::unordered_map<int64_t, size_t> place_of_index_;  ///< in-flight request -> its run's place
};

}  // namespace tokbench::load
