// dataset/agent: --dataset agent:FILE — agent tasks, one JSON object a line (docs/GUIDE.md,
// "Agents"): {"id", "system", "goal", "tools": [...], "stubs": {"NAME": {"latency_ms", "result" |
// "result_file"}}, "max_turns"}. Each task is also an item (its first request: the system prompt
// and the goal, with its tools), so the audit, the first body and a tokenizer see what goes first.
#include <fmt/format.h>
#include <simdjson.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/json_writer.hpp"
#include "dataset/dataset.hpp"
#include "dataset/json_lines.hpp"

namespace tokbench::dataset {

namespace {

namespace fs = std::filesystem;
constexpr size_t kMaxResultBytes = 1 << 20;  // a stub's result file: nothing sizes memory unbounded

core::StubLatency read_latency(simdjson::dom::element v, const std::string& where) {
  core::StubLatency l;
  double x = 0;
  simdjson::dom::array range;
  if (!v.get_double().get(x)) {
    l.a_ms = x;
  } else if (!v["uniform"].get_array().get(range) && range.size() == 2 &&
             !range.at(0).get_double().get(l.a_ms) && !range.at(1).get_double().get(l.b_ms) &&
             l.b_ms >= l.a_ms) {
    l.kind = core::StubLatency::Kind::Uniform;
  } else if (!v["exponential"].get_double().get(l.a_ms)) {
    l.kind = core::StubLatency::Kind::Exponential;
  } else {
    throw std::runtime_error(
        fmt::format("{}: \"latency_ms\" must be a number of ms, {{\"uniform\": [LOW, HIGH]}} or "
                    "{{\"exponential\": MEAN}}",
                    where));
  }
  if (l.a_ms < 0 || l.b_ms < 0 || l.a_ms > 3.6e6 || l.b_ms > 3.6e6)
    throw std::runtime_error(
        fmt::format("{}: \"latency_ms\" must lie in [0, 3600000] (an hour)", where));
  return l;
}

std::string read_result_file(const fs::path& path, const std::string& where) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))  // a device or a pipe has no size to check: never read one
    ec = std::make_error_code(std::errc::invalid_argument);
  const auto size = ec ? 0 : fs::file_size(path, ec);
  if (ec)
    throw std::runtime_error(
        fmt::format("{}: cannot read \"result_file\" '{}': {} (a path "
                    "relative to the agent file's folder)",
                    where, path.string(), ec.message()));
  if (size > kMaxResultBytes)
    throw std::runtime_error(
        fmt::format("{}: \"result_file\" '{}' is {} bytes; a stub's result "
                    "may hold at most 1 MiB",
                    where, path.string(), size));
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

core::ToolStub read_stub(std::string_view name, simdjson::dom::element v, const fs::path& dir,
                         const std::string& where) {
  core::ToolStub s;
  s.name = std::string(name);
  const std::string at = fmt::format("{}: stub \"{}\"", where, name);
  if (!v.is_object()) throw std::runtime_error(at + " must be an object");
  simdjson::dom::element latency, result;
  if (!v["latency_ms"].get(latency)) s.latency = read_latency(latency, at);
  std::string_view text, file;
  if (!v["result_file"].get_string().get(file)) {
    s.result = read_result_file(dir / fs::path(std::string(file)), at);
  } else if (!v["result"].get(result)) {
    s.result = result.get_string().get(text) ? simdjson::minify(result) : std::string(text);
  } else {
    throw std::runtime_error(at +
                             " needs a \"result\" (a template: {{arg}} takes the call's "
                             "argument) or a \"result_file\"");
  }
  return s;
}

core::AgentTask read_task(simdjson::dom::element doc, const fs::path& dir, size_t line_no,
                          const std::string& where) {
  core::AgentTask t;
  std::string_view text;
  if (!doc.is_object()) throw std::runtime_error(where + ": each line must be one JSON object");
  t.id = doc["id"].get_string().get(text) ? std::to_string(line_no) : std::string(text);
  if (doc["goal"].get_string().get(text) || text.empty())
    throw std::runtime_error(where + ": needs a \"goal\" string (the user's first message)");
  t.goal = std::string(text);
  if (!doc["system"].get_string().get(text)) t.system = std::string(text);
  simdjson::dom::element tools;
  if (doc["tools"].get(tools) || !tools.is_array())
    throw std::runtime_error(where + ": needs \"tools\": an array of tool definitions");
  t.tools = std::make_shared<const core::ToolSet>(
      core::parse_tools(simdjson::minify(tools), where + ": \"tools\""));
  simdjson::dom::object stubs;
  if (doc["stubs"].get_object().get(stubs))
    throw std::runtime_error(where + ": needs \"stubs\": an object of each tool's stub by name");
  for (auto [name, stub] : stubs) t.stubs.push_back(read_stub(name, stub, dir, where));
  for (const core::Tool& tool : t.tools->tools)
    if (!t.stub(tool.name))
      throw std::runtime_error(
          fmt::format("{}: tool \"{}\" has no stub: add \"stubs\": {{\"{}\": {{\"latency_ms\": 50, "
                      "\"result\": \"...\"}}}}",
                      where, tool.name, tool.name));
  int64_t cap = 0;
  if (!doc["max_turns"].get_int64().get(cap)) {
    if (cap < 1 || cap > 1000)
      throw std::runtime_error(where + ": \"max_turns\" must lie in [1, 1000]");
    t.max_turns = cap;
  }
  return t;
}

// The task's first request as an item: [system, user goal], its tools.
RequestSpec first_request(const core::AgentTask& t) {
  JsonWriter w;
  w.begin_array();
  if (!t.system.empty())
    w.begin_object().field("role", "system").field("content", t.system).end_object();
  w.begin_object().field("role", "user").field("content", t.goal).end_object().end_array();
  RequestSpec spec(t.system.empty() ? t.goal : t.system + "\n" + t.goal);
  spec.payload = core::Conversation{w.take(), {}};
  spec.tools = t.tools;
  return spec;
}

}  // namespace

Dataset parse_agents(std::string_view name, std::istream& in, const fs::path& dir) {
  Dataset d;
  d.kind = "agent";
  d.path = std::string(name);
  d.abbr = fs::path(d.path).stem().string();
  for_each_json_line(in, d.path, "each line is one task", [&](const JsonLine& line) {
    d.agents.push_back(read_task(line.doc, dir, line.number, line.where));
    d.items.push_back(first_request(d.agents.back()));
  });
  if (d.agents.empty())
    throw std::runtime_error(fmt::format("agent file '{}' has no tasks", d.path));
  return d;
}

Dataset load_agents(const Spec& spec) {
  std::ifstream in(spec.path);
  if (!in)
    throw std::runtime_error(
        fmt::format("cannot open agent file '{}': {} (check the path after "
                    "'agent:')",
                    spec.path, std::strerror(errno)));
  return parse_agents(spec.path, in, fs::path(spec.path).parent_path());
}

}  // namespace tokbench::dataset
