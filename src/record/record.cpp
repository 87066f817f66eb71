#include "record/record.hpp"

#include <array>
#include <utility>

namespace tokbench::record {

namespace {
constexpr std::array<std::pair<Outcome, std::string_view>, 9> kOutcomeNames{{
    {Outcome::Ok, "ok"},
    {Outcome::ConnectError, "connect_error"},
    {Outcome::Timeout, "timeout"},
    {Outcome::HttpStatus, "http_status"},
    {Outcome::StreamProtocol, "stream_protocol"},
    {Outcome::Cancelled, "cancelled"},
    {Outcome::TooLarge, "too_large"},
    {Outcome::Cut, "cut_at_end"},
    {Outcome::ClientCancelled, "client_cancelled"},
}};
}  // namespace

std::string_view outcome_name(Outcome o) {
  for (const auto& [value, name] : kOutcomeNames)
    if (value == o) return name;
  return "unknown";
}

std::optional<Outcome> outcome_from_name(std::string_view name) {
  for (const auto& [value, n] : kOutcomeNames)
    if (n == name) return value;
  return std::nullopt;
}

std::string_view not_checked_name(NotChecked n) {
  switch (n) {
    case NotChecked::RegexLimit:
      return "regex limit";
    case NotChecked::Backlog:
      return "backlog";
    case NotChecked::No:
      break;
  }
  return "";
}

}  // namespace tokbench::record
