// Copyright synetk authors. SPDX-License-Identifier: MIT
// Compile-once mode: this TU includes only synetk/declarations.h and calls
// functors that engine.cc instantiates, on every target the CPU runs.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "synetk/declarations.h"

int main() {
  const size_t C = 3, S = 37;
  std::vector<float> src(C * S), bias(C), scale(C), dst(C * S);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(int(i % 11) - 5) * 0.5f;
  for (size_t c = 0; c < C; ++c) {
    bias[c] = 0.25f * float(c) - 0.25f;
    scale[c] = 0.5f + float(c);
  }
  // NHWC 2x2 max pooling, stride 2, over a 4x6 image of 5 channels.
  const size_t PC = 5, H = 4, W = 6;
  std::vector<uint8_t> img(H * W * PC), pooled(2 * 3 * PC);
  for (size_t i = 0; i < img.size(); ++i) img[i] = static_cast<uint8_t>((i * 37) % 251);

  bool ok = true;
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(t);
    const bool chosen = synetk::ChosenTarget() == t;
    synetk::FusedLayer3<float, synetk::Nchw>()(src.data(), bias.data(), scale.data(), C, S,
                                               dst.data());
    synetk::PoolingMax<uint8_t, synetk::Nhwc>()(img.data(), PC, H, W, 2, 2, 2, 2, 0, 0,
                                                pooled.data(), 2, 3);
    hwy::SetSupportedTargetsForTest(0);
    bool same = chosen;
    for (size_t c = 0; c < C; ++c) {
      for (size_t s = 0; s < S; ++s) {
        const float x = src[c * S + s] + bias[c];  // exact: multiples of 1/4
        const float ref = (x > 0 ? x : 0.0f) + (x < 0 ? x : 0.0f) * scale[c];
        same = same && dst[c * S + s] == ref;
      }
    }
    for (size_t y = 0; y < 2; ++y) {
      for (size_t x = 0; x < 3; ++x) {
        for (size_t c = 0; c < PC; ++c) {
          uint8_t m = 0;
          for (size_t dy = 0; dy < 2; ++dy)
            for (size_t dx = 0; dx < 2; ++dx) {
              const uint8_t v = img[((2 * y + dy) * W + 2 * x + dx) * PC + c];
              m = v > m ? v : m;
            }
          same = same && pooled[(y * 3 + x) * PC + c] == m;
        }
      }
    }
    std::printf("%s%s ", hwy::TargetName(t), same ? "" : "(FAILED)");
    ok = ok && same;
  }
  std::printf("\n%s\n", ok ? "compile-once functors match the reference on every target"
                           : "FAILED");
  return ok ? 0 : 1;
}
