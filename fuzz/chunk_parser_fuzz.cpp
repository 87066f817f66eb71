// Fuzz target: client/chunk_parser — SSE payloads, any bytes: parsed or refused, never a crash.
// A leading 'A' or 'S' picks Anthropic's or SGLang's /generate wire format (else OpenAI's); the
// rest is split at '\n' into one response's events, so SGLang's cumulative-text state is fuzzed
// across events as well.
#include <cstdint>
#include <string>
#include <string_view>

#include "client/chunk_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using tokbench::client::Wire;
  static tokbench::client::ChunkParser parser;  // reused, as the engine reuses it
  std::string_view in(reinterpret_cast<const char*>(data), size);
  Wire wire = Wire::OpenAI;
  if (!in.empty() && (in[0] == 'A' || in[0] == 'S')) {
    wire = in[0] == 'A' ? Wire::Anthropic : Wire::SglangGenerate;
    in.remove_prefix(1);
  }
  parser.set_wire(wire);
  parser.begin_response();
  tokbench::client::ChunkInfo info;
  std::string why;
  if (wire == Wire::OpenAI) {
    parser.parse(in, info, &why);
    return 0;
  }
  while (true) {
    const size_t nl = in.find('\n');
    parser.parse(in.substr(0, nl), info, &why);
    if (nl == std::string_view::npos) break;
    in.remove_prefix(nl + 1);
  }
  return 0;
}
