#pragma once
// common/redact: secrets never written in clear — to files, logs, reports or the console. What
// counts as a secret: URL userinfo, credential-looking query parameters, headers whose name says
// auth/key/token/secret/cookie/password, and the values of such flags (or VAR=value) in a
// server command line. Pure string functions.
#include <string>
#include <string_view>
#include <vector>

namespace tokbench {

inline constexpr std::string_view kRedacted = "***redacted***";

/// True when a header, parameter or flag name looks like it carries a credential.
bool secret_name(std::string_view name);
/// "http://user:pw@h:1/p?api_key=x&a=1" ->
/// "http://***redacted***@h:1/p?api_key=***redacted***&a=1".
std::string redact_url(const std::string& url);
/// "Authorization: Bearer x" -> "Authorization: ***redacted***"; other headers unchanged.
std::string redact_header(const std::string& header);
/// "vllm serve m --api-key k --port 8000" -> "vllm serve m --api-key ***redacted*** --port 8000";
/// also --token=x and HF_TOKEN=x forms.
std::string redact_command(const std::string& command);

/// The secret values redact_command hides ("k" of --api-key k, "x" of HF_TOKEN=x).
std::vector<std::string> secrets_in_command(const std::string& command);
/// The secret values redact_url hides (the userinfo, credential parameters' values).
std::vector<std::string> secrets_in_url(const std::string& url);
/// `text` with every occurrence of each known secret (4 characters or more) replaced: for what
/// others write with the values tokbench passed them (a server echoing its --api-key in its log).
std::string redact_known(std::string text, const std::vector<std::string>& secrets);

}  // namespace tokbench
