#include "runfolder/run_folder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <simdjson.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "common/json_fields.hpp"
#include "common/json_writer.hpp"
#include "metrics/slo.hpp"
#include "runfolder/files.hpp"

namespace tokbench::runfolder {

namespace fs = std::filesystem;

namespace {

using json::Field;
using json::raw_or_empty;
using json::raw_or_null;

// Each part of the two files as one table, read and written alike (names as they have been since
// format /1, so older folders read; a field a folder lacks keeps its default).
constexpr std::array<Field<LoadFacts>, 12> kLoadFields{{
    {"arrivals", &LoadFacts::arrivals},
    {"burstiness", &LoadFacts::burstiness},
    {"duration_s", &LoadFacts::duration_s},
    {"grace_s", &LoadFacts::grace_s},
    {"ramp_up_s", &LoadFacts::ramp_up_s},
    {"ramp_up_strategy", &LoadFacts::ramp_up_strategy},
    {"ramp_up_measured", &LoadFacts::ramp_up_measured},
    {"slice_s", &LoadFacts::slice_s},
    {"warm_connections", &LoadFacts::warm_connections},
    {"in_flight_capped", &LoadFacts::in_flight_capped},
    {"cancel_rate", &LoadFacts::cancel_rate},
    {"cancel_after", &LoadFacts::cancel_after},
}};
constexpr std::array<Field<ClassFacts>, 4> kClassFields{{
    {"name", &ClassFacts::name},
    {"weight", &ClassFacts::weight},
    {"slo", &ClassFacts::slo},
    {"load", &ClassFacts::load},
}};
constexpr std::array<Field<TelemetryFacts>, 5> kTelemetryFields{{
    {"interval_ms", &TelemetryFacts::interval_ms},
    {"idle_s", &TelemetryFacts::idle_s},
    {"price_per_device_hour", &TelemetryFacts::price_per_device_hour},
    {"price_per_kwh", &TelemetryFacts::price_per_kwh},
    {"devices", &TelemetryFacts::devices},
}};
constexpr std::array<Field<RunManifest>, 5> kPlanFields{{
    {"requests", &RunManifest::planned_requests},
    {"warmup", &RunManifest::warmup_requests},
    {"definitions", &RunManifest::definitions},
    {"insecure_tls", &RunManifest::insecure_tls},
    {"ranks", &RunManifest::ranks},
}};
constexpr std::array<Field<metrics::RunFacts>, 8> kFactFields{{
    {"concurrency", &metrics::RunFacts::max_concurrency},
    {"stream", &metrics::RunFacts::stream},
    {"one_shot", &metrics::RunFacts::one_shot},
    {"per_token_counts", &metrics::RunFacts::per_token_counts},
    {"continuous_usage", &metrics::RunFacts::continuous_usage},
    {"implied_cache_hit", &metrics::RunFacts::implied_cache_hit},
    {"finish_reasons", &metrics::RunFacts::finish_reasons},
    {"cap_reason", &metrics::RunFacts::cap_reason},
}};
constexpr std::array<Field<RunInfo>, 13> kInfoFields{{
    {"started_at", &RunInfo::started_at},
    {"run_id", &RunInfo::run_id},
    {"target_url", &RunInfo::target_url},
    {"embedded_simulator", &RunInfo::embedded_simulator},
    {"model", &RunInfo::model},
    {"model_abbr", &RunInfo::model_abbr},
    {"dataset", &RunInfo::dataset},
    {"dataset_abbr", &RunInfo::dataset_abbr},
    {"request_body_example", &RunInfo::body_example},
    {"tokenizer", &RunInfo::tokenizer},
    {"origin_steady_ns", &RunInfo::origin_steady_ns},
    {"engine_named", &RunInfo::engine_named},
    {"api", &RunInfo::api},
}};
constexpr std::array<Field<RunEnd>, 3> kEndFields{{
    {"interrupted", &RunEnd::interrupted},
    {"stop_reason", &RunEnd::stop_reason},
    {"records_written", &RunEnd::records_written},
}};

template <class T, size_t N>
void write_part(JsonWriter& w, const T& v, const std::array<Field<T>, N>& fields) {
  json::write_fields<T>(w, v, fields);
}
template <class T, size_t N>
void read_part(simdjson::dom::element o, T& v, const std::array<Field<T>, N>& fields) {
  json::read_fields<T>(o, v, fields);
}

RunManifest manifest_from(simdjson::dom::element root) {
  RunManifest m;
  RunInfo& info = m.info;
  m.requested_json = raw_or_empty(root, "requested");
  info.config_json = raw_or_empty(root, "effective");
  read_part(root, info, kInfoFields);
  info.synthetic = record::read_optional<record::SyntheticFacts>(root, "synthetic");
  info.trace = record::read_optional<record::TraceFacts>(root, "trace");
  simdjson::dom::array audit;
  if (!root["audit"].get_array().get(audit)) {
    for (auto a : audit)
      info.audit.emplace_back(json::string_or(a, "level"), json::string_or(a, "text"));
  }
  simdjson::dom::element plan;
  if (root["plan"].get(plan) || !plan.is_object()) throw std::runtime_error("no \"plan\" object");
  read_part(plan, m, kPlanFields);
  read_part(plan, m.facts, kFactFields);
  // Folders written before the facts were named by what the API does, not by which API it is.
  bool legacy = false;
  if (!plan["embeddings"].get_bool().get(legacy) && legacy) m.facts.one_shot = true;
  if (!plan["native_generate"].get_bool().get(legacy) && legacy) m.facts.per_token_counts = true;
  read_part(plan, m.load, kLoadFields);
  if (simdjson::dom::element t; !plan["telemetry"].get(t) && t.is_object())
    read_part(t, m.telemetry, kTelemetryFields);
  m.request_rate = json::rate_or(plan, "request_rate", 0);
  m.facts.open_loop = m.request_rate > 0;
  if (std::string goodput = json::string_or(plan, "goodput"); !goodput.empty())
    m.facts.goodput = metrics::parse_goodput(goodput);
  info.transport = json::string_or(plan, "transport");
  simdjson::dom::array classes;
  if (!plan["classes"].get_array().get(classes))
    for (auto k : classes) read_part(k, m.classes.emplace_back(), kClassFields);
  m.target_ready = json::bool_or(root, "target_ready", false);
  return m;
}

RunEnd end_from(simdjson::dom::element root) {
  RunEnd e;
  read_part(root, e, kEndFields);
  read_part(root, e.client, record::kClientHealthFields);
  e.server_process = record::read_optional<record::ServerProcessFacts>(root, "server_process");
  e.profile = record::read_optional<record::ProfileFacts>(root, "profile");
  e.adaptive = record::read_optional<record::AdaptiveLog>(root, "adaptive");
  if (const std::string server = raw_or_empty(root, "server_summary"); !server.empty())
    e.server = record::summary_from_json(server);
  simdjson::dom::array ranks;
  if (!root["ranks"].get_array().get(ranks)) {
    for (auto k : ranks) {
      record::RankHealth h;
      read_part(k, h, record::kRankFields);
      read_part(k, h.client, record::kClientHealthFields);
      e.ranks.push_back(h);
    }
  }
  return e;
}

// Parses a JSON file with `from`; any problem names the file and what it should have been.
template <class F>
auto parse_file(const fs::path& path, std::string_view what, F from) {
  try {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (auto err = parser.parse(read_file(path)).get(root))
      throw std::runtime_error(simdjson::error_message(err));
    return from(root);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: not a valid {} ({})", path.string(), what, e.what()));
  }
}

// Room for the end marker, taken when the folder is made: a disk that fills during the run still
// leaves space to say how it ended (end.json), so `report` judges it "stopped", not "killed?".
// A disk without even that room refuses the run before any request is sent: it could not have
// said how it ended. A file-size limit under 1 MiB (EFBIG) is no such case: it bounds each file,
// and end.json is a few KiB, so the run goes on without the reserve.
constexpr const char* kEndReserve = ".end.json.reserve";
constexpr off_t kEndReserveBytes = 1 << 20;

void reserve_end_space(const fs::path& dir) {
  const fs::path path = dir / kEndReserve;
  if (fs::exists(path) || fs::exists(dir / kEndFile)) return;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  const int err = fd < 0 ? errno : ::posix_fallocate(fd, 0, kEndReserveBytes);
  if (fd >= 0) ::close(fd);
  if (err == 0) return;
  std::error_code ec;
  fs::remove(path, ec);
  if (err == ENOSPC || err == EDQUOT)
    throw std::runtime_error(
        fmt::format("cannot reserve 1 MiB in {} for the run's end marker: {} (free space on that "
                    "disk, or give --output-dir on another disk)",
                    dir.string(), std::strerror(err)));
}

}  // namespace

void write_manifest(const fs::path& dir, const RunManifest& m) {
  reserve_end_space(dir);
  const RunInfo& info = m.info;
  JsonWriter w;
  w.begin_object().field("format", "tokbench-run-manifest/1").field("target_ready", m.target_ready);
  raw_or_null(w, "requested", m.requested_json);
  raw_or_null(w, "effective", info.config_json);
  w.key("plan").begin_object();
  write_part(w, m, kPlanFields);
  write_part(w, m.facts, kFactFields);
  write_part(w, m.load, kLoadFields);
  if (m.telemetry.interval_ms > 0 || m.telemetry.price_per_device_hour > 0) {
    w.key("telemetry").begin_object();
    write_part(w, m.telemetry, kTelemetryFields);
    w.end_object();
  }
  if (!m.classes.empty()) {
    w.key("classes").begin_array();
    for (const auto& k : m.classes) {
      w.begin_object();
      write_part(w, k, kClassFields);
      w.end_object();
    }
    w.end_array();
  }
  w.key("request_rate").rate(m.request_rate);
  w.field("goodput", m.facts.goodput.to_string()).field("transport", info.transport).end_object();
  write_part(w, info, kInfoFields);
  record::write_optional(w, "synthetic", info.synthetic);
  record::write_optional(w, "trace", info.trace);
  w.key("audit").begin_array();
  for (const auto& [level, text] : info.audit)
    w.begin_object().field("level", level).field("text", text).end_object();
  w.end_array().end_object();
  write_file(dir / kManifestFile, w.take());
}

void write_end(const fs::path& dir, const RunEnd& e) {
  std::error_code ec;
  fs::remove(dir / kEndReserve, ec);  // its room is the end marker's now
  JsonWriter w;
  w.begin_object().field("format", "tokbench-run-end/1");
  write_part(w, e, kEndFields);
  write_part(w, e.client, record::kClientHealthFields);
  record::write_optional(w, "server_process", e.server_process);
  record::write_optional(w, "profile", e.profile);
  record::write_optional(w, "adaptive", e.adaptive);
  raw_or_null(w, "server_summary", e.server ? record::summary_to_json(*e.server) : std::string());
  if (!e.ranks.empty()) {
    w.key("ranks").begin_array();
    for (const auto& h : e.ranks) {
      w.begin_object();
      write_part(w, h, record::kRankFields);
      write_part(w, h.client, record::kClientHealthFields);
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
  write_file(dir / kEndFile, w.take());
}

void write_rank_lost(const fs::path& dir, const RankLost& lost) {
  JsonWriter w;
  w.begin_object()
      .field("format", "tokbench-rank-lost/1")
      .field("rank", static_cast<int64_t>(lost.rank))
      .field("ranks", static_cast<int64_t>(lost.ranks))
      .field("how", lost.how)
      .field("seen_at", lost.seen_at)
      .field("after_s", lost.after_s)
      .field("collected", lost.collected);
  w.key("kept").begin_object();
  for (const auto& [rank, n] : lost.kept) w.field(std::to_string(rank), n);
  w.end_object().end_object();
  write_file(dir / kRankLostFile, w.take());
}

namespace {
RankLost rank_lost_from(simdjson::dom::element root) {
  RankLost r;
  r.rank = static_cast<int>(json::int_or(root, "rank", -1));
  r.ranks = static_cast<int>(json::int_or(root, "ranks", 0));
  r.how = json::string_or(root, "how");
  r.seen_at = json::string_or(root, "seen_at");
  r.after_s = json::number_or(root, "after_s", 0);
  r.collected = json::bool_or(root, "collected", false);
  simdjson::dom::object kept;
  if (!root["kept"].get(kept))
    for (auto [key, value] : kept) {
      int64_t n = 0;
      if (!value.get(n)) r.kept[std::stoi(std::string(key))] = n;
    }
  return r;
}
}  // namespace

RunFolder load_run_folder(const fs::path& dir) {
  const fs::path manifest_path = dir / kManifestFile;
  if (!fs::exists(manifest_path)) {
    throw std::runtime_error(fmt::format(
        "'{}' is not a tokbench run folder (no {}): pass the folder that `tokbench run` "
        "printed, e.g. outputs/20260101_120000",
        dir.string(), kManifestFile));
  }
  RunFolder f;
  f.dir = dir.has_filename() ? dir : dir.parent_path();  // "runs/x/" is runs/x, named x
  f.manifest = parse_file(manifest_path, "run manifest", manifest_from);
  f.perf_dir = dir / "performances" / f.manifest.info.model_abbr;
  f.details = f.perf_dir / (f.manifest.info.dataset_abbr + "_details.jsonl");
  f.telemetry = f.perf_dir / kTelemetryFile;
  f.server_spans = f.perf_dir / kServerSpansFile;
  if (const fs::path end_path = dir / kEndFile; fs::exists(end_path))
    f.end = parse_file(end_path, "end marker", end_from);
  if (const fs::path lost = dir / kRankLostFile; fs::exists(lost))
    f.rank_lost = parse_file(lost, "lost-rank marker", rank_lost_from);
  return f;
}

}  // namespace tokbench::runfolder
