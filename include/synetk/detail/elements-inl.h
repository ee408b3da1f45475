// Copyright synetk authors. SPDX-License-Identifier: MIT
// Per-target element access: loading any element type into fp32 lanes and
// storing fp32 lanes back, plus partial (tail) versions that never touch
// memory past the last element. Re-included once per Highway target.

#if defined(SYNETK_DETAIL_ELEMENTS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_DETAIL_ELEMENTS_INL_H_
#undef SYNETK_DETAIL_ELEMENTS_INL_H_
#else
#define SYNETK_DETAIL_ELEMENTS_INL_H_
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "synetk/detail/abi.h"
#include "synetk/detail/cpu.h"
#include "synetk/element.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Upper bound on lanes of any vector on this target, for stack buffers.
template <typename T>
inline constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(T);

// Whether rows that are not a whole number of vectors end with one whole
// vector overlapping the one before it rather than a partial store: where a
// partial store costs more than a whole one (SYNETK_HAS_CHEAP_PARTIAL_STORE;
// AVX2 on AMD CPUs: bench BM_FusedVsSimd/type:0/C:512/HW:49/nhwc:0). On
// AVX-512 the extra whole vector costs more than the masked store it saves
// (the same case).
inline constexpr bool kOverlapRowTails = !SYNETK_HAS_CHEAP_PARTIAL_STORE;

// Whether this target's f32 -> f16 demotion rounds to nearest even in
// hardware (F16C, Arm FCVT). Highway 1.0.3 emulates it on the others by
// truncation, which synetk does not accept.
#undef SYNETK_HW_F16_RNE
#if SYNETK_HAS_HW_F16_RNE
#define SYNETK_HW_F16_RNE 1
#else
#define SYNETK_HW_F16_RNE 0
#endif

// v, held in a register. GCC folds a vector load into every instruction that
// takes it as an operand: a load feeding two operations (a shift and a mask)
// becomes two loads, each splitting a cache line where unaligned (bench:
// BM_Pooling<hwy::bfloat16_t>/avg:0/C:256/HW:28/k:2/s:2/p:0/nhwc:0). The
// empty asm makes v an opaque register value, loaded once.
template <class V>
HWY_INLINE V InRegister(V v) {
#if SYNETK_IS_X86_SIMD
  __asm__("" : "+v"(v.raw));
#endif
  return v;
}

// fp32 bits rounded to nearest even at bit 16: the bf16 pattern in the upper
// half (not for NaN, whose payload the carry could turn into infinity).
template <class DU32>
HWY_INLINE hn::Vec<DU32> BF16RoundedBits(DU32 du32, hn::Vec<DU32> bits) {
  const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 1u));
  return hn::Add(bits, hn::Add(hn::Set(du32, 0x7FFFu), lsb));
}

// fp32 -> its bf16 pattern in the upper half of the lane, round to nearest
// even; NaN stays NaN (quieted). kSumsOfBF16: v was computed by fp32
// arithmetic from bf16 values, so a NaN in it is an input's (whose payload
// bf16 keeps in the upper half) or the default NaN: its low 16 bits are zero,
// the rounding carry cannot reach its exponent, and no NaN test is needed.
template <bool kSumsOfBF16, class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> BF16InUpperHalf(DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du32;
  (void)df;
  const auto bits = hn::BitCast(du32, v);
  const auto rounded = BF16RoundedBits(du32, bits);
  if constexpr (kSumsOfBF16) {
    return rounded;
  } else {
    const auto quiet = hn::Or(bits, hn::Set(du32, 0x00400000u));
    return hn::IfThenElse(hn::RebindMask(du32, hn::Ne(v, v)), quiet, rounded);
  }
}

// AVX-512 CPUs with the AVX512_BF16 extension round fp32 to bf16 in one
// instruction: vcvtne2ps2bf16 turns a and b into 32 bf16 lanes (b's in the
// lower half), to nearest even, a NaN quieted as BF16InUpperHalf quiets it,
// but with denormal inputs taken as zero. So it serves only vectors without
// a denormal lane (one vfpclassps test; the integer path rounds the others),
// and gives the integer path's bits: three operations per vector instead of
// about eight (bench: BM_Fused<hwy::bfloat16_t>, BM_Normalize<hwy::bfloat16_t>).
// The AVX3_ZEN4, AVX3_SPR and AVX10_2 targets imply the extension
// (SYNETK_HAS_AVX512_BF16_CONVERT); on AVX3 and AVX3_DL (and Highway 1.0.3
// has no other AVX-512 target) the run-time flag
// detail::bf16ConvertInstruction tells. Inline assembly needs no target
// attribute.
#undef SYNETK_BF16_CONVERT_ASM
#if SYNETK_HAS_AVX512 && (defined(__GNUC__) || defined(__clang__))
#define SYNETK_BF16_CONVERT_ASM 1
// Returns false (and leaves out unset) where the instruction may not serve.
HWY_INLINE bool BF16ConvertPair(__m512 a, __m512 b, __m512i& out) {
  if (!SYNETK_HAS_AVX512_BF16_CONVERT && !detail::bf16ConvertInstruction) return false;
  const __mmask16 denormal = static_cast<__mmask16>(_mm512_fpclass_ps_mask(a, 0x20) |
                                                    _mm512_fpclass_ps_mask(b, 0x20));
  if (HWY_UNLIKELY(denormal != 0)) return false;
  __asm__("vcvtne2ps2bf16 %2, %1, %0" : "=v"(out) : "v"(a), "v"(b));
  return true;
}
HWY_INLINE bool BF16Convert(__m512 v, __m256i& out) {
  if (!SYNETK_HAS_AVX512_BF16_CONVERT && !detail::bf16ConvertInstruction) return false;
  if (HWY_UNLIKELY(_mm512_fpclass_ps_mask(v, 0x20) != 0)) return false;
  __asm__("vcvtneps2bf16 %1, %0" : "=v"(out) : "v"(v));
  return true;
}
#else
#define SYNETK_BF16_CONVERT_ASM 0
#endif

// fp32 bits -> bf16 bits, round to nearest even; NaN stays NaN (quieted).
template <bool kSumsOfBF16 = false, class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> F32ToBF16Bits(DF df, hn::Vec<DF> v) {
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<uint16_t, DF> du16;
#if SYNETK_BF16_CONVERT_ASM
  if constexpr (hn::MaxLanes(DF()) == 16) {
    __m256i bits;
    if (BF16Convert(v.raw, bits)) return hn::Vec<decltype(du16)>{bits};
  }
#endif
  const auto out = BF16InUpperHalf<kSumsOfBF16>(df, v);
#if SYNETK_HAS_AVX512
  if constexpr (hn::MaxLanes(DF()) == 16) {
    // The upper halves gathered by one vpermw (Highway 1.0.3 has no 16-bit
    // TableLookupLanes), in place of a shift, a saturating pack and a qword
    // permute.
    const hn::Repartition<uint16_t, DF> dw;
    alignas(64) static constexpr uint16_t kUpper[32] = {
        1,  3,  5,  7,  9,  11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31,
        1,  3,  5,  7,  9,  11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31};
    const hn::Vec<decltype(dw)> upper{
        _mm512_permutexvar_epi16(hn::Load(dw, kUpper).raw, hn::BitCast(dw, out).raw)};
    return hn::LowerHalf(du16, upper);
  }
#endif
  return hn::DemoteTo(du16, hn::BitCast(di32, hn::ShiftRight<16>(out)));
}

// bf16 elements 2i and 2i + 1 of an array, read as 32-bit lane i (low half,
// high half): each is an fp32 number once shifted or masked in place, so the
// even and odd elements come apart without a deinterleave or a promotion.
template <class DF>
HWY_INLINE void BF16LanesToF32(DF df, hn::Vec<hn::RebindToUnsigned<DF>> lanes, hn::Vec<DF>& even,
                               hn::Vec<DF>& odd) {
  const hn::RebindToUnsigned<DF> du32;
  lanes = InRegister(lanes);
  even = hn::BitCast(df, hn::ShiftLeft<16>(lanes));
  odd = hn::BitCast(df, hn::And(lanes, hn::Set(du32, 0xFFFF0000u)));
}

// The inverse: even[i] and odd[i] rounded to bf16 (BF16InUpperHalf) in the
// low and high halves of lane i, ready for a plain store: no narrowing
// shuffles.
template <bool kSumsOfBF16, class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> F32ToBF16Lanes(DF df, hn::Vec<DF> even, hn::Vec<DF> odd) {
  const hn::RebindToUnsigned<DF> du32;
#if SYNETK_BF16_CONVERT_ASM
  if constexpr (hn::MaxLanes(DF()) == 16) {
    // Words 0-15 are even's, 16-31 odd's: interleaved by one vpermw.
    __m512i halves;
    if (BF16ConvertPair(odd.raw, even.raw, halves)) {
      const hn::Repartition<uint16_t, DF> dw;
      alignas(64) static constexpr uint16_t kInterleave[32] = {
          0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,  21, 6,  22, 7,  23,
          8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
      return hn::BitCast(du32, hn::Vec<decltype(dw)>{_mm512_permutexvar_epi16(
                                   hn::Load(dw, kInterleave).raw, halves)});
    }
  }
#endif
  return hn::Or(hn::ShiftRight<16>(BF16InUpperHalf<kSumsOfBF16>(df, even)),
                hn::And(BF16InUpperHalf<kSumsOfBF16>(df, odd), hn::Set(du32, 0xFFFF0000u)));
}

// 2 * Lanes(df) bf16 elements at p as fp32, read as Lanes(df) 32-bit lanes
// in one unaligned load (BF16LanesToF32): even[i] is element 2i, odd[i]
// element 2i + 1.
template <class DF, typename T>
HWY_INLINE void LoadBF16Pair(DF df, const T* p, hn::Vec<DF>& even, hn::Vec<DF>& odd) {
  const hn::RebindToUnsigned<DF> du;
  BF16LanesToF32(df, hn::LoadU(du, reinterpret_cast<const uint32_t*>(p)), even, odd);
}

// The inverse: even[i] and odd[i] rounded (F32ToBF16Lanes) to elements 2i
// and 2i + 1 at p, in one store.
template <bool kSumsOfBF16, class DF, typename T>
HWY_INLINE void StoreBF16Pair(DF df, hn::Vec<DF> even, hn::Vec<DF> odd, T* p) {
  const hn::RebindToUnsigned<DF> du;
  hn::StoreU(F32ToBF16Lanes<kSumsOfBF16>(df, even, odd), du, reinterpret_cast<uint32_t*>(p));
}

// fp32 -> f16 bits, round to nearest even, overflow to infinity, NaN to a
// quiet NaN. Integer-only method so that every target gives the same bits.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> F32ToF16BitsEmulated(
    DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du32;
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto bits = hn::BitCast(du32, v);
  const auto sign = hn::And(bits, hn::Set(du32, 0x80000000u));
  const auto mag = hn::Xor(bits, sign);
  const auto magI = hn::BitCast(di32, mag);  // < 2^31, so signed compare works
  // Overflow (>= 65520 rounds up to inf), infinity, NaN.
  const auto tooBig = hn::Gt(magI, hn::Set(di32, ((127 + 16) << 23) - 1));
  const auto isNaN = hn::Gt(magI, hn::Set(di32, 255 << 23));
  const auto big = hn::IfThenElse(hn::RebindMask(du32, isNaN),
                                  hn::Set(du32, 0x7E00u), hn::Set(du32, 0x7C00u));
  // Subnormal or zero results: adding 0.5 (as a float) aligns the mantissa so
  // that the FPU does the rounding to nearest even for us.
  const auto isSmall = hn::Lt(magI, hn::Set(di32, 113 << 23));
  const auto magic = hn::Set(du32, ((127 - 15) + (23 - 10) + 1) << 23);
  const auto smallF = hn::Add(hn::BitCast(df, mag), hn::BitCast(df, magic));
  const auto small = hn::Sub(hn::BitCast(du32, smallF), magic);
  // Normal results: rebias the exponent, round to nearest even on bit 13.
  const auto odd = hn::And(hn::ShiftRight<13>(mag), hn::Set(du32, 1u));
  const auto rebias = hn::Set(du32, (static_cast<uint32_t>(15 - 127) << 23) + 0xFFFu);
  const auto normal = hn::ShiftRight<13>(hn::Add(hn::Add(mag, rebias), odd));
  auto out = hn::IfThenElse(hn::RebindMask(du32, isSmall), small, normal);
  out = hn::IfThenElse(hn::RebindMask(du32, tooBig), big, out);
  out = hn::Or(out, hn::ShiftRight<16>(sign));
  return hn::DemoteTo(du16, hn::BitCast(di32, out));
}

// Lane type in which an element type's bits are loaded.
template <typename T, Encoding E = ElementTraits<T>::kEncoding>
struct RawLaneOf {
  using type = typename detail::BuiltinOf<E>::type;
};
template <typename T>
struct RawLaneOf<T, Encoding::kBFloat16> {
  using type = uint16_t;
};
template <typename T>
using RawLane = typename RawLaneOf<T>::type;

// Whether this target has masked loads/stores that never touch the masked-off
// lanes' memory, for lanes of `bytes` bytes. Elsewhere tails go through a
// stack buffer (Highway 1.0.3's MaskedLoad reads the whole vector there).
template <size_t bytes>
inline constexpr bool kFaultFreeMasked =
#if SYNETK_HAS_AVX512
    true;
#elif SYNETK_IS_X86_AVX2
    bytes >= 4;
#else
    false;
#endif

// Exactly `count` (< Lanes(d)) lanes are read; the others are zero.
template <class D>
HWY_INLINE hn::Vec<D> LoadLanesPartial(D d, const hn::TFromD<D>* HWY_RESTRICT p, size_t count) {
  using L = hn::TFromD<D>;
  if constexpr (kFaultFreeMasked<sizeof(L)>) {
    return hn::MaskedLoad(hn::FirstN(d, count), d, p);
  } else {
    HWY_ALIGN L buf[kMaxLanes<L>] = {};
    std::memcpy(buf, p, count * sizeof(L));
    return hn::Load(d, buf);
  }
}

// Exactly `count` (< Lanes(d)) lanes are written.
template <class D>
HWY_INLINE void StoreLanesPartial(D d, hn::Vec<D> v, hn::TFromD<D>* HWY_RESTRICT p, size_t count) {
  using L = hn::TFromD<D>;
  if constexpr (kFaultFreeMasked<sizeof(L)>) {
    hn::BlendedStore(v, hn::FirstN(d, count), d, p);
  } else {
    HWY_ALIGN L buf[kMaxLanes<L>];
    hn::Store(v, d, buf);
    std::memcpy(p, buf, count * sizeof(L));
  }
}

// Copies count bytes: where masked loads and stores never touch the
// masked-off bytes (kFaultFreeMasked<1>) and count is below a vector of
// bytes, one masked load and store instead of a call to memcpy, whose cost
// a short row pays per channel (bench: BM_QuantVsSimd/fn:3/C:512/HW:49/nhwc:0
// on AVX-512).
HWY_INLINE void CopyBytesPartial(const uint8_t* HWY_RESTRICT from, uint8_t* HWY_RESTRICT to,
                                 size_t count) {
  if constexpr (kFaultFreeMasked<1>) {
    const hn::ScalableTag<uint8_t> d8;
    if (count < hn::Lanes(d8)) {
      StoreLanesPartial(d8, LoadLanesPartial(d8, from, count), to, count);
      return;
    }
  }
  std::memcpy(to, from, count);
}

// Raw lanes of T -> fp32.
template <typename T, class DF, class VR>
HWY_INLINE hn::Vec<DF> DecodeF32(DF df, VR raw) {
  constexpr Encoding kEnc = ElementTraits<T>::kEncoding;
  if constexpr (kEnc == Encoding::kFloat32) {
    return raw;
  } else if constexpr (kEnc == Encoding::kBFloat16) {
    const hn::RebindToUnsigned<DF> du32;
    return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, raw)));
  } else if constexpr (kEnc == Encoding::kFloat16) {
#if SYNETK_HW_F16_RNE
    return hn::PromoteTo(df, raw);
#else
    // Highway 1.0.3 promotes binary16 without F16C (SCALAR, SSSE3, SSE4) by
    // rebiasing the exponent only, which turns infinities and NaNs into
    // finite values; this integer conversion is exact for every input.
    const hn::RebindToUnsigned<DF> du;
    const auto h = hn::PromoteTo(du, hn::BitCast(hn::Rebind<uint16_t, DF>(), raw));
    const auto shifted = hn::ShiftLeft<13>(hn::And(h, hn::Set(du, 0x7FFFu)));
    const auto expBits = hn::And(shifted, hn::Set(du, 0x0F800000u));
    auto o = hn::Add(shifted, hn::Set(du, (127u - 15u) << 23));
    // Infinity/NaN: exponent all ones in fp32 too.
    o = hn::IfThenElse(hn::Eq(expBits, hn::Set(du, 0x0F800000u)),
                       hn::Add(o, hn::Set(du, (128u - 16u) << 23)), o);
    // Zero/subnormal: renormalize through an fp32 subtraction (exact).
    const auto sub = hn::BitCast(
        du, hn::Sub(hn::BitCast(df, hn::Add(o, hn::Set(du, 1u << 23))),
                    hn::BitCast(df, hn::Set(du, 113u << 23))));
    o = hn::IfThenElse(hn::Eq(expBits, hn::Zero(du)), sub, o);
    const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)));
    return hn::BitCast(df, hn::Or(o, sign));
#endif
  } else {
    static_assert(kEnc == Encoding::kUint8 || kEnc == Encoding::kInt8);
    const hn::RebindToSigned<DF> di32;
    return hn::ConvertTo(df, hn::PromoteTo(di32, raw));
  }
}

// fp32 -> raw lanes of T, rounding to nearest even (float types only;
// integer stores need a rounding rule and live with their layers).
template <typename T, class DF>
HWY_INLINE auto EncodeF32(DF df, hn::Vec<DF> v) {
  constexpr Encoding kEnc = ElementTraits<T>::kEncoding;
  if constexpr (kEnc == Encoding::kFloat32) {
    return v;
  } else if constexpr (kEnc == Encoding::kBFloat16) {
    return F32ToBF16Bits(df, v);
  } else {
    static_assert(kEnc == Encoding::kFloat16, "EncodeF32 is for float element types");
#if SYNETK_HW_F16_RNE
    return hn::DemoteTo(hn::Rebind<hwy::float16_t, DF>(), v);
#else
    return hn::BitCast(hn::Rebind<hwy::float16_t, DF>(), F32ToF16BitsEmulated(df, v));
#endif
  }
}

#if SYNETK_IS_X86_AVX2
// Eight bf16 at p as fp32 on AVX2: the 16 bytes loaded into both 128-bit
// blocks (vbroadcasti128, which needs no shuffle unit), then one vpshufb puts
// elements 0-3 (low block) and 4-7 (high block) in the high halves of their
// lanes: one shuffle instead of vpmovzxwd's shuffle and a shift.
template <class DF>
HWY_INLINE hn::Vec<DF> LoadBF16Dup(DF df, const void* HWY_RESTRICT p) {
  const hn::Repartition<uint8_t, DF> d8;
  alignas(32) static constexpr uint8_t kOrder[32] = {
      0x80, 0x80, 0, 1, 0x80, 0x80, 2,  3,  0x80, 0x80, 4,  5,  0x80, 0x80, 6,  7,
      0x80, 0x80, 8, 9, 0x80, 0x80, 10, 11, 0x80, 0x80, 12, 13, 0x80, 0x80, 14, 15};
  const auto raw = hn::LoadDup128(d8, static_cast<const uint8_t*>(p));
  return hn::BitCast(df, hn::TableLookupBytesOr0(raw, hn::Load(d8, kOrder)));
}
#endif

// Loads Lanes(df) elements of T as fp32.
template <typename T, class DF>
HWY_INLINE hn::Vec<DF> LoadF32(DF df, const T* HWY_RESTRICT p) {
  if constexpr (ElementTraits<T>::kEncoding == Encoding::kCodec) {
    HWY_ALIGN float buf[kMaxLanes<float>];
    const size_t n = hn::Lanes(df);
    for (size_t i = 0; i < n; ++i) buf[i] = ElementTraits<T>::ToFloat(p[i]);
    return hn::Load(df, buf);
  } else {
#if SYNETK_IS_X86_AVX2
    if constexpr (ElementTraits<T>::kEncoding == Encoding::kBFloat16 && hn::MaxLanes(DF()) == 8) {
      return LoadBF16Dup(df, p);
    }
#endif
    const hn::Rebind<RawLane<T>, DF> dr;
    return DecodeF32<T>(df, hn::LoadU(dr, reinterpret_cast<const RawLane<T>*>(p)));
  }
}

// Stores the fp32 lanes of v as Lanes(df) elements of T.
template <typename T, class DF>
HWY_INLINE void StoreF32(DF df, hn::Vec<DF> v, T* HWY_RESTRICT p) {
  if constexpr (ElementTraits<T>::kEncoding == Encoding::kCodec) {
    HWY_ALIGN float buf[kMaxLanes<float>];
    hn::Store(v, df, buf);
    const size_t n = hn::Lanes(df);
    for (size_t i = 0; i < n; ++i) p[i] = ElementTraits<T>::FromFloat(buf[i]);
  } else {
    const hn::Rebind<RawLane<T>, DF> dr;
    hn::StoreU(hn::BitCast(dr, EncodeF32<T>(df, v)), dr, reinterpret_cast<RawLane<T>*>(p));
  }
}

// kPlain, here and in the prefetch helpers below: the caller's instance for
// calls that neither stream nor prefetch (every call on AMD CPUs whose
// tensors fit the cache), in which the runtime arguments that would say so
// are ignored and the per-vector tests compile away. A load-transform-store
// loop is otherwise about one third tests and branches, which costs where a
// sibling hardware thread shares the issue slots (bench:
// BM_Fused<float>/type:0/C:64/HW:3136/nhwc:0).
//
// StoreF32, but non-temporal (bypassing the caches) when `stream` is set, T
// is float and p is aligned to the vector; callers that stream end with
// hwy::FlushStream. Only fp32: Highway 1.0.3's x86 Stream of a partial
// vector (4 bf16 lanes, say) writes 16 bytes.
template <bool kPlain = false, typename T, class DF>
HWY_INLINE void StoreF32Streaming(DF df, hn::Vec<DF> v, T* HWY_RESTRICT p, bool stream) {
  if constexpr (std::is_same_v<T, float> && !kPlain) {
    if (stream && reinterpret_cast<uintptr_t>(p) % (hn::Lanes(df) * sizeof(float)) == 0) {
      hn::Stream(v, df, p);
      return;
    }
  }
  (void)stream;
  StoreF32(df, v, p);
}

// How far ahead of a streaming read to prefetch, where the CPU wants it
// (detail::softwarePrefetch: Intel's). Tensors that exceed L2 are read from
// L3, whose latency the hardware prefetcher alone may not cover; 2 KiB ahead
// covers it where 1 KiB does not, and 4 KiB gains nothing more. AMD CPUs run
// faster without (cpu.h). bench: BM_Fused<float>/type:0/C:256/HW:784/nhwc:0.
inline constexpr size_t kPrefetchBytes = 2048;

// Prefetches p[i + kPrefetchBytes / sizeof(T)] if that is below p[n]: the
// stream's own future, never an address outside the caller's buffer. n
// comes from PrefetchBound.
template <bool kPlain = false, typename T>
HWY_INLINE void PrefetchAhead(const T* p, size_t i, size_t n) {
  constexpr size_t kAhead = kPrefetchBytes / sizeof(T);
  if constexpr (!kPlain) {
    if (i + kAhead < n) hwy::Prefetch(p + i + kAhead);
  } else {
    (void)p;
    (void)i;
    (void)n;
  }
}

// PrefetchAhead's n for a stream of n elements: n where the call prefetches
// (`prefetch`, from detail::PrefetchCall), else 0 (none). Called once per
// call, outside the loops. bench: BM_Fused<float>/type:4/C:64/HW:3136/nhwc:0.
HWY_INLINE size_t PrefetchBound(size_t n, bool prefetch) { return prefetch ? n : 0; }

// Calls body(std::bool_constant<kPlain>()): the kPlain instance (see
// StoreF32Streaming) where the call neither streams (`stream`) nor
// prefetches (`prefetch`, from detail::PrefetchCall), the other one
// otherwise. Once per call, outside the loops.
template <class Body>
HWY_INLINE void WithPlainInstance(bool stream, bool prefetch, const Body& body) {
  if (stream || prefetch) {
    body(std::false_type());
  } else {
    body(std::true_type());
  }
}

// PrefetchAhead for every 64-byte line of p[i, i + count): for loops whose
// step reads more than one line.
template <bool kPlain = false, typename T>
HWY_INLINE void PrefetchAheadLines(const T* p, size_t i, size_t count, size_t n) {
  constexpr size_t kLine = HWY_MAX(size_t{1}, 64 / sizeof(T));
  if constexpr (!kPlain) {
    for (size_t k = 0; k < count; k += kLine) PrefetchAhead(p, i + k, n);
  } else {
    (void)p;
    (void)i;
    (void)count;
    (void)n;
  }
}

// Whether a loop that loads ahead from `load` while it stores to `store`
// meets 4K aliasing: the CPU first matches a load against older stores by
// the low 12 address bits, so with the store stream a little ahead of the
// load stream modulo 4 KiB, loads wait on unrelated pending stores. The
// bound is where the remedy (groups of runs, RunGroup) stops paying: from
// 256 bytes ahead the plain order is as fast or faster. bench:
// BM_FusedOffset/type:4/ahead:128.
inline constexpr size_t kAliasAheadBytes = 256;
HWY_INLINE bool StoresAliasAhead(const void* load, const void* store) {
  const uintptr_t d = (reinterpret_cast<uintptr_t>(store) - reinterpret_cast<uintptr_t>(load)) % 4096;
  return d != 0 && d < kAliasAheadBytes;
}

// Tail versions: exactly `count` (< Lanes(df)) elements are read or written.
template <typename T, class DF>
HWY_INLINE hn::Vec<DF> LoadF32Partial(DF df, const T* HWY_RESTRICT p, size_t count) {
  if constexpr (ElementTraits<T>::kEncoding == Encoding::kCodec) {
    HWY_ALIGN float buf[kMaxLanes<float>] = {};
    for (size_t i = 0; i < count; ++i) buf[i] = ElementTraits<T>::ToFloat(p[i]);
    return hn::Load(df, buf);
  } else {
    const hn::Rebind<RawLane<T>, DF> dr;
    return DecodeF32<T>(df, LoadLanesPartial(dr, reinterpret_cast<const RawLane<T>*>(p), count));
  }
}

template <typename T, class DF>
HWY_INLINE void StoreF32Partial(DF df, hn::Vec<DF> v, T* HWY_RESTRICT p, size_t count) {
  if constexpr (ElementTraits<T>::kEncoding == Encoding::kCodec) {
    HWY_ALIGN float buf[kMaxLanes<float>] = {};
    hn::Store(v, df, buf);
    for (size_t i = 0; i < count; ++i) p[i] = ElementTraits<T>::FromFloat(buf[i]);
  } else {
    const hn::Rebind<RawLane<T>, DF> dr;
    StoreLanesPartial(dr, hn::BitCast(dr, EncodeF32<T>(df, v)), reinterpret_cast<RawLane<T>*>(p),
                      count);
  }
}

// Per-channel parameters, fp32 always: partial load of `count` floats.
template <class DF>
HWY_INLINE hn::Vec<DF> LoadParamPartial(DF df, const float* HWY_RESTRICT p,
                                        size_t count) {
  return LoadF32Partial(df, p, count);
}

// `count` (<= Lanes(df)) per-channel parameters: a full vector or a tail.
template <class DF>
HWY_INLINE hn::Vec<DF> LoadParam(DF df, const float* HWY_RESTRICT p, size_t count) {
  return count == hn::Lanes(df) ? hn::LoadU(df, p) : LoadParamPartial(df, p, count);
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
