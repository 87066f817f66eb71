// Fuzz target: dataset/ — a qa dataset file, any bytes: requests or an error naming file:line.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "dataset/dataset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/tokbench_fuzz_dataset_" + std::to_string(getpid()) + ".jsonl";
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    (void)tokbench::dataset::load("qa:" + path);
  } catch (const std::exception&) {
  }
  return 0;
}
