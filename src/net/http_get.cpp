#include "net/http_get.hpp"

#include <curl/curl.h>
#include <fmt/format.h>
#include <simdjson.h>
#include <strings.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "net/plain_http.hpp"

namespace tokbench::net {

namespace {
struct Sink {
  std::string* body;
  size_t max_bytes;
  bool too_large = false;
};
size_t append(char* p, size_t size, size_t n, void* ud) {
  auto& s = *static_cast<Sink*>(ud);
  if (s.body->size() + size * n > s.max_bytes) {
    s.too_large = true;
    return 0;  // libcurl aborts the transfer: a body past the cap is never held
  }
  s.body->append(p, size * n);
  return size * n;
}
}  // namespace

namespace {
bool is_tls_error(CURLcode rc) {
  switch (rc) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ENGINE_INITFAILED:
      return true;
    default:
      return false;
  }
}

GetResult perform(const std::string& url, const std::string* post_body,
                  const std::vector<std::string>& headers, const std::string& api_key,
                  long timeout_ms, size_t max_bytes, const TlsSettings& tls) {
  if (auto u = parse_http_url(url); u && !proxy_in_environment()) {
    std::vector<std::string> list;
    if (post_body) list.emplace_back("Content-Type: application/json");
    if (!api_key.empty() && !has_authorization_header(headers))
      list.push_back("Authorization: Bearer " + api_key);
    list.insert(list.end(), headers.begin(), headers.end());
    return plain_http_call(*u, url, post_body, list, timeout_ms, max_bytes);
  }
  GetResult out;
  CURL* e = curl_easy_init();
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
  apply_tls(e, tls);
  curl_slist* list = nullptr;
  if (post_body) {
    list = curl_slist_append(list, "Content-Type: application/json");
    list = curl_slist_append(list, "Expect:");
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, post_body->c_str());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(post_body->size()));
  }
  if (!api_key.empty() && !has_authorization_header(headers))
    list = curl_slist_append(list, ("Authorization: Bearer " + api_key).c_str());
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &append);
  Sink sink{&out.body, max_bytes};
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  const CURLcode rc = curl_easy_perform(e);
  if (rc == CURLE_OK) {
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    out.reached = true;
    out.status = static_cast<int>(status);
  } else if (sink.too_large) {
    out.error = fmt::format("the response from {} is larger than {} bytes (raise --max-body-bytes)",
                            url, sink.max_bytes);
    out.body.clear();
  } else {
    // The error buffer names the cause ("SSL certificate problem: self-signed certificate"),
    // where curl_easy_strerror says only "SSL peer certificate ... was not OK".
    out.error = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    out.tls_error = is_tls_error(rc);
  }
  curl_slist_free_all(list);
  curl_easy_cleanup(e);
  return out;
}
}  // namespace

bool has_header(const std::vector<std::string>& headers, std::string_view name) {
  return std::any_of(headers.begin(), headers.end(), [&](const std::string& h) {
    return h.size() > name.size() && h[name.size()] == ':' &&
           strncasecmp(h.c_str(), name.data(), name.size()) == 0;
  });
}

bool proxy_in_environment() {
  for (const char* name : {"http_proxy", "all_proxy", "ALL_PROXY"})
    if (const char* v = std::getenv(name); v && *v) return true;
  return false;
}

bool has_authorization_header(const std::vector<std::string>& headers) {
  return has_header(headers, "authorization");
}

void apply_tls(void* easy, const TlsSettings& t) {
  CURL* e = static_cast<CURL*>(easy);
  if (!t.ca_bundle.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, t.ca_bundle.c_str());
  if (!t.cert.empty()) curl_easy_setopt(e, CURLOPT_SSLCERT, t.cert.c_str());
  if (!t.key.empty()) curl_easy_setopt(e, CURLOPT_SSLKEY, t.key.c_str());
  if (t.insecure) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
}

GetResult http_get(const std::string& url, const std::vector<std::string>& headers,
                   const std::string& api_key, long timeout_ms, size_t max_bytes,
                   const TlsSettings& tls) {
  return perform(url, nullptr, headers, api_key, timeout_ms, max_bytes, tls);
}

GetResult http_post(const std::string& url, const std::string& json_body,
                    const std::vector<std::string>& headers, const std::string& api_key,
                    long timeout_ms, size_t max_bytes, const TlsSettings& tls) {
  return perform(url, &json_body, headers, api_key, timeout_ms, max_bytes, tls);
}

std::string root_url_for(const std::string& endpoint_url) {
  const size_t scheme = endpoint_url.find("://");
  const size_t path = endpoint_url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  return path == std::string::npos ? endpoint_url : endpoint_url.substr(0, path);
}

std::string models_url_for(const std::string& endpoint_url) {
  const size_t scheme = endpoint_url.find("://");
  const size_t path = endpoint_url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (path == std::string::npos) return endpoint_url + "/v1/models";
  const size_t v1 = endpoint_url.find("/v1/", path);
  if (v1 != std::string::npos) return endpoint_url.substr(0, v1) + "/v1/models";
  return endpoint_url.substr(0, path) + "/v1/models";
}

std::vector<std::string> parse_model_ids(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::array data;
  if (parser.parse(body).get_object()["data"].get_array().get(data)) {
    throw std::runtime_error("expected {\"data\": [{\"id\": ...}]}");
  }
  std::vector<std::string> ids;
  for (auto m : data) {
    std::string_view id;
    if (!m["id"].get_string().get(id)) ids.emplace_back(id);
  }
  return ids;
}

}  // namespace tokbench::net
