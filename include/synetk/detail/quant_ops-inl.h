// Copyright synetk authors. SPDX-License-Identifier: MIT
// The quantization kernels' primitives: narrowing (int32 and int16 lanes to
// bytes, fp32 to int32 and to bf16), int16 shifts by a run-time count, and
// byte permutes (two-table ones: two_tables-inl.h).
// Each operation has a generic body in Highway ops (the ...Generic
// functions, compiled for every target) and, where an x86 target does it in
// fewer instructions, a per-target body that gives the same result;
// tests/primitives_test.cc checks the two against each other on every
// target. Kernels call these and Highway ops only. Re-included once per
// Highway target.

#if defined(SYNETK_DETAIL_QUANT_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_DETAIL_QUANT_OPS_INL_H_
#undef SYNETK_DETAIL_QUANT_OPS_INL_H_
#else
#define SYNETK_DETAIL_QUANT_OPS_INL_H_
#endif

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include <hwy/highway.h>

#include "synetk/detail/abi.h"
#include "synetk/detail/elements-inl.h"
#include "synetk/detail/two_tables-inl.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- Capabilities -----------------------------------------------------------
// SYNETK_HAS_BLOCK_PACKS (target_caps.h): StoreQ4 narrows four vectors with
// the x86 packs, and the fixed-point requantization paths, built around
// PackBlocks' block order, run where they are.
inline constexpr bool kHasBlockPacks = SYNETK_HAS_BLOCK_PACKS;

// int16 lanes shift by a count per lane (vpsravw, AVX-512) as fast as by an
// immediate, and faster than by a shared run-time count (vpsraw with an xmm
// count costs about an extra vector operation).
inline constexpr bool kFastLaneShifts16 = SYNETK_HAS_AVX512;

// LoadQ4Partial and StoreQ4Partial are one masked load and one masked store
// (AVX-512), so that a row of one to four vectors of 8-bit elements gains by
// going as one four-vector step; elsewhere they copy through the stack.
inline constexpr bool kQ4PartialInRegisters = SYNETK_HAS_AVX512;

// AVX2's one signed pack and qword permute narrow two vectors of fp32 to 16
// bf16 in order (StoreBF16Pair); elsewhere each vector narrows on its own.
inline constexpr bool kBF16PairStore = SYNETK_IS_X86_AVX2;

// ---- StoreQ: one vector of int32 in Q's range -> Lanes(di) elements -----------
// uint8: U8FromU32 only gathers the low bytes (cheaper than the saturating
// DemoteTo on x86); int8: DemoteTo.
template <typename Q, class DI>
HWY_INLINE hn::Vec<hn::Rebind<Q, DI>> NarrowQ(DI di, hn::Vec<DI> r) {
  const hn::Rebind<Q, DI> dq;
  (void)di;
  if constexpr (ElementTraits<Q>::kEncoding == Encoding::kUint8) {
    const hn::RebindToUnsigned<DI> du;
    return hn::BitCast(dq, hn::U8FromU32(hn::BitCast(du, r)));
  } else {
    return hn::DemoteTo(dq, r);
  }
}
template <typename Q, class DI>
HWY_INLINE void StoreQ(DI di, hn::Vec<DI> r, Q* HWY_RESTRICT p) {
  hn::StoreU(NarrowQ<Q>(di, r), hn::Rebind<Q, DI>(), p);
}

// ---- StoreQ4: four vectors of int32 -> 4*Lanes(di) elements of Q at p --------
// Values are in Q's range, or with kAdd16 any int32 that gets `add16` added
// as the x86 packs do: saturated to int16, add16 added in saturating 16-bit
// lanes, then saturated to Q. With kEvenOdd, r0 and r1 hold the even and odd
// elements of the first 2*Lanes(di), r2 and r3 those of the next 2*Lanes(di).
// With kCheck it stores nothing and returns false where a value is at or
// below -32768 (it would saturate to -32768 in the 32->16 packs); otherwise
// it returns true.
template <typename Q, bool kAdd16, bool kEvenOdd, bool kCheck, class DI>
HWY_INLINE bool StoreQ4Generic(DI di, hn::Vec<DI> r0, hn::Vec<DI> r1, hn::Vec<DI> r2,
                               hn::Vec<DI> r3, Q* HWY_RESTRICT p, int16_t add16) {
  (void)add16;
  const size_t N = hn::Lanes(di);
  if constexpr (kEvenOdd) {  // put the elements in order first
    HWY_ALIGN int32_t in[4 * kMaxLanes<int32_t>], out[4 * kMaxLanes<int32_t>];
    hn::Store(r0, di, in);
    hn::Store(r1, di, in + N);
    hn::Store(r2, di, in + 2 * N);
    hn::Store(r3, di, in + 3 * N);
    for (size_t h = 0; h < 4 * N; h += 2 * N) {
      for (size_t j = 0; j < N; ++j) {
        out[h + 2 * j] = in[h + j];
        out[h + 2 * j + 1] = in[h + N + j];
      }
    }
    r0 = hn::Load(di, out);
    r1 = hn::Load(di, out + N);
    r2 = hn::Load(di, out + 2 * N);
    r3 = hn::Load(di, out + 3 * N);
  }
  if constexpr (kCheck) {
    const auto low = hn::Min(hn::Min(r0, r1), hn::Min(r2, r3));
    if (!hn::AllFalse(di, hn::Lt(low, hn::Set(di, INT16_MIN + 1)))) return false;
  }
  if constexpr (kAdd16) {
    const auto add = [&](hn::Vec<DI> r) HWY_ATTR {
      r = hn::Min(hn::Max(r, hn::Set(di, -32768)), hn::Set(di, 32767));
      r = hn::Add(r, hn::Set(di, add16));  // (Q's range lies inside int16's)
      r = hn::Max(r, hn::Set(di, static_cast<int32_t>(std::numeric_limits<Q>::min())));
      return hn::Min(r, hn::Set(di, static_cast<int32_t>(std::numeric_limits<Q>::max())));
    };
    r0 = add(r0), r1 = add(r1), r2 = add(r2), r3 = add(r3);
  }
  StoreQ(di, r0, p);
  StoreQ(di, r1, p + N);
  StoreQ(di, r2, p + 2 * N);
  StoreQ(di, r3, p + 3 * N);
  return true;
}

// ---- NearestOrMin: fp32 -> int32 as x86's conversion instruction -------------
// To nearest even; INT_MIN for NaN and |v| >= 2^31. (Highway's NearestInt
// turns positive overflow and NaN into INT_MAX, which hides the NaN.) The
// generic body rounds |v| < 2^23 by adding and subtracting 2^23 (exact in
// fp32 to nearest even); larger values are integers already.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToSigned<DF>> NearestOrMinGeneric(DF df, hn::Vec<DF> v) {
  const hn::RebindToSigned<DF> di;
  const auto a = hn::Abs(v);
  const auto out = hn::Not(hn::Lt(a, hn::Set(df, 2147483648.0f)));  // NaN too
  const auto two23 = hn::Set(df, 8388608.0f);
  const auto rounded = hn::CopySignToAbs(hn::Sub(hn::Add(a, two23), two23), v);
  const auto r = hn::IfThenZeroElse(out, hn::IfThenElse(hn::Lt(a, two23), rounded, v));
  return hn::IfThenElse(hn::RebindMask(di, out), hn::Set(di, INT32_MIN), hn::ConvertTo(di, r));
}

template <class DF>
HWY_INLINE hn::Vec<hn::RebindToSigned<DF>> NearestOrMin(DF df, hn::Vec<DF> v) {
#if SYNETK_HAS_BLOCK_PACKS
  using VI = hn::Vec<hn::RebindToSigned<DF>>;
  if constexpr (sizeof(v) == 16) return VI{_mm_cvtps_epi32(v.raw)};
#if SYNETK_HAS_AVX2
  if constexpr (sizeof(v) == 32) return VI{_mm256_cvtps_epi32(v.raw)};
#endif
#if SYNETK_HAS_AVX512
  if constexpr (sizeof(v) == 64) return VI{_mm512_cvtps_epi32(v.raw)};
#endif
#endif
  return NearestOrMinGeneric(df, v);
}

// ---- PackBlocks: two vectors -> one of half-width lanes, saturated -----------
// Per 128-bit block: the low vector's lanes, then the high vector's, each
// saturated to TOut (x86's packssdw: int32 -> int16, packsswb: int16 ->
// int8, packuswb: int16 -> uint8, which need no lane-crossing shuffle). For
// vectors of whole 128-bit blocks.
template <typename TOut, class DIn>
HWY_INLINE hn::Vec<hn::Repartition<TOut, DIn>> PackBlocksGeneric(DIn d, hn::Vec<DIn> lo,
                                                                 hn::Vec<DIn> hi) {
  using TIn = hn::TFromD<DIn>;
  static_assert(hn::MaxLanes(DIn()) * sizeof(TIn) >= 16, "whole 128-bit blocks");
  constexpr size_t K = 16 / sizeof(TIn);  // lanes per block
  const hn::Repartition<TOut, DIn> dout;
  const size_t N = hn::Lanes(d);
  HWY_ALIGN TIn in[2 * kMaxLanes<TIn>];
  HWY_ALIGN TOut out[kMaxLanes<TOut>];
  hn::Store(lo, d, in);
  hn::Store(hi, d, in + N);
  constexpr int64_t kMin = std::numeric_limits<TOut>::min(), kMax = std::numeric_limits<TOut>::max();
  for (size_t b = 0; b < N; b += K) {
    for (size_t j = 0; j < 2 * K; ++j) {
      const int64_t x = in[(j < K ? 0 : N) + b + j % K];
      out[2 * b + j] = static_cast<TOut>(x < kMin ? kMin : x > kMax ? kMax : x);
    }
  }
  return hn::Load(dout, out);
}

template <typename TOut, class DIn>
HWY_INLINE hn::Vec<hn::Repartition<TOut, DIn>> PackBlocks(DIn d, hn::Vec<DIn> lo,
                                                          hn::Vec<DIn> hi) {
#if SYNETK_HAS_BLOCK_PACKS
  using VO = hn::Vec<hn::Repartition<TOut, DIn>>;
  constexpr bool kDwords = sizeof(hn::TFromD<DIn>) == 4;  // else int16 lanes
  constexpr bool kSigned = std::is_signed_v<TOut>;
  if constexpr (sizeof(lo) == 16) {
    if constexpr (kDwords) return VO{_mm_packs_epi32(lo.raw, hi.raw)};
    return VO{kSigned ? _mm_packs_epi16(lo.raw, hi.raw) : _mm_packus_epi16(lo.raw, hi.raw)};
  }
#if SYNETK_HAS_AVX2
  if constexpr (sizeof(lo) == 32) {
    if constexpr (kDwords) return VO{_mm256_packs_epi32(lo.raw, hi.raw)};
    return VO{kSigned ? _mm256_packs_epi16(lo.raw, hi.raw) : _mm256_packus_epi16(lo.raw, hi.raw)};
  }
#endif
#if SYNETK_HAS_AVX512
  if constexpr (sizeof(lo) == 64) {
    if constexpr (kDwords) return VO{_mm512_packs_epi32(lo.raw, hi.raw)};
    return VO{kSigned ? _mm512_packs_epi16(lo.raw, hi.raw) : _mm512_packus_epi16(lo.raw, hi.raw)};
  }
#endif
#endif
  return PackBlocksGeneric<TOut>(d, lo, hi);
}

// PackBlocks<uint8_t>(lo, hi), except that bytes where x equals ex become ey.
// AVX-512: ey as the merge source of a masked pack, the compare and the pack
// without a byte blend after them.
template <class D16, class V8 = hn::Vec<hn::Repartition<uint8_t, D16>>>
HWY_INLINE V8 PackBlocksU8ExceptGeneric(D16 d16, hn::Vec<D16> lo, hn::Vec<D16> hi, V8 x, V8 ex,
                                        V8 ey) {
  return hn::IfThenElse(hn::Eq(x, ex), ey, PackBlocks<uint8_t>(d16, lo, hi));
}

template <class D16, class V8 = hn::Vec<hn::Repartition<uint8_t, D16>>>
HWY_INLINE V8 PackBlocksU8Except(D16 d16, hn::Vec<D16> lo, hn::Vec<D16> hi, V8 x, V8 ex, V8 ey) {
#if SYNETK_HAS_AVX512
  if constexpr (sizeof(lo) == 64) {
    const __mmask64 keep = _mm512_cmpneq_epi8_mask(x.raw, ex.raw);
    return V8{_mm512_mask_packus_epi16(ey.raw, keep, lo.raw, hi.raw)};
  }
#endif
  return PackBlocksU8ExceptGeneric(d16, lo, hi, x, ex, ey);
}

// ---- ShiftRightBy: v >> s (arithmetic) in every int16 lane, s at run time -----
// AVX-512 (kFastLaneShifts16) shifts each lane by its own count from a
// broadcast s; the other targets take the immediate form for s = 7, the
// shift of every QuantizedScale channel whose |slope| is below 1. bench:
// BM_QuantScaleContext<true>/C:64/HW:3136/nhwc:1.
template <class D16>
HWY_INLINE hn::Vec<D16> ShiftRightByGeneric(D16 /*d16*/, hn::Vec<D16> v, int s) {
  return hn::ShiftRightSame(v, s);
}

template <class D16>
HWY_INLINE hn::Vec<D16> ShiftRightBy(D16 d16, hn::Vec<D16> v, int s) {
  if constexpr (kFastLaneShifts16) {
    return hn::Shr(v, hn::Set(d16, static_cast<hn::TFromD<D16>>(s)));
  } else {
    if (s == 7) return hn::ShiftRight<7>(v);
    return ShiftRightByGeneric(d16, v, s);
  }
}

// ---- StoreBF16Pair: two fp32 vectors, never NaN -> 2*Lanes(df) bf16 at p -------
// Round to nearest even. AVX2: the rounded bits shifted right arithmetically
// are the bf16 patterns as int16 values, which one signed pack narrows
// exactly and one qword permute puts in order: half the shuffles of two
// separate narrowing stores.
template <class DF>
HWY_INLINE void StoreBF16PairGeneric(DF df, hn::Vec<DF> v0, hn::Vec<DF> v1,
                                     hwy::bfloat16_t* HWY_RESTRICT p) {
  const hn::RebindToUnsigned<DF> du32;
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<uint16_t, DF> d16;
  const auto bits = [&](hn::Vec<DF> v) HWY_ATTR {
    return hn::BitCast(di32, hn::ShiftRight<16>(BF16RoundedBits(du32, hn::BitCast(du32, v))));
  };
  uint16_t* const out = reinterpret_cast<uint16_t*>(p);
  hn::StoreU(hn::DemoteTo(d16, bits(v0)), d16, out);
  hn::StoreU(hn::DemoteTo(d16, bits(v1)), d16, out + hn::Lanes(df));
}

template <class DF>
HWY_INLINE void StoreBF16Pair(DF df, hn::Vec<DF> v0, hn::Vec<DF> v1,
                              hwy::bfloat16_t* HWY_RESTRICT p) {
#if SYNETK_IS_X86_AVX2
  if constexpr (sizeof(v0) == 32) {
    const hn::RebindToUnsigned<DF> du32;
    const auto round = [&](hn::Vec<DF> v) HWY_ATTR {
      return _mm256_srai_epi32(BF16RoundedBits(du32, hn::BitCast(du32, v)).raw, 16);
    };
    const __m256i packed =
        _mm256_permute4x64_epi64(_mm256_packs_epi32(round(v0), round(v1)), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), packed);
    return;
  }
#endif
  StoreBF16PairGeneric(df, v0, v1, p);
}

// ---- Byte permutes --------------------------------------------------------------
// PermuteBytes: byte idx[i] % Lanes of v, for every i (AVX-512 VBMI: vpermb).
template <class D8>
HWY_INLINE hn::Vec<D8> PermuteBytesGeneric(D8 d8, hn::Vec<D8> v, hn::Vec<D8> idx) {
  const size_t L = hn::Lanes(d8);
  HWY_ALIGN uint8_t t[kMaxLanes<uint8_t>], x[kMaxLanes<uint8_t>], out[kMaxLanes<uint8_t>];
  hn::Store(v, d8, t);
  hn::Store(idx, d8, x);
  for (size_t i = 0; i < L; ++i) out[i] = t[x[i] % L];
  return hn::Load(d8, out);
}

template <class D8>
HWY_INLINE hn::Vec<D8> PermuteBytes(D8 d8, hn::Vec<D8> v, hn::Vec<D8> idx) {
#if SYNETK_HAS_VBMI_PERMUTE
  if constexpr (sizeof(v) == 64) return hn::Vec<D8>{_mm512_permutexvar_epi8(idx.raw, v.raw)};
#endif
  return PermuteBytesGeneric(d8, v, idx);
}

// GatherBlockHalves: the low 8 bytes of every 128-bit block of v in order,
// then the high 8 bytes of every block (AVX2: one vpermq).
template <class D8>
HWY_INLINE hn::Vec<D8> GatherBlockHalvesGeneric(D8 d8, hn::Vec<D8> v) {
  const hn::Repartition<uint64_t, D8> d64;
  const size_t N = hn::Lanes(d64);
  HWY_ALIGN uint64_t idx[kMaxLanes<uint64_t>];
  for (size_t i = 0; i < N; ++i) idx[i] = i < N / 2 ? 2 * i : 2 * (i - N / 2) + 1;
  const auto table = hn::SetTableIndices(d64, idx);
  return hn::BitCast(d8, hn::TableLookupLanes(hn::BitCast(d64, v), table));
}

template <class D8>
HWY_INLINE hn::Vec<D8> GatherBlockHalves(D8 d8, hn::Vec<D8> v) {
#if SYNETK_IS_X86_AVX2
  if constexpr (sizeof(v) == 32) return hn::Vec<D8>{_mm256_permute4x64_epi64(v.raw, 0xD8)};
#endif
  return GatherBlockHalvesGeneric(d8, v);
}

// ---- StoreQ4: the per-target body (x86 packs; the contract is above) ----------
// x86 with full vectors: two 32->16 packs, one 16->8 pack and (with more than
// one block) one dword or byte permute replace four narrowings (two shuffles
// each) and four partial stores. Elsewhere, and for partial vectors, the
// generic body.
//
// NarrowQ4 is its narrowing without the store, for x86 with full vectors:
// the 4*Lanes(di) bytes in order; with kCheck, *ok tells whether StoreQ4
// would store them.
template <typename Q, bool kAdd16 = false, bool kEvenOdd = false, bool kCheck = false, class DI>
HWY_INLINE hn::Vec<hn::Repartition<uint8_t, DI>> NarrowQ4(DI di, hn::Vec<DI> r0, hn::Vec<DI> r1,
                                                         hn::Vec<DI> r2, hn::Vec<DI> r3,
                                                         int16_t add16 = 0, bool* ok = nullptr) {
  constexpr size_t kN = hn::MaxLanes(DI());
  const hn::Repartition<int16_t, DI> d16;
  const hn::Repartition<uint8_t, DI> d8;
  auto ab = PackBlocks<int16_t>(di, r0, r1), cd = PackBlocks<int16_t>(di, r2, r3);
  if constexpr (kCheck) {  // a lane saturated to -32768
    *ok = hn::AllFalse(d16, hn::Eq(hn::Min(ab, cd), hn::Set(d16, INT16_MIN)));
  }
  if constexpr (kAdd16) {
    ab = hn::SaturatedAdd(ab, hn::Set(d16, add16));
    cd = hn::SaturatedAdd(cd, hn::Set(d16, add16));
  }
  auto bytes = [&]() HWY_ATTR {
    if constexpr (ElementTraits<Q>::kEncoding == Encoding::kUint8) {
      return PackBlocks<uint8_t>(d16, ab, cd);
    } else {
      return hn::BitCast(d8, PackBlocks<int8_t>(d16, ab, cd));
    }
  }();
  if constexpr (kEvenOdd) {
    // Block k holds bytes (r0, r1, r2, r3)[4k..4k+3]; element m < 2N is
    // r0[m/2] (even m) or r1[m/2], element 2N + m likewise in r2 or r3.
    alignas(64) static constexpr std::array<uint8_t, 4 * kN> kOrder = [] {
      std::array<uint8_t, 4 * kN> order{};
      for (size_t m = 0; m < 4 * kN; ++m) {
        const size_t half = m / (2 * kN), j = m % (2 * kN) / 2;  // r0/r1 or r2/r3, the lane
        order[m] = static_cast<uint8_t>(16 * (j / 4) + 8 * half + 4 * (m % 2) + j % 4);
      }
      return order;
    }();
    bytes = PermuteBytes(d8, bytes, hn::Load(d8, kOrder.data()));
  } else if constexpr (kN > 4) {
    // Block k holds dwords (r0, r1, r2, r3)[4k..4k+3]: gather them in order.
    const hn::Repartition<uint32_t, DI> du32;
    alignas(64) static constexpr std::array<uint32_t, kN> kOrder = [] {
      std::array<uint32_t, kN> order{};
      for (size_t j = 0; j < kN; ++j) {
        order[j] = static_cast<uint32_t>(4 * (j % (kN / 4)) + j / (kN / 4));
      }
      return order;
    }();
    const auto dwords = hn::BitCast(du32, bytes);
    const auto order = hn::SetTableIndices(du32, kOrder.data());
    bytes = hn::BitCast(d8, hn::TableLookupLanes(dwords, order));
  }
  return bytes;
}

template <typename Q, bool kAdd16 = false, bool kEvenOdd = false, bool kCheck = false, class DI>
HWY_INLINE bool StoreQ4(DI di, hn::Vec<DI> r0, hn::Vec<DI> r1, hn::Vec<DI> r2, hn::Vec<DI> r3,
                        Q* HWY_RESTRICT p, int16_t add16 = 0) {
  constexpr size_t kN = hn::MaxLanes(DI());
  constexpr bool kFull = !HWY_HAVE_SCALABLE && kN * sizeof(int32_t) == HWY_MAX_BYTES;
  if constexpr (kHasBlockPacks && kFull && kN >= 4 && (!kEvenOdd || SYNETK_HAS_VBMI_PERMUTE)) {
    bool ok = true;
    const auto bytes = NarrowQ4<Q, kAdd16, kEvenOdd, kCheck>(di, r0, r1, r2, r3, add16, &ok);
    if (kCheck && !ok) return false;
    hn::StoreU(bytes, hn::Repartition<uint8_t, DI>(), reinterpret_cast<uint8_t*>(p));
    return true;
  }
  return StoreQ4Generic<Q, kAdd16, kEvenOdd, kCheck>(di, r0, r1, r2, r3, p, add16);
}

// ---- LoadQ4Partial / StoreQ4Partial: n < 4*Lanes(di) 8-bit elements -------------
// LoadQ4Partial: r0..r3 = the n elements of Q at p, widened to int32 in
// order, zeros past n; nothing past p[n - 1] is read. StoreQ4Partial: r0..r3
// narrowed as StoreQ4 narrows them (kAdd16 = kEvenOdd = kCheck = false),
// exactly the first n elements written at p.
template <typename Q, class DI>
HWY_INLINE void LoadQ4PartialGeneric(DI di, const Q* HWY_RESTRICT p, size_t n, hn::Vec<DI>& r0,
                                     hn::Vec<DI>& r1, hn::Vec<DI>& r2, hn::Vec<DI>& r3) {
  const size_t N = hn::Lanes(di);
  const hn::Rebind<Q, DI> dq;
  HWY_ALIGN Q buf[4 * kMaxLanes<int32_t>] = {};
  std::memcpy(buf, p, n * sizeof(Q));
  r0 = hn::PromoteTo(di, hn::Load(dq, buf));
  r1 = hn::PromoteTo(di, hn::Load(dq, buf + N));
  r2 = hn::PromoteTo(di, hn::Load(dq, buf + 2 * N));
  r3 = hn::PromoteTo(di, hn::Load(dq, buf + 3 * N));
}

template <typename Q, class DI>
HWY_INLINE void StoreQ4PartialGeneric(DI di, hn::Vec<DI> r0, hn::Vec<DI> r1, hn::Vec<DI> r2,
                                      hn::Vec<DI> r3, Q* HWY_RESTRICT p, size_t n) {
  HWY_ALIGN Q buf[4 * kMaxLanes<int32_t>];
  StoreQ4<Q>(di, r0, r1, r2, r3, buf);
  std::memcpy(p, buf, n * sizeof(Q));
}

template <typename Q, class DI>
HWY_INLINE void LoadQ4Partial(DI di, const Q* HWY_RESTRICT p, size_t n, hn::Vec<DI>& r0,
                              hn::Vec<DI>& r1, hn::Vec<DI>& r2, hn::Vec<DI>& r3) {
#if SYNETK_HAS_AVX512
  if constexpr (sizeof(Q) == 1 && hn::MaxLanes(DI()) == 16) {
    const hn::Repartition<Q, DI> d8;  // 4 * Lanes(di) lanes
    const hn::Half<decltype(d8)> dh;
    const hn::Half<decltype(dh)> dq;
    const auto bytes = hn::MaskedLoad(hn::FirstN(d8, n), d8, p);
    const auto lo = hn::LowerHalf(dh, bytes), hi = hn::UpperHalf(dh, bytes);
    r0 = hn::PromoteTo(di, hn::LowerHalf(dq, lo));
    r1 = hn::PromoteTo(di, hn::UpperHalf(dq, lo));
    r2 = hn::PromoteTo(di, hn::LowerHalf(dq, hi));
    r3 = hn::PromoteTo(di, hn::UpperHalf(dq, hi));
    return;
  }
#endif
  LoadQ4PartialGeneric(di, p, n, r0, r1, r2, r3);
}

template <typename Q, class DI>
HWY_INLINE void StoreQ4Partial(DI di, hn::Vec<DI> r0, hn::Vec<DI> r1, hn::Vec<DI> r2,
                               hn::Vec<DI> r3, Q* HWY_RESTRICT p, size_t n) {
#if SYNETK_HAS_AVX512
  if constexpr (sizeof(Q) == 1 && hn::MaxLanes(DI()) == 16) {
    const hn::Repartition<Q, DI> d8;
    const auto bytes = hn::BitCast(d8, NarrowQ4<Q>(di, r0, r1, r2, r3));
    hn::BlendedStore(bytes, hn::FirstN(d8, n), d8, p);
    return;
  }
#endif
  StoreQ4PartialGeneric(di, r0, r1, r2, r3, p, n);
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
