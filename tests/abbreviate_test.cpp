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
  EXPECT_EQ(shown,
            R"x({"model":"m","messages":[{"role":"user","content":"xxxxxxxxxx… (+4990 chars)"}],)x"
            R"("max_tokens":2,"stream":true})");
  EXPECT_EQ(abbreviate_json_strings(R"({"a":"short"})", 10), R"({"a":"short"})");
}

TEST(Abbreviate, EscapesAndCharactersAreNeverSplit) {
  // An escape counts as one character and stays whole; so does a multi-byte character.
  EXPECT_EQ(abbreviate_json_strings(R"(["ab\"cd\u00e9fg"])", 3), R"x(["ab\"… (+5 chars)"])x");
  EXPECT_EQ(abbreviate_json_strings("[\"日本語のテキスト\"]", 2), "[\"日本… (+6 chars)\"]");
  // An escaped quote does not end the string.
  EXPECT_EQ(abbreviate_json_strings(R"(["a\"b","c"])", 10), R"(["a\"b","c"])");
}

// A one-line summary: cut at the last space before the limit, marked; what fits is untouched;
// a word longer than the limit is cut within it, on a character's boundary.
TEST(Abbreviate, HeadlineCutsAtAWord) {
  EXPECT_EQ(headline("short enough", 20), "short enough");
  EXPECT_EQ(headline("the client's own delay in TTFT was 17.31% of mean TTFT", 24),
            "the client's own delay …");
  EXPECT_EQ(headline("ééééééééé", 4), "éééé …");
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

// A body of JSON breaks after a comma (a field whole on the next line), prose after a space, and
// only in a line's second half; the last line still fills to the width before the count.
TEST(Abbreviate, LinesBreakAfterACommaOrASpace) {
  const std::string body =
      R"({"inputs":"Explain, step by step, why the sky appears blue","stream":true,"parameters":)"
      R"({"max_new_tokens":16,"details":true}})";
  EXPECT_EQ(wrap_lines(body, 14, 100, 3),
            R"({"inputs":"Explain, step by step, why the sky appears blue","stream":true,)"
            "\n  "
            R"("parameters":{"max_new_tokens":16,"details":true}})");
  EXPECT_EQ(wrap_lines("aaaa bbbb cccc dddd", 0, 12, 2), "aaaa bbbb \n  cccc dddd");
  EXPECT_EQ(wrap_lines("a bcdefghijklmnop", 0, 8, 3),
            "a bcdefg\n  hijklm\n  nop");  // no late break
  const std::string capped = wrap_lines("aaaa bbbb cccc dddd eeee", 0, 12, 1);
  EXPECT_EQ(capped, "aaaa bbbb cc … (12 more characters)");  // the last line is not broken early
}

}  // namespace
// Issue 41: an exporter's bytes reached the console through a warning (ESC]0;...BEL retitled the
// terminal; colour codes).
TEST(Abbreviate, ControlBytesArePrintedAsEscapes) {
  EXPECT_EQ(printable("a\x1b]0;pwned\x07"
                      "b"),
            "a\\x1b]0;pwned\\x07b");
  EXPECT_EQ(printable("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(printable("line\nnext\r"), "line\\nnext\\r");
  EXPECT_EQ(printable("\xc2\x9b"
                      "2J"),
            "\\u009b2J")
      << "a C1 CSI, as UTF-8";
  EXPECT_EQ(printable("tab\tand caf\xc3\xa9 \xe6\xa8\xa1"), "tab\tand caf\xc3\xa9 \xe6\xa8\xa1")
      << "text is kept";
}

TEST(Abbreviate, ProseLinesFitTheConsole) {
  const std::string line =
      "stable stage: 448 requests over 6.683 s at 32 in flight: 62.267 req/s, output 31878 "
      "token/s, TTFT P99 3.558 ms, TPOT P99 1.007 ms";
  EXPECT_EQ(fit_line("short line"), "short line");
  const std::string fitted = fit_line(line, 60);
  size_t lines = 0;
  for (size_t at = 0; at <= fitted.size();) {
    const size_t end = std::min(fitted.find('\n', at), fitted.size());
    EXPECT_LE(end - at, 60u) << fitted;
    if (lines++ > 0) {
      EXPECT_EQ(fitted.substr(at, 2), "  ") << "continued, indented";
    }
    at = end + 1;
  }
  EXPECT_EQ(lines, 3u) << fitted;
  // Nothing is lost: the words, in order, once the breaks are undone.
  std::string undone;
  for (char c : fitted) undone += c == '\n' ? ' ' : c;
  std::string squeezed;
  for (char c : undone)
    if (!(c == ' ' && !squeezed.empty() && squeezed.back() == ' ')) squeezed += c;
  EXPECT_EQ(squeezed, line);
  // A list item continues under its text; the separators of a line that fits stay as written.
  EXPECT_EQ(fit_line("  - 4 of 4 requests failed (4 http_status)", 24),
            "  - 4 of 4 requests\n      failed (4\n      http_status)");
  EXPECT_EQ(fit_line("target a  model b", 80), "target a  model b");
  // A label and a path to copy stay on one line, however long.
  const std::string path_line = "  log:     " + std::string(150, 'p');
  EXPECT_EQ(fit_line(path_line, 120), path_line);
  // Characters, not bytes: 40 box-drawing characters are 40 columns.
  std::string box;
  for (int i = 0; i < 40; ++i) box += "═";
  EXPECT_EQ(fit_line(box, 40), box);
}

}  // namespace tokbench
