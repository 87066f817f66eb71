#pragma once
// mock/mock_trace: the simulator's --trace file — one JSON line per completion request with when
// it reached the host (the kernel's receive time), was read, admitted and got its first token,
// and when each write went out — the ground truth the accuracy tests hold the client to.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tokbench::mock {

/// A steady_clock instant as the trace writes it (ns of the clock's own epoch).
inline int64_t to_ns(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
/// Seconds from `t` to now (what /metrics observes).
inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// Where a request came from: its connection's accept time, its place on it, and when its first
/// bytes reached this host (the kernel's receive time; -1 when unknown).
struct Conn {
  int64_t accepted_ns = 0;
  int64_t request = 0;  ///< 1-based index of the request on this connection
  int64_t received_ns = -1;
};

/// One trace line: when the request arrived (fully read), was admitted to the batch and got its
/// first token, and when each write went out (when it reached the host is in Conn), so TTFT truth
/// (kernel receive to first content write) and the simulator's own lateness are exact, for
/// streaming and non-streaming requests alike.
struct TraceLine {
  int64_t arrival_ns = 0;
  int64_t admitted_ns = 0;
  int64_t first_token_ns = 0;  ///< the prefill's end: when the first token exists (stream or not)
  int64_t last_token_ns = 0;   ///< when the last token was generated (before its bytes go out)
  std::vector<int64_t> t_ns;   ///< write times, one per event (streaming) or one for the body ('B')
  std::string kinds;  ///< R role, C content, F finish only, U usage, D end marker, B whole body
  std::vector<int> tokens;  ///< tokens each event carried
};

/// Stamps the sockets accepted from `listen_fd` with their receive times (common/receive_time).
void stamp_accepted_receive_times(int listen_fd);

/// The trace file; every method is safe from any thread.
class TraceFile {
 public:
  /// Opens `path` anew; false when it cannot be written.
  bool open(const std::string& path);
  void close();
  explicit operator bool() const { return file_ != nullptr; }
  /// One line for the request `id`.
  void write(std::string_view id, std::string_view model, bool stream, bool dropped,
             const Conn& conn, const TraceLine& tl);

 private:
  std::mutex mu_;
  std::FILE* file_ = nullptr;
};

}  // namespace tokbench::mock
