// net/http_get and net/plain_http: the set-up calls (GET /v1/models, /metrics, POST /tokenize)
// against loopback servers that are not tokbench's — every body framing, the request's bytes, the
// body cap, a server that never answers, a port nobody listens on, a broken answer — and a proxy
// in the environment, which sends the call to libcurl (it speaks to the proxy in absolute form).
#include "net/http_get.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <chrono>
#include <string>

#include "support/canned_server.hpp"
#include "support/ports.hpp"

namespace tokbench::net {
namespace {

using testing::CannedServer;

TEST(HttpGet, PlainHttpReadsEveryBodyFramingAndSendsTheHead) {
  CannedServer server([](const std::string& path) -> std::string {
    if (path == "/length") return CannedServer::http(200, "application/json", R"({"a":1})");
    if (path == "/chunked")
      return "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
             "chunked\r\n\r\n3\r\n{\"b\r\n4\r\n\":2}\r\n0\r\n\r\n";
    return "HTTP/1.0 404 Not Found\r\n\r\nno such path";  // read until the server closes
  });
  GetResult r = http_get(server.url("/length"), {"X-Test: yes"}, "key", 2000);
  ASSERT_TRUE(r.reached) << r.error;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"a":1})");
  r = http_get(server.url("/chunked"), {}, "", 2000);
  ASSERT_TRUE(r.reached) << r.error;
  EXPECT_EQ(r.body, R"({"b":2})");
  r = http_get(server.url("/missing"), {}, "", 2000);
  ASSERT_TRUE(r.reached) << r.error;
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "no such path");
  const std::string head = server.requests().front();
  EXPECT_EQ(head.rfind("GET /length HTTP/1.1\r\n", 0), 0u) << head;
  EXPECT_NE(head.find("Host: 127.0.0.1:" + std::to_string(server.port) + "\r\n"),
            std::string::npos);
  EXPECT_NE(head.find("Authorization: Bearer key\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("X-Test: yes\r\n"), std::string::npos) << head;
}

TEST(HttpGet, PostSendsItsJsonBody) {
  CannedServer server(
      [](const std::string&) { return CannedServer::http(200, "application/json", "{}"); });
  const std::string body = R"({"prompt":"hello"})";
  const GetResult r = http_post(server.url("/tokenize"), body, {}, "", 2000);
  ASSERT_TRUE(r.reached) << r.error;
  const std::string req = server.requests().front();
  EXPECT_EQ(req.rfind("POST /tokenize HTTP/1.1\r\n", 0), 0u) << req;
  EXPECT_NE(req.find("Content-Type: application/json\r\n"), std::string::npos) << req;
  EXPECT_NE(req.find("Content-Length: " + std::to_string(body.size()) + "\r\n"), std::string::npos);
  EXPECT_EQ(req.substr(req.size() - body.size()), body);
}

TEST(HttpGet, ABodyPastTheCapIsNeverHeld) {
  CannedServer server([](const std::string&) {
    return CannedServer::http(200, "text/plain", std::string(100, 'x'));
  });
  const GetResult r = http_get(server.url("/metrics"), {}, "", 2000, 10);
  EXPECT_FALSE(r.reached);
  EXPECT_TRUE(r.body.empty());
  EXPECT_NE(r.error.find("larger than 10 bytes (raise --max-body-bytes)"), std::string::npos)
      << r.error;
}

TEST(HttpGet, SilenceTimesOutAndNobodyListeningIsSaid) {
  uint16_t port = 0;
  const int fd = testing::bound_loopback_socket(port);
  ASSERT_EQ(listen(fd, 4), 0);  // the kernel accepts; nobody ever answers
  const auto t0 = std::chrono::steady_clock::now();
  GetResult r = http_get("http://127.0.0.1:" + std::to_string(port) + "/v1/models", {}, "", 300);
  const auto took = std::chrono::steady_clock::now() - t0;
  close(fd);
  EXPECT_FALSE(r.reached);
  EXPECT_NE(r.error.find("timed out after 300 milliseconds"), std::string::npos) << r.error;
  EXPECT_LT(took, std::chrono::seconds(5));  // generous: bounded by the timeout, not hung
  const uint16_t nobody = testing::unused_loopback_port();
  r = http_get("http://127.0.0.1:" + std::to_string(nobody) + "/v1/models", {}, "", 2000);
  EXPECT_FALSE(r.reached);
  EXPECT_NE(r.error.find("Failed to connect to 127.0.0.1 port " + std::to_string(nobody)),
            std::string::npos)
      << r.error;
}

TEST(HttpGet, ABrokenAnswerIsNotAResponse) {
  CannedServer server([](const std::string&) { return std::string("SSH-2.0-OpenSSH_9.2\r\n"); });
  const GetResult r = http_get(server.url("/v1/models"), {}, "", 2000);
  EXPECT_FALSE(r.reached);
  EXPECT_NE(r.error.find("broke HTTP"), std::string::npos) << r.error;
}

// With http_proxy set the call is libcurl's: it asks the proxy for the absolute URL, which a
// plain socket to the target would never send.
TEST(HttpGet, AProxyInTheEnvironmentIsHonoured) {
  CannedServer proxy(
      [](const std::string&) { return CannedServer::http(200, "application/json", "{}"); });
  setenv("http_proxy", proxy.url("").c_str(), 1);
  const GetResult r = http_get("http://model-server.invalid:8000/v1/models", {}, "", 5000);
  unsetenv("http_proxy");
  ASSERT_TRUE(r.reached) << r.error;
  ASSERT_FALSE(proxy.requests().empty());
  EXPECT_EQ(proxy.requests().front().rfind("GET http://model-server.invalid:8000/v1/models ", 0),
            0u)
      << proxy.requests().front();
}

}  // namespace
}  // namespace tokbench::net
