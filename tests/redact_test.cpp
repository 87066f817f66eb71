// common/redact: secrets are recognised by whole name components and never written in clear.
#include "common/redact.hpp"

#include <gtest/gtest.h>

namespace tokbench {
namespace {

TEST(Redact, NamesThatCarryCredentials) {
  for (const char* n :
       {"Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "api_key", "--api-key",
        "HF_TOKEN", "--hf-token", "X-Auth-Token", "client_secret", "--password"})
    EXPECT_TRUE(secret_name(n)) << n;
  for (const char* n : {"--max-num-batched-tokens", "--tokenizer", "Content-Type", "--port",
                        "monkey", "x-request-id"})
    EXPECT_FALSE(secret_name(n)) << n;
}

TEST(Redact, UrlUserinfoAndCredentialParameters) {
  EXPECT_EQ(redact_url("http://user:pw@h:8000/v1/chat/completions"),
            "http://***redacted***@h:8000/v1/chat/completions");
  EXPECT_EQ(redact_url("https://h/v1/completions?api_key=abc&model=x&access_token=t"),
            "https://h/v1/completions?api_key=***redacted***&model=x&access_token=***redacted***");
  EXPECT_EQ(redact_url("http://127.0.0.1:8000/metrics"), "http://127.0.0.1:8000/metrics");
  EXPECT_EQ(redact_url(""), "");
}

TEST(Redact, HeadersAndCommandLines) {
  EXPECT_EQ(redact_header("Cookie: session=abc"), "Cookie: ***redacted***");
  EXPECT_EQ(redact_header("Authorization: Bearer sk-1"), "Authorization: ***redacted***");
  EXPECT_EQ(redact_header("X-Request-Id: 7"), "X-Request-Id: 7");
  EXPECT_EQ(
      redact_command(
          "HF_TOKEN=hf_1 vllm serve /m --api-key sk-2 --port 8000 --max-num-batched-tokens 8192"),
      "HF_TOKEN=***redacted*** vllm serve /m --api-key ***redacted*** --port 8000 "
      "--max-num-batched-tokens 8192");
  EXPECT_EQ(redact_command("serve --token=abc --tokenizer /t"),
            "serve --token=***redacted*** --tokenizer /t");
}

// The values the redactors hide, for text others write with them (a server's log).
TEST(Redact, KnownSecretsAreFoundAndHiddenInOtherText) {
  EXPECT_EQ(secrets_in_command("HF_TOKEN=hf-1 vllm serve m --api-key k-2 --token=t-3 --port 8000"),
            (std::vector<std::string>{"hf-1", "k-2", "t-3"}));
  EXPECT_EQ(secrets_in_url("https://u:pw@h:1/p?api_key=x1&a=1&token=y2"),
            (std::vector<std::string>{"pw", "x1", "y2"}));
  EXPECT_TRUE(secrets_in_url("http://h:1/v1").empty());
  EXPECT_EQ(redact_known("args: --api-key k-2222 (k-2222)", {"k-2222"}),
            "args: --api-key ***redacted*** (***redacted***)");
  EXPECT_EQ(redact_known("port 8000 on", {"on", ""}),
            "port 8000 on");  // too short to hide anything: left alone
}

}  // namespace
}  // namespace tokbench
