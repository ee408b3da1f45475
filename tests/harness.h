// Copyright synetk authors. SPDX-License-Identifier: MIT
// Test harness: run a check on every SIMD target, guarded buffers, random
// data, scalar element conversions written independently of the library.
#ifndef SYNETK_TESTS_HARNESS_H_
#define SYNETK_TESTS_HARNESS_H_

// Catch2 2 (Debian's catch2 package) or Catch2 3's single-file distribution:
// the build says which (meson option catch2_amalgamated), so that a machine
// with both installed never mixes one's header with the other's library.
#ifdef SYNETK_TEST_CATCH2_AMALGAMATED
#include "catch_amalgamated.hpp"
#else
#include <catch2/catch.hpp>
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <hwy/base.h>
#include <hwy/targets.h>

#include "synetk/detail/cpu.h"
#include "synetk/error.h"

namespace synetk_test {

// Names of the targets that ran at least one check (printed by main).
std::set<std::string>& TargetsRun();

// Calls body() once per target this CPU supports and this TU compiled,
// forcing dispatch to it, and checks that synetk really ran there.
// chosen() must return synetk::ChosenTarget() of the calling TU.
void ForEachTargetImpl(const std::function<void()>& body,
                       const std::function<int64_t()>& chosen);

#define SYNETK_FOR_EACH_TARGET(...) \
  ::synetk_test::ForEachTargetImpl(__VA_ARGS__, [] { return synetk::ChosenTarget(); })

// Calls body(allowed) with the AVX512_BF16 rounding instruction allowed,
// then not (detail::SetBF16ConvertForTest), so that a CPU that has it runs
// both bf16 roundings; the CPU's own setting is restored after.
template <class Body>
void ForBF16ConvertOnAndOff(const Body& body) {
  struct Restore {
    ~Restore() { synetk::detail::SetBF16ConvertForTest(true); }
  } restore;
  for (const bool allowed : {true, false}) {
    synetk::detail::SetBF16ConvertForTest(allowed);
    INFO("bf16 conversion instruction allowed: " << allowed);
    body(allowed);
  }
}

// Calls `call`, which must throw synetk::Error with `needle` in its message.
// (Each bad-input test then checks that its outputs are untouched.)
template <class Call>
void CheckThrowsNaming(Call&& call, const std::string& needle) {
  try {
    call();
    FAIL("no synetk::Error; expected one naming " << needle);
  } catch (const synetk::Error& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
}

// ---- Element conversions for the references (no library code) -------------

// Rounds x to nearest even in a binary format with `expBits` exponent bits
// and `mantBits` stored mantissa bits; returns the bit pattern. Uses only
// <cmath>, so it shares nothing with the kernels' bit tricks.
inline uint16_t EncodeSmallFloat(float xf, int expBits, int mantBits) {
  const double x = xf;
  const uint16_t signBit = static_cast<uint16_t>(1u << (expBits + mantBits));
  const uint16_t expMask = static_cast<uint16_t>(((1u << expBits) - 1) << mantBits);
  if (std::isnan(x)) return static_cast<uint16_t>(expMask | (1u << (mantBits - 1)));
  const uint16_t sign = std::signbit(x) ? signBit : 0;
  const double a = std::fabs(x);
  const int bias = (1 << (expBits - 1)) - 1;
  const int maxExp = bias;  // largest unbiased exponent of a finite value
  const double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, -mantBits), maxExp);
  // Values at or beyond maxFinite + half an ulp round to infinity.
  if (a >= maxFinite + std::ldexp(1.0, maxExp - mantBits - 1)) return sign | expMask;
  int e = a == 0 ? 1 - bias : std::ilogb(a);
  if (e < 1 - bias) e = 1 - bias;  // subnormal range shares the minimum exponent
  double q = std::nearbyint(std::ldexp(a, mantBits - e));  // ties to even
  if (q >= std::ldexp(1.0, mantBits + 1)) {  // rounded up to the next binade
    q /= 2;
    ++e;
  }
  if (q < std::ldexp(1.0, mantBits)) {  // subnormal (or zero)
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(q));
  }
  const uint16_t expField = static_cast<uint16_t>((e + bias) << mantBits);
  const uint16_t mant = static_cast<uint16_t>(q - std::ldexp(1.0, mantBits));
  return static_cast<uint16_t>(sign | expField | mant);
}

inline float DecodeSmallFloat(uint16_t bits, int expBits, int mantBits) {
  const int bias = (1 << (expBits - 1)) - 1;
  const bool neg = (bits >> (expBits + mantBits)) & 1;
  const int expField = (bits >> mantBits) & ((1 << expBits) - 1);
  const int mant = bits & ((1 << mantBits) - 1);
  double v;
  if (expField == (1 << expBits) - 1) {
    v = mant ? NAN : INFINITY;
  } else if (expField == 0) {
    v = std::ldexp(static_cast<double>(mant), 1 - bias - mantBits);
  } else {
    v = std::ldexp(1.0 + std::ldexp(static_cast<double>(mant), -mantBits), expField - bias);
  }
  return static_cast<float>(neg ? -v : v);
}

// Test-side element access: value <-> float, and the output type's rounding.
template <typename T>
struct TestElem;
template <>
struct TestElem<float> {
  static float ToFloat(float v) { return v; }
  static float FromFloat(float f) { return f; }
  static constexpr float kUlp = 1.0f / (1 << 23);  // relative
  static constexpr const char* kName = "f32";
};
template <>
struct TestElem<hwy::bfloat16_t> {
  static float ToFloat(hwy::bfloat16_t v) { return DecodeSmallFloat(v.bits, 8, 7); }
  static hwy::bfloat16_t FromFloat(float f) {
    hwy::bfloat16_t r;
    r.bits = EncodeSmallFloat(f, 8, 7);
    return r;
  }
  static constexpr float kUlp = 1.0f / (1 << 7);
  static constexpr const char* kName = "bf16";
};
template <>
struct TestElem<hwy::float16_t> {
  static float ToFloat(hwy::float16_t v) {
    uint16_t b;
    std::memcpy(&b, &v, 2);
    return DecodeSmallFloat(b, 5, 10);
  }
  static hwy::float16_t FromFloat(float f) {
    const uint16_t b = EncodeSmallFloat(f, 5, 10);
    hwy::float16_t r;
    std::memcpy(&r, &b, 2);
    return r;
  }
  static constexpr float kUlp = 1.0f / (1 << 10);
  static constexpr const char* kName = "f16";
};

// ---- Buffers ------------------------------------------------------------------

// Under AddressSanitizer the guard zones are poisoned, so that a kernel that
// reads past its buffers fails the test (the pattern check below only sees
// writes; the fuzzers' exact-size buffers caught a read the tests missed).
#if defined(__SANITIZE_ADDRESS__)
#define SYNETK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYNETK_TEST_ASAN 1
#endif
#endif
#ifdef SYNETK_TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

// A buffer of n elements with guard zones on both sides, starting `misalign`
// bytes past a 64-byte boundary (pass 0 or an element size to test unaligned
// access). Guards are filled with a byte pattern that must survive the call,
// and under AddressSanitizer must not be read either.
template <typename T>
class Guarded {
 public:
  static constexpr size_t kGuardBytes = 256;
  explicit Guarded(size_t n, size_t misalignElems = 1) : n_(n) {
    const size_t bytes = n * sizeof(T);
    storage_.resize(kGuardBytes * 2 + bytes + 64 + misalignElems * sizeof(T));
    uintptr_t base = reinterpret_cast<uintptr_t>(storage_.data()) + kGuardBytes;
    base = (base + 63) & ~uintptr_t{63};
    begin_ = reinterpret_cast<uint8_t*>(base + misalignElems * sizeof(T));
    std::memset(storage_.data(), kPattern, storage_.size());
    Poison(true);
  }
  // begin_ points into storage_: a copy would share the original's buffer.
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;
  Guarded(Guarded&&) = default;
  ~Guarded() { Poison(false); }
  T* data() { return reinterpret_cast<T*>(begin_); }
  const T* data() const { return reinterpret_cast<const T*>(begin_); }
  size_t size() const { return n_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  // True if every byte outside [data, data + n) is still the pattern.
  bool GuardsIntact() const {
    const uint8_t* lo = storage_.data();
    const uint8_t* b = begin_;
    const uint8_t* e = begin_ + n_ * sizeof(T);
    const uint8_t* hi = storage_.data() + storage_.size();
    Poison(false);
    bool intact = true;
    for (const uint8_t* p = lo; p < b; ++p) intact &= *p == kPattern;
    for (const uint8_t* p = e; p < hi; ++p) intact &= *p == kPattern;
    Poison(true);
    return intact;
  }
  void Fill(const std::vector<T>& v) { std::memcpy(begin_, v.data(), n_ * sizeof(T)); }
  std::vector<T> ToVector() const {
    std::vector<T> v(n_);
    std::memcpy(v.data(), begin_, n_ * sizeof(T));
    return v;
  }

 private:
  static constexpr uint8_t kPattern = 0xA5;
  // Marks the guard zones unreadable (or readable again) for AddressSanitizer;
  // a no-op without it. (A moved-from buffer has no storage left.)
  void Poison(bool on) const {
#ifdef SYNETK_TEST_ASAN
    if (storage_.empty()) return;
    const uint8_t* lo = storage_.data();
    const uint8_t* e = begin_ + n_ * sizeof(T);
    const uint8_t* hi = lo + storage_.size();
    if (on) {
      ASAN_POISON_MEMORY_REGION(lo, static_cast<size_t>(begin_ - lo));
      ASAN_POISON_MEMORY_REGION(e, static_cast<size_t>(hi - e));
    } else {
      ASAN_UNPOISON_MEMORY_REGION(lo, storage_.size());
    }
#else
    (void)on;
#endif
  }
  size_t n_;
  std::vector<uint8_t> storage_;
  uint8_t* begin_;
};

// ---- Random inputs ---------------------------------------------------------

// The seed of every random input: Catch2's --rng-seed (Catch2 2 uses 0 unless
// told; Catch2 3 draws one per run and prints it). Running again with
// `--rng-seed N` replays a failure; other seeds widen coverage.
inline uint32_t TestSeed() {
#if CATCH_VERSION_MAJOR >= 3
  return Catch::getSeed();
#else
  return Catch::rngSeed();
#endif
}

// A generator seeded from TestSeed() and a constant that tells its call site
// apart from the others.
inline std::mt19937 SeededRng(uint32_t site) {
  std::seed_seq seq{TestSeed(), site};
  return std::mt19937(seq);
}

// FNV-1a hash of a name (test-case names become generator seeds).
inline uint32_t HashName(const std::string& name) {
  uint32_t h = 2166136261u;
  for (const char c : name) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}

// The generator shared by the helpers below. A listener in main.cc reseeds
// it with SeededRng(HashName(test case)) as each test case starts, so a test
// case's inputs depend only on the seed and its name, not on which test
// cases ran before it.
inline std::mt19937& Rng() {
  static std::mt19937 rng = SeededRng(0);
  return rng;
}

// Random floats in [lo, hi), rounded to T so that inputs are exact in T.
template <typename T>
std::vector<T> RandomElems(size_t n, float lo = -4.0f, float hi = 4.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = TestElem<T>::FromFloat(dist(Rng()));
  return v;
}

inline std::vector<float> RandomFloats(size_t n, float lo = -2.0f, float hi = 2.0f) {
  return RandomElems<float>(n, lo, hi);
}

// Index of (c, s) in a tensor of C channels and S positions.
inline size_t Idx(bool nhwc, size_t c, size_t s, size_t C, size_t S) {
  return nhwc ? s * C + c : c * S + s;
}

// Sizes from 1 to 3 vectors + 1 of the widest target (16 fp32 lanes), and a
// few realistic ones.
inline const std::vector<size_t>& EdgeSizes() {
  static const std::vector<size_t> v = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49};
  return v;
}

}  // namespace synetk_test

#endif  // SYNETK_TESTS_HARNESS_H_
