#pragma once
// probe/live_server: --live during a load point — an HTTP server on its own thread that shows the
// point as it runs, from metrics/live_tally (fed by the recorder's thread; nothing here touches
// the client's workers): GET / is a page (web/live.js with the chart library, embedded) that
// redraws every second from GET /live.json (the counts, the histograms, and a timeline sampled
// every second, thinned to stay under kMaxSamples however long the run); GET /metrics is the same
// counts in Prometheus' format for a scraper (probe/live_text). At the point's end it marks
// the state final, and when a scraper has come it waits for one more scrape (at most twice the
// interval it showed and a second, 30 s at most) so the last counts are stored, then stops.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "metrics/live_tally.hpp"
#include "probe/live_text.hpp"

namespace tokbench::probe {

class LiveServer {
 public:
  static constexpr size_t kMaxSamples = 1200;

  /// Listens where `listen` says ("PORT" or "HOST:PORT"); `sent` counts measured requests sent.
  /// Throws std::runtime_error naming --live and the fix when it cannot.
  LiveServer(const std::string& listen, std::shared_ptr<const metrics::LiveTally> tally,
             std::function<int64_t()> sent, PointLabels labels);
  ~LiveServer();
  LiveServer(const LiveServer&) = delete;
  LiveServer& operator=(const LiveServer&) = delete;

  /// The page's address (http://host:port/), for the console line.
  const std::string& url() const { return url_; }
  /// The point is over: the state is final; waits for a scraper's last scrape unless `stopped`
  /// (Ctrl-C), then stops serving. Returns the /metrics scrapes served.
  int64_t finish(bool stopped);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string url_;
};

}  // namespace tokbench::probe
