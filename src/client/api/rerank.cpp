// client/api/rerank: /v1/rerank, the shape vLLM (also at /rerank and /v2/rerank), llama.cpp's
// server, Jina and Cohere serve: a query and documents in; relevance scores (`results`, one per
// document ranked, each with its `index` and `relevance_score`) and usage out. Nothing is generated
// or streamed: a request is one answer, timed whole (E2EL), and its documents are counted.
#include "client/api.hpp"
#include "client/api/json_read.hpp"

namespace tokbench::client {

namespace {

using namespace api_detail;

class Rerank : public ApiAdapter {
 public:
  std::string_view name() const override { return "rerank"; }
  std::string_view title() const override { return "rerank (vLLM, llama.cpp, Jina, Cohere)"; }
  std::string_view path() const override { return "/v1/rerank"; }
  std::string_view path_tail() const override { return "/rerank"; }
  ApiCaps caps() const override {
    ApiCaps c;
    c.generates = c.streams = false;
    c.documents = true;
    c.finish_reasons = c.cap_reason = "";
    return c;
  }

  // The query and every document; nothing else unless asked (--extra-body: top_n,
  // return_documents), so the server ranks them all and the answer's size is its own default.
  void write_body(JsonWriter& w, const BodySettings& s,
                  const dataset::RequestSpec& spec) const override {
    if (!s.overridden("model")) w.field("model", spec.model.empty() ? s.model : spec.model);
    if (!s.overridden("query")) w.field("query", spec.prompt);
    if (s.overridden("documents")) return;
    w.key("documents").begin_array();
    if (const core::Ranking* r = spec.ranking())
      for (const auto& doc : r->documents) w.value(doc);
    w.end_array();
  }

  // vLLM's usage has total_tokens only (every pair's tokens: all input); llama.cpp's also
  // prompt_tokens. An answer without a `results` list ranked nothing: it fails.
  void parse(simdjson::dom::element doc, ChunkInfo& out, StreamMemory&) const override {
    take_one_shot(doc, out, "results",
                  "a rerank answer without a \"results\" list (the server ranked nothing)");
  }

  void audit(simdjson::dom::object o, std::vector<AuditFinding>& out) const override {
    simdjson::dom::array docs;
    if (o["documents"].get_array().get(docs) || docs.size() == 0)
      out.push_back({"warning", "no documents are sent: the server has nothing to rank"});
    if (!o["top_n"].error())
      out.push_back({"note",
                     "top_n is sent: the server still scores every document; only the answer "
                     "is shorter"});
  }
};

}  // namespace

const ApiAdapter& rerank_api() {
  static const Rerank api;
  return api;
}

}  // namespace tokbench::client
