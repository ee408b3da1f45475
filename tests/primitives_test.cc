// Copyright synetk authors. SPDX-License-Identifier: MIT
// The target-specific primitives of detail/quant_ops-inl.h,
// detail/pool_ops-inl.h and detail/two_tables-inl.h on every target:
// each one's per-target body and its generic body against a scalar
// reference written from the primitive's contract (so a body that agrees
// with the other but not with the contract fails too). This TU compiles the
// primitives for every target itself (foreach_target), not the kernels.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "primitives_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "synetk/detail/pool_ops-inl.h"
#include "synetk/detail/two_tables-inl.h"
#include "synetk/detail/quant_ops-inl.h"

#ifndef SYNETK_TEST_PRIMITIVES_ONCE_
#define SYNETK_TEST_PRIMITIVES_ONCE_
namespace synetk_test {
namespace primitives {

// Scalar references, from the contracts in quant_ops-inl.h.
inline int32_t Clamp(int64_t v, int64_t lo, int64_t hi) {
  return static_cast<int32_t>(v < lo ? lo : v > hi ? hi : v);
}
inline int32_t NearestOrMinRef(float v) {
  if (std::isnan(v) || std::fabs(v) >= 2147483648.0f) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(std::nearbyint(v));  // the default mode: to nearest even
}
inline uint16_t BF16Ref(float v) {  // round to nearest even, v not NaN
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

// Random int32 values around the edges that the narrowing saturates at.
inline int32_t EdgyInt32(std::mt19937& rng) {
  static const int32_t kEdges[] = {0, 127, 128, 255, 256, -128, -129, 32767, 32768, -32767,
                                   -32768, -32769, 65535, std::numeric_limits<int32_t>::min(),
                                   std::numeric_limits<int32_t>::max()};
  switch (rng() % 4) {
    case 0: {  // an edge, or one either side of it (wrapping around at the int32 ends)
      const uint32_t edge = static_cast<uint32_t>(kEdges[rng() % (sizeof(kEdges) / sizeof(kEdges[0]))]);
      return static_cast<int32_t>(edge + rng() % 3 - 1u);
    }
    case 1: return static_cast<int32_t>(rng() % 601) - 300;
    case 2: return static_cast<int32_t>(rng() % 140001) - 70000;
    default: return static_cast<int32_t>(rng());
  }
}

}  // namespace primitives
}  // namespace synetk_test
#endif

HWY_BEFORE_NAMESPACE();
namespace synetk_test {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace sk = synetk::HWY_NAMESPACE;
using namespace synetk_test::primitives;  // NOLINT

// Collects the first few failures of one target.
struct Failures {
  std::ostringstream text;
  size_t count = 0;
  template <class T, class U>
  void Expect(bool ok, const char* what, size_t i, T got, U want) {
    if (ok) return;
    if (++count <= 8) text << what << ": element " << i << " is " << +got << ", want " << +want << "\n";
  }
};

// StoreQ4 (and its generic body) against the scalar narrowing.
template <typename Q, bool kAdd16, bool kEvenOdd, bool kCheck>
void CheckStoreQ4(std::mt19937& rng, Failures& f) {
  const size_t before = f.count;
  const hn::ScalableTag<int32_t> di;
  const size_t N = hn::Lanes(di);
  std::vector<int32_t> r(4 * N);
  std::vector<Q> want(4 * N), fast(4 * N), generic(4 * N);
  for (int rep = 0; rep < 200; ++rep) {
    const int16_t add16 = kAdd16 ? static_cast<int16_t>(static_cast<int>(rng() % 601) - 300) : 0;
    bool low = false;
    for (size_t i = 0; i < 4 * N; ++i) {
      r[i] = kAdd16 ? EdgyInt32(rng)
                    : Clamp(EdgyInt32(rng), std::numeric_limits<Q>::min(), std::numeric_limits<Q>::max());
      if (kCheck && rep % 2 == 0) r[i] = Clamp(r[i], -32767, 32767);  // most blocks store
      low = low || r[i] <= -32768;
    }
    // Element m of the output: r in order, or (kEvenOdd) even m from r0/r2.
    for (size_t m = 0; m < 4 * N; ++m) {
      const size_t h = m / (2 * N), j = m % (2 * N);
      const int32_t x = kEvenOdd ? r[2 * N * h + (j % 2) * N + j / 2] : r[m];
      const int32_t y = kAdd16 ? Clamp(int64_t{Clamp(x, -32768, 32767)} + add16, -32768, 32767) : x;
      want[m] = static_cast<Q>(Clamp(y, std::numeric_limits<Q>::min(), std::numeric_limits<Q>::max()));
    }
    const auto v = [&](size_t k) { return hn::LoadU(di, r.data() + k * N); };
    std::fill(fast.begin(), fast.end(), Q(7));
    std::fill(generic.begin(), generic.end(), Q(7));
    const bool storedFast = sk::StoreQ4<Q, kAdd16, kEvenOdd, kCheck>(di, v(0), v(1), v(2), v(3),
                                                                     fast.data(), add16);
    const bool storedGeneric = sk::StoreQ4Generic<Q, kAdd16, kEvenOdd, kCheck>(
        di, v(0), v(1), v(2), v(3), generic.data(), add16);
    const bool stores = !(kCheck && low);
    f.Expect(storedFast == stores, "StoreQ4 return", 0, storedFast, stores);
    f.Expect(storedGeneric == stores, "StoreQ4Generic return", 0, storedGeneric, stores);
    for (size_t m = 0; m < 4 * N; ++m) {
      const Q expect = stores ? want[m] : Q(7);
      f.Expect(fast[m] == expect, "StoreQ4", m, fast[m], expect);
      f.Expect(generic[m] == expect, "StoreQ4Generic", m, generic[m], expect);
    }
  }
  if (f.count > before) {
    f.text << "  (StoreQ4: " << (std::is_signed_v<Q> ? "int8" : "uint8") << ", kAdd16 " << kAdd16
           << ", kEvenOdd " << kEvenOdd << ", kCheck " << kCheck << ")\n";
  }
}

void CheckNearestOrMin(std::mt19937& rng, Failures& f) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const size_t N = hn::Lanes(df);
  std::vector<float> v(N);
  std::vector<int32_t> fast(N), generic(N);
  static const float kEdges[] = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, -0.0f, 4194304.5f, 8388607.5f,
                                 8388608.0f, 16777217.0f, 2147483520.0f, 2147483648.0f,
                                 -2147483648.0f, -2147483904.0f, 1e-40f, INFINITY, -INFINITY, NAN};
  for (int rep = 0; rep < 400; ++rep) {
    for (size_t i = 0; i < N; ++i) {
      const uint32_t k = rng() % 3;
      if (k == 0) {
        v[i] = kEdges[rng() % (sizeof(kEdges) / sizeof(kEdges[0]))];
      } else if (k == 1) {
        v[i] = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 4.0f;  // ties
      } else {
        const uint32_t bits = rng();
        std::memcpy(&v[i], &bits, 4);
      }
    }
    const auto x = hn::LoadU(df, v.data());
    hn::StoreU(sk::NearestOrMin(df, x), di, fast.data());
    hn::StoreU(sk::NearestOrMinGeneric(df, x), di, generic.data());
    for (size_t i = 0; i < N; ++i) {
      f.Expect(fast[i] == NearestOrMinRef(v[i]), "NearestOrMin", i, fast[i], NearestOrMinRef(v[i]));
      f.Expect(generic[i] == NearestOrMinRef(v[i]), "NearestOrMinGeneric", i, generic[i],
               NearestOrMinRef(v[i]));
    }
  }
}

// PackBlocks<uint8_t> and PackBlocksU8Except (and their generic bodies): per
// 128-bit block, lo's 8 lanes then hi's, saturated to 0..255.
template <class D16>
void CheckPackBlocks(D16 d16, std::mt19937& rng, Failures& f) {
  const hn::Repartition<uint8_t, decltype(d16)> d8;
  const size_t N = hn::Lanes(d16);
  std::vector<int16_t> in(2 * N);
  std::vector<uint8_t> x(2 * N), want(2 * N), got(2 * N);
  for (int rep = 0; rep < 200; ++rep) {
    for (auto& v : in) v = static_cast<int16_t>(rng() % 4 == 0 ? rng() : rng() % 400 - 70);
    for (auto& b : x) b = static_cast<uint8_t>(rng() % 4);
    const uint8_t ex = 2, ey = 99;
    for (size_t b = 0; b < N; b += 8) {
      for (size_t j = 0; j < 16; ++j) {
        want[2 * b + j] = static_cast<uint8_t>(Clamp(in[(j < 8 ? 0 : N) + b + j % 8], 0, 255));
      }
    }
    const auto lo = hn::LoadU(d16, in.data()), hi = hn::LoadU(d16, in.data() + N);
    const auto xv = hn::LoadU(d8, x.data());
    const auto check = [&](const char* what, hn::Vec<decltype(d8)> y, bool except) {
      hn::StoreU(y, d8, got.data());
      for (size_t i = 0; i < 2 * N; ++i) {
        const uint8_t w = except && x[i] == ex ? ey : want[i];
        f.Expect(got[i] == w, what, i, got[i], w);
      }
    };
    check("PackBlocks<uint8_t>", sk::PackBlocks<uint8_t>(d16, lo, hi), false);
    check("PackBlocksGeneric<uint8_t>", sk::PackBlocksGeneric<uint8_t>(d16, lo, hi), false);
    const auto vex = hn::Set(d8, ex), vey = hn::Set(d8, ey);
    check("PackBlocksU8Except", sk::PackBlocksU8Except(d16, lo, hi, xv, vex, vey), true);
    check("PackBlocksU8ExceptGeneric", sk::PackBlocksU8ExceptGeneric(d16, lo, hi, xv, vex, vey),
          true);
  }
}

void CheckShiftRightBy(std::mt19937& rng, Failures& f) {
  const hn::ScalableTag<int16_t> d16;
  const size_t N = hn::Lanes(d16);
  std::vector<int16_t> in(N), fast(N), generic(N);
  for (int s = 0; s < 16; ++s) {
    for (auto& v : in) v = static_cast<int16_t>(rng());
    const auto x = hn::LoadU(d16, in.data());
    hn::StoreU(sk::ShiftRightBy(d16, x, s), d16, fast.data());
    hn::StoreU(sk::ShiftRightByGeneric(d16, x, s), d16, generic.data());
    for (size_t i = 0; i < N; ++i) {
      // Arithmetic shift, written as a floor division (>> of a negative
      // value is implementation-defined before C++20).
      const int16_t want = static_cast<int16_t>(std::floor(in[i] / static_cast<double>(1 << s)));
      f.Expect(fast[i] == want, "ShiftRightBy", i, fast[i], want);
      f.Expect(generic[i] == want, "ShiftRightByGeneric", i, generic[i], want);
    }
  }
}

// LoadQ4Partial and StoreQ4Partial (and their generic bodies): n elements
// widened in order with zeros after them, and exactly n elements stored
// (guards after them untouched), for every n below four vectors.
template <typename Q>
void CheckQ4Partial(std::mt19937& rng, Failures& f) {
  const hn::ScalableTag<int32_t> di;
  const size_t N = hn::Lanes(di);
  using V = hn::Vec<decltype(di)>;
  constexpr int32_t kLo = std::numeric_limits<Q>::min(), kHi = std::numeric_limits<Q>::max();
  std::vector<Q> in(4 * N + 8), fast(4 * N + 8), generic(4 * N + 8);
  std::vector<int32_t> r(4 * N), got(4 * N);
  for (size_t n = 1; n < 4 * N; ++n) {
    for (auto& x : in) x = static_cast<Q>(static_cast<int32_t>(rng() % 256) + kLo);
    for (auto& x : r) x = static_cast<int32_t>(rng() % (kHi - kLo + 1)) + kLo;
    const auto check = [&](const char* what, V r0, V r1, V r2, V r3) {
      hn::StoreU(r0, di, got.data());
      hn::StoreU(r1, di, got.data() + N);
      hn::StoreU(r2, di, got.data() + 2 * N);
      hn::StoreU(r3, di, got.data() + 3 * N);
      for (size_t i = 0; i < 4 * N; ++i) {
        const int32_t want = i < n ? int32_t{in[i]} : 0;
        f.Expect(got[i] == want, what, i, got[i], want);
      }
    };
    V a0, a1, a2, a3, b0, b1, b2, b3;
    sk::LoadQ4Partial(di, in.data(), n, a0, a1, a2, a3);
    check("LoadQ4Partial", a0, a1, a2, a3);
    sk::LoadQ4PartialGeneric(di, in.data(), n, b0, b1, b2, b3);
    check("LoadQ4PartialGeneric", b0, b1, b2, b3);
    const auto v = [&](size_t k) { return hn::LoadU(di, r.data() + k * N); };
    std::fill(fast.begin(), fast.end(), Q(7));
    std::fill(generic.begin(), generic.end(), Q(7));
    sk::StoreQ4Partial(di, v(0), v(1), v(2), v(3), fast.data(), n);
    sk::StoreQ4PartialGeneric(di, v(0), v(1), v(2), v(3), generic.data(), n);
    for (size_t i = 0; i < fast.size(); ++i) {
      const int32_t want = i < n ? r[i] : 7;
      f.Expect(int32_t{fast[i]} == want, "StoreQ4Partial", i, fast[i], want);
      f.Expect(int32_t{generic[i]} == want, "StoreQ4PartialGeneric", i, generic[i], want);
    }
  }
}

void CheckStoreBF16Pair(std::mt19937& rng, Failures& f) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  std::vector<float> in(2 * N);
  std::vector<hwy::bfloat16_t> fast(2 * N), generic(2 * N);
  for (int rep = 0; rep < 200; ++rep) {
    for (auto& v : in) {
      uint32_t bits = rng();
      if (rng() % 4 == 0) bits = (bits & 0xFFFF0000u) | 0x8000u;  // ties
      if ((bits & 0x7F800000u) == 0x7F800000u) bits &= 0xFF7FFFFFu;  // no NaN, no infinity
      std::memcpy(&v, &bits, 4);
    }
    const auto v0 = hn::LoadU(df, in.data()), v1 = hn::LoadU(df, in.data() + N);
    sk::StoreBF16Pair(df, v0, v1, fast.data());
    sk::StoreBF16PairGeneric(df, v0, v1, generic.data());
    for (size_t i = 0; i < 2 * N; ++i) {
      uint16_t a, b;
      std::memcpy(&a, &fast[i], 2);
      std::memcpy(&b, &generic[i], 2);
      f.Expect(a == BF16Ref(in[i]), "StoreBF16Pair", i, a, BF16Ref(in[i]));
      f.Expect(b == BF16Ref(in[i]), "StoreBF16PairGeneric", i, b, BF16Ref(in[i]));
    }
  }
}

void CheckBytePermutes(std::mt19937& rng, Failures& f) {
  const hn::ScalableTag<uint8_t> d8;
  const size_t L = hn::Lanes(d8);
  std::vector<uint8_t> a(L), idx(L), got(L);
  for (int rep = 0; rep < 100; ++rep) {
    for (size_t i = 0; i < L; ++i) {
      a[i] = static_cast<uint8_t>(rng());
      idx[i] = static_cast<uint8_t>(rng());
    }
    const auto va = hn::LoadU(d8, a.data());
    const auto vi = hn::LoadU(d8, idx.data());
    const auto one = [&](const char* what, hn::Vec<decltype(d8)> y) {
      hn::StoreU(y, d8, got.data());
      for (size_t i = 0; i < L; ++i) f.Expect(got[i] == a[idx[i] % L], what, i, got[i], a[idx[i] % L]);
    };
    one("PermuteBytes", sk::PermuteBytes(d8, va, vi));
    one("PermuteBytesGeneric", sk::PermuteBytesGeneric(d8, va, vi));
    if constexpr (hn::MaxLanes(decltype(d8)()) >= 16) {
      const auto halves = [&](const char* what, hn::Vec<decltype(d8)> y) {
        hn::StoreU(y, d8, got.data());
        for (size_t i = 0; i < L; ++i) {
          const size_t q = i / 8, B = L / 16;  // output qword q; blocks
          const size_t from = 16 * (q % B) + 8 * (q / B) + i % 8;
          f.Expect(got[i] == a[from], what, i, got[i], a[from]);
        }
      };
      halves("GatherBlockHalves", sk::GatherBlockHalves(d8, va));
      halves("GatherBlockHalvesGeneric", sk::GatherBlockHalvesGeneric(d8, va));
    }
  }
}

// PoolShiftIn<kShift> (and the generic body): lanes kShift.. of {lo, hi}.
template <size_t kShift, class D>
void CheckShiftIn(D d, std::mt19937& rng, Failures& f) {
  using T = hn::TFromD<D>;
  const size_t N = hn::Lanes(d);
  std::vector<T> in(2 * N), got(N);
  for (auto& v : in) v = static_cast<T>(rng() % 100);
  const auto lo = hn::LoadU(d, in.data()), hi = hn::LoadU(d, in.data() + N);
  hn::StoreU(sk::PoolShiftIn<kShift>(d, lo, hi), d, got.data());
  for (size_t i = 0; i < N; ++i) f.Expect(got[i] == in[kShift + i], "PoolShiftIn", i, got[i], in[kShift + i]);
  hn::StoreU(sk::PoolShiftInGeneric(d, lo, hi, kShift), d, got.data());
  for (size_t i = 0; i < N; ++i) {
    f.Expect(got[i] == in[kShift + i], "PoolShiftInGeneric", i, got[i], in[kShift + i]);
  }
}

template <class D>
void CheckShiftIns(D d, std::mt19937& rng, Failures& f) {
  constexpr size_t kN = hn::MaxLanes(D());
  CheckShiftIn<0>(d, rng, f);
  CheckShiftIn<kN>(d, rng, f);
  if constexpr (kN >= 2) CheckShiftIn<1>(d, rng, f);
  if constexpr (kN >= 4) CheckShiftIn<3>(d, rng, f);
  if constexpr (kN >= 8) CheckShiftIn<kN / 2>(d, rng, f);
  if constexpr (kN >= 2) CheckShiftIn<kN - 1>(d, rng, f);
}

// TwoTables (and the generic body): lanes idx[i] of {a, b}.
template <class D>
void CheckTwoTables(D d, std::mt19937& rng, Failures& f) {
  using T = hn::TFromD<D>;
  using U = hn::TFromD<hn::RebindToUnsigned<D>>;
  const hn::RebindToUnsigned<D> du;
  const size_t N = hn::Lanes(d);
  std::vector<T> t(2 * N), got(N);
  std::vector<U> idx(N);
  for (int rep = 0; rep < 50; ++rep) {
    for (auto& v : t) v = static_cast<T>(rng() % 120);
    for (auto& x : idx) x = static_cast<U>(rng() % (2 * N));
    const auto a = hn::LoadU(d, t.data()), b = hn::LoadU(d, t.data() + N);
    const auto vi = hn::LoadU(du, idx.data());
    hn::StoreU(sk::TwoTables(d, a, b, vi), d, got.data());
    for (size_t i = 0; i < N; ++i) f.Expect(got[i] == t[idx[i]], "TwoTables", i, got[i], t[idx[i]]);
    hn::StoreU(sk::TwoTablesGeneric(d, a, b, vi), d, got.data());
    for (size_t i = 0; i < N; ++i) {
      f.Expect(got[i] == t[idx[i]], "TwoTablesGeneric", i, got[i], t[idx[i]]);
    }
  }
}

// Runs every check on this target; returns the failures' text (empty: all
// passed).
std::string CheckPrimitives(uint32_t seed) {
  std::mt19937 rng(seed);
  Failures f;
  CheckStoreQ4<uint8_t, false, false, false>(rng, f);
  CheckStoreQ4<int8_t, false, false, false>(rng, f);
  CheckStoreQ4<uint8_t, true, false, true>(rng, f);
  CheckStoreQ4<int8_t, true, false, true>(rng, f);
  CheckStoreQ4<uint8_t, true, true, true>(rng, f);
  CheckStoreQ4<int8_t, false, true, false>(rng, f);
  CheckQ4Partial<uint8_t>(rng, f);
  CheckQ4Partial<int8_t>(rng, f);
  CheckNearestOrMin(rng, f);
  const hn::ScalableTag<int16_t> d16;
  if constexpr (hn::MaxLanes(d16) >= 8) CheckPackBlocks(d16, rng, f);
  CheckShiftRightBy(rng, f);
  CheckStoreBF16Pair(rng, f);
  CheckBytePermutes(rng, f);
  if constexpr (!HWY_HAVE_SCALABLE) {
    CheckShiftIns(hn::ScalableTag<uint8_t>(), rng, f);
    CheckShiftIns(hn::ScalableTag<uint16_t>(), rng, f);
    CheckShiftIns(hn::ScalableTag<float>(), rng, f);
  }
  CheckTwoTables(hn::ScalableTag<uint8_t>(), rng, f);
  CheckTwoTables(hn::ScalableTag<uint16_t>(), rng, f);
  CheckTwoTables(hn::ScalableTag<float>(), rng, f);
  return f.text.str();
}

}  // namespace HWY_NAMESPACE
}  // namespace synetk_test
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "harness.h"

namespace synetk_test {
HWY_EXPORT(CheckPrimitives);

TEST_CASE("the primitives match their generic bodies and the scalar contract",
          "[quant][pooling][primitives]") {
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(t);
    struct Reset {
      ~Reset() { hwy::SetSupportedTargetsForTest(0); }
    } reset;
    INFO("target " << hwy::TargetName(t));
    TargetsRun().insert(hwy::TargetName(t));
    const std::string failures = HWY_DYNAMIC_DISPATCH(CheckPrimitives)(TestSeed());
    CHECK(failures.empty());
    if (!failures.empty()) WARN(failures);
  }
}

}  // namespace synetk_test
#endif
