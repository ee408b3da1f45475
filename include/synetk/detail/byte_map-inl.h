// Copyright synetk authors. SPDX-License-Identifier: MIT
// Byte maps: a uint8 -> uint8 function given as a 256-entry table, built
// once from the vector formula it replaces and then applied to long rows.
// A quantized layer's requantization is such a function (one per input or
// channel), so a table built by the very vector code of the fp32 path gives
// the same bytes by construction, at the cost of one lookup per byte.
// Re-included once per Highway target.

#ifndef SYNETK_DETAIL_BYTE_MAP_TABLE_
#define SYNETK_DETAIL_BYTE_MAP_TABLE_
#include <cstdint>

namespace synetk {
namespace detail {

// A table for every input byte; 64-byte aligned for full-vector loads.
struct alignas(64) ByteMap {
  uint8_t t[256];
};

// The bytes 0..255 in order: a row whose image under any byte-wise kernel is
// that kernel's table, computed by the kernel itself.
struct alignas(64) ByteIdentity {
  uint8_t t[256];
  constexpr ByteIdentity() : t() {
    for (int i = 0; i < 256; ++i) t[i] = static_cast<uint8_t>(i);
  }
};
inline constexpr ByteIdentity kByteIdentity{};

}  // namespace detail
}  // namespace synetk
#endif  // SYNETK_DETAIL_BYTE_MAP_TABLE_

#if defined(SYNETK_DETAIL_BYTE_MAP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_DETAIL_BYTE_MAP_INL_H_
#undef SYNETK_DETAIL_BYTE_MAP_INL_H_
#else
#define SYNETK_DETAIL_BYTE_MAP_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include <hwy/highway.h>

#include "synetk/detail/abi.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether applying a table beats evaluating the formula per byte: AVX-512
// VBMI looks up 64 bytes in two vpermt2b (128 entries each) and a blend;
// the 1-lane targets replace about a dozen scalar operations by one load.
// Elsewhere (16/32-byte shuffles reach 16 entries) the formula stays.
inline constexpr bool kByteLookup =
    SYNETK_HAS_VBMI_PERMUTE || HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128;

// y holds Lanes(d8)/n consecutive rows of n bytes (n a power of two, at least
// 16 and at most Lanes(d8)); each goes to its own row of dst with a plain
// store of n bytes: a masked store of the whole vector per row reaches back
// across the previous row's bytes and waits on its store. bench:
// BM_QuantConcat/C:64/HW:3136/nhwc:1.
#if HWY_TARGET != HWY_SCALAR  // no UpperHalf; 1-lane vectors hold no rows
template <class D8>
HWY_INLINE void StoreVectorRows(D8 d8, hn::Vec<D8> y, size_t n, uint8_t* dst, size_t dstStride) {
  HWY_DASSERT(n >= 16 && n <= hn::Lanes(d8) && hn::Lanes(d8) % n == 0);
  if constexpr (hn::MaxLanes(d8) > 16) {
    if (n < hn::Lanes(d8)) {
      const hn::Half<D8> dh;
      // Rows in the lower half. n divides a power of two, so it is one: a
      // shift, where a division (which may trap, so GCC kept it inside the
      // callers' loops) cost about a third of AVX-512 NHWC concat.
      const size_t upper = hn::Lanes(dh) >> hwy::Num0BitsBelowLS1Bit_Nonzero64(n);
      StoreVectorRows(dh, hn::LowerHalf(dh, y), n, dst, dstStride);
      StoreVectorRows(dh, hn::UpperHalf(dh, y), n, dst + upper * dstStride, dstStride);
      return;
    }
  }
  hn::StoreU(y, d8, dst);
}
#endif

#if SYNETK_HAS_VBMI_PERMUTE
// Bytes idx[i] of the 128 bytes {t0, t1} (the low 7 bits of each index), as
// vpermt2b, which overwrites a copy of t0. Given the intrinsic, GCC emits
// vpermi2b, which overwrites the index, wherever the tables are loop
// invariants, and then needs a copy of the index per lookup; the asm keeps
// vpermt2b. bench: BM_QuantScale<true>/C:64/HW:3136/nhwc:0.
HWY_INLINE __m512i TwoTableBytes(__m512i t0, __m512i idx, __m512i t1) {
#if defined(__GNUC__) || defined(__clang__)
  __asm__("vpermt2b %2, %1, %0" : "+v"(t0) : "v"(idx), "v"(t1));
  return t0;
#else
  return _mm512_permutex2var_epi8(t0, idx, t1);
#endif
}

// A ByteMap held in four registers; operator() looks up 64 bytes.
struct ByteMapRegs {
  __m512i t0, t1, t2, t3;
  explicit ByteMapRegs(const detail::ByteMap& m)
      : t0(_mm512_load_si512(m.t)),
        t1(_mm512_load_si512(m.t + 64)),
        t2(_mm512_load_si512(m.t + 128)),
        t3(_mm512_load_si512(m.t + 192)) {}
  // Bit 7 of each index picks the table half.
  __m512i operator()(__m512i x) const {
    const __m512i lo = TwoTableBytes(t0, x, t1);
    const __m512i hi = TwoTableBytes(t2, x, t3);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);
  }
  hn::Vec512<uint8_t> operator()(hn::Vec512<uint8_t> x) const {
    return hn::Vec512<uint8_t>{(*this)(x.raw)};
  }
};

// The mask of the first n (<= 64) lanes of a byte vector.
HWY_INLINE __mmask64 FirstBytes(size_t n) {
  return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
}

// `full` bytes (a multiple of 64) of s through look into d, in whole
// vectors. Each group of four is loaded before the group before it is
// stored: where d runs 1-4 vectors ahead of s modulo 4 KiB, a load would
// otherwise wait on an unrelated earlier store to the same low 12 address
// bits (4K aliasing). bench: BM_QuantScale<true>/C:256/HW:784/nhwc:0.
HWY_INLINE void MapWholeVectors(const ByteMapRegs& look, const uint8_t* s, size_t full,
                                uint8_t* d) {
  size_t i = 0;
  if (full >= 512) {
    __m512i x0 = _mm512_loadu_si512(s), x1 = _mm512_loadu_si512(s + 64);
    __m512i x2 = _mm512_loadu_si512(s + 128), x3 = _mm512_loadu_si512(s + 192);
    for (; i + 512 <= full; i += 256) {
      const uint8_t* next = s + i + 256;
      const __m512i y0 = _mm512_loadu_si512(next), y1 = _mm512_loadu_si512(next + 64);
      const __m512i y2 = _mm512_loadu_si512(next + 128), y3 = _mm512_loadu_si512(next + 192);
      _mm512_storeu_si512(d + i, look(x0));
      _mm512_storeu_si512(d + i + 64, look(x1));
      _mm512_storeu_si512(d + i + 128, look(x2));
      _mm512_storeu_si512(d + i + 192, look(x3));
      x0 = y0;
      x1 = y1;
      x2 = y2;
      x3 = y3;
    }
    _mm512_storeu_si512(d + i, look(x0));
    _mm512_storeu_si512(d + i + 64, look(x1));
    _mm512_storeu_si512(d + i + 128, look(x2));
    _mm512_storeu_si512(d + i + 192, look(x3));
    i += 256;
  }
  for (; i + 128 <= full; i += 128) {
    const __m512i a = look(_mm512_loadu_si512(s + i));
    const __m512i b = look(_mm512_loadu_si512(s + i + 64));
    _mm512_storeu_si512(d + i, a);
    _mm512_storeu_si512(d + i + 64, b);
  }
  if (i < full) _mm512_storeu_si512(d + i, look(_mm512_loadu_si512(s + i)));
}

// One row: `full` bytes (a multiple of 64) in whole vectors, then the bytes
// of mask k.
HWY_INLINE void MapByteRow(const ByteMapRegs& look, const uint8_t* s, size_t full, __mmask64 k,
                           uint8_t* d) {
  MapWholeVectors(look, s, full, d);
  if (k != 0) _mm512_mask_storeu_epi8(d + full, k, look(_mm512_maskz_loadu_epi8(k, s + full)));
}

// MapByteRow out of line (see MapByteRowPairs); inline for the linkage only.
inline HWY_NOINLINE void MapByteRowCall(const ByteMapRegs& look, const uint8_t* s, size_t full,
                                        __mmask64 k, uint8_t* d) {
  MapByteRow(look, s, full, k, d);
}
#endif

// For r < rows: dst[r*dstStride + i] = m.t[src[r*srcStride + i]], i < n. One
// call for many short rows keeps the table in registers (stores through
// uint8_t pointers could alias it, so the compiler would reload it per row).
// A row of src may be its row of dst.
HWY_INLINE void MapByteRows(const detail::ByteMap& m, const uint8_t* src, size_t srcStride,
                            size_t n, size_t rows, uint8_t* dst, size_t dstStride) {
#if SYNETK_HAS_VBMI_PERMUTE
  const ByteMapRegs look(m);
  const size_t full = n & ~size_t{63};
  // Masked tail: the bytes past n are neither read nor written.
  const __mmask64 k = FirstBytes(n - full);
  size_t r = 0;
  if (n < 64 && 64 % n == 0 && srcStride == n) {
    // Short contiguous rows (an NHWC concat's channels): one lookup per 64/n
    // rows. Rows of 16 or 32 bytes are stored as pieces of the vector; shorter
    // ones each with its own mask (lanes j*n.. of the vector go to row j; the
    // masked-off lanes before it are never touched).
    const size_t per = 64 / n;
    const hn::Full512<uint8_t> d8;
    for (; r + per <= rows; r += per) {
      const __m512i y = look(_mm512_loadu_si512(src + r * n));
      if (n >= 16) {
        StoreVectorRows(d8, hn::Vec512<uint8_t>{y}, n, dst + r * dstStride, dstStride);
        continue;
      }
      for (size_t j = 0; j < per; ++j) {
        _mm512_mask_storeu_epi8(dst + (r + j) * dstStride - j * n, k << (j * n), y);
      }
    }
  }
  for (; r < rows; ++r) MapByteRow(look, src + r * srcStride, full, k, dst + r * dstStride);
#else
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* s = src + r * srcStride;
    uint8_t* d = dst + r * dstStride;
    for (size_t i = 0; i < n; ++i) d[i] = m.t[s[i]];
  }
#endif
}

// Two sets of rows in alternation, each with its map: for r < rows, row r
// of A (srcA + r*srcStride -> dstA + r*dstStride, through ma), then row r of
// B likewise, n bytes each. Where A's and B's rows alternate in memory on one
// side, that side is one stream.
HWY_INLINE void MapByteRowPairs(const detail::ByteMap& ma, const uint8_t* srcA, uint8_t* dstA,
                                const detail::ByteMap& mb, const uint8_t* srcB, uint8_t* dstB,
                                size_t srcStride, size_t n, size_t rows, size_t dstStride) {
#if SYNETK_HAS_VBMI_PERMUTE
  const ByteMapRegs lookA(ma), lookB(mb);
  const size_t full = n & ~size_t{63};
  const __mmask64 k = FirstBytes(n - full);
  // Rows of kRowCallMinBytes or more each in a call: the inlined loop is
  // slower on long rows, for a reason not known (not the loop's alignment,
  // software prefetch or vzeroupper), and on short rows the calls cost more
  // than they save. bench: BM_QuantShuffle<0>/C:64/HW:3136/nhwc:0.
  constexpr size_t kRowCallMinBytes = 2048;
  if (n >= kRowCallMinBytes) {
    for (size_t r = 0; r < rows; ++r) {
      MapByteRowCall(lookA, srcA + r * srcStride, full, k, dstA + r * dstStride);
      MapByteRowCall(lookB, srcB + r * srcStride, full, k, dstB + r * dstStride);
    }
    return;
  }
  for (size_t r = 0; r < rows; ++r) {
    MapByteRow(lookA, srcA + r * srcStride, full, k, dstA + r * dstStride);
    MapByteRow(lookB, srcB + r * srcStride, full, k, dstB + r * dstStride);
  }
#else
  for (size_t r = 0; r < rows; ++r) {
    MapByteRows(ma, srcA + r * srcStride, n, n, 1, dstA + r * dstStride, n);
    MapByteRows(mb, srcB + r * srcStride, n, n, 1, dstB + r * dstStride, n);
  }
#endif
}

// dst[i] = m.t[src[i]] for i < n.
HWY_INLINE void MapBytes(const detail::ByteMap& m, const uint8_t* src, size_t n, uint8_t* dst) {
  MapByteRows(m, src, n, n, 1, dst, n);
}

// For c < planes, i < S: dst[c*S + i] = maps[c].t[src[c*S + i]]: contiguous
// planes of S bytes each with its own map (NCHW QuantizedScale). dst may be
// src.
HWY_INLINE void MapPlanes(const detail::ByteMap* maps, const uint8_t* src, size_t planes, size_t S,
                          uint8_t* dst) {
#if SYNETK_HAS_VBMI_PERMUTE
  if (S >= 64) {
    // One pass over the planes as one row of whole vectors: the vector that
    // straddles planes c and c + 1 (S >= 64: never a third) takes its lanes
    // from both maps, where plane by plane each plane ended in a masked
    // tail and, with S not a multiple of 64, every vector split a line.
    // bench: BM_QuantScale<true>/C:256/HW:784/nhwc:0.
    const size_t n = planes * S;
    size_t o = 0;
    for (size_t c = 0; c < planes; ++c) {
      const ByteMapRegs look(maps[c]);
      const size_t end = (c + 1) * S;
      const size_t whole = (end - o) & ~size_t{63};
      MapWholeVectors(look, src + o, whole, dst + o);
      o += whole;
      if (o < end) {  // the vector from plane c into plane c + 1, or to the end
        const bool inside = o + 64 <= n;
        const __mmask64 k = FirstBytes(n - o);
        const __m512i x =
            inside ? _mm512_loadu_si512(src + o) : _mm512_maskz_loadu_epi8(k, src + o);
        __m512i y = look(x);
        if (c + 1 < planes) {
          const ByteMapRegs next(maps[c + 1]);
          y = _mm512_mask_blend_epi8(~FirstBytes(end - o), y, next(x));
        }
        if (inside) {
          _mm512_storeu_si512(dst + o, y);
        } else {
          _mm512_mask_storeu_epi8(dst + o, k, y);
        }
        o += 64;
      }
    }
    return;
  }
#endif
  for (size_t c = 0; c < planes; ++c) MapBytes(maps[c], src + c * S, S, dst + c * S);
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
