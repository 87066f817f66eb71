#include "client/chunk_parser.hpp"

#include "client/api.hpp"

namespace tokbench::client {

ChunkParser::ChunkParser(const ApiAdapter* api) : api_(api ? api : &default_api()) {}

void ChunkParser::set_api(const ApiAdapter* api) { api_ = api ? api : &default_api(); }

JsonScratch& ChunkParser::scratch() {
  if (shared_) return *shared_;
  if (!own_) {
    own_ = std::make_unique<JsonScratch>();
    own_->padded.reserve(4096);
  }
  return *own_;
}

bool ChunkParser::parse(std::string_view json, ChunkInfo& out, std::string* why) {
  out = ChunkInfo{};
  JsonScratch& js = scratch();
  js.padded.assign(json);
  js.padded.resize(json.size() + simdjson::SIMDJSON_PADDING, '\0');
  simdjson::dom::element doc;
  if (auto err = js.parser.parse(js.padded.data(), json.size(), false).get(doc)) {
    if (why) *why = simdjson::error_message(err);
    return false;
  }
  if (!api_->accepts(doc)) {
    if (why) *why = "expected a JSON object";
    return false;
  }
  api_->parse(doc, out, memory_);
  // A dialect may have preset text_bytes with text beyond the views it keeps (more blocks or
  // choices).
  out.text_bytes +=
      static_cast<int64_t>(out.content.size() + out.reasoning.size()) + out.tool_bytes;
  return true;
}

}  // namespace tokbench::client
