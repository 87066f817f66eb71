#pragma once
// core/dataset_spec: what --dataset names, parsed once at the edge: a source kind and, for the
// file kinds, the path after the colon ("qa:PATH"). The kinds and their spellings are one table.
// A noun of the settings (settings/ holds one), so it sits below dataset/, which reads the
// sources it names (dataset/spec.hpp keeps the dataset:: names).
#include <optional>
#include <string>
#include <string_view>

#include "common/choice.hpp"

namespace tokbench::core {

enum class DatasetSource {
  Builtin,
  Synthetic,
  Qa,
  Gsm8k,
  Lines,
  Sharegpt,
  Trace,
  Agent,
  AgentTrace
};
inline constexpr Choices<DatasetSource, 9> kDatasetSources{
    {{{DatasetSource::Builtin, "builtin"},
      {DatasetSource::Synthetic, "synthetic"},
      {DatasetSource::Qa, "qa"},
      {DatasetSource::Gsm8k, "gsm8k"},
      {DatasetSource::Lines, "lines"},
      {DatasetSource::Sharegpt, "sharegpt"},
      {DatasetSource::Trace, "trace"},
      {DatasetSource::Agent, "agent"},
      {DatasetSource::AgentTrace, "agent-trace"}}}};

/// Whether a kind names a file after its colon (all but builtin and synthetic).
constexpr bool names_file(DatasetSource s) {
  return s != DatasetSource::Builtin && s != DatasetSource::Synthetic;
}

struct DatasetSpec {
  DatasetSource source = DatasetSource::Builtin;
  std::string path;  ///< the file kinds' PATH; "" for builtin and synthetic
  bool is(DatasetSource s) const { return source == s; }
  std::string text() const;  ///< "qa:PATH", "builtin": what the flag said
  bool operator==(const DatasetSpec&) const = default;
};

/// Every --dataset form, for help and messages.
std::string dataset_forms();
/// "qa:PATH" -> {Qa, PATH}; throws std::invalid_argument naming --dataset, the bad value and
/// every form when it is not one.
DatasetSpec parse_dataset_spec(std::string_view text);

}  // namespace tokbench::core
