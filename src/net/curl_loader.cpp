// net/curl_loader: libcurl, loaded the first time it is called (dlopen of libcurl.so.4), not
// when tokbench starts. libcurl and the libraries it pulls in (OpenSSL, GnuTLS, Kerberos, LDAP,
// SSH, ...: about 25) cost 7 of the 12 ms that starting tokbench took, and `--version`,
// `serve-mock`, `report`, `compare`, `man` and the completions never touch the network.
// The functions below carry libcurl's own names and signatures (the ones tokbench calls; the
// headers are libcurl's), so every caller uses libcurl as usual. Hidden: they are this binary's
// own and never interpose on libcurl's calls to itself.
#include <curl/curl.h>
#include <fmt/format.h>

#include <cstdarg>
#include <stdexcept>

#include "common/dynamic_library.hpp"

#define TOKBENCH_HIDDEN __attribute__((visibility("hidden")))

namespace {

struct CurlApi {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
  decltype(&::curl_multi_init) multi_init;
  decltype(&::curl_multi_cleanup) multi_cleanup;
  decltype(&::curl_multi_setopt) multi_setopt;
  decltype(&::curl_multi_add_handle) multi_add_handle;
  decltype(&::curl_multi_remove_handle) multi_remove_handle;
  decltype(&::curl_multi_socket_action) multi_socket_action;
  decltype(&::curl_multi_info_read) multi_info_read;
};

void bind(void* lib, auto& f, const char* name) {
  tokbench::bind_symbol(lib, f, name, "libcurl.so.4", "tokbench needs libcurl 7.80 or later");
}

CurlApi load() {
  void* lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    throw std::runtime_error(fmt::format(
        "cannot load libcurl ({}): install it (Debian: apt-get install libcurl4)", dlerror()));
  CurlApi a{};
  bind(lib, a.global_init, "curl_global_init");
  bind(lib, a.easy_init, "curl_easy_init");
  bind(lib, a.easy_cleanup, "curl_easy_cleanup");
  bind(lib, a.easy_perform, "curl_easy_perform");
  bind(lib, a.easy_setopt, "curl_easy_setopt");
  bind(lib, a.easy_getinfo, "curl_easy_getinfo");
  bind(lib, a.easy_strerror, "curl_easy_strerror");
  bind(lib, a.slist_append, "curl_slist_append");
  bind(lib, a.slist_free_all, "curl_slist_free_all");
  bind(lib, a.multi_init, "curl_multi_init");
  bind(lib, a.multi_cleanup, "curl_multi_cleanup");
  bind(lib, a.multi_setopt, "curl_multi_setopt");
  bind(lib, a.multi_add_handle, "curl_multi_add_handle");
  bind(lib, a.multi_remove_handle, "curl_multi_remove_handle");
  bind(lib, a.multi_socket_action, "curl_multi_socket_action");
  bind(lib, a.multi_info_read, "curl_multi_info_read");
  a.global_init(
      CURL_GLOBAL_DEFAULT);  // once, before any handle (the first call: the main thread's set-up)
  return a;
}

const CurlApi& curl() {
  static const CurlApi api = load();  // thread-safe: the first caller loads, the others wait
  return api;
}

// The one argument of a variadic option, passed on with its own type: libcurl numbers options by
// the type they take (curl.h: CURLOPTTYPE_LONG, _OBJECTPOINT, _FUNCTIONPOINT, _OFF_T, _BLOB).
template <class Handle, class Option, class Code>
Code forward_option(Code (*fn)(Handle*, Option, ...), Handle* h, Option option, va_list args) {
  const int kind = static_cast<int>(option) / 10000 * 10000;
  if (kind == CURLOPTTYPE_LONG) return fn(h, option, va_arg(args, long));
  if (kind == CURLOPTTYPE_FUNCTIONPOINT) return fn(h, option, va_arg(args, void (*)()));
  if (kind == CURLOPTTYPE_OFF_T) return fn(h, option, va_arg(args, curl_off_t));
  return fn(h, option, va_arg(args, void*));  // object, string, list, callback data, blob
}

}  // namespace

extern "C" {

TOKBENCH_HIDDEN CURLcode curl_global_init(long) {
  return curl(), CURLE_OK;
}  // the loader initializes once
TOKBENCH_HIDDEN CURL* curl_easy_init() { return curl().easy_init(); }
TOKBENCH_HIDDEN void curl_easy_cleanup(CURL* e) { curl().easy_cleanup(e); }
TOKBENCH_HIDDEN CURLcode curl_easy_perform(CURL* e) { return curl().easy_perform(e); }
TOKBENCH_HIDDEN CURLcode curl_easy_setopt(CURL* e, CURLoption option, ...) {
  va_list args;
  va_start(args, option);
  const CURLcode rc = forward_option(curl().easy_setopt, e, option, args);
  va_end(args);
  return rc;
}
TOKBENCH_HIDDEN CURLcode curl_easy_getinfo(CURL* e, CURLINFO info, ...) {
  va_list args;
  va_start(args, info);
  void* out = va_arg(args, void*);  // every CURLINFO takes a pointer to where its value goes
  va_end(args);
  return curl().easy_getinfo(e, info, out);
}
TOKBENCH_HIDDEN const char* curl_easy_strerror(CURLcode rc) { return curl().easy_strerror(rc); }
TOKBENCH_HIDDEN curl_slist* curl_slist_append(curl_slist* list, const char* s) {
  return curl().slist_append(list, s);
}
TOKBENCH_HIDDEN void curl_slist_free_all(curl_slist* list) {
  if (list) curl().slist_free_all(list);
}
TOKBENCH_HIDDEN CURLM* curl_multi_init() { return curl().multi_init(); }
TOKBENCH_HIDDEN CURLMcode curl_multi_cleanup(CURLM* m) { return curl().multi_cleanup(m); }
TOKBENCH_HIDDEN CURLMcode curl_multi_setopt(CURLM* m, CURLMoption option, ...) {
  va_list args;
  va_start(args, option);
  const CURLMcode rc = forward_option(curl().multi_setopt, m, option, args);
  va_end(args);
  return rc;
}
TOKBENCH_HIDDEN CURLMcode curl_multi_add_handle(CURLM* m, CURL* e) {
  return curl().multi_add_handle(m, e);
}
TOKBENCH_HIDDEN CURLMcode curl_multi_remove_handle(CURLM* m, CURL* e) {
  return curl().multi_remove_handle(m, e);
}
TOKBENCH_HIDDEN CURLMcode curl_multi_socket_action(CURLM* m, curl_socket_t s, int ev,
                                                   int* running) {
  return curl().multi_socket_action(m, s, ev, running);
}
TOKBENCH_HIDDEN CURLMsg* curl_multi_info_read(CURLM* m, int* left) {
  return curl().multi_info_read(m, left);
}

}  // extern "C"
