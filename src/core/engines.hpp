#pragma once
// core/engines: the serving engines tokbench knows, in one table — how each one's side channels
// are spelled (tokenize and count, detokenize, its /metrics names, its prefix-cache reset) and
// how a run tells which one it faces. Everything that
// differs between engines is a row here or keyed by a row's name (probe/server_metrics's metric
// names); `--engine`'s help and errors list its names; docs/COMPATIBILITY.md says what each row
// rests on. Knows no HTTP.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tokbench::core {

/// How an engine's POST /tokenize is spelled.
enum class TokenizeDialect : uint8_t {
  None,      ///< no tokenize endpoint that tokbench can build prompts with
  Vllm,      ///< {"model","prompt"|"messages","add_special_tokens"} -> {"count","tokens"}
             ///< (/detokenize {"tokens"} -> {"prompt"}); SGLang's is the same
  Llamacpp,  ///< {"content","add_special","parse_special"} -> {"tokens"} (no count);
             ///< /detokenize {"tokens"} -> {"content"}; a chat's count at
             ///< POST /v1/chat/completions/input_tokens -> {"input_tokens"}
};

/// How an engine's prefix cache is emptied (--reset-prefix-cache).
enum class CacheResetWay : uint8_t {
  None,
  VllmReset,      ///< POST /reset_prefix_cache (vLLM serves it with VLLM_SERVER_DEV_MODE=1)
  SglangFlush,    ///< POST /flush_cache
  LlamacppSlots,  ///< GET /slots, then POST /slots/{id}?action=erase for each slot
};

struct Engine {
  std::string_view name;   ///< --engine's value and what result.json says: "llamacpp"
  std::string_view title;  ///< for people: "llama.cpp llama-server"
  TokenizeDialect tokenize = TokenizeDialect::None;
  CacheResetWay cache_reset = CacheResetWay::None;
  /// The --endpoint names of the APIs only this engine speaks, comma-separated ("" = none): a
  /// run through one is this engine's (SGLang's /generate, TGI's /generate_stream, Ollama's
  /// /api/chat and /api/generate, MindIE's /infer).
  std::string_view own_api;
  bool owns_api(std::string_view api) const {
    for (std::string_view rest = own_api; !api.empty() && !rest.empty();) {
      const size_t comma = rest.find(',');
      if (rest.substr(0, comma) == api) return true;
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    return false;
  }
  // Its /metrics names (and the mark that tells its exposition apart) are one table in
  // probe/server_metrics, keyed by this name: not repeated here.
};

/// Every engine, in the order a server's answers are matched against them.
std::span<const Engine> all_engines();
/// The engine of that name, or null.
const Engine* engine_named(std::string_view name);
/// "vllm, sglang, llamacpp, ...": for help texts and errors.
std::string engine_names();

/// What a run shows of the engine it faced: each thing that names one.
struct EngineEvidence {
  std::string named;               ///< --engine's value ("auto" or "" = not named)
  std::string api;                 ///< the --endpoint the requests went through
  std::string metrics_dialect;     ///< whose /metrics names were read ("" = none)
  bool llamacpp_tokenize = false;  ///< /tokenize answered in llama.cpp's shape
  bool simulator = false;          ///< the built-in simulator answered (no --url)
};
/// The engine a run faced and how that is known, in words ("its /metrics names"); where two
/// pieces of evidence name different engines, both are said. name "" = not known.
struct EngineSeen {
  std::string name;
  std::string how;
};
/// By weight: the built-in simulator; --engine; the /metrics names; an API only one engine
/// speaks; llama.cpp's /tokenize shape.
EngineSeen identify_engine(const EngineEvidence& e);

}  // namespace tokbench::core
