#pragma once
// report/vllm_result: vllm_result.json, the file `vllm bench serve --save-result
// --save-detailed` writes, with the same keys and units (ms for the statistics, seconds for the
// per-request ttfts/itls), computed under vLLM's definitions, so scripts written for vLLM read a
// tokbench run unchanged. max_output_tokens_per_s is vLLM's peak: every chunk's time (first token
// plus the gaps) counted in one-second buckets from the earliest first token, the fullest bucket
// (chunks, not tokens, as vLLM counts them: under speculative decoding it reads below the mean).
// The per-request arrays are streamed through one temporary file each and joined at the end: memory
// stays flat however long the run.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "metrics/metrics.hpp"
#include "record/record.hpp"

namespace tokbench::report {

/// What the records cannot tell.
struct VllmResultFacts {
  std::string date;     ///< vLLM's "%Y%m%d-%H%M%S"
  std::string backend;  ///< "openai-chat" or "openai" (vLLM's names for the two endpoints)
  std::string model_id;
  std::string tokenizer_id;
  double request_rate = 0;  ///< 0 = vLLM's "inf" too (no pacing); written as "inf"
  double burstiness = 1;
  int max_concurrency = 1;
  /// The earliest first-token time (vLLM's definition) of a successful request, ns since the
  /// records' origin: where vLLM's one-second buckets of max_output_tokens_per_s begin. kNone:
  /// no request succeeded.
  int64_t first_token_ns = record::kNone;
};

class VllmResultWriter {
 public:
  /// Writes to `path` when finish() is called; the arrays go to temporary files beside it.
  VllmResultWriter(std::filesystem::path path, VllmResultFacts facts);
  ~VllmResultWriter();
  /// Every measured request, in the details file's order (warm-up and cut ones are skipped).
  void add(const record::RequestRecord& r);
  /// `vllm`: the run's records under vLLM's definitions (the same pass that made the tables).
  void finish(const metrics::MetricSet& vllm);

 private:
  struct Arrays;
  std::filesystem::path path_;
  VllmResultFacts facts_;
  std::unique_ptr<Arrays> arrays_;
  std::vector<int64_t>
      per_second_;  ///< tokens (chunks, as vLLM counts them) per second since first_token_ns
};

}  // namespace tokbench::report
