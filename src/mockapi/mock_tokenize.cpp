#include "mockapi/mock_tokenize.hpp"

#include <simdjson.h>

#include "common/json_writer.hpp"
#include "mockapi/mock_response.hpp"

namespace tokbench::mock {

// vLLM's /tokenize ({"prompt"} or {"messages"}, optional add_special_tokens) and /detokenize.
TokenizeAnswer tokenize_answer(const tokenizer::Tokenizer* tok, const std::string& body,
                               bool encode) {
  if (!tok) {
    return {404,
            error_body("serve-mock has no tokenizer: start it with --tokenizer PATH for /tokenize",
                       "NotFoundError", 404)};
  }
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (parser.parse(body).get_object().get(o))
    return {400, error_body("body is not a JSON object", "BadRequestError", 400)};
  JsonWriter w;
  w.begin_object();
  if (encode) {
    std::string why;
    const bool chat = !o["messages"].error();
    auto parsed = parse_request(body, chat, &why);
    if (!parsed) return {400, error_body(why, "BadRequestError", 400)};
    bool add_special = !chat;
    if (bool b; !o["add_special_tokens"].get_bool().get(b)) add_special = b;
    const auto ids = tok->encode(parsed->rendered, add_special);
    w.field("count", static_cast<int64_t>(ids.size())).field("max_model_len", int64_t{1} << 20);
    w.key("tokens").begin_array();
    for (int32_t id : ids) w.value(static_cast<int64_t>(id));
    w.end_array();
  } else {
    simdjson::dom::array arr;
    if (o["tokens"].get_array().get(arr))
      return {400, error_body("\"tokens\" must be an array", "BadRequestError", 400)};
    std::vector<int32_t> ids;
    for (auto x : arr) ids.push_back(static_cast<int32_t>(x.get_int64().value_unsafe()));
    w.field("prompt", tok->decode(ids));
  }
  w.end_object();
  return {200, w.take()};
}

}  // namespace tokbench::mock
