// Copyright synetk authors. SPDX-License-Identifier: MIT
// Fused layers against memcpy of the same bytes.
#include "bench_util.h"
#include "reference/fused_ref.h"
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
  Tensor<T> dst((type == 4 ? 2 * C : Ctot) * S);
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
  auto layer = [&] {
    if (nhwc) run(synetk::Nhwc());
    else run(synetk::Nchw());
  };
  if constexpr (std::is_same_v<T, float>) {
    // The tests' scalar reference (computes in double), for the SIMD speedup.
    const std::vector<float> ref0(src0.begin(), src0.end()), ref1(src1.begin(), src1.end());
    std::vector<float> plain;
    auto reference = [&] {
      const float* q = p.data();
      synetk_ref::Out o(0);
      switch (type) {
        case 0: o = synetk_ref::Fused0(ref0, q, q + C, C, S, nhwc); break;
        case 1: o = synetk_ref::Fused1(ref0, q, q + C, q, C, S, nhwc); break;
        case 2: o = synetk_ref::Fused2(ref0, q, q + C, C, S, &one, nhwc); break;
        case 3: o = synetk_ref::Fused3(ref0, q, q + C, C, S, nhwc); break;
        case 4: o = synetk_ref::Fused4(ref0, q, &one, &one, C, S, nhwc); break;
        case 8: o = synetk_ref::Fused8(ref0, ref1, q, C, S, nhwc); break;
        case 9: o = synetk_ref::Fused9(ref0, ref1, q, q + Ctot, C, C1, S, nhwc, plain); break;
      }
      benchmark::DoNotOptimize(o.val.data());
    };
    if (state.range(4) >= 0) {
      const int64_t target = BenchTargets()[state.range(4)];
      state.SetLabel(hwy::TargetName(target));
      ForceTarget force(target);
      TimeAgainstMemcpy(state, tr, layer, reference);
    } else {
      TimeAgainstMemcpy(state, tr, layer, reference);
    }
  } else {
    TimeAgainstMemcpy(state, tr, layer);
  }
}

// Shapes from real networks: cache-resident, odd, L2/L3-sized.
const std::pair<int, int> kShapes[] = {{32, 16 * 16},  {64, 56 * 56},   {256, 28 * 28},
                                       {24, 75 * 75},  {256, 112 * 112}};

void FusedArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"type", "C", "HW", "nhwc", "target"});
  for (int type : {0, 1, 2, 3, 4, 8, 9})
    for (int nhwc : {0, 1})
      for (auto [c, hw] : kShapes) b->Args({type, c, hw, nhwc, -1});
  b->UseManualTime();
}

void FusedSmallArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"type", "C", "HW", "nhwc", "target"});
  for (int type : {0, 3, 9})
    for (int nhwc : {0, 1}) b->Args({type, 64, 56 * 56, nhwc, -1});
  b->UseManualTime();
}

// The same case on each target the CPU supports: what each target buys.
void FusedTargetArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"type", "C", "HW", "nhwc", "target"});
  const int64_t n = static_cast<int64_t>(BenchTargets().size());
  for (int nhwc : {0, 1})
    for (int64_t t = 0; t < n; ++t) b->Args({3, 64, 56 * 56, nhwc, t});
  b->UseManualTime();
}

// Fused types 0 and 4 NCHW 64x56x56 fp32 with the output placed `ahead`
// bytes past the input modulo 4 KiB (4K aliasing: docs/fused.md, "Type 4
// NCHW"). Arguments: type, ahead.
void BM_FusedOffset(benchmark::State& state) {
  const int type = static_cast<int>(state.range(0));
  const size_t ahead = static_cast<size_t>(state.range(1));
  constexpr size_t C = 64, S = 56 * 56;
  const size_t inBytes = C * S * sizeof(float), outBytes = (type == 4 ? 2 : 1) * inBytes;
  const size_t dstAt = (inBytes + 4095) / 4096 * 4096 + 4096 + ahead;
  Tensor<uint8_t> buffer(4096 + dstAt + outBytes);
  const uintptr_t page = (reinterpret_cast<uintptr_t>(buffer.data()) + 4095) & ~uintptr_t{4095};
  auto* src = reinterpret_cast<float*>(page);
  auto* dst = reinterpret_cast<float*>(page + dstAt);
  const auto values = Random<float>(C * S);
  std::copy(values.begin(), values.end(), src);
  const auto p = Random<float>(2 * C);
  const float one = 0.5f;
  Traffic tr;
  tr.read = inBytes;
  tr.written = outBytes;
  TimeAgainstMemcpy(state, tr, [&] {
    if (type == 4) {
      synetk::FusedLayer4<float, synetk::Nchw>()(src, p.data(), &one, &one, C, S, dst);
    } else {
      synetk::FusedLayer0<float, synetk::Nchw>()(src, p.data(), p.data() + C, C, S, dst);
    }
  });
}

BENCHMARK_TEMPLATE(BM_Fused, float)->Apply(FusedArgs);
BENCHMARK(BM_FusedOffset)
    ->ArgNames({"type", "ahead"})
    ->ArgsProduct({{0, 4}, {0, 128, 2048}})
    ->UseManualTime();
BENCHMARK_TEMPLATE(BM_Fused, hwy::bfloat16_t)->Apply(FusedSmallArgs);
BENCHMARK_TEMPLATE(BM_Fused, hwy::float16_t)->Apply(FusedSmallArgs);
BENCHMARK_TEMPLATE(BM_Fused, float)->Name("BM_FusedPerTarget")->Apply(FusedTargetArgs);

}  // namespace
