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
  template <class OnEvent>
  void feed(std::string_view bytes, OnEvent&& on_event) {
    size_t i = 0;
    if (skip_lf_ && !bytes.empty()) {
      if (bytes[0] == '\n') i = 1;
      skip_lf_ = false;
    }
    while (i < bytes.size()) {
      size_t end = i;
      while (end < bytes.size() && bytes[end] != '\n' && bytes[end] != '\r') ++end;
      if (end == bytes.size()) {  // partial line: keep it for the next read
        line_.append(bytes.substr(i));
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
      }
      line_.clear();
    }
  }

  /// True when bytes of an unfinished event are buffered (a stream that ends here was cut).
  bool has_partial() const { return !line_.empty() || has_data_; }

  void reset() {
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
};

}  // namespace tokbench::client
