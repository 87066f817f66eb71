#include "report/page_rows.hpp"

#include <algorithm>

namespace tokbench::report {

namespace {

// The heap's order: the fastest of the kept slowest is on top, to be evicted first.
bool slower(const PageRow& a, const PageRow& b) {
  return a.e2el != b.e2el ? a.e2el > b.e2el : a.index > b.index;
}

}  // namespace

// splitmix64: small, fast, and the same sequence on every platform (std::uniform_int_distribution
// is not).
uint64_t RowSampler::next_random() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void RowSampler::Reservoir::offer(const PageRow& r, uint64_t draw) {
  ++seen;
  if (kept.size() < cap) {
    kept.push_back(r);
    return;
  }
  const auto j = static_cast<int64_t>(draw % static_cast<uint64_t>(seen));
  if (j < static_cast<int64_t>(cap)) kept[static_cast<size_t>(j)] = r;
}

void RowSampler::feed(const PageRow& row) {
  if (!row.ok) {
    failures_.offer(row, next_random());
    return;
  }
  slowest_.push_back(row);
  std::push_heap(slowest_.begin(), slowest_.end(), slower);
  if (slowest_.size() <= kSlowest) return;
  std::pop_heap(slowest_.begin(), slowest_.end(), slower);
  rest_.offer(slowest_.back(), next_random());  // no longer among the slowest: an ordinary success
  slowest_.pop_back();
}

void RowSampler::add(const PageRow& row) {
  ++total_;
  failed_ += !row.ok;
  if (sampling_) {
    feed(row);
    return;
  }
  all_.push_back(row);
  if (all_.size() <= kDrawAll) return;
  sampling_ = true;
  for (const auto& r : all_) feed(r);
  std::vector<PageRow>().swap(all_);
}

RowSampler::Drawn RowSampler::take() {
  Drawn d;
  d.total = total_;
  d.failed = failed_;
  if (!sampling_) {
    d.rows = std::move(all_);
    d.failed_drawn = failed_;
    return d;
  }
  d.sampled = true;
  d.failed_drawn = static_cast<int64_t>(failures_.kept.size());
  d.slowest_drawn = static_cast<int64_t>(slowest_.size());
  d.sampled_drawn = static_cast<int64_t>(rest_.kept.size());
  d.rows = std::move(failures_.kept);
  d.rows.insert(d.rows.end(), slowest_.begin(), slowest_.end());
  d.rows.insert(d.rows.end(), rest_.kept.begin(), rest_.kept.end());
  return d;
}

}  // namespace tokbench::report
