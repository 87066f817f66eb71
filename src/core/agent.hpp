#pragma once
// core/agent: agent tasks (--dataset agent:FILE) and the stub tools they call — a noun below
// dataset/ (which reads the file), load/ (whose agent source runs each task's loop: the model's
// calls go to the stubs, their results come back as tool messages after the stubs' latency) and
// measure/ (which writes each turn's messages). docs/METRICS.md, "Agent loops", has the rules.
//
// A stub answers every call of its tool after a latency drawn from its distribution (fixed,
// uniform or exponential, seeded per task, turn and call, so a run repeats), with its result:
// a template whose {{name}} places take the call's argument `name` (a string as its text,
// anything else as its JSON text, a missing one as ""). A call of a tool the task has no stub
// for (the model named one it was not offered) is answered at once with an error result.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/tools.hpp"

namespace tokbench::core {

/// How long a stub takes, in ms.
struct StubLatency {
  enum class Kind : char { Fixed, Uniform, Exponential };
  Kind kind = Kind::Fixed;
  double a_ms = 0;  ///< fixed: the latency; uniform: the low end; exponential: the mean
  double b_ms = 0;  ///< uniform: the high end
  /// The latency for the uniform draw `u` in [0, 1).
  int64_t ns_at(double u) const;
};

struct ToolStub {
  std::string name;
  StubLatency latency;
  std::string result;  ///< the template of its answer
};

/// One task: the system prompt, the user's goal, the tools offered and their stubs, the turn cap.
struct AgentTask {
  std::string id;  ///< the line's "id" (else its 1-based line number)
  std::string system, goal;
  SharedTools tools;
  std::vector<ToolStub> stubs;
  int64_t max_turns = 10;  ///< requests at most; the last one's calls go unanswered ("turn cap")
  const ToolStub* stub(std::string_view name) const;
};

/// What a stub said to one call, and how long it took.
struct StubAnswer {
  std::string result;
  int64_t latency_ns = 0;
};

/// Runs the stub of `call` (its task's): the result made from the template, the latency drawn by
/// splitmix64 of (seed, task, turn, call).
StubAnswer run_stub(const AgentTask& task, const ToolCall& call, uint64_t seed, int64_t task_index,
                    int64_t turn, size_t call_index);

/// The template with each {{name}} filled from the arguments' JSON object (the rule above).
std::string fill_template(std::string_view tmpl, std::string_view arguments);

/// One turn of a task as its next request carries it: the model's answer text, its calls, and
/// each call's result (in the calls' order).
struct AgentStep {
  std::string answer;
  std::vector<ToolCall> calls;
  std::vector<std::string> results;
};

/// How a task ended, on its last turn's record.
enum class TaskEnd : char {
  None = '-',     ///< not an agent task's last turn
  Answer = 'A',   ///< the model answered without a call
  TurnCap = 'C',  ///< it still called tools at the turn cap
  Failed = 'F',   ///< a turn failed: nothing to carry on from
};
std::string_view task_end_name(TaskEnd e);      ///< "answer", "turn_cap", "failed", ""
TaskEnd task_end_named(std::string_view name);  ///< the inverse; None for anything else

}  // namespace tokbench::core
