// mockapi/routes/pooling: the rest of vLLM's pooling family as it answers them
// (entrypoints/pooling) — `/score` (also `/v1/score`): text_1 against text_2 (also
// queries/documents), one score per pair, a single text_1 paired with every text_2 or the two lists
// zipped; `/classify`: a label and two class probabilities per input; `/pooling`: --embedding-dims
// seeded floats per input. Usage is every input's tokens (a pair's as a cross-encoder reads the two
// texts), none generated. The numbers are made up but steady: a pair's score is rerank's relevance,
// the rest are seeded by the request's sequence number.
#include <simdjson.h>

#include <chrono>
#include <random>

#include "common/json_writer.hpp"
#include "mockapi/route.hpp"

namespace tokbench::mock {

namespace {

constexpr size_t kMaxPairs = 10000;

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The head every pooling answer shares; the caller writes `data`'s items.
void open_list(JsonWriter& w, std::string_view id, const std::string& model) {
  w.begin_object().field("id", id).field("object", "list").field("created", unix_now());
  w.field("model", model).key("data").begin_array();
}
void close_list(JsonWriter& w, int64_t prompt_tokens) {
  w.end_array().key("usage").begin_object().field("prompt_tokens", prompt_tokens);
  w.field("total_tokens", prompt_tokens).field("completion_tokens", int64_t{0});
  w.end_object().end_object();
}

// A score side: a string or a list of strings (vLLM also takes content parts: not here).
bool texts_of(simdjson::dom::element v, std::vector<std::string>& out) {
  std::string_view text;
  if (!v.get_string().get(text)) {
    out.emplace_back(text);
    return true;
  }
  simdjson::dom::array items;
  if (v.get_array().get(items) || items.size() == 0 || items.size() > kMaxPairs) return false;
  for (auto item : items) {
    if (item.get_string().get(text)) return false;
    out.emplace_back(text);
  }
  return true;
}

class ScoreRoute : public OneShotRoute {
 public:
  std::string_view path() const override { return "/score"; }
  bool serves(std::string_view at) const override { return at == "/score" || at == "/v1/score"; }
  std::string_view id_prefix() const override { return "score-"; }

  std::optional<OneShotRequest> parse(const std::string& body, std::string* why) const override {
    simdjson::dom::parser parser;
    simdjson::dom::object o;
    if (!body_object(parser, body, o, why)) return std::nullopt;
    OneShotRequest r;
    std::string_view model;
    if (!o["model"].get_string().get(model)) r.model = std::string(model);
    simdjson::dom::element one, two;
    if (o["text_1"].get(one) || o["text_2"].get(two))
      if (o["queries"].get(one) || o["documents"].get(two)) {
        *why = "\"text_1\" and \"text_2\" are required (or \"queries\" and \"documents\")";
        return std::nullopt;
      }
    std::vector<std::string> firsts;
    if (!texts_of(one, firsts) || !texts_of(two, r.documents)) {
      *why = "each side must be a string or a list of 1 to 10000 strings";
      return std::nullopt;
    }
    if (firsts.size() != 1 && firsts.size() != r.documents.size()) {
      *why = "text_1 must be one text, or as many as text_2";
      return std::nullopt;
    }
    for (size_t i = 0; i < r.documents.size(); ++i)
      r.texts.push_back(firsts[firsts.size() == 1 ? 0 : i] + "\n" + r.documents[i]);
    r.query = firsts[0];
    r.inputs = static_cast<int64_t>(r.documents.size());
    return r;
  }

  std::string body(const OneShotRequest& r, const OneShotAnswer& a) const override {
    JsonWriter w;
    open_list(w, a.id, r.model);
    for (size_t i = 0; i < r.texts.size(); ++i) {
      const std::string& pair = r.texts[i];  // "first\ndocument": the first is its own text
      const std::string_view first(pair.data(), pair.size() - r.documents[i].size() - 1);
      w.begin_object().field("index", static_cast<int64_t>(i)).field("object", "score");
      w.field("score", relevance(first, r.documents[i])).end_object();
    }
    close_list(w, a.prompt_tokens);
    return w.take();
  }
};

// /classify and /pooling: embeddings' inputs, a result of their own per input.
class PerInputRoute : public OneShotRoute {
 public:
  PerInputRoute(std::string_view path, std::string_view prefix, bool classify)
      : path_(path), prefix_(prefix), classify_(classify) {}
  std::string_view path() const override { return path_; }
  std::string_view id_prefix() const override { return prefix_; }

  std::optional<OneShotRequest> parse(const std::string& body, std::string* why) const override {
    simdjson::dom::parser parser;
    simdjson::dom::object o;
    OneShotRequest r;
    if (!body_object(parser, body, o, why) || !read_inputs(o, r, why)) return std::nullopt;
    return r;
  }

  std::string body(const OneShotRequest& r, const OneShotAnswer& a) const override {
    std::mt19937_64 rng(a.seq);
    std::uniform_real_distribution<double> u(classify_ ? 0 : -1, 1);
    JsonWriter w;
    open_list(w, a.id, r.model);
    for (int64_t i = 0; i < r.inputs; ++i) {
      w.begin_object().field("index", i);
      if (classify_) {
        const double p = u(rng);
        w.field("label", p >= 0.5 ? "LABEL_0" : "LABEL_1").key("probs").begin_array();
        w.value(p).value(1 - p).end_array().field("num_classes", int64_t{2});
      } else {
        w.field("object", "pooling").key("data").begin_array();
        for (int d = 0; d < a.s.embedding_dims; ++d) w.value(u(rng));
        w.end_array();
      }
      w.end_object();
    }
    close_list(w, a.prompt_tokens);
    return w.take();
  }

 private:
  std::string_view path_, prefix_;
  bool classify_;
};

}  // namespace

const OneShotRoute& score_route() {
  static const ScoreRoute route;
  return route;
}
const OneShotRoute& classify_route() {
  static const PerInputRoute route("/classify", "classify-", true);
  return route;
}
const OneShotRoute& pooling_route() {
  static const PerInputRoute route("/pooling", "pool-", false);
  return route;
}

}  // namespace tokbench::mock
