#pragma once
// common/choice: a flag whose value is one word from a fixed set (--compat, --transport,
// --arrivals, ...) is an enum with one table of its spellings. The table is the only place a
// spelling is written: the CLI parses with it, --help and the errors list it, JSON writes it.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tokbench {

template <class E>
struct Choice {
  E value;
  std::string_view name;
};

template <class E, size_t N>
struct Choices {
  std::array<Choice<E>, N> items;

  std::optional<E> parse(std::string_view name) const {
    for (const auto& c : items)
      if (c.name == name) return c.value;
    return std::nullopt;
  }
  std::string_view name(E value) const {
    for (const auto& c : items)
      if (c.value == value) return c.name;
    return {};
  }
  /// "a | b | c", for --help.
  std::string bars() const { return join(" | ", " | "); }
  /// "a, b or c", for errors.
  std::string alternatives() const { return join(", ", " or "); }

 private:
  std::string join(std::string_view sep, std::string_view last) const {
    std::string out;
    for (size_t i = 0; i < N; ++i) {
      if (i > 0) out += i + 1 == N ? last : sep;
      out += items[i].name;
    }
    return out;
  }
};

}  // namespace tokbench
