// dataset/sharegpt: a ShareGPT JSON file under vllm bench serve's rules (reference/
// evalscope_vllm_sglang.md §2.4): entries with at least two conversation turns; the first turn is
// the prompt and the second turn's token length the request's max_tokens; pairs with a prompt or
// an answer under 4 tokens, a prompt over 1024 or a total over 2048 are skipped. Entries are
// shuffled by the seed, then taken until enough pass. The file is read with simdjson's on-demand
// parser and only the first two turns are kept, so a 670 MB ShareGPT_V3 file is not held as a tree.
// --multi-turn keeps whole conversations instead (each exchange a turn), in file order.
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>

#include "dataset/dataset.hpp"

namespace tokbench::dataset {

namespace {

constexpr int64_t kMinLen = 4, kMaxPrompt = 1024, kMaxTotal = 2048;  // vLLM's is_valid_sequence

struct Pair {
  std::string prompt, answer;
};

// Calls take(values) with each entry's turn values, in file order (at most max_values of them;
// an entry with a turn that has no string value is skipped); stops early when take returns false.
void read_entries(const simdjson::padded_string& json, const std::string& path, int64_t* entries,
                  size_t max_values, const std::function<bool(std::vector<std::string>&&)>& take) {
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  simdjson::ondemand::array top;
  if (parser.iterate(json).get(doc) || doc.get_array().get(top)) {
    throw std::runtime_error(fmt::format(
        "{}: expected a JSON array of {{\"conversations\": [{{\"from\", \"value\"}}, ...]}} "
        "entries (ShareGPT's format)",
        path));
  }
  *entries = 0;
  try {
    for (auto entry : top) {
      ++*entries;
      simdjson::ondemand::object obj;
      simdjson::ondemand::array turns;
      if (entry.get_object().get(obj) ||
          obj.find_field_unordered("conversations").get_array().get(turns))
        continue;
      std::vector<std::string> values;
      bool bad = false;
      for (auto turn : turns) {
        std::string_view value;
        simdjson::ondemand::object t;
        if (turn.get_object().get(t) || t.find_field_unordered("value").get_string().get(value)) {
          bad = true;
          break;
        }
        values.emplace_back(value);
        if (values.size() == max_values) break;
      }
      if (!bad && !take(std::move(values))) return;
    }
  } catch (const simdjson::simdjson_error& e) {
    throw std::runtime_error(
        fmt::format("{}: not valid JSON near entry {} ({})", path, *entries, e.what()));
  }
}

std::vector<Pair> read_pairs(const simdjson::padded_string& json, const std::string& path,
                             int64_t* entries) {
  std::vector<Pair> out;
  read_entries(json, path, entries, 2, [&](std::vector<std::string>&& v) {
    if (v.size() == 2) out.push_back({std::move(v[0]), std::move(v[1])});
    return true;
  });
  return out;
}

// --multi-turn: conversations in file order (bounded memory: reading stops once enough are
// kept); each (asked, answered) pair is a turn whose max_tokens is the answer's length.
Dataset multi_turn(const simdjson::padded_string& json, const std::string& path,
                   const ShareGptOptions& o, TokenCodec& codec) {
  Dataset d;
  d.kind = "sharegpt";
  d.path = path;
  d.abbr = "sharegpt";
  int64_t entries = 0, single = 0;
  const size_t max_values = o.max_turns > 0 ? static_cast<size_t>(2 * o.max_turns) : SIZE_MAX;
  read_entries(json, path, &entries, max_values, [&](std::vector<std::string>&& v) {
    const int64_t first = static_cast<int64_t>(d.items.size());
    for (size_t k = 0; k + 1 < v.size(); k += 2) {
      const auto asked = static_cast<int64_t>(codec.encode(v[k]).size());
      if (asked < 1) break;  // an empty question ends the conversation here
      const int64_t answer =
          o.output_len > 0
              ? o.output_len
              : std::max<int64_t>(1, static_cast<int64_t>(codec.encode(v[k + 1]).size()));
      d.items.emplace_back(std::move(v[k]), answer);
    }
    const int64_t turns = static_cast<int64_t>(d.items.size()) - first;
    if (turns == 0) {
      ++single;
      return true;
    }
    d.conversations.emplace_back(first, turns);
    return static_cast<int64_t>(d.conversations.size()) < o.count;
  });
  if (d.conversations.empty())
    throw std::runtime_error(fmt::format(
        "{}: no conversation with a question and an answer ({} entries)", path, entries));
  d.summary = fmt::format(
      "sharegpt: {} conversations, {} turns in all (the first {} usable entries in file order, {} "
      "skipped without a whole exchange), lengths counted with {}",
      d.conversations.size(), d.items.size(), d.conversations.size(), single, codec.name());
  return d;
}

}  // namespace

Dataset sharegpt(const std::string& path, const ShareGptOptions& o, TokenCodec& codec) {
  simdjson::padded_string json;
  if (auto err = simdjson::padded_string::load(path).get(json)) {
    throw std::runtime_error(
        fmt::format("cannot read ShareGPT file '{}' ({}): check the path after 'sharegpt:'", path,
                    simdjson::error_message(err)));
  }
  return sharegpt_from_json(json, path, o, codec);
}

Dataset sharegpt_from_json(const simdjson::padded_string& json, const std::string& path,
                           const ShareGptOptions& o, TokenCodec& codec) {
  if (o.multi_turn) return multi_turn(json, path, o, codec);
  Dataset d;
  d.kind = "sharegpt";
  d.path = path;
  d.abbr = "sharegpt";
  int64_t entries = 0;
  std::vector<Pair> pairs = read_pairs(json, path, &entries);
  std::mt19937_64 rng(o.seed);
  std::shuffle(pairs.begin(), pairs.end(), rng);
  int64_t too_short = 0, too_long = 0, tried = 0;
  for (auto& p : pairs) {
    if (static_cast<int64_t>(d.items.size()) >= o.count) break;
    ++tried;
    const auto prompt_len = static_cast<int64_t>(codec.encode(p.prompt).size());
    const int64_t output_len =
        o.output_len > 0 ? o.output_len : static_cast<int64_t>(codec.encode(p.answer).size());
    if (prompt_len < kMinLen || (o.output_len == 0 && output_len < kMinLen)) {
      ++too_short;
      continue;
    }
    if (prompt_len > kMaxPrompt || prompt_len + output_len > kMaxTotal) {
      ++too_long;
      continue;
    }
    RequestSpec spec;
    spec.prompt = std::move(p.prompt);
    spec.max_tokens = output_len;
    d.items.push_back(std::move(spec));
  }
  if (d.items.empty()) {
    throw std::runtime_error(fmt::format(
        "{}: no usable conversation ({} entries, {} with two turns; {} too short, {} too long "
        "under vLLM's ShareGPT rules: "
        "prompt and answer at least {} tokens, prompt at most {}, together at most {})",
        path, entries, pairs.size(), too_short, too_long, kMinLen, kMaxPrompt, kMaxTotal));
  }
  d.summary = fmt::format(
      "sharegpt: {} requests from {} entries ({} with two turns; of {} tried, {} too short and {} "
      "too "
      "long under vLLM's rules), lengths counted with {}",
      d.items.size(), entries, pairs.size(), tried, too_short, too_long, codec.name());
  return d;
}

}  // namespace tokbench::dataset
