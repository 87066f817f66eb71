#include "tokenizer/components.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <stdexcept>

#include "tokenizer/regex.hpp"
#include "tokenizer/utf8.hpp"

namespace tokbench::tokenizer {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", path, what));
}

std::string type_of(simdjson::dom::element j, const std::string& path) {
  return std::string(json_string(j, "type", path));
}

// A `pattern` object: {"String": "..."} or {"Regex": "..."}.
struct Pattern {
  std::string literal;
  std::unique_ptr<Regex> regex;

  std::vector<std::pair<size_t, size_t>> find_all(std::string_view text) const {
    if (regex) return regex->find_all(text);
    std::vector<std::pair<size_t, size_t>> out;
    if (literal.empty()) return out;
    for (size_t p = text.find(literal); p != std::string_view::npos;
         p = text.find(literal, p + literal.size()))
      out.emplace_back(p, p + literal.size());
    return out;
  }
};

Pattern make_pattern(simdjson::dom::element j, const std::string& path) {
  simdjson::dom::element p;
  if (j["pattern"].get(p)) fail(path, "missing \"pattern\"");
  Pattern out;
  std::string_view s;
  if (!p["String"].get_string().get(s)) {
    out.literal = std::string(s);
  } else if (!p["Regex"].get_string().get(s)) {
    try {
      out.regex = std::make_unique<Regex>(std::string(s));
    } catch (const std::exception& e) {
      fail(path + ".pattern.Regex", e.what());
    }
  } else {
    fail(path + ".pattern", "expected {\"String\": ...} or {\"Regex\": ...}");
  }
  return out;
}

// ---- normalizers -------------------------------------------------------------------------------

class UnicodeNormalizer : public Normalizer {
 public:
  UnicodeNormalizer(utf8proc_option_t opts, bool fast_path) : opts_(opts), fast_path_(fast_path) {}
  void apply(std::string& s) const override {
    // Text without a byte >= 0xCC holds no combining mark and no character NFC/NFD would change.
    if (fast_path_) {
      bool plain = true;
      for (unsigned char c : s) plain &= c < 0xCC;
      if (plain) return;
    }
    utf8proc_uint8_t* out = nullptr;
    const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                static_cast<utf8proc_ssize_t>(s.size()), &out, opts_);
    if (n >= 0) s.assign(reinterpret_cast<char*>(out), static_cast<size_t>(n));
    std::free(out);
  }

 private:
  utf8proc_option_t opts_;
  bool fast_path_;
};

class PrependNormalizer : public Normalizer {
 public:
  explicit PrependNormalizer(std::string p) : p_(std::move(p)) {}
  void apply(std::string& s) const override {
    if (!s.empty()) s.insert(0, p_);
  }

 private:
  std::string p_;
};

class ReplaceNormalizer : public Normalizer {
 public:
  ReplaceNormalizer(Pattern p, std::string content)
      : p_(std::move(p)), content_(std::move(content)) {}
  void apply(std::string& s) const override {
    const auto matches = p_.find_all(s);
    if (matches.empty()) return;
    std::string out;
    size_t prev = 0;
    for (const auto& [b, e] : matches) {
      out.append(s, prev, b - prev);
      out += content_;
      prev = e;
    }
    out.append(s, prev);
    s = std::move(out);
  }

 private:
  Pattern p_;
  std::string content_;
};

class LowercaseNormalizer : public Normalizer {
 public:
  void apply(std::string& s) const override {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0, n = 0; i < s.size(); i += n)
      utf8::append(out, static_cast<char32_t>(utf8proc_tolower(utf8::decode(s, i, &n))));
    s = std::move(out);
  }
};

class StripNormalizer : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  void apply(std::string& s) const override {
    const size_t b = left_ ? utf8::skip_white_space(s, 0, s.size()) : 0;
    const size_t e = right_ ? utf8::trim_white_space_back(s, b, s.size()) : s.size();
    s = s.substr(b, e - b);
  }

 private:
  bool left_, right_;
};

class SequenceNormalizer : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> v) : v_(std::move(v)) {}
  void apply(std::string& s) const override {
    for (const auto& n : v_) n->apply(s);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> v_;
};

// ---- pre-tokenizers ----------------------------------------------------------------------------

enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

Behavior behavior_from(std::string_view b, const std::string& path) {
  if (b == "Removed") return Behavior::Removed;
  if (b == "Isolated") return Behavior::Isolated;
  if (b == "MergedWithPrevious") return Behavior::MergedWithPrevious;
  if (b == "MergedWithNext") return Behavior::MergedWithNext;
  if (b == "Contiguous") return Behavior::Contiguous;
  fail(path + ".behavior", fmt::format("unsupported split behavior '{}'", b));
}

// HF's NormalizedString::split: matches become (range, is_match) covering the text, the
// behaviour folds them, empty pieces are dropped.
void split_pieces(
    std::vector<Piece>& pieces, Behavior behavior, bool invert,
    const std::function<std::vector<std::pair<size_t, size_t>>(std::string_view)>& find) {
  std::vector<Piece> out;
  out.reserve(pieces.size() * 2);
  struct Span {
    size_t b, e;
    bool match;
  };
  std::vector<Span> spans, folded;
  for (auto& piece : pieces) {
    const std::string& t = piece.text;
    spans.clear();
    size_t prev = 0;
    for (const auto& [b, e] : find(t)) {
      if (prev != b) spans.push_back({prev, b, invert});
      spans.push_back({b, e, !invert});
      prev = e;
    }
    if (prev != t.size()) spans.push_back({prev, t.size(), invert});
    folded.clear();
    bool previous_match = false;
    switch (behavior) {
      case Behavior::Removed:
        for (const auto& s : spans)
          if (!s.match) folded.push_back(s);
        break;
      case Behavior::Isolated:
        folded = spans;
        break;
      case Behavior::MergedWithPrevious:
        for (const auto& s : spans) {
          if (s.match && !previous_match && !folded.empty()) {
            folded.back().e = s.e;
          } else {
            folded.push_back(s);
          }
          previous_match = s.match;
        }
        break;
      case Behavior::MergedWithNext:
        for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
          if (it->match && !previous_match && !folded.empty()) {
            folded.back().b = it->b;
          } else {
            folded.push_back(*it);
          }
          previous_match = it->match;
        }
        std::reverse(folded.begin(), folded.end());
        break;
      case Behavior::Contiguous:
        for (size_t i = 0; i < spans.size(); ++i) {
          if (i > 0 && spans[i].match == previous_match) {
            folded.back().e = spans[i].e;
          } else {
            folded.push_back(spans[i]);
          }
          previous_match = spans[i].match;
        }
        break;
    }
    for (const auto& s : folded)
      if (s.e > s.b) out.push_back({t.substr(s.b, s.e - s.b), piece.at_start && s.b == 0});
  }
  pieces = std::move(out);
}

class SplitPreTokenizer : public PreTokenizer {
 public:
  SplitPreTokenizer(Pattern p, Behavior b, bool invert)
      : p_(std::move(p)), b_(b), invert_(invert) {}
  void apply(std::vector<Piece>& pieces) const override {
    split_pieces(pieces, b_, invert_, [&](std::string_view t) { return p_.find_all(t); });
  }

 private:
  Pattern p_;
  Behavior b_;
  bool invert_;
};

constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// The model keys byte-level vocabularies on raw bytes (tokenizer.cpp converts them), so the
// byte -> character mapping itself is skipped here.
class ByteLevelPreTokenizer : public PreTokenizer {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex)
      : add_prefix_space_(add_prefix_space),
        regex_(use_regex ? std::make_unique<Regex>(kGpt2Pattern) : nullptr) {}
  void apply(std::vector<Piece>& pieces) const override {
    if (add_prefix_space_)
      for (auto& p : pieces)
        if (!p.text.starts_with(' ')) p.text.insert(0, " ");
    if (regex_)
      split_pieces(pieces, Behavior::Isolated, false,
                   [&](std::string_view t) { return regex_->find_all(t); });
  }
  bool byte_level() const override { return true; }

 private:
  bool add_prefix_space_;
  std::unique_ptr<Regex> regex_;
};

class MetaspacePreTokenizer : public PreTokenizer {
 public:
  MetaspacePreTokenizer(std::string replacement, std::string scheme, bool split)
      : rep_(std::move(replacement)), scheme_(std::move(scheme)), split_(split) {}
  void apply(std::vector<Piece>& pieces) const override {
    for (auto& p : pieces) {
      std::string t;
      t.reserve(p.text.size() + rep_.size());
      for (char c : p.text) {
        if (c == ' ') {
          t += rep_;
        } else {
          t.push_back(c);
        }
      }
      const bool prepend = scheme_ == "always" || (scheme_ == "first" && p.at_start);
      if (prepend && !t.starts_with(rep_)) t.insert(0, rep_);
      p.text = std::move(t);
    }
    if (split_) {
      split_pieces(pieces, Behavior::MergedWithNext, false, [&](std::string_view t) {
        std::vector<std::pair<size_t, size_t>> m;
        for (size_t q = t.find(rep_); q != std::string_view::npos;
             q = t.find(rep_, q + rep_.size()))
          m.emplace_back(q, q + rep_.size());
        return m;
      });
    }
  }

 private:
  std::string rep_, scheme_;
  bool split_;
};

class DigitsPreTokenizer : public PreTokenizer {
 public:
  explicit DigitsPreTokenizer(bool individual) : individual_(individual), regex_("\\p{N}") {}
  void apply(std::vector<Piece>& pieces) const override {
    split_pieces(pieces, individual_ ? Behavior::Isolated : Behavior::Contiguous, false,
                 [&](std::string_view t) { return regex_.find_all(t); });
  }

 private:
  bool individual_;
  Regex regex_;
};

class SequencePreTokenizer : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> v) : v_(std::move(v)) {}
  void apply(std::vector<Piece>& pieces) const override {
    for (const auto& p : v_) p->apply(pieces);
  }
  bool byte_level() const override {
    for (const auto& p : v_)
      if (p->byte_level()) return true;
    return false;
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> v_;
};

// ---- decoders ----------------------------------------------------------------------------------

class ByteLevelDecoder : public Decoder {
 public:
  std::vector<std::string> apply(std::vector<std::string> tokens) const override {
    std::string bytes;
    for (const auto& t : tokens) {
      // A token with any character outside the byte alphabet is emitted as its own UTF-8.
      std::string mapped;
      bool ok = true;
      for (size_t i = 0, n = 0; i < t.size() && ok; i += n) {
        const int b = char_to_byte(utf8::decode(t, i, &n));
        if (b < 0)
          ok = false;
        else
          mapped.push_back(static_cast<char>(b));
      }
      bytes += ok ? mapped : t;
    }
    return {utf8::repair(bytes)};
  }
};

class ReplaceDecoder : public Decoder {
 public:
  ReplaceDecoder(Pattern p, std::string content) : replace_(std::move(p), std::move(content)) {}
  std::vector<std::string> apply(std::vector<std::string> tokens) const override {
    for (auto& t : tokens) replace_.apply(t);
    return tokens;
  }

 private:
  ReplaceNormalizer replace_;  // the same replacement, applied per token
};

class ByteFallbackDecoder : public Decoder {
 public:
  std::vector<std::string> apply(std::vector<std::string> tokens) const override {
    std::vector<std::string> out;
    std::string bytes;
    size_t count = 0;
    auto flush = [&] {
      if (count == 0) return;
      if (utf8::is_valid(bytes)) {
        out.push_back(bytes);
      } else {
        for (size_t i = 0; i < count; ++i) out.emplace_back("\xEF\xBF\xBD");
      }
      bytes.clear();
      count = 0;
    };
    for (auto& t : tokens) {
      if (t.size() == 6 && t.starts_with("<0x") && t.back() == '>') {
        unsigned v = 0;
        if (std::sscanf(t.c_str() + 3, "%2X", &v) == 1) {
          bytes.push_back(static_cast<char>(v));
          ++count;
          continue;
        }
      }
      flush();
      out.push_back(std::move(t));
    }
    flush();
    return out;
  }
};

class FuseDecoder : public Decoder {
 public:
  std::vector<std::string> apply(std::vector<std::string> tokens) const override {
    std::string all;
    for (const auto& t : tokens) all += t;
    return {all};
  }
};

class StripDecoder : public Decoder {
 public:
  StripDecoder(std::string content, size_t start, size_t stop)
      : c_(std::move(content)), start_(start), stop_(stop) {}
  std::vector<std::string> apply(std::vector<std::string> tokens) const override {
    for (auto& t : tokens) {
      for (size_t i = 0; i < start_ && t.starts_with(c_); ++i) t.erase(0, c_.size());
      for (size_t i = 0; i < stop_ && t.ends_with(c_); ++i) t.erase(t.size() - c_.size());
    }
    return tokens;
  }

 private:
  std::string c_;
  size_t start_, stop_;
};

class MetaspaceDecoder : public Decoder {
 public:
  MetaspaceDecoder(std::string rep, bool strip_first)
      : rep_(std::move(rep)), strip_first_(strip_first) {}
  std::vector<std::string> apply(std::vector<std::string> tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string t;
      for (size_t q = 0; q < tokens[i].size();) {
        if (tokens[i].compare(q, rep_.size(), rep_) == 0) {
          t.push_back(' ');
          q += rep_.size();
        } else {
          t.push_back(tokens[i][q++]);
        }
      }
      if (i == 0 && strip_first_ && t.starts_with(' ')) t.erase(0, 1);
      tokens[i] = std::move(t);
    }
    return tokens;
  }

 private:
  std::string rep_;
  bool strip_first_;
};

class SequenceDecoder : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> v) : v_(std::move(v)) {}
  std::vector<std::string> apply(std::vector<std::string> tokens) const override {
    for (const auto& d : v_) tokens = d->apply(std::move(tokens));
    return tokens;
  }

 private:
  std::vector<std::unique_ptr<Decoder>> v_;
};

template <class Make>
auto make_list(simdjson::dom::element j, std::string_view key, const std::string& path, Make make) {
  simdjson::dom::array arr;
  if (j[key].get_array().get(arr)) fail(path, fmt::format("missing \"{}\" array", key));
  std::vector<decltype(make(j, path))> out;
  size_t i = 0;
  for (auto x : arr) {
    auto item = make(x, fmt::format("{}.{}[{}]", path, key, i++));
    if (item) out.push_back(std::move(item));
  }
  return out;
}

}  // namespace

std::string_view json_string(simdjson::dom::element j, std::string_view key,
                             const std::string& path) {
  std::string_view s;
  if (j[key].get_string().get(s)) fail(path, fmt::format("missing string \"{}\"", key));
  return s;
}

bool json_bool(simdjson::dom::element j, std::string_view key, bool fallback) {
  bool b = fallback;
  if (j[key].get_bool().get(b)) return fallback;
  return b;
}

const std::vector<char32_t>& byte_to_char() {
  static const std::vector<char32_t> table = [] {
    std::vector<char32_t> t(256);
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable =
          (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      t[static_cast<size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
    }
    return t;
  }();
  return table;
}

int char_to_byte(char32_t c) {
  static const std::vector<int> inverse = [] {
    std::vector<int> v(512, -1);
    const auto& t = byte_to_char();
    for (int b = 0; b < 256; ++b) v[t[static_cast<size_t>(b)]] = b;
    return v;
  }();
  return c < inverse.size() ? inverse[c] : -1;
}

std::unique_ptr<Normalizer> make_normalizer(simdjson::dom::element j, const std::string& path) {
  if (j.is_null()) return nullptr;
  const std::string t = type_of(j, path);
  if (t == "NFC")
    return std::make_unique<UnicodeNormalizer>(
        utf8proc_option_t(UTF8PROC_STABLE | UTF8PROC_COMPOSE), true);
  if (t == "NFD")
    return std::make_unique<UnicodeNormalizer>(
        utf8proc_option_t(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE), true);
  if (t == "NFKC")
    return std::make_unique<UnicodeNormalizer>(
        utf8proc_option_t(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT), false);
  if (t == "NFKD")
    return std::make_unique<UnicodeNormalizer>(
        utf8proc_option_t(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT), false);
  if (t == "Prepend")
    return std::make_unique<PrependNormalizer>(std::string(json_string(j, "prepend", path)));
  if (t == "Replace")
    return std::make_unique<ReplaceNormalizer>(make_pattern(j, path),
                                               std::string(json_string(j, "content", path)));
  if (t == "Lowercase") return std::make_unique<LowercaseNormalizer>();
  if (t == "Strip")
    return std::make_unique<StripNormalizer>(json_bool(j, "strip_left", true),
                                             json_bool(j, "strip_right", true));
  if (t == "Sequence")
    return std::make_unique<SequenceNormalizer>(make_list(j, "normalizers", path, make_normalizer));
  fail(path + ".type",
       fmt::format("unsupported normalizer '{}' (supported: NFC, NFD, NFKC, NFKD, Prepend, "
                   "Replace, Lowercase, Strip, Sequence)",
                   t));
}

std::unique_ptr<PreTokenizer> make_pre_tokenizer(simdjson::dom::element j,
                                                 const std::string& path) {
  if (j.is_null()) return nullptr;
  const std::string t = type_of(j, path);
  if (t == "Split") {
    return std::make_unique<SplitPreTokenizer>(
        make_pattern(j, path), behavior_from(json_string(j, "behavior", path), path),
        json_bool(j, "invert", false));
  }
  if (t == "ByteLevel")
    return std::make_unique<ByteLevelPreTokenizer>(json_bool(j, "add_prefix_space", false),
                                                   json_bool(j, "use_regex", true));
  if (t == "Metaspace") {
    std::string scheme = "always";
    std::string_view s;
    if (!j["prepend_scheme"].get_string().get(s)) {
      scheme = std::string(s);
    } else if (!json_bool(j, "add_prefix_space", true)) {
      scheme = "never";  // files written before prepend_scheme existed
    }
    if (scheme != "always" && scheme != "first" && scheme != "never")
      fail(path + ".prepend_scheme", fmt::format("unsupported value '{}'", scheme));
    return std::make_unique<MetaspacePreTokenizer>(std::string(json_string(j, "replacement", path)),
                                                   scheme, json_bool(j, "split", true));
  }
  if (t == "Digits")
    return std::make_unique<DigitsPreTokenizer>(json_bool(j, "individual_digits", false));
  if (t == "Sequence")
    return std::make_unique<SequencePreTokenizer>(
        make_list(j, "pretokenizers", path, make_pre_tokenizer));
  fail(path + ".type",
       fmt::format("unsupported pre-tokenizer '{}' (supported: Split, ByteLevel, Metaspace, "
                   "Digits, Sequence)",
                   t));
}

std::unique_ptr<Decoder> make_decoder(simdjson::dom::element j, const std::string& path) {
  if (j.is_null()) return nullptr;
  const std::string t = type_of(j, path);
  if (t == "ByteLevel") return std::make_unique<ByteLevelDecoder>();
  if (t == "Replace") {
    Pattern p = make_pattern(j, path);
    if (p.regex) fail(path + ".pattern", "Regex patterns in decoders are not supported");
    return std::make_unique<ReplaceDecoder>(std::move(p),
                                            std::string(json_string(j, "content", path)));
  }
  if (t == "ByteFallback") return std::make_unique<ByteFallbackDecoder>();
  if (t == "Fuse") return std::make_unique<FuseDecoder>();
  if (t == "Strip") {
    int64_t start = 0, stop = 0;
    if (j["start"].get_int64().get(start)) start = 0;
    if (j["stop"].get_int64().get(stop)) stop = 0;
    return std::make_unique<StripDecoder>(std::string(json_string(j, "content", path)),
                                          static_cast<size_t>(start), static_cast<size_t>(stop));
  }
  if (t == "Metaspace") {
    std::string_view scheme;
    if (j["prepend_scheme"].get_string().get(scheme)) scheme = "always";
    return std::make_unique<MetaspaceDecoder>(std::string(json_string(j, "replacement", path)),
                                              scheme != "never");
  }
  if (t == "Sequence")
    return std::make_unique<SequenceDecoder>(make_list(j, "decoders", path, make_decoder));
  fail(path + ".type",
       fmt::format("unsupported decoder '{}' (supported: ByteLevel, Replace, ByteFallback, Fuse, "
                   "Strip, Metaspace, Sequence)",
                   t));
}

}  // namespace tokbench::tokenizer
