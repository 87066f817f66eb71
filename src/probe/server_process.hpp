#pragma once
// probe/server_process: starts the server under test (--server-cmd, or a deploy.sh with
// MODEL_PATH set), captures its output to a log file, waits until it answers, and stops it:
// SIGTERM to its process group, SIGKILL after a grace period. Errors show the log's tail.
// The server dies with tokbench however tokbench ends: a small supervising child holds one end of
// a socket pair whose other end only tokbench has; when tokbench dies (even by SIGKILL, or a CI
// timeout killing its process group, which the server's own group escapes), the kernel closes it,
// and the supervisor stops the server's group the same way.
#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "record/run_parts.hpp"

namespace tokbench::probe {

struct ServerProcessSettings {
  std::string command;                     ///< run with /bin/sh -c
  std::map<std::string, std::string> env;  ///< added to the environment
  std::filesystem::path log_path;          ///< stdout and stderr go here
  std::vector<std::string> ready_urls;     ///< any answering HTTP 200 means ready
  double ready_timeout_s = 600;
  double stop_grace_s = 10;
  std::vector<std::string> secrets;  ///< values hidden wherever the log is shown or kept
};

class ServerProcess {
 public:
  explicit ServerProcess(ServerProcessSettings s);
  ~ServerProcess();  ///< stops the server if still running

  /// Starts the command and waits until a ready URL answers. Throws std::runtime_error naming
  /// what happened (exited early with status N, not ready after T s) with the log's last lines.
  void start_and_wait();
  /// SIGTERM, then SIGKILL after the grace period. Returns how it ended, for the report.
  std::string stop();
  pid_t pid() const { return pid_; }

 private:
  void supervise();           ///< forks the supervisor of pid_'s group
  void release_supervisor();  ///< tells it the server is stopped and reaps it
  ServerProcessSettings s_;
  pid_t pid_ = -1;
  pid_t supervisor_ = -1;
  int supervisor_pipe_ = -1;  ///< tokbench's end: closed by its death, or stop()'s word
};

/// The last `n` lines of a file ("" if unreadable).
std::string tail_lines(const std::filesystem::path& p, size_t n);

/// What vLLM's periodic log lines said during a run.

/// Parses "Avg prompt throughput: … tokens/s, Avg generation throughput: … tokens/s, Running: N
/// reqs, Waiting: N reqs" and "SpecDecoding metrics: Mean acceptance length: …, … Accepted: N
/// tokens, Drafted: N tokens, Per-position acceptance rate: a, b, …" lines.
record::ServerLogSummary parse_vllm_log(const std::string& text);

}  // namespace tokbench::probe
