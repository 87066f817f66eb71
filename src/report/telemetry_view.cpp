#include "report/telemetry_view.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <tuple>

#include "common/format.hpp"
#include "common/json_fields.hpp"
#include "common/json_writer.hpp"
#include "common/samples.hpp"

namespace tokbench::report {

namespace {

constexpr size_t kMaxLine = 1 << 20;  // a longer line is not telemetry.jsonl's (skipped, said)
// Devices tracked over every source: each series of each may spill to a temporary file in a long
// run (common/samples), so a federated exporter listing thousands is cut here, and said.
constexpr size_t kMaxDevices = 256;
// Energy is known only where no two samples across the phase are further apart than this many
// scrape intervals (one late answer and one lost are tolerated, not a longer silence).
constexpr int64_t kMaxGapIntervals = 3;

struct Bin {
  double power = 0, util = 0;
  int64_t power_n = 0, util_n = 0;
};

// One slice of one device as the pass meets it.
struct SliceState {
  double power = 0, util = 0;
  int64_t power_n = 0, util_n = 0;
  std::optional<metrics::EnergyMeter> meter;  // made when the first interval reaches the slice
};

// One device as the pass meets it.
struct Tracked {
  std::vector<SliceState> slices;
  // node-exporter's counters at the previous scrape: (t, cpu idle s, cpu total s, rx bytes, tx
  // bytes)
  std::optional<std::tuple<int64_t, double, double, double, double>> host_before;
  DeviceTelemetry out;
  std::unique_ptr<metrics::Samples> phase[kSeriesCount], stable[kSeriesCount];
  std::optional<metrics::EnergyMeter> phase_meter, stable_meter, idle_meter;
  std::optional<metrics::PowerSample> last;
  std::map<int64_t, Bin> bins;
};

double opt_num(simdjson::dom::element e, const char* key, bool& has) {
  double v = 0;
  has = e[key].get(v) == simdjson::SUCCESS;
  return v;
}

std::string str(simdjson::dom::element e, const char* key) { return json::string_or(e, key); }

// A string element as text ("?" when a damaged file has something else there).
std::string text_of(simdjson::dom::element e) {
  std::string_view v;
  return e.get(v) == simdjson::SUCCESS ? std::string(v) : std::string("?");
}

class Reader {
 public:
  Reader(Window phase, std::optional<Window> stable, int64_t t0, int64_t span,
         std::optional<SliceGrid> grid)
      : phase_(phase), stable_(stable), grid_(grid), t0_(t0), span_(span) {}

  void line(simdjson::dom::element e) {
    const std::string kind = str(e, "kind");
    const int64_t source = json::int_or(e, "source", -1);
    if (kind == "start") {
      v_.interval_ms = json::int_or(e, "interval_ms", 0);
      simdjson::dom::array names;
      if (e["sources"].get(names) == simdjson::SUCCESS)
        for (auto n : names) v_.sources.emplace_back().name = text_of(n);
      bin_ns_ = std::max<int64_t>(v_.interval_ms * 1'000'000,
                                  span_ / static_cast<int64_t>(kPageBins) + 1);
    } else if (kind == "idle") {
      v_.idle = Window{json::int_or(e, "start_ns", 0), json::int_or(e, "end_ns", 0)};
      for (auto& [key, d] : tracked_) start_idle(*d);
    } else if (TelemetrySource* s = source_at(source)) {
      const int64_t t = json::int_or(e, "t_ns", 0);
      const double t_s = static_cast<double>(t - t0_) / 1e9;
      if (kind == "source") {
        simdjson::dom::array a;
        if (e["dialects"].get(a) == simdjson::SUCCESS)
          for (auto d : a) s->dialects.push_back(text_of(d));
        if (e["not_recognised"].get(a) == simdjson::SUCCESS)
          for (auto d : a) s->not_recognised.push_back(text_of(d));
        s->not_recognised_total = json::int_or(e, "not_recognised_total", 0);
      } else if (kind == "error") {
        if (s->errors++ == 0) {
          s->first_error = str(e, "error");
          s->first_error_s = t_s;
        }
      } else if (kind == "scrape") {
        ++s->scrapes;
        s->last_answer_s = t_s;
        if (const int64_t dup = json::int_or(e, "duplicated", 0); dup > 0) {
          if (s->duplicated == 0) s->duplicated_example = str(e, "duplicated_example");
          s->duplicated += dup;
        }
        s->devices_dropped =
            std::max(s->devices_dropped, json::int_or(e, "devices_dropped", int64_t{0}));
        simdjson::dom::array devices;
        if (e["devices"].get(devices) == simdjson::SUCCESS)
          for (auto d : devices) reading(source, s->name, t, d);
      }
    }
  }

  TelemetryView finish() {
    for (const auto& key : order_) {
      Tracked& k = *tracked_[key];
      for (size_t i = 0; i < kSeriesCount; ++i) {
        if (k.phase[i]) k.out.series[i] = k.phase[i]->summarize();
        if (k.stable[i]) k.out.stable_series[i] = k.stable[i]->summarize();
      }
      k.out.energy = k.phase_meter->finish();
      if (k.out.energy.resets > 0)
        v_.notes.push_back(fmt::format(
            "{}: its energy counter went back {} time(s) inside the phase (the device or its "
            "exporter restarted): each counted as a restart from 0",
            k.out.device, k.out.energy.resets));
      if (k.stable_meter) k.out.stable_energy = k.stable_meter->finish();
      if (k.idle_meter && v_.idle) {
        const metrics::Energy idle = k.idle_meter->finish();
        if (idle.known)
          k.out.idle_w =
              idle.joules / (static_cast<double>(v_.idle->end_ns - v_.idle->start_ns) / 1e9);
        else
          v_.notes.push_back(fmt::format("{}: no idle power ({})", k.out.device, idle.why));
      }
      PageSeries page{k.out.device, {}};
      for (const auto& [bin, b] : k.bins) {
        auto mean = [](double sum, int64_t n) {
          return n ? std::optional<double>(sum / static_cast<double>(n)) : std::nullopt;
        };
        page.points.emplace_back(
            (static_cast<double>(bin) + 0.5) * static_cast<double>(bin_ns_) / 1e9,
            mean(b.power, b.power_n), mean(b.util, b.util_n));
      }
      if (!page.points.empty()) v_.page.push_back(std::move(page));
      finish_slices(k);
      v_.devices.push_back(std::move(k.out));
    }
    source_notes();
    if (dropped_ > 0)
      v_.notes.push_back(fmt::format(
          "telemetry: {} device reading(s) past {} devices were not read", dropped_, kMaxDevices));
    return std::move(v_);
  }

  void torn(const std::string& why) { v_.notes.push_back("telemetry.jsonl: " + why); }

 private:
  TelemetrySource* source_at(int64_t i) {
    if (i < 0) return nullptr;
    while (v_.sources.size() <= static_cast<size_t>(i) && v_.sources.size() < 64)
      v_.sources.emplace_back().name = "?";
    return static_cast<size_t>(i) < v_.sources.size() ? &v_.sources[static_cast<size_t>(i)]
                                                      : nullptr;
  }

  int64_t max_gap() const {
    return kMaxGapIntervals * std::max<int64_t>(v_.interval_ms, 1) * 1'000'000;
  }

  void start_idle(Tracked& d) {
    d.idle_meter.emplace(v_.idle->start_ns, v_.idle->end_ns, max_gap());
    if (d.last) d.idle_meter->add(*d.last);
  }

  Tracked* device(int64_t source, const std::string& source_name, const std::string& name,
                  const std::string& dialect) {
    const auto key = std::make_pair(source, name);
    if (auto it = tracked_.find(key); it != tracked_.end()) return it->second.get();
    if (tracked_.size() >= kMaxDevices) return nullptr;
    auto d = std::make_unique<Tracked>();
    d->out.source = source_name;
    d->out.device = name;
    d->out.dialect = dialect;
    d->phase_meter.emplace(phase_.start_ns, phase_.end_ns, max_gap());
    if (stable_) d->stable_meter.emplace(stable_->start_ns, stable_->end_ns, max_gap());
    if (v_.idle) start_idle(*d);
    Tracked* p = d.get();
    tracked_.emplace(key, std::move(d));
    order_.push_back(key);
    return p;
  }

  void reading(int64_t source, const std::string& source_name, int64_t t,
               simdjson::dom::element r) {
    Tracked* d = device(source, source_name, str(r, "device"), str(r, "dialect"));
    if (!d) {
      ++dropped_;
      return;
    }
    const bool in_phase = t >= phase_.start_ns && t <= phase_.end_ns;
    const bool in_stable = stable_ && t >= stable_->start_ns && t <= stable_->end_ns;
    metrics::PowerSample ps{t, {}, {}};
    bool has = false;
    std::optional<double> values[kSeriesCount];
    for (size_t i = 0; i < kFirstRateSeries; ++i)
      if (const double v = opt_num(r, kSeries[i].key, has); has) values[i] = v;
    host_rates(*d, t, r, values);
    for (size_t i = 0; i < kSeriesCount; ++i) {
      if (!values[i]) continue;
      const double v = *values[i];
      if (i == 0) ps.power_w = v;
      auto add = [v](std::unique_ptr<metrics::Samples>& s) {
        if (!s) s = std::make_unique<metrics::Samples>();  // 16k samples in memory before a spill
        s->push(v);
      };
      if (in_phase) add(d->phase[i]);
      if (in_stable) add(d->stable[i]);
    }
    if (const double j = opt_num(r, "energy_j", has); has) ps.energy_j = j;
    bool healthy = true;
    if (in_phase && r["healthy"].get(healthy) == simdjson::SUCCESS && !healthy) ++d->out.unhealthy;
    d->phase_meter->add(ps);
    if (d->stable_meter) d->stable_meter->add(ps);
    if (d->idle_meter) d->idle_meter->add(ps);
    slice_sample(*d, ps, r);
    d->last = ps;
    page_bin(*d, t, ps, r);
  }

  // node-exporter: the host's CPU use (1 - idle share of all CPU time) and its traffic, as rates
  // between this scrape and the one before (a counter that went back starts over: no rate).
  void host_rates(Tracked& d, int64_t t, simdjson::dom::element r,
                  std::optional<double> (&values)[kSeriesCount]) {
    bool h1 = false, h2 = false, h3 = false, h4 = false;
    const double idle = opt_num(r, "cpu_idle_s", h1), total = opt_num(r, "cpu_total_s", h2);
    const double rx = opt_num(r, "net_rx_bytes", h3), tx = opt_num(r, "net_tx_bytes", h4);
    if (!h1 && !h2 && !h3 && !h4) return;
    if (d.host_before) {
      const auto [t0, idle0, total0, rx0, tx0] = *d.host_before;
      const double dt = static_cast<double>(t - t0) / 1e9;
      if (h1 && h2 && total > total0 && idle >= idle0)
        values[kFirstRateSeries] = 100 * (1 - (idle - idle0) / (total - total0));
      if (h3 && dt > 0 && rx >= rx0) values[kFirstRateSeries + 1] = (rx - rx0) / dt / 1e6;
      if (h4 && dt > 0 && tx >= tx0) values[kFirstRateSeries + 2] = (tx - tx0) / dt / 1e6;
    }
    d.host_before = std::make_tuple(t, idle, total, rx, tx);
  }

  // --slice-s: the sample's means go to its slice; the interval it ends goes to every slice it
  // crosses (a slice's meter is given the sample before it first, so its edge is covered).
  void slice_sample(Tracked& d, const metrics::PowerSample& ps, simdjson::dom::element r) {
    if (!grid_ || grid_->width_ns <= 0 || grid_->count <= 0) return;
    if (d.slices.empty()) {
      if (++slice_devices_ > kMaxSliceDevices) return;
      d.slices.resize(static_cast<size_t>(grid_->count));
    }
    auto index = [&](int64_t t) {
      return (t - grid_->t0_ns) >= 0 ? (t - grid_->t0_ns) / grid_->width_ns : -1;
    };
    const int64_t k = index(ps.t_ns);
    if (k >= 0 && k < grid_->count) {
      SliceState& s = d.slices[static_cast<size_t>(k)];
      if (ps.power_w) s.power += *ps.power_w, ++s.power_n;
      bool has = false;
      if (const double u = opt_num(r, "util_pct", has); has) s.util += u, ++s.util_n;
    }
    const int64_t from = std::max<int64_t>(0, d.last ? index(d.last->t_ns) : k),
                  to = std::min(k, grid_->count - 1);
    for (int64_t j = from; j <= to; ++j) {
      SliceState& s = d.slices[static_cast<size_t>(j)];
      if (!s.meter) {
        const int64_t a = grid_->t0_ns + j * grid_->width_ns;
        s.meter.emplace(a, std::min(a + grid_->width_ns, phase_.end_ns), max_gap());
        if (d.last) s.meter->add(*d.last);
      }
      s.meter->add(ps);
    }
  }

  void finish_slices(Tracked& k) {
    for (size_t j = 0; j < k.slices.size(); ++j) {
      const SliceState& s = k.slices[j];
      DeviceSlice out;
      out.start_s = static_cast<double>(j) * static_cast<double>(grid_->width_ns) / 1e9;
      out.end_s = out.start_s + static_cast<double>(grid_->width_ns) / 1e9;
      if (s.power_n) out.power_w = s.power / static_cast<double>(s.power_n);
      if (s.util_n) out.util_pct = s.util / static_cast<double>(s.util_n);
      out.samples = std::max(s.power_n, s.util_n);
      if (s.meter)
        out.energy = s.meter->finish();
      else
        out.energy.why = "no sample reached this slice";
      k.out.slices.push_back(std::move(out));
    }
  }

  void page_bin(Tracked& d, int64_t t, const metrics::PowerSample& ps, simdjson::dom::element r) {
    if (bin_ns_ <= 0) return;
    const int64_t rel = t - t0_;
    const int64_t bin = rel >= 0 ? rel / bin_ns_ : -((-rel + bin_ns_ - 1) / bin_ns_);
    const int64_t lim = static_cast<int64_t>(kPageBins);
    if (bin < -lim / 10 || bin > lim + lim / 10) return;  // bounded whatever the clock says
    Bin& b = d.bins[bin];
    if (ps.power_w) {
      b.power += *ps.power_w;
      ++b.power_n;
    }
    bool has = false;
    if (const double u = opt_num(r, "util_pct", has); has) {
      b.util += u;
      ++b.util_n;
    }
  }

  void source_notes() {
    const double phase_end_s = static_cast<double>(phase_.end_ns - t0_) / 1e9;
    for (const auto& s : v_.sources) {
      if (s.scrapes == 0) {  // unreachable, or it answered what could not be read
        v_.notes.push_back(
            s.errors > 0
                ? fmt::format("telemetry {}: no scrape of it could be read ({} attempt(s); the "
                              "first: {})",
                              s.name, s.errors, s.first_error)
                : fmt::format("telemetry {} was never scraped", s.name));
        continue;
      }
      if (s.duplicated > 0)
        v_.notes.push_back(fmt::format(
            "telemetry {} gave a series twice for one device in a scrape ({} time(s), the first "
            "{}): the last value was kept; check the exporter's configuration",
            s.name, s.duplicated, s.duplicated_example));
      if (s.devices_dropped > 0)
        v_.notes.push_back(fmt::format(
            "telemetry {} lists more devices than are read: up to {} reading(s) a scrape were "
            "not read (\"devices_dropped\" in telemetry.jsonl); point --telemetry at an exporter "
            "of this server's devices",
            s.name, s.devices_dropped));
      if (s.dialects.empty())
        v_.notes.push_back(fmt::format(
            "telemetry {}: no metric name it serves is known (not recognised: {} families); "
            "nothing read from it",
            s.name, s.not_recognised_total));
      if (s.last_answer_s < phase_end_s)
        v_.notes.push_back(fmt::format(
            "telemetry {} stopped answering {:.1f} s into the run (the phase ended at {:.1f} s)",
            s.name, s.last_answer_s, phase_end_s));
      if (s.errors > 0)
        v_.notes.push_back(fmt::format(
            "telemetry {}: {} of {} scrapes failed, the first {:.1f} s into the run: {}", s.name,
            s.errors, s.errors + s.scrapes, s.first_error_s, s.first_error));
    }
  }

  Window phase_;
  std::optional<Window> stable_;
  std::optional<SliceGrid> grid_;
  size_t slice_devices_ = 0;
  int64_t t0_, span_, bin_ns_ = 0;
  TelemetryView v_;
  std::map<std::pair<int64_t, std::string>, std::unique_ptr<Tracked>> tracked_;
  std::vector<std::pair<int64_t, std::string>> order_;  // first-seen order
  int64_t dropped_ = 0;
};

}  // namespace

std::optional<TelemetryView> read_telemetry_view(const std::filesystem::path& file, Window phase,
                                                 std::optional<Window> stable, int64_t t0_ns,
                                                 int64_t span_ns, std::optional<SliceGrid> slices) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  Reader reader(phase, stable, t0_ns, span_ns, slices);
  simdjson::dom::parser parser;
  std::string line;
  int64_t bad = 0;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    if (line.size() > kMaxLine) {
      ++bad;
      continue;
    }
    simdjson::dom::element e;
    if (parser.parse(line).get(e) != simdjson::SUCCESS || !e.is_object()) {
      ++bad;  // a torn last line (killed mid-write) or damage: the rest still counts
      continue;
    }
    reader.line(e);
  }
  if (bad > 0)
    reader.torn(fmt::format(
        "{} line(s) could not be read (a torn last line after a kill, or damage)", bad));
  return reader.finish();
}

}  // namespace tokbench::report
