#pragma once
// Test helper: run the real tokbench binary as a child process (integration tests talk to it
// over loopback only), with bounded waits.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace tokbench::testing {

class Child {
 public:
  /// Starts argv[0] with its stdout and stderr in one pipe; stdin from `stdin_path` if given.
  explicit Child(const std::vector<std::string>& argv, const std::string& stdin_path = "") {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    if (!stdin_path.empty())
      posix_spawn_file_actions_addopen(&fa, 0, stdin_path.c_str(), O_RDONLY, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ) != 0)
      throw std::runtime_error("spawn");
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    fd_ = fds[0];
  }
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (fd_ >= 0) close(fd_);
  }

  /// Reads output until `needle` appears or `timeout` passes; returns everything read so far.
  std::string read_until(const std::string& needle, std::chrono::milliseconds timeout) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (out_.find(needle) == std::string::npos && std::chrono::steady_clock::now() < end) {
      if (!read_some(50)) break;
    }
    return out_;
  }

  void signal(int sig) { kill(pid_, sig); }
  pid_t pid() const { return pid_; }

  /// Waits for exit (killing it after `timeout`), reads the rest of the output, returns the status.
  int wait(std::chrono::milliseconds timeout = std::chrono::seconds(120)) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (true) {
      read_some(20);
      const pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) break;
      if (std::chrono::steady_clock::now() > end) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
    }
    pid_ = -1;
    while (read_some(0)) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  const std::string& output() const { return out_; }

 private:
  bool read_some(int timeout_ms) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) <= 0) return true;
    char buf[4096];
    const ssize_t n = read(fd_, buf, sizeof buf);
    if (n <= 0) return false;
    out_.append(buf, static_cast<size_t>(n));
    return true;
  }
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string out_;
};

struct Result {
  int code;
  std::string output;
};

/// Runs `argv` (argv[0] a path: nothing is looked up in PATH) to its end; its exit code and output.
inline Result run_cmd(const std::vector<std::string>& argv,
                      std::chrono::milliseconds timeout = std::chrono::seconds(120),
                      const std::string& stdin_path = "") {
  Child c(argv, stdin_path);
  const int code = c.wait(timeout);
  return {code, c.output()};
}

inline Result run_tokbench(std::vector<std::string> args,
                           std::chrono::milliseconds timeout = std::chrono::seconds(120),
                           const std::string& stdin_path = "") {
  args.insert(args.begin(), TOKBENCH_BINARY);
  return run_cmd(args, timeout, stdin_path);
}

}  // namespace tokbench::testing
