// cli/serve_mock_command: `tokbench serve-mock` — the built-in simulator's options, bound to
// mock::MockSettings; serves until SIGINT or SIGTERM.
#include <fmt/format.h>
#include <signal.h>

#include <memory>

#include "cli/commands.hpp"
#include "mock/mock_server.hpp"

namespace tokbench::cli {

namespace {

// --answers: the simulator as the truth of --check-answers (mockapi/mock_answers).
void add_answer_flags(CLI::App* cmd, mock::MockSettings& s) {
  cmd->add_option(
      "--answers", s.answers,
      "gsm8k:PATH: answer that file's questions \" The answer is #### N.\" with N right or, for a "
      "seeded share, wrong (exactly ceil(rate x questions) of them at a fixed rate); /metrics "
      "counts them (tokbench_mock_answers_total). tools:PATH: answer a qa file's questions with "
      "their \"tool_call\" (right, or for seeded shares wrong or invalid; "
      "tokbench_mock_tool_calls_total)");
  cmd->add_option("--wrong-rate", s.wrong_rate,
                  "--answers: share of questions answered wrong with nothing else running")
      ->capture_default_str();
  cmd->add_option("--json-invalid-rate", s.json_invalid_rate,
                  "share of answers held to a JSON Schema (response_format) made not JSON")
      ->capture_default_str();
  cmd->add_option("--schema-ttft-ms", s.schema_ttft_ms,
                  "extra time to the first token of an answer held to a JSON Schema (the grammar "
                  "compiled)")
      ->capture_default_str();
  cmd->add_option("--schema-tpot-ms", s.schema_tpot_ms,
                  "extra time of each decode step of an answer held to a JSON Schema (its token "
                  "mask)")
      ->capture_default_str();
  cmd->add_option("--tool-rounds", s.tool_rounds,
                  "an agent's model: a chat request offering tools gets a call (of each tool in "
                  "turn) until its conversation holds N rounds of calls, then a text answer")
      ->capture_default_str();
  cmd->add_option("--reasoning-tokens", s.reasoning_tokens,
                  "the first N tokens of every chat answer are reasoning (delta.reasoning_content, "
                  "as vLLM's reasoning parsers send it), then the answer")
      ->capture_default_str();
  cmd->add_option("--tool-invalid-rate", s.tool_invalid_rate,
                  "share of tool calls made invalid: every other one not JSON, the rest missing "
                  "a required argument (docs/METRICS.md, \"The simulator's tool calls\")")
      ->capture_default_str();
  cmd->add_option("--wrong-rate-per-running-request", s.wrong_rate_per_running_request,
                  "--answers: added to --wrong-rate per other request running when one is admitted "
                  "(quality that falls "
                  "with the batch)")
      ->capture_default_str();
}

}  // namespace

void add_serve_mock(CLI::App& app, std::function<int()>& action) {
  auto s = std::make_shared<mock::MockSettings>();
  auto* cmd = app.add_subcommand("serve-mock", "run the built-in OpenAI-compatible simulator");
  cmd->add_option("--host", s->host, "address to listen on")->capture_default_str();
  cmd->add_option("--port", s->port, "port; 0 = any free port")->capture_default_str();
  cmd->add_option("--model-name", s->model_name, "the model id it serves")->capture_default_str();
  cmd->add_option("--image-tokens", s->image_tokens,
                  "prompt tokens each image_url part adds to usage")
      ->capture_default_str();
  cmd->add_option("--image-prefill-ms", s->image_prefill_ms, "prefill time each image adds")
      ->capture_default_str();
  cmd->add_option("--embedding-dims", s->embedding_dims, "/v1/embeddings: floats per vector")
      ->capture_default_str();
  cmd->add_option("--lora-modules", s->lora_modules,
                  "LoRA adapter names it also serves (listed in /v1/models): NAME[,NAME...]")
      ->delimiter(',');
  cmd->add_option("--ttft-ms", s->ttft_ms, "time to first token")->capture_default_str();
  cmd->add_option("--tpot-ms", s->tpot_ms, "time between tokens")->capture_default_str();
  cmd->add_option("--jitter-ms", s->jitter_ms, "seeded uniform jitter on TTFT and every gap")
      ->capture_default_str();
  cmd->add_option("--tokens-per-chunk", s->tokens_per_chunk,
                  "tokens per content chunk after the first")
      ->capture_default_str();
  cmd->add_option("--eos-min-tokens", s->eos_min_tokens, "shortest output without ignore_eos")
      ->capture_default_str();
  cmd->add_option("--eos-max-tokens", s->eos_max_tokens, "longest output without ignore_eos")
      ->capture_default_str();
  cmd->add_option("--max-model-len", s->max_model_len,
                  "context length: a request whose prompt plus max_tokens passes it gets HTTP 400, "
                  "as vLLM answers")
      ->capture_default_str();
  cmd->add_option("--default-max-tokens", s->default_max_tokens,
                  "output cap when a request sets none")
      ->capture_default_str();
  cmd->add_option("--seed", s->seed, "seed of lengths and jitter")->capture_default_str();
  cmd->add_option("--trace", s->trace_path,
                  "write per request its arrival (kernel receive, read, admission), first token "
                  "and every write time here (JSON lines)");
  cmd->add_option("--otlp-traces-endpoint", s->otlp_traces_endpoint,
                  "send each finished completion's llm_request span (its true queue, prefill and "
                  "decode times, parented to the request's traceparent) to this OTLP/HTTP URL, "
                  "e.g. http://127.0.0.1:4318/v1/traces, as vLLM's flag does");
  cmd->add_option("--threads", s->threads, "server threads")->capture_default_str();
  cmd->add_option("--fail-every", s->fail_every,
                  "answer every N-th completion with HTTP 500; 0 = never")
      ->capture_default_str();
  cmd->add_option("--drop-every", s->drop_every, "cut every N-th stream mid-way; 0 = never")
      ->capture_default_str();
  cmd->add_option("--fault-rate", s->fault_rate,
                  "share of completion requests that get an injected fault (seeded)")
      ->capture_default_str();
  cmd->add_option("--fault-kinds", s->fault_kinds,
                  "faults to draw from: 500, 429 (with Retry-After), reset-before-headers, "
                  "reset-mid-stream, stall, "
                  "malformed-sse, no-done")
      ->capture_default_str();
  cmd->add_option("--fault-stall-ms", s->fault_stall_ms, "how long a 'stall' holds the first token")
      ->capture_default_str();
  cmd->add_option(
      "--tokenizer", s->tokenizer_path,
      "model folder or tokenizer.json: exact prompt token counts, /tokenize and /detokenize");
  cmd->add_flag("--no-usage", s->no_usage, "never send usage (like servers that do not report it)");
  add_answer_flags(cmd, *s);
  cmd->add_option("--log-interval-s", s->log_interval_s,
                  "print vLLM-style throughput/SpecDecoding lines to stderr; 0 = off")
      ->capture_default_str();
  cmd->add_flag("--enable-prefix-caching", s->prefix_caching,
                "leading prompt blocks seen before skip their prefill; usage reports "
                "prompt_tokens_details.cached_tokens");
  cmd->add_option("--block-size", s->block_size, "prefix-cache block, in tokens")
      ->capture_default_str();
  cmd->add_option("--max-num-seqs", s->max_num_seqs,
                  "running requests at most; the rest queue (--scheduling-policy); 0 = no limit")
      ->capture_default_str();
  static const std::map<std::string, mock::SchedulingPolicy> kPolicies{
      {"fcfs", mock::SchedulingPolicy::Fcfs},
      {"priority", mock::SchedulingPolicy::Priority},
      {"fair", mock::SchedulingPolicy::Fair}};
  cmd->add_option("--scheduling-policy", s->scheduling_policy,
                  "who gets a free place in the batch: fcfs (arrival order, vLLM's default); "
                  "priority (the body's \"priority\", lower first, as vLLM's: a better waiter "
                  "preempts the worst running request when the batch is full; without it a "
                  "priority is refused, as vLLM does); fair (the tenant of "
                  "x-gateway-inference-fairness-id served the fewest tokens first)")
      ->transform(CLI::CheckedTransformer(kPolicies, CLI::ignore_case))
      ->default_str("fcfs");
  cmd->add_option("--batch-slowdown-ms", s->batch_slowdown_ms,
                  "extra step time per running request beyond the first")
      ->capture_default_str();
  cmd->add_option("--spec-tokens", s->spec_tokens,
                  "speculative decoding (MTP): draft tokens per step; 0 = off")
      ->capture_default_str();
  cmd->add_option("--spec-acceptance", s->spec_acceptance,
                  "probability each draft token is accepted")
      ->capture_default_str();
  cmd->add_option("--min-tokens-step-penalty-ms", s->min_tokens_step_penalty_ms,
                  "extra step time for the whole batch while a request with min_tokens runs under "
                  "spec decoding; "
                  "-1 = --tpot-ms (doubles each step, the seed's ~2x)")
      ->capture_default_str();
  cmd->add_option("--devices", s->devices.devices,
                  "serve N accelerators' telemetry at /device-metrics (for tokbench run "
                  "--telemetry) from the power model "
                  "below; 0 = none")
      ->capture_default_str();
  cmd->add_option("--device-idle-w", s->devices.idle_w,
                  "power model: W per device with nothing running")
      ->capture_default_str();
  cmd->add_option("--device-w-per-request", s->devices.w_per_request,
                  "power model: W per running request (all devices)")
      ->capture_default_str();
  cmd->add_option("--device-j-per-token", s->devices.j_per_token,
                  "power model: J per generated token (all devices)")
      ->capture_default_str();
  cmd->add_option("--telemetry-dialect", s->devices.dialect,
                  "names of /device-metrics: dcgm (dcgm-exporter: power and an energy counter) or "
                  "npu (npu-exporter: power only)")
      ->capture_default_str();
  cmd->callback([&action, s] {
    action = [s] {
      if (auto errs = s->validate(); !errs.empty()) {
        std::string all;
        for (const auto& e : errs) all += (all.empty() ? "" : "\n") + e;
        throw std::invalid_argument(all);
      }
      // Block the stop signals before any thread starts, then wait for one here.
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, SIGINT);
      sigaddset(&set, SIGTERM);
      pthread_sigmask(SIG_BLOCK, &set, nullptr);
      mock::MockServer server(*s);
      const uint16_t port = server.start();
      const bool v6 = s->host.find(':') != std::string::npos;
      fmt::print(
          "tokbench serve-mock: listening on http://{}{}{}:{} (model {}, ttft {} ms, tpot {} ms)\n",
          v6 ? "[" : "", s->host, v6 ? "]" : "", port, s->model_name, s->ttft_ms, s->tpot_ms);
      std::fflush(stdout);
      int sig = 0;
      sigwait(&set, &sig);
      server.stop();
      fmt::print("tokbench serve-mock: stopped after {} completion request(s)\n",
                 server.completions_served());
      return 0;
    };
  });
}

}  // namespace tokbench::cli
