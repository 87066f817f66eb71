#include "core/agent.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cmath>

#include "common/json_writer.hpp"

namespace tokbench::core {

int64_t StubLatency::ns_at(double u) const {
  double ms = a_ms;
  if (kind == Kind::Uniform) ms = a_ms + (b_ms - a_ms) * u;
  if (kind == Kind::Exponential) ms = -a_ms * std::log1p(-std::min(u, 1 - 1e-12));
  return static_cast<int64_t>(std::max(0.0, ms) * 1e6);
}

const ToolStub* AgentTask::stub(std::string_view name) const {
  for (const ToolStub& s : stubs)
    if (s.name == name) return &s;
  return nullptr;
}

namespace {

// splitmix64 of the seed and the call's place: the same task, turn and call draw the same.
double uniform(uint64_t seed, int64_t task, int64_t turn, size_t call) {
  uint64_t z = seed ^ (0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(task + 1));
  z += 0xBF58476D1CE4E5B9ULL * static_cast<uint64_t>(turn + 1) + 0x94D049BB133111EBULL * call;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

}  // namespace

std::string fill_template(std::string_view tmpl, std::string_view arguments) {
  simdjson::dom::parser parser;
  simdjson::dom::object args;
  const bool have_args = !parser.parse(arguments.data(), arguments.size()).get_object().get(args);
  std::string out;
  size_t at = 0;
  while (at < tmpl.size()) {
    const size_t open = tmpl.find("{{", at);
    const size_t close = open == std::string_view::npos ? open : tmpl.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    out.append(tmpl.substr(at, open - at));
    const std::string_view name = tmpl.substr(open + 2, close - open - 2);
    simdjson::dom::element v;
    if (have_args && !args[name].get(v)) {
      std::string_view s;
      out += v.get_string().get(s) ? simdjson::minify(v) : std::string(s);
    }
    at = close + 2;
  }
  out.append(tmpl.substr(std::min(at, tmpl.size())));
  return out;
}

StubAnswer run_stub(const AgentTask& task, const ToolCall& call, uint64_t seed, int64_t task_index,
                    int64_t turn, size_t call_index) {
  const ToolStub* s = task.stub(call.name);
  if (!s) {  // the model named a tool it was not offered: told so at once, as a framework would
    JsonWriter w;
    w.begin_object().field("error", "no tool named '" + call.name + "' here").end_object();
    return {w.take(), 0};
  }
  return {fill_template(s->result, call.arguments),
          s->latency.ns_at(uniform(seed, task_index, turn, call_index))};
}

std::string_view task_end_name(TaskEnd e) {
  switch (e) {
    case TaskEnd::Answer:
      return "answer";
    case TaskEnd::TurnCap:
      return "turn_cap";
    case TaskEnd::Failed:
      return "failed";
    case TaskEnd::None:
      break;
  }
  return "";
}

TaskEnd task_end_named(std::string_view name) {
  for (TaskEnd e : {TaskEnd::Answer, TaskEnd::TurnCap, TaskEnd::Failed})
    if (task_end_name(e) == name) return e;
  return TaskEnd::None;
}

}  // namespace tokbench::core
