// settings/traffic_class: --class's small language — keys split at commas that start a known
// key, so an SLO list or a JSON object keeps its own commas; every problem names the key and fix.
#include "settings/traffic_class.hpp"

#include <gtest/gtest.h>

namespace tokbench::runner {
namespace {

TEST(TrafficClass, ReadsTheIssuesExampleAndValuesWithCommas) {
  const TrafficClass chat = parse_traffic_class(
      "name=chat,concurrency=8,priority=0,slo=ttft.p99<=300ms,tpot.p99<=50ms,weight=3,"
      "fairness-id=team-a,objective=interactive,extra-body={\"top_p\":0.9,\"seed\":1}");
  EXPECT_EQ(chat.name, "chat");
  EXPECT_EQ(chat.concurrency, 8);
  EXPECT_EQ(chat.priority, 0);
  ASSERT_EQ(chat.slos.size(), 2u);
  EXPECT_EQ(chat.slos[0].text(), "ttft.p99<=300ms");
  EXPECT_EQ(chat.slos[1].text(), "tpot.p99<=50ms");
  EXPECT_EQ(chat.weight, 3);
  EXPECT_EQ(chat.extra_body, "{\"top_p\":0.9,\"seed\":1}");
  ASSERT_EQ(chat.headers.size(), 2u);
  EXPECT_EQ(chat.headers[0], "x-gateway-inference-fairness-id: team-a");
  EXPECT_EQ(chat.headers[1], "x-gateway-inference-objective: interactive");

  const TrafficClass batch = parse_traffic_class(
      "name=batch,request-rate=4,concurrency=64,priority=10,dataset=synthetic,model=lora-a,"
      "num-prompts=200,header=X-Tenant: b,header=X-Tier: low");
  EXPECT_EQ(batch.request_rate, 4);
  EXPECT_EQ(batch.concurrency, 64);
  EXPECT_EQ(batch.num_prompts, 200);
  EXPECT_EQ(batch.dataset, "synthetic");
  EXPECT_EQ(batch.model, "lora-a");
  EXPECT_EQ(batch.weight, 1);
  EXPECT_EQ(batch.headers, (std::vector<std::string>{"X-Tenant: b", "X-Tier: low"}));
}

TEST(TrafficClass, EveryProblemNamesTheKeyAndTheFix) {
  auto why = [](std::string_view text) {
    try {
      parse_traffic_class(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(why("concurrency=4").find("needs a name"), std::string::npos);
  EXPECT_NE(why("name=a").find("give its load"), std::string::npos);
  EXPECT_NE(why("name=a,concurrency=0").find("concurrency=0 (an integer >= 1, or a list"),
            std::string::npos);
  EXPECT_NE(why("name=a,concurrency=4,speed=9").find("unknown key 'speed'"), std::string::npos);
  EXPECT_NE(why("name=a b,concurrency=4").find("name=a b (1 to 32"), std::string::npos);
  EXPECT_NE(why("name=a,concurrency=4,weight=0").find("weight=0 (a number > 0)"),
            std::string::npos);
  EXPECT_NE(why("name=a,concurrency=4,priority=high").find("priority=high (an integer"),
            std::string::npos);
  EXPECT_NE(why("name=a,concurrency=4,slo=ttft<300").find("slo=ttft<300"), std::string::npos);
  EXPECT_NE(why("name=a,concurrency=4,concurrency=8").find("concurrency given twice"),
            std::string::npos);
  EXPECT_NE(why("name=a,request-rate=inf").find("request-rate=inf"), std::string::npos);
  EXPECT_NE(why("name=a,concurrency=2,arrivals=gamma").find("arrivals= shapes an open loop"),
            std::string::npos);
  EXPECT_NE(why("name=a,request-rate=2,burstiness=0.5").find("add arrivals=gamma"),
            std::string::npos);
  EXPECT_NE(why("name=a,request-rate=2,arrivals=bursty").find("arrivals=bursty (poisson, gamma"),
            std::string::npos);
  EXPECT_EQ(why("name=a,request-rate=2,arrivals=gamma,burstiness=0.5"), "accepted");
  EXPECT_NE(why("name=a,concurrency=4,header=nocolon").find("'Name: value'"), std::string::npos);
  EXPECT_NE(why("name=a,concurrency=4,extra-body=[1]").find("a JSON object"), std::string::npos);
}

}  // namespace
}  // namespace tokbench::runner
