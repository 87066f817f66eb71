#include "tokenizer/bpe.hpp"

#include <fmt/format.h>

#include <atomic>
#include <optional>
#include <queue>
#include <stdexcept>

#include "tokenizer/components.hpp"
#include "tokenizer/utf8.hpp"

namespace tokbench::tokenizer {

namespace {
constexpr int64_t kMaxTokenId = int64_t{1} << 24;
}  // namespace

namespace {

constexpr size_t kCacheWordBytes = 256;   // HF caches words shorter than this ...
constexpr size_t kCacheEntries = 10'000;  // ... up to this many per thread

std::atomic<uint64_t> g_generation{1};

uint64_t pair_key(int32_t a, int32_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

// Maps a token written in the GPT-2 byte alphabet back to raw bytes; false if it is not one.
bool to_raw_bytes(std::string_view t, std::string& out) {
  out.clear();
  for (size_t i = 0, n = 0; i < t.size(); i += n) {
    const int b = char_to_byte(utf8::decode(t, i, &n));
    if (b < 0) return false;
    out.push_back(static_cast<char>(b));
  }
  return true;
}

struct WordCache {
  uint64_t generation = 0;
  std::unordered_map<std::string, std::vector<int32_t>> words;
};

WordCache& cache_for(uint64_t generation) {
  thread_local std::vector<WordCache> caches;  // one per live tokenizer used on this thread
  for (auto& c : caches)
    if (c.generation == generation) return c;
  if (caches.size() >= 8) caches.erase(caches.begin());
  caches.push_back(WordCache{generation, {}});
  return caches.back();
}

}  // namespace

Bpe::Bpe(simdjson::dom::element model, bool byte_level, const std::string& path)
    : byte_level_(byte_level), generation_(g_generation.fetch_add(1)) {
  std::string_view type;
  if (model["type"].get_string().get(type)) type = "BPE";  // old files omit it
  if (type != "BPE") {
    throw std::runtime_error(
        fmt::format("{}.type: unsupported model type '{}' (tokbench supports BPE)", path, type));
  }
  double dropout = 0;
  if (!model["dropout"].get_double().get(dropout) && dropout > 0)
    throw std::runtime_error(fmt::format(
        "{}.dropout: {} is random; tokbench needs a deterministic BPE (null)", path, dropout));
  byte_fallback_ = json_bool(model, "byte_fallback", false);
  fuse_unk_ = json_bool(model, "fuse_unk", false);
  ignore_merges_ = json_bool(model, "ignore_merges", false);
  std::string_view s;
  if (!model["continuing_subword_prefix"].get_string().get(s)) prefix_ = std::string(s);
  if (!model["end_of_word_suffix"].get_string().get(s)) suffix_ = std::string(s);

  simdjson::dom::object vocab;
  if (model["vocab"].get_object().get(vocab))
    throw std::runtime_error(fmt::format("{}.vocab: missing object", path));
  std::string raw;
  for (auto field : vocab) {
    int64_t id = -1;
    if (field.value.get_int64().get(id) || id < 0)
      throw std::runtime_error(
          fmt::format("{}.vocab[\"{}\"]: expected a non-negative integer id", path, field.key));
    // Ids size the id -> token table: one past any real vocabulary (Gemma 3's is 262,144) is a
    // broken file, not a reason to allocate gigabytes (found by fuzz/tokenizer).
    if (id >= kMaxTokenId) {
      throw std::runtime_error(
          fmt::format("{}.vocab[\"{}\"]: id {} is beyond any real vocabulary (at most {})", path,
                      field.key, id, kMaxTokenId - 1));
    }
    if (static_cast<size_t>(id) >= tokens_.size()) tokens_.resize(static_cast<size_t>(id) + 1);
    tokens_[static_cast<size_t>(id)] = std::string(field.key);
    json_vocab_.emplace(std::string(field.key), static_cast<int32_t>(id));
    const bool mapped = byte_level_ && to_raw_bytes(field.key, raw);
    vocab_.emplace(mapped ? raw : std::string(field.key), static_cast<int32_t>(id));
  }
  std::string_view unk;
  if (!model["unk_token"].get_string().get(unk)) {
    auto it = json_vocab_.find(std::string(unk));
    if (it == json_vocab_.end())
      throw std::runtime_error(fmt::format("{}.unk_token: '{}' is not in the vocab", path, unk));
    unk_ = it->second;
  }
  for (int b = 0; b < 256; ++b) {
    auto it = json_vocab_.find(fmt::format("<0x{:02X}>", b));
    byte_ids_[b] = it == json_vocab_.end() ? -1 : it->second;
  }

  simdjson::dom::array merges;
  if (model["merges"].get_array().get(merges))
    throw std::runtime_error(fmt::format("{}.merges: missing array", path));
  merges_.reserve(merges.size());
  int32_t rank = 0;
  for (auto m : merges) {
    std::string a, b;
    std::string_view line;
    simdjson::dom::array pair;
    if (!m.get_string().get(line)) {  // "a b"
      const size_t sp = line.find(' ');
      if (sp == std::string_view::npos || line.find(' ', sp + 1) != std::string_view::npos)
        throw std::runtime_error(fmt::format(
            "{}.merges[{}]: '{}' is not two tokens separated by one space", path, rank, line));
      a = std::string(line.substr(0, sp));
      b = std::string(line.substr(sp + 1));
    } else if (!m.get_array().get(pair) && pair.size() == 2) {  // ["a", "b"]
      std::string_view x, y;
      if (pair.at(0).get_string().get(x) || pair.at(1).get_string().get(y))
        throw std::runtime_error(fmt::format("{}.merges[{}]: expected two strings", path, rank));
      a = std::string(x);
      b = std::string(y);
    } else {
      throw std::runtime_error(
          fmt::format("{}.merges[{}]: expected \"a b\" or [\"a\", \"b\"]", path, rank));
    }
    auto id = [&](const std::string& t) {
      auto it = json_vocab_.find(t);
      if (it == json_vocab_.end())
        throw std::runtime_error(
            fmt::format("{}.merges[{}]: token '{}' is not in the vocab", path, rank, t));
      return it->second;
    };
    const std::string merged = a + (b.starts_with(prefix_) ? b.substr(prefix_.size()) : b);
    const int32_t ia = id(a), ib = id(b), im = id(merged);
    merges_[pair_key(ia, ib)] = {rank, im};  // a duplicate pair keeps the last rank, as HF
    ++rank;
  }
}

const std::string& Bpe::token(int32_t id) const {
  static const std::string kEmpty;
  return id >= 0 && static_cast<size_t>(id) < tokens_.size() ? tokens_[static_cast<size_t>(id)]
                                                             : kEmpty;
}

std::optional<int32_t> Bpe::id_of(std::string_view t) const {
  auto it = json_vocab_.find(std::string(t));
  if (it == json_vocab_.end()) return std::nullopt;
  return it->second;
}

void Bpe::initial_symbols(std::string_view word, std::vector<int32_t>& symbols) const {
  std::string key;
  bool prev_unk = false;
  for (size_t i = 0, n = 0; i < word.size(); i += n) {
    if (byte_level_) {
      n = 1;
    } else {
      utf8::decode(word, i, &n);
    }
    key.clear();
    if (i > 0 && !prefix_.empty()) key += prefix_;
    key.append(word.substr(i, n));
    if (i + n == word.size() && !suffix_.empty()) key += suffix_;
    if (auto it = vocab_.find(key); it != vocab_.end()) {
      symbols.push_back(it->second);
      prev_unk = false;
      continue;
    }
    if (byte_fallback_) {
      bool all = true;
      for (size_t k = 0; k < n; ++k) all &= byte_ids_[static_cast<unsigned char>(word[i + k])] >= 0;
      if (all) {
        for (size_t k = 0; k < n; ++k)
          symbols.push_back(byte_ids_[static_cast<unsigned char>(word[i + k])]);
        prev_unk = false;
        continue;
      }
    }
    if (unk_ >= 0) {
      if (!(fuse_unk_ && prev_unk)) symbols.push_back(unk_);
      prev_unk = true;
    }
    // Neither byte_fallback nor unk: HF drops the character silently, and so do we.
  }
}

// HF's Word::merge_all: a min-heap on (rank, position); an entry is stale when the pair at its
// position no longer maps to the same new id.
void Bpe::merge(std::vector<int32_t>& symbols, std::vector<int32_t>& out) const {
  const size_t n = symbols.size();
  if (n < 2 || merges_.empty()) {
    out.insert(out.end(), symbols.begin(), symbols.end());
    return;
  }
  std::vector<int32_t> prev(n), next(n);
  std::vector<bool> alive(n, true);
  for (size_t i = 0; i < n; ++i) {
    prev[i] = static_cast<int32_t>(i) - 1;
    next[i] = i + 1 < n ? static_cast<int32_t>(i + 1) : -1;
  }
  struct Entry {
    int32_t rank, pos, new_id;
    bool operator>(const Entry& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  auto push = [&](int32_t pos) {
    if (pos < 0 || next[static_cast<size_t>(pos)] < 0) return;
    auto it = merges_.find(pair_key(symbols[static_cast<size_t>(pos)],
                                    symbols[static_cast<size_t>(next[static_cast<size_t>(pos)])]));
    if (it != merges_.end()) heap.push({it->second.first, pos, it->second.second});
  };
  for (size_t i = 0; i + 1 < n; ++i) push(static_cast<int32_t>(i));
  while (!heap.empty()) {
    const Entry e = heap.top();
    heap.pop();
    const auto p = static_cast<size_t>(e.pos);
    if (!alive[p] || next[p] < 0) continue;
    const auto q = static_cast<size_t>(next[p]);
    auto it = merges_.find(pair_key(symbols[p], symbols[q]));
    if (it == merges_.end() || it->second.second != e.new_id || it->second.first != e.rank)
      continue;
    symbols[p] = e.new_id;
    alive[q] = false;
    next[p] = next[q];
    if (next[q] >= 0) prev[static_cast<size_t>(next[q])] = e.pos;
    push(prev[p]);
    push(e.pos);
  }
  for (int32_t i = 0; i >= 0; i = next[static_cast<size_t>(i)])
    out.push_back(symbols[static_cast<size_t>(i)]);
}

void Bpe::encode_word(std::string_view word, std::vector<int32_t>& out) const {
  if (word.empty()) return;
  if (ignore_merges_) {
    if (auto it = vocab_.find(std::string(word)); it != vocab_.end()) {
      out.push_back(it->second);
      return;
    }
  }
  const bool cacheable = word.size() < kCacheWordBytes;
  WordCache* cache = nullptr;
  if (cacheable) {
    cache = &cache_for(generation_);
    if (auto it = cache->words.find(std::string(word)); it != cache->words.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  thread_local std::vector<int32_t> symbols, ids;
  symbols.clear();
  ids.clear();
  initial_symbols(word, symbols);
  merge(symbols, ids);
  out.insert(out.end(), ids.begin(), ids.end());
  if (cache) {
    if (cache->words.size() >= kCacheEntries) cache->words.clear();
    cache->words.emplace(std::string(word), ids);
  }
}

}  // namespace tokbench::tokenizer
