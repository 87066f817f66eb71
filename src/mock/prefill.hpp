#pragma once
// mock/prefill: how long a request's prefill takes in the simulator — --ttft-ms (jittered), less
// what the prefix cache already holds of the prompt, plus each image's time and a stall fault's.
#include <cstdint>

#include "mockapi/mock_response.hpp"

namespace tokbench::tokenizer {
class Tokenizer;
}

namespace tokbench::mock {

/// What a prefill's duration depends on.
struct PrefillInputs {
  const MockSettings& s;
  PrefixCache* cache;               ///< nullptr: no prefix caching
  const tokenizer::Tokenizer* tok;  ///< nullptr: the simple counting rule
  const CompletionRequest& cr;
  bool chat;
  bool stall;  ///< the "stall" fault holds the first token
};
/// The prefill's duration: --ttft-ms (jittered), less the share of a prompt's leading blocks the
/// prefix cache already holds (`cached` set to their tokens), plus each image's and a stall's.
double prefill_ms(const PrefillInputs& in, StepModel& model, int64_t& cached);

}  // namespace tokbench::mock
