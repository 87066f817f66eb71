#include "core/engines.hpp"

#include <array>

namespace tokbench::core {

namespace {

// Each row as its engine's source or docs define it (docs/COMPATIBILITY.md cites them).
constexpr std::array kEngines{
    Engine{"vllm", "vLLM", TokenizeDialect::Vllm, CacheResetWay::VllmReset, "vllm:"},
    Engine{"sglang", "SGLang", TokenizeDialect::Vllm, CacheResetWay::SglangFlush, "sglang:"},
    Engine{"llamacpp", "llama.cpp llama-server", TokenizeDialect::Llamacpp,
           CacheResetWay::LlamacppSlots, "llamacpp:"},
    Engine{"tgi", "Text Generation Inference", TokenizeDialect::None, CacheResetWay::None, "tgi_"},
    Engine{"ollama", "Ollama", TokenizeDialect::None, CacheResetWay::None, ""},
    Engine{"lmdeploy", "LMDeploy api_server", TokenizeDialect::None, CacheResetWay::None,
           "lmdeploy:"},
    Engine{"trtllm", "TensorRT-LLM (trtllm-serve, Dynamo, Triton)", TokenizeDialect::None,
           CacheResetWay::None, "trtllm:"},
    Engine{"mindie", "MindIE Service", TokenizeDialect::None, CacheResetWay::None,
           "request_received_total"},
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
