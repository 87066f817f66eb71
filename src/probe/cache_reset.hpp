#pragma once
// probe/cache_reset: --reset-prefix-cache — empty the server's prefix cache between load points,
// so a point does not start with the previous point's prompts cached. Each engine's way is its
// row in core/engines: vLLM's POST /reset_prefix_cache (only with VLLM_SERVER_DEV_MODE=1),
// SGLang's /flush_cache, llama.cpp's POST /slots/{id}?action=erase for every slot GET /slots
// lists. With --engine auto they are tried in that order; the first that answers 2xx did it.
#include <string>
#include <string_view>
#include <vector>

#include "net/http_get.hpp"

namespace tokbench::probe {

struct CacheReset {
  bool done = false;
  std::string how;  ///< done: what answered; else why none did, with the fix
};

/// Resets the cache of the server of `endpoint_url`, the way `engine` (core/engines' name; "" or
/// "auto": every way in turn) does.
CacheReset reset_prefix_cache(const std::string& endpoint_url,
                              const std::vector<std::string>& headers, const std::string& api_key,
                              const net::TlsSettings& tls, std::string_view engine = "auto");

}  // namespace tokbench::probe
