// Copyright synetk authors. SPDX-License-Identifier: MIT
// Fused layers (types 0, 1, 2, 3, 4, 8, 9) against the scalar reference, on
// every SIMD target, both formats, f32/bf16/f16, with guard zones.
// The kernels are compiled in tests/kernels/ (compile-once mode).
#include "synetk/declarations.h"
#include "synetk/simd.h"

#include "test_types.h"

#include "harness.h"

#include <hwy/aligned_allocator.h>
#include "reference/fused_ref.h"

#include <algorithm>
#include <climits>

namespace {

using namespace synetk_test;
// Aliases: on Arm a global BF16 from arm_neon.h would clash.
using BF16 = hwy::bfloat16_t;
using F16 = hwy::float16_t;

const int kTypes[] = {0, 1, 2, 3, 4, 8, 9};

// The inputs of one fused call, in the element type under test.
template <typename T>
struct Case {
  int type;
  size_t C, S, C1;  // C1: type 9's channels1
  std::vector<T> src0, src1;
  std::vector<float> p0, p1, p2;  // per-channel parameters (C or C+C1 entries)
  float slope, scale1, bias1;

  size_t OutChannels() const { return type == 4 ? 2 * C : type == 9 ? C + C1 : C; }
  size_t OutSize() const { return OutChannels() * S; }
};

// Type 9's second input has C1 channels: (C % 5) + 1 unless given.
template <typename T>
Case<T> MakeCase(int type, size_t C, size_t S, size_t C1 = 0) {
  Case<T> k;
  k.type = type;
  k.C = C;
  k.S = S;
  k.C1 = type == 9 ? (C1 != 0 ? C1 : (C % 5) + 1) : 0;
  const size_t P = C + k.C1;
  k.src0 = RandomElems<T>(C * S);
  k.src1 = RandomElems<T>((type == 9 ? k.C1 : C) * S);
  k.p0 = RandomFloats(P);
  k.p1 = RandomFloats(P);
  k.p2 = RandomFloats(P);
  k.slope = RandomFloats(1)[0];
  k.scale1 = RandomFloats(1)[0];
  k.bias1 = RandomFloats(1)[0];
  return k;
}

// Runs the library on a case; src/dst are the caller's buffers.
template <typename T, class F>
void RunLibrary(const Case<T>& k, const T* src0, const T* src1, T* dst, T* dst1,
                synetk::Range part = synetk::Range::All()) {
  const float *p0 = k.p0.data(), *p1 = k.p1.data(), *p2 = k.p2.data();
  switch (k.type) {
    case 0: synetk::FusedLayer0<T, F>()(src0, p0, p1, k.C, k.S, dst, part); break;
    case 1: synetk::FusedLayer1<T, F>()(src0, p0, p1, p2, k.C, k.S, dst, part); break;
    case 2: synetk::FusedLayer2<T, F>()(src0, p0, p1, k.C, k.S, &k.slope, dst, part); break;
    case 3: synetk::FusedLayer3<T, F>()(src0, /*bias=*/p1, /*scale=*/p0, k.C, k.S, dst, part); break;
    case 4: synetk::FusedLayer4<T, F>()(src0, p0, &k.scale1, &k.bias1, k.C, k.S, dst, part); break;
    case 8: synetk::FusedLayer8<T, F>()(src0, src1, p0, k.C, k.S, dst, part); break;
    case 9: synetk::FusedLayer9<T, F>()(src0, src1, p0, p1, k.C, k.C1, k.S, dst, dst1, part); break;
    default: FAIL("no fused type " << k.type);
  }
}

template <typename T>
std::vector<float> ToFloats(const std::vector<T>& v) {
  std::vector<float> f(v.size());
  for (size_t i = 0; i < v.size(); ++i) f[i] = TestElem<T>::ToFloat(v[i]);
  return f;
}

template <typename T>
synetk_ref::Out Reference(const Case<T>& k, bool nhwc, std::vector<float>& plain) {
  const auto s0 = ToFloats(k.src0), s1 = ToFloats(k.src1);
  const float *p0 = k.p0.data(), *p1 = k.p1.data(), *p2 = k.p2.data();
  switch (k.type) {
    case 0: return synetk_ref::Fused0(s0, p0, p1, k.C, k.S, nhwc);
    case 1: return synetk_ref::Fused1(s0, p0, p1, p2, k.C, k.S, nhwc);
    case 2: return synetk_ref::Fused2(s0, p0, p1, k.C, k.S, &k.slope, nhwc);
    case 3: return synetk_ref::Fused3(s0, /*bias=*/p1, /*scale=*/p0, k.C, k.S, nhwc);
    case 4: return synetk_ref::Fused4(s0, p0, &k.scale1, &k.bias1, k.C, k.S, nhwc);
    case 8: return synetk_ref::Fused8(s0, s1, p0, k.C, k.S, nhwc);
    default: return synetk_ref::Fused9(s0, s1, p0, p1, k.C, k.C1, k.S, nhwc, plain);
  }
}

// Tolerance: a few fp32 roundings of the terms, plus one ulp of T (the
// kernel's fp32 value may sit on the other side of T's rounding boundary).
template <typename T>
void CheckAgainstReference(const std::vector<T>& got, const synetk_ref::Out& ref,
                           const char* what) {
  REQUIRE(got.size() == ref.val.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = TestElem<T>::ToFloat(got[i]);
    const double r = ref.val[i];
    // f16 outputs below 2^-14 are subnormal: their ulp is 2^-24 absolute
    // (as in pooling_test.cc), which the relative kUlp does not cover.
    const double subnormalUlp = std::is_same_v<T, F16> ? std::ldexp(1.0, -24) : 0.0;
    const double tol = 4.0 * std::ldexp(1.0, -24) * ref.mag[i] +
                       TestElem<T>::kUlp * std::fabs(r) + subnormalUlp + 1e-30;
    if (!(std::fabs(g - r) <= tol)) {
      FAIL(what << ": element " << i << " got " << g << " expected " << r << " (tol " << tol << ")");
    }
  }
}

template <typename T>
std::vector<T> Transpose(const std::vector<T>& v, size_t C, size_t S, bool toNhwc) {
  std::vector<T> out(v.size());
  for (size_t c = 0; c < C; ++c)
    for (size_t s = 0; s < S; ++s) {
      if (toNhwc) out[s * C + c] = v[c * S + s];
      else out[c * S + s] = v[s * C + c];
    }
  return out;
}

template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// One format: run, check guards, compare with the reference; returns dst.
template <typename T, class F>
std::vector<T> RunAndCheck(const Case<T>& k) {
  constexpr bool nhwc = std::is_same_v<F, synetk::Nhwc>;
  Guarded<T> src0(k.src0.size()), src1(k.src1.size()), dst(k.OutSize()), dst1(k.OutSize());
  src0.Fill(k.src0);
  src1.Fill(k.src1);
  RunLibrary<T, F>(k, src0.data(), src1.data(), dst.data(), k.type == 9 ? dst1.data() : nullptr);
  REQUIRE(dst.GuardsIntact());
  REQUIRE(dst1.GuardsIntact());
  REQUIRE(SameBits(src0.ToVector(), k.src0));  // inputs untouched
  std::vector<float> plain;
  const auto ref = Reference(k, nhwc, plain);
  CheckAgainstReference(dst.ToVector(), ref, F::kName);
  if (k.type == 9) {
    const auto got = ToFloats(dst1.ToVector());
    REQUIRE(got == plain);
  }
  return dst.ToVector();
}

// Case given in NCHW; NHWC runs the transposed inputs and must give the
// transposed outputs bit for bit.
template <typename T>
void CheckCase(Case<T> k) {
  INFO("type " << k.type << " " << TestElem<T>::kName << " C=" << k.C << " S=" << k.S << " C1=" << k.C1);
  const auto nchw = RunAndCheck<T, synetk::Nchw>(k);
  Case<T> t = k;
  t.src0 = Transpose(k.src0, k.C, k.S, true);
  t.src1 = Transpose(k.src1, k.type == 9 ? k.C1 : k.C, k.S, true);
  const auto nhwc = RunAndCheck<T, synetk::Nhwc>(t);
  REQUIRE(SameBits(nhwc, Transpose(nchw, k.OutChannels(), k.S, true)));
}

TEMPLATE_TEST_CASE("fused layers match the reference on every target", "[fused]", float,
                   BF16, F16) {
  SYNETK_FOR_EACH_TARGET([] {
    for (int type : kTypes) {
      for (size_t C : EdgeSizes())
        for (size_t S : {1, 3, 8, 15, 16, 17, 33, 49}) CheckCase(MakeCase<TestType>(type, C, S));
      for (size_t S : EdgeSizes()) CheckCase(MakeCase<TestType>(type, 3, S));
      CheckCase(MakeCase<TestType>(type, 64, 56 * 3));  // realistic
      CheckCase(MakeCase<TestType>(type, 24, 75));
      CheckCase(MakeCase<TestType>(type, 520, 5));  // NHWC pixels of 1 KiB or more
      // NHWC whole vectors of channels beyond the four kept in registers.
      for (size_t C : {80, 96, 160}) CheckCase(MakeCase<TestType>(type, C, 7));
    }
    // Type 9 with both inputs' channels whole pairs of vectors (the bf16
    // pair paths, on targets of 4, 8 and 16 fp32 lanes), NCHW rows with and
    // without a tail.
    for (size_t C1 : {32, 64}) {
      for (size_t S : {7, 64, 150}) CheckCase(MakeCase<TestType>(9, 64, S, C1));
    }
    CheckCase(MakeCase<TestType>(9, 96, 9, 160));
  });
}

// Type 9 NHWC with both inputs' channels whole vectors: up to four of each
// (Fused9PixelsInRegisters: every run's scale and bias in registers) and
// more (Fused9PixelGroups below AVX-512: groups of four pixels and the
// pixels left), on targets of 4, 8 and 16 fp32 lanes, with dst1 and without
// it.
TEMPLATE_TEST_CASE("fused type 9 NHWC keeps whole-vector runs in registers", "[fused]", float,
                   BF16, F16) {
  SYNETK_FOR_EACH_TARGET([] {
    const size_t shapes[][2] = {{4, 4},   {8, 8},   {12, 4},  {4, 12}, {16, 16},
                                {24, 8},  {32, 16}, {48, 16}, {16, 64}, {64, 64}};
    for (const auto& shape : shapes) {
      for (size_t S : {1, 5, 33}) {
        const auto k = MakeCase<TestType>(9, shape[0], S, shape[1]);
        CheckCase(k);
        Case<TestType> t = k;
        t.src0 = Transpose(k.src0, k.C, k.S, true);
        t.src1 = Transpose(k.src1, k.C1, k.S, true);
        const auto withCopy = RunAndCheck<TestType, synetk::Nhwc>(t);
        Guarded<TestType> alone(k.OutSize());
        RunLibrary<TestType, synetk::Nhwc>(t, t.src0.data(), t.src1.data(), alone.data(), nullptr);
        REQUIRE(alone.GuardsIntact());
        REQUIRE(SameBits(alone.ToVector(), withCopy));
      }
    }
  });
}

// Type 4 NCHW with its output a little ahead of its input modulo 4 KiB
// (StoresAliasAhead: its rows then go in groups of runs) and outside that
// window, in one buffer: rows with a tail, of several pieces of 2048
// positions, and shorter than a group; every byte outside the input and the
// output must keep its pattern.
TEMPLATE_TEST_CASE("fused type 4 NCHW matches the reference at every 4 KiB offset of its output",
                   "[fused]", float, BF16, F16) {
  SYNETK_FOR_EACH_TARGET([] {
    const size_t shapes[][2] = {{3, 320}, {2, 4100}, {5, 37}};
    for (const auto& shape : shapes) {
      const auto k = MakeCase<TestType>(4, shape[0], shape[1]);
      const size_t inBytes = k.src0.size() * sizeof(TestType);
      const size_t outBytes = k.OutSize() * sizeof(TestType);
      std::vector<float> plain;
      const auto ref = Reference(k, false, plain);  // the same at every offset
      for (const size_t ahead : {0, 4, 64, 128, 252, 256, 320, 2048, 4092}) {
        INFO("C=" << k.C << " S=" << k.S << ", output " << ahead << " bytes ahead mod 4096");
        constexpr uint8_t kPattern = 0xA5;
        const size_t srcAt = 64 + sizeof(TestType);  // from a 4 KiB boundary
        const size_t dstAt = (srcAt + inBytes + 4096 + 4095) / 4096 * 4096 + srcAt + ahead;
        std::vector<uint8_t> buffer(4096 + dstAt + outBytes + 4096, kPattern);
        const uintptr_t page = (reinterpret_cast<uintptr_t>(buffer.data()) + 4095) & ~uintptr_t{4095};
        uint8_t* base = buffer.data() + (page - reinterpret_cast<uintptr_t>(buffer.data()));
        auto* src = reinterpret_cast<TestType*>(base + srcAt);
        auto* dst = reinterpret_cast<TestType*>(base + dstAt);
        std::memcpy(src, k.src0.data(), inBytes);
        RunLibrary<TestType, synetk::Nchw>(k, src, nullptr, dst, nullptr);
        REQUIRE(std::memcmp(src, k.src0.data(), inBytes) == 0);
        const uint8_t* in0 = base + srcAt;
        const uint8_t* out0 = base + dstAt;
        size_t changed = 0;
        for (size_t i = 0; i < buffer.size(); ++i) {
          const uint8_t* b = buffer.data() + i;
          const bool mine = (b >= in0 && b < in0 + inBytes) || (b >= out0 && b < out0 + outBytes);
          if (!mine && *b != kPattern) ++changed;
        }
        REQUIRE(changed == 0);
        std::vector<TestType> got(k.OutSize());
        std::memcpy(got.data(), dst, outBytes);
        CheckAgainstReference(got, ref, "type 4 NCHW");
      }
    }
  });
}

// NHWC pixels wider than four vectors take the loop orders meant for DRAM
// beyond kCachedFusedBytes of traffic (one vector at a time for types 0-3
// and 8, blocks for type 4), the cached orders below it (groups of pixels
// for type 1), and on AVX-512 the CPU vendor changes both
// (kWidePixelsInOrder); so does it type 9's path for pixels of 1 KiB or more
// (pixel groups or one at a time). The vendor is forced both ways, with its software
// prefetching (Intel's only), so that every machine runs what either
// vendor's would.
TEST_CASE("fused layers match the reference in every NHWC wide-pixel order", "[fused]") {
  constexpr size_t C = 80, S0 = 13110, S4 = 8740;
  static_assert(C * S0 * 2 * sizeof(float) > synetk::detail::kCachedFusedBytes);
  static_assert(C * S4 * 3 * sizeof(float) > synetk::detail::kCachedFusedBytes);
  struct AskCpuid {
    ~AskCpuid() {
      synetk::detail::SetIntelCpuForTest(-1);
      synetk::detail::SetSoftwarePrefetchForTest(synetk::detail::CpuidSaysIntel());
    }
  } restore;
  for (int intel : {0, 1}) {
    INFO("CPU vendor forced to " << (intel ? "Intel" : "other"));
    synetk::detail::SetIntelCpuForTest(intel);
    synetk::detail::SetSoftwarePrefetchForTest(intel != 0);
    SYNETK_FOR_EACH_TARGET([] {
      for (int type : kTypes) CheckCase(MakeCase<float>(type, 96, 7));
      CheckCase(MakeCase<float>(9, 192, 9, 64));  // 1 KiB pixels of whole vectors
      CheckCase(MakeCase<BF16>(1, 160, 7));
      for (int type : {0, 1, 8}) CheckCase(MakeCase<float>(type, C, S0));
      CheckCase(MakeCase<float>(4, C, S4));
    });
  }
}

TEMPLATE_TEST_CASE("fused layers carry infinities and NaNs", "[fused]", float, BF16, F16) {
  SYNETK_FOR_EACH_TARGET([] {
    for (int type : {0, 3, 8}) {
      auto k = MakeCase<TestType>(type, 5, 37);
      const float specials[] = {INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 65504.0f};
      for (size_t i = 0; i < k.src0.size(); i += 3) k.src0[i] = TestElem<TestType>::FromFloat(specials[i % 6]);
      std::vector<TestType> dst(k.OutSize());
      RunLibrary<TestType, synetk::Nchw>(k, k.src0.data(), k.src1.data(), dst.data(), nullptr);
      std::vector<float> plain;
      const auto ref = Reference(k, false, plain);
      for (size_t i = 0; i < dst.size(); ++i) {
        const double g = TestElem<TestType>::ToFloat(dst[i]), r = ref.val[i];
        INFO("type " << type << " element " << i << " got " << g << " expected " << r);
        if (std::isnan(r)) REQUIRE(std::isnan(g));
        else if (std::isinf(r) || std::isinf(ref.mag[i])) REQUIRE((g == r || std::isnan(g) == std::isnan(r)));
        else REQUIRE(std::fabs(g - r) <= 4.0 * std::ldexp(1.0, -24) * ref.mag[i] + TestElem<TestType>::kUlp * std::fabs(r));
      }
    }
  });
}

// Type 2's slope multiplies x = src * scale + bias as fp32 rounded it, and
// below FLT_MIN that rounding is absolute (a multiple of 2^-149) rather than
// 24 bits of x. CI's fuzzer found x near -6e-42 times a slope of 4e18: the
// reference's magnitude must count it (every element here failed before).
TEST_CASE("fused type 2 multiplies products below FLT_MIN by a huge slope", "[fused]") {
  SYNETK_FOR_EACH_TARGET([] {
    auto k = MakeCase<float>(2, 7, 20);
    for (size_t i = 0; i < k.src0.size(); ++i) {
      k.src0[i] = -1e-21f * static_cast<float>(1 + i % 5) / 3.0f;  // x: -1e-42 .. -5e-42
    }
    for (size_t c = 0; c < k.C; ++c) {
      k.p0[c] = 3.1e-21f;  // scale
      k.p1[c] = 0.0f;      // bias
    }
    k.slope = 4e18f;
    CheckCase(k);
  });
}

TEMPLATE_TEST_CASE("fused layers run in place and in parts", "[fused]", float, BF16) {
  SYNETK_FOR_EACH_TARGET([] {
    for (int type : kTypes) {
      // 19 channels: NHWC flat stream; 24: its periods of 48 elements in
      // registers (AVX-512; 24 on AVX2); 80: NHWC groups of pixels.
      for (const bool nhwc : {false, true})
        for (const size_t C : {size_t{19}, size_t{24}, size_t{80}}) {
          // 71 positions: the last part's NCHW rows hold two pairs of
          // 16-lane vectors (the bf16 pair rows) and a tail.
          auto k = MakeCase<TestType>(type, C, 71);
          auto run = [&](const TestType* s0, const TestType* s1, TestType* d, TestType* d1,
                         synetk::Range part) {
            if (nhwc) RunLibrary<TestType, synetk::Nhwc>(k, s0, s1, d, d1, part);
            else RunLibrary<TestType, synetk::Nchw>(k, s0, s1, d, d1, part);
          };
          std::vector<TestType> whole(k.OutSize()), whole1(k.OutSize());
          run(k.src0.data(), k.src1.data(), whole.data(), whole1.data(), synetk::Range::All());
          // Parts: three uneven ranges of spatial positions, in order and in
          // reverse (as threads may finish them: no part writes past its own).
          for (const bool reverse : {false, true}) {
            std::vector<TestType> parts(k.OutSize()), parts1(k.OutSize());
            std::vector<synetk::Range> ranges = {{0, 5}, {5, 6}, {6, 71}};
            if (reverse) std::reverse(ranges.begin(), ranges.end());
            for (auto r : ranges) run(k.src0.data(), k.src1.data(), parts.data(), parts1.data(), r);
            REQUIRE(SameBits(parts, whole));
            if (type == 9) REQUIRE(SameBits(parts1, whole1));
          }
          // In place: every type whose output has the input's shape.
          if (type <= 3 || type == 8) {
            auto inplace = k.src0;
            run(inplace.data(), k.src1.data(), inplace.data(), nullptr, synetk::Range::All());
            REQUIRE(SameBits(inplace, whole));
          }
          if (type == 8) {
            auto inplace = k.src1;
            run(k.src0.data(), inplace.data(), inplace.data(), nullptr, synetk::Range::All());
            REQUIRE(SameBits(inplace, whole));
          }
        }
    }
  });
}

// Non-temporal stores (SetStreamingThreshold): forced on for small tensors,
// into 64-byte aligned outputs (so that full vectors do stream), whole and
// in parts and in place; the bits must equal the cached stores' (the
// reference comparisons above run with streaming off).
TEST_CASE("fused layers give the same bits with streaming stores", "[fused][streaming]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (int type : kTypes) {
      for (const bool nhwc : {false, true}) {
        const auto k = MakeCase<float>(type, 21, 67);
        auto run = [&](const float* s0, const float* s1, float* d, float* d1, synetk::Range part) {
          if (nhwc) RunLibrary<float, synetk::Nhwc>(k, s0, s1, d, d1, part);
          else RunLibrary<float, synetk::Nchw>(k, s0, s1, d, d1, part);
        };
        const size_t n = k.OutSize();
        auto want = hwy::AllocateAligned<float>(n), want1 = hwy::AllocateAligned<float>(n);
        auto got = hwy::AllocateAligned<float>(n), got1 = hwy::AllocateAligned<float>(n);
        synetk::SetStreamingThreshold(SIZE_MAX);
        run(k.src0.data(), k.src1.data(), want.get(), want1.get(), synetk::Range::All());
        synetk::SetStreamingThreshold(1);
        REQUIRE(synetk::StreamingThreshold() == 1);
        run(k.src0.data(), k.src1.data(), got.get(), got1.get(), synetk::Range::All());
        CHECK(std::memcmp(got.get(), want.get(), n * sizeof(float)) == 0);
        if (type == 9) CHECK(std::memcmp(got1.get(), want1.get(), n * sizeof(float)) == 0);
        std::memset(got.get(), 0, n * sizeof(float));
        for (auto r : {synetk::Range{0, 16}, synetk::Range{16, 33}, synetk::Range{33, 67}})
          run(k.src0.data(), k.src1.data(), got.get(), got1.get(), r);
        CHECK(std::memcmp(got.get(), want.get(), n * sizeof(float)) == 0);
        if (type <= 3 || type == 8) {
          std::memcpy(got.get(), k.src0.data(), n * sizeof(float));
          run(got.get(), k.src1.data(), got.get(), nullptr, synetk::Range::All());
          CHECK(std::memcmp(got.get(), want.get(), n * sizeof(float)) == 0);
        }
        synetk::SetStreamingThreshold(0);
        REQUIRE(synetk::StreamingThreshold() > 1);
      }
    }
  });
}

TEST_CASE("fused compatibility entry points match the functors", "[fused][simd]") {
  using namespace synetk::simd;
  const size_t C = 5, S = 21;
  auto k = MakeCase<float>(9, C, S);
  const size_t C1 = k.C1;  // scale and bias have C + C1 entries
  std::vector<float> a(2 * (C + C1) * S), b(a.size()), a1(a.size());
  for (const auto format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
    const bool nhwc = format == SimdTensorFormatNhwc;
    auto both = [&](auto functor, auto compat) {
      std::fill(a.begin(), a.end(), 0.0f);
      std::fill(b.begin(), b.end(), 0.0f);
      if (nhwc) functor(synetk::Nhwc());
      else functor(synetk::Nchw());
      compat();
      REQUIRE(a == b);
    };
    const float *s0 = k.src0.data(), *s1 = k.src1.data(), *p0 = k.p0.data(), *p1 = k.p1.data(),
                *p2 = k.p2.data();
    both([&](auto f) { synetk::FusedLayer0<float, decltype(f)>()(s0, p0, p1, C, S, a.data()); },
         [&] { SimdSynetFusedLayerForward0(s0, p0, p1, C, S, b.data(), format); });
    both([&](auto f) { synetk::FusedLayer1<float, decltype(f)>()(s0, p0, p1, p2, C, S, a.data()); },
         [&] { SimdSynetFusedLayerForward1(s0, p0, p1, p2, C, S, b.data(), format); });
    both([&](auto f) { synetk::FusedLayer2<float, decltype(f)>()(s0, p0, p1, C, S, p2, a.data()); },
         [&] { SimdSynetFusedLayerForward2(s0, p0, p1, C, S, p2, b.data(), format); });
    both([&](auto f) { synetk::FusedLayer3<float, decltype(f)>()(s0, p0, p1, C, S, a.data()); },
         [&] { SimdSynetFusedLayerForward3(s0, p0, p1, C, S, b.data(), format); });
    both([&](auto f) { synetk::FusedLayer4<float, decltype(f)>()(s0, p0, p1, p2, C, S, a.data()); },
         [&] { SimdSynetFusedLayerForward4(s0, p0, p1, p2, C, S, b.data(), format); });
    both([&](auto f) { synetk::FusedLayer8<float, decltype(f)>()(s0, s0, p0, C, S, a.data()); },
         [&] { SimdSynetFusedLayerForward8(s0, s0, p0, C, S, b.data(), format); });
    both([&](auto f) {
           synetk::FusedLayer9<float, decltype(f)>()(s0, s1, p0, p1, C, C1, S, a.data(), a1.data());
         },
         [&] { SimdSynetFusedLayerForward9(s0, s1, p0, p1, C, C1, S, b.data(), nullptr, format); });
  }
  // The plain numbers of the original enums.
  STATIC_REQUIRE(SimdTensorFormatNchw == 0);
  STATIC_REQUIRE(SimdTensorFormatNhwc == 1);
  STATIC_REQUIRE(SimdTensorData32f == 0);
  STATIC_REQUIRE(SimdTensorData8u == 3);
  STATIC_REQUIRE(SimdTensorData16b == 7);
  STATIC_REQUIRE(SimdTensorData16f == 8);
  STATIC_REQUIRE(SimdTrue == 1);
}

// Every bad-input class: the call throws synetk::Error naming the parameter
// and leaves dst as it was.
TEST_CASE("fused layers reject bad input", "[fused][errors]") {
  using synetk::Nchw;
  const size_t C = 4, S = 6, n = C * S;
  std::vector<float> src(4 * n, 1.0f), p(16, 1.0f), dst(4 * n, 7.0f);
  const float* s = src.data();
  const float* q = p.data();
  float* d = dst.data();
  auto expectError = [&](auto&& call, const std::string& needle) {
    std::fill(dst.begin(), dst.end(), 7.0f);
    CheckThrowsNaming(call, needle);
    CHECK(std::all_of(dst.begin(), dst.end(), [](float v) { return v == 7.0f; }));
  };
  synetk::FusedLayer0<float, Nchw> f0;
  synetk::FusedLayer2<float, Nchw> f2;
  synetk::FusedLayer4<float, Nchw> f4;
  synetk::FusedLayer8<float, Nchw> f8;
  synetk::FusedLayer9<float, Nchw> f9;
  expectError([&] { f0(nullptr, q, q, C, S, d); }, "FusedLayer0: src = null");
  expectError([&] { f0(s, nullptr, q, C, S, d); }, "bias = null");
  expectError([&] { f0(s, q, nullptr, C, S, d); }, "scale = null");
  expectError([&] { f0(s, q, q, C, S, nullptr); }, "dst = null");
  expectError([&] { f0(s, q, q, 0, S, d); }, "channels = 0");
  expectError([&] { f0(s, q, q, C, 0, d); }, "spatial = 0");
  expectError([&] { f0(s, q, q, SIZE_MAX / 2, 3, d); }, "channels*spatial");
  expectError([&] { f0(s, q, q, SIZE_MAX / 64, 3, d); }, "channels*spatial");
  expectError([&] { f0(d + 1, q, q, C, S, d); }, "dst =");
  expectError([&] { f0(s, q, q, C, S, d, synetk::Range{4, 2}); }, "part.begin");
  expectError([&] { f2(s, q, q, C, S, nullptr, d); }, "slope = null");
  expectError([&] { f4(d, q, q, q, C, S, d); }, "FusedLayer4: dst");  // in place is not allowed
  expectError([&] { f8(s, nullptr, q, C, S, d); }, "src1 = null");
  expectError([&] { f8(s, d + 3, q, C, S, d); }, "same buffer as src1 or disjoint");
  expectError([&] { f9(s, s, q, q, 0, 2, S, d, nullptr); }, "channels0 = 0");
  expectError([&] { f9(s, s, q, q, 2, 0, S, d, nullptr); }, "channels1 = 0");
  expectError([&] { f9(s, s, q, q, SIZE_MAX, 2, S, d, nullptr); }, "channels0+channels1");
  expectError([&] { f9(s, s, q, q, 2, 2, S, d, d + 5); }, "dst1");
  expectError([&] { synetk::simd::SimdSynetFusedLayerForward0(s, q, q, C, S, d, synetk::simd::SimdTensorFormatType(7)); },
              "format = 7");
}

// bf16 stores round to nearest even on every target, with the AVX512_BF16
// instruction (which takes denormal inputs as zero, so vectors holding one
// take the integer path) and without it. FusedLayer2 with src = 1, bias = 0
// and slope = 1 stores each channel's scale: denormals of every size next to
// normal values in one vector (NHWC), ties, values that round up a binade or
// to infinity, and random patterns.
TEST_CASE("bf16 stores round denormals, ties and overflow to nearest even", "[fused]") {
  std::vector<uint32_t> patterns = {
      0x00000001, 0x00007FFF, 0x00008000, 0x00018000, 0x0000FFFF, 0x007F8000, 0x007FFFFF,
      0x807FFFFF, 0x80008001, 0x00400000, 0x00800000, 0x3F808000, 0x3F818000, 0xBF808001,
      0x3F80FFFF, 0x7F7F7FFF, 0x7F7F8000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000};
  std::mt19937 rng = SeededRng(7);
  while (patterns.size() < 160) {
    const uint32_t b = static_cast<uint32_t>(rng());
    // Finite and nonzero: NaN and zeros are other tests' business.
    if ((b & 0x7F800000u) != 0x7F800000u && (b & 0x7FFFFFFFu) != 0) patterns.push_back(b);
    // Every fourth pattern a denormal, so that many vectors mix them in.
    if (patterns.size() % 4 == 0) patterns.push_back((b & 0x807FFFFFu) | 1u);
  }
  const size_t C = patterns.size(), S = 19;
  std::vector<float> scale(C), bias(C, 0.0f);
  for (size_t c = 0; c < C; ++c) std::memcpy(&scale[c], &patterns[c], 4);
  const float slope = 1.0f;
  const BF16 one = TestElem<BF16>::FromFloat(1.0f);
  const std::vector<BF16> src(C * S, one);
  ForBF16ConvertOnAndOff([&](bool) {
    SYNETK_FOR_EACH_TARGET([&] {
      for (const bool nhwc : {false, true}) {
        std::vector<BF16> dst(C * S);
        if (nhwc) {
          synetk::FusedLayer2<BF16, synetk::Nhwc>()(src.data(), scale.data(), bias.data(), C, S,
                                                    &slope, dst.data());
        } else {
          synetk::FusedLayer2<BF16, synetk::Nchw>()(src.data(), scale.data(), bias.data(), C, S,
                                                    &slope, dst.data());
        }
        for (size_t i = 0; i < dst.size(); ++i) {
          const size_t c = nhwc ? i % C : i / S;
          uint16_t got;
          std::memcpy(&got, &dst[i], 2);
          INFO((nhwc ? "NHWC" : "NCHW") << " channel " << c << " pattern " << std::hex
                                         << patterns[c]);
          REQUIRE(got == EncodeSmallFloat(scale[c], 8, 7));
        }
      }
    });
  });
}

}  // namespace

TEST_CASE("fused layers accept user element types", "[fused][custom]") {
  SYNETK_FOR_EACH_TARGET([] {
    const size_t C = 7, S = 37;
    for (const bool nhwc : {false, true}) {
      auto k = MakeCase<BF16>(3, C, S);
      std::vector<MyBf16> src(C * S), dst(C * S);
      std::memcpy(src.data(), k.src0.data(), src.size() * 2);
      std::vector<BF16> expect(C * S);
      if (nhwc) {
        synetk::FusedLayer3<MyBf16, synetk::Nhwc>()(src.data(), k.p0.data(), k.p1.data(), C, S, dst.data());
        synetk::FusedLayer3<BF16, synetk::Nhwc>()(k.src0.data(), k.p0.data(), k.p1.data(), C, S, expect.data());
      } else {
        synetk::FusedLayer3<MyBf16, synetk::Nchw>()(src.data(), k.p0.data(), k.p1.data(), C, S, dst.data());
        synetk::FusedLayer3<BF16, synetk::Nchw>()(k.src0.data(), k.p0.data(), k.p1.data(), C, S, expect.data());
      }
      REQUIRE(std::memcmp(dst.data(), expect.data(), dst.size() * 2) == 0);

      // Fixed88 against the reference evaluated on the decoded inputs.
      std::vector<Fixed88> fsrc(C * S), fdst(C * S);
      std::vector<float> fin(C * S);
      for (size_t i = 0; i < fsrc.size(); ++i) {
        fsrc[i].raw = static_cast<int16_t>(static_cast<int>(Rng()() % 2048) - 1024);
        fin[i] = fsrc[i].raw / 256.0f;
      }
      if (nhwc) synetk::FusedLayer3<Fixed88, synetk::Nhwc>()(fsrc.data(), k.p0.data(), k.p1.data(), C, S, fdst.data());
      else synetk::FusedLayer3<Fixed88, synetk::Nchw>()(fsrc.data(), k.p0.data(), k.p1.data(), C, S, fdst.data());
      const auto ref = synetk_ref::Fused3(fin, k.p0.data(), k.p1.data(), C, S, nhwc);
      for (size_t i = 0; i < fdst.size(); ++i) {
        INFO("element " << i);
        REQUIRE(std::fabs(fdst[i].raw / 256.0 - ref.val[i]) <= 0.5 / 256 + 1e-6);
      }
    }
  });
}

// Each parameter's role, from hand-computed values (the Simd Library's
// implementation, as the engine Synet calls it): bias and scale arrays are
// different in every channel, so exchanging any two arguments changes the
// outputs. C = 2 channels, S = 2 positions; values listed in NCHW order.
TEST_CASE("fused parameters play their documented roles", "[fused][simd]") {
  using namespace synetk::simd;
  const size_t C = 2, S = 2;
  const std::vector<float> src = {-2, 3, -1, 4};  // c0: -2, 3; c1: -1, 4
  // NHWC copy of an NCHW tensor of `channels` channels (S positions).
  auto toNhwc = [&](const std::vector<float>& v, size_t channels) {
    std::vector<float> t(v.size());
    for (size_t c = 0; c < channels; ++c)
      for (size_t s = 0; s < S; ++s) t[s * channels + c] = v[c * S + s];
    return t;
  };
  // Runs `run(format, F, src, dst)` through the functor and the compat
  // entry point, and compares both with `want` (NCHW order).
  auto check = [&](const char* what, size_t outChannels, const std::vector<float>& want,
                   auto run) {
    for (const bool nhwc : {false, true}) {
      INFO(what << (nhwc ? " NHWC" : " NCHW"));
      const auto in = nhwc ? toNhwc(src, C) : src;
      const auto expect = nhwc ? toNhwc(want, outChannels) : want;
      std::vector<float> native(want.size()), compat(want.size());
      if (nhwc) run(SimdTensorFormatNhwc, synetk::Nhwc(), in, native, compat);
      else run(SimdTensorFormatNchw, synetk::Nchw(), in, native, compat);
      for (size_t i = 0; i < want.size(); ++i) {
        INFO("element " << i);
        CHECK(std::fabs(native[i] - expect[i]) <= 1e-6f);
        CHECK(std::fabs(compat[i] - expect[i]) <= 1e-6f);
      }
    }
  };
  const std::vector<float> bias = {0.5f, -0.25f}, scale = {0.1f, 0.2f}, bias1 = {10, 20};
  SYNETK_FOR_EACH_TARGET([&] {
    // x = src + bias[c]; (x - |x|)*scale[c] + max(0, x)
    check("type 0", C, {-0.3f, 3.5f, -0.5f, 3.75f}, [&](auto fmt, auto f, auto& in, auto& a, auto& b) {
      synetk::FusedLayer0<float, decltype(f)>()(in.data(), bias.data(), scale.data(), C, S, a.data());
      SimdSynetFusedLayerForward0(in.data(), bias.data(), scale.data(), C, S, b.data(), fmt);
    });
    // x = src + bias0[c]; max(0, -x)*scale1[c] + bias1[c] + max(0, x)
    check("type 1", C, {10.15f, 13.5f, 20.25f, 23.75f}, [&](auto fmt, auto f, auto& in, auto& a, auto& b) {
      synetk::FusedLayer1<float, decltype(f)>()(in.data(), bias.data(), scale.data(), bias1.data(), C, S,
                                                a.data());
      SimdSynetFusedLayerForward1(in.data(), bias.data(), scale.data(), bias1.data(), C, S, b.data(), fmt);
    });
    // x = src*scale[c] + bias[c]; max(0, x) + min(0, x)*slope[0]
    const std::vector<float> scale2 = {0.5f, 2}, bias2 = {0.25f, -1};
    const float slope = 0.1f;
    check("type 2", C, {-0.075f, 1.75f, -0.3f, 7}, [&](auto fmt, auto f, auto& in, auto& a, auto& b) {
      synetk::FusedLayer2<float, decltype(f)>()(in.data(), scale2.data(), bias2.data(), C, S, &slope,
                                                a.data());
      SimdSynetFusedLayerForward2(in.data(), scale2.data(), bias2.data(), C, S, &slope, b.data(), fmt);
    });
    // x = src + bias[c]; max(0, x) + min(0, x)*scale[c]: bias second, scale third
    check("type 3", C, {-0.15f, 3.5f, -0.25f, 3.75f}, [&](auto fmt, auto f, auto& in, auto& a, auto& b) {
      synetk::FusedLayer3<float, decltype(f)>()(in.data(), bias.data(), scale.data(), C, S, a.data());
      SimdSynetFusedLayerForward3(in.data(), bias.data(), scale.data(), C, S, b.data(), fmt);
    });
    // A per-channel PReLU: zero bias, then the slopes.
    const std::vector<float> zeros = {0, 0};
    check("type 3 PReLU", C, {-0.2f, 3, -0.2f, 4}, [&](auto fmt, auto f, auto& in, auto& a, auto& b) {
      synetk::FusedLayer3<float, decltype(f)>()(in.data(), zeros.data(), scale.data(), C, S, a.data());
      SimdSynetFusedLayerForward3(in.data(), zeros.data(), scale.data(), C, S, b.data(), fmt);
    });
    // max(0, src + bias0[c]), then max(0, x*scale1[0] + bias1[0])
    const float scale4 = -2, bias4 = 1;
    check("type 4", 2 * C, {0, 3.5f, 0, 3.75f, 4, 0, 3.5f, 0}, [&](auto fmt, auto f, auto& in, auto& a, auto& b) {
      synetk::FusedLayer4<float, decltype(f)>()(in.data(), bias.data(), &scale4, &bias4, C, S, a.data());
      SimdSynetFusedLayerForward4(in.data(), bias.data(), &scale4, &bias4, C, S, b.data(), fmt);
    });
    // src0 + src1*src2[c]
    const std::vector<float> mul = {1, 2, 3, 4}, src2 = {10, 100};
    check("type 8", C, {8, 23, 299, 404}, [&](auto fmt, auto f, auto& in, auto& a, auto& b) {
      const auto m = fmt == SimdTensorFormatNhwc ? toNhwc(mul, C) : mul;
      synetk::FusedLayer8<float, decltype(f)>()(in.data(), m.data(), src2.data(), C, S, a.data());
      SimdSynetFusedLayerForward8(in.data(), m.data(), src2.data(), C, S, b.data(), fmt);
    });
  });
}

// Type 9 concatenates two inputs: max(0, v*scale[c] + bias[c]) with c the
// output channel, and the plain concatenation into dst1.
TEST_CASE("fused type 9 parameters play their documented roles", "[fused][simd]") {
  using namespace synetk::simd;
  const size_t S = 2;
  const std::vector<float> src0 = {-2, 3}, src1 = {-1, 4}, scale = {2, 3}, bias = {1, 10};
  const std::vector<float> want = {0, 7, 7, 22}, plain = {-2, 3, -1, 4};  // NCHW
  SYNETK_FOR_EACH_TARGET([&] {
    for (const auto format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
      const bool nhwc = format == SimdTensorFormatNhwc;
      std::vector<float> a0(4), a1(4), b0(4), b1(4);
      if (nhwc) {
        synetk::FusedLayer9<float, synetk::Nhwc>()(src0.data(), src1.data(), scale.data(), bias.data(), 1, 1,
                                                   S, a0.data(), a1.data());
      } else {
        synetk::FusedLayer9<float, synetk::Nchw>()(src0.data(), src1.data(), scale.data(), bias.data(), 1, 1,
                                                   S, a0.data(), a1.data());
      }
      SimdSynetFusedLayerForward9(src0.data(), src1.data(), scale.data(), bias.data(), 1, 1, S, b0.data(),
                                  b1.data(), format);
      for (size_t c = 0; c < 2; ++c)
        for (size_t s = 0; s < S; ++s) {
          const size_t i = nhwc ? s * 2 + c : c * S + s;
          INFO((nhwc ? "NHWC" : "NCHW") << " c " << c << " s " << s);
          CHECK(a0[i] == want[c * S + s]);
          CHECK(b0[i] == want[c * S + s]);
          CHECK(a1[i] == plain[c * S + s]);
          CHECK(b1[i] == plain[c * S + s]);
        }
    }
  });
}
