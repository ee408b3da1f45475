// Copyright synetk authors. SPDX-License-Identifier: MIT
// Fused activation layers: public functors. Included by synetk.h after every
// target's kernels exist (HWY_ONCE); do not include directly.
#ifndef SYNETK_OPS_FUSED_H_
#define SYNETK_OPS_FUSED_H_

#include "synetk/streaming.h"
#include "synetk/detail/check.h"
#include "synetk/detail/cpu.h"
#include "synetk/detail/dispatch.h"
#include "synetk/element.h"
#include "synetk/format.h"
#include "synetk/range.h"

SYNETK_NAMESPACE_BEGIN
namespace impl {

// Shared validation; returns the element count of one input tensor.
inline size_t CheckFusedShape(const char* layer, size_t channels,
                              size_t spatial, size_t elemBytes) {
  CheckPositive(layer, "channels", channels);
  CheckPositive(layer, "spatial", spatial);
  const size_t n = CheckedProduct(layer, "channels*spatial", {channels, spatial});
  CheckedBytes(layer, "channels*spatial", n, 2 * elemBytes);  // type 4 writes 2n
  return n;
}

template <int kType, typename T, class Format>
inline void RunFused(FusedArgs<T>& a, Range part, const char* layer) {
  static_assert(kIsFormat<Format>, "Format must be synetk::Nchw or synetk::Nhwc");
  static_assert(kIsFloatElement<T>, "fused layers take float element types");
  static_assert(CheckElementLayout<T>());
  ClampPart(layer, part, a.spatial);
  if (part.begin == part.end) return;
  a.sBegin = part.begin;
  a.sEnd = part.end;
  // Whole-call traffic (in + out), so that every part decides alike.
  const size_t outChannels = (kType == 4 ? 2 : 1) * (a.channels + a.channels1);
  const size_t inputs = kType == 8 ? 2 : 1;
  const size_t bytes = (inputs * (a.channels + a.channels1) + outChannels) * a.spatial * sizeof(T);
  a.stream = PreferStreamingStores(bytes);
  a.prefetch = detail::PrefetchCall(bytes);
  a.cached = bytes <= kCachedFusedBytes;
  a.intel = detail::IsIntelCpu();
  // Where the two layouts coincide, the kernel that sees one contiguous row
  // runs (the NHWC and NCHW kernels give the same bits, a tested property):
  // - one position per channel (C x 1 x 1 after a global pooling; type 4's
  //   and type 9's outputs coincide too): NHWC streams the channels as one
  //   row instead of a partial vector per channel (bench: BM_CallOverhead);
  // - one channel (types whose output has the input's channels): NCHW runs
  //   the positions as one row instead of a one-lane vector per position
  //   (bench: BM_CallOverhead/layer:1/C:1).
  if constexpr (std::is_same_v<Format, Nchw>) {
    if (a.spatial == 1) {
      using Row = FusedCfg<kType, T, Nhwc>;
      SYNETK_DISPATCH(FusedKernel<Row>)(a);
      return;
    }
  } else if constexpr (kType != 4 && kType != 9) {
    if (a.channels == 1) {
      using Row = FusedCfg<kType, T, Nchw>;
      SYNETK_DISPATCH(FusedKernel<Row>)(a);
      return;
    }
  }
  using Cfg = FusedCfg<kType, T, Format>;
  SYNETK_DISPATCH(FusedKernel<Cfg>)(a);
}

}  // namespace impl

/// Fused layer type 0. For each channel c and position s:
///
///     x = src[c, s] + bias[c]
///     dst[c, s] = (x - |x|)*scale[c] + max(0, x)
///
/// In place (dst == src) is allowed.
///
/// Computed in fp32 (`a*b + c` terms use fused multiply-add where the target
/// has it); bf16/f16 outputs round to nearest even. NHWC results equal the
/// transposed NCHW results bit for bit. `part` selects spatial positions;
/// parts give results bit-identical to one call.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
/// \tparam Format synetk::Nchw or synetk::Nhwc.
template <typename T, class Format>
struct FusedLayer0 {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "FusedLayer0";
  /// Runs the layer (formula above).
  /// \param src Input, channels*spatial elements in Format.
  /// \param bias channels values, added first.
  /// \param scale channels values, multiplying (x - |x|).
  /// \param channels Channels (> 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param dst Output, channels*spatial elements; dst == src is allowed.
  /// \param part The spatial positions to compute.
  /// \throws synetk::Error (nothing written) for a null src, bias, scale or
  ///   dst, channels or spatial 0, sizes whose product or byte count
  ///   overflows, dst partly overlapping src, or part.begin > part.end.
  void operator()(const T* src, const float* bias, const float* scale,
                  size_t channels, size_t spatial, T* dst,
                  Range part = Range::All()) const {
    using namespace impl;
    const size_t n = CheckFusedShape(kLayer, channels, spatial, sizeof(T));
    CheckNotNull(kLayer, "src", src);
    CheckNotNull(kLayer, "bias", bias);
    CheckNotNull(kLayer, "scale", scale);
    CheckNotNull(kLayer, "dst", dst);
    CheckNoPartialOverlap(kLayer, "dst", dst, n * sizeof(T), "src", src, n * sizeof(T), true);
    FusedArgs<T> a;
    a.src0 = src;
    a.channel[0] = bias;
    a.channel[1] = scale;
    a.channels = channels;
    a.spatial = spatial;
    a.dst0 = dst;
    RunFused<0, T, Format>(a, part, kLayer);
  }
};

/// Fused layer type 1. For each channel c and position s:
///
///     x = src[c, s] + bias0[c]
///     dst[c, s] = max(0, -x)*scale1[c] + bias1[c] + max(0, x)
///
/// In place (dst == src) is allowed.
///
/// Computed in fp32 (`a*b + c` terms use fused multiply-add where the target
/// has it); bf16/f16 outputs round to nearest even. NHWC results equal the
/// transposed NCHW results bit for bit. `part` selects spatial positions;
/// parts give results bit-identical to one call.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
/// \tparam Format synetk::Nchw or synetk::Nhwc.
template <typename T, class Format>
struct FusedLayer1 {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "FusedLayer1";
  /// Runs the layer (formula above).
  /// \param src Input, channels*spatial elements in Format.
  /// \param bias0 channels values, added first.
  /// \param scale1 channels values, multiplying max(0, -x).
  /// \param bias1 channels values, added to the result.
  /// \param channels Channels (> 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param dst Output, channels*spatial elements; dst == src is allowed.
  /// \param part The spatial positions to compute.
  /// \throws synetk::Error (nothing written) for a null src, bias0, scale1,
  ///   bias1 or dst, channels or spatial 0, sizes whose product or byte count
  ///   overflows, dst partly overlapping src, or part.begin > part.end.
  void operator()(const T* src, const float* bias0, const float* scale1,
                  const float* bias1, size_t channels, size_t spatial, T* dst,
                  Range part = Range::All()) const {
    using namespace impl;
    const size_t n = CheckFusedShape(kLayer, channels, spatial, sizeof(T));
    CheckNotNull(kLayer, "src", src);
    CheckNotNull(kLayer, "bias0", bias0);
    CheckNotNull(kLayer, "scale1", scale1);
    CheckNotNull(kLayer, "bias1", bias1);
    CheckNotNull(kLayer, "dst", dst);
    CheckNoPartialOverlap(kLayer, "dst", dst, n * sizeof(T), "src", src, n * sizeof(T), true);
    FusedArgs<T> a;
    a.src0 = src;
    a.channel[0] = bias0;
    a.channel[1] = scale1;
    a.channel[2] = bias1;
    a.channels = channels;
    a.spatial = spatial;
    a.dst0 = dst;
    RunFused<1, T, Format>(a, part, kLayer);
  }
};

/// Fused layer type 2 (a scale and bias, then a leaky ReLU). For each
/// channel c and position s:
///
///     x = src[c, s]*scale[c] + bias[c]
///     dst[c, s] = max(0, x) + min(0, x)*slope[0]
///
/// In place (dst == src) is allowed.
///
/// Computed in fp32 (`a*b + c` terms use fused multiply-add where the target
/// has it); bf16/f16 outputs round to nearest even. NHWC results equal the
/// transposed NCHW results bit for bit. `part` selects spatial positions;
/// parts give results bit-identical to one call.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
/// \tparam Format synetk::Nchw or synetk::Nhwc.
template <typename T, class Format>
struct FusedLayer2 {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "FusedLayer2";
  /// Runs the layer (formula above).
  /// \param src Input, channels*spatial elements in Format.
  /// \param scale channels values, multiplying src.
  /// \param bias channels values, added after the scale.
  /// \param channels Channels (> 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param slope Pointer to the slope; only slope[0] is read.
  /// \param dst Output, channels*spatial elements; dst == src is allowed.
  /// \param part The spatial positions to compute.
  /// \throws synetk::Error (nothing written) for a null src, scale, bias,
  ///   slope or dst, channels or spatial 0, sizes whose product or byte count
  ///   overflows, dst partly overlapping src, or part.begin > part.end.
  void operator()(const T* src, const float* scale, const float* bias,
                  size_t channels, size_t spatial, const float* slope, T* dst,
                  Range part = Range::All()) const {
    using namespace impl;
    const size_t n = CheckFusedShape(kLayer, channels, spatial, sizeof(T));
    CheckNotNull(kLayer, "src", src);
    CheckNotNull(kLayer, "scale", scale);
    CheckNotNull(kLayer, "bias", bias);
    CheckNotNull(kLayer, "slope", slope);
    CheckNotNull(kLayer, "dst", dst);
    CheckNoPartialOverlap(kLayer, "dst", dst, n * sizeof(T), "src", src, n * sizeof(T), true);
    FusedArgs<T> a;
    a.src0 = src;
    a.channel[0] = scale;
    a.channel[1] = bias;
    a.scalar[0] = slope[0];
    a.channels = channels;
    a.spatial = spatial;
    a.dst0 = dst;
    RunFused<2, T, Format>(a, part, kLayer);
  }
};

/// Fused layer type 3 (a per-channel PReLU after a bias). For each channel c
/// and position s:
///
///     x = src[c, s] + bias[c]
///     dst[c, s] = max(0, x) + min(0, x)*scale[c]
///
/// The bias comes first, as in types 0 and 1 and in the original library's
/// implementation: a plain PReLU is (src, zeros, slopes, ...). In place
/// (dst == src) is allowed.
///
/// Computed in fp32 (`a*b + c` terms use fused multiply-add where the target
/// has it); bf16/f16 outputs round to nearest even. NHWC results equal the
/// transposed NCHW results bit for bit. `part` selects spatial positions;
/// parts give results bit-identical to one call.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
/// \tparam Format synetk::Nchw or synetk::Nhwc.
template <typename T, class Format>
struct FusedLayer3 {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "FusedLayer3";
  /// Runs the layer (formula above).
  /// \param src Input, channels*spatial elements in Format.
  /// \param bias channels values, added first.
  /// \param scale channels values, multiplying negative x (the slopes).
  /// \param channels Channels (> 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param dst Output, channels*spatial elements; dst == src is allowed.
  /// \param part The spatial positions to compute.
  /// \throws synetk::Error (nothing written) for a null src, bias, scale or
  ///   dst, channels or spatial 0, sizes whose product or byte count
  ///   overflows, dst partly overlapping src, or part.begin > part.end.
  void operator()(const T* src, const float* bias, const float* scale,
                  size_t channels, size_t spatial, T* dst,
                  Range part = Range::All()) const {
    using namespace impl;
    const size_t n = CheckFusedShape(kLayer, channels, spatial, sizeof(T));
    CheckNotNull(kLayer, "src", src);
    CheckNotNull(kLayer, "bias", bias);
    CheckNotNull(kLayer, "scale", scale);
    CheckNotNull(kLayer, "dst", dst);
    CheckNoPartialOverlap(kLayer, "dst", dst, n * sizeof(T), "src", src, n * sizeof(T), true);
    FusedArgs<T> a;
    a.src0 = src;
    a.channel[0] = bias;
    a.channel[1] = scale;
    a.channels = channels;
    a.spatial = spatial;
    a.dst0 = dst;
    RunFused<3, T, Format>(a, part, kLayer);
  }
};

/// Fused layer type 4. dst has 2*channels channels; for each input channel c
/// and position s:
///
///     x = src[c, s] + bias0[c]
///     dst[c, s] = max(0, x)
///     dst[channels + c, s] = max(0, x*scale1[0] + bias1[0])
///
/// NCHW: the second half starts at channels*spatial. NHWC: each position
/// holds its `channels` first-half values, then its `channels` second-half
/// values. dst must not overlap src.
///
/// Computed in fp32 (`a*b + c` terms use fused multiply-add where the target
/// has it); bf16/f16 outputs round to nearest even. NHWC results equal the
/// transposed NCHW results bit for bit. `part` selects spatial positions;
/// parts give results bit-identical to one call.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
/// \tparam Format synetk::Nchw or synetk::Nhwc.
template <typename T, class Format>
struct FusedLayer4 {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "FusedLayer4";
  /// Runs the layer (formula above).
  /// \param src Input, channels*spatial elements in Format.
  /// \param bias0 channels values, added first.
  /// \param scale1 Pointer to the second half's scale; only scale1[0] is read.
  /// \param bias1 Pointer to the second half's bias; only bias1[0] is read.
  /// \param channels Input channels (> 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param dst Output, 2*channels*spatial elements, disjoint from src.
  /// \param part The spatial positions to compute (both halves).
  /// \throws synetk::Error (nothing written) for a null src, bias0, scale1,
  ///   bias1 or dst, channels or spatial 0, sizes whose product or byte count
  ///   (of 2*channels*spatial elements) overflows, dst overlapping src, or
  ///   part.begin > part.end.
  void operator()(const T* src, const float* bias0, const float* scale1,
                  const float* bias1, size_t channels, size_t spatial, T* dst,
                  Range part = Range::All()) const {
    using namespace impl;
    const size_t n = CheckFusedShape(kLayer, channels, spatial, sizeof(T));
    CheckNotNull(kLayer, "src", src);
    CheckNotNull(kLayer, "bias0", bias0);
    CheckNotNull(kLayer, "scale1", scale1);
    CheckNotNull(kLayer, "bias1", bias1);
    CheckNotNull(kLayer, "dst", dst);
    CheckNoPartialOverlap(kLayer, "dst", dst, 2 * n * sizeof(T), "src", src, n * sizeof(T), false);
    FusedArgs<T> a;
    a.src0 = src;
    a.channel[0] = bias0;
    a.scalar[0] = scale1[0];
    a.scalar[1] = bias1[0];
    a.channels = channels;
    a.spatial = spatial;
    a.dst0 = dst;
    RunFused<4, T, Format>(a, part, kLayer);
  }
};

/// Fused layer type 8. For each channel c and position s:
///
///     dst[c, s] = src0[c, s] + src1[c, s]*src2[c]
///
/// dst may be src0 or src1 (the same buffer) or disjoint from both.
///
/// Computed in fp32 (`a*b + c` terms use fused multiply-add where the target
/// has it); bf16/f16 outputs round to nearest even. NHWC results equal the
/// transposed NCHW results bit for bit. `part` selects spatial positions;
/// parts give results bit-identical to one call.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
/// \tparam Format synetk::Nchw or synetk::Nhwc.
template <typename T, class Format>
struct FusedLayer8 {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "FusedLayer8";
  /// Runs the layer (formula above).
  /// \param src0 Added input, channels*spatial elements in Format.
  /// \param src1 Multiplied input, channels*spatial elements in Format.
  /// \param src2 channels values, the per-channel factor of src1.
  /// \param channels Channels (> 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param dst Output, channels*spatial elements; may equal src0 or src1.
  /// \param part The spatial positions to compute.
  /// \throws synetk::Error (nothing written) for a null src0, src1, src2 or
  ///   dst, channels or spatial 0, sizes whose product or byte count
  ///   overflows, dst partly overlapping src0 or src1, or
  ///   part.begin > part.end.
  void operator()(const T* src0, const T* src1, const float* src2,
                  size_t channels, size_t spatial, T* dst,
                  Range part = Range::All()) const {
    using namespace impl;
    const size_t n = CheckFusedShape(kLayer, channels, spatial, sizeof(T));
    CheckNotNull(kLayer, "src0", src0);
    CheckNotNull(kLayer, "src1", src1);
    CheckNotNull(kLayer, "src2", src2);
    CheckNotNull(kLayer, "dst", dst);
    const size_t bytes = n * sizeof(T);
    CheckNoPartialOverlap(kLayer, "dst", dst, bytes, "src0", src0, bytes, true);
    CheckNoPartialOverlap(kLayer, "dst", dst, bytes, "src1", src1, bytes, true);
    FusedArgs<T> a;
    a.src0 = src0;
    a.src1 = src1;
    a.channel[0] = src2;
    a.channels = channels;
    a.spatial = spatial;
    a.dst0 = dst;
    RunFused<8, T, Format>(a, part, kLayer);
  }
};

/// Fused layer type 9. Concatenates src0 (channels0 channels) and src1
/// (channels1) along channels into X, with channels0 + channels1 channels;
/// for each output channel c and position s:
///
///     dst0[c, s] = max(0, X[c, s]*scale[c] + bias[c])
///     dst1[c, s] = X[c, s]   (when dst1 is not null)
///
/// NHWC: each output position holds channels0 values from src0, then
/// channels1 from src1. Outputs must not overlap the inputs or each other.
///
/// Computed in fp32 (`a*b + c` terms use fused multiply-add where the target
/// has it); bf16/f16 outputs round to nearest even. NHWC results equal the
/// transposed NCHW results bit for bit. `part` selects spatial positions;
/// parts give results bit-identical to one call.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
/// \tparam Format synetk::Nchw or synetk::Nhwc.
template <typename T, class Format>
struct FusedLayer9 {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "FusedLayer9";
  /// Runs the layer (formula above).
  /// \param src0 First input, channels0*spatial elements in Format.
  /// \param src1 Second input, channels1*spatial elements in Format.
  /// \param scale channels0 + channels1 values, one per output channel.
  /// \param bias channels0 + channels1 values, added after the scale.
  /// \param channels0 Channels of src0 (> 0).
  /// \param channels1 Channels of src1 (> 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param dst0 Output, (channels0 + channels1)*spatial elements, disjoint
  ///   from src0 and src1.
  /// \param dst1 Plain concatenation, same size, or null (not written);
  ///   disjoint from src0, src1 and dst0.
  /// \param part The spatial positions to compute.
  /// \throws synetk::Error (nothing written) for a null src0, src1, scale,
  ///   bias or dst0, channels0, channels1 or spatial 0, sizes whose sum,
  ///   product or byte count overflows, an output overlapping an input or
  ///   the other output, or part.begin > part.end.
  void operator()(const T* src0, const T* src1, const float* scale,
                  const float* bias, size_t channels0, size_t channels1,
                  size_t spatial, T* dst0, T* dst1,
                  Range part = Range::All()) const {
    using namespace impl;
    CheckPositive(kLayer, "channels0", channels0);
    CheckPositive(kLayer, "channels1", channels1);
    size_t channels;
    if (__builtin_add_overflow(channels0, channels1, &channels)) {
      Fail(kLayer, "channels0+channels1", "overflow", "a sum that fits in size_t");
    }
    const size_t n = CheckFusedShape(kLayer, channels, spatial, sizeof(T));
    CheckNotNull(kLayer, "src0", src0);
    CheckNotNull(kLayer, "src1", src1);
    CheckNotNull(kLayer, "scale", scale);
    CheckNotNull(kLayer, "bias", bias);
    CheckNotNull(kLayer, "dst0", dst0);
    const size_t b = n * sizeof(T), b0 = channels0 * spatial * sizeof(T),
                 b1 = channels1 * spatial * sizeof(T);
    CheckNoPartialOverlap(kLayer, "dst0", dst0, b, "src0", src0, b0, false);
    CheckNoPartialOverlap(kLayer, "dst0", dst0, b, "src1", src1, b1, false);
    if (dst1 != nullptr) {
      CheckNoPartialOverlap(kLayer, "dst1", dst1, b, "src0", src0, b0, false);
      CheckNoPartialOverlap(kLayer, "dst1", dst1, b, "src1", src1, b1, false);
      CheckNoPartialOverlap(kLayer, "dst1", dst1, b, "dst0", dst0, b, false);
    }
    FusedArgs<T> a;
    a.src0 = src0;
    a.src1 = src1;
    a.channel[0] = scale;
    a.channel[1] = bias;
    a.channels = channels0;
    a.channels1 = channels1;
    a.spatial = spatial;
    a.dst0 = dst0;
    a.dst1 = dst1;
    RunFused<9, T, Format>(a, part, kLayer);
  }
};

SYNETK_NAMESPACE_END

#endif  // SYNETK_OPS_FUSED_H_
