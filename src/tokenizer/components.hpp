#pragma once
// tokenizer/components: the tokenizer.json pipeline stages other than the model — normalizers,
// pre-tokenizers, decoders — each built from its JSON object. Loading rejects anything not
// implemented with an error naming the JSON path, so a count is never silently wrong.
#include <simdjson.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tokbench::tokenizer {

/// A span of text on its way to the model. `at_start`: it begins at offset 0 of the input
/// (Metaspace's prepend_scheme "first" depends on it).
struct Piece {
  std::string text;
  bool at_start = false;
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void apply(std::string& s) const = 0;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual void apply(std::vector<Piece>& pieces) const = 0;
  /// True when this stage maps text to the GPT-2 byte alphabet (the model then works on bytes).
  virtual bool byte_level() const { return false; }
};

class Decoder {
 public:
  virtual ~Decoder() = default;
  /// One step of HF's decode_chain: tokens in, tokens out.
  virtual std::vector<std::string> apply(std::vector<std::string> tokens) const = 0;
};

/// Each factory throws std::runtime_error("<path>: ...") for unsupported or malformed input.
/// A JSON null yields nullptr (the stage is absent).
std::unique_ptr<Normalizer> make_normalizer(simdjson::dom::element j, const std::string& path);
std::unique_ptr<PreTokenizer> make_pre_tokenizer(simdjson::dom::element j, const std::string& path);
std::unique_ptr<Decoder> make_decoder(simdjson::dom::element j, const std::string& path);

/// GPT-2's reversible byte <-> printable-character map used by ByteLevel stages.
const std::vector<char32_t>& byte_to_char();
/// Inverse of byte_to_char(): -1 for characters outside the alphabet.
int char_to_byte(char32_t c);

/// JSON helpers shared by the loaders (errors name `path`).
std::string_view json_string(simdjson::dom::element j, std::string_view key,
                             const std::string& path);
bool json_bool(simdjson::dom::element j, std::string_view key, bool fallback);

}  // namespace tokbench::tokenizer
