// Fuzz target: tokenizer/ — a tokenizer.json, any bytes: a tokenizer or an error; one that loads
// must encode and decode a short text without a crash.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "tokenizer/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/tokbench_fuzz_tokenizer_" + std::to_string(getpid()) + ".json";
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    const auto tok = tokbench::tokenizer::Tokenizer::load(path);
    (void)tok.decode(tok.encode("Hello, world! 123 ab", true));
  } catch (const std::exception&) {
  }
  return 0;
}
