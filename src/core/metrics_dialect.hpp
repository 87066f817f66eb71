#pragma once
// core/metrics_dialect: how each serving engine names its Prometheus /metrics — one row per engine
// of core/engines that has such an exposition, keyed by the engine's name. probe/server_metrics
// reads a scrape through it; metrics/cross_check names the counters it compares. Knows no HTTP.
#include <span>
#include <string_view>

namespace tokbench::core {

/// The metric names of one serving engine's /metrics exposition ("" = that engine does not
/// expose it). Histograms are named without _bucket/_sum/_count; a token counter may be a
/// histogram's _sum (TGI counts tokens per request).
struct Dialect {
  const char* name;  ///< the engine's name in core/engines: "vllm", "llamacpp", ...
  const char* mark;  ///< a name prefix ("vllm:"), or a whole metric name only it has (MindIE's)
  const char* ttft;
  const char* itl;
  const char* itl_older;  ///< the ITL histogram's name in older versions
  const char* e2e;
  const char* queue;
  const char* generation_tokens;
  const char* prompt_tokens;
  const char* running;
  const char* waiting;
  const char* kv_usage;        ///< share of the KV cache in use, 0..1 (a gauge)
  const char* kv_usage_older;  ///< its name in older versions ("" = none)
  const char* preemptions;     ///< a counter ("" = not exposed by this engine)
  bool prompt_excludes_cache;  ///< its prompt-token counter leaves out prefix-cache hits
};

/// The dialects tokbench reads, one per engine that has a Prometheus /metrics.
std::span<const Dialect> all_dialects();
/// The dialect of the engine of that name (core/engines), or null when it has none.
const Dialect* dialect_named(std::string_view engine);

}  // namespace tokbench::core
