// Copyright synetk authors. SPDX-License-Identifier: MIT
// Kernels of the unit tests (compile-once mode, see tests/meson.build):
// max pooling over 8-bit keys.
#include <cstdint>

#define SYNETK_INSTANTIATE_MORE
#include "synetk/instantiate.h"

template struct synetk::PoolingMax<uint8_t, synetk::Nchw>;
template struct synetk::PoolingMax<uint8_t, synetk::Nhwc>;
template struct synetk::PoolingMax<int8_t, synetk::Nchw>;
template struct synetk::PoolingMax<int8_t, synetk::Nhwc>;
