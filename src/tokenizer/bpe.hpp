#pragma once
// tokenizer/bpe: the BPE model of tokenizer.json — vocab, ranked merges, byte_fallback, unk and
// fuse_unk, ignore_merges, continuing_subword_prefix / end_of_word_suffix. For byte-level
// tokenizers the vocabulary is re-keyed on raw bytes at load, so words are never mapped to the
// GPT-2 alphabet at encode time. Immutable after load; encode() is thread-safe (per-thread cache).
#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tokbench::tokenizer {

class Bpe {
 public:
  /// Builds the model from tokenizer.json's "model" object. `byte_level`: re-key on raw bytes.
  Bpe(simdjson::dom::element model, bool byte_level, const std::string& path);

  /// Appends the ids of one pre-tokenized word.
  void encode_word(std::string_view word, std::vector<int32_t>& out) const;

  /// The token string as written in tokenizer.json (byte-level alphabet included), or "".
  const std::string& token(int32_t id) const;
  std::optional<int32_t> id_of(std::string_view token_as_in_json) const;
  size_t size() const { return tokens_.size(); }

 private:
  void merge(std::vector<int32_t>& symbols, std::vector<int32_t>& out) const;
  void initial_symbols(std::string_view word, std::vector<int32_t>& symbols) const;

  bool byte_level_;
  bool byte_fallback_ = false;
  bool fuse_unk_ = false;
  bool ignore_merges_ = false;
  int32_t unk_ = -1;
  std::string prefix_, suffix_;
  std::unordered_map<std::string, int32_t> vocab_;       // encode keys (raw bytes when byte-level)
  std::unordered_map<std::string, int32_t> json_vocab_;  // as written, for id_of
  std::vector<std::string> tokens_;                      // id -> token as written
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges_;  // (a, b) -> (rank, new id)
  int32_t byte_ids_[256];  // "<0xXX>" ids for byte_fallback (-1: none)
  uint64_t generation_;    // keys the per-thread word cache
};

}  // namespace tokbench::tokenizer
