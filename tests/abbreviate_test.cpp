// common/abbreviate: a request body fit for a 120-column console — long strings cut in place with
// what was dropped said, escapes and UTF-8 characters never split, the text wrapped and capped.
#include "common/abbreviate.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tokbench {
namespace {

TEST(Abbreviate, LongStringsAreCutInPlaceAndTheRestKept) {
  const std::string body = R"({"model":"m","messages":[{"role":"user","content":")" +
                           std::string(5000, 'x') + R"("}],"max_tokens":2,"stream":true})";
  const std::string shown = abbreviate_json_strings(body, 10);
  EXPECT_EQ(shown, R"({"model":"m","messages":[{"role":"user","content":"xxxxxxxxxx…+4990"}],)"
                   R"("max_tokens":2,"stream":true})");
  EXPECT_EQ(abbreviate_json_strings(R"({"a":"short"})", 10), R"({"a":"short"})");
}

TEST(Abbreviate, EscapesAndCharactersAreNeverSplit) {
  // An escape counts as one character and stays whole; so does a multi-byte character.
  EXPECT_EQ(abbreviate_json_strings(R"(["ab\"cd\u00e9fg"])", 3), R"(["ab\"…+5"])");
  EXPECT_EQ(abbreviate_json_strings("[\"日本語のテキスト\"]", 2), "[\"日本…+6\"]");
  // An escaped quote does not end the string.
  EXPECT_EQ(abbreviate_json_strings(R"(["a\"b","c"])", 10), R"(["a\"b","c"])");
}

TEST(Abbreviate, TextIsWrappedAndCapped) {
  const std::string text(300, 'y');
  const std::string out = wrap_lines(text, 14, 120, 2);
  const size_t nl = out.find('\n');
  ASSERT_NE(nl, std::string::npos);
  EXPECT_EQ(nl, 106u);  // 120 columns with the 14 already on the line
  EXPECT_EQ(out.find('\n', nl + 1), std::string::npos);                      // two lines at most
  EXPECT_NE(out.find(" … (76 more characters)"), std::string::npos) << out;  // 300 - 106 - 118
  EXPECT_EQ(wrap_lines("short", 14, 120, 2), "short");
  EXPECT_EQ(wrap_lines("日本語", 0, 4, 1), "日本語");  // columns are characters, not bytes
}

}  // namespace
}  // namespace tokbench
