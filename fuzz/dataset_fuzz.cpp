// Fuzz target: dataset/ — a qa dataset file and an agent file, any bytes: requests or an error
// naming file:line.
// Parsed from memory (the loader's own code path after opening the file), so it runs fast
// enough for long runs.
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dataset/dataset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    (void)tokbench::dataset::parse_lines("qa", "fuzz.jsonl", in);
  } catch (const std::exception&) {
  }
  // The same bytes as agent tasks (dataset/agent); result files are looked for where none is.
  std::istringstream tasks(std::string(reinterpret_cast<const char*>(data), size));
  try {
    (void)tokbench::dataset::parse_agents("fuzz.jsonl", tasks, "/nonexistent/tokbench-fuzz");
  } catch (const std::exception&) {
  }
  return 0;
}
