#pragma once
// mockapi/mock_tokenize: the simulator's vLLM-style POST /tokenize ({"prompt"} or {"messages"},
// optional add_special_tokens) and /detokenize ({"tokens"}), answered with --tokenizer's counts.
#include <string>

#include "tokenizer/tokenizer.hpp"

namespace tokbench::mock {

struct TokenizeAnswer {
  int status = 200;  ///< the HTTP status
  std::string body;  ///< vLLM's JSON answer, or an OpenAI-style error body
};

/// The answer to one /tokenize (`encode`) or /detokenize request; 404 without a tokenizer.
TokenizeAnswer tokenize_answer(const tokenizer::Tokenizer* tok, const std::string& body,
                               bool encode);

}  // namespace tokbench::mock
