// Copyright synetk authors. SPDX-License-Identifier: MIT
// Compile-once mode over two kernel TUs: this one compiles the functors it
// instantiates and leaves ChosenTarget()'s and QuantizedConcat's kernels to
// engine.cc (SYNETK_INSTANTIATE_MORE).
#include <cstdint>

#define SYNETK_INSTANTIATE_MORE
#include "synetk/instantiate.h"

template struct synetk::QuantizeLinear<float, uint8_t>;
