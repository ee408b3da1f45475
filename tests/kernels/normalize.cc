// Copyright synetk authors. SPDX-License-Identifier: MIT
// Kernels of the unit tests (compile-once mode, see tests/meson.build):
// the normalize layers over fp32, bf16 and f16.
#define SYNETK_INSTANTIATE_MORE
#include "synetk/instantiate.h"

template struct synetk::NormalizeV1<float, synetk::Nchw>;
template struct synetk::NormalizeV2<float, synetk::Nchw>;
template struct synetk::NormalizeV3<float, synetk::Nchw>;
template struct synetk::NormalizeV4<float, synetk::Nchw>;
template struct synetk::NormalizeV1<float, synetk::Nhwc>;
template struct synetk::NormalizeV2<float, synetk::Nhwc>;
template struct synetk::NormalizeV3<float, synetk::Nhwc>;
template struct synetk::NormalizeV4<float, synetk::Nhwc>;
template struct synetk::NormalizeV1<hwy::bfloat16_t, synetk::Nchw>;
template struct synetk::NormalizeV2<hwy::bfloat16_t, synetk::Nchw>;
template struct synetk::NormalizeV3<hwy::bfloat16_t, synetk::Nchw>;
template struct synetk::NormalizeV4<hwy::bfloat16_t, synetk::Nchw>;
template struct synetk::NormalizeV1<hwy::bfloat16_t, synetk::Nhwc>;
template struct synetk::NormalizeV2<hwy::bfloat16_t, synetk::Nhwc>;
template struct synetk::NormalizeV3<hwy::bfloat16_t, synetk::Nhwc>;
template struct synetk::NormalizeV4<hwy::bfloat16_t, synetk::Nhwc>;
template struct synetk::NormalizeV1<hwy::float16_t, synetk::Nchw>;
template struct synetk::NormalizeV2<hwy::float16_t, synetk::Nchw>;
template struct synetk::NormalizeV3<hwy::float16_t, synetk::Nchw>;
template struct synetk::NormalizeV4<hwy::float16_t, synetk::Nchw>;
template struct synetk::NormalizeV1<hwy::float16_t, synetk::Nhwc>;
template struct synetk::NormalizeV2<hwy::float16_t, synetk::Nhwc>;
template struct synetk::NormalizeV3<hwy::float16_t, synetk::Nhwc>;
template struct synetk::NormalizeV4<hwy::float16_t, synetk::Nhwc>;
