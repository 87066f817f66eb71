#pragma once
// dataset/spec: the --dataset nouns under dataset/'s names. They live in core/dataset_spec.hpp,
// below settings/ (which holds one) and dataset/ (which reads what it names).
#include <string_view>

#include "core/dataset_spec.hpp"

namespace tokbench::dataset {

using Source = core::DatasetSource;
inline constexpr const auto& kSources = core::kDatasetSources;
using Spec = core::DatasetSpec;
using core::names_file;
inline std::string spec_forms() { return core::dataset_forms(); }
inline Spec parse_spec(std::string_view text) { return core::parse_dataset_spec(text); }

}  // namespace tokbench::dataset
