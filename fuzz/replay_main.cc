// fuzz/replay_main.cc — replays fuzz inputs without libFuzzer (in the manner
// of SQLite's test/fuzzcheck.c and flatbuffers' BUILD_DEBUGGER main).
//
// Each fuzzer is also linked with this main() into a plain `<name>_replay`
// binary that CTest runs over fuzz/corpus/<name>/ in every normal build, so
// the seed inputs and every crash ever found (kept in the corpus as
// regression inputs) are re-checked on each test run, with any compiler.
//
//   build/fuzz_records_replay fuzz/corpus/records        # a directory
//   build/fuzz_records_replay crash-1234abcd             # single files
//
// Exit status: 0 when every input ran (a failing input aborts, as under
// libFuzzer), 1 when no input was found (a misconfigured corpus path).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path p(argv[i]);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (const auto& e : fs::recursive_directory_iterator(p)) {
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') {
          inputs.push_back(e.path());
        }
      }
    } else if (fs::is_regular_file(p, ec)) {
      inputs.push_back(p);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
      return 1;
    }
  }
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no inputs (usage: %s DIR|FILE...)\n", argv[0]);
    return 1;
  }
  for (const fs::path& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", p.c_str(), bytes.size());
    // A copy of exactly `size` bytes on the heap, as libFuzzer passes it,
    // so that ASan sees reads past the end.
    std::vector<uint8_t> data(bytes.begin(), bytes.end());
    LLVMFuzzerTestOneInput(data.empty() ? nullptr : data.data(), data.size());
  }
  std::printf("replay: %zu inputs OK\n", inputs.size());
  return 0;
}
