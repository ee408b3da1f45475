// Copyright synetk authors. SPDX-License-Identifier: MIT
// What each SIMD target buys, for the layer families other than fused (whose
// per-target cases are BM_FusedPerTarget): one headline case per family,
// forced to each target the CPU supports (the label names case and target).
#include "bench_util.h"
#include "synetk/synetk.h"

namespace {

using namespace synetk_bench;

enum Case { kNormalizeV2, kPoolMax3x3, kPoolAvg3x3, kGather, kQuantize, kConcat, kCases };

const char* const kCaseNames[] = {"normalizeV2/nchw/64x56x56", "poolmax3x3s2/nchw/64x112x112",
                                  "poolavg3x3s2/nchw/64x112x112", "gather/256x2048->1024",
                                  "quantize/f32->u8/64x56x56", "concat/u8/2x32x56x56"};

// Arguments: case, index into BenchTargets().
void BM_PerTarget(benchmark::State& state) {
  const auto which = static_cast<Case>(state.range(0));
  const int64_t target = BenchTargets()[state.range(1)];
  state.SetLabel(std::string(kCaseNames[which]) + " " + hwy::TargetName(target));
  ForceTarget force(target);
  switch (which) {
    case kNormalizeV2: {  // 64x56x56 NCHW fp32
      const size_t C = 64, S = 56 * 56;
      auto src = Random<float>(C * S);
      auto scale = Random<float>(C), shift = Random<float>(C);
      Tensor<float> dst(C * S);
      const float eps = 1e-5f;
      TimeAgainstMemcpy(state, Traffic{C * S * 4, C * S * 4}, [&] {
        synetk::NormalizeV2<float, synetk::Nchw>()(src.data(), 1, C, S, scale.data(),
                                                   shift.data(), &eps, nullptr, 0, dst.data());
      });
      break;
    }
    case kPoolMax3x3:
    case kPoolAvg3x3: {  // 64x112x112 NCHW fp32, 3x3 s2 p1 -> 56x56
      const size_t C = 64, H = 112, D = 56;
      auto src = Random<float>(C * H * H);
      Tensor<float> dst(C * D * D);
      TimeAgainstMemcpy(state, Traffic{src.size() * 4, dst.size() * 4}, [&] {
        if (which == kPoolMax3x3) {
          synetk::PoolingMax<float, synetk::Nchw>()(src.data(), C, H, H, 3, 3, 2, 2, 1, 1,
                                                    dst.data(), D, D);
        } else {
          synetk::PoolingAverage<float, synetk::Nchw>()(src.data(), C, H, H, 3, 3, 2, 2, 1, 1,
                                                        dst.data(), D, D, true);
        }
      });
      break;
    }
    case kGather: {  // [256, 2048, 1] -> 1024, fp32, int32 indices
      const size_t outer = 256, srcCount = 2048, idxCount = 1024;
      auto src = Random<float>(outer * srcCount);
      auto raw = Random<uint32_t>(outer * idxCount);
      Tensor<int32_t> idx(raw.size());
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int32_t>(raw[i] % srcCount);
      Tensor<float> dst(idx.size());
      synetk::GatherElements<float, int32_t> g({outer}, srcCount, 1, idxCount);
      TimeAgainstMemcpy(state, Traffic{idx.size() * 8, dst.size() * 4},
                        [&] { g.Forward(src.data(), idx.data(), dst.data()); });
      break;
    }
    case kQuantize: {  // 64x56x56 fp32 -> uint8
      const size_t n = 64 * 56 * 56;
      auto src = Random<float>(n);
      Tensor<uint8_t> dst(n);
      const float norm = 61.0f;
      TimeAgainstMemcpy(state, Traffic{n * 4, n}, [&] {
        synetk::QuantizeLinear<float, uint8_t>()(src.data(), n, &norm, 3, dst.data());
      });
      break;
    }
    case kConcat: {  // two 32x56x56 uint8 inputs
      const size_t half = 32 * 56 * 56;
      auto a = Random<uint8_t>(2 * half);
      Tensor<uint8_t> dst(2 * half);
      const uint8_t* srcs[2] = {a.data(), a.data() + half};
      const size_t sizes[2] = {half, half};
      const int32_t bias[2] = {-12, -130};
      const float norm[2] = {0.0213f, 0.0347f}, scale = 1.0f / 0.0419f;
      TimeAgainstMemcpy(state, Traffic{2 * half, 2 * half}, [&] {
        synetk::QuantizedConcat()(2, srcs, 1, sizes, bias, norm, &scale, 5, dst.data());
      });
      break;
    }
    default:
      state.SkipWithError("no such case");
  }
}

void PerTargetArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"case", "target"});
  const int64_t n = static_cast<int64_t>(BenchTargets().size());
  for (int c = 0; c < kCases; ++c)
    for (int64_t t = 0; t < n; ++t) b->Args({c, t});
  b->UseManualTime();
}

BENCHMARK(BM_PerTarget)->Apply(PerTargetArgs);

}  // namespace
