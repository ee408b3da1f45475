// Copyright synetk authors. SPDX-License-Identifier: MIT
// Quantization tests' helpers: bit comparisons with messages, random bytes
// and parameters, element conversions. The tests include it from two files,
// compiled in parallel.
#ifndef SYNETK_TESTS_QUANT_COMMON_H_
#define SYNETK_TESTS_QUANT_COMMON_H_

#include "harness.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace synetk_test::quant {

using hwy::bfloat16_t;
using hwy::float16_t;

template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// First differing element, for messages.
template <typename T>
std::string FirstDiff(const std::vector<T>& got, const std::vector<T>& want) {
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      uint32_t g = 0, w = 0;
      std::memcpy(&g, &got[i], sizeof(T));
      std::memcpy(&w, &want[i], sizeof(T));
      return "element " + std::to_string(i) + ": got bits " + std::to_string(g) + ", want " + std::to_string(w);
    }
  }
  return "sizes " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
}

#define REQUIRE_SAME(got, want) \
  do {                                                  \
    const auto& g_ = (got);                             \
    const auto& w_ = (want);                            \
    INFO(FirstDiff(g_, w_));                            \
    REQUIRE(SameBits(g_, w_));                          \
  } while (0)

template <typename T>
std::vector<T> Transpose(const std::vector<T>& v, size_t C, size_t S) {  // NCHW -> NHWC
  std::vector<T> out(v.size());
  for (size_t c = 0; c < C; ++c)
    for (size_t s = 0; s < S; ++s) out[s * C + c] = v[c * S + s];
  return out;
}

inline std::vector<uint8_t> RandomBytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(Rng()());
  return v;
}

inline int RandomInt(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(Rng()); }
inline float RandomFloat(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(Rng()); }

template <typename Q>
constexpr int QMin() { return std::is_signed_v<Q> ? -128 : 0; }
template <typename Q>
constexpr int QMax() { return std::is_signed_v<Q> ? 127 : 255; }

// Float-side test element: float uses identity conversions.
template <typename F>
F ToElem(float f) { return TestElem<F>::FromFloat(f); }

}  // namespace synetk_test::quant

#endif  // SYNETK_TESTS_QUANT_COMMON_H_
