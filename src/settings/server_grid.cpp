#include "settings/server_grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>

#include "common/abbreviate.hpp"
#include "runfolder/files.hpp"

namespace tokbench::runner {

namespace {

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  for (size_t b = 0;;) {
    const size_t e = s.find(sep, b);
    out.push_back(trim(s.substr(b, e == std::string::npos ? std::string::npos : e - b)));
    if (e == std::string::npos) return out;
    b = e + 1;
  }
}

bool key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

// Each {word} of the template, with where it starts; ${VAR} belongs to the shell.
template <class F>
void for_each_placeholder(const std::string& command, F&& f) {
  for (size_t b = command.find('{'); b != std::string::npos; b = command.find('{', b + 1)) {
    if (b > 0 && command[b - 1] == '$') continue;
    const size_t e = command.find('}', b);
    if (e == std::string::npos) return;
    const std::string word = command.substr(b + 1, e - b - 1);
    if (word.empty() || !std::all_of(word.begin(), word.end(), key_char))
      continue;  // a brace the shell owns
    f(b, e, word);
  }
}

}  // namespace

std::map<std::string, std::string> ServerPoint::env() const {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : values) {
    std::string name;
    for (const char c : key)
      name.push_back(
          std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(c)) : '_');
    out[name] = value;
  }
  out["TOKBENCH_GRID_POINT"] = name;
  return out;
}

std::vector<GridAxis> parse_server_grid(const std::string& text) {
  std::vector<GridAxis> axes;
  size_t points = 1;
  for (const std::string& part : split(text, ';')) {
    if (part.empty()) continue;  // a trailing ';'
    const size_t eq = part.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument(
          fmt::format("--server-grid: '{}' has no '=' (expected KEY=V1,V2;KEY2=V3,...)", part));
    GridAxis axis{trim(part.substr(0, eq)), {}};
    if (axis.key.empty() || !std::all_of(axis.key.begin(), axis.key.end(), key_char))
      throw std::invalid_argument(fmt::format(
          "--server-grid: bad key '{}' (letters, digits, '_', '-' and '.' only)", axis.key));
    if (axis.key == "port" || axis.key == "name")
      throw std::invalid_argument(fmt::format(
          "--server-grid: '{}' is taken by the {{{}}} placeholder: name the key otherwise",
          axis.key, axis.key));
    for (const auto& a : axes)
      if (a.key == axis.key)
        throw std::invalid_argument(
            fmt::format("--server-grid: key '{}' is given twice: list its values once", axis.key));
    for (const std::string& v : split(part.substr(eq + 1), ',')) {
      if (v.empty())
        throw std::invalid_argument(fmt::format(
            "--server-grid: '{}' has an empty value (expected {}=V1,V2)", axis.key, axis.key));
      // An allow-list, not a block-list: a value is pasted into a shell command as it is, and a
      // newline, '*', '~', '#' or '(' does something there too (issue 41: "x=1\nid" ran `id`).
      const auto plain = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("._+-:/@%", c);
      };
      if (!std::all_of(v.begin(), v.end(), plain))
        throw std::invalid_argument(fmt::format(
            "--server-grid: value '{}' of '{}' holds a character other than letters, digits and "
            "._+-:/@% (a shell character, a space or a newline): it is pasted into --server-cmd "
            "as it is, so give plain values",
            printable(v), axis.key));
      if (std::find(axis.values.begin(), axis.values.end(), v) != axis.values.end())
        throw std::invalid_argument(fmt::format("--server-grid: '{}' lists {} twice", axis.key, v));
      axis.values.push_back(v);
    }
    points *= axis.values.size();
    if (points > kMaxServerPoints)
      throw std::invalid_argument(fmt::format(
          "--server-grid: more than {} server points: split the grid into runs", kMaxServerPoints));
    axes.push_back(std::move(axis));
  }
  if (axes.empty())
    throw std::invalid_argument("--server-grid: no keys (expected KEY=V1,V2;KEY2=V3,...)");
  return axes;
}

std::vector<ServerPoint> server_points(const std::vector<GridAxis>& axes) {
  std::vector<ServerPoint> out(1);
  for (const GridAxis& axis : axes) {
    std::vector<ServerPoint> next;
    for (const ServerPoint& p : out)
      for (const std::string& v : axis.values) {
        ServerPoint q = p;
        q.values.emplace_back(axis.key, v);
        next.push_back(std::move(q));
      }
    out = std::move(next);
  }
  for (ServerPoint& p : out) {
    for (const auto& [k, v] : p.values)
      p.name += fmt::format("{}{}-{}", p.name.empty() ? "" : "_", k, v);
    p.name = runfolder::file_safe(p.name);
  }
  // Two values that differ only in characters a folder cannot hold would share a folder.
  for (size_t i = 0; i < out.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (out[i].name == out[j].name) out[i].name += fmt::format("-{}", i + 1);
  return out;
}

std::vector<std::string> placeholders(const std::string& command) {
  std::vector<std::string> out;
  for_each_placeholder(command, [&](size_t, size_t, const std::string& word) {
    if (std::find(out.begin(), out.end(), word) == out.end()) out.push_back(word);
  });
  return out;
}

std::vector<std::string> template_problems(const std::string& command,
                                           const std::vector<GridAxis>& axes) {
  std::vector<std::string> problems;
  const std::vector<std::string> used = placeholders(command);
  std::string keys;
  for (const auto& a : axes) keys += (keys.empty() ? "" : ", ") + a.key;
  for (const std::string& word : used) {
    if (word == "port" || word == "name") continue;
    if (std::none_of(axes.begin(), axes.end(), [&](const GridAxis& a) { return a.key == word; }))
      problems.push_back(fmt::format(
          "--server-cmd: {{{}}} is not a placeholder: use {{port}}, {{name}}{} (give its values "
          "with --server-grid '{}=...')",
          word, keys.empty() ? "" : " or a --server-grid key (" + keys + ")", word));
  }
  for (const auto& a : axes)
    if (std::find(used.begin(), used.end(), a.key) == used.end())
      problems.push_back(fmt::format(
          "--server-grid: --server-cmd never uses {{{}}}, so every point would start the same "
          "server: put {{{}}} where its value goes",
          a.key, a.key));
  return problems;
}

int url_port(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t slash = url.find('/', host);
  const std::string authority =
      url.substr(host, slash == std::string::npos ? std::string::npos : slash - host);
  const size_t colon = authority.rfind(':');
  if (colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
    try {
      return std::stoi(authority.substr(colon + 1));
    } catch (const std::exception&) {
    }
  }
  return url.starts_with("https://") ? 443 : 80;
}

std::string expand_server_command(const std::string& command, const ServerPoint& point, int port) {
  std::string out;
  size_t copied = 0;
  for_each_placeholder(command, [&](size_t b, size_t e, const std::string& word) {
    std::string value;
    if (word == "port")
      value = std::to_string(port);
    else if (word == "name")
      value = point.name;
    else {
      const auto it = std::find_if(point.values.begin(), point.values.end(),
                                   [&](const auto& kv) { return kv.first == word; });
      if (it == point.values.end()) return;  // not ours (validated before a grid runs)
      value = it->second;
    }
    out += command.substr(copied, b - copied) + value;
    copied = e + 1;
  });
  return out + command.substr(copied);
}

}  // namespace tokbench::runner
