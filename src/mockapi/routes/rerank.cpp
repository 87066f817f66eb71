// mockapi/routes/rerank: /v1/rerank as vLLM answers it (its serving_score, Jina's and Cohere's
// shape): a `query` and `documents` (strings, or objects with `text`) in; `results` — each
// document's `index` and `relevance_score`, best first, the best `top_n` when asked, its text with
// `return_documents` — and usage out. vLLM's usage has total_tokens only: every (query, document)
// pair's tokens, as a cross-encoder reads them (counted here without the model's own separators).
// The scores are made up but steady: the share of the query's words the document holds.
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <numeric>
#include <set>

#include "common/json_writer.hpp"
#include "mockapi/route.hpp"

namespace tokbench::mock {

namespace {
constexpr size_t kMaxDocuments = 10000;

std::set<std::string> words_of(std::string_view text) {
  std::set<std::string> out;
  std::string word;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      out.insert(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) out.insert(std::move(word));
  return out;
}

class RerankRoute : public OneShotRoute {
 public:
  std::string_view path() const override { return "/v1/rerank"; }
  std::string_view id_prefix() const override { return "rerank-"; }

  std::optional<OneShotRequest> parse(const std::string& body, std::string* why) const override {
    simdjson::dom::parser parser;
    simdjson::dom::object o;
    if (!body_object(parser, body, o, why)) return std::nullopt;
    OneShotRequest r;
    std::string_view text;
    if (!o["model"].get_string().get(text)) r.model = std::string(text);
    if (o["query"].get_string().get(text)) {
      *why = "\"query\" is required: a string";
      return std::nullopt;
    }
    r.query = std::string(text);
    simdjson::dom::array docs;
    if (o["documents"].get_array().get(docs) || docs.size() == 0 || docs.size() > kMaxDocuments) {
      *why = "\"documents\" is required: a list of 1 to 10000 strings";
      return std::nullopt;
    }
    for (auto d : docs) {
      if (d.get_string().get(text) && (!d.is_object() || d["text"].get_string().get(text))) {
        *why = "each of \"documents\" must be a string or an object with a \"text\" string";
        return std::nullopt;
      }
      r.documents.emplace_back(text);
      r.texts.push_back(r.query + "\n" + std::string(text));
    }
    r.inputs = static_cast<int64_t>(r.documents.size());
    int64_t top_n = 0;
    if (!o["top_n"].get_int64().get(top_n) && top_n > 0) r.top_n = top_n;
    bool give = false;
    if (!o["return_documents"].get_bool().get(give)) r.return_documents = give;
    return r;
  }

  std::string body(const OneShotRequest& r, const OneShotAnswer& a) const override {
    std::vector<double> score(r.documents.size());
    for (size_t i = 0; i < score.size(); ++i) score[i] = relevance(r.query, r.documents[i]);
    std::vector<size_t> order(score.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return score[x] > score[y]; });
    if (r.top_n > 0 && static_cast<size_t>(r.top_n) < order.size())
      order.resize(static_cast<size_t>(r.top_n));
    JsonWriter w;
    w.begin_object().field("id", a.id).field("model", r.model);
    w.key("usage").begin_object().field("total_tokens", a.prompt_tokens).end_object();
    w.key("results").begin_array();
    for (const size_t i : order) {
      w.begin_object().field("index", static_cast<int64_t>(i));
      if (r.return_documents)
        w.key("document").begin_object().field("text", r.documents[i]).end_object();
      w.field("relevance_score", score[i]).end_object();
    }
    w.end_array().end_object();
    return w.take();
  }
};

}  // namespace

double relevance(std::string_view query, std::string_view document) {
  const std::set<std::string> asked = words_of(query);
  const std::set<std::string> doc = words_of(document);
  const auto shared = std::count_if(asked.begin(), asked.end(),
                                    [&](const std::string& w) { return doc.count(w) > 0; });
  return (static_cast<double>(shared) + 0.5) / (static_cast<double>(asked.size()) + 1.0);
}

const OneShotRoute& rerank_route() {
  static const RerankRoute route;
  return route;
}

}  // namespace tokbench::mock
