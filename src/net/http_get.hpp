#pragma once
// net/http_get: one blocking HTTP GET or POST for set-up calls (GET /v1/models, /health, /metrics),
// never on the measured path. Below client/ and probe/, which both make such calls. A plain
// http:// URL with no proxy goes over a plain socket (net/plain_http), so libcurl is loaded only
// for TLS, proxies and URLs with user info.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_control.hpp"

namespace tokbench::net {

/// TLS as the user asked: a CA bundle, client certificate and key (mutual TLS), or no
/// verification at all (--insecure, which the verdict then names).
using core::TlsSettings;  // core/run_control: the plan holds one

/// True when `headers` carry their own Authorization: it then wins over --api-key, and exactly
/// one Authorization header is sent.
bool has_authorization_header(const std::vector<std::string>& headers);
/// True when `headers` ("Key: Value" strings) has one named `name` (case-insensitive, without the
/// colon).
bool has_header(const std::vector<std::string>& headers, std::string_view name);

/// A proxy is set in the environment (http_proxy, all_proxy or ALL_PROXY, as libcurl reads them:
/// it ignores HTTP_PROXY for http://, a CGI safety rule). libcurl then makes the call and applies
/// no_proxy as it always has; without one, a plain http:// URL is served on a plain socket.
bool proxy_in_environment();

/// Applies `t` to an easy handle (CURL*).
void apply_tls(void* easy, const TlsSettings& t);

struct GetResult {
  bool reached = false;    ///< a response came back (any status)
  bool tls_error = false;  ///< nothing came back because TLS failed (error names the cause)
  int status = 0;
  std::string body;
  std::string error;  ///< libcurl's reason when nothing came back
};

/// The largest body a set-up call (/v1/models, /metrics, /tokenize, ...) may return by default
/// (--max-body-bytes); a larger one is never held: the call comes back unreached, its error
/// naming the cap.
inline constexpr size_t kDefaultMaxResponseBytes = size_t{64} << 20;

GetResult http_get(const std::string& url, const std::vector<std::string>& headers,
                   const std::string& api_key, long timeout_ms,
                   size_t max_bytes = kDefaultMaxResponseBytes, const TlsSettings& tls = {});

/// One blocking POST of a JSON body (set-up calls such as /tokenize), same result shape as GET.
GetResult http_post(const std::string& url, const std::string& json_body,
                    const std::vector<std::string>& headers, const std::string& api_key,
                    long timeout_ms, size_t max_bytes = kDefaultMaxResponseBytes,
                    const TlsSettings& tls = {});

/// "http://h:p/v1/chat/completions" -> "http://h:p" (where vLLM serves /tokenize).
std::string root_url_for(const std::string& endpoint_url);

/// "http://h:p/v1/chat/completions" -> "http://h:p/v1/models": the path up to and including
/// "/v1" is kept; a URL without "/v1/" keeps only scheme://host:port.
std::string models_url_for(const std::string& endpoint_url);

/// The ids listed by an OpenAI /v1/models body, in order. Throws if the body is not that shape.
std::vector<std::string> parse_model_ids(const std::string& body);

}  // namespace tokbench::net
