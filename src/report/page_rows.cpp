#include "report/page_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace tokbench::report {

namespace {

// The heap's order: the fastest of the kept slowest is on top, to be evicted first.
bool slower(const PageRow& a, const PageRow& b) {
  return a.e2el != b.e2el ? a.e2el > b.e2el : a.index > b.index;
}

std::runtime_error spill_error(const char* what) {
  const char* tmp = std::getenv("TMPDIR");
  return std::runtime_error(fmt::format(
      "cannot {} the run page's rows in a temporary file in {}: {} (set TMPDIR to a writable "
      "folder with free space)",
      what, tmp && *tmp ? tmp : "/tmp", std::strerror(errno)));
}

// Calls fn for each row of a spill, from its start, 1,024 rows at a time.
void read_back(std::FILE* f, const std::function<void(const PageRow&)>& fn) {
  if (std::fseek(f, 0, SEEK_SET) != 0) throw spill_error("read back");
  std::vector<PageRow> block(1024);
  for (size_t n; (n = std::fread(block.data(), sizeof(PageRow), block.size(), f)) > 0;)
    for (size_t i = 0; i < n; ++i) fn(block[i]);
  if (std::ferror(f)) throw spill_error("read back");
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
  if (row.apart) {  // neither a failure nor a success: drawn as the ordinary rest are
    rest_.offer(row, next_random());
    return;
  }
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
  failed_ += !row.ok && !row.apart;
  if (sampling_) {
    feed(row);
    return;
  }
  if (!spill_) {
    spill_.reset(std::tmpfile());
    if (!spill_) throw spill_error("create");
  }
  if (std::fwrite(&row, sizeof row, 1, spill_.get()) != 1) throw spill_error("write");
  if (++spilled_ <= static_cast<int64_t>(kDrawAll)) return;
  sampling_ = true;
  if (std::fflush(spill_.get()) != 0) throw spill_error("write");
  read_back(spill_.get(), [this](const PageRow& r) { feed(r); });
  spill_.reset();
}

RowSampler::Drawn RowSampler::take() {
  Drawn d;
  d.total = total_;
  d.failed = failed_;
  if (!sampling_) {
    if (spill_ && std::fflush(spill_.get()) != 0) throw spill_error("write");
    d.spill = std::move(spill_);
    d.drawn = spilled_;
    d.failed_drawn = failed_;
    return d;
  }
  d.sampled = true;
  d.failed_drawn = static_cast<int64_t>(failures_.kept.size());
  d.slowest_drawn = static_cast<int64_t>(slowest_.size());
  d.sampled_drawn = static_cast<int64_t>(rest_.kept.size());
  d.kept = std::move(failures_.kept);
  d.kept.insert(d.kept.end(), slowest_.begin(), slowest_.end());
  d.kept.insert(d.kept.end(), rest_.kept.begin(), rest_.kept.end());
  d.drawn = static_cast<int64_t>(d.kept.size());
  return d;
}

void RowSampler::Drawn::for_each(const std::function<void(const PageRow&)>& fn) {
  if (spill) read_back(spill.get(), fn);
  for (const auto& r : kept) fn(r);
}

}  // namespace tokbench::report
