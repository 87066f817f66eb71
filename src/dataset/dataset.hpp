#pragma once
// dataset/: turns a dataset source into RequestSpecs — what to send, never how or when.
// Knows nothing about HTTP, time or tokens.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tokbench::dataset {

struct RequestSpec {
  std::string prompt;       ///< user message (chat) or prompt (completions)
  int64_t max_tokens = -1;  ///< per-item output cap; -1 = use the run's --max-tokens
};

struct Dataset {
  std::string kind;  ///< "qa", "gsm8k" or "builtin"
  std::string path;  ///< source file ("" for builtin)
  std::string abbr;  ///< file-name stem of outputs: <abbr>.csv, <abbr>_details.jsonl
  std::vector<RequestSpec> items;
};

/// Loads `qa:PATH` (JSON lines with "question", optional "answer", optional "max_tokens"),
/// `gsm8k:PATH` (GSM8K's test.jsonl as is; prompt = question, AISBench's perf template) or
/// `builtin` (a few embedded prompts, for a first run with no files). Throws std::runtime_error
/// naming the file and line, and the fix, on bad input.
Dataset load(std::string_view spec);

/// Returns the i-th request of a run that cycles through the dataset.
inline const RequestSpec& cycle(const Dataset& d, size_t i) { return d.items[i % d.items.size()]; }

}  // namespace tokbench::dataset
