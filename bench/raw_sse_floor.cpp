// bench/raw_sse_floor: the least CPU any client can spend per SSE event, to measure tokbench
// against. One thread, plain non-blocking sockets and epoll: each of C kept-alive connections
// POSTs a streaming chat request (HTTP/1.1, the body tokbench sends by default), reads whatever
// is ready with one recv() per readiness, stamps the read (one clock_gettime, as a client must),
// counts `data: ` events (not [DONE]), and sends the next request when the chunked body ends.
// No records, no HTTP parsing beyond finding the end: a floor, not a client. With `parse`, each
// event wholly inside one read is also parsed with simdjson (the work any client must add).
// Prints events, CPU µs per event (this thread's user+system time) and events/s.
// Usage: raw_sse_floor PORT CONCURRENCY REQUESTS [MAX_TOKENS=256] [MODEL=tokbench-mock] [parse]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <simdjson.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

int64_t clock_ns(clockid_t id) {
  timespec t;
  clock_gettime(id, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

struct Conn {
  int fd = -1;
  bool done_seen = false;  // [DONE] came; the chunked terminator follows
  std::string carry;       // the last bytes of the previous read: a marker may straddle two reads
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(
        stderr,
        "usage: raw_sse_floor PORT CONCURRENCY REQUESTS [MAX_TOKENS=256] [MODEL=tokbench-mock]\n");
    return 2;
  }
  const int port = std::atoi(argv[1]), conc = std::atoi(argv[2]);
  const long total = std::atol(argv[3]);
  const int max_tokens = argc > 4 ? std::atoi(argv[4]) : 256;
  const std::string model = argc > 5 ? argv[5] : "tokbench-mock";
  const bool parse = argc > 6 && std::string_view(argv[6]) == "parse";
  simdjson::dom::parser json;
  long parsed = 0;
  const std::string body =
      "{\"model\":\"" + model +
      "\",\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}],\"max_tokens\":" +
      std::to_string(max_tokens) +
      ",\"ignore_eos\":true,\"stream\":true,\"stream_options\":{\"include_usage\":true}}";
  const std::string request =
      "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
      "\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  std::vector<Conn> conns(static_cast<size_t>(conc));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  long sent = 0, finished = 0, events = 0;
  auto send_request = [&](Conn& c) {
    c.done_seen = false;
    c.carry.clear();
    if (::send(c.fd, request.data(), request.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(request.size())) {
      std::perror("send");
      std::exit(1);
    }
    ++sent;
  };
  for (size_t i = 0; i < conns.size(); ++i) {  // connect blocking (set-up is not what is measured)
    Conn& c = conns[i];
    c.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(c.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      std::perror("connect");
      return 1;
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_ADD, c.fd, &ev);
  }
  const int64_t wall0 = clock_ns(CLOCK_MONOTONIC), cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  for (auto& c : conns)
    if (sent < total) send_request(c);
  std::vector<epoll_event> ready(256);
  std::vector<char> buf(64 * 1024);
  int64_t last_stamp = 0;
  constexpr std::string_view kData = "data: ", kDone = "data: [DONE]", kEnd = "\r\n0\r\n\r\n";
  while (finished < total) {
    const int n = epoll_wait(ep, ready.data(), static_cast<int>(ready.size()), 1000);
    for (int k = 0; k < n; ++k) {
      Conn& c = conns[ready[static_cast<size_t>(k)].data.u64];
      const ssize_t got = ::recv(c.fd, buf.data(), buf.size(), 0);
      if (got <= 0) {
        std::fprintf(stderr, "connection closed by the server\n");
        return 1;
      }
      last_stamp = clock_ns(CLOCK_MONOTONIC);  // what a client keeps per read
      std::string_view data(buf.data(), static_cast<size_t>(got));
      std::string joined;
      if (!c.carry.empty()) {
        joined = c.carry;
        joined.append(data);
        data = joined;
      }
      const size_t skip = c.carry.size();  // markers wholly inside the carry were counted already
      for (size_t at = data.find(kData); at != std::string_view::npos;
           at = data.find(kData, at + 1)) {
        if (at + kData.size() <= skip) continue;
        if (data.compare(at, kDone.size(), kDone) == 0) {
          c.done_seen = true;
          continue;
        }
        ++events;
        if (!parse) continue;
        const size_t end = data.find("\n\n", at);
        if (end == std::string_view::npos) continue;
        std::string_view delta;
        const auto payload = data.substr(at + kData.size(), end - at - kData.size());
        simdjson::dom::element doc;
        if (!json.parse(payload.data(), payload.size()).get(doc)) {
          simdjson::dom::array choices;
          if (!doc["choices"].get_array().get(choices) && choices.size() > 0 &&
              !choices.at(0)["delta"]["content"].get_string().get(delta))
            ++parsed;
        }
      }
      const bool ended = c.done_seen && data.find(kEnd) != std::string_view::npos;
      c.carry.assign(data.substr(data.size() > 16 ? data.size() - 16 : 0));
      if (ended) {
        ++finished;
        if (sent < total) send_request(c);
      }
    }
  }
  const double wall_s = static_cast<double>(clock_ns(CLOCK_MONOTONIC) - wall0) / 1e9;
  const double cpu_s = static_cast<double>(clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / 1e9;
  std::printf(
      "raw_sse_floor%s: %ld requests, %ld events (%ld with text parsed) in %.2f s: %.3f us CPU per "
      "event, "
      "%.0f events/s (last read at %lld)\n",
      parse ? " + simdjson" : "", finished, events, parsed, wall_s,
      1e6 * cpu_s / static_cast<double>(events), static_cast<double>(events) / wall_s,
      static_cast<long long>(last_stamp % 1000));
  for (auto& c : conns) ::close(c.fd);
  ::close(ep);
}
