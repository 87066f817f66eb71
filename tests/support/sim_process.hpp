#pragma once
// Test helpers for integration tests of the real binaries: the simulator in its own process
// (`tokbench serve-mock --port 0`, its port read from its first line) and small file helpers.
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "process.hpp"

namespace tokbench::testing {

using namespace std::chrono_literals;

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline size_t count_lines(const std::filesystem::path& p) {
  std::ifstream in(p);
  size_t n = 0;
  for (std::string l; std::getline(in, l);) n += !l.empty();
  return n;
}

class Sim {
 public:
  explicit Sim(std::vector<std::string> flags) {
    std::vector<std::string> argv{TOKBENCH_BINARY, "serve-mock", "--port", "0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    child_ = std::make_unique<Child>(argv);
    const std::string out = child_->read_until("\n", 10s);
    std::smatch m;
    if (!std::regex_search(out, m, std::regex("listening on http://127\\.0\\.0\\.1:(\\d+)")))
      throw std::runtime_error("serve-mock did not start: " + out);
    port = m[1];
  }
  std::string url(const std::string& path = "/v1/chat/completions") const {
    return "http://127.0.0.1:" + port + path;
  }
  std::string port;
  void signal(int sig) { child_->signal(sig); }  ///< e.g. SIGSTOP/SIGCONT: make the simulator late

 private:
  std::unique_ptr<Child> child_;
};

}  // namespace tokbench::testing
