#include "load/agents.hpp"

#include <algorithm>

#include "load/places.hpp"

namespace tokbench::load {

AgentSource::AgentSource(const std::vector<core::AgentTask>& tasks, int64_t count, int active,
                         uint64_t seed, AgentTurnMaker make, int shard_rank, int shard_size)
    : tasks_(tasks),
      count_(tasks.empty() ? 0 : count),
      seed_(seed),
      make_(std::move(make)),
      places_(static_cast<size_t>(std::max(1, active))),
      next_task_(shard_rank),
      shard_rank_(shard_rank),
      shard_size_(std::max(1, shard_size)) {}

void AgentSource::start(int64_t) {}

Pull AgentSource::next(int64_t now_ns) {
  AgentTurn t;
  {
    std::lock_guard lock(mu_);
    const Picked<Run> picked = pick_place(places_, now_ns, [&](Run& run) {
      if (run.task >= 0) return true;
      if (next_task_ >= count_) return false;
      run = Run{};  // a free place: start the next task
      run.task = next_task_;
      next_task_ += shard_size_;
      run.start_ns = run.ready_at_ns = now_ns;
      return true;
    });
    if (!picked.place) return picked.wait;
    Run* pick = picked.place;
    const size_t at = picked.at;
    pick->in_flight = true;
    t.index = next_index_++ * shard_size_ + shard_rank_;
    t.task = pick->task;
    t.turn = pick->turn;
    t.start_ns = pick->start_ns;
    t.ready_ns = pick->ready_at_ns;
    t.tool_ns = pick->tool_ns;
    t.def = &tasks_[static_cast<size_t>(pick->task) % tasks_.size()];
    t.steps = &pick->steps;  // stable: the run is in flight, nothing else touches it
    place_of_index_[t.index] = at;
  }
  core::PlannedRequest p = make_(t);
  p.index = t.index;
  p.facts.session = t.task;
  p.facts.turn = t.turn;
  p.facts.session_start_ns = t.start_ns;
  p.facts.ready_ns = t.ready_ns;
  p.facts.tool_ns = t.tool_ns;
  return Pull::of(std::move(p));
}

void AgentSource::end(Run& run, record::RequestRecord& r, core::TaskEnd how) {
  r.last_turn = true;
  r.task_end = how;
  run = Run{};  // the place takes the next task
}

void AgentSource::completed(record::RequestRecord& r) {
  std::lock_guard lock(mu_);
  const auto it = place_of_index_.find(r.index);
  if (it == place_of_index_.end()) return;
  Run& run = places_[it->second];
  place_of_index_.erase(it);
  run.in_flight = false;
  if (!r.ok()) return end(run, r, core::TaskEnd::Failed);  // nothing to carry on from
  core::AgentStep step;
  for (const core::ToolCall& c : r.tool_calls)  // a block of text between calls is no call
    if (!c.name.empty() || !c.arguments.empty()) step.calls.push_back(c);
  if (step.calls.empty()) return end(run, r, core::TaskEnd::Answer);
  const core::AgentTask& def = tasks_[static_cast<size_t>(run.task) % tasks_.size()];
  if (run.turn + 1 >= def.max_turns) return end(run, r, core::TaskEnd::TurnCap);
  int64_t slowest = 0;
  for (size_t k = 0; k < step.calls.size(); ++k) {
    core::StubAnswer a = core::run_stub(def, step.calls[k], seed_, run.task, run.turn, k);
    slowest = std::max(slowest, a.latency_ns);
    step.results.push_back(std::move(a.result));
  }
  step.answer = r.content_text;  // the text beside the calls: not their arguments, nor reasoning
  run.steps.push_back(std::move(step));
  ++run.turn;
  run.tool_ns = slowest;
  run.ready_at_ns = r.done_ns + slowest;
}

}  // namespace tokbench::load
