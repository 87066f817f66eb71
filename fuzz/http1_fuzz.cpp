// Fuzz target: net/http1's response reader — any bytes as a server's answer, in reads split at
// two points the first bytes pick, then a second response on the same connection when the first
// ended with keep-alive, then the peer's close. Beyond "no crash": the body handed out is never
// more than the bytes that came, and a failed reader always names why.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "net/http1.hpp"

namespace {

struct Sink final : tokbench::net::Http1Reader::Sink {
  size_t body = 0;
  void on_status(int code) override {
    if (code < 100 || code > 999) std::abort();
  }
  void on_header(std::string_view, std::string_view) override {}
  bool on_body(std::string_view bytes) override {
    body += bytes.size();
    return body < 4096;  // a caller that gives up part-way, as the slot does past a cap
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::string_view all(reinterpret_cast<const char*>(data) + 2, size - 2);
  size_t a = data[0] % (all.size() + 1), b = data[1] % (all.size() + 1);
  if (a > b) std::swap(a, b);
  tokbench::net::Http1Reader reader(512);
  Sink sink;
  size_t fed = 0;
  for (const std::string_view part : {all.substr(0, a), all.substr(a, b - a), all.substr(b)}) {
    fed += part.size();
    if (!reader.feed(part, sink)) break;
    if (reader.done() && reader.keep_alive())
      reader.reset();  // the next response on this connection
  }
  reader.on_eof();
  if (sink.body > fed) std::abort();
  if (reader.failed() && reader.error().empty()) std::abort();
  return 0;
}
