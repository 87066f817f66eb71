#pragma once
// common/dynamic_library: a library loaded at run time (dlopen) and its functions bound by name to
// typed pointers, for what tokbench uses only sometimes (libcurl, SQLite, NVML): no start-up cost,
// no build dependency, and an error that names the library, the function and the fix.
#include <dlfcn.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace tokbench {

/// Binds `f` to `name` in `lib`; throws "<library> lacks <name> (<needs>)" when it is missing.
template <class F>
void bind_symbol(void* lib, F& f, const char* name, std::string_view library,
                 std::string_view needs) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f)
    throw std::runtime_error(std::string(library) + " lacks " + name + " (" + std::string(needs) +
                             ")");
}

}  // namespace tokbench
