#include "tokenizer/added_vocab.hpp"

#include <algorithm>

#include "tokenizer/utf8.hpp"

namespace tokbench::tokenizer {

namespace {

// Rust's char::is_alphanumeric || '_' approximated for ASCII and the letters of other scripts
// (any byte >= 0x80 begins a non-ASCII character, treated as a word character).
bool is_word_char(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

}  // namespace

AddedVocab::AddedVocab(const std::vector<AddedToken>& tokens, bool normalized) {
  trie_.emplace_back();
  for (const auto& t : tokens) {
    if (t.normalized != normalized || t.content.empty()) continue;
    tokens_.push_back(t);
    int32_t node = 0;
    for (unsigned char c : t.content) {
      int32_t nxt = child(node, c);
      if (nxt < 0) {
        nxt = static_cast<int32_t>(trie_.size());
        trie_.emplace_back();
        auto& v = trie_[static_cast<size_t>(node)].next;
        v.insert(std::upper_bound(v.begin(), v.end(), std::make_pair(c, INT32_MIN)), {c, nxt});
      }
      node = nxt;
    }
    trie_[static_cast<size_t>(node)].token = static_cast<int32_t>(tokens_.size() - 1);
    first_byte_[static_cast<unsigned char>(t.content[0])] = true;
  }
}

int32_t AddedVocab::child(int32_t node, unsigned char c) const {
  const auto& v = trie_[static_cast<size_t>(node)].next;
  auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(c, INT32_MIN));
  return it != v.end() && it->first == c ? it->second : -1;
}

void AddedVocab::split(std::string_view text, bool at_start, std::vector<Segment>& out) const {
  size_t text_begin = 0;  // start of the pending text run
  auto emit_text = [&](size_t b, size_t e) {
    if (e > b) out.push_back({std::string(text.substr(b, e - b)), -1, at_start && b == 0});
  };
  size_t i = 0;
  while (i < text.size()) {
    if (!first_byte_[static_cast<unsigned char>(text[i])]) {
      ++i;
      continue;
    }
    // Longest token starting at i.
    int32_t node = 0, best = -1;
    size_t best_end = 0;
    for (size_t k = i; k < text.size(); ++k) {
      node = child(node, static_cast<unsigned char>(text[k]));
      if (node < 0) break;
      if (trie_[static_cast<size_t>(node)].token >= 0) {
        best = trie_[static_cast<size_t>(node)].token;
        best_end = k + 1;
      }
    }
    if (best < 0) {
      ++i;
      continue;
    }
    const AddedToken& tok = tokens_[static_cast<size_t>(best)];
    size_t start = i, stop = best_end;
    if (tok.single_word) {
      const bool left_ok = start == 0 || !is_word_char(static_cast<unsigned char>(text[start - 1]));
      const bool right_ok =
          stop == text.size() || !is_word_char(static_cast<unsigned char>(text[stop]));
      if (!left_ok || !right_ok) {
        i = stop;  // the rejected match is consumed as text, as HF's non-overlapping search does
        continue;
      }
    }
    if (tok.lstrip) start = utf8::trim_white_space_back(text, text_begin, start);
    if (tok.rstrip) stop = utf8::skip_white_space(text, stop, text.size());
    emit_text(text_begin, start);
    out.push_back({std::string(), tok.id, false});
    text_begin = i = stop;
  }
  emit_text(text_begin, text.size());
}

}  // namespace tokbench::tokenizer
