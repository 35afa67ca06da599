# fuzz/fuzzers.cmake — the fuzz targets, shared by the corpus-replay tests
# (included from cmake/LqsTests.cmake: every normal build replays
# fuzz/corpus/<name>/ through CTest) and the libFuzzer build
# (fuzz/CMakeLists.txt, -DLQS_BUILD_FUZZ=ON with clang).
#
# Adding a fuzzer: write fuzz/fuzz_<name>.cc defining LLVMFuzzerTestOneInput,
# add <name> below, and commit a few seed inputs in fuzz/corpus/<name>/.

set(LQS_FUZZ_DIR ${PROJECT_SOURCE_DIR}/fuzz)
set(LQS_FUZZERS receipt_handle records keys message_rules queue_attributes engine)
# The wire-protocol parsers live in lqsd (server/), built when it exists.
if(EXISTS ${PROJECT_SOURCE_DIR}/server/CMakeLists.txt)
  list(APPEND LQS_FUZZERS sqs_json sqs_query http_request sigv4)
endif()

# add_executable for fuzzer `name` (fuzz/fuzz_<name>.cc plus ARGN sources).
function(lqs_fuzz_executable target name)
  add_executable(${target} ${LQS_FUZZ_DIR}/fuzz_${name}.cc ${ARGN})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}
                             ${PROJECT_BINARY_DIR}/generated)
  if(name STREQUAL "message_rules" OR name STREQUAL "queue_attributes")
    target_link_libraries(${target} PRIVATE lqs_api)
  elseif(name MATCHES "^(sqs_|http_request$|sigv4$)")
    target_link_libraries(${target} PRIVATE lqsd_core)
  else()
    add_dependencies(${target} lqs_generated)
    target_link_libraries(${target} PRIVATE lqs lqs_api RocksDB::rocksdb
                          flatbuffers::flatbuffers OpenSSL::Crypto)
  endif()
  target_compile_options(${target} PRIVATE ${LQS_WARNINGS})
endfunction()
