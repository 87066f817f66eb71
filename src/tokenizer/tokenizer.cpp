#include "tokenizer/tokenizer.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <filesystem>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "tokenizer/added_vocab.hpp"
#include "tokenizer/bpe.hpp"
#include "tokenizer/components.hpp"
#include "tokenizer/utf8.hpp"

namespace tokbench::tokenizer {

namespace fs = std::filesystem;

struct Tokenizer::Impl {
  std::unique_ptr<Normalizer> normalizer;
  std::unique_ptr<PreTokenizer> pre_tokenizer;
  std::unique_ptr<Decoder> decoder;
  std::unique_ptr<Bpe> model;
  std::vector<AddedToken> added;
  std::unique_ptr<AddedVocab> raw_added;         // matched in the raw text
  std::unique_ptr<AddedVocab> normalized_added;  // matched after normalization
  std::unordered_map<int32_t, size_t> added_by_id;
  std::unordered_map<std::string, int32_t> added_by_content;
  std::vector<int32_t> prefix, suffix;  // what add_special_tokens adds
  std::optional<int32_t> bos, eos;
  size_t vocab_size = 0;
};

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", where, what));
}

std::optional<int32_t> lookup(const Tokenizer::Impl& t, std::string_view token) {
  if (auto it = t.added_by_content.find(std::string(token)); it != t.added_by_content.end())
    return it->second;
  return t.model->id_of(token);
}

// The few tokenizer_config.json fields that change encoding. Read with simdjson's on-demand API:
// the file may hold numbers no parser accepts (model_max_length = 1e30 written as an integer),
// and on-demand never parses values it is not asked for.
struct Config {
  std::optional<std::string> tokenizer_class, bos_token, eos_token;
  std::optional<bool> add_bos_token, add_eos_token;
};

Config read_config(const std::string& path) {
  simdjson::padded_string json;
  if (auto err = simdjson::padded_string::load(path).get(json))
    fail(path, fmt::format("cannot read ({})", simdjson::error_message(err)));
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (parser.iterate(json).get(doc) || doc.get_object().get(obj))
    fail(path, "expected a JSON object");
  Config c;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) fail(path, "bad key");
    simdjson::ondemand::value v = field.value();
    if (key == "tokenizer_class" || key == "bos_token" || key == "eos_token") {
      std::string_view s;
      std::optional<std::string> out;
      if (!v.get_string().get(s)) {
        out = std::string(s);
      } else {
        simdjson::ondemand::object t;
        if (!v.get_object().get(t) && !t["content"].get_string().get(s)) out = std::string(s);
      }
      (key == "tokenizer_class" ? c.tokenizer_class
       : key == "bos_token"     ? c.bos_token
                                : c.eos_token) = out;
    } else if (key == "add_bos_token" || key == "add_eos_token") {
      bool b = false;
      if (!v.get_bool().get(b)) (key == "add_bos_token" ? c.add_bos_token : c.add_eos_token) = b;
    }
  }
  return c;
}

void post_processor(Tokenizer::Impl& t, simdjson::dom::element pp, const std::string& path) {
  if (pp.is_null()) return;
  const std::string type(json_string(pp, "type", path));
  if (type == "ByteLevel") return;  // offsets only
  if (type == "Sequence") {
    simdjson::dom::array list;
    if (pp["processors"].get_array().get(list)) fail(path, "missing \"processors\" array");
    size_t i = 0;
    for (auto p : list) post_processor(t, p, fmt::format("{}.processors[{}]", path, i++));
    return;
  }
  if (type == "TemplateProcessing") {
    simdjson::dom::array single;
    simdjson::dom::object specials;
    if (pp["single"].get_array().get(single)) fail(path, "missing \"single\" array");
    if (pp["special_tokens"].get_object().get(specials))
      fail(path, "missing \"special_tokens\" object");
    bool after = false;
    size_t i = 0;
    for (auto item : single) {
      const std::string where = fmt::format("{}.single[{}]", path, i++);
      simdjson::dom::element sp;
      if (!item["Sequence"].get(sp)) {
        if (json_string(sp, "id", where) != "A")
          fail(where, "only sequence A is supported in \"single\"");
        after = true;
        continue;
      }
      if (item["SpecialToken"].get(sp)) fail(where, "expected SpecialToken or Sequence");
      const std::string name(json_string(sp, "id", where));
      simdjson::dom::array ids;
      if (specials[name]["ids"].get_array().get(ids))
        fail(path + ".special_tokens", fmt::format("no ids for '{}'", name));
      for (auto id : ids)
        (after ? t.suffix : t.prefix).push_back(static_cast<int32_t>(id.get_int64().value()));
    }
    return;
  }
  if (type == "RobertaProcessing" || type == "BertProcessing") {
    simdjson::dom::array cls, sep;
    if (pp["cls"].get_array().get(cls) || pp["sep"].get_array().get(sep))
      fail(path, "missing \"cls\"/\"sep\"");
    t.prefix.push_back(static_cast<int32_t>(cls.at(1).get_int64().value()));
    t.suffix.push_back(static_cast<int32_t>(sep.at(1).get_int64().value()));
    return;
  }
  fail(path + ".type",
       fmt::format("unsupported post-processor '{}' (supported: TemplateProcessing, ByteLevel, "
                   "RobertaProcessing, BertProcessing, Sequence)",
                   type));
}

// transformers rebuilds the post-processor of these classes from add_bos_token / add_eos_token
// (LlamaTokenizerFast.update_post_processor; defaults True / False), so HF's encode with
// add_special_tokens=True follows the config, not tokenizer.json.
void config_override(Tokenizer::Impl& t, const Config& cfg, const std::string& path) {
  static const std::unordered_set<std::string> kClasses{
      "LlamaTokenizer",     "LlamaTokenizerFast", "GemmaTokenizer",
      "GemmaTokenizerFast", "CodeLlamaTokenizer", "CodeLlamaTokenizerFast"};
  if (!cfg.tokenizer_class || !kClasses.contains(*cfg.tokenizer_class)) return;
  const bool add_bos = cfg.add_bos_token.value_or(true);
  const bool add_eos = cfg.add_eos_token.value_or(false);
  if (add_bos && !t.bos) fail(path, "add_bos_token is true but bos_token is not in the vocabulary");
  if (add_eos && !t.eos) fail(path, "add_eos_token is true but eos_token is not in the vocabulary");
  t.prefix.clear();
  t.suffix.clear();
  if (add_bos) t.prefix.push_back(*t.bos);
  if (add_eos) t.suffix.push_back(*t.eos);
}

// The tokenizer a parsed tokenizer.json describes (no tokenizer_config.json applied yet).
std::shared_ptr<Tokenizer::Impl> build(simdjson::dom::element root, const std::string& where) {
  auto impl = std::make_shared<Tokenizer::Impl>();
  try {
    simdjson::dom::element e;
    if (!root["normalizer"].get(e)) impl->normalizer = make_normalizer(e, "normalizer");
    if (!root["pre_tokenizer"].get(e)) impl->pre_tokenizer = make_pre_tokenizer(e, "pre_tokenizer");
    if (!root["decoder"].get(e)) impl->decoder = make_decoder(e, "decoder");
    if (root["model"].get(e)) fail("model", "missing");
    const bool byte_level = impl->pre_tokenizer && impl->pre_tokenizer->byte_level();
    impl->model = std::make_unique<Bpe>(e, byte_level, "model");
    impl->vocab_size = impl->model->size();

    simdjson::dom::array added;
    if (!root["added_tokens"].get_array().get(added)) {
      size_t i = 0;
      for (auto a : added) {
        const std::string p = fmt::format("added_tokens[{}]", i++);
        AddedToken t;
        int64_t id = -1;
        if (a["id"].get_int64().get(id) || id < 0) fail(p, "missing non-negative \"id\"");
        t.id = static_cast<int32_t>(id);
        t.content = std::string(json_string(a, "content", p));
        t.special = json_bool(a, "special", false);
        t.lstrip = json_bool(a, "lstrip", false);
        t.rstrip = json_bool(a, "rstrip", false);
        t.single_word = json_bool(a, "single_word", false);
        t.normalized = json_bool(a, "normalized", !t.special);
        impl->added_by_id[t.id] = impl->added.size();
        impl->added_by_content[t.content] = t.id;
        impl->vocab_size = std::max(impl->vocab_size, static_cast<size_t>(t.id) + 1);
        impl->added.push_back(std::move(t));
      }
    }
    impl->raw_added = std::make_unique<AddedVocab>(impl->added, false);
    impl->normalized_added = std::make_unique<AddedVocab>(impl->added, true);
    if (!root["post_processor"].get(e)) post_processor(*impl, e, "post_processor");
  } catch (const std::runtime_error& err) {
    fail(where, err.what());
  }
  return impl;
}

}  // namespace

Tokenizer Tokenizer::load(const std::string& path) {
  fs::path json_path = path, config_path;
  std::error_code ec;
  if (fs::is_directory(path, ec)) json_path = fs::path(path) / "tokenizer.json";
  if (!fs::exists(json_path, ec)) {
    throw std::runtime_error(
        fmt::format("--tokenizer: no tokenizer.json at '{}' (pass a model folder or the path "
                    "of its tokenizer.json)",
                    json_path.string()));
  }
  config_path = json_path.parent_path() / "tokenizer_config.json";
  const std::string where = json_path.string();
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto err = parser.load(where).get(root))
    fail(where, fmt::format("cannot parse ({})", simdjson::error_message(err)));
  auto impl = build(root, where);
  if (fs::exists(config_path, ec)) {
    const Config cfg = read_config(config_path.string());
    if (cfg.bos_token) impl->bos = lookup(*impl, *cfg.bos_token);
    if (cfg.eos_token) impl->eos = lookup(*impl, *cfg.eos_token);
    config_override(*impl, cfg, config_path.string());
  }
  return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::from_json(std::string_view json, const std::string& name) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto err = parser.parse(simdjson::padded_string(json)).get(root))
    fail(name, fmt::format("cannot parse ({})", simdjson::error_message(err)));
  return Tokenizer(build(root, name));
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  const Impl& t = *impl_;
  std::string repaired;
  if (!utf8::is_valid(text)) {
    repaired = utf8::repair(text);
    text = repaired;
  }
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  if (add_special_tokens) ids.insert(ids.end(), t.prefix.begin(), t.prefix.end());
  std::vector<Segment> raw, norm;
  std::vector<Piece> pieces;
  t.raw_added->split(text, true, raw);
  for (auto& seg : raw) {
    if (seg.token >= 0) {
      ids.push_back(seg.token);
      continue;
    }
    if (t.normalizer) t.normalizer->apply(seg.text);
    norm.clear();
    t.normalized_added->split(seg.text, seg.at_start, norm);
    for (auto& s : norm) {
      if (s.token >= 0) {
        ids.push_back(s.token);
        continue;
      }
      pieces.clear();
      pieces.push_back({std::move(s.text), s.at_start});
      if (t.pre_tokenizer) t.pre_tokenizer->apply(pieces);
      for (const auto& p : pieces) t.model->encode_word(p.text, ids);
    }
  }
  if (add_special_tokens) ids.insert(ids.end(), t.suffix.begin(), t.suffix.end());
  return ids;
}

size_t Tokenizer::count(std::string_view text, bool add_special_tokens) const {
  return encode(text, add_special_tokens).size();
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool skip_special_tokens) const {
  const Impl& t = *impl_;
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) {
    if (auto it = t.added_by_id.find(id); it != t.added_by_id.end()) {
      if (skip_special_tokens && t.added[it->second].special) continue;
      tokens.push_back(t.added[it->second].content);
    } else if (!t.model->token(id).empty()) {
      tokens.push_back(t.model->token(id));
    }
  }
  if (!t.decoder) {
    std::string out;
    for (size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
    return out;
  }
  std::string out;
  for (const auto& s : t.decoder->apply(std::move(tokens))) out += s;
  return out;
}

size_t Tokenizer::vocab_size() const { return impl_->vocab_size; }
std::optional<int32_t> Tokenizer::bos_id() const { return impl_->bos; }
std::optional<int32_t> Tokenizer::eos_id() const { return impl_->eos; }
std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  return lookup(*impl_, token);
}

std::string Tokenizer::id_to_token(int32_t id) const {
  if (auto it = impl_->added_by_id.find(id); it != impl_->added_by_id.end())
    return impl_->added[it->second].content;
  return impl_->model->token(id);
}

bool Tokenizer::is_special(int32_t id) const {
  auto it = impl_->added_by_id.find(id);
  return it != impl_->added_by_id.end() && impl_->added[it->second].special;
}

bool Tokenizer::is_control(int32_t id) const {
  if (impl_->added_by_id.contains(id)) return true;  // every added token: never random filler
  const std::string& tok = impl_->model->token(id);
  if (tok.empty()) return true;
  return tok.size() == 6 && tok.starts_with("<0x") && tok.back() == '>';
}

}  // namespace tokbench::tokenizer
