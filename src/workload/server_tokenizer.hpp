#pragma once
// workload/server_tokenizer: the server's own tokenizer through its POST /tokenize and /detokenize
// — to build exact-length prompts without a local tokenizer, and to measure how many tokens the
// server adds around a prompt (chat template, BOS). Two dialects (core/engines): vLLM's (SGLang's
// too) and llama.cpp's, told apart by their answers or named with --engine. Set-up path, not
// measured. The workloads' (workload/codec) only.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engines.hpp"
#include "dataset/dataset.hpp"
#include "net/http_get.hpp"

namespace tokbench::runner {

struct ServerTokenizer {
  std::string root;  ///< scheme://host:port
  std::string model;
  std::vector<std::string> headers;
  std::string api_key;
  net::TlsSettings tls;
  /// The dialect its /tokenize speaks: found by has_tokenize(), or set beforehand from --engine
  /// (`named`), when only that dialect is tried.
  core::TokenizeDialect dialect = core::TokenizeDialect::None;
  bool named = false;
};

/// Whether the server tokenizes plain text, learning its dialect into `s.dialect`: vLLM's when
/// {"prompt"} is answered with a "count", else llama.cpp's when {"content"} is answered with
/// tokens (llama.cpp answers vLLM's body with 200 and no tokens). With `s.named`, only that
/// dialect is tried (none at all for an engine without one).
bool has_tokenize(ServerTokenizer& s);

/// Token count the server gives `text` in the request's own form: chat -> {"messages": [user
/// text]} (template included; llama.cpp's at /v1/chat/completions/input_tokens), completions ->
/// the prompt with its special tokens (BOS included). nullopt when the server cannot say. Needs
/// has_tokenize() first.
std::optional<int64_t> server_count(const ServerTokenizer& s, const std::string& text, bool chat);

/// The server's /tokenize + /detokenize as a dataset::TokenCodec. Throws naming the URL on errors.
std::unique_ptr<dataset::TokenCodec> server_codec(const ServerTokenizer& s);

}  // namespace tokbench::runner
