// Fuzz target: dataset/sharegpt — a ShareGPT JSON file, any bytes: requests or an error naming the
// file (lengths counted by a word codec: the filters and the on-demand reader are what is tested).
#include <simdjson.h>

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dataset/dataset.hpp"

namespace {
class WordCodec : public tokbench::dataset::TokenCodec {
 public:
  std::vector<int32_t> encode(const std::string& text) override {
    std::istringstream in(text);
    std::vector<int32_t> ids;
    for (std::string w; in >> w;) ids.push_back(1);
    return ids;
  }
  std::string decode(const std::vector<int32_t>&) override { return {}; }
  std::vector<int32_t> pool() override { return {1}; }
  std::string name() const override { return "words"; }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const simdjson::padded_string json(reinterpret_cast<const char*>(data), size);
  WordCodec codec;
  tokbench::dataset::ShareGptOptions o;
  o.count = 64;
  try {
    (void)tokbench::dataset::sharegpt_from_json(json, "fuzz.json", o, codec);
  } catch (const std::exception&) {
  }
  return 0;
}
