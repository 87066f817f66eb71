#include "dataset/spec.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace tokbench::dataset {

std::string Spec::text() const {
  const std::string kind(kSources.name(source));
  return names_file(source) ? kind + ":" + path : kind;
}

std::string spec_forms() {
  std::string out;
  for (const auto& c : kSources.items) {
    if (!out.empty()) out += " | ";
    out += names_file(c.value) ? std::string(c.name) + ":PATH" : std::string(c.name);
  }
  return out;
}

Spec parse_spec(std::string_view text) {
  const size_t colon = text.find(':');
  const auto source = kSources.parse(text.substr(0, colon));
  const bool has_path = colon != std::string_view::npos && colon + 1 < text.size();
  if (!source || names_file(*source) != has_path || (!has_path && colon != std::string_view::npos))
    throw std::invalid_argument(
        fmt::format("--dataset: bad value '{}' (expected {})", text, spec_forms()));
  return {*source, has_path ? std::string(text.substr(colon + 1)) : std::string()};
}

}  // namespace tokbench::dataset
