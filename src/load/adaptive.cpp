#include "load/adaptive.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tokbench::load {

namespace {

constexpr int64_t kMinJudged = 5;  // fewer requests in a window: too few to judge; the level stays

}  // namespace

AdaptiveSource::AdaptiveSource(int start, int max, int64_t window_ns, int64_t duration_ns,
                               std::unique_ptr<record::WindowJudge> judge, core::RequestMaker make)
    : judge_(std::move(judge)),
      make_(std::move(make)),
      level_(std::max(1, start)),
      max_(std::max(1, max)),
      window_ns_(window_ns),
      duration_ns_(duration_ns) {}

void AdaptiveSource::start(int64_t phase_start_ns) {
  std::lock_guard lock(mu_);
  phase_ = window_start_ = level_since_ = phase_start_ns;
}

load::Pull AdaptiveSource::next(int64_t now_ns) {
  int64_t index = 0;
  {
    std::lock_guard lock(mu_);
    judge_until(now_ns);
    if (now_ns - phase_ >= duration_ns_) return load::Pull::done();
    if (in_flight_ >= level_) return load::Pull::later();  // asked again after the next completion
    index = next_index_++;
    ++in_flight_;
  }
  core::PlannedRequest p = make_(index);
  p.index = index;
  return load::Pull::of(std::move(p));
}

void AdaptiveSource::completed(record::RequestRecord& r) {
  std::lock_guard lock(mu_);
  --in_flight_;
  judge_until(r.done_ns);
  // Judged: sent at this window's level, ended inside the window. A failure breaks every SLO.
  if (r.sent_ns < level_since_ || r.done_ns < window_start_) return;
  ++judged_;
  judge_->add(r);
}

int AdaptiveSource::next_level(bool pass) {
  if (pass)
    last_pass_ = std::max(last_pass_, level_);
  else
    first_fail_ = first_fail_ == 0 ? level_ : std::min(first_fail_, level_);
  if (first_fail_ == 0) return std::min(max_, level_ * 2);            // still climbing
  if (first_fail_ - last_pass_ <= 1) return std::max(1, last_pass_);  // converged: hold at the edge
  return (last_pass_ + first_fail_) / 2;  // bisect (last_pass_ is 0 when even the start failed)
}

void AdaptiveSource::judge_until(int64_t now_ns) {
  while (now_ns - window_start_ >= window_ns_ && window_start_ - phase_ < duration_ns_) {
    AdaptiveWindow w;
    w.index = static_cast<int64_t>(windows_.size());
    w.start_s = static_cast<double>(window_start_ - phase_) / 1e9;
    w.end_s = static_cast<double>(window_start_ + window_ns_ - phase_) / 1e9;
    w.concurrency = level_;
    w.judged = judged_;
    record::WindowJudgement judged = judge_->close();
    const bool pass = judged_ >= kMinJudged && judged.pass;
    if (judged_ >= kMinJudged)
      w.values = std::move(judged.values);
    else
      w.values.assign(judged.values.size(), std::nullopt);
    w.pass = pass;
    const int before = level_;
    if (judged_ >= kMinJudged) level_ = next_level(pass);
    w.action = judged_ < kMinJudged
                   ? fmt::format("too few requests ({}) to judge: stay at {}", judged_, level_)
               : level_ > before ? fmt::format("raise to {}", level_)
               : level_ < before ? fmt::format("lower to {}", level_)
                                 : fmt::format("hold at {}", level_);
    windows_.push_back(w);
    window_start_ += window_ns_;
    if (level_ != before) level_since_ = window_start_;
    judged_ = 0;
  }
}

std::vector<AdaptiveWindow> AdaptiveSource::windows() const {
  std::lock_guard lock(mu_);
  return windows_;
}

std::string AdaptiveSource::summary() const {
  std::lock_guard lock(mu_);
  if (last_pass_ == 0)
    return "no level held every SLO over a window: lower --concurrency (the starting level)";
  if (first_fail_ == 0)
    return fmt::format(
        "every window held up to {} in flight (the controller's ceiling is --adaptive-max {})",
        last_pass_, max_);
  return fmt::format("the highest concurrency that held every SLO over a window: {} ({} broke one)",
                     last_pass_, first_fail_);
}

record::AdaptiveLog AdaptiveSource::log() const {
  record::AdaptiveLog out;
  out.summary = summary();
  std::lock_guard lock(mu_);
  out.window_s = static_cast<double>(window_ns_) / 1e9;
  out.slos = judge_->names();
  if (last_pass_ > 0) out.held = last_pass_;
  out.rule =
      "double while every SLO holds over a window; after the first window that breaks one, bisect "
      "between the "
      "last level that held and the first that broke; then hold. A window judges the requests sent "
      "at its "
      "level that ended inside it (a failure breaks every SLO); fewer than 5: not judged";
  out.windows = windows_;
  return out;
}

}  // namespace tokbench::load
