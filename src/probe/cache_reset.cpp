#include "probe/cache_reset.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include "core/engines.hpp"

namespace tokbench::probe {

namespace {

using core::CacheResetWay;

struct Call {
  const std::vector<std::string>& headers;
  const std::string& api_key;
  const net::TlsSettings& tls;
};

std::string said(const net::GetResult& r) {
  return r.reached ? fmt::format("answered HTTP {}", r.status)
                   : "was not reached (" + r.error + ")";
}

// llama.cpp keeps each slot's last prompt: GET /slots lists them ({"id": n, ...} each), and
// POST /slots/{id}?action=erase empties one. At most 4096 slots are erased (a server's
// --parallel; nothing from the network sizes a loop beyond that).
bool erase_slots(const std::string& root, const Call& c, std::string& tried) {
  const auto list = net::http_get(root + "/slots", c.headers, c.api_key, 30'000, 8 << 20, c.tls);
  if (!list.reached || list.status != 200) {
    tried += fmt::format("{}GET /slots {}", tried.empty() ? "" : ", ", said(list));
    return false;
  }
  simdjson::dom::parser parser;
  simdjson::dom::array slots;
  if (parser.parse(list.body).get_array().get(slots)) {
    tried += fmt::format("{}GET /slots answered no list of slots", tried.empty() ? "" : ", ");
    return false;
  }
  size_t erased = 0;
  for (auto slot : slots) {
    int64_t id = 0;
    if (slot["id"].get_int64().get(id) || id < 0 || erased >= 4096) continue;
    const auto r = net::http_post(fmt::format("{}/slots/{}?action=erase", root, id), "{}",
                                  c.headers, c.api_key, 30'000, 1 << 20, c.tls);
    if (!r.reached || r.status < 200 || r.status >= 300) {
      tried +=
          fmt::format("{}POST /slots/{}?action=erase {}", tried.empty() ? "" : ", ", id, said(r));
      return false;
    }
    ++erased;
  }
  return erased > 0;
}

bool post_reset(const std::string& root, const char* path, const Call& c, std::string& tried) {
  const auto r = net::http_post(root + path, "{}", c.headers, c.api_key, 30'000, 1 << 20, c.tls);
  if (r.reached && r.status >= 200 && r.status < 300) return true;
  tried += fmt::format("{}{} {}", tried.empty() ? "" : ", ", path, said(r));
  return false;
}

}  // namespace

CacheReset reset_prefix_cache(const std::string& endpoint_url,
                              const std::vector<std::string>& headers, const std::string& api_key,
                              const net::TlsSettings& tls, std::string_view engine) {
  const std::string root = net::root_url_for(endpoint_url);
  const Call call{headers, api_key, tls};
  const core::Engine* named = engine == "auto" ? nullptr : core::engine_named(engine);
  std::string tried;
  for (const core::Engine& e : core::all_engines()) {
    if (named && &e != named) continue;
    switch (e.cache_reset) {
      case CacheResetWay::VllmReset:
        if (post_reset(root, "/reset_prefix_cache", call, tried))
          return {true, "/reset_prefix_cache"};
        break;
      case CacheResetWay::SglangFlush:
        if (post_reset(root, "/flush_cache", call, tried)) return {true, "/flush_cache"};
        break;
      case CacheResetWay::LlamacppSlots:
        if (erase_slots(root, call, tried)) return {true, "/slots/{id}?action=erase (every slot)"};
        break;
      case CacheResetWay::None:
        break;
    }
  }
  if (named && named->cache_reset == CacheResetWay::None)
    return {false, fmt::format("--engine {} ({}) has no prefix-cache reset that tokbench knows",
                               named->name, named->title)};
  return {false,
          fmt::format("the server has no prefix-cache reset ({}): vLLM serves "
                      "/reset_prefix_cache only when started with VLLM_SERVER_DEV_MODE=1; SGLang "
                      "serves /flush_cache; llama.cpp erases slots listed by /slots",
                      tried)};
}

}  // namespace tokbench::probe
