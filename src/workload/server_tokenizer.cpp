#include "workload/server_tokenizer.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <set>
#include <stdexcept>

#include "common/json_writer.hpp"
#include "net/http_get.hpp"

namespace tokbench::runner {

namespace {

constexpr long kTimeoutMs = 30'000;

// Plain English with digits and punctuation: its tokens become the pool of a server codec.
constexpr const char* kPoolText =
    "The history of computing is a story of people who wanted to measure things precisely. Early "
    "machines counted census cards, computed artillery tables and broke codes; later ones routed "
    "telephone calls, booked airline seats and rendered films. Every generation asked the same "
    "questions: how long does one answer take, how many answers per second, and what happens when "
    "a thousand people ask at once? Benchmarks exist to answer those questions honestly. A good "
    "one "
    "states what it sends, when it sends it, and how each number is defined, so that two teams "
    "running it on different days can compare results in 2024, 2025 and beyond. Latency, "
    "throughput "
    "and concurrency are related by simple laws, yet measuring them well takes care: clocks drift, "
    "queues hide delays, and averages conceal the slow requests that users remember.";

simdjson::dom::element post_json(const ServerTokenizer& s, const std::string& path,
                                 const std::string& body, simdjson::dom::parser& parser,
                                 std::string& keep) {
  const auto res = net::http_post(s.root + path, body, s.headers, s.api_key, kTimeoutMs,
                                  net::kDefaultMaxResponseBytes, s.tls);
  if (!res.reached) throw std::runtime_error(fmt::format("POST {}{}: {}", s.root, path, res.error));
  if (res.status != 200)
    throw std::runtime_error(
        fmt::format("POST {}{}: HTTP {}: {}", s.root, path, res.status, res.body.substr(0, 300)));
  keep = res.body;
  simdjson::dom::element doc;
  if (parser.parse(keep).get(doc))
    throw std::runtime_error(fmt::format("POST {}{}: response is not JSON", s.root, path));
  return doc;
}

using core::TokenizeDialect;

// The /tokenize body of the server's dialect. vLLM: {"model", "prompt"|"messages",
// "add_special_tokens"}. llama.cpp: {"content", "add_special", "parse_special"} (a chat's count
// has its own path, chat_count_body).
std::string tokenize_body(const ServerTokenizer& s, TokenizeDialect d, const std::string& text,
                          bool chat, bool add_special) {
  JsonWriter w;
  w.begin_object();
  if (d == TokenizeDialect::Llamacpp) {
    w.field("content", text).field("add_special", add_special).field("parse_special", add_special);
    w.end_object();
    return w.take();
  }
  w.field("model", s.model);
  if (chat) {
    w.key("messages")
        .begin_array()
        .begin_object()
        .field("role", "user")
        .field("content", text)
        .end_object()
        .end_array();
  } else {
    w.field("prompt", text);
    w.field("add_special_tokens", add_special);
  }
  w.end_object();
  return w.take();
}

// llama.cpp counts a chat's prompt (its template applied) at this path.
constexpr const char* kLlamacppChatCount = "/v1/chat/completions/input_tokens";

std::string chat_count_body(const ServerTokenizer& s, const std::string& text) {
  JsonWriter w;
  w.begin_object().field("model", s.model).key("messages").begin_array();
  w.begin_object().field("role", "user").field("content", text).end_object();
  w.end_array().end_object();
  return w.take();
}

class ServerCodec : public dataset::TokenCodec {
 public:
  explicit ServerCodec(ServerTokenizer s) : s_(std::move(s)) {}

  std::vector<int32_t> encode(const std::string& text) override {
    auto doc = post_json(s_, "/tokenize", tokenize_body(s_, s_.dialect, text, false, false),
                         parser_, keep_);
    simdjson::dom::array tokens;
    if (doc["tokens"].get_array().get(tokens))
      throw std::runtime_error(
          fmt::format("POST {}/tokenize: no \"tokens\" array in the answer", s_.root));
    std::vector<int32_t> ids;
    for (auto t : tokens) {
      int64_t id = 0;
      if (t.get_int64().get(id))
        throw std::runtime_error(
            fmt::format("POST {}/tokenize: a token that is not an integer id", s_.root));
      ids.push_back(static_cast<int32_t>(id));
    }
    return ids;
  }

  std::string decode(const std::vector<int32_t>& ids) override {
    JsonWriter w;
    w.begin_object();
    if (s_.dialect != TokenizeDialect::Llamacpp) w.field("model", s_.model);
    w.key("tokens").begin_array();
    for (int32_t id : ids) w.value(static_cast<int64_t>(id));
    w.end_array().end_object();
    auto doc = post_json(s_, "/detokenize", w.str(), parser_, keep_);
    // vLLM answers {"prompt"}, llama.cpp {"content"}.
    const char* field = s_.dialect == TokenizeDialect::Llamacpp ? "content" : "prompt";
    std::string_view text;
    if (doc[field].get_string().get(text))
      throw std::runtime_error(
          fmt::format("POST {}/detokenize: no \"{}\" string in the answer", s_.root, field));
    return std::string(text);
  }

  std::vector<int32_t> pool() override {
    std::set<int32_t> distinct;
    for (int32_t id : encode(kPoolText)) distinct.insert(id);
    return {distinct.begin(), distinct.end()};
  }

  std::string name() const override {
    return s_.dialect == TokenizeDialect::Llamacpp ? "server /tokenize (llama.cpp's)"
                                                   : "server /tokenize";
  }

 private:
  ServerTokenizer s_;
  simdjson::dom::parser parser_;
  std::string keep_;
};

// Whether `d`'s /tokenize body for "hello" gets an answer of that dialect: vLLM's carries a
// "count"; llama.cpp's a non-empty "tokens" array (it answers a body it does not read with
// {"tokens": []}).
bool speaks(const ServerTokenizer& s, TokenizeDialect d) {
  const auto res =
      net::http_post(s.root + "/tokenize", tokenize_body(s, d, "hello", false, false), s.headers,
                     s.api_key, kTimeoutMs, net::kDefaultMaxResponseBytes, s.tls);
  if (!res.reached || res.status != 200) return false;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(res.body).get(doc)) return false;
  if (d == TokenizeDialect::Vllm) return !doc["count"].error();
  simdjson::dom::array tokens;
  return !doc["tokens"].get_array().get(tokens) && tokens.size() > 0;
}

}  // namespace

bool has_tokenize(ServerTokenizer& s) {
  if (s.named) return s.dialect != TokenizeDialect::None && speaks(s, s.dialect);
  for (TokenizeDialect d : {TokenizeDialect::Vllm, TokenizeDialect::Llamacpp}) {
    if (speaks(s, d)) {
      s.dialect = d;
      return true;
    }
  }
  s.dialect = TokenizeDialect::None;
  return false;
}

std::optional<int64_t> server_count(const ServerTokenizer& s, const std::string& text, bool chat) {
  if (s.dialect == TokenizeDialect::None) return std::nullopt;
  const bool llama = s.dialect == TokenizeDialect::Llamacpp;
  const std::string path = llama && chat ? kLlamacppChatCount : "/tokenize";
  const std::string body =
      llama && chat ? chat_count_body(s, text) : tokenize_body(s, s.dialect, text, chat, true);
  const auto res = net::http_post(s.root + path, body, s.headers, s.api_key, kTimeoutMs,
                                  net::kDefaultMaxResponseBytes, s.tls);
  if (!res.reached || res.status != 200) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(res.body).get(doc)) return std::nullopt;
  int64_t count = 0;
  if (llama && chat)
    return doc["input_tokens"].get_int64().get(count) ? std::nullopt : std::optional(count);
  if (!llama) return doc["count"].get_int64().get(count) ? std::nullopt : std::optional(count);
  simdjson::dom::array tokens;
  if (doc["tokens"].get_array().get(tokens)) return std::nullopt;
  return static_cast<int64_t>(tokens.size());
}

std::unique_ptr<dataset::TokenCodec> server_codec(const ServerTokenizer& s) {
  return std::make_unique<ServerCodec>(s);
}

}  // namespace tokbench::runner
