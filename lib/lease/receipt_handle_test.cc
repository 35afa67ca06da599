#include "lib/lease/receipt_handle.h"

#include <vector>

#include <gtest/gtest.h>

namespace lqs::lease {
namespace {

TEST(ReceiptHandleTest, RoundTrip) {
  ReceiptHandleCodec codec(std::string(32, 'k'));
  ReceiptHandle h{7, 123456789, 3};
  std::string text = codec.Encode(h);
  EXPECT_LE(text.size(), 64u);
  ReceiptHandle out;
  ASSERT_TRUE(codec.Decode(text, &out));
  EXPECT_EQ(out.queue_id, 7u);
  EXPECT_EQ(out.seq, 123456789u);
  EXPECT_EQ(out.receive_count, 3u);
}

TEST(ReceiptHandleTest, RejectsForgeriesAndGarbage) {
  ReceiptHandleCodec codec(std::string(32, 'k'));
  ReceiptHandleCodec other(std::string(32, 'x'));
  std::string text = codec.Encode({1, 2, 1});
  ReceiptHandle out;
  EXPECT_FALSE(other.Decode(text, &out));  // another database's secret
  for (size_t i = 0; i < text.size(); ++i) {
    std::string t = text;
    t[i] = t[i] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(codec.Decode(t, &out)) << i;
  }
  for (const char* g : {"", "x", "====", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}) {
    EXPECT_FALSE(codec.Decode(g, &out)) << g;
  }
  EXPECT_FALSE(codec.Decode(text + "A", &out));
  EXPECT_FALSE(codec.Decode(codec.Encode({1, 2, 0}), &out));  // no receive 0
}

TEST(ReceiptHandleTest, SipHashReferenceVector) {
  // The reference vector of the SipHash paper: key 00..0f, message 00..0e.
  std::string msg;
  for (int i = 0; i < 15; ++i) msg.push_back(static_cast<char>(i));
  EXPECT_EQ(SipHash24(0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL, msg), 0xa129ca6149be45e5ULL);
}

TEST(ReceiptHandleTest, Base64UrlRoundTrip) {
  for (const std::string& s :
       std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)}) {
    std::string back;
    ASSERT_TRUE(Base64UrlDecode(Base64UrlEncode(s), &back));
    EXPECT_EQ(back, s);
  }
}

TEST(ReceiptHandleTest, EncodingIsPinned) {
  // Handles outlive a process (clients hold them across an upgrade): these
  // values were produced by the first release of this format.
  ReceiptHandleCodec codec("secret");
  EXPECT_EQ(codec.Encode({1, 2, 3}), "AQAAAAAAAAABAAAAAAAAAAIDAAAALnvVzOUTkKM");
  EXPECT_EQ(codec.Encode({0xfedcba9876543210ULL, 123456789, 0x01020304}),
            "Af7cuph2VDIQAAAAAAdbzRUEAwIBCm-uZnFZSVA");
  ReceiptHandle h;
  ASSERT_TRUE(codec.Decode("Af7cuph2VDIQAAAAAAdbzRUEAwIBCm-uZnFZSVA", &h));
  EXPECT_EQ(h.queue_id, 0xfedcba9876543210ULL);
  EXPECT_EQ(h.seq, 123456789u);
  EXPECT_EQ(h.receive_count, 0x01020304u);
  EXPECT_EQ(Base64UrlEncode("\xff\xfe\xfd\xfc"), "__79_A");
  std::string out = "stale";
  EXPECT_FALSE(Base64UrlDecode("abcde", &out));  // 5 characters: no byte count fits
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace lqs::lease
