// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling layers against memcpy of the same bytes (input + output), on the
// shapes real networks use: ResNet stem 3x3 s2 p1, 2x2 s2, YOLO SPP 5x5 s1
// p2, global 7x7, and the 3-channel image 3x3 s2 p1.
#include "bench_util.h"
#include "synetk/synetk.h"

namespace {

using namespace synetk_bench;

template <typename T>
Tensor<T> PoolRandom(size_t n) {
  if constexpr (std::is_same_v<T, hwy::float16_t>) {
    // Finite f16 patterns of magnitude 1/8 .. 4, both signs.
    const auto r = Random<uint16_t>(n);
    Tensor<T> v(n);
    for (size_t i = 0; i < n; ++i) {
      const uint16_t bits = static_cast<uint16_t>((r[i] & 0x83FF) | ((12 + (r[i] >> 10) % 5) << 10));
      std::memcpy(&v[i], &bits, 2);
    }
    return v;
  } else {
    return Random<T>(n);
  }
}

// Arguments: op (0 max, 1 average), C, H (= W), kernel, stride, pad, nhwc.
template <typename T>
void BM_Pooling(benchmark::State& state) {
  const bool avg = state.range(0) != 0;
  const size_t C = state.range(1), H = state.range(2), k = state.range(3), s = state.range(4),
               p = state.range(5);
  const bool nhwc = state.range(6) != 0;
  const size_t D = (H + 2 * p - k) / s + 1;
  auto src = PoolRandom<T>(C * H * H);
  Tensor<T> dst(C * D * D);
  Traffic tr;
  tr.read = src.size() * sizeof(T);
  tr.written = dst.size() * sizeof(T);
  auto run = [&](auto fmt) {
    using F = decltype(fmt);
    if constexpr (std::is_integral_v<T>) {
      synetk::PoolingMax<T, F>()(src.data(), C, H, H, k, k, s, s, p, p, dst.data(), D, D);
    } else {
      if (avg) {
        synetk::PoolingAverage<T, F>()(src.data(), C, H, H, k, k, s, s, p, p, dst.data(), D, D,
                                       true);
      } else {
        synetk::PoolingMax<T, F>()(src.data(), C, H, H, k, k, s, s, p, p, dst.data(), D, D);
      }
    }
  };
  TimeAgainstMemcpy(state, tr, [&] {
    if (nhwc) run(synetk::Nhwc());
    else run(synetk::Nchw());
  });
}

void PoolingArgs(benchmark::internal::Benchmark* b, bool withAverage) {
  b->ArgNames({"avg", "C", "HW", "k", "s", "p", "nhwc"});
  const int shapes[][5] = {
      {64, 112, 3, 2, 1}, {256, 28, 2, 2, 0}, {32, 64, 5, 1, 2}, {512, 7, 7, 1, 0}, {3, 224, 3, 2, 1}};
  for (int avg = 0; avg <= (withAverage ? 1 : 0); ++avg)
    for (const auto& sh : shapes)
      for (int nhwc : {0, 1}) b->Args({avg, sh[0], sh[1], sh[2], sh[3], sh[4], nhwc});
  b->UseManualTime();
}
void FloatArgs(benchmark::internal::Benchmark* b) { PoolingArgs(b, true); }
void IntArgs(benchmark::internal::Benchmark* b) { PoolingArgs(b, false); }

BENCHMARK_TEMPLATE(BM_Pooling, float)->Apply(FloatArgs);
BENCHMARK_TEMPLATE(BM_Pooling, hwy::bfloat16_t)->Apply(FloatArgs);
BENCHMARK_TEMPLATE(BM_Pooling, hwy::float16_t)->Apply(FloatArgs);
BENCHMARK_TEMPLATE(BM_Pooling, uint8_t)->Apply(IntArgs);
BENCHMARK_TEMPLATE(BM_Pooling, int8_t)->Apply(IntArgs);

}  // namespace
