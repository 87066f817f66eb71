# Regenerates version.hpp on every build (configure_file only rewrites it when it changes), so
# the git hash and dirty flag in every report are those of the source actually built.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE TOKBENCH_GIT_HASH OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE TOKBENCH_GIT_STATUS OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT TOKBENCH_GIT_HASH)
  set(TOKBENCH_GIT_HASH "unknown")
endif()
if(TOKBENCH_GIT_STATUS)
  set(TOKBENCH_GIT_DIRTY true)
else()
  set(TOKBENCH_GIT_DIRTY false)
endif()
configure_file(${SRC}/src/common/version.hpp.in ${DST} @ONLY)
