// Copyright synetk authors. SPDX-License-Identifier: MIT
// Kernels of the unit tests (compile-once mode, see tests/meson.build):
// the fused layers over hwy::float16_t.
#define SYNETK_INSTANTIATE_MORE
#include "synetk/instantiate.h"

template struct synetk::FusedLayer0<hwy::float16_t, synetk::Nchw>;
template struct synetk::FusedLayer1<hwy::float16_t, synetk::Nchw>;
template struct synetk::FusedLayer2<hwy::float16_t, synetk::Nchw>;
template struct synetk::FusedLayer3<hwy::float16_t, synetk::Nchw>;
template struct synetk::FusedLayer4<hwy::float16_t, synetk::Nchw>;
template struct synetk::FusedLayer8<hwy::float16_t, synetk::Nchw>;
template struct synetk::FusedLayer9<hwy::float16_t, synetk::Nchw>;
template struct synetk::FusedLayer0<hwy::float16_t, synetk::Nhwc>;
template struct synetk::FusedLayer1<hwy::float16_t, synetk::Nhwc>;
template struct synetk::FusedLayer2<hwy::float16_t, synetk::Nhwc>;
template struct synetk::FusedLayer3<hwy::float16_t, synetk::Nhwc>;
template struct synetk::FusedLayer4<hwy::float16_t, synetk::Nhwc>;
template struct synetk::FusedLayer8<hwy::float16_t, synetk::Nhwc>;
template struct synetk::FusedLayer9<hwy::float16_t, synetk::Nhwc>;
