#include "plan/plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>
#include <simdjson.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "client/api.hpp"
#include "client/request_body.hpp"
#include "dataset/images.hpp"
#include "dataset/spec.hpp"
#include "settings/load_shape.hpp"
#include "workload/workload.hpp"

namespace tokbench::runner {

namespace {

// The CPUs this process may run on (taskset, a cgroup's cpuset), not the machine's: two workers
// pinned to one core share it, and each then looks idle while the core is saturated.
int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int auto_workers(int concurrency) {
  return std::clamp((concurrency + 255) / 256, 1, usable_cpus());
}

// Each small language parsed once, its error naming the flag and the form.
ParsedFlags parse_flags(const RunConfig& c, std::vector<std::string>& e) {
  ParsedFlags p;
  auto parse = [&e](const std::string& text, auto&& how) {
    if (text.empty()) return;
    try {
      how(text);
    } catch (const std::invalid_argument& x) {
      e.push_back(x.what());
    }
  };
  parse(c.experiment.slo, [&](const std::string& t) { p.slos = metrics::parse_run_slos(t); });
  parse(c.experiment.goodput, [&](const std::string& t) { p.goodput = metrics::parse_goodput(t); });
  parse(c.observe.profile_window,
        [&](const std::string& t) { p.profile_window = record::parse_profile_window(t); });
  parse(c.workload.image, [&](const std::string& t) { p.image = dataset::parse_image_size(t); });
  if (c.load.cancel_rate > 0) {
    std::string why;
    p.cancel_after = core::parse_cancel_after(c.load.cancel_after, &why);
    if (!p.cancel_after)
      e.push_back(fmt::format("--cancel-after {}: {}", c.load.cancel_after, why));
    else if (p.cancel_after->unit == core::CancelAfter::Unit::Tokens && !c.request.stream)
      e.push_back(fmt::format(
          "--cancel-after {}: a token count needs a stream (no token arrives before a whole "
          "answer); give a time (500ms), or drop --no-stream",
          c.load.cancel_after));
  }
  for (const std::string& text : c.load.classes) {
    try {
      p.classes.push_back(parse_traffic_class(text));
      p.classes.back().position = p.classes.size() - 1;
    } catch (const std::invalid_argument& x) {
      e.push_back(x.what());
    }
  }
  return p;
}

// --class dataset=: a dataset of single requests, as --dataset spells it, whose file is there.
void check_class_dataset(const TrafficClass& k, std::vector<std::string>& e) {
  try {
    const dataset::Spec spec = dataset::parse_spec(k.dataset);
    if (k.turns && (spec.is(dataset::Source::Agent) || spec.is(dataset::Source::AgentTrace) ||
                    spec.is(dataset::Source::Trace)))
      e.push_back(fmt::format(
          "--class name={}: dataset={} sets its own turns and pace: drop turns= (a class's "
          "turns= makes sessions of single-request prompts)",
          k.name, k.dataset));
    else if (spec.is(dataset::Source::Trace) && k.request_rate)
      e.push_back(fmt::format(
          "--class name={}: dataset={} replays its own schedule: drop request-rate= (the trace "
          "sets when each request is sent; concurrency= caps it)",
          k.name, k.dataset));
    else if (!spec.path.empty() && !std::filesystem::is_regular_file(spec.path))
      e.push_back(fmt::format("--class name={}: dataset={}: no such file '{}' (give its path)",
                              k.name, k.dataset, spec.path));
  } catch (const std::invalid_argument& x) {
    e.push_back(fmt::format("--class name={}: dataset=: {}", k.name, x.what()));
  }
}

// --class turns= or an agent dataset: sessions, each turn sent when the last answer is in, as the
// run's own sessions (RunConfig::validate_workload) — nothing else may pace them.
void check_class_sessions(const RunConfig& c, const TrafficClass& k, std::vector<std::string>& e) {
  if (!k.sessions()) return;
  const std::string pacing = k.request_rate            ? "its request-rate="
                             : c.load.duration_s != 0  ? "the run's --duration-s"
                             : c.load.ramp_up_s != 0   ? "the run's --ramp-up-s"
                             : c.load.cancel_rate != 0 ? "the run's --cancel-rate"
                                                       : "";
  if (!pacing.empty())
    e.push_back(fmt::format(
        "--class name={}: sessions send each turn when the last answer is in, concurrency= "
        "sessions at once: drop {}",
        k.name, pacing));
  const client::ApiCaps caps = api_of(c.resolved_endpoint()).caps();
  const bool agent = k.dataset.starts_with("agent:");
  if (!(agent ? caps.tool_messages : caps.conversation))
    e.push_back(fmt::format(
        "--class name={}: its sessions are conversations{}; use an endpoint that takes them ({})",
        k.name, agent ? " with tool calls" : "",
        client::api_paths(agent ? &client::ApiCaps::tool_messages
                                : &client::ApiCaps::conversation)));
}

// --class: what a run of several classes cannot do, each named with what to do instead.
void check_classes(const RunConfig& c, const ParsedFlags& p, std::vector<std::string>& e) {
  if (c.load.classes.empty()) return;
  for (size_t i = 0; i < p.classes.size(); ++i) {
    const TrafficClass& k = p.classes[i];
    for (size_t j = 0; j < i; ++j)
      if (p.classes[j].name == k.name)
        e.push_back(
            fmt::format("--class name={} is given twice: give each class its own name", k.name));
    if (!k.dataset.empty()) check_class_dataset(k, e);
    if (!k.extra_body.empty()) try {
        client::parse_extra_body(k.extra_body);
      } catch (const std::runtime_error& x) {
        e.push_back(fmt::format("--class name={}: extra-body: {}", k.name, x.what()));
      }
    if (!c.request.stream)
      for (const auto& slo : k.slos)
        if (slo.metric == "TTFT" || slo.metric == "TPOT" || slo.metric == "ITL")
          e.push_back(fmt::format(
              "--class name={}: slo={} needs a stream (a non-streamed answer has no first token): "
              "drop --no-stream, or give an e2el SLO",
              k.name, slo.text()));
  }
  for (const TrafficClass& k : p.classes) check_class_sessions(c, k, e);
  const bool run_lists = !c.load.concurrency_sweep.empty() || !c.load.request_rate_sweep.empty() ||
                         !c.load.num_prompts_sweep.empty();
  if (run_lists)
    e.push_back(
        "--class does not go with a list of --concurrency, --request-rate or --num-prompts (the "
        "classes carry the load): give the list to the class whose load the sweep moves, "
        "--class 'name=batch,request-rate=1,2,4'");
  else if (c.load.concurrency != 0 || c.load.request_rate != 0)
    e.push_back(
        "--concurrency and --request-rate are each class's own with --class: give them in each "
        "class (concurrency=8, request-rate=4) and drop the run's");
  std::vector<std::string> swept;
  for (const TrafficClass& k : p.classes)
    if (k.sweep_points() > 1) swept.push_back(k.name);
  if (swept.size() > 1)
    e.push_back(fmt::format(
        "--class: {} each give a list: a sweep moves one class's load while the others hold "
        "theirs; give a list to one class",
        fmt::join(swept, " and ")));
  // A search and the in-run controller move the run's one load; with classes there are several.
  const char* mover = c.experiment.searching()             ? "--search"
                      : c.experiment.adaptive_window_s > 0 ? "--adaptive-window-s"
                                                           : nullptr;
  if (mover)
    e.push_back(fmt::format(
        "--class does not go with {}: it moves one load, and each class carries its own; sweep "
        "the class whose load you seek, --class 'name=batch,request-rate=1,2,4,8', and each "
        "point judges every class's slo=",
        mover));
  if (c.workload.sessions())
    e.push_back(
        "--class does not go with the run's sessions (--turns, --multi-turn, an agent dataset): "
        "give them to a class, turns=N or dataset=agent:PATH / agent-trace:PATH");
  if (c.workload.dataset.is(dataset::Source::Trace))
    e.push_back(
        "--class does not go with the run's --dataset trace:PATH (whose schedule would every class "
        "replay?): give it to the class that replays it, dataset=trace:PATH");
  if (c.load.pressure)
    e.push_back(
        "--class does not go with --pressure (one pool of clients added at a rate): give each "
        "class its concurrency= and the run --ramp-up-s S --duration-s S, which ramps every "
        "class's clients over the same seconds");
}

// --json-schema FILE: one JSON object (a schema), read once. A usage error names the file.
std::shared_ptr<const std::string> read_json_schema(const std::string& path) {
  if (path.empty()) return nullptr;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (!in || parser.parse(text.str()).get(doc) || !doc.is_object())
    throw std::invalid_argument(
        fmt::format("--json-schema {}: {} (give a file holding one JSON Schema object)", path,
                    !in ? "cannot read the file" : "not a JSON object"));
  return std::make_shared<const std::string>(simdjson::minify(doc));
}

// --tools FILE, read once; --tool-choice NAME must be one of them. A usage error (exit 2) names
// the file and the fix.
core::SharedTools read_tools(const RequestSettings& r) {
  const std::string_view fixed[] = {"auto", "required", "none"};
  const bool named_choice = !r.tool_choice.empty() && std::find(std::begin(fixed), std::end(fixed),
                                                                r.tool_choice) == std::end(fixed);
  if (r.tools.empty()) return nullptr;
  std::ifstream in(r.tools, std::ios::binary);
  if (!in)
    throw std::invalid_argument(fmt::format(
        "--tools {}: cannot read the file (give a JSON array of tool definitions)", r.tools));
  std::ostringstream text;
  text << in.rdbuf();
  core::ToolSet set;
  try {
    set = core::parse_tools(text.str(), "--tools " + r.tools);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
  if (named_choice && !set.find(r.tool_choice))
    throw std::invalid_argument(
        fmt::format("--tool-choice {}: no tool of --tools {} has that name (give auto, required, "
                    "none or one of its names)",
                    r.tool_choice, r.tools));
  return std::make_shared<const core::ToolSet>(std::move(set));
}

}  // namespace

std::vector<std::string> validate(const RunConfig& c, ParsedFlags* out) {
  std::vector<std::string> e;
  ParsedFlags parsed = parse_flags(c, e);
  check_classes(c, parsed, e);
  if (!c.request.stream && (parsed.goodput.ttft_ms || parsed.goodput.tpot_ms))
    e.push_back(
        "--goodput ttft/tpot need streaming (a non-streaming answer has no first token): drop "
        "--no-stream or keep only e2el");
  c.validate_target(e);
  c.validate_request(e);
  c.validate_load(e);
  c.validate_experiment(e);
  WorkloadContext with{c.load.num_prompts, api_of(c.resolved_endpoint()).caps().generates};
  for (const TrafficClass& k : parsed.classes)
    if (!k.dataset.empty()) try {
        with.class_sources.push_back(dataset::parse_spec(k.dataset).source);
      } catch (const std::invalid_argument&) {  // said by check_classes
      }
  for (const Workload* w : all_workloads())
    w->validate(c.workload, with, e);  // each dataset source's checks
  c.validate_workload(e);
  c.validate_observe(e);
  if (out) *out = std::move(parsed);
  return e;
}

RunPlan make_plan(const RunConfig& requested, const char* env_api_key) {
  ParsedFlags parsed;
  if (auto errs = validate(requested, &parsed); !errs.empty()) {
    std::string all;
    for (const auto& e : errs) all += (all.empty() ? "" : "\n") + e;
    throw std::invalid_argument(all);
  }
  RunPlan p;
  p.requested = requested;
  p.cfg = requested;
  p.parsed = std::move(parsed);
  if (p.cfg.target.api_key.empty() && env_api_key) {
    for (const char* c = env_api_key; *c; ++c)
      if ((static_cast<unsigned char>(*c) < 0x20 && *c != '\t') || *c == 0x7F)
        throw std::invalid_argument(
            "$OPENAI_API_KEY holds a control character (a CR/LF would start a header of its own "
            "on the wire): set it to the key alone");
    p.cfg.target.api_key = env_api_key;
  }
  if (!p.cfg.request.extra_body.empty()) {
    try {
      p.extra_body = client::parse_extra_body(p.cfg.request.extra_body);
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(e.what());  // a usage error: exit 2
    }
  }
  p.tools = read_tools(p.cfg.request);
  p.json_schema = read_json_schema(p.cfg.request.json_schema);
  p.load = p.cfg.load_shape();
  if (p.cfg.load.workers == 0) p.cfg.load.workers = auto_workers(p.load.max_in_flight());
  p.cfg.target.endpoint =
      p.cfg.resolved_endpoint();  // the URL's path decides it (validate() caught conflicts)
  if (!api_of(p.cfg.target.endpoint).caps().streams)
    p.cfg.request.stream = false;  // e.g. an embedding is one JSON answer
  if (!p.cfg.target.url.empty())
    p.cfg.target.url = p.cfg.target_url();  // a URL with no path gets /v1/<endpoint>
  p.synthetic = p.cfg.workload.dataset.is(dataset::Source::Synthetic);
  p.tls = {p.cfg.target.ca_bundle, p.cfg.target.tls_cert, p.cfg.target.tls_key,
           p.cfg.target.insecure};
  if (p.synthetic && p.cfg.load.num_prompts == 0) p.cfg.load.num_prompts = 100;
  // A --num-prompts list: the target builds synthetic prompts for the largest point.
  if (!p.cfg.load.num_prompts_sweep.empty())
    p.cfg.load.num_prompts =
        *std::max_element(p.cfg.load.num_prompts_sweep.begin(), p.cfg.load.num_prompts_sweep.end());
  if (requested.load.workers == 0 && p.cfg.experiment.adaptive_window_s > 0)
    p.cfg.load.workers = auto_workers(p.cfg.experiment.adaptive_max);
  // Workers follow the largest in-flight cap of a sweep.
  for (const int c : p.cfg.load.concurrency_sweep)
    if (requested.load.workers == 0)
      p.cfg.load.workers = std::max(p.cfg.load.workers, auto_workers(c));
  p.definitions = p.cfg.request.compat;
  return p;
}

namespace {

// A point that runs some of the plan's classes (--interference: one alone): the others dropped
// from the plan, their texts from its settings (the manifest's), each kept class its position.
void keep_classes(RunPlan& p, const std::vector<std::string>& names) {
  for (const std::string& name : names)
    if (std::none_of(p.parsed.classes.begin(), p.parsed.classes.end(),
                     [&](const TrafficClass& k) { return k.name == name; }))
      throw std::invalid_argument(
          fmt::format("the point names --class {}, which the run has not", name));
  std::vector<TrafficClass> kept;
  std::vector<std::string> texts;
  for (size_t i = 0; i < p.parsed.classes.size(); ++i) {
    const TrafficClass& k = p.parsed.classes[i];
    if (std::find(names.begin(), names.end(), k.name) == names.end()) continue;
    kept.push_back(k);
    if (i < p.cfg.load.classes.size()) texts.push_back(p.cfg.load.classes[i]);
  }
  p.parsed.classes = std::move(kept);
  p.cfg.load.classes = texts;
  p.requested.load.classes = std::move(texts);
}

// A sweep over one class's load (plan/sweep_specs): the class named by the point takes the point's
// in-flight cap and rate (0: none), its lists consumed, its text in the settings rewritten to say
// so; the run's own load stays none.
void set_class_load(RunPlan& p, const PointSpec& spec) {
  for (size_t i = 0; i < p.parsed.classes.size(); ++i) {
    TrafficClass& k = p.parsed.classes[i];
    if (k.name != spec.load_class) continue;
    k.concurrency_sweep.clear();
    k.request_rate_sweep.clear();
    k.concurrency = spec.concurrency > 0 ? std::optional<int>(spec.concurrency) : std::nullopt;
    k.request_rate =
        spec.request_rate > 0 ? std::optional<double>(spec.request_rate) : std::nullopt;
    for (RunConfig* c : {&p.cfg, &p.requested}) {
      c->load.concurrency = 0;
      c->load.request_rate = 0;
      if (i >= c->load.classes.size()) continue;
      std::string& text = c->load.classes[i];
      if (k.concurrency) text = with_class_key(text, "concurrency", std::to_string(*k.concurrency));
      if (k.request_rate)
        text = with_class_key(text, "request-rate", fmt::format("{}", *k.request_rate));
    }
    return;
  }
  throw std::invalid_argument(
      fmt::format("the point moves --class {}'s load, which the run has not", spec.load_class));
}

}  // namespace

PointSpec spec_of(const RunPlan& plan, std::string label) {
  return {std::move(label), plan.cfg.load.concurrency, plan.cfg.load.request_rate,
          plan.requested.load.num_prompts, plan.cfg.load.seed};
}

std::vector<PointSpec> sweep_specs(const RunPlan& plan) {
  const RunConfig& c = plan.cfg;
  std::vector<PointSpec> out;
  for (size_t i = 0; i < c.sweep_points(); ++i) {
    PointSpec s = spec_of(plan, c.sweep_label(i));
    if (i < c.load.concurrency_sweep.size()) s.concurrency = c.load.concurrency_sweep[i];
    if (i < c.load.request_rate_sweep.size()) s.request_rate = c.load.request_rate_sweep[i];
    if (i < c.load.num_prompts_sweep.size()) s.num_prompts = c.load.num_prompts_sweep[i];
    for (const TrafficClass& k : plan.parsed.classes)
      if (k.sweep_points() > 1) {  // a sweep over this class's load (check_classes: one class)
        const TrafficClass at = k.at_sweep_point(i);
        s.load_class = k.name;
        s.concurrency = at.concurrency.value_or(0);
        s.request_rate = at.request_rate.value_or(0);
      }
    out.push_back(std::move(s));
  }
  return out;
}

RunPlan at_point(const RunPlan& base, const PointSpec& spec) {
  RunPlan p = base;
  for (RunConfig* c : {&p.cfg, &p.requested}) {
    c->load.concurrency = spec.concurrency;
    c->load.request_rate = spec.request_rate;
    c->load.seed = spec.seed;
    c->load.concurrency_sweep.clear();
    c->load.request_rate_sweep.clear();
    c->load.num_prompts_sweep.clear();
  }
  // The count as asked; none asked: what the plan settled (the dataset's size, a synthetic 100).
  p.requested.load.num_prompts = spec.num_prompts;
  if (spec.num_prompts > 0) p.cfg.load.num_prompts = spec.num_prompts;
  if (spec.unconstrained) {  // the folder says what was sent: no response format
    p.json_schema.reset();
    p.cfg.request.json_schema.clear();
    p.requested.request.json_schema.clear();
  }
  if (!spec.load_class.empty()) set_class_load(p, spec);
  if (!spec.classes.empty()) keep_classes(p, spec.classes);
  p.load = p.cfg.load_shape();
  return p;
}

RunPlan class_plan(const RunPlan& base, size_t index) {
  const TrafficClass& k = base.parsed.classes.at(index);
  RunPlan p = base;
  for (RunConfig* c : {&p.cfg, &p.requested}) {
    // A closed class has no schedule; an open one is capped by its own concurrency= alone; a
    // trace of its own replays its schedule.
    if (!k.dataset.empty()) c->workload.dataset = dataset::parse_spec(k.dataset);
    c->load.concurrency = k.concurrency.value_or(0);
    c->load.request_rate = k.request_rate.value_or(0);
    c->load.seed = base.cfg.load.seed + k.position;
    c->load.classes.clear();
    if (k.num_prompts) c->load.num_prompts = *k.num_prompts;
    c->workload.turns = k.turns.value_or(0);  // turns=: its sessions
    if (k.arrivals) c->load.arrivals = *k.arrivals;
    if (k.burstiness) c->load.burstiness = *k.burstiness;
  }
  if (!k.num_prompts && k.settled_prompts > 0) p.cfg.load.num_prompts = k.settled_prompts;
  // Sessions of turns= with no count: one pass over its prompts, a session each `turns` of them.
  if (!k.num_prompts && k.turns)
    p.cfg.load.num_prompts = std::max<int64_t>(1, p.cfg.load.num_prompts / *k.turns);
  auto set = [&p](std::string key, std::string value) {
    std::erase_if(p.extra_body, [&key](const auto& kv) { return kv.first == key; });
    p.extra_body.emplace_back(std::move(key), std::move(value));
  };
  if (!k.extra_body.empty()) {
    try {
      for (auto& [key, value] : client::parse_extra_body(k.extra_body)) set(key, value);
    } catch (const std::runtime_error& x) {
      throw std::invalid_argument(fmt::format("--class name={}: extra-body: {}", k.name, x.what()));
    }
  }
  if (k.priority) set("priority", std::to_string(*k.priority));
  p.traffic_class = k;
  p.synthetic = p.cfg.workload.dataset.is(dataset::Source::Synthetic);
  p.load = p.cfg.load_shape();
  if (base.requested.load.workers == 0) p.cfg.load.workers = auto_workers(p.load.max_in_flight());
  return p;
}

std::string spec_text(const PointSpec& s) {
  return fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}", s.label, s.concurrency, s.request_rate,
                     s.num_prompts, s.seed, s.unconstrained ? 1 : 0, fmt::join(s.classes, ","),
                     s.load_class);
}

PointSpec spec_from_text(const std::string& text) {
  std::vector<std::string> v;
  size_t at = 0;
  for (size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
    v.push_back(text.substr(at, nl - at));
  v.push_back(text.substr(at));
  if (v.size() != 8 || (v[5] != "0" && v[5] != "1"))
    throw std::invalid_argument(
        "a point spec has 8 lines: label, concurrency, rate, prompts, seed, unconstrained (0/1), "
        "classes, the class whose load it sets");
  PointSpec spec;
  try {
    spec = {v[0],       std::stoi(v[1]), std::stod(v[2]), std::stoll(v[3]), std::stoull(v[4]),
            v[5] == "1"};
  } catch (const std::exception&) {
    throw std::invalid_argument("a point spec holds a value that is not a number: " + text);
  }
  for (size_t at = 0; at < v[6].size();) {  // class names hold no commas (settings/traffic_class)
    const size_t comma = std::min(v[6].find(',', at), v[6].size());
    spec.classes.push_back(v[6].substr(at, comma - at));
    at = comma + 1;
  }
  spec.load_class = v[7];
  return spec;
}

}  // namespace tokbench::runner
