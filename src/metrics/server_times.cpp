#include "metrics/server_times.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "metrics/accumulator.hpp"

namespace tokbench::metrics::detail {

void ServerTimes::add(const record::RequestRecord& r) {
  using record::kNone;
  if (r.server_prompt_us != kNone) prompt_.push(static_cast<double>(r.server_prompt_us) / 1e3);
  if (r.server_predicted_us != kNone && r.server_predicted_n > 0)
    per_token_.push(static_cast<double>(r.server_predicted_us) / 1e3 /
                    static_cast<double>(r.server_predicted_n));
  if (r.server_queue_us != kNone) queue_.push(static_cast<double>(r.server_queue_us) / 1e3);
  if (r.server_load_us == kNone) return;
  const double ms = static_cast<double>(r.server_load_us) / 1e3;
  load_.push(ms);
  ++loads_.requests;
  if (ms < ServerLoad::kWaitedMs) return;
  ++loads_.waited;
  loads_.waited_ms += ms;
  loads_.most_ms = std::max(loads_.most_ms, ms);
}

void ServerTimes::columns(std::vector<std::pair<Samples*, PercentileMethod>>& out) {
  add_columns(out, PercentileMethod::Linear, {&prompt_, &per_token_, &load_, &queue_});
}

void ServerTimes::finish(MetricSet& m) {
  const char* none =
      "the server's answers carry no timings (llama.cpp's, Ollama's, MindIE's and TGI's "
      "/generate do)";
  m.extra_rows.push_back(make_row("ServerPromptTime", Unit::Ms, prompt_, none));
  m.extra_rows.push_back(make_row("ServerTimePerToken", Unit::Ms, per_token_, none));
  m.extra_rows.push_back(make_row("ServerLoadTime", Unit::Ms, load_,
                                  "the server's answers say no load time (Ollama's do)"));
  m.extra_rows.push_back(make_row("ServerQueueTime", Unit::Ms, queue_,
                                  "the server's answers say no queue time (TGI's /generate "
                                  "headers do)"));
  if (loads_.requests > 0) m.server_load = loads_;
  auto mean = [](const Row* r) {
    return r && r->stats ? fmt::format("{:.3f} ms", r->stats->mean) : std::string("n/a");
  };
  if (!queue_.empty())
    m.notes.push_back(fmt::format(
        "the server's queue ({} answer(s) said it): mean {} from arrival to a place in its batch "
        "(ServerQueueTime; TGI's x-queue-time, whole ms), in the client's E2EL; TGI's "
        "ServerTimePerToken is its x-inference-time over the tokens, prefill included",
        queue_.size(), mean(m.row("ServerQueueTime"))));
  if (prompt_.empty() && per_token_.empty()) return;
  m.notes.push_back(fmt::format(
      "the server's own times ({} answer(s) carried the server's timings): prompt processing "
      "mean {} against the client's TTFT mean {} (the rest is its queue, the network and the "
      "first token's way out); generation mean {} per token against the client's TPOT mean "
      "{} (the server divides by the n tokens it generated, TPOT by the n-1 gaps after the "
      "first)",
      std::max(prompt_.size(), per_token_.size()), mean(m.row("ServerPromptTime")),
      mean(m.row("TTFT")), mean(m.row("ServerTimePerToken")), mean(m.row("TPOT"))));
}

}  // namespace tokbench::metrics::detail
