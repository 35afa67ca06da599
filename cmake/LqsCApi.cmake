# The C API (include/lqs/c.h; lib/c.cc, c_broker.cc, c_messages.cc, c_queue.cc,
# c_worker.cc for the worker, c_transaction.cc for tables and transactions,
# include/lqs/c_transaction.h, and c_bridge.cc for the bridges,
# include/lqs/c_bridge.h) and its C11 tests.
#
# lqs_c is a static library with the C shim; link it (it brings lqs along,
# and lqs_bridge and lqs_wire, which lib/bridge and wire/ define after this
# file is included: target names resolve at generate time).
# c_api_test, c_api_worker_test, c_api_transaction_test and c_api_bridge_test
# are plain C11, registered with CTest; c_api_bridge_test runs the real lqsd
# (server/CMakeLists.txt, added later: $<TARGET_FILE:lqsd> resolves at
# generate time) as the remote of its bridges. When the build is not
# sanitized already (LQS_SANITIZE), LQS_C_API_ASAN (off by default) also
# builds c_api_test_asan, c_api_worker_test_asan and
# c_api_transaction_test_asan: the shim, the library and the tests compiled
# with AddressSanitizer and UndefinedBehaviorSanitizer (and
# c_api_bridge_test_asan, with the bridges' libraries sanitized too), so
# that the ordinary test command
# (scripts/test.sh, which CI runs) checks the C API's ownership rules.

set(_lqs_c_sources lib/c.cc lib/c_broker.cc lib/c_messages.cc lib/c_queue.cc lib/c_worker.cc
    lib/c_transaction.cc)
set(_lqs_c_tests c_api_test c_api_worker_test c_api_transaction_test)
# The include path of both builds of the C API (lqs_c, lqs_c_shared): the
# public headers for their users, from the source tree or the installed
# prefix, and the source root for lib/c_internal.h.
set(_lqs_c_includes
  PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:include>
  PRIVATE ${PROJECT_SOURCE_DIR})

add_library(lqs_c STATIC ${_lqs_c_sources} lib/c_bridge.cc)
add_library(lqs::lqs_c ALIAS lqs_c)
target_include_directories(lqs_c ${_lqs_c_includes})
target_link_libraries(lqs_c PUBLIC lqs PRIVATE lqs_bridge lqs_wire)
target_compile_options(lqs_c PRIVATE ${LQS_WARNINGS})
install(TARGETS lqs_c EXPORT lqsTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

# The same C API as a shared library, liblqs_c.so.0, for C programs and
# other languages' FFIs (pkg-config lqs; the .deb ships it). It exports only
# the lqs_* functions (lqs_c.map); the C++ code inside stays private.
# RocksDB comes from librocksdb.so: Debian's librocksdb.a is not built for
# shared objects (initial-exec TLS), so the shared library is linked first
# and the archive that lqs brings along then contributes nothing.
if(TARGET RocksDB::rocksdb-shared AND NOT LQS_SANITIZE)
  add_library(lqs_c_shared SHARED ${_lqs_c_sources} lib/c_bridge.cc)
  add_library(lqs::lqs_c_shared ALIAS lqs_c_shared)
  set_target_properties(lqs_c_shared PROPERTIES
    OUTPUT_NAME lqs_c VERSION ${PROJECT_VERSION} SOVERSION 0
    LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/lqs_c.map)
  target_include_directories(lqs_c_shared ${_lqs_c_includes})
  target_link_libraries(lqs_c_shared PRIVATE RocksDB::rocksdb-shared lqs lqs_bridge lqs_wire)
  target_link_options(lqs_c_shared PRIVATE
    LINKER:--version-script=${PROJECT_SOURCE_DIR}/cmake/lqs_c.map LINKER:--no-undefined
    LINKER:--no-as-needed)
  target_compile_options(lqs_c_shared PRIVATE ${LQS_WARNINGS})
  install(TARGETS lqs_c_shared EXPORT lqsTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Unspecified)
  # Relocatable: the prefix is found from the .pc file's own directory.
  file(RELATIVE_PATH LQS_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  configure_file(cmake/lqs.pc.in ${PROJECT_BINARY_DIR}/lqs.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/lqs.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

if(LQS_BUILD_TESTS)
  set(_lqs_c_test_flags -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes)
  if(LQS_WERROR)
    list(APPEND _lqs_c_test_flags -Werror)
  endif()

  foreach(_t IN LISTS _lqs_c_tests)
    add_executable(${_t} tests/${_t}.c)
    set_target_properties(${_t} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
                                           C_EXTENSIONS OFF LINKER_LANGUAGE CXX)
    target_compile_options(${_t} PRIVATE ${_lqs_c_test_flags})
    target_link_libraries(${_t} PRIVATE lqs_c Threads::Threads)
    add_test(NAME ${_t} COMMAND ${_t})
  endforeach()

  # The bridges' test: its argument is the lqsd its bridges talk to.
  if(EXISTS ${PROJECT_SOURCE_DIR}/server/CMakeLists.txt)
    add_executable(c_api_bridge_test tests/c_api_bridge_test.c)
    set_target_properties(c_api_bridge_test PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
                                                       C_EXTENSIONS OFF LINKER_LANGUAGE CXX)
    target_compile_options(c_api_bridge_test PRIVATE ${_lqs_c_test_flags})
    target_link_libraries(c_api_bridge_test PRIVATE lqs_c Threads::Threads)
    add_dependencies(c_api_bridge_test lqsd)
    add_test(NAME c_api_bridge_test COMMAND c_api_bridge_test $<TARGET_FILE:lqsd>)
    set_tests_properties(c_api_bridge_test PROPERTIES TIMEOUT 120 LABELS bridge)
  endif()

  # Off by default: scripts/sanitize.sh (run by CI) builds everything,
  # c_api_test included, with ASan+UBSan; this option adds a sanitized copy
  # of the library to an ordinary build instead.
  option(LQS_C_API_ASAN "Also build and run the C API test under ASan+UBSan" OFF)
  if(LQS_C_API_ASAN AND NOT LQS_SANITIZE
     AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    set(_asan -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    # The same sources as lqs, lqs_api and lqs_c, compiled with sanitizers.
    get_target_property(_lqs_sources lqs SOURCES)
    get_target_property(_lqs_api_sources lqs_api SOURCES)
    add_library(lqs_c_asan STATIC ${_lqs_c_sources} ${_lqs_sources}
                ${_lqs_api_sources})
    add_dependencies(lqs_c_asan lqs_generated)
    target_include_directories(lqs_c_asan
      PUBLIC ${PROJECT_SOURCE_DIR}/include
      PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
    target_compile_options(lqs_c_asan PRIVATE ${_asan})
    target_link_libraries(lqs_c_asan
      PUBLIC Threads::Threads
      PRIVATE RocksDB::rocksdb flatbuffers::flatbuffers OpenSSL::Crypto
              nlohmann_json::nlohmann_json absl::synchronization
              absl::flat_hash_map absl::btree)
    foreach(_t IN LISTS _lqs_c_tests)
      add_executable(${_t}_asan tests/${_t}.c)
      set_target_properties(${_t}_asan PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
                                                 C_EXTENSIONS OFF LINKER_LANGUAGE CXX)
      target_compile_options(${_t}_asan PRIVATE ${_lqs_c_test_flags} ${_asan})
      target_link_options(${_t}_asan PRIVATE -fsanitize=address,undefined)
      target_link_libraries(${_t}_asan PRIVATE lqs_c_asan Threads::Threads)
      add_test(NAME ${_t}_asan COMMAND ${_t}_asan)
      set_tests_properties(${_t}_asan PROPERTIES
        ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0;UBSAN_OPTIONS=print_stacktrace=1")
    endforeach()

    # c_api_bridge_test_asan: also lqs_bridge's and lqs_wire's sources, which
    # are known once lib/bridge and wire/ are added, at the end of the
    # top-level directory (hence the deferred call). Its remote is the
    # ordinary lqsd.
    if(EXISTS ${PROJECT_SOURCE_DIR}/server/CMakeLists.txt)
      function(_lqs_c_bridge_test_asan)
        find_package(Boost 1.74 REQUIRED)  # Boost::headers is wire/'s, not visible here
        set(_sources ${PROJECT_SOURCE_DIR}/lib/c_bridge.cc)
        foreach(_lib lqs_bridge lqs_wire)
          get_target_property(_dir ${_lib} SOURCE_DIR)
          get_target_property(_lib_sources ${_lib} SOURCES)
          list(TRANSFORM _lib_sources PREPEND "${_dir}/")
          list(APPEND _sources ${_lib_sources})
        endforeach()
        add_library(lqs_c_bridge_asan STATIC ${_sources})
        target_include_directories(lqs_c_bridge_asan PRIVATE ${PROJECT_SOURCE_DIR})
        target_compile_options(lqs_c_bridge_asan PRIVATE ${_asan})
        target_link_libraries(lqs_c_bridge_asan
          PUBLIC lqs_c_asan
          PRIVATE Boost::headers OpenSSL::SSL OpenSSL::Crypto nlohmann_json::nlohmann_json
                  absl::strings)
        add_executable(c_api_bridge_test_asan ${PROJECT_SOURCE_DIR}/tests/c_api_bridge_test.c)
        set_target_properties(c_api_bridge_test_asan PROPERTIES
          C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF LINKER_LANGUAGE CXX)
        target_compile_options(c_api_bridge_test_asan PRIVATE ${_lqs_c_test_flags} ${_asan})
        target_link_options(c_api_bridge_test_asan PRIVATE -fsanitize=address,undefined)
        target_link_libraries(c_api_bridge_test_asan PRIVATE lqs_c_bridge_asan Threads::Threads)
        add_dependencies(c_api_bridge_test_asan lqsd)
        add_test(NAME c_api_bridge_test_asan
                 COMMAND c_api_bridge_test_asan $<TARGET_FILE:lqsd>)
        set_tests_properties(c_api_bridge_test_asan PROPERTIES TIMEOUT 300 LABELS bridge
          ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0;UBSAN_OPTIONS=print_stacktrace=1")
      endfunction()
      cmake_language(DEFER CALL _lqs_c_bridge_test_asan)
    endif()
  endif()
endif()
