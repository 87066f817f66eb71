#include "series/schema_pair.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <vector>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "common/significance.hpp"
#include "metrics/metrics.hpp"
#include "record/record_io.hpp"
#include "runfolder/files.hpp"
#include "runfolder/run_folder.hpp"
#include "series/summary_file.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPairedMetrics[] = {"TTFT", "TPOT", "E2EL"};

// One point's measured requests: each metric's value by request index, and the prompt tokens
// the server found in its prefix cache.
struct PointValues {
  std::map<int64_t, double> by_index[std::size(kPairedMetrics)];
  int64_t prompt_tokens = 0, cached_tokens = 0;
  int64_t answers = 0, output_tokens = 0;  ///< answers with a usage count, and their tokens
  double output_mean() const {
    return answers > 0 ? static_cast<double>(output_tokens) / answers : std::nan("");
  }
  double cached_share() const {
    return prompt_tokens > 0 ? static_cast<double>(cached_tokens) / prompt_tokens : 0;
  }
};

PointValues read_point(const fs::path& dir) {
  PointValues v;
  const runfolder::RunFolder folder = runfolder::load_run_folder(dir);
  record::for_each_detail(folder.details.string(), [&](record::RequestRecord&& r) {
    if (r.warmup || r.probe || !r.ok()) return;
    if (r.prompt_tokens > 0) v.prompt_tokens += r.prompt_tokens;
    if (r.cached_tokens > 0) v.cached_tokens += r.cached_tokens;
    if (r.completion_tokens >= 0) {
      ++v.answers;
      v.output_tokens += r.completion_tokens;
    }
    for (size_t m = 0; m < std::size(kPairedMetrics); ++m)
      if (const auto x = metrics::request_value(r, kPairedMetrics[m]))
        v.by_index[m].emplace(r.index, *x);
  });
  return v;
}

double mean_of(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v;
  return x.empty() ? std::nan("") : s / static_cast<double>(x.size());
}

void number_or_null(JsonWriter& w, const char* key, double x) {
  w.key(key);
  if (std::isfinite(x))
    w.value(x);
  else
    w.null();
}

std::string shown(double x) { return std::isfinite(x) ? format_round4(x) : ""; }

// One metric's cost, paired by request index: into the summary, its CSV row and the console.
void paired_cost(size_t m, const PointValues& a, const PointValues& b, double level, JsonWriter& w,
                 std::string& csv, std::FILE* console) {
  // Both means over the pairs, so the cost is their difference (a --duration-s run's two points
  // send different numbers of requests; the unpaired ones are left out).
  std::vector<double> cost, free, held;
  for (const auto& [index, x] : a.by_index[m])
    if (auto it = b.by_index[m].find(index); it != b.by_index[m].end()) {
      cost.push_back(it->second - x);
      free.push_back(x);
      held.push_back(it->second);
    }
  const double free_mean = mean_of(free), held_mean = mean_of(held);
  const auto ci = metrics::confidence_interval(cost, level);
  const double share = cost.empty() || !(free_mean > 0) ? std::nan("") : ci.mean / free_mean;
  const bool has = !cost.empty() && std::isfinite(ci.half_width);
  w.key(kPairedMetrics[m]).begin_object().field("pairs", static_cast<int64_t>(cost.size()));
  number_or_null(w, "unconstrained_mean_ms", free_mean);
  number_or_null(w, "constrained_mean_ms", held_mean);
  number_or_null(w, "cost_mean_ms", cost.empty() ? std::nan("") : ci.mean);
  number_or_null(w, "ci_low", has ? ci.low : std::nan(""));
  number_or_null(w, "ci_high", has ? ci.high : std::nan(""));
  number_or_null(w, "cost_share", share);
  w.end_object();
  csv += fmt::format("{},{},{},{},{},{},{},{},{}\n", kPairedMetrics[m], cost.size(),
                     shown(free_mean), shown(held_mean), cost.empty() ? "" : format_round4(ci.mean),
                     has ? format_round4(ci.low) : "", has ? format_round4(ci.high) : "",
                     shown(share), level);
  if (cost.empty()) {
    fmt::print(console, "  {:<5} n/a (no request measured it in both runs)\n", kPairedMetrics[m]);
    return;
  }
  fmt::print(
      console, "  {:<5} {:>9.3f} ms → {:>9.3f} ms   {:+.3f} ms{} ({:+.1f}%, {} pairs)\n",
      kPairedMetrics[m], free_mean, held_mean, ci.mean,
      has ? fmt::format(" ± {:.3f}", ci.half_width) : std::string(" (one pair: no interval)"),
      100 * share, cost.size());
}

}  // namespace

RunOutcome finish_schema_pair(const fs::path& root, const RunOutcome& unconstrained,
                              const RunOutcome& constrained, double level, bool reset_cache,
                              const std::optional<record::ServerProcessFacts>& server_process,
                              bool interrupted, std::FILE* console) {
  const PointValues a = read_point(unconstrained.run_dir), b = read_point(constrained.run_dir);
  JsonWriter w;
  w.begin_object().field("format", "tokbench-schema-pair/1").field("confidence", level);
  w.field("method",
          "per request index: constrained − unconstrained; mean ± t(1 − (1 − level)/2, n − 1) × "
          "s/√n over the pairs");
  w.key("folders").begin_array().value(kUnconstrainedPoint).value(kConstrainedPoint).end_array();
  w.key("metrics").begin_object();
  std::string csv =
      "metric,pairs,unconstrained_mean_ms,constrained_mean_ms,cost_mean_ms,ci_low,ci_high,"
      "cost_share,confidence\n";
  fmt::print(console,
             "\nschema cost (constrained − unconstrained, the same prompts paired; {:.0f}% "
             "t-intervals):\n",
             level * 100);
  for (size_t m = 0; m < std::size(kPairedMetrics); ++m)
    paired_cost(m, a, b, level, w, csv, console);
  w.end_object();
  // A schema changes what is said, not only how fast: E2EL then compares answers of different
  // lengths, and TPOT is the cost a token.
  number_or_null(w, "output_tokens_unconstrained", a.output_mean());
  number_or_null(w, "output_tokens_constrained", b.output_mean());
  const double ratio = b.output_mean() / a.output_mean();
  if (std::isfinite(ratio) && std::abs(ratio - 1) > 0.1)
    fmt::print(console,
               "  note: the answers' lengths differ ({:.1f} → {:.1f} output tokens a request):\n"
               "        E2EL compares answers of different lengths; TPOT is the schema's cost a "
               "token\n",
               a.output_mean(), b.output_mean());
  const metrics::StructuredTally& s = constrained.metrics.quality.structured;
  if (s.judged() > 0) {
    const auto v = s.validity();
    w.key("structured_valid")
        .begin_object()
        .field("share", v.p)
        .field("low", v.low)
        .field("high", v.high)
        .field("judged", s.judged())
        .end_object();
    fmt::print(console, "  structured output: {:.1f}% valid [{:.1f}%, {:.1f}%] of {} answers\n",
               100 * v.p, 100 * v.low, 100 * v.high, s.judged());
  }
  // The second run sends the first run's prompts again: a server with a prefix cache may serve
  // them from it, and the cost would look smaller than it is.
  w.field("reset_prefix_cache", reset_cache)
      .field("cached_share_unconstrained", a.cached_share())
      .field("cached_share_constrained", b.cached_share());
  if (!reset_cache && b.cached_share() > a.cached_share() + 0.01)
    fmt::print(console,
               "  warning: the constrained run found {:.0f}% of its prompt tokens in the server's "
               "prefix cache, the unconstrained {:.0f}%\n"
               "           (the first run warmed it): add --reset-prefix-cache to empty it before "
               "each run\n",
               100 * b.cached_share(), 100 * a.cached_share());
  const fs::path summary = write_summary(root, "pair", w, csv, server_process);
  fmt::print(console, "schema pair: {}\n  summary: {}\n", root.string(), summary.string());
  std::fflush(console);
  RunOutcome out;
  out.run_dir = root;
  out.interrupted = interrupted;
  const int code = unconstrained.exit_code != 0 ? unconstrained.exit_code : constrained.exit_code;
  out.verdict.valid = code == 0;
  const bool disk =
      unconstrained.exit_code == kExitDiskStopped || constrained.exit_code == kExitDiskStopped;
  out.exit_code = series_exit_code(disk, interrupted, code);
  return out;
}

RunOutcome run_schema_pair(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                           const SeriesOptions& options) {
  PointSession session(plan, stop, console,
                       "a schema pair: the same prompts unconstrained, then held to the schema",
                       options);
  PointSpec free = spec_of(plan, kUnconstrainedPoint);
  free.unconstrained = true;
  const PointSpec held = spec_of(plan, kConstrainedPoint);  // the same seed: the same prompts
  std::vector<RunOutcome> runs;
  for (const PointSpec& spec : {free, held}) {
    if (session.stopped()) break;
    fmt::print(session.point_console(), "\n== {} ==\n", spec.label);
    try {
      runs.push_back(session.run(spec));
    } catch (const std::exception& e) {
      fmt::print(console, "schema pair: the {} run stopped: {}\n", spec.label, e.what());
      break;
    }
  }
  const auto server_process = session.close();
  return session.finish([&] {
    if (runs.size() < 2) {  // nothing to pair: the points' folders say what was measured
      RunOutcome out;
      out.run_dir = session.root();
      out.interrupted = session.stopped();
      out.exit_code =
          series_exit_code(session.disk_stopped(), out.interrupted,
                           runs.empty() || runs[0].exit_code == 0 ? 1 : runs[0].exit_code);
      return out;
    }
    return finish_schema_pair(session.root(), runs[0], runs[1], plan.cfg.experiment.confidence,
                              plan.cfg.experiment.reset_prefix_cache, server_process,
                              session.stopped(), console);
  });
}

}  // namespace tokbench::runner
