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

// Whether v[0, n) are all finite. No exit inside the loop, and four
// independent ORs: GCC vectorizes it at -O3 and overlaps the ORs at -O2,
// where a test and branch per value (std::isfinite) kept one value per
// cycle. 256 values: 89 -> 25 ns (Zen 4, -O2 and -O3, x86-64 baseline);
// it ran on every QuantizedScale call, 2-3% of a 200 KiB NHWC one. The
// reporting loop below names the first bad value.
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

/// DequantizeLinear: dst[i] = float(src[i] + bias) * norm[0], i < size.
/// Q is uint8_t or int8_t; F any float element type (float, bfloat16, float16,
/// user types). -bias must be a zero point of Q (uint8: bias in [-255, 0],
/// int8: bias in [-127, 128]); norm[0] finite and non-zero. The product is
/// rounded to fp32, then (bf16/f16) to nearest even. `part` selects elements.
template <typename Q, typename F>
struct DequantizeLinear {
  static constexpr const char* kLayer = "DequantizeLinear";
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

/// QuantizeLinear: dst[i] = clamp(Round(src[i] * norm[0]) + zero), i < size,
/// clamped to Q's range. Round is half to even; the product is one fp32
/// multiplication; +/-inf and huge values saturate; NaN gives `zero`.
/// zero must lie in Q's range; norm[0] finite and non-zero. `part` selects
/// elements.
template <typename F, typename Q>
struct QuantizeLinear {
  static constexpr const char* kLayer = "QuantizeLinear";
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

/// QuantizedConcat (uint8): for each of `num` blocks, for each input s in
/// order, size[s] elements of input s's block b (src[s] + b*size[s]),
/// requantized: clamp(Round(float(x + bias[s]) * norm[s] * scale[0]) + zero).
/// dst must not overlap any input. `part` selects blocks (of num).
struct QuantizedConcat {
  static constexpr const char* kLayer = "QuantizedConcat";
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
    // coincide, and the NHWC kernel runs the channels as one row instead of
    // a table or a partial vector each (512 channels, AVX3_DL: 10 -> 0.4 us
    // per call). A context's maps are NCHW's own, so they are left out.
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

/// QuantizedScale (uint8), per channel c:
///   v = float(src - srcZero) * srcScale[0]; v = v*scale[c] + (bias ? bias[c] : 0);
///   dst = clamp(Round(v * (1/dstScale[0])) + dstZero, 0, 255)
/// with v*scale[c] + bias[c] rounded once (a fused multiply-add, as the
/// original computes it; without a bias, the plain product) and 1/dstScale[0]
/// computed once in fp32 (as the original): the same bytes on every target.
/// bias may be null. In place (dst == src) is allowed. `part` selects
/// spatial positions.
template <class Format>
struct QuantizedScale {
  static constexpr const char* kLayer = "QuantizedScale";
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
/// stateless QuantizedScale redoes on every long call: each channel's
/// 256-entry byte map (NCHW) and fixed-point plan (SIMD targets other than
/// SCALAR, at most 512 channels, and no lane that can be inf * 0; otherwise
/// each long call plans as the functor does). Forward gives exactly
/// QuantizedScale's bytes; it is const and may run on several threads at once
/// (parts). InternalBufferSize reports the bytes kept: the copied scale and
/// bias, 256 per channel in NCHW, and about 16 KiB of plans.
template <class Format>
class QuantizedScaleContext final : public Context {
 public:
  static constexpr const char* kLayer = "QuantizedScale";

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

  size_t Channels() const { return args_.channels; }
  size_t InternalBufferSize() const {
    return maps_.size() * sizeof(detail::ByteMap) + (plans_ ? sizeof(detail::ScaleFixedPlans) : 0) +
           (scale_.size() + bias_.size()) * sizeof(float);
  }

  /// src and dst: Channels() x spatial bytes in Format; dst == src allowed.
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
/// srcC1 must both be even and positive.
///  type 0: src0 has srcC0 channels, src1 srcC1; X = their concatenation;
///          dst0 = X[0], X[2], ...; dst1 = X[1], X[3], ... ((srcC0+srcC1)/2 each).
///  type 1: src0 and src1 have (srcC0+srcC1)/2 channels each; Y = src0[0],
///          src1[0], src0[1], ...; dst0 = Y[0, srcC0), dst1 = Y[srcC0, end).
/// Every value is requantized from its input's (bias, norm) to (scale[0],
/// zero) like QuantizedConcat. Outputs must not overlap inputs or each other.
/// `part` selects spatial positions.
template <class Format>
struct QuantizedShuffle {
  static constexpr const char* kLayer = "QuantizedShuffle";
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
