#pragma once
// client/server_tokenizer: the server's own tokenizer through vLLM's POST /tokenize and
// /detokenize — to build exact-length prompts without a local tokenizer, and to measure how
// many tokens the server adds around a prompt (chat template, BOS). Set-up path, not measured.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dataset/dataset.hpp"
#include "net/http_get.hpp"

namespace tokbench::client {

struct ServerTokenizer {
  std::string root;  ///< scheme://host:port
  std::string model;
  std::vector<std::string> headers;
  std::string api_key;
  net::TlsSettings tls;
};

/// True when POST {root}/tokenize answers 200 for a plain prompt.
bool has_tokenize(const ServerTokenizer& s);

/// Token count the server gives `text` in the request's own form: chat -> {"messages": [user
/// text]} (template included), completions -> {"prompt": text} (BOS included). nullopt when
/// /tokenize is not there.
std::optional<int64_t> server_count(const ServerTokenizer& s, const std::string& text, bool chat);

/// The server's /tokenize + /detokenize as a dataset::TokenCodec. Throws naming the URL on errors.
std::unique_ptr<dataset::TokenCodec> server_codec(const ServerTokenizer& s);

}  // namespace tokbench::client
