// Copyright synetk authors. SPDX-License-Identifier: MIT
// Quantization layers: public functors. Included by synetk.h after every
// target's kernels exist (HWY_ONCE); do not include directly. Arithmetic,
// rounding, saturation and NaN handling: docs/quant.md.
#ifndef SYNETK_OPS_QUANT_H_
#define SYNETK_OPS_QUANT_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "synetk/context.h"
#include "synetk/streaming.h"
#include "synetk/detail/check.h"
#include "synetk/detail/dispatch.h"
#include "synetk/element.h"
#include "synetk/format.h"
#include "synetk/range.h"

namespace synetk {
namespace detail {

// The quantized side: exactly uint8_t or int8_t.
template <typename Q>
inline constexpr bool kIsQuantElement = std::is_same_v<Q, uint8_t> || std::is_same_v<Q, int8_t>;

// Range of the quantized type (uint8: [0, 255], int8: [-128, 127]).
template <typename Q>
struct QuantRange {
  static constexpr bool kSigned = ElementTraits<Q>::kEncoding == Encoding::kInt8;
  static constexpr int32_t kMin = kSigned ? -128 : 0;
  static constexpr int32_t kMax = kSigned ? 127 : 255;
};

// A quantization scale or norm: finite and non-zero.
inline void CheckScale(const char* layer, const char* param, float v) {
  if (!(std::isfinite(v) && v != 0.0f)) Fail(layer, param, v, "a finite non-zero value");
}

// v's exponent field plus one unit: bit 31 is set exactly where the field
// is all ones (an infinity or a NaN).
inline uint32_t ExponentCarry(const float* v) {
  uint32_t bits;
  std::memcpy(&bits, v, sizeof(bits));
  return (bits & 0x7F800000u) + 0x00800000u;
}

// Whether v[0, n) are all finite. It runs on every QuantizedScale call and
// context (over scale and bias), so it has no exit inside the loop and four
// independent ORs: GCC vectorizes it at -O3 and overlaps the ORs at -O2,
// where a test and branch per value (std::isfinite) handles one value per
// cycle and shows as a visible share of a mid-sized call
// (bench: BM_QuantScale<true>/C:256/HW:784/nhwc:1). Only when it fails does
// the reporting loop in CheckScaleParams look for the first bad value, to
// name it.
inline bool AllFinite(const float* v, size_t n) {
  uint32_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  const size_t n4 = n / 4 * 4;
  for (size_t i = 0; i < n4; i += 4) {
    c0 |= ExponentCarry(v + i);
    c1 |= ExponentCarry(v + i + 1);
    c2 |= ExponentCarry(v + i + 2);
    c3 |= ExponentCarry(v + i + 3);
  }
  for (size_t i = n4; i < n; ++i) c0 |= ExponentCarry(v + i);
  return ((c0 | c1 | c2 | c3) & 0x80000000u) == 0;
}

inline void CheckFinite(const char* layer, const char* param, float v) {
  if (!std::isfinite(v)) Fail(layer, param, v, "a finite value");
}

// A zero point of a tensor whose elements lie in [lo, hi].
inline void CheckZero(const char* layer, const char* param, int64_t zero, int32_t lo,
                      int32_t hi) {
  if (zero < lo || zero > hi) {
    const std::string e = "a zero point in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    Fail(layer, param, zero, e.c_str());
  }
}

// A dequantization bias: minus a zero point in [lo, hi].
inline void CheckBias(const char* layer, const char* param, int64_t bias, int32_t lo,
                      int32_t hi) {
  if (-bias < lo || -bias > hi) {
    const std::string e = "minus a zero point, in [" + std::to_string(-hi) + ", " +
                          std::to_string(-lo) + "]";
    Fail(layer, param, bias, e.c_str());
  }
}

// QuantizedScale's per-layer parameters, validated, as kernel arguments
// (without tensors).
inline ScaleArgs CheckScaleParams(const char* layer, const float* srcScale, int srcZero,
                                  size_t channels, const float* scale, const float* bias,
                                  const float* dstScale, int dstZero) {
  CheckPositive(layer, "channels", channels);
  CheckedBytes(layer, "channels", channels, sizeof(ByteMap) + 2 * sizeof(float));
  CheckNotNull(layer, "srcScale", srcScale);
  CheckNotNull(layer, "scale", scale);
  CheckNotNull(layer, "dstScale", dstScale);
  CheckScale(layer, "srcScale[0]", srcScale[0]);
  CheckScale(layer, "dstScale[0]", dstScale[0]);
  const float inv = 1.0f / dstScale[0];
  if (!std::isfinite(inv)) Fail(layer, "dstScale[0]", dstScale[0], "a value whose fp32 reciprocal is finite");
  CheckZero(layer, "srcZero", srcZero, 0, 255);
  CheckZero(layer, "dstZero", dstZero, 0, 255);
  if (!AllFinite(scale, channels) || (bias != nullptr && !AllFinite(bias, channels))) {
    for (size_t c = 0; c < channels; ++c) {  // the first one that is not, reported
      CheckFinite(layer, "scale[c]", scale[c]);
      if (bias != nullptr) CheckFinite(layer, "bias[c]", bias[c]);
    }
  }
  ScaleArgs a;
  a.srcZero = srcZero;
  a.srcScale = srcScale[0];
  a.scale = scale;
  a.bias = bias;
  a.channels = channels;
  a.invDstScale = inv;
  a.dstZero = dstZero;
  return a;
}

// QuantizedScale's tensor shape; returns its element count. Checked before
// the parameters, which read scale[channels - 1].
inline size_t CheckScaleShape(const char* layer, size_t channels, size_t spatial) {
  CheckPositive(layer, "channels", channels);
  CheckPositive(layer, "spatial", spatial);
  const size_t n = CheckedProduct(layer, "channels*spatial", {channels, spatial});
  CheckedBytes(layer, "channels*spatial", n, sizeof(float));
  return n;
}

// QuantizedScale's tensors (n elements each, CheckScaleShape) and part,
// validated into a; false: nothing to do.
inline bool CheckScaleTensors(const char* layer, ScaleArgs& a, const uint8_t* src, size_t spatial,
                              size_t n, uint8_t* dst, Range& part) {
  CheckNotNull(layer, "src", src);
  CheckNotNull(layer, "dst", dst);
  CheckNoPartialOverlap(layer, "dst", dst, n, "src", src, n, true);
  ClampPart(layer, part, spatial);
  if (part.begin == part.end) return false;
  a.src = src;
  a.dst = dst;
  a.spatial = spatial;
  a.sBegin = part.begin;
  a.sEnd = part.end;
  return true;
}

}  // namespace detail
}  // namespace synetk

SYNETK_NAMESPACE_BEGIN

/// DequantizeLinear: for i < size,
///
///     dst[i] = float(src[i] + bias) * norm[0]
///
/// (an integer add, an exact conversion, one fp32 multiplication; bf16/f16
/// outputs then round to nearest even): the same bits on every target.
/// -bias must be a zero point of Q (uint8: bias in [-255, 0], int8: bias in
/// [-127, 128]); norm[0] finite and non-zero. `part` selects elements.
///
/// \tparam Q uint8_t or int8_t.
/// \tparam F float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
template <typename Q, typename F>
struct DequantizeLinear {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "DequantizeLinear";
  /// Runs the layer (formula above).
  /// \param src Input, size quantized values.
  /// \param size Elements (> 0).
  /// \param bias Added to each value: minus the zero point.
  /// \param norm Pointer to the scale; only norm[0] is read.
  /// \param dst Output, size elements, disjoint from src.
  /// \param part The elements to compute.
  /// \throws synetk::Error (nothing written) for a null src, norm or dst,
  ///   size 0 or a byte count that overflows, bias outside the range above,
  ///   norm[0] zero, infinite or NaN, dst overlapping src, or
  ///   part.begin > part.end.
  void operator()(const Q* src, size_t size, int32_t bias, const float* norm, F* dst,
                  Range part = Range::All()) const {
    using namespace detail;
    static_assert(kIsQuantElement<Q>, "Q must be uint8_t or int8_t");
    static_assert(kIsFloatElement<F>, "F must be a float element type");
    static_assert(CheckElementLayout<F>());
    CheckPositive(kLayer, "size", size);
    CheckedBytes(kLayer, "size", size, sizeof(F));
    CheckNotNull(kLayer, "src", src);
    CheckNotNull(kLayer, "norm", norm);
    CheckNotNull(kLayer, "dst", dst);
    CheckBias(kLayer, "bias", bias, QuantRange<Q>::kMin, QuantRange<Q>::kMax);
    CheckScale(kLayer, "norm[0]", norm[0]);
    CheckNoPartialOverlap(kLayer, "dst", dst, size * sizeof(F), "src", src, size * sizeof(Q), false);
    ClampPart(kLayer, part, size);
    if (part.begin == part.end) return;
    DequantArgs<Q, F> a;
    a.src = src + part.begin;
    a.size = part.end - part.begin;
    a.bias = bias;
    a.norm = norm[0];
    a.dst = dst + part.begin;
    a.stream = PreferStreamingStores(size * (sizeof(Q) + sizeof(F)));  // the whole call's
    using Cfg = DequantCfg<Q, F>;
    SYNETK_DISPATCH(DequantKernel<Cfg>)(a);
  }
};

/// QuantizeLinear: for i < size,
///
///     dst[i] = clamp(Round(float(src[i]) * norm[0]) + zero, qmin, qmax)
///
/// with [qmin, qmax] Q's range ([0, 255] or [-128, 127]). Round is half to
/// even; the product is one fp32 multiplication; values beyond the range,
/// +/-inf and those past the int32 range included, saturate; NaN gives
/// `zero`. The same bits on every
/// target. zero must lie in Q's range; norm[0] finite and non-zero. `part`
/// selects elements.
///
/// \tparam F float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
/// \tparam Q uint8_t or int8_t.
template <typename F, typename Q>
struct QuantizeLinear {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "QuantizeLinear";
  /// Runs the layer (formula above).
  /// \param src Input, size elements.
  /// \param size Elements (> 0).
  /// \param norm Pointer to the reciprocal of the scale; only norm[0] is read.
  /// \param zero The zero point, in Q's range.
  /// \param dst Output, size quantized values, disjoint from src.
  /// \param part The elements to compute.
  /// \throws synetk::Error (nothing written) for a null src, norm or dst,
  ///   size 0 or a byte count that overflows, zero outside Q's range,
  ///   norm[0] zero, infinite or NaN, dst overlapping src, or
  ///   part.begin > part.end.
  void operator()(const F* src, size_t size, const float* norm, int32_t zero, Q* dst,
                  Range part = Range::All()) const {
    using namespace detail;
    static_assert(kIsQuantElement<Q>, "Q must be uint8_t or int8_t");
    static_assert(kIsFloatElement<F>, "F must be a float element type");
    static_assert(CheckElementLayout<F>());
    CheckPositive(kLayer, "size", size);
    CheckedBytes(kLayer, "size", size, sizeof(F));
    CheckNotNull(kLayer, "src", src);
    CheckNotNull(kLayer, "norm", norm);
    CheckNotNull(kLayer, "dst", dst);
    CheckZero(kLayer, "zero", zero, QuantRange<Q>::kMin, QuantRange<Q>::kMax);
    CheckScale(kLayer, "norm[0]", norm[0]);
    CheckNoPartialOverlap(kLayer, "dst", dst, size * sizeof(Q), "src", src, size * sizeof(F), false);
    ClampPart(kLayer, part, size);
    if (part.begin == part.end) return;
    QuantArgs<F, Q> a;
    a.src = src + part.begin;
    a.size = part.end - part.begin;
    a.norm = norm[0];
    a.zero = zero;
    a.dst = dst + part.begin;
    using Cfg = QuantCfg<F, Q>;
    SYNETK_DISPATCH(QuantKernel<Cfg>)(a);
  }
};

/// QuantizedConcat (uint8): for each of `num` blocks b, for each input s in
/// order, the size[s] values x of input s's block (at src[s] + b*size[s]),
/// requantized:
///
///     dst = clamp(Round(float(x + bias[s]) * norm[s] * scale[0]) + zero, 0, 255)
///
/// with the multiplications left to right, in fp32, and Round half to even:
/// the same bits on every target. An NHWC channel concatenation is
/// num = spatial, size[s] = the channels of input s. dst must not overlap
/// any input. `part` selects blocks (of num).
struct QuantizedConcat {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "QuantizedConcat";
  /// Runs the layer (formula above).
  /// \param count Inputs (> 0).
  /// \param src count pointers; input s holds num*size[s] bytes.
  /// \param num Blocks (> 0).
  /// \param size count block sizes (each > 0).
  /// \param bias count input biases: minus each input's zero point, in
  ///   [-255, 0].
  /// \param norm count input scales (finite, non-zero).
  /// \param scale Pointer to the reciprocal of the output scale; only
  ///   scale[0] is read (finite, non-zero).
  /// \param zero The output zero point, in [0, 255].
  /// \param dst Output, num*(size[0] + ... + size[count-1]) bytes, disjoint
  ///   from every input.
  /// \param part The blocks to compute.
  /// \throws synetk::Error (nothing written) for a null src, src[s], size,
  ///   bias, norm, scale or dst, count, num or a size[s] of 0, sizes whose
  ///   sum or product overflows, a bias[s] or zero out of range, a norm[s] or
  ///   scale[0] zero, infinite or NaN, dst overlapping an input, or
  ///   part.begin > part.end.
  void operator()(size_t count, const uint8_t* const* src, size_t num, const size_t* size,
                  const int32_t* bias, const float* norm, const float* scale, int32_t zero,
                  uint8_t* dst, Range part = Range::All()) const {
    using namespace detail;
    CheckPositive(kLayer, "count", count);
    CheckPositive(kLayer, "num", num);
    CheckNotNull(kLayer, "src", src);
    CheckNotNull(kLayer, "size", size);
    CheckNotNull(kLayer, "bias", bias);
    CheckNotNull(kLayer, "norm", norm);
    CheckNotNull(kLayer, "scale", scale);
    CheckNotNull(kLayer, "dst", dst);
    CheckScale(kLayer, "scale[0]", scale[0]);
    CheckZero(kLayer, "zero", zero, 0, 255);
    size_t total = 0;
    for (size_t s = 0; s < count; ++s) {
      CheckNotNull(kLayer, "src[s]", src[s]);
      CheckPositive(kLayer, "size[s]", size[s]);
      if (__builtin_add_overflow(total, size[s], &total)) {
        Fail(kLayer, "size[s]", size[s], "a sum of sizes that fits in size_t");
      }
      CheckBias(kLayer, "bias[s]", bias[s], 0, 255);
      CheckScale(kLayer, "norm[s]", norm[s]);
    }
    const size_t n = CheckedProduct(kLayer, "num*sum(size)", {num, total});
    CheckedBytes(kLayer, "num*sum(size)", n, 1);
    for (size_t s = 0; s < count; ++s) {
      CheckNoPartialOverlap(kLayer, "dst", dst, n, "src[s]", src[s], num * size[s], false);
    }
    ClampPart(kLayer, part, num);
    if (part.begin == part.end) return;
    ConcatArgs a;
    a.count = count;
    a.num = num;
    a.begin = part.begin;
    a.end = part.end;
    a.total = total;
    a.src = src;
    a.size = size;
    a.bias = bias;
    a.norm = norm;
    a.scale = scale[0];
    a.zero = zero;
    a.dst = dst;
    SYNETK_DISPATCH(ConcatKernel<ConcatCfg>)(a);
  }
};

namespace impl {

// QuantizedScale's kernel for the call's format and bias (a.bias null: none).
template <class Format>
inline void RunScale(const detail::ScaleArgs& a) {
  if constexpr (std::is_same_v<Format, Nchw>) {
    // One position per channel (C x 1 x 1): the NCHW and NHWC layouts
    // coincide, and the NHWC kernel runs the channels as one row of full
    // vectors, where the NCHW kernel would build or read a byte map, or run
    // a one-lane vector, for every single-byte channel. A context's maps are
    // NCHW's own, so they are left out.
    if (a.spatial == 1) {
      detail::ScaleArgs row = a;
      row.prepared = {};
      return RunScale<Nhwc>(row);
    }
  }
  using WithBias = detail::ScaleCfg<Format, true>;
  using NoBias = detail::ScaleCfg<Format, false>;
  if (a.bias != nullptr) {
    SYNETK_DISPATCH(ScaleKernel<WithBias>)(a);
  } else {
    SYNETK_DISPATCH(ScaleKernel<NoBias>)(a);
  }
}

}  // namespace impl

/// QuantizedScale (uint8). For each channel c and position s:
///
///     v = float(src[c, s] - srcZero) * srcScale[0]
///     v = v*scale[c] + bias[c]      (v*scale[c] when bias is null)
///     dst[c, s] = clamp(Round(v * (1/dstScale[0])) + dstZero, 0, 255)
///
/// with v*scale[c] + bias[c] rounded once (a fused multiply-add, as the
/// original computes it; without a bias, the plain product), 1/dstScale[0]
/// computed once in fp32 (as the original) and Round half to even: the same
/// bytes on every target. A NaN v (inf * 0) gives dstZero. bias may be
/// null. In place (dst == src) is allowed. `part` selects spatial positions.
/// The functor keeps nothing between calls: a long call works out its byte
/// maps or fixed-point plans for itself; QuantizedScaleContext works them
/// out once, for an engine that runs a layer with the same parameters at
/// every inference.
///
/// \tparam Format synetk::Nchw or synetk::Nhwc.
template <class Format>
struct QuantizedScale {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "QuantizedScale";
  /// Runs the layer (formula above).
  /// \param src Input, channels*spatial bytes in Format.
  /// \param srcScale Pointer to the input scale; only srcScale[0] is read
  ///   (finite, non-zero).
  /// \param srcZero The input zero point, in [0, 255].
  /// \param channels Channels (> 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param scale channels factors (finite; 0 allowed).
  /// \param bias channels addends (finite), or null for none.
  /// \param dst Output, channels*spatial bytes; dst == src is allowed.
  /// \param dstScale Pointer to the output scale; only dstScale[0] is read
  ///   (finite, non-zero, with a finite fp32 reciprocal).
  /// \param dstZero The output zero point, in [0, 255].
  /// \param part The spatial positions to compute.
  /// \throws synetk::Error (nothing written) for a null src, srcScale,
  ///   scale, dstScale or dst, channels or spatial 0, sizes whose product or
  ///   byte count overflows, srcScale[0] or dstScale[0] zero, infinite, NaN
  ///   or (dstScale[0]) with an infinite reciprocal, srcZero or dstZero
  ///   outside [0, 255], a scale[c] or bias[c] infinite or NaN, dst partly
  ///   overlapping src, or part.begin > part.end.
  void operator()(const uint8_t* src, const float* srcScale, int srcZero, size_t channels,
                  size_t spatial, const float* scale, const float* bias, uint8_t* dst,
                  const float* dstScale, int dstZero, Range part = Range::All()) const {
    using namespace detail;
    static_assert(kIsFormat<Format>, "Format must be synetk::Nchw or synetk::Nhwc");
    const size_t n = CheckScaleShape(kLayer, channels, spatial);
    ScaleArgs a = CheckScaleParams(kLayer, srcScale, srcZero, channels, scale, bias, dstScale,
                                   dstZero);
    if (!CheckScaleTensors(kLayer, a, src, spatial, n, dst, part)) return;
    impl::RunScale<Format>(a);
  }
};

/// QuantizedScale with its parameters fixed, as an engine's layer holds them:
/// the constructor validates and copies them and works out once what the
/// stateless QuantizedScale otherwise works out per parameter set: each
/// channel's 256-entry byte map (NCHW) and fixed-point plan (SIMD targets
/// other than SCALAR, at most 512 channels, and no lane that can be inf * 0;
/// otherwise each long call plans as the functor does). Forward gives exactly
/// QuantizedScale's bytes; it is const and may run on several threads at once
/// (parts). Not copyable.
///
/// \tparam Format synetk::Nchw or synetk::Nhwc.
template <class Format>
class QuantizedScaleContext final : public Context {
 public:
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "QuantizedScale";

  /// Validates and copies the parameters (as QuantizedScale's of the same
  /// names) and prepares the maps and plans.
  /// \param srcScale Pointer to the input scale; only srcScale[0] is read
  ///   (finite, non-zero).
  /// \param srcZero The input zero point, in [0, 255].
  /// \param channels Channels (> 0).
  /// \param scale channels factors (finite; 0 allowed), copied.
  /// \param bias channels addends (finite), copied, or null for none.
  /// \param dstScale Pointer to the output scale; only dstScale[0] is read
  ///   (finite, non-zero, with a finite fp32 reciprocal).
  /// \param dstZero The output zero point, in [0, 255].
  /// \throws synetk::Error for a null srcScale, scale or dstScale, channels
  ///   0 or too large for the maps and copies to fit in a quarter of the
  ///   address space, srcScale[0] or dstScale[0] zero, infinite, NaN or
  ///   (dstScale[0]) with an infinite reciprocal, srcZero or dstZero outside
  ///   [0, 255], or a scale[c] or bias[c] infinite or NaN.
  QuantizedScaleContext(const float* srcScale, int srcZero, size_t channels, const float* scale,
                        const float* bias, const float* dstScale, int dstZero) {
    using namespace detail;
    static_assert(kIsFormat<Format>, "Format must be synetk::Nchw or synetk::Nhwc");
    args_ = CheckScaleParams(kLayer, srcScale, srcZero, channels, scale, bias, dstScale, dstZero);
    scale_.assign(scale, scale + channels);
    if (bias != nullptr) bias_.assign(bias, bias + channels);
    args_.scale = scale_.data();
    args_.bias = bias != nullptr ? bias_.data() : nullptr;
    // Only NCHW rows go through whole maps (NHWC patches keep their own).
    if (std::is_same_v<Format, Nchw>) maps_.resize(channels);
    ByteMap* const maps = maps_.empty() ? nullptr : maps_.data();
    plans_ = std::make_unique<ScaleFixedPlans>();
    using WithBias = ScaleCfg<Format, true>;
    using NoBias = ScaleCfg<Format, false>;
    const bool planned =
        bias != nullptr
            ? SYNETK_DISPATCH(ScalePrepareKernel<WithBias>)(args_, maps, plans_.get())
            : SYNETK_DISPATCH(ScalePrepareKernel<NoBias>)(args_, maps, plans_.get());
    if (!planned) plans_.reset();
    args_.prepared.maps = maps;
    args_.prepared.plans = plans_.get();
  }

  // The kept pointers refer to the context's own vectors.
  QuantizedScaleContext(const QuantizedScaleContext&) = delete;
  QuantizedScaleContext& operator=(const QuantizedScaleContext&) = delete;

  /// \return The channel count given to the constructor.
  size_t Channels() const { return args_.channels; }
  /// \return The bytes the context keeps: the copied scale and bias, 256 per
  ///   channel of byte maps in NCHW, and the fixed-point plans when made.
  size_t InternalBufferSize() const {
    return maps_.size() * sizeof(detail::ByteMap) + (plans_ ? sizeof(detail::ScaleFixedPlans) : 0) +
           (scale_.size() + bias_.size()) * sizeof(float);
  }

  /// Runs QuantizedScale with the kept parameters: the same bytes.
  /// \param src Input, Channels()*spatial bytes in Format.
  /// \param spatial Spatial positions per channel (> 0).
  /// \param dst Output, Channels()*spatial bytes; dst == src is allowed.
  /// \param part The spatial positions to compute.
  /// \throws synetk::Error (nothing written) for a null src or dst, spatial
  ///   0, sizes whose product or byte count overflows, dst partly
  ///   overlapping src, or part.begin > part.end.
  void Forward(const uint8_t* src, size_t spatial, uint8_t* dst, Range part = Range::All()) const {
    using namespace detail;
    ScaleArgs a = args_;
    const size_t n = CheckScaleShape(kLayer, a.channels, spatial);
    if (!CheckScaleTensors(kLayer, a, src, spatial, n, dst, part)) return;
    impl::RunScale<Format>(a);
  }

 private:
  detail::ScaleArgs args_;
  std::vector<float> scale_, bias_;
  std::vector<detail::ByteMap> maps_;
  std::unique_ptr<detail::ScaleFixedPlans> plans_;  // null: not planned
};

/// QuantizedShuffle (uint8), type 0 (split) or 1 (interleave); srcC0 and
/// srcC1 must both be even and positive. Channels move as whole channels
/// (X[k] below is channel k, all its positions):
/// - type 0: src0 has srcC0 channels, src1 srcC1; X = their concatenation;
///   dst0 = X[0], X[2], ...; dst1 = X[1], X[3], ... ((srcC0+srcC1)/2 each).
/// - type 1: src0 and src1 have (srcC0+srcC1)/2 channels each; Y = src0[0],
///   src1[0], src0[1], ...; dst0 = Y[0, srcC0), dst1 = Y[srcC0, end).
///
/// Every value x is requantized from its own input's (bias, norm), as in
/// QuantizedConcat:
///
///     dst = clamp(Round(float(x + bias) * norm[0] * scale[0]) + zero, 0, 255)
///
/// Outputs must not overlap inputs or each other. `part` selects spatial
/// positions.
///
/// \tparam Format synetk::Nchw or synetk::Nhwc.
template <class Format>
struct QuantizedShuffle {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "QuantizedShuffle";
  /// Runs the layer (formula above).
  /// \param src0 First input (srcC0 channels for type 0,
  ///   (srcC0+srcC1)/2 for type 1) x spatial bytes.
  /// \param bias0 Added to src0's values: minus its zero point, in [-255, 0].
  /// \param norm0 Pointer to src0's scale; only norm0[0] is read.
  /// \param srcC0 See above (even, > 0).
  /// \param src1 Second input (srcC1 channels for type 0,
  ///   (srcC0+srcC1)/2 for type 1) x spatial bytes.
  /// \param bias1 Added to src1's values: minus its zero point, in [-255, 0].
  /// \param norm1 Pointer to src1's scale; only norm1[0] is read.
  /// \param srcC1 See above (even, > 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param dst0 First output ((srcC0+srcC1)/2 channels for type 0, srcC0
  ///   for type 1).
  /// \param dst1 Second output ((srcC0+srcC1)/2 channels for type 0, srcC1
  ///   for type 1).
  /// \param scale Pointer to the reciprocal of the output scale; only
  ///   scale[0] is read.
  /// \param zero The output zero point, in [0, 255].
  /// \param type 0 (split) or 1 (interleave).
  /// \param part The spatial positions to compute.
  /// \throws synetk::Error (nothing written) for a type other than 0 or 1,
  ///   an odd or zero srcC0 or srcC1, spatial 0, sizes whose sum or product
  ///   overflows, a null src0, norm0, src1, norm1, dst0, dst1 or scale, bias0
  ///   or bias1 outside [-255, 0], norm0[0], norm1[0] or scale[0] zero,
  ///   infinite or NaN, zero outside [0, 255], an output overlapping an input
  ///   or the other output, or part.begin > part.end.
  void operator()(const uint8_t* src0, int bias0, const float* norm0, size_t srcC0,
                  const uint8_t* src1, int bias1, const float* norm1, size_t srcC1,
                  size_t spatial, uint8_t* dst0, uint8_t* dst1, const float* scale, int zero,
                  int type, Range part = Range::All()) const {
    using namespace detail;
    static_assert(kIsFormat<Format>, "Format must be synetk::Nchw or synetk::Nhwc");
    if (type != 0 && type != 1) Fail(kLayer, "type", type, "0 (split) or 1 (interleave)");
    CheckPositive(kLayer, "srcC0", srcC0);
    CheckPositive(kLayer, "srcC1", srcC1);
    if (srcC0 % 2 != 0) Fail(kLayer, "srcC0", srcC0, "an even channel count");
    if (srcC1 % 2 != 0) Fail(kLayer, "srcC1", srcC1, "an even channel count");
    CheckPositive(kLayer, "spatial", spatial);
    size_t C;
    if (__builtin_add_overflow(srcC0, srcC1, &C)) {
      Fail(kLayer, "srcC0+srcC1", "overflow", "a sum that fits in size_t");
    }
    const size_t n = CheckedProduct(kLayer, "(srcC0+srcC1)*spatial", {C, spatial});
    CheckedBytes(kLayer, "(srcC0+srcC1)*spatial", n, sizeof(float));
    CheckNotNull(kLayer, "src0", src0);
    CheckNotNull(kLayer, "norm0", norm0);
    CheckNotNull(kLayer, "src1", src1);
    CheckNotNull(kLayer, "norm1", norm1);
    CheckNotNull(kLayer, "dst0", dst0);
    CheckNotNull(kLayer, "dst1", dst1);
    CheckNotNull(kLayer, "scale", scale);
    CheckBias(kLayer, "bias0", bias0, 0, 255);
    CheckBias(kLayer, "bias1", bias1, 0, 255);
    CheckScale(kLayer, "norm0[0]", norm0[0]);
    CheckScale(kLayer, "norm1[0]", norm1[0]);
    CheckScale(kLayer, "scale[0]", scale[0]);
    CheckZero(kLayer, "zero", zero, 0, 255);
    const size_t half = n / 2;
    const size_t in0 = type == 0 ? srcC0 * spatial : half, in1 = type == 0 ? srcC1 * spatial : half;
    const size_t out0 = type == 0 ? half : srcC0 * spatial, out1 = type == 0 ? half : srcC1 * spatial;
    CheckNoPartialOverlap(kLayer, "dst0", dst0, out0, "src0", src0, in0, false);
    CheckNoPartialOverlap(kLayer, "dst0", dst0, out0, "src1", src1, in1, false);
    CheckNoPartialOverlap(kLayer, "dst1", dst1, out1, "src0", src0, in0, false);
    CheckNoPartialOverlap(kLayer, "dst1", dst1, out1, "src1", src1, in1, false);
    CheckNoPartialOverlap(kLayer, "dst1", dst1, out1, "dst0", dst0, out0, false);
    ClampPart(kLayer, part, spatial);
    if (part.begin == part.end) return;
    ShuffleArgs a;
    a.sBegin = part.begin;
    a.sEnd = part.end;
    a.src0 = src0;
    a.src1 = src1;
    a.bias0 = bias0;
    a.bias1 = bias1;
    a.norm0 = norm0[0];
    a.norm1 = norm1[0];
    a.srcC0 = srcC0;
    a.srcC1 = srcC1;
    a.spatial = spatial;
    a.dst0 = dst0;
    a.dst1 = dst1;
    a.scale = scale[0];
    a.zero = zero;
    using Split = ShuffleCfg<Format, 0>;
    using Interleave = ShuffleCfg<Format, 1>;
    if (type == 0) {
      SYNETK_DISPATCH(ShuffleKernel<Split>)(a);
    } else {
      SYNETK_DISPATCH(ShuffleKernel<Interleave>)(a);
    }
  }
};

SYNETK_NAMESPACE_END

#endif  // SYNETK_OPS_QUANT_H_
