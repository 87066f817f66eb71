// client/sse: SSE framing, with the stream split at every byte boundary.
#include "client/sse.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tokbench::client {
namespace {

std::vector<std::string> frame(const std::vector<std::string_view>& reads) {
  SseFramer f;
  std::vector<std::string> events;
  for (auto r : reads) f.feed(r, [&](std::string_view d) { events.emplace_back(d); });
  return events;
}

const std::string kStream =
    ": keep-alive comment\n\n"
    "data: {\"a\":1}\n\n"
    "event: message\r\ndata: {\"b\":2}\r\n\r\n"
    "data:{\"c\":3}\r\rdata: line1\ndata: line2\n\n"
    "id: 7\n\n"
    "data: [DONE]\n\n";
const std::vector<std::string> kEvents{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}", "line1\nline2",
                                       "[DONE]"};

TEST(SseFramer, WholeStreamInOneRead) { EXPECT_EQ(frame({kStream}), kEvents); }

// Lines mode (Ollama's application/x-ndjson): each non-empty line is an event, as it is — no
// "data:" field, blank lines skipped — split at every byte, with the cap still on.
TEST(SseFramer, NdjsonLinesSplitAtEveryByte) {
  const std::string stream =
      "{\"message\":{\"content\":\"a\"},\"done\":false}\n\r\n"
      "{\"message\":{\"content\":\"b:c\"},\"done\":false}\r\n"
      "{\"done\":true,\"eval_count\":2}\n";
  const std::vector<std::string> want{R"({"message":{"content":"a"},"done":false})",
                                      R"({"message":{"content":"b:c"},"done":false})",
                                      R"({"done":true,"eval_count":2})"};
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    SseFramer f;
    f.set_lines(true);
    std::vector<std::string> got;
    f.feed(std::string_view(stream).substr(0, cut),
           [&](std::string_view d) { got.emplace_back(d); });
    f.feed(std::string_view(stream).substr(cut), [&](std::string_view d) { got.emplace_back(d); });
    EXPECT_EQ(got, want) << "cut at " << cut;
    EXPECT_FALSE(f.has_partial());
  }
  SseFramer small(16);
  small.set_lines(true);
  small.feed(stream, [](std::string_view) {});
  EXPECT_TRUE(small.too_large());
}

TEST(SseFramer, SseEventSplitAcrossReadsAtEveryByte) {
  for (size_t cut = 0; cut <= kStream.size(); ++cut) {
    std::string_view s(kStream);
    EXPECT_EQ(frame({s.substr(0, cut), s.substr(cut)}), kEvents) << "split at byte " << cut;
  }
}

// As a socket reads: every read lands in the same buffer, overwritten by the next. An event
// whole in one read is handed out as a view of that buffer; one still open when the read ends
// must have been copied (a view kept across reads would hand out the next read's bytes).
TEST(SseFramer, ReadBufferOverwrittenBetweenReads) {
  for (size_t a = 0; a <= kStream.size(); ++a) {
    for (size_t b = a; b <= kStream.size(); b += 5) {
      SseFramer f;
      std::vector<std::string> events;
      std::string buffer;
      for (auto [from, to] :
           {std::pair{size_t{0}, a}, std::pair{a, b}, std::pair{b, kStream.size()}}) {
        buffer.assign(kStream, from, to - from);
        f.feed(buffer, [&](std::string_view d) { events.emplace_back(d); });
        buffer.assign(buffer.size(), '#');
      }
      ASSERT_EQ(events, kEvents) << "reads cut at " << a << " and " << b;
    }
  }
}

TEST(SseFramer, OneByteAtATime) {
  std::vector<std::string_view> reads;
  for (size_t i = 0; i < kStream.size(); ++i)
    reads.push_back(std::string_view(kStream).substr(i, 1));
  EXPECT_EQ(frame(reads), kEvents);
}

TEST(SseFramer, CrLfSplitBetweenReadsIsOneLineEnd) {
  // "\r" ends one read and "\n" starts the next: still one line end, so no spurious event.
  EXPECT_EQ(frame({"data: x\r", "\n\r", "\n"}), std::vector<std::string>{"x"});
}

TEST(SseFramer, PartialEventIsReported) {
  SseFramer f;
  int n = 0;
  f.feed("data: {\"cut", [&](std::string_view) { ++n; });
  EXPECT_TRUE(f.has_partial());
  EXPECT_EQ(n, 0);
  f.reset();
  EXPECT_FALSE(f.has_partial());
}

TEST(Sse, LinesThatAreNotSseAreCountedNotDispatched) {
  SseFramer f;
  std::vector<std::string> got;
  f.feed("garbage without a colon\nevent: x\nid: 1\n: comment\nretry: 5\nwhat: ever\ndata: a\n\n",
         [&](std::string_view d) { got.emplace_back(d); });
  EXPECT_EQ(got, (std::vector<std::string>{"a"}));
  EXPECT_EQ(f.malformed_lines(), 2);
  f.reset();
  EXPECT_EQ(f.malformed_lines(), 0);
}

}  // namespace
}  // namespace tokbench::client
