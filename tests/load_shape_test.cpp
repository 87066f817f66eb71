// settings/load_shape and the parsed flags: the flags of a point make exactly one load shape, with
// its in-flight cap, pacing, arrivals name and console line decided there; the small languages
// (--slo, --goodput, --profile-window, --image) are parsed once, into typed values, and a bad one
// is named with its flag and form.
#include "settings/load_shape.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "dataset/spec.hpp"
#include "load/source.hpp"
#include "plan/plan.hpp"

namespace tokbench::runner {
namespace {

TEST(LoadShape, EachFlagCombinationIsOneShape) {
  RunConfig c;
  c.load.concurrency = 8;
  LoadShape l = c.load_shape();
  ASSERT_TRUE(std::holds_alternative<ClosedLoop>(l.shape));
  EXPECT_FALSE(l.open_loop());
  EXPECT_EQ(l.max_in_flight(), 8);
  EXPECT_EQ(l.paced_rate(), 0);
  EXPECT_EQ(l.arrivals(), "closed");
  EXPECT_EQ(l.text(false), "concurrency 8");

  c.load.request_rate = 4;
  c.load.arrivals = load::ArrivalShape::Kind::Gamma;
  c.load.burstiness = 0.5;
  l = c.load_shape();
  ASSERT_TRUE(std::holds_alternative<OpenLoop>(l.shape));
  EXPECT_TRUE(l.open_loop());
  EXPECT_EQ(l.max_in_flight(), 8);
  EXPECT_EQ(l.paced_rate(), 4);
  EXPECT_EQ(l.arrivals(), "gamma");
  EXPECT_EQ(l.text(false), "rate 4 req/s (gamma, burstiness 0.5)  concurrency 8");
  c.load.request_rate = std::numeric_limits<double>::infinity();
  EXPECT_EQ(c.load_shape().arrivals(), "all-at-once");

  c.load.pressure = true;  // the rate adds clients: it paces no request
  c.load.request_rate = 2;
  c.load.arrivals = load::ArrivalShape::Kind::Poisson;
  l = c.load_shape();
  ASSERT_TRUE(std::holds_alternative<Pressure>(l.shape));
  EXPECT_EQ(std::get<Pressure>(l.shape).clients_per_s, 2);
  EXPECT_EQ(l.paced_rate(), 0);
  EXPECT_FALSE(l.open_loop());
  EXPECT_EQ(l.arrivals(), "pressure");

  RunConfig a;
  a.load.concurrency = 2;
  a.experiment.adaptive_window_s = 5;
  a.experiment.adaptive_max = 64;
  l = a.load_shape();
  ASSERT_TRUE(std::holds_alternative<Adaptive>(l.shape));
  EXPECT_EQ(l.max_in_flight(), 64);  // the pool is sized for the controller's ceiling
  EXPECT_EQ(std::get<Adaptive>(l.shape).start, 2);

  RunConfig t;
  t.workload.dataset = {dataset::Source::Trace, "/x.jsonl"};
  t.load.concurrency = 256;
  t.workload.trace_speed = 2;
  l = t.load_shape();
  ASSERT_TRUE(std::holds_alternative<TraceReplay>(l.shape));
  EXPECT_TRUE(l.open_loop());  // paced by its timestamps
  EXPECT_EQ(l.arrivals(), "trace");

  RunConfig s;
  s.workload.turns = 3;
  s.load.concurrency = 16;
  s.workload.think_time_ms = 200;
  l = s.load_shape();
  ASSERT_TRUE(std::holds_alternative<Sessions>(l.shape));
  EXPECT_EQ(std::get<Sessions>(l.shape).active, 16);
  EXPECT_EQ(std::get<Sessions>(l.shape).turns, 3);
  EXPECT_EQ(l.arrivals(), "sessions");

  RunConfig d;  // the ramp and the duration are properties of any shape
  d.load.concurrency = 4;
  d.load.ramp_up_s = 10;
  d.load.duration_s = 60;
  d.load.grace_s = 5;
  l = d.load_shape();
  EXPECT_EQ(l.ramp.seconds, 10);
  EXPECT_EQ(l.grace_s, 5);
  EXPECT_EQ(l.text(true),
            "concurrency 4  ramp-up 10 s  duration 60 s (grace 5 s)  connections warmed");
  d.load.duration_s = 0;
  EXPECT_EQ(d.load_shape().grace_s, 0);  // no duration: nothing to grace
}

// No --concurrency: a schedule (a rate, inf, a trace) is not capped by the client but for a stated
// safety ceiling; where the client sets the pace (closed loop, sessions, pressure, the controller)
// one at a time; a given --concurrency caps every shape.
TEST(LoadShape, WithoutConcurrencyAnOpenLoopIsNotCapped) {
  RunConfig c;
  EXPECT_EQ(c.load_shape().max_in_flight(), 1);
  EXPECT_EQ(c.load_shape().text(false), "concurrency 1");
  c.load.request_rate = 20;
  LoadShape l = c.load_shape();
  EXPECT_EQ(l.max_in_flight(), kOpenLoopCeiling);
  EXPECT_FALSE(std::get<OpenLoop>(l.shape).capped);
  EXPECT_EQ(l.text(false),
            "rate 20 req/s (poisson)  in flight: no cap (no --concurrency; safety ceiling 1024)");
  c.load.request_rate = std::numeric_limits<double>::infinity();
  EXPECT_EQ(c.load_shape().max_in_flight(), kOpenLoopCeiling);
  c.load.concurrency = 4;
  EXPECT_EQ(c.load_shape().max_in_flight(), 4);
  EXPECT_EQ(c.load_shape().text(false), "rate inf (all due at once)  concurrency 4");
  RunConfig t;
  t.workload.dataset = {dataset::Source::Trace, "/x.jsonl"};
  EXPECT_EQ(t.load_shape().max_in_flight(), kOpenLoopCeiling);
  RunConfig s;
  s.workload.turns = 2;
  EXPECT_EQ(s.load_shape().max_in_flight(), 1);
  RunConfig p;
  p.load.pressure = true;
  p.load.duration_s = 5;
  EXPECT_EQ(p.load_shape().max_in_flight(), 1);
  // --bursts: an open loop's property, said in its line; refused where there is no paced rate.
  RunConfig b;
  b.load.request_rate = 20;
  b.load.concurrency = 8;
  b.load.burst_on_s = 5;
  b.load.burst_off_s = 10;
  EXPECT_TRUE(validate(b).empty());
  EXPECT_EQ(std::get<OpenLoop>(b.load_shape().shape).burst_off_s, 10);
  EXPECT_EQ(b.load_shape().paced_rate(), 20);                     // the manifest's rate: while on
  EXPECT_NEAR(b.load_shape().mean_rate(), 20.0 * 5 / 15, 1e-12);  // the progress line's ETA
  EXPECT_EQ(b.load_shape().text(false),
            "rate 20 req/s (poisson)  bursts 5 s on, 10 s off  concurrency 8");
  for (auto edit : std::vector<std::function<void(RunConfig&)>>{
           [](RunConfig& x) { x.load.request_rate = 0; },
           [](RunConfig& x) { x.load.request_rate = std::numeric_limits<double>::infinity(); },
           [](RunConfig& x) { x.load.ramp_up_s = 3; },
           [](RunConfig& x) { x.load.burst_on_s = 0; }}) {
    RunConfig x = b;
    edit(x);
    std::string all;
    for (const auto& e : validate(x)) all += e + "\n";
    EXPECT_NE(all.find("--bursts"), std::string::npos) << all;
  }
  // A rate with no --concurrency validates; a negative one does not.
  RunConfig open;
  open.load.request_rate = 20;
  EXPECT_TRUE(validate(open).empty());
  RunConfig bad;
  bad.load.concurrency = -2;
  EXPECT_FALSE(validate(bad).empty());
}

TEST(ParsedFlags, SmallLanguagesAreParsedOnceIntoTypedValues) {
  RunConfig c;
  c.experiment.search = SearchAxis::MaxConcurrency;
  c.experiment.slo = "ttft.p99<=500ms,tpot.p90<=50ms";
  c.experiment.goodput = "ttft:500 e2el:20000";
  c.observe.profile_window = "10:5";
  c.workload.image = "64x32";
  const RunPlan p = make_plan(c, nullptr);
  ASSERT_EQ(p.parsed.slos.size(), 2u);
  EXPECT_EQ(p.parsed.slos[0].text(), "ttft.p99<=500ms");
  EXPECT_EQ(p.parsed.slos[1].bound_ms, 50);
  EXPECT_EQ(p.parsed.goodput.ttft_ms, 500);
  EXPECT_EQ(p.parsed.goodput.e2el_ms, 20000);
  EXPECT_FALSE(p.parsed.goodput.tpot_ms);
  ASSERT_TRUE(p.parsed.profile_window);
  EXPECT_EQ(p.parsed.profile_window->start_s, 10);
  EXPECT_EQ(p.parsed.profile_window->duration_s, 5);
  EXPECT_EQ(p.parsed.profile_window->text(), "10:5");
  ASSERT_TRUE(p.parsed.image);
  EXPECT_EQ(*p.parsed.image, (std::pair<int, int>{64, 32}));
  const RunPlan plain = make_plan(RunConfig{}, nullptr);
  EXPECT_TRUE(plain.parsed.slos.empty());
  EXPECT_TRUE(plain.parsed.goodput.empty());
  EXPECT_FALSE(plain.parsed.profile_window);
  EXPECT_FALSE(plain.parsed.image);
}

TEST(ParsedFlags, EveryBadOneIsNamedAtOnce) {
  RunConfig c;
  c.experiment.search = SearchAxis::MaxConcurrency;
  c.experiment.slo = "ttft.p99<500";
  c.experiment.goodput = "ttft=5";
  c.observe.profile_window = "10";
  c.workload.image = "64by32";
  std::string all;
  for (const auto& e : validate(c)) all += e + "\n";
  for (const char* flag :
       {"--slo", "--goodput", "--profile-window: bad value '10' (expected START_S:DURATION_S",
        "--image"})
    EXPECT_NE(all.find(flag), std::string::npos) << flag << "\n" << all;
  EXPECT_THROW(make_plan(c, nullptr), std::invalid_argument);
}

// A sweep emits one spec per point; at_point is the point — the same config as the lists'
// point, with its load decided once (an open loop's cap from the plan's --concurrency).
TEST(PointSpec, ASweepEmitsItsPointsAndEachPointDecidesItsLoadOnce) {
  RunConfig c;
  c.load.request_rate_sweep = {2, std::numeric_limits<double>::infinity()};
  c.load.concurrency = 8;
  c.load.num_prompts_sweep = {10, 40};
  c.load.seed = 7;
  const RunPlan plan = make_plan(c, nullptr);
  EXPECT_EQ(plan.cfg.load.num_prompts, 40);  // the largest point's prompts are built
  const std::vector<PointSpec> specs = sweep_specs(plan);
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].label, "r2-n10");
  EXPECT_EQ(specs[1].label, "rinf-n40");
  for (size_t i = 0; i < specs.size(); ++i) {
    const RunPlan p = at_point(plan, specs[i]);
    EXPECT_EQ(p.cfg.to_json(), plan.cfg.sweep_point(i).to_json()) << i;
    EXPECT_EQ(p.requested.to_json(), plan.requested.sweep_point(i).to_json()) << i;
    EXPECT_TRUE(p.load.open_loop());
    EXPECT_EQ(p.load.max_in_flight(), 8);
    EXPECT_EQ(p.load.arrivals(), i == 0 ? "poisson" : "all-at-once");
  }
  // A search's probe or a repeat: the plan's point with one value moved.
  RunConfig closed;
  closed.experiment.repeats = 3;
  const RunPlan base = make_plan(closed, nullptr);
  PointSpec probe = spec_of(base, "c16");
  EXPECT_EQ(probe.num_prompts, 0);  // as asked: none
  probe.concurrency = 16;
  const RunPlan at16 = at_point(base, probe);
  EXPECT_EQ(at16.load.max_in_flight(), 16);
  EXPECT_EQ(at16.cfg.load.num_prompts, base.cfg.load.num_prompts);  // the count the plan settled
  EXPECT_EQ(at16.requested.load.concurrency, 16);
}

}  // namespace
}  // namespace tokbench::runner
