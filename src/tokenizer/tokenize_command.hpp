#pragma once
// tokenizer/tokenize_command: `tokbench tokenize` — stdin to ids (or ids to text), so a user can
// check the tokenizer against their own, and the tests can compare it with HF's.
#include <cstdio>
#include <string>

namespace tokbench::tokenizer {

struct TokenizeOptions {
  std::string tokenizer;           ///< model folder or tokenizer.json
  bool decode = false;             ///< ids in, text out
  bool count = false;              ///< print counts instead of ids
  bool jsonl = false;              ///< JSON lines in and out, in order
  bool no_special_tokens = false;  ///< add_special_tokens=False
};

/// Runs the command; returns the exit code. Throws std::runtime_error on bad input (naming the
/// line) or a tokenizer that cannot be loaded.
int run_tokenize(const TokenizeOptions& o, std::FILE* in, std::FILE* out);

}  // namespace tokbench::tokenizer
