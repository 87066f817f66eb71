// common/choice: one table of spellings per fixed-word flag — parsing, names and the listings
// --help and errors show all come from it.
#include "common/choice.hpp"

#include <gtest/gtest.h>

#include "client/engine.hpp"
#include "metrics/metrics.hpp"
#include "settings/settings.hpp"

namespace tokbench {
namespace {

enum class Color { Red, Green, Blue };
constexpr Choices<Color, 3> kColors{
    {{{Color::Red, "red"}, {Color::Green, "green"}, {Color::Blue, "blue"}}}};

TEST(Choice, ParsesNamesAndListsFromOneTable) {
  EXPECT_EQ(kColors.parse("green"), Color::Green);
  EXPECT_EQ(kColors.parse("Green"), std::nullopt);  // spellings are exact
  EXPECT_EQ(kColors.parse(""), std::nullopt);
  EXPECT_EQ(kColors.name(Color::Blue), "blue");
  EXPECT_EQ(kColors.bars(), "red | green | blue");
  EXPECT_EQ(kColors.alternatives(), "red, green or blue");
  constexpr Choices<Color, 1> one{{{{Color::Red, "red"}}}};
  EXPECT_EQ(one.alternatives(), "red");
}

// Every table of the run's settings reads back each of its own names, and names each value once.
template <class E, size_t N>
void round_trips(const Choices<E, N>& table) {
  for (const auto& c : table.items) {
    EXPECT_EQ(table.parse(c.name), c.value) << c.name;
    EXPECT_EQ(table.name(c.value), c.name);
  }
}

TEST(Choice, EveryRunTableRoundTrips) {
  round_trips(metrics::kDefinitionChoices);
  round_trips(client::kTransportChoices);
  round_trips(load::ArrivalShape::kKinds);
  round_trips(runner::kToggles);
  round_trips(runner::kRampCurves);
  round_trips(runner::kSearchAxes);
  round_trips(dataset::kSources);
  EXPECT_EQ(runner::kSearchAxes.name(runner::SearchAxis::None),
            "");  // no search: not a word the flag takes
  EXPECT_EQ(client::kTransportChoices.alternatives(), "auto, sockets or libcurl");
  EXPECT_EQ(metrics::kDefinitionChoices.bars(), "tokbench | aisbench | evalscope | vllm | sglang");
}

}  // namespace
}  // namespace tokbench
