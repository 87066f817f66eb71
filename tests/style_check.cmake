# The code's and the tests' habits, checked (ctest code_style):
#   cmake -DSRC=<source dir> -DCLANG_FORMAT=<clang-format> -P tests/style_check.cmake
# - every C++ file of src/, tests/, bench/ and fuzz/ is as .clang-format formats it (Google style,
#   100 columns): `clang-format -i` on the files it names fixes it;
# - no test builds its own temporary folder: files go under support/temp_dir.hpp's test_dir() or
#   fresh_test_dir(), so parallel tests never share a path (a line that must look at the system's
#   temporary folder itself says why with "// style: tool scratch");
# - no test reads outside the repository (a user's clone has no ../shared): a test makes its data
#   or ships it (tests/data/gsm8k: a sample of the real GSM8K split, with its license; the whole
#   split is read only where $TOKBENCH_GSM8K names it);
# - no test file over 800 lines: split it along the seam it tests (support/ holds what the parts
#   share);
# - a report, printed, not judged: src/ files over 600 lines and functions over 100 (a definition
#   that opens at the start of a line and closes with a "}" there), the candidates for a split.
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED SRC)
  message(FATAL_ERROR "style_check: pass -DSRC=<source dir>")
endif()
set(failures 0)
file(GLOB tests RELATIVE ${SRC} ${SRC}/tests/*.cpp)
foreach(f IN LISTS tests)
  file(STRINGS ${SRC}/${f} lines REGEX "temp_directory_path|mkdtemp|\"/tmp/")
  foreach(l IN LISTS lines)
    if(NOT l MATCHES "// style: tool scratch" AND NOT l MATCHES "image_file_url\\(\"/tmp/")
      message(SEND_ERROR "style_check: ${f} makes its own temporary path: '${l}'; use testing::test_dir() "
                         "or testing::fresh_test_dir() (tests/support/temp_dir.hpp)")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
endforeach()

file(GLOB_RECURSE test_files RELATIVE ${SRC} ${SRC}/tests/*.cpp ${SRC}/tests/*.hpp ${SRC}/tests/*.sh
     ${SRC}/tests/*.js ${SRC}/tests/*.txt ${SRC}/tests/*.cmake)
list(FILTER test_files EXCLUDE REGEX "/node_modules/|style_check.cmake$")
foreach(f IN LISTS test_files)
  file(STRINGS ${SRC}/${f} lines REGEX "shared/datasets|TOKBENCH_SHARED_DIR|\\.\\./\\.\\./\\.\\./shared")
  foreach(l IN LISTS lines)
    message(SEND_ERROR "style_check: ${f} reads outside the repository: '${l}'; make the data in the test "
                       "(tests/support/gsm8k_fixture.hpp) or ship it under tests/")
    math(EXPR failures "${failures} + 1")
  endforeach()
endforeach()

# A file's lines, blank ones too (file(STRINGS) drops those).
function(line_count path out)
  file(READ ${path} text)
  string(REGEX MATCHALL "\n" newlines "${text}")
  list(LENGTH newlines n)
  set(${out} ${n} PARENT_SCOPE)
endfunction()

file(GLOB tests RELATIVE ${SRC} ${SRC}/tests/*.cpp)
foreach(f IN LISTS tests)
  line_count(${SRC}/${f} n)
  if(n GREATER 800)
    message(SEND_ERROR "style_check: ${f} has ${n} lines, over 800: split it along the seam it tests")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()

function(report_long glob limit what)
  file(GLOB_RECURSE files RELATIVE ${SRC} ${glob})
  set(long "")
  foreach(f IN LISTS files)
    line_count(${SRC}/${f} n)
    if(n GREATER ${limit})
      list(APPEND long "${f} (${n})")
    endif()
  endforeach()
  list(JOIN long ", " long)
  if(long)
    message(STATUS "style_check: ${what} over ${limit} lines: ${long}")
  endif()
endfunction()
report_long(${SRC}/src/*.cpp 600 "sources")

# Functions over 100 lines: top-level definitions (namespaces are not indented in this style).
file(GLOB_RECURSE sources RELATIVE ${SRC} ${SRC}/src/*.cpp)
set(long "")
foreach(f IN LISTS sources)
  # Every line, blank ones too, with ';' as '@' and brackets as parentheses: CMake's lists split
  # on ';' and not inside '[...]', either of which would merge or split lines.
  file(READ ${SRC}/${f} text)
  string(REPLACE ";" "@" text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REGEX MATCHALL "[^\n]*\n" lines "${text}")
  set(n 0)
  set(open "")
  foreach(l IN LISTS lines)
    math(EXPR n "${n} + 1")
    string(REGEX REPLACE "\n$" "" l "${l}")
    if(open STREQUAL "" AND l MATCHES "^[A-Za-z_][^@]*\\(" AND NOT l MATCHES "@$|^namespace")
      set(open ${n})  # a signature begins (it may go on over the next lines)
    elseif(NOT open STREQUAL "" AND l MATCHES "^[^ ].*@$")
      set(open "")  # it was a declaration
    elseif(NOT open STREQUAL "" AND l STREQUAL "}")
      math(EXPR len "${n} - ${open} + 1")
      if(len GREATER 100)
        list(APPEND long "${f}:${open} (${len})")
      endif()
      set(open "")
    endif()
  endforeach()
endforeach()
list(JOIN long ", " long)
if(long)
  message(STATUS "style_check: functions over 100 lines: ${long}")
endif()

# Formatting: what .clang-format says, checked rather than trimmed by hand.
set(code "")
foreach(dir src tests bench fuzz)
  file(GLOB_RECURSE found ${SRC}/${dir}/*.cpp ${SRC}/${dir}/*.hpp)
  list(FILTER found EXCLUDE REGEX "/node_modules/")
  list(APPEND code ${found})
endforeach()
if(NOT CLANG_FORMAT)
  message(SEND_ERROR "style_check: no clang-format to check the formatting with: `bash scripts/setup.sh --test` installs it")
  math(EXPR failures "${failures} + 1")
else()
  execute_process(COMMAND ${CLANG_FORMAT} --dry-run -Werror --style=file ${code}
                  WORKING_DIRECTORY ${SRC} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REGEX MATCHALL "[^\n]*: error: code should be clang-formatted" bad "${err}")
    set(names "")
    foreach(b IN LISTS bad)
      string(REGEX REPLACE ":[0-9]+:[0-9]+: error: code should be clang-formatted" "" b "${b}")
      list(APPEND names ${b})
    endforeach()
    list(REMOVE_DUPLICATES names)
    list(JOIN names " " names)
    message(SEND_ERROR "style_check: not formatted as .clang-format says: ${names}\n  fix: ${CLANG_FORMAT} -i ${names}")
    math(EXPR failures "${failures} + 1")
  endif()
  list(LENGTH code n)
  message(STATUS "style_check: ${n} C++ files checked with ${CLANG_FORMAT}")
endif()

if(failures GREATER 0)
  message(FATAL_ERROR "style_check: ${failures} failure(s)")
endif()
message(STATUS "style_check: formatted as .clang-format says; every test writes under its own folder")
