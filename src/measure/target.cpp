#include "measure/target.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "common/json_writer.hpp"
#include "common/redact.hpp"
#include "core/draw.hpp"
#include "dataset/images.hpp"
#include "dataset/spec.hpp"
#include "measure/simulator.hpp"
#include "net/http_get.hpp"
#include "probe/server_process.hpp"
#include "runfolder/files.hpp"
#include "settings/server_grid.hpp"
#include "workload/workload.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? std::string(sep) : "") + v[i];
  return out;
}

// Whether the same host and port answer under the other scheme (https:// <-> http://): asked only
// after the given one failed, so the error can say "use http://" instead of blaming a CA, or
// "use https://" instead of "is it running?". TLS is not verified here: only the scheme is in
// question.
bool answers_under_other_scheme(const std::string& url) {
  const bool https = url.starts_with("https://");
  const std::string other = (https ? "http://" : "https://") + url.substr(https ? 8 : 7);
  return net::http_get(other, {}, "", 2'000, 1 << 16, net::TlsSettings{"", "", "", true}).reached;
}

// A TLS alert that is about the client's certificate (mutual TLS): libcurl reports it as a failed
// read once the handshake seemed done, which read like a server that is down. "" when it is not.
std::string client_certificate_problem(const std::string& error, const TargetSettings& target) {
  bool about_client_cert = false;
  for (const char* alert :
       {"certificate required", "alert bad certificate", "alert unknown ca",
        "alert handshake failure", "alert certificate unknown", "alert access denied"})
    about_client_cert |= error.find(alert) != std::string::npos;
  if (!about_client_cert) return "";
  return target.tls_cert.empty()
             ? "the server asks for a client certificate (mutual TLS): pass "
               "--cert FILE and --key FILE"
             : fmt::format(
                   "the server refused the client certificate --cert {}: it must "
                   "be signed by a CA the server "
                   "trusts, and --key must be its key",
                   target.tls_cert);
}

// GET /v1/models answers whether the server is there at all, and which model it serves; a wrong
// --model is caught here instead of failing every request.
std::string resolve_model(const TargetSettings& target, size_t max_body, const std::string& url,
                          const net::TlsSettings& tls, std::vector<std::string>* served) {
  const std::string models_url = net::models_url_for(url);
  // The API's own credential headers (Anthropic's x-api-key and anthropic-version) on /v1/models
  // too.
  std::vector<std::string> headers = target.headers;
  for (auto& h : api_of(target.endpoint).credential_headers(target.headers, target.api_key))
    headers.push_back(std::move(h));
  const auto res = net::http_get(models_url, headers, "", 10'000, max_body, tls);
  if (res.tls_error &&
      answers_under_other_scheme(models_url)) {  // https:// to a plain-HTTP port: no CA would help
    throw std::runtime_error(
        fmt::format("TLS to {} failed: {}: the server speaks plain HTTP there, not TLS; use an "
                    "http:// URL",
                    redact_url(models_url), res.error));
  }
  if (const std::string mtls = res.reached ? "" : client_certificate_problem(res.error, target);
      !mtls.empty())
    throw std::runtime_error(
        fmt::format("TLS to {} failed: {} ({})", redact_url(models_url), res.error, mtls));
  if (res.tls_error) {
    throw std::runtime_error(
        fmt::format("TLS to {} failed: {} (pass --ca-bundle FILE with the CA that signed the "
                    "server's certificate, or --insecure to skip verification)",
                    redact_url(models_url), res.error));
  }
  if (!res.reached) {
    const bool tls_there =
        models_url.starts_with("http://") && answers_under_other_scheme(models_url);
    throw std::runtime_error(
        fmt::format("cannot reach the server at {}: {} ({})", models_url, res.error,
                    tls_there ? "the server speaks TLS there: use an https:// URL"
                              : "is it running? check --url, or --host/--port"));
  }
  if (res.status == 401 || res.status == 403) {
    throw std::runtime_error(
        fmt::format("the server refused GET {} with HTTP {}: pass --api-key or set OPENAI_API_KEY",
                    models_url, res.status));
  }
  std::vector<std::string> ids;
  if (res.status == 200) {
    try {
      ids = net::parse_model_ids(res.body);
    } catch (const std::exception&) {
      ids.clear();
    }
  }
  *served = ids;
  if (target.model.empty()) {
    if (ids.empty()) {
      throw std::runtime_error(
          fmt::format("could not learn the model from GET {} (HTTP {}): pass --model NAME",
                      models_url, res.status));
    }
    return ids.front();
  }
  if (!ids.empty() && std::find(ids.begin(), ids.end(), target.model) == ids.end() &&
      !target.skip_model_check) {
    throw std::runtime_error(fmt::format(
        "model '{}' is not served at {} (it serves: {}): pass --model with one of those, "
        "or --skip-model-check when a gateway serves it under an alias",
        target.model, models_url, join(ids, ", ")));
  }
  return target.model;
}

// Every credential value the run passes on: the key, secret headers' values, URL credentials and
// the secret flags of the server command.
std::vector<std::string> known_secrets(const TargetSettings& target,
                                       const ObserveSettings& observe) {
  std::vector<std::string> out = secrets_in_command(target.server_cmd);
  if (!target.api_key.empty()) out.push_back(target.api_key);
  for (const auto& h : target.headers) {
    const size_t colon = h.find(':');
    if (colon == std::string::npos || !secret_name(h.substr(0, colon))) continue;
    std::string value = h.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    out.push_back(value);
    if (const size_t space = value.find(' '); space != std::string::npos)
      out.push_back(value.substr(space + 1));  // "Bearer x"
  }
  std::vector<std::string> urls{target.url, observe.server_metrics};
  urls.insert(urls.end(), observe.telemetry.begin(), observe.telemetry.end());
  for (const std::string& url : urls)
    for (auto& s : secrets_in_url(url)) out.push_back(std::move(s));
  return out;
}

std::unique_ptr<probe::ServerProcess> start_server(TargetSettings& target, const RunPlan& plan,
                                                   const std::string& url, const fs::path& run_dir,
                                                   spdlog::logger& log, std::FILE* console) {
  probe::ServerProcessSettings ps;
  ps.command = target.server_cmd.empty() ? "bash " + target.deploy_sh : target.server_cmd;
  ps.env = plan.server_env;
  if (!target.deploy_sh.empty()) {
    ps.env["MODEL_PATH"] = target.model_path;
    if (target.model.empty())
      target.model = target.model_path;  // served model name = the model path
  }
  ps.log_path = run_dir / "logs" / "server.log";
  ps.ready_urls = {net::root_url_for(url) + "/health", net::models_url_for(url)};
  ps.ready_timeout_s = target.server_ready_timeout_s;
  ps.stop_grace_s = target.server_stop_grace_s;
  ps.secrets = known_secrets(target, plan.cfg.observe);
  // Something already answering there would be benchmarked instead of the server started here.
  for (const auto& ready : ps.ready_urls) {
    if (net::http_get(ready, target.headers, target.api_key, 2'000).reached) {
      throw std::runtime_error(
          target.deploy_sh.empty()
              ? fmt::format("a server already answers at {} before --server-cmd "
                            "started one (an earlier run's, still holding "
                            "the port?): stop it, or point --url at "
                            "another port",
                            ready)
              : fmt::format("a server already answers at {} before --deploy-sh "
                            "started one (deploy.sh serves on port "
                            "8000): stop it first",
                            ready));
    }
  }
  fmt::print(console, "starting the server: {} (log: {})\n", redact_command(ps.command),
             ps.log_path.string());
  std::fflush(console);
  log.info("starting the server: {}", redact_command(ps.command));
  auto server = std::make_unique<probe::ServerProcess>(ps);
  server->start_and_wait();
  log.info("server ready (pid {})", server->pid());
  return server;
}

client::BodySettings body_settings(const RunPlan& plan) {
  const RunConfig& cfg = plan.cfg;
  client::BodySettings bs;
  bs.api = &api_of(cfg.target.endpoint);
  bs.model = cfg.target.model;
  bs.stream = cfg.request.stream;
  bs.max_tokens = cfg.request.max_tokens;
  bs.ignore_eos =
      cfg.request.ignore_eos || plan.synthetic;  // synthetic requests always produce M tokens
  bs.min_tokens = cfg.request.min_tokens;
  bs.temperature = cfg.request.temperature;
  bs.continuous_usage = cfg.request.continuous_usage;
  bs.flavor = client::flavor_named(metrics::definitions_name(cfg.request.compat))
                  .value_or(client::Flavor::Tokbench);
  bs.extra = plan.extra_body;
  bs.tools = plan.tools;
  bs.tool_choice = cfg.request.tool_choice;
  bs.json_schema = plan.json_schema;
  return bs;
}

}  // namespace

Target::Target() = default;
Target::~Target() = default;
Target::Target(Target&&) noexcept = default;

// --lora: request i names one of the adapters, drawn by the seed (core::seeded_draw of seed and
// index), so a run repeats; a dataset line's own "model" wins.
using core::seeded_draw;

const dataset::RequestSpec& Target::spec(int64_t i, dataset::RequestSpec& scratch,
                                         const dataset::Dataset* from) const {
  const auto& item = dataset::cycle(from ? *from : data, static_cast<size_t>(i));
  const bool pick_model = !lora.empty() && item.model.empty();
  if (!pick_model && images.empty()) return item;
  scratch = item;
  if (pick_model) scratch.model = lora[seeded_draw(lora_seed, i, 0) % lora.size()];
  for (int k = 0; k < images_per_request && !images.empty(); ++k)
    scratch.as_conversation().image_urls.push_back(
        images[seeded_draw(lora_seed, i, static_cast<uint64_t>(k) + 1) % images.size()]);
  return scratch;
}

Target::Turns Target::turns_at(const RunPlan& point) const {
  return {&data_at(point), body_at(point), point.cfg.workload.turns};
}

core::PlannedRequest Target::make_turn(const Turns& at, int64_t conversation,
                                       const load::TurnContext& ctx) const {
  const dataset::Dataset& data = *at.from;
  const client::BodySettings& body = at.body;
  if (!data.recorded.empty()) {  // a recorded session: its context as recorded, not as answered
    const auto& r = data.recorded[static_cast<size_t>(conversation) % data.recorded.size()];
    const auto& turn = r.turns[std::min(static_cast<size_t>(ctx.turn), r.turns.size() - 1)];
    dataset::RequestSpec spec(r.context_json(turn.context), turn.max_tokens);
    spec.payload = core::Conversation{spec.prompt, {}};
    spec.tools = r.tools;
    return client::plan_request(body, spec, tok.has_value());
  }
  dataset::RequestSpec scratch;
  const int64_t item =
      data.conversations.empty()
          ? conversation * at.turns + ctx.turn
          : data.conversations[static_cast<size_t>(conversation) % data.conversations.size()]
                    .first +
                ctx.turn;
  dataset::RequestSpec spec = this->spec(item, scratch, &data);
  JsonWriter w;
  w.begin_array();
  std::string text;  // what a local tokenizer counts: every message's text
  for (const auto& [asked, answered] : *ctx.history) {
    w.begin_object().field("role", "user").field("content", asked).end_object();
    w.begin_object().field("role", "assistant").field("content", answered).end_object();
    text += asked + "\n" + answered + "\n";
  }
  w.begin_object().field("role", "user").field("content", spec.prompt).end_object().end_array();
  std::string asked = spec.prompt;
  spec.payload = core::Conversation{w.take(), {}};
  spec.prompt = text + asked;
  core::PlannedRequest p = client::plan_request(body, spec, tok.has_value());
  p.facts.turn_text = std::move(asked);
  return p;
}

core::PlannedRequest Target::make_agent_turn(const client::BodySettings& body,
                                             const load::AgentTurn& t) const {
  const core::AgentTask& task = *t.def;
  JsonWriter w;
  w.begin_array();
  std::string text;  // what a local tokenizer counts: every message's text
  auto message = [&](std::string_view role, const std::string& content) {
    w.begin_object().field("role", role).field("content", content).end_object();
    text += content + "\n";
  };
  if (!task.system.empty()) message("system", task.system);
  message("user", task.goal);
  for (size_t s = 0; s < t.steps->size(); ++s) {  // each answer's calls, then their results
    const core::AgentStep& step = (*t.steps)[s];
    w.begin_object().field("role", "assistant").key("content");
    if (step.answer.empty()) {
      w.null();
    } else {
      w.value(step.answer);
    }
    w.key("tool_calls").begin_array();
    for (size_t k = 0; k < step.calls.size(); ++k) {
      w.begin_object().field("id", fmt::format("call_{}_{}", s, k)).field("type", "function");
      w.key("function").begin_object().field("name", step.calls[k].name);
      w.field("arguments", step.calls[k].arguments).end_object().end_object();
      text += step.calls[k].name + step.calls[k].arguments + "\n";
    }
    w.end_array().end_object();
    for (size_t k = 0; k < step.results.size(); ++k) {
      w.begin_object().field("role", "tool").field("tool_call_id", fmt::format("call_{}_{}", s, k));
      w.field("content", step.results[k]).end_object();
      text += step.results[k] + "\n";
    }
  }
  w.end_array();
  dataset::RequestSpec spec(std::move(text));
  spec.payload = core::Conversation{w.take(), {}};
  spec.tools = task.tools;
  return client::plan_request(body, spec, tok.has_value());
}

const dataset::Dataset& Target::data_at(const RunPlan& point) const {
  if (!point.traffic_class) return data;
  const auto own = class_data.find(point.traffic_class->name);
  return own == class_data.end() ? data : own->second;
}

client::BodySettings Target::body_at(const RunPlan& point) const {
  client::BodySettings b = body;
  b.json_schema = point.json_schema;
  if (point.traffic_class) {  // a class's priority and extra body, over the run's; its model
    b.extra = point.extra_body;
    if (!point.traffic_class->model.empty()) b.model = point.traffic_class->model;
    // Synthetic prompts (its own, or the run's it draws) always produce their M tokens; a class
    // with a dataset of its own that is not synthetic sends what --ignore-eos says.
    b.ignore_eos = point.cfg.request.ignore_eos || point.synthetic;
  }
  return b;
}

core::RequestMaker Target::maker(const RunPlan& point, const OutputPlan& out) const {
  const double cancel_rate = point.parsed.cancel_after ? point.cfg.load.cancel_rate : 0;
  return [this, out, body = body_at(point), cancel_rate, from = &data_at(point),
          after = point.parsed.cancel_after.value_or(core::CancelAfter{}),
          seed = point.cfg.load.seed](int64_t i) {
    dataset::RequestSpec scratch;
    const bool probe = out.is_probe(i);
    core::PlannedRequest p = client::plan_request(body, spec(probe ? 0 : i, scratch, from),
                                                  tok.has_value() || i < out.keep_prompts);
    p.facts.probe = probe;
    if (!probe) p.facts.cancel = core::cancel_point(seed, i, cancel_rate, after);
    return p;
  };
}

std::string Target::first_body(const RunPlan& point) const {
  dataset::RequestSpec scratch;
  return client::build_body(body_at(point), spec(0, scratch, &data_at(point)));
}

std::optional<record::ServerProcessFacts> Target::close(const fs::path& run_dir,
                                                        spdlog::logger& log, std::FILE* console) {
  sim.reset();
  if (!server) return std::nullopt;
  const std::string how = server->stop();
  server.reset();
  log.info("server {}", how);
  const fs::path log_path = run_dir / "logs" / "server.log";
  std::string text = runfolder::read_file(log_path);
  // A server echoes its arguments (vLLM prints its non-default ones, --api-key included): the
  // values tokbench knows to be secret are hidden in the log it keeps.
  if (const std::string hidden = redact_known(text, secrets); hidden != text) {
    runfolder::write_file(log_path, hidden);
    text = hidden;
  }
  const auto sl = probe::parse_vllm_log(text);
  if (sl.throughput_lines > 0 || sl.spec_lines > 0) {
    fmt::print(
        console, "server log: mean generation throughput {:.1f} tokens/s over {} line(s){}\n",
        sl.mean_generation_throughput, sl.throughput_lines,
        sl.spec_lines ? fmt::format(", mean acceptance length {:.2f} (last SpecDecoding line)",
                                    sl.last_mean_acceptance_length)
                      : "");
  }
  return record::ServerProcessFacts{redact_command(server_command), how, log_path.string(), sl};
}

namespace {
// The dataset's payloads against what the API takes: conversations only where it takes them,
// documents only where it ranks; an API that ranks and a dataset of prompts alone: each prompt
// ranks the --documents prompts after it.
void fit_payloads(dataset::Dataset& data, const WorkloadSettings& workload,
                  const std::string& endpoint) {
  const client::ApiCaps caps = api_of(endpoint).caps();
  const bool any_conversation = std::any_of(data.items.begin(), data.items.end(),
                                            [](const auto& i) { return i.conversation(); });
  const bool any_ranking =
      std::any_of(data.items.begin(), data.items.end(), [](const auto& i) { return i.ranking(); });
  if (any_conversation && !caps.conversation)
    throw std::invalid_argument(
        fmt::format("--dataset {}: its lines carry chat \"messages\" or \"images\", which {} "
                    "cannot take: use an endpoint that takes conversations ({})",
                    workload.dataset.text(), endpoint_path(endpoint),
                    client::api_paths(&client::ApiCaps::conversation)));
  if (any_ranking && !caps.documents)
    throw std::invalid_argument(
        fmt::format("--dataset {}: its lines carry a \"query\" with \"documents\", which {} "
                    "cannot take: use an endpoint that ranks ({})",
                    workload.dataset.text(), endpoint_path(endpoint),
                    client::api_paths(&client::ApiCaps::documents)));
  if (!caps.documents) return;
  if (any_ranking &&
      !std::all_of(data.items.begin(), data.items.end(), [](const auto& i) { return i.ranking(); }))
    throw std::invalid_argument(fmt::format(
        "--dataset {}: {} ranks a query against documents, and some lines carry none: give "
        "every line a \"query\" with \"documents\"",
        workload.dataset.text(), endpoint_path(endpoint)));
  if (!any_ranking) dataset::rank_each_against_the_next(data, workload.documents);
}

// Every name a request will carry must be served (a LoRA adapter the server has not loaded fails
// every request it picks), unless a gateway aliases names (--skip-model-check).
void check_names_served(const dataset::Dataset& data, const std::vector<std::string>& lora,
                        const std::vector<std::string>& served, bool skip, const std::string& url) {
  std::vector<std::string> names = lora;
  for (const auto& item : data.items)
    if (!item.model.empty() && std::find(names.begin(), names.end(), item.model) == names.end())
      names.push_back(item.model);
  for (const auto& name : names) {
    if (served.empty() || skip || std::find(served.begin(), served.end(), name) != served.end())
      continue;
    throw std::runtime_error(
        fmt::format("model '{}' ({}) is not served at {} (it serves: {}): load the adapter on the "
                    "server (vLLM: --lora-modules NAME=PATH), fix the name, or pass "
                    "--skip-model-check when a gateway serves it under an alias",
                    name, lora.empty() ? "a dataset line's \"model\"" : "--lora or a dataset line",
                    net::models_url_for(url), join(served, ", ")));
  }
}

// No --url or --host: the built-in simulator, started for this run on a free port.
void open_simulator(Target& t, const RunPlan& plan, std::FILE* console) {
  using Scheduling = SimulatorAsk::Scheduling;
  const RunConfig& cfg = plan.cfg;
  SimulatorAsk ask;
  ask.tokenizer = cfg.workload.tokenizer;  // exact prompt counts and /tokenize when one is given
  // A first --check-answers run on GSM8K meets answers to read (all right: the simulator's
  // default).
  if (cfg.observe.check_answers && cfg.workload.dataset.is(dataset::Source::Gsm8k))
    ask.answers = cfg.workload.dataset.text();
  for (const auto& k : plan.parsed.classes) {
    if (k.priority) ask.scheduling = Scheduling::Priority;
    for (const auto& h : k.headers)
      if (h.starts_with("x-gateway-inference-fairness-id") && ask.scheduling == Scheduling::Fcfs)
        ask.scheduling = Scheduling::Fair;
  }
  const char* policy = ask.scheduling == Scheduling::Priority ? ", priority scheduling"
                       : ask.scheduling == Scheduling::Fair   ? ", fair scheduling"
                                                              : "";
  t.sim = runner::start_simulator(ask);
  t.url = fmt::format("http://127.0.0.1:{}{}", t.sim->port(),
                      endpoint_path(cfg.target.endpoint, cfg.request.stream));
  fmt::print(console,
             "no --url or --host given: started the built-in simulator (tokbench serve-mock "
             "defaults{}{}) at {}\n",
             ask.answers.empty() ? "" : ", answering the GSM8K questions right", policy, t.url);
}

// --class dataset=: each such class's own prompts, read as the run's are with the run's workload
// flags, fitted to the endpoint, their models checked; a class that names no count sends one pass
// over them (its settled count), as the run does over --dataset.
void build_class_data(Target& t, RunPlan& plan, const std::vector<std::string>& served,
                      std::FILE* console) {
  const RunConfig& cfg = plan.cfg;
  for (TrafficClass& k : plan.parsed.classes) {
    if (k.dataset.empty()) continue;
    WorkloadSettings w = cfg.workload;
    w.dataset = dataset::parse_spec(k.dataset);
    LoadSettings load = cfg.load;  // synthetic prompts: its count, else the run's
    load.num_prompts =
        k.num_prompts.value_or(w.dataset.is(dataset::Source::Synthetic) ? cfg.load.num_prompts : 0);
    WorkloadInput in{w,
                     load,
                     cfg.target,
                     api_of(cfg.target.endpoint).caps().conversation,
                     t.url,
                     plan.tls,
                     t.tok ? &*t.tok : nullptr,
                     console};
    Prompts p;
    workload_of(w.dataset.source).build(in, p);
    fit_payloads(p.data, w, cfg.target.endpoint);
    check_names_served(p.data, w.lora, served, cfg.target.skip_model_check, t.url);
    if (p.data.items.empty())
      throw std::runtime_error(
          fmt::format("--class name={}: dataset={} holds no prompt: give it a file with lines",
                      k.name, k.dataset));
    if (!k.num_prompts) k.settled_prompts = load.num_prompts;
    t.class_data.insert_or_assign(k.name, std::move(p.data));
  }
}

}  // namespace

Target open_target(RunPlan& plan, const fs::path& run_dir, spdlog::logger& log,
                   std::FILE* console) {
  RunConfig& cfg = plan.cfg;
  Target t;
  if (!cfg.workload.tokenizer.empty()) t.tok = tokenizer::Tokenizer::load(cfg.workload.tokenizer);
  const Workload& workload = workload_of(cfg.workload.dataset.source);
  const bool conversation = api_of(cfg.target.endpoint).caps().conversation;
  WorkloadInput in{
      cfg.workload, cfg.load, cfg.target, conversation, t.url, plan.tls, t.tok ? &*t.tok : nullptr,
      console};
  auto build = [&] {
    Prompts p;
    workload.build(in, p);
    t.data = std::move(p.data);
    t.synthetic = std::move(p.synthetic);
    t.trace = std::move(p.trace);
  };
  if (!workload.needs_target()) build();  // a bad file fails before the server is contacted
  if (!workload.needs_target()) fit_payloads(t.data, cfg.workload, cfg.target.endpoint);
  t.url = cfg.target_url();
  if (!cfg.target.server_cmd.empty() || !cfg.target.deploy_sh.empty()) {
    // {port} and {name} filled in (a grid's point has filled its keys and these already).
    cfg.target.server_cmd =
        expand_server_command(cfg.target.server_cmd, ServerPoint{"server", {}}, url_port(t.url));
    t.server_command =
        cfg.target.server_cmd.empty() ? "bash " + cfg.target.deploy_sh : cfg.target.server_cmd;
    t.secrets = known_secrets(cfg.target, cfg.observe);
    t.server = start_server(cfg.target, plan, t.url, run_dir, log, console);
  }
  if (cfg.embedded_target()) open_simulator(t, plan, console);
  std::vector<std::string> served;
  cfg.target.model = resolve_model(cfg.target, static_cast<size_t>(cfg.request.max_body_bytes),
                                   t.url, plan.tls, &served);
  check_names_served(t.data, cfg.workload.lora, served, cfg.target.skip_model_check, t.url);
  t.lora = cfg.workload.lora;
  t.lora_seed = cfg.load.seed;
  if (plan.parsed.image) {  // a pool of distinct pictures: a server's cache sees more than one
    const auto [w, h] = *plan.parsed.image;
    for (uint64_t k = 0; k < 16; ++k)
      t.images.push_back(dataset::synthetic_png_url(w, h, cfg.load.seed * 16 + k));
    t.images_per_request = cfg.workload.images_per_request;
    fmt::print(console,
               "images: {} per request, drawn from 16 seeded {}x{} PNGs ({} bytes as a data URL)\n",
               cfg.workload.images_per_request, w, h, t.images.front().size());
  }
  if (cfg.output.model_abbr.empty()) cfg.output.model_abbr = runfolder::file_safe(cfg.target.model);
  t.model = cfg.target.model;
  if (workload.needs_target()) {  // with the server's /tokenize and the resolved model
    build();
    fit_payloads(t.data, cfg.workload, cfg.target.endpoint);
  }
  // Sessions: --num-prompts counts them; by default one pass over the dataset.
  if (cfg.workload.turns > 0 && !cfg.workload.multi_turn) {
    if (cfg.load.num_prompts == 0 || plan.requested.load.num_prompts == 0)
      cfg.load.num_prompts =
          std::max<int64_t>(1, static_cast<int64_t>(t.data.items.size()) / cfg.workload.turns);
  }
  build_class_data(t, plan, served, console);
  t.body = body_settings(plan);
  if (cfg.observe.check_answers &&
      std::none_of(t.data.items.begin(), t.data.items.end(),
                   [](const auto& i) { return i.key.kind != core::AnswerKey::Kind::None; }))
    fmt::print(console,
               "--check-answers: no line of --dataset {} carries a reference answer, so only the "
               "integrity checks run "
               "(references come from gsm8k:PATH, or qa lines with \"answer\", \"choices\" or "
               "\"answer_regex\")\n",
               cfg.workload.dataset.text());
  return t;
}

}  // namespace tokbench::runner
