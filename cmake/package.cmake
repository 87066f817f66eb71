# The Debian package (scripts/package.sh; tests/package_check.sh unpacks it): a stripped binary in
# tokbench_<version>_amd64.deb, its debug info in tokbench-dbgsym_<version>_amd64.ddeb, Depends
# computed from the shared libraries by dpkg-shlibdeps, the version from git.
execute_process(COMMAND git log -1 --format=%cd --date=format:%Y%m%d WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                OUTPUT_VARIABLE TOKBENCH_GIT_DATE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                OUTPUT_VARIABLE TOKBENCH_GIT_SHA OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(TOKBENCH_GIT_SHA)
  set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}+git${TOKBENCH_GIT_DATE}.${TOKBENCH_GIT_SHA}")  # sorts after the release
else()
  set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tokbench)
set(CPACK_PACKAGE_CONTACT "tokbench developers <tokbench@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "benchmark for LLM inference services (vLLM, SGLang, MindIE, gateways)")
set(CPACK_PACKAGE_DESCRIPTION
    "tokbench sends requests to OpenAI-compatible and native LLM endpoints under a controlled load, stamps every byte and token as it arrives, and reports TTFT, TPOT, ITL, E2EL, throughputs and goodput with a verdict, every peer tool's definitions side by side, and the server's own /metrics beside the client's numbers. It includes a vLLM-shaped simulator (tokbench serve-mock).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Loaded at run time (client/curl_loader, history/sqlite), so dpkg-shlibdeps cannot see them: libcurl
# 7.80 for CURLOPT_PREREQFUNCTION; SQLite for the results store.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4 (>= 7.80), libsqlite3-0 (>= 3.22)")
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)  # strips the packaged binary itself (CPACK_STRIP_FILES would leave no debug info)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "openmpi-bin")  # mpirun, for runs across several load hosts
include(CPack)
