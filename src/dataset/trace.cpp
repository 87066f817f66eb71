// dataset/trace: Mooncake-format request traces (reference/aisbench.md and other_tools.md: AISBench
// and AIPerf replay them). One JSON line per request: `timestamp` (ms), `input_length`,
// `output_length`, `hash_ids` (one id per block of --trace-block-size prompt tokens; an id names
// its whole prefix, as a prefix cache's chained block hashes do). Each block's text is made once,
// after the text of the blocks before it, so requests that share leading hash ids share those
// exact prompt tokens and a server's prefix cache sees what production saw. Lines are replayed
// at their timestamps (a fixed schedule, scaled by --trace-speed).
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "dataset/dataset.hpp"
#include "dataset/json_lines.hpp"
#include "dataset/prompt_builder.hpp"

namespace tokbench::dataset {

namespace {

struct Line {
  double timestamp_ms = 0;
  int64_t input = 0, output = 0;
  std::vector<int64_t> hashes;
};

constexpr int64_t kMaxLength = 1 << 20;  // tokens: a line claiming more is refused, not allocated

std::vector<Line> read_lines(std::istream& in, const std::string& path) {
  std::vector<Line> out;
  constexpr std::string_view kLine =
      "a trace line is {\"timestamp\", \"input_length\", \"output_length\", \"hash_ids\"} "
      "(Mooncake's format)";
  for_each_json_line(in, path, kLine, [&](const JsonLine& line) {
    const std::string& where = line.where;
    simdjson::dom::object o;
    if (line.doc.get_object().get(o))
      throw std::runtime_error(fmt::format("{}: not a JSON object; {}", where, kLine));
    Line l;
    auto integer = [&](std::string_view key, int64_t lo) {
      int64_t v = 0;
      if (o[key].get_int64().get(v) || v < lo || v > kMaxLength)
        throw std::runtime_error(
            fmt::format("{}: \"{}\" must be an integer from {} to {}", where, key, lo, kMaxLength));
      return v;
    };
    if (o["timestamp"].get_double().get(l.timestamp_ms) || !std::isfinite(l.timestamp_ms) ||
        l.timestamp_ms < 0)
      throw std::runtime_error(
          fmt::format("{}: \"timestamp\" must be a number of milliseconds >= 0", where));
    l.input = integer("input_length", 1);
    l.output = integer("output_length", 1);
    simdjson::dom::array ids;
    if (!o["hash_ids"].get_array().get(ids)) {
      for (auto id : ids) {
        int64_t h = 0;
        if (id.get_int64().get(h))
          throw std::runtime_error(fmt::format("{}: \"hash_ids\" must hold integers", where));
        l.hashes.push_back(h);
      }
    }
    out.push_back(std::move(l));
  });
  if (out.empty()) throw std::runtime_error(fmt::format("trace '{}' has no requests", path));
  // Replayed in time order; equal timestamps keep the file's order.
  std::stable_sort(out.begin(), out.end(),
                   [](const Line& a, const Line& b) { return a.timestamp_ms < b.timestamp_ms; });
  return out;
}

}  // namespace

double implied_prefix_hit(const std::vector<std::vector<int64_t>>& hash_ids,
                          const std::vector<int64_t>& input_lengths, int64_t block_size) {
  std::set<int64_t> seen;
  double cached = 0, total = 0;
  for (size_t i = 0; i < hash_ids.size(); ++i) {
    const int64_t full_blocks = input_lengths[i] / block_size;
    int64_t hit = 0;
    while (hit < static_cast<int64_t>(hash_ids[i].size()) && hit < full_blocks &&
           seen.count(hash_ids[i][hit]))
      ++hit;
    cached += static_cast<double>(hit * block_size);
    total += static_cast<double>(input_lengths[i]);
    for (int64_t b = 0;
         b < std::min<int64_t>(full_blocks, static_cast<int64_t>(hash_ids[i].size())); ++b)
      seen.insert(hash_ids[i][b]);
  }
  return total > 0 ? cached / total : 0;
}

Dataset trace(const std::string& path, const TraceOptions& o, TokenCodec& codec) {
  if (o.block_size < 1)
    throw std::invalid_argument(
        fmt::format("--trace-block-size: bad value {} (expected >= 1)", o.block_size));
  if (!(o.speed > 0))
    throw std::invalid_argument(fmt::format("--trace-speed: bad value {} (expected > 0)", o.speed));
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error(
        fmt::format("cannot open trace '{}' (check the path after 'trace:')", path));
  std::vector<Line> lines = read_lines(in, path);
  if (o.count > 0 && o.count < static_cast<int64_t>(lines.size()))
    lines.resize(static_cast<size_t>(o.count));

  Dataset d;
  d.kind = "trace";
  d.path = path;
  d.abbr = "trace";
  detail::Builder b(codec, o.seed);
  // A block's text and the ids of everything up to its end, made once per (hash id, length).
  struct Block {
    std::string text;
    std::vector<int32_t> ids_to_here;
  };
  std::map<std::pair<int64_t, int64_t>, Block> blocks;
  int64_t fresh = -1;  // ids for blocks the trace gives no hash for: unique, never shared
  std::vector<std::vector<int64_t>> chains;
  std::vector<int64_t> lengths;
  const double t0 = lines.front().timestamp_ms;
  for (const auto& l : lines) {
    const int64_t want = l.input - o.overhead;  // the server adds its chat template and BOS
    if (want < 1) {
      throw std::invalid_argument(
          fmt::format("{}: input_length {} leaves no prompt after the {} token(s) the server adds",
                      path, l.input, o.overhead));
    }
    std::string prompt;
    std::vector<int32_t> ids;
    const int64_t nblocks = (want + o.block_size - 1) / o.block_size;
    for (int64_t k = 0; k < nblocks; ++k) {
      const int64_t len = std::min(o.block_size, want - k * o.block_size);
      const int64_t h =
          k < static_cast<int64_t>(l.hashes.size()) ? l.hashes[static_cast<size_t>(k)] : fresh--;
      auto it = blocks.find({h, len});
      if (it == blocks.end()) {
        Block blk;
        blk.text = b.body(prompt, ids, len, &blk.ids_to_here);
        it = blocks.emplace(std::make_pair(h, len), std::move(blk)).first;
      }
      prompt += it->second.text;
      ids = it->second.ids_to_here;
    }
    RequestSpec spec(std::move(prompt), l.output);
    spec.expected_input_tokens = l.input;
    d.items.push_back(std::move(spec));
    d.schedule_ns.push_back(static_cast<int64_t>((l.timestamp_ms - t0) * 1e6 / o.speed));
    chains.push_back(l.hashes);
    lengths.push_back(l.input);
  }
  d.implied_cache_hit = implied_prefix_hit(chains, lengths, o.block_size);
  const double span_s = static_cast<double>(d.schedule_ns.back()) / 1e9;
  d.summary = fmt::format(
      "trace: {} requests over {:.3f} s (speed {}x), {} distinct prompt blocks of {} tokens; an "
      "unbounded "
      "prefix cache of full blocks would hold {:.1f}% of the prompt tokens; built with {}",
      d.items.size(), span_s, o.speed, blocks.size(), o.block_size, 100 * d.implied_cache_hit,
      codec.name());
  return d;
}

}  // namespace tokbench::dataset
