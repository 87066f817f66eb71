#include "dataset/dataset.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace tokbench::dataset {

namespace {

// A handful of varied prompts so that `tokbench run` works with no files at all.
constexpr std::string_view kBuiltinPrompts[] = {
    "Explain, step by step, why the sky appears blue during the day and red at sunset.",
    "Write a short story about a lighthouse keeper who discovers a message in a bottle.",
    "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in "
    "May. How many clips did Natalia sell altogether in April and May?",
    "Summarize the main causes of the French Revolution in five bullet points.",
    "Write a Python function that returns the n-th Fibonacci number using memoization, and "
    "explain its time complexity.",
    "What are the trade-offs between TCP and UDP for a real-time multiplayer game?",
    "Translate into French: 'The meeting has been moved to Thursday afternoon.'",
    "Describe how a hash map handles collisions, comparing chaining and open addressing.",
    "A train travels 120 km in 1.5 hours, then 80 km in 1 hour. What is its average speed?",
    "Give three tips for writing clear technical documentation, with an example of each.",
    "What is the difference between latency and throughput? Use an analogy.",
    "Compose a haiku about autumn leaves falling on a quiet river.",
};

std::string stem_of(const std::string& path) {
  std::string s = std::filesystem::path(path).stem().string();
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  return s.empty() ? "dataset" : s;
}

void load_jsonl(Dataset& d, std::istream& in) {
  simdjson::dom::parser parser;
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto where = [&] { return fmt::format("{}:{}", d.path, line_no); };
    simdjson::dom::element doc;
    if (auto err = parser.parse(line).get(doc)) {
      throw std::runtime_error(fmt::format("{}: not valid JSON ({}); each line must be one JSON object",
                                           where(), simdjson::error_message(err)));
    }
    std::string_view question;
    if (!doc.is_object() || doc["question"].get_string().get(question)) {
      throw std::runtime_error(fmt::format("{}: expected a JSON object with a \"question\" string", where()));
    }
    RequestSpec spec;
    spec.prompt = std::string(question);
    auto mt = doc["max_tokens"];
    if (d.kind == "qa" && !mt.error() && !mt.is_null()) {
      int64_t v = 0;
      if (mt.get_int64().get(v) || v <= 0) {
        throw std::runtime_error(fmt::format("{}: \"max_tokens\" must be a positive integer", where()));
      }
      spec.max_tokens = v;
    }
    d.items.push_back(std::move(spec));
  }
  if (d.items.empty()) throw std::runtime_error(fmt::format("dataset '{}' has no requests", d.path));
}

}  // namespace

Dataset load(std::string_view spec) {
  Dataset d;
  if (spec == "builtin") {
    d.kind = d.abbr = "builtin";
    for (auto p : kBuiltinPrompts) d.items.push_back({std::string(p), -1});
    return d;
  }
  const size_t colon = spec.find(':');
  d.kind = std::string(spec.substr(0, colon));
  if (colon == std::string_view::npos || (d.kind != "qa" && d.kind != "gsm8k") || colon + 1 == spec.size()) {
    throw std::invalid_argument(fmt::format(  // a usage error (exit 2), not a run failure
        "--dataset: bad value '{}' (expected qa:PATH, gsm8k:PATH, synthetic or builtin)", spec));
  }
  d.path = std::string(spec.substr(colon + 1));
  d.abbr = d.kind == "gsm8k" ? "gsm8k" : stem_of(d.path);
  std::ifstream in(d.path);
  if (!in) {
    throw std::runtime_error(fmt::format("cannot open dataset '{}': {} (check the path after '{}:')",
                                         d.path, std::strerror(errno), d.kind));
  }
  load_jsonl(d, in);
  return d;
}

Dataset parse_lines(std::string_view kind, std::string_view name, std::istream& in) {
  if (kind != "qa" && kind != "gsm8k") throw std::invalid_argument(fmt::format("no dataset kind '{}' (qa or gsm8k)", kind));
  Dataset d;
  d.kind = std::string(kind);
  d.path = std::string(name);
  d.abbr = d.kind == "gsm8k" ? "gsm8k" : stem_of(d.path);
  load_jsonl(d, in);
  return d;
}

}  // namespace tokbench::dataset
