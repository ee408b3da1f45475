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
