// lib/lease/receipt_handle.h — receipt handles: opaque to users, O(1) to
// resolve, impossible to forge or to point at another queue's message.
//
// A handle is base64url (no padding) of
//   version:u8 | queue id:u64 | message seq:u64 | receive count:u32 | mac:u64
// where mac = SipHash-2-4 (a keyed PRF built for short inputs) of the first
// 21 bytes under a 128-bit key derived from the database secret. Forging a
// handle means guessing 64 bits per attempt.
// The receive count identifies the delivery: each receive issues a new one.
// Queue ids and message seqs are never reused within a database, and the
// secret is per database, so a handle names exactly one delivery forever.
//
// Thread safety: ReceiptHandleCodec is immutable after construction.

#ifndef LQS_LIB_LEASE_RECEIPT_HANDLE_H_
#define LQS_LIB_LEASE_RECEIPT_HANDLE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace lqs::lease {

struct ReceiptHandle {
  uint64_t queue_id = 0;
  uint64_t seq = 0;
  uint32_t receive_count = 0;
};

class ReceiptHandleCodec {
 public:
  // `secret`: at least 16 random bytes kept with the database.
  explicit ReceiptHandleCodec(const std::string& secret);

  std::string Encode(const ReceiptHandle& h) const;
  // False for anything this database did not issue (malformed, wrong MAC).
  bool Decode(std::string_view text, ReceiptHandle* out) const;

 private:
  uint64_t Mac(std::string_view payload) const;
  uint64_t k0_ = 0, k1_ = 0;
};

// SipHash-2-4 of `data` under the key (k0, k1).
uint64_t SipHash24(uint64_t k0, uint64_t k1, std::string_view data);

// base64url without padding (RFC 4648 §5); also used for task handles' ids.
std::string Base64UrlEncode(std::string_view data);
bool Base64UrlDecode(std::string_view text, std::string* out);

}  // namespace lqs::lease

#endif  // LQS_LIB_LEASE_RECEIPT_HANDLE_H_
