#pragma once
// workload/registry: each workload file's one entry point; registry.cpp lists them.
#include "workload/workload.hpp"

namespace tokbench::runner {

const Workload& builtin_workload();      // workloads/files.cpp
const Workload& qa_workload();           // workloads/files.cpp
const Workload& gsm8k_workload();        // workloads/files.cpp
const Workload& lines_workload();        // workloads/files.cpp
const Workload& agent_workload();        // workloads/files.cpp
const Workload& agent_trace_workload();  // workloads/files.cpp
const Workload& synthetic_workload();    // workloads/synthetic.cpp
const Workload& sharegpt_workload();     // workloads/sharegpt.cpp
const Workload& trace_workload();        // workloads/trace.cpp

}  // namespace tokbench::runner
