// mockapi/routes/registry: the one list of the APIs the simulator serves (generating ones, then
// one-shot ones), the mirror of client/api/registry.cpp. Adding an API is a file under
// mockapi/routes/ and a line here.
#include <array>

#include "mockapi/route.hpp"

namespace tokbench::mock {

// Each route's file defines its own.
const MockRoute& openai_chat_route();
const MockRoute& openai_completions_route();
const MockRoute& anthropic_messages_route();
const MockRoute& sglang_generate_route();
const MockRoute& openai_responses_route();
const MockRoute& tgi_generate_route();
const MockRoute& tgi_generate_body_route();
const MockRoute& ollama_chat_route();
const MockRoute& ollama_generate_route();
const MockRoute& mindie_infer_route();
const OneShotRoute& openai_embeddings_route();
const OneShotRoute& rerank_route();
const OneShotRoute& score_route();
const OneShotRoute& classify_route();
const OneShotRoute& pooling_route();

std::span<const MockRoute* const> all_routes() {
  // TGI's /generate before SGLang's: it claims only bodies with TGI's `inputs`.
  static const std::array<const MockRoute*, 10> routes{
      &openai_chat_route(),       &openai_completions_route(), &anthropic_messages_route(),
      &tgi_generate_body_route(), &sglang_generate_route(),    &openai_responses_route(),
      &tgi_generate_route(),      &ollama_chat_route(),        &ollama_generate_route(),
      &mindie_infer_route()};
  return routes;
}

const MockRoute* route_of(std::string_view path) {
  for (const MockRoute* r : all_routes())
    if (r->path() == path) return r;
  return nullptr;
}

const MockRoute* route_of(std::string_view path, const std::string& body) {
  const MockRoute* last = nullptr;
  for (const MockRoute* r : all_routes()) {
    if (r->path() != path) continue;
    if (r->claims(body)) return r;
    last = r;
  }
  return last;  // its refusal names what the body lacks
}

std::span<const OneShotRoute* const> all_one_shot_routes() {
  static const std::array<const OneShotRoute*, 5> routes{&openai_embeddings_route(),
                                                         &rerank_route(), &score_route(),
                                                         &classify_route(), &pooling_route()};
  return routes;
}

const OneShotRoute* one_shot_route_of(std::string_view path) {
  for (const OneShotRoute* r : all_one_shot_routes())
    if (r->serves(path)) return r;
  return nullptr;
}

}  // namespace tokbench::mock
