// Fuzz target: client/chunk_parser and every API adapter's reader — SSE payloads, any bytes:
// parsed or refused, never a crash. A leading 'A', 'S' or 'R' picks Anthropic's Messages, SGLang's
// /generate or OpenAI's Responses wire format (else OpenAI's chat); the rest is split at '\n'
// into one response's events, so per-response state (SGLang's cumulative text) is fuzzed across
// events as well.
#include <cstdint>
#include <string>
#include <string_view>

#include "client/api.hpp"
#include "client/chunk_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokbench::client;
  static ChunkParser parser;  // reused, as the engine reuses it
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const ApiAdapter* api = &default_api();
  if (!in.empty() && (in[0] == 'A' || in[0] == 'S' || in[0] == 'R')) {
    api = find_api(in[0] == 'A' ? "messages" : in[0] == 'S' ? "generate" : "responses");
    in.remove_prefix(1);
  }
  parser.set_api(api);
  parser.begin_response();
  ChunkInfo info;
  std::string why;
  if (api == &default_api()) {
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
