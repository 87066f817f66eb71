#include "common/samples.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace tokbench::metrics {

namespace {

constexpr size_t kReadEntries = 256;  // per run while merging: 4 KiB each

const char* tmp_dir() {
  const char* d = std::getenv("TMPDIR");
  return d && *d ? d : "/tmp";
}

// A double's bits as an unsigned key in the same order (negatives flipped whole, positives' sign
// set), so that a radix sort on the key sorts the values; value_of undoes it.
uint64_t order_key(double v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return (b >> 63) != 0 ? ~b : b | (uint64_t{1} << 63);
}
double value_of(uint64_t k) {
  const uint64_t b = (k >> 63) != 0 ? k & ~(uint64_t{1} << 63) : ~k;
  double v = 0;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Sorts entries by value: LSD radix sort on the keys, a byte at a time, skipping every byte that
// all keys share (latencies in one range share their top bytes). Linear in the entries, where a
// comparison sort of a 16 Ki spill costs 14 comparisons an entry.
void sort_entries(std::vector<Samples::Entry>& v) {
  if (v.size() < 64) {
    std::sort(v.begin(), v.end(),
              [](const Samples::Entry& a, const Samples::Entry& b) { return a.v < b.v; });
    return;
  }
  struct Keyed {
    uint64_t k;
    int64_t n;
  };
  thread_local std::vector<Keyed> one, two;
  const size_t n = v.size();
  one.resize(n);
  two.resize(n);
  uint32_t counts[8][256] = {};
  for (size_t i = 0; i < n; ++i) {
    const uint64_t k = order_key(v[i].v);
    one[i] = {k, v[i].n};
    for (int d = 0; d < 8; ++d) ++counts[d][(k >> (8 * d)) & 0xff];
  }
  Keyed* from = one.data();
  Keyed* to = two.data();
  for (int d = 0; d < 8; ++d) {
    uint32_t* c = counts[d];
    if (c[(from[0].k >> (8 * d)) & 0xff] == n) continue;  // every key has this byte
    uint32_t at = 0;
    for (int b = 0; b < 256; ++b) {
      const uint32_t k = c[b];
      c[b] = at;
      at += k;
    }
    for (size_t i = 0; i < n; ++i) to[c[(from[i].k >> (8 * d)) & 0xff]++] = from[i];
    std::swap(from, to);
  }
  for (size_t i = 0; i < n; ++i) v[i] = {value_of(from[i].k), from[i].n};
}

// Equal neighbours of a sorted buffer as one entry (their counts added, never past INT64_MAX).
void coalesce(std::vector<Samples::Entry>& v) {
  size_t out = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t merged = 0;
    if (out > 0 && v[out - 1].v == v[i].v &&
        !__builtin_add_overflow(v[out - 1].n, v[i].n, &merged)) {
      v[out - 1].n = merged;
    } else {
      v[out++] = v[i];
    }
  }
  v.resize(out);
}

}  // namespace

Samples::Samples(size_t memory_entries) : cap_(std::max<size_t>(memory_entries, 2)) {}
Samples::Samples(Samples&& o) noexcept { *this = std::move(o); }
Samples& Samples::operator=(Samples&& o) noexcept {
  if (this == &o) return *this;
  if (file_) std::fclose(file_);
  cap_ = o.cap_;
  summary_ = o.summary_;
  buf_ = std::move(o.buf_);
  buf_sorted_ = o.buf_sorted_;
  runs_ = std::move(o.runs_);
  file_ = o.file_;
  file_entries_ = o.file_entries_;
  total_ = o.total_;
  o.file_ = nullptr;
  o.total_ = 0;
  o.file_entries_ = 0;
  return *this;
}
Samples::~Samples() {
  if (file_) std::fclose(file_);
}

void Samples::push(double v, int64_t count) {
  if (count <= 0) return;
  summary_.reset();
  int64_t merged = 0;
  if (!buf_.empty() && buf_.back().v == v &&
      !__builtin_add_overflow(buf_.back().n, count, &merged)) {
    buf_.back().n = merged;  // equal neighbours (k gaps of one chunk) are one entry
  } else {
    if (buf_.size() >= cap_) spill();
    if (!buf_.empty() && v < buf_.back().v) buf_sorted_ = false;
    buf_.push_back({v, count});
  }
  if (__builtin_add_overflow(total_, count, &total_))
    total_ = INT64_MAX;  // a bogus count saturates, never wraps
}

void Samples::spill() {
  if (!buf_sorted_) sort_entries(buf_);
  buf_sorted_ = true;
  coalesce(buf_);
  if (!file_) {
    file_ = std::tmpfile();
    if (!file_) {
      throw std::runtime_error(
          fmt::format("cannot create a temporary file for statistics in {}: {} (set TMPDIR to a "
                      "writable folder with free space)",
                      tmp_dir(), std::strerror(errno)));
    }
  }
  const int64_t offset = file_entries_;
  write_entries(buf_);
  runs_.push_back({offset, static_cast<int64_t>(buf_.size()), 0});
  buf_.clear();
  compact();
}

// Appends sorted entries at the end of the file (the next run's bytes, or a part of them).
void Samples::write_entries(const std::vector<Entry>& entries) {
  std::fseek(file_, 0, SEEK_END);
  if (std::fwrite(entries.data(), sizeof(Entry), entries.size(), file_) != entries.size() ||
      std::fflush(file_) != 0) {
    throw std::runtime_error(
        fmt::format("cannot spill statistics to a temporary file in {}: {} (free some space or "
                    "set TMPDIR)",
                    tmp_dir(), std::strerror(errno)));
  }
  file_entries_ += static_cast<int64_t>(entries.size());
}

// While the last kRunsPerLevel runs share a level, merges them (4 KiB a run and 4 KiB out at a
// time) into one run a level up, appended; their bytes are punched out of the file, which keeps
// its size (offsets stay valid) but not their disk blocks. Like a binary counter in base 32: a
// column of N values holds at most 31 runs a level over log32(N / cap) levels.
void Samples::compact() {
  while (runs_.size() >= kRunsPerLevel) {
    const size_t first = runs_.size() - kRunsPerLevel;
    const int level = runs_.back().level;
    if (runs_[first].level != level) return;  // levels only fall towards the end
    const int64_t offset = file_entries_;
    int64_t count = 0;
    {
      Reader merge(*this, first, runs_.size(), false);
      std::vector<Entry> out;
      out.reserve(kReadEntries);
      for (Entry e{}; merge.next(e);) {
        int64_t added = 0;
        if (!out.empty() && out.back().v == e.v &&
            !__builtin_add_overflow(out.back().n, e.n, &added)) {
          out.back().n = added;
          continue;
        }
        if (out.size() == kReadEntries) {
          write_entries(out);
          count += static_cast<int64_t>(out.size());
          out.clear();
        }
        out.push_back(e);
      }
      write_entries(out);
      count += static_cast<int64_t>(out.size());
    }
    const auto bytes = [](int64_t entries) {
      return static_cast<off_t>(entries * static_cast<int64_t>(sizeof(Entry)));
    };
    // Giving the blocks back is best effort: a file system without holes keeps them.
    (void)::fallocate(::fileno(file_), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                      bytes(runs_[first].offset), bytes(offset - runs_[first].offset));
    runs_.resize(first);
    runs_.push_back({offset, count, level + 1});
  }
}

Samples::Reader::Reader(Samples& s) : Reader(s, 0, s.runs_.size(), true) {}

Samples::Reader::Reader(Samples& s, size_t first, size_t last, bool with_buffer) : s_(s) {
  if (with_buffer && !s.buf_sorted_) {
    sort_entries(s.buf_);
    s.buf_sorted_ = true;
  }
  const size_t runs = last - first;
  cur_.resize(runs + 1);
  for (size_t i = 0; i < runs; ++i) {
    cur_[i].next = s.runs_[first + i].offset;
    cur_[i].end = s.runs_[first + i].offset + s.runs_[first + i].count;
    if (refill(cur_[i])) heap_.emplace_back(head(cur_[i]).v, i);
  }
  cur_.back().memory = true;
  if (with_buffer && !s.buf_.empty()) heap_.emplace_back(s.buf_[0].v, runs);
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
}

bool Samples::Reader::refill(Cursor& c) {
  if (c.memory || c.next >= c.end) return false;
  const auto n =
      static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(kReadEntries), c.end - c.next));
  c.block.resize(n);
  if (std::fseek(s_.file_, static_cast<long>(c.next * static_cast<int64_t>(sizeof(Entry))),
                 SEEK_SET) != 0 ||
      std::fread(c.block.data(), sizeof(Entry), n, s_.file_) != n) {
    throw std::runtime_error(fmt::format("cannot read back spilled statistics in {}", tmp_dir()));
  }
  c.next += static_cast<int64_t>(n);
  c.at = 0;
  return true;
}

bool Samples::Reader::next(Entry& out) {
  if (heap_.empty()) return false;
  const size_t i = heap_.front().second;
  Cursor& c = cur_[i];
  out = head(c);
  const size_t size = c.memory ? s_.buf_.size() : c.block.size();
  // The run just read from usually goes on: its next head replaces the top and sinks once (a
  // pop and a push would each walk the heap).
  if (++c.at < size || refill(c)) {
    heap_.front() = {head(c).v, i};
  } else {
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (heap_.empty()) return true;
  }
  const size_t n = heap_.size();
  size_t at = 0;
  const auto top = heap_.front();
  for (;;) {
    size_t child = 2 * at + 1;
    if (child >= n) break;
    if (child + 1 < n && heap_[child + 1] < heap_[child]) ++child;
    if (!(heap_[child] < top)) break;
    heap_[at] = heap_[child];
    at = child;
  }
  heap_[at] = top;
  return true;
}

void Samples::for_each_sorted(const std::function<void(double, int64_t)>& fn) {
  Reader r(*this);
  Entry e{};
  while (r.next(e)) fn(e.v, e.n);
}

Summary Samples::summarize(PercentileMethod method) {
  if (summary_ && summary_->first == method) return summary_->second;
  Summary s;
  s.n = total_;
  if (total_ == 0) return s;
  // The ranks each statistic needs, as in stats.cpp's percentile functions.
  const double ps[] = {50, 75, 90, 99};
  struct Want {
    int64_t lo, hi;
    double frac;
    double vlo = 0, vhi = 0;
  };
  std::vector<Want> want;
  const auto n = static_cast<double>(total_);
  for (double p : ps) {
    if (method == PercentileMethod::Linear) {
      const double h = (n - 1.0) * p / 100.0;
      const auto lo = static_cast<int64_t>(std::floor(h));
      want.push_back({lo, std::min(lo + 1, total_ - 1), h - static_cast<double>(lo)});
    } else {
      const auto i = std::min(static_cast<int64_t>(n * p / 100.0), total_ - 1);
      want.push_back({i, i, 0.0});
    }
  }
  double sum = 0.0;
  long double d1 = 0, d2 = 0;  // Σ(v − min), Σ(v − min)²: the spread, shifted for precision
  int64_t rank = 0;            // rank of the next value
  bool first = true;
  Reader reader(*this);
  for (Entry e{}; reader.next(e);) {
    const double v = e.v;
    const int64_t count = e.n;
    if (first) s.min = v;
    first = false;
    s.max = v;
    const long double d = static_cast<long double>(v) - s.min;
    d1 += d * static_cast<long double>(count);
    d2 += d * d * static_cast<long double>(count);
    // Summed one by one in ascending order, as std::accumulate over the sorted vector does; a
    // huge run of one value (only a usage bomb makes one) is multiplied instead.
    if (count <= 4096) {
      for (int64_t k = 0; k < count; ++k) sum += v;
    } else {
      sum += v * static_cast<double>(count);
    }
    int64_t end = 0;
    if (__builtin_add_overflow(rank, count, &end)) end = INT64_MAX;
    for (auto& w : want) {
      if (w.lo >= rank && w.lo < end) w.vlo = v;
      if (w.hi >= rank && w.hi < end) w.vhi = v;
    }
    rank = end;
  }
  s.mean = sum / n;
  const long double m1 = d1 / n;
  s.stdev = static_cast<double>(std::sqrt(std::max(0.0L, d2 / n - m1 * m1)));
  double* out[] = {&s.median, &s.p75, &s.p90, &s.p99};
  for (size_t i = 0; i < want.size(); ++i) {
    const Want& w = want[i];
    *out[i] = method == PercentileMethod::Linear ? w.vlo + w.frac * (w.vhi - w.vlo) : w.vlo;
  }
  summary_.emplace(method, s);
  return s;
}

}  // namespace tokbench::metrics
