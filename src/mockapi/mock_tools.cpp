// mockapi/mock_tools: the simulator's tool calls and their drawn worth (the rules: mock_tools.hpp).
#include "mockapi/mock_tools.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <stdexcept>

#include "common/json_writer.hpp"
#include "mockapi/mock_answers.hpp"

namespace tokbench::mock {

namespace {

using simdjson::dom::element;

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::string_view first_type(const element& schema) {
  std::string_view t;
  if (!schema["type"].get_string().get(t)) return t;
  simdjson::dom::array list;
  if (!schema["type"].get_array().get(list))
    for (auto x : list)
      if (!x.get_string().get(t) && t != "null") return t;
  return schema["properties"].error() ? "string" : "object";
}

double bound_or(const element& s, std::string_view key, double fallback) {
  double v = 0;
  return s[key].get_double().get(v) ? fallback : v;
}

void generate(const element& schema, JsonWriter& w, uint64_t seed, int depth) {
  element x;
  if (!schema.is_object() || depth > 16) {
    w.value(fmt::format("w{}", seed % 1000));
    return;
  }
  if (!schema["const"].get(x)) {
    w.raw(simdjson::minify(x));
    return;
  }
  simdjson::dom::array list;
  if (!schema["enum"].get_array().get(list) && list.size() > 0) {
    w.raw(simdjson::minify(list.at(0).value()));
    return;
  }
  for (const char* k : {"anyOf", "oneOf", "allOf"})
    if (!schema[k].get_array().get(list) && list.size() > 0) {
      generate(list.at(0).value(), w, seed, depth + 1);
      return;
    }
  const std::string_view type = first_type(schema);
  if (type == "object") {
    w.begin_object();
    simdjson::dom::object props;
    const bool has_props = !schema["properties"].get_object().get(props);
    simdjson::dom::array required;
    std::vector<std::string_view> keys;
    if (!schema["required"].get_array().get(required))
      for (auto k : required)
        if (std::string_view key; !k.get_string().get(key)) keys.push_back(key);
    if (keys.empty() && has_props)
      for (auto field : props) keys.push_back(field.key);
    uint64_t i = 0;
    for (const std::string_view key : keys) {
      w.key(key);
      element sub;
      if (has_props && !props[key].get(sub))
        generate(sub, w, mix(seed + ++i), depth + 1);
      else
        w.value(fmt::format("w{}", seed % 1000));
    }
    w.end_object();
  } else if (type == "array") {
    uint64_t n = 1;
    if (!schema["minItems"].get_uint64().get(n)) n = std::max<uint64_t>(n, 1);
    n = std::min<uint64_t>(n, 16);
    w.begin_array();
    element items;
    const bool typed = !schema["items"].get(items);
    for (uint64_t i = 0; i < n; ++i) {
      if (typed)
        generate(items, w, mix(seed + i), depth + 1);
      else
        w.value(fmt::format("w{}", seed % 1000));
    }
    w.end_array();
  } else if (type == "integer" || type == "number") {
    double v = 1;
    if (!schema["minimum"].error()) v = std::ceil(bound_or(schema, "minimum", v));
    if (!schema["exclusiveMinimum"].error())
      v = std::floor(bound_or(schema, "exclusiveMinimum", v)) + 1;
    if (!schema["maximum"].error()) v = std::min(v, std::floor(bound_or(schema, "maximum", v)));
    w.value(static_cast<int64_t>(v));
  } else if (type == "boolean") {
    w.value(true);
  } else if (type == "null") {
    w.null();
  } else {  // a string, within its lengths
    std::string text = fmt::format("w{}", seed % 1000);
    uint64_t n = 0;
    if (!schema["minLength"].get_uint64().get(n) && text.size() < n) text.resize(n, 'w');
    if (!schema["maxLength"].get_uint64().get(n) && text.size() > n) text.resize(n);
    w.value(text);
  }
}

// Writes `v` again; `change` (when set) alters the first scalar value met, and is cleared then.
void rewrite(const element& v, JsonWriter& w, bool& change, std::string_view drop_key = {}) {
  switch (v.type()) {
    case simdjson::dom::element_type::OBJECT: {
      w.begin_object();
      const simdjson::dom::object o = v.get_object().value();  // held: value() of a temporary
      for (auto field : o) {
        if (!drop_key.empty() && field.key == drop_key) continue;
        w.key(field.key);
        rewrite(field.value, w, change);
      }
      w.end_object();
      return;
    }
    case simdjson::dom::element_type::ARRAY: {
      w.begin_array();
      const simdjson::dom::array a = v.get_array().value();
      for (auto item : a) rewrite(item, w, change);
      w.end_array();
      return;
    }
    case simdjson::dom::element_type::STRING:
      if (change) {
        change = false;
        w.value(std::string(v.get_string().value()) + " (wrong)");
        return;
      }
      break;
    case simdjson::dom::element_type::INT64:
      if (change) {
        change = false;
        w.value(v.get_int64().value() + 1);
        return;
      }
      break;
    case simdjson::dom::element_type::UINT64:
    case simdjson::dom::element_type::DOUBLE:
      if (change) {
        change = false;
        w.value(v.get_double().value() + 1);
        return;
      }
      break;
    case simdjson::dom::element_type::BOOL:
      if (change) {
        change = false;
        w.value(!v.get_bool().value());
        return;
      }
      break;
    default:
      break;
  }
  w.raw(simdjson::minify(v));
}

// The reference with its first value changed; nullopt when it has no value to change.
std::optional<core::ToolCall> wrong_of(const core::ToolCall& ref) {
  simdjson::dom::parser p;
  element args;
  if (p.parse(ref.arguments).get(args)) return std::nullopt;
  JsonWriter w;
  bool change = true;
  rewrite(args, w, change);
  if (change) return std::nullopt;
  return core::ToolCall{ref.name, w.take()};
}

std::string_view schema_of(const CompletionRequest& cr, std::string_view name) {
  for (const core::Tool& t : cr.tools)
    if (t.name == name) return t.parameters;
  return {};
}

}  // namespace

std::string arguments_for(std::string_view schema, uint64_t seed) {
  simdjson::dom::parser p;
  element s;
  if (schema.empty() || p.parse(schema.data(), schema.size()).get(s)) return "{}";
  JsonWriter w;
  generate(s, w, seed, 0);
  std::string out = w.take();
  return out.starts_with('{') ? out : "{}";  // arguments are an object
}

std::vector<std::string> argument_pieces(std::string_view arguments) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < arguments.size()) {
    size_t end = std::min(arguments.size(), at + 4);
    while (end < arguments.size() && (static_cast<unsigned char>(arguments[end]) & 0xC0) == 0x80)
      ++end;  // a character is never split
    out.emplace_back(arguments.substr(at, end - at));
    at = end;
  }
  return out;
}

Plan called_plan(Plan plan, const CompletionRequest& cr, size_t pieces, int64_t cap) {
  if (cr.ignore_eos) return plan;  // the cap, padded past the call
  const int64_t want = std::max<int64_t>(cr.min_tokens, static_cast<int64_t>(pieces));
  plan.tokens = std::min(want, cap);
  plan.finish_reason = want > cap ? "length" : "stop";
  return plan;
}

ToolCaller::ToolCaller(const std::string& answers, uint64_t seed, double invalid_rate,
                       double wrong_rate, double json_invalid_rate, int64_t tool_rounds)
    : invalid_rate_(invalid_rate),
      wrong_rate_(wrong_rate),
      json_invalid_rate_(json_invalid_rate),
      tool_rounds_(tool_rounds) {
  if (!answers.starts_with("tools:")) return;
  const std::string path = answers.substr(6);
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error(fmt::format(
        "--answers: cannot read '{}' (expected a jsonl file of questions with a \"tool_call\")",
        path));
  simdjson::dom::parser parser;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    element doc;
    std::string_view q, name;
    element args;
    if (parser.parse(line).get(doc) || doc["question"].get_string().get(q) ||
        doc["tool_call"]["name"].get_string().get(name) || doc["tool_call"]["arguments"].get(args))
      throw std::runtime_error(fmt::format(
          "--answers {} line {}: expected {{\"question\": ..., \"tool_call\": {{\"name\": ..., "
          "\"arguments\": {{...}}}}}}",
          path, n));
    std::string_view text;
    std::string arguments =
        args.get_string().get(text) ? simdjson::minify(args) : std::string(text);
    line_of_.emplace(std::string(asked_question(q)), refs_.size());
    refs_.push_back({std::string(name), std::move(arguments)});
  }
  if (refs_.empty())
    throw std::runtime_error(fmt::format("--answers {}: no question in the file", path));
  const uint64_t n = refs_.size();
  a_ = mix(seed) % n;
  while (std::gcd(a_, n) != 1) a_ = (a_ + 1) % n;
  b_ = mix(seed ^ 0xA5A5) % n;
}

std::optional<core::ToolCall> ToolCaller::invalid(core::ToolCall call, std::string_view schema,
                                                  uint64_t j) {
  simdjson::dom::parser p, sp;
  element args, s;
  simdjson::dom::array required;
  std::string_view first;
  if (j % 2 == 0 && !schema.empty() && !sp.parse(schema.data(), schema.size()).get(s) &&
      !s["required"].get_array().get(required) && required.size() > 0 &&
      !required.at(0).get_string().get(first) && !p.parse(call.arguments).get(args)) {
    JsonWriter w;
    bool change = false;
    rewrite(args, w, change, first);  // the first required property left out
    call.arguments = w.take();
    ++invalid_;
    return call;
  }
  if (!call.arguments.empty()) call.arguments.pop_back();  // the closing brace: not JSON
  ++bad_json_;
  return call;
}

std::optional<core::ToolCall> ToolCaller::call(const CompletionRequest& cr, uint64_t seq) {
  if (cr.tools.empty() || cr.tool_choice_none) return std::nullopt;
  if (tool_rounds_ > 0 && cr.tool_rounds >= tool_rounds_) return std::nullopt;  // the final answer
  if (!line_of_.empty()) {
    const auto it = line_of_.find(std::string(asked_question(cr.rendered)));
    if (it != line_of_.end()) {
      const core::ToolCall& ref = refs_[it->second];
      const double n = static_cast<double>(refs_.size());
      const double rank = static_cast<double>((it->second * a_ + b_) % refs_.size());
      if (rank < invalid_rate_ * n)
        return invalid(ref, schema_of(cr, ref.name), static_cast<uint64_t>(rank) + 1);
      if (rank < (invalid_rate_ + wrong_rate_) * n)
        if (auto w = wrong_of(ref)) {
          ++wrong_;
          return w;
        }
      ++right_;
      return ref;
    }
  }
  // "auto" on a question it does not know: text, unless an agent's rounds are not done (then
  // each round calls the next tool offered).
  if (cr.tool_name.empty() && tool_rounds_ == 0) return std::nullopt;
  const std::string& name =
      cr.tool_name.empty() ? cr.tools[static_cast<size_t>(cr.tool_rounds) % cr.tools.size()].name
                           : cr.tool_name;
  const std::string_view schema = schema_of(cr, name);
  core::ToolCall c{name, arguments_for(schema, mix(seq))};
  const auto k = static_cast<double>(++made_);
  if (std::floor(k * invalid_rate_) > std::floor((k - 1) * invalid_rate_))
    return invalid(std::move(c), schema, ++invalid_made_);
  ++valid_;
  return c;
}

std::string ToolCaller::structured(const CompletionRequest& cr, uint64_t seq) {
  std::string doc = arguments_for(cr.json_schema, mix(seq));
  const auto k = static_cast<double>(++documents_);
  if (std::floor(k * json_invalid_rate_) > std::floor((k - 1) * json_invalid_rate_)) {
    doc.pop_back();
    ++documents_broken_;
  }
  return doc;
}

std::string ToolCaller::render(const std::string& model_labels) const {
  std::string out =
      "# HELP tokbench_mock_tool_calls_total Tool calls the simulator made, by their drawn worth.\n"
      "# TYPE tokbench_mock_tool_calls_total counter\n";
  for (const auto& [verdict, n] : {std::pair{"right", &right_},
                                   {"wrong", &wrong_},
                                   {"valid", &valid_},
                                   {"bad_json", &bad_json_},
                                   {"invalid", &invalid_}})
    out += fmt::format("tokbench_mock_tool_calls_total{{{},verdict=\"{}\"}} {}\n", model_labels,
                       verdict, n->load());
  out +=
      "# HELP tokbench_mock_structured_answers_total Answers held to a JSON Schema, by their drawn "
      "worth.\n# TYPE tokbench_mock_structured_answers_total counter\n";
  out += fmt::format("tokbench_mock_structured_answers_total{{{},verdict=\"valid\"}} {}\n",
                     model_labels, documents_.load() - documents_broken_.load());
  out += fmt::format("tokbench_mock_structured_answers_total{{{},verdict=\"bad_json\"}} {}\n",
                     model_labels, documents_broken_.load());
  return out;
}

}  // namespace tokbench::mock
