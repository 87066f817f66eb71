// cli/tokenize_command: `tokbench tokenize` — a HuggingFace tokenizer.json on stdin (encode, count
// or decode).
#include "tokenizer/tokenize_command.hpp"

#include <memory>

#include "cli/commands.hpp"

namespace tokbench::cli {

void add_tokenize(CLI::App& app, std::function<int()>& action) {
  auto a = std::make_shared<tokenizer::TokenizeOptions>();
  auto* cmd = app.add_subcommand("tokenize",
                                 "encode stdin with a HuggingFace tokenizer.json (or decode ids)");
  cmd->add_option("--tokenizer", a->tokenizer, "model folder or tokenizer.json")->required();
  cmd->add_flag("--decode", a->decode,
                "read ids (whitespace-separated, or {\"ids\": [...]} lines) and print text");
  cmd->add_flag("--count", a->count, "print only the number of tokens");
  cmd->add_flag("--jsonl", a->jsonl,
                "one {\"text\": ...} object per input line, one {\"ids\": [...]} per output line");
  cmd->add_flag("--no-special-tokens", a->no_special_tokens,
                "do not add BOS/EOS (HF add_special_tokens=False)");
  cmd->callback(
      [&action, a] { action = [a] { return tokenizer::run_tokenize(*a, stdin, stdout); }; });
}

}  // namespace tokbench::cli
