#include "core/engines.hpp"

#include <array>

namespace tokbench::core {

namespace {

// Each row as its engine's source or docs define it (docs/COMPATIBILITY.md cites them). Its
// /metrics names are probe/server_metrics' dialect of the same name.
constexpr std::array kEngines{
    Engine{"vllm", "vLLM", TokenizeDialect::Vllm, CacheResetWay::VllmReset},
    Engine{"sglang", "SGLang", TokenizeDialect::Vllm, CacheResetWay::SglangFlush},
    Engine{"llamacpp", "llama.cpp llama-server", TokenizeDialect::Llamacpp,
           CacheResetWay::LlamacppSlots},
    Engine{"tgi", "Text Generation Inference", TokenizeDialect::None, CacheResetWay::None},
    Engine{"ollama", "Ollama", TokenizeDialect::None, CacheResetWay::None},
    Engine{"lmdeploy", "LMDeploy api_server", TokenizeDialect::None, CacheResetWay::None},
    Engine{"trtllm", "TensorRT-LLM (trtllm-serve, Dynamo, Triton)", TokenizeDialect::None,
           CacheResetWay::None},
    Engine{"mindie", "MindIE Service", TokenizeDialect::None, CacheResetWay::None},
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

}  // namespace tokbench::core
