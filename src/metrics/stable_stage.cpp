#include "metrics/stable_stage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tokbench::metrics {

void StableStageFinder::add(const record::RequestRecord& r) {
  if (r.warmup || r.apart() || r.sent_ns == record::kNone || r.done_ns == record::kNone) return;
  starts_.push(static_cast<double>(r.sent_ns));
  ends_.push(static_cast<double>(r.done_ns));
}

StableWindow StableStageFinder::finish() {
  StableWindow w;
  w.level = level_;
  Samples::Reader starts(starts_), ends(ends_);
  Samples::Entry s{}, e{};
  bool has_s = starts.next(s), has_e = ends.next(e);
  int64_t count = 0, reached = 0;
  long double area = 0, area_at_start = 0,
              area_at_end = 0;  // ∫ in-flight dt (ns), up to each event
  double last_t = 0;
  bool first_event = true;
  auto advance = [&](double t) {
    if (!first_event) area += static_cast<long double>(count) * (t - last_t);
    first_event = false;
    last_t = t;
  };
  while (has_s || has_e) {
    // At one instant an end is taken before a send: the slot it frees is the one refilled.
    if (has_e && (!has_s || e.v <= s.v)) {
      advance(e.v);
      count -= e.n;
      if (count == level_) {
        w.end_ns = static_cast<int64_t>(e.v);
        area_at_end = area;
      }
      has_e = ends.next(e);
    } else {
      advance(s.v);
      const int64_t before = count;
      count += s.n;
      w.peak = std::max(w.peak, count);
      if (before < level_ && count >= level_ && ++reached == 2) {
        w.start_ns = static_cast<int64_t>(s.v);
        area_at_start = area;
      }
      if (count == level_) {
        w.end_ns = static_cast<int64_t>(s.v);
        area_at_end = area;
      }
      has_s = starts.next(s);
    }
  }
  w.found = reached >= 2 && w.end_ns > w.start_ns;
  if (w.found)
    w.mean_in_flight = static_cast<double>((area_at_end - area_at_start) / (w.end_ns - w.start_ns));
  if (w.found) {
    w.text = fmt::format(
        "stable stage: from the second moment {} requests were in flight (the first is the initial "
        "fill) "
        "to the last moment they were, {:.3f} s (AISBench's window, found from the records with no "
        "tolerance to tune); latencies are of the requests sent inside it, throughputs of what "
        "arrived "
        "inside it, Concurrency the time-average in flight",
        level_, static_cast<double>(w.end_ns - w.start_ns) / 1e9);
  } else {
    w.text = fmt::format(
        "no stable stage: in-flight requests reached the concurrency {} {} (peak {}); the run was "
        "all "
        "ramp-up and drain — raise --num-prompts (or use --duration-s) so the load holds",
        level_, reached == 0 ? "never" : "only once", w.peak);
  }
  return w;
}

void WindowArrivals::add(const record::RequestRecord& r, const StableWindow& w) {
  if (r.warmup || !r.ok() || !w.found) return;
  if (r.sent_ns != record::kNone && r.done_ns != record::kNone)
    ok_in_flight_ns += static_cast<double>(
        std::max<int64_t>(0, std::min(r.done_ns, w.end_ns) - std::max(r.sent_ns, w.start_ns)));
  if (w.contains(r.done_ns)) {
    ++completed;
    if (const int64_t in = metrics::input_tokens(r); in != record::kNone) input_tokens += in;
  }
  const bool spread = for_each_token_arrival(r, [&](int64_t t_ns, double n) {
    if (!w.contains(t_ns)) return;
    output_tokens += n;
    (t_ns - w.start_ns < (w.end_ns - w.start_ns) / 2 ? first_half : second_half) += n;
  });
  spread_requests += spread;
}

void restate_over_window(MetricSet& m, const StableWindow& w, const WindowArrivals& a) {
  if (!w.found || w.end_ns <= w.start_ns) return;
  const double s = static_cast<double>(w.end_ns - w.start_ns) / 1e9;
  // Requests: Little's law, L = λ·W, for the successful requests: L their time-average in flight,
  // W the stage's mean E2EL. Counting completions inside the window instead errs by up to a whole
  // wave of a synchronized closed loop at each edge; Little's law holds whenever the load is
  // steady. Over every request's places in flight, failed ones read as successes (49.7 req/s
  // where 18.5 succeeded a second).
  const Row* e2el = m.row("E2EL");
  const Row* in = m.row("InputTokens");
  const double ok_in_flight = a.ok_in_flight_ns / static_cast<double>(w.end_ns - w.start_ns);
  const double rps = e2el && e2el->stats && e2el->stats->mean > 0
                         ? ok_in_flight / (e2el->stats->mean / 1000)
                         : static_cast<double>(a.completed) / s;
  const double in_tps =
      in && in->stats ? rps * in->stats->mean : static_cast<double>(a.input_tokens) / s;
  // Documents ranked (rerank): the stage's requests' mean documents at the restated rate, read
  // from the two throughputs over the stage's requests before they are restated.
  const Common* docs = m.common_metric("document_throughput");
  const Common* reqs = m.common_metric("request_throughput");
  const double docs_per_request = docs && reqs && reqs->value > 0 ? docs->value / reqs->value : 0.0;
  for (auto& c : m.common) {
    if (c.key == "benchmark_duration")
      c.value = s * 1000;
    else if (c.key == "concurrency")
      c.value = w.mean_in_flight;
    else if (c.key == "request_throughput")
      c.value = rps;
    else if (c.key == "document_throughput")
      c.value = rps * docs_per_request;
    else if (c.key == "input_token_throughput")
      c.value = in_tps;
    else if (c.key == "output_token_throughput")
      c.value = a.output_tokens / s;
    else if (c.key == "total_token_throughput")
      c.value = in_tps + a.output_tokens / s;
  }
  m.notes.push_back(w.text);
  const double h1 = a.first_half / (s / 2), h2 = a.second_half / (s / 2);
  const double drift = std::max(h1, h2) > 0 ? std::abs(h1 - h2) / std::max(h1, h2) : 0;
  // Nothing generated inside the window (embeddings): no throughput to compare, no "0.0 then 0.0".
  if (std::max(h1, h2) > 0)
    m.notes.push_back(fmt::format(
        "stable stage: output throughput {:.1f} then {:.1f} token/s in the window's two halves "
        "({:.1f}% apart){}",
        h1, h2, 100 * drift,
        drift > 0.1 ? ": the load was not steady inside the window; treat its figures with care"
                    : ""));
  if (a.spread_requests > 0) {
    m.notes.push_back(fmt::format(
        "stable stage: {} request(s) had no per-chunk token counts; their output tokens were "
        "spread evenly over their text chunks to place them in time (an estimate)",
        a.spread_requests));
  }
}

}  // namespace tokbench::metrics
