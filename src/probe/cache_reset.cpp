#include "probe/cache_reset.hpp"

#include <fmt/format.h>

namespace tokbench::probe {

CacheReset reset_prefix_cache(const std::string& endpoint_url,
                              const std::vector<std::string>& headers, const std::string& api_key,
                              const net::TlsSettings& tls) {
  const std::string root = net::root_url_for(endpoint_url);
  std::string tried;
  for (const char* path : {"/reset_prefix_cache", "/flush_cache"}) {  // vLLM's, SGLang's
    const auto r = net::http_post(root + path, "{}", headers, api_key, 30'000, 1 << 20, tls);
    if (r.reached && r.status >= 200 && r.status < 300) return {true, path};
    tried += fmt::format("{}{} {}", tried.empty() ? "" : ", ", path,
                         r.reached ? fmt::format("answered HTTP {}", r.status)
                                   : "was not reached (" + r.error + ")");
  }
  return {
      false,
      fmt::format(
          "the server has no prefix-cache reset ({}): vLLM serves /reset_prefix_cache only when "
          "started with VLLM_SERVER_DEV_MODE=1; SGLang serves /flush_cache",
          tried)};
}

}  // namespace tokbench::probe
