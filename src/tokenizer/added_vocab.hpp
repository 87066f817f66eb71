#pragma once
// tokenizer/added_vocab: tokenizer.json's added_tokens, found in text leftmost-longest before
// the model sees it (HF splits non-normalized tokens out of the raw text, normalizes the rest,
// then splits normalized ones out), with lstrip / rstrip / single_word.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tokbench::tokenizer {

struct AddedToken {
  int32_t id = 0;
  std::string content;
  bool special = false;
  bool lstrip = false;
  bool rstrip = false;
  bool single_word = false;
  bool normalized = false;
};

/// A run of text, or one added token.
struct Segment {
  std::string text;       ///< empty when this is a token
  int32_t token = -1;     ///< the added token's id, or -1
  bool at_start = false;  ///< text that begins at offset 0 of the input
};

class AddedVocab {
 public:
  /// Indexes the tokens whose `normalized` flag equals `normalized`.
  AddedVocab(const std::vector<AddedToken>& tokens, bool normalized);

  /// Splits `text` into text runs and tokens. `at_start` tells whether `text` begins the input.
  void split(std::string_view text, bool at_start, std::vector<Segment>& out) const;
  bool empty() const { return tokens_.empty(); }

 private:
  struct Node {
    std::vector<std::pair<unsigned char, int32_t>> next;  // sorted by byte
    int32_t token = -1;                                   // index into tokens_
  };
  int32_t child(int32_t node, unsigned char c) const;
  std::vector<AddedToken> tokens_;
  std::vector<Node> trie_;
  bool first_byte_[256] = {};
};

}  // namespace tokbench::tokenizer
