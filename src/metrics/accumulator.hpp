#pragma once
// metrics/accumulator (internal to metrics/): what every definition set's accumulator shares — the
// base class, its rows and totals, the Common Metric table — so tokbench's own definitions
// (metrics.cpp) and the other tools' (peer_definitions.cpp) live in files of their own.
#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/format.hpp"
#include "common/samples.hpp"
#include "metrics/metrics.hpp"

namespace tokbench::metrics::detail {

using record::RequestRecord;

constexpr double kNsPerMs = 1e6;
constexpr double kNsPerS = 1e9;

inline Row make_row(std::string name, Unit unit, Samples& values, std::string na_if_empty,
                    PercentileMethod pct = PercentileMethod::Linear) {
  Row row{std::move(name), unit, std::nullopt, {}, {}};
  if (values.empty()) {
    row.na_reason = std::move(na_if_empty);
  } else {
    row.stats = values.summarize(pct);
  }
  return row;
}

inline Row na_row(std::string name, Unit unit, std::string reason) {
  return Row{std::move(name), unit, std::nullopt, std::move(reason), {}};
}

// Saturating: token counts come from the server, and a bogus one must not overflow (UB) the sum.
inline int64_t add_tokens(int64_t a, int64_t b) {
  int64_t out = 0;
  return __builtin_add_overflow(a, b, &out) ? INT64_MAX : out;
}

struct Totals {
  int64_t total = 0, success = 0;
  double duration_ns = 0, sum_e2el_ns = 0;
  int64_t input_tokens = 0, output_tokens = 0;
  int64_t input_known = 0;  ///< successful requests whose input tokens were known
  int64_t documents = 0;    ///< documents the successful requests ranked (rerank)
};

inline void add_common(MetricSet& m, const Totals& t, const RunFacts& facts, bool round4) {
  const double dur_s = t.duration_ns / kNsPerS;
  auto per_s = [&](double x) { return dur_s > 0 ? x / dur_s : 0.0; };
  auto r = [&](double x) { return round4 ? round_to(x, 4) : x; };
  m.common = {
      {"Benchmark Duration", "benchmark_duration", r(dur_s * 1000), Unit::Ms},
      {"Total Requests", "total_requests", static_cast<double>(t.total), Unit::Requests},
      {"Failed Requests", "failed_requests", static_cast<double>(t.total - t.success),
       Unit::Requests},
      {"Success Requests", "success_requests", static_cast<double>(t.success), Unit::Requests},
      {"Concurrency", "concurrency", r(t.duration_ns > 0 ? t.sum_e2el_ns / t.duration_ns : 0.0),
       Unit::None},
      {"Max Concurrency", "max_concurrency", static_cast<double>(facts.max_concurrency),
       Unit::None},
      {"Peak Concurrency", "peak_concurrency", 0,
       Unit::None},  // observed; set once the peak is known
      {"Request Throughput", "request_throughput", r(per_s(static_cast<double>(t.success))),
       Unit::ReqPerS},
      {"Document Throughput", "document_throughput", r(per_s(static_cast<double>(t.documents))),
       Unit::DocsPerS},
      {"Total Input Tokens", "total_input_tokens", static_cast<double>(t.input_tokens),
       Unit::Tokens},
      {"Total Generated Tokens", "total_generated_tokens", static_cast<double>(t.output_tokens),
       Unit::Tokens},
      {"Input Token Throughput", "input_token_throughput",
       r(per_s(static_cast<double>(t.input_tokens))), Unit::TokensPerS},
      {"Output Token Throughput", "output_token_throughput",
       r(per_s(static_cast<double>(t.output_tokens))), Unit::TokensPerS},
      {"Total Token Throughput", "total_token_throughput",
       r(per_s(static_cast<double>(add_tokens(t.input_tokens, t.output_tokens)))),
       Unit::TokensPerS},
  };
  if (t.documents == 0)  // only a run that ranked documents has a document throughput
    std::erase_if(m.common, [](const Common& c) { return c.key == "document_throughput"; });
  if (facts.one_shot) {  // nothing is generated: no output token counts to show, not 0
    for (auto& c : m.common)
      if (c.key == "total_generated_tokens" || c.key == "output_token_throughput") c.known = false;
  }
  if (t.success > 0 && t.input_known == 0) {  // no request told its input tokens: unknown, not 0
    for (auto& c : m.common)
      if (c.key == "total_input_tokens" || c.key == "input_token_throughput" ||
          c.key == "total_token_throughput")
        c.known = false;
  }
}

// One definition set, fed one measured record at a time.
class Accumulator {
 public:
  virtual ~Accumulator() = default;
  virtual void add(const RequestRecord& r) = 0;
  virtual MetricSet finish() = 0;
  /// Every column with the percentile method it will be summarized with (for precompute()).
  virtual void columns(std::vector<std::pair<Samples*, PercentileMethod>>& out) = 0;
};

inline void add_columns(std::vector<std::pair<Samples*, PercentileMethod>>& out, PercentileMethod m,
                        std::initializer_list<Samples*> cols) {
  for (Samples* s : cols) out.emplace_back(s, m);
}

/// AISBench's summarizer (peer_definitions.cpp).
std::unique_ptr<Accumulator> make_aisbench_accumulator(const RunFacts& facts, bool side_only);
/// EvalScope, vLLM bench and SGLang bench_serving, by their rules (peer_definitions.cpp).
std::unique_ptr<Accumulator> make_peer_accumulator(const RunFacts& facts, Definitions d,
                                                   bool side_only);

}  // namespace tokbench::metrics::detail
