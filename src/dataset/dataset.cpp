#include "dataset/dataset.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/answer_regex.hpp"
#include "dataset/images.hpp"
#include "dataset/json_lines.hpp"

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

// A qa line's `messages`: a non-empty array of objects with a string `role` and a `content` that
// is a string or an array of content parts (OpenAI's shape). Returns the text of the contents,
// joined, for a local tokenizer to count.
std::string messages_text(simdjson::dom::array messages, const std::string& where) {
  if (messages.size() == 0)
    throw std::runtime_error(fmt::format("{}: \"messages\" is empty", where));
  std::string text;
  size_t i = 0;
  for (auto m : messages) {
    const std::string at = fmt::format("{}: messages[{}]", where, i++);
    std::string_view role, content;
    if (!m.is_object() || m["role"].get_string().get(role))
      throw std::runtime_error(
          fmt::format("{} needs a string \"role\" (user, assistant, system)", at));
    simdjson::dom::element c;
    if (m["content"].get(c)) throw std::runtime_error(fmt::format("{} has no \"content\"", at));
    if (!c.get_string().get(content)) {
      text += content;
    } else if (c.is_array()) {
      for (auto part : c.get_array()) {
        std::string_view t;
        if (!part["text"].get_string().get(t)) text += t;
      }
    } else if (!c.is_null()) {
      throw std::runtime_error(
          fmt::format("{}: \"content\" must be a string or an array of content parts", at));
    }
    text += '\n';
  }
  return text;
}

// The line's reference answer. gsm8k: the text after the "answer" field's last "####" (a line
// without one has none). qa: "choices" (a list of strings) with "answer" (the right letter, its
// 0-based index, or the choice's text; a single letter within the choices' letters is read as a
// letter), else "answer" alone (a string or number, matched whole). A qa line's "answer_regex"
// (PCRE2) wins over "answer": the output is right when it matches.
core::AnswerKey answer_key(simdjson::dom::element doc, const Dataset& d, const std::string& where) {
  core::AnswerKey key;
  if (std::string_view pattern;
      d.kind == "qa" && doc.is_object() && !doc["answer_regex"].get_string().get(pattern)) {
    if (const std::string e = core::regex_error(pattern); !e.empty())
      throw std::runtime_error(
          fmt::format("{}: \"answer_regex\" is not a valid PCRE2 pattern: {} (fix the pattern; "
                      "escape backslashes in JSON as \\\\)",
                      where, e));
    key.kind = core::AnswerKey::Kind::Regex;
    key.reference = std::string(pattern);
    return key;
  }
  simdjson::dom::element answer;
  if (!doc.is_object() || doc["answer"].get(answer) || answer.is_null()) {
    if (d.kind == "qa" && doc.is_object() && !doc["choices"].error())
      throw std::runtime_error(fmt::format(
          "{}: \"choices\" without an \"answer\" (give the right letter or index)", where));
    return key;
  }
  std::string_view text;
  const bool is_text = !answer.get_string().get(text);
  if (d.kind == "gsm8k") {
    const size_t mark = is_text ? text.rfind("####") : std::string_view::npos;
    if (mark == std::string_view::npos) return key;
    key.kind = core::AnswerKey::Kind::Gsm8k;
    key.reference = std::string(text.substr(mark + 4));
    return key;
  }
  if (d.kind != "qa") return key;
  simdjson::dom::array choices;
  if (!doc["choices"].get_array().get(choices)) {
    std::vector<std::string_view> listed;
    for (auto c : choices) {
      std::string_view s;
      if (c.get_string().get(s))
        throw std::runtime_error(fmt::format("{}: \"choices\" must list strings", where));
      listed.push_back(s);
    }
    if (listed.empty() || listed.size() > 26)
      throw std::runtime_error(
          fmt::format("{}: \"choices\" must list 1 to 26 choices (lettered A to Z)", where));
    // A letter among the choices' letters is a letter; any other text must be a choice's.
    int64_t index = -1;
    const int64_t letter =
        is_text && text.size() == 1 ? std::toupper(static_cast<unsigned char>(text[0])) - 'A' : -1;
    if (letter >= 0 && letter < static_cast<int64_t>(listed.size())) {
      index = letter;
    } else if (is_text) {
      const auto it = std::find(listed.begin(), listed.end(), text);
      if (it != listed.end()) index = it - listed.begin();
    } else if (answer.get_int64().get(index)) {
      index = -1;
    }
    if (index < 0 || index >= static_cast<int64_t>(listed.size()))
      throw std::runtime_error(fmt::format(
          "{}: \"answer\" names no choice of the {} listed (give a letter A-{}, a 0-based "
          "index, or a choice's text)",
          where, listed.size(), static_cast<char>('A' + listed.size() - 1)));
    key.kind = core::AnswerKey::Kind::Choice;
    key.reference = std::string(1, static_cast<char>('A' + index));
    key.choices = static_cast<int>(listed.size());
    return key;
  }
  key.kind = core::AnswerKey::Kind::Exact;
  key.reference = is_text ? std::string(text) : simdjson::minify(answer);
  return key;
}

// A qa line's ranking: a "query" string with "documents", a non-empty list of strings (or of
// objects with a "text" string, Jina's form), at most kMaxDocuments of them.
constexpr size_t kMaxDocuments = 10000;
core::Ranking ranking_of(simdjson::dom::element doc, const std::string& where) {
  simdjson::dom::array docs;
  if (doc["documents"].get_array().get(docs) || docs.size() == 0 || docs.size() > kMaxDocuments)
    throw std::runtime_error(
        fmt::format("{}: a \"query\" needs \"documents\", a list of 1 to {} strings to rank", where,
                    kMaxDocuments));
  core::Ranking r;
  for (auto d : docs) {
    std::string_view text;
    if (d.get_string().get(text) && (!d.is_object() || d["text"].get_string().get(text)))
      throw std::runtime_error(
          fmt::format("{}: documents[{}] must be a string (or an object with a \"text\" string)",
                      where, r.documents.size()));
    r.documents.emplace_back(text);
  }
  return r;
}

// A qa line's "tools" (definitions, as --tools takes them) and "tool_call", its reference call:
// {"name": ..., "arguments": {...}} (the arguments an object, or a string holding one).
void read_tools(simdjson::dom::element doc, const std::string& where, RequestSpec& spec) {
  simdjson::dom::element tools;
  if (!doc["tools"].get(tools) && !tools.is_null())
    spec.tools = std::make_shared<const core::ToolSet>(
        core::parse_tools(simdjson::minify(tools), where + ": \"tools\""));
  simdjson::dom::element call;
  if (doc["tool_call"].get(call) || call.is_null()) return;
  std::string_view name, text;
  simdjson::dom::element args;
  const bool named = !call["name"].get_string().get(name) && !name.empty();
  const bool has_args = !call["arguments"].get(args);
  if (!named || !has_args || (!args.is_object() && args.get_string().get(text)))
    throw std::runtime_error(
        fmt::format("{}: \"tool_call\" must be {{\"name\": \"...\", \"arguments\": {{...}}}} (the "
                    "reference call; arguments an object, or a string holding one)",
                    where));
  std::string arguments = args.is_object() ? simdjson::minify(args) : std::string(text);
  if (core::check_schema(arguments, "") != core::ToolCheck::Valid)
    throw std::runtime_error(fmt::format(
        "{}: \"tool_call\".arguments is not a JSON object (give the reference's arguments)",
        where));
  spec.tool_call = core::ToolCall{std::string(name), std::move(arguments)};
}

RequestSpec spec_from_json(simdjson::dom::element doc, const Dataset& d, const std::string& where) {
  RequestSpec spec;
  std::string_view question;
  simdjson::dom::array messages;
  if (doc.is_object() && !doc["messages"].get_array().get(messages)) {
    spec.as_conversation().messages_json = simdjson::minify(messages);
    spec.prompt = messages_text(messages, where);
  } else if (doc.is_object() && !doc["question"].get_string().get(question)) {
    spec.prompt = std::string(question);
  } else if (d.kind == "qa" && doc.is_object() && !doc["query"].get_string().get(question)) {
    spec.prompt = std::string(question);
    spec.payload = ranking_of(doc, where);
  } else {
    throw std::runtime_error(
        fmt::format("{}: expected a JSON object with a \"question\" string (or a chat "
                    "\"messages\" array{})",
                    where, d.kind == "qa" ? ", or a \"query\" with \"documents\"" : ""));
  }
  if (doc.is_object() && !doc["documents"].error() && !spec.ranking())
    throw std::runtime_error(fmt::format(
        "{}: \"documents\" go with a \"query\" string (a ranking), not with a question or "
        "messages",
        where));
  spec.key = answer_key(doc, d, where);
  if (d.kind != "qa") return spec;
  auto mt = doc["max_tokens"];
  if (!mt.error() && !mt.is_null()) {
    int64_t v = 0;
    if (mt.get_int64().get(v) || v <= 0) {
      throw std::runtime_error(fmt::format("{}: \"max_tokens\" must be a positive integer", where));
    }
    spec.max_tokens = v;
  }
  simdjson::dom::array images;  // files named by the line, sent as image_url parts
  if (!doc["images"].get_array().get(images)) {
    for (auto img : images) {
      std::string_view file;
      if (img.get_string().get(file) || file.empty())
        throw std::runtime_error(fmt::format("{}: \"images\" must list image file paths", where));
      if (spec.ranking())
        throw std::runtime_error(fmt::format("{}: a ranking takes no \"images\"", where));
      try {
        spec.as_conversation().image_urls.push_back(image_file_url(std::string(file)));
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(fmt::format("{}: {}", where, e.what()));
      }
    }
  }
  read_tools(doc, where, spec);
  auto model = doc["model"];
  if (!model.error() && !model.is_null()) {
    std::string_view name;
    if (model.get_string().get(name) || name.empty())
      throw std::runtime_error(fmt::format(
          "{}: \"model\" must be a non-empty string (a served model or LoRA name)", where));
    spec.model = std::string(name);
  }
  return spec;
}

void load_jsonl(Dataset& d, std::istream& in) {
  if (d.kind == "lines") {  // EvalScope's line_by_line: each line is a prompt as it stands
    for (std::string line; std::getline(in, line);) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      if (line.back() == '\r') line.pop_back();
      d.items.emplace_back(std::move(line));
    }
  } else {
    for_each_json_line(in, d.path, "each line must be one JSON object", [&](const JsonLine& line) {
      d.items.push_back(spec_from_json(line.doc, d, line.where));
    });
  }
  if (d.items.empty())
    throw std::runtime_error(fmt::format("dataset '{}' has no requests", d.path));
}

}  // namespace

Dataset load(std::string_view spec) { return load(parse_spec(spec)); }

Dataset load(const Spec& spec) {
  Dataset d;
  if (spec.is(Source::Builtin)) {
    d.kind = d.abbr = "builtin";
    for (auto p : kBuiltinPrompts) d.items.emplace_back(std::string(p));
    return d;
  }
  if (spec.is(Source::Agent)) return load_agents(spec);
  if (spec.is(Source::AgentTrace)) return load_agent_trace(spec);
  if (!spec.is(Source::Qa) && !spec.is(Source::Gsm8k) && !spec.is(Source::Lines)) {
    throw std::invalid_argument(fmt::format(  // a usage error (exit 2), not a run failure
        "--dataset {}: built by the runner (synthetic prompts, sharegpt and traces need a "
        "tokenizer), not read here",
        spec.text()));
  }
  d.kind = std::string(kSources.name(spec.source));
  d.path = spec.path;
  d.abbr = d.kind == "gsm8k" ? "gsm8k" : stem_of(d.path);
  std::ifstream in(d.path);
  if (!in) {
    throw std::runtime_error(
        fmt::format("cannot open dataset '{}': {} (check the path after '{}:')", d.path,
                    std::strerror(errno), d.kind));
  }
  load_jsonl(d, in);
  return d;
}

void rank_each_against_the_next(Dataset& d, int64_t documents) {
  const size_t n = d.items.size();
  if (n == 0 || documents < 1) return;
  std::vector<std::string> prompts;
  prompts.reserve(n);
  for (const auto& item : d.items) prompts.push_back(item.prompt);
  for (size_t i = 0; i < n; ++i) {
    core::Ranking r;
    for (int64_t k = 1; k <= documents; ++k)
      r.documents.push_back(prompts[(i + static_cast<size_t>(k)) % n]);
    d.items[i].payload = std::move(r);
    d.items[i].expected_input_tokens = -1;  // the server counts every (query, document) pair
  }
}

Dataset parse_lines(std::string_view kind, std::string_view name, std::istream& in) {
  if (kind != "qa" && kind != "gsm8k" && kind != "lines")
    throw std::invalid_argument(fmt::format("no dataset kind '{}' (qa, gsm8k or lines)", kind));
  Dataset d;
  d.kind = std::string(kind);
  d.path = std::string(name);
  d.abbr = d.kind == "gsm8k" ? "gsm8k" : stem_of(d.path);
  load_jsonl(d, in);
  return d;
}

}  // namespace tokbench::dataset
