#include "client/http_get.hpp"

#include <curl/curl.h>
#include <simdjson.h>

#include <stdexcept>

namespace tokbench::client {

namespace {
size_t append(char* p, size_t size, size_t n, void* ud) {
  static_cast<std::string*>(ud)->append(p, size * n);
  return size * n;
}
}  // namespace

namespace {
GetResult perform(const std::string& url, const std::string* post_body, const std::vector<std::string>& headers,
                  const std::string& api_key, long timeout_ms) {
  GetResult out;
  CURL* e = curl_easy_init();
  curl_slist* list = nullptr;
  if (post_body) {
    list = curl_slist_append(list, "Content-Type: application/json");
    list = curl_slist_append(list, "Expect:");
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, post_body->c_str());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(post_body->size()));
  }
  if (!api_key.empty()) list = curl_slist_append(list, ("Authorization: Bearer " + api_key).c_str());
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &append);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &out.body);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  const CURLcode rc = curl_easy_perform(e);
  if (rc == CURLE_OK) {
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    out.reached = true;
    out.status = static_cast<int>(status);
  } else {
    out.error = curl_easy_strerror(rc);
  }
  curl_slist_free_all(list);
  curl_easy_cleanup(e);
  return out;
}
}  // namespace

GetResult http_get(const std::string& url, const std::vector<std::string>& headers, const std::string& api_key,
                   long timeout_ms) {
  return perform(url, nullptr, headers, api_key, timeout_ms);
}

GetResult http_post(const std::string& url, const std::string& json_body, const std::vector<std::string>& headers,
                    const std::string& api_key, long timeout_ms) {
  return perform(url, &json_body, headers, api_key, timeout_ms);
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

}  // namespace tokbench::client
