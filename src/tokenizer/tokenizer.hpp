#pragma once
// tokenizer/: a HuggingFace tokenizer.json in C++ — exact ids for the BPE tokenizers today's
// models use (Llama-3, Qwen2/3, DeepSeek-V3, Llama-2/Mistral, Gemma-3), checked against HF
// tokenizers itself. Depends on nothing else in tokbench. Anything it cannot reproduce exactly
// is an error at load time that names the JSON field, never a silently wrong count.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tokbench::tokenizer {

class Tokenizer {
 public:
  /// Loads a model folder (tokenizer.json + optional tokenizer_config.json) or a tokenizer.json
  /// path. Throws std::runtime_error naming the file, the JSON path and the problem.
  static Tokenizer load(const std::string& path);
  /// A tokenizer.json's text already in memory (no tokenizer_config.json); `name` stands for the
  /// file in errors. load() parses through the same code.
  static Tokenizer from_json(std::string_view json, const std::string& name = "tokenizer.json");

  /// Token ids of `text`, as HF's encode(text, add_special_tokens) with transformers' settings:
  /// special tokens written in the text are recognized; add_special_tokens adds what the
  /// post-processor (or tokenizer_config.json's add_bos_token / add_eos_token for Llama and
  /// Gemma tokenizer classes) adds. Invalid UTF-8 is first repaired (U+FFFD per maximal
  /// invalid subpart), which is what HF sees when handed bytes. Thread-safe.
  std::vector<int32_t> encode(std::string_view text, bool add_special_tokens = true) const;

  /// encode(text, add_special_tokens).size().
  size_t count(std::string_view text, bool add_special_tokens = false) const;

  /// Text of `ids` through the decoder (HF's decode); unknown ids are skipped.
  std::string decode(std::span<const int32_t> ids, bool skip_special_tokens = false) const;

  size_t vocab_size() const;  ///< highest id + 1, added tokens included
  std::optional<int32_t> bos_id() const;
  std::optional<int32_t> eos_id() const;
  std::optional<int32_t> token_to_id(std::string_view token) const;
  std::string id_to_token(int32_t id) const;
  bool is_special(int32_t id) const;
  /// True when this id must never appear in a synthetic prompt (specials, byte-fallback, unk).
  bool is_control(int32_t id) const;

  struct Impl;

 private:
  explicit Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace tokbench::tokenizer
