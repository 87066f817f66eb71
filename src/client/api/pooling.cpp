// client/api/pooling: the rest of vLLM's pooling family beside embeddings and rerank — `/score`
// (a query scored against each of its documents: cross-encoder pairs), `/classify` (a label and
// class probabilities per input) and `/pooling` (the model's pooled hidden states per input), as
// vLLM serves them (entrypoints/pooling: ScoreResponse, ClassificationResponse, PoolingResponse).
// Nothing is generated or streamed: a request is one answer, timed whole (E2EL); a score
// request's pairs are counted as a ranking's documents.
#include "client/api.hpp"
#include "client/api/json_read.hpp"

namespace tokbench::client {

namespace {

using namespace api_detail;

ApiCaps one_shot_caps(bool documents) {
  ApiCaps c;
  c.generates = c.streams = false;
  c.documents = documents;
  c.finish_reasons = c.cap_reason = "";
  return c;
}

void write_model(JsonWriter& w, const BodySettings& s, const dataset::RequestSpec& spec) {
  if (!s.overridden("model")) w.field("model", spec.model.empty() ? s.model : spec.model);
}

// /score: text_1 (the query) against each of text_2 (the documents), the form every vLLM since
// the API's start reads (newer ones also take queries/documents); one score per pair.
class Score : public ApiAdapter {
 public:
  std::string_view name() const override { return "score"; }
  std::string_view title() const override { return "score (vLLM: query-document pairs)"; }
  std::string_view path() const override { return "/score"; }
  ApiCaps caps() const override { return one_shot_caps(true); }

  void write_body(JsonWriter& w, const BodySettings& s,
                  const dataset::RequestSpec& spec) const override {
    write_model(w, s, spec);
    if (!s.overridden("text_1")) w.field("text_1", spec.prompt);
    if (s.overridden("text_2")) return;
    w.key("text_2").begin_array();
    if (const core::Ranking* r = spec.ranking())
      for (const auto& doc : r->documents) w.value(doc);
    w.end_array();
  }

  void parse(simdjson::dom::element doc, ChunkInfo& out, StreamMemory&) const override {
    take_one_shot(doc, out, "data", "a score answer without a \"data\" list (nothing was scored)");
  }

  void audit(simdjson::dom::object o, std::vector<AuditFinding>& out) const override {
    simdjson::dom::array docs;
    if (o["text_2"].get_array().get(docs) || docs.size() == 0)
      out.push_back({"warning", "no text_2 is sent: the server has no pairs to score"});
  }
};

// /classify and /pooling: `input` in (the prompt), one result per input out.
class PerInput : public ApiAdapter {
 public:
  PerInput(std::string_view name, std::string_view title, std::string_view path,
           std::string_view missing)
      : name_(name), title_(title), path_(path), missing_(missing) {}
  std::string_view name() const override { return name_; }
  std::string_view title() const override { return title_; }
  std::string_view path() const override { return path_; }
  ApiCaps caps() const override { return one_shot_caps(false); }

  void write_body(JsonWriter& w, const BodySettings& s,
                  const dataset::RequestSpec& spec) const override {
    write_model(w, s, spec);
    if (!s.overridden("input")) w.field("input", spec.prompt);
  }

  void parse(simdjson::dom::element doc, ChunkInfo& out, StreamMemory&) const override {
    take_one_shot(doc, out, "data", missing_);
  }

  void audit(simdjson::dom::object, std::vector<AuditFinding>&) const override {}

 private:
  std::string_view name_, title_, path_, missing_;
};

}  // namespace

const ApiAdapter& score_api() {
  static const Score api;
  return api;
}
const ApiAdapter& classify_api() {
  static const PerInput api("classify", "classify (vLLM: labels and probabilities)", "/classify",
                            "a classify answer without a \"data\" list (nothing was classified)");
  return api;
}
const ApiAdapter& pooling_api() {
  static const PerInput api("pooling", "pooling (vLLM: pooled hidden states)", "/pooling",
                            "a pooling answer without a \"data\" list (nothing was pooled)");
  return api;
}

}  // namespace tokbench::client
