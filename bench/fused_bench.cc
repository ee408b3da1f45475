// Copyright synetk authors. SPDX-License-Identifier: MIT
// Fused layers against memcpy of the same bytes.
#include "bench_util.h"
#include "synetk/synetk.h"

namespace {

using namespace synetk_bench;

// Arguments: type, channels, spatial (H*W), format (0 NCHW, 1 NHWC).
template <typename T>
void BM_Fused(benchmark::State& state) {
  const int type = static_cast<int>(state.range(0));
  const size_t C = state.range(1), S = state.range(2);
  const bool nhwc = state.range(3) != 0;
  const size_t C1 = type == 9 ? C / 2 : 0, Ctot = C + C1;
  auto src0 = Random<T>(C * S), src1 = Random<T>((type == 9 ? C1 : C) * S);
  auto p = Random<float>(2 * Ctot);
  const float one = 0.5f;
  std::vector<T> dst((type == 4 ? 2 * C : Ctot) * S);
  Traffic tr;
  tr.read = (src0.size() + (type == 8 || type == 9 ? src1.size() : 0)) * sizeof(T);
  tr.written = dst.size() * sizeof(T);
  auto run = [&](auto fmt) {
    using F = decltype(fmt);
    const float* q = p.data();
    switch (type) {
      case 0: synetk::FusedLayer0<T, F>()(src0.data(), q, q + C, C, S, dst.data()); break;
      case 1: synetk::FusedLayer1<T, F>()(src0.data(), q, q + C, q, C, S, dst.data()); break;
      case 2: synetk::FusedLayer2<T, F>()(src0.data(), q, q + C, C, S, &one, dst.data()); break;
      case 3: synetk::FusedLayer3<T, F>()(src0.data(), q, q + C, C, S, dst.data()); break;
      case 4: synetk::FusedLayer4<T, F>()(src0.data(), q, &one, &one, C, S, dst.data()); break;
      case 8: synetk::FusedLayer8<T, F>()(src0.data(), src1.data(), q, C, S, dst.data()); break;
      case 9:
        synetk::FusedLayer9<T, F>()(src0.data(), src1.data(), q, q + Ctot, C, C1, S, dst.data(), nullptr);
        break;
    }
  };
  TimeAgainstMemcpy(state, tr, [&] {
    if (nhwc) run(synetk::Nhwc());
    else run(synetk::Nchw());
  });
}

void FusedArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"type", "C", "HW", "nhwc"});
  for (int type : {0, 1, 2, 3, 4, 8, 9})
    for (int nhwc : {0, 1})
      for (auto [c, hw] : {std::pair{32, 16 * 16}, std::pair{64, 56 * 56}, std::pair{256, 28 * 28},
                            std::pair{24, 75 * 75}, std::pair{256, 112 * 112}})
        b->Args({type, c, hw, nhwc});
  b->UseManualTime();
}

BENCHMARK_TEMPLATE(BM_Fused, float)->Apply(FusedArgs);

}  // namespace
