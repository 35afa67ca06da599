# Test executables. Every *_test.cc in the tree must be listed here: a test
# that is not registered with CTest never runs (see the check at the bottom).

set(LQS_API_TESTS
  lib/api/md5_test.cc
  lib/api/message_rules_test.cc
  lib/api/queue_config_test.cc)
add_executable(lqs_api_test ${LQS_API_TESTS})
target_link_libraries(lqs_api_test PRIVATE lqs_api OpenSSL::Crypto GTest::gtest_main)
target_compile_options(lqs_api_test PRIVATE ${LQS_WARNINGS})
gtest_discover_tests(lqs_api_test DISCOVERY_TIMEOUT 60)

set(LQS_ENGINE_TESTS
  lib/engine/ids_test.cc
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
  tests/consumer_support_test.cc)
# The SIGKILL crash tests' shared plumbing: the test process's side
# (crash_harness: spawn, "ready", kill, oracle files; uses gtest) and the
# child's (crash_child_support: oracle log, Die, the queues; no gtest).
add_library(lqs_crash_child_support STATIC tests/crash_child_support.cc)
target_include_directories(lqs_crash_child_support PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(lqs_crash_child_support PUBLIC lqs)
target_compile_options(lqs_crash_child_support PRIVATE ${LQS_WARNINGS})
# crash_check: the check of a crashed database against its oracle, shared by
# the kill -9 and the power-loss tests.
add_library(lqs_crash_harness STATIC tests/crash_harness.cc tests/crash_check.cc)
target_include_directories(lqs_crash_harness PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(lqs_crash_harness PUBLIC lqs GTest::gtest lqs_crash_child_support)
target_compile_options(lqs_crash_harness PRIVATE ${LQS_WARNINGS})

add_executable(lqs_engine_test ${LQS_ENGINE_TESTS} tests/testutil.cc)
target_include_directories(lqs_engine_test PRIVATE ${PROJECT_SOURCE_DIR}
                           ${PROJECT_BINARY_DIR}/generated)
add_dependencies(lqs_engine_test lqs_generated)
target_link_libraries(lqs_engine_test PRIVATE lqs lqs_api RocksDB::rocksdb
                      flatbuffers::flatbuffers OpenSSL::Crypto GTest::gtest_main
                      lqs_crash_harness lqs_crash_child_support)
target_compile_options(lqs_engine_test PRIVATE ${LQS_WARNINGS})
target_compile_definitions(lqs_engine_test PRIVATE
  LQS_CRASH_CHILD="$<TARGET_FILE:lqs_crash_child>")
gtest_discover_tests(lqs_engine_test DISCOVERY_TIMEOUT 60)

# Fault injection under RocksDB (tests/fault_fs.h): the power-loss journal
# and its power cut (tests/power_cut.h), and full or failing disks.
add_library(lqs_fault_fs STATIC tests/fault_fs.cc tests/power_cut.cc)
target_include_directories(lqs_fault_fs PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(lqs_fault_fs PUBLIC RocksDB::rocksdb)
target_compile_options(lqs_fault_fs PRIVATE ${LQS_WARNINGS})

# The child process that durability_test kills with SIGKILL (and
# lqs_power_loss, over the journaling file system).
add_executable(lqs_crash_child tests/crash_child.cc)
target_link_libraries(lqs_crash_child PRIVATE lqs lqs_crash_child_support lqs_fault_fs)
target_compile_options(lqs_crash_child PRIVATE ${LQS_WARNINGS})
add_dependencies(lqs_engine_test lqs_crash_child)

# Extra tests, each its own binary: the soak test (4 producers, 4 consumers,
# bounded RSS, nothing lost; LQS_SOAK_SECONDS, default 10).
set(LQS_EXTRA_TESTS
  tests/soak_test.cc)
add_executable(lqs_soak_test tests/soak_test.cc tests/testutil.cc)
target_include_directories(lqs_soak_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(lqs_soak_test PRIVATE lqs GTest::gtest_main)
target_compile_options(lqs_soak_test PRIVATE ${LQS_WARNINGS})
add_test(NAME lqs_soak COMMAND lqs_soak_test)
set_tests_properties(lqs_soak PROPERTIES TIMEOUT 600 LABELS soak)

# The consumer runtime (lqs::Worker): its own binary, so it builds and runs
# without the engine suite.
list(APPEND LQS_EXTRA_TESTS tests/worker_test.cc)
add_executable(lqs_worker_test tests/worker_test.cc tests/testutil.cc)
target_include_directories(lqs_worker_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(lqs_worker_test PRIVATE lqs GTest::gtest_main)
target_compile_options(lqs_worker_test PRIVATE ${LQS_WARNINGS})
gtest_discover_tests(lqs_worker_test DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120)

# The worker crash test: lqs_worker_crash_child runs a Worker with the
# idempotency inbox and a producer until the test kills it with SIGKILL
# (LQS_WORKER_CRASH_ROUNDS rounds, default 20; docs/reliability.md).
list(APPEND LQS_EXTRA_TESTS tests/worker_crash_test.cc)
add_executable(lqs_worker_crash_child tests/worker_crash_child.cc)
target_link_libraries(lqs_worker_crash_child PRIVATE lqs lqs_crash_child_support)
target_compile_options(lqs_worker_crash_child PRIVATE ${LQS_WARNINGS})
add_executable(lqs_worker_crash_test tests/worker_crash_test.cc tests/testutil.cc)
target_include_directories(lqs_worker_crash_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(lqs_worker_crash_test PRIVATE lqs GTest::gtest_main lqs_crash_harness)
target_compile_options(lqs_worker_crash_test PRIVATE ${LQS_WARNINGS})
target_compile_definitions(lqs_worker_crash_test PRIVATE
  LQS_WORKER_CRASH_CHILD="$<TARGET_FILE:lqs_worker_crash_child>")
add_dependencies(lqs_worker_crash_test lqs_worker_crash_child)
gtest_discover_tests(lqs_worker_crash_test DISCOVERY_TIMEOUT 60
                     PROPERTIES TIMEOUT 300 LABELS crash)

# Full disks, failing disks and the power-loss model: CTest names
# disk_full.*, io_error.* and power_loss.*, so that
# `ctest -R 'power_loss|disk_full|io_error'` runs every fault test.
list(APPEND LQS_EXTRA_TESTS tests/disk_fault_test.cc tests/power_cut_test.cc
     tests/server/lqsd_disk_fault_test.cc)  # the last built in server/CMakeLists.txt
add_executable(lqs_fault_test tests/disk_fault_test.cc tests/power_cut_test.cc tests/testutil.cc)
target_include_directories(lqs_fault_test PRIVATE ${PROJECT_SOURCE_DIR}
                           ${PROJECT_BINARY_DIR}/generated)
add_dependencies(lqs_fault_test lqs_generated)
target_link_libraries(lqs_fault_test PRIVATE lqs lqs_api lqs_fault_fs lqs_crash_harness
                      RocksDB::rocksdb flatbuffers::flatbuffers GTest::gtest_main)
target_compile_options(lqs_fault_test PRIVATE ${LQS_WARNINGS})
gtest_discover_tests(lqs_fault_test DISCOVERY_TIMEOUT 60 TEST_PREFIX "disk_full."
                     TEST_FILTER "DiskFull.*" PROPERTIES TIMEOUT 120 LABELS fault)
gtest_discover_tests(lqs_fault_test DISCOVERY_TIMEOUT 60 TEST_PREFIX "io_error."
                     TEST_FILTER "IoError.*" PROPERTIES TIMEOUT 120 LABELS fault)
gtest_discover_tests(lqs_fault_test DISCOVERY_TIMEOUT 60 TEST_PREFIX "power_loss."
                     TEST_FILTER "PowerLoss*" PROPERTIES TIMEOUT 120 LABELS fault)

# The power-loss campaign (scripts/power-loss.sh; docs/reliability.md):
# 50 cuts in mode fsync must lose nothing, and a few in mode process must
# lose something (the proof that the simulation drops unsynced data).
add_executable(lqs_power_loss tests/power_loss.cc tests/testutil.cc)
target_include_directories(lqs_power_loss PRIVATE ${PROJECT_SOURCE_DIR}
                           ${PROJECT_BINARY_DIR}/generated)
add_dependencies(lqs_power_loss lqs_generated lqs_crash_child)
target_link_libraries(lqs_power_loss PRIVATE lqs lqs_api lqs_fault_fs lqs_crash_harness
                      RocksDB::rocksdb flatbuffers::flatbuffers GTest::gtest)
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
foreach(_name IN LISTS LQS_FUZZERS)
  lqs_fuzz_executable(fuzz_${_name}_replay ${_name} ${LQS_FUZZ_DIR}/replay_main.cc)
  add_test(NAME fuzz_replay_${_name}
           COMMAND fuzz_${_name}_replay ${LQS_FUZZ_DIR}/corpus/${_name})
  set_tests_properties(fuzz_replay_${_name} PROPERTIES TIMEOUT 300 LABELS fuzz)
endforeach()

# Fail the configure step if a *_test.cc exists that no list above names.
file(GLOB_RECURSE _all_tests RELATIVE ${PROJECT_SOURCE_DIR}
     ${PROJECT_SOURCE_DIR}/lib/*_test.cc ${PROJECT_SOURCE_DIR}/tests/*_test.cc)
foreach(_t IN LISTS _all_tests)
  if(NOT _t IN_LIST LQS_API_TESTS AND NOT _t IN_LIST LQS_ENGINE_TESTS
     AND NOT _t IN_LIST LQS_EXTRA_TESTS)
    message(FATAL_ERROR "${_t} is not registered in cmake/LqsTests.cmake")
  endif()
endforeach()

# The installed package works for a consumer (find_package(lqs) + lqs::lqs).
add_test(NAME install_find_package
         COMMAND bash ${PROJECT_SOURCE_DIR}/tests/install/run.sh ${PROJECT_BINARY_DIR})
set_tests_properties(install_find_package PROPERTIES TIMEOUT 300)
