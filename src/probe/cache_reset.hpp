#pragma once
// probe/cache_reset: --reset-prefix-cache — empty the server's prefix cache between load points,
// so a point does not start with the previous point's prompts cached. vLLM serves POST
// /reset_prefix_cache (only with VLLM_SERVER_DEV_MODE=1), SGLang /flush_cache; the first that
// answers 2xx did it.
#include <string>
#include <vector>

#include "net/http_get.hpp"

namespace tokbench::probe {

struct CacheReset {
  bool done = false;
  std::string how;  ///< done: the path that answered; else why neither did, with the fix
};

/// POSTs the reset paths in turn at the server of `endpoint_url`.
CacheReset reset_prefix_cache(const std::string& endpoint_url,
                              const std::vector<std::string>& headers, const std::string& api_key,
                              const net::TlsSettings& tls);

}  // namespace tokbench::probe
