#pragma once
// dataset/spec: what --dataset names, parsed once at the edge: a source kind and, for the file
// kinds, the path after the colon ("qa:PATH"). The kinds and their spellings are one table.
#include <optional>
#include <string>
#include <string_view>

#include "common/choice.hpp"

namespace tokbench::dataset {

enum class Source { Builtin, Synthetic, Qa, Gsm8k, Lines, Sharegpt, Trace };
inline constexpr Choices<Source, 7> kSources{{{{Source::Builtin, "builtin"},
                                               {Source::Synthetic, "synthetic"},
                                               {Source::Qa, "qa"},
                                               {Source::Gsm8k, "gsm8k"},
                                               {Source::Lines, "lines"},
                                               {Source::Sharegpt, "sharegpt"},
                                               {Source::Trace, "trace"}}}};

/// Whether a kind names a file after its colon (all but builtin and synthetic).
constexpr bool names_file(Source s) { return s != Source::Builtin && s != Source::Synthetic; }

struct Spec {
  Source source = Source::Builtin;
  std::string path;  ///< the file kinds' PATH; "" for builtin and synthetic
  bool is(Source s) const { return source == s; }
  std::string text() const;  ///< "qa:PATH", "builtin": what the flag said
  bool operator==(const Spec&) const = default;
};

/// Every --dataset form, for help and messages.
std::string spec_forms();
/// "qa:PATH" -> {Qa, PATH}; throws std::invalid_argument naming --dataset, the bad value and
/// every form when it is not one.
Spec parse_spec(std::string_view text);

}  // namespace tokbench::dataset
