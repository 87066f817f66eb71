#pragma once
// dataset/prompt_builder (internal to dataset/): text of an exact token length after a given
// prefix. Random plain-text tokens are decoded, re-encoded and trimmed or extended by the
// difference until encode(prefix + text) is the prefix's ids plus exactly n tokens (merges across
// token boundaries make the first decode drift by a few tokens; 1-3 rounds fix it). Used by the
// synthetic prompts and by trace replay's shared prefix blocks.
#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "dataset/dataset.hpp"

namespace tokbench::dataset::detail {

constexpr int kRounds = 64;

inline bool clean_text(const std::string& s) {
  if (s.empty() || s.find("\xEF\xBF\xBD") != std::string::npos)
    return false;  // U+FFFD: a partial character
  for (unsigned char c : s)
    if (c < 0x20 && c != ' ') return false;  // no control characters, no newlines
  return true;
}

class Builder {
 public:
  Builder(TokenCodec& tok, uint64_t seed) : tok_(tok), rng_(seed), pool_(tok.pool()) {
    if (pool_.size() < 64)
      throw std::runtime_error(
          fmt::format("{} offers too few plain-text tokens ({}) to build synthetic prompts",
                      tok.name(), pool_.size()));
  }

  int32_t random_id() {
    return pool_[std::uniform_int_distribution<size_t>(0, pool_.size() - 1)(rng_)];
  }

  // Text after `prefix` such that encode(prefix + text) has prefix_ids.size() + n tokens and
  // starts with prefix_ids. `ids_out`, when given, receives that encoding (the caller need not
  // encode prefix + text again).
  std::string body(const std::string& prefix, const std::vector<int32_t>& prefix_ids, int64_t n,
                   std::vector<int32_t>* ids_out = nullptr) {
    const size_t p = prefix_ids.size(), target = p + static_cast<size_t>(n);
    std::vector<int32_t> ids(static_cast<size_t>(n));
    for (auto& id : ids) id = random_id();
    for (int round = 0; round < kRounds; ++round) {
      const std::string text = tok_.decode(ids);
      const auto enc = tok_.encode(prefix + text);
      const bool prefix_intact =
          enc.size() >= p && std::equal(prefix_ids.begin(), prefix_ids.end(), enc.begin());
      if (enc.size() == target && prefix_intact && clean_text(text)) {
        if (ids_out) *ids_out = enc;
        return text;
      }
      if (!prefix_intact) {
        ids.front() = random_id();  // the body merged into the prefix: start it differently
        continue;
      }
      ids.assign(enc.begin() + static_cast<std::ptrdiff_t>(p), enc.end());
      if (ids.size() > static_cast<size_t>(n)) ids.resize(static_cast<size_t>(n));
      while (ids.size() < static_cast<size_t>(n)) ids.push_back(random_id());
      if (round % 8 == 7) ids.back() = random_id();  // break a cycle at the boundary
    }
    throw std::runtime_error(
        fmt::format("could not build a prompt of exactly {} tokens in {} rounds", n, kRounds));
  }

  std::mt19937_64& rng() { return rng_; }

 private:
  TokenCodec& tok_;
  std::mt19937_64 rng_;
  std::vector<int32_t> pool_;
};

}  // namespace tokbench::dataset::detail
