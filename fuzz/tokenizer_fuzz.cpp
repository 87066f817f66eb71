// Fuzz target: tokenizer/ — a tokenizer.json, any bytes: a tokenizer or an error; one that loads
// must encode and decode a short text without a crash. Parsed from memory (load() reads the
// file and goes through the same code), so it runs fast enough for long runs.
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "tokenizer/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto tok = tokbench::tokenizer::Tokenizer::from_json(
        std::string_view(reinterpret_cast<const char*>(data), size));
    (void)tok.decode(tok.encode("Hello, world! 123 ab", true));
  } catch (const std::exception&) {
  }
  return 0;
}
