# The layers test (ctest layers_enforced): proves that the walls between src/ folders are the
# build's, not a reviewer's. Run as
#   cmake -DLAYERS=<build>/layers -DSRC=<source dir> -DCXX=<compiler> -P tests/layers_check.cmake
# 1. The compiler agrees with the table: for every module M and every other module N, a source of
#    M can find N's headers exactly when the table (CMakeLists.txt, tokbench_module) lets M reach N.
# 2. A forbidden #include really breaks the build: a dataset/ source that includes metrics/ fails
#    to compile with "No such file or directory".
# 3. The table keeps the architecture's rules (docs/ARCHITECTURE.md, "The layers"), so widening a
#    module's dependencies to let a forbidden include through fails here.
# 4. docs/ARCHITECTURE.md draws the same table, and no source escapes its folder by "../".
cmake_minimum_required(VERSION 3.25)
foreach(v LAYERS SRC CXX)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "layers_check: pass -D${v}=...")
  endif()
endforeach()
set(failures 0)
macro(fail)
  message(SEND_ERROR ${ARGN})
  math(EXPR failures "${failures} + 1")
endmacro()

# The table, as the build wrote it.
file(READ ${LAYERS}/table.md table)
string(REGEX MATCHALL "\n\\| [a-z]+ \\|[^\n]*" rows "${table}")
list(TRANSFORM rows STRIP)
list(FILTER rows EXCLUDE REGEX "^\\| module \\|")  # the heading
set(modules "")
foreach(row IN LISTS rows)
  if(NOT row MATCHES "^\\| ([a-z]+) \\| ([a-z ]*) \\| ([a-z ]*) \\|$")
    fail("layers_check: cannot read the row '${row}' of ${LAYERS}/table.md")
    continue()
  endif()
  set(m ${CMAKE_MATCH_1})
  list(APPEND modules ${m})
  string(REPLACE " " ";" pub_${m} "${CMAKE_MATCH_2}")
  string(REPLACE " " ";" priv_${m} "${CMAKE_MATCH_3}")
endforeach()
list(LENGTH modules n)
if(n LESS 10)
  message(FATAL_ERROR "layers_check: only ${n} modules in ${LAYERS}/table.md")
endif()

# What a module's headers export: itself and, through PUBLIC, what its PUBLIC dependencies export.
function(exported m out)
  set(seen ${m})
  set(todo ${pub_${m}})
  while(todo)
    list(POP_FRONT todo d)
    if(NOT d IN_LIST seen AND NOT d STREQUAL "version")
      list(APPEND seen ${d})
      list(APPEND todo ${pub_${d}})
    endif()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()
# What a module's own sources may include: itself, and what each of its dependencies exports.
foreach(m IN LISTS modules)
  set(reach ${m})
  foreach(d IN LISTS pub_${m} priv_${m})
    if(NOT d STREQUAL "version")
      exported(${d} e)
      list(APPEND reach ${e})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES reach)
  set(reach_${m} ${reach})
endforeach()

# 1. The compiler's view: __has_include searches exactly as #include does.
set(probe_dir ${LAYERS}/probes)
file(MAKE_DIRECTORY ${probe_dir})
foreach(n IN LISTS modules)
  file(GLOB headers RELATIVE ${SRC}/src ${SRC}/src/${n}/*.hpp)
  list(SORT headers)
  if(NOT headers)
    message(FATAL_ERROR "layers_check: src/${n}/ has no header to probe")
  endif()
  list(GET headers 0 header_${n})
endforeach()
foreach(m IN LISTS modules)
  file(READ ${LAYERS}/${m}.includes dirs)
  set(flags "")
  foreach(d IN LISTS dirs)
    list(APPEND flags "-I${d}")
  endforeach()
  set(code "")
  foreach(n IN LISTS modules)
    string(APPEND code "#if __has_include(\"${header_${n}}\")\nseen ${n}\n#endif\n")
  endforeach()
  file(WRITE ${probe_dir}/${m}.cpp "${code}")
  execute_process(COMMAND ${CXX} -std=c++20 -E -P ${flags} ${probe_dir}/${m}.cpp
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    fail("layers_check: preprocessing the probe of ${m} failed: ${err}")
    continue()
  endif()
  string(REGEX MATCHALL "seen [a-z]+" seen "${out}")
  string(REPLACE "seen " "" seen "${seen}")
  foreach(n IN LISTS modules)
    set(allowed FALSE)
    set(found FALSE)
    if(n IN_LIST reach_${m})
      set(allowed TRUE)
    endif()
    if(n IN_LIST seen)
      set(found TRUE)
    endif()
    if(allowed AND NOT found)
      fail("layers_check: ${m}/ may include ${n}/ by the table, but its sources cannot find ${header_${n}}")
    elseif(found AND NOT allowed)
      fail("layers_check: ${m}/'s sources can include ${header_${n}} though the table does not let ${m} reach ${n}: "
           "a wall is open (an include directory outside build/layers?)")
    endif()
  endforeach()
endforeach()

# 2. A real compile of a forbidden include fails, naming the header.
file(READ ${LAYERS}/dataset.includes dirs)
set(flags "")
foreach(d IN LISTS dirs)
  list(APPEND flags "-I${d}")
endforeach()
file(WRITE ${probe_dir}/forbidden.cpp "#include \"metrics/answers.hpp\"\nint main() {}\n")
execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only ${flags} ${probe_dir}/forbidden.cpp
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 0 OR NOT err MATCHES "metrics/answers.hpp: No such file or directory")
  fail("layers_check: a dataset/ source including metrics/answers.hpp compiled (rc ${rc}): ${err}")
endif()
file(WRITE ${probe_dir}/allowed.cpp "#include \"core/request.hpp\"\nint main() {}\n")
execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only ${flags} ${probe_dir}/allowed.cpp
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  fail("layers_check: a dataset/ source cannot include core/request.hpp, which it may: ${err}")
endif()

# 3. The rules of the architecture, on what each module's sources reach.
function(forbid who what why)
  foreach(m IN LISTS who)
    foreach(n IN LISTS what)
      if(n IN_LIST reach_${m})
        message(SEND_ERROR "layers_check: ${m}/ reaches ${n}/, which the layers forbid (${why}); "
                           "move the shared noun down (core/, record/) or pass it in through an interface")
        set(broken TRUE PARENT_SCOPE)
      endif()
    endforeach()
  endforeach()
endfunction()
set(parts client load dataset metrics record tokenizer core common net)
set(flow settings workload plan measure point series runner)
forbid("${parts}" "${flow};report;history;probe;runfolder;mock;mockapi;cluster"
       "the run's parts include nothing of orchestration, pages, history or probes")
forbid("settings;workload;plan" "measure;point;series;runner;report;history;probe;mock;mockapi;cluster"
       "the settings, the workloads and the plan are below everything that runs a point")
forbid("series" "client;net;probe;mock;mockapi;tokenizer;cluster;workload;measure"
       "a series runs its points through point/'s session, not the parts")
forbid("point" "series;runner" "one point knows nothing of the series around it")
forbid("measure" "point;series;runner;report;history;cluster"
       "the measured phase knows nothing of the point's session, its pages, the store or the ranks")
forbid("measure" "mock;mockapi" "the measured phase starts the simulator it is handed (measure/simulator)")
forbid("point" "client;load;dataset;tokenizer;mock;mockapi;workload;history"
       "point/ holds the target opaque (measure/measure) and hands its folders to the store through a keeper")
forbid("metrics" "client;load;dataset;net;tokenizer" "metrics/ includes only core/, common/ and record/")
forbid("load;dataset" "metrics" "load/ and dataset/ do not include metrics/")
forbid("report;history;runfolder" "probe;client;net;${flow}" "pages and the store read run folders, not servers")
forbid("probe" "client" "probe/ makes its plain GETs through net/")
forbid("compare" "${flow};probe;client;net" "compare reads run folders; it runs nothing")
set(beside_common ${modules})
list(REMOVE_ITEM beside_common host render common)
forbid("host;render" "${beside_common}"
       "host/ reads the machine's limits and render/ writes a cluster's job from flags it is handed: "
       "nothing of a run")
if(broken)
  math(EXPR failures "${failures} + 1")
endif()
# No module reaches more than 8 others besides common/ and core/, but measure/, held to what it
# reaches today (a ceiling that may fall, never rise): it is where the parts that send meet, and
# the plan (with the settings, the metrics and the records its header names) and the client (with
# the dataset, the load and net/) alone make 8; the probes, the folder, the tokenizer and the
# prompt workloads come on top (the simulator is handed in: measure/simulator). point/ is within 8 since the cross-checks moved to
# metrics/ and the cache reset behind measure/; series/ and runner/ since the settings' nouns from
# dataset/ and load/ (the --dataset spec, the arrival process) moved down to core/.
set(ceiling_measure 12)
foreach(m IN LISTS modules)
  set(others ${reach_${m}})
  list(REMOVE_ITEM others ${m} common core)
  list(LENGTH others k)
  set(most 8)
  if(DEFINED ceiling_${m})
    set(most ${ceiling_${m}})
  endif()
  if(k GREATER most)
    list(JOIN others " " others)
    fail("layers_check: ${m}/ reaches ${k} other modules (${others}); at most ${most} besides common/ and core/")
  endif()
endforeach()

# 4. The documentation draws the same table; no source climbs out of its folder.
file(READ ${SRC}/docs/ARCHITECTURE.md doc)
string(FIND "${doc}" "${table}" at)
if(at EQUAL -1)
  fail("layers_check: docs/ARCHITECTURE.md does not hold the build's table of layers; paste ${LAYERS}/table.md "
       "into its section \"The layers\"")
endif()
file(GLOB_RECURSE sources ${SRC}/src/*.cpp ${SRC}/src/*.hpp)
foreach(f IN LISTS sources)
  file(STRINGS ${f} climbs REGEX "^#include \"\\.\\./")
  if(climbs)
    fail("layers_check: ${f} includes by a relative path out of its folder (${climbs}); name the module instead")
  endif()
endforeach()

if(failures GREATER 0)
  message(FATAL_ERROR "layers_check: ${failures} failure(s)")
endif()
list(LENGTH modules n)
message(STATUS "layers_check: ${n} modules; every wall holds and the documentation agrees")
