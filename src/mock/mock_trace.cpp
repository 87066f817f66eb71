#include "mock/mock_trace.hpp"

#include <fcntl.h>

#include "common/json_writer.hpp"
#include "common/receive_time.hpp"

namespace tokbench::mock {

void stamp_accepted_receive_times(int listen_fd) {  // accepted sockets inherit it: a request
                                                    // sent right after connect is stamped too
  tokbench::stamp_receive_times(listen_fd);
  // The listening socket keeps stamping on; wait (bounded) until the kernel really stamps before
  // taking requests, or the first request of a run started at once had no received_ns.
  tokbench::wait_for_receive_stamps();
}

bool TraceFile::open(const std::string& path) {
  // Append mode, so a reader may truncate the file between runs without leaving a hole.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  std::lock_guard lock(mu_);
  file_ = fd >= 0 ? fdopen(fd, "a") : nullptr;
  return file_ != nullptr;
}

void TraceFile::close() {
  std::lock_guard lock(mu_);
  if (file_) std::fclose(file_);
  file_ = nullptr;
}

void TraceFile::write(std::string_view id, std::string_view model, bool stream, bool dropped,
                      const Conn& conn, const TraceLine& tl) {
  JsonWriter w;
  w.begin_object()
      .field("id", id)
      .field("model", model)
      .field("stream", stream)
      .field("dropped", dropped);
  w.field("conn_accepted_ns", conn.accepted_ns).field("conn_request", conn.request);
  if (conn.received_ns >= 0) w.field("received_ns", conn.received_ns);
  w.field("arrival_ns", tl.arrival_ns)
      .field("admitted_ns", tl.admitted_ns)
      .field("first_token_ns", tl.first_token_ns)
      .field("last_token_ns", tl.last_token_ns);
  w.key("t_ns").begin_array();
  for (auto x : tl.t_ns) w.value(x);
  w.end_array();
  w.field("kinds", tl.kinds);
  w.key("tokens").begin_array();
  for (auto x : tl.tokens) w.value(static_cast<int64_t>(x));
  w.end_array().end_object();
  std::lock_guard lock(mu_);
  if (!file_) return;
  std::fputs(w.str().c_str(), file_);
  std::fputc('\n', file_);
  std::fflush(file_);
}

}  // namespace tokbench::mock
