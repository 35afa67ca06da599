# Test executables, and the one way a C++ test is registered: lqs_add_test.
#
# lqs_add_test(<target> SOURCES <file>...
#              [LIBS <library>...] [INCLUDES <dir>...] [DEFINES <definition>...]
#              [DEPENDS <target>...]
#              [NAME <ctest name> | GROUPS <ctest prefix> <gtest filter>...]
#              [PROPERTIES <property> <value>...])
# builds the gtest program <target> from SOURCES (LQS_WARNINGS; the source
# root on the include path; LIBS linked privately; DEPENDS built first) and
# registers it with CTest:
# - with NAME, as one CTest test of that name that runs the whole program;
# - with GROUPS, once per pair: the cases matching the gtest filter, each its
#   own CTest test named <prefix><Suite>.<Case> (gtest_discover_tests);
# - otherwise, each case its own CTest test named <Suite>.<Case>.
# PROPERTIES are set on every CTest test it registers.
#
# Every *_test.cc under lib/, tests/, server/, tools/ and wire/ must be a
# SOURCE of some lqs_add_test: the configure step fails on one that is not
# (a test that is not registered never runs). The check runs when the
# top-level directory is done, so tests registered in server/ and tools/
# count.
function(lqs_add_test target)
  cmake_parse_arguments(PARSE_ARGV 1 T ""
                        "NAME" "SOURCES;LIBS;INCLUDES;DEFINES;DEPENDS;GROUPS;PROPERTIES")
  if(T_UNPARSED_ARGUMENTS OR NOT T_SOURCES)
    message(FATAL_ERROR "lqs_add_test(${target}): bad arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  add_executable(${target} ${T_SOURCES})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR} ${T_INCLUDES})
  target_link_libraries(${target} PRIVATE ${T_LIBS})
  target_compile_options(${target} PRIVATE ${LQS_WARNINGS})
  if(T_DEFINES)
    target_compile_definitions(${target} PRIVATE ${T_DEFINES})
  endif()
  if(T_DEPENDS)
    add_dependencies(${target} ${T_DEPENDS})
  endif()
  if(T_NAME)
    add_test(NAME ${T_NAME} COMMAND ${target})
    if(T_PROPERTIES)
      set_tests_properties(${T_NAME} PROPERTIES ${T_PROPERTIES})
    endif()
  else()
    set(_discover DISCOVERY_TIMEOUT 60)
    if(T_PROPERTIES)
      list(APPEND _discover PROPERTIES ${T_PROPERTIES})
    endif()
    if(T_GROUPS)
      list(LENGTH T_GROUPS _n)
      math(EXPR _odd "${_n} % 2")
      if(_odd)
        message(FATAL_ERROR "lqs_add_test(${target}): GROUPS takes prefix/filter pairs")
      endif()
      math(EXPR _last "${_n} - 1")
      foreach(_i RANGE 0 ${_last} 2)
        math(EXPR _j "${_i} + 1")
        list(GET T_GROUPS ${_i} _prefix)
        list(GET T_GROUPS ${_j} _filter)
        gtest_discover_tests(${target} TEST_PREFIX "${_prefix}" TEST_FILTER "${_filter}"
                             ${_discover})
      endforeach()
    else()
      gtest_discover_tests(${target} ${_discover})
    endif()
  endif()
  foreach(_source IN LISTS T_SOURCES)
    get_filename_component(_abs ${_source} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    set_property(GLOBAL APPEND PROPERTY LQS_REGISTERED_TEST_SOURCES ${_abs})
  endforeach()
endfunction()

function(lqs_check_test_registration)
  file(GLOB_RECURSE _all_tests ${PROJECT_SOURCE_DIR}/lib/*_test.cc
       ${PROJECT_SOURCE_DIR}/tests/*_test.cc ${PROJECT_SOURCE_DIR}/server/*_test.cc
       ${PROJECT_SOURCE_DIR}/tools/*_test.cc ${PROJECT_SOURCE_DIR}/wire/*_test.cc)
  get_property(_registered GLOBAL PROPERTY LQS_REGISTERED_TEST_SOURCES)
  foreach(_t IN LISTS _all_tests)
    if(NOT _t IN_LIST _registered)
      file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${_t})
      message(FATAL_ERROR "${_rel} is not registered: add it to an lqs_add_test "
                          "(cmake/LqsTests.cmake)")
    endif()
  endforeach()
endfunction()
cmake_language(DEFER CALL lqs_check_test_registration)

# lqs_add_allocator_tests(<prefix> <target>): when the build found jemalloc
# (LQS_PROGRAM_MALLOC), checks that the linker kept it in <target>, a program
# added with lqs_add_program(... JEMALLOC), and that jemalloc took
# server/allocator_config.cc's settings (stats_print shows the options in
# force at exit).
function(lqs_add_allocator_tests prefix target)
  if(NOT LQS_PROGRAM_MALLOC)
    return()
  endif()
  add_test(NAME ${prefix}_allocates_with_jemalloc
           COMMAND sh -c "ldd \"$1\" | grep -q libjemalloc" sh $<TARGET_FILE:${target}>)
  add_test(NAME ${prefix}_purges_idle_memory
           COMMAND sh -c "MALLOC_CONF=stats_print:true \"$1\" --help 2>&1 >/dev/null | grep -q 'opt.background_thread: true'"
                   sh $<TARGET_FILE:${target}>)
endfunction()

# lqs_add_test_library(<target> SOURCES <file>... LIBS <link item>...)
# builds the static library <target> of test support code that tests link:
# LQS_WARNINGS, the source root on its (public) include path, and LIBS as
# given to target_link_libraries (PUBLIC / PRIVATE keywords allowed).
function(lqs_add_test_library target)
  cmake_parse_arguments(PARSE_ARGV 1 L "" "" "SOURCES;LIBS")
  if(L_UNPARSED_ARGUMENTS OR NOT L_SOURCES OR NOT L_LIBS)
    message(FATAL_ERROR "lqs_add_test_library(${target}): bad arguments ${L_UNPARSED_ARGUMENTS}")
  endif()
  add_library(${target} STATIC ${L_SOURCES})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${target} ${L_LIBS})
  target_compile_options(${target} PRIVATE ${LQS_WARNINGS})
endfunction()

# The helpers every C++ test shares (tests/testutil.h): BrokerTest and
# DeathTestDir. The Status matchers and TempDir are header-only.
lqs_add_test_library(lqs_testutil SOURCES tests/testutil.cc
                     LIBS PUBLIC lqs GTest::gtest PRIVATE RocksDB::rocksdb)

lqs_add_test(lqs_api_test
  SOURCES lib/api/md5_test.cc
          lib/api/message_rules_test.cc
          lib/api/message_rules_send_test.cc
          lib/api/queue_config_test.cc
          lib/api/queue_config_policy_test.cc
          lib/api/queue_config_redrive_test.cc
  LIBS lqs_api OpenSSL::Crypto GTest::gtest_main)

# The SIGKILL crash tests' shared plumbing: the test process's side
# (crash_harness: spawn, "ready", kill, oracle files; uses gtest) and the
# child's (crash_child_support: oracle log, Die, the queues; no gtest).
lqs_add_test_library(lqs_crash_child_support SOURCES tests/crash_child_support.cc
                     LIBS PUBLIC lqs lqs_fault_fs)
# crash_check: the check of a crashed database against its oracle, shared by
# the kill -9 and the power-loss tests.
lqs_add_test_library(lqs_crash_harness SOURCES tests/crash_harness.cc tests/crash_check.cc
                     LIBS PUBLIC lqs GTest::gtest lqs_crash_child_support)

lqs_add_test(lqs_engine_test
  SOURCES lib/engine/ids_test.cc
          lib/fifo/dedup_table_test.cc
          lib/storage/keys_test.cc
          lib/storage/message_reader_test.cc
          lib/storage/records_test.cc
          lib/lease/receipt_handle_test.cc
          tests/catalog_test.cc
          tests/message_test.cc
          tests/lease_test.cc
          tests/time_rules_test.cc
          tests/dead_letter_test.cc
          tests/move_task_test.cc
          tests/long_poll_test.cc
          tests/durability_test.cc
          tests/commit_scope_test.cc
          tests/fifo_test.cc
          tests/fair_queue_test.cc
          tests/consumer_support_test.cc
          tests/transaction_test.cc
          tests/transaction_group_commit_test.cc
          tests/storage_budget_test.cc
  INCLUDES ${PROJECT_BINARY_DIR}/generated
  LIBS lqs lqs_api lqs_testutil RocksDB::rocksdb flatbuffers::flatbuffers OpenSSL::Crypto
       GTest::gtest_main lqs_crash_harness lqs_crash_child_support
  DEFINES LQS_CRASH_CHILD="$<TARGET_FILE:lqs_crash_child>"
  DEPENDS lqs_generated lqs_crash_child)

# Fault injection under RocksDB (tests/fault_fs.h): the power-loss journal
# and its power cut (tests/power_cut.h), full or failing disks, and a broker
# opened over them (tests/faulty_broker.h).
lqs_add_test_library(lqs_fault_fs SOURCES tests/fault_fs.cc tests/power_cut.cc
                                          tests/faulty_broker.cc
                     LIBS PUBLIC lqs RocksDB::rocksdb)

# The child process that durability_test kills with SIGKILL (and
# lqs_power_loss, over the journaling file system).
add_executable(lqs_crash_child tests/crash_child.cc)
target_link_libraries(lqs_crash_child PRIVATE lqs lqs_crash_child_support lqs_fault_fs)
target_compile_options(lqs_crash_child PRIVATE ${LQS_WARNINGS})

# The soak test (4 producers, 4 consumers, bounded RSS, nothing lost;
# LQS_SOAK_SECONDS, default 10): one CTest test, lqs_soak.
lqs_add_test(lqs_soak_test
  SOURCES tests/soak_test.cc
  LIBS lqs lqs_testutil GTest::gtest_main
  NAME lqs_soak
  PROPERTIES TIMEOUT 600 LABELS soak)

# The consumer runtime (lqs::Worker): its own binary, so it builds and runs
# without the engine suite.
lqs_add_test(lqs_worker_test
  SOURCES tests/worker_test.cc
  LIBS lqs lqs_testutil GTest::gtest_main
  PROPERTIES TIMEOUT 120)
lqs_add_test(lqs_worker_transaction_test
  SOURCES tests/worker_transaction_test.cc
  LIBS lqs lqs_testutil GTest::gtest_main
  PROPERTIES TIMEOUT 120)

# The worker crash test: lqs_worker_crash_child runs a Worker with the
# idempotency inbox and a producer until the test kills it with SIGKILL
# (LQS_WORKER_CRASH_ROUNDS rounds, default 20; docs/reliability.md).
add_executable(lqs_worker_crash_child tests/worker_crash_child.cc)
target_link_libraries(lqs_worker_crash_child PRIVATE lqs lqs_crash_child_support)
target_compile_options(lqs_worker_crash_child PRIVATE ${LQS_WARNINGS})
lqs_add_test(lqs_worker_crash_test
  SOURCES tests/worker_crash_test.cc
  LIBS lqs lqs_testutil GTest::gtest_main lqs_crash_harness
  DEFINES LQS_WORKER_CRASH_CHILD="$<TARGET_FILE:lqs_worker_crash_child>"
  DEPENDS lqs_worker_crash_child
  PROPERTIES TIMEOUT 300 LABELS crash)

# The transaction crash test: lqs_transaction_crash_child commits order and
# consumer transactions until the test kills it with SIGKILL, and cuts the
# power after the kill in the power_loss.* cases
# (LQS_TRANSACTION_CRASH_ROUNDS, default 20; docs/reliability.md).
add_executable(lqs_transaction_crash_child tests/transaction_crash_child.cc)
target_include_directories(lqs_transaction_crash_child PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(lqs_transaction_crash_child PRIVATE lqs lqs_crash_child_support lqs_fault_fs)
target_compile_options(lqs_transaction_crash_child PRIVATE ${LQS_WARNINGS})
lqs_add_test(lqs_transaction_crash_test
  SOURCES tests/transaction_crash_test.cc
  LIBS lqs lqs_testutil lqs_fault_fs lqs_crash_harness GTest::gtest_main
  DEFINES LQS_TRANSACTION_CRASH_CHILD="$<TARGET_FILE:lqs_transaction_crash_child>"
  DEPENDS lqs_transaction_crash_child
  GROUPS transaction_crash. "TransactionCrashTest.*" power_loss. "PowerLossTransactions.*"
  PROPERTIES TIMEOUT 300 LABELS crash)

# Full disks, failing disks and the power-loss model: CTest names
# disk_full.*, io_error.* and power_loss.* (lqsd's are disk_full.* too:
# server/CMakeLists.txt), so that `ctest -R 'power_loss|disk_full|io_error'`
# runs every fault test.
lqs_add_test(lqs_fault_test
  SOURCES tests/disk_fault_test.cc tests/power_cut_test.cc
  INCLUDES ${PROJECT_BINARY_DIR}/generated
  LIBS lqs lqs_api lqs_testutil lqs_fault_fs lqs_crash_harness RocksDB::rocksdb
       flatbuffers::flatbuffers GTest::gtest_main
  DEPENDS lqs_generated
  GROUPS disk_full. "DiskFull.*" io_error. "IoError.*" power_loss. "PowerLoss*"
  PROPERTIES TIMEOUT 120 LABELS fault)

# The power-loss campaign (scripts/power-loss.sh; docs/reliability.md):
# 50 cuts in mode fsync must lose nothing, and a few in mode process must
# lose something (the proof that the simulation drops unsynced data).
add_executable(lqs_power_loss tests/power_loss.cc)
target_include_directories(lqs_power_loss PRIVATE ${PROJECT_SOURCE_DIR}
                           ${PROJECT_BINARY_DIR}/generated)
add_dependencies(lqs_power_loss lqs_generated lqs_crash_child)
target_link_libraries(lqs_power_loss PRIVATE lqs lqs_api lqs_testutil lqs_fault_fs
                      lqs_crash_harness RocksDB::rocksdb flatbuffers::flatbuffers GTest::gtest)
target_compile_options(lqs_power_loss PRIVATE ${LQS_WARNINGS})
target_compile_definitions(lqs_power_loss PRIVATE
  LQS_CRASH_CHILD="$<TARGET_FILE:lqs_crash_child>")
add_test(NAME power_loss_fsync
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/power-loss.sh --rounds 50 --durability fsync)
add_test(NAME power_loss_process_loses
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/power-loss.sh --rounds 5 --durability process
                 --expect-loss)
set_tests_properties(power_loss_fsync power_loss_process_loses PROPERTIES
  TIMEOUT 600 LABELS "fault;crash" ENVIRONMENT "LQS_BUILD_DIR=${PROJECT_BINARY_DIR}")

# Fuzz corpus replay: every fuzzer (fuzz/fuzz_*.cc) built without libFuzzer
# and run over its seed and regression inputs in fuzz/corpus/<name>/.
include(${PROJECT_SOURCE_DIR}/fuzz/fuzzers.cmake)
# Its weak LLVMFuzzerInitialize check needs a translation unit of its own
# (unity builds, scripts/sanitize.sh).
set_source_files_properties(${LQS_FUZZ_DIR}/replay_main.cc PROPERTIES
                            SKIP_UNITY_BUILD_INCLUSION ON)
foreach(_name IN LISTS LQS_FUZZERS)
  lqs_fuzz_executable(fuzz_${_name}_replay ${_name} ${LQS_FUZZ_DIR}/replay_main.cc)
  add_test(NAME fuzz_replay_${_name}
           COMMAND fuzz_${_name}_replay ${LQS_FUZZ_DIR}/corpus/${_name})
  set_tests_properties(fuzz_replay_${_name} PROPERTIES TIMEOUT 300 LABELS fuzz)
endforeach()

# The installed package works for a consumer (find_package(lqs) + lqs::lqs).
add_test(NAME install_find_package
         COMMAND bash ${PROJECT_SOURCE_DIR}/tests/install/run.sh ${PROJECT_BINARY_DIR})
set_tests_properties(install_find_package PROPERTIES TIMEOUT 300)
