#pragma once
// Test helper: the process of one rank of a multi-host run that a test started (mpirun or srun),
// found by its environment (the launcher's rank variable) and its command line (the test's own
// output folder), so a test can kill or stop exactly that rank.
#include <sys/types.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace tokbench::testing {

/// The pid of the tokbench whose environment has `rank_var`=`rank` and whose command line names
/// `out`; -1 when there is none.
inline pid_t rank_pid(const std::string& rank_var, int rank, const std::filesystem::path& out) {
  const std::string want = '\0' + rank_var + "=" + std::to_string(rank) + '\0';
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream cmd(e.path() / "cmdline"), env(e.path() / "environ");
    const std::string c(std::istreambuf_iterator<char>(cmd), {});
    if (!c.starts_with(TOKBENCH_BINARY) || c.find(out.string()) == std::string::npos) continue;
    const std::string v = '\0' + std::string(std::istreambuf_iterator<char>(env), {});
    if (v.find(want) != std::string::npos) return static_cast<pid_t>(std::stol(name));
  }
  return -1;
}

}  // namespace tokbench::testing
