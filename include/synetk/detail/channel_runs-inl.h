// Copyright synetk authors. SPDX-License-Identifier: MIT
// Per-target driver for elementwise layers with per-channel parameters.
// Re-included once per Highway target.

#if defined(SYNETK_DETAIL_CHANNEL_RUNS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNETK_DETAIL_CHANNEL_RUNS_INL_H_
#undef SYNETK_DETAIL_CHANNEL_RUNS_INL_H_
#else
#define SYNETK_DETAIL_CHANNEL_RUNS_INL_H_
#endif

#include <hwy/highway.h>

#include "synetk/detail/abi.h"
#include "synetk/detail/elements-inl.h"
#include "synetk/format.h"

HWY_BEFORE_NAMESPACE();
SYNETK_NAMESPACE_BEGIN
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Sets p0..p(K-1) to get(0)..get(K-1).
template <size_t K, class V, class Get>
HWY_INLINE void GetParams(V& p0, V& p1, V& p2, const Get& get) {
  static_assert(K <= 3, "at most three per-channel parameters");
  if constexpr (K > 0) p0 = get(0);
  if constexpr (K > 1) p1 = get(1);
  if constexpr (K > 2) p2 = get(2);
}

// The K per-channel parameter arrays, copied out of the caller's pointer
// array into locals: read through that array inside the loops, GCC reloads
// each pointer before each parameter load (two dependent loads per vector
// per parameter). bench: BM_Fused<float>/type:0/C:256/HW:784/nhwc:1.
template <size_t K>
struct ParamRows {
  const float* rows[K > 0 ? K : 1] = {};
  explicit ParamRows(const float* const* perChannel) {
    for (size_t k = 0; k < K; ++k) rows[k] = perChannel[k];
  }
  const float* operator[](size_t k) const { return rows[k]; }
};

// A layer's work on one run of at most Lanes(df) contiguous elements, in two
// halves: load(o, count, pf, p0, p1, p2) reads the run at offset o
// (prefetching its streams ahead of pf) and returns the result,
// store(o, count, v) writes it. Called as one, it does both; the drivers
// below call the halves to load a group of runs before storing any
// (RunGroup). `overlapTail`: store may write a run's lanes twice with the
// same values (it never stores non-temporally), so an NCHW row may end with a
// whole run overlapping the one before it (ForEachChannelRun).
template <class Load, class Store>
struct RunOps {
  Load load;
  Store store;
  bool overlapTail;
  template <class V>
  HWY_INLINE void operator()(size_t o, size_t count, size_t pf, V p0, V p1, V p2) const {
    store(o, count, load(o, count, pf, p0, p1, p2));
  }
};

template <class Load, class Store>
HWY_INLINE RunOps<Load, Store> MakeRunOps(Load load, Store store, bool overlapTail) {
  return RunOps<Load, Store>{load, store, overlapTail};
}

// Runs k < kCount (at most 8), all loaded, load(k), before the first is
// stored, store(k, v). With each run's store before the next run's load,
// the stores, each missing the cache, fill the store queue and hold back the
// loads behind them; eight runs ahead (eight cache lines) keep the loads
// going. bench: BM_Fused<float>/type:0/C:64/HW:3136/nhwc:0. Eight variables,
// not an array: SVE vectors are sizeless. Where outputs may be the inputs
// (in place), a run's lanes are still read before they are written.
//
// Runs per group: eight on AVX-512. With 32-byte runs (AVX2) groups of two or
// eight are slower than one run at a time, so other targets keep one run at
// a time (1: no groups). bench: BM_FusedPerTarget/type:3/C:64/HW:3136/nhwc:0.
inline constexpr size_t kRunGroup = SYNETK_HAS_AVX512 ? 8 : 1;

template <size_t kCount, class Load, class Store>
HWY_INLINE void RunGroup(const Load& load, const Store& store) {
  static_assert(kCount >= 1 && kCount <= 8, "one to eight runs");
  const auto v0 = load(size_t{0});
  const auto v1 = kCount > 1 ? load(size_t{1}) : v0;
  const auto v2 = kCount > 2 ? load(size_t{2}) : v0;
  const auto v3 = kCount > 3 ? load(size_t{3}) : v0;
  const auto v4 = kCount > 4 ? load(size_t{4}) : v0;
  const auto v5 = kCount > 5 ? load(size_t{5}) : v0;
  const auto v6 = kCount > 6 ? load(size_t{6}) : v0;
  const auto v7 = kCount > 7 ? load(size_t{7}) : v0;
  store(size_t{0}, v0);
  if constexpr (kCount > 1) store(size_t{1}, v1);
  if constexpr (kCount > 2) store(size_t{2}, v2);
  if constexpr (kCount > 3) store(size_t{3}, v3);
  if constexpr (kCount > 4) store(size_t{4}, v4);
  if constexpr (kCount > 5) store(size_t{5}, v5);
  if constexpr (kCount > 6) store(size_t{6}, v6);
  if constexpr (kCount > 7) store(size_t{7}, v7);
}

// Visits the elements (c, s), c < channels, sBegin <= s < sEnd, in runs of
// at most Lanes(df) elements that are contiguous in memory: along s for NCHW,
// along c for NHWC. Each run goes to ops (RunOps) with o the offset of its
// first element (c, s), count its length (Lanes(df) except at the end of
// a row) and p0, p1, p2 the K <= 3 per-channel parameters perChannel[k][c..]
// of the run's lanes (broadcast in NCHW, loaded in NHWC; zero for k >= K).
// They are separate arguments, not an array, because SVE vectors are
// sizeless and cannot be array elements. NCHW rows go in groups of
// kRunGroup runs (RunGroup); with ops.overlapTail, on targets where a partial
// store costs more than a whole one (kOverlapRowTails), rows of a run or more
// that are not a whole number of runs end with a whole run at sEnd - N,
// loaded before the row's first store (in place works), instead of a partial
// one: AVX2's masked store costs AMD CPUs more than the rest of a 49-element
// row (bench: BM_FusedVsSimd/type:0/C:512/HW:49/nhwc:0).
template <class Format, size_t K, class DF, class Ops>
HWY_INLINE void ForEachChannelRun(DF df, size_t channels, size_t spatial,
                                  size_t sBegin, size_t sEnd,
                                  const float* const* perChannel,
                                  const Ops& ops) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  if constexpr (std::is_same_v<Format, Nchw>) {
    V p0 = hn::Zero(df), p1 = p0, p2 = p0;
    const bool overlap =
        kOverlapRowTails && ops.overlapTail && sEnd - sBegin >= N && (sEnd - sBegin) % N != 0;
    for (size_t c = 0; c < channels; ++c) {
      GetParams<K>(p0, p1, p2, [&](size_t k) HWY_ATTR { return hn::Set(df, perChannel[k][c]); });
      const size_t row = c * spatial;
      const size_t lastRun = row + sEnd - N;
      V last = p0;
      if (overlap) last = ops.load(lastRun, N, lastRun, p0, p1, p2);
      size_t s = sBegin;
      if constexpr (kRunGroup > 1) {
        for (; s + kRunGroup * N <= sEnd; s += kRunGroup * N) {
          const size_t o = row + s;
          RunGroup<kRunGroup>(
              [&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
                return ops.load(o + k * N, N, o + k * N, p0, p1, p2);
              },
              [&](size_t k, V v) HWY_ATTR SYNETK_LAMBDA_INLINE { ops.store(o + k * N, N, v); });
        }
      }
      for (; s + 2 * N <= sEnd; s += 2 * N) {
        ops(row + s, N, row + s, p0, p1, p2);
        ops(row + s + N, N, row + s + N, p0, p1, p2);
      }
      for (; s + N <= sEnd; s += N) ops(row + s, N, row + s, p0, p1, p2);
      if (overlap) {
        ops.store(lastRun, N, last);
      } else if (s < sEnd) {
        ops(row + s, sEnd - s, row + s, p0, p1, p2);
      }
    }
  } else {
    V p0 = hn::Zero(df), p1 = p0, p2 = p0;
    const ParamRows<K> pc(perChannel);
    for (size_t s = sBegin; s < sEnd; ++s) {
      const size_t pixel = s * channels;
      size_t c = 0;
      const auto full = [&](size_t k) HWY_ATTR { return hn::LoadU(df, pc[k] + c); };
      for (; c + N <= channels; c += N) {
        GetParams<K>(p0, p1, p2, full);
        ops(pixel + c, N, pixel + c, p0, p1, p2);
      }
      if (c < channels) {
        const size_t count = channels - c;
        GetParams<K>(p0, p1, p2, [&](size_t k) HWY_ATTR {
          return LoadParamPartial(df, pc[k] + c, count);
        });
        ops(pixel + c, count, pixel + c, p0, p1, p2);
      }
    }
  }
}

// Visits the `channels` elements of one NHWC pixel as runs run(c, count) of
// Lanes(df) elements from c: a pixel of at least Lanes(df) channels ends with
// a full vector that overlaps the previous one (its lanes are recomputed from
// unchanged inputs and stored again with the same values, so only for layers
// that never run in place), a narrower one is a single partial run. Cheaper
// than a partial vector per pixel; callers load each run's parameters and
// choose the loop order (one pixel, or a block of pixels per run).
template <class DF, class Run>
HWY_INLINE void ForEachPixelRun(DF df, size_t channels, const Run& run) {
  const size_t N = hn::Lanes(df);
  if (channels < N) {
    run(size_t{0}, channels);
    return;
  }
  size_t c = 0;
  for (; c + N <= channels; c += N) run(c, N);
  if (c < channels) run(channels - N, N);
}

// Largest NHWC channel count for which ForEachElementwise streams the tensor
// as one flat array (its cyclic parameter copies live on the stack).
inline constexpr size_t kMaxFlatChannels = 1024;

// The NHWC orders of ForEachElementwise, one function each (not inlined):
// inlined into one body, each order makes GCC spill the loop state of the
// others (bench: BM_Fused<float>/type:0/C:24/HW:5625/nhwc:1). Each takes the
// visitor by value, so that its captures are the function's own: through a
// reference, GCC reloads them around every store.

template <size_t K, class DF, class Visit>
HWY_NOINLINE void NhwcInRegisters(DF df, size_t channels, size_t sBegin, size_t sEnd,
                                  const float* const* perChannel, Visit visit);

// Elements [o, end) of the flat NHWC array, each run's parameters read from
// the cyclic arrays ext (ext[k][i] = param k of channel i % C) at its phase.
// ext by value: a copy the compiler keeps in registers across the stores.
template <size_t K, class DF, class Visit>
HWY_INLINE void NhwcFlatRange(DF df, size_t channels, ParamRows<K> ext, size_t o, size_t end,
                              const Visit& visit) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  const size_t step = N % channels;
  size_t phase = o % channels;
  V p0 = hn::Zero(df), p1 = p0, p2 = p0;
  const auto cyclic = [&](size_t k) HWY_ATTR { return hn::LoadU(df, ext[k] + phase); };
  for (; o + N <= end; o += N) {
    GetParams<K>(p0, p1, p2, cyclic);
    visit(o, N, o, p0, p1, p2);
    phase += step;
    if (phase >= channels) phase -= channels;
  }
  if (o < end) {
    GetParams<K>(p0, p1, p2, cyclic);
    visit(o, end - o, o, p0, p1, p2);
  }
}

// C not a multiple of N: the tensor as one flat array, the parameters copied
// once into cyclic arrays that each run reads at its channel phase, so a
// small or odd C costs no partial vector per pixel. With three parameters,
// where the phases repeat within four vectors (L = lcm(C, N) <= 4N: 3, 12,
// 24 or 48 channels on AVX-512), the whole periods of L elements go through
// NhwcInRegisters as pixels of L channels, their parameters in registers
// instead of three loads per vector (bench:
// BM_Fused<float>/type:1/C:24/HW:5625/nhwc:1). With one or two parameters the
// loads cost nothing measurable, and those layers keep the flat stream.
template <size_t K, class DF, class Visit>
HWY_NOINLINE void NhwcFlat(DF df, size_t channels, size_t sBegin, size_t sEnd,
                           const float* const* perChannel, Visit visit) {
  const size_t N = hn::Lanes(df);
  size_t L = channels;  // lcm(C, N), N a power of two
  while (L % N != 0) L *= 2;
  HWY_ALIGN float ext[K][kMaxFlatChannels + kMaxLanes<float>];
  const size_t extLen = HWY_MAX(channels + N, HWY_MIN(L, 4 * N));
  const float* rows[K > 0 ? K : 1] = {};
  for (size_t k = 0; k < K; ++k) {
    for (size_t i = 0; i < extLen; ++i) ext[k][i] = perChannel[k][i % channels];
    rows[k] = ext[k];
  }
  const ParamRows<K> cyclic(rows);
  const size_t begin = sBegin * channels, end = sEnd * channels;
  const size_t first = HWY_MIN(end, (begin + L - 1) / L * L);  // periods [first, last)
  const size_t last = HWY_MAX(first, end / L * L);
  if (K < 3 || L > 4 * N || last - first < 2 * L) {
    return NhwcFlatRange<K>(df, channels, cyclic, begin, end, visit);
  }
  NhwcFlatRange<K>(df, channels, cyclic, begin, first, visit);
  NhwcInRegisters<K>(df, L, first / L, last / L, rows, visit);
  NhwcFlatRange<K>(df, channels, cyclic, last, end, visit);
}

// C = N, 2N, 3N or 4N: the parameters stay in registers and the pixels
// stream front to back, as an NCHW plane does (bench:
// BM_Fused<float>/type:0/C:64/HW:3136/nhwc:1).
template <size_t K, class DF, class Visit>
HWY_NOINLINE void NhwcInRegisters(DF df, size_t channels, size_t sBegin, size_t sEnd,
                                  const float* const* perChannel, Visit visit) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  const ParamRows<K> pc(perChannel);
  const size_t nr = channels / N;
  V a0 = hn::Zero(df), a1 = a0, a2 = a0, b0 = a0, b1 = a0, b2 = a0;
  V c0 = a0, c1 = a0, c2 = a0, d0 = a0, d1 = a0, d2 = a0;
  // The parameters of the r-th vector of channels.
  auto params = [&](size_t r, V& p0, V& p1, V& p2) HWY_ATTR {
    GetParams<K>(p0, p1, p2, [&](size_t k) HWY_ATTR { return hn::LoadU(df, pc[k] + r * N); });
  };
  params(0, a0, a1, a2);
  if (nr > 1) params(1, b0, b1, b2);
  if (nr > 2) params(2, c0, c1, c2);
  if (nr > 3) params(3, d0, d1, d2);
  // Run r of a pixel (at offset at) with its parameters.
  const auto load = [&](size_t at, size_t r) HWY_ATTR SYNETK_LAMBDA_INLINE {
    if (r == 0) return visit.load(at, N, at, a0, a1, a2);
    if (r == 1) return visit.load(at, N, at, b0, b1, b2);
    if (r == 2) return visit.load(at, N, at, c0, c1, c2);
    return visit.load(at, N, at, d0, d1, d2);
  };
  // Groups of whole pixels (RunGroup): 8, 4, 2 or 2 pixels of kR runs
  // (none where kRunGroup is 1). Forced inline: GCC keeps the bf16 instances
  // out of line otherwise, reaching the parameters and the visitor's
  // pointers through the closure after every store (bench:
  // BM_Fused<hwy::bfloat16_t>/type:3/C:64/HW:3136/nhwc:1).
  const auto pixels = [&](auto runs) HWY_ATTR SYNETK_LAMBDA_INLINE {
    constexpr size_t kR = decltype(runs)::value;
    constexpr size_t kP = kRunGroup / kR;
    const size_t end = sEnd * channels;
    size_t o = sBegin * channels;
    if constexpr (kP > 0) {
      for (; o + kP * channels <= end; o += kP * channels) {
        // channels = kR * N: run k of the group is at o + k * N.
        RunGroup<kP * kR>(
            [&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE { return load(o + k * N, k % kR); },
            [&](size_t k, V v) HWY_ATTR SYNETK_LAMBDA_INLINE { visit.store(o + k * N, N, v); });
      }
    }
    for (; o < end; o += channels) {
      visit.store(o, N, load(o, 0));
      if constexpr (kR > 1) visit.store(o + N, N, load(o + N, 1));
      if constexpr (kR > 2) visit.store(o + 2 * N, N, load(o + 2 * N, 2));
      if constexpr (kR > 3) visit.store(o + 3 * N, N, load(o + 3 * N, 3));
    }
  };
  switch (nr) {
    case 1: return pixels(std::integral_constant<size_t, 1>());
    case 2: return pixels(std::integral_constant<size_t, 2>());
    case 3: return pixels(std::integral_constant<size_t, 3>());
    default: return pixels(std::integral_constant<size_t, 4>());
  }
}

// Wider pixels (C a multiple of N above 4N) pixel by pixel, front to back,
// each vector loading its parameters.
// - kGroups: in groups of kRunGroup vectors loaded before any is stored
//   (RunGroup), from the cache with up to two parameters (with three, the
//   groups of pixels below are faster), and on Intel AVX-512 whatever the
//   cache and K (kWidePixelsInOrder). bench:
//   BM_Fused<float>/type:0/C:256/HW:784/nhwc:1.
// - Without (and wherever kRunGroup is 1), one vector at a time, each
//   stored before the next loads: from DRAM except on Intel AVX-512, and
//   type 1 from the cache on targets without groups of runs. From DRAM one
//   front-to-back stream is what the hardware prefetcher follows best; the
//   groups of eight and NhwcPixelGroups' four interleaved pixel streams are
//   slower there. bench: BM_Fused<float>/type:0/C:256/HW:12544/nhwc:1.
template <size_t K, bool kGroups, class DF, class Visit>
HWY_NOINLINE void NhwcPixelByPixel(DF df, size_t channels, size_t sBegin, size_t sEnd,
                                   const float* const* perChannel, Visit visit) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  const ParamRows<K> pc(perChannel);
  V p0 = hn::Zero(df), p1 = p0, p2 = p0;
  for (size_t o = sBegin * channels; o < sEnd * channels; o += channels) {
    size_t c = 0;
    for (; kGroups && kRunGroup > 1 && c + kRunGroup * N <= channels; c += kRunGroup * N) {
      RunGroup<kRunGroup>(
          [&](size_t k) HWY_ATTR SYNETK_LAMBDA_INLINE {
            const size_t at = c + k * N;
            V q0 = hn::Zero(df), q1 = q0, q2 = q0;
            GetParams<K>(q0, q1, q2, [&](size_t j) HWY_ATTR { return hn::LoadU(df, pc[j] + at); });
            return visit.load(o + at, N, o + at, q0, q1, q2);
          },
          [&](size_t k, V v) HWY_ATTR SYNETK_LAMBDA_INLINE { visit.store(o + c + k * N, N, v); });
    }
    // Two vectors per step: less loop overhead per vector where there are no
    // groups (AVX2). bench: BM_Fused<float>/type:3/C:256/HW:784/nhwc:1.
    for (; c + 2 * N <= channels; c += 2 * N) {
      GetParams<K>(p0, p1, p2, [&](size_t k) HWY_ATTR { return hn::LoadU(df, pc[k] + c); });
      visit(o + c, N, o + c, p0, p1, p2);
      GetParams<K>(p0, p1, p2, [&](size_t k) HWY_ATTR { return hn::LoadU(df, pc[k] + c + N); });
      visit(o + c + N, N, o + c + N, p0, p1, p2);
    }
    if (c < channels) {
      GetParams<K>(p0, p1, p2, [&](size_t k) HWY_ATTR { return hn::LoadU(df, pc[k] + c); });
      visit(o + c, N, o + c, p0, p1, p2);
    }
  }
}

// On AVX-512 and an Intel CPU every wide pixel goes pixel by pixel, whatever
// the cache and K. An f32 vector is a whole cache line there, so unless the
// tensors are 64-byte aligned every access splits two lines, and four
// interleaved pixel streams (NhwcPixelGroups) split twice as many as one.
// bench: BM_Fused<float>/type:1/C:256/HW:784/nhwc:1 on an Intel CPU.
inline constexpr bool kWidePixelsInOrder = SYNETK_HAS_AVX512;

// Wider pixels from the cache with three parameters on AVX-512, except on
// Intel: groups of 4 pixels share each parameter load, vector by vector,
// where three loads per vector would otherwise be the limit (bench:
// BM_Fused<float>/type:1/C:256/HW:784/nhwc:1). Returns the first pixel not
// done.
template <size_t K, class DF, class Visit>
HWY_NOINLINE size_t NhwcPixelGroups(DF df, size_t channels, size_t sBegin, size_t sEnd,
                                    const float* const* perChannel, Visit visit) {
  using V = hn::Vec<DF>;
  const size_t N = hn::Lanes(df);
  const ParamRows<K> pc(perChannel);
  constexpr size_t kPixels = 4;
  // Each pixel prefetches as if from the group's last one: ahead of its own
  // offset, the lead would be up to 3 pixels short.
  const size_t lead = (kPixels - 1) * channels;
  V p0 = hn::Zero(df), p1 = p0, p2 = p0;
  for (; sBegin + kPixels <= sEnd; sBegin += kPixels) {
    for (size_t c = 0; c < channels; c += N) {
      GetParams<K>(p0, p1, p2, [&](size_t k) HWY_ATTR { return hn::LoadU(df, pc[k] + c); });
      const size_t o = sBegin * channels + c;
      for (size_t p = 0; p < kPixels; ++p) {
        visit(o + p * channels, N, o + p * channels + lead, p0, p1, p2);
      }
    }
  }
  return sBegin;
}

// For layers whose output has the input's shape (offsets are shared): visits
// the elements of spatial positions [sBegin, sEnd) in runs of at most
// Lanes(df) contiguous elements, each given to visit (RunOps: load(offset,
// count, pf, p0, p1, p2), store(offset, count, v)) with the per-channel
// parameters of the run's lanes; load prefetches its streams ahead of offset
// pf (offset itself, or beyond it where the order interleaves several
// streams). `cached` says the tensors come from the
// cache and `intel` that the CPU is Intel's, which pick the order for wide
// NHWC pixels.
template <class Format, size_t K, class DF, class Visit>
HWY_INLINE void ForEachElementwise(DF df, size_t channels, size_t spatial,
                                   size_t sBegin, size_t sEnd,
                                   const float* const* perChannel, bool cached, bool intel,
                                   const Visit& visit) {
  const size_t N = hn::Lanes(df);
  if constexpr (std::is_same_v<Format, Nhwc> && K > 0) {
    // With C a multiple of N, pixels have no tail and per-pixel parameter
    // loads are cheaper than the phase bookkeeping; the flat stream pays off
    // only when pixels would end in partial vectors.
    if (channels % N != 0 && channels <= kMaxFlatChannels) {
      return NhwcFlat<K>(df, channels, sBegin, sEnd, perChannel, visit);
    }
    if (channels % N == 0) {
      if (channels <= 4 * N) {
        return NhwcInRegisters<K>(df, channels, sBegin, sEnd, perChannel, visit);
      }
      if ((cached && K <= 2) || (kWidePixelsInOrder && intel)) {
        return NhwcPixelByPixel<K, true>(df, channels, sBegin, sEnd, perChannel, visit);
      }
      // Without groups of runs (kRunGroup 1: AVX2 and below) the stream is
      // also faster than the pixel groups from the cache (bench:
      // BM_FusedPerTarget rows; BM_Fused<float>/type:1/C:256/HW:784/nhwc:1).
      if (!cached || kRunGroup == 1) {
        return NhwcPixelByPixel<K, false>(df, channels, sBegin, sEnd, perChannel, visit);
      }
      sBegin = NhwcPixelGroups<K>(df, channels, sBegin, sEnd, perChannel, visit);
    }
  }
  ForEachChannelRun<Format, K>(df, channels, spatial, sBegin, sEnd, perChannel, visit);
}

// Loads/stores a run found by ForEachChannelRun: full vector or tail.
template <typename T, class DF>
HWY_INLINE hn::Vec<DF> LoadRun(DF df, const T* p, size_t count) {
  return count == hn::Lanes(df) ? LoadF32(df, p) : LoadF32Partial(df, p, count);
}
// With `stream`, full vectors may be stored non-temporally (StoreF32Streaming;
// kPlain as there).
template <bool kPlain = false, typename T, class DF>
HWY_INLINE void StoreRun(DF df, hn::Vec<DF> v, T* p, size_t count, bool stream = false) {
  if (count == hn::Lanes(df)) {
    StoreF32Streaming<kPlain>(df, v, p, stream);
  } else {
    StoreF32Partial(df, v, p, count);
  }
}

}  // namespace HWY_NAMESPACE
SYNETK_NAMESPACE_END
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
