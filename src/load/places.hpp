#pragma once
// load/places: the choice the session-like sources (load/sessions' conversations, load/agents'
// tasks) make each time the engine asks for a request — the first of their places whose session
// is neither in flight nor waiting (think time, tools), a free place first starting the next
// session; else when the next one is due, or that there is none. A place needs `in_flight` and
// `ready_at_ns`.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/request.hpp"
#include "load/source.hpp"

namespace tokbench::load {

template <class Place>
struct Picked {
  Place* place = nullptr;    ///< the place whose turn is due; null: none
  size_t at = 0;             ///< its position
  Pull wait = Pull::done();  ///< without a place: later (at the earliest due turn) or done
};

/// `open(place)` says whether `place` holds a session now, starting the next one in a free
/// place (false: it is free and none is left).
template <class Place, class Open>
Picked<Place> pick_place(std::vector<Place>& places, int64_t now_ns, Open open) {
  int64_t earliest = core::kNotSet;
  bool busy = false;
  for (size_t i = 0; i < places.size(); ++i) {
    Place& p = places[i];
    if (!open(p)) continue;
    if (p.in_flight) {
      busy = true;
      continue;
    }
    if (p.ready_at_ns > now_ns) {
      earliest = earliest == core::kNotSet ? p.ready_at_ns : std::min(earliest, p.ready_at_ns);
      continue;
    }
    return {&p, i, Pull::done()};
  }
  Picked<Place> none;
  none.wait = earliest != core::kNotSet ? Pull::later(earliest)
              : busy                    ? Pull::later()
                                        : Pull::done();
  return none;
}

}  // namespace tokbench::load
