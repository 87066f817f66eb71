// common/json_writer: what tokbench writes is JSON any reader accepts, whatever bytes a server
// sent (issue 41: one Latin-1 byte in an error body made the details file unreadable).
#include "common/json_writer.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <random>
#include <string>

// U+FFFD REPLACEMENT CHARACTER, as UTF-8.
#define FFFD "\xef\xbf\xbd"

namespace tokbench {
namespace {

std::string literal(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

TEST(JsonWriter, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  EXPECT_EQ(literal("caf\xc3\xa9"), "\"caf\xc3\xa9\"") << "valid UTF-8 is kept as written";
  EXPECT_EQ(literal("erron\xe9"
                    "e"),
            "\"erron" FFFD "e\"")
      << "Latin-1 é: one byte, one U+FFFD";
  EXPECT_EQ(literal("\xe4\xb8"), "\"" FFFD "" FFFD "\"") << "a CJK character cut short";
  EXPECT_EQ(literal("\xc0\xaf"), "\"" FFFD "" FFFD "\"") << "an overlong '/'";
  EXPECT_EQ(literal("\xed\xa0\x80"), "\"" FFFD "" FFFD "" FFFD "\"") << "a UTF-16 surrogate";
  EXPECT_EQ(literal("\xf4\x90\x80\x80"), "\"" FFFD "" FFFD "" FFFD "" FFFD "\"") << "past U+10FFFF";
  EXPECT_EQ(literal("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"") << "an emoji, four bytes, kept";
}

TEST(JsonWriter, AnyBytesWriteJsonThatParses) {
  std::mt19937 rng(41);
  simdjson::dom::parser parser;
  for (int round = 0; round < 2000; ++round) {
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() & 0xFF);
    JsonWriter w;
    w.begin_object().field("error", bytes).end_object();
    simdjson::dom::element doc;
    ASSERT_FALSE(parser.parse(w.str()).get(doc)) << "round " << round;
    std::string_view back;
    ASSERT_FALSE(doc["error"].get_string().get(back));
  }
}

TEST(JsonWriter, AnExcerptIsCutOnACharacterBoundary) {
  EXPECT_EQ(utf8_whole("ab\xe4\xb8"), "ab");  // the first two bytes of 中
  EXPECT_EQ(utf8_whole("ab\xe4\xb8\xad"), "ab\xe4\xb8\xad");
  EXPECT_EQ(utf8_whole("ab\xf0\x9f\x98"), "ab");
  EXPECT_EQ(utf8_whole("ab\xc3"), "ab");
  EXPECT_EQ(utf8_whole("abc"), "abc");
  EXPECT_EQ(utf8_whole(""), "");
}

}  // namespace
}  // namespace tokbench
