// Copyright synetk authors. SPDX-License-Identifier: MIT
// An engine that called the Simd library's Synet functions, after switching
// its include to synetk/simd.h (docs/migration.md).
#include <cstdio>
#include <vector>

#include "synetk/simd.h"

using namespace synetk::simd;

int main() {
  const size_t C = 8, H = 6, W = 6, S = H * W;
  std::vector<float> src(C * S), slope(C, 0.5f), bias(C, 0.1f), dst(C * S);
  for (size_t i = 0; i < src.size(); ++i) src[i] = float(int(i % 11) - 5);

  // Type 3 as the engine Synet calls it: the bias is added, negatives are
  // multiplied by the slope (PReLU after a bias).
  SimdSynetFusedLayerForward3(src.data(), bias.data(), slope.data(), C, S, dst.data(), SimdTensorFormatNhwc);

  std::vector<float> pooled(C * 3 * 3);
  SimdSynetPoolingMax32f(dst.data(), C, H, W, 1, 2, 2, 1, 2, 2, 0, 0, 0, pooled.data(), C, 3, 3,
                         SimdTensorFormatNchw);

  const size_t outer[1] = {C};
  std::vector<int32_t> idx(C * 2);  // per row of 9 pooled values: the last, then the first
  for (size_t c = 0; c < C; ++c) {
    idx[2 * c] = -1;
    idx[2 * c + 1] = 0;
  }
  std::vector<float> gathered(C * 2);
  void* gather = SimdSynetGatherElementsInit(SimdTensorData32f, SimdTensorData32i, SimdTrue, 1,
                                             outer, 1, 9, 1, 2);
  SimdSynetGatherElementsSetIndex(gather, reinterpret_cast<const uint8_t*>(idx.data()));
  SimdSynetGatherElementsForward(gather, reinterpret_cast<const uint8_t*>(pooled.data()), nullptr,
                                 reinterpret_cast<uint8_t*>(gathered.data()));
  SimdRelease(gather);
  std::printf("gathered row 0: last %.2f first %.2f\n", gathered[0], gathered[1]);

  // What is new: bad input is an exception naming the parameter.
  try {
    SimdSynetPoolingMax32f(dst.data(), C, H, W, 1, 2, 2, 1, 0, 2, 0, 0, 0, pooled.data(), C, 3, 3,
                           SimdTensorFormatNchw);
  } catch (const synetk::Error& e) {
    std::printf("rejected: %s\n", e.what());
    return 0;
  }
  return 1;
}
