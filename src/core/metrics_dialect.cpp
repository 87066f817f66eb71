#include "core/metrics_dialect.hpp"

namespace tokbench::core {

namespace {

// Each engine's names, as its source or docs define them (docs/COMPATIBILITY.md): SGLang's ITL
// histogram was time_per_output_token before inter_token_latency and its queue histogram is
// newer; llama.cpp has counters and gauges only (tools/server/server.cpp, handle_metrics), its
// prompt counter without cache hits; TGI counts tokens in per-request histograms and has no TTFT
// (docs/source/reference/metrics.md); LMDeploy copies vLLM's names under its prefix
// (lmdeploy/common/stats.py); TensorRT-LLM's, as Dynamo passes them through, under "trtllm:";
// MindIE's are vLLM's without a prefix (its "服务监控指标查询接口(普罗格式)").
constexpr Dialect kDialects[] = {
    {"vllm", "vllm:", "vllm:time_to_first_token_seconds", "vllm:inter_token_latency_seconds",
     "vllm:time_per_output_token_seconds", "vllm:e2e_request_latency_seconds",
     "vllm:request_queue_time_seconds", "vllm:generation_tokens_total", "vllm:prompt_tokens_total",
     "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
     "vllm:gpu_cache_usage_perc", "vllm:num_preemptions_total", false},
    {"sglang", "sglang:", "sglang:time_to_first_token_seconds",
     "sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds",
     "sglang:e2e_request_latency_seconds", "sglang:queue_time_seconds",
     "sglang:generation_tokens_total", "sglang:prompt_tokens_total", "sglang:num_running_reqs",
     "sglang:num_queue_reqs", "sglang:token_usage", "", "", false},
    {"llamacpp", "llamacpp:", "", "", "", "", "", "llamacpp:tokens_predicted_total",
     "llamacpp:prompt_tokens_total", "llamacpp:requests_processing", "llamacpp:requests_deferred",
     "llamacpp:kv_cache_usage_ratio", "", "", true},
    {"tgi", "tgi_", "", "tgi_request_mean_time_per_token_duration", "", "tgi_request_duration",
     "tgi_request_queue_duration", "tgi_request_generated_tokens_sum",
     "tgi_request_input_length_sum", "tgi_batch_current_size", "tgi_queue_size", "", "", "", false},
    {"lmdeploy", "lmdeploy:", "lmdeploy:time_to_first_token_seconds", "",
     "lmdeploy:time_per_output_token_seconds", "lmdeploy:e2e_request_latency_seconds",
     "lmdeploy:request_queue_time_seconds", "lmdeploy:generation_tokens_total",
     "lmdeploy:prompt_tokens_total", "lmdeploy:num_requests_running",
     "lmdeploy:num_requests_waiting", "lmdeploy:gpu_cache_usage_perc", "", "", false},
    {"trtllm", "trtllm:", "trtllm:time_to_first_token_seconds", "",
     "trtllm:time_per_output_token_seconds", "trtllm:e2e_request_latency_seconds",
     "trtllm:request_queue_time_seconds", "", "", "", "", "", "", "", false},
    {"mindie", "request_received_total", "time_to_first_token_seconds", "",
     "time_per_output_token_seconds", "e2e_request_latency_seconds", "", "generation_tokens_total",
     "prompt_tokens_total", "num_requests_running", "num_requests_waiting", "npu_cache_usage_perc",
     "", "num_preemptions_total", false},
};

}  // namespace

std::span<const Dialect> all_dialects() { return kDialects; }

const Dialect* dialect_named(std::string_view engine) {
  for (const auto& d : kDialects)
    if (engine == d.name) return &d;
  return nullptr;
}

}  // namespace tokbench::core
