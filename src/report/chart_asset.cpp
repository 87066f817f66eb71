// report/chart_asset: the HTML report's chart library (ECharts, from web/node_modules, pinned by
// web/package-lock.json), embedded in the binary at build time so reports work offline and
// running tokbench never needs Node or a CDN.
#include "report/chart_asset.hpp"

#define TOKBENCH_STR2(x) #x
#define TOKBENCH_STR(x) TOKBENCH_STR2(x)

asm(".section .rodata\n"
    ".global tokbench_echarts_begin\n"
    "tokbench_echarts_begin:\n"
    ".incbin \"" TOKBENCH_STR(TOKBENCH_ECHARTS_JS) "\"\n"
    ".global tokbench_echarts_end\n"
    "tokbench_echarts_end:\n"
    ".previous\n");

extern "C" const char tokbench_echarts_begin[];
extern "C" const char tokbench_echarts_end[];

namespace tokbench::report {

std::string_view chart_library() {
  return {tokbench_echarts_begin, static_cast<size_t>(tokbench_echarts_end - tokbench_echarts_begin)};
}

}  // namespace tokbench::report
