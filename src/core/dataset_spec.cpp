#include "core/dataset_spec.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace tokbench::core {

std::string DatasetSpec::text() const {
  const std::string kind(kDatasetSources.name(source));
  return names_file(source) ? kind + ":" + path : kind;
}

std::string dataset_forms() {
  std::string out;
  for (const auto& c : kDatasetSources.items) {
    if (!out.empty()) out += " | ";
    out += names_file(c.value) ? std::string(c.name) + ":PATH" : std::string(c.name);
  }
  return out;
}

DatasetSpec parse_dataset_spec(std::string_view text) {
  const size_t colon = text.find(':');
  const auto source = kDatasetSources.parse(text.substr(0, colon));
  const bool has_path = colon != std::string_view::npos && colon + 1 < text.size();
  if (!source || names_file(*source) != has_path || (!has_path && colon != std::string_view::npos))
    throw std::invalid_argument(
        fmt::format("--dataset: bad value '{}' (expected {})", text, dataset_forms()));
  return {*source, has_path ? std::string(text.substr(colon + 1)) : std::string()};
}

}  // namespace tokbench::core
