// Copyright synetk authors. SPDX-License-Identifier: MIT
// Fused layers against memcpy of the same bytes.
#include "bench_util.h"
#include "reference/fused_ref.h"
#include "synetk/synetk.h"

#if HWY_ARCH_X86
#include <immintrin.h>
#endif

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
                                       {24, 75 * 75},  {256, 112 * 112}, {512, 7 * 7}};

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

// A plain copy loop of 64-byte vectors (AVX-512 where the CPU has it, else
// 32-byte AVX2), for BM_FusedCopyLoop: what any loop that loads and stores
// through the cache achieves on these buffers. Returns false where neither
// runs.
#if HWY_ARCH_X86 && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f"), noinline)) void CopyLoop512(const float* s, float* d,
                                                               size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(d + i, _mm512_loadu_ps(s + i));
  for (; i < n; ++i) d[i] = s[i];
}
__attribute__((target("avx2"), noinline)) void CopyLoop256(const float* s, float* d, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, _mm256_loadu_ps(s + i));
  for (; i < n; ++i) d[i] = s[i];
}
bool CopyLoop(const float* s, float* d, size_t n) {
  static const int width = __builtin_cpu_supports("avx512f") ? 512
                           : __builtin_cpu_supports("avx2")  ? 256
                                                             : 0;
  if (width == 512) CopyLoop512(s, d, n);
  if (width == 256) CopyLoop256(s, d, n);
  return width != 0;
}
#else
bool CopyLoop(const float*, float*, size_t) { return false; }
#endif

// Fused type 0 fp32 beside a plain copy loop over the same buffers, each
// followed by memcpy of the same traffic (as TimeAgainstMemcpy). Counters:
// memcpy_ratio (the layer's), copy_loop_ratio (the loop's: median memcpy /
// median loop time) and layer_vs_loop (median loop / median layer time).
// On the Zen 5 VM the fused headline cases read 0.87-0.95 of memcpy in some
// runs and 0.74-0.85 in others, and the plain loop moved with them
// (docs/performance.md, "The fused layers and a plain copy loop").
// Arguments: channels, spatial, format.
void BM_FusedCopyLoop(benchmark::State& state) {
  const size_t C = state.range(0), S = state.range(1), n = C * S;
  const bool nhwc = state.range(2) != 0;
  const auto src = Random<float>(n);
  const auto p = Random<float>(2 * C);
  Tensor<float> dst(n);
  const size_t copyBytes = n * sizeof(float);
  auto from = hwy::AllocateAligned<uint8_t>(copyBytes);
  auto to = hwy::AllocateAligned<uint8_t>(copyBytes);
  std::memset(from.get(), 1, copyBytes);
  std::memset(to.get(), 0, copyBytes);
  const auto layer = [&] {
    if (nhwc) {
      synetk::FusedLayer0<float, synetk::Nhwc>()(src.data(), p.data(), p.data() + C, C, S,
                                                dst.data());
    } else {
      synetk::FusedLayer0<float, synetk::Nchw>()(src.data(), p.data(), p.data() + C, C, S,
                                                dst.data());
    }
  };
  if (!CopyLoop(src.data(), dst.data(), n)) {
    state.SkipWithError("no AVX2 or AVX-512 copy loop on this CPU");
    return;
  }
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  const auto copy = [&] {
    std::memcpy(to.get(), from.get(), copyBytes);
    benchmark::ClobberMemory();
  };
  std::vector<double> tLayer, tLoop, tCopy;
  layer();
  copy();
  for (auto _ : state) {
    const auto t0 = Clock::now();
    layer();
    const auto t1 = Clock::now();
    copy();
    const auto t2 = Clock::now();
    CopyLoop(src.data(), dst.data(), n);
    benchmark::ClobberMemory();
    const auto t3 = Clock::now();
    copy();
    const auto t4 = Clock::now();
    tLayer.push_back(seconds(t0, t1));
    tCopy.push_back(seconds(t1, t2));
    tLoop.push_back(seconds(t2, t3));
    tCopy.push_back(seconds(t3, t4));
    state.SetIterationTime(seconds(t0, t1));
  }
  const double ml = Median(tLayer), mp = Median(tLoop), mc = Median(tCopy);
  state.counters["memcpy_ratio"] = mc / ml;
  state.counters["copy_loop_ratio"] = mc / mp;
  state.counters["layer_vs_loop"] = mp / ml;
  state.counters["layer_us"] = ml * 1e6;
  state.counters["memcpy_us"] = mc * 1e6;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * copyBytes));
  RandomEngine().seed(kRandomSeed);
}

BENCHMARK_TEMPLATE(BM_Fused, float)->Apply(FusedArgs);
BENCHMARK(BM_FusedOffset)
    ->ArgNames({"type", "ahead"})
    ->ArgsProduct({{0, 4}, {0, 128, 2048}})
    ->UseManualTime();
BENCHMARK(BM_FusedCopyLoop)
    ->ArgNames({"C", "HW", "nhwc"})
    ->Args({64, 56 * 56, 0})
    ->Args({64, 56 * 56, 1})
    ->Args({256, 28 * 28, 0})
    ->Args({256, 28 * 28, 1})
    ->UseManualTime();
BENCHMARK_TEMPLATE(BM_Fused, hwy::bfloat16_t)->Apply(FusedSmallArgs);
BENCHMARK_TEMPLATE(BM_Fused, hwy::float16_t)->Apply(FusedSmallArgs);
BENCHMARK_TEMPLATE(BM_Fused, float)->Name("BM_FusedPerTarget")->Apply(FusedTargetArgs);

}  // namespace
