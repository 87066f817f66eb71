#pragma once
// Test helper: a run the verdict called INVALID only because the machine running the test was
// short of CPU. Against a loopback simulator the test itself started, three of the verdict's
// reasons have no other cause: the send lag of a schedule the client could not keep, the client's
// own delay (ClientDelay over the allowance: woken late) or busy or starved worker, and a
// /metrics cross-check the client's delayed stamps fail (no other traffic or proxy can be there).
// The verdict is right to say INVALID on such a machine (its rules stay strict); a test whose point
// is elsewhere must not depend on it (DEVELOPERS.md, "Tests hold on a busy machine"), so these
// helpers accept such a run, print that they did, and refuse every other reason.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>

#include "common/exit_codes.hpp"
#include "process.hpp"

namespace tokbench::testing {

/// The verdict reasons (metrics/verdict.cpp) a busy test machine gives a loopback run.
inline bool busy_machine_reason(std::string_view reason) {
  return reason.starts_with("send lag p99 was ") ||  // the schedule was not kept
         reason.starts_with("the client and the server's /metrics disagree") ||  // late stamps
         // the client's (or a rank's) worker busy, starved of CPU or woken late (its reasons
         // all name it, ClientDelay's too)
         reason.find("busiest worker thread") != std::string_view::npos;
}

/// A verdict warning or reason only a busy machine causes: one of the reasons above, or the
/// warnings beside them (the client's measured own delay, a send lag beside the wake-up floor).
inline bool busy_machine_warning(std::string_view text) {
  return busy_machine_reason(text) || text.find("(ClientDelay") != std::string_view::npos ||
         text.find("wake-up floor") != std::string_view::npos;
}

/// Every run folder under `root` (its result.json) whose verdict is INVALID: "" when each of
/// them is INVALID only for busy-machine reasons and at least one is, else what is not.
inline std::string not_only_busy(const std::filesystem::path& root, int* invalid_runs = nullptr) {
  namespace fs = std::filesystem;
  simdjson::dom::parser p;
  std::string other;
  int invalid = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() != "result.json") continue;
    simdjson::dom::element doc;
    if (p.load(it->path().string()).get(doc)) continue;
    std::string_view status;
    if (doc["verdict"]["status"].get(status) || status != "INVALID") continue;
    ++invalid;
    simdjson::dom::array reasons;
    if (doc["verdict"]["reasons"].get(reasons)) continue;
    for (auto r : reasons) {
      std::string_view text;
      if (!r.get(text) && !busy_machine_reason(text))
        other += it->path().parent_path().string() + ": " + std::string(text) + "\n";
    }
  }
  if (invalid_runs) *invalid_runs = invalid;
  if (invalid == 0 && other.empty()) return "no INVALID run folder under " + root.string();
  return other;
}

/// A run folder whose result.json says VALID, or INVALID only because this machine was busy.
inline ::testing::AssertionResult FolderValidUnlessBusy(const std::filesystem::path& run) {
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  if (p.load((run / "result.json").string()).get(doc))
    return ::testing::AssertionFailure() << "no result.json in " << run;
  std::string_view status;
  if (!doc["verdict"]["status"].get(status) && status == "VALID")
    return ::testing::AssertionSuccess();
  const std::string other = not_only_busy(run);
  if (other.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << status << ", and not only from a busy machine:\n"
                                       << other;
}

/// `tokbench run` (or a sweep, grid or search) into `root` came out VALID (exit 0), or INVALID
/// (exit 4) only because this machine was busy, which it prints.
inline ::testing::AssertionResult RanValidUnlessBusy(const Result& r,
                                                     const std::filesystem::path& root) {
  if (r.code == kExitValid) return ::testing::AssertionSuccess();
  if (r.code == kExitInvalid) {
    int invalid = 0;
    const std::string other = not_only_busy(root, &invalid);
    if (other.empty()) {
      std::cout << "note: " << invalid
                << " run(s) INVALID only for what a busy machine causes (send lag, the client's "
                   "CPU, the cross-check); this test's checks do not rest on the verdict\n";
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "INVALID, and not only from a busy machine:\n"
                                         << other << r.output;
  }
  return ::testing::AssertionFailure() << "exit " << r.code << ":\n" << r.output;
}

}  // namespace tokbench::testing
