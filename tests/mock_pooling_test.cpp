// mockapi/routes/pooling: the simulator's /score, /classify and /pooling in vLLM's shapes — one
// `data` item per pair or input, usage over every input's tokens, the refusals vLLM makes.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <memory>
#include <string>

#include "mock/mock_server.hpp"
#include "mockapi/mock_response.hpp"
#include "mockapi/route.hpp"
#include "support/http_post.hpp"

namespace tokbench::mock {
namespace {

using testing::http_post;

class PoolingRoutes : public ::testing::Test {
 protected:
  void SetUp() override {
    MockSettings s;
    s.ttft_ms = 2;
    s.port = 0;
    s.embedding_dims = 8;
    server_ = std::make_unique<MockServer>(s);
    base_ = "http://127.0.0.1:" + std::to_string(server_->start());
  }
  std::unique_ptr<MockServer> server_;
  std::string base_;
  simdjson::dom::parser p_;
};

// One text_1 against each text_2: a score per pair in the pairs' order (rerank's relevance, so the
// document holding the query's words scores highest), usage over every pair's text; the lists
// zipped when text_1 has as many; queries/documents read as vLLM's newer form.
TEST_F(PoolingRoutes, ScoreAnswersEveryPairInOrder) {
  const auto res = http_post(
      base_ + "/score",
      R"({"model":"tokbench-mock","text_1":"red apples","text_2":["blue sky","red apples here"]})");
  ASSERT_EQ(res.status, 200) << res.body;
  auto doc = p_.parse(res.body);
  EXPECT_TRUE(std::string_view(doc["id"].get_string().value()).starts_with("score-"));
  EXPECT_EQ(std::string_view(doc["object"].get_string().value()), "list");
  simdjson::dom::array data = doc["data"].get_array();
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(data.at(0)["index"].get_int64().value(), 0);
  EXPECT_EQ(std::string_view(data.at(1)["object"].get_string().value()), "score");
  EXPECT_DOUBLE_EQ(data.at(0)["score"].get_double().value(), relevance("red apples", "blue sky"));
  EXPECT_GT(data.at(1)["score"].get_double().value(), data.at(0)["score"].get_double().value());
  const int64_t tokens = count_prompt_tokens("red apples\nblue sky") +
                         count_prompt_tokens("red apples\nred apples here");
  EXPECT_EQ(doc["usage"]["prompt_tokens"].get_int64().value(), tokens);
  EXPECT_EQ(doc["usage"]["completion_tokens"].get_int64().value(), 0);

  const auto zip = http_post(
      base_ + "/score",
      R"({"model":"tokbench-mock","queries":["sky","apples"],"documents":["blue sky","apples"]})");
  ASSERT_EQ(zip.status, 200) << zip.body;
  auto z = p_.parse(zip.body);
  EXPECT_DOUBLE_EQ(z["data"].at(1)["score"].get_double().value(), relevance("apples", "apples"));
  EXPECT_EQ(z["usage"]["prompt_tokens"].get_int64().value(),
            count_prompt_tokens("sky\nblue sky") + count_prompt_tokens("apples\napples"));

  for (const char* bad : {R"({"model":"tokbench-mock","text_1":"q"})",
                          R"({"model":"tokbench-mock","text_1":["a","b"],"text_2":["a","b","c"]})",
                          R"({"model":"tokbench-mock","text_1":"q","text_2":[]})",
                          R"({"model":"tokbench-mock","text_1":"q","text_2":[5]})", "[]"})
    EXPECT_EQ(http_post(base_ + "/score", bad).status, 400) << bad;
  EXPECT_EQ(http_post(base_ + "/score", R"({"model":"nope","text_1":"q","text_2":"a"})").status,
            404);
  // vLLM's older path answers the same.
  const auto v1 = http_post(base_ + "/v1/score",
                            R"({"model":"tokbench-mock","text_1":"q","text_2":["q","x"]})");
  ASSERT_EQ(v1.status, 200) << v1.body;
  EXPECT_EQ(p_.parse(v1.body)["data"].get_array().size(), 2u);
}

// /classify: a label and two probabilities summing to 1 per input; /pooling: --embedding-dims
// floats per input. Both read `input` as embeddings do and count its tokens.
TEST_F(PoolingRoutes, ClassifyAndPoolingAnswerEachInput) {
  const auto res =
      http_post(base_ + "/classify", R"({"model":"tokbench-mock","input":["good day","bad"]})");
  ASSERT_EQ(res.status, 200) << res.body;
  auto doc = p_.parse(res.body);
  EXPECT_TRUE(std::string_view(doc["id"].get_string().value()).starts_with("classify-"));
  simdjson::dom::array data = doc["data"].get_array();
  ASSERT_EQ(data.size(), 2u);
  for (auto d : data) {
    simdjson::dom::array probs = d["probs"].get_array();
    ASSERT_EQ(probs.size(), 2u);
    EXPECT_NEAR(probs.at(0).get_double().value() + probs.at(1).get_double().value(), 1, 1e-12);
    EXPECT_EQ(d["num_classes"].get_int64().value(), 2);
    EXPECT_TRUE(std::string_view(d["label"].get_string().value()).starts_with("LABEL_"));
  }
  EXPECT_EQ(doc["usage"]["prompt_tokens"].get_int64().value(),
            count_prompt_tokens("good day") + count_prompt_tokens("bad"));

  const auto pool = http_post(base_ + "/pooling", R"({"model":"tokbench-mock","input":"hello"})");
  ASSERT_EQ(pool.status, 200) << pool.body;
  auto pd = p_.parse(pool.body);
  EXPECT_EQ(std::string_view(pd["data"].at(0)["object"].get_string().value()), "pooling");
  EXPECT_EQ(pd["data"].at(0)["data"].get_array().size(), 8u);
  EXPECT_EQ(pd["usage"]["prompt_tokens"].get_int64().value(), count_prompt_tokens("hello"));
  EXPECT_EQ(http_post(base_ + "/classify", R"({"model":"tokbench-mock"})").status, 400);
  EXPECT_EQ(http_post(base_ + "/pooling", R"({"model":"tokbench-mock","input":[]})").status, 400);
}

}  // namespace
}  // namespace tokbench::mock
