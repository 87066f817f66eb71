#include "report/vllm_result.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "common/json_writer.hpp"
#include "common/temp_path.hpp"
#include "report/outputs.hpp"

namespace tokbench::report {

namespace fs = std::filesystem;

namespace {

constexpr const char* kArrays[] = {"input_lens", "output_lens",     "ttfts",
                                   "itls",       "generated_texts", "errors"};
constexpr size_t kArrayCount = std::size(kArrays);
// One counter per second of the run: 8 bytes a second, capped at 30 days.
constexpr int64_t kMaxPeakBuckets = 30LL * 24 * 3600;

}  // namespace

// One temporary file per array; each holds the array's comma-separated elements.
struct VllmResultWriter::Arrays {
  std::FILE* f[kArrayCount] = {};
  fs::path paths[kArrayCount];
  bool any = false;

  explicit Arrays(const fs::path& base) {
    for (size_t i = 0; i < kArrayCount; ++i) {
      paths[i] = base.string() + "." + kArrays[i] + ".tmp";
      f[i] = std::fopen(paths[i].c_str(), "w+");
      if (!f[i])
        throw std::runtime_error(
            fmt::format("cannot write {}: {}", paths[i].string(), std::strerror(errno)));
    }
  }
  ~Arrays() {
    for (size_t i = 0; i < kArrayCount; ++i) {
      if (f[i]) std::fclose(f[i]);
      std::error_code ec;
      fs::remove(paths[i], ec);
    }
  }
  void put(size_t i, const std::string& element) {
    if (any) std::fputc(',', f[i]);
    std::fwrite(element.data(), 1, element.size(), f[i]);
  }
};

VllmResultWriter::VllmResultWriter(fs::path path, VllmResultFacts facts)
    : path_(std::move(path)), facts_(std::move(facts)), arrays_(std::make_unique<Arrays>(path_)) {}
VllmResultWriter::~VllmResultWriter() = default;

void VllmResultWriter::add(const record::RequestRecord& r) {
  if (r.warmup || r.apart()) return;
  const bool ok = r.ok();
  const int64_t in = metrics::input_tokens(r);
  const auto timing = metrics::peer_timing(r, metrics::Definitions::Vllm);
  // vLLM keeps a failed request in every array: ttft 0, no gaps, 0 tokens, its error text.
  Arrays& a = *arrays_;
  a.put(0, std::to_string(in == record::kNone ? 0 : in));
  a.put(1, std::to_string(ok ? metrics::output_tokens(r) : 0));
  a.put(2, ok && timing.first_ns != record::kNone
               ? fmt::format("{}", static_cast<double>(timing.first_ns - r.sent_ns) / 1e9)
               : std::string("0.0"));
  std::string itl = "[";
  if (ok) {
    metrics::for_each_peer_gap(r, metrics::Definitions::Vllm, [&](double gap_ns) {
      itl += fmt::format("{}{}", itl.size() > 1 ? "," : "", gap_ns / 1e9);
    });
  }
  a.put(3, itl + "]");
  if (ok && timing.first_ns != record::kNone && facts_.first_token_ns != record::kNone) {
    // vLLM's peak: each chunk's time in whole seconds after the earliest first token.
    auto count = [&](int64_t t_ns) {
      const int64_t bucket = (t_ns - facts_.first_token_ns) / 1'000'000'000;
      if (bucket < 0 || bucket > kMaxPeakBuckets) return;
      if (per_second_.size() <= static_cast<size_t>(bucket))
        per_second_.resize(static_cast<size_t>(bucket) + 1, 0);
      ++per_second_[static_cast<size_t>(bucket)];
    };
    int64_t t = timing.first_ns;
    count(t);
    metrics::for_each_peer_gap(r, metrics::Definitions::Vllm, [&](double gap_ns) {
      t += static_cast<int64_t>(gap_ns);
      count(t);
    });
  }
  a.put(4,
        "\"\"");  // tokbench does not keep generated text (it is not saved in the details either)
  JsonWriter e;
  e.value(ok ? std::string() : fmt::format("{}: {}", record::outcome_name(r.outcome), r.error));
  a.put(5, e.take());
  a.any = true;
}

void VllmResultWriter::finish(const metrics::MetricSet& m) {
  auto common = [&](const char* key) {
    return m.common_metric(key) ? m.common_metric(key)->value : 0.0;
  };
  JsonWriter w;
  w.begin_object()
      .field("date", facts_.date)
      .field("backend", facts_.backend)
      .field("label", "tokbench");
  w.field("model_id", facts_.model_id).field("tokenizer_id", facts_.tokenizer_id);
  w.field("num_prompts", static_cast<int64_t>(common("total_requests")));
  if (facts_.request_rate <= 0 || std::isinf(facts_.request_rate))
    w.field("request_rate", "inf");
  else
    w.field("request_rate", facts_.request_rate);
  w.field("burstiness", facts_.burstiness).field("max_concurrency", facts_.max_concurrency);
  w.field("duration", common("benchmark_duration") / 1000);
  w.field("completed", static_cast<int64_t>(common("success_requests")));
  w.field("failed", static_cast<int64_t>(common("failed_requests")));
  w.field("total_input_tokens", static_cast<int64_t>(common("total_input_tokens")));
  w.field("total_output_tokens", static_cast<int64_t>(common("total_generated_tokens")));
  w.field("request_throughput", common("request_throughput"));
  w.key("request_goodput");  // vLLM writes null without --goodput
  if (m.common_metric("request_goodput"))
    w.value(common("request_goodput"));
  else
    w.null();
  w.field("output_throughput", common("output_token_throughput"));
  w.field("total_token_throughput", common("total_token_throughput"));
  w.key("max_output_tokens_per_s");
  if (per_second_.empty())
    w.null();
  else
    w.value(static_cast<double>(*std::max_element(per_second_.begin(), per_second_.end())));
  w.field("max_concurrent_requests", static_cast<int64_t>(common("peak_concurrency")));
  for (const auto& [row, key] :
       {std::pair{"TTFT", "ttft"}, {"TPOT", "tpot"}, {"ITL", "itl"}, {"E2EL", "e2el"}}) {
    const metrics::Row* r = m.row(row);
    const bool has = r && r->stats && r->stats->n > 0;
    auto put = [&](const char* prefix, double v) {
      w.key(fmt::format("{}_{}_ms", prefix, key));
      if (has)
        w.value(v);
      else
        w.null();
    };
    const metrics::Summary s = has ? *r->stats : metrics::Summary{};
    put("mean", s.mean);
    put("median", s.median);
    put("std", s.stdev);
    put("p99", s.p99);
    w.key(fmt::format("percentiles_{}_ms", key)).begin_array();
    if (has) w.begin_array().value(99.0).value(s.p99).end_array();
    w.end_array();
  }
  w.field(
      "tokbench_note",
      "computed by tokbench under vLLM's definitions (docs/METRICS.md); generated_texts are empty "
      "because tokbench does not keep generated text");
  w.end_object();
  std::string head = w.take();
  head.pop_back();  // the closing brace: the arrays follow
  TempPath tmp(path_);
  {
    std::ofstream out(tmp.path(), std::ios::binary);
    out << head;
    for (size_t i = 0; i < kArrayCount; ++i) {
      out << ",\"" << kArrays[i] << "\":[";
      std::FILE* f = arrays_->f[i];
      std::fflush(f);
      std::rewind(f);
      char buf[1 << 16];
      for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
        out.write(buf, static_cast<std::streamsize>(n));
      out << "]";
    }
    out << "}\n";
    if (!out)
      throw std::runtime_error(
          fmt::format("cannot write {}: {}", path_.string(), std::strerror(errno)));
  }
  tmp.commit();
  arrays_.reset();
}

}  // namespace tokbench::report
