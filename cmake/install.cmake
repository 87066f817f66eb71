# What `cmake --install` puts where (FHS, under CMAKE_INSTALL_PREFIX: /usr/local, or /usr in the
# Debian package): the binary, the man pages and shell completions the built binary generates
# from its own option tables (cli/reference_command), the docs, and the licences.
include(GNUInstallDirs)

# Generated at build time by the binary itself, so they cannot drift from the flags.
set(TOKBENCH_GENERATED_DOCS ${CMAKE_BINARY_DIR}/generated/share)
add_custom_command(
  OUTPUT ${TOKBENCH_GENERATED_DOCS}/stamp
  COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:tokbench> -DOUT=${TOKBENCH_GENERATED_DOCS}
          -P ${CMAKE_SOURCE_DIR}/cmake/generate_docs.cmake
  DEPENDS tokbench ${CMAKE_SOURCE_DIR}/cmake/generate_docs.cmake
  COMMENT "Generating man pages and shell completions from tokbench's option tables")
add_custom_target(tokbench_docs ALL DEPENDS ${TOKBENCH_GENERATED_DOCS}/stamp)

install(TARGETS tokbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET tokbench_mpi)  # the Open MPI plug-in, where src/cluster/cluster.cpp looks for it
  install(TARGETS tokbench_mpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/tokbench)
endif()
install(DIRECTORY ${TOKBENCH_GENERATED_DOCS}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${TOKBENCH_GENERATED_DOCS}/completions/tokbench DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${TOKBENCH_GENERATED_DOCS}/completions/_tokbench DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
file(GLOB TOKBENCH_DOC_PAGES ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${TOKBENCH_DOC_PAGES} DESTINATION ${CMAKE_INSTALL_DOCDIR})
# tokbench's own terms, and those of the chart library compiled into every HTML report.
install(FILES ${CMAKE_SOURCE_DIR}/packaging/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/web/node_modules/echarts/LICENSE ${CMAKE_SOURCE_DIR}/web/node_modules/echarts/NOTICE
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/echarts)
install(FILES ${CMAKE_SOURCE_DIR}/web/node_modules/zrender/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR}/zrender)
install(FILES ${CMAKE_SOURCE_DIR}/web/node_modules/tslib/LICENSE.txt DESTINATION ${CMAKE_INSTALL_DOCDIR}/tslib)
