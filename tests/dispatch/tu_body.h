// Copyright synetk authors. SPDX-License-Identifier: MIT
// Body shared by the TUs of the dispatch test; each TU compiles it with its
// own flags and exposes it under its own function name (TU_ENTRY).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "synetk/synetk.h"
#include "tu_report.h"

#define SYNETK_TEST_STR_(x) #x
#define SYNETK_TEST_STR(x) SYNETK_TEST_STR_(x)

TuReport TU_ENTRY() {
  TuReport r;
  r.abi = SYNETK_TEST_STR(SYNETK_ABI);
#if HWY_TARGETS & HWY_SSE4
  using Cfg = synetk::detail::FusedCfg<3, float, synetk::Nchw>;
  r.sse4Kernel = reinterpret_cast<const void*>(&synetk::N_SSE4::FusedKernel<Cfg>);
#endif
  const size_t C = 5, S = 37;
  std::vector<float> src(C * S), scale(C), bias(C), dst(C * S);
  for (size_t i = 0; i < src.size(); ++i) src[i] = std::sin(0.37f * i) * 3.0f;
  for (size_t c = 0; c < C; ++c) {
    scale[c] = 0.1f * (c + 1);
    bias[c] = 0.25f * c - 0.5f;
  }
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(t);
    const bool chosen = synetk::ChosenTarget() == t;
    synetk::FusedLayer3<float, synetk::Nchw>()(src.data(), bias.data(), scale.data(), C, S, dst.data());
    hwy::SetSupportedTargetsForTest(0);
    bool same = chosen;
    for (size_t c = 0; c < C; ++c)
      for (size_t s = 0; s < S; ++s) {
        const double x = double(src[c * S + s]) + bias[c];
        const double ref = (x > 0 ? x : 0) + (x < 0 ? x : 0) * scale[c];
        same = same && std::fabs(dst[c * S + s] - ref) <= 1e-5 * (1 + std::fabs(ref));
      }
    r.targets.push_back(std::string(hwy::TargetName(t)) + (same ? "" : "(FAILED)"));
    r.ok = r.ok && same;
  }
  return r;
}
