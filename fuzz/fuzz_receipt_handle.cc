// fuzz/fuzz_receipt_handle.cc — receipt-handle decoding
// (lib/lease/receipt_handle.h).
//
// Properties checked on arbitrary text:
//   * Decode never crashes and accepts only what Encode produced: a handle
//     that decodes re-encodes to exactly the same text (canonical base64url,
//     valid MAC), and its receive count is positive.
//   * A handle is bound to the database secret: a second codec with another
//     secret rejects every handle the first one issued.
//   * Encode/Decode round-trip every field value taken from the input.
//   * Base64UrlDecode accepts only canonical text: decode then encode gives
//     the input back.

#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_input.h"
#include "lib/lease/receipt_handle.h"

namespace {

using lqs::lease::Base64UrlDecode;
using lqs::lease::Base64UrlEncode;
using lqs::lease::ReceiptHandle;
using lqs::lease::ReceiptHandleCodec;

void Check(bool ok, const char* what) { lqs::fuzz::CheckProperty("fuzz_receipt_handle", ok, what); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ReceiptHandleCodec codec(std::string(32, 'k'));
  static const ReceiptHandleCodec other(std::string(32, 'o'));
  const std::string text(reinterpret_cast<const char*>(data), size);

  // 1. Arbitrary text as a handle.
  ReceiptHandle h;
  if (codec.Decode(text, &h)) {
    Check(h.receive_count > 0, "decoded handle has receive count 0");
    Check(codec.Encode(h) == text, "decoded handle does not re-encode to the same text");
  }

  // 2. Base64url canonical round trip.
  std::string raw;
  if (Base64UrlDecode(text, &raw)) {
    Check(Base64UrlEncode(raw) == text, "base64url decode/encode is not the identity");
  }
  Check(Base64UrlDecode(Base64UrlEncode(text), &raw) && raw == text,
        "base64url encode/decode is not the identity");

  // 3. Fields from the input: round trip, and foreign secret rejected.
  lqs::fuzz::FuzzInput in(data, size);
  ReceiptHandle made;
  made.queue_id = in.Any<uint64_t>();
  made.seq = in.Any<uint64_t>();
  made.receive_count = in.Any<uint32_t>();
  const std::string encoded = codec.Encode(made);
  ReceiptHandle back;
  const bool decoded = codec.Decode(encoded, &back);
  if (made.receive_count == 0) {
    Check(!decoded, "handle with receive count 0 accepted");
  } else {
    Check(decoded && back.queue_id == made.queue_id && back.seq == made.seq &&
              back.receive_count == made.receive_count,
          "Encode/Decode round trip");
  }
  Check(!other.Decode(encoded, &back), "handle accepted under another secret");

  // 4. A one-character change of a valid handle is rejected (MAC), unless
  // it is the same character.
  if (!encoded.empty() && made.receive_count != 0) {
    std::string tampered = encoded;
    const size_t pos = in.Range<size_t>(0, tampered.size() - 1);
    const char c = "AQgw-_9z"[in.Range<int>(0, 7)];
    if (tampered[pos] != c) {
      tampered[pos] = c;
      Check(!codec.Decode(tampered, &back), "tampered handle accepted");
    }
  }
  return 0;
}
