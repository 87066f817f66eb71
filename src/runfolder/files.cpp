#include "runfolder/files.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/temp_path.hpp"

namespace tokbench::runfolder {

namespace fs = std::filesystem;

fs::path make_run_dir(const std::string& output_dir, std::time_t now) {
  char stamp[32];
  std::tm tm{};
  localtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) {
    throw std::runtime_error(fmt::format(
        "cannot create --output-dir '{}': {} (pick a writable folder)", output_dir, ec.message()));
  }
  // mkdir() is the claim: two runs started in the same second each get a folder of their own. The
  // owner's alone (0700): it holds the prompts sent, the outputs and the server's log.
  fs::path dir = fs::path(output_dir) / stamp;
  for (int i = 1; ::mkdir(dir.c_str(), 0700) != 0; ++i) {
    if (errno != EEXIST || i > 10'000) {
      throw std::runtime_error(fmt::format("cannot create '{}': {} (pick a writable --output-dir)",
                                           dir.string(), std::strerror(errno)));
    }
    dir = fs::path(output_dir) / fmt::format("{}_{}", stamp, i);
  }
  for (const auto& sub : {fs::path("configs"), fs::path("logs"), fs::path("performances")}) {
    fs::create_directories(dir / sub, ec);
    if (ec)
      throw std::runtime_error(
          fmt::format("cannot create '{}': {}", (dir / sub).string(), ec.message()));
  }
  return dir;
}

void write_file(const fs::path& p, const std::string& content) {
  // A temporary file renamed over the target: a kill at any instant leaves the old file or the
  // new one, never a torn or empty one.
  TempPath tmp(p, fmt::format(".tmp{}", ::getpid()));
  {
    std::ofstream out(tmp.path(), std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out)
      throw std::runtime_error(
          fmt::format("cannot write '{}': {}", p.string(), std::strerror(errno)));
  }
  try {
    tmp.commit();
  } catch (const fs::filesystem_error& e) {
    throw std::runtime_error(fmt::format("cannot write '{}': {}", p.string(), e.code().message()));
  }
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string file_safe(const std::string& name) {
  std::string s;
  for (char c : name)
    s.push_back(
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ? c : '_');
  if (s.empty() || s == "." || s == "..") s = "model";
  return s;
}

}  // namespace tokbench::runfolder
