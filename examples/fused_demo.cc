// Copyright synetk authors. SPDX-License-Identifier: MIT
// Runs the fused layers on a small tensor in both formats and prints what
// each did and which SIMD target ran.
#include <cstdio>
#include <vector>

#include "synetk/synetk.h"

int main() {
  const size_t channels = 3, spatial = 4;  // e.g. a 2x2 image with 3 channels
  std::vector<float> src = {-2, -1, 1, 2,  -0.5f, 0, 0.5f, 1,  3, -3, 6, -6};  // NCHW
  std::vector<float> bias = {0.5f, 0, -1}, scale = {0.1f, 0.2f, 0.3f};
  std::vector<float> dst(src.size());

  std::printf("synetk runs on the %s target\n\n", synetk::ChosenTargetName());

  // Type 3: a per-channel PReLU after a bias.
  synetk::FusedLayer3<float, synetk::Nchw>()(src.data(), bias.data(), scale.data(),
                                             channels, spatial, dst.data());
  std::printf("FusedLayer3 (x = src + bias[c]; max(0,x) + min(0,x)*scale[c]), NCHW:\n");
  for (size_t c = 0; c < channels; ++c) {
    std::printf("  c%zu:", c);
    for (size_t s = 0; s < spatial; ++s) std::printf(" %6.2f -> %6.2f", src[c * spatial + s], dst[c * spatial + s]);
    std::printf("\n");
  }

  // The same layer on the NHWC copy of the tensor gives the NHWC copy of the result.
  std::vector<float> srcNhwc(src.size()), dstNhwc(src.size());
  for (size_t c = 0; c < channels; ++c)
    for (size_t s = 0; s < spatial; ++s) srcNhwc[s * channels + c] = src[c * spatial + s];
  synetk::FusedLayer3<float, synetk::Nhwc>()(srcNhwc.data(), bias.data(), scale.data(),
                                             channels, spatial, dstNhwc.data());
  bool same = true;
  for (size_t c = 0; c < channels; ++c)
    for (size_t s = 0; s < spatial; ++s) same &= dstNhwc[s * channels + c] == dst[c * spatial + s];
  std::printf("NHWC result equals the transposed NCHW result: %s\n\n", same ? "yes" : "NO");

  // Type 4 writes 2*channels channels; bfloat16 tensors compute in fp32.
  std::vector<hwy::bfloat16_t> srcBf(src.size()), dstBf(2 * src.size());
  for (size_t i = 0; i < src.size(); ++i) srcBf[i] = hwy::BF16FromF32(src[i]);
  const float scale1 = -1.0f, bias1 = 0.0f;
  synetk::FusedLayer4<hwy::bfloat16_t, synetk::Nchw>()(srcBf.data(), bias.data(), &scale1, &bias1,
                                                       channels, spatial, dstBf.data());
  std::printf("FusedLayer4 in bfloat16 (relu(x) then relu(-x)) for channel 0:");
  for (size_t s = 0; s < spatial; ++s) std::printf(" %.2f", hwy::F32FromBF16(dstBf[s]));
  std::printf(" |");
  for (size_t s = 0; s < spatial; ++s) std::printf(" %.2f", hwy::F32FromBF16(dstBf[channels * spatial + s]));
  std::printf("\n");

  // Bad input is an exception that says what is wrong, not undefined behaviour.
  try {
    synetk::FusedLayer3<float, synetk::Nchw>()(src.data(), nullptr, scale.data(), channels, spatial, dst.data());
  } catch (const synetk::Error& e) {
    std::printf("\nrejected: %s\n", e.what());
  }
  return same ? 0 : 1;
}
