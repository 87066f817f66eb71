#include "metrics/agents.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "metrics/accumulator.hpp"
#include "metrics/slo.hpp"

namespace tokbench::metrics::detail {

using record::kNone;

void AgentTasks::add(const record::RequestRecord& r) {
  if (r.ready_ns == kNone || r.session == kNone || r.warmup) return;  // not an agent task's turn
  Sums& s = open_[r.session];
  if (s.turns++ == 0) s.start_ns = r.session_start_ns;
  if (r.ok()) {
    if (const int64_t in = input_tokens(r); in != kNone) s.in += static_cast<double>(in);
    s.out += static_cast<double>(std::max<int64_t>(0, output_tokens(r)));
    s.model_ns += static_cast<double>(r.done_ns - r.sent_ns);
    s.client_ns += static_cast<double>(r.sent_ns - r.ready_ns);
    s.tool_ns += static_cast<double>(std::max<int64_t>(0, r.tool_ns));
    if (!goodput_.empty()) s.good = s.good && judge_slo(r, goodput_).good;
  }
  if (!r.last_turn) return;
  const Sums done = s;
  open_.erase(r.session);
  if (r.task_end == core::TaskEnd::Failed || !r.ok()) {
    ++failed_;
    return;
  }
  ++(r.task_end == core::TaskEnd::TurnCap ? capped_ : answered_);
  if (r.task_end == core::TaskEnd::Answer && done.good) ++good_;
  const double latency_ns = static_cast<double>(r.done_ns - done.start_ns);
  latency_.push(latency_ns / kNsPerMs);
  model_.push(done.model_ns / kNsPerMs);
  tool_.push(done.tool_ns / kNsPerMs);
  client_.push(done.client_ns / kNsPerMs);
  turns_.push(static_cast<double>(done.turns));
  in_.push(done.in);
  out_.push(done.out);
  if (latency_ns > 0)
    most_gap_ =
        std::max(most_gap_,
                 std::abs(latency_ns - done.model_ns - done.tool_ns - done.client_ns) / latency_ns);
  first_start_ns_ = first_start_ns_ < 0 ? done.start_ns : std::min(first_start_ns_, done.start_ns);
  last_done_ns_ = std::max(last_done_ns_, r.done_ns);
}

void AgentTasks::columns(std::vector<std::pair<Samples*, PercentileMethod>>& out) {
  add_columns(out, PercentileMethod::Linear,
              {&latency_, &model_, &tool_, &client_, &turns_, &in_, &out_});
}

void AgentTasks::finish(MetricSet& m) {
  const char* none = "no agent task ended (--dataset agent:PATH)";
  m.extra_rows.push_back(make_row("TaskLatency", Unit::Ms, latency_, none));
  m.extra_rows.push_back(make_row("TaskModelTime", Unit::Ms, model_, none));
  m.extra_rows.push_back(make_row("TaskToolTime", Unit::Ms, tool_, none));
  m.extra_rows.push_back(make_row("TaskClientTime", Unit::Ms, client_, none));
  m.extra_rows.push_back(make_row("TaskTurns", Unit::None, turns_, none));
  m.extra_rows.push_back(make_row("TaskInputTokens", Unit::Tokens, in_, none));
  m.extra_rows.push_back(make_row("TaskOutputTokens", Unit::Tokens, out_, none));
  if (answered_ + capped_ + failed_ == 0) return;
  auto mean = [](Samples& s) { return s.empty() ? 0.0 : s.summarize().mean; };
  m.notes.push_back(fmt::format(
      "agent tasks: {} answered, {} at the turn cap, {} failed (left out); per task {:.1f} turns, "
      "{:.3f} ms = model {:.3f} + tools {:.3f} + client {:.3f} ms (each measured; the sum is off "
      "by at most {:.2f}%){}",
      answered_, capped_, failed_, mean(turns_), mean(latency_), mean(model_), mean(tool_),
      mean(client_), 100 * most_gap_,
      goodput_.empty() ? std::string() : fmt::format("; {} answered inside --goodput", good_)));
}

}  // namespace tokbench::metrics::detail

namespace tokbench::metrics::detail {

void AgentTasks::add_common(MetricSet& m) const {
  const int64_t ended = answered_ + capped_;
  if (ended + failed_ == 0) return;
  const double span_s = static_cast<double>(last_done_ns_ - first_start_ns_) / 1e9;
  auto per_s = [&](int64_t n) { return span_s > 0 ? static_cast<double>(n) / span_s : 0.0; };
  m.common.push_back({"Agent Tasks", "agent_tasks", static_cast<double>(ended), Unit::Requests});
  m.common.push_back({"Task Throughput", "task_throughput", per_s(ended), Unit::ReqPerS});
  if (!goodput_.empty())
    m.common.push_back({"Task Goodput", "task_goodput", per_s(good_), Unit::ReqPerS});
}

}  // namespace tokbench::metrics::detail
