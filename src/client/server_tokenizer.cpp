#include "client/server_tokenizer.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <set>
#include <stdexcept>

#include "common/json_writer.hpp"
#include "net/http_get.hpp"

namespace tokbench::client {

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

std::string tokenize_body(const ServerTokenizer& s, const std::string& text, bool chat,
                          bool add_special) {
  JsonWriter w;
  w.begin_object().field("model", s.model);
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

class ServerCodec : public dataset::TokenCodec {
 public:
  explicit ServerCodec(ServerTokenizer s) : s_(std::move(s)) {}

  std::vector<int32_t> encode(const std::string& text) override {
    auto doc = post_json(s_, "/tokenize", tokenize_body(s_, text, false, false), parser_, keep_);
    simdjson::dom::array tokens;
    if (doc["tokens"].get_array().get(tokens))
      throw std::runtime_error(
          fmt::format("POST {}/tokenize: no \"tokens\" array in the answer", s_.root));
    std::vector<int32_t> ids;
    for (auto t : tokens) ids.push_back(static_cast<int32_t>(t.get_int64().value()));
    return ids;
  }

  std::string decode(const std::vector<int32_t>& ids) override {
    JsonWriter w;
    w.begin_object().field("model", s_.model).key("tokens").begin_array();
    for (int32_t id : ids) w.value(static_cast<int64_t>(id));
    w.end_array().end_object();
    auto doc = post_json(s_, "/detokenize", w.str(), parser_, keep_);
    std::string_view text;
    if (doc["prompt"].get_string().get(text))
      throw std::runtime_error(
          fmt::format("POST {}/detokenize: no \"prompt\" string in the answer", s_.root));
    return std::string(text);
  }

  std::vector<int32_t> pool() override {
    std::set<int32_t> distinct;
    for (int32_t id : encode(kPoolText)) distinct.insert(id);
    return {distinct.begin(), distinct.end()};
  }

  std::string name() const override { return "server /tokenize"; }

 private:
  ServerTokenizer s_;
  simdjson::dom::parser parser_;
  std::string keep_;
};

}  // namespace

bool has_tokenize(const ServerTokenizer& s) {
  const auto res =
      net::http_post(s.root + "/tokenize", tokenize_body(s, "hello", false, false), s.headers,
                     s.api_key, kTimeoutMs, net::kDefaultMaxResponseBytes, s.tls);
  return res.reached && res.status == 200;
}

std::optional<int64_t> server_count(const ServerTokenizer& s, const std::string& text, bool chat) {
  const auto res =
      net::http_post(s.root + "/tokenize", tokenize_body(s, text, chat, true), s.headers, s.api_key,
                     kTimeoutMs, net::kDefaultMaxResponseBytes, s.tls);
  if (!res.reached || res.status != 200) return std::nullopt;
  simdjson::dom::parser parser;
  int64_t count = 0;
  if (parser.parse(res.body)["count"].get_int64().get(count)) return std::nullopt;
  return count;
}

std::unique_ptr<dataset::TokenCodec> server_codec(const ServerTokenizer& s) {
  return std::make_unique<ServerCodec>(s);
}

}  // namespace tokbench::client
