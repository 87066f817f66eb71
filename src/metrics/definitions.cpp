// metrics/definitions: the human-readable text of each definition set, for reports and result.json.
#include "metrics/metrics.hpp"

namespace tokbench::metrics {

std::vector<std::pair<std::string, std::string>> definition_texts(Definitions d) {
  if (d == Definitions::Evalscope) {
    return {
        {"set",
         "evalscope: EvalScope perf v1.10 benchmark_util.py (reference/evalscope_vllm_sglang.md "
         "section 1.4)"},
        {"TTFT", "first SSE event whose choices is non-empty (a role-only delta counts) - sent"},
        {"E2EL", "last data event, the usage-only chunk included - sent"},
        {"TPOT", "(E2EL - TTFT) / (output_tokens - 1); 0 for <= 1 token, zeros kept in the mean"},
        {"ITL", "gaps between consecutive events with choices (per chunk), pooled"},
        {"duration", "max(completion) - min(sent)"},
        {"percentiles", "sorted[int(n*p/100)] (lower nearest rank)"},
    };
  }
  if (d == Definitions::Vllm) {
    return {
        {"set",
         "vllm: vllm bench serve calculate_metrics (reference/evalscope_vllm_sglang.md section "
         "2.3)"},
        {"TTFT", "first SSE event whose choices is non-empty (a role-only delta counts) - sent"},
        {"E2EL", "last event with choices (usage chunk and [DONE] excluded) - sent"},
        {"TPOT", "(E2EL - TTFT) / (output_tokens - 1), requests with more than 1 token only"},
        {"ITL", "gaps between consecutive events with choices (per chunk), pooled"},
        {"duration", "first dispatch .. end of the run"},
        {"percentiles", "numpy linear interpolation"},
    };
  }
  if (d == Definitions::Sglang) {
    return {
        {"set",
         "sglang: SGLang bench_serving calculate_metrics (reference/evalscope_vllm_sglang.md "
         "section 3.3)"},
        {"TTFT", "first event with non-empty content or reasoning - sent"},
        {"E2EL", "[DONE] - sent (latency refreshed on every line)"},
        {"TPOT", "(E2EL - TTFT) / (output_tokens - 1), requests with more than 1 token only"},
        {"ITL", "gaps between consecutive text chunks (per chunk), pooled"},
        {"InputTokens", "the dataset's prompt length when known, else usage.prompt_tokens"},
        {"duration", "first dispatch .. end of the run"},
        {"percentiles", "numpy linear interpolation"},
    };
  }
  if (d == Definitions::Aisbench) {
    return {
        {"set",
         "aisbench: AISBench's DefaultPerfMetricCalculator as coded (reference/aisbench.md section "
         "3)"},
        {"time_points",
         "tp = [sent, every SSE data event including role, finish and usage chunks]; [DONE] not "
         "timed"},
        {"E2EL", "tp[-1] - tp[0]"},
        {"TTFT", "tp[1] - tp[0]: the first data event of any kind"},
        {"TPOT", "(E2EL - TTFT) / (output_tokens - 1); 0 for <= 1 token, and the zeros are kept"},
        {"ITL", "diff(tp[1:]) per chunk, zero gaps included; N = requests with any non-zero gap"},
        {"OutputTokenThroughput", "output_tokens / E2EL"},
        {"PrefillTokenThroughput", "input_tokens / TTFT (0 when TTFT is 0)"},
        {"Benchmark Duration", "max(tp[-1]) - min(tp[0]) over successful requests"},
        {"Concurrency", "sum(E2EL) / duration"},
        {"rounding",
         "per-request statistics rounded to 4 decimals in seconds (0.1 ms), then shown in ms; "
         "common metrics rounded to 4 decimals in their unit"},
        {"percentiles", "numpy linear interpolation"},
    };
  }
  return {
      {"set", "tokbench: the default definitions (docs/METRICS.md)"},
      {"E2EL", "done - sent; done is data: [DONE] (streaming) or the end of the body"},
      {"TTFT",
       "first_token - sent; first_token is the first chunk carrying generated text (role-only "
       "chunks do not count)"},
      {"TPOT",
       "(last_token - first_token) / (output_tokens - 1), over requests with more than 1 output "
       "token"},
      {"ITL",
       "per token: the gap before a chunk carrying k tokens counts as k equal gaps; extra tokens "
       "of the first chunk count 0; pooled"},
      {"choices",
       "n > 1: TTFT, TPOT and ITL per choice (each choice's own events, its share of usage); E2EL, "
       "OutputTokens and throughputs per request"},
      {"InputTokens", "usage.prompt_tokens, else the --tokenizer count of the prompt"},
      {"OutputTokens",
       "usage.completion_tokens, else the --tokenizer count of the generated text, else the number "
       "of text chunks"},
      {"OutputTokenThroughput", "output_tokens / E2EL, per request"},
      {"PrefillTokenThroughput", "input_tokens / TTFT, per request"},
      {"Benchmark Duration", "last done - first sent over successful requests"},
      {"Concurrency", "sum(E2EL) / duration (mean requests in flight)"},
      {"Max Concurrency",
       "the configured cap; Peak Concurrency is the most requests observed in flight at once"},
      {"percentiles", "numpy linear interpolation"},
  };
}

}  // namespace tokbench::metrics
