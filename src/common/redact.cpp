#include "common/redact.hpp"

#include <cctype>

namespace tokbench {

namespace {

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

}  // namespace

// By whole components of the name (split at '-', '_' and '.'), so that --api-key, X-Auth-Token and
// HF_TOKEN count while --max-num-batched-tokens and --tokenizer do not.
bool secret_name(std::string_view name) {
  const std::string n = lower(name);
  size_t i = n.find_first_not_of('-');
  while (i != std::string::npos && i < n.size()) {
    const size_t end = n.find_first_of("-_.", i);
    const std::string part = n.substr(i, end == std::string::npos ? std::string::npos : end - i);
    for (const char* word : {"auth", "authorization", "key", "apikey", "token", "secret", "cookie",
                             "password", "passwd", "credential", "credentials", "bearer"})
      if (part == word) return true;
    if (end == std::string::npos) break;
    i = end + 1;
  }
  return false;
}

std::string redact_url(const std::string& url) {
  std::string out = url;
  const size_t scheme = out.find("://");
  const size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t path = out.find_first_of("/?#", host);
  const size_t at = out.rfind('@', path == std::string::npos ? out.size() : path);
  if (at != std::string::npos && at >= host) out.replace(host, at - host, kRedacted);
  const size_t q = out.find('?');
  if (q == std::string::npos) return out;
  std::string rebuilt = out.substr(0, q + 1);
  size_t i = q + 1;
  while (i <= out.size()) {
    size_t amp = out.find('&', i);
    if (amp == std::string::npos) amp = out.size();
    const std::string param = out.substr(i, amp - i);
    const size_t eq = param.find('=');
    rebuilt += eq != std::string::npos && secret_name(param.substr(0, eq))
                   ? param.substr(0, eq + 1) + std::string(kRedacted)
                   : param;
    if (amp < out.size()) rebuilt += '&';
    i = amp + 1;
  }
  return rebuilt;
}

std::string redact_header(const std::string& header) {
  const size_t colon = header.find(':');
  if (colon == std::string::npos || !secret_name(header.substr(0, colon))) return header;
  return header.substr(0, colon) + ": " + std::string(kRedacted);
}

namespace {

// Walks a shell command's words; `hidden` gets each secret value, and the command comes back with
// them redacted.
std::string walk_command(const std::string& command, std::vector<std::string>* hidden) {
  std::string out;
  bool hide_next = false;
  size_t i = 0;
  auto hide = [&](const std::string& value) {
    if (hidden && !value.empty()) hidden->push_back(value);
    return std::string(kRedacted);
  };
  while (i < command.size()) {
    const size_t start = command.find_first_not_of(" \t\n", i);
    if (start == std::string::npos) {
      out += command.substr(i);
      break;
    }
    out += command.substr(i, start - i);
    size_t end = command.find_first_of(" \t\n", start);
    if (end == std::string::npos) end = command.size();
    std::string word = command.substr(start, end - start);
    if (hide_next) {
      word = hide(word);
      hide_next = false;
    } else if (word.starts_with("-")) {
      const size_t eq = word.find('=');
      const std::string flag = word.substr(0, eq);
      if (secret_name(flag)) {
        if (eq == std::string::npos) {
          hide_next = true;
        } else {
          word = flag + "=" + hide(word.substr(eq + 1));
        }
      }
    } else if (const size_t eq = word.find('=');
               eq != std::string::npos && eq > 0 && secret_name(word.substr(0, eq))) {
      word = word.substr(0, eq + 1) +
             hide(word.substr(eq + 1));  // HF_TOKEN=... in an environment prefix
    }
    out += word;
    i = end;
  }
  return out;
}

}  // namespace

std::string redact_command(const std::string& command) { return walk_command(command, nullptr); }

std::vector<std::string> secrets_in_command(const std::string& command) {
  std::vector<std::string> out;
  walk_command(command, &out);
  return out;
}

std::vector<std::string> secrets_in_url(const std::string& url) {
  std::vector<std::string> out;
  const size_t scheme = url.find("://");
  const size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t path = url.find_first_of("/?#", host);
  const size_t at = url.rfind('@', path == std::string::npos ? url.size() : path);
  if (at != std::string::npos && at >= host) {
    const std::string userinfo = url.substr(host, at - host);
    const size_t colon = userinfo.find(':');
    out.push_back(colon == std::string::npos
                      ? userinfo
                      : userinfo.substr(colon + 1));  // the password, or a token as user
  }
  const size_t q = url.find('?');
  for (size_t i = q == std::string::npos ? url.size() : q + 1; i < url.size();) {
    size_t amp = url.find_first_of("&#", i);
    if (amp == std::string::npos) amp = url.size();
    const std::string param = url.substr(i, amp - i);
    const size_t eq = param.find('=');
    if (eq != std::string::npos && secret_name(param.substr(0, eq)))
      out.push_back(param.substr(eq + 1));
    i = amp + 1;
  }
  return out;
}

std::string redact_known(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& secret : secrets) {
    if (secret.size() < 4)
      continue;  // "on", "1": replacing those would mangle the text, not hide anything
    for (size_t at = 0; (at = text.find(secret, at)) != std::string::npos; at += kRedacted.size())
      text.replace(at, secret.size(), kRedacted);
  }
  return text;
}

}  // namespace tokbench
