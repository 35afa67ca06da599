// MessageIds are version-4 UUIDs in SQS's lowercase 8-4-4-4-12 form.

#include "lib/engine/ids.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

namespace lqs::engine {
namespace {

TEST(NewMessageIdTest, IsALowercaseVersion4Uuid) {
  for (int i = 0; i < 1000; ++i) {
    const std::string id = NewMessageId();
    ASSERT_EQ(id.size(), 36u) << id;
    for (size_t at = 0; at < id.size(); ++at) {
      if (at == 8 || at == 13 || at == 18 || at == 23) {
        ASSERT_EQ(id[at], '-') << id;
      } else {
        ASSERT_TRUE((id[at] >= '0' && id[at] <= '9') || (id[at] >= 'a' && id[at] <= 'f')) << id;
      }
    }
    EXPECT_EQ(id[14], '4') << id;                                          // version
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;  // variant
  }
}

TEST(NewMessageIdTest, IdsDifferAndUseEveryDigit) {
  std::set<std::string> ids;
  std::set<char> digits;
  for (int i = 0; i < 10000; ++i) {
    const std::string id = NewMessageId();
    ids.insert(id);
    digits.insert(id.begin(), id.end());
  }
  EXPECT_EQ(ids.size(), 10000u);
  EXPECT_EQ(digits.size(), 17u);  // 0-9, a-f and '-'
}

}  // namespace
}  // namespace lqs::engine
