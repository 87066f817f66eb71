// mockapi/routes/openai_embeddings: /v1/embeddings as vLLM answers it — `input` is a string, a list
// of strings, a list of token ids, or a list of such lists (OpenAI's forms); one vector of
// --embedding-dims seeded floats per input, and usage (prompt and total tokens alike).
#include <simdjson.h>

#include <random>

#include "common/json_writer.hpp"
#include "mockapi/route.hpp"

namespace tokbench::mock {

bool read_inputs(simdjson::dom::object o, OneShotRequest& r, std::string* why) {
  std::string_view model, text;
  if (!o["model"].get_string().get(model)) r.model = std::string(model);
  simdjson::dom::element input;
  if (o["input"].get(input)) {
    *why = "\"input\" is required: a string, a list of strings, or token ids";
    return false;
  }
  auto bad = [&] {
    *why =
        "\"input\" must be a string, a list of strings, a list of token ids, or a list of such "
        "lists";
    return false;
  };
  if (!input.get_string().get(text)) {
    r.texts.emplace_back(text);
  } else if (input.is_array()) {
    simdjson::dom::array items = input.get_array();
    if (items.size() == 0) return bad();
    if (items.at(0).is_int64()) {  // one input as token ids
      r.token_id_tokens = static_cast<int64_t>(items.size());
      r.inputs = 1;
    } else {
      for (auto item : items) {
        simdjson::dom::array ids;
        if (!item.get_string().get(text)) {
          r.texts.emplace_back(text);
        } else if (!item.get_array().get(ids)) {
          r.token_id_tokens += static_cast<int64_t>(ids.size());
          ++r.inputs;
        } else {
          return bad();
        }
      }
    }
  } else {
    return bad();
  }
  r.inputs += static_cast<int64_t>(r.texts.size());
  return true;
}

namespace {

class EmbeddingsRoute : public OneShotRoute {
 public:
  std::string_view path() const override { return "/v1/embeddings"; }
  std::string_view id_prefix() const override { return "embd-"; }

  std::optional<OneShotRequest> parse(const std::string& body, std::string* why) const override {
    simdjson::dom::parser parser;
    simdjson::dom::object o;
    if (!body_object(parser, body, o, why)) return std::nullopt;
    OneShotRequest r;
    if (!read_inputs(o, r, why)) return std::nullopt;
    return r;
  }

  std::string body(const OneShotRequest& r, const OneShotAnswer& a) const override {
    std::mt19937_64 rng(a.seq);
    std::uniform_real_distribution<double> u(-1, 1);
    JsonWriter w;
    w.begin_object().field("id", a.id).field("object", "list").key("data").begin_array();
    for (int64_t i = 0; i < r.inputs; ++i) {
      w.begin_object().field("object", "embedding").field("index", i);
      w.key("embedding").begin_array();
      for (int d = 0; d < a.s.embedding_dims; ++d) w.value(u(rng));
      w.end_array().end_object();
    }
    w.end_array().field("model", r.model);
    w.key("usage").begin_object().field("prompt_tokens", a.prompt_tokens);
    w.field("total_tokens", a.prompt_tokens).end_object();
    w.end_object();
    return w.take();
  }
};

}  // namespace

const OneShotRoute& openai_embeddings_route() {
  static const EmbeddingsRoute route;
  return route;
}

}  // namespace tokbench::mock
