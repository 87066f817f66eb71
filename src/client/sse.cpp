#include "client/sse.hpp"

namespace tokbench::client {

void SseFramer::take_line(std::string_view line, bool in_bytes) {
  if (line.front() == ':') return;  // comment / keep-alive
  const size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  if (field != "data") {  // event:, id:, retry: carry nothing we count; anything else is not SSE
    if (field != "event" && field != "id" && field != "retry") ++malformed_;
    return;
  }
  std::string_view value =
      colon == std::string_view::npos ? std::string_view{} : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if ((viewing_ ? viewed_.size() : data_.size()) + value.size() + 1 >
      max_bytes_) {  // an event of many data lines
    too_large_ = true;
    return;
  }
  if (!has_data_ && in_bytes) {
    viewed_ = value;
    viewing_ = has_data_ = true;
    return;
  }
  keep_viewed_data();  // a second data line: the event is assembled in data_
  if (has_data_) data_.push_back('\n');
  data_.append(value);
  has_data_ = true;
}

}  // namespace tokbench::client
