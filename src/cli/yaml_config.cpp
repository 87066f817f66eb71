#include "cli/yaml_config.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "common/redact.hpp"

namespace tokbench::cli {

namespace {

// Options that are not settings of a run: never printed, never read from a file.
bool is_setting(const CLI::Option* o) {
  const std::string n = o->get_single_name();
  return n != "help" && n != "config" && n != "print-config" && o->get_configurable();
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    const size_t j = std::min(s.find(',', i), s.size());
    out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// YAML scalars as CLI11 wants them: the text as written.
std::string scalar(const YAML::Node& n, const std::string& key) {
  if (!n.IsScalar()) {
    throw CLI::ConfigError(fmt::format(
        "--config: '{}' must be a value or a list of values (line {})", key, n.Mark().line + 1));
  }
  return n.Scalar();
}

}  // namespace

std::string YamlConfig::to_config(const CLI::App* app, bool default_also, bool, std::string) const {
  YAML::Emitter out;
  out << YAML::Comment("tokbench run --config: flags given on the command line override these")
      << YAML::Newline;
  out << YAML::BeginMap;
  std::vector<std::string> left_out;
  for (const CLI::Option* o : app->get_options()) {
    if (!is_setting(o)) continue;
    const std::string name = o->get_single_name();
    std::vector<std::string> values = o->count() > 0 ? o->results() : std::vector<std::string>{};
    if (values.empty()) {
      if (!default_also || o->get_default_str().empty())
        continue;  // a flag not given stays at its default
      values = {o->get_default_str()};
    }
    if (name == "api-key") {  // a secret: never echoed into a file people paste
      left_out.push_back("api-key (pass $OPENAI_API_KEY or --api-key)");
      continue;
    }
    // A URL with credentials in it (userinfo, ?api_key=), a server command with a secret flag or
    // HF_TOKEN=...: left out whole, like the key (a redacted value would run against the wrong
    // thing).
    if (name != "header" && std::any_of(values.begin(), values.end(), [](const std::string& v) {
          return redact_url(v) != v || redact_command(v) != v;
        })) {
      left_out.push_back(
          name +
          " (it carries a credential: pass it by --api-key, $OPENAI_API_KEY or the environment)");
      continue;
    }
    if (name == "header") {  // credential headers are left out like the key; the rest are kept
      std::vector<std::string> kept;
      for (const auto& v : values)
        (redact_header(v) == v ? kept : left_out).push_back(redact_header(v));
      if (kept.empty()) continue;
      values = kept;
    }
    out << YAML::Key << name << YAML::Value;
    if (name == "header") {
      out << YAML::BeginSeq;
      for (const auto& v : values) out << v;
      out << YAML::EndSeq;
    } else if (comma_lists_.count(name) && values.size() == 1 &&
               values[0].find(',') != std::string::npos) {
      out << YAML::Flow << YAML::BeginSeq;
      for (const auto& v : split_commas(values[0])) out << v;
      out << YAML::EndSeq;
    } else if (values.size() > 1) {
      out << YAML::BeginSeq;
      for (const auto& v : values) out << v;
      out << YAML::EndSeq;
    } else {
      out << values[0];
    }
  }
  out << YAML::EndMap;
  std::string text = out.c_str();
  for (const auto& l : left_out) text += "\n# not printed (a secret): " + l;
  return text + "\n";
}

std::vector<CLI::ConfigItem> YamlConfig::from_config(std::istream& input) const {
  YAML::Node root;
  try {
    root = YAML::Load(input);
  } catch (const YAML::Exception& e) {
    throw CLI::ConfigError(fmt::format("--config: not valid YAML: {}", e.what()));
  }
  if (root.IsNull()) return {};
  if (root.IsMap() && root["run"] && root["run"].IsMap()) root = root["run"];
  if (!root.IsMap()) {
    throw CLI::ConfigError(
        "--config: expected a mapping of flag names to values, e.g. 'concurrency: 8' on its own "
        "line");
  }
  std::vector<CLI::ConfigItem> items;
  for (const auto& kv : root) {
    CLI::ConfigItem item;
    item.name = kv.first.as<std::string>();
    for (char& c : item.name)
      if (c == '_') c = '-';  // request_rate reads as request-rate
    const YAML::Node& v = kv.second;
    if (v.IsSequence()) {
      std::vector<std::string> values;
      for (const auto& e : v) values.push_back(scalar(e, item.name));
      if (comma_lists_.count(item.name)) {
        std::string joined;
        for (const auto& s : values) joined += (joined.empty() ? "" : ",") + s;
        item.inputs = {joined};
      } else {
        item.inputs = values;
      }
    } else {
      item.inputs = {scalar(v, item.name)};
    }
    items.push_back(std::move(item));
  }
  return items;
}

}  // namespace tokbench::cli
