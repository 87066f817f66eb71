#pragma once
// workload/codec: what the tokenizer-built workloads (synthetic, sharegpt, trace) share —
// the tokenizer they count with (--tokenizer, else the server's /tokenize) and the tokens the
// server adds around a prompt (chat template, BOS), measured once.
#include <memory>
#include <string>
#include <string_view>

#include "dataset/dataset.hpp"
#include "workload/server_tokenizer.hpp"
#include "workload/workload.hpp"

namespace tokbench::runner {

/// The server's /tokenize endpoints for `in` (its model, headers, key and TLS).
ServerTokenizer server_tokenizer(const WorkloadInput& in);

/// The tokenizer a dataset is built with: the local one, else the server's /tokenize; `why` is
/// said when there is neither.
std::unique_ptr<dataset::TokenCodec> make_codec(const ServerTokenizer& st, bool server_has,
                                                const tokenizer::Tokenizer* tok,
                                                std::string_view why);

/// The tokens the server adds around a prompt, measured with /tokenize; 0 when it has none
/// (`how` says which).
int64_t server_added_tokens(const ServerTokenizer& st, bool server_has, dataset::TokenCodec& codec,
                            bool chat, std::string* how);

}  // namespace tokbench::runner
