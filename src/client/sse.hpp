#pragma once
// client/sse: incremental Server-Sent Events framing (WHATWG rules) for the hot path. Bytes go
// in as they arrive, in reads split anywhere; each complete event's data comes out once.
// Knows nothing about JSON or OpenAI: chunk_parser decides what an event means.
#include <string>
#include <string_view>

namespace tokbench::client {

class SseFramer {
 public:
  /// Feeds raw bytes. For every event completed by them, calls on_event(std::string_view data)
  /// with the event's `data:` lines joined by '\n'. Lines end in "\n", "\r\n" or "\r" (a CR at
  /// the end of one read and the LF at the start of the next are one line end). Comments
  /// (":...") and other fields are ignored; an event with no data line is not dispatched.
  /// A line or an event's data larger than `max_bytes` stops the framer: too_large() turns true
  /// and every later byte is ignored (memory stays bounded whatever the server sends).
  explicit SseFramer(size_t max_bytes = 1 << 20) : max_bytes_(max_bytes) {}
  void set_max_bytes(size_t max_bytes) { max_bytes_ = max_bytes; }

  template <class OnEvent>
  void feed(std::string_view bytes, OnEvent&& on_event) {
    if (too_large_) return;
    size_t i = 0;
    if (skip_lf_ && !bytes.empty()) {
      if (bytes[0] == '\n') i = 1;
      skip_lf_ = false;
    }
    while (i < bytes.size()) {
      size_t end = i;
      while (end < bytes.size() && bytes[end] != '\n' && bytes[end] != '\r') ++end;
      if (end == bytes.size()) {  // partial line: keep it for the next read
        if (line_.size() + (end - i) > max_bytes_) {
          too_large_ = true;
          return;
        }
        line_.append(bytes.substr(i));
        return;
      }
      if (line_.size() + (end - i) > max_bytes_) {
        too_large_ = true;
        return;
      }
      std::string_view line;
      if (line_.empty()) {
        line = bytes.substr(i, end - i);
      } else {
        line_.append(bytes.substr(i, end - i));
        line = line_;
      }
      if (bytes[end] == '\r') {
        if (end + 1 < bytes.size()) {
          if (bytes[end + 1] == '\n') ++end;
        } else {
          skip_lf_ = true;
        }
      }
      i = end + 1;
      if (line.empty()) {
        if (has_data_) on_event(std::string_view(data_));
        data_.clear();
        has_data_ = false;
      } else {
        take_line(line);
        if (too_large_) return;
      }
      line_.clear();
    }
  }

  /// True when bytes of an unfinished event are buffered (a stream that ends here was cut).
  bool has_partial() const { return !line_.empty() || has_data_; }
  /// Lines that were not SSE at all (no known field, not a comment): skipped, and counted.
  int64_t malformed_lines() const { return malformed_; }
  /// A line or an event passed the size cap; the framer has stopped.
  bool too_large() const { return too_large_; }
  size_t max_bytes() const { return max_bytes_; }

  void reset() {
    too_large_ = false;
    malformed_ = 0;
    line_.clear();
    data_.clear();
    has_data_ = false;
    skip_lf_ = false;
  }

 private:
  void take_line(std::string_view line);

  std::string line_;  // a line split across reads
  std::string data_;  // data of the event being assembled
  bool has_data_ = false;
  bool skip_lf_ = false;
  bool too_large_ = false;
  int64_t malformed_ = 0;
  size_t max_bytes_;
};

}  // namespace tokbench::client
