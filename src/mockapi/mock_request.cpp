// mockapi/mock_request: the simulator reading a request — the body's fields (the model, the
// limits, the sampling flags), the chat messages with their content parts, images, tool calls and
// tool results, the tools offered and tool_choice, a response format — into a CompletionRequest,
// and the ChatML it renders them to (what the prefix cache and the token counts see). The answer
// itself is mockapi/mock_response's.
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <stdexcept>

#include "mockapi/mock_response.hpp"

namespace tokbench::mock {

int64_t count_prompt_tokens(std::string_view text) {
  return std::max<int64_t>(1, (static_cast<int64_t>(text.size()) + 3) / 4);
}

// A body read with SIMDJSON_PADDING spare (the server reserves it) is parsed in place: a 100 MB
// prompt is not copied once more.
bool body_object(simdjson::dom::parser& parser, const std::string& body, simdjson::dom::object& o,
                 std::string* error) {
  if (auto err = parser.parse(body).get_object().get(o)) {
    *error = fmt::format("request body is not a JSON object ({})", simdjson::error_message(err));
    return false;
  }
  return true;
}

bool required_model(simdjson::dom::object o, CompletionRequest& r, std::string* error) {
  std::string_view model;
  if (o["model"].get_string().get(model)) {
    *error = "model: Field required";
    return false;
  }
  r.model = std::string(model);
  return true;
}

bool add_turn(CompletionRequest& r, std::string_view role,
              simdjson::simdjson_result<simdjson::dom::element> content, const TurnErrors& errors,
              std::string* error) {
  simdjson::dom::element c;
  int64_t images = 0;
  open_turn(r.rendered, role);
  if (content.get(c) || !count_content(c, r.prompt_tokens, r.rendered, &images)) {
    *error = std::string(errors.content);
    return false;
  }
  if (images < 0) {
    *error = std::string(errors.image);
    return false;
  }
  r.images += images;
  close_turn(r.rendered);
  r.prompt_tokens += 1;  // the chat template's per-message overhead, roughly
  return true;
}

int64_t int_field(simdjson::dom::object o, std::string_view k, int64_t fallback) {
  int64_t v = fallback;
  if (o[k].get_int64().get(v)) return fallback;
  return v;
}

bool bool_field(simdjson::dom::object o, std::string_view k) {
  bool v = false;
  if (o[k].get_bool().get(v)) return false;
  return v;
}

namespace {

// An image_url part's URL as vLLM decodes it here: a base64 data URL of an image (the simulator
// fetches nothing, so http(s) URLs are refused too).
bool valid_image_url(std::string_view url) {
  const size_t comma = url.find(',');
  if (!url.starts_with("data:image/") || comma == std::string_view::npos ||
      !url.substr(0, comma).ends_with(";base64"))
    return false;
  const std::string_view b64 = url.substr(comma + 1);
  if (b64.empty() || b64.size() % 4 != 0) return false;
  for (size_t i = 0; i < b64.size(); ++i) {
    const char c = b64[i];
    const bool pad = c == '=' && i + 2 >= b64.size();
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && !pad) return false;
  }
  return true;
}

}  // namespace

bool count_content(simdjson::dom::element content, int64_t& tokens, std::string& text_out,
                   int64_t* images) {
  std::string_view s;
  if (!content.get_string().get(s)) {
    tokens += count_prompt_tokens(s);
    text_out += s;
    return true;
  }
  simdjson::dom::array parts;
  if (content.get_array().get(parts)) return false;
  for (auto part : parts) {
    std::string_view text, type, url;
    if (!part["text"].get_string().get(text) || !part.get_string().get(text)) {
      tokens += count_prompt_tokens(text);
      text_out += text;
    } else if (images && !part["type"].get_string().get(type) && type == "image_url") {
      if (*images < 0) continue;
      *images = part["image_url"]["url"].get_string().get(url) || !valid_image_url(url)
                    ? -1
                    : *images + 1;
    } else if (images && type == "input_image") {  // OpenAI Responses: {"image_url": "data:..."}
      if (*images < 0) continue;
      *images = part["image_url"].get_string().get(url) || !valid_image_url(url) ? -1 : *images + 1;
    } else if (images &&
               type ==
                   "image") {  // Anthropic: {"source": {"type": "base64", "media_type", "data"}}
      if (*images < 0) continue;
      std::string_view kind, media, data;
      const bool ok = !part["source"]["type"].get_string().get(kind) && kind == "base64" &&
                      !part["source"]["media_type"].get_string().get(media) &&
                      !part["source"]["data"].get_string().get(data) &&
                      valid_image_url(fmt::format("data:{};base64,{}", media, data));
      *images = ok ? *images + 1 : -1;
    }
  }
  return true;
}

namespace {

// A chat request's tools: a call when tool_choice demands one ("required" or a named function), as
// vLLM's guided path answers; sets r.tool_name. False with *error set when vLLM would refuse it.
bool parse_tool_choice(simdjson::dom::object o, CompletionRequest& r, std::string* error) {
  simdjson::dom::array tools;
  const bool has_tools = !o["tools"].get_array().get(tools) && tools.size() > 0;
  std::string_view choice, named;
  auto tc = o["tool_choice"];
  const bool required = !tc.error() && !tc.get_string().get(choice) && choice == "required";
  r.tool_choice_none = choice == "none";
  simdjson::dom::element
      schema;  // a structured answer: OpenAI's response_format, vLLM's guided_json
  if (!o["response_format"]["json_schema"]["schema"].get(schema) || !o["guided_json"].get(schema))
    if (schema.is_object()) r.json_schema = simdjson::minify(schema);
  if (has_tools)  // what the simulator's calls are made of (mockapi/mock_tools)
    for (auto t : tools) {
      std::string_view name;
      simdjson::dom::element params;
      if (t["function"]["name"].get_string().get(name)) continue;
      core::Tool tool{std::string(name), {}, {}};
      if (!t["function"]["parameters"].get(params) && params.is_object())
        tool.parameters = simdjson::minify(params);
      r.tools.push_back(std::move(tool));
    }
  const bool is_named =
      !tc.error() && tc.is_object() && !tc["function"]["name"].get_string().get(named);
  if ((required || is_named) && !has_tools) {
    *error = "When using `tool_choice`, `tools` must be set.";
    return false;
  }
  if (required) {
    std::string_view first;
    if (tools.at(0)["function"]["name"].get_string().get(first) || first.empty()) {
      *error = "each tool needs \"function\": {\"name\": ...}";
      return false;
    }
    r.tool_name = std::string(first);
  } else if (is_named) {
    bool listed = false;
    for (auto t : tools) {
      std::string_view name;
      listed |= !t["function"]["name"].get_string().get(name) && name == named;
    }
    if (!listed) {
      *error = fmt::format("Tool '{}' has not been passed in `tools`.", named);
      return false;
    }
    r.tool_name = std::string(named);
  }
  return true;
}

// An assistant message that called tools (OpenAI chat's history shape): its text, if any, and
// each call rendered as "<tool_call>NAME ARGUMENTS</tool_call>", counted by the simple rule.
bool add_tool_calls(CompletionRequest& r, simdjson::simdjson_result<simdjson::dom::element> content,
                    simdjson::dom::array calls, std::string* error) {
  open_turn(r.rendered, "assistant");
  simdjson::dom::element c;
  if (!content.get(c) && !c.is_null() && !count_content(c, r.prompt_tokens, r.rendered)) {
    *error = "an assistant message's \"content\" must be a string, text parts or null";
    return false;
  }
  for (auto call : calls) {
    std::string_view name, arguments;
    if (call["function"]["name"].get_string().get(name) ||
        call["function"]["arguments"].get_string().get(arguments)) {
      *error = "each tool call needs \"function\": {\"name\": ..., \"arguments\": \"...\"}";
      return false;
    }
    const size_t from = r.rendered.size();
    r.rendered.append("<tool_call>").append(name).append(" ").append(arguments);
    r.rendered.append("</tool_call>");
    r.prompt_tokens += count_prompt_tokens(std::string_view(r.rendered).substr(from));
  }
  close_turn(r.rendered);
  r.prompt_tokens += 1;
  ++r.tool_rounds;
  return true;
}

// A chat request's messages: their tokens by the simple rule, their images, the ChatML rendering.
bool parse_messages(simdjson::dom::object o, size_t body_size, CompletionRequest& r,
                    std::string* error) {
  simdjson::dom::array messages;
  if (o["messages"].get_array().get(messages) || messages.size() == 0) {
    *error = "\"messages\" must be a non-empty array";
    return false;
  }
  r.rendered.reserve(body_size + 64);  // never much longer than the JSON it came in: one allocation
  constexpr TurnErrors kErrors{"each message needs \"content\": a string or a list of text parts",
                               "Invalid image_url: the simulator takes base64 data URLs "
                               "(data:image/png;base64,...) and fetches nothing"};
  for (auto m : messages) {
    std::string_view role;
    const bool has_role = !m["role"].get_string().get(role);
    simdjson::dom::array calls;
    if (role == "assistant" && !m["tool_calls"].get_array().get(calls)) {  // an agent's round
      if (!add_tool_calls(r, m["content"], calls, error)) return false;
      continue;
    }
    if (role == "user") r.tool_rounds = 0;
    if (!add_turn(r, role, m["content"], kErrors, error))
      return false;  // a content error is named first
    if (!has_role) {
      *error = "each message needs a \"role\" string";
      return false;
    }
  }
  open_answer(r.rendered);
  return true;
}

}  // namespace

std::optional<CompletionRequest> parse_request(const std::string& body, bool chat,
                                               std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (!body_object(parser, body, o, error)) return std::nullopt;
  CompletionRequest r;
  r.chat = chat;
  std::string_view model;
  if (!o["model"].get_string().get(model)) r.model = std::string(model);
  r.stream = bool_field(o, "stream");
  simdjson::dom::object so;
  if (!o["stream_options"].get_object().get(so)) {
    r.include_usage = bool_field(so, "include_usage");
    r.continuous_usage = bool_field(so, "continuous_usage_stats");
  }
  // Validated as vLLM does (400): what a real server refuses, the simulator refuses too.
  if (auto so_any = o["stream_options"]; !so_any.error() && !so_any.is_null() && !r.stream) {
    *error = "stream_options can only be set when stream is true";
    return std::nullopt;
  }
  for (const char* k : {"max_tokens", "max_completion_tokens"}) {
    auto v = o[k];
    if (v.error() || v.is_null()) continue;
    int64_t n = 0;
    if (v.get_int64().get(n)) {
      *error = fmt::format("\"{}\" must be an integer", k);
      return std::nullopt;
    }
    if (n <= 0) {
      *error = fmt::format("\"{}\" must be at least 1, got {}", k, n);
      return std::nullopt;
    }
  }
  if (auto nv = o["n"];
      !nv.error() && !nv.is_null()) {  // choices per request (vLLM: an integer >= 1)
    if (nv.get_int64().get(r.n) || r.n < 1 || r.n > kMaxChoices) {
      *error = fmt::format("\"n\" must be an integer from 1 to {}", kMaxChoices);
      return std::nullopt;
    }
  }
  if (chat && !parse_tool_choice(o, r, error)) return std::nullopt;
  r.max_tokens = int_field(o, "max_completion_tokens");
  if (r.max_tokens < 0) r.max_tokens = int_field(o, "max_tokens");
  r.min_tokens = int_field(o, "min_tokens");
  // vLLM's SamplingParams checks (400): a min_tokens no cap allows is refused, not served.
  if (r.min_tokens < -1) {  // int_field's -1: absent
    *error = fmt::format("min_tokens must be greater than or equal to 0, got {}", r.min_tokens);
    return std::nullopt;
  }
  if (r.max_tokens > 0 && r.min_tokens > r.max_tokens) {
    *error = fmt::format("min_tokens must be less than or equal to max_tokens={}, got {}",
                         r.max_tokens, r.min_tokens);
    return std::nullopt;
  }
  r.ignore_eos = bool_field(o, "ignore_eos");
  if (auto pv = o["priority"]; !pv.error() && !pv.is_null() && pv.get_int64().get(r.priority)) {
    *error = "\"priority\" must be an integer";
    return std::nullopt;
  }
  if (chat) {
    if (!parse_messages(o, body.size(), r, error)) return std::nullopt;
  } else {
    simdjson::dom::element prompt;
    if (o["prompt"].get(prompt) || !count_content(prompt, r.prompt_tokens, r.rendered)) {
      *error = "\"prompt\" must be a string or a list of strings";
      return std::nullopt;
    }
  }
  return r;
}

void open_turn(std::string& rendered, std::string_view role) {
  rendered += "<|im_start|>";
  rendered += role;
  rendered += '\n';
}
void close_turn(std::string& rendered) { rendered += "<|im_end|>\n"; }
void open_answer(std::string& rendered) { rendered += "<|im_start|>assistant\n"; }

}  // namespace tokbench::mock
