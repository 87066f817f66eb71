#include "probe/server_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>
#include <deque>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/redact.hpp"
#include "net/http_get.hpp"

extern char** environ;

namespace tokbench::probe {

using namespace std::chrono_literals;

std::string tail_lines(const std::filesystem::path& p, size_t n) {
  std::ifstream in(p);
  std::deque<std::string> lines;
  for (std::string l; std::getline(in, l);) {
    lines.push_back(std::move(l));
    if (lines.size() > n) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += "  | " + l + "\n";
  return out;
}

ServerProcess::ServerProcess(ServerProcessSettings s) : s_(std::move(s)) {}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) stop();
}

namespace {

void sleep_ms(long ms) {  // async-signal-safe (the supervisor runs between fork and _exit)
  timespec t{ms / 1000, (ms % 1000) * 1000000};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

// SIGTERM to the group, SIGKILL after the grace (and always, for what it left behind).
// Async-signal-safe: the supervisor calls it in a forked child of a threaded process.
void stop_group(pid_t group, double grace_s) {
  kill(-group, SIGTERM);
  for (long waited = 0; waited < static_cast<long>(grace_s * 1000) && kill(-group, 0) == 0;
       waited += 20)
    sleep_ms(20);
  kill(-group, SIGKILL);
}

}  // namespace

void ServerProcess::supervise() {
  // A socket pair, not a pipe: stop()'s word to a supervisor that is gone must not raise SIGPIPE.
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return;  // unsupervised: stop() still stops it
  const pid_t group = pid_;
  const double grace = s_.stop_grace_s;
  const pid_t child = fork();
  if (child == 0) {            // the supervisor: async-signal-safe calls only, then _exit
    signal(SIGINT, SIG_IGN);   // Ctrl-C is tokbench's to handle: it stops the server itself
    signal(SIGTERM, SIG_IGN);  // a group kill must not take the supervisor before tokbench
    // Only the read end stays open (as fd 3): another server's pipe must not be held here.
    dup2(fds[0], 3);
    if (close_range(4, ~0U, 0) != 0)
      for (int fd = 4; fd < 65536; ++fd) close(fd);
    char word = 0;
    ssize_t n;
    while ((n = read(3, &word, 1)) < 0 && errno == EINTR) {
    }
    if (n == 0) stop_group(group, grace);  // end of file: tokbench is gone
    _exit(0);                              // a byte: stop() stopped the server itself
  }
  close(fds[0]);
  if (child < 0) {
    close(fds[1]);
    return;
  }
  supervisor_ = child;
  supervisor_pipe_ = fds[1];
}

void ServerProcess::start_and_wait() {
  const int log = ::open(s_.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0)
    throw std::runtime_error(fmt::format("cannot write the server log '{}'", s_.log_path.string()));
  pid_ = fork();
  if (pid_ < 0) {
    ::close(log);
    throw std::runtime_error("fork failed: cannot start --server-cmd");
  }
  if (pid_ == 0) {  // child: its own process group, so stop() reaches everything it starts
    setpgid(0, 0);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    for (const auto& [k, v] : s_.env) setenv(k.c_str(), v.c_str(), 1);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execl("/bin/sh", "sh", "-c", s_.command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ::close(log);
  setpgid(pid_, pid_);
  supervise();
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(s_.ready_timeout_s);
  while (true) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      kill(-pid_, SIGKILL);  // anything it started before it exited
      pid_ = -1;
      release_supervisor();
      throw std::runtime_error(
          fmt::format("the server command exited ({}) before it was ready; last lines of {}:\n{}",
                      WIFEXITED(status) ? fmt::format("status {}", WEXITSTATUS(status))
                                        : fmt::format("signal {}", WTERMSIG(status)),
                      s_.log_path.string(), redact_known(tail_lines(s_.log_path, 20), s_.secrets)));
    }
    for (const auto& url : s_.ready_urls) {
      if (net::http_get(url, {}, "", 2000).status == 200) return;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      stop();
      throw std::runtime_error(
          fmt::format("the server was not ready after {} s (waited for HTTP 200 from {}); raise "
                      "--server-ready-timeout-s or check "
                      "the command; last lines of {}:\n{}",
                      s_.ready_timeout_s, s_.ready_urls.empty() ? "?" : s_.ready_urls.front(),
                      s_.log_path.string(), redact_known(tail_lines(s_.log_path, 20), s_.secrets)));
    }
    std::this_thread::sleep_for(200ms);
  }
}

std::string ServerProcess::stop() {
  if (pid_ <= 0) return "not running";
  // The whole group has the grace, not only its leader: /bin/sh (dash) forks the command, dies
  // on SIGTERM at once, and a `vllm serve` still draining under it would be SIGKILLed within
  // milliseconds (issue 41). The leader is reaped as it ends; the group is gone when no process
  // of it is left.
  kill(-pid_, SIGTERM);
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(s_.stop_grace_s);
  bool leader = true;
  std::string how;
  while (true) {
    int status = 0;
    if (leader && waitpid(pid_, &status, WNOHANG) == pid_) leader = false;
    if (!leader && kill(-pid_, 0) != 0) {
      how = fmt::format(
          "stopped by SIGTERM (the process group ended {:.1f} s after it)",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid_, SIGKILL);
      if (leader) waitpid(pid_, &status, 0);
      how = fmt::format(
          "killed with SIGKILL: {} still running {} s after SIGTERM (--server-stop-grace-s)",
          leader ? "the command" : "a process it started", s_.stop_grace_s);
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  kill(-pid_, SIGKILL);  // anything the server left behind in its group
  pid_ = -1;
  release_supervisor();
  return how;
}

void ServerProcess::release_supervisor() {
  if (supervisor_ <= 0) return;
  const char done = 'x';  // the server is stopped: a byte says so, and the supervisor exits
  (void)!send(supervisor_pipe_, &done, 1, MSG_NOSIGNAL);
  close(supervisor_pipe_);
  waitpid(supervisor_, nullptr, 0);
  supervisor_ = -1;
  supervisor_pipe_ = -1;
}

record::ServerLogSummary parse_vllm_log(const std::string& text) {
  static const std::regex kThroughput(
      R"(Avg prompt throughput: ([0-9.]+) tokens/s, Avg generation throughput: ([0-9.]+) tokens/s, Running: (\d+) reqs?, Waiting: (\d+) reqs?)");
  static const std::regex kSpec(
      R"(SpecDecoding metrics: Mean acceptance length: ([0-9.]+),.*Accepted: (\d+) tokens, Drafted: (\d+) tokens(?:, Per-position acceptance rate: ([0-9., ]+))?)");
  record::ServerLogSummary s;
  double gen_sum = 0, prompt_sum = 0;
  int64_t busy = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, kThroughput)) {
      ++s.throughput_lines;
      const int64_t running = std::stoll(m[3]), waiting = std::stoll(m[4]);
      s.max_running = std::max(s.max_running, running);
      s.max_waiting = std::max(s.max_waiting, waiting);
      if (running > 0) {
        ++busy;
        gen_sum += std::stod(m[2]);
        prompt_sum += std::stod(m[1]);
      }
    } else if (std::regex_search(line, m, kSpec)) {
      ++s.spec_lines;
      s.last_mean_acceptance_length = std::stod(m[1]);
      s.accepted_tokens += std::stoll(m[2]);
      s.drafted_tokens += std::stoll(m[3]);
      s.per_position_acceptance.clear();
      if (m[4].matched) {
        std::string list = m[4];
        for (size_t p = 0; p < list.size();) {
          size_t e = list.find(',', p);
          if (e == std::string::npos) e = list.size();
          const std::string item = list.substr(p, e - p);
          if (item.find_first_of("0123456789") != std::string::npos)
            s.per_position_acceptance.push_back(std::stod(item));
          p = e + 1;
        }
      }
    }
  }
  if (busy > 0) {
    s.mean_generation_throughput = gen_sum / static_cast<double>(busy);
    s.mean_prompt_throughput = prompt_sum / static_cast<double>(busy);
  }
  return s;
}

}  // namespace tokbench::probe
