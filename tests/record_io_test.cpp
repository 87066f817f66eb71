// record/record_io: the details line round-trips every field, and a bad file names its line.
#include "record/record_io.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>

#include "support/records.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::record {
namespace {

TEST(RecordIo, RoundTripKeepsEveryField) {
  auto r = testing::stream_record(
      1, {{90, ChunkKind::Role}, {100, ChunkKind::Content, 1}, {120, ChunkKind::Usage, 2}}, 121, 2,
      10);
  r.index = 42;
  r.warmup = true;
  r.attempts = 2;
  r.request_id = "chatcmpl-9";
  r.finish_reason = "length";
  r.output_chars = 12;
  r.cached_tokens = 4;
  r.error = "quote \" and newline \n";
  r.malformed_sse_lines = 3;
  r.connects = 1;
  r.dns_done_ns = testing::ms(1.5);
  r.connect_done_ns = testing::ms(2);
  r.tls_done_ns = testing::ms(3);
  r.request_start_ns = testing::ms(3.5);
  r.model = "sql-lora";
  r.documents = 5;
  r.server_prompt_us = 4000;
  r.server_load_us = 250'000;
  r.server_queue_us = 7'000;
  const auto line = to_json_line(r, "gsm8k");
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NE(line.find("\"data_abbr\":\"gsm8k\""), std::string::npos);
  const auto back = from_json_line(line);
  EXPECT_EQ(back.index, 42);
  EXPECT_TRUE(back.warmup);
  EXPECT_EQ(back.attempts, 2);
  EXPECT_EQ(back.request_id, "chatcmpl-9");
  EXPECT_EQ(back.model, "sql-lora");
  EXPECT_EQ(back.documents, 5);
  EXPECT_EQ(from_json_line(to_json_line(RequestRecord{}, "x")).documents, 0);  // absent: none
  EXPECT_EQ(back.malformed_sse_lines, 3);
  EXPECT_EQ(back.error, r.error);
  EXPECT_EQ(back.cached_tokens, 4);
  EXPECT_EQ(back.server_prompt_us, 4000);
  EXPECT_EQ(back.server_load_us, 250'000);
  EXPECT_EQ(back.server_queue_us, 7'000);
  EXPECT_EQ(back.server_predicted_n, record::kNone);
  EXPECT_EQ(back.sent_ns, r.sent_ns);
  EXPECT_EQ(back.first_token_ns, r.first_token_ns);
  EXPECT_EQ(back.done_ns, r.done_ns);
  EXPECT_EQ(back.connects, 1);
  EXPECT_EQ(back.dns_done_ns, r.dns_done_ns);
  EXPECT_EQ(back.connect_done_ns, r.connect_done_ns);
  EXPECT_EQ(back.tls_done_ns, r.tls_done_ns);
  EXPECT_EQ(back.request_start_ns, r.request_start_ns);
  ASSERT_EQ(back.chunks.size(), 3u);
  EXPECT_EQ(back.chunks[0].kind, ChunkKind::Role);
  EXPECT_EQ(back.chunks[0].cum_tokens, -1);
  EXPECT_EQ(back.chunks[2].cum_tokens, 2);
  EXPECT_EQ(back.chunks[1].t_ns, r.chunks[1].t_ns);
  EXPECT_EQ(to_json_line(back, "gsm8k"), line);
}

// --check-answers and --determinism-probe: what was read, the verdict (null = unscored), the text
// checks and a probe's hash round-trip; a record that was not checked writes none of them.
TEST(RecordIo, OutputChecksRoundTrip) {
  auto r = testing::stream_record(1, {{100, ChunkKind::Content, 1}}, 121, 2, 10);
  EXPECT_EQ(to_json_line(r, "d").find("\"right\""), std::string::npos);
  r.answer_mark = AnswerMark::Wrong;
  r.answer = "19";
  r.repeating = 1;
  r.valid_utf8 = 0;
  r.probe = true;
  r.output_hash = "00ff00ff00ff00ff";
  const std::string line = to_json_line(r, "d");
  EXPECT_NE(line.find("\"answer\":\"19\",\"right\":false,\"repeating\":true,\"valid_utf8\":false,"
                      "\"probe\":true"),
            std::string::npos)
      << line;
  auto back = from_json_line(line);
  EXPECT_EQ(back.answer_mark, AnswerMark::Wrong);
  EXPECT_EQ(back.answer, "19");
  EXPECT_EQ(back.repeating, 1);
  EXPECT_EQ(back.valid_utf8, 0);
  EXPECT_TRUE(back.probe);
  EXPECT_EQ(back.output_hash, "00ff00ff00ff00ff");
  r.answer_mark = AnswerMark::Unscored;
  const std::string unscored = to_json_line(r, "d");
  EXPECT_NE(unscored.find("\"answer\":null,\"right\":null"), std::string::npos) << unscored;
  EXPECT_EQ(from_json_line(unscored).answer_mark, AnswerMark::Unscored);
  for (const auto why : {record::NotChecked::RegexLimit, record::NotChecked::Backlog}) {
    r.not_checked = why;
    const std::string line = to_json_line(r, "d");
    EXPECT_NE(line.find("\"not_checked\":\"" + std::string(not_checked_name(why)) + "\""),
              std::string::npos)
        << line;
    EXPECT_EQ(from_json_line(line).not_checked, why);
  }
  r.not_checked = record::NotChecked::No;
  EXPECT_EQ(to_json_line(r, "d").find("not_checked"), std::string::npos);
  r.answer_mark = AnswerMark::Right;
  EXPECT_EQ(from_json_line(to_json_line(r, "d")).answer_mark, AnswerMark::Right);
}

TEST(RecordIo, ChoiceOfEachChunkRoundTripsWhenThereAreSeveral) {
  auto r = testing::stream_record(
      0, {{100, ChunkKind::Content, -1, 0}, {110, ChunkKind::Content, -1, 1}}, 111, 2, 5);
  ASSERT_EQ(r.choices, 2);
  const auto line = to_json_line(r, "x");
  const auto back = from_json_line(line);
  EXPECT_EQ(back.choices, 2);
  ASSERT_EQ(back.chunks.size(), 2u);
  EXPECT_EQ(back.chunks[0].choice, 0);
  EXPECT_EQ(back.chunks[1].choice, 1);
  // One choice: no "choice" array at all (the details stay as they were).
  const auto one =
      to_json_line(testing::stream_record(0, {{100, ChunkKind::Content}}, 101, 1, 5), "x");
  EXPECT_EQ(one.find("\"choice\""), std::string::npos);
  // A choice array of another length, or a negative index, is an error naming it.
  auto bad = line;
  bad.replace(bad.find("\"choice\":[0,1]"), 16, "\"choice\":[0]");
  EXPECT_THROW((void)from_json_line(bad), std::runtime_error);
  bad = line;
  bad.replace(bad.find("\"choice\":[0,1]"), 16, "\"choice\":[0,-1]");
  EXPECT_THROW((void)from_json_line(bad), std::runtime_error);
}

TEST(RecordIo, TokenProvenanceAndMismatch) {
  auto r = testing::stream_record(0, {{10, ChunkKind::Content}}, 11, 5, 3);
  EXPECT_EQ(r.token_source(), "usage");
  EXPECT_FALSE(r.token_mismatch());
  r.completion_tokens_local = 6;
  EXPECT_TRUE(r.token_mismatch());
  r.prompt_tokens_local = 2;
  r.expected_prompt_tokens = 3;
  const auto back = from_json_line(to_json_line(r, "x"));
  EXPECT_EQ(back.completion_tokens_local, 6);
  EXPECT_EQ(back.prompt_tokens_local, 2);
  EXPECT_EQ(back.expected_prompt_tokens, 3);
  EXPECT_TRUE(back.token_mismatch());
  r.completion_tokens = kNone;
  EXPECT_EQ(r.token_source(), "tokenizer");
  r.completion_tokens_local = kNone;
  EXPECT_EQ(r.token_source(), "chunks");
}

TEST(RecordIo, OutcomeNamesRoundTrip) {
  for (auto o : {Outcome::Ok, Outcome::ConnectError, Outcome::Timeout, Outcome::HttpStatus,
                 Outcome::StreamProtocol, Outcome::Cancelled}) {
    EXPECT_EQ(outcome_from_name(outcome_name(o)), o);
  }
  EXPECT_FALSE(outcome_from_name("failed").has_value());
}

TEST(RecordIo, BadLineNamesFileAndLine) {
  const auto path = (testing::test_dir() / "bad_details.jsonl").string();
  {
    std::ofstream out(path);
    out << to_json_line(testing::stream_record(0, {}, 1, 0, 0), "x") << "\n{not json\n"
        << to_json_line(testing::stream_record(0, {}, 1, 0, 0), "x") << "\n";
  }
  try {
    read_details(path);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2:"), std::string::npos) << e.what();
  }
}

// The top level is read in one walk over its keys: any order reads the same, unknown keys are
// ignored, a value of the wrong type is an error naming its field, null reads as absent.
TEST(RecordIo, KeysInAnyOrderStrictTypesNamedErrors) {
  auto r = testing::stream_record(3, {{5, record::ChunkKind::Content}}, 9, 1, 3);
  r.index = 17;
  r.client_request_id = "run-17";
  r.finish_reason = "stop";
  const std::string line = to_json_line(r, "x");
  simdjson::dom::parser p;
  const simdjson::dom::object o = p.parse(line).get_object().value();
  std::vector<std::string> fields;
  for (auto f : o) fields.push_back("\"" + std::string(f.key) + "\":" + simdjson::minify(f.value));
  std::string reversed = "{\"later_field\":[1,2]";
  for (auto it = fields.rbegin(); it != fields.rend(); ++it) reversed += "," + *it;
  reversed += "}";
  const RequestRecord back = from_json_line(reversed);
  EXPECT_EQ(to_json_line(back, "x"), line);
  auto error_of = [&](const std::string& from, const std::string& to) {
    std::string bad = line;
    bad.replace(bad.find(from), from.size(), to);
    try {
      from_json_line(bad);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("\"id\":17", "\"id\":\"17\""), "\"id\" must be an integer");
  EXPECT_EQ(error_of("\"stream\":true", "\"stream\":1"), "\"stream\" must be true or false");
  EXPECT_EQ(error_of("\"finish_reason\":\"stop\"", "\"finish_reason\":3"),
            "\"finish_reason\" must be a string");
  EXPECT_EQ(error_of("\"sent\":3000000", "\"sent\":\"x\""), "\"sent\" must be an integer");
  EXPECT_EQ(error_of("\"outcome\":\"ok\"", "\"outcome\":\"fine\""), "unknown outcome 'fine'");
  EXPECT_EQ(error_of("\"timing_ns\"", "\"timing\""), "missing \"timing_ns\" object");
  EXPECT_EQ(from_json_line(line.substr(0, line.find("\"sent\":")) + "\"sent\":null" +
                           line.substr(line.find(",", line.find("\"sent\":"))))
                .sent_ns,
            record::kNone);
}

TEST(RecordIo, TornLastLineIsSkippedWithAWarningNamingIt) {
  // A kill during the last write leaves part of a line and no newline: every whole line counts.
  const auto path = (testing::test_dir() / "torn_details.jsonl").string();
  const std::string line =
      to_json_line(testing::stream_record(0, {{5, record::ChunkKind::Content}}, 9, 1, 3), "x");
  {
    std::ofstream out(path);
    out << line << "\n" << line << "\n" << line.substr(0, line.size() / 2);
  }
  int64_t seen = 0;
  const DetailsScan scan = for_each_detail(path, [&](RequestRecord&&) { ++seen; });
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(scan.records, 2);
  EXPECT_NE(scan.warning.find(path + ":3:"), std::string::npos) << scan.warning;
  EXPECT_NE(scan.warning.find("skipped"), std::string::npos) << scan.warning;
}

TEST(RecordIo, AppenderWritesEachLineAtOnce) {
  const auto path = (testing::test_dir() / "append.jsonl").string();
  LineAppender out(path);
  out.append("{\"a\":1}");
  // Readable before the appender is closed: a crash loses nothing already appended.
  std::ifstream in(path);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "{\"a\":1}");
}

}  // namespace
}  // namespace tokbench::record
