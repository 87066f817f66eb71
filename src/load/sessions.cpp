#include "load/sessions.hpp"

#include <algorithm>

#include "load/places.hpp"

namespace tokbench::load {

SessionSource::SessionSource(std::vector<int64_t> turns_of, int active, int64_t think_ns,
                             TurnMaker make, int shard_rank, int shard_size)
    : turns_of_(std::move(turns_of)),
      think_ns_(think_ns),
      make_(std::move(make)),
      places_(static_cast<size_t>(std::max(1, active))),
      shard_rank_(shard_rank),
      shard_size_(std::max(1, shard_size)) {
  next_conversation_ = shard_rank_;
  for (size_t c = static_cast<size_t>(shard_rank_); c < turns_of_.size();
       c += static_cast<size_t>(shard_size_))
    planned_ += turns_of_[c];
}

void SessionSource::start(int64_t) {}

Pull SessionSource::next(int64_t now_ns) {
  TurnContext ctx;
  int64_t conversation = -1, ready_ns = 0, paused_ns = 0;
  {
    std::lock_guard lock(mu_);
    const Picked<Session> picked = pick_place(places_, now_ns, [&](Session& s) {
      if (s.conversation >= 0) return true;
      if (next_conversation_ >= static_cast<int64_t>(turns_of_.size())) return false;
      s = Session{};  // a free place: start the next conversation
      s.conversation = next_conversation_;
      next_conversation_ += shard_size_;
      s.start_ns = now_ns;
      s.ready_at_ns = now_ns;
      return true;
    });
    if (!picked.place) return picked.wait;
    Session* pick = picked.place;
    const size_t at = picked.at;
    pick->in_flight = true;
    ctx.index = next_index_++ * shard_size_ + shard_rank_;
    ctx.session = pick->conversation;
    ctx.turn = pick->turn;
    ctx.turns = turns_of_[static_cast<size_t>(pick->conversation)];
    ctx.session_start_ns = pick->start_ns;
    ctx.history = &pick->history;  // stable: the session is in flight, nothing else touches it
    conversation = pick->conversation;
    ready_ns = pick->ready_at_ns;
    paused_ns = pick->paused_ns;
    place_of_index_[ctx.index] = at;
  }
  core::PlannedRequest p = make_(conversation, ctx);
  p.index = ctx.index;
  p.facts.session = ctx.session;
  p.facts.turn = ctx.turn;
  p.facts.session_start_ns = ctx.session_start_ns;
  p.facts.last_turn = ctx.turn + 1 == ctx.turns;
  if (think_of_) {  // a recorded session: its pauses are an agent's tool and user time
    p.facts.ready_ns = ready_ns;
    p.facts.tool_ns = paused_ns;
  }
  {
    std::lock_guard lock(mu_);
    places_[place_of_index_[ctx.index]].asked = p.facts.turn_text;
  }
  return Pull::of(std::move(p));
}

void SessionSource::completed(record::RequestRecord& r) {
  std::lock_guard lock(mu_);
  const auto it = place_of_index_.find(r.index);
  if (it == place_of_index_.end()) return;
  Session& s = places_[it->second];
  place_of_index_.erase(it);
  s.in_flight = false;
  const int64_t turns = turns_of_[static_cast<size_t>(s.conversation)];
  if (!r.ok()) {  // no answer to carry on from: the conversation ends here
    if (s.turn + 1 < turns) ++cut_short_;
    if (think_of_) {  // a recorded session ends as an agent task does (metrics/agents)
      r.last_turn = true;
      r.task_end = core::TaskEnd::Failed;
    }
    s = Session{};
    return;
  }
  s.history.emplace_back(std::move(s.asked), r.output_text);
  s.asked.clear();
  if (++s.turn >= turns) {
    s = Session{};  // done: the place takes the next conversation
    return;
  }
  s.paused_ns = think_of_ ? think_of_(s.conversation, s.turn) : think_ns_;
  s.ready_at_ns = r.done_ns + s.paused_ns;
}

int64_t SessionSource::sessions_cut_short() const {
  std::lock_guard lock(mu_);
  return cut_short_;
}

}  // namespace tokbench::load
