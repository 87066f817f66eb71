#include "settings/run_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "client/api.hpp"
#include "common/json_writer.hpp"
#include "settings/fields.hpp"
#include "settings/load_shape.hpp"
#include "settings/traffic_class.hpp"

namespace tokbench::runner {

// "http://h:p/v1/chat/completions?x" -> "/v1/chat/completions"; "" when the URL has no path.
std::string url_path(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (slash == std::string::npos) return "";
  return url.substr(slash, url.find_first_of("?#", slash) - slash);
}

// A path that names the server, not an API: none, "/", or OpenAI's base URL ".../v1" (what an
// OpenAI client's base_url holds); --endpoint (default chat) completes it.
static bool base_path(const std::string& path) {
  return path.empty() || path == "/" || path == "/v1" || path == "/v1/";
}

// The API a URL's path names: its name, "" (a base path: --endpoint decides) or "?" (a path of
// something else).
std::string endpoint_of_path(const std::string& path) {
  if (base_path(path)) return "";
  const client::ApiAdapter* api = client::api_of_path(path);
  return api ? std::string(api->name()) : "?";
}

const client::ApiAdapter& api_of(const std::string& endpoint) {
  const client::ApiAdapter* api = client::find_api(endpoint);
  return api ? *api : client::default_api();
}

core::ApiCaps caps_of(const std::string& endpoint) { return api_of(endpoint).caps(); }

std::string endpoint_path(const std::string& endpoint, bool stream) {
  const client::ApiAdapter& api = api_of(endpoint);
  return std::string(stream ? api.path() : api.body_path());
}

size_t RunConfig::sweep_points() const {
  return std::max({load.concurrency_sweep.size(), load.request_rate_sweep.size(),
                   load.num_prompts_sweep.size(), class_sweep_points(load.classes)});
}

RunConfig RunConfig::sweep_point(size_t i) const {
  RunConfig c = *this;
  if (i < load.concurrency_sweep.size()) c.load.concurrency = load.concurrency_sweep[i];
  if (i < load.request_rate_sweep.size()) c.load.request_rate = load.request_rate_sweep[i];
  if (i < load.num_prompts_sweep.size()) c.load.num_prompts = load.num_prompts_sweep[i];
  c.load.concurrency_sweep.clear();
  c.load.request_rate_sweep.clear();
  c.load.num_prompts_sweep.clear();
  return c;
}

std::string RunConfig::sweep_label(size_t i) const {
  std::string out;
  auto add = [&](char tag, const std::string& v) {
    out += fmt::format("{}{}{}", out.empty() ? "" : "-", tag, v);
  };
  if (i < load.concurrency_sweep.size()) add('c', std::to_string(load.concurrency_sweep[i]));
  if (i < load.request_rate_sweep.size())
    add('r', std::isinf(load.request_rate_sweep[i])
                 ? std::string("inf")
                 : fmt::format("{}", load.request_rate_sweep[i]));
  if (i < load.num_prompts_sweep.size()) add('n', std::to_string(load.num_prompts_sweep[i]));
  if (!out.empty()) return out;
  for (const std::string& text : load.classes) try {  // a list in one --class: its own points
      if (const TrafficClass k = parse_traffic_class(text); k.sweep_points() > 1)
        return k.sweep_label(i);
    } catch (const std::invalid_argument&) {  // plan/ names it
    }
  if (!load.classes.empty()) return "classes";  // no list: the classes carry the load
  // No list: the point's own load names it (a one-point --server-grid's point read "p1").
  const LoadShape shape = load_shape();
  if (!shape.open_loop()) return fmt::format("c{}", shape.max_in_flight());
  if (load.request_rate > 0)
    return std::isinf(load.request_rate) ? std::string("rinf")
                                         : fmt::format("r{}", load.request_rate);
  return fmt::format("p{}", i + 1);
}

std::string RunConfig::resolved_endpoint() const {
  if (!target.endpoint.empty()) return target.endpoint;
  if (!target.url.empty()) {
    const std::string named = endpoint_of_path(url_path(target.url));
    if (!named.empty() && named != "?") return named;
  }
  return std::string(client::default_api().name());
}

std::string RunConfig::target_url() const {
  const std::string endpoint = resolved_endpoint();
  if (!target.url.empty()) {
    const std::string path = url_path(target.url);
    if (!base_path(path)) return target.url;
    const std::string root =
        target.url.substr(0, target.url.size() - path.size());  // http://host:port
    return fmt::format("{}{}", root, endpoint_path(endpoint, request.stream));
  }
  if (target.host.empty() && !target.deploy_sh.empty())  // AtomGit: deploy.sh serves on port 8000
    return fmt::format("http://127.0.0.1:8000{}", endpoint_path(endpoint, request.stream));
  if (target.host.empty()) return {};
  const bool v6 = target.host.find(':') != std::string::npos && target.host.front() != '[';
  return fmt::format("http://{}{}{}:{}{}", v6 ? "[" : "", target.host, v6 ? "]" : "", target.port,
                     endpoint_path(endpoint, request.stream));
}

std::string RunConfig::to_json() const {
  JsonWriter w;
  w.begin_object();
  // One flat object, each part's fields under their keys (resume compares them key by key).
  write_fields(w, target, target_fields());
  write_fields(w, request, request_fields());
  write_fields(w, load, load_fields());
  write_fields(w, workload, workload_fields());
  write_fields(w, experiment, experiment_fields());
  write_fields(w, observe, observe_fields());
  write_fields(w, output, output_fields());
  w.end_object();
  return w.take();
}

}  // namespace tokbench::runner
