#pragma once
// load/sessions: multi-turn conversations as a request source. Up to `active` sessions run at once
// (--concurrency); each sends its turns one after another, the next one only once the last answer
// is in (and --think-time-ms has passed), so every turn's body can carry the real previous
// answers. Which text each turn asks and how a body is made are the caller's (point/): this file
// knows nothing about HTTP or JSON. Memory: the histories of the active sessions only.
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "load/source.hpp"

namespace tokbench::load {

/// One turn about to be sent: its place and the conversation so far (user, assistant) pairs.
struct TurnContext {
  int64_t index = 0;    ///< the request's sequence index in the phase
  int64_t session = 0;  ///< which conversation (0-based, in start order)
  int64_t turn = 0;     ///< 0-based turn in it
  int64_t turns = 0;    ///< the conversation's number of turns
  int64_t session_start_ns =
      0;  ///< when its first turn was handed out (steady ns since the origin)
  const std::vector<std::pair<std::string, std::string>>* history =
      nullptr;  ///< earlier turns: (asked, answered)
};

/// Makes turn t's request: `conversation` and `turn` name the dataset's text, ctx the history.
using TurnMaker = std::function<core::PlannedRequest(int64_t conversation, const TurnContext& ctx)>;

class SessionSource final : public RequestSource {
 public:
  /// `turns_of[c]` is conversation c's number of turns; at most `active` run at once; a session
  /// waits `think_ns` after an answer before its next turn. A rank of a multi-host run takes the
  /// conversations c with c % shard_size == shard_rank (a session stays on one rank), and numbers
  /// its requests rank, rank + size, ... so that indices stay unique across the ranks.
  SessionSource(std::vector<int64_t> turns_of, int active, int64_t think_ns, TurnMaker make,
                int shard_rank = 0, int shard_size = 1);
  /// Recorded sessions (agent-trace:PATH): the pause before turn t (>= 1) of conversation c is
  /// think_of(c, t) instead of think_ns, and each turn's facts say when it could go (ready_ns)
  /// and its pause (tool_ns: a recorded agent's tools and user), as an agent task's do.
  using ThinkOf = std::function<int64_t(int64_t conversation, int64_t turn)>;
  void recorded_pauses(ThinkOf think_of) { think_of_ = std::move(think_of); }
  void start(int64_t phase_start_ns) override;
  Pull next(int64_t now_ns) override;
  /// Keeps the answer (the record's output_text) in its session's history; a failed turn ends
  /// its session (the turns after it are never sent).
  void completed(record::RequestRecord& r) override;
  int64_t planned() const override { return planned_; }
  int64_t sessions_cut_short() const;  ///< sessions ended by a failed turn

 private:
  struct Session {
    int64_t conversation = -1;  ///< -1 = a free place
    int64_t turn = 0;           ///< the next turn to send
    int64_t start_ns = 0;
    int64_t ready_at_ns = 0;  ///< the next turn may go then
    int64_t paused_ns = 0;    ///< the pause before it
    bool in_flight = false;
    std::vector<std::pair<std::string, std::string>> history;
    std::string asked;  ///< the in-flight turn's user text (from its facts)
  };

  std::vector<int64_t> turns_of_;
  int64_t think_ns_;
  TurnMaker make_;
  ThinkOf think_of_;
  int64_t planned_ = 0;
  mutable std::mutex mu_;
  std::vector<Session> places_;
  int64_t next_conversation_ = 0, next_index_ = 0, cut_short_ = 0;
  int shard_rank_ = 0, shard_size_ = 1;
  std::unordered_map<int64_t, size_t>
      place_of_index_;  ///< in-flight request index -> its session's place
};

}  // namespace tokbench::load
