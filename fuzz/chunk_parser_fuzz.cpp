// Fuzz target: client/chunk_parser — one SSE payload, any bytes: parsed or refused, never a crash.
#include <cstdint>
#include <string>
#include <string_view>

#include "client/chunk_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tokbench::client::ChunkParser parser;  // reused, as the engine reuses it
  tokbench::client::ChunkInfo info;
  std::string why;
  parser.parse(std::string_view(reinterpret_cast<const char*>(data), size), info, &why);
  return 0;
}
