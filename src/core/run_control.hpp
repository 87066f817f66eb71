#pragma once
// core/run_control: small nouns every layer of a run names — how requests reach the server (the
// --transport choice, TLS), an open loop's arrival process (--arrivals) and the stop levels Ctrl-C
// raises — kept here so the settings, the plan and the series name them without including the
// client, net/ or load/ that act on them.
#include <string>

#include "common/choice.hpp"

namespace tokbench::core {

/// How requests reach the server: HTTP/1.1 on plain sockets (net/http1; the least CPU per
/// event), libcurl (TLS, proxies, anything), or the first when the URL allows it.
enum class TransportKind { Auto, Sockets, Curl };
inline constexpr Choices<TransportKind, 3> kTransportChoices{{{{TransportKind::Auto, "auto"},
                                                               {TransportKind::Sockets, "sockets"},
                                                               {TransportKind::Curl, "libcurl"}}}};

/// TLS for https:// targets (--ca-bundle, --cert, --key, --insecure).
struct TlsSettings {
  std::string ca_bundle;  ///< PEM file of CAs to trust ("" = the system's)
  std::string cert, key;  ///< client certificate and key, PEM ("" = none)
  bool insecure = false;  ///< skip peer and host verification
};

/// An open loop's arrival process (load/source's ArrivalShape, docs/METRICS.md "Load shapes").
enum class ArrivalKind { Poisson, Gamma, Constant };
inline constexpr Choices<ArrivalKind, 3> kArrivalKinds{{{{ArrivalKind::Poisson, "poisson"},
                                                         {ArrivalKind::Gamma, "gamma"},
                                                         {ArrivalKind::Constant, "constant"}}}};

/// Stop levels, written by a signal handler and read by the workers.
enum StopLevel : int { kRunning = 0, kDrain = 1, kCancelNow = 2 };

}  // namespace tokbench::core
