// Copyright synetk authors. SPDX-License-Identifier: MIT
// Reads the fuzzer's bytes as a stream of choices.
#ifndef SYNETK_FUZZ_FUZZ_INPUT_H_
#define SYNETK_FUZZ_FUZZ_INPUT_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace synetk_fuzz {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

  template <typename T>
  T Raw() {
    T v{};
    const size_t n = std::min(sizeof(T), static_cast<size_t>(end_ - p_));
    std::memcpy(&v, p_, n);
    p_ += n;
    return v;
  }
  // An integer in [lo, hi].
  size_t Range(size_t lo, size_t hi) { return lo + Raw<uint32_t>() % (hi - lo + 1); }
  bool Bool() { return Raw<uint8_t>() & 1; }
  // A float that is often special: NaN, +-inf, denormal, huge, zero, or raw bits.
  float Float() {
    switch (Raw<uint8_t>() % 10) {
      case 0: return std::numeric_limits<float>::quiet_NaN();
      case 1: return Bool() ? INFINITY : -INFINITY;
      case 2: return (Bool() ? 1 : -1) * std::numeric_limits<float>::denorm_min() * Range(1, 1000);
      case 3: return (Bool() ? 1 : -1) * 3.0e38f;
      case 4: return 0.0f;
      case 5: return Raw<float>();
      default: return (static_cast<float>(Raw<int16_t>()) / 1024.0f);
    }
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// The `format` argument of a synetk::simd call (0 NCHW, 1 NHWC): valid nine
// times in ten, else any value in [-2, 4]. An out-of-range draw may still
// land on a valid value; `nhwc` then follows it, so the reference uses the
// layout the library was told.
struct FormatDraw {
  int value;
  bool nhwc, ok;
};
inline FormatDraw DrawFormat(Input& in) {
  FormatDraw f;
  f.nhwc = in.Bool();
  const bool bad = in.Range(0, 9) == 0;
  f.value = bad ? static_cast<int>(in.Range(0, 6)) - 2 : (f.nhwc ? 1 : 0);
  f.ok = f.value == 0 || f.value == 1;
  if (f.ok) f.nhwc = f.value == 1;
  return f;
}

// Results must equal the reference, NaN matching NaN; `tol` is absolute.
inline bool Close(double got, double ref, double tol) {
  if (std::isnan(ref)) return std::isnan(got);
  if (std::isinf(ref)) return got == ref;
  return std::fabs(got - ref) <= tol;
}

[[noreturn]] inline void Mismatch(const char* what, size_t i, double got, double ref) {
  std::fprintf(stderr, "%s: element %zu got %.9g expected %.9g\n", what, i, got, ref);
  std::abort();
}

}  // namespace synetk_fuzz

#endif  // SYNETK_FUZZ_FUZZ_INPUT_H_
