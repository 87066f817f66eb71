#include "mock/prefill.hpp"

#include <algorithm>
#include <vector>

#include "tokenizer/tokenizer.hpp"

namespace tokbench::mock {

double prefill_ms(const PrefillInputs& in, StepModel& model, int64_t& cached) {
  const CompletionRequest& cr = in.cr;
  double ms = model.ttft_ms();
  if (in.cache) {
    int64_t hit = 0;
    if (in.tok) {
      const std::vector<int32_t> ids = in.tok->encode(cr.rendered, !in.chat);
      hit = in.cache->lookup_and_insert(ids.size(),
                                        [&](size_t k) { return static_cast<uint64_t>(ids[k]); });
    } else {
      hit = in.cache->lookup_and_insert(text_units(cr.rendered),
                                        [&](size_t k) { return text_unit(cr.rendered, k); });
    }
    cached = std::min<int64_t>(hit, cr.prompt_tokens);
    if (cr.prompt_tokens > 0)
      ms *= static_cast<double>(std::max<int64_t>(1, cr.prompt_tokens - cached)) /
            static_cast<double>(cr.prompt_tokens);
  }
  ms += static_cast<double>(cr.images) * in.s.image_prefill_ms;
  if (!cr.json_schema.empty()) ms += in.s.schema_ttft_ms;  // the grammar compiled
  if (in.stall) ms += in.s.fault_stall_ms;
  return ms;
}

}  // namespace tokbench::mock
