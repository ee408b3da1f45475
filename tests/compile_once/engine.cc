// Copyright synetk authors. SPDX-License-Identifier: MIT
// Compile-once mode: the one TU that compiles the kernels of the functors the
// program uses (main.cc sees only their declarations).
#include <cstdint>

#include "synetk/instantiate.h"

template struct synetk::FusedLayer3<float, synetk::Nchw>;
template struct synetk::PoolingMax<uint8_t, synetk::Nhwc>;
