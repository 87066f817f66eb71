#include "probe/server_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(s_.ready_timeout_s);
  while (true) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
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
  kill(-pid_, SIGTERM);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(s_.stop_grace_s);
  std::string how;
  while (true) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      how = "stopped by SIGTERM";
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      how = fmt::format("killed with SIGKILL after ignoring SIGTERM for {} s", s_.stop_grace_s);
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  kill(-pid_, SIGKILL);  // anything the server left behind in its group
  pid_ = -1;
  return how;
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
