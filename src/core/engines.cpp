#include "core/engines.hpp"

#include <array>
#include <utility>
#include <vector>

namespace tokbench::core {

namespace {

// Each row as its engine's source or docs define it (docs/COMPATIBILITY.md cites them). Its
// /metrics names are probe/server_metrics' dialect of the same name.
constexpr std::array kEngines{
    Engine{"vllm", "vLLM", TokenizeDialect::Vllm, CacheResetWay::VllmReset, ""},
    Engine{"sglang", "SGLang", TokenizeDialect::Vllm, CacheResetWay::SglangFlush, "generate"},
    Engine{"llamacpp", "llama.cpp llama-server", TokenizeDialect::Llamacpp,
           CacheResetWay::LlamacppSlots, ""},
    Engine{"tgi", "Text Generation Inference", TokenizeDialect::None, CacheResetWay::None, "tgi"},
    Engine{"ollama", "Ollama", TokenizeDialect::None, CacheResetWay::None,
           "ollama,ollama-generate"},
    Engine{"lmdeploy", "LMDeploy api_server", TokenizeDialect::None, CacheResetWay::None, ""},
    Engine{"trtllm", "TensorRT-LLM (trtllm-serve, Dynamo, Triton)", TokenizeDialect::None,
           CacheResetWay::None, ""},
    Engine{"mindie", "MindIE Service", TokenizeDialect::None, CacheResetWay::None, "mindie"},
};

}  // namespace

std::span<const Engine> all_engines() { return kEngines; }

const Engine* engine_named(std::string_view name) {
  for (const Engine& e : kEngines)
    if (e.name == name) return &e;
  return nullptr;
}

std::string engine_names() {
  std::string out;
  for (const Engine& e : kEngines) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

EngineSeen identify_engine(const EngineEvidence& e) {
  if (e.simulator) return {"tokbench-mock", "the built-in simulator answered (no --url)"};
  // Each piece of evidence that names an engine, by weight.
  std::vector<std::pair<std::string, std::string>> said;  // (engine, how)
  if (!e.named.empty() && e.named != "auto") said.emplace_back(e.named, "named with --engine");
  if (!e.metrics_dialect.empty())
    said.emplace_back(e.metrics_dialect, "its /metrics names are " + e.metrics_dialect + "'s");
  for (const Engine& engine : kEngines)
    if (engine.owns_api(e.api))
      said.emplace_back(std::string(engine.name), "the requests went through " +
                                                      std::string(engine.name) +
                                                      "'s own API (--endpoint " + e.api + ")");
  if (e.llamacpp_tokenize)
    said.emplace_back("llamacpp", "its /tokenize answered in llama.cpp's shape");
  if (said.empty()) return {};
  EngineSeen seen{said.front().first, said.front().second};
  for (size_t i = 1; i < said.size(); ++i)
    seen.how += (said[i].first == seen.name ? "; " : "; but ") + said[i].second;
  return seen;
}

}  // namespace tokbench::core
