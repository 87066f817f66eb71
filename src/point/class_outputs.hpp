#pragma once
// point/class_outputs: a run of several --class loads (issue 43), per class. Rides on the first
// pass over the details file: each measured record goes to its class's own metrics pass (the
// run's definitions), so memory stays flat in the run's length. Then each class's SLOs are judged
// on its own figures (a miss is named: "chat: ttft.p99 412.3 ms > 300 ms"), its goodput and
// attainment counted per request against the same bounds, and the fairness of the classes'
// service (metrics/fairness) computed: result.json's "classes" and "fairness", <ds>_classes.csv,
// a console line per class.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "metrics/fairness.hpp"
#include "metrics/metrics.hpp"
#include "runfolder/run_folder.hpp"

namespace tokbench::runner {

/// One class's SLO against its figure.
struct ClassSlo {
  std::string text;             ///< "ttft.p99<=300ms"
  std::optional<double> value;  ///< the class's figure (ms); nullopt: n/a (no such requests)
  bool met = false;
};

struct ClassResult {
  runfolder::ClassFacts facts;
  metrics::MetricSet metrics;
  std::vector<ClassSlo> slos;
  int64_t requests = 0, failed = 0, apart = 0;  ///< measured: done, failed, counted apart
  int64_t good = -1;  ///< successful requests within every bound of its SLOs (-1: no SLO)
};

struct ClassResults {
  std::vector<ClassResult> classes;
  std::optional<metrics::Fairness> fairness;       ///< nullopt: the run had no span to divide by
  std::vector<std::string> missed;                 ///< "chat: ttft.p99 412.3 ms > 300 ms"
  std::vector<std::string> records_without_class;  ///< an odd folder: said, never guessed
  std::string classes_json, fairness_json, csv;
  std::vector<std::string> console_lines;
};

class ClassesPass {
 public:
  /// Nothing to do when `m` has no classes (any() is false).
  ClassesPass(const runfolder::RunManifest& m, metrics::Definitions defs);
  ~ClassesPass();
  bool any() const { return !classes_.empty(); }
  void add(const record::RequestRecord& r);  ///< measured records, in the details' order
  /// `span_s`: the run's measured span (the fairness throughputs' denominator).
  ClassResults finish(double span_s);

 private:
  struct Lane;
  std::vector<runfolder::ClassFacts> classes_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  int64_t unknown_ = 0;
  std::string unknown_example_;
};

}  // namespace tokbench::runner
