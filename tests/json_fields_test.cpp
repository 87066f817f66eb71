// common/json_fields: the one reader of JSON fields — lenient (absent, null or another type keeps
// the default: old folders still read) and strict (absent or null is "none", another type is an
// error naming the field) — and the field tables that write and read a struct.
#include "common/json_fields.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tokbench::json {
namespace {

const char* kDoc =
    R"({"i":7,"big":18446744073709551615,"d":2.5,"s":"x","b":true,"n":null,"l":[1,2.5,"no"],"w":"7"})";

TEST(JsonFields, LenientReadersKeepTheDefaultOnAnythingElse) {
  simdjson::dom::parser parser;
  const simdjson::dom::element o = parser.parse(std::string(kDoc)).value();
  EXPECT_EQ(int_or(o, "i", 0), 7);
  EXPECT_EQ(int_or(o, "w", -1), -1);  // a string is not an integer
  EXPECT_EQ(number_or(o, "i", 0), 7.0);
  EXPECT_EQ(number_or(o, "n", 3), 3.0);
  EXPECT_EQ(string_or(o, "absent", "dflt"), "dflt");
  EXPECT_EQ(numbers_or_empty(o, "l"),
            (std::vector<double>{1, 2.5}));  // the string element is skipped
  EXPECT_EQ(optional_number(o, "n"), std::nullopt);
  EXPECT_EQ(optional_int(o, "i"), 7);
}

TEST(JsonFields, StrictReadersNameTheFieldOfTheWrongType) {
  simdjson::dom::parser parser;
  const simdjson::dom::element o = parser.parse(std::string(kDoc)).value();
  EXPECT_EQ(strict_int(o, "i"), 7);
  EXPECT_EQ(strict_int(o, "n"), std::nullopt);
  EXPECT_EQ(strict_int(o, "absent"), std::nullopt);
  EXPECT_EQ(strict_number(o, "big"), 18446744073709551615.0);
  EXPECT_EQ(strict_string(o, "s"), "x");
  EXPECT_EQ(strict_bool(o, "b"), true);
  auto message = [&](auto read, const char* k) {
    try {
      read(o, k);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message(strict_int, "w"), "\"w\" must be an integer");
  EXPECT_EQ(message(strict_number, "s"), "\"s\" must be a number");
  EXPECT_EQ(message(strict_string, "i"), "\"i\" must be a string");
  EXPECT_EQ(message(strict_bool, "s"), "\"s\" must be true or false");
  EXPECT_THROW(number_of(o["s"].value()), std::runtime_error);
}

struct Part {
  int64_t count = 0;
  uint64_t seed = 0;
  std::optional<int64_t> held;
  std::vector<std::string> names;
  std::string text = "default";
};

constexpr std::array<Field<Part>, 5> kPartFields{{{"count", &Part::count},
                                                  {"seed", &Part::seed},
                                                  {"held", &Part::held},
                                                  {"names", &Part::names},
                                                  {"text", &Part::text}}};

TEST(JsonFields, ATableWritesAndReadsItsStructBack) {
  const Part p{3, 18446744073709551615ull, std::nullopt, {"a", "b"}, "t"};
  JsonWriter w;
  write_object<Part>(w, p, kPartFields);
  const std::string text = w.take();
  EXPECT_EQ(text,
            R"({"count":3,"seed":18446744073709551615,"held":null,"names":["a","b"],"text":"t"})");
  simdjson::dom::parser parser;
  Part back;
  back.held = 9;
  read_fields<Part>(parser.parse(text).value(), back, kPartFields);
  EXPECT_EQ(back.count, 3);
  EXPECT_EQ(back.seed, p.seed);
  EXPECT_EQ(back.held, std::nullopt);
  EXPECT_EQ(back.names, p.names);
  Part old;  // a field that did not exist then keeps its default
  read_fields<Part>(parser.parse(std::string(R"({"count":1})")).value(), old, kPartFields);
  EXPECT_EQ(old.count, 1);
  EXPECT_EQ(old.text, "default");
}

}  // namespace
}  // namespace tokbench::json
