// Tokenizer speed: load time, and single-thread encode throughput over the same ~20 kB chunks
// (cut at line ends) that bench/tokenizer_hf.js feeds HF tokenizers. Prints one line per figure.
// Usage: tokenizer_bench MODEL_DIR FILE...
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.hpp"

namespace {

std::vector<std::string> chunks_of(const std::vector<std::string>& files) {
  std::vector<std::string> out;
  std::string cur;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string all = ss.str();
    for (size_t pos = 0; pos < all.size();) {
      size_t nl = all.find('\n', pos);
      nl = nl == std::string::npos ? all.size() : nl + 1;
      cur.append(all, pos, nl - pos);
      pos = nl;
      if (cur.size() >= 20000) out.push_back(std::move(cur)), cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: tokenizer_bench MODEL_DIR FILE...\n");
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  const auto tok = tokbench::tokenizer::Tokenizer::load(argv[1]);
  std::printf("load_ms %.1f\n", 1000 * seconds_since(t0));
  const auto chunks = chunks_of(std::vector<std::string>(argv + 2, argv + argc));
  size_t bytes = 0;
  for (const auto& c : chunks) bytes += c.size();
  for (int pass = 0; pass < 3; ++pass) {
    size_t tokens = 0;
    t0 = std::chrono::steady_clock::now();
    for (const auto& c : chunks) tokens += tok.encode(c, false).size();
    const double s = seconds_since(t0);
    std::printf("%s_MB_per_s %.2f tokens %zu bytes %zu chunks %zu\n", pass == 0 ? "cold" : "warm",
                bytes / s / 1e6, tokens, bytes, chunks.size());
  }
  return 0;
}
