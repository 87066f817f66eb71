#include "workload/codec.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/engines.hpp"
#include "net/http_get.hpp"

namespace tokbench::runner {

ServerTokenizer server_tokenizer(const WorkloadInput& in) {
  ServerTokenizer st{net::root_url_for(in.url), in.target.model, in.target.headers,
                     in.target.api_key, in.tls};
  if (const core::Engine* e = core::engine_named(in.target.engine)) {  // --engine: its dialect only
    st.dialect = e->tokenize;
    st.named = true;
  }
  return st;
}

std::unique_ptr<dataset::TokenCodec> make_codec(const ServerTokenizer& st, bool server_has,
                                                const tokenizer::Tokenizer* tok,
                                                std::string_view why) {
  if (tok) return dataset::local_codec(*tok);
  if (server_has) return server_codec(st);
  if (st.named && st.dialect == core::TokenizeDialect::None)
    throw std::invalid_argument(fmt::format(
        "{}, and --engine names an engine whose /tokenize tokbench cannot build prompts with: "
        "pass --tokenizer PATH (the model folder holding tokenizer.json)",
        why));
  throw std::invalid_argument(
      fmt::format("{}, and {} has no /tokenize that tokbench reads (vLLM's or llama.cpp's): pass "
                  "--tokenizer PATH (the model folder holding tokenizer.json)",
                  why, st.root));
}

int64_t server_added_tokens(const ServerTokenizer& st, bool server_has, dataset::TokenCodec& codec,
                            bool chat, std::string* how) {
  constexpr const char* kProbe = "The quick brown fox jumps over the lazy dog.";
  const auto local = static_cast<int64_t>(codec.encode(kProbe).size());
  if (auto server = server_has ? server_count(st, kProbe, chat) : std::nullopt) {
    *how = fmt::format("measured with {}{} and subtracted", st.root,
                       st.dialect == core::TokenizeDialect::Llamacpp && chat
                           ? "/v1/chat/completions/input_tokens (llama.cpp's)"
                           : "/tokenize");
    return *server - local;
  }
  *how =
      "unknown: the server has no /tokenize, so usage.prompt_tokens also counts its chat template "
      "and BOS";
  return 0;
}

}  // namespace tokbench::runner
