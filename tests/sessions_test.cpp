// load/sessions: conversations as a request source — a turn goes only once the last answer is in
// (and the think time has passed), with the real answers in its history; at most `active`
// sessions at once; a failed turn ends its conversation.
#include "load/sessions.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tokbench::load {
namespace {

struct Seen {
  int64_t conversation, turn, history;
  std::string last_answer;
};

class SessionsTest : public ::testing::Test {
 protected:
  SessionSource make(std::vector<int64_t> turns, int active, int64_t think_ns) {
    return SessionSource(
        std::move(turns), active, think_ns, [this](int64_t c, const TurnContext& ctx) {
          seen_.push_back({c, ctx.turn, static_cast<int64_t>(ctx.history->size()),
                           ctx.history->empty() ? "" : ctx.history->back().second});
          core::PlannedRequest p;
          p.facts.turn_text = "ask " + std::to_string(c) + "." + std::to_string(ctx.turn);
          return p;
        });
  }
  static record::RequestRecord answer(const core::PlannedRequest& p, int64_t done_ns,
                                      bool ok = true) {
    record::RequestRecord r;
    r.index = p.index;
    r.done_ns = done_ns;
    r.output_text = "answer " + std::to_string(p.index);
    if (!ok) r.outcome = record::Outcome::HttpStatus;
    return r;
  }
  // A source may mark the record it is handed (load/source.hpp): it takes a named one.
  static void finish(SessionSource& src, record::RequestRecord r) { src.completed(r); }
  std::vector<Seen> seen_;
};

TEST_F(SessionsTest, EachTurnWaitsForTheLastAnswerAndCarriesIt) {
  auto src = make({3, 2}, 1, 0);
  EXPECT_EQ(src.planned(), 5);
  src.start(0);
  Pull a = src.next(0);
  ASSERT_EQ(a.kind, Pull::Kind::Request);
  EXPECT_EQ(a.request.facts.session, 0);
  EXPECT_EQ(a.request.facts.turn, 0);
  EXPECT_FALSE(a.request.facts.last_turn);
  EXPECT_EQ(src.next(1).kind, Pull::Kind::Later);  // one session at a time, and it is in flight
  finish(src, answer(a.request, 10));
  Pull b = src.next(11);
  ASSERT_EQ(b.kind, Pull::Kind::Request);
  EXPECT_EQ(seen_.back().history, 1);
  EXPECT_EQ(seen_.back().last_answer, "answer 0");  // the real answer, not a dataset's
  finish(src, answer(b.request, 20));
  Pull c = src.next(21);
  EXPECT_TRUE(c.request.facts.last_turn);
  EXPECT_EQ(seen_.back().history, 2);
  finish(src, answer(c.request, 30));
  Pull d = src.next(31);  // the place takes the next conversation, from an empty history
  EXPECT_EQ(d.request.facts.session, 1);
  EXPECT_EQ(seen_.back().history, 0);
  EXPECT_EQ(d.request.facts.session_start_ns, 31);
  finish(src, answer(d.request, 40));
  Pull e = src.next(41);
  finish(src, answer(e.request, 50));
  EXPECT_EQ(src.next(51).kind, Pull::Kind::Done);
  std::vector<int64_t> indexes{a.request.index, b.request.index, c.request.index, d.request.index,
                               e.request.index};
  EXPECT_EQ(indexes, (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST_F(SessionsTest, ThinkTimeAndSeveralSessionsAtOnce) {
  auto src = make({2, 2, 2}, 2, 100);
  src.start(0);
  Pull a = src.next(0), b = src.next(0);
  EXPECT_EQ(a.request.facts.session, 0);
  EXPECT_EQ(b.request.facts.session, 1);
  EXPECT_EQ(src.next(0).kind, Pull::Kind::Later);  // two places, both in flight: the third waits
  finish(src, answer(a.request, 50));
  Pull wait = src.next(60);
  ASSERT_EQ(wait.kind, Pull::Kind::Later);
  EXPECT_EQ(wait.retry_at_ns, 150);  // its answer at 50, then 100 of thinking
  Pull a2 = src.next(150);
  EXPECT_EQ(a2.request.facts.session, 0);
  EXPECT_EQ(a2.request.facts.turn, 1);
}

TEST_F(SessionsTest, AFailedTurnEndsItsConversation) {
  auto src = make({3, 1}, 1, 0);
  src.start(0);
  Pull a = src.next(0);
  finish(src, answer(a.request, 10, false));
  Pull b = src.next(11);  // conversation 0's turns 2 and 3 are never sent
  EXPECT_EQ(b.request.facts.session, 1);
  EXPECT_EQ(src.sessions_cut_short(), 1);
  finish(src, answer(b.request, 20));
  EXPECT_EQ(src.next(21).kind, Pull::Kind::Done);
}

}  // namespace
}  // namespace tokbench::load

namespace tokbench::load {
namespace {

// A rank of a multi-host run: its conversations are every size-th one (a session stays on one
// rank), and its request indices rank, rank + size, ... never collide with another rank's.
TEST(SessionShard, ConversationsAndIndicesOfOneRank) {
  std::vector<int64_t> convs;
  SessionSource src(
      {2, 2, 2, 2, 2}, 4, 0,
      [&convs](int64_t c, const TurnContext&) {
        convs.push_back(c);
        return core::PlannedRequest{};
      },
      1, 3);
  EXPECT_EQ(src.planned(), 4);  // conversations 1 and 4, two turns each
  std::vector<int64_t> indices;
  for (int round = 0; round < 2; ++round) {
    std::vector<core::PlannedRequest> sent;
    for (Pull p = src.next(0); p.kind == Pull::Kind::Request; p = src.next(0))
      sent.push_back(std::move(p.request));
    for (const auto& p : sent) {
      indices.push_back(p.index);
      record::RequestRecord r;
      r.index = p.index;
      src.completed(r);
    }
  }
  EXPECT_EQ(src.next(0).kind, Pull::Kind::Done);
  EXPECT_EQ(convs, (std::vector<int64_t>{1, 4, 1, 4}));
  EXPECT_EQ(indices, (std::vector<int64_t>{1, 4, 7, 10}));
}

}  // namespace
}  // namespace tokbench::load
