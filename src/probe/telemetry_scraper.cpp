#include "probe/telemetry_scraper.hpp"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "common/clock.hpp"
#include "common/json_writer.hpp"
#include "common/redact.hpp"
#include "probe/nvml.hpp"
#include "record/record_io.hpp"

namespace tokbench::probe {

namespace {

class PrometheusReader : public TelemetryReader {
 public:
  PrometheusReader(std::string url, size_t max_bytes, net::TlsSettings tls)
      : url_(std::move(url)), max_bytes_(max_bytes), tls_(std::move(tls)) {}
  std::string name() const override { return redact_url(url_); }
  TelemetryScrape read() override {
    // A slow exporter must not stall the clock for long: 2 s, and the next tick tries again.
    const auto res = net::http_get(url_, {}, "", 2000, max_bytes_, tls_);
    if (!res.reached) throw std::runtime_error(res.error);
    if (res.status != 200) throw std::runtime_error(fmt::format("HTTP {}", res.status));
    return read_telemetry(parse_text(res.body));
  }

 private:
  std::string url_;
  size_t max_bytes_;
  net::TlsSettings tls_;
};

void optional_field(JsonWriter& w, const char* key, const std::optional<double>& v) {
  if (v) w.field(key, *v);
}

std::string scrape_line(size_t source, int64_t t_ns, const TelemetryScrape& s) {
  JsonWriter w;
  w.begin_object()
      .field("kind", "scrape")
      .field("source", static_cast<int64_t>(source))
      .field("t_ns", t_ns);
  w.key("devices").begin_array();
  for (size_t i = 0; i < s.devices.size() && i < kMaxDevicesPerScrape; ++i) {
    const DeviceReading& d = s.devices[i];
    w.begin_object().field("device", d.device).field("dialect", dialect_name(d.dialect));
    optional_field(w, "power_w", d.power_w);
    optional_field(w, "energy_j", d.energy_j);
    optional_field(w, "util_pct", d.util_pct);
    optional_field(w, "mem_used_mib", d.mem_used_mib);
    optional_field(w, "mem_total_mib", d.mem_total_mib);
    optional_field(w, "temperature_c", d.temperature_c);
    optional_field(w, "sm_clock_mhz", d.sm_clock_mhz);
    optional_field(w, "gr_engine_active_pct", d.gr_engine_active_pct);
    optional_field(w, "sm_active_pct", d.sm_active_pct);
    optional_field(w, "tensor_active_pct", d.tensor_active_pct);
    optional_field(w, "dram_active_pct", d.dram_active_pct);
    optional_field(w, "cpu_idle_s", d.cpu_idle_s);
    optional_field(w, "cpu_total_s", d.cpu_total_s);
    optional_field(w, "net_rx_bytes", d.net_rx_bytes);
    optional_field(w, "net_tx_bytes", d.net_tx_bytes);
    if (d.healthy) w.field("healthy", *d.healthy);
    w.end_object();
  }
  w.end_array();
  if (s.devices.size() > kMaxDevicesPerScrape || s.devices_past_cap > 0)
    w.field(
        "devices_dropped",
        static_cast<int64_t>(s.devices.size() - std::min(s.devices.size(), kMaxDevicesPerScrape)) +
            s.devices_past_cap);
  if (s.duplicated > 0)
    w.field("duplicated", s.duplicated).field("duplicated_example", s.duplicated_example);
  return w.end_object().take();
}

std::string source_line(size_t source, const std::string& name, const TelemetryScrape& s) {
  JsonWriter w;
  w.begin_object()
      .field("kind", "source")
      .field("source", static_cast<int64_t>(source))
      .field("name", name);
  w.key("dialects").begin_array();
  for (ExporterDialect d : s.dialects) w.value(dialect_name(d));
  w.end_array().key("not_recognised").begin_array();
  for (size_t i = 0; i < s.not_recognised.size() && i < kMaxNotRecognised; ++i)
    w.value(s.not_recognised[i]);
  w.end_array().field("not_recognised_total", static_cast<int64_t>(s.not_recognised.size()));
  return w.end_object().take();
}

}  // namespace

std::unique_ptr<TelemetryReader> prometheus_reader(std::string url, size_t max_bytes,
                                                   net::TlsSettings tls) {
  return std::make_unique<PrometheusReader>(std::move(url), max_bytes, std::move(tls));
}

std::vector<std::unique_ptr<TelemetryReader>> telemetry_readers(
    const std::vector<std::string>& sources, size_t max_bytes, const net::TlsSettings& tls) {
  std::vector<std::unique_ptr<TelemetryReader>> out;
  for (const auto& s : sources) {
    if (s == "nvml")
      out.push_back(nvml_reader());
    else
      out.push_back(prometheus_reader(s, max_bytes, tls));
  }
  return out;
}

TelemetryScraper::TelemetryScraper(std::vector<std::unique_ptr<TelemetryReader>> readers,
                                   int64_t interval_ms, int64_t origin_ns,
                                   const std::filesystem::path& file)
    : interval_ms_(interval_ms),
      origin_ns_(origin_ns),
      out_(std::make_unique<record::LineAppender>(file.string())) {
  JsonWriter w;
  w.begin_object()
      .field("kind", "start")
      .field("interval_ms", interval_ms_)
      .key("sources")
      .begin_array();
  for (auto& r : readers) {
    w.value(r->name());
    sources_.push_back(std::make_unique<Source>());
    sources_.back()->reader = std::move(r);
  }
  w.end_array().end_object();
  out_->append(w.str());
}

TelemetryScraper::~TelemetryScraper() {
  stop_ = true;
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

void TelemetryScraper::write(const std::string& line) {
  if (write_failed_) return;
  try {
    out_->append(line);  // whole lines, whichever thread writes
  } catch (const std::exception&) {
    write_failed_ = true;  // a full disk: the run's own records say so; telemetry just stops
  }
}

std::string TelemetryScraper::scrape(size_t i) {
  Source& src = *sources_[i];
  std::lock_guard lock(src.mu);
  const int64_t asked = steady_now_ns() - origin_ns_;
  try {
    const TelemetryScrape s = src.reader->read();
    // The exporter read its devices somewhere between the ask and the answer: the midpoint is
    // the best time to give the reading (a slow exporter would otherwise shift every sample).
    const int64_t t = asked + (steady_now_ns() - origin_ns_ - asked) / 2;
    if (!src.introduced) {
      write(source_line(i, src.reader->name(), s));
      src.introduced = true;
    }
    write(scrape_line(i, t, s));
    return {};
  } catch (const std::exception& e) {
    JsonWriter w;
    w.begin_object()
        .field("kind", "error")
        .field("source", static_cast<int64_t>(i))
        .field("t_ns", asked);
    write(w.field("error", std::string(e.what())).end_object().take());
    return fmt::format("{}: {}", src.reader->name(), e.what());
  }
}

std::vector<std::string> TelemetryScraper::scrape_now() {
  // Every source at once: a round takes as long as the slowest source (at most its timeout), not
  // their sum.
  std::vector<std::string> said(sources_.size());
  std::vector<std::thread> round;
  for (size_t i = 0; i < sources_.size(); ++i)
    round.emplace_back([this, i, &said] { said[i] = scrape(i); });
  for (auto& t : round) t.join();
  std::vector<std::string> errors;
  for (auto& e : said)
    if (!e.empty()) errors.push_back(std::move(e));
  return errors;
}

void TelemetryScraper::start() {
  for (size_t i = 0; i < sources_.size(); ++i) {
    threads_.emplace_back([this, i] {
      const int64_t interval = interval_ms_ * 1'000'000;
      int64_t next = (steady_now_ns() - origin_ns_) / interval * interval +
                     interval;  // ticks of the run's clock
      while (!stop_) {
        while (!stop_ && steady_now_ns() - origin_ns_ < next)
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        if (stop_) break;
        scrape(i);
        const int64_t now = steady_now_ns() - origin_ns_;
        while (next <= now) next += interval;  // a slow read skips ticks rather than bunching them
      }
    });
  }
}

void TelemetryScraper::stop() {
  stop_ = true;
  if (threads_.empty()) {  // never started: the closing sample all the same
    scrape_now();
    return;
  }
  // Each source's last sample as soon as its own thread is done: a slow source's read in flight
  // must not hold back a prompt one's closing sample (its energy would see a gap at the edge).
  std::vector<std::thread> last;
  for (size_t i = 0; i < threads_.size(); ++i)
    last.emplace_back([this, i] {
      if (threads_[i].joinable()) threads_[i].join();
      scrape(i);
    });
  for (auto& t : last) t.join();
  threads_.clear();
}

void TelemetryScraper::mark_idle(int64_t start_ns, int64_t end_ns) {
  JsonWriter w;
  w.begin_object()
      .field("kind", "idle")
      .field("start_ns", start_ns)
      .field("end_ns", end_ns)
      .end_object();
  write(w.str());
}

}  // namespace tokbench::probe
