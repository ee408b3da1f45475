// Copyright synetk authors. SPDX-License-Identifier: MIT
// Kernels of the unit tests (compile-once mode, see tests/meson.build):
// the fused layers over hwy::bfloat16_t.
#define SYNETK_INSTANTIATE_MORE
#include "synetk/instantiate.h"

#include "../test_types.h"

template struct synetk::FusedLayer0<hwy::bfloat16_t, synetk::Nchw>;
template struct synetk::FusedLayer1<hwy::bfloat16_t, synetk::Nchw>;
template struct synetk::FusedLayer2<hwy::bfloat16_t, synetk::Nchw>;
template struct synetk::FusedLayer3<hwy::bfloat16_t, synetk::Nchw>;
template struct synetk::FusedLayer4<hwy::bfloat16_t, synetk::Nchw>;
template struct synetk::FusedLayer8<hwy::bfloat16_t, synetk::Nchw>;
template struct synetk::FusedLayer9<hwy::bfloat16_t, synetk::Nchw>;
template struct synetk::FusedLayer0<hwy::bfloat16_t, synetk::Nhwc>;
template struct synetk::FusedLayer1<hwy::bfloat16_t, synetk::Nhwc>;
template struct synetk::FusedLayer2<hwy::bfloat16_t, synetk::Nhwc>;
template struct synetk::FusedLayer3<hwy::bfloat16_t, synetk::Nhwc>;
template struct synetk::FusedLayer4<hwy::bfloat16_t, synetk::Nhwc>;
template struct synetk::FusedLayer8<hwy::bfloat16_t, synetk::Nhwc>;
template struct synetk::FusedLayer9<hwy::bfloat16_t, synetk::Nhwc>;
// User element types (fused_test.cc).
template struct synetk::FusedLayer3<synetk_test::MyBf16, synetk::Nchw>;
template struct synetk::FusedLayer3<synetk_test::MyBf16, synetk::Nhwc>;
template struct synetk::FusedLayer3<synetk_test::Fixed88, synetk::Nchw>;
template struct synetk::FusedLayer3<synetk_test::Fixed88, synetk::Nhwc>;
