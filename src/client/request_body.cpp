#include "client/request_body.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <stdexcept>

#include "client/api/body_parts.hpp"
#include "common/json_writer.hpp"
#include "net/http_get.hpp"

namespace tokbench::client {

std::optional<Flavor> flavor_named(std::string_view compat) {
  if (compat == "tokbench" || compat == "aisbench") return Flavor::Tokbench;
  if (compat == "evalscope") return Flavor::Evalscope;
  if (compat == "vllm") return Flavor::Vllm;
  if (compat == "sglang") return Flavor::Sglang;
  return std::nullopt;
}

const ApiAdapter& BodySettings::adapter() const { return api ? *api : default_api(); }

bool BodySettings::overridden(std::string_view key) const {
  return std::any_of(extra.begin(), extra.end(), [&](const auto& kv) { return kv.first == key; });
}

std::vector<std::string> ApiAdapter::credential_headers(const std::vector<std::string>& given,
                                                        const std::string& key) const {
  // One credential header: an explicit --header wins over --api-key (both would be sent otherwise).
  if (key.empty() || net::has_authorization_header(given)) return {};
  return {"Authorization: Bearer " + key};
}

std::vector<std::pair<std::string, std::string>> parse_extra_body(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (auto err = parser.parse(json).get_object().get(obj)) {
    throw std::runtime_error(fmt::format(
        "--extra-body: bad value '{}' ({}; expected a JSON object, e.g. '{{\"top_p\": 0.9}}')",
        json, simdjson::error_message(err)));
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (auto field : obj) out.emplace_back(std::string(field.key), simdjson::minify(field.value));
  return out;
}

std::string counted_text(const dataset::RequestSpec& spec) {
  const core::Ranking* r = spec.ranking();
  if (!r) return spec.prompt;
  // A cross-encoder reads the query beside each document: every pair is one input of the model.
  std::string text;
  for (const auto& doc : r->documents) text += spec.prompt + "\n" + doc + "\n";
  return text;
}

core::PlannedRequest plan_request(const BodySettings& s, const dataset::RequestSpec& spec,
                                  bool keep_prompt) {
  const ApiAdapter& api = s.adapter();
  const ApiCaps caps = api.caps();
  core::PlannedRequest p;
  p.body = build_body(s, spec);
  p.facts.expected_prompt_tokens = spec.expected_input_tokens;
  if (keep_prompt) p.facts.prompt_text = counted_text(spec);
  p.facts.key = spec.key;
  if (spec.model != s.model) p.facts.model = spec.model;
  if (const core::Ranking* r = spec.ranking(); r && caps.documents)
    p.facts.documents = static_cast<int64_t>(r->documents.size());
  if (caps.json_schema) p.facts.json_schema = s.json_schema;
  if (caps.tools) {
    p.facts.tools = spec.tools ? spec.tools : s.tools;
    if (p.facts.tools) p.facts.tool_call = spec.tool_call;
  }
  if (!caps.generates) return p;  // nothing is generated: no cap, no ignore_eos
  const int64_t cap = s.cap_for(spec);
  if (cap > 0) p.facts.requested_max_tokens = cap;
  // A synthetic run asks every API for ignore_eos; one without it (TGI, Ollama) sends none, and
  // its outputs are not held to the cap.
  p.facts.ignore_eos_sent = caps.sampling_extensions && api.sends_ignore_eos(s);
  if (const core::Conversation* c = spec.conversation();
      caps.images && c && c->messages_json.empty())
    p.facts.images = static_cast<int64_t>(c->image_urls.size());
  return p;
}

std::string build_body(const BodySettings& s, const dataset::RequestSpec& spec) {
  JsonWriter w;
  w.begin_object();
  s.adapter().write_body(w, s, spec);
  for (const auto& [k, v] : s.extra) w.field_raw(k, v);
  w.end_object();
  return w.take();
}

std::vector<AuditFinding> audit_body(const std::string& body, const ApiAdapter& api) {
  std::vector<AuditFinding> out;
  simdjson::dom::parser parser;
  simdjson::dom::object top;
  if (parser.parse(body).get_object().get(top))
    return {{"warning", "the request body is not a JSON object"}};
  api.audit(top, out);
  return out;
}

namespace api_detail {

void write_conversation(JsonWriter& w, std::string_view key, const BodySettings& s,
                        const dataset::RequestSpec& spec, std::string_view text_type,
                        const std::function<void(JsonWriter&, const std::string&)>& image) {
  if (s.overridden(key)) return;
  const core::Conversation* conv = spec.conversation();
  if (conv && !conv->messages_json.empty()) {
    w.field_raw(key, conv->messages_json);         // a dataset's whole conversation, as written
  } else if (conv && !conv->image_urls.empty()) {  // content parts: the text, then each image
    w.key(key).begin_array().begin_object().field("role", "user").key("content").begin_array();
    w.begin_object().field("type", text_type).field("text", spec.prompt).end_object();
    for (const auto& url : conv->image_urls) image(w, url);
    w.end_array().end_object().end_array();
  } else {
    w.key(key)
        .begin_array()
        .begin_object()
        .field("role", "user")
        .field("content", spec.prompt)
        .end_object()
        .end_array();
  }
}

void audit_sampling(simdjson::dom::object o, const SamplingNames& n,
                    std::vector<AuditFinding>& out) {
  auto has = [&](std::string_view k) { return !k.empty() && !o[k].error() && !o[k].is_null(); };
  bool ignore_eos = false;
  if (o["ignore_eos"].get_bool().get(ignore_eos)) ignore_eos = false;
  if (has(n.min_tokens) && ignore_eos) {
    out.push_back(
        {"warning",
         fmt::format(
             "{} together with ignore_eos: redundant (ignore_eos already produces {}) and it slows "
             "vLLM's speculative-decoding path for the whole batch (MinTokensLogitsProcessor is "
             "not "
             "argmax-invariant): the seed incident's 2x TPOT; drop {} unless that cost is what you "
             "measure",
             n.min_tokens, n.cap, n.min_tokens)});
  } else if (has(n.min_tokens)) {
    out.push_back(
        {"note",
         fmt::format("{} is sent: under vLLM speculative decoding it slows every step of the batch",
                     n.min_tokens)});
  }
  if (has("seed"))
    out.push_back(
        {"note",
         "a fixed seed is sent with every request: identical sampling for identical prompts"});
  if (!has("temperature"))
    out.push_back(
        {"note", "no temperature is sent: the server's default (its generation_config) applies"});
  if (has(n.cap) && has(n.other_cap)) {
    out.push_back(
        {"warning", fmt::format("both {} and {} are sent: servers differ in which one wins", n.cap,
                                n.other_cap)});
  } else if (!has(n.cap) && !has(n.other_cap)) {
    out.push_back({"note", std::string(n.missing_cap_note)});
  }
}

}  // namespace api_detail

}  // namespace tokbench::client
