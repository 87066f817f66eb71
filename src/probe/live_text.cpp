#include "probe/live_text.hpp"

#include <fmt/format.h>

namespace tokbench::probe {

std::string escape_label(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

namespace {

// `{run_id="…",point="…",model="…"[,class="…"]` without the closing brace, so a caller may add.
std::string label_head(const PointLabels& l, const std::string& cls) {
  std::string s = fmt::format(R"({{run_id="{}",point="{}",model="{}")", escape_label(l.run_id),
                              escape_label(l.point), escape_label(l.model));
  if (!cls.empty()) s += fmt::format(R"(,class="{}")", escape_label(cls));
  return s;
}

void header(std::string& o, std::string_view name, std::string_view type, std::string_view help) {
  fmt::format_to(std::back_inserter(o), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

// A bucket's edge as Prometheus spells `le`: the shortest round-trip form ("0.01", "1", "+Inf").
std::string le(double bound) { return fmt::format("{}", bound); }

void histogram(std::string& o, std::string_view name, std::string_view help,
               const std::map<std::string, metrics::ClassTally>& classes, const PointLabels& l,
               const metrics::BucketHistogram metrics::ClassTally::*which) {
  header(o, name, "histogram", help);
  for (const auto& [cls, c] : classes) {
    const metrics::BucketHistogram& h = c.*which;
    const std::string head = label_head(l, cls);
    uint64_t cumulative = 0;
    for (size_t k = 0; k < h.bounds.size(); ++k) {
      cumulative += h.counts[k];
      fmt::format_to(std::back_inserter(o), "{}_bucket{},le=\"{}\"}} {}\n", name, head,
                     le(h.bounds[k]), cumulative);
    }
    fmt::format_to(std::back_inserter(o), "{}_bucket{},le=\"+Inf\"}} {}\n", name, head, h.count);
    fmt::format_to(std::back_inserter(o), "{}_sum{}}} {}\n", name, head, h.sum);
    fmt::format_to(std::back_inserter(o), "{}_count{}}} {}\n", name, head, h.count);
  }
}

}  // namespace

std::string prometheus_text(const std::map<std::string, metrics::ClassTally>& classes, int64_t sent,
                            const PointLabels& l) {
  std::string o;
  const std::string point = label_head(l, "") + "}";
  header(o, "tokbench_requests_sent_total", "counter", "Measured requests sent.");
  fmt::format_to(std::back_inserter(o), "tokbench_requests_sent_total{} {}\n", point, sent);
  int64_t finished = 0;
  for (const auto& [cls, c] : classes) finished += c.finished();
  header(o, "tokbench_requests_in_flight", "gauge", "Requests sent and not yet finished.");
  fmt::format_to(std::back_inserter(o), "tokbench_requests_in_flight{} {}\n", point,
                 std::max<int64_t>(0, sent - finished));
  header(o, "tokbench_requests_total", "counter",
         "Measured requests finished, by outcome (ok, failed, cancelled, cut).");
  for (const auto& [cls, c] : classes)
    for (auto [outcome, n] : {std::pair<const char*, int64_t>{"ok", c.ok},
                              {"failed", c.failed},
                              {"cancelled", c.cancelled},
                              {"cut", c.cut}})
      fmt::format_to(std::back_inserter(o), "tokbench_requests_total{},outcome=\"{}\"}} {}\n",
                     label_head(l, cls), outcome, n);
  header(o, "tokbench_prompt_tokens_total", "counter", "Input tokens of successful requests.");
  for (const auto& [cls, c] : classes)
    fmt::format_to(std::back_inserter(o), "tokbench_prompt_tokens_total{}}} {}\n",
                   label_head(l, cls), c.input_tokens.sum);
  header(o, "tokbench_generation_tokens_total", "counter", "Output tokens of successful requests.");
  for (const auto& [cls, c] : classes)
    fmt::format_to(std::back_inserter(o), "tokbench_generation_tokens_total{}}} {}\n",
                   label_head(l, cls), c.output_tokens.sum);
  using metrics::ClassTally;
  histogram(o, "tokbench_time_to_first_token_seconds",
            "TTFT: sent to the first generated text (successful streamed requests).", classes, l,
            &ClassTally::ttft_s);
  histogram(o, "tokbench_time_per_output_token_seconds",
            "TPOT: (last - first token) / (output tokens - 1).", classes, l, &ClassTally::tpot_s);
  histogram(o, "tokbench_e2e_request_latency_seconds", "E2EL: sent to done (successful requests).",
            classes, l, &ClassTally::e2el_s);
  return o;
}

}  // namespace tokbench::probe
