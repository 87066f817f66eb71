#pragma once
// Test helper: one blocking POST with libcurl, returning status and raw body.
#include <curl/curl.h>

#include <string>
#include <vector>

namespace tokbench::testing {

struct PostResult {
  long status = 0;
  std::string body;
  CURLcode rc = CURLE_OK;
};

inline PostResult http_post(const std::string& url, const std::string& body,
                            const std::string& extra_header = "") {
  PostResult out;
  CURL* e = curl_easy_init();
  curl_slist* h = curl_slist_append(nullptr, "Content-Type: application/json");
  if (!extra_header.empty()) h = curl_slist_append(h, extra_header.c_str());
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 10000L);
  curl_easy_setopt(
      e, CURLOPT_WRITEFUNCTION, +[](char* p, size_t s, size_t n, void* ud) {
        static_cast<std::string*>(ud)->append(p, s * n);
        return s * n;
      });
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &out.body);
  out.rc = curl_easy_perform(e);
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &out.status);
  curl_slist_free_all(h);
  curl_easy_cleanup(e);
  return out;
}

/// The `data:` payloads of an SSE body, in order.
inline std::vector<std::string> sse_data(const std::string& body) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = body.find("data: ", pos)) != std::string::npos) {
    const size_t end = body.find("\n\n", pos);
    out.push_back(body.substr(pos + 6, end - pos - 6));
    pos = end;
  }
  return out;
}

}  // namespace tokbench::testing
