// server/console_assets.h — the web console's files (server/console/*.html,
// *.js, *.css), embedded in lqsd at build time: cmake/EmbedFiles.cmake writes
// them into a generated source as byte strings, so lqsd serves them with no
// file on disk and nothing fetched from the network.
//
// Thread safety: immutable data.

#ifndef LQS_SERVER_CONSOLE_ASSETS_H_
#define LQS_SERVER_CONSOLE_ASSETS_H_

#include <cstddef>
#include <string_view>

namespace lqsd {

struct ConsoleAsset {
  std::string_view name;          // "app.js": the file's name under server/console/
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view body;
};

extern const ConsoleAsset kConsoleAssets[];
extern const size_t kConsoleAssetCount;

// The asset named `name`; nullptr when there is none.
inline const ConsoleAsset* FindConsoleAsset(std::string_view name) {
  for (size_t i = 0; i < kConsoleAssetCount; ++i) {
    if (kConsoleAssets[i].name == name) return &kConsoleAssets[i];
  }
  return nullptr;
}

}  // namespace lqsd

#endif  // LQS_SERVER_CONSOLE_ASSETS_H_
