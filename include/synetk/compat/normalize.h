// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk::simd: SimdSynetNormalizeLayerForward, ...V2, ...V3, ...V4. Include
// synetk/simd.h.
//
// `buf` is the original's optional scratch (spatial floats for V1/V2,
// channels floats for V3/V4). The layer uses it when the shape needs no more
// than that (see the functors' ScratchSize()); when buf is null, or the
// layer needs more (V3 and V4 in NHWC), it uses its own storage.
#ifndef SYNETK_COMPAT_NORMALIZE_H_
#define SYNETK_COMPAT_NORMALIZE_H_

#include <vector>

#include "synetk/compat/types.h"

namespace synetk {
namespace simd {
namespace compat {

// Calls run(workspace, size) with the caller's buf or with own storage.
template <class Layer, class Run>
inline void WithNormalizeScratch(size_t batch, size_t channels, size_t spatial,
                                 float* buf, size_t bufSize, Run&& run) {
  const size_t need = Layer::ScratchSize(batch, channels, spatial);
  if (need == 0) {
    run(nullptr, 0);
  } else if (buf != nullptr && need <= bufSize) {
    run(buf, bufSize);
  } else {
    std::vector<float> own(need);
    run(own.data(), own.size());
  }
}

}  // namespace compat

/// Normalize V1 (L2 normalization; synetk::NormalizeV1). For each batch item
/// b, with acrossSpatial false, for each position s:
///
///     k = 1 / sqrt(eps[0] + sum over c of src[b, c, s]^2)
///     dst[b, c, s] = src[b, c, s] * k * scale[c]
///
/// With acrossSpatial true, one k per batch item, its sum taken over all
/// channels and positions. Where eps[0] + sum is 0, dst is 0. Computed in
/// fp32 (blocked sums, double across chunks).
/// @param src input, batch*channels*spatial values in `format` (batch
///   outermost)
/// @param batch batch items
/// @param channels number of channels
/// @param spatial positions per channel
/// @param scale `channels` factors
/// @param eps eps[0] (finite, >= 0) is added as shown; only eps[0] is read
/// @param acrossSpatial SimdTrue: one sum per batch item (see above)
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
/// @param buf ignored: the layer needs no scratch
/// @param dst output, same shape (may equal src)
/// @throws synetk::Error on a null src, scale, eps or dst, a zero or
///   overflowing size, eps[0] negative, infinite or NaN, dst partly
///   overlapping src, or an unknown format
inline void SimdSynetNormalizeLayerForward(const float* src, size_t batch, size_t channels,
                                           size_t spatial, const float* scale,
                                           const float* eps, SimdBool acrossSpatial,
                                           SimdTensorFormatType format, float* buf,
                                           float* dst) {
  compat::WithFormat("SimdSynetNormalizeLayerForward", format, [&](auto f) {
    using L = NormalizeV1<float, decltype(f)>;
    compat::WithNormalizeScratch<L>(batch, channels, spatial, buf, spatial,
                                    [&](float* ws, size_t n) {
                                      L()(src, batch, channels, spatial, scale, eps,
                                          acrossSpatial != SimdFalse, ws, n, dst);
                                    });
  });
}

/// Normalize V2 (layer normalization over channels; synetk::NormalizeV2).
/// For each batch item b and position s, over the channels c:
///
///     m = mean of src[b, c, s];  x = src[b, c, s] - m
///     dst[b, c, s] = x / sqrt(mean of x^2 + eps[0]) * scale[c] + shift[c]
///
/// Where the variance + eps[0] is 0, dst is shift[c]. Computed in fp32.
/// @param src input, batch*channels*spatial values in `format` (batch
///   outermost)
/// @param batch batch items
/// @param channels number of channels
/// @param spatial positions per channel
/// @param scale `channels` factors
/// @param shift `channels` offsets
/// @param eps eps[0] (finite, >= 0) is added as shown; only eps[0] is read
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
/// @param buf ignored: the layer needs no scratch
/// @param dst output, same shape (may equal src)
/// @throws synetk::Error on a null src, scale, shift, eps or dst, a zero or
///   overflowing size, eps[0] negative, infinite or NaN, dst partly
///   overlapping src, or an unknown format
inline void SimdSynetNormalizeLayerForwardV2(const float* src, size_t batch, size_t channels,
                                             size_t spatial, const float* scale,
                                             const float* shift, const float* eps,
                                             SimdTensorFormatType format, float* buf,
                                             float* dst) {
  compat::WithFormat("SimdSynetNormalizeLayerForwardV2", format, [&](auto f) {
    using L = NormalizeV2<float, decltype(f)>;
    compat::WithNormalizeScratch<L>(batch, channels, spatial, buf, spatial,
                                    [&](float* ws, size_t n) {
                                      L()(src, batch, channels, spatial, scale, shift, eps, ws,
                                          n, dst);
                                    });
  });
}

/// Normalize V3 (instance normalization; synetk::NormalizeV3). For each
/// batch item b and channel c, over the positions s:
///
///     m = mean of src[b, c, s];  x = src[b, c, s] - m
///     dst[b, c, s] = x / sqrt(mean of x^2 + eps[0]) * scale[c] + shift[c]
///
/// Where the variance + eps[0] is 0, dst is shift[c]. Computed in fp32.
/// @param src input, batch*channels*spatial values in `format` (batch
///   outermost)
/// @param batch batch items
/// @param channels number of channels
/// @param spatial positions per channel
/// @param scale `channels` factors
/// @param shift `channels` offsets
/// @param eps eps[0] (finite, >= 0) is added as shown; only eps[0] is read
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
/// @param buf ignored: NCHW needs no scratch, and NHWC needs
///   2*channels floats, more than the original's `channels`, so the layer
///   allocates its own
/// @param dst output, same shape (may equal src)
/// @throws synetk::Error on a null src, scale, shift, eps or dst, a zero or
///   overflowing size, eps[0] negative, infinite or NaN, dst partly
///   overlapping src, or an unknown format
inline void SimdSynetNormalizeLayerForwardV3(const float* src, size_t batch, size_t channels,
                                             size_t spatial, const float* scale,
                                             const float* shift, const float* eps,
                                             SimdTensorFormatType format, float* buf,
                                             float* dst) {
  compat::WithFormat("SimdSynetNormalizeLayerForwardV3", format, [&](auto f) {
    using L = NormalizeV3<float, decltype(f)>;
    compat::WithNormalizeScratch<L>(batch, channels, spatial, buf, channels,
                                    [&](float* ws, size_t n) {
                                      L()(src, batch, channels, spatial, scale, shift, eps, ws,
                                          n, dst);
                                    });
  });
}

/// Normalize V4 (norms per channel; synetk::NormalizeV4). For each batch
/// item b:
///
///     n[c] = sqrt(sum over s of src[b, c, s]^2);  m = sum of n / channels
///     dst[b, c, s] = src[b, c, s] * (1 + scale[c] * n[c] / (m + eps[0])) + shift[c]
///
/// Where m + eps[0] is 0 (all-zero input, eps 0), dst = src + shift[c].
/// Computed in fp32.
/// @param src input, batch*channels*spatial values in `format` (batch
///   outermost)
/// @param batch batch items
/// @param channels number of channels
/// @param spatial positions per channel
/// @param scale `channels` factors
/// @param shift `channels` offsets
/// @param eps eps[0] (finite, >= 0) is added as shown; only eps[0] is read
/// @param format SimdTensorFormatNchw or SimdTensorFormatNhwc
/// @param buf `channels` floats of scratch, or null. NCHW uses it when
///   given (it must not overlap src or dst) and allocates its own when
///   null; NHWC needs 2*channels floats and always allocates its own
/// @param dst output, same shape (may equal src)
/// @throws synetk::Error on a null src, scale, shift, eps or dst, a zero or
///   overflowing size, eps[0] negative, infinite or NaN, dst partly
///   overlapping src, buf (when used) overlapping src or dst, or an unknown
///   format
inline void SimdSynetNormalizeLayerForwardV4(const float* src, size_t batch, size_t channels,
                                             size_t spatial, const float* scale,
                                             const float* shift, const float* eps,
                                             SimdTensorFormatType format, float* buf,
                                             float* dst) {
  compat::WithFormat("SimdSynetNormalizeLayerForwardV4", format, [&](auto f) {
    using L = NormalizeV4<float, decltype(f)>;
    compat::WithNormalizeScratch<L>(batch, channels, spatial, buf, channels,
                                    [&](float* ws, size_t n) {
                                      L()(src, batch, channels, spatial, scale, shift, eps, ws,
                                          n, dst);
                                    });
  });
}

}  // namespace simd
}  // namespace synetk

#endif  // SYNETK_COMPAT_NORMALIZE_H_
