#include "series/interference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/format.hpp"
#include "common/json_writer.hpp"
#include "common/significance.hpp"
#include "runfolder/files.hpp"
#include "series/repeats.hpp"
#include "series/summary_file.hpp"

namespace tokbench::runner {

namespace fs = std::filesystem;

const std::vector<InterferenceFigure>& interference_figures() {
  static const std::vector<InterferenceFigure> figures{
      {"ttft_p99_ms", "TTFT P99", "TTFT P99 ", "ms", false},
      {"tpot_mean_ms", "TPOT mean", "TPOT ", "ms", false},
      {"e2el_mean_ms", "E2EL mean", "E2EL ", "ms", false},
      {"output_token_throughput", "output tok/s", "", "tok/s", true}};
  return figures;
}

std::string InterferenceRun::folder() const {
  return alone.empty() ? fmt::format("together-run-{}", round)
                       : fmt::format("alone-{}-run-{}", alone, round);
}

std::vector<InterferenceRun> interference_runs(const std::vector<std::string>& classes,
                                               int rounds) {
  std::vector<InterferenceRun> out;
  for (int k = 1; k <= rounds; ++k) {
    for (const auto& c : classes) out.push_back({k, c});
    out.push_back({k, ""});
  }
  return out;
}

std::vector<double> InterferenceSummary::Cell::slowdowns(bool throughput) const {
  std::vector<double> out;
  for (size_t k = 0; k < alone.size() && k < together.size(); ++k) {
    if (!alone[k] || !together[k] || *alone[k] <= 0 || *together[k] <= 0) continue;
    out.push_back(throughput ? *alone[k] / *together[k] : *together[k] / *alone[k]);
  }
  return out;
}

InterferenceSummary::InterferenceSummary(fs::path root, std::vector<std::string> classes,
                                         int rounds, double level)
    : root_(std::move(root)), classes_(std::move(classes)), rounds_(rounds), level_(level) {
  for (const auto& c : classes_)
    for (const auto& f : interference_figures()) {
      Cell& cell = cells_[c][f.key];
      cell.alone.resize(rounds_);
      cell.together.resize(rounds_);
    }
}

const InterferenceSummary::Cell& InterferenceSummary::cell(const std::string& cls,
                                                           const char* figure) const {
  return cells_.at(cls).at(figure);
}

void InterferenceSummary::add(const InterferenceRun& run, const RunOutcome& o) {
  done_.push_back(
      {run, o.exit_code == kExitInterrupted ? "INTERRUPTED" : metrics::verdict_status(o.verdict)});
  if (o.exit_code != 0 && code_ == 0) code_ = o.exit_code;
  disk_stopped_ |= o.exit_code == kExitDiskStopped;
  if (run.round < 1 || run.round > rounds_) return;
  const auto k = static_cast<size_t>(run.round - 1);
  for (const auto& [cls, m] : o.class_metrics) {
    if (!run.alone.empty() && cls != run.alone) continue;
    auto it = cells_.find(cls);
    if (it == cells_.end()) continue;  // not a class of this series (never written by it)
    if (const auto* ttft = m.row("TTFT"); ttft && ttft->stats)
      fewest_ttft_ = std::min(fewest_ttft_, ttft->stats->n);
    for (const auto& [key, value] : headline_metrics(m)) {
      auto c = it->second.find(key);
      if (c == it->second.end()) continue;
      (run.alone.empty() ? c->second.together : c->second.alone)[k] = value;
    }
  }
}

bool InterferenceSummary::complete() const {
  return done_.size() == interference_runs(classes_, rounds_).size();
}

namespace {

constexpr const char* kMethod =
    "per round: together ÷ alone for a latency, alone ÷ together for tokens/s (above 1: slower "
    "beside the others); the mean over the rounds ± t(1 − (1 − level)/2, N − 1) × s/√N, s with "
    "ddof 1";

void optional_number(JsonWriter& w, std::string_view key, double x) {
  w.key(key);
  if (std::isnan(x))
    w.null();
  else
    w.value(x);
}

std::string csv_number(double x) { return std::isnan(x) ? "" : format_round4(x); }

double mean_of(const std::vector<std::optional<double>>& v) {
  double sum = 0;
  int n = 0;
  for (const auto& x : v)
    if (x) sum += *x, ++n;
  return n ? sum / n : std::nan("");
}

}  // namespace

void InterferenceSummary::write(
    const std::optional<record::ServerProcessFacts>& server_process) const {
  JsonWriter w;
  w.begin_object()
      .field("format", "tokbench-interference/1")
      .field("complete", complete())
      .field("rounds", static_cast<int64_t>(rounds_))
      .field("confidence", level_)
      .field("method", kMethod)
      .field("fewest_ttft_samples", fewest_ttft_ == INT64_MAX ? int64_t{0} : fewest_ttft_)
      .key("classes")
      .value(classes_)
      .key("runs")
      .begin_array();
  for (const Done& d : done_) {
    w.begin_object().field("folder", d.run.folder()).field("round", d.run.round);
    w.key("alone");
    if (d.run.alone.empty())
      w.null();
    else
      w.value(d.run.alone);
    w.field("verdict", d.verdict).end_object();
  }
  w.end_array().key("slowdown").begin_object();
  std::string csv =
      "class,figure,alone_mean,together_mean,slowdown,ci_low,ci_high,half_width,rounds,"
      "confidence\n";
  for (const auto& cls : classes_) {
    w.key(cls).begin_object();
    for (const auto& f : interference_figures()) {
      const Cell& c = cell(cls, f.key);
      const std::vector<double> s = c.slowdowns(f.throughput);
      const auto ci = metrics::confidence_interval(s, level_);
      const double mean = s.empty() ? std::nan("") : ci.mean;
      w.key(f.key).begin_object();
      for (const auto* side : {&c.alone, &c.together}) {
        w.key(side == &c.alone ? "alone" : "together").begin_array();
        for (const auto& x : *side) w.value(x);
        w.end_array();
      }
      optional_number(w, "alone_mean", mean_of(c.alone));
      optional_number(w, "together_mean", mean_of(c.together));
      w.field("n", ci.n);
      optional_number(w, "slowdown", mean);
      optional_number(w, "ci_low", ci.low);
      optional_number(w, "ci_high", ci.high);
      optional_number(w, "half_width", ci.half_width);
      w.key("slowdowns").begin_array();
      for (double x : s) w.value(x);
      w.end_array().end_object();
      csv +=
          fmt::format("{},{},{},{},{},{},{},{},{},{}\n", cls, f.key, csv_number(mean_of(c.alone)),
                      csv_number(mean_of(c.together)), csv_number(mean), csv_number(ci.low),
                      csv_number(ci.high), csv_number(ci.half_width), ci.n, level_);
    }
    w.end_object();
  }
  w.end_object();
  write_summary(root_, "interference", w, csv, server_process);
}

namespace {

// "×1.02 ± 0.03", "×1.02" (one round), "n/a" (no round has both values).
std::string slowdown_text(const std::vector<double>& s, double level) {
  if (s.empty()) return "n/a";
  const auto ci = metrics::confidence_interval(s, level);
  if (std::isnan(ci.half_width)) return fmt::format("×{:.2f}", ci.mean);
  return fmt::format("×{:.2f} ± {:.2f}", ci.mean, ci.half_width);
}

std::string mean_text(double x) { return std::isnan(x) ? "n/a" : format_short(x); }

std::string trim_end(std::string s) {
  s.erase(s.find_last_not_of(' ') + 1);
  return s;
}

}  // namespace

RunOutcome InterferenceSummary::finish(
    const std::optional<record::ServerProcessFacts>& server_process, bool interrupted,
    std::FILE* console) {
  write(server_process);
  size_t width = 5;
  for (const auto& c : classes_) width = std::max(width, c.size());
  std::string head = fmt::format("  {:<{}}", "class", width);
  for (const auto& f : interference_figures()) head += fmt::format("  {:<15}", f.label);
  fmt::print(console,
             "\ninterference, {} round{}: each class's slowdown beside the others (above 1: "
             "slower),\n{:.0f}% confidence (Student's t over the rounds):\n{}\n",
             rounds_, rounds_ == 1 ? "" : "s", level_ * 100, trim_end(head));
  for (const auto& cls : classes_) {
    std::string row = fmt::format("  {:<{}}", cls, width);
    for (const auto& f : interference_figures())
      row +=
          fmt::format("  {:<15}", slowdown_text(cell(cls, f.key).slowdowns(f.throughput), level_));
    fmt::print(console, "{}\n", trim_end(row));
  }
  fmt::print(console, "  means alone → together (each class's own figures):\n");
  for (const auto& cls : classes_) {
    std::string line = fmt::format("  {:<{}}", cls, width);
    const char* sep = "  ";
    for (const auto& f : interference_figures()) {
      const Cell& c = cell(cls, f.key);
      line += fmt::format("{}{}{} → {} {}", sep, f.brief, mean_text(mean_of(c.alone)),
                          mean_text(mean_of(c.together)), f.unit);
      sep = ", ";
    }
    fmt::print(console, "{}\n", line);
  }
  if (rounds_ == 1) fmt::print(console, "  one round: give --repeats 3 for intervals\n");
  if (fewest_ttft_ < 100)
    fmt::print(console,
               "  TTFT P99 over as few as {} requests a run is near the slowest, not a tail: give "
               "each class num-prompts=100 or more\n",
               fewest_ttft_);
  const auto not_valid =
      std::count_if(done_.begin(), done_.end(), [](const Done& d) { return d.verdict != "VALID"; });
  if (not_valid > 0)
    fmt::print(console, "  {} of {} runs not VALID (their figures are in): see runs in {}\n",
               not_valid, done_.size(), (root_ / "interference" / "summary.json").string());
  fmt::print(console, "interference: {}\n  summary: {}\n", root_.string(),
             (root_ / "interference" / "summary.json").string());
  std::fflush(console);
  RunOutcome out;
  out.run_dir = root_;
  out.interrupted = interrupted;
  out.verdict.valid = code_ == 0 && complete();
  out.exit_code = series_exit_code(disk_stopped_, interrupted, code_);
  return out;
}

RunOutcome run_interference(RunPlan& plan, std::atomic<int>& stop, std::FILE* console,
                            const SeriesOptions& options) {
  std::vector<std::string> classes;
  for (const TrafficClass& k : plan.parsed.classes) classes.push_back(k.name);
  const int rounds = plan.cfg.experiment.repeats;
  PointSession session(plan, stop, console,
                       fmt::format("interference of {} classes, {} round{}", classes.size(), rounds,
                                   rounds == 1 ? "" : "s"),
                       options);
  InterferenceSummary summary(session.root(), classes, rounds, plan.cfg.experiment.confidence);
  summary.write(std::nullopt);  // the root says what it is from the start (report reads it)
  for (const InterferenceRun& run : interference_runs(classes, rounds)) {
    if (session.stopped()) break;
    PointSpec spec = spec_of(plan, run.folder());
    // Each round its own draws; within a round a class draws the same alone as together
    // (class_plan adds the class's position to the seed).
    spec.seed = plan.cfg.load.seed + static_cast<uint64_t>(run.round - 1) * classes.size();
    if (!run.alone.empty()) spec.classes = {run.alone};
    fmt::print(session.point_console(), "\n== round {}/{}: {} ==\n", run.round, rounds,
               run.alone.empty() ? std::string("every class together") : run.alone + " alone");
    try {
      summary.add(run, session.run(spec));
      summary.write(std::nullopt);
    } catch (const std::exception& e) {
      fmt::print(console, "{} stopped: {}\n", run.folder(), e.what());
      summary.stopped();
      break;
    }
  }
  const auto server_process = session.close();
  return session.finish([&] { return summary.finish(server_process, session.stopped(), console); });
}

}  // namespace tokbench::runner
