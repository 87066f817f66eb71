// mockapi/routes/openai_responses: OpenAI's Responses API (/v1/responses) as OpenAI and vLLM shape
// it. In: model, input (a string, or messages whose content is a string or input_text and
// input_image parts), instructions, max_output_tokens, stream. Out, streamed: response.created,
// response.in_progress, output_item.added, content_part.added, one response.output_text.delta per
// write, the .done events that repeat the text, then response.completed (or response.incomplete
// when the output cap ended it) carrying the usage; every event has its sequence_number and there
// is no data: [DONE]. Not streamed: the response object.
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>

#include "common/json_writer.hpp"
#include "mockapi/route.hpp"

namespace tokbench::mock {

namespace {

// The function tools a Responses body offers ({"type": "function", "name", "parameters"}) and
// its tool_choice: "required" calls the first, {"type": "function", "name"} that one, "none" none.
bool responses_tools(simdjson::dom::object o, CompletionRequest& r, std::string* error) {
  simdjson::dom::array tools;
  if (!o["tools"].get_array().get(tools))
    for (auto t : tools) {
      std::string_view name;
      if (t["name"].get_string().get(name)) continue;  // not a function tool
      simdjson::dom::element params;
      core::Tool tool{std::string(name), {}, {}};
      if (!t["parameters"].get(params) && params.is_object())
        tool.parameters = simdjson::minify(params);
      r.tools.push_back(std::move(tool));
    }
  std::string_view choice, named;
  auto tc = o["tool_choice"];
  if (tc.error()) return true;
  if (!tc.get_string().get(choice)) {
    r.tool_choice_none = choice == "none";
    if (choice == "required") {
      if (r.tools.empty()) {
        *error = "tool_choice: required needs function tools";
        return false;
      }
      r.tool_name = r.tools.front().name;
    }
    return true;
  }
  if (tc["name"].get_string().get(named) ||
      std::none_of(r.tools.begin(), r.tools.end(),
                   [&](const core::Tool& t) { return t.name == named; })) {
    *error = "tool_choice: names no function of tools";
    return false;
  }
  r.tool_name = std::string(named);
  return true;
}

// Parses a Responses body into the simulator's request (rendered with the chat template).
std::optional<CompletionRequest> parse_responses_request(const std::string& body,
                                                         std::string* error) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (!body_object(parser, body, o, error)) return std::nullopt;
  CompletionRequest r;
  r.chat = true;
  if (!required_model(o, r, error)) return std::nullopt;
  r.stream = bool_field(o, "stream");
  r.include_usage = true;  // the terminal event's response carries usage
  r.max_tokens = int_field(o, "max_output_tokens");
  if (!o["max_output_tokens"].error() && r.max_tokens < 1) {
    *error = "max_output_tokens: an integer >= 1";
    return std::nullopt;
  }
  r.min_tokens = int_field(o, "min_tokens");
  r.ignore_eos = bool_field(o, "ignore_eos");
  r.rendered.reserve(body.size() +
                     64);  // never much longer than the JSON it came in: one allocation
  std::string_view instructions;
  if (!o["instructions"].get_string().get(instructions)) {
    r.prompt_tokens += count_prompt_tokens(instructions) + 1;
    open_turn(r.rendered, "system");
    r.rendered += instructions;
    close_turn(r.rendered);
  }
  simdjson::dom::element input;
  simdjson::dom::array items;
  if (o["input"].get(input)) {
    *error = "input: Field required (a string or a list of messages)";
    return std::nullopt;
  }
  if (input.is_string()) {
    open_turn(r.rendered, "user");
    count_content(input, r.prompt_tokens, r.rendered);
    close_turn(r.rendered);
    r.prompt_tokens += 1;
  } else if (!input.get_array().get(items) && items.size() > 0) {
    for (auto item : items) {
      std::string_view role, type;
      if (!item["type"].get_string().get(type) && type != "message") {
        *error = fmt::format("input: the simulator takes message items only, not '{}'", type);
        return std::nullopt;
      }
      constexpr TurnErrors kErrors{
          "input: each message needs a \"role\" and \"content\" (a string or input_text / "
          "input_image parts)",
          "input: an input_image needs a base64 data URL in image_url (the simulator fetches "
          "nothing)"};
      if (item["role"].get_string().get(role)) {
        *error = std::string(kErrors.content);
        return std::nullopt;
      }
      if (!add_turn(r, role, item["content"], kErrors, error)) return std::nullopt;
    }
  } else {
    *error = "input: a string or a non-empty list of messages";
    return std::nullopt;
  }
  if (!responses_tools(o, r, error)) return std::nullopt;
  simdjson::dom::element schema;  // text.format json_schema: a structured answer
  if (!o["text"]["format"]["schema"].get(schema) && schema.is_object())
    r.json_schema = simdjson::minify(schema);
  open_answer(r.rendered);
  return r;
}

// "completed", or "incomplete" when the output cap ended it.
std::string_view status_of(const Answer& a) {
  return a.finish == "length" ? "incomplete" : "completed";
}

std::string message_id(const Answer& a) { return fmt::format("msg_{}", a.id); }

void output_text_part(JsonWriter& w, std::string_view text) {
  w.begin_object()
      .field("type", "output_text")
      .field("text", text)
      .key("annotations")
      .begin_array()
      .end_array()
      .end_object();
}

std::string call_item_id(const Answer& a) { return fmt::format("fc_{}", a.id); }

// A function call (mockapi/mock_tools) as an output item: its arguments so far.
void call_item(JsonWriter& w, const Answer& a, bool done) {
  w.begin_object().field("id", call_item_id(a)).field("type", "function_call");
  w.field("status", done ? "completed" : "in_progress");
  w.field("call_id", fmt::format("call_{}", a.id)).field("name", a.cr.tool_name);
  w.field("arguments", done ? a.text : std::string_view()).end_object();
}

void message_item(JsonWriter& w, const Answer& a, bool done) {
  if (!a.cr.tool_name.empty()) {
    call_item(w, a, done);
    return;
  }
  w.begin_object()
      .field("id", message_id(a))
      .field("type", "message")
      .field("status", done ? "completed" : "in_progress");
  w.field("role", "assistant").key("content").begin_array();
  if (done) output_text_part(w, a.text);
  w.end_array().end_object();
}

// The response object: in progress (no output yet), or finished with its output and usage.
void response_object(JsonWriter& w, const Answer& a, bool done, bool usage) {
  w.begin_object().field("id", a.id).field("object", "response").field("created_at", a.created);
  w.field("status", done ? status_of(a) : "in_progress").field("model", a.cr.model);
  w.key("incomplete_details");
  if (done && status_of(a) == "incomplete") {
    w.begin_object().field("reason", "max_output_tokens").end_object();
  } else {
    w.null();
  }
  w.key("error").null();
  w.key("output").begin_array();
  if (done) message_item(w, a, true);
  w.end_array();
  w.key("usage");
  if (done && usage) {
    const int64_t cached = std::max<int64_t>(0, a.cached);
    w.begin_object().field("input_tokens", a.cr.prompt_tokens);
    w.key("input_tokens_details").begin_object().field("cached_tokens", cached).end_object();
    w.field("output_tokens", a.produced)
        .key("output_tokens_details")
        .begin_object()
        .field("reasoning_tokens", 0)
        .end_object();
    w.field("total_tokens", a.cr.prompt_tokens + a.produced).end_object();
  } else {
    w.null();
  }
  w.end_object();
}

class OpenAiResponsesRoute : public MockRoute {
 public:
  std::string_view path() const override { return "/v1/responses"; }
  std::optional<CompletionRequest> parse(const std::string& body, std::string_view,
                                         std::string* why) const override {
    return parse_responses_request(body, why);
  }
  std::string_view id_prefix() const override { return "resp_"; }
  bool keeps_text() const override { return true; }  // the .done events repeat the whole text

  void begin(const Answer& a, Events& ev) const override {
    for (const std::string_view type : {"response.created", "response.in_progress"}) {
      JsonWriter w;
      w.begin_object().field("type", type).field("sequence_number", ev.count()).key("response");
      response_object(w, a, false, false);
      ev.add(w.end_object().take(), 'R', 0, type);
    }
    JsonWriter item;
    item.begin_object()
        .field("type", "response.output_item.added")
        .field("sequence_number", ev.count())
        .field("output_index", 0);
    item.key("item");
    message_item(item, a, false);
    ev.add(item.end_object().take(), 'R', 0, "response.output_item.added");
    if (!a.cr.tool_name.empty()) return;  // a call has no content part
    JsonWriter part = located("response.content_part.added", a, ev);
    part.key("part");
    output_text_part(part, "");
    ev.add(part.end_object().take(), 'R', 0, "response.content_part.added");
  }

  void piece(const Answer& a, std::string_view piece, int tokens, bool, Events& ev) const override {
    if (piece.empty()) return;
    if (!a.cr.tool_name.empty()) {  // a call's arguments, piece by piece
      JsonWriter w;
      w.begin_object().field("type", "response.function_call_arguments.delta");
      w.field("sequence_number", ev.count()).field("item_id", call_item_id(a));
      w.field("output_index", 0).field("delta", piece).end_object();
      ev.add(w.take(), 'C', tokens, "response.function_call_arguments.delta");
      return;
    }
    JsonWriter w = located("response.output_text.delta", a, ev);
    w.field("delta", piece).key("logprobs").begin_array().end_array();
    ev.add(w.end_object().take(), 'C', tokens, "response.output_text.delta");
  }

  void end(const Answer& a, bool end_marker, Events& ev) const override {
    if (!a.cr.tool_name.empty()) {
      JsonWriter args;
      args.begin_object().field("type", "response.function_call_arguments.done");
      args.field("sequence_number", ev.count()).field("item_id", call_item_id(a));
      args.field("output_index", 0).field("arguments", a.text).end_object();
      ev.add(args.take(), 'F', 0, "response.function_call_arguments.done");
    } else {
      end_text(a, ev);
    }
    JsonWriter item;
    item.begin_object()
        .field("type", "response.output_item.done")
        .field("sequence_number", ev.count())
        .field("output_index", 0);
    item.key("item");
    message_item(item, a, true);
    ev.add(item.end_object().take(), 'F', 0, "response.output_item.done");
    if (!end_marker)
      return;  // the injected no-done fault: the stream stops without its terminal event
    const std::string type = fmt::format("response.{}", status_of(a));
    JsonWriter w;
    w.begin_object().field("type", type).field("sequence_number", ev.count()).key("response");
    response_object(w, a, true, a.cr.include_usage);
    ev.add(w.end_object().take(), 'D', 0, type);
  }

  std::string body(const Answer& a) const override {
    JsonWriter w;
    response_object(w, a, true, a.usage);
    return w.take();
  }

 private:
  // The .done events of a text answer, which repeat its text.
  static void end_text(const Answer& a, Events& ev) {
    JsonWriter text = located("response.output_text.done", a, ev);
    ev.add(text.field("text", a.text).end_object().take(), 'F', 0, "response.output_text.done");
    JsonWriter part = located("response.content_part.done", a, ev);
    part.key("part");
    output_text_part(part, a.text);
    ev.add(part.end_object().take(), 'F', 0, "response.content_part.done");
  }

  // An event about the one output text: its type, sequence number, item and indices (open object).
  static JsonWriter located(std::string_view type, const Answer& a, const Events& ev) {
    JsonWriter w;
    w.begin_object()
        .field("type", type)
        .field("sequence_number", ev.count())
        .field("item_id", message_id(a));
    w.field("output_index", 0).field("content_index", 0);
    return w;
  }
};

}  // namespace

const MockRoute& openai_responses_route() {
  static const OpenAiResponsesRoute route;
  return route;
}

}  // namespace tokbench::mock
