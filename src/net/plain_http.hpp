#pragma once
// net/plain_http (internal to net/): a set-up call (GET or POST) over one blocking plain socket,
// with net/http1's request head and response reader — the same bytes the measured path's socket
// transport sends. net/http_get takes it for a plain http:// URL when no proxy is set, so such a
// run never loads libcurl and the ~25 libraries it maps (TLS, Kerberos, LDAP, SSH); https://,
// user info in a URL and proxies stay libcurl's.
#include <cstddef>
#include <string>
#include <vector>

#include "net/http1.hpp"
#include "net/http_get.hpp"

namespace tokbench::net {

/// One request to `url` (its pieces in `u`); `post_body` null for a GET. Same result as libcurl's
/// path: reached with any status, or not with the reason (connect, timeout, a broken answer, a
/// body past `max_bytes`).
GetResult plain_http_call(const HttpUrl& u, const std::string& url, const std::string* post_body,
                          const std::vector<std::string>& headers, long timeout_ms,
                          size_t max_bytes);

}  // namespace tokbench::net
