#include "mockapi/mock_response.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <random>
#include <stdexcept>

#include "common/json_writer.hpp"

namespace tokbench::mock {

std::vector<std::string> MockSettings::validate() const {
  std::vector<std::string> errs;
  auto check = [&](bool ok, std::string msg) {
    if (!ok) errs.push_back(std::move(msg));
  };
  check(ttft_ms >= 0, fmt::format("--ttft-ms: bad value {} (expected >= 0)", ttft_ms));
  check(devices.devices >= 0 && devices.devices <= 64,
        fmt::format("--devices: bad value {} (expected 0 to 64)", devices.devices));
  check(devices.idle_w >= 0 && devices.w_per_request >= 0 && devices.j_per_token >= 0,
        "--device-idle-w, --device-w-per-request, --device-j-per-token: the power model takes no "
        "negative value");
  check(devices.dialect == "dcgm" || devices.dialect == "npu",
        fmt::format("--telemetry-dialect: bad value '{}' (expected dcgm or npu)", devices.dialect));
  check(tpot_ms >= 0, fmt::format("--tpot-ms: bad value {} (expected >= 0)", tpot_ms));
  check(otlp_traces_endpoint.empty() || otlp_traces_endpoint.starts_with("http://"),
        fmt::format("--otlp-traces-endpoint: bad URL '{}' (expected an OTLP/HTTP receiver's "
                    "http:// URL, e.g. http://127.0.0.1:4318/v1/traces)",
                    otlp_traces_endpoint));
  check(jitter_ms >= 0, fmt::format("--jitter-ms: bad value {} (expected >= 0)", jitter_ms));
  check(tokens_per_chunk >= 1,
        fmt::format("--tokens-per-chunk: bad value {} (expected >= 1)", tokens_per_chunk));
  check(image_tokens >= 0,
        fmt::format("--image-tokens: bad value {} (expected >= 0)", image_tokens));
  check(image_prefill_ms >= 0,
        fmt::format("--image-prefill-ms: bad value {} (expected >= 0)", image_prefill_ms));
  check(embedding_dims >= 1 && embedding_dims <= 65536,
        fmt::format("--embedding-dims: bad value {} (expected 1 to 65536)", embedding_dims));
  check(eos_min_tokens >= 1 && eos_max_tokens >= eos_min_tokens,
        fmt::format(
            "--eos-min-tokens/--eos-max-tokens: bad range [{}, {}] (expected 1 <= min <= max)",
            eos_min_tokens, eos_max_tokens));
  check(default_max_tokens >= 1,
        fmt::format("--default-max-tokens: bad value {} (expected >= 1)", default_max_tokens));
  check(max_model_len >= 1,
        fmt::format("--max-model-len: bad value {} (expected >= 1)", max_model_len));
  check(threads >= 1, fmt::format("--threads: bad value {} (expected >= 1)", threads));
  check(fail_every >= 0, fmt::format("--fail-every: bad value {} (expected >= 0)", fail_every));
  check(drop_every >= 0, fmt::format("--drop-every: bad value {} (expected >= 0)", drop_every));
  check(fault_rate >= 0 && fault_rate <= 1,
        fmt::format("--fault-rate: bad value {} (expected a share in [0, 1])", fault_rate));
  check(fault_stall_ms >= 0,
        fmt::format("--fault-stall-ms: bad value {} (expected >= 0)", fault_stall_ms));
  try {
    if (parse_fault_kinds(fault_kinds).empty())
      errs.push_back("--fault-kinds: empty (name at least one kind)");
  } catch (const std::invalid_argument& e) {
    errs.push_back(e.what());
  }
  check(!model_name.empty(), "--model-name: must not be empty");
  check(block_size >= 1, fmt::format("--block-size: bad value {} (expected >= 1)", block_size));
  check(max_num_seqs >= 0,
        fmt::format("--max-num-seqs: bad value {} (expected >= 0; 0 = no limit)", max_num_seqs));
  check(batch_slowdown_ms >= 0,
        fmt::format("--batch-slowdown-ms: bad value {} (expected >= 0)", batch_slowdown_ms));
  check(spec_tokens >= 0 && spec_tokens <= 16,
        fmt::format("--spec-tokens: bad value {} (expected 0..16)", spec_tokens));
  check(spec_acceptance >= 0 && spec_acceptance <= 1,
        fmt::format("--spec-acceptance: bad value {} (expected a probability in [0, 1])",
                    spec_acceptance));
  check(
      min_tokens_step_penalty_ms >= 0 || min_tokens_step_penalty_ms == -1,
      fmt::format("--min-tokens-step-penalty-ms: bad value {} (expected >= 0, or -1 for --tpot-ms)",
                  min_tokens_step_penalty_ms));
  check(wrong_rate >= 0 && wrong_rate <= 1 && wrong_rate_per_running_request >= 0 &&
            wrong_rate_per_running_request <= 1,
        fmt::format(
            "--wrong-rate {} / --wrong-rate-per-running-request {}: expected shares in [0, 1]",
            wrong_rate, wrong_rate_per_running_request));
  check(answers.empty() || answers.starts_with("gsm8k:") || answers.starts_with("tools:"),
        fmt::format("--answers: bad value '{}' (expected gsm8k:PATH, a GSM8K jsonl file, or "
                    "tools:PATH, questions with their reference \"tool_call\")",
                    answers));
  check(tool_rounds >= 0 && tool_rounds <= 1000,
        fmt::format("--tool-rounds {}: expected 0 (off) to 1000", tool_rounds));
  check(schema_ttft_ms >= 0 && schema_tpot_ms >= 0,
        fmt::format("--schema-ttft-ms {} / --schema-tpot-ms {}: expected milliseconds >= 0",
                    schema_ttft_ms, schema_tpot_ms));
  check(json_invalid_rate >= 0 && json_invalid_rate <= 1,
        fmt::format("--json-invalid-rate {}: expected a share in [0, 1]", json_invalid_rate));
  check(reasoning_tokens >= 0,
        fmt::format("--reasoning-tokens {}: expected >= 0 (0 = no reasoning)", reasoning_tokens));
  check(tool_invalid_rate >= 0 && tool_invalid_rate <= 1 && tool_invalid_rate + wrong_rate <= 1,
        fmt::format("--tool-invalid-rate {}: expected a share in [0, 1], at most 1 with "
                    "--wrong-rate",
                    tool_invalid_rate));
  return errs;
}

namespace {

constexpr std::pair<std::string_view, Fault> kFaultNames[] = {
    {"500", Fault::Http500},
    {"429", Fault::Http429},
    {"reset-before-headers", Fault::ResetBeforeHeaders},
    {"reset-mid-stream", Fault::ResetMidStream},
    {"stall", Fault::Stall},
    {"malformed-sse", Fault::MalformedSse},
    {"no-done", Fault::NoDone},
};

}  // namespace

std::vector<Fault> parse_fault_kinds(const std::string& list) {
  std::vector<Fault> out;
  size_t i = 0;
  while (i <= list.size()) {
    size_t end = list.find(',', i);
    if (end == std::string::npos) end = list.size();
    const std::string_view name = std::string_view(list).substr(i, end - i);
    if (!name.empty()) {
      const auto it = std::find_if(std::begin(kFaultNames), std::end(kFaultNames),
                                   [&](const auto& f) { return f.first == name; });
      if (it == std::end(kFaultNames)) {
        throw std::invalid_argument(fmt::format(
            "--fault-kinds: unknown kind '{}' (expected 500, 429, reset-before-headers, "
            "reset-mid-stream, stall, malformed-sse or no-done)",
            name));
      }
      out.push_back(it->second);
    }
    i = end + 1;
  }
  return out;
}

Fault choose_fault(const MockSettings& s, uint64_t n) {
  if (s.fault_rate <= 0) return Fault::None;
  std::mt19937_64 rng(s.seed * 0x9E3779B97F4A7C15ULL + n);
  if (std::uniform_real_distribution<double>(0, 1)(rng) >= s.fault_rate) return Fault::None;
  const auto kinds = parse_fault_kinds(s.fault_kinds);
  return kinds[std::uniform_int_distribution<size_t>(0, kinds.size() - 1)(rng)];
}

Plan make_plan(const CompletionRequest& req, const MockSettings& s, uint64_t seq) {
  std::mt19937_64 rng(s.seed ^ (seq * 0x9E3779B97F4A7C15ULL));
  Plan p;
  const int64_t cap = req.max_tokens > 0 ? req.max_tokens : s.default_max_tokens;
  int64_t n = cap;
  p.finish_reason = "length";
  if (!req.ignore_eos) {
    std::uniform_int_distribution<int64_t> eos(s.eos_min_tokens, s.eos_max_tokens);
    const int64_t at = eos(rng);
    if (at < cap) {
      n = std::max<int64_t>(at, std::min(req.min_tokens, cap));
      if (n < cap) p.finish_reason = "stop";
    }
  }
  p.tokens = n;
  return p;
}

uint64_t text_unit(std::string_view rendered, size_t k) {
  uint64_t v = 0;
  for (size_t i = 4 * k; i < std::min(rendered.size(), 4 * k + 4); ++i)
    v = (v << 8) | static_cast<unsigned char>(rendered[i]);
  return v;
}

int64_t PrefixCache::insert(const std::vector<uint64_t>& hashes) {
  std::lock_guard lock(mu_);
  size_t hit = 0;
  while (hit < hashes.size() && blocks_.contains(hashes[hit])) ++hit;
  blocks_.insert(hashes.begin(), hashes.end());
  return static_cast<int64_t>(hit * static_cast<size_t>(block_size_));
}

StepModel::StepModel(const MockSettings& s, uint64_t seq)
    : s_(s), rng_(s.seed ^ (seq * 0x9E3779B97F4A7C15ULL) ^ 0x5eed) {}

double StepModel::ttft_ms() {
  const double j = s_.jitter_ms > 0
                       ? std::uniform_real_distribution<double>(-s_.jitter_ms, s_.jitter_ms)(rng_)
                       : 0.0;
  return std::max(0.0, s_.ttft_ms + j);
}

Step StepModel::next(const BatchState& batch) {
  Step st;
  const double j = s_.jitter_ms > 0
                       ? std::uniform_real_distribution<double>(-s_.jitter_ms, s_.jitter_ms)(rng_)
                       : 0.0;
  st.ms = s_.tpot_ms + j + s_.batch_slowdown_ms * std::max(0, batch.running - 1);
  if (s_.spec_tokens > 0) {
    // MTP / EAGLE: K drafts verified in one step; the first rejection discards the rest.
    st.drafted = s_.spec_tokens;
    std::bernoulli_distribution accept(s_.spec_acceptance);
    while (st.accepted < s_.spec_tokens && accept(rng_)) ++st.accepted;
    st.tokens = 1 + st.accepted;
    // vLLM's MinTokensLogitsProcessor is not argmax-invariant, so with spec decoding it runs on
    // every draft position, for the whole batch, while any request carries min_tokens.
    if (batch.running_min_tokens > 0)
      st.ms += s_.min_tokens_step_penalty_ms >= 0 ? s_.min_tokens_step_penalty_ms : s_.tpot_ms;
  }
  st.ms = std::max(0.0, st.ms);
  return st;
}

std::string_view token_text(uint64_t j) {
  static constexpr std::string_view kWords[] = {
      " the",     " model", " streams", " tokens", " quickly", " and",  " every",     " chunk",
      " arrives", " on",    " time",    " for",    " a",       " fair", " benchmark", " run"};
  if (j < std::size(kWords)) return kWords[j];
  // Past the first sentence, words in a seeded order rather than the sentence again: a loop of 16
  // words is what --check-answers calls runaway repetition, and a real model's text is not one.
  uint64_t x = j * 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return kWords[(x ^ (x >> 31)) % std::size(kWords)];
}

namespace {

void usage_object(JsonWriter& w, ChunkUsage u) {
  w.key("usage").begin_object();
  w.field("prompt_tokens", u.prompt);
  w.field("total_tokens", u.prompt + u.completion);
  w.field("completion_tokens", u.completion);
  if (u.cached >= 0)
    w.key("prompt_tokens_details").begin_object().field("cached_tokens", u.cached).end_object();
  w.end_object();
}

void header(JsonWriter& w, bool chat, bool stream, std::string_view id, std::string_view model,
            int64_t created) {
  w.begin_object();
  w.field("id", id);
  w.field("object",
          chat ? (stream ? "chat.completion.chunk" : "chat.completion") : "text_completion");
  w.field("created", created);
  w.field("model", model);
}

void finish_field(JsonWriter& w, std::string_view finish_reason) {
  w.key("finish_reason");
  if (finish_reason.empty()) {
    w.null();
  } else {
    w.value(finish_reason);
  }
  w.key("stop_reason")
      .null();  // vLLM sends it on every choice: null unless a stop string or token matched
}

}  // namespace

std::string stream_chunk(bool chat, std::string_view id, std::string_view model, int64_t created,
                         bool role, std::string_view text, std::string_view finish_reason,
                         const std::optional<ChunkUsage>& usage, int64_t index,
                         const ToolDelta* tool, std::string_view reasoning) {
  JsonWriter w;
  header(w, chat, true, id, model, created);
  w.key("choices").begin_array().begin_object();
  w.field("index", index);
  if (chat && tool && !role) {  // a tool call: arguments as text, the name on the first delta
    w.key("delta").begin_object().key("tool_calls").begin_array().begin_object().field("index", 0);
    if (!tool->name.empty()) w.field("id", tool->id).field("type", "function");
    w.key("function").begin_object();
    if (!tool->name.empty()) w.field("name", tool->name);
    w.field("arguments", text).end_object();
    w.end_object().end_array().end_object();
  } else if (chat) {
    w.key("delta").begin_object();
    if (role) w.field("role", "assistant");
    // vLLM's reasoning parsers' field; content only when there is some, or nothing else.
    if (!reasoning.empty()) w.field("reasoning_content", reasoning);
    if (!text.empty() || reasoning.empty()) w.field("content", text);
    w.end_object();
  } else {
    w.field("text", text);
  }
  w.key("logprobs").null();
  finish_field(w, finish_reason);
  w.end_object().end_array();
  if (usage) usage_object(w, *usage);
  w.end_object();
  return w.take();
}

std::string usage_chunk(bool chat, std::string_view id, std::string_view model, int64_t created,
                        ChunkUsage usage) {
  JsonWriter w;
  header(w, chat, true, id, model, created);
  w.key("choices").begin_array().end_array();
  usage_object(w, usage);
  w.end_object();
  return w.take();
}

std::string full_body(bool chat, std::string_view id, std::string_view model, int64_t created,
                      std::string_view text, std::string_view finish_reason,
                      const std::optional<ChunkUsage>& usage, int64_t n, std::string_view tool_name,
                      std::string_view reasoning) {
  JsonWriter w;
  header(w, chat, false, id, model, created);
  w.key("choices").begin_array();
  for (int64_t i = 0; i < n; ++i) {
    w.begin_object().field("index", i);
    if (chat && !tool_name.empty()) {
      w.key("message").begin_object().field("role", "assistant").key("content").null();
      w.key("tool_calls")
          .begin_array()
          .begin_object()
          .field("id", fmt::format("chatcmpl-tool-{}-{}", id, i));
      w.field("type", "function")
          .key("function")
          .begin_object()
          .field("name", tool_name)
          .field("arguments", text);
      w.end_object().end_object().end_array().end_object();
    } else if (chat) {
      w.key("message").begin_object().field("role", "assistant");
      if (!reasoning.empty()) w.field("reasoning_content", reasoning);
      w.field("content", text).end_object();
    } else {
      w.field("text", text);
    }
    w.key("logprobs").null();
    finish_field(w, finish_reason);
    w.end_object();
  }
  w.end_array();
  if (usage) usage_object(w, *usage);
  w.end_object();
  return w.take();
}

std::string error_body(std::string_view message, std::string_view type, int code) {
  JsonWriter w;
  w.begin_object().key("error").begin_object();
  w.field("message", message).field("type", type).key("param").null().field("code", code);
  w.end_object().end_object();
  return w.take();
}

std::string models_body(const MockSettings& s) {
  JsonWriter w;
  w.begin_object().field("object", "list").key("data").begin_array().begin_object();
  w.field("id", s.model_name).field("object", "model").field("owned_by", "tokbench");
  w.end_object();
  for (const auto& lora : s.lora_modules) {
    w.begin_object().field("id", lora).field("object", "model").field("owned_by", "tokbench");
    w.field("parent", s.model_name).end_object();
  }
  w.end_array().end_object();
  return w.take();
}

}  // namespace tokbench::mock
