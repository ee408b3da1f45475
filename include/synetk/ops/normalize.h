// Copyright synetk authors. SPDX-License-Identifier: MIT
// Normalize layers V1-V4: public functors. Included by synetk.h after every
// target's kernels exist (HWY_ONCE); do not include directly.
#ifndef SYNETK_OPS_NORMALIZE_H_
#define SYNETK_OPS_NORMALIZE_H_

#include <cmath>
#include <string>

#include "synetk/detail/check.h"
#include "synetk/detail/dispatch.h"
#include "synetk/element.h"
#include "synetk/format.h"
#include "synetk/range.h"

SYNETK_NAMESPACE_BEGIN
namespace impl {

// Shared validation of everything but the per-version parameters; returns
// the element count of the tensor.
template <typename T>
inline size_t CheckNormalizeCall(const char* layer, const T* src, size_t batch,
                                 size_t channels, size_t spatial, const float* scale,
                                 const float* eps, T* dst) {
  CheckPositive(layer, "batch", batch);
  CheckPositive(layer, "channels", channels);
  CheckPositive(layer, "spatial", spatial);
  const size_t n = CheckedProduct(layer, "batch*channels*spatial", {batch, channels, spatial});
  CheckedBytes(layer, "batch*channels*spatial", n, sizeof(T));
  CheckNotNull(layer, "src", src);
  CheckNotNull(layer, "scale", scale);
  CheckNotNull(layer, "eps", eps);
  if (!(eps[0] >= 0.0f) || std::isinf(eps[0])) {
    Fail(layer, "eps", eps[0], "a finite value >= 0");
  }
  CheckNotNull(layer, "dst", dst);
  CheckNoPartialOverlap(layer, "dst", dst, n * sizeof(T), "src", src, n * sizeof(T), true);
  return n;
}

// Scratch size in floats, after checking the sizes it depends on.
template <int kVersion, class Format>
inline size_t NormalizeScratch(const char* layer, size_t batch, size_t channels,
                               size_t spatial) {
  CheckPositive(layer, "batch", batch);
  CheckPositive(layer, "channels", channels);
  CheckPositive(layer, "spatial", spatial);
  CheckedProduct(layer, "batch*channels*spatial", {batch, channels, spatial});
  CheckedBytes(layer, "channels", channels, 4 * sizeof(float));
  return NormalizeScratchFloats<kVersion, Format>(channels);
}

template <typename T>
inline void CheckWorkspace(const char* layer, size_t need, const float* workspace,
                           size_t workspaceSize, const T* src, const T* dst, size_t n) {
  if (need == 0) return;
  CheckNotNull(layer, "workspace", workspace);
  if (workspaceSize < need) {
    const std::string what = "at least " + std::to_string(need) + " floats (ScratchSize)";
    Fail(layer, "workspaceSize", workspaceSize, what.c_str());
  }
  const size_t bytes = n * sizeof(T), wb = need * sizeof(float);
  CheckNoPartialOverlap(layer, "workspace", workspace, wb, "src", src, bytes, false);
  CheckNoPartialOverlap(layer, "workspace", workspace, wb, "dst", dst, bytes, false);
}

// The axis a part (synetk::Range) selects: positions for V1 and V2 (each
// position is normalized on its own), channels for V3, batch items where
// statistics span the whole item (V1 acrossSpatial, V4).
template <int kVersion>
inline size_t NormalizePartAxis(size_t batch, size_t channels, size_t spatial,
                                bool acrossSpatial) {
  if (kVersion == 4 || (kVersion == 1 && acrossSpatial)) return batch;
  return kVersion == 3 ? channels : spatial;
}

template <int kVersion, typename T, class Format>
inline void RunNormalize(NormalizeArgs<T>& a, const char* layer, Range part) {
  static_assert(kIsFormat<Format>, "Format must be synetk::Nchw or synetk::Nhwc");
  static_assert(kIsFloatElement<T>, "normalize layers take float element types");
  static_assert(CheckElementLayout<T>());
  ClampPart(layer, part, NormalizePartAxis<kVersion>(a.batch, a.channels, a.spatial, a.acrossSpatial));
  if (part.begin == part.end) return;
  a.begin = part.begin;
  a.end = part.end;
  using Cfg = NormalizeCfg<kVersion, T, Format>;
  SYNETK_DISPATCH(NormalizeKernel<Cfg>)(a);
}

// V2, V3, V4 share their parameter list.
template <int kVersion, typename T, class Format>
inline void NormalizeWithShift(const char* layer, const T* src, size_t batch,
                               size_t channels, size_t spatial, const float* scale,
                               const float* shift, const float* eps, float* workspace,
                               size_t workspaceSize, T* dst, Range part) {
  const size_t n = CheckNormalizeCall(layer, src, batch, channels, spatial, scale, eps, dst);
  CheckNotNull(layer, "shift", shift);
  const size_t need = NormalizeScratch<kVersion, Format>(layer, batch, channels, spatial);
  CheckWorkspace(layer, need, workspace, workspaceSize, src, dst, n);
  NormalizeArgs<T> a;
  a.src = src;
  a.batch = batch;
  a.channels = channels;
  a.spatial = spatial;
  a.scale = scale;
  a.shift = shift;
  a.eps = eps[0];
  a.workspace = workspace;
  a.dst = dst;
  RunNormalize<kVersion, T, Format>(a, layer, part);
}

}  // namespace impl

/// Normalize layer V1 (L2 normalization).
///
/// For each batch item b, with acrossSpatial false, for each position s:
///
///     k = 1 / sqrt(eps[0] + sum over c of src[b, c, s]^2)
///     dst[b, c, s] = src[b, c, s] * k * scale[c]
///
/// With acrossSpatial true, one k per batch item, its sum taken over all
/// channels and positions. Where eps[0] + sum is 0, dst is 0. Computed in fp32
/// (blocked sums, double across chunks); bf16/f16 outputs round to nearest
/// even. ScratchSize() is 0: pass workspace null and workspaceSize 0.
///
/// Parts (all versions): `part` selects positions for V1 and V2 (in every
/// batch item), channels for V3 (in every batch item), and batch items for
/// V1 with acrossSpatial and V4. Parts give results bit-identical to one
/// call. Parts that run at the same time need a workspace each.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
/// \tparam Format synetk::Nchw or synetk::Nhwc (batch outermost).
template <typename T, class Format>
struct NormalizeV1 {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "NormalizeV1";
  /// Workspace floats operator() needs for this shape (always 0 for V1).
  /// \param batch Batch items.
  /// \param channels Channels.
  /// \param spatial Spatial positions per channel.
  /// \return The number of floats (0).
  /// \throws synetk::Error if a size is 0 or their product overflows.
  static size_t ScratchSize(size_t batch, size_t channels, size_t spatial) {
    return impl::NormalizeScratch<1, Format>(kLayer, batch, channels, spatial);
  }
  /// Runs the layer (formula above).
  /// \param src Input, batch*channels*spatial elements in Format.
  /// \param batch Batch items (> 0).
  /// \param channels Channels (> 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param scale channels factors.
  /// \param eps Pointer to eps; only eps[0] is used (finite, >= 0).
  /// \param acrossSpatial One sum per batch item (true) or per position.
  /// \param workspace Scratch of ScratchSize() floats (null when 0).
  /// \param workspaceSize Floats at workspace.
  /// \param dst Output, same shape; dst == src is allowed.
  /// \param part The positions (or, acrossSpatial, batch items) to compute.
  /// \throws synetk::Error (nothing written) for a null pointer, a zero or
  ///   overflowing size, eps[0] negative, NaN or infinite, dst partly
  ///   overlapping src, or part.begin > part.end.
  void operator()(const T* src, size_t batch, size_t channels, size_t spatial,
                  const float* scale, const float* eps, bool acrossSpatial,
                  float* workspace, size_t workspaceSize, T* dst,
                  Range part = Range::All()) const {
    using namespace impl;
    const size_t n = CheckNormalizeCall(kLayer, src, batch, channels, spatial, scale, eps, dst);
    const size_t need = NormalizeScratch<1, Format>(kLayer, batch, channels, spatial);
    CheckWorkspace(kLayer, need, workspace, workspaceSize, src, dst, n);
    NormalizeArgs<T> a;
    a.src = src;
    a.batch = batch;
    a.channels = channels;
    a.spatial = spatial;
    a.scale = scale;
    a.eps = eps[0];
    a.acrossSpatial = acrossSpatial;
    a.workspace = workspace;
    a.dst = dst;
    RunNormalize<1, T, Format>(a, kLayer, part);
  }
};

/// Normalize layer V2 (layer normalization over channels).
///
/// For each batch item and position s, over the channels c:
///
///     m = mean of src[b, c, s];  x = src[b, c, s] - m
///     dst[b, c, s] = x / sqrt(mean of x^2 + eps[0]) * scale[c] + shift[c]
///
/// Where the variance + eps is 0, dst is shift[c]. Computed in fp32;
/// bf16/f16 outputs round to nearest even.
/// ScratchSize(): 0. In place (dst == src) allowed. `part` as in
/// NormalizeV1.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
/// \tparam Format synetk::Nchw or synetk::Nhwc (batch outermost).
template <typename T, class Format>
struct NormalizeV2 {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "NormalizeV2";
  /// Workspace floats operator() needs for this shape.
  /// \param batch Batch items.
  /// \param channels Channels.
  /// \param spatial Spatial positions per channel.
  /// \return The number of floats (0: pass workspace null and 0).
  /// \throws synetk::Error if a size is 0 or their product overflows.
  static size_t ScratchSize(size_t batch, size_t channels, size_t spatial) {
    return impl::NormalizeScratch<2, Format>(kLayer, batch, channels, spatial);
  }
  /// Runs the layer (formula above).
  /// \param src Input, batch*channels*spatial elements in Format.
  /// \param batch Batch items (> 0).
  /// \param channels Channels (> 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param scale channels factors.
  /// \param shift channels offsets.
  /// \param eps Pointer to eps; only eps[0] is used (finite, >= 0).
  /// \param workspace Scratch of ScratchSize() floats (null when 0).
  /// \param workspaceSize Floats at workspace.
  /// \param dst Output, same shape; dst == src is allowed.
  /// \param part The positions to compute.
  /// \throws synetk::Error (nothing written) for a null pointer, a zero or
  ///   overflowing size, eps[0] negative, NaN or infinite, dst partly
  ///   overlapping src, a missing, too small or overlapping workspace, or
  ///   part.begin > part.end.
  void operator()(const T* src, size_t batch, size_t channels, size_t spatial,
                  const float* scale, const float* shift, const float* eps,
                  float* workspace, size_t workspaceSize, T* dst,
                  Range part = Range::All()) const {
    impl::NormalizeWithShift<2, T, Format>(kLayer, src, batch, channels, spatial, scale, shift,
                                           eps, workspace, workspaceSize, dst, part);
  }
};

/// Normalize layer V3 (instance normalization).
///
/// As V2, but for each batch item and channel c, over the positions s:
///
///     m = mean of src[b, c, s];  x = src[b, c, s] - m
///     dst[b, c, s] = x / sqrt(mean of x^2 + eps[0]) * scale[c] + shift[c]
///
/// Where the variance + eps is 0, dst is shift[c]. Computed in fp32;
/// bf16/f16 outputs round to nearest even.
/// ScratchSize(): 0 for NCHW, 2*channels for NHWC. In place (dst == src)
/// allowed. `part` as in NormalizeV1.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
/// \tparam Format synetk::Nchw or synetk::Nhwc (batch outermost).
template <typename T, class Format>
struct NormalizeV3 {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "NormalizeV3";
  /// Workspace floats operator() needs for this shape.
  /// \param batch Batch items.
  /// \param channels Channels.
  /// \param spatial Spatial positions per channel.
  /// \return The number of floats (0: pass workspace null and 0).
  /// \throws synetk::Error if a size is 0 or their product overflows.
  static size_t ScratchSize(size_t batch, size_t channels, size_t spatial) {
    return impl::NormalizeScratch<3, Format>(kLayer, batch, channels, spatial);
  }
  /// Runs the layer (formula above).
  /// \param src Input, batch*channels*spatial elements in Format.
  /// \param batch Batch items (> 0).
  /// \param channels Channels (> 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param scale channels factors.
  /// \param shift channels offsets.
  /// \param eps Pointer to eps; only eps[0] is used (finite, >= 0).
  /// \param workspace Scratch of ScratchSize() floats (null when 0).
  /// \param workspaceSize Floats at workspace.
  /// \param dst Output, same shape; dst == src is allowed.
  /// \param part The channels to compute.
  /// \throws synetk::Error (nothing written) for a null pointer, a zero or
  ///   overflowing size, eps[0] negative, NaN or infinite, dst partly
  ///   overlapping src, a missing, too small or overlapping workspace, or
  ///   part.begin > part.end.
  void operator()(const T* src, size_t batch, size_t channels, size_t spatial,
                  const float* scale, const float* shift, const float* eps,
                  float* workspace, size_t workspaceSize, T* dst,
                  Range part = Range::All()) const {
    impl::NormalizeWithShift<3, T, Format>(kLayer, src, batch, channels, spatial, scale, shift,
                                           eps, workspace, workspaceSize, dst, part);
  }
};

/// Normalize layer V4 (norms per channel).
///
/// For each batch item:
///
///     n[c] = sqrt(sum over s of src[b, c, s]^2);  m = sum of n / channels
///     dst[b, c, s] = src[b, c, s] * (1 + scale[c] * n[c] / (m + eps[0])) + shift[c]
///
/// Where m + eps is 0 (all-zero input, eps 0), dst = src + shift[c].
/// Computed in fp32; bf16/f16 outputs round to nearest even.
/// ScratchSize(): channels for NCHW, 2*channels for NHWC. In place
/// (dst == src) allowed. `part` as in NormalizeV1.
///
/// \tparam T float, hwy::bfloat16_t, hwy::float16_t or a user type with
///   synetk::ElementTraits.
/// \tparam Format synetk::Nchw or synetk::Nhwc (batch outermost).
template <typename T, class Format>
struct NormalizeV4 {
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "NormalizeV4";
  /// Workspace floats operator() needs for this shape.
  /// \param batch Batch items.
  /// \param channels Channels.
  /// \param spatial Spatial positions per channel.
  /// \return The number of floats (0: pass workspace null and 0).
  /// \throws synetk::Error if a size is 0 or their product overflows.
  static size_t ScratchSize(size_t batch, size_t channels, size_t spatial) {
    return impl::NormalizeScratch<4, Format>(kLayer, batch, channels, spatial);
  }
  /// Runs the layer (formula above).
  /// \param src Input, batch*channels*spatial elements in Format.
  /// \param batch Batch items (> 0).
  /// \param channels Channels (> 0).
  /// \param spatial Spatial positions per channel (> 0).
  /// \param scale channels factors.
  /// \param shift channels offsets.
  /// \param eps Pointer to eps; only eps[0] is used (finite, >= 0).
  /// \param workspace Scratch of ScratchSize() floats (null when 0).
  /// \param workspaceSize Floats at workspace.
  /// \param dst Output, same shape; dst == src is allowed.
  /// \param part The batch items to compute.
  /// \throws synetk::Error (nothing written) for a null pointer, a zero or
  ///   overflowing size, eps[0] negative, NaN or infinite, dst partly
  ///   overlapping src, a missing, too small or overlapping workspace, or
  ///   part.begin > part.end.
  void operator()(const T* src, size_t batch, size_t channels, size_t spatial,
                  const float* scale, const float* shift, const float* eps,
                  float* workspace, size_t workspaceSize, T* dst,
                  Range part = Range::All()) const {
    impl::NormalizeWithShift<4, T, Format>(kLayer, src, batch, channels, spatial, scale, shift,
                                           eps, workspace, workspaceSize, dst, part);
  }
};

SYNETK_NAMESPACE_END

#endif  // SYNETK_OPS_NORMALIZE_H_
