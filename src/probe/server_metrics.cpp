#include "probe/server_metrics.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "common/clock.hpp"
#include "common/json_fields.hpp"
#include "common/json_writer.hpp"
#include "net/http_get.hpp"

namespace tokbench::probe {

namespace {
std::string marks();  // the names that tell the dialects apart, for an error
bool speaks(const Dialect& d, const Snapshot& s);
}  // namespace

Scraper::Scraper(std::string url, std::vector<std::string> headers, std::string api_key,
                 int64_t interval_ms, int64_t origin_ns, size_t max_bytes, net::TlsSettings tls,
                 std::string_view engine)
    : url_(std::move(url)),
      headers_(std::move(headers)),
      api_key_(std::move(api_key)),
      interval_ms_(interval_ms),
      origin_ns_(origin_ns),
      max_bytes_(max_bytes),
      tls_(std::move(tls)),
      engine_(engine == "auto" ? "" : engine) {}

Scraper::~Scraper() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

bool Scraper::scrape_once() {
  const int64_t t = steady_now_ns() - origin_ns_;
  const auto res = net::http_get(url_, headers_, api_key_, 5000, max_bytes_, tls_);
  std::lock_guard lock(mu_);
  if (!res.reached || res.status != 200) {
    error_ = res.reached ? fmt::format("HTTP {}", res.status) : res.error;
    return false;
  }
  try {
    Snapshot snap{t, parse_text(res.body)};
    const Dialect* d = engine_.empty() ? dialect_of(snap) : dialect_named(engine_);
    if (!d) {
      error_ = engine_.empty()
                   ? fmt::format("the exposition has none of the metric names tokbench reads ({})",
                                 marks())
                   : fmt::format(
                         "--engine {} has no Prometheus /metrics that tokbench reads "
                         "(docs/COMPATIBILITY.md)",
                         engine_);
      return false;
    }
    if (!speaks(*d, snap)) {  // --engine named one, and the exposition is another's
      error_ =
          fmt::format("the exposition has none of --engine {}'s names ({}); {}", engine_, d->mark,
                      dialect_of(snap) ? fmt::format("it is {}'s", dialect_of(snap)->name)
                                       : "nor any other engine's tokbench reads");
      return false;
    }
    running_waiting_.emplace_back(t, snap.sum(d->running).value_or(0),
                                  snap.sum(d->waiting).value_or(0));
    if (auto kv = snap.sum(d->kv_usage);
        kv || (*d->kv_usage_older && (kv = snap.sum(d->kv_usage_older))))
      kv_usage_.emplace_back(t, *kv);
    ++scrapes_;
    if (!first_) {
      first_ = std::move(snap);
    } else {
      last_ = std::move(snap);
    }
  } catch (const std::exception& e) {
    error_ = e.what();
    return false;
  }
  return true;
}

void Scraper::start() {
  thread_ = std::thread([this] {
    while (!stop_) {
      for (int64_t waited = 0; waited < interval_ms_ && !stop_; waited += 10)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (!stop_) scrape_once();
    }
  });
}

void Scraper::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  scrape_once();
}

std::optional<ServerSummary> Scraper::summary() const {
  std::lock_guard lock(mu_);
  if (!first_ || !last_) return std::nullopt;
  auto s = summarize({*first_, *last_}, url_, engine_.empty() ? nullptr : dialect_named(engine_));
  if (s) {
    s->scrapes = scrapes_;
    s->running_waiting = running_waiting_;
    s->kv_usage = kv_usage_;
  }
  return s;
}

std::string Scraper::last_error() const {
  std::lock_guard lock(mu_);
  return error_;
}

namespace {

// "vllm:*, sglang:*, ..., MindIE's request_received_total": for the error of an unknown exposition.
std::string marks() {
  std::string out;
  for (const Dialect& d : all_dialects()) {
    const std::string_view m = d.mark;
    out += (out.empty() ? "" : ", ") + (m.ends_with(':') || m.ends_with('_')
                                            ? std::string(m) + "*"
                                            : fmt::format("{}'s {}", d.name, m));
  }
  return out;
}

}  // namespace

namespace {

// What vLLM exposes beyond latency and tokens: acceptance per draft position, the request's time
// split into prefill and decode, the prefix cache's hit rate, preemptions, and P/D KV transfer.
void deeper_metrics(ServerSummary& s, const Snapshot& a, const Snapshot& b, const Dialect& d) {
  auto delta = [&](const char* name) { return b.sum(name).value_or(0) - a.sum(name).value_or(0); };
  const double drafts = delta("vllm:spec_decode_num_drafts_total");
  if (drafts > 0) {
    std::map<int, double> at;  // position -> accepted, after minus before
    for (const Snapshot* snap : {&a, &b})
      for (const Sample& x : snap->samples) {
        if (x.name != "vllm:spec_decode_num_accepted_tokens_per_pos_total" &&
            x.name != "vllm:spec_decode_num_accepted_tokens_per_pos")
          continue;
        const auto pos = x.labels.find("position");
        if (pos == x.labels.end()) continue;
        const int k = std::atoi(pos->second.c_str());
        if (k < 0 || k > 64)
          continue;  // a draft is a handful of tokens: nothing from the network sizes memory
        at[k] += snap == &b ? x.value : -x.value;
      }
    for (const auto& [k, n] : at) {
      if (static_cast<size_t>(k) >= s.spec_acceptance_per_position.size())
        s.spec_acceptance_per_position.resize(static_cast<size_t>(k) + 1, 0);
      s.spec_acceptance_per_position[static_cast<size_t>(k)] = n / drafts;
    }
  }
  s.prefill = histogram_delta(a, b, "vllm:request_prefill_time_seconds");
  s.decode = histogram_delta(a, b, "vllm:request_decode_time_seconds");
  s.inference = histogram_delta(a, b, "vllm:request_inference_time_seconds");
  if (const double queries = delta("vllm:prefix_cache_queries_total"); queries > 0)
    s.prefix_cache_hit_rate = delta("vllm:prefix_cache_hits_total") / queries;
  if (*d.preemptions && b.sum(d.preemptions)) s.preemptions = delta(d.preemptions);
  // vLLM counts a request whose client left under finished_reason="abort".
  auto aborted = [](const Snapshot& snap) {
    std::optional<double> n;
    for (const Sample& x : snap.samples)
      if (x.name == "vllm:request_success_total")
        if (const auto r = x.labels.find("finished_reason");
            r != x.labels.end() && r->second == "abort")
          n = n.value_or(0) + x.value;
    return n;
  };
  if (const auto after = aborted(b)) s.aborted = *after - aborted(a).value_or(0);
  std::map<std::string, double> transfer;  // bounded: at most 32 names
  for (const Sample& x : b.samples) {
    if (!x.name.starts_with("vllm:nixl_") && !x.name.starts_with("sglang:kv_transfer_")) continue;
    if (x.name.ends_with("_bucket") || x.name.ends_with("_count") || transfer.size() >= 32)
      continue;
    if (x.name.ends_with("_sum")) {
      const std::string base = x.name.substr(0, x.name.size() - 4);
      const double count = delta((base + "_count").c_str());
      if (count > 0) transfer[base + " (mean)"] = delta(x.name.c_str()) / count;
    } else if (x.name.ends_with("_total")) {
      transfer[x.name] = delta(x.name.c_str());
    }
  }
  s.kv_transfer.assign(transfer.begin(), transfer.end());
}

}  // namespace

namespace {

// Whether any sample carries the dialect's mark: its prefix, or its one telling name.
bool speaks(const Dialect& d, const Snapshot& s) {
  const std::string_view mark = d.mark;
  const bool prefix = mark.ends_with(':') || mark.ends_with('_');
  return std::any_of(s.samples.begin(), s.samples.end(), [&](const Sample& x) {
    return prefix ? x.name.starts_with(mark) : x.name == mark;
  });
}

}  // namespace

const Dialect* dialect_of(const Snapshot& s) {
  for (const auto& d : all_dialects())
    if (speaks(d, s)) return &d;
  return nullptr;
}

std::optional<ServerSummary> summarize(const std::vector<Snapshot>& snaps, const std::string& url,
                                       const Dialect* forced) {
  if (snaps.size() < 2) return std::nullopt;
  const Snapshot& a = snaps.front();
  const Snapshot& b = snaps.back();
  const Dialect* d = forced ? forced : dialect_of(b);
  if (!d) return std::nullopt;
  ServerSummary s;
  s.url = url;
  s.dialect = d->name;
  s.scrapes = static_cast<int64_t>(snaps.size());
  s.duration_s = static_cast<double>(b.t_ns - a.t_ns) / 1e9;
  s.ttft = histogram_delta(a, b, d->ttft);
  s.itl = histogram_delta(a, b, d->itl);
  if (!s.itl) s.itl = histogram_delta(a, b, d->itl_older);
  s.e2e = histogram_delta(a, b, d->e2e);
  s.queue = histogram_delta(a, b, d->queue);
  auto counter = [&](const char* name) -> std::optional<double> {
    const auto after = b.sum(name);
    if (!after) return std::nullopt;  // not exposed: nothing to compare, not zero
    return *after - a.sum(name).value_or(0);
  };
  auto delta = [&](const char* name) { return b.sum(name).value_or(0) - a.sum(name).value_or(0); };
  s.generation_tokens = counter(d->generation_tokens);
  s.prompt_tokens = counter(d->prompt_tokens);
  const double drafts = delta("vllm:spec_decode_num_drafts_total");
  const double draft_tokens = delta("vllm:spec_decode_num_draft_tokens_total");
  const double accepted = delta("vllm:spec_decode_num_accepted_tokens_total");
  if (draft_tokens > 0) s.spec_acceptance_rate = accepted / draft_tokens;
  if (drafts > 0) s.spec_mean_acceptance_length = 1 + accepted / drafts;
  deeper_metrics(s, a, b, *d);
  for (const auto& snap : snaps) {
    s.running_waiting.emplace_back(snap.t_ns, snap.sum(d->running).value_or(0),
                                   snap.sum(d->waiting).value_or(0));
    if (auto kv = snap.sum(d->kv_usage);
        kv || (*d->kv_usage_older && (kv = snap.sum(d->kv_usage_older))))
      s.kv_usage.emplace_back(snap.t_ns, *kv);
  }
  return s;
}

}  // namespace tokbench::probe
