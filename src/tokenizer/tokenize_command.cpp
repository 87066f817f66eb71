#include "tokenizer/tokenize_command.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <charconv>
#include <stdexcept>
#include <vector>

#include "common/json_writer.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokbench::tokenizer {

namespace {

std::string read_all(std::FILE* in) {
  std::string s;
  char buf[1 << 16];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, in)) > 0;) s.append(buf, n);
  return s;
}

std::vector<int32_t> parse_ids(std::string_view s, const std::string& where) {
  std::vector<int32_t> ids;
  size_t i = 0;
  while (i < s.size()) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (s[i] == '-')
        throw std::runtime_error(fmt::format("{}: token ids are non-negative", where));
      ++i;  // separators: spaces, commas, brackets
      continue;
    }
    int32_t v = 0;
    auto [p, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
    if (ec != std::errc()) throw std::runtime_error(fmt::format("{}: id out of range", where));
    ids.push_back(v);
    i = static_cast<size_t>(p - s.data());
  }
  return ids;
}

void print_ids(std::FILE* out, const std::vector<int32_t>& ids, bool json) {
  std::string line = json ? "{\"ids\":[" : "";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) line += json ? "," : " ";
    line += std::to_string(ids[i]);
  }
  line += json ? "]}\n" : "\n";
  std::fputs(line.c_str(), out);
}

}  // namespace

int run_tokenize(const TokenizeOptions& o, std::FILE* in, std::FILE* out) {
  const Tokenizer tok = Tokenizer::load(o.tokenizer);
  const bool special = !o.no_special_tokens;
  if (!o.jsonl) {
    const std::string text = read_all(in);
    if (o.decode) {
      const std::string s = tok.decode(parse_ids(text, "stdin"));
      std::fwrite(s.data(), 1, s.size(), out);
      std::fputc('\n', out);
    } else if (o.count) {
      fmt::print(out, "{}\n", tok.count(text, special));
    } else {
      print_ids(out, tok.encode(text, special), false);
    }
    return 0;
  }
  simdjson::dom::parser parser;
  const std::string all = read_all(in);
  size_t line_no = 0;
  for (size_t pos = 0; pos < all.size();) {
    size_t end = all.find('\n', pos);
    if (end == std::string::npos) end = all.size();
    const std::string_view line(all.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = fmt::format("stdin:{}", line_no);
    simdjson::dom::element doc;
    if (parser.parse(line.data(), line.size(), true).get(doc))
      throw std::runtime_error(fmt::format("{}: not valid JSON", where));
    if (o.decode) {
      simdjson::dom::array arr;
      if (doc["ids"].get_array().get(arr))
        throw std::runtime_error(fmt::format("{}: expected {{\"ids\": [...]}}", where));
      std::vector<int32_t> ids;
      for (auto v : arr) ids.push_back(static_cast<int32_t>(v.get_int64().value()));
      JsonWriter w;
      w.begin_object().field("text", tok.decode(ids)).end_object();
      fmt::print(out, "{}\n", w.str());
      continue;
    }
    std::string_view text;
    if (doc["text"].get_string().get(text))
      throw std::runtime_error(fmt::format("{}: expected {{\"text\": \"...\"}}", where));
    if (o.count) {
      fmt::print(out, "{{\"count\":{}}}\n", tok.count(text, special));
    } else {
      print_ids(out, tok.encode(text, special), true);
    }
  }
  return 0;
}

}  // namespace tokbench::tokenizer
