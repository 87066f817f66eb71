// metrics/quality and its views (report/quality_view): accuracy over the scored outputs only, each
// integrity count from records made to have it (an empty output, one cut by the cap without
// ignore_eos, a repeating one, invalid UTF-8, a finish reason the API does not define), the
// probes' distinct outputs, the falling-accuracy rule of a sweep, and the verdict's one INVALID
// case (every output empty).
#include "metrics/quality.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include "metrics/verdict.hpp"
#include "report/quality_view.hpp"
#include "series/load_curve.hpp"

namespace tokbench::metrics {
namespace {

using record::AnswerMark;
using record::RequestRecord;

const std::string kOpenAi =
    "stop,length,tool_calls,content_filter,function_call";  // client::ApiCaps' default

RequestRecord output(std::string finish = "stop", int64_t chars = 10) {
  RequestRecord r;
  r.finish_reason = std::move(finish);
  r.output_chars = chars;
  return r;
}

RequestRecord scored(AnswerMark mark) {
  RequestRecord r = output();
  r.answer_mark = mark;
  r.answer_key.kind = core::AnswerKey::Kind::Gsm8k;
  return r;
}

TEST(Quality, AccuracyCountsOnlyTheScoredAndSaysTheRest) {
  QualityPass pass(kOpenAi, "length");
  for (int i = 0; i < 30; ++i) pass.add(scored(AnswerMark::Right));
  for (int i = 0; i < 10; ++i) pass.add(scored(AnswerMark::Wrong));
  pass.add(scored(AnswerMark::Unscored));
  RequestRecord failed = scored(AnswerMark::None);
  failed.outcome = record::Outcome::HttpStatus;
  pass.add(failed);
  pass.add(output());  // no reference: not part of the accuracy
  const Quality q = pass.finish();
  EXPECT_EQ(q.answers.right, 30);
  EXPECT_EQ(q.answers.wrong, 10);
  EXPECT_EQ(q.answers.unscored, 1);
  EXPECT_EQ(q.answers.failed, 1);
  EXPECT_DOUBLE_EQ(q.answers.interval().p, 0.75);
  EXPECT_EQ(q.accuracy_text().rfind("accuracy 0.750 [", 0), 0u) << q.accuracy_text();
  EXPECT_NE(q.accuracy_text().find("30 of 40 right; 1 unscored; 1 failed"), std::string::npos)
      << q.accuracy_text();
  ASSERT_EQ(q.warnings().size(), 1u);
  EXPECT_NE(q.warnings()[0].find("1 output(s) gave no answer"), std::string::npos);
}

// The bounded checks' two ways of not scoring (measure/recorder, core/answer_regex) are counted
// apart from "the rule read nothing", each with its own warning, and in result.json.
TEST(Quality, RegexLimitAndUnreadOutputsAreCountedApart) {
  QualityPass pass(kOpenAi, "length");
  pass.add(scored(AnswerMark::Right));
  pass.add(scored(AnswerMark::Unscored));
  RequestRecord limited = scored(AnswerMark::Unscored);
  limited.not_checked = record::NotChecked::RegexLimit;
  pass.add(limited);
  for (int i = 0; i < 2; ++i) {
    RequestRecord unread = scored(AnswerMark::Unscored);
    unread.not_checked = record::NotChecked::Backlog;
    pass.add(unread);
  }
  const Quality q = pass.finish();
  EXPECT_EQ(q.answers.unscored, 4);
  EXPECT_EQ(q.answers.regex_limit, 1);
  EXPECT_EQ(q.answers.backlog, 2);
  EXPECT_EQ(q.integrity.unread, 2);
  EXPECT_NE(q.accuracy_text().find("4 unscored (1 regex limit, 2 not read: checks behind)"),
            std::string::npos)
      << q.accuracy_text();
  const auto w = q.warnings();
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].rfind("1 output(s) gave no answer", 0), 0u) << w[0];
  EXPECT_EQ(w[1].rfind("1 output(s) are unscored (regex limit)", 0), 0u) << w[1];
  EXPECT_EQ(w[2].rfind("2 of 5 output(s) were let go unread", 0), 0u) << w[2];
  JsonWriter json;
  json.begin_object();
  report::write_quality_json(json, q);
  json.end_object();
  simdjson::dom::parser p;
  const simdjson::dom::element doc = p.parse(json.take()).value();
  EXPECT_EQ(doc["quality"]["answers"]["unscored_regex_limit"].get_int64().value(), 1);
  EXPECT_EQ(doc["quality"]["answers"]["unscored_not_read"].get_int64().value(), 2);
  EXPECT_EQ(doc["quality"]["integrity"]["not_read"].get_int64().value(), 2);
}

TEST(Quality, EachIntegrityProblemIsCountedByItsOwnRule) {
  QualityPass pass(kOpenAi, "length");
  pass.add(output());
  pass.add(output("stop", 0));  // empty
  pass.add(output("length"));   // cut by the cap, ignore_eos not sent
  RequestRecord asked = output("length");
  asked.ignore_eos_sent = true;  // the cap was the point: not cut
  pass.add(asked);
  RequestRecord looping = output();
  looping.repeating = 1;
  looping.valid_utf8 = 1;
  pass.add(looping);
  RequestRecord broken = output();
  broken.repeating = 0;
  broken.valid_utf8 = 0;
  pass.add(broken);
  pass.add(output("abort"));  // vLLM's, not OpenAI's
  pass.add(output(""));       // none at all: counted apart
  const Quality q = pass.finish();
  const Integrity& in = q.integrity;
  EXPECT_EQ(in.outputs, 8);
  EXPECT_EQ(in.empty, 1);
  EXPECT_EQ(in.truncated, 1);
  EXPECT_EQ(in.text_checked, 2);
  EXPECT_EQ(in.repeating, 1);
  EXPECT_EQ(in.invalid_utf8, 1);
  EXPECT_EQ(in.unknown_finish, 1);
  EXPECT_EQ(in.unknown_example, "abort");
  EXPECT_EQ(in.no_finish, 1);
  EXPECT_FALSE(q.all_empty());
  const std::vector<std::string> w = q.warnings();
  auto said = [&](const char* text) {
    return std::any_of(w.begin(), w.end(),
                       [&](const std::string& s) { return s.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(said("1 of 8 successful output(s) were empty"));
  EXPECT_TRUE(
      said("1 of 8 output(s) were cut by the output cap"));  // outputs were read: the cut matters
  EXPECT_TRUE(said("1 of 2 output(s) end in runaway repetition"));
  EXPECT_TRUE(said("1 of 2 output(s) are not valid UTF-8"));
  EXPECT_TRUE(said("(first: 'abort')"));
}

TEST(Quality, ACapCutIsOnlyCountedWhenNothingWasRead) {
  QualityPass pass(kOpenAi, "length");
  pass.add(output("length"));
  const Quality q = pass.finish();
  EXPECT_EQ(q.integrity.truncated, 1);
  EXPECT_TRUE(q.warnings().empty());  // a throughput run caps its outputs on purpose
  // Each API's own words: Anthropic's cap is "max_tokens", and "length" is not among its reasons.
  QualityPass anthropic("end_turn,max_tokens,stop_sequence,tool_use,pause_turn,refusal",
                        "max_tokens");
  anthropic.add(output("max_tokens"));
  anthropic.add(output("length"));
  EXPECT_EQ(anthropic.finish().integrity.truncated, 1);
  EXPECT_EQ(anthropic.finish().integrity.unknown_finish, 1);
  QualityPass embeddings("", "");  // nothing generated: no output to judge
  embeddings.add(output("", 0));
  EXPECT_EQ(embeddings.finish().integrity.outputs, 0);
}

TEST(Quality, EveryOutputEmptyIsTheOneInvalidCase) {
  QualityPass pass(kOpenAi, "length");
  for (int i = 0; i < 5; ++i) pass.add(output("stop", 0));
  MetricSet m;
  m.quality = pass.finish();
  EXPECT_TRUE(m.quality.all_empty());
  const Verdict v = judge(m, VerdictTally{}, VerdictFacts{});
  EXPECT_FALSE(v.valid);
  ASSERT_FALSE(v.reasons.empty());
  EXPECT_NE(v.reasons.back().find("every one of the 5 successful output(s) was empty"),
            std::string::npos);
}

TEST(Quality, ProbesCountTheirDistinctOutputs) {
  QualityPass pass(kOpenAi, "length");
  for (const char* text : {"same", "same", "same", "other"}) {
    RequestRecord r = output();
    r.probe = true;
    r.output_hash = output_hash(text);
    pass.add(r);
  }
  const Quality q = pass.finish();
  EXPECT_EQ(q.determinism.probes, 4);
  EXPECT_EQ(q.determinism.distinct, 2);
  EXPECT_NE(q.warnings().back().find("the 4 identical probe request(s) gave 2 different outputs"),
            std::string::npos);
  EXPECT_EQ(output_hash("same"), output_hash("same"));
  EXPECT_EQ(output_hash("").size(), 16u);
}

TEST(QualityView, JsonAndCsvCarryEveryCount) {
  QualityPass pass(kOpenAi, "length");
  for (int i = 0; i < 3; ++i) pass.add(scored(AnswerMark::Right));
  pass.add(scored(AnswerMark::Wrong));
  const Quality q = pass.finish();
  JsonWriter w;
  w.begin_object();
  report::write_quality_json(w, q);
  w.end_object();
  simdjson::dom::parser p;
  const simdjson::dom::element doc = p.parse(w.take()).value();
  const auto answers = doc["quality"]["answers"];
  EXPECT_DOUBLE_EQ(answers["accuracy"].get_double().value(), 0.75);
  EXPECT_EQ(answers["right"].get_int64().value(), 3);
  const WilsonInterval i = wilson_interval(3, 4);
  EXPECT_DOUBLE_EQ(answers["interval"].at(0).get_double().value(), i.low);
  EXPECT_TRUE(doc["quality"]["integrity"]["repeating"].is_null());  // the text was not read
  EXPECT_TRUE(doc["quality"]["determinism"].is_null());
  const std::string csv = report::quality_csv(q);
  EXPECT_EQ(csv.rfind("check,value,low,high,count,of\naccuracy,0.750000,", 0), 0u) << csv;
  EXPECT_NE(csv.find("empty,,,,0,4\n"), std::string::npos) << csv;
  EXPECT_TRUE(report::outputs_read(q));
  EXPECT_FALSE(report::outputs_read(Quality{}));
}

TEST(FallingAccuracy, NamedWhenAHigherLoadsIntervalLiesBelowTheLowest) {
  auto point = [](const char* label, double load, int64_t right, int64_t n) {
    LoadPoint p;
    p.label = label;
    p.load = load;
    const WilsonInterval i = wilson_interval(right, n);
    p.accuracy = i.p;
    p.accuracy_low = i.low;
    p.accuracy_high = i.high;
    return p;
  };
  std::vector<LoadPoint> rows{point("c1", 1, 164, 200), point("c8", 8, 160, 200),
                              point("c64", 64, 128, 200)};
  const std::string w = falling_accuracy(rows, "concurrency");
  EXPECT_EQ(w.rfind("accuracy 0.820 at concurrency 1, 0.640 at 64:", 0), 0u)
      << w;  // c8 is within the noise
  rows.pop_back();
  EXPECT_EQ(falling_accuracy(rows, "concurrency"), "");
  rows.front().accuracy.reset();  // the first scored point is the baseline
  EXPECT_EQ(falling_accuracy(rows, "concurrency"), "");
}

}  // namespace
}  // namespace tokbench::metrics
