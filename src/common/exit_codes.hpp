#pragma once
// common/exit_codes: what a script may read from tokbench's exit status — the one table. The man
// page's EXIT STATUS is written from it (cli/reference_command), and a test holds the README's
// "Exit codes" paragraph to it (tests/cli_reference_test.cpp).
#include <array>
#include <utility>

namespace tokbench {

inline constexpr int kExitValid = 0;   ///< a VALID run, or the command succeeded
inline constexpr int kExitFailed = 1;  ///< the target could not be used, or no request succeeded
inline constexpr int kExitUsage = 2;   ///< a bad flag or value, named with its fix
inline constexpr int kExitThreshold =
    3;  ///< compare: a --fail-if crossed; history check: a regression; run: a --class SLO missed
inline constexpr int kExitInvalid = 4;      ///< an INVALID run (its reports are written)
inline constexpr int kExitDiskStopped = 5;  ///< the disk refused a record: the load stopped at once
inline constexpr int kExitInterrupted = 130;  ///< Ctrl-C: the run folder holds what was measured

inline constexpr std::array<std::pair<int, const char*>, 7> kExitCodes{{
    {kExitValid, "a VALID run (or the command succeeded)"},
    {kExitFailed, "the target could not be used, or no request succeeded"},
    {kExitUsage, "a usage error: a bad flag or value, named with its fix"},
    {kExitThreshold,
     "compare: a --fail-if threshold was crossed; history check: a scenario's newest run "
     "regressed; run and report: a VALID run's traffic class (--class) missed its SLO"},
    {kExitInvalid, "an INVALID run (its reports are written)"},
    {kExitDiskStopped,
     "the disk refused a record: the load stopped at once, what was recorded stays"},
    {kExitInterrupted, "interrupted (Ctrl-C): the run folder holds what was measured"},
}};

}  // namespace tokbench
