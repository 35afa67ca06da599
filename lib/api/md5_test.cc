// MD5 against RFC 1321's test suite and against OpenSSL's, for every length
// across the padding boundaries (55/56/63/64 bytes and the multi-block cases).

#include "lib/api/md5.h"

#include <cstdint>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <openssl/evp.h>

namespace lqs::api {
namespace {

TEST(Md5Test, Rfc1321TestSuite) {
  EXPECT_EQ(Md5Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Md5Hex("a"), "0cc175b9c0f1b6a831c399e269772661");
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Md5Hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(Md5Hex("abcdefghijklmnopqrstuvwxyz"), "c3fcd3d76192e4007dfb496cca67e13b");
  EXPECT_EQ(Md5Hex("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
            "d174ab98d277d9f5a5611c2c9f419d9f");
  EXPECT_EQ(Md5Hex("1234567890123456789012345678901234567890"
                   "1234567890123456789012345678901234567890"),
            "57edf4a22be3c955ac49da2e2107b67a");
}

std::string OpenSslMd5Hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EXPECT_EQ(EVP_Digest(data.data(), data.size(), digest, &length, EVP_md5(), nullptr), 1);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0x0f]);
  }
  return hex;
}

TEST(Md5Test, MatchesOpenSslForEveryLengthUpToFiveBlocks) {
  std::mt19937 rng(7);
  std::string data;
  for (size_t length = 0; length <= 5 * 64 + 1; ++length) {
    ASSERT_EQ(Md5Hex(data), OpenSslMd5Hex(data)) << "length " << length;
    data.push_back(static_cast<char>(rng() & 0xff));
  }
}

TEST(Md5Test, MatchesOpenSslForALargeBinaryBody) {
  std::mt19937 rng(11);
  std::string data(1 << 20, '\0');
  for (char& c : data) c = static_cast<char>(rng() & 0xff);
  EXPECT_EQ(Md5Hex(data), OpenSslMd5Hex(data));
}

TEST(LowerHexTest, TwoLowercaseDigitsPerByte) {
  const uint8_t bytes[] = {0x00, 0x0f, 0xa5, 0xff};
  EXPECT_EQ(LowerHex(bytes, sizeof(bytes)), "000fa5ff");
  EXPECT_EQ(LowerHex(bytes, 0), "");
}

TEST(Md5Test, DigestAndHexAgree) {
  const Md5Digest digest = Md5("test");
  EXPECT_EQ(digest[0], 0x09);
  EXPECT_EQ(digest[15], 0xf6);
  EXPECT_EQ(Md5Hex("test"), "098f6bcd4621d373cade4e832627b4f6");
}

}  // namespace
}  // namespace lqs::api
