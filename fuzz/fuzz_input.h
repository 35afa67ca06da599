// fuzz/fuzz_input.h — reads fuzz bytes as typed values.
//
// A small stand-in for LLVM's FuzzedDataProvider (which ships only with
// clang): the replay binaries are built by any compiler, so the fuzzers use
// this header instead. Values are taken from the front; when the bytes run
// out every call returns its smallest value, so every input is valid.

#ifndef LQS_FUZZ_FUZZ_INPUT_H_
#define LQS_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace lqs::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size)
      : data_(reinterpret_cast<const char*>(data)), size_(size) {}

  bool empty() const { return pos_ >= size_; }
  size_t remaining() const { return size_ - pos_; }

  uint8_t Byte() { return pos_ < size_ ? static_cast<uint8_t>(data_[pos_++]) : 0; }
  bool Bool() { return (Byte() & 1) != 0; }

  // An integer in [lo, hi], from as few bytes as the range needs.
  template <typename T>
  T Range(T lo, T hi) {
    static_assert(std::is_integral_v<T>);
    using U = std::make_unsigned_t<T>;
    const U span = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
    U v = 0;
    for (U s = span; s != 0 && pos_ < size_; s >>= 8) v = (v << 8) | Byte();
    if (span != static_cast<U>(~U{0})) v %= static_cast<U>(span + 1);
    return static_cast<T>(static_cast<U>(lo) + v);
  }
  template <typename T>
  T Any() {
    return Range<T>(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  }

  // A string of at most max_len bytes: a length byte (0..255, scaled) and
  // then the bytes.
  std::string String(size_t max_len = 64) {
    size_t n = Range<size_t>(0, max_len);
    if (n > remaining()) n = remaining();
    std::string s(data_ + pos_, n);
    pos_ += n;
    return s;
  }
  // One of `options` (N > 0).
  template <typename T, size_t N>
  const T& Pick(const T (&options)[N]) {
    return options[Range<size_t>(0, N - 1)];
  }
  std::string Rest() {
    std::string s(data_ + pos_, size_ - pos_);
    pos_ = size_;
    return s;
  }

 private:
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace lqs::fuzz

#endif  // LQS_FUZZ_FUZZ_INPUT_H_
