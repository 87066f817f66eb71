// client/api/registry: the one list of the APIs tokbench speaks. Adding an API is a file under
// client/api/ and a line here (and the simulator's route, mockapi/routes/registry.cpp).
#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "client/api.hpp"

namespace tokbench::client {

// Each API's file defines its own.
const ApiAdapter& openai_chat_api();
const ApiAdapter& openai_completions_api();
const ApiAdapter& openai_embeddings_api();
const ApiAdapter& anthropic_messages_api();
const ApiAdapter& sglang_generate_api();
const ApiAdapter& openai_responses_api();
const ApiAdapter& rerank_api();
const ApiAdapter& tgi_generate_api();
const ApiAdapter& ollama_chat_api();
const ApiAdapter& ollama_generate_api();
const ApiAdapter& mindie_infer_api();
const ApiAdapter& score_api();
const ApiAdapter& classify_api();
const ApiAdapter& pooling_api();

std::span<const ApiAdapter* const> all_apis() {
  // Matched in this order: "/chat/completions" before "/completions", Ollama's "/api/generate"
  // before SGLang's "/generate".
  static const std::array<const ApiAdapter*, 14> apis{
      &openai_chat_api(),       &openai_completions_api(),
      &openai_embeddings_api(), &anthropic_messages_api(),
      &ollama_generate_api(),   &sglang_generate_api(),
      &openai_responses_api(),  &rerank_api(),
      &tgi_generate_api(),      &ollama_chat_api(),
      &mindie_infer_api(),      &score_api(),
      &classify_api(),          &pooling_api()};
  return apis;
}

const ApiAdapter& default_api() { return openai_chat_api(); }

const ApiAdapter* find_api(std::string_view name) {
  for (const ApiAdapter* a : all_apis())
    if (a->name() == name) return a;
  return nullptr;
}

std::string api_names_described() {
  std::string out;
  for (const ApiAdapter* a : all_apis())
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", a->name(), a->title());
  return out;
}

std::string api_paths(bool ApiCaps::*cap) {
  std::string out;
  for (const ApiAdapter* a : all_apis())
    if (!cap || a->caps().*cap) out += fmt::format("{}{}", out.empty() ? "" : ", ", a->path());
  return out;
}

const ApiAdapter& api_named(std::string_view name) {
  if (const ApiAdapter* a = find_api(name)) return *a;
  throw std::invalid_argument(
      fmt::format("--endpoint: bad value '{}' (expected one of: {})", name, api_names_described()));
}

const ApiAdapter* api_of_path(std::string_view path) {
  while (path.size() > 1 && path.ends_with('/')) path.remove_suffix(1);
  for (const ApiAdapter* a : all_apis())
    if (path.ends_with(a->path_tail())) return a;
  return nullptr;
}

}  // namespace tokbench::client
