// micro_bench — Google Benchmark over lqs's per-message helpers: the CPU a
// message costs before RocksDB sees it.
//
//   receipt handles  ReceiptHandleCodec::Encode / Decode (HMAC-SHA256 + base64url)
//   keys             MessageKey / TimeKey encode and decode (lib/storage/keys.h)
//   records          EncodeMessage / DecodeMessage (flatbuffers, verified),
//                    EncodeLease / DecodeLease, EncodeVisible
//   message rules    Md5Hex of a body, Md5OfMessageAttributes,
//                    ValidateSendMessage (lib/api/message_rules.h)
//
//   ./build-bench/bench/micro_bench --benchmark_min_time=0.2

#include <string>

#include <benchmark/benchmark.h>

#include "lib/api/message_rules.h"
#include "lib/api/queue_config.h"
#include "lib/lease/receipt_handle.h"
#include "lib/storage/keys.h"
#include "lib/storage/records.h"

namespace {

using lqs::MessageAttributeMap;
using lqs::MessageAttributeValue;
using lqs::SendMessageRequest;

std::string Body(size_t n) {
  std::string s(n, 'a');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
  return s;
}

MessageAttributeMap Attributes(int n) {
  MessageAttributeMap m;
  for (int i = 0; i < n; ++i) {
    MessageAttributeValue v;
    if (i % 3 == 2) {
      v.data_type = "Binary";
      v.binary_value = std::string(32, static_cast<char>(i));
    } else if (i % 3 == 1) {
      v.data_type = "Number";
      v.string_value = std::to_string(12345 + i);
    } else {
      v.data_type = "String";
      v.string_value = "value-" + std::to_string(i);
    }
    m["attr" + std::to_string(i)] = v;
  }
  return m;
}

const lqs::lease::ReceiptHandleCodec& Codec() {
  static const lqs::lease::ReceiptHandleCodec codec(std::string(32, 's'));
  return codec;
}

void BM_ReceiptHandleEncode(benchmark::State& state) {
  lqs::lease::ReceiptHandle h{7, 123456789, 1};
  for (auto _ : state) {
    ++h.seq;
    benchmark::DoNotOptimize(Codec().Encode(h));
  }
}
BENCHMARK(BM_ReceiptHandleEncode);

void BM_ReceiptHandleDecode(benchmark::State& state) {
  const std::string text = Codec().Encode({7, 123456789, 3});
  lqs::lease::ReceiptHandle h;
  for (auto _ : state) {
    benchmark::DoNotOptimize(Codec().Decode(text, &h));
  }
}
BENCHMARK(BM_ReceiptHandleDecode);

void BM_ReceiptHandleDecodeForged(benchmark::State& state) {
  std::string text = Codec().Encode({7, 123456789, 3});
  text[5] = text[5] == 'A' ? 'B' : 'A';
  lqs::lease::ReceiptHandle h;
  for (auto _ : state) {
    benchmark::DoNotOptimize(Codec().Decode(text, &h));
  }
}
BENCHMARK(BM_ReceiptHandleDecodeForged);

void BM_MessageKeyEncode(benchmark::State& state) {
  uint64_t seq = 1;
  for (auto _ : state) benchmark::DoNotOptimize(lqs::storage::MessageKey(3, ++seq));
}
BENCHMARK(BM_MessageKeyEncode);

void BM_TimeKeyEncode(benchmark::State& state) {
  uint64_t seq = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(lqs::storage::TimeKey(3, 1767225600000, ++seq));
  }
}
BENCHMARK(BM_TimeKeyEncode);

void BM_TimeKeyDecode(benchmark::State& state) {
  const std::string key = lqs::storage::TimeKey(3, 1767225600000, 42);
  lqs::storage::DecodedTimeKey k;
  for (auto _ : state) benchmark::DoNotOptimize(lqs::storage::DecodeTimeKey(key, &k));
}
BENCHMARK(BM_TimeKeyDecode);

lqs::storage::Message SampleMessage(size_t body, int attrs) {
  lqs::storage::Message m;
  m.message_id = "0f8fad5b-d9cb-469f-a165-70867728950e";
  m.body = Body(body);
  m.md5_of_body = lqs::api::Md5Hex(m.body);
  m.attributes = Attributes(attrs);
  if (attrs > 0) m.md5_of_attributes = lqs::api::Md5OfMessageAttributes(m.attributes);
  m.sent_timestamp_ms = 1767225600000;
  m.sender_id = "AIDAIT2UOQQY3AUEKVGXU";
  return m;
}

// Args: body bytes, attribute count.
void BM_EncodeMessage(benchmark::State& state) {
  const auto m =
      SampleMessage(static_cast<size_t>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(lqs::storage::EncodeMessage(m));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_EncodeMessage)->Args({100, 0})->Args({4096, 0})->Args({262144, 0})->Args({100, 10});

void BM_DecodeMessage(benchmark::State& state) {
  const std::string data = lqs::storage::EncodeMessage(
      SampleMessage(static_cast<size_t>(state.range(0)), static_cast<int>(state.range(1))));
  for (auto _ : state) {
    lqs::storage::Message out;
    lqs::Status st = lqs::storage::DecodeMessage(data, "bench/1", &out);
    benchmark::DoNotOptimize(st.ok());
    benchmark::DoNotOptimize(out.body.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_DecodeMessage)->Args({100, 0})->Args({4096, 0})->Args({262144, 0})->Args({100, 10});

void BM_EncodeLease(benchmark::State& state) {
  lqs::storage::LeaseEntry e{1767225630000, 1, 1767225600000, 1767225600000, 1767225600000, ""};
  for (auto _ : state) benchmark::DoNotOptimize(lqs::storage::EncodeLease(e));
}
BENCHMARK(BM_EncodeLease);

void BM_DecodeLease(benchmark::State& state) {
  const std::string data = lqs::storage::EncodeLease(
      {1767225630000, 1, 1767225600000, 1767225600000, 1767225600000, ""});
  lqs::storage::LeaseEntry e;
  for (auto _ : state) benchmark::DoNotOptimize(lqs::storage::DecodeLease(data, &e));
}
BENCHMARK(BM_DecodeLease);

void BM_EncodeVisible(benchmark::State& state) {
  lqs::storage::VisibleEntry e;
  e.sent_ms = 1767225600000;
  for (auto _ : state) benchmark::DoNotOptimize(lqs::storage::EncodeVisible(e));
}
BENCHMARK(BM_EncodeVisible);

void BM_Md5Body(benchmark::State& state) {
  const std::string body = Body(static_cast<size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(lqs::api::Md5Hex(body));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Md5Body)->Arg(100)->Arg(4096)->Arg(262144);

void BM_Md5OfMessageAttributes(benchmark::State& state) {
  const MessageAttributeMap attrs = Attributes(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(lqs::api::Md5OfMessageAttributes(attrs));
}
BENCHMARK(BM_Md5OfMessageAttributes)->Arg(1)->Arg(10);

// Args: body bytes, attribute count.
void BM_ValidateSendMessage(benchmark::State& state) {
  SendMessageRequest r;
  r.body = Body(static_cast<size_t>(state.range(0)));
  r.message_attributes = Attributes(static_cast<int>(state.range(1)));
  const lqs::api::QueueConfig config;
  for (auto _ : state) {
    lqs::Status st = lqs::api::ValidateSendMessage(r, config, /*in_batch=*/false);
    benchmark::DoNotOptimize(st.ok());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_ValidateSendMessage)
    ->Args({100, 0})
    ->Args({4096, 0})
    ->Args({262144, 0})
    ->Args({100, 10});

}  // namespace

BENCHMARK_MAIN();
