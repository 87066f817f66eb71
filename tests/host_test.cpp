// host/: the load host's limits read from /proc and /sys (a fake tree under a test folder), the
// warnings a run gets before it sends, and the capacity arithmetic `tokbench doctor` prints.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/resource.h>

#include <fstream>
#include <string>

#include "host/capacity.hpp"
#include "host/doctor.hpp"
#include "host/limits.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::host {
namespace {

namespace fs = std::filesystem;

void put(const fs::path& root, const std::string& rel, const std::string& text) {
  fs::create_directories((root / rel).parent_path());
  std::ofstream(root / rel) << text;
}

fs::path v1_host() {
  const fs::path root = testing::test_dir() / "root";
  put(root, "proc/sys/net/ipv4/ip_local_port_range", "1024\t4999\n");
  put(root, "proc/sys/net/ipv4/tcp_tw_reuse", "0\n");
  put(root, "proc/sys/net/ipv4/tcp_fin_timeout", "30\n");
  put(root, "proc/meminfo", "MemTotal:  8192 kB\nMemFree:  1 kB\nMemAvailable:    2048 kB\n");
  put(root, "proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU 9000\n");
  put(root, "proc/self/cgroup", "5:memory:/job/a\n4:cpu,cpuacct:/job/a\n0::/\n");
  put(root, "sys/fs/cgroup/cpu/job/cpu.cfs_quota_us", "150000\n");  // 1.5 CPUs for the job
  put(root, "sys/fs/cgroup/cpu/job/cpu.cfs_period_us", "100000\n");
  put(root, "sys/fs/cgroup/cpu/job/a/cpu.cfs_quota_us", "-1\n");  // none of its own
  put(root, "sys/fs/cgroup/cpu/job/a/cpu.cfs_period_us", "100000\n");
  put(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n");
  put(root, "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n");
  put(root, "sys/devices/system/cpu/cpufreq/policy0/scaling_governor",
      "schedutil\n");  // not a cpuN
  return root;
}

TEST(HostLimits, ReadsProcAndSysUnderARoot) {
  const HostLimits h = read_host_limits(v1_host());
  EXPECT_EQ(h.port_low, 1024);
  EXPECT_EQ(h.port_high, 4999);
  EXPECT_EQ(h.ports(), 3976);
  EXPECT_EQ(h.tcp_tw_reuse, 0);
  EXPECT_EQ(h.tcp_fin_timeout_s, 30);
  EXPECT_EQ(h.mem_available_bytes, 2048 * 1024);
  EXPECT_EQ(h.cpu_model, "Test CPU 9000");
  ASSERT_TRUE(h.quota_cpus.has_value());  // the parent's quota binds the child without one
  EXPECT_DOUBLE_EQ(*h.quota_cpus, 1.5);
  EXPECT_EQ(h.governors, (std::vector<std::string>{"performance", "powersave"}));
  EXPECT_DOUBLE_EQ(h.usable_cpus(), std::min(1.5, static_cast<double>(h.affinity_cpus)));
  rlimit lim{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);  // the process's own, not the tree's
  EXPECT_EQ(h.nofile_hard,
            lim.rlim_max == RLIM_INFINITY ? INT64_MAX : static_cast<int64_t>(lim.rlim_max));
}

TEST(HostLimits, TheTightestCgroupV2QuotaOnTheWayUp) {
  const fs::path root = testing::test_dir() / "root";
  put(root, "proc/self/cgroup", "0::/user.slice/run-1.scope\n");
  put(root, "sys/fs/cgroup/cpu.max", "garbage 1\n");  // unreadable: passed over, not thrown
  put(root, "sys/fs/cgroup/user.slice/cpu.max", "50000 100000\n");
  put(root, "sys/fs/cgroup/user.slice/run-1.scope/cpu.max", "max 100000\n");
  const HostLimits h = read_host_limits(root);
  ASSERT_TRUE(h.quota_cpus.has_value());
  EXPECT_DOUBLE_EQ(*h.quota_cpus, 0.5);
  EXPECT_DOUBLE_EQ(h.usable_cpus(), 0.5);
}

TEST(HostLimits, WhatIsMissingIsUnknownNotZero) {
  const HostLimits h = read_host_limits(testing::test_dir() / "empty");
  EXPECT_EQ(h.ports(), -1);
  EXPECT_EQ(h.tcp_tw_reuse, -1);
  EXPECT_EQ(h.mem_available_bytes, -1);
  EXPECT_FALSE(h.quota_cpus.has_value());
  EXPECT_TRUE(h.governors.empty());
  EXPECT_GE(h.affinity_cpus, 1);
  const std::string text = doctor_text(DoctorReport{.limits = h});
  EXPECT_NE(text.find("local ports              unknown"), std::string::npos) << text;
  EXPECT_NE(text.find("not measured"), std::string::npos) << text;
}

TEST(HostLimits, StreamsPastADescriptorOrPortLimitAreWarnedOfWithTheFix) {
  HostLimits h;
  h.nofile_hard = 1000;  // 936 connections after the spare descriptors
  h.port_low = 10000;
  h.port_high = 10499;  // 500 ports
  EXPECT_TRUE(stream_limit_warnings(h, 400, false).empty());
  const auto ports = stream_limit_warnings(h, 600, false);
  ASSERT_EQ(ports.size(), 1u);
  EXPECT_NE(ports[0].find("ip_local_port_range"), std::string::npos) << ports[0];
  EXPECT_NE(ports[0].find("500"), std::string::npos) << ports[0];
  // The built-in simulator in the same process holds the other end of each connection.
  const auto both = stream_limit_warnings(h, 480, true);
  ASSERT_EQ(both.size(), 1u);
  EXPECT_NE(both[0].find("1024 open files"), std::string::npos) << both[0];
  EXPECT_NE(both[0].find("ulimit -Hn"), std::string::npos) << both[0];
  EXPECT_EQ(stream_limit_warnings(h, 600, true).size(), 2u);
  h.nofile_hard = INT64_MAX;  // unlimited
  EXPECT_EQ(stream_limit_warnings(h, 600, true).size(), 1u);
}

TEST(Capacity, EventsPerSecondStreamsAndHostsFromTheCostPerEvent) {
  HostLimits h;
  h.affinity_cpus = 4;
  h.quota_cpus = 2.0;  // the quota, not the affinity, is what the client gets
  const EventCost cost{.events = 1'000'000, .cpu_s = 10.0, .streams = 500};
  EXPECT_DOUBLE_EQ(cost.us_per_event(), 10.0);
  Capacity c = capacity(h, cost);
  EXPECT_DOUBLE_EQ(c.cpus, 2.0);
  EXPECT_DOUBLE_EQ(c.events_per_s, 2 * kBusyBound * 100'000);  // 140,000
  EXPECT_EQ(c.streams_at(50), 2800);
  EXPECT_EQ(c.stream_cap, INT64_MAX);
  h.nofile_hard = 1000 + kSpareDescriptors;
  c = capacity(h, cost);
  EXPECT_EQ(c.stream_cap, 1000);
  EXPECT_NE(c.stream_cap_by.find("open files"), std::string::npos);
  EXPECT_EQ(c.streams_at(100), 1000);  // 1,400 by events, capped by the descriptors
  HostsNeeded n = hosts_needed(c, 10'000, 50);
  EXPECT_EQ(n.by_events, 4);    // 500,000 events/s over 140,000 a host
  EXPECT_EQ(n.by_streams, 10);  // 1,000 connections a host
  EXPECT_EQ(n.hosts, 10);
  n = hosts_needed(c, 100, 1);
  EXPECT_EQ(n.hosts, 1);
}

TEST(Capacity, MemoryPerStreamCapsTheStreams) {
  HostLimits h;
  h.affinity_cpus = 1;
  h.mem_available_bytes = int64_t{100} << 20;  // 100 MiB
  const EventCost cost{.events = 1000,
                       .cpu_s = 0.01,
                       .streams = 100,
                       .peak_rss_bytes = 100.0 * (1 << 20) / 1000 * 100};  // 100 KiB-ish each
  const Capacity c = capacity(h, cost);
  EXPECT_NEAR(c.bytes_per_stream, 104857.6, 0.01);
  EXPECT_EQ(c.stream_cap, 1000);
  EXPECT_EQ(c.stream_cap_by, "memory available");
}

TEST(Doctor, TextAndJsonSayTheEstimateIsOneAndGiveTheAdvice) {
  DoctorReport r;
  r.limits = read_host_limits(v1_host());
  r.limits.affinity_cpus = 2;
  r.limits.nofile_hard = INT64_MAX;  // whatever this machine has: the ports cap here
  r.cost = EventCost{.events = 200'000, .cpu_s = 2.0, .streams = 256};  // 10 µs
  r.measured_against = "the built-in simulator in this process";
  r.token_rates = {20, 100};
  r.target_streams = 20'000;
  r.target_tokens_per_s = 50;
  const std::string text = doctor_text(r);
  EXPECT_NE(text.find("10.00 µs of CPU"), std::string::npos) << text;
  EXPECT_NE(text.find("memory available         2 MiB"), std::string::npos) << text;
  EXPECT_NE(text.find("estimate (from the cost per event: 1.50 CPUs"), std::string::npos) << text;
  EXPECT_NE(text.find("streams at 20 tok/s      3976 (TPOT 50 ms), capped by local ports"),
            std::string::npos)
      << text;  // 5,250 by events; the 3,976 ports cap it
  EXPECT_NE(text.find("streams at 100 tok/s     1050 (TPOT 10 ms)"), std::string::npos) << text;
  EXPECT_NE(text.find("hosts needed for 20000 streams at 50 tok/s: 10"), std::string::npos) << text;
  EXPECT_NE(text.find("advice: net.ipv4.tcp_tw_reuse is 0"), std::string::npos) << text;
  EXPECT_NE(text.find("governor 'powersave'"), std::string::npos) << text;
  EXPECT_EQ(text.find("governor 'performance'"), std::string::npos) << text;

  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.parse(doctor_json(r));
  EXPECT_EQ(doc["limits"]["port_low"].get_int64().value(), 1024);
  EXPECT_TRUE(doc["estimate"]["estimated"].get_bool().value());
  EXPECT_DOUBLE_EQ(doc["measured"]["us_per_event"].get_double().value(), 10.0);
  EXPECT_EQ(doc["estimate"]["hosts_needed"]["hosts"].get_int64().value(), 10);
  EXPECT_EQ(doc["estimate"]["streams_at"].get_array().size(), 2u);
  EXPECT_GE(doc["advice"].get_array().size(), 3u);  // tw_reuse, powersave, the quota
}

}  // namespace
}  // namespace tokbench::host
