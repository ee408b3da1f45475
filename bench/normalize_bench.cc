// Copyright synetk authors. SPDX-License-Identifier: MIT
// Normalize layers V1 (both acrossSpatial modes), V2, V3, V4 against memcpy
// of the same bytes (the layer reads the tensor once and writes it once at
// best: the ideal is a ratio of 1).
#include "bench_util.h"
#include "synetk/synetk.h"

namespace {

using namespace synetk_bench;

// Arguments: version (1, 5 = V1 acrossSpatial, 2, 3, 4), channels, spatial
// (H*W), format (0 NCHW, 1 NHWC). Batch 1.
template <typename T>
void BM_Normalize(benchmark::State& state) {
  const int version = static_cast<int>(state.range(0));
  const size_t C = state.range(1), S = state.range(2);
  const bool nhwc = state.range(3) != 0;
  auto src = Random<T>(C * S);
  auto scale = Random<float>(C), shift = Random<float>(C);
  const float eps = 1e-5f;
  Tensor<T> dst(C * S);
  std::vector<float> ws(4 * C);  // the largest ScratchSize of any version
  Traffic tr;
  tr.read = src.size() * sizeof(T);
  tr.written = dst.size() * sizeof(T);
  auto run = [&](auto fmt) {
    using F = decltype(fmt);
    float* w = ws.data();
    const size_t n = ws.size();
    switch (version) {
      case 1:
      case 5:
        synetk::NormalizeV1<T, F>()(src.data(), 1, C, S, scale.data(), &eps, version == 5, w, n,
                                    dst.data());
        break;
      case 2: synetk::NormalizeV2<T, F>()(src.data(), 1, C, S, scale.data(), shift.data(), &eps, w, n, dst.data()); break;
      case 3: synetk::NormalizeV3<T, F>()(src.data(), 1, C, S, scale.data(), shift.data(), &eps, w, n, dst.data()); break;
      case 4: synetk::NormalizeV4<T, F>()(src.data(), 1, C, S, scale.data(), shift.data(), &eps, w, n, dst.data()); break;
    }
  };
  TimeAgainstMemcpy(state, tr, [&] {
    if (nhwc) run(synetk::Nhwc());
    else run(synetk::Nchw());
  });
}

void NormalizeArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"ver", "C", "HW", "nhwc"});
  for (int version : {1, 5, 2, 3, 4})
    for (int nhwc : {0, 1})
      for (auto [c, hw] : {std::pair{64, 56 * 56}, std::pair{256, 28 * 28}})
        b->Args({version, c, hw, nhwc});
  b->UseManualTime();
}

BENCHMARK_TEMPLATE(BM_Normalize, float)->Apply(NormalizeArgs);
BENCHMARK_TEMPLATE(BM_Normalize, hwy::bfloat16_t)->Apply(NormalizeArgs);

}  // namespace
